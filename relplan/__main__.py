"""``python -m relplan``: the command line."""

from relplan.cli.app import app

if __name__ == "__main__":
    app(prog_name="relplan")
