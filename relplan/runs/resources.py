"""What a run of many points runs on and keeps: how many points run at once, the Dask
client, the pool of worker processes, the store of finished points in the run's output
folder, and the count told before the work.

One home for what ``sweep``, ``compare`` and ``plan`` set up before their points run, so
the command line and the Python API take the same ``workers``, ``dask`` and ``store``
and set them up the same way (the command line only parses and tells).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

from relplan.runs.executor import PointPool, configured_workers, dask_client, default_workers
from relplan.runs.run_size import check_point_count, run_size
from relplan.runs.store import STORE_NAME, PointStore


def point_workers(option: int | None, config: Any) -> int:
    """The points run at once: ``option`` (``--workers``, ``workers=``) when given, else the
    config's ``simulation.workers`` when its file sets it, else every core.

    Parameters
    ----------
    option : int, optional
        The workers asked for.
    config : RelplanConfig
        The config whose ``[simulation]`` may set them (the first scenario's, the study's
        base, the plan's base).

    Returns
    -------
    int
        Points at once (at least 1).

    Examples
    --------
    >>> from relplan.config.loading import load_config
    >>> point_workers(3, load_config("configs/small.toml"))
    3
    """
    return default_workers(option if option is not None else configured_workers(config))


def store_in(folder: Path | None) -> Path | None:
    """The store's file of an output folder (its :data:`~relplan.runs.store.STORE_NAME`),
    or None without a folder.

    Examples
    --------
    >>> store_in(Path("out/study")).as_posix(), store_in(None)
    ('out/study/points.sqlite', None)
    """
    return folder / STORE_NAME if folder is not None else None


@contextmanager
def running_points(workers: int, dask: Any, points: int | None, store: Path | PointStore | None,
                   fresh: bool, dask_key: str = "--dask",
                   ) -> Iterator[tuple[PointPool, PointStore | None]]:  # fmt: skip
    """Connect to Dask, start the pool of worker processes and open the store of finished
    points, in that order, and close them all after (what was given open is left open).

    The workers start before any progress bar's thread and before the store's
    connection: forked from this process, with no other thread and no SQLite handle (a
    store given open was opened before; the workers never use it).

    Parameters
    ----------
    workers : int
        Points at once (see :func:`point_workers`).
    dask : str or distributed.Client, optional
        "local" (a cluster of ``workers`` workers in this process) or a scheduler address,
        checked first (see :func:`relplan.runs.executor.dask_client`); or a client
        already connected, used as it is; None: local processes.
    points : int, optional
        Points to run, when known (no more processes start than points).
    store : Path or PointStore, optional
        The store's file (an output folder's :data:`~relplan.runs.store.STORE_NAME`, see
        :func:`store_in`), opened here; or a store already open, used as it is; None:
        nothing is stored.
    fresh : bool
        Ignore the points stored before in the file (they are replaced as the run
        finishes them).
    dask_key : str
        What names ``dask`` in an error (``--dask`` on the command line, ``dask`` from
        Python).

    Yields
    ------
    tuple
        The started :class:`~relplan.runs.executor.PointPool` and the
        :class:`~relplan.runs.store.PointStore` (or None).

    Examples
    --------
    >>> with running_points(1, None, 2, None, fresh=False) as (pool, store):
    ...     store is None
    True
    """
    with ExitStack() as stack:
        client = dask
        if isinstance(dask, str):
            client = stack.enter_context(dask_client(dask, workers=workers, key=dask_key))
        processes = workers if points is None else min(workers, points)
        pool = stack.enter_context(PointPool(processes, client)).start()
        if isinstance(store, Path):
            store = stack.enter_context(PointStore(store, fresh))
        yield pool, store


def reused_sentence(store: PointStore | None, total: int | None, what: str) -> str | None:
    """How many of a run's points came from the store, as one sentence (None: none did).

    Parameters
    ----------
    store : PointStore, optional
        The run's store, after the run.
    total : int, optional
        The run's points, when known.
    what : str
        What a point is, plural ("points", "scenarios", "portfolio runs").

    Returns
    -------
    str or None
        E.g. "reused 3 of 4 points finished before (out/points.sqlite; --fresh ignores
        them)".
    """
    if store is None or not store.reused:
        return None
    of = f" of {total}" if total is not None else ""
    return (f"reused {store.reused}{of} {what} finished before ({store.path}; --fresh "
            "ignores them)")


def announce_points(model: Any, points: int, trials: int, workers: int, confirmed: bool,
                    tell: Callable[[str], None], what: str = "points") -> None:  # fmt: skip
    """Tell at once how many points a run has and about what it takes, then refuse more
    than :data:`~relplan.runs.run_size.POINT_LIMIT` unless ``confirmed``.

    Parameters
    ----------
    model : SimulationModel
        A representative point's model (for the time and memory estimate).
    points : int
        Points to run.
    trials : int
        Trials per point.
    workers : int
        Points at once.
    confirmed : bool
        ``--yes``: run more than the limit.
    tell : callable
        Given the sentence (the command line prints it on stderr).
    what : str, optional
        What a point is, plural.

    Raises
    ------
    ConfigError
        More points than the limit, not confirmed.
    """
    tell(run_size(model, points, trials, workers).sentence(what))
    check_point_count(points, confirmed, what)
