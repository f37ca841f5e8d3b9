"""What a command tells on stderr while it runs (stdout stays for the results): one line of
information, the count before the work, the points reused from the store, the files
written as one run.

The set-up itself (the workers, Dask, the pool, the store) is the library's,
:mod:`relplan.runs.resources`. Light like all of :mod:`relplan.cli`: the library is
imported inside each function.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from relplan.runs.store import PointStore


def note(text: str) -> None:
    """One line of information on stderr (stdout stays for the results)."""
    from relplan.cli.render import error_console

    error_console.print(text, highlight=False, markup=False, soft_wrap=True)


def note_reused(store: PointStore | None, total: int | None, what: str) -> None:
    """Say on stderr how many of the run's points came from the store."""
    from relplan.runs.resources import reused_sentence

    sentence = reused_sentence(store, total, what)
    if sentence is not None:
        note(sentence)


def announce_points(model: Any, points: int, trials: int, workers: int, confirmed: bool,
                    what: str = "points") -> None:  # fmt: skip
    """Tell at once, on stderr, how many points a run has and about what it takes, and
    refuse more than :data:`~relplan.runs.run_size.POINT_LIMIT` without ``--yes``."""
    from relplan.runs import resources

    resources.announce_points(model, points, trials, workers, confirmed, note, what)


def write_outputs(directory: Path, write: Callable[[Path], list[Path]]) -> list[Path]:
    """Write a command's files into ``directory`` as one run and say so on stderr.

    See :func:`relplan.output.files.write_run`: a Ctrl-C leaves the previous run or this
    one, never a mix.

    Returns
    -------
    list of Path
        The files written.
    """
    from relplan.output.files import write_run

    written = write_run(directory, write)
    names = ", ".join(str(p.relative_to(directory)) for p in written)
    note(f"wrote {len(written)} files to {directory}: {names}")
    return written
