"""The per-trial job timeline, compiled with numba: the engine's hot loop.

A trial walks its failures in order of *exposure* (hours of hardware in use). Between
two things that happen (a failure, the end of a degradation, the end of a restart, the
end of the job) it advances in closed form over checkpoint segments, so its cost is
O(failures), not O(checkpoints).

The job runs segments of ``segment_hours`` (tau) of compute each followed by a blocking
write: ``fast_write_hours`` normally, ``durable_write_hours`` on every
``durable_every``-th checkpoint (one tier: ``durable_every = 1``); see
:class:`relplan.sim.compiled.CompiledJob`. Progress is counted in *job-time*: hours at
full speed. While degraded, the job advances at ``1 / slowdown`` job-hours per hour; the
other ``1 - 1 / slowdown`` goes to the ``degraded`` bucket.

Impacts of a failure:

- FATAL: work since the last surviving checkpoint is lost; detection, then a spare or a
  wait for the repair (idle: no exposure), then a restart (exposure: may fail again).
- DEGRADED: the job runs on, slowed, until the unit's repair ends (wall clock); a
  failure beyond the mode's survivable count (every spine lost) is FATAL instead.
- TRANSIENT: the job stalls for the mode's stall time (exposure, no progress), then
  optionally runs slowed for a while (soft degradation, such as PFC congestion).
- ELASTIC: the job drops the failed data-parallel replica instead of rolling back: it
  stalls for detection plus reconfiguration, then runs on with fewer replicas
  (slowdown ``DP / (DP - k)``) until a spare, or the repaired unit, rejoins.

Failures come from two sources, merged in time: exponential modes drawn on the fly
from each trial's own xoshiro256** stream (a Poisson superposition: gap, mode, repair,
three uniforms per event), and pre-drawn, sorted window events of non-exponential modes.

Compilation. The trials are walked by :func:`walk_trial_slots`, a plain serial function
that runs without the GIL (with numpy's error model: a division by zero gives inf, as in
a numba parallel loop); :func:`walk_trials` spreads them over the cores with Python
threads. On an empty numba cache the walk compiles in about 8 s on two cores; as the body
of a ``prange`` loop it took about 18 s (numba's parallel passes), and a ``prange`` loop
that only calls the serial walk still about 4 s more (its kernel optimises the walk once
more), for no gain in speed.
"""

from __future__ import annotations

import math
import os
from concurrent.futures import ThreadPoolExecutor

import numba
import numpy as np

from relplan.sim.compiled import (
    DEGRADED,
    ELASTIC,
    FATAL,
    FINISHED,
    RESTARTING,
    RUNNING,
    TRACE_DETECT,
    TRACE_FAILURE,
    TRACE_FINISH,
    TRACE_RESTART,
    TRACE_ROLLBACK,
    TRACE_RUN,
    TRACE_STALL,
    TRACE_WAIT,
    TRANSIENT,
    CompiledJob,
    CompiledModes,
    EventWindow,
    TraceBuffer,
    TrialState,
    TrialStreams,
)
from relplan.sim.rng import duration_from_uniform, uniform

B_USEFUL, B_REWORK, B_CHECKPOINT, B_DETECT, B_RESTART, B_WAITING, B_DEGRADED, B_STALL = range(8)
"""Columns of ``TrialState.bucket_hours`` (the order of :data:`relplan.vocab.BUCKETS`)."""

WALK_THREADS = max(1, numba.config.NUMBA_NUM_THREADS)
"""Threads a walk spreads its trials over: numba's thread count (every core, unless
``NUMBA_NUM_THREADS`` says otherwise)."""

MIN_TRIALS_PER_THREAD = 64
"""Fewest trials worth handing to another thread."""


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
    if job.durable_every == 1:
        return min(max(int(elapsed / (job.segment_hours + job.durable_write_hours)), 0), most)
    average = job.segment_hours + job.fast_write_hours + (
        job.durable_write_hours - job.fast_write_hours
    ) / job.durable_every
    count = min(max(int(elapsed / average), 0), most)
    while count < most and segments_time(job, start_index, count + 1) <= elapsed:
        count += 1
    while count > 0 and segments_time(job, start_index, count) > elapsed:
        count -= 1
    return count


@numba.njit(cache=True, inline="always")
def _sift_down(heap: np.ndarray, trial: int, size: int, node: int) -> None:
    while True:
        left = 2 * node + 1
        smallest = node
        if left < size and heap[trial, left] < heap[trial, smallest]:
            smallest = left
        if left + 1 < size and heap[trial, left + 1] < heap[trial, smallest]:
            smallest = left + 1
        if smallest == node:
            return
        value = heap[trial, node]
        heap[trial, node] = heap[trial, smallest]
        heap[trial, smallest] = value
        node = smallest


@numba.njit(cache=True, inline="always")
def _replacement_wait(
    trial: int, return_heap: np.ndarray, away: np.ndarray, noticed: float, repair: float
) -> float:
    """Hours from ``noticed`` until a replacement is ready: a free spare (0), a spare back
    from repair before the failed unit, or the failed unit itself.

    The spares away in repair are a per-trial binary min-heap of their return times
    (``away[trial]`` of them); the others are free. A failure costs O(log away).
    """
    n_spares = return_heap.shape[1]
    if n_spares == 0:
        return repair
    size = away[trial]
    while size > 0 and return_heap[trial, 0] <= noticed:  # spares back in the pool
        size -= 1
        return_heap[trial, 0] = return_heap[trial, size]
        _sift_down(return_heap, trial, size, 0)
    back_after = noticed + repair
    if size < n_spares:
        # a free spare goes in; the failed unit is away until its repair ends
        node = size
        return_heap[trial, node] = back_after
        while node > 0 and return_heap[trial, (node - 1) // 2] > return_heap[trial, node]:
            parent = (node - 1) // 2
            value = return_heap[trial, parent]
            return_heap[trial, parent] = return_heap[trial, node]
            return_heap[trial, node] = value
            node = parent
        away[trial] = size + 1
        return 0.0
    away[trial] = size
    back = return_heap[trial, 0]
    if back < back_after:
        # A spare comes back before the failed unit: take it; the failed unit joins
        # the pool when its own repair ends.
        return_heap[trial, 0] = back_after
        _sift_down(return_heap, trial, size, 0)
        return back - noticed
    return repair


@numba.njit(cache=True, inline="always")
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


@numba.njit(cache=True, nogil=True)
def first_arrivals(rng_state: np.ndarray, rate: float) -> np.ndarray:
    """First failure time on the exposure clock of each trial's Poisson stream.

    Parameters
    ----------
    rng_state : numpy.ndarray of uint64
        Shape (trials, 4): the trials' xoshiro256** states, advanced by one draw each.
    rate : float
        The stream's failures per hour of exposure (0: no stream).

    Returns
    -------
    numpy.ndarray of float
        One time per trial, hours (inf without a stream).
    """
    out = np.full(rng_state.shape[0], np.inf)
    if rate > 0.0:
        for trial in range(rng_state.shape[0]):
            out[trial] = -math.log(uniform(rng_state, trial)) / rate
    return out


@numba.njit(cache=True, nogil=True, error_model="numpy")
def walk_trial_slots(
    first_slot: int,
    stop_slot: int,
    job: CompiledJob,
    modes: CompiledModes,
    window: EventWindow,
    streams: TrialStreams,
    state: TrialState,
    trace: TraceBuffer,
) -> None:
    """Walk trials ``window.active_trials[first_slot:stop_slot]``, one after the other,
    until each one's job ends or its exposure reaches ``window.horizon_hours``, updating
    their entries of ``state`` and ``streams``.

    Each trial takes its failures from its events in ``window`` and from its on-the-fly
    stream (modes ``modes.exponential_modes``); it touches no other trial's entries.

    If a trial is ``trace.trial``, every interval is written to ``trace.rows`` as a row
    ``[wall_start, wall_end, code, a, b, c]``: RUN (a, b = job-time at its ends since
    the restart, c = checkpoints committed at the restart), RESTART, DETECT and WAIT
    (a = mode), FAILURE (a point; a = mode, b = impact), STALL, FINISH and ROLLBACK (a
    fast tier lost: a = the durable checkpoint, b = the one rolled back from).

    Parameters
    ----------
    first_slot, stop_slot : int
        The trials to walk: ``window.active_trials[first_slot:stop_slot]``.
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
    """
    # Every field the loops read is bound once, here: reading an array field of a
    # record inside a loop would cost a reference-count update at each read.
    restart = job.restart_hours
    segment = job.segment_hours
    last_work = job.last_segment_work_hours
    total_segments = job.total_segments
    every = job.durable_every
    mode_impact = modes.impact
    mode_detect_hours = modes.detect_hours
    mode_uses_spares = modes.uses_spares
    mode_loses_fast = modes.loses_fast_checkpoint
    mode_self_healing = modes.self_healing
    mode_stall_hours = modes.stall_hours
    mode_soft_hours = modes.soft_hours
    mode_survivable = modes.survivable_count
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
    horizon = window.horizon_hours
    rng_state = streams.rng_state
    next_exponential_hours = streams.next_exponential_hours
    phase = state.phase
    exposure_hours = state.exposure_hours
    phase_start = state.phase_start_hours
    run_progress = state.run_progress_hours
    committed = state.committed_checkpoints
    durable = state.durable_checkpoint
    idle = state.idle_hours
    wall_hours = state.wall_hours
    buckets = state.bucket_hours
    failures_by_mode = state.failures_by_mode
    interruptions_by_mode = state.interruptions_by_mode
    spare_return_hours = state.spare_return_hours
    spares_away = state.spares_away
    spares_used = state.spares_used
    degradation_end = state.degradation_end_hours
    degradation_row = state.degradation_row
    degradation_count = state.degradation_count
    degradations_by_row = state.degradations_by_row
    overflow = state.overflow
    traced = trace.trial

    for slot in range(first_slot, stop_slot):
        trial = active_trials[slot]
        pointer = offsets[slot]
        end = offsets[slot + 1]
        slowdown = 1.0
        if degradation_count[trial] > 0:
            slowdown = _current_slowdown(trial, degradations_by_row, slowdown_table)
        while True:
            x_now = exposure_hours[trial]
            # The next failure from either source.
            e_exp = next_exponential_hours[trial]
            e_win = event_exposure_hours[pointer] if pointer < end else np.inf
            e_fail = min(e_exp, e_win)
            # The next end of a degradation (wall clock, seen on the exposure clock).
            x_deg = np.inf
            first_deg = -1
            for k in range(degradation_count[trial]):
                x = max(degradation_end[trial, k] - idle[trial], x_now)
                if x < x_deg:
                    x_deg = x
                    first_deg = k
            # The end of the current phase.
            if phase[trial] == RESTARTING:
                x_phase = phase_start[trial] + restart
            else:
                left = total_segments - 1 - committed[trial]
                finish = segments_time(job, committed[trial], left) + last_work
                x_phase = phase_start[trial] + (finish - run_progress[trial]) * slowdown
            x_next = min(x_phase, min(x_deg, e_fail))
            if x_next > horizon or x_next == np.inf:
                break

            # Advance a running job's progress up to x_next (nothing happens during a stall).
            if phase[trial] == RUNNING and x_next > phase_start[trial]:
                stretch = x_next - phase_start[trial]
                if trial == traced:
                    _emit(trace, phase_start[trial] + idle[trial], x_next + idle[trial],
                          TRACE_RUN, run_progress[trial], run_progress[trial] + stretch / slowdown,
                          committed[trial])
                run_progress[trial] += stretch / slowdown
                buckets[trial, B_DEGRADED] += stretch * (1.0 - 1.0 / slowdown)
                phase_start[trial] = x_next
            exposure_hours[trial] = x_next

            if x_phase <= x_next:
                if phase[trial] == RESTARTING:
                    buckets[trial, B_RESTART] += restart
                    if trial == traced:
                        _emit(trace, phase_start[trial] + idle[trial], x_next + idle[trial],
                              TRACE_RESTART, 0.0, 0.0, 0.0)
                    phase[trial] = RUNNING
                    phase_start[trial] = x_next
                    run_progress[trial] = 0.0
                    continue
                left = total_segments - 1 - committed[trial]
                buckets[trial, B_USEFUL] += left * segment + last_work
                buckets[trial, B_CHECKPOINT] += segments_time(
                    job, committed[trial], left
                ) - left * segment
                committed[trial] = total_segments
                wall_hours[trial] = x_next + idle[trial]
                phase[trial] = FINISHED
                if trial == traced:
                    _emit(trace, wall_hours[trial], wall_hours[trial], TRACE_FINISH,
                          0.0, 0.0, 0.0)
                break

            if x_deg <= e_fail:
                row = degradation_row[trial, first_deg]
                last = degradation_count[trial] - 1
                degradation_end[trial, first_deg] = degradation_end[trial, last]
                degradation_row[trial, first_deg] = degradation_row[trial, last]
                degradation_count[trial] = last
                degradations_by_row[trial, row] -= 1
                slowdown = _current_slowdown(trial, degradations_by_row, slowdown_table)
                continue

            # A failure at e_fail: take it from its source.
            if e_exp <= e_win:
                # Walker's alias method: one uniform picks a column, its fraction the mode
                pick = uniform(rng_state, trial) * exponential_modes.size
                column = min(int(pick), exponential_modes.size - 1)
                if pick - column < exponential_probability[column]:
                    mode = exponential_modes[column]
                else:
                    mode = exponential_alias[column]
                repair = duration_from_uniform(
                    repair_kind[mode], repair_scale_hours[mode], repair_shape[mode],
                    uniform(rng_state, trial),
                )
                next_exponential_hours[trial] = e_exp - math.log(
                    uniform(rng_state, trial)
                ) / exponential_rate
            else:
                mode = event_mode[pointer]
                repair = event_repair_hours[pointer]
                pointer += 1
            failures_by_mode[trial, mode] += 1
            impact = mode_impact[mode]
            if impact == DEGRADED and degradations_by_row[trial, mode] >= mode_survivable[mode]:
                impact = FATAL  # nothing left to run on (every spine lost)
            if trial == traced:
                _emit(trace, e_fail + idle[trial], e_fail + idle[trial], TRACE_FAILURE, mode,
                      impact, 0.0)

            if impact == FATAL:
                interruptions_by_mode[trial, mode] += 1
                if phase[trial] == RESTARTING:
                    buckets[trial, B_RESTART] += e_fail - phase_start[trial]
                    if trial == traced:
                        _emit(trace, phase_start[trial] + idle[trial], e_fail + idle[trial],
                              TRACE_RESTART, 0.0, 0.0, 0.0)
                else:
                    if phase_start[trial] > e_fail:  # cut a stall short
                        buckets[trial, B_STALL] -= phase_start[trial] - e_fail
                    elapsed = run_progress[trial]
                    most = total_segments - 1 - committed[trial]
                    done = completed_segments(job, committed[trial], elapsed, most)
                    done_time = segments_time(job, committed[trial], done)
                    buckets[trial, B_USEFUL] += done * segment
                    buckets[trial, B_CHECKPOINT] += done_time - done * segment
                    buckets[trial, B_REWORK] += elapsed - done_time
                    committed[trial] += done
                    durable[trial] = (committed[trial] // every) * every
                if mode_loses_fast[mode] and committed[trial] > durable[trial]:
                    # the fast checkpoints since the last durable one are gone: their
                    # compute and their writes become rework
                    lost = committed[trial] - durable[trial]
                    lost_time = segments_time(job, durable[trial], lost)
                    buckets[trial, B_USEFUL] -= lost * segment
                    buckets[trial, B_CHECKPOINT] -= lost_time - lost * segment
                    buckets[trial, B_REWORK] += lost_time
                    if trial == traced:
                        _emit(trace, e_fail + idle[trial], e_fail + idle[trial], TRACE_ROLLBACK,
                              durable[trial], committed[trial], 0.0)
                    committed[trial] = durable[trial]
                detect = mode_detect_hours[mode]
                buckets[trial, B_DETECT] += detect
                noticed = e_fail + idle[trial] + detect
                wait = repair
                if mode_self_healing[mode]:  # back by itself `repair` after the failure
                    wait = max(0.0, repair - detect)
                elif mode_uses_spares[mode]:
                    wait = _replacement_wait(trial, spare_return_hours, spares_away,
                                             noticed, repair)
                    if wait < repair:
                        spares_used[trial] += 1
                buckets[trial, B_WAITING] += wait
                if trial == traced:
                    _emit(trace, noticed - detect, noticed, TRACE_DETECT, mode, 0.0, 0.0)
                    _emit(trace, noticed, noticed + wait, TRACE_WAIT, mode, 0.0, 0.0)
                idle[trial] += detect + wait
                phase[trial] = RESTARTING
                phase_start[trial] = e_fail
                continue

            # Degraded, transient and elastic failures: the job keeps its progress.
            duration = repair
            table_row = mode
            # ``begin``: when the job resumes after the stall (exposure), from which a
            # soft phase or a shrunk run is timed
            begin = e_fail
            if impact == ELASTIC or impact == TRANSIENT:
                # transient: failover; elastic: detection and reconfiguration
                stall = mode_stall_hours[mode]
                if phase[trial] == RUNNING:
                    start = max(phase_start[trial], e_fail)
                    begin = start + stall
                    buckets[trial, B_STALL] += stall
                    if trial == traced:
                        _emit(trace, start + idle[trial], begin + idle[trial], TRACE_STALL, mode,
                              0.0, 0.0)
                    phase_start[trial] = begin
            if impact == ELASTIC:
                wait = repair
                if mode_uses_spares[mode]:
                    wait = _replacement_wait(trial, spare_return_hours, spares_away,
                                             begin + idle[trial], repair)
                    if wait < repair:
                        spares_used[trial] += 1
                duration = wait + mode_soft_hours[mode]  # soft hours: the rejoin
            elif impact == TRANSIENT:
                duration = mode_soft_hours[mode]
                table_row = n_modes + mode  # the soft rows follow the repair rows
                if duration <= 0.0:
                    continue
            if degradation_count[trial] >= degradation_end.shape[1]:
                overflow[0] = True
                continue
            k = degradation_count[trial]
            degradation_end[trial, k] = begin + idle[trial] + duration
            degradation_row[trial, k] = table_row
            degradation_count[trial] = k + 1
            degradations_by_row[trial, table_row] += 1
            slowdown = _current_slowdown(trial, degradations_by_row, slowdown_table)


def walk_trials(
    job: CompiledJob,
    modes: CompiledModes,
    window: EventWindow,
    streams: TrialStreams,
    state: TrialState,
    trace: TraceBuffer,
) -> None:
    """Walk each trial of ``window.active_trials`` until its job ends or its exposure
    reaches ``window.horizon_hours``, on every core (see :func:`walk_trial_slots`).

    The trials are cut into one contiguous share per thread (:data:`WALK_THREADS` of
    them, fewer for a small window); the calling thread walks the first share and the
    others go to a pool of threads. The compiled walk runs without the GIL, and each
    trial touches only its own entries, so the results do not depend on the cut.

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
    """
    trials = window.active_trials.size
    threads = max(1, min(WALK_THREADS, trials // MIN_TRIALS_PER_THREAD))
    cuts = [share * trials // threads for share in range(threads + 1)]
    pending = [
        _walk_pool().submit(walk_trial_slots, cuts[share], cuts[share + 1], job, modes,
                            window, streams, state, trace)
        for share in range(1, threads)
    ]  # fmt: skip
    walk_trial_slots(cuts[0], cuts[1], job, modes, window, streams, state, trace)
    for share in pending:
        share.result()


_pool: ThreadPoolExecutor | None = None


def _walk_pool() -> ThreadPoolExecutor:
    """The threads that walk all but the first share of a window's trials."""
    global _pool
    if _pool is None:
        _pool = ThreadPoolExecutor(max(1, WALK_THREADS - 1), thread_name_prefix="relplan-walk")
    return _pool


def _forget_pool() -> None:
    """In a forked child the pool's threads are gone: start a new pool when needed."""
    global _pool
    _pool = None


os.register_at_fork(after_in_child=_forget_pool)
