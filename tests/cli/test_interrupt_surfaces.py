"""Ctrl-C that a compiled library turns into another exception still ends a command with
one line and exit 130 (matplotlib's C++ transforms turn it into a TypeError)."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator

import pytest
import typer

from relplan.cli.common import reports_errors
from relplan.errors import INTERRUPTED_EXIT_CODE


@pytest.fixture
def python_sigint_handler() -> Iterator[None]:
    """SIGINT handled by Python's own handler, as in a terminal (a test run started under
    ``nohup`` inherits it ignored)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def _interrupted_inside_a_library() -> None:
    """A command whose Ctrl-C comes out of a library as a TypeError, as pybind11 does."""
    try:
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(5.0)  # the handler raises KeyboardInterrupt here, at once
    except KeyboardInterrupt:
        raise TypeError("affine_transform(): incompatible function arguments") from None


def test_an_interrupt_surfacing_as_another_exception_exits_130(python_sigint_handler,
                                                               capsys) -> None:  # fmt: skip
    with pytest.raises(typer.Exit) as exited:
        reports_errors(_interrupted_inside_a_library)()
    assert exited.value.exit_code == INTERRUPTED_EXIT_CODE
    assert capsys.readouterr().err.strip() == "interrupted"
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # put back


def test_the_same_exception_without_an_interrupt_is_not_hidden(python_sigint_handler) -> None:
    def broken() -> None:
        raise TypeError("a real bug")

    with pytest.raises(TypeError, match="a real bug"):
        reports_errors(broken)()
