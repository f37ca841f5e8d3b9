"""Ctrl-C while the command line is still starting (importing, parsing) ends like Ctrl-C
during a run: one line, ``interrupted``, exit 130, no traceback."""

from __future__ import annotations

import signal
import subprocess
import sys


def test_sigint_during_start_up_is_one_line_and_exit_130() -> None:
    # the interrupt arrives while `relplan.cli.app` is being imported: a module that
    # raises KeyboardInterrupt stands in for it, deterministically
    code = (
        "import sys, types\n"
        "boom = types.ModuleType('relplan.cli.app')\n"
        "def __getattr__(name):\n"
        "    raise KeyboardInterrupt\n"
        "boom.__getattr__ = __getattr__\n"
        "sys.modules['relplan.cli.app'] = boom\n"
        "from relplan.cli.entry import run\n"
        "run()\n"
    )
    process = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             timeout=60, preexec_fn=lambda: signal.signal(
                                 signal.SIGINT, signal.SIG_DFL))  # fmt: skip
    assert process.returncode == 130
    assert "Traceback" not in process.stderr
    assert process.stderr.strip() == "interrupted"
