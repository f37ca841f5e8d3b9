"""``python -m relplan``: the command line."""

from relplan.cli.entry import run

if __name__ == "__main__":
    run()
