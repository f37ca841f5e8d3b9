"""The Monte Carlo engine: failure events in, per-trial job timelines out.

Clocks. Failures happen only while the job's hardware is in use (computing, writing
checkpoints, restarting); during detection and while waiting for a repair it is
idle and does not fail. So every failure mode runs on the job's *exposure clock*,
on which a failed unit is back at once (swapped for a spare, or repaired while the
clock stands still): each mode is a renewal process with no gap, sampled exactly by
:class:`relplan.sim.events.RenewalStream`. Wall time = exposure + detection + waiting.
A mode whose units have a history (lemons, imperfect repair, retirement) is drawn unit by
unit by :class:`relplan.sim.cohorts.UnitStream`, each failure with its unit's failure
count; after each window the engine tallies, per trial, the failures the walk reached (as
many of the window's as it booked, :func:`relplan.sim.cohorts.walked_events`): the repeat
offenders.

Timeline. Between two failures the job advances in closed form: from the last
restart (or the start) with ``c`` hours of work committed, it runs
``m = ceil((W - c) / tau) - 1`` segments of ``tau + delta`` and a last one with no
checkpoint, so a failure ``A`` hours into the run has completed ``floor(A / (tau +
delta))`` segments; the rest is rework. A trial costs O(failures), not
O(checkpoints). The per-trial walk is compiled with numba.

Buckets (hours of wall time, summing to the wall time): ``useful`` (work that
survives), ``rework`` (everything a failure rolls back: the time since the last
surviving checkpoint, including a partly written one, with its slowed extra time and
stalls), ``checkpoint`` (completed blocking writes that survive), ``detect``,
``restart``, ``waiting``, ``degraded`` (the extra time of slowed compute, and of slowed
writes when storage shares the fabric, in work that survives) and ``stall`` (stalled time
in work that survives, and stalls that hold up a restart); see
:mod:`relplan.sim.timeline`.

Reproducibility. Trials are cut into canonical blocks of :func:`block_trials` (
:data:`BLOCK_TRIALS`, fewer for a model whose trials hold many pre-drawn failures); block
``b`` draws from ``SeedSequence(seed, spawn_key=(b,))``, so the numbers depend on the
model, the seed and the trial count, never on the number of workers or the machine.

Memory. Blocks are gathered as they finish into one set of compact arrays
(:func:`collect_outcomes`): a run holds its trials once, and each of the
:data:`BLOCKS_IN_FLIGHT_PER_WORKER` blocks a worker has in flight at most about
:data:`BLOCK_EVENTS` pre-drawn failures.

Work. With one worker the calling thread never waits idly for the walk: while the walk's
threads walk a block (:func:`relplan.sim.timeline.start_walk`), it hands over the last
block's outcomes and prepares the next block (:func:`_pipelined_blocks`).
"""

from __future__ import annotations

import contextlib
import math
import threading
from collections import deque
from collections.abc import Callable, Generator, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from relplan.errors import InfeasibleJobError
from relplan.sim import timeline
from relplan.sim.closed_forms import checkpoint_count, daly_interval, expected_wall_hours
from relplan.sim.cohorts import UnitStream, tally_unit_failures, walked_events
from relplan.sim.compile_cache import is_compiled, signature_of
from relplan.sim.compile_notice import compiling_notice
from relplan.sim.compiled import (
    FINISHED,
    MAX_DEGRADATIONS,
    MAX_EVENTS_PER_TRIAL,
    CompiledModel,
    EventWindow,
    TraceBuffer,
    TrialState,
    TrialStreams,
    WalkFeatures,
    compile_model,
)
from relplan.sim.events import RenewalStream
from relplan.sim.model import FailureMode, SimulationModel
from relplan.sim.rng import seed_states, stream_key
from relplan.vocab import BUCKETS, UNIT_STATS

_WALK_LOCK = threading.Lock()
"""One walk at a time: a walk runs its trials on every core already."""

_USEFUL, _OVERHEAD = BUCKETS.index("useful"), BUCKETS.index("overhead")
"""Columns of ``bucket_hours``: the walk books the compute it keeps as ``useful``, with the
recovery stack's per-step tax in it; :func:`trial_outcomes` splits the tax into
``overhead``."""

BLOCK_TRIALS = 10_000
"""Trials per canonical block: the unit of seeding and of work for a worker."""

BLOCK_EVENTS = 2_000_000
"""Pre-drawn failures one block may hold in flight (expected; a few hundred MB): blocks of
a model whose trials hold many (a large fleet with lemons) have fewer trials
(:func:`block_trials`)."""

BLOCKS_IN_FLIGHT_PER_WORKER = 2
"""Blocks whose state a worker holds at once: the one walked and the next, prepared
meanwhile (one worker, :func:`_pipelined_blocks`), or the blocks submitted and not yet
gathered (several, :func:`_in_order`: twice the workers)."""

WINDOW_FACTOR = 1.2
"""The first window of pre-drawn failures as a multiple of :func:`first_window_hours`."""

MAX_EXPECTED_SLOWDOWN = 1000.0
"""Refuse jobs whose expected wall time exceeds this multiple of the failure-free time."""

MAX_DEGRADATION_CELLS = 50_000_000
"""The most degradation slots (trials x slots) a block may hold, 1.2 GB: a block that
needs more is refused rather than grown (see :func:`simulate_block`)."""


class DegradationOverflow(Exception):
    """A trial of a block had more degradations at once than its state has room for:
    the block is walked again with more room (see :func:`simulate_block`)."""

    def __init__(self, slots: int) -> None:
        super().__init__(f"more than {slots} degradations at once in one trial")
        self.slots = slots


@dataclass(frozen=True)
class TrialOutcomes:
    """Per-trial results of a simulation, as numpy arrays (one row per trial).

    Attributes
    ----------
    wall_hours : numpy.ndarray
        Wall-clock time to finish the job (or the calendar window), hours.
    bucket_hours : numpy.ndarray
        Shape (trials, len(BUCKETS)): wall hours in each bucket; rows sum to wall_hours.
    restart_init_hours : numpy.ndarray
        Of the ``restart`` bucket, the hours of start-up; the rest is checkpoint load.
    maintenances : numpy.ndarray
        Planned maintenance windows, counted apart from the interruptions.
    corrupted_final : numpy.ndarray
        Whether a corruption reached the final weights (or, over a calendar window, the
        weights at its end): one never to be found, or one not found yet when the job
        ended, that no rollback discarded.
    failures_by_mode : numpy.ndarray
        Shape (trials, modes): failures that reached the job, per failure mode.
    interruptions_by_mode : numpy.ndarray
        Shape (trials, modes): failures that stopped the job: every failure of a fatal
        mode, and those of a degraded mode beyond its survivable count.
    spares_used : numpy.ndarray
        Times a spare server was swapped in.
    drains : numpy.ndarray
        Servers running degraded swapped for a spare (``job.drain``).
    depleted : numpy.ndarray
        Whether the trial stalled for good, a unit removed from the fleet finding no
        spare left (``retire = "remove"``): it ends there (or at its calendar window's
        end) with the work it got done.
    restart_attempts : numpy.ndarray
        Restart attempts, the failed ones included (counted only where a restart may
        fail: ``job.restart.success`` below 1 or a ``black_hole``; 0 otherwise).
    requeues : numpy.ndarray
        Times the job was requeued after its attempts in an allocation failed.
    job_failed : numpy.ndarray
        Whether every restart attempt of every requeue failed: the job failed for good
        and the trial ends there (or at its calendar window's end) with the work it got
        done.
    save_hangs : numpy.ndarray
        Durable saves that hung and held the job until their timeout
        (``job.checkpoint.hang``; 0 otherwise).
    mode_names : tuple of str
        Column names of ``failures_by_mode``.
    mode_impacts : tuple of str
        Impact of each mode: fatal, degraded, transient or elastic.
    mode_interrupts : tuple of bool
        Whether a failure of each mode can stop the job (fatal modes, and degraded ones
        with a survivable count).
    unit_stats : numpy.ndarray
        Shape (trials, modes with a history, len(UNIT_STATS)): per mode whose units have a
        history, in mode order, the units that failed, failed at least twice, the most
        failures of one unit and the units retired (:data:`relplan.vocab.UNIT_STATS`),
        counting only the failures that reached the job. Empty (no column) without such
        modes.
    mode_tracks_units : tuple of bool
        Whether each mode's units have a history (a column of ``unit_stats``).
    """

    wall_hours: np.ndarray
    bucket_hours: np.ndarray
    restart_init_hours: np.ndarray
    maintenances: np.ndarray
    corrupted_final: np.ndarray
    failures_by_mode: np.ndarray
    interruptions_by_mode: np.ndarray
    spares_used: np.ndarray
    drains: np.ndarray
    depleted: np.ndarray
    restart_attempts: np.ndarray
    requeues: np.ndarray
    job_failed: np.ndarray
    save_hangs: np.ndarray
    mode_names: tuple[str, ...]
    mode_impacts: tuple[str, ...]
    mode_interrupts: tuple[bool, ...]
    unit_stats: np.ndarray
    mode_tracks_units: tuple[bool, ...]

    @property
    def trials(self) -> int:
        """Number of trials."""
        return int(self.wall_hours.size)


def expected_exposure_hours(model: SimulationModel) -> float:
    """Rough expected exposure (in-use) hours of a trial, for sizing event windows.

    Daly's expected wall time with the job's long-run failure rate and no downtime, and
    no more than a calendar window lasts; without failures during recovery the restarts
    are off the exposure clock.
    """
    job = model.job
    expected = expected_wall_hours(
        job.compute_hours,
        job.segment_hours,
        job.mean_write_hours,
        model.job_mtti_hours,
        job.restart_hours if job.failures_during_recovery else 0.0,
    )
    return expected if job.horizon_hours is None else min(expected, job.horizon_hours)


def _wait_hours(model: SimulationModel, mode: FailureMode) -> float:
    """Mean hours the job waits for a replacement after a failure of ``mode`` when no
    spare is free: its repair if it draws no spare or the pool cannot cover it, else 0
    (the spares are taken as free: a lower bound)."""
    if mode.self_healing:
        return max(0.0, mode.mean_repair_hours - mode.detect_hours)
    pool = model.job.spare_domains if mode.spare_domain else model.job.spares
    if mode.uses_spares and pool >= mode.spares_needed:
        return 0.0
    if mode.uses_spares and not mode.spare_domain and model.job.spare_pool >= mode.spares_needed:
        return min(model.job.spare_pool_swap_hours, mode.mean_repair_hours)
    return mode.mean_repair_hours


def expected_downtime_hours(model: SimulationModel) -> tuple[float, str]:
    """Mean downtime per interruption (detection and waiting for a repair), hours, and
    the mode whose waits weigh most in it (``""``: none).

    Each fatal mode counts by its share of the interruptions. With ``job.idle_failures``
    the hardware also fails during a wait, at the rate ``r`` of the modes that then need
    a repair (no free spare) and fail while idle (not a mode counted per job): a wait of
    ``w`` hours brings ``q = 1 - exp(-r w)`` more, a geometric series ``w / (1 - q)``
    (inf if a wait is sure to bring another).

    Examples
    --------
    One mode, found after 0.5 h, waits for its 48-h repair (no spare):

    >>> from relplan.sim import distributions
    >>> from relplan.sim.model import FailureMode, JobSpec, SimulationModel
    >>> gpu = FailureMode("gpu", "gpu", 8, distributions.exponential(800.0),
    ...                   distributions.fixed(48.0), 0.5, False, "equilibrium")
    >>> expected_downtime_hours(SimulationModel(JobSpec(8, 100.0, 1.0, 0.01, 0.1, 0),
    ...                                         (gpu,), None))
    (48.5, 'gpu')
    """
    fatal = [mode for mode in model.modes if mode.is_fatal]
    rate = sum(mode.job_rate_per_hour for mode in fatal)
    if rate <= 0.0:
        return 0.0, ""
    waits = {mode.name: mode.job_rate_per_hour / rate * _wait_hours(model, mode)
             for mode in fatal}  # fmt: skip
    wait = sum(waits.values())
    detect = sum(mode.job_rate_per_hour / rate * mode.detect_hours for mode in fatal)
    if model.job.idle_failures and wait > 0.0:
        idle_rate = sum(mode.job_rate_per_hour for mode in fatal
                        if mode.lifetime.kind == "exponential" and mode.history is None
                        and mode.fails_while_down and _wait_hours(model, mode) > 0.0)  # fmt: skip
        q = -math.expm1(-idle_rate * wait)
        wait = wait / (1.0 - q) if q < 1.0 else math.inf
    return detect + wait, max(waits, key=waits.__getitem__) if wait > 0.0 else ""


def check_feasible(model: SimulationModel) -> None:
    """Refuse a job whose expected wall time is absurdly long (it would never end).

    Raises
    ------
    InfeasibleJobError
        If Daly's expected time, with the mean downtime of each interruption
        (:func:`expected_downtime_hours`: detection and the waits for repairs when no
        spare is free), exceeds :data:`MAX_EXPECTED_SLOWDOWN` times the failure-free
        time, or if a trial would see more failures, even without the rework, than half
        the :data:`~relplan.sim.compiled.MAX_EVENTS_PER_TRIAL` steps a trial may walk.
    """
    job = model.job
    failure_free = job.compute_hours + checkpoint_count(job.compute_hours, job.segment_hours) * (
        job.mean_write_hours
    )
    try:
        expected = expected_exposure_hours(model)
    except OverflowError:
        expected = math.inf
    # a failure costs the walk about two steps: itself and its repair or restart
    failures = failure_free * sum(mode.job_rate_per_hour for mode in model.modes)
    if not failures <= MAX_EVENTS_PER_TRIAL / 2:
        raise InfeasibleJobError(
            f"a trial would see more than {failures:.3g} failures (in the "
            f"{failure_free:.3g} h the job runs without any); relplan walks at most "
            f"{MAX_EVENTS_PER_TRIAL:,} failures and repairs per trial: shorten job.work, "
            "lengthen job.checkpoint.interval if it is shorter than the checkpoint write, "
            "or make failures rarer"
        )
    if job.horizon_hours is None and expected <= MAX_EXPECTED_SLOWDOWN * failure_free:
        downtime, waiting_mode = expected_downtime_hours(model)
        if downtime > 0.0:
            try:
                with_waits = expected_wall_hours(
                    job.compute_hours, job.segment_hours, job.mean_write_hours,
                    model.job_mtti_hours, job.restart_hours, downtime,
                )  # fmt: skip
            except OverflowError:
                with_waits = math.inf
            if not with_waits <= MAX_EXPECTED_SLOWDOWN * failure_free:
                keys = "job.spares, " if waiting_mode else ""
                if waiting_mode:
                    keys += f"failures.{waiting_mode.removesuffix('.fabric')}.repair"
                if job.idle_failures:
                    keys += ", job.idle_failures"
                down = (f"keeps it down {downtime:.3g} h on average (detection and waits "
                        "for repairs with no spare free)") if math.isfinite(downtime) else (
                        "starts waits that never end (each wait for a repair, with no "
                        "spare free, sees another failure that needs one)")  # fmt: skip
                raise InfeasibleJobError(
                    f"the job would practically never finish: each interruption {down}, "
                    f"expected time more than {MAX_EXPECTED_SLOWDOWN:.0f}x the failure-free "
                    f"time; see {keys or 'failures.*.detect'}"
                )
    if job.horizon_hours is None and not expected <= MAX_EXPECTED_SLOWDOWN * failure_free:
        raise InfeasibleJobError(
            f"the job would practically never finish: its mean time to interruption is "
            f"{model.job_mtti_hours:.3g} h against a restart of {job.restart_hours:.3g} h and "
            f"segments of {job.segment_hours + job.mean_write_hours:.3g} h (expected time more "
            f"than {MAX_EXPECTED_SLOWDOWN:.0f}x the failure-free time); shorten job.restart or "
            "job.checkpoint.interval, or make failures rarer"
        )


def block_sizes(trials: int, per_block: int = BLOCK_TRIALS) -> list[int]:
    """Trials in each canonical block: ``per_block`` each (:func:`block_trials` of the
    model), the remainder last.

    Examples
    --------
    >>> block_sizes(25_000), block_sizes(500, 200)
    ([10000, 10000, 5000], [200, 200, 100])
    """
    full, rest = divmod(trials, per_block)
    return [per_block] * full + ([rest] if rest else [])


def window_events_per_trial(model: SimulationModel) -> float:
    """Pre-drawn failures a trial holds in its first window of events (expected).

    The modes drawn in windows (non-exponential lifetimes, or units with a history) over
    :data:`WINDOW_FACTOR` times :func:`first_window_hours`: what sizes a block in flight.
    It does not depend on the configured checkpoint interval, so every interval of a job
    gets the same blocks (and the same failures: common random numbers).
    """
    rate = sum(m.job_rate_per_hour for m in model.modes
               if m.lifetime.kind != "exponential" or m.history is not None)  # fmt: skip
    if rate == 0:
        return 0.0
    try:
        return WINDOW_FACTOR * first_window_hours(model) * rate
    except OverflowError:
        return math.inf


def block_trials(model: SimulationModel) -> int:
    """Trials in one canonical block of a model: :data:`BLOCK_TRIALS`, or fewer when the
    failures a block holds in flight would take more than :data:`BLOCK_EVENTS`.

    A function of the model alone (never of the machine or the workers), so one seed
    still fixes every number; rounded down to 1, 2 or 5 times a power of ten.

    Examples
    --------
    >>> from relplan.config.loading import load_config
    >>> from relplan.sim.model import build_model
    >>> block_trials(build_model(load_config("configs/small.toml")))
    10000
    """
    events = window_events_per_trial(model)
    if not events * BLOCK_TRIALS > BLOCK_EVENTS:
        return BLOCK_TRIALS
    fit = BLOCK_EVENTS / events if math.isfinite(events) else 1.0
    if fit < 1:
        return 1
    power = 10 ** math.floor(math.log10(fit))
    return max(step * power for step in (1, 2, 5) if step * power <= fit)


def block_seed(seed: int, block_index: int) -> np.random.SeedSequence:
    """The seed of one canonical block: ``SeedSequence(seed, spawn_key=(b,))``."""
    return np.random.SeedSequence(seed, spawn_key=(block_index,))


_first_walk_checked = False
"""Whether this process has checked for a compiled walk yet (guarded by the walk lock)."""


def walk_is_compiled(args: tuple) -> bool:
    """Whether the compiled walk can take ``args`` without compiling first.

    True if this process has compiled or loaded the walk of the arguments' features
    (:func:`relplan.sim.timeline.walk_kernel`) for their types already, or if numba's
    cache on disk holds a fresh entry for them (same source, numba version, machine and
    argument types). Also True when that cannot be told (JIT disabled, or a numba without
    this cache layout), so that nothing is announced wrongly.

    Parameters
    ----------
    args : tuple
        The arguments of :func:`relplan.sim.timeline.walk_trials`.

    Returns
    -------
    bool
        False if the next walk will compile the engine.
    """
    job, modes, _window, _streams, state, trace = args
    dispatcher = timeline.walk_kernel(WalkFeatures.of(job, modes, state, trace))
    return is_compiled(dispatcher, signature_of(dispatcher, timeline.empty_walk_call(args)))


def walk_block(
    compiled: CompiledModel,
    state: TrialState,
    window: EventWindow,
    streams: TrialStreams,
    trace: TraceBuffer | None = None,
) -> None:
    """Walk the trials of one window of events (see :func:`relplan.sim.timeline.walk_trials`).

    The first walk of a process that has to compile the engine first says so on stderr,
    with the seconds elapsed (:func:`relplan.sim.compile_notice.compiling_notice`; once per
    process).

    Parameters
    ----------
    compiled : CompiledModel
        The model packed for compiled code.
    state : TrialState
        The block's trials, updated in place.
    window : EventWindow
        The trials to walk, their pre-drawn failures and the horizon.
    streams : TrialStreams
        The trials' random streams, advanced in place.
    trace : TraceBuffer, optional
        Where to write the timeline of one trial (default: none).

    Raises
    ------
    InfeasibleJobError, DegradationOverflow
        As :func:`check_walked`, which checks the walk.
    """
    args = _walk_arguments(compiled, state, window, streams, trace)
    with _WALK_LOCK, _first_walk_notice(args):
        timeline.walk_trials(*args)
    check_walked(compiled, state)


def _walk_arguments(compiled: CompiledModel, state: TrialState, window: EventWindow,
                    streams: TrialStreams, trace: TraceBuffer | None) -> tuple:  # fmt: skip
    """The arguments of :func:`relplan.sim.timeline.walk_trials` for one window."""
    return (compiled.job, compiled.modes, window, streams, state,
            TraceBuffer.off() if trace is None else trace)  # fmt: skip


def _first_walk_notice(args: tuple) -> contextlib.AbstractContextManager:
    """Around the first walk of the process: the compile notice if it has to compile
    (:func:`relplan.sim.compile_notice.compiling_notice`); else, and later, nothing.
    Called with :data:`_WALK_LOCK` held."""
    global _first_walk_checked
    if not _first_walk_checked:
        _first_walk_checked = True
        if not walk_is_compiled(args):
            return compiling_notice()
    return contextlib.nullcontext()


def check_walked(compiled: CompiledModel, state: TrialState) -> None:
    """Raise if a walk of ``state``'s trials went beyond what it may.

    Parameters
    ----------
    compiled : CompiledModel
        The model packed for compiled code.
    state : TrialState
        The block's trials, just walked.

    Raises
    ------
    InfeasibleJobError
        If a trial walked more steps than :attr:`CompiledJob.max_events_per_trial`.
    DegradationOverflow
        If a trial had more degradations at once than ``state`` has room for.
    """
    if state.too_many_events[0]:
        raise InfeasibleJobError(
            f"a trial walked more than {compiled.job.max_events_per_trial:,} failures and "
            "repairs without finishing the job (the documented bound per trial); make "
            "failures rarer, shorten job.work or failures.*.repair, add job.spares, or "
            "lengthen job.checkpoint.interval"
        )
    if state.overflow[0]:
        raise DegradationOverflow(state.degradation_end_hours.shape[1])


def trial_outcomes(
    state: TrialState, model: SimulationModel, unit_stats: np.ndarray | None = None
) -> TrialOutcomes:
    """The block's per-trial arrays, with the recovery stack's per-step tax split out of
    the compute the walk booked as ``useful`` (the walk runs the work with its tax,
    :attr:`~relplan.sim.model.JobSpec.compute_hours`): ``useful`` is the work kept,
    ``overhead`` the tax on it.

    Parameters
    ----------
    state : TrialState
        The block's trials, walked to their end.
    model : SimulationModel
        The model they were walked on.
    unit_stats : numpy.ndarray, optional
        Per trial and tracked mode, the unit statistics (:data:`relplan.vocab.UNIT_STATS`);
        zeros by default.

    Returns
    -------
    TrialOutcomes

    Examples
    --------
    >>> from relplan.config.loading import load_config
    >>> from relplan.sim.model import build_model
    >>> model = build_model(load_config("configs/small.toml"))
    >>> state = TrialState.at_start(2, len(model.modes), model.job.spares)
    >>> trial_outcomes(state, model).failures_by_mode.shape == (2, len(model.modes))
    True
    """
    modes = model.modes
    n = state.wall_hours.size
    buckets = state.bucket_hours  # the walk leaves the overhead column as it finds it
    tax = model.job.step_overhead
    if tax > 0.0:
        kept = buckets[:, _USEFUL]
        useful = kept / (1.0 + tax)
        buckets[:, _OVERHEAD] = kept - useful
        buckets[:, _USEFUL] = useful
    else:
        buckets[:, _OVERHEAD] = 0.0
    if unit_stats is None:
        tracked = sum(m.history is not None for m in modes)
        unit_stats = np.zeros((state.wall_hours.size, tracked, len(UNIT_STATS)),
                              dtype=np.int64)  # fmt: skip
    return TrialOutcomes(
        wall_hours=state.wall_hours,
        bucket_hours=state.bucket_hours,
        restart_init_hours=state.restart_init_hours,
        maintenances=state.maintenances,
        corrupted_final=(state.undetected_checkpoint >= 0)
        | np.isfinite(state.corruption_found_hours),
        failures_by_mode=state.failures_by_mode,
        interruptions_by_mode=state.interruptions_by_mode,
        spares_used=state.spares_used,
        drains=state.drains,
        depleted=state.depleted,
        restart_attempts=_or_zeros(state.restart_attempts, n),
        requeues=_or_zeros(state.requeues, n),
        job_failed=_or_zeros(state.job_failed, n),
        save_hangs=_or_zeros(state.save_hangs, n),
        mode_names=tuple(m.name for m in modes),
        mode_impacts=tuple(m.impact for m in modes),
        mode_interrupts=tuple(
            m.is_fatal or m.survivable_count is not None
            or m.impact in ("slow", "corruption", "preemption")
            for m in modes
        ),
        unit_stats=unit_stats,
        mode_tracks_units=tuple(m.history is not None for m in modes),
    )


def _or_zeros(counts: np.ndarray, trials: int) -> np.ndarray:
    """A feature's per-trial counts, or, where the run leaves the feature out (its state
    holds none), zeros that take no memory (a read-only broadcast)."""
    if counts.size == trials:
        return counts
    return np.broadcast_to(np.zeros(1, dtype=counts.dtype), (trials,))


def _is_left_out(values: np.ndarray) -> bool:
    """Whether per-trial values are :func:`_or_zeros`' zeros for a feature left out."""
    return values.ndim == 1 and values.size > 1 and values.strides == (0,)


def degradation_slots(model: SimulationModel) -> int:
    """Room for concurrent degradations per trial: far above their expected number.

    The expected number at any time is the sum over non-fatal modes of failure rate x
    duration (Little's law); the slots cover it with a wide margin (a Poisson tail far
    beyond 1e-12), at least 16, and none for a model without non-fatal modes.
    """
    expected = 0.0
    for mode in model.modes:
        if mode.impact == "fatal":
            continue
        duration = mode.stall_hours + mode.soft_hours
        if mode.impact in ("degraded", "elastic"):
            duration += mode.mean_repair_hours
        elif mode.impact == "slow":  # until evicted
            duration += mode.detect_hours + model.job.interval_hours
        expected += mode.job_rate_per_hour * duration
    if not any(mode.impact != "fatal" for mode in model.modes):
        return 0
    return int(3 * expected + 12 * math.sqrt(expected) + 16)


def first_window_hours(model: SimulationModel) -> float:
    """Exposure covered by the first window of pre-drawn (non-exponential) failures, hours.

    Daly's expected exposure at Daly's interval: it does not depend on the configured
    interval, so every interval sees the same failure stream (common random numbers).
    """
    job = model.job
    mtti = model.job_mtti_hours
    write = job.mean_write_hours
    interval = job.segment_hours
    if math.isfinite(mtti) and write > 0:
        interval = daly_interval(write, mtti)
    restart = job.restart_hours if job.failures_during_recovery else 0.0  # exposure only
    expected = expected_wall_hours(job.compute_hours, interval, write, mtti, restart)
    return expected if job.horizon_hours is None else min(expected, job.horizon_hours)


def simulate_block(
    model: SimulationModel,
    n_trials: int,
    seed_sequence: np.random.SeedSequence,
    window_factor: float = WINDOW_FACTOR,
    on_the_fly: bool = True,
    trace: TraceBuffer | None = None,
    compiled: CompiledModel | None = None,
) -> TrialOutcomes:
    """Simulate one block of trials.

    Parameters
    ----------
    model : SimulationModel
        The job and its failure modes.
    n_trials : int
        Trials in the block.
    seed_sequence : numpy.random.SeedSequence
        The block's seed: child 0 seeds each trial's own stream (exponential modes),
        child 1 the block's numpy generator (pre-drawn windows of other modes).
    window_factor : float
        Length of the first window of pre-drawn failures as a multiple of
        :func:`first_window_hours`; later windows are a quarter of it. Any value gives
        the same distribution of results (windows are extended by conditioning on
        survival); it only trades wasted draws against passes.
    on_the_fly : bool
        Draw exponential modes inside the compiled walk (the default); False pre-draws
        them in windows like the others (a check of one against the other).
    trace : TraceBuffer, optional
        Where to write the timeline of one trial of the block (see
        :func:`relplan.sim.timeline.walk_kernel`); default: none.
    compiled : CompiledModel, optional
        ``compile_model(model, on_the_fly)``, when the caller has it already (a run
        packs its model once for all its blocks); default: packed here.

    Returns
    -------
    TrialOutcomes
        One row per trial.

    Raises
    ------
    InfeasibleJobError
        If a trial needs more room for concurrent degradations than
        :data:`MAX_DEGRADATION_CELLS` allows the block, or walks too many steps.

    Notes
    -----
    The room for concurrent degradations per trial starts at :func:`degradation_slots`;
    a block that overflows it is walked again from its seed with four times the room,
    so the numbers never depend on the room.
    """
    slots = degradation_slots(model)
    if compiled is None:
        compiled = compile_model(model, on_the_fly)
    while True:
        try:
            return _simulate_block_with_slots(model, n_trials, seed_sequence, slots,
                                              window_factor, compiled, trace)  # fmt: skip
        except DegradationOverflow:
            slots *= 4
            if n_trials * slots > MAX_DEGRADATION_CELLS:
                raise InfeasibleJobError(
                    f"a trial had more than {slots // 4:,} degradations at once (failures "
                    "of degraded, transient, elastic or slow modes not yet repaired): make "
                    "their failures.*.repair shorter or their failures rarer"
                ) from None
            slots = max(slots, 4)
            if trace is not None:
                trace.row_count[0] = 0


def _simulate_block_with_slots(
    model: SimulationModel, n_trials: int, seed_sequence: np.random.SeedSequence,
    slots: int, window_factor: float, compiled: CompiledModel, trace: TraceBuffer | None,
) -> TrialOutcomes:  # fmt: skip
    """:func:`simulate_block` with room for ``slots`` concurrent degradations per trial."""
    walks = _block_walks(model, n_trials, seed_sequence, slots, window_factor, compiled, trace)
    request = next(walks)
    while True:
        walk_block(*request)
        try:
            request = walks.send(None)
        except StopIteration as done:
            return done.value


WalkRequest = tuple[CompiledModel, TrialState, EventWindow, TrialStreams, "TraceBuffer | None"]
"""The arguments of :func:`walk_block` for one window of a block."""


def _block_walks(
    model: SimulationModel, n_trials: int, seed_sequence: np.random.SeedSequence,
    slots: int, window_factor: float, compiled: CompiledModel, trace: TraceBuffer | None,
) -> Generator[WalkRequest, None, TrialOutcomes]:  # fmt: skip
    """One block, as the windows it needs walked: yields each window's :data:`WalkRequest`,
    to be walked (and checked) before the generator is resumed; returns the outcomes.

    The work between walks (seeding, the state, the windows' events, the outcomes) is
    the caller's thread's: a run can prepare the next block while one is walked
    (:func:`_pipelined_blocks`).
    """
    job, modes = model.job, model.modes
    trial_seeds, window_seed = seed_sequence.spawn(2)
    rng = np.random.Generator(np.random.PCG64(window_seed))
    # the walk seeds each trial's stream and draws its first on-the-fly failure when it
    # first walks it
    trial_streams = TrialStreams(rng_state=np.empty((n_trials, 4), dtype=np.uint64),
                                 next_exponential_hours=np.empty(n_trials),
                                 key=stream_key(trial_seeds))  # fmt: skip
    streams = {index: _window_stream(modes[index], n_trials, rng)
               for index in compiled.window_modes}  # fmt: skip
    state = TrialState.at_start(n_trials, len(modes), job.spares, slots, job.spare_domains,
                                job.spare_pool, compiled.job.drains, job.restarts_draw,
                                job.saves_random, job.saves_walked,
                                job.repair_crews)  # fmt: skip
    tracked = [m for m in modes if m.history is not None]
    unit_stats = np.zeros((n_trials, len(tracked), len(UNIT_STATS)), dtype=np.int64)
    retire_after = np.array([m.history.retire_after or 0 for m in tracked], dtype=np.int64)
    column_of_mode = np.cumsum([m.history is not None for m in modes], dtype=np.int64) - 1
    window_modes = list(compiled.window_modes)  # never drawn on the fly
    tracks_units = any(isinstance(stream, UnitStream) for stream in streams.values())
    # per mode: the failure that removes a unit from the fleet (0: none does)
    remove_at = np.array([m.history.retire_after if m.history is not None
                          and m.history.retire_removes else 0 for m in modes], dtype=np.int64)

    # windows of pre-drawn failures, if any mode has them
    first_window = window_factor * first_window_hours(model) if streams else math.inf
    step = 0.25 * first_window
    horizon = 0.0
    active = np.arange(n_trials, dtype=np.int64)
    window_failures = np.zeros(n_trials, dtype=np.int64)  # walked before the window
    while active.size:
        if not streams:
            horizon = np.inf
        else:
            horizon = first_window if horizon == 0.0 else horizon + step
        trial_parts, time_parts, mode_parts, repair_parts, ordinal_parts = [], [], [], [], []
        for index, stream in streams.items():
            if isinstance(stream, UnitStream):
                trials, times, ordinals = stream.next_window(horizon, active)
            else:
                trials, times = stream.next_window(horizon, active)
                ordinals = np.zeros(times.size, dtype=np.int64)  # no unit identity
            trial_parts.append(trials)
            time_parts.append(times)
            mode_parts.append(np.full(times.size, index, dtype=np.int64))
            repair_parts.append(modes[index].repair.sample(rng, times.size)
                                + modes[index].return_burn_in_hours)
            ordinal_parts.append(ordinals)
        if streams:
            event_trial = np.concatenate(trial_parts)
            event_time = np.concatenate(time_parts)
            order = np.lexsort((event_time, event_trial))
            event_trial = event_trial[order]
            event_time = event_time[order]
            event_mode = np.concatenate(mode_parts)[order]
            event_repair = np.concatenate(repair_parts)[order]
            event_ordinal = np.concatenate(ordinal_parts)[order]
            offsets = np.searchsorted(event_trial, np.append(active, n_trials)).astype(np.int64)
        else:  # every failure drawn in the walk: one pass, no window events
            event_trial = np.empty(0, dtype=np.int64)
            event_time = event_repair = np.empty(0)
            event_mode = event_ordinal = np.empty(0, dtype=np.int64)
            offsets = np.zeros(active.size + 1, dtype=np.int64)
        window = EventWindow(
            active_trials=active,
            offsets=offsets,
            event_exposure_hours=event_time,
            event_mode=event_mode,
            event_repair_hours=event_repair,
            horizon_hours=float(horizon),
            event_removes=(remove_at[event_mode] > 0) & (event_ordinal == remove_at[event_mode])
            if remove_at.any() else np.zeros(0, dtype=np.bool_),
        )
        yield compiled, state, window, trial_streams, trace
        if tracks_units:
            walked_to = state.failures_by_mode[:, window_modes].sum(axis=1)
            if event_ordinal.any():
                # the window's failures each trial reached: the walk booked them
                tally_unit_failures(unit_stats, event_trial, column_of_mode[event_mode],
                                    event_ordinal,
                                    walked_events(event_trial, walked_to - window_failures),
                                    retire_after)  # fmt: skip
            window_failures = walked_to
        if horizon == np.inf:  # walked to their end (check_walked raised otherwise)
            break
        active = active[state.phase[active] != FINISHED]
    return trial_outcomes(state, model, unit_stats)


def _window_stream(mode: FailureMode, n_trials: int,
                   rng: np.random.Generator) -> RenewalStream | UnitStream:  # fmt: skip
    """The pre-drawn failures of one mode: unit by unit if its units have a history."""
    if mode.history is not None:
        return UnitStream(mode.job_units, mode.lifetime, mode.history, n_trials, rng,
                          start=mode.start)  # fmt: skip
    return RenewalStream(mode.job_units, mode.lifetime, n_trials, rng, start=mode.start,
                         age_hours=mode.age_hours,
                         renewal_age_hours=mode.return_burn_in_hours)  # fmt: skip


def walk_trial(
    model: SimulationModel,
    failure_exposure_hours: list[float] | np.ndarray,
    failure_modes: list[int] | np.ndarray,
    repair_hours: list[float] | np.ndarray,
    trace: TraceBuffer | None = None,
    removes: list[bool] | np.ndarray | None = None,
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
        Repair time of each failed unit (or length of each degradation), hours.
    trace : TraceBuffer, optional
        Where to write the trial's timeline (its trial is 0); default: none.
    removes : sequence of bool, optional
        Whether each failure removes its unit from the fleet (``retire = "remove"``);
        default: none does.

    Returns
    -------
    TrialOutcomes
        A single row. Failures after the job has finished are ignored.
    """
    times = np.asarray(failure_exposure_hours, dtype=float)
    if np.any(np.diff(times) < 0):
        raise ValueError("failure times must be increasing")
    compiled = compile_model(model, on_the_fly=False)
    state, window, streams = one_trial_block(
        model, compiled, times, failure_modes, repair_hours, removes
    )
    walk_block(compiled, state, window, streams, trace)
    return trial_outcomes(state, model)


def one_trial_block(
    model: SimulationModel,
    compiled: CompiledModel,
    failure_exposure_hours: list[float] | np.ndarray,
    failure_modes: list[int] | np.ndarray,
    repair_hours: list[float] | np.ndarray,
    removes: list[bool] | np.ndarray | None = None,
    slots: int = MAX_DEGRADATIONS,
) -> tuple[TrialState, EventWindow, TrialStreams]:
    """A block of one trial not walked yet, and one window of the given failures that
    reaches the end of time: what :func:`walk_trial` walks, and (with no failures) the
    argument types of every block of a run (:func:`relplan.sim.precompile.walk_arguments`).

    Parameters
    ----------
    model : SimulationModel
        The job and its failure modes.
    compiled : CompiledModel
        ``compile_model(model, ...)``.
    failure_exposure_hours, failure_modes, repair_hours, removes : sequence
        As :func:`walk_trial`: the failures' exposure times (increasing), modes and
        repair hours, and whether each removes its unit (None: none does).
    slots : int
        Room for concurrent degradations per trial (:meth:`TrialState.at_start`).

    Returns
    -------
    tuple
        ``(state, window, streams)``: with ``compiled``, the arguments of
        :func:`walk_block`.
    """
    job = model.job
    times = np.asarray(failure_exposure_hours, dtype=float)
    state = TrialState.at_start(1, len(model.modes), job.spares, slots, job.spare_domains,
                                job.spare_pool, compiled.job.drains, job.restarts_draw,
                                job.saves_random, job.saves_walked,
                                job.repair_crews)  # fmt: skip
    window = EventWindow(
        active_trials=np.zeros(1, dtype=np.int64),
        offsets=np.array([0, times.size], dtype=np.int64),
        event_exposure_hours=times,
        event_mode=np.asarray(failure_modes, dtype=np.int64),
        event_repair_hours=np.asarray(repair_hours, dtype=float),
        horizon_hours=math.inf,
        event_removes=np.zeros(0, dtype=np.bool_) if removes is None
        else np.asarray(removes, dtype=np.bool_),
    )
    streams = TrialStreams(seed_states(np.uint64(0), 1), np.full(1, np.inf))
    return state, window, streams


def concatenate_outcomes(parts: list[TrialOutcomes]) -> TrialOutcomes:
    """Join the outcomes of consecutive blocks into one (see :func:`collect_outcomes`)."""
    return collect_outcomes(iter(parts), sum(p.trials for p in parts))


def count_dtype(counts: np.ndarray) -> np.dtype:
    """The smallest signed integer type that holds every count (int8 up to int64).

    Examples
    --------
    >>> count_dtype(np.array([0, 3, 127])), count_dtype(np.array([128]))
    (dtype('int8'), dtype('int16'))
    """
    if counts.size == 0:
        return _NARROW_INTEGERS[0][0]
    top = int(counts.max())
    low = int(counts.min())
    for dtype, smallest, largest in _NARROW_INTEGERS:
        if smallest <= low and top <= largest:
            return dtype
    return np.dtype(np.int64)


_NARROW_INTEGERS = tuple((np.dtype(t), int(np.iinfo(t).min), int(np.iinfo(t).max))
                         for t in (np.int8, np.int16, np.int32))  # fmt: skip
"""The integer types :func:`count_dtype` narrows to, with their bounds, narrowest first."""


def narrow_counts(counts: np.ndarray) -> np.ndarray:
    """Counts in the smallest signed integer type that holds them (:func:`count_dtype`).

    Examples
    --------
    >>> narrow_counts(np.array([0, 3, 127])).dtype, narrow_counts(np.array([128])).dtype
    (dtype('int8'), dtype('int16'))
    """
    return counts.astype(count_dtype(counts), copy=False)


_COUNT_FIELDS = ("maintenances", "failures_by_mode", "interruptions_by_mode", "spares_used",
                 "drains", "restart_attempts", "requeues", "save_hangs",
                 "unit_stats")  # fmt: skip
"""Per-trial counts of :class:`TrialOutcomes`, kept in :func:`count_dtype`'s types."""

_MODE_FIELDS = ("mode_names", "mode_impacts", "mode_interrupts", "mode_tracks_units")
"""Per-mode fields of :class:`TrialOutcomes`, the same in every block."""

_VALUE_FIELDS = ("wall_hours", "bucket_hours", "restart_init_hours", "corrupted_final",
                 "depleted", "job_failed")  # fmt: skip
"""Per-trial values of :class:`TrialOutcomes`, kept as they come (float64, bool)."""


def collect_outcomes(parts: Iterator[TrialOutcomes], trials: int) -> TrialOutcomes:
    """Gather consecutive blocks' outcomes into one, compactly, as they come.

    Each block is copied into arrays made once for all the trials and then let go, so a
    run never holds its trials twice; counts are kept in the smallest integer type that
    holds them (widened when a block needs more), hours as float64 (every number stays
    exact). Sums and means of the counts are those of the int64 counts.

    Parameters
    ----------
    parts : iterator of TrialOutcomes
        The blocks, in trial order.
    trials : int
        Trials in all the blocks together.

    Returns
    -------
    TrialOutcomes
        One row per trial, in trial order.
    """
    arrays: dict[str, np.ndarray] = {}
    modes: dict[str, tuple] = {}
    left_out: dict[str, np.dtype] = {}  # a feature's counts the run leaves out: no copy
    start = 0
    for part in parts:
        stop = start + part.trials
        for name in (*_VALUE_FIELDS, *_COUNT_FIELDS):
            block = getattr(part, name)
            if name not in arrays and _is_left_out(block):
                left_out[name] = block.dtype
                continue
            # counts go straight into their narrow type (they fit: no copy in between)
            dtype = count_dtype(block) if name in _COUNT_FIELDS else block.dtype
            kept = arrays.get(name)
            if kept is None:
                kept = arrays[name] = np.empty((trials, *block.shape[1:]), dtype=dtype)
            elif np.can_cast(kept.dtype, dtype) and kept.dtype != dtype:
                kept = arrays[name] = kept.astype(dtype)  # widen what came before
            kept[start:stop] = block
        modes = modes or {name: getattr(part, name) for name in _MODE_FIELDS}
        start = stop
        del part, block  # let the block go before the next one comes
    if not modes:
        raise ValueError("no blocks to gather")
    if start != trials:
        raise ValueError(f"the blocks hold {start} trials, not {trials}")
    for name, dtype in left_out.items():
        if name not in arrays:
            arrays[name] = np.broadcast_to(np.zeros(1, dtype=dtype), (trials,))
    return TrialOutcomes(**arrays, **modes)


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
    sizes = block_sizes(trials, block_trials(model))

    compiled = compile_model(model)

    def run(block_index: int) -> TrialOutcomes:
        outcome = simulate_block(model, sizes[block_index], block_seed(seed, block_index),
                                 compiled=compiled)  # fmt: skip
        if progress is not None:
            progress(sizes[block_index])
        return outcome

    timeline.allow_walks()
    if workers <= 1 or len(sizes) == 1:
        blocks = _pipelined_blocks(model, sizes, seed, compiled, progress)
        try:
            return collect_outcomes(blocks, trials)
        finally:
            blocks.close()  # an interrupted run stops its walk here
    with ThreadPoolExecutor(max_workers=workers) as pool:
        try:
            return collect_outcomes(_in_order(pool, run, len(sizes), workers), trials)
        except KeyboardInterrupt:  # stop the blocks under way, start no more
            timeline.cancel_walks()
            pool.shutdown(cancel_futures=True)
            raise


def _pipelined_blocks(
    model: SimulationModel, sizes: list[int], seed: int, compiled: CompiledModel,
    progress: Callable[[int], None] | None,
) -> Generator[TrialOutcomes, None, None]:  # fmt: skip
    """The blocks' outcomes in order, from one thread that never waits for the walk idly.

    While the walk's threads walk a window of one block, this thread hands over the last
    block's outcomes and prepares the next block (its seeds, state and first window), so
    that work is not added to the walk's time. At most two blocks are held: the one
    walked and the next. A block's outcomes do not depend on how it is driven; one whose
    trials overflow their room for degradations is simulated again alone
    (:func:`simulate_block`). Closing the generator stops a walk under way.
    """
    slots = degradation_slots(model)

    def prepare(index: int) -> tuple[Generator[WalkRequest, None, TrialOutcomes], WalkRequest]:
        walks = _block_walks(model, sizes[index], block_seed(seed, index), slots,
                             WINDOW_FACTOR, compiled, None)  # fmt: skip
        return walks, next(walks)

    index = 0
    walks, request = prepare(0)
    upcoming = None  # the next block, prepared while this one is walked
    finished = None  # the last block's outcomes, handed over while this one is walked
    while True:
        with _WALK_LOCK:
            args = _walk_arguments(*request)
            with _first_walk_notice(args):
                pending = timeline.start_walk(*args)
                try:
                    if finished is not None:
                        yield finished
                        finished = None
                    if upcoming is None and index + 1 < len(sizes):
                        upcoming = prepare(index + 1)
                except BaseException:  # Ctrl-C, or the run abandoned: stop the walk first
                    timeline.cancel_walks()
                    with contextlib.suppress(KeyboardInterrupt):
                        timeline.finish_walk(pending)
                    raise
                timeline.finish_walk(pending)
        try:
            check_walked(compiled, request[1])
            request = walks.send(None)
            continue  # the block's next window
        except DegradationOverflow:
            finished = simulate_block(model, sizes[index], block_seed(seed, index),
                                      compiled=compiled)  # fmt: skip
        except StopIteration as done:
            finished = done.value
        walks = request = None  # let the block's state go
        if progress is not None:
            progress(sizes[index])
        index += 1
        if upcoming is None:
            yield finished
            return
        (walks, request), upcoming = upcoming, None


def _in_order(pool: ThreadPoolExecutor, run: Callable[[int], TrialOutcomes], blocks: int,
              workers: int) -> Iterator[TrialOutcomes]:  # fmt: skip
    """The blocks' outcomes in order, with at most :data:`BLOCKS_IN_FLIGHT_PER_WORKER` x
    ``workers`` blocks submitted and not yet collected (so that finished blocks do not pile
    up in memory)."""
    pending: deque[Future[TrialOutcomes]] = deque()
    submitted = 0
    while submitted < blocks or pending:
        while submitted < blocks and len(pending) < BLOCKS_IN_FLIGHT_PER_WORKER * workers:
            pending.append(pool.submit(run, submitted))
            submitted += 1
        yield pending.popleft().result()
