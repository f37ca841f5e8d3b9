"""Measuring: best-of and paired timers, traced memory, the random-number floor, child
processes.

Every other benchmark module times through these, so each figure is taken the same way.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

import relplan

RELPLAN_ROOT = Path(relplan.__file__).resolve().parents[1]
"""Folder holding the relplan package this process imported; child processes use the same."""

ResultT = TypeVar("ResultT")


def subprocess_env(**extra: str) -> dict[str, str]:
    """Environment under which a child process imports this process's relplan.

    Parameters
    ----------
    **extra : str
        Variables to set on top (``NUMBA_CACHE_DIR="/tmp/..."``).

    Returns
    -------
    dict of str to str
        This process's environment with :data:`RELPLAN_ROOT` first on ``PYTHONPATH``.
    """
    path = os.pathsep.join(filter(None, [str(RELPLAN_ROOT), os.environ.get("PYTHONPATH")]))
    return {**os.environ, "PYTHONPATH": path, **extra}


def relplan_argv(*arguments: str) -> list[str]:
    """The command line running relplan's CLI: ``sys.executable -m relplan ARGUMENTS``.

    Every child ``relplan`` process of the benchmark (start-up timings, peak RSS) is
    started this way: the interpreter of this process, importing the relplan of
    :data:`RELPLAN_ROOT` (see :func:`subprocess_env`), whatever console script is
    installed or not.

    Parameters
    ----------
    *arguments : str
        The CLI's arguments (``"simulate", "configs/small.toml"``).

    Returns
    -------
    list of str
        The argument vector for :func:`subprocess.run`.
    """
    return [sys.executable, "-m", "relplan", *arguments]


def best_time(function: Callable[[], ResultT], repeats: int) -> tuple[float, ResultT]:
    """The shortest of ``repeats`` timed calls and the last call's result.

    Parameters
    ----------
    function : callable
        Called with no arguments.
    repeats : int
        Calls to time (at least one is made).

    Returns
    -------
    (float, object)
        The shortest wall time, seconds, and the last call's return value.
    """
    best, result = math.inf, None
    for _ in range(max(1, repeats)):
        started = time.perf_counter()
        result = function()
        best = min(best, time.perf_counter() - started)
    return best, result


def peak_traced_bytes(function: Callable[[], Any]) -> int:
    """Peak of the memory allocations tracemalloc traces during a call.

    Parameters
    ----------
    function : callable
        Called once, with no arguments.

    Returns
    -------
    int
        Peak traced bytes above what was traced before the call (Python and numpy
        allocations; not numba's own).
    """
    was_tracing = tracemalloc.is_tracing()
    if not was_tracing:
        tracemalloc.start()
    tracemalloc.reset_peak()
    baseline, _ = tracemalloc.get_traced_memory()
    function()
    _, peak = tracemalloc.get_traced_memory()
    if not was_tracing:
        tracemalloc.stop()
    return int(peak - baseline)


def floor_draw(events: int, trials: int, seed: int = 0) -> Callable[[], None]:
    """A call that draws the variates a run consumed: 3 per event, 5 per trial.

    Per failure event an exponential inter-arrival time, a uniform for the failure mode
    and an exponential repair, drawn vectorised from ``numpy.random.default_rng``; per
    trial the four 64-bit words that seed its stream and its first arrival (relplan
    draws exactly these).

    Parameters
    ----------
    events : int
        Failure events of the run.
    trials : int
        Trials of the run.
    seed : int
        Seed of the generator.

    Returns
    -------
    callable
        Draws them once per call (one thread).
    """
    rng = np.random.default_rng(seed)

    def draw() -> None:
        rng.exponential(size=events)
        rng.random(events)
        rng.exponential(size=events)
        rng.integers(0, 2**64 - 1, size=(trials, 4), dtype=np.uint64, endpoint=True)
        rng.exponential(size=trials)

    return draw


def floor_seconds(events: int, trials: int, repeats: int = 5, seed: int = 0) -> float:
    """Time numpy needs to draw the variates a run consumed (:func:`floor_draw`).

    Parameters
    ----------
    events : int
        Failure events of the run.
    trials : int
        Trials of the run.
    repeats : int
        Timings to take the shortest of.
    seed : int
        Seed of the generator.

    Returns
    -------
    float
        The shortest of ``repeats`` timings, seconds.
    """
    seconds, _ = best_time(floor_draw(events, trials, seed), repeats)
    return seconds


@dataclass(frozen=True)
class PairedTimes:
    """Two calls timed in alternation: each round times the reference, then the function.

    On a shared virtual machine the speed of a core moves by tens of percent over
    seconds (other tenants); timed minutes apart, a run and its reference can each
    catch a fast or a slow spell. Timed in alternating rounds, both see the same spells:
    the shortest of each, and the median of the per-round ratios, are then comparable.

    Attributes
    ----------
    seconds : float
        The function's shortest call, seconds.
    reference_seconds : float
        The reference's shortest call, seconds.
    median_ratio : float
        The median over rounds of the function's time over the reference's in the same
        round.
    rounds : int
        Rounds timed.
    """

    seconds: float
    reference_seconds: float
    median_ratio: float
    rounds: int

    @property
    def ratio(self) -> float:
        """The function's shortest call over the reference's shortest."""
        return self.seconds / self.reference_seconds


def paired_times(
    function: Callable[[], ResultT], reference: Callable[[], Any], rounds: int
) -> tuple[PairedTimes, ResultT]:
    """Time ``function`` and ``reference`` in alternating rounds (see :class:`PairedTimes`).

    Parameters
    ----------
    function : callable
        Called with no arguments, once a round.
    reference : callable
        Called with no arguments, once a round, just before ``function``.
    rounds : int
        Rounds (at least one).

    Returns
    -------
    (PairedTimes, object)
        The timings and the last call's return value of ``function``.
    """
    own, theirs = [], []
    result = None
    for _ in range(max(1, rounds)):
        started = time.perf_counter()
        reference()
        theirs.append(time.perf_counter() - started)
        started = time.perf_counter()
        result = function()
        own.append(time.perf_counter() - started)
    ratios = np.asarray(own) / np.asarray(theirs)
    times = PairedTimes(min(own), min(theirs), float(np.median(ratios)), len(own))
    return times, result


@dataclass(frozen=True)
class ProcessRun:
    """One finished child process and its wall time.

    Attributes
    ----------
    seconds : float
        Wall time from start to exit, as the parent saw it.
    returncode : int
        Exit status.
    stdout : str
        What it printed.
    stderr : str
        What it printed to standard error.
    """

    seconds: float
    returncode: int
    stdout: str
    stderr: str


def timed_process(
    argv: Sequence[str], env: Mapping[str, str] | None = None, timeout: float = 600.0
) -> ProcessRun:
    """Run a fresh child process to its end and time it (``time.perf_counter``).

    Parameters
    ----------
    argv : sequence of str
        The command.
    env : mapping, optional
        Its environment; default :func:`subprocess_env`.
    timeout : float
        Seconds after which it is killed (:class:`subprocess.TimeoutExpired`).

    Returns
    -------
    ProcessRun
        Its wall time, exit status and output (captured, so nothing reaches a terminal).
    """
    environment = dict(env) if env is not None else subprocess_env()
    started = time.perf_counter()
    done = subprocess.run(
        list(argv), capture_output=True, text=True, env=environment, cwd=RELPLAN_ROOT,
        timeout=timeout, check=False,
    )  # fmt: skip
    seconds = time.perf_counter() - started
    return ProcessRun(seconds, done.returncode, done.stdout, done.stderr)
