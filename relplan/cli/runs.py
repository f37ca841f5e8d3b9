"""How a command runs its points and writes its folder: one home for what ``sweep``,
``compare`` and ``plan`` share (the workers, Dask, the pool of processes, the store of
finished points, the count told before the work) and for the output folder every command
writes as one run.

Light like all of :mod:`relplan.cli`: the library is imported inside each function.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from relplan.analysis.executor import PointPool
    from relplan.analysis.store import PointStore


def point_workers(option: int | None, config: Any) -> int:
    """The points run at once: ``--workers``, else the config's ``simulation.workers``
    when its file sets it, else every core."""
    from relplan.analysis.executor import configured_workers, default_workers

    return default_workers(option if option is not None else configured_workers(config))


@contextmanager
def running_points(workers: int, dask: str | None, points: int | None,
                   store_folder: Path | None, fresh: bool,
                   ) -> Iterator[tuple[PointPool, PointStore | None]]:  # fmt: skip
    """Connect to Dask (``--dask``), start the pool of worker processes and open the
    store of finished points, in that order, and close them all after.

    The workers start before any progress bar's thread and before the store's
    connection: forked from this process, with no other thread and no SQLite handle.

    Parameters
    ----------
    workers : int
        Points at once (see :func:`point_workers`).
    dask : str, optional
        ``--dask``: "local" or a scheduler address (checked first, see
        :func:`relplan.analysis.executor.dask_client`).
    points : int, optional
        Points to run, when known (no more processes start than points).
    store_folder : Path, optional
        The output folder holding ``points.sqlite`` (None: nothing is stored).
    fresh : bool
        ``--fresh``: ignore the points stored before.

    Yields
    ------
    tuple
        The :class:`~relplan.analysis.executor.PointPool` and the
        :class:`~relplan.analysis.store.PointStore` (or None).
    """
    from relplan.analysis.executor import PointPool, dask_client
    from relplan.analysis.store import STORE_NAME, PointStore

    with ExitStack() as stack:
        client = (stack.enter_context(dask_client(dask, workers=workers))
                  if dask is not None else None)  # fmt: skip
        processes = workers if points is None else min(workers, points)
        pool = stack.enter_context(PointPool(processes, client)).start()
        store = None
        if store_folder is not None:
            store = stack.enter_context(PointStore(store_folder / STORE_NAME, fresh))
        yield pool, store


def note_reused(store: PointStore | None, total: int | None, what: str) -> None:
    """Say on stderr how many of the run's points came from the store."""
    if store is None or not store.reused:
        return
    of = f" of {total}" if total is not None else ""
    note(f"reused {store.reused}{of} {what} finished before ({store.path}; --fresh "
         "ignores them)")


def announce_points(model: Any, points: int, trials: int, workers: int, confirmed: bool,
                    what: str = "points") -> None:  # fmt: skip
    """Tell at once, on stderr, how many points a run has and about what it takes, and
    refuse more than :data:`~relplan.analysis.run_size.POINT_LIMIT` without ``--yes``."""
    from relplan.analysis.run_size import check_point_count, run_size

    note(run_size(model, points, trials, workers).sentence(what))
    check_point_count(points, confirmed, what)


def note(text: str) -> None:
    """One line of information on stderr (stdout stays for the results)."""
    from relplan.cli.render import error_console

    error_console.print(text, highlight=False, markup=False, soft_wrap=True)


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
