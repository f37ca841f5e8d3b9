"""The Monte Carlo engine: failure events in, per-trial job timelines out.

Clocks. Failures happen only while the job's hardware is in use (computing, writing
checkpoints, restarting); during detection and while waiting for a repair it is
idle and does not fail. So every failure mode runs on the job's *exposure clock*,
on which a failed unit is back at once (swapped for a spare, or repaired while the
clock stands still): each mode is a renewal process with no gap, sampled exactly by
:class:`relplan.events.RenewalStream`. Wall time = exposure + detection + waiting.

Timeline. Between two failures the job advances in closed form: from the last
restart (or the start) with ``c`` hours of work committed, it runs
``m = ceil((W - c) / tau) - 1`` segments of ``tau + delta`` and a last one with no
checkpoint, so a failure ``A`` hours into the run has completed ``floor(A / (tau +
delta))`` segments; the rest is rework. A trial costs O(failures), not
O(checkpoints). The per-trial walk is compiled with numba.

Buckets (hours of wall time, summing to the wall time): ``useful``, ``rework``
(everything since the last completed checkpoint, including a partly written one),
``checkpoint`` (completed blocking writes), ``detect``, ``restart``, ``waiting``,
and ``degraded`` and ``stall`` (zero until the network model adds them).

Reproducibility. Trials are cut into canonical blocks of :data:`BLOCK_TRIALS`; block
``b`` draws from ``SeedSequence(seed, spawn_key=(b,))``, so the numbers depend on
the seed and the trial count, never on the number of workers.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numba
import numpy as np

from relplan.checkpoint import checkpoint_count, expected_wall_hours
from relplan.events import RenewalStream
from relplan.model import SimulationModel

BLOCK_TRIALS = 1000
"""Trials per canonical block: the unit of seeding and of work for a worker."""

BUCKETS: tuple[str, ...] = (
    "useful",
    "rework",
    "checkpoint",
    "detect",
    "restart",
    "waiting",
    "degraded",
    "stall",
)
"""Names of the wall-clock buckets, in the order of :attr:`TrialOutcomes.bucket_hours`."""

_USEFUL, _REWORK, _CHECKPOINT, _DETECT, _RESTART, _WAITING = range(6)
_RUNNING, _RESTARTING, _FINISHED = 0, 1, 2

MAX_EXPECTED_SLOWDOWN = 1000.0
"""Refuse jobs whose expected wall time exceeds this multiple of the failure-free time."""


class InfeasibleJobError(ValueError):
    """The job would (almost) never finish: failures come faster than it can restart."""


@dataclass(frozen=True)
class TrialOutcomes:
    """Per-trial results of a simulation, as numpy arrays (one row per trial).

    Attributes
    ----------
    wall_hours : numpy.ndarray
        Wall-clock time to finish the job, hours.
    bucket_hours : numpy.ndarray
        Shape (trials, len(BUCKETS)): wall hours in each bucket; rows sum to wall_hours.
    interruptions_by_mode : numpy.ndarray
        Shape (trials, modes): failures that interrupted the job, per failure mode.
    spares_used : numpy.ndarray
        Times a spare server was swapped in.
    mode_names : tuple of str
        Column names of ``interruptions_by_mode``.
    """

    wall_hours: np.ndarray
    bucket_hours: np.ndarray
    interruptions_by_mode: np.ndarray
    spares_used: np.ndarray
    mode_names: tuple[str, ...]

    @property
    def trials(self) -> int:
        """Number of trials."""
        return int(self.wall_hours.size)


@numba.njit(cache=True, nogil=True)
def _remaining_run(work_left: float, interval: float, write: float) -> tuple[int, float]:
    """Checkpoints still to write and failure-free run time to finish, hours."""
    checkpoints = max(0, math.ceil(work_left / interval * (1.0 - 1e-12)) - 1)
    finish = checkpoints * (interval + write) + (work_left - checkpoints * interval)
    return checkpoints, finish


@numba.njit(cache=True, nogil=True)
def _walk_window(
    active: np.ndarray,
    offsets: np.ndarray,
    event_time: np.ndarray,
    event_mode: np.ndarray,
    event_repair: np.ndarray,
    horizon: float,
    work: float,
    interval: float,
    write: float,
    restart: float,
    mode_detect: np.ndarray,
    mode_uses_spares: np.ndarray,
    phase: np.ndarray,
    phase_start: np.ndarray,
    committed: np.ndarray,
    idle: np.ndarray,
    wall: np.ndarray,
    buckets: np.ndarray,
    mode_counts: np.ndarray,
    spare_return: np.ndarray,
    spares_used: np.ndarray,
) -> None:
    """Walk each active trial through its failures in ``[.., horizon)`` (exposure hours)."""
    segment = interval + write
    n_spares = spare_return.shape[1]
    for position in range(active.size):
        trial = active[position]
        for event in range(offsets[position], offsets[position + 1]):
            exposure = event_time[event]
            if phase[trial] == _RESTARTING:
                if exposure < phase_start[trial] + restart:
                    buckets[trial, _RESTART] += exposure - phase_start[trial]
                else:
                    buckets[trial, _RESTART] += restart
                    phase[trial] = _RUNNING
                    phase_start[trial] += restart
            if phase[trial] == _RUNNING:
                work_left = work - committed[trial]
                checkpoints, finish = _remaining_run(work_left, interval, write)
                elapsed = exposure - phase_start[trial]
                if elapsed >= finish:
                    break
                done = min(math.floor(elapsed / segment), checkpoints)
                committed[trial] += done * interval
                buckets[trial, _USEFUL] += done * interval
                buckets[trial, _CHECKPOINT] += done * write
                buckets[trial, _REWORK] += elapsed - done * segment
            # The failure: detect, then a spare or a wait, then a restart.
            mode = event_mode[event]
            repair = event_repair[event]
            mode_counts[trial, mode] += 1
            detect = mode_detect[mode]
            buckets[trial, _DETECT] += detect
            noticed = exposure + idle[trial] + detect
            wait = repair
            if mode_uses_spares[mode] and n_spares > 0:
                first = 0
                for spare in range(1, n_spares):
                    if spare_return[trial, spare] < spare_return[trial, first]:
                        first = spare
                back = spare_return[trial, first]
                if back <= noticed:
                    spare_return[trial, first] = noticed + repair
                    spares_used[trial] += 1
                    wait = 0.0
                elif back < noticed + repair:
                    # A spare comes back before the failed unit: take it; the failed
                    # unit joins the pool when its own repair ends.
                    wait = back - noticed
                    spare_return[trial, first] = noticed + repair
                    spares_used[trial] += 1
            buckets[trial, _WAITING] += wait
            idle[trial] += detect + wait
            phase[trial] = _RESTARTING
            phase_start[trial] = exposure
        # No more failures before the horizon: finish if the job ends before it.
        if phase[trial] == _RESTARTING and phase_start[trial] + restart <= horizon:
            buckets[trial, _RESTART] += restart
            phase[trial] = _RUNNING
            phase_start[trial] += restart
        if phase[trial] == _RUNNING:
            work_left = work - committed[trial]
            checkpoints, finish = _remaining_run(work_left, interval, write)
            if phase_start[trial] + finish <= horizon:
                buckets[trial, _USEFUL] += work_left
                buckets[trial, _CHECKPOINT] += checkpoints * write
                committed[trial] = work
                wall[trial] = phase_start[trial] + finish + idle[trial]
                phase[trial] = _FINISHED


def expected_exposure_hours(model: SimulationModel) -> float:
    """Rough expected exposure (in-use) hours of a trial, for sizing event windows.

    Daly's expected wall time with the job's long-run failure rate and no downtime.
    """
    job = model.job
    return expected_wall_hours(
        job.work_hours,
        job.interval_hours,
        job.write_hours,
        model.job_mtti_hours,
        job.restart_hours,
    )


def check_feasible(model: SimulationModel) -> None:
    """Refuse a job whose expected wall time is absurdly long (it would never end).

    Raises
    ------
    InfeasibleJobError
        If Daly's expected time exceeds :data:`MAX_EXPECTED_SLOWDOWN` times the
        failure-free time.
    """
    job = model.job
    failure_free = job.work_hours + checkpoint_count(job.work_hours, job.interval_hours) * (
        job.write_hours
    )
    try:
        expected = expected_exposure_hours(model)
    except OverflowError:
        expected = math.inf
    if not expected <= MAX_EXPECTED_SLOWDOWN * failure_free:
        raise InfeasibleJobError(
            f"the job would practically never finish: its mean time to interruption is "
            f"{model.job_mtti_hours:.3g} h against a restart of {job.restart_hours:.3g} h and "
            f"segments of {job.interval_hours + job.write_hours:.3g} h (expected time more "
            f"than {MAX_EXPECTED_SLOWDOWN:.0f}x the failure-free time); shorten job.restart or "
            "job.checkpoint.interval, or make failures rarer"
        )


def block_sizes(trials: int) -> list[int]:
    """Trials in each canonical block: ``BLOCK_TRIALS`` each, the remainder last."""
    full, rest = divmod(trials, BLOCK_TRIALS)
    return [BLOCK_TRIALS] * full + ([rest] if rest else [])


def block_generator(seed: int, block_index: int) -> np.random.Generator:
    """The random generator of one canonical block: ``SeedSequence(seed, spawn_key=(b,))``."""
    return np.random.Generator(
        np.random.PCG64(np.random.SeedSequence(seed, spawn_key=(block_index,)))
    )


def simulate_block(
    model: SimulationModel,
    n_trials: int,
    rng: np.random.Generator,
    window_factor: float = 1.2,
) -> TrialOutcomes:
    """Simulate one block of trials.

    Parameters
    ----------
    model : SimulationModel
        The job and its failure modes.
    n_trials : int
        Trials in the block.
    rng : numpy.random.Generator
        The block's generator; every draw of the block comes from it, in a fixed order.
    window_factor : float
        Length of the first event window as a multiple of the expected exposure; later
        windows are a quarter of that. Any value gives the same distribution of results
        (windows are extended by conditioning on survival); it only trades wasted
        draws against passes.

    Returns
    -------
    TrialOutcomes
        One row per trial.
    """
    job, modes = model.job, model.modes
    streams = [
        RenewalStream(mode.job_units, mode.lifetime, n_trials, rng, start=mode.start)
        for mode in modes
    ]
    mode_detect = np.array([m.detect_hours for m in modes], dtype=float)
    mode_uses_spares = np.array([m.uses_spares for m in modes], dtype=np.bool_)

    phase = np.zeros(n_trials, dtype=np.int8)
    phase_start = np.zeros(n_trials)
    committed = np.zeros(n_trials)
    idle = np.zeros(n_trials)
    wall = np.zeros(n_trials)
    buckets = np.zeros((n_trials, len(BUCKETS)))
    mode_counts = np.zeros((n_trials, len(modes)), dtype=np.int64)
    spare_return = np.zeros((n_trials, job.spares))
    spares_used = np.zeros(n_trials, dtype=np.int64)

    expected = expected_exposure_hours(model)
    first_window = window_factor * expected
    step = max(0.25 * first_window, 1e-3 * (job.interval_hours + job.write_hours))
    horizon = 0.0
    active = np.arange(n_trials, dtype=np.int64)
    while active.size:
        horizon = first_window if horizon == 0.0 else horizon + step
        trial_parts, time_parts, mode_parts, repair_parts = [], [], [], []
        for index, (mode, stream) in enumerate(zip(modes, streams, strict=True)):
            trials, times = stream.next_window(horizon, active)
            trial_parts.append(trials)
            time_parts.append(times)
            mode_parts.append(np.full(times.size, index, dtype=np.int64))
            repair_parts.append(mode.repair.sample(rng, times.size))
        if modes:
            event_trial = np.concatenate(trial_parts)
            event_time = np.concatenate(time_parts)
            order = np.lexsort((event_time, event_trial))
            event_trial = event_trial[order]
            event_time = event_time[order]
            event_mode = np.concatenate(mode_parts)[order]
            event_repair = np.concatenate(repair_parts)[order]
        else:
            event_trial = np.empty(0, dtype=np.int64)
            event_time = event_repair = np.empty(0)
            event_mode = np.empty(0, dtype=np.int64)
        offsets = np.searchsorted(event_trial, np.append(active, n_trials)).astype(np.int64)
        _walk_window(
            active, offsets, event_time, event_mode, event_repair, horizon,
            job.work_hours, job.interval_hours, job.write_hours, job.restart_hours,
            mode_detect, mode_uses_spares,
            phase, phase_start, committed, idle, wall, buckets, mode_counts,
            spare_return, spares_used,
        )  # fmt: skip
        active = active[phase[active] != _FINISHED]
    return TrialOutcomes(
        wall_hours=wall,
        bucket_hours=buckets,
        interruptions_by_mode=mode_counts,
        spares_used=spares_used,
        mode_names=tuple(m.name for m in modes),
    )


def walk_trial(
    model: SimulationModel,
    failure_exposure_hours: list[float] | np.ndarray,
    failure_modes: list[int] | np.ndarray,
    repair_hours: list[float] | np.ndarray,
) -> TrialOutcomes:
    """Walk one trial through a given list of failures (for checks and timelines).

    Parameters
    ----------
    model : SimulationModel
        The job and its failure modes.
    failure_exposure_hours : sequence of float
        Increasing failure times on the exposure clock (hours of hardware in use).
    failure_modes : sequence of int
        Index into ``model.modes`` of each failure.
    repair_hours : sequence of float
        Repair time of each failed unit, hours.

    Returns
    -------
    TrialOutcomes
        A single row. Failures after the job has finished are ignored.
    """
    job, modes = model.job, model.modes
    times = np.asarray(failure_exposure_hours, dtype=float)
    if np.any(np.diff(times) < 0):
        raise ValueError("failure times must be increasing")
    phase = np.zeros(1, dtype=np.int8)
    buckets = np.zeros((1, len(BUCKETS)))
    wall = np.zeros(1)
    mode_counts = np.zeros((1, len(modes)), dtype=np.int64)
    spares_used = np.zeros(1, dtype=np.int64)
    _walk_window(
        np.zeros(1, dtype=np.int64), np.array([0, times.size], dtype=np.int64),
        times, np.asarray(failure_modes, dtype=np.int64),
        np.asarray(repair_hours, dtype=float), np.inf,
        job.work_hours, job.interval_hours, job.write_hours, job.restart_hours,
        np.array([m.detect_hours for m in modes], dtype=float),
        np.array([m.uses_spares for m in modes], dtype=np.bool_),
        phase, np.zeros(1), np.zeros(1), np.zeros(1), wall, buckets, mode_counts,
        np.zeros((1, job.spares)), spares_used,
    )  # fmt: skip
    return TrialOutcomes(wall, buckets, mode_counts, spares_used, tuple(m.name for m in modes))


def concatenate_outcomes(parts: list[TrialOutcomes]) -> TrialOutcomes:
    """Join the outcomes of consecutive blocks into one."""
    return TrialOutcomes(
        wall_hours=np.concatenate([p.wall_hours for p in parts]),
        bucket_hours=np.concatenate([p.bucket_hours for p in parts]),
        interruptions_by_mode=np.concatenate([p.interruptions_by_mode for p in parts]),
        spares_used=np.concatenate([p.spares_used for p in parts]),
        mode_names=parts[0].mode_names,
    )


def simulate(
    model: SimulationModel,
    trials: int,
    seed: int,
    workers: int = 1,
    progress: Callable[[int], None] | None = None,
) -> TrialOutcomes:
    """Run the Monte Carlo simulation of a job.

    Parameters
    ----------
    model : SimulationModel
        The job and its failure modes.
    trials : int
        Number of independent trials (at least 1).
    seed : int
        Seed of every random number; the results depend on (seed, trials) only.
    workers : int
        Threads running blocks at once; does not change any number.
    progress : callable, optional
        Called with the number of trials of each block as it completes.

    Returns
    -------
    TrialOutcomes
        One row per trial, in trial order.

    Raises
    ------
    InfeasibleJobError
        If the job would practically never finish.
    """
    if trials < 1:
        raise ValueError("trials must be at least 1")
    check_feasible(model)
    sizes = block_sizes(trials)

    def run(block_index: int) -> TrialOutcomes:
        outcome = simulate_block(model, sizes[block_index], block_generator(seed, block_index))
        if progress is not None:
            progress(sizes[block_index])
        return outcome

    if workers <= 1 or len(sizes) == 1:
        parts = [run(index) for index in range(len(sizes))]
    else:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            parts = list(pool.map(run, range(len(sizes))))
    return concatenate_outcomes(parts)
