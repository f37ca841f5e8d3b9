"""``python -m relplan``: the command line."""

from relplan.cli.app import app

app(prog_name="relplan")
