"""The per-trial job timeline, compiled with numba: the engine's hot loop.

A trial walks its failures in order of *exposure* (hours of hardware in use). Between
two things that happen (a failure, the end of a degradation, the end of a restart, the
end of the job) it advances in closed form over checkpoint segments, so its cost is
O(failures), not O(checkpoints).

The job runs segments of ``segment_hours`` (tau) of compute each followed by a blocking
write: ``fast_write_hours`` normally, ``durable_write_hours`` on every
``durable_every``-th checkpoint (one tier: ``durable_every = 1``); see
:class:`relplan.sim.compiled.CompiledJob`. Progress is counted in *job-time*: hours at
full speed. While degraded at slowdown ``s``, the job computes at ``1 / s`` job-hours per
hour; it writes checkpoints at that pace too if storage shares the compute fabric
(``storage_on_fabric``), else at full speed. A stretch of ``n`` whole segments at ``s``
takes ``n (s tau + delta)`` hours (the durable writes counted in with two tiers), so the
progress a stretch reaches, and the time to the end of the job, come in closed form
(:func:`progress_after`). The extra time goes to the ``degraded`` bucket.

Impacts of a failure:

- FATAL: everything since the last surviving checkpoint becomes ``rework``: the compute
  and writes, and the extra time of slowed running and the stalls in them (moved from
  ``degraded`` and ``stall``); detection, then a spare or a wait for the repair (idle: no
  exposure), then a restart (exposure: may fail again). To know what to move in O(1),
  each trial holds the degraded and stall hours of the segment they were spent in, and
  those of completed segments after its last durable checkpoint
  (:class:`relplan.sim.compiled.HeldHours`); they are settled only when more come in or
  a failure strikes (:func:`_hold_hours`), so running at full speed costs nothing more.
- DEGRADED: the job runs on, slowed, until the unit's repair ends (wall clock); a
  failure beyond the mode's survivable count (every spine lost) is FATAL instead.
- TRANSIENT: the network stalls for the mode's stall time (exposure): the job makes no
  progress, and a restart under way pauses; then the job optionally runs slowed for a
  while (soft degradation, such as PFC congestion). Stalls that overlap count their
  union: one that starts during another adds only what reaches beyond it.
- ELASTIC: the job drops the failed data-parallel replica instead of rolling back: it
  stalls for detection plus reconfiguration (as a transient stall does), then runs on
  with fewer replicas (slowdown ``DP / (DP - k)``) until a spare, or the repaired unit,
  rejoins.

Failures come from two sources, merged in time: exponential modes drawn on the fly
from each trial's own xoshiro256** stream (a Poisson superposition: per event a gap from
the ziggurat, a uniform for the mode and one for the repair), and pre-drawn, sorted
window events of non-exponential modes.

Compilation. The trials are walked by the function :func:`walk_kernel` returns for the
features a model uses (:class:`relplan.sim.compiled.WalkFeatures`): a trace, a calendar
window, maintenance, fail-slow units, corruption, drains, stops that wait for a
checkpoint, failures while down, a second tier of spares, degradations. They are
constants of the walk (values it closes over), so numba prunes the branches of the
features that are off before it types the walk: a config compiles and runs only what it
uses, and numba caches each set of features on disk apart (its cache key holds the
closed-over values). A plain serial function, it runs without the GIL (with numpy's
error model: a division by zero gives inf, as in a numba parallel loop);
:func:`walk_trials` spreads the trials over the cores with Python threads, which take
them a short run at a time from one atomic counter (:mod:`relplan.sim.claims`): a thread
on a slower core takes fewer, so the threads end together. As the body of a ``prange``
loop it compiled about 10 s slower (numba's parallel passes), for no gain
in speed. Only the small scalar helpers of the hot path are inlined into the walk
(``inline="always"``: segment arithmetic, the slowed-stretch bookkeeping); those that
take the trials' arrays (the spares away, the slowdown, trace rows, failures while down)
are compiled without numba's reference counting (:data:`_array_helper`), so calling them
costs no atomic count updates, and LLVM inlines the small ones. The stop of a job (a
crash, an eviction, a corruption found, a maintenance window) stays in the walk: as a
function of its own it compiled 15 s faster, but the reference counts of the many
arrays it touches cost about a microsecond per failure, ten times the walk's cost per
event. The first compile of ``configs/small.toml`` took 17 s on two idle cores with the
walk per feature set, 21-28 s with every feature in one walk (two measurements each).

Cost per event. While a trial is walked its own entries (phase, clocks, progress,
checkpoints, bucket hours) are local values, written back when it stops (a trial not
walked yet starts from the initial values without reading them, and one that finished
writes back only what the outcomes read), and a restart
that ends before anything else happens is booked in its failure's step (the fast path:
one step per failure instead of two). What is left per failure is the random draws
(three uniforms, a logarithm, the alias pick), the crash's bookkeeping and the spares
away (a sorted list: O(1) when the repair ends after those under way).

Planned and delayed events join the failures: maintenance windows on a wall-clock
schedule, the detection of a fail-slow unit, of a corruption or of a degraded server that
drains, and the checkpoint a planned stop waits for (see
:class:`relplan.sim.compiled.TrialState`).
"""

from __future__ import annotations

import functools
import math
import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor

import numba
import numpy as np

from relplan.sim.claims import claim, claim_run
from relplan.sim.compiled import (
    CORRUPTION,
    DEGRADED,
    DRAIN_NEVER,
    DRAIN_NOW,
    ELASTIC,
    FATAL,
    FINISHED,
    NO_STOP,
    RESTARTING,
    RUNNING,
    SLOW,
    STOP_DRAIN,
    STOP_EVICTION,
    STOP_MAINTENANCE,
    TRACE_DETECT,
    TRACE_FAILURE,
    TRACE_FINISH,
    TRACE_MAINTENANCE,
    TRACE_RESTART,
    TRACE_ROLLBACK,
    TRACE_RUN,
    TRACE_STALL,
    TRACE_STOP,
    TRACE_WAIT,
    TRANSIENT,
    CompiledJob,
    CompiledModes,
    EventWindow,
    HeldHours,
    TraceBuffer,
    TrialState,
    TrialStreams,
    WalkFeatures,
)
from relplan.sim.rng import (
    duration_from_uniform,
    exponential,
    exponential_from_words,
    load_words,
    store_words,
    trial_words,
    uniform,
    uniform_from_words,
)

B_USEFUL, B_REWORK, B_CHECKPOINT, B_DETECT, B_RESTART, B_WAITING, B_DEGRADED, B_STALL = range(8)
B_MAINTENANCE = 8
"""Columns of ``TrialState.bucket_hours`` (the order of :data:`relplan.vocab.BUCKETS`)."""

NO_STOP_KIND, FAILURE, STOP_AT_CHECKPOINT, MAINTENANCE_NOW, EVICT_NOW, CORRUPTION_FOUND = range(6)
DRAIN_AT_ONCE = 6
"""What stops the job at a step of the walk: nothing, a fatal failure, the checkpoint a
planned stop waited for, a maintenance window that does not wait, a fail-slow unit
evicted at once, a corruption found, a degraded server drained at once."""

WALK_THREADS = max(1, numba.config.NUMBA_NUM_THREADS)
"""Threads a walk spreads its trials over: numba's thread count (every core, unless
``NUMBA_NUM_THREADS`` says otherwise)."""

MIN_TRIALS_PER_THREAD = 64
"""Fewest trials worth handing to another thread (light trials: a few microseconds)..."""

MIN_WINDOW_EVENTS_PER_THREAD = 1_024
"""...or fewest pre-drawn failures: trials that hold many (a large fleet with lemons, a
few hundred trials a block) are worth a thread each."""

_array_helper = numba.njit(cache=True, nogil=True, error_model="numpy", _nrt=False)
"""Compile a helper of the walk that takes the trials' arrays and allocates none.

Numba counts references to the arrays a function takes (an atomic add at its entry and
another at its exit, for each array argument, wherever neither can be proven useless);
in the walk's helpers that kept the state's arrays' counts busy at every failure, about
40% of the walk's time (and the two threads of a walk fought over the same counts).
Compiled without numba's runtime (``_nrt=False``), a helper borrows its arrays for the
call: no count changes, and LLVM can still inline it. Such a helper can neither allocate
nor call one that does."""

_inlined_array_helper = numba.njit(cache=True, nogil=True, error_model="numpy", _nrt=False,
                                   inline="always")
"""An :data:`_array_helper` small enough to be inlined into the helpers that call it
(never into the walk itself, whose arrays numba counts): a call would copy each array's
descriptor onto the stack."""


@numba.njit(cache=True, inline="always")
def segments_time(job: CompiledJob, start_index: int, count: int) -> float:
    """Job-time of ``count`` segments after checkpoint number ``start_index``.

    Parameters
    ----------
    job : CompiledJob
        The job's numbers.
    start_index : int
        Checkpoints committed before the first of the segments.
    count : int
        Segments, each its compute and its checkpoint write.

    Returns
    -------
    float
        Hours at full speed.
    """
    if job.durable_every == 1:  # one tier: no integer division on the hot path
        return count * (job.segment_hours + job.durable_write_hours)
    durable = (start_index + count) // job.durable_every - start_index // job.durable_every
    return count * (job.segment_hours + job.fast_write_hours) + durable * (
        job.durable_write_hours - job.fast_write_hours
    )


@numba.njit(cache=True)
def _segments_within(
    job: CompiledJob, start_index: int, span: float, most: int, added_per_segment: float
) -> int:
    """Segments after checkpoint number ``start_index`` that end within ``span`` hours,
    each taking its job-time plus ``added_per_segment`` hours.

    Parameters
    ----------
    job : CompiledJob
        The job's numbers.
    start_index : int
        Checkpoints committed before the first of the segments.
    span : float
        Hours from the start of the first segment.
    most : int
        The most segments to count.
    added_per_segment : float
        Hours each segment takes beyond its job-time (0: job-time itself).

    Returns
    -------
    int
        The segments.
    """
    if job.durable_every == 1:  # one tier: no integer division on the hot path
        per_segment = job.segment_hours + job.durable_write_hours + added_per_segment
        return min(max(int(span / per_segment), 0), most)
    average = job.segment_hours + job.fast_write_hours + (
        job.durable_write_hours - job.fast_write_hours
    ) / job.durable_every + added_per_segment
    count = min(max(int(span / average), 0), most)
    while count < most and (
        segments_time(job, start_index, count + 1) + (count + 1) * added_per_segment <= span
    ):
        count += 1
    while count > 0 and segments_time(job, start_index, count) + count * added_per_segment > span:
        count -= 1
    return count


@numba.njit(cache=True, inline="always")
def completed_segments(job: CompiledJob, start_index: int, elapsed: float, most: int) -> int:
    """Segments completed ``elapsed`` job-hours after checkpoint number ``start_index``.

    Parameters
    ----------
    job : CompiledJob
        The job's numbers.
    start_index : int
        Checkpoints committed when the run began.
    elapsed : float
        Job-time run since then, hours.
    most : int
        The most segments the run can complete (those before the last segment).

    Returns
    -------
    int
        Segments whose checkpoint write has finished.
    """
    return _segments_within(job, start_index, elapsed, most, 0.0)


@numba.njit(cache=True)
def slowed_job_hours(
    job: CompiledJob, start_index: int, progress: float, done: int, most: int
) -> float:
    """Job-time in the first ``progress`` job-hours of a run that a degradation slows.

    All of it if checkpoint writes share the compute fabric; otherwise only the compute
    (``segment_hours`` per completed segment and the compute of the segment in
    progress), not the writes.

    Parameters
    ----------
    job : CompiledJob
        The job's numbers.
    start_index : int
        Checkpoints committed when the run began.
    progress : float
        Job-time run since then, hours.
    done : int
        ``completed_segments(job, start_index, progress, most)``.
    most : int
        The most segments the run can complete (those before the last segment).

    Returns
    -------
    float
        Hours at full speed.
    """
    if job.storage_on_fabric:
        return progress
    into = progress - segments_time(job, start_index, done)
    if done < most:  # past the segment's compute, the job is writing
        into = min(into, job.segment_hours)
    return done * job.segment_hours + into


@numba.njit(cache=True, inline="always")
def completed_segments_hinted(
    job: CompiledJob, start_index: int, elapsed: float, most: int, hint: int
) -> int:
    """:func:`completed_segments`, trying ``hint`` first: no division if the run is in
    segment ``hint + 1`` (after ``hint`` completed segments)."""
    if 0 <= hint <= most and segments_time(job, start_index, hint) <= elapsed and (
        hint == most or elapsed < segments_time(job, start_index, hint + 1)
    ):
        return hint
    return completed_segments(job, start_index, elapsed, most)


@numba.njit(cache=True)
def completed_segments_after(
    job: CompiledJob, start_index: int, done_before: int, elapsed: float, most: int
) -> int:
    """:func:`completed_segments` at ``elapsed``, knowing that the run had completed
    ``done_before`` segments at an earlier point: no division while the run is still in
    the same segment.
    """
    if done_before == most or elapsed < segments_time(job, start_index, done_before + 1):
        return done_before
    return completed_segments(job, start_index, elapsed, most)


@numba.njit(cache=True, inline="always")
def progress_after(
    job: CompiledJob, start_index: int, progress: float, done_before: int,
    slowed_before: float, wall_hours: float, slowdown: float, most: int,
) -> float:  # fmt: skip
    """Job-time a run reaches ``wall_hours`` after ``progress``, at ``slowdown``.

    At slowdown ``s`` the compute advances ``1 / s`` job-hours per hour and a write (off
    the compute fabric) one. Within the segment in progress that is direct; beyond it,
    the run's first ``n`` segments take ``s tau n + writes`` hours: the segments
    completed by the end of the stretch come in closed form (as in
    :func:`completed_segments`), then the offset into the one in progress.

    Parameters
    ----------
    job : CompiledJob
        The job's numbers.
    start_index : int
        Checkpoints committed when the run began.
    progress : float
        Job-time run since then, hours.
    done_before : int
        :func:`completed_segments` at ``progress``.
    slowed_before : float
        :func:`slowed_job_hours` at ``progress``, hours.
    wall_hours : float
        Hours of running from ``progress`` on, at ``slowdown`` throughout.
    slowdown : float
        Step-time ratio.
    most : int
        The most segments the run can complete (those before the last segment).

    Returns
    -------
    float
        Job-time since the run began, hours.
    """
    if slowdown == 1.0 or job.storage_on_fabric or done_before == most:
        return progress + wall_hours / slowdown  # all slowed (the last segment: compute)
    tau = job.segment_hours
    # within the segment in progress: the rest of its compute, then its write
    segment_start = segments_time(job, start_index, done_before)
    compute_left = segment_start + tau - progress
    write_wall = wall_hours
    if compute_left > 0.0:
        if wall_hours <= slowdown * compute_left:
            return progress + wall_hours / slowdown
        write_wall = wall_hours - slowdown * compute_left
    write_start = max(progress, segment_start + tau)
    if write_start + write_wall < segments_time(job, start_index, done_before + 1):
        return write_start + write_wall
    added = (slowdown - 1.0) * tau  # per segment, beyond its job-time
    # hours from the run's start to the end of the stretch, had it all run at `slowdown`
    target = progress + (slowdown - 1.0) * slowed_before + wall_hours
    done = _segments_within(job, start_index, target, most, added)
    reached = segments_time(job, start_index, done)
    into = target - reached - done * added
    if done == most or into <= slowdown * tau:
        return reached + into / slowdown
    return reached + tau + (into - slowdown * tau)


@numba.njit(cache=True)
def _settle_held_hours(held: HeldHours, every: int) -> HeldHours:
    """``held`` once its segment has completed: a fatal failure no longer rolls its hours
    back; losing the fast tier does, unless a durable checkpoint ends the segment or
    comes after it.

    Parameters
    ----------
    held : HeldHours
        A trial's held hours, with ``held.segment > 0``.
    every : int
        Every how many checkpoints one is durable.

    Returns
    -------
    HeldHours
        With no segment's hours held.
    """
    durable_after = held.fast_tier_durable
    fast_degraded = held.fast_tier_degraded_hours
    fast_stall = held.fast_tier_stall_hours
    if every > 1:  # with one tier every checkpoint is durable: nothing to keep
        last_durable = held.segment // every * every
        if last_durable > durable_after:  # the fast tier's hours are safe now
            durable_after = last_durable
            fast_degraded = 0.0
            fast_stall = 0.0
        if held.segment > last_durable:
            fast_degraded += held.degraded_hours
            fast_stall += held.stall_hours
    return HeldHours(0, 0.0, 0.0, durable_after, fast_degraded, fast_stall)


@numba.njit(cache=True)
def _hold_hours(
    held: HeldHours, segment: int, degraded_hours: float, stall_hours: float, every: int
) -> HeldHours:
    """``held`` with ``degraded_hours`` of slowed extra time and ``stall_hours`` of stalls
    spent in segment ``segment`` of the run in progress; the hours of an earlier segment,
    which has completed since, are settled first.

    Parameters
    ----------
    held : HeldHours
        A trial's held hours.
    segment : int
        The segment the hours were spent in (numbered by the checkpoint that ends it).
    degraded_hours, stall_hours : float
        Hours.
    every : int
        Every how many checkpoints one is durable.

    Returns
    -------
    HeldHours
    """
    if held.segment != segment and held.segment > 0:
        held = _settle_held_hours(held, every)
    return HeldHours(segment, held.degraded_hours + degraded_hours,
                     held.stall_hours + stall_hours, held.fast_tier_durable,
                     held.fast_tier_degraded_hours, held.fast_tier_stall_hours)  # fmt: skip


@numba.njit(cache=True, inline="always")
def _hold_slowed_stretch(
    job: CompiledJob, held: HeldHours, start_index: int, done_before: int, done_after: int,
    reached: float, slowdown: float, extra_hours: float, most: int,
) -> HeldHours:  # fmt: skip
    """``held`` with the ``extra_hours`` of a stretch run at ``slowdown``, held segment by
    segment, in O(1) whatever the checkpoints the stretch crosses.

    The extra time accrues in proportion to the slowed job-time (:func:`slowed_job_hours`),
    so the parts after the last checkpoint the stretch completes, and after its last
    durable one, come in closed form.

    Parameters
    ----------
    job : CompiledJob
        The job's numbers.
    held : HeldHours
        The trial's held hours.
    start_index : int
        Checkpoints committed when the run began.
    done_before, done_after : int
        Segments the run had completed at the start and at the end of the stretch.
    reached : float
        Job-time since the run began at the end of the stretch, hours.
    slowdown : float
        Step-time ratio during the stretch.
    extra_hours : float
        The stretch's wall time beyond its job-time, hours.
    most : int
        The most segments the run can complete (those before the last segment).

    Returns
    -------
    HeldHours
    """
    every = job.durable_every
    first = start_index + done_before + 1  # the segment the stretch starts in
    if done_after == done_before:
        return _hold_hours(held, first, extra_hours, 0.0, every)
    boundary = segments_time(job, start_index, done_after)
    into = reached - boundary
    if not job.storage_on_fabric and done_after < most:
        into = min(into, job.segment_hours)
    after = (slowdown - 1.0) * into  # in the segment in progress at the end
    last_durable = (start_index + done_after) // every * every
    if last_durable >= first:
        # a durable checkpoint completes in the stretch: what came before it is safe
        if job.storage_on_fabric:
            kept = boundary - segments_time(job, start_index, last_durable - start_index)
        else:
            kept = (start_index + done_after - last_durable) * job.segment_hours
        return HeldHours(start_index + done_after + 1, after, 0.0, last_durable,
                         (slowdown - 1.0) * kept, 0.0)  # fmt: skip
    settled = _settle_held_hours(_hold_hours(held, first, extra_hours - after, 0.0, every),
                                 every)  # fmt: skip
    return HeldHours(start_index + done_after + 1, after, 0.0, settled.fast_tier_durable,
                     settled.fast_tier_degraded_hours, settled.fast_tier_stall_hours)  # fmt: skip


@_inlined_array_helper
def _spares_back(trial: int, return_hours: np.ndarray, away: np.ndarray, now: float) -> int:
    """Let the spares of a pool back from repair by wall time ``now`` leave its list of
    spares away (the earliest return times, at its front); return how many are still away.

    ``return_hours[trial, :away[trial]]`` holds the return times of the spares away in
    ascending order; the other spares are free. Its order is all that matters: the
    waits depend only on the return times, however they are kept.
    """
    size = away[trial]
    back = 0
    while back < size and return_hours[trial, back] <= now:
        back += 1
    if back > 0:
        size -= back
        for k in range(size):
            return_hours[trial, k] = return_hours[trial, k + back]
        away[trial] = size
    return size


@_inlined_array_helper
def _send_away(trial: int, return_hours: np.ndarray, size: int, back_hours: float) -> None:
    """Add a spare back at wall time ``back_hours`` to the ``size`` spares away, in order:
    a repair that ends after the others (the usual case) costs O(1)."""
    k = size
    while k > 0 and return_hours[trial, k - 1] > back_hours:
        return_hours[trial, k] = return_hours[trial, k - 1]
        k -= 1
    return_hours[trial, k] = back_hours


@_array_helper
def _replacement_wait(
    trial: int, return_hours: np.ndarray, away: np.ndarray, noticed: float, repair: float,
    needed: int = 1,
) -> float:  # fmt: skip
    """Hours from ``noticed`` until a replacement is ready: ``needed`` free spares (0),
    enough of them back from repair before the failed unit, or the failed unit itself.

    The spares away in repair are a per-trial list of their return times in ascending
    order (``away[trial]`` of them, see :func:`_spares_back`); the others are free. A
    failure of one unit costs O(1) when its repair ends after those under way, O(away) at
    most. A failure of ``needed > 1`` units at once (a rack) takes them all together: the
    free spares and, if too few, the first ones back, unless the failed units' repair
    ends first; the failed units go back to the pool when it ends. A pool smaller than
    ``needed`` never covers it: the job waits for the repair.
    """
    n_spares = return_hours.shape[1]
    if n_spares < needed:
        return repair
    size = _spares_back(trial, return_hours, away, noticed)
    back_after = noticed + repair
    if size + needed <= n_spares:
        # free spares go in; the failed units are away until their repair ends
        for _ in range(needed):
            _send_away(trial, return_hours, size, back_after)
            size += 1
        away[trial] = size
        return 0.0
    if needed > 1:
        return _block_replacement_wait(trial, return_hours, away, noticed, repair,
                                       size + needed - n_spares)  # fmt: skip
    back = return_hours[trial, 0]
    if back < back_after:
        # A spare comes back before the failed unit: take it; the failed unit joins
        # the pool when its own repair ends.
        for k in range(size - 1):
            return_hours[trial, k] = return_hours[trial, k + 1]
        _send_away(trial, return_hours, size - 1, back_after)
        return back - noticed
    return repair


@_array_helper
def _block_replacement_wait(
    trial: int, return_hours: np.ndarray, away: np.ndarray, noticed: float, repair: float,
    short: int,
) -> float:  # fmt: skip
    """:func:`_replacement_wait` for a block of units when the free spares are ``short``
    of it: wait for the ``short``-th spare back, unless the block's own repair comes
    first. Taking the spares leaves every spare of the pool in the job or away: those
    still in repair, and the block's units until their repair ends. O(spares)."""
    size = away[trial]
    ready = return_hours[trial, short - 1]
    back_after = noticed + repair
    if ready >= back_after:
        return repair
    n_spares = return_hours.shape[1]
    kept = size - short  # still in repair: the latest ones
    later = 0  # of them, those back after the block's units
    while later < kept and return_hours[trial, size - 1 - later] > back_after:
        later += 1
    for k in range(later):  # to the end of the list
        return_hours[trial, n_spares - 1 - k] = return_hours[trial, size - 1 - k]
    for k in range(kept - later):  # the others to its front
        return_hours[trial, k] = return_hours[trial, short + k]
    for k in range(kept - later, n_spares - later):  # the block's units between
        return_hours[trial, k] = back_after
    away[trial] = n_spares
    return ready - noticed


@_array_helper
def _free_spares(trial: int, return_hours: np.ndarray, away: np.ndarray, now: float) -> int:
    """Spares of the pool free at wall time ``now``: those away in repair that are back
    leave the list (as :func:`_replacement_wait` does), the others count against it."""
    return return_hours.shape[1] - _spares_back(trial, return_hours, away, now)


@_array_helper
def _drain_servers(
    trial: int, now: float, now_exposure: float, mode_drain: np.ndarray, n_modes: int,
    degradation_end: np.ndarray, degradation_row: np.ndarray,
    degradation_noticed: np.ndarray, degradation_count: np.ndarray,
    degradations_by_row: np.ndarray, spare_return_hours: np.ndarray, spares_away: np.ndarray,
    spares_used: np.ndarray, drains: np.ndarray,
) -> None:  # fmt: skip
    """Swap each server found running degraded (a mode that drains, found by exposure
    ``now_exposure``) for a free spare while the job is stopped at wall time ``now``: its
    degradation ends, and the spare pool has the server back when its repair ends.
    Servers left when no spare is free, and those not found yet, run on."""
    k = degradation_count[trial] - 1
    while k >= 0:
        row = degradation_row[trial, k]
        if row < n_modes and mode_drain[row] != DRAIN_NEVER and (
            degradation_end[trial, k] > now
        ) and degradation_noticed[trial, k] <= now_exposure:
            if _free_spares(trial, spare_return_hours, spares_away, now) < 1:
                return
            _replacement_wait(trial, spare_return_hours, spares_away, now,
                              degradation_end[trial, k] - now, 1)  # fmt: skip
            spares_used[trial] += 1
            drains[trial] += 1
            last = degradation_count[trial] - 1
            degradations_by_row[trial, row] -= 1
            degradation_end[trial, k] = degradation_end[trial, last]
            degradation_row[trial, k] = degradation_row[trial, last]
            degradation_noticed[trial, k] = degradation_noticed[trial, last]
            degradation_count[trial] = last
        k -= 1


@_array_helper
def _find_degraded_servers(
    trial: int, now_exposure: float, mode_drain: np.ndarray, n_modes: int,
    degradation_row: np.ndarray, degradation_noticed: np.ndarray,
    degradation_count: np.ndarray,
) -> tuple[float, int, bool]:  # fmt: skip
    """The degraded servers that drain found by exposure ``now_exposure`` (their mode's
    ``detect`` after their failure), each marked found (``-inf``).

    Returns the exposure at which the next one is found (inf: none pending), a mode of
    one found now that drains at once (-1: none), and whether one found now drains at
    the next checkpoint."""
    next_found = np.inf
    drain_now_mode = -1
    at_checkpoint = False
    for k in range(degradation_count[trial]):
        row = degradation_row[trial, k]
        if row < n_modes and mode_drain[row] != DRAIN_NEVER:
            found = degradation_noticed[trial, k]
            if found == -np.inf:  # found before: its policy applied then
                continue
            if found <= now_exposure:
                degradation_noticed[trial, k] = -np.inf
                if mode_drain[row] == DRAIN_NOW:
                    drain_now_mode = row
                else:
                    at_checkpoint = True
            elif found < next_found:
                next_found = found
    return next_found, drain_now_mode, at_checkpoint


@_array_helper
def _spare_wait(
    trial: int, needed: int, whole_domain: bool, spare_return_hours: np.ndarray,
    spares_away: np.ndarray, spare_domain_return_hours: np.ndarray,
    spare_domains_away: np.ndarray, spares_used: np.ndarray, noticed: float, repair: float,
) -> float:  # fmt: skip
    """Hours from ``noticed`` until the job has a replacement for a unit of ``mode`` that
    failed with ``repair`` hours of repair: from the pool of whole spare domains for a
    scale-up domain, else the mode's ``spares_needed`` loose spare servers at once (see
    :func:`_replacement_wait`); counts the spare servers swapped in."""
    if whole_domain:
        wait = _replacement_wait(trial, spare_domain_return_hours, spare_domains_away,
                                 noticed, repair, 1)
    else:
        wait = _replacement_wait(trial, spare_return_hours, spares_away, noticed, repair,
                                 needed)
    if wait < repair:
        spares_used[trial] += needed
    return wait


@_array_helper
def _emit(trace: TraceBuffer, start: float, end: float, code: int,
          a: float, b: float, c: float) -> None:  # fmt: skip
    """Append the row ``[start, end, code, a, b, c]`` to ``trace`` (count it if full)."""
    row = trace.row_count[0]
    if row < trace.rows.shape[0]:
        trace.rows[row, 0] = start
        trace.rows[row, 1] = end
        trace.rows[row, 2] = code
        trace.rows[row, 3] = a
        trace.rows[row, 4] = b
        trace.rows[row, 5] = c
    trace.row_count[0] = row + 1


@numba.njit(cache=True, inline="always")
def _init_part(done_from: float, done_to: float, init_hours: float) -> float:
    """Of the restart done from ``done_from`` to ``done_to`` hours into it, the hours of
    start-up (the first ``init_hours``); the rest is checkpoint load."""
    return min(done_to, init_hours) - min(done_from, init_hours)


@_array_helper
def _current_slowdown(
    trial: int, degradations_by_row: np.ndarray, slowdown_table: np.ndarray
) -> float:
    """The worst step-time ratio among the trial's degradations in progress (1: none)."""
    worst = 1.0
    depth = slowdown_table.shape[1]
    for row in range(degradations_by_row.shape[1]):
        count = degradations_by_row[trial, row]
        if count > 0:
            value = slowdown_table[row, min(count, depth - 1)]
            if value > worst:
                worst = value
    return worst


@numba.njit(cache=True)
def _segments_to_stop(
    job: CompiledJob, start_index: int, progress: float, most: int, durable_only: bool
) -> int:
    """Segments of the run (from checkpoint ``start_index``) up to the checkpoint a planned
    stop waits for: the next one after ``progress`` job-hours, or the next durable one; 0
    if the job ends first (none left before its last segment)."""
    reach = completed_segments(job, start_index, progress, most) + 1
    if durable_only and job.durable_every > 1:
        every = job.durable_every
        reach = ((start_index + reach + every - 1) // every) * every - start_index
    return reach if reach <= most else 0


@numba.njit(cache=True)
def _hours_to_progress(
    job: CompiledJob, start_index: int, progress: float, reach: int, slowdown: float,
    most: int,
) -> float:  # fmt: skip
    """Hours of running at ``slowdown`` from ``progress`` job-hours until the run has
    completed ``reach`` segments: the compute slowed, the writes too if storage shares
    the fabric."""
    target = segments_time(job, start_index, reach)
    if slowdown == 1.0 or job.storage_on_fabric:
        return (target - progress) * slowdown
    done = completed_segments(job, start_index, progress, most)
    slowed = slowed_job_hours(job, start_index, progress, done, most)
    return (target - progress) + (slowdown - 1.0) * (reach * job.segment_hours - slowed)


@numba.njit(cache=True)
def _retained_before(before: int, newest_durable: int, every: int, keep: int,
                     archive: int) -> int:  # fmt: skip
    """The newest durable checkpoint at or before checkpoint ``before`` that is still
    retained: among the ``keep`` newest durable ones (0: all are kept), else the newest
    archived one (every ``archive``-th durable one), else the start (0).

    Examples
    --------
    >>> _retained_before(7, 10, 1, 0, 0), _retained_before(7, 10, 1, 2, 0)
    (7, 0)
    >>> _retained_before(7, 10, 1, 2, 3), _retained_before(7, 12, 2, 0, 0)
    (6, 6)
    """
    target = (before // every) * every
    if keep > 0 and target < newest_durable - (keep - 1) * every:
        target = 0
        if archive > 0:
            target = (before // (every * archive)) * (every * archive)
    return min(target, newest_durable)


@_array_helper
def _end_slow_degradations(
    trial: int, degradation_end: np.ndarray, degradation_row: np.ndarray,
    degradation_noticed: np.ndarray, degradation_count: np.ndarray,
    degradations_by_row: np.ndarray,
) -> None:  # fmt: skip
    """End the trial's fail-slow degradations (those with no end): their units are evicted."""
    k = degradation_count[trial] - 1
    while k >= 0:
        if degradation_end[trial, k] == np.inf:
            last = degradation_count[trial] - 1
            degradations_by_row[trial, degradation_row[trial, k]] -= 1
            degradation_end[trial, k] = degradation_end[trial, last]
            degradation_row[trial, k] = degradation_row[trial, last]
            if degradation_noticed.shape[1] > 0:  # a model that drains
                degradation_noticed[trial, k] = degradation_noticed[trial, last]
            degradation_count[trial] = last
        k -= 1


@_array_helper
def _idle_failures(
    trial: int, down_wall: float, down_hours: float, modes: CompiledModes,
    rng_state: np.ndarray, failures_by_mode: np.ndarray, degradation_end: np.ndarray,
    degradation_row: np.ndarray, degradation_noticed: np.ndarray,
    degradation_count: np.ndarray,
    degradations_by_row: np.ndarray, overflow: np.ndarray, spare_return_hours: np.ndarray,
    spares_away: np.ndarray, spare_domain_return_hours: np.ndarray,
    spare_domains_away: np.ndarray, spares_used: np.ndarray, events_walked: np.ndarray,
    max_events: int, cancel: np.ndarray,
) -> float:  # fmt: skip
    """Failures of the on-the-fly modes while the job is down (``job.idle_failures``), from
    ``down_wall`` for ``down_hours``; returns the extra hours the job then waits.

    Each failure counts as a step of the trial (``events_walked``): once the trial has
    walked more than ``max_events`` steps, or ``cancel`` is set, it returns at once (the
    walk then stops the trial), so a wait that never ends (each wait longer than the
    hardware's time between failures) cannot hang the walk.

    The job's hardware fails at its usual rate while idle. A unit that fails is found at
    the restart and needs its own replacement (a spare, or its repair, which starts then);
    the restart waits for the last of them, and failures during that wait are found at
    the next attempt. A degraded mode's unit starts its wall-clock repair at once (found
    at the restart: one that drains may be drained then). Modes
    that strike only a running job (fail-slow units, corruptions, modes counted per job:
    not :attr:`CompiledModes.fails_idle`) are thinned out of the on-the-fly stream: a
    draw of one is passed over, so the others fail at their own rates.
    """
    rate = modes.exponential_rate_per_hour
    columns = modes.exponential_modes.size
    extra = 0.0
    t = exponential(rng_state, trial) / rate
    while True:
        restart_wall = down_wall + down_hours + extra
        need = 0.0
        while t < down_hours + extra:
            events_walked[trial] += 1
            if events_walked[trial] > max_events or cancel[0]:
                return extra
            pick = uniform(rng_state, trial) * columns
            column = min(int(pick), columns - 1)
            mode = modes.exponential_modes[column]
            if pick - column >= modes.exponential_probability[column]:
                mode = modes.exponential_alias[column]
            if not modes.fails_idle[mode]:  # thinned out: it strikes only a running job
                t += exponential(rng_state, trial) / rate
                continue
            repair = duration_from_uniform(
                modes.repair_kind[mode], modes.repair_scale_hours[mode],
                modes.repair_shape[mode], uniform(rng_state, trial),
            )  # fmt: skip
            failures_by_mode[trial, mode] += 1
            impact = modes.impact[mode]
            if impact == DEGRADED:
                k = degradation_count[trial]
                if k >= degradation_end.shape[1]:
                    overflow[0] = True
                else:
                    degradation_end[trial, k] = down_wall + t + repair
                    degradation_row[trial, k] = mode
                    if degradation_noticed.shape[1] > 0:  # found at the restart
                        degradation_noticed[trial, k] = -np.inf
                    degradation_count[trial] = k + 1
                    degradations_by_row[trial, mode] += 1
            elif impact != TRANSIENT:
                wait = repair
                if modes.self_healing[mode]:
                    wait = max(0.0, down_wall + t + repair - restart_wall)
                elif modes.uses_spares[mode]:
                    wait = _spare_wait(trial, modes.spares_needed[mode], modes.spare_domain[mode],
                                       spare_return_hours, spares_away,
                                       spare_domain_return_hours, spare_domains_away,
                                       spares_used, restart_wall, repair)  # fmt: skip
                need = max(need, wait)
            t += exponential(rng_state, trial) / rate
        if need <= 0.0:
            return extra
        extra += need


@numba.njit(cache=True)
def _windows_before(next_hours: float, end_hours: float, every_hours: float) -> int:
    """Windows of a schedule (the next at ``next_hours``, then every ``every_hours``) that
    start before ``end_hours``: O(1), however many.

    Examples
    --------
    >>> _windows_before(24.0, 24.0, 24.0), _windows_before(24.0, 24.5, 24.0)
    (0, 1)
    >>> _windows_before(24.0, 96.0, 24.0), _windows_before(24.0, 96.1, 24.0)
    (3, 4)
    """
    if not next_hours < end_hours:
        return 0
    return math.ceil((end_hours - next_hours) / every_hours)


@numba.njit(cache=True)
def _segments_time_cold(job: CompiledJob, start_index: int, count: int) -> float:
    """:func:`segments_time` as a call, for the paths that run once per stop: inlining
    it there would only lengthen the first compile."""
    return segments_time(job, start_index, count)


@numba.njit(cache=True)
def _completed_segments_cold(job: CompiledJob, start_index: int, elapsed: float,
                             most: int) -> int:  # fmt: skip
    """:func:`completed_segments` as a call, for the paths that run once per stop."""
    return completed_segments(job, start_index, elapsed, most)


@numba.njit(cache=True)
def _init_part_cold(done_from: float, done_to: float, init_hours: float) -> float:
    """:func:`_init_part` as a call, for the paths that run once per stop."""
    return _init_part(done_from, done_to, init_hours)


@functools.cache
def walk_kernel(features: WalkFeatures) -> numba.core.registry.CPUDispatcher:
    """The walk of trials compiled for one set of features.

    Each feature is a constant of the walk: numba prunes the branches of the features
    that are off before it types the walk, so their code is neither compiled nor run.
    Each set of features compiles once, on first use, and is cached on disk apart
    (numba keys its cache on the values the walk closes over).

    Parameters
    ----------
    features : WalkFeatures
        The features the walk needs (:meth:`relplan.sim.compiled.WalkFeatures.of`).

    Returns
    -------
    numba dispatcher
        ``walk(next_slot, stop_slot, run_trials, job, modes, window, streams, state,
        trace, cancel)``: it walks trials ``window.active_trials[next_slot[0]:stop_slot]``,
        taking them from the shared counter ``next_slot`` with the other threads that
        call it at once
        (its own docstring says how).

    Examples
    --------
    >>> features = WalkFeatures(*[False] * len(WalkFeatures._fields))
    >>> walk_kernel(features) is walk_kernel(features)
    True
    """
    has_trace = bool(features.trace)
    has_horizon = bool(features.horizon)
    has_maintenance = bool(features.maintenance)
    has_fail_slow = bool(features.fail_slow)
    has_corruption = bool(features.corruption)
    has_drain = bool(features.drain)
    has_planned_stops = bool(features.planned_stops)
    has_idle_failures = bool(features.idle_failures)
    has_spare_pool = bool(features.spare_pool)
    has_degradations = bool(features.degradations)

    @numba.njit(cache=True, nogil=True, error_model="numpy")
    def walk_trial_slots(
        next_slot: np.ndarray,
        stop_slot: int,
        run_trials: int,
        job: CompiledJob,
        modes: CompiledModes,
        window: EventWindow,
        streams: TrialStreams,
        state: TrialState,
        trace: TraceBuffer,
        cancel: np.ndarray,
    ) -> None:
        """Walk trials ``window.active_trials[next_slot[0]:stop_slot]``, a run of
        ``run_trials`` at a time, taken from the counter
        ``next_slot`` (shared by every thread walking the window: each trial is walked
        once, by whichever thread takes it), one after the other,
        until each one's job ends or its exposure reaches ``window.horizon_hours``, updating
        their entries of ``state`` and ``streams``.

        Each trial takes its failures from its events in ``window`` and from its on-the-fly
        stream (modes ``modes.exponential_modes``); it touches no other trial's entries.

        If a trial is ``trace.trial``, every interval is written to ``trace.rows`` as a row
        ``[wall_start, wall_end, code, a, b, c]``: RUN (a, b = job-time at its ends since
        the restart, c = checkpoints committed at the restart), RESTART, DETECT and WAIT
        (a = mode), FAILURE (a point; a = mode, b = impact), STALL (a = mode, b = job-time
        since the restart at which the job stalled, -1 during a restart; c = checkpoints
        committed at the restart), FINISH and ROLLBACK (a fast tier lost: a = the durable
        checkpoint, b = the one rolled back from). A stall row covers only the time it adds
        to the stalls in progress.

        Parameters
        ----------
        next_slot : numpy.ndarray of int64
            One entry, shared by the threads: the next slot of ``window.active_trials``
            not yet taken (advanced atomically, see :func:`relplan.sim.claims.claim`).
        stop_slot : int
            The end of the slots to walk.
        run_trials : int
            Trials a thread takes at a time (:func:`claim_run`).
        job : CompiledJob
            The job's numbers.
        modes : CompiledModes
            The failure modes.
        window : EventWindow
            The active trials, their pre-drawn failures and the horizon.
        streams : TrialStreams
            The trials' random streams, advanced in place.
        state : TrialState
            The block's trials, updated in place.
        trace : TraceBuffer
            Where to write the timeline of ``trace.trial`` (-1: none).
        cancel : numpy.ndarray of bool
            One flag, read at every step: once set (Ctrl-C), every trial stops where it is.
        """
        # Every field the loops read is bound once, here: reading an array field of a
        # record inside a loop would cost a reference-count update at each read.
        restart_init = job.restart_init_hours
        wall_horizon = job.horizon_hours
        maintenance_every = job.maintenance_every_hours
        maintenance_first = job.maintenance_checkpoint_first
        segment = job.segment_hours
        # one tier: a segment's job-time, its compute and its write (see segments_time)
        segment_and_write = job.segment_hours + job.durable_write_hours
        on_fabric = job.storage_on_fabric
        last_work = job.last_segment_work_hours
        total_segments = job.total_segments
        every = job.durable_every
        mode_impact = modes.impact
        mode_detect_hours = modes.detect_hours
        persist = job.persist_hours
        keep = job.keep_checkpoints
        archive = job.archive_every
        restart = job.restart_hours
        fast_restart = job.fast_restart_hours
        maintenance_hours = job.maintenance_hours
        idle_failures = job.idle_failures
        recovery_fails = job.failures_during_recovery
        mode_uses_spares = modes.uses_spares
        mode_loses_fast = modes.loses_fast_checkpoint
        mode_self_healing = modes.self_healing
        mode_spares_needed = modes.spares_needed
        mode_spare_domain = modes.spare_domain
        durable_by_trial = state.durable_checkpoint
        interruptions_by_mode = state.interruptions_by_mode
        maintenances = state.maintenances
        spare_return_hours = state.spare_return_hours
        spares_away = state.spares_away
        spare_domain_return_hours = state.spare_domain_return_hours
        spare_domains_away = state.spare_domains_away
        spares_used = state.spares_used
        pool_return_hours = state.spare_pool_return_hours
        pool_away = state.spare_pool_away
        pool_swap = job.spare_pool_swap_hours
        mode_stall_hours = modes.stall_hours
        mode_soft_hours = modes.soft_hours
        mode_survivable = modes.survivable_count
        mode_rework = modes.rework_hours
        mode_evict_at_checkpoint = modes.evict_at_checkpoint
        mode_detect_probability = modes.detect_probability
        mode_drain = modes.drain
        job_drains = job.drains
        drains = state.drains
        n_modes = mode_impact.shape[0]
        slowdown_table = modes.slowdown_table
        repair_kind = modes.repair_kind
        repair_scale_hours = modes.repair_scale_hours
        repair_shape = modes.repair_shape
        exponential_rate = modes.exponential_rate_per_hour
        exponential_modes = modes.exponential_modes
        exponential_probability = modes.exponential_probability
        exponential_alias = modes.exponential_alias
        active_trials = window.active_trials
        offsets = window.offsets
        event_exposure_hours = window.event_exposure_hours
        event_mode = window.event_mode
        event_repair_hours = window.event_repair_hours
        event_removes = window.event_removes
        removes_units = event_removes.size > 0
        depleted = state.depleted
        horizon = window.horizon_hours
        rng_state = streams.rng_state
        stream_key = streams.key
        next_exponential_by_trial = streams.next_exponential_hours
        phase_by_trial = state.phase
        exposure_by_trial = state.exposure_hours
        phase_start_by_trial = state.phase_start_hours
        run_progress_by_trial = state.run_progress_hours
        restart_done_by_trial = state.restart_done_hours
        restart_length_by_trial = state.restart_hours
        restart_init_by_trial = state.restart_init_hours
        committed_by_trial = state.committed_checkpoints
        rollback_segment = state.rollback_segment
        rollback_degraded = state.rollback_degraded_hours
        rollback_stall = state.rollback_stall_hours
        fast_tier_durable = state.fast_tier_durable
        fast_tier_degraded = state.fast_tier_degraded_hours
        fast_tier_stall = state.fast_tier_stall_hours
        idle_by_trial = state.idle_hours
        wall_hours_by_trial = state.wall_hours
        buckets = state.bucket_hours
        failures_by_mode = state.failures_by_mode
        degradation_end = state.degradation_end_hours
        degradation_row = state.degradation_row
        degradation_noticed = state.degradation_noticed_hours
        drain_at = state.drain_at_hours
        degradation_count = state.degradation_count
        degradations_by_row = state.degradations_by_row
        overflow = state.overflow
        next_maintenance = state.next_maintenance_hours
        pending_stop = state.pending_stop
        evict_at = state.evict_at_hours
        evict_mode = state.evict_mode
        evict_repair = state.evict_repair_hours
        corruption_found = state.corruption_found_hours
        corruption_checkpoint = state.corruption_checkpoint
        corruption_mode = state.corruption_mode
        corruption_repair = state.corruption_repair_hours
        undetected = state.undetected_checkpoint
        events_walked = state.events_walked
        too_many_events = state.too_many_events
        max_events = job.max_events_per_trial
        traced = trace.trial

        # the slots this thread has taken: [slot, taken_to), a run at a time (claims.py)
        slot = 0
        taken_to = 0
        while True:
            if slot >= taken_to:
                slot = claim(next_slot, run_trials)
                if slot >= stop_slot:
                    break
                taken_to = min(slot + run_trials, stop_slot)
            trial = active_trials[slot]
            pointer = offsets[slot]
            end = offsets[slot + 1]
            # The trial's own entries, local values while it is walked and written back
            # when it stops: kept in registers or on the stack, not reloaded from their
            # arrays after every store to another array (the compiler cannot tell that
            # the arrays do not overlap). ``booked_*``: hours booked to each bucket. A
            # trial not walked yet starts from TrialState.at_start's values without
            # reading them (fewer cache lines per trial: most trials are walked once).
            # ``words``: the trial's random stream, held in registers while it is walked.
            steps = events_walked[trial]
            slowdown = 1.0
            if steps == 0:
                # A fresh trial: its entries of the state are set here, where the walk
                # touches them anyway (TrialState.at_start leaves them as they come), and
                # its stream's first failure is drawn first.
                words = trial_words(stream_key, trial)
                next_exponential_hours = np.inf
                if exponential_rate > 0.0:
                    gap, words = exponential_from_words(words)
                    next_exponential_hours = gap / exponential_rate
                for column in range(n_modes):
                    failures_by_mode[trial, column] = 0
                    interruptions_by_mode[trial, column] = 0
                if has_degradations:  # read only by degraded, elastic and slow modes
                    for column in range(degradations_by_row.shape[1]):
                        degradations_by_row[trial, column] = 0
                degradation_count[trial] = 0
                spares_away[trial] = 0
                spare_domains_away[trial] = 0
                pool_away[trial] = 0
                spares_used[trial] = 0
                maintenances[trial] = 0
                drains[trial] = 0
                depleted[trial] = False
                pending_stop[trial] = NO_STOP
                next_maintenance[trial] = maintenance_every  # the first window (inf: none)
                evict_at[trial] = np.inf
                if has_drain:
                    drain_at[trial] = np.inf
                corruption_found[trial] = np.inf
                undetected[trial] = -1
                phase = RUNNING
                exposure_hours = 0.0
                phase_start = 0.0
                run_progress = 0.0
                restart_done = 0.0
                restart_length = 0.0
                restart_init_booked = 0.0
                committed = 0
                durable = 0
                idle = 0.0
                wall_hours = 0.0
                booked_useful = 0.0
                booked_rework = 0.0
                booked_checkpoint = 0.0
                booked_detect = 0.0
                booked_restart = 0.0
                booked_waiting = 0.0
                booked_degraded = 0.0
                booked_stall = 0.0
                booked_maintenance = 0.0
                held = HeldHours(0, 0.0, 0.0, 0, 0.0, 0.0)
            else:
                words = load_words(rng_state, trial)
                next_exponential_hours = next_exponential_by_trial[trial]
                phase = phase_by_trial[trial]
                exposure_hours = exposure_by_trial[trial]
                phase_start = phase_start_by_trial[trial]
                run_progress = run_progress_by_trial[trial]
                restart_done = restart_done_by_trial[trial]
                restart_length = restart_length_by_trial[trial]
                restart_init_booked = restart_init_by_trial[trial]
                committed = committed_by_trial[trial]
                durable = durable_by_trial[trial]
                idle = idle_by_trial[trial]
                wall_hours = wall_hours_by_trial[trial]
                booked_useful = buckets[trial, B_USEFUL]
                booked_rework = buckets[trial, B_REWORK]
                booked_checkpoint = buckets[trial, B_CHECKPOINT]
                booked_detect = buckets[trial, B_DETECT]
                booked_restart = buckets[trial, B_RESTART]
                booked_waiting = buckets[trial, B_WAITING]
                booked_degraded = buckets[trial, B_DEGRADED]
                booked_stall = buckets[trial, B_STALL]
                booked_maintenance = buckets[trial, B_MAINTENANCE]
                if degradation_count[trial] > 0:
                    slowdown = _current_slowdown(trial, degradations_by_row, slowdown_table)
                # a local value while the trial is walked: passing the state's arrays to
                # a helper would cost reference-count updates at each call
                held = HeldHours(rollback_segment[trial], rollback_degraded[trial],
                                 rollback_stall[trial], fast_tier_durable[trial],
                                 fast_tier_degraded[trial], fast_tier_stall[trial])  # fmt: skip
            while True:
                steps += 1
                if steps > max_events:
                    too_many_events[0] = True
                    break
                if cancel[0]:
                    break
                x_now = exposure_hours
                # The next failure from either source.
                e_exp = next_exponential_hours
                e_win = event_exposure_hours[pointer] if pointer < end else np.inf
                e_fail = min(e_exp, e_win)
                # The next end of a degradation (wall clock, seen on the exposure clock).
                x_deg = np.inf
                first_deg = -1
                for k in range(degradation_count[trial]):
                    x = max(degradation_end[trial, k] - idle, x_now)
                    if x < x_deg:
                        x_deg = x
                        first_deg = k
                # The end of the current phase. A degraded job computes at 1 / slowdown
                # job-hours per hour; it writes so too only if storage shares the fabric.
                start_index = committed
                left = total_segments - 1 - start_index
                finish = 0.0
                done_before = 0
                slowed_before = 0.0
                # the end of the calendar window, on the exposure clock (inf: none)
                x_horizon = wall_horizon - idle
                # Planned and delayed events: the next maintenance window (wall clock), a
                # fail-slow unit detected, a corruption found, and the checkpoint a planned
                # stop waits for (the next one; the next durable one for maintenance).
                x_maint = np.inf
                if has_maintenance and not pending_stop[trial] & STOP_MAINTENANCE:
                    x_maint = max(next_maintenance[trial] - idle, x_now)
                x_stop = np.inf
                stop_segments = 0
                if has_planned_stops and pending_stop[trial] != NO_STOP and phase == RUNNING:
                    stop_segments = _segments_to_stop(
                        job, start_index, run_progress, left,
                        pending_stop[trial] & (STOP_MAINTENANCE | STOP_DRAIN) != 0,
                    )  # fmt: skip
                    if stop_segments > 0:
                        x_stop = max(phase_start, x_now) + _hours_to_progress(
                            job, start_index, run_progress, stop_segments, slowdown, left
                        )  # fmt: skip
                x_special = min(x_maint, x_stop)
                x_evict = np.inf
                if has_fail_slow:
                    x_evict = evict_at[trial]
                    x_special = min(x_special, x_evict)
                if has_corruption:
                    x_special = min(x_special, corruption_found[trial])
                x_drain = np.inf
                if has_drain:  # a degraded server that drains found
                    x_drain = drain_at[trial]
                    x_special = min(x_special, x_drain)
                if phase == RESTARTING:
                    x_phase = phase_start + (restart_length - restart_done)
                else:
                    finish = segments_time(job, start_index, left) + last_work
                    if not has_degradations or slowdown == 1.0 or on_fabric:
                        x_phase = phase_start + (finish - run_progress) * slowdown
                    else:
                        # writes at full speed; the segment in progress is usually the one
                        # holding hours already (a stall's, before its soft phase)
                        done_before = completed_segments_hinted(
                            job, start_index, run_progress, left,
                            held.segment - start_index - 1,
                        )  # fmt: skip
                        slowed_before = slowed_job_hours(job, start_index, run_progress,
                                                         done_before, left)
                        # no earlier than at full speed: exact only if it may come first
                        x_phase = phase_start + (finish - run_progress)
                        if x_phase <= min(min(x_deg, e_fail), min(x_horizon, x_special)):
                            x_phase += (slowdown - 1.0) * (left * segment + last_work
                                                           - slowed_before)
                x_next = min(min(min(x_phase, x_horizon), min(x_deg, e_fail)), x_special)
                if x_next > horizon or x_next == np.inf:
                    break

                # Advance a running job's progress up to x_next (nothing happens during a stall).
                if phase == RUNNING and x_next > phase_start:
                    stretch = x_next - phase_start
                    progress = run_progress
                    extra = 0.0
                    if not has_degradations or slowdown == 1.0:  # full speed: no division
                        reached = progress + stretch
                    elif on_fabric:
                        reached = progress + stretch / slowdown
                        extra = stretch * (1.0 - 1.0 / slowdown)
                    else:
                        reached = finish
                        if x_next < x_phase:
                            reached = min(finish, progress_after(job, start_index, progress,
                                                                 done_before, slowed_before,
                                                                 stretch, slowdown, left))
                        extra = stretch - (reached - progress)
                    if has_trace and trial == traced:
                        _emit(trace, phase_start + idle, x_next + idle,
                              TRACE_RUN, progress, reached, start_index)
                    run_progress = reached
                    if has_degradations:
                        booked_degraded += extra
                    if has_degradations and slowdown != 1.0:
                        # hold the extra time for a failure to roll back
                        if on_fabric:
                            done_before = completed_segments(job, start_index, progress, left)
                        held = _hold_slowed_stretch(
                            job, held, start_index, done_before,
                            completed_segments_after(job, start_index, done_before, reached, left),
                            reached, slowdown, extra, left,
                        )  # fmt: skip
                    phase_start = x_next
                exposure_hours = x_next

                if has_horizon and x_horizon <= x_next and x_horizon < x_phase:
                    # The calendar window ends: book what is under way up to it, and stop.
                    if phase_start > x_horizon:  # a stall reaching beyond it
                        booked_stall -= phase_start - x_horizon
                    elif phase == RESTARTING:
                        booked_restart += x_horizon - phase_start
                        restart_init_booked += _init_part(
                            restart_done,
                            restart_done + x_horizon - phase_start, restart_init,
                        )  # fmt: skip
                        if has_trace and trial == traced:
                            _emit(trace, phase_start + idle, wall_horizon,
                                  TRACE_RESTART, 0.0, 0.0, 0.0)
                    if phase == RUNNING:
                        # the progress since the restart counts as done: compute and writes
                        elapsed = run_progress
                        done = completed_segments(job, start_index, elapsed, left)
                        done_time = segments_time(job, start_index, done)
                        into = elapsed - done_time
                        compute_into = into if done == left else min(into, segment)
                        booked_useful += done * segment + compute_into
                        booked_checkpoint += done_time - done * segment + (
                            into - compute_into
                        )
                        committed += done
                    wall_hours = wall_horizon
                    phase = FINISHED
                    if has_trace and trial == traced:
                        _emit(trace, wall_horizon, wall_horizon, TRACE_FINISH, 0.0, 0.0, 0.0)
                    break

                if x_phase <= x_next:
                    if phase == RESTARTING:
                        booked_restart += restart_length - restart_done
                        restart_init_booked += _init_part(
                            restart_done, restart_length, restart_init
                        )
                        if has_trace and trial == traced:
                            _emit(trace, phase_start + idle, x_next + idle,
                                  TRACE_RESTART, 0.0, 0.0, 0.0)
                        restart_done = 0.0
                        phase = RUNNING
                        phase_start = x_next
                        run_progress = 0.0
                        continue
                    booked_useful += left * segment + last_work
                    booked_checkpoint += segments_time(job, start_index, left) - (
                        left * segment
                    )
                    committed = total_segments
                    wall_hours = x_next + idle
                    phase = FINISHED
                    if has_trace and trial == traced:
                        _emit(trace, wall_hours, wall_hours, TRACE_FINISH,
                              0.0, 0.0, 0.0)
                    break

                stop = NO_STOP_KIND
                stop_mode = -1
                removed = False
                if x_special <= x_next:
                    # A planned or delayed event: a stop at the checkpoint just reached, a
                    # maintenance window, a fail-slow unit detected, a corruption found.
                    if has_planned_stops and x_stop <= x_next:
                        stop = STOP_AT_CHECKPOINT
                        if has_drain and pending_stop[trial] == STOP_DRAIN and _free_spares(
                            trial, spare_return_hours, spares_away, x_next + idle
                        ) < 1:  # no spare to drain to: no stop
                            pending_stop[trial] = NO_STOP
                            continue
                    elif has_maintenance and x_maint <= x_next:
                        # the next window on the wall-clock schedule, after this one
                        now = x_next + idle
                        if next_maintenance[trial] <= now:  # O(1), however many windows
                            next_maintenance[trial] += maintenance_every * (math.floor(
                                (now - next_maintenance[trial]) / maintenance_every) + 1.0)
                        if maintenance_first and phase == RUNNING:
                            pending_stop[trial] |= STOP_MAINTENANCE  # at the next durable one
                            continue
                        stop = MAINTENANCE_NOW
                    elif has_fail_slow and x_evict <= x_next:
                        stop_mode = evict_mode[trial]
                        evict_at[trial] = np.inf
                        if mode_evict_at_checkpoint[stop_mode] and phase == RUNNING:
                            pending_stop[trial] |= STOP_EVICTION  # at the next checkpoint
                            continue
                        stop = EVICT_NOW
                        repair = evict_repair[trial]
                    elif has_drain and x_drain <= x_next:
                        # degraded servers found: swapped at once for a free spare, or at
                        # the next durable checkpoint
                        next_found, stop_mode, drain_later = _find_degraded_servers(
                            trial, x_next, mode_drain, n_modes, degradation_row,
                            degradation_noticed, degradation_count,
                        )  # fmt: skip
                        drain_at[trial] = next_found
                        if stop_mode < 0 or _free_spares(
                            trial, spare_return_hours, spares_away, x_next + idle
                        ) < 1:
                            if drain_later:
                                pending_stop[trial] |= STOP_DRAIN
                            continue
                        stop = DRAIN_AT_ONCE
                    else:
                        stop_mode = corruption_mode[trial]
                        corruption_found[trial] = np.inf
                        stop = CORRUPTION_FOUND
                        repair = corruption_repair[trial]
                    e_fail = x_next
                    mode = stop_mode
                else:
                    if x_deg <= e_fail:
                        row = degradation_row[trial, first_deg]
                        last = degradation_count[trial] - 1
                        degradation_end[trial, first_deg] = degradation_end[trial, last]
                        degradation_row[trial, first_deg] = degradation_row[trial, last]
                        if has_drain and job_drains:
                            degradation_noticed[trial, first_deg] = degradation_noticed[
                                trial, last]
                        degradation_count[trial] = last
                        degradations_by_row[trial, row] -= 1
                        slowdown = _current_slowdown(trial, degradations_by_row, slowdown_table)
                        continue

                    # A failure at e_fail: take it from its source.
                    if e_exp <= e_win:
                        # Walker's alias method: one uniform picks a column, its fraction the mode
                        u, words = uniform_from_words(words)
                        pick = u * exponential_modes.size
                        column = min(int(pick), exponential_modes.size - 1)
                        if pick - column < exponential_probability[column]:
                            mode = exponential_modes[column]
                        else:
                            mode = exponential_alias[column]
                        u, words = uniform_from_words(words)
                        repair = duration_from_uniform(
                            repair_kind[mode], repair_scale_hours[mode], repair_shape[mode], u
                        )
                        gap, words = exponential_from_words(words)
                        next_exponential_hours = e_exp + gap / exponential_rate
                    else:
                        mode = event_mode[pointer]
                        repair = event_repair_hours[pointer]
                        removed = removes_units and event_removes[pointer]
                        pointer += 1
                    failures_by_mode[trial, mode] += 1
                    impact = mode_impact[mode]
                    if removed:  # the unit leaves the fleet: never back
                        if impact == FATAL or impact == DEGRADED or impact == ELASTIC:
                            repair = np.inf
                        else:
                            removed = False
                    if (impact == DEGRADED or impact == ELASTIC) and (
                        degradations_by_row[trial, mode] >= mode_survivable[mode]
                    ):
                        impact = FATAL  # nothing left to run on (every spine, too many replicas)
                    if has_trace and trial == traced:
                        _emit(trace, e_fail + idle, e_fail + idle, TRACE_FAILURE,
                              mode, impact, 0.0)  # fmt: skip
                    if has_fail_slow and impact == SLOW:
                        # the job runs at the slow unit's pace until a detector notices it; a
                        # second one meanwhile is evicted with the first
                        if degradation_count[trial] >= degradation_end.shape[1]:
                            overflow[0] = True
                            continue
                        k = degradation_count[trial]
                        degradation_end[trial, k] = np.inf  # until evicted
                        degradation_row[trial, k] = mode
                        degradation_count[trial] = k + 1
                        degradations_by_row[trial, mode] += 1
                        slowdown = _current_slowdown(trial, degradations_by_row, slowdown_table)
                        if evict_at[trial] == np.inf and not pending_stop[trial] & STOP_EVICTION:
                            evict_at[trial] = e_fail + mode_detect_hours[mode]
                            evict_mode[trial] = mode
                            evict_repair[trial] = repair
                        continue
                    if has_corruption and impact == CORRUPTION:
                        # found `detect` later (or never): the last checkpoint before it is the
                        # newest one without it
                        before = committed
                        if phase == RUNNING:
                            before += completed_segments(job, start_index, run_progress,
                                                         left)  # fmt: skip
                        u, words = uniform_from_words(words)
                        if u < mode_detect_probability[mode]:
                            if corruption_found[trial] == np.inf:  # else: an earlier one covers it
                                corruption_found[trial] = e_fail + mode_detect_hours[mode]
                                corruption_checkpoint[trial] = before
                                corruption_mode[trial] = mode
                                corruption_repair[trial] = repair
                        elif undetected[trial] < 0:
                            undetected[trial] = before
                        continue
                    if impact == FATAL:
                        stop = FAILURE

                if stop != NO_STOP_KIND:
                    if stop == FAILURE or stop == EVICT_NOW or stop == CORRUPTION_FOUND:
                        interruptions_by_mode[trial, mode] += 1
                    if has_planned_stops and stop == STOP_AT_CHECKPOINT:
                        # the job has just reached the checkpoint it waited for: keep it all
                        reach = stop_segments
                        boundary = _segments_time_cold(job, start_index, reach)
                        run_progress = boundary
                        booked_useful += reach * segment
                        booked_checkpoint += boundary - reach * segment
                        committed += reach
                        durable = max(durable, (committed // every) * every)
                        if held.segment > 0:
                            held = _settle_held_hours(held, every)
                        if has_trace and trial == traced:  # a stop that keeps its work
                            _emit(trace, e_fail + idle, e_fail + idle, TRACE_STOP,
                                  0.0, 0.0, 0.0)  # fmt: skip
                    elif stop != FAILURE and has_trace and trial == traced:  # loses work
                        _emit(trace, e_fail + idle, e_fail + idle, TRACE_STOP,
                              1.0, 0.0, 0.0)  # fmt: skip
                    if stop == STOP_AT_CHECKPOINT:
                        pass
                    elif phase == RESTARTING:
                        if phase_start > e_fail:  # a stall pausing the restart ends here
                            booked_stall -= phase_start - e_fail
                        else:
                            booked_restart += e_fail - phase_start
                            restart_init_booked += _init_part_cold(
                                restart_done,
                                restart_done + e_fail - phase_start, restart_init,
                            )  # fmt: skip
                            if has_trace and trial == traced:
                                _emit(trace, phase_start + idle, e_fail + idle,
                                      TRACE_RESTART, 0.0, 0.0, 0.0)
                        restart_done = 0.0
                    else:
                        if phase_start > e_fail:  # cut a stall short (held: it is in
                            cut = phase_start - e_fail  # the segment in progress)
                            booked_stall -= cut
                            held = HeldHours(held.segment, held.degraded_hours,
                                             held.stall_hours - cut, held.fast_tier_durable,
                                             held.fast_tier_degraded_hours,
                                             held.fast_tier_stall_hours)  # fmt: skip
                        # everything since the last completed checkpoint is rework: the
                        # compute and writes, the extra time of slowed running and the stalls
                        elapsed = run_progress
                        if every == 1:  # one tier: completed_segments and segments_time, inline
                            done = min(max(int(elapsed / segment_and_write), 0), left)
                            done_time = done * segment_and_write
                        else:
                            done = _completed_segments_cold(job, start_index, elapsed, left)
                            done_time = _segments_time_cold(job, start_index, done)
                        booked_useful += done * segment
                        booked_checkpoint += done_time - done * segment
                        booked_rework += elapsed - done_time
                        if held.segment > start_index + done:
                            # held in the segment the failure rolls back
                            booked_rework += held.degraded_hours + held.stall_hours
                            booked_degraded -= held.degraded_hours
                            booked_stall -= held.stall_hours
                            held = HeldHours(0, 0.0, 0.0, held.fast_tier_durable,
                                             held.fast_tier_degraded_hours,
                                             held.fast_tier_stall_hours)  # fmt: skip
                        elif held.segment > 0:  # held in a completed segment
                            held = _settle_held_hours(held, every)
                        committed += done
                        # the last durable checkpoint this run wrote, once its persist is over
                        latest = committed  # one tier: no integer division
                        if every > 1:
                            latest = (committed // every) * every
                        if persist > 0.0:
                            while latest > start_index and elapsed < persist + _segments_time_cold(
                                job, start_index, latest - start_index
                            ):
                                latest -= every
                        if latest > start_index or persist == 0.0:
                            durable = latest
                    # Roll back to the last durable checkpoint if the stop took the fast tier
                    # (a maintenance window takes every server), or (one tier) if the newest
                    # checkpoint died in its persist; a corruption found rolls back to the
                    # newest retained durable checkpoint written before it.
                    target = committed
                    if stop != STOP_AT_CHECKPOINT and (
                        stop == MAINTENANCE_NOW or every == 1 or mode_loses_fast[mode]
                    ):
                        target = durable
                    if has_corruption and stop == CORRUPTION_FOUND:
                        target = min(target, _retained_before(
                            corruption_checkpoint[trial], durable, every, keep, archive,
                        ))  # fmt: skip
                    if target < committed:
                        # the checkpoints after it are gone: their compute, writes, and the
                        # slowed extra time and stalls held after the durable one, are rework
                        lost = committed - target
                        lost_time = _segments_time_cold(job, target, lost)
                        booked_useful -= lost * segment
                        booked_checkpoint -= lost_time - lost * segment
                        booked_rework += lost_time
                        if held.fast_tier_durable >= target:  # held after the target
                            booked_rework += (held.fast_tier_degraded_hours
                                                         + held.fast_tier_stall_hours)
                            booked_degraded -= held.fast_tier_degraded_hours
                            booked_stall -= held.fast_tier_stall_hours
                        held = HeldHours(held.segment, held.degraded_hours, held.stall_hours,
                                         target, 0.0, 0.0)
                        if has_trace and trial == traced:
                            _emit(trace, e_fail + idle, e_fail + idle, TRACE_ROLLBACK,
                                  target, committed, 0.0)
                        committed = target
                        durable = min(durable, target)
                    if has_corruption and undetected[trial] >= committed:
                        undetected[trial] = -1  # the corrupted work is rolled back with the rest
                    if has_corruption and corruption_checkpoint[trial] >= committed:
                        # lineage: a pending corruption lies in work rolled back: never found
                        corruption_found[trial] = np.inf
                    # the restart reads the newest checkpoint that held: the fast tier's, or
                    # the durable store's
                    restart_length = restart
                    if committed > durable:
                        restart_length = fast_restart
                    # down: detection, then a maintenance window, a replacement or a repair
                    detect = 0.0
                    planned = 0.0
                    wait = 0.0
                    replaced = -1
                    if stop == FAILURE:
                        detect = mode_detect_hours[mode]
                        replaced = mode
                    elif stop == EVICT_NOW or stop == CORRUPTION_FOUND:
                        replaced = mode
                    elif stop == MAINTENANCE_NOW:
                        planned = maintenance_hours
                        maintenances[trial] += 1
                    elif stop == DRAIN_AT_ONCE:
                        pass  # the degraded servers found go, below; free spares come in
                    else:  # at a checkpoint: the evictions that waited for it
                        if has_fail_slow and pending_stop[trial] & STOP_EVICTION:
                            replaced = evict_mode[trial]
                            repair = evict_repair[trial]
                            interruptions_by_mode[trial, replaced] += 1
                        pending_stop[trial] &= ~STOP_EVICTION
                    if has_maintenance and pending_stop[trial] & STOP_MAINTENANCE:
                        # the window that waited for a checkpoint is served now, whatever
                        # stopped the job: it does not outlive a crash
                        planned = maintenance_hours
                        maintenances[trial] += 1
                        pending_stop[trial] &= ~STOP_MAINTENANCE
                    if replaced >= 0:
                        if has_fail_slow and mode_impact[replaced] == SLOW:
                            _end_slow_degradations(
                                trial, degradation_end, degradation_row, degradation_noticed,
                                degradation_count, degradations_by_row,
                            )  # fmt: skip
                        noticed = e_fail + idle + detect
                        wait = repair
                        if mode_self_healing[replaced]:  # back by itself `repair` after it
                            wait = max(0.0, repair - detect)
                        elif mode_uses_spares[replaced]:
                            needed = mode_spares_needed[replaced]
                            if has_spare_pool and pool_return_hours.shape[1] >= needed and (
                                pool_swap < repair
                            ) and (
                                not mode_spare_domain[replaced]
                            ) and _free_spares(
                                trial, spare_return_hours, spares_away, noticed
                            ) < needed and _free_spares(
                                trial, pool_return_hours, pool_away, noticed
                            ) >= needed:
                                # no warm spare free: one of the second tier, after its swap
                                _replacement_wait(trial, pool_return_hours, pool_away,
                                                  noticed, repair, needed)  # fmt: skip
                                spares_used[trial] += needed
                                wait = pool_swap
                            else:  # _spare_wait, with only the pool it draws from
                                if mode_spare_domain[replaced]:
                                    wait = _replacement_wait(trial, spare_domain_return_hours,
                                                             spare_domains_away, noticed, repair)
                                else:
                                    wait = _replacement_wait(trial, spare_return_hours,
                                                             spares_away, noticed, repair, needed)
                                if wait < repair:
                                    spares_used[trial] += needed
                    wait = max(0.0, wait - planned)  # a replacement during the window
                    if has_idle_failures and idle_failures and exponential_rate > 0.0 and (
                        wait < np.inf
                    ):
                        events_walked[trial] = steps
                        store_words(rng_state, trial, words)  # the helper draws from it
                        wait += _idle_failures(
                            trial, e_fail + idle, detect + planned + wait, modes, rng_state,
                            failures_by_mode, degradation_end, degradation_row,
                            degradation_noticed, degradation_count, degradations_by_row,
                            overflow, spare_return_hours, spares_away,
                            spare_domain_return_hours, spare_domains_away, spares_used,
                            events_walked, max_events, cancel,
                        )  # fmt: skip
                        steps = events_walked[trial]
                        words = load_words(rng_state, trial)
                    if has_drain and job_drains:
                        # the job is stopped: swap its degraded servers found so far (those
                        # that degraded while it was down are found at the restart)
                        _drain_servers(trial, e_fail + idle, e_fail, mode_drain, n_modes,
                                       degradation_end, degradation_row, degradation_noticed,
                                       degradation_count, degradations_by_row,
                                       spare_return_hours, spares_away, spares_used,
                                       drains)  # fmt: skip
                        pending_stop[trial] &= ~STOP_DRAIN
                    # without failures during recovery the restart is off the exposure clock
                    recover = 0.0 if recovery_fails else restart_length
                    down = e_fail + idle
                    stalled = removed and wait == np.inf
                    if stalled:  # no spare left for a unit gone for good: the job stalls
                        depleted[trial] = True
                        recover = 0.0
                        wait = 0.0  # it ends here, or waits to its calendar window's end
                        if wall_horizon < np.inf:
                            wait = max(0.0, wall_horizon - (down + detect + planned))
                    beyond = 0.0  # what the last window reaches beyond the downtime: last
                    if has_maintenance and (
                        next_maintenance[trial] < down + detect + planned + wait + recover
                    ):
                        # windows that fall while the job is down run alongside: they cost
                        # only what the last of them reaches beyond the downtime. Only
                        # those that start before the calendar window's end count.
                        overlapped = _windows_before(
                            next_maintenance[trial],
                            min(down + detect + planned + wait + recover, wall_horizon),
                            maintenance_every,
                        )  # fmt: skip
                        if overlapped > 0:
                            maintenances[trial] += overlapped
                            last_window = (next_maintenance[trial]
                                           + (overlapped - 1) * maintenance_every)
                            next_maintenance[trial] = last_window + maintenance_every
                            beyond = max(0.0, last_window + maintenance_hours
                                         - (down + detect + planned + wait + recover))
                    over = down + detect + planned + wait + recover - wall_horizon
                    if has_maintenance:
                        over += beyond
                    if over > 0.0:  # the calendar window ends while the job is down
                        if has_maintenance:  # latest first: the window's reach beyond
                            cut = min(over, beyond)
                            beyond -= cut
                            over -= cut
                        cut = min(over, recover)
                        recover -= cut
                        over -= cut
                        cut = min(over, wait)
                        wait -= cut
                        cut_planned = min(over - cut, planned)
                        planned -= cut_planned
                        detect -= over - cut - cut_planned
                    if has_trace and trial == traced:
                        _emit(trace, down, down + detect, TRACE_DETECT, mode, 0.0, 0.0)
                        _emit(trace, down + detect, down + detect + planned, TRACE_MAINTENANCE,
                              mode, 0.0, 0.0)  # fmt: skip
                        _emit(trace, down + detect + planned, down + detect + planned + wait,
                              TRACE_WAIT, mode, 0.0, 0.0)  # fmt: skip
                        if has_maintenance and beyond > 0.0:
                            _emit(trace, down + detect + planned + wait,
                                  down + detect + planned + wait + beyond, TRACE_MAINTENANCE,
                                  mode, 0.0, 0.0)  # fmt: skip
                    if has_maintenance:
                        planned += beyond
                    booked_detect += detect
                    booked_maintenance += planned
                    booked_waiting += wait
                    idle += detect + planned + wait
                    if not recovery_fails:  # the restart, done while nothing fails
                        booked_restart += recover
                        restart_init_booked += _init_part_cold(0.0, recover, restart_init)
                        if has_trace and trial == traced and recover > 0.0:
                            _emit(trace, e_fail + idle, e_fail + idle + recover,
                                  TRACE_RESTART, 0.0, 0.0, 0.0)  # fmt: skip
                        idle += recover
                    if over > 0.0 or stalled:
                        wall_hours = wall_horizon if over > 0.0 else e_fail + idle
                        phase = FINISHED
                        if has_trace and trial == traced:
                            _emit(trace, wall_hours, wall_hours, TRACE_FINISH,
                                  0.0, 0.0, 0.0)  # fmt: skip
                        break
                    phase = RESTARTING
                    phase_start = e_fail
                    if not recovery_fails:
                        phase = RUNNING
                        run_progress = 0.0
                    # (without degradations none is ever in progress: slowdown stays 1)
                    if has_degradations and degradation_count[trial] > 0:
                        slowdown = _current_slowdown(trial, degradations_by_row, slowdown_table)
                    elif has_degradations:
                        slowdown = 1.0
                    if phase != RESTARTING or (has_trace and trial == traced):
                        continue
                    # Fast path: the restart usually ends before anything else happens. Its
                    # end is then the next step, and it is booked here as that step would
                    # book it. Invariant: the step would find x_next = x_restart_end (no
                    # failure, end of a degradation, calendar end or planned or delayed event
                    # before it), within the window and finite, under the step limit and not
                    # cancelled; otherwise the loop takes the step as usual.
                    x_restart_end = phase_start + (restart_length - restart_done)
                    if not (x_restart_end <= next_exponential_hours and (
                        pointer >= end or x_restart_end <= event_exposure_hours[pointer]
                    ) and x_restart_end <= wall_horizon - idle and x_restart_end <= horizon and (
                        x_restart_end < np.inf
                    ) and steps < max_events and not cancel[0]):  # fmt: skip
                        continue
                    if has_maintenance and not pending_stop[trial] & STOP_MAINTENANCE and (
                        max(next_maintenance[trial] - idle, exposure_hours) < x_restart_end
                    ):  # fmt: skip
                        continue
                    if has_fail_slow and evict_at[trial] < x_restart_end:
                        continue
                    if has_drain and drain_at[trial] < x_restart_end:
                        continue
                    if has_corruption and corruption_found[trial] < x_restart_end:
                        continue
                    if has_degradations:
                        degradation_ends_first = False
                        for k in range(degradation_count[trial]):
                            x = max(degradation_end[trial, k] - idle, exposure_hours)
                            if x < x_restart_end:
                                degradation_ends_first = True
                        if degradation_ends_first:
                            continue
                    steps += 1
                    exposure_hours = x_restart_end
                    booked_restart += restart_length - restart_done
                    restart_init_booked += _init_part(restart_done, restart_length, restart_init)
                    restart_done = 0.0
                    phase = RUNNING
                    phase_start = x_restart_end
                    run_progress = 0.0
                    continue

                # Degraded, transient and elastic failures: the job keeps its progress.
                if not has_degradations:  # none: nothing gets here
                    continue
                duration = repair
                table_row = mode
                # ``begin``: the end of this failure's own stall (exposure), from which a soft
                # phase or a shrunk run is timed
                begin = e_fail
                if impact == ELASTIC or impact == TRANSIENT:
                    # transient: failover; elastic: detection and reconfiguration. Nothing
                    # progresses while the network stalls, a restart neither.
                    begin = e_fail + mode_stall_hours[mode]
                    if phase == RESTARTING and e_fail > phase_start:
                        # the restart pauses: bank what it has done
                        booked_restart += e_fail - phase_start
                        restart_init_booked += _init_part(
                            restart_done,
                            restart_done + e_fail - phase_start, restart_init,
                        )  # fmt: skip
                        restart_done += e_fail - phase_start
                        if has_trace and trial == traced:
                            _emit(trace, phase_start + idle, e_fail + idle,
                                  TRACE_RESTART, 0.0, 0.0, 0.0)
                        phase_start = e_fail
                    # phase_start >= e_fail now: the end of a stall in progress, if any. The
                    # stalled time is the union of the stalls: this one adds what reaches
                    # beyond the stall in progress.
                    if begin > phase_start:
                        added = begin - phase_start
                        booked_stall += added
                        at_progress = -1.0  # none: restarting
                        if phase == RUNNING:
                            at_progress = run_progress
                            segment_number = start_index + 1 + completed_segments(
                                job, start_index, at_progress, left
                            )
                            held = _hold_hours(held, segment_number, 0.0, added, every)
                        if has_trace and trial == traced:
                            _emit(trace, phase_start + idle, begin + idle,
                                  TRACE_STALL, mode, at_progress, start_index)
                        phase_start = begin
                if mode_rework[mode] > 0.0 and phase == RUNNING:
                    # in-process recovery redoes the interrupted step (not beyond the last
                    # checkpoint, which ends a step)
                    into = run_progress - segments_time(
                        job, start_index,
                        completed_segments(job, start_index, run_progress, left),
                    )  # fmt: skip
                    lost = min(mode_rework[mode], into)
                    run_progress -= lost
                    booked_rework += lost
                if impact == ELASTIC:
                    wait = repair
                    if mode_uses_spares[mode]:
                        wait = _spare_wait(trial, mode_spares_needed[mode], mode_spare_domain[mode],
                                           spare_return_hours, spares_away,
                                           spare_domain_return_hours, spare_domains_away,
                                           spares_used, begin + idle, repair)  # fmt: skip
                    duration = wait + mode_soft_hours[mode]  # soft hours: the rejoin
                elif impact == TRANSIENT:
                    duration = mode_soft_hours[mode]
                    table_row = n_modes + mode  # the soft rows follow the repair rows
                if duration <= 0.0:  # over at once (a hot spare took the replica's place)
                    continue
                if degradation_count[trial] >= degradation_end.shape[1]:
                    overflow[0] = True
                    continue
                k = degradation_count[trial]
                degradation_end[trial, k] = begin + idle + duration
                degradation_row[trial, k] = table_row
                if has_drain and impact == DEGRADED and mode_drain[mode] != DRAIN_NEVER:
                    # a server running degraded: found `detect` of running later
                    found = e_fail + mode_detect_hours[mode]
                    degradation_noticed[trial, k] = found
                    drain_at[trial] = min(drain_at[trial], found)
                degradation_count[trial] = k + 1
                degradations_by_row[trial, table_row] += 1
                slowdown = _current_slowdown(trial, degradations_by_row, slowdown_table)
            # what the outcomes read, and where the trial stands
            phase_by_trial[trial] = phase
            restart_init_by_trial[trial] = restart_init_booked
            wall_hours_by_trial[trial] = wall_hours
            buckets[trial, B_USEFUL] = booked_useful
            buckets[trial, B_REWORK] = booked_rework
            buckets[trial, B_CHECKPOINT] = booked_checkpoint
            buckets[trial, B_DETECT] = booked_detect
            buckets[trial, B_RESTART] = booked_restart
            buckets[trial, B_WAITING] = booked_waiting
            buckets[trial, B_DEGRADED] = booked_degraded
            buckets[trial, B_STALL] = booked_stall
            buckets[trial, B_MAINTENANCE] = booked_maintenance
            events_walked[trial] = steps
            if phase != FINISHED:  # the next window goes on from here
                store_words(rng_state, trial, words)
                exposure_by_trial[trial] = exposure_hours
                phase_start_by_trial[trial] = phase_start
                run_progress_by_trial[trial] = run_progress
                restart_done_by_trial[trial] = restart_done
                restart_length_by_trial[trial] = restart_length
                committed_by_trial[trial] = committed
                durable_by_trial[trial] = durable
                idle_by_trial[trial] = idle
                next_exponential_by_trial[trial] = next_exponential_hours
                rollback_segment[trial] = held.segment
                rollback_degraded[trial] = held.degraded_hours
                rollback_stall[trial] = held.stall_hours
                fast_tier_durable[trial] = held.fast_tier_durable
                fast_tier_degraded[trial] = held.fast_tier_degraded_hours
                fast_tier_stall[trial] = held.fast_tier_stall_hours
            slot += 1

    return walk_trial_slots


def walk_trials(
    job: CompiledJob,
    modes: CompiledModes,
    window: EventWindow,
    streams: TrialStreams,
    state: TrialState,
    trace: TraceBuffer,
) -> None:
    """Walk each trial of ``window.active_trials`` until its job ends or its exposure
    reaches ``window.horizon_hours``, on every core, with the walk compiled for the features
    they use (see :func:`walk_kernel`): :func:`start_walk`, then :func:`finish_walk`.

    Parameters
    ----------
    job : CompiledJob
        The job's numbers.
    modes : CompiledModes
        The failure modes.
    window : EventWindow
        The trials to walk, their pre-drawn failures and the horizon.
    streams : TrialStreams
        The trials' random streams, advanced in place.
    state : TrialState
        The block's trials, updated in place.
    trace : TraceBuffer
        Where to write the timeline of one trial (``trace.trial = -1``: none).

    Raises
    ------
    KeyboardInterrupt
        On Ctrl-C, or when another thread has cancelled the walks (:func:`cancel_walks`).
    """
    finish_walk(start_walk(job, modes, window, streams, state, trace))


def start_walk(
    job: CompiledJob,
    modes: CompiledModes,
    window: EventWindow,
    streams: TrialStreams,
    state: TrialState,
    trace: TraceBuffer,
) -> list[Future[None]]:
    """Start walking the trials of a window on the walk's threads, and return at once.

    A pool of threads (:data:`WALK_THREADS` of them, fewer for a window with little to
    walk: :data:`MIN_TRIALS_PER_THREAD`, :data:`MIN_WINDOW_EVENTS_PER_THREAD`) walks
    them while the calling thread goes on (it may prepare the next block) and then waits
    in :func:`finish_walk`, where Ctrl-C reaches it at once. It returns once every thread
    has started, so that the calling thread's Python work does not hold the GIL that the
    threads need to start the compiled walk. Each thread takes the trials
    a run at a time from one shared counter (:mod:`relplan.sim.claims`), so a thread on
    a slower core takes fewer and the threads end together. The compiled walk runs
    without the GIL, and each trial touches only its own entries, so the results do not
    depend on which thread walks which trial.

    Parameters
    ----------
    job, modes, window, streams, state, trace
        As for :func:`walk_trials`; none may change until the walk is finished.

    Returns
    -------
    list of Future
        One per thread: pass them to :func:`finish_walk`.
    """
    trials = window.active_trials.size
    worth = max(trials // MIN_TRIALS_PER_THREAD,
                window.event_mode.size // MIN_WINDOW_EVENTS_PER_THREAD)  # fmt: skip
    threads = max(1, min(WALK_THREADS, trials, worth))
    next_slot = np.zeros(1, dtype=np.int64)
    walk = walk_kernel(WalkFeatures.of(job, modes, state, trace))
    started = threading.Semaphore(0)
    pending = [
        _walk_pool().submit(_walk_share, walk, started, next_slot, trials,
                            claim_run(trials, threads), job, modes, window, streams, state,
                            trace, CANCEL)
        for _ in range(threads)
    ]  # fmt: skip
    # Wait (without the GIL) until every thread is about to walk: a thread needs the GIL
    # to call the compiled walk, and a calling thread that went on to Python work at once
    # would hold it, for up to the interpreter's switch interval (5 ms), while the walk
    # waited (measured: 0.7 ms of a 2 ms walk of a block of `small`).
    try:
        for _ in pending:
            started.acquire()
    except BaseException:  # Ctrl-C meanwhile: stop the threads, then pass it on
        cancel_walks()
        for share in pending:
            share.exception()
        raise
    return pending


def _walk_share(walk: Callable[..., None], started: threading.Semaphore, *args: object) -> None:
    """One thread's share of a walk (see :func:`start_walk`): say it has started, then walk
    (the compiled walk lets the GIL go once it runs)."""
    started.release()
    walk(*args)


def finish_walk(pending: list[Future[None]]) -> None:
    """Wait for a walk that :func:`start_walk` started.

    Parameters
    ----------
    pending : list of Future
        What :func:`start_walk` returned.

    Raises
    ------
    KeyboardInterrupt
        On Ctrl-C while waiting (every walk under way stops at its next step, see
        :func:`cancel_walks`), or when another thread has cancelled the walks.
    """
    try:
        for share in pending:
            share.result()
    except KeyboardInterrupt:
        cancel_walks()
        for share in pending:
            share.result()
        raise
    if CANCEL[0]:
        raise KeyboardInterrupt


CANCEL = np.zeros(1, dtype=np.bool_)
"""Set to stop every walk in the process at its next step (see :func:`cancel_walks`)."""


def empty_walk_call(args: tuple) -> tuple:
    """The arguments of a call of the walk that walks no trial, from those of
    :func:`walk_trials`: their types are those of every call a run makes (to tell, or
    compile, the walk's signature without walking).

    Parameters
    ----------
    args : tuple
        ``(job, modes, window, streams, state, trace)``.

    Returns
    -------
    tuple
        ``(next_slot, 0, 1, job, modes, window, streams, state, trace, CANCEL)``, with
        ``next_slot`` a fresh counter at 0.

    Examples
    --------
    >>> empty_walk_call(("job",))[1:4]
    (0, 1, 'job')
    """
    return (np.zeros(1, dtype=np.int64), 0, 1, *args, CANCEL)


def cancel_walks() -> None:
    """Stop every walk under way at its next step; they raise KeyboardInterrupt."""
    CANCEL[0] = True


def allow_walks() -> None:
    """Clear :data:`CANCEL` before a new run."""
    CANCEL[0] = False


_pool: ThreadPoolExecutor | None = None


def _walk_pool() -> ThreadPoolExecutor:
    """The threads that walk the shares of a window's trials."""
    global _pool
    if _pool is None:
        _pool = ThreadPoolExecutor(WALK_THREADS, thread_name_prefix="relplan-walk")
    return _pool


def _forget_pool() -> None:
    """In a forked child the pool's threads are gone: start a new pool when needed."""
    global _pool
    _pool = None


os.register_at_fork(after_in_child=_forget_pool)
