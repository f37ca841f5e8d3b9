"""The ``relplan`` command's entry point: the command line, with Ctrl-C handled even
while it starts up.

Ctrl-C during a command is :func:`relplan.cli.common.reports_errors`'s to handle; this
guard covers what comes before, the imports and the parsing of the arguments, so that an
early Ctrl-C also ends with one line, ``interrupted``, and exit code 130, not a traceback.
"""

from __future__ import annotations

import sys

from relplan.errors import INTERRUPTED_EXIT_CODE


def run() -> None:
    """Run the ``relplan`` command line (``python -m relplan`` and the console script)."""
    try:
        from relplan.cli.app import app

        app(prog_name="relplan")
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        sys.exit(INTERRUPTED_EXIT_CODE)
