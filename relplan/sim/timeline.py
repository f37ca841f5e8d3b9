"""The per-trial job timeline, compiled with numba: the engine's hot loop.

A trial walks its failures in order of *exposure* (hours of hardware in use). Between
two things that happen (a failure, the end of a degradation, the end of a restart, the
end of the job) it advances in closed form over checkpoint segments, so its cost is
O(failures), not O(checkpoints).

The job runs segments of ``tau`` hours of compute each followed by a blocking write:
``write_fast`` normally, ``write_durable`` on every ``durable_every``-th checkpoint
(one tier: ``durable_every = 1``). Progress is counted in *job-time*: hours at full
speed. While degraded, the job advances at ``1 / slowdown`` job-hours per hour; the
other ``1 - 1 / slowdown`` goes to the ``degraded`` bucket.

Impacts of a failure:

- FATAL: work since the last surviving checkpoint is lost; detection, then a spare or a
  wait for the repair (idle: no exposure), then a restart (exposure: may fail again).
- DEGRADED: the job runs on, slowed, until the unit's repair ends (wall clock).
- TRANSIENT: the job stalls for the mode's stall time (exposure, no progress), then
  optionally runs slowed for a while (soft degradation, such as PFC congestion).
- ELASTIC: the job drops the failed data-parallel replica instead of rolling back: it
  stalls for detection plus reconfiguration, then runs on with fewer replicas
  (slowdown ``DP / (DP - k)``) until a spare, or the repaired unit, rejoins.

Failures come from two sources, merged in time: exponential modes drawn on the fly
from each trial's own xoshiro256** stream (a Poisson superposition: gap, mode, repair,
three uniforms per event), and pre-drawn, sorted window events of non-exponential modes.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from relplan.sim.rng import duration_from_uniform, uniform

FATAL, DEGRADED, TRANSIENT, ELASTIC = 0, 1, 2, 3
"""Impact codes of a failure mode."""

B_USEFUL, B_REWORK, B_CHECKPOINT, B_DETECT, B_RESTART, B_WAITING, B_DEGRADED, B_STALL = range(8)
RUNNING, RESTARTING, FINISHED = 0, 1, 2
MAX_DEGRADATIONS = 256
"""Default room for concurrent degradations per trial (the engine sizes it per model);
more sets the overflow flag."""


@numba.njit(cache=True, inline="always")
def segments_time(
    start_index: int, count: int, interval: float, write_fast: float, every: int,
    write_durable: float,
) -> float:  # fmt: skip
    """Job-time of ``count`` segments after checkpoint number ``start_index``."""
    if every == 1:  # one tier: no integer division on the hot path
        return count * (interval + write_durable)
    durable = (start_index + count) // every - start_index // every
    return count * (interval + write_fast) + durable * (write_durable - write_fast)


@numba.njit(cache=True, inline="always")
def completed_segments(
    start_index: int, elapsed: float, most: int, interval: float, write_fast: float,
    every: int, write_durable: float,
) -> int:  # fmt: skip
    """Segments completed ``elapsed`` job-hours after checkpoint number ``start_index``."""
    if every == 1:
        return min(max(int(elapsed / (interval + write_durable)), 0), most)
    average = interval + write_fast + (write_durable - write_fast) / every
    count = min(max(int(elapsed / average), 0), most)
    while count < most and segments_time(
        start_index, count + 1, interval, write_fast, every, write_durable
    ) <= elapsed:
        count += 1
    while count > 0 and segments_time(
        start_index, count, interval, write_fast, every, write_durable
    ) > elapsed:
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
    trial: int, busy_heap: np.ndarray, busy: np.ndarray, noticed: float, repair: float
) -> float:
    """Hours from ``noticed`` until a replacement is ready: a free spare (0), a spare back
    from repair before the failed unit, or the failed unit itself.

    The spares away in repair are a per-trial binary min-heap of their return times
    (``busy[trial]`` of them); the others are free. A failure costs O(log busy).
    """
    n_spares = busy_heap.shape[1]
    if n_spares == 0:
        return repair
    size = busy[trial]
    while size > 0 and busy_heap[trial, 0] <= noticed:  # spares back in the pool
        size -= 1
        busy_heap[trial, 0] = busy_heap[trial, size]
        _sift_down(busy_heap, trial, size, 0)
    back_after = noticed + repair
    if size < n_spares:
        # a free spare goes in; the failed unit is away until its repair ends
        node = size
        busy_heap[trial, node] = back_after
        while node > 0 and busy_heap[trial, (node - 1) // 2] > busy_heap[trial, node]:
            parent = (node - 1) // 2
            value = busy_heap[trial, parent]
            busy_heap[trial, parent] = busy_heap[trial, node]
            busy_heap[trial, node] = value
            node = parent
        busy[trial] = size + 1
        return 0.0
    busy[trial] = size
    back = busy_heap[trial, 0]
    if back < back_after:
        # A spare comes back before the failed unit: take it; the failed unit joins
        # the pool when its own repair ends.
        busy_heap[trial, 0] = back_after
        _sift_down(busy_heap, trial, size, 0)
        return back - noticed
    return repair


TRACE_RUN, TRACE_RESTART, TRACE_DETECT, TRACE_WAIT, TRACE_FAILURE, TRACE_STALL = range(6)
TRACE_FINISH, TRACE_ROLLBACK = 6, 7
"""Row codes of a trace: ``[wall_start, wall_end, code, a, b, c]`` (see ``walk_trials``)."""


@numba.njit(cache=True, inline="always")
def _emit(trace: np.ndarray, rows: np.ndarray, start: float, end: float, code: int,
          a: float, b: float, c: float) -> None:  # fmt: skip
    row = rows[0]
    if row < trace.shape[0]:
        trace[row, 0] = start
        trace[row, 1] = end
        trace[row, 2] = code
        trace[row, 3] = a
        trace[row, 4] = b
        trace[row, 5] = c
    rows[0] = row + 1


@numba.njit(cache=True, inline="always")
def _current_slowdown(trial: int, active_by_mode: np.ndarray, slowdown_table: np.ndarray) -> float:
    worst = 1.0
    depth = slowdown_table.shape[1]
    for mode in range(active_by_mode.shape[1]):
        count = active_by_mode[trial, mode]
        if count > 0:
            value = slowdown_table[mode, min(count, depth - 1)]
            if value > worst:
                worst = value
    return worst


@numba.njit(cache=True, nogil=True)
def first_arrivals(rng_state: np.ndarray, rate: float) -> np.ndarray:
    """First failure time on the exposure clock of each trial's Poisson stream, hours."""
    out = np.full(rng_state.shape[0], np.inf)
    if rate > 0.0:
        for trial in range(rng_state.shape[0]):
            out[trial] = -math.log(uniform(rng_state, trial)) / rate
    return out


@numba.njit(cache=True, nogil=True, parallel=True)
def walk_trials(
    active: np.ndarray,
    offsets: np.ndarray,
    event_time: np.ndarray,
    event_mode: np.ndarray,
    event_repair: np.ndarray,
    horizon: float,
    job: np.ndarray,
    mode_impact: np.ndarray,
    mode_detect: np.ndarray,
    mode_uses_spares: np.ndarray,
    mode_loses_fast: np.ndarray,
    mode_self_healing: np.ndarray,
    mode_stall: np.ndarray,
    mode_soft_hours: np.ndarray,
    slowdown_table: np.ndarray,
    mode_repair: np.ndarray,
    exp_total_rate: float,
    exp_probability: np.ndarray,
    exp_modes: np.ndarray,
    exp_alias: np.ndarray,
    rng_state: np.ndarray,
    next_exp: np.ndarray,
    phase: np.ndarray,
    position: np.ndarray,
    phase_start: np.ndarray,
    run_offset: np.ndarray,
    committed: np.ndarray,
    durable: np.ndarray,
    idle: np.ndarray,
    wall: np.ndarray,
    buckets: np.ndarray,
    mode_counts: np.ndarray,
    spare_return: np.ndarray,
    spares_busy: np.ndarray,
    spares_used: np.ndarray,
    degradation_end: np.ndarray,
    degradation_mode: np.ndarray,
    degradation_count: np.ndarray,
    active_by_mode: np.ndarray,
    overflow: np.ndarray,
    trace: np.ndarray,
    trace_rows: np.ndarray,
    trace_trial: int,
) -> None:
    """Walk each active trial until its job ends or its exposure reaches ``horizon``.

    ``job`` packs, in hours: work, interval (tau), fast write, durable write, restart,
    last segment's work; and as floats: checkpoints every durable, total segments.
    ``mode_repair`` is (modes, 3): duration code, scale, shape of each repair.
    ``slowdown_table`` is (2 x modes, depth): row ``m`` the slowdown with ``k``
    concurrent degradations of mode ``m``, row ``modes + m`` that of its soft phase
    after a transient; ``active_by_mode`` counts them with the same columns.
    All state arrays are indexed by the trial's block index and updated in place.

    For block trial ``trace_trial`` (-1: none) every interval is written to ``trace``
    as a row ``[wall_start, wall_end, code, a, b, c]``: RUN (a, b = job-time at its
    ends since the restart, c = checkpoints committed at the restart), RESTART, DETECT
    and WAIT (a = mode), FAILURE (a point; a = mode, b = impact), STALL, FINISH and
    ROLLBACK (a fast tier lost: a = the durable checkpoint, b = the one rolled back from).
    ``trace_rows[0]`` counts the rows (more than fit are counted, not written).
    """
    interval = job[1]
    write_fast = job[2]
    write_durable = job[3]
    restart = job[4]
    last_work = job[5]
    every = int(job[6])
    total_segments = int(job[7])
    n_modes = mode_impact.shape[0]
    for slot in numba.prange(active.size):
        trial = active[slot]
        pointer = offsets[slot]
        end = offsets[slot + 1]
        slowdown = 1.0
        if degradation_count[trial] > 0:
            slowdown = _current_slowdown(trial, active_by_mode, slowdown_table)
        while True:
            x_now = position[trial]
            # The next failure from either source.
            e_exp = next_exp[trial]
            e_win = event_time[pointer] if pointer < end else np.inf
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
                finish = segments_time(
                    committed[trial], left, interval, write_fast, every, write_durable
                ) + last_work
                x_phase = phase_start[trial] + (finish - run_offset[trial]) * slowdown
            x_next = min(x_phase, min(x_deg, e_fail))
            if x_next > horizon or x_next == np.inf:
                break

            # Advance a running job's progress up to x_next (nothing happens during a stall).
            if phase[trial] == RUNNING and x_next > phase_start[trial]:
                stretch = x_next - phase_start[trial]
                if trial == trace_trial:
                    _emit(trace, trace_rows, phase_start[trial] + idle[trial],
                          x_next + idle[trial], TRACE_RUN, run_offset[trial],
                          run_offset[trial] + stretch / slowdown, committed[trial])
                run_offset[trial] += stretch / slowdown
                buckets[trial, B_DEGRADED] += stretch * (1.0 - 1.0 / slowdown)
                phase_start[trial] = x_next
            position[trial] = x_next

            if x_phase <= x_next:
                if phase[trial] == RESTARTING:
                    buckets[trial, B_RESTART] += restart
                    if trial == trace_trial:
                        _emit(trace, trace_rows, phase_start[trial] + idle[trial],
                              x_next + idle[trial], TRACE_RESTART, 0.0, 0.0, 0.0)
                    phase[trial] = RUNNING
                    phase_start[trial] = x_next
                    run_offset[trial] = 0.0
                    continue
                left = total_segments - 1 - committed[trial]
                buckets[trial, B_USEFUL] += left * interval + last_work
                buckets[trial, B_CHECKPOINT] += segments_time(
                    committed[trial], left, interval, write_fast, every, write_durable
                ) - left * interval
                committed[trial] = total_segments
                wall[trial] = x_next + idle[trial]
                phase[trial] = FINISHED
                if trial == trace_trial:
                    _emit(trace, trace_rows, wall[trial], wall[trial], TRACE_FINISH,
                          0.0, 0.0, 0.0)
                break

            if x_deg <= e_fail:
                mode = degradation_mode[trial, first_deg]
                last = degradation_count[trial] - 1
                degradation_end[trial, first_deg] = degradation_end[trial, last]
                degradation_mode[trial, first_deg] = degradation_mode[trial, last]
                degradation_count[trial] = last
                active_by_mode[trial, mode] -= 1
                slowdown = _current_slowdown(trial, active_by_mode, slowdown_table)
                continue

            # A failure at e_fail: take it from its source.
            if e_exp <= e_win:
                # Walker's alias method: one uniform picks a column, its fraction the mode
                pick = uniform(rng_state, trial) * exp_modes.size
                column = min(int(pick), exp_modes.size - 1)
                if pick - column < exp_probability[column]:
                    mode = exp_modes[column]
                else:
                    mode = exp_alias[column]
                repair = duration_from_uniform(
                    int(mode_repair[mode, 0]), mode_repair[mode, 1], mode_repair[mode, 2],
                    uniform(rng_state, trial),
                )
                next_exp[trial] = e_exp - math.log(uniform(rng_state, trial)) / exp_total_rate
            else:
                mode = event_mode[pointer]
                repair = event_repair[pointer]
                pointer += 1
            mode_counts[trial, mode] += 1
            impact = mode_impact[mode]
            if trial == trace_trial:
                _emit(trace, trace_rows, e_fail + idle[trial], e_fail + idle[trial],
                      TRACE_FAILURE, mode, impact, 0.0)

            if impact == FATAL:
                if phase[trial] == RESTARTING:
                    buckets[trial, B_RESTART] += e_fail - phase_start[trial]
                    if trial == trace_trial:
                        _emit(trace, trace_rows, phase_start[trial] + idle[trial],
                              e_fail + idle[trial], TRACE_RESTART, 0.0, 0.0, 0.0)
                else:
                    if phase_start[trial] > e_fail:  # cut a stall short
                        buckets[trial, B_STALL] -= phase_start[trial] - e_fail
                    elapsed = run_offset[trial]
                    most = total_segments - 1 - committed[trial]
                    done = completed_segments(
                        committed[trial], elapsed, most, interval, write_fast, every,
                        write_durable,
                    )
                    done_time = segments_time(
                        committed[trial], done, interval, write_fast, every, write_durable
                    )
                    buckets[trial, B_USEFUL] += done * interval
                    buckets[trial, B_CHECKPOINT] += done_time - done * interval
                    buckets[trial, B_REWORK] += elapsed - done_time
                    committed[trial] += done
                    durable[trial] = (committed[trial] // every) * every
                if mode_loses_fast[mode] and committed[trial] > durable[trial]:
                    # the fast checkpoints since the last durable one are gone: their
                    # compute and their writes become rework
                    lost = committed[trial] - durable[trial]
                    lost_time = segments_time(
                        durable[trial], lost, interval, write_fast, every, write_durable
                    )
                    buckets[trial, B_USEFUL] -= lost * interval
                    buckets[trial, B_CHECKPOINT] -= lost_time - lost * interval
                    buckets[trial, B_REWORK] += lost_time
                    if trial == trace_trial:
                        _emit(trace, trace_rows, e_fail + idle[trial], e_fail + idle[trial],
                              TRACE_ROLLBACK, durable[trial], committed[trial], 0.0)
                    committed[trial] = durable[trial]
                detect = mode_detect[mode]
                buckets[trial, B_DETECT] += detect
                noticed = e_fail + idle[trial] + detect
                wait = repair
                if mode_self_healing[mode]:  # back by itself `repair` after the failure
                    wait = max(0.0, repair - detect)
                elif mode_uses_spares[mode]:
                    wait = _replacement_wait(trial, spare_return, spares_busy, noticed, repair)
                    if wait < repair:
                        spares_used[trial] += 1
                buckets[trial, B_WAITING] += wait
                if trial == trace_trial:
                    _emit(trace, trace_rows, noticed - detect, noticed, TRACE_DETECT,
                          mode, 0.0, 0.0)
                    _emit(trace, trace_rows, noticed, noticed + wait, TRACE_WAIT, mode,
                          0.0, 0.0)
                idle[trial] += detect + wait
                phase[trial] = RESTARTING
                phase_start[trial] = e_fail
                continue

            # Degraded, transient and elastic failures: the job keeps its progress.
            duration = repair
            table_mode = mode
            # ``begin``: when the job resumes after the stall (exposure), from which a
            # soft phase or a shrunk run is timed
            begin = e_fail
            if impact == ELASTIC or impact == TRANSIENT:
                stall = mode_stall[mode]  # transient: failover; elastic: detect + reconfigure
                if phase[trial] == RUNNING:
                    start = max(phase_start[trial], e_fail)
                    begin = start + stall
                    buckets[trial, B_STALL] += stall
                    if trial == trace_trial:
                        _emit(trace, trace_rows, start + idle[trial], begin + idle[trial],
                              TRACE_STALL, mode, 0.0, 0.0)
                    phase_start[trial] = begin
            if impact == ELASTIC:
                wait = repair
                if mode_uses_spares[mode]:
                    wait = _replacement_wait(trial, spare_return, spares_busy,
                                             begin + idle[trial], repair)
                    if wait < repair:
                        spares_used[trial] += 1
                duration = wait + mode_soft_hours[mode]  # soft hours: the rejoin
            elif impact == TRANSIENT:
                duration = mode_soft_hours[mode]
                table_mode = n_modes + mode  # the soft rows follow the repair rows
                if duration <= 0.0:
                    continue
            if degradation_count[trial] >= degradation_end.shape[1]:
                overflow[0] = True
                continue
            k = degradation_count[trial]
            degradation_end[trial, k] = begin + idle[trial] + duration
            degradation_mode[trial, k] = table_mode
            degradation_count[trial] = k + 1
            active_by_mode[trial, table_mode] += 1
            slowdown = _current_slowdown(trial, active_by_mode, slowdown_table)
