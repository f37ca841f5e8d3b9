"""relplan vs the SimPy reference vs the random-number floor on each case, and agreement.

On each case (:mod:`benchmarks.cases`) it runs, in this one process:

- relplan's :func:`relplan.sim.engine.simulate` (one worker, after a warm-up call so
  numba's compile time is excluded; see :func:`first_call_seconds`), on many trials: as
  a user runs it (the worker's walk on every core) and on one thread
  (:func:`one_walk_thread`: cost per core, like the floor and SimPy);
- the SimPy reference on few trials, time-capped (:func:`run_reference`);
- the *random-number floor* (:func:`benchmarks.measure.floor_draw`), timed in rounds
  alternating with relplan's calls (:func:`benchmarks.measure.paired_times`), so both
  see the same spells of a shared machine's speed;

and reports trials and failure events (interruptions) per second, the speedup per trial,
peak traced memory, relplan's time as a multiple of the floor, and whether the two models
agree (:func:`agreement`).
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Iterator
from typing import Any
from unittest import mock

import numpy as np

from benchmarks import simpy_reference as reference
from benchmarks.cases import (
    comparable_model,
    config_shown,
    reference_case_from_model,
    shipped_overrides,
)
from benchmarks.levels import CaseSettings
from benchmarks.measure import best_time, floor_draw, paired_times, peak_traced_bytes
from relplan.sim import timeline
from relplan.sim.engine import TrialOutcomes, simulate

AGREEMENT_SIGMAS = 4.0
"""Two means agree when they differ by at most this many combined standard errors."""
MEMORY_METHOD = "tracemalloc peak (Python + numpy allocations during the call)"
FLOOR_ROUNDS_PER_REPEAT = 3
"""Rounds of relplan and the floor timed in alternation, per repeat of the level."""


def run_reference(
    case: reference.ReferenceCase,
    trials: int,
    seed: int,
    time_cap_seconds: float,
    min_trials: int = 5,
) -> tuple[dict[str, np.ndarray], float]:
    """Run the SimPy reference in chunks until ``trials`` or the time cap is reached.

    Parameters
    ----------
    case : simpy_reference.ReferenceCase
        The case to run.
    trials : int
        Trials to run at most.
    seed : int
        Chunk ``c`` is seeded by ``SeedSequence([seed, c])``.
    time_cap_seconds : float
        Stop after the chunk that passes this time, once ``min_trials`` are done.
    min_trials : int
        Trials to run whatever the time.

    Returns
    -------
    (dict, float)
        The per-trial arrays of :func:`simpy_reference.simulate_reference` for the trials
        run, and the seconds taken.
    """
    chunk = max(1, min(trials // 10, 50))
    parts: list[dict[str, np.ndarray]] = []
    done = 0
    started = time.perf_counter()
    while done < trials:
        size = min(chunk, trials - done)
        parts.append(reference.simulate_reference(case, size, seed=[seed, len(parts)]))
        done += size
        if done >= min_trials and time.perf_counter() - started > time_cap_seconds:
            break
    seconds = time.perf_counter() - started
    merged = {key: np.concatenate([part[key] for part in parts]) for key in parts[0]}
    return merged, seconds


def outcome_events(outcomes: TrialOutcomes) -> np.ndarray:
    """Interruptions (failure events that stopped the job) of each trial."""
    return np.asarray(outcomes.interruptions_by_mode).sum(axis=1)


def compare_means(relplan_values: np.ndarray, simpy_values: np.ndarray) -> dict[str, Any]:
    """Means, standard errors and the z-score of their difference.

    Parameters
    ----------
    relplan_values, simpy_values : numpy.ndarray
        Per-trial values of the two models.

    Returns
    -------
    dict
        ``relplan_mean``, ``relplan_sem``, ``simpy_mean``, ``simpy_sem``, ``z`` (the
        difference in combined standard errors) and ``agree`` (``|z| <=``
        :data:`AGREEMENT_SIGMAS`).
    """

    def sem(values: np.ndarray) -> float:
        return float(np.std(values, ddof=1) / math.sqrt(values.size)) if values.size > 1 else 0.0

    relplan_mean, simpy_mean = float(np.mean(relplan_values)), float(np.mean(simpy_values))
    relplan_sem, simpy_sem = sem(relplan_values), sem(simpy_values)
    combined = math.hypot(relplan_sem, simpy_sem)
    difference = relplan_mean - simpy_mean
    z = difference / combined if combined > 0 else (0.0 if difference == 0 else math.inf)
    return {
        "relplan_mean": relplan_mean,
        "relplan_sem": relplan_sem,
        "simpy_mean": simpy_mean,
        "simpy_sem": simpy_sem,
        "z": z,
        "agree": bool(abs(z) <= AGREEMENT_SIGMAS),
    }


def agreement(outcomes: TrialOutcomes, reference_outcomes: dict[str, np.ndarray]) -> dict[str, Any]:
    """Mean wall hours and mean interruptions of relplan vs the SimPy reference.

    Parameters
    ----------
    outcomes : TrialOutcomes
        relplan's trials.
    reference_outcomes : dict
        The reference's per-trial ``wall_hours`` and ``interruptions``.

    Returns
    -------
    dict
        :func:`compare_means` of each (``wall_hours``, ``interruptions``), ``sigmas``
        and ``agree`` (both agree).
    """
    wall = compare_means(np.asarray(outcomes.wall_hours), reference_outcomes["wall_hours"])
    interruptions = compare_means(
        outcome_events(outcomes).astype(float),
        reference_outcomes["interruptions"].astype(float),
    )
    return {
        "wall_hours": wall,
        "interruptions": interruptions,
        "sigmas": AGREEMENT_SIGMAS,
        "agree": wall["agree"] and interruptions["agree"],
    }


def benchmark_case(
    name: str, settings: CaseSettings, seed: int, repeats: int, workers_all: int
) -> dict[str, Any]:
    """relplan vs SimPy on one case: every figure of the performance and agreement tables.

    Parameters
    ----------
    name : str
        A case (one of :data:`benchmarks.cases.CASES`).
    settings : CaseSettings
        Its trial counts.
    seed : int
        Seed of every simulation.
    repeats : int
        Timed relplan calls (the shortest counts).
    workers_all : int
        Workers of the all-cores timing.

    Returns
    -------
    dict
        Plain numbers: trials, seconds, rates, events, memory, the floor, the speedup, the
        reference's figures (``simpy``) and the :func:`agreement`.
    """
    model = comparable_model(name)
    case = reference_case_from_model(model)

    trials = settings.relplan_trials
    outcomes = simulate(model, trials, seed, workers=1)
    events = int(outcome_events(outcomes).sum())
    # relplan and the floor timed in alternating rounds: both see the machine's spells
    floor_draws = floor_draw(events, trials)
    rounds = FLOOR_ROUNDS_PER_REPEAT * repeats
    paired, outcomes = paired_times(lambda: simulate(model, trials, seed, workers=1),
                                    floor_draws, rounds)  # fmt: skip
    with one_walk_thread():
        paired_one_thread, _ = paired_times(
            lambda: simulate(model, trials, seed, workers=1), floor_draws, rounds
        )
    seconds, seconds_one_thread = paired.seconds, paired_one_thread.seconds
    seconds_all, _ = best_time(lambda: simulate(model, trials, seed, workers=workers_all), repeats)
    memory = peak_traced_bytes(lambda: simulate(model, trials, seed, workers=1))
    floor = paired.reference_seconds

    reference_outcomes, simpy_seconds = run_reference(
        case, settings.simpy_trials, seed, settings.simpy_time_cap_seconds
    )
    simpy_trials = int(reference_outcomes["wall_hours"].size)
    simpy_events = int(reference_outcomes["interruptions"].sum())
    simpy_memory_trials = min(simpy_trials, 3)
    simpy_memory = peak_traced_bytes(
        lambda: reference.simulate_reference(case, simpy_memory_trials, seed=[seed, 10**6])
    )

    seconds_per_trial = seconds / trials
    simpy_seconds_per_trial = simpy_seconds / simpy_trials
    return {
        "config": config_shown(name),
        "overrides": shipped_overrides(name),
        "gpus": model.job.gpus,
        "modes": len(model.modes),
        "job_mtti_hours": model.job_mtti_hours,
        "trials": trials,
        "seconds": seconds,
        "seconds_per_trial": seconds_per_trial,
        "trials_per_second": trials / seconds,
        "events": events,
        "events_per_trial": events / trials,
        "events_per_second": events / seconds,
        "ns_per_event": 1e9 * seconds / events if events else None,
        "workers_all_cores": workers_all,
        "trials_per_second_all_cores": trials / seconds_all,
        "peak_memory_bytes": memory,
        "peak_memory_method": MEMORY_METHOD,
        "floor_seconds": floor,
        "floor_variates": 3 * events + trials,
        "floor_multiple": paired.ratio,
        "floor_multiple_median_paired": paired.median_ratio,
        "floor_rounds": rounds,
        "walk_threads": timeline.WALK_THREADS,
        "seconds_one_thread": seconds_one_thread,
        "floor_seconds_one_thread": paired_one_thread.reference_seconds,
        "floor_multiple_one_thread": paired_one_thread.ratio,
        "floor_multiple_one_thread_median_paired": paired_one_thread.median_ratio,
        "speedup_per_trial": simpy_seconds_per_trial / seconds_per_trial,
        "speedup_per_trial_one_thread": simpy_seconds_per_trial / (seconds_one_thread / trials),
        "speedup_per_event": (simpy_seconds / simpy_events) / (seconds / events)
        if events and simpy_events
        else None,
        "simpy": {
            "trials": simpy_trials,
            "seconds": simpy_seconds,
            "seconds_per_trial": simpy_seconds_per_trial,
            "trials_per_second": simpy_trials / simpy_seconds,
            "events": simpy_events,
            "events_per_second": simpy_events / simpy_seconds,
            "peak_memory_bytes": simpy_memory,
            "peak_memory_trials": simpy_memory_trials,
            "peak_memory_method": MEMORY_METHOD,
        },
        "agreement": agreement(outcomes, reference_outcomes),
    }


@contextlib.contextmanager
def one_walk_thread() -> Iterator[None]:
    """Within the block, a walk runs its trials on one thread, not one per core.

    One worker's walk spreads its trials over :data:`relplan.sim.timeline.WALK_THREADS`
    threads (every core); the random-number floor and the SimPy reference run on one, so
    the benchmark also times relplan so (the ``_one_thread`` figures): cost per core.
    """
    with mock.patch.object(timeline, "WALK_THREADS", 1):
        yield


def first_call_seconds(seed: int) -> float:
    """Time of a simulate call on the small case; this process's first one if called first.

    The first call compiles relplan's engine with numba, or loads it from numba's cache
    if the cache is warm; either way it is excluded from the throughput figures. The
    cost in a fresh process with an empty cache is :mod:`benchmarks.startup`'s cold run.

    Parameters
    ----------
    seed : int
        Seed of the call.

    Returns
    -------
    float
        Seconds of one 10-trial call.
    """
    model = comparable_model("small")
    started = time.perf_counter()
    simulate(model, 10, seed)
    return time.perf_counter() - started
