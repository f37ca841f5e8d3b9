"""Where the points of a sweep, a comparison or a plan run: local processes (the default),
this process, or a Dask cluster; the numbers are the same everywhere.

A *point* (a study point, a compared scenario, a plan's portfolio run) is a pure function
of its config, seed and trials: every trial draws from its own stream seeded from the
seed (see :mod:`relplan.sim.engine`), so where and in which order points run changes no
number. :class:`PointPool` runs a list of points and hands each result back to the
calling process the moment it finishes, so that the caller stores it at once
(:class:`relplan.runs.store.PointStore`) and counts it.

Executors:

- **one worker**: the points run one after another in this process, each walk on every
  core (the engine's own threads, :data:`relplan.sim.timeline.WALK_THREADS`);
- **local processes** (``workers > 1``, the default with ``workers`` = every core): a
  :class:`concurrent.futures.ProcessPoolExecutor` of ``workers`` processes. Forked from
  this process when it runs no other thread at the time (:meth:`PointPool.start`: the
  command line starts them before its progress bar), they begin with everything it
  has loaded and computed: the modules, the compiled engine, the models' caches (the
  checks before the work build every point's model). Otherwise (another thread runs,
  or no ``fork``) they come from a fork server that has imported relplan once: a worker
  then costs a fork, about 1 s to load the compiled engine from numba's disk cache, and
  its own model caches;
- **Dask**: a connected ``distributed.Client`` (see :func:`dask_client`).

Threads. A point's engine spreads its trials over :data:`~relplan.sim.timeline.WALK_THREADS`
threads, and walks within one process take turns (one lock). So that processes times
threads does not exceed the cores, each worker process walks on ``cores // workers``
threads (at least 1): with as many workers as cores, one point per core, each walked
serially; with one worker, one point at a time on every core.

Interrupts. Worker processes ignore SIGINT from birth (they, or the fork server, are
started while the calling process ignores SIGINT for a moment, and inherit that), so a
Ctrl-C in the terminal reaches only the calling process: its KeyboardInterrupt cancels
the points not started and kills the workers at once (their unfinished points are lost;
finished ones are already stored). A worker whose calling process dies (even by
SIGKILL) exits within :data:`ORPHAN_POLL_SECONDS`, and the fork server with it.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from types import TracebackType
from typing import Any

DASK_CONNECT_SECONDS = 5
"""How long to wait for a Dask scheduler before giving up, seconds."""

ORPHAN_POLL_SECONDS = 0.5
"""How often a worker process checks that the process that started it is alive, seconds."""

WAIT_SECONDS = 0.25
"""How long the calling process waits for a finished point at a time, seconds (so that
a Ctrl-C is handled at once)."""

MANAGER_JOIN_SECONDS = 5
"""How long an interrupted pool waits for its executor's manager thread to end, seconds
(a hang guard: it ends within milliseconds of its workers)."""

PRELOAD = ("relplan.runs.sweep", "relplan.runs.planner", "relplan.runs.compare")
"""Modules the fork server imports once, so that every worker starts with them loaded."""

WALK_THREAD_PREFIX = "relplan-walk"
"""The name prefix of the engine's walk threads (:func:`relplan.sim.timeline.walk_trials`)."""

Progress = Callable[[int, int], None]
"""A progress callback: called with trials and points newly finished, ``(trials, 0)`` for
a block of trials, ``(0, 1)`` or ``(trials, 1)`` for a finished point."""


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity, else every CPU).

    Examples
    --------
    >>> available_cores() >= 1
    True
    """
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def default_workers(configured: int | None = None) -> int:
    """The workers of a run of points: those asked for, else every core.

    Parameters
    ----------
    configured : int, optional
        ``--workers``, or a config's ``simulation.workers`` when it sets it.

    Examples
    --------
    >>> default_workers(3)
    3
    >>> default_workers(None) == available_cores()
    True
    """
    return configured if configured is not None else available_cores()


def configured_workers(config: Any) -> int | None:
    """A config's ``simulation.workers`` when the file sets it, else None (every core).

    Parameters
    ----------
    config : RelplanConfig
        A validated config.

    Examples
    --------
    >>> from relplan.config.loading import load_config
    >>> configured_workers(load_config("configs/small.toml", ["simulation.workers=3"]))
    3
    """
    settings = config.simulation
    return settings.workers if "workers" in settings.model_fields_set else None


def block_progress(progress: Progress | None) -> Callable[[int], None] | None:
    """The engine's per-block callback (trials) of a :data:`Progress` callback."""
    if progress is None:
        return None
    return lambda trials: progress(trials, 0)


def engine_threads(workers: int) -> int:
    """The engine threads each of ``workers`` worker processes walks on: its share of
    the cores, at least 1.

    Examples
    --------
    >>> engine_threads(10 * available_cores())
    1
    """
    return max(1, available_cores() // max(1, workers))


def _parent_alive(parent: Any) -> bool:
    """Whether ``parent`` (a psutil.Process) still runs (not exited, not a zombie)."""
    import psutil

    try:
        return parent.is_running() and parent.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def _start_worker(threads: int, parent_pid: int) -> None:
    """Set up a worker process (its initializer): walk on ``threads`` threads, ignore
    SIGINT, and exit when the process that started the pool (``parent_pid``) is gone.

    The fork server, not that process, is a worker's parent, and it outlives that process
    while workers hold its pipe; so the worker watches that process itself (psutil tells
    a reused pid from the original by its start time)."""
    import psutil

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    from relplan.sim import timeline

    # WALK_THREADS is read when a walk starts and when the walk pool is made (the pool is
    # made afresh in a forked child), so setting it here bounds this process's threads.
    timeline.WALK_THREADS = threads
    try:
        parent = psutil.Process(parent_pid)
    except psutil.Error:
        os._exit(1)

    def watch() -> None:
        while _parent_alive(parent):
            time.sleep(ORPHAN_POLL_SECONDS)
        os._exit(1)

    threading.Thread(target=watch, name="relplan-orphan-watch", daemon=True).start()


def _alone() -> bool:
    """Whether this is the main thread and no other Python thread runs (so that a fork
    copies no lock another thread holds), but the engine's idle walk threads: walks run
    only while the thread that started them waits, and a forked child makes its own."""
    if threading.current_thread() is not threading.main_thread():
        return False
    return all(thread is threading.current_thread()
               or thread.name.startswith(WALK_THREAD_PREFIX)
               for thread in threading.enumerate())  # fmt: skip


@contextmanager
def _sigint_ignored() -> Iterator[None]:
    """Ignore SIGINT in this process for a moment (from the main thread only): the
    processes started meanwhile inherit SIG_IGN, and a Python started with SIGINT ignored
    keeps it ignored (its KeyboardInterrupt handler replaces only the default action)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _process_context(fork: bool) -> Any:
    """The multiprocessing context of the workers: ``fork`` when asked, else a fork server
    that has relplan loaded and ignores SIGINT (``spawn`` where there is none)."""
    import multiprocessing

    if fork:
        return multiprocessing.get_context("fork")
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    from multiprocessing import forkserver

    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(list(PRELOAD))
    with _sigint_ignored():
        forkserver.ensure_running()
    return context


class PointPool:
    """Runs points in this process, on local processes or on Dask (see the module).

    Parameters
    ----------
    workers : int
        Points at once: 1 runs them here, one after another; more starts that many local
        processes (when the first batch needs them). Ignored with ``client``.
    client : distributed.Client, optional
        Run the points on this Dask cluster instead.

    Examples
    --------
    >>> with PointPool(1) as pool:
    ...     sorted(pool.run(pow, [(2, 3), (3, 2)]))
    [(0, 8), (1, 9)]
    """

    def __init__(self, workers: int = 1, client: Any = None) -> None:
        self.workers = max(1, int(workers))
        self.client = client
        self._processes: Any = None

    @property
    def local(self) -> bool:
        """Whether the points run in this process (so per-block progress reaches it)."""
        return self.client is None and self.workers == 1

    def start(self) -> PointPool:
        """Start the worker processes now (nothing in this process or on Dask).

        Started while this process runs no other thread (before a progress bar starts its
        own), they are forked from it and begin with everything it has loaded and
        computed (modules, the compiled engine, the models' caches); otherwise they come
        from the fork server (see the module). Either way they ignore SIGINT.
        """
        if self.client is None and self.workers > 1:
            self._pool()
        return self

    def _pool(self) -> Any:
        if self._processes is None:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            fork = "fork" in multiprocessing.get_all_start_methods() and _alone()
            pool = ProcessPoolExecutor(
                self.workers, mp_context=_process_context(fork), initializer=_start_worker,
                initargs=(engine_threads(self.workers), os.getpid()),
            )  # fmt: skip
            if fork:  # a fork pool starts every worker at its first task: now, alone
                with _sigint_ignored():
                    pool.submit(int).result()
            self._processes = pool
        return self._processes

    def run(self, function: Callable[..., Any], tasks: Sequence[tuple],
            ) -> Iterator[tuple[int, Any]]:  # fmt: skip
        """Run ``function(*task)`` for every task; yield ``(index, result)`` as each ends.

        In this process the tasks run in order; elsewhere in the order they finish. An
        error in a point is raised here, and stops the others.

        Parameters
        ----------
        function : callable
            A module-level function (it is pickled by name for processes and Dask).
        tasks : sequence of tuple
            Its arguments, one tuple per point.

        Yields
        ------
        tuple
            The task's index and its result, in this process.
        """
        if not tasks:
            return
        if self.client is not None:
            yield from self._run_on_dask(function, tasks)
        elif self.workers == 1:
            for index, task in enumerate(tasks):
                yield index, function(*task)
        else:
            yield from self._run_on_processes(function, tasks)

    def _run_on_processes(self, function: Callable[..., Any],
                          tasks: Sequence[tuple]) -> Iterator[tuple[int, Any]]:  # fmt: skip
        from concurrent.futures import FIRST_COMPLETED, wait

        pool = self._pool()
        futures = {pool.submit(function, *task): index for index, task in enumerate(tasks)}
        pending = set(futures)
        try:
            while pending:
                done, pending = wait(pending, timeout=WAIT_SECONDS, return_when=FIRST_COMPLETED)
                for future in done:
                    yield futures[future], future.result()
        except BaseException:
            for future in pending:
                future.cancel()
            raise

    def _run_on_dask(self, function: Callable[..., Any],
                     tasks: Sequence[tuple]) -> Iterator[tuple[int, Any]]:  # fmt: skip
        from dask.distributed import as_completed

        futures = [self.client.submit(function, *task, pure=False) for task in tasks]
        index = {future.key: i for i, future in enumerate(futures)}
        try:
            for future in as_completed(futures):
                yield index[future.key], future.result()
        except BaseException:
            self.client.cancel(futures)
            raise

    def close(self, interrupted: bool = False) -> None:
        """Stop the local processes: at once (killing the points under way) when
        ``interrupted``, else once they are idle."""
        pool, self._processes = self._processes, None
        if pool is None:
            return
        if not interrupted:
            pool.shutdown(wait=True)
            return
        workers = list(getattr(pool, "_processes", {}).values())
        # the executor's manager thread notices the killed workers and closes its wake-up
        # pipe; joined here, it cannot be closing it while the interpreter's exit hook
        # writes to it (an "Exception ignored ... Bad file descriptor" after "interrupted")
        manager = getattr(pool, "_executor_manager_thread", None)
        pool.shutdown(wait=False, cancel_futures=True)
        for process in workers:
            if process.is_alive():
                process.kill()
        for process in workers:
            process.join(timeout=5)
        if manager is not None and manager is not threading.current_thread():
            manager.join(timeout=MANAGER_JOIN_SECONDS)

    def __enter__(self) -> PointPool:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:  # fmt: skip
        self.close(interrupted=error is not None)


HANDSHAKE_MAX_BYTES = 1 << 20
"""The largest first message a Dask scheduler is believed to send (its handshake, a few
hundred bytes), bytes: a longer announced length is another protocol's text."""


def _receive_exactly(connection: Any, size: int, deadline: float) -> bytes:
    """``size`` bytes from a socket before ``deadline`` (time.monotonic), else
    TimeoutError; EOFError when the peer closes first."""
    data = b""
    while len(data) < size:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError
        connection.settimeout(remaining)
        chunk = connection.recv(size - len(data))
        if not chunk:
            raise EOFError
        data += chunk
    return data


def check_dask_scheduler(address: str, timeout_seconds: float = DASK_CONNECT_SECONDS,
                         key: str = "--dask") -> None:  # fmt: skip
    """Check that a Dask scheduler answers at a ``tcp://`` address, before a client
    connects: it must send its handshake (distributed's framed message) within
    ``timeout_seconds``. Other schemes (``tls://``, ``inproc://``) are left to the client.

    A Dask server speaks first: its handshake is an 8-byte little-endian length, then that
    many bytes holding a frame count, the frames' lengths and the frames. A server that
    says nothing in time, or that sends anything else (an SSH banner, an HTTP reply), is
    not a scheduler.

    Parameters
    ----------
    address : str
        The scheduler address, e.g. ``tcp://10.0.0.1:8786``.
    timeout_seconds : float
        The time allowed for the connection and the handshake together, seconds.
    key : str
        What names the address in an error (``--dask``, or ``dask`` from Python).

    Raises
    ------
    ConfigError
        Naming ``key``, in one line, when the address is malformed, nothing answers
        in time, the connection is refused, or the server is not a Dask scheduler.

    Examples
    --------
    >>> check_dask_scheduler("tcp://127.0.0.1:1", 1)
    Traceback (most recent call last):
    ...
    relplan.errors.ConfigError: --dask: no Dask scheduler at tcp://127.0.0.1:1: ...
    """
    import socket
    import struct

    from distributed.comm.addressing import parse_address, parse_host_port

    from relplan.errors import ConfigError

    try:
        scheme, location = parse_address(address)
        if scheme != "tcp":
            return
        host, port = parse_host_port(location)
    except ValueError as error:
        raise ConfigError(key, f"{address!r} is not \"local\" or a scheduler address "
                                    f"such as tcp://10.0.0.1:8786 ({error})") from None
    deadline = time.monotonic() + timeout_seconds
    try:
        with socket.create_connection((host, port), timeout=timeout_seconds) as connection:
            (length,) = struct.unpack("<Q", _receive_exactly(connection, 8, deadline))
            if not 8 <= length <= HANDSHAKE_MAX_BYTES:
                raise ValueError
            message = _receive_exactly(connection, length, deadline)
            (frames,) = struct.unpack_from("<Q", message)
            if not 1 <= frames <= 64 or length < 8 * (1 + frames):
                raise ValueError
            sizes = struct.unpack_from(f"<{frames}Q", message, 8)
            if 8 * (1 + frames) + sum(sizes) != length:
                raise ValueError
    except TimeoutError:
        raise ConfigError(key, f"no Dask scheduler answered at {address} within "
                                    f"{timeout_seconds:g} s (the server said nothing)") from None
    except (EOFError, ValueError, struct.error):
        raise ConfigError(key, f"{address} is not a Dask scheduler (it did not answer "
                                    "with Dask's handshake)") from None
    except OSError as error:
        reason = error.strerror or type(error).__name__
        raise ConfigError(key, f"no Dask scheduler at {address}: {reason}") from None


@contextmanager
def dask_client(address: str, timeout_seconds: float | None = None,
                workers: int = 1, key: str = "--dask") -> Iterator[Any]:  # fmt: skip
    """Connect to Dask (or start a local cluster) before any work, and close it after.

    Parameters
    ----------
    address : str
        ``"local"`` for a local cluster of ``workers`` workers in this process (one thread
        each), or a scheduler address such as ``"tcp://10.0.0.1:8786"``.
    timeout_seconds : float, optional
        How long to wait for the scheduler (default: :data:`DASK_CONNECT_SECONDS`).
    workers : int
        Workers of a local cluster.
    key : str
        What names the address in an error (``--dask`` on the command line, ``dask``
        from Python).

    Yields
    ------
    distributed.Client
        The connected client.

    Raises
    ------
    ConfigError
        Naming ``key`` when the address is malformed, no scheduler answers in time, or
        the server there is not Dask (see :func:`check_dask_scheduler`).

    Examples
    --------
    >>> with dask_client("nonsense") as client:
    ...     pass
    Traceback (most recent call last):
    ...
    relplan.errors.ConfigError: --dask: 'nonsense' is not "local" or a scheduler address ...
    """
    from dask.distributed import Client, LocalCluster

    from relplan.errors import ConfigError

    timeout_seconds = DASK_CONNECT_SECONDS if timeout_seconds is None else timeout_seconds
    cluster = None
    try:
        if address == "local":
            cluster = LocalCluster(n_workers=max(1, workers), threads_per_worker=1,
                                   processes=False, dashboard_address=None)  # fmt: skip
            client = Client(cluster)
        else:
            check_dask_scheduler(address, timeout_seconds, key)
            client = Client(address, timeout=f"{timeout_seconds}s")
    except ConfigError:
        raise
    except ValueError as error:
        raise ConfigError(key, f"{address!r} is not \"local\" or a scheduler address such "
                                    f"as tcp://10.0.0.1:8786 ({error})") from None
    except (OSError, TimeoutError) as error:
        raise ConfigError(key, f"no Dask scheduler answered at {address} within "
                                    f"{timeout_seconds:g} s ({error})") from None
    except Exception as error:  # any other failure of the handshake: one line, no traceback
        raise ConfigError(key, f"could not connect to Dask at {address} "
                                    f"({type(error).__name__}: {error})") from None
    try:
        yield client
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
