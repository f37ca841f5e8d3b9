"""What the first run says while numba compiles the engine: a live count of seconds.

On a terminal the notice is one line that counts the elapsed seconds until the compile is
done, then says how long it took. Under a live display (the CLI's progress bar, which
redirects stderr and counts the elapsed seconds itself) it is a line when the compile
starts and one when it is done. Anywhere else (a log, a pipe) it is a single line written
when the compile is done, so that logs hold no carriage returns.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

NOTICE = "relplan: compiling the engine for first use (cached afterwards)"
"""The words of the notice; the elapsed seconds follow them (the whole fits 80 columns)."""

TICK_SECONDS = 1.0
"""How often the live notice counts, seconds."""


def _is_terminal(stream: TextIO) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # a closed or unusual stream
        return False


@contextmanager
def compiling_notice(stream: TextIO | None = None, tick_seconds: float = TICK_SECONDS,
                     words: str = NOTICE) -> Iterator[None]:  # fmt: skip
    """Say what is compiling while the body runs, with the seconds elapsed.

    Parameters
    ----------
    stream : file, optional
        Where to write (default: ``sys.stderr`` at the time of the call).
    tick_seconds : float
        Seconds between two counts on a terminal.
    words : str
        What is compiling (default :data:`NOTICE`); the seconds follow them.

    Examples
    --------
    >>> import io
    >>> out = io.StringIO()
    >>> with compiling_notice(out):
    ...     pass
    >>> out.getvalue()
    'relplan: compiling the engine for first use (cached afterwards): done in 0 s\\n'
    """
    stream = sys.stderr if stream is None else stream
    under_display = hasattr(stream, "rich_proxied_file")  # rich's stderr under a live bar
    live = _is_terminal(stream) and not under_display
    start = time.monotonic()
    done = threading.Event()

    def count() -> None:
        while not done.wait(tick_seconds):
            stream.write(f"\r{words}: {time.monotonic() - start:.0f} s")
            stream.flush()

    ticker = threading.Thread(target=count, name="relplan-compile-notice", daemon=True)
    if live:
        stream.write(f"{words}: 0 s")
        stream.flush()
        ticker.start()
    elif under_display:
        stream.write(f"{words}...\n")
        stream.flush()
    try:
        yield
    finally:
        done.set()
        if live:
            ticker.join()
        ending = "\r" if live else ""
        stream.write(f"{ending}{words}: done in {time.monotonic() - start:.0f} s\n")
        stream.flush()
