"""``python -m relplan``: the command line."""

from relplan.cli import app

app(prog_name="relplan")
