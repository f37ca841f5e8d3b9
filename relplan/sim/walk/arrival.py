"""Phase of the walk: what happens next to a trial, and the failure or planned event that
arrives (see :mod:`relplan.sim.timeline`)."""

from __future__ import annotations

import math

import numpy as np

from relplan.sim.compiled import (
    DEGRADED,
    ELASTIC,
    FATAL,
    NO_STOP,
    PREEMPTION,
    RESTARTING,
    RUNNING,
    SLOW,
    STOP_DRAIN,
    STOP_EVICTION,
    STOP_MAINTENANCE,
    TRACE_FAILURE,
    CompiledJob,
    CompiledModes,
    EventWindow,
    HeldHours,
    TraceBuffer,
    TrialState,
)
from relplan.sim.rng import duration_from_uniform, exponential_from_words, uniform_from_words
from relplan.sim.walk.degraded_units import _find_degraded_servers
from relplan.sim.walk.emit import _emit
from relplan.sim.walk.jit import walk_phase
from relplan.sim.walk.saves import start_save
from relplan.sim.walk.segments import (
    _hours_to_progress,
    _segments_to_stop,
    completed_segments_hinted,
    segments_time,
    slowed_job_hours,
)
from relplan.sim.walk.spares import _free_spares
from relplan.sim.walk.taking import server_taken_by
from relplan.sim.walk.values import (
    CORRUPTION_FOUND,
    DRAIN_AT_ONCE,
    EVICT_NOW,
    FAILURE,
    GO_ON,
    MAINTENANCE_NOW,
    NEXT_STEP,
    NO_STOP_KIND,
    SAVE_HANG,
    SERVER_TAKEN,
    STOP_AT_CHECKPOINT,
    BookedHours,
    Event,
    NextEvent,
    Sources,
    TrialClock,
)


@walk_phase
def _save_start(checkpoint: int, clock: TrialClock, x_now: float, slowdown: float,
                start_index: int, left: int, job: CompiledJob) -> float:  # fmt: skip
    """The exposure at which the save of ``checkpoint`` starts in the run in progress: once
    its segment's compute is done, its tier's write (slowed if storage shares the
    fabric) before the checkpoint; inf if the run does not reach it.

    Other Parameters
    ----------------
    clock, slowdown, job
        As for every phase (:mod:`relplan.sim.walk`); ``x_now`` the exposure reached,
        ``start_index`` and ``left`` as in :class:`.values.NextEvent`.
    """
    reach = checkpoint - start_index
    if not 0 < reach <= left:
        return np.inf
    write = job.durable_write_hours if checkpoint % job.durable_every == 0 else (
        job.fast_write_hours)
    if job.storage_on_fabric:
        write *= slowdown
    return max(max(clock.phase_start, x_now) + _hours_to_progress(
        job, start_index, clock.run_progress, reach, slowdown, left) - write, x_now)


@walk_phase
def next_event(
    has_maintenance: bool, has_planned_stops: bool, has_fail_slow: bool,
    has_corruption: bool, has_drain: bool, has_degradations: bool, has_random_saves: bool,
    has_fleet_preemption: bool, trial: int, clock: TrialClock, held: HeldHours,
    slowdown: float, sources: Sources, end: int, job: CompiledJob, window: EventWindow,
    state: TrialState,
) -> NextEvent:  # fmt: skip
    """The next thing that happens to a trial: a failure from either source, the end of a
    degradation (wall clock, seen on the exposure clock), of its phase or of the calendar
    window, or a planned or delayed event (a maintenance window, a fail-slow unit
    detected, a corruption or a degraded server found, the checkpoint a planned stop
    waits for: the next one, the next durable one for maintenance; the start of a durable
    save that hangs; a server taken by a fleet's job of higher priority).

    Returns
    -------
    NextEvent
        Exposure hours of each candidate and the first of them.

    Other Parameters
    ----------------
    has_maintenance, has_planned_stops, has_fail_slow, has_corruption, has_drain,
    has_degradations, has_random_saves, has_fleet_preemption, trial, clock, held, slowdown,
    sources, end, job, window, state
        As for every phase (:mod:`relplan.sim.walk`).
    """
    x_now = clock.exposure_hours
    idle = clock.idle
    e_exp = sources.next_exponential_hours
    pointer = sources.pointer
    e_win = window.event_exposure_hours[pointer] if pointer < end else np.inf
    e_fail = min(e_exp, e_win)
    x_deg = np.inf
    first_deg = -1
    degradation_end = state.degradation_end_hours
    for k in range(state.degradation_count[trial]):
        x = max(degradation_end[trial, k] - idle, x_now)
        if x < x_deg:
            x_deg = x
            first_deg = k
    # The end of the current phase. A degraded job computes at 1 / slowdown job-hours
    # per hour; it writes so too only if storage shares the fabric.
    start_index = clock.committed
    left = job.total_segments - 1 - start_index
    run_progress = clock.run_progress
    finish = 0.0
    done_before = 0
    slowed_before = 0.0
    x_horizon = job.horizon_hours - idle  # the calendar window's end (inf: none)
    pending_stop = state.pending_stop
    x_maint = np.inf
    if has_maintenance and not pending_stop[trial] & STOP_MAINTENANCE:
        x_maint = max(state.next_maintenance_hours[trial] - idle, x_now)
    x_stop = np.inf
    stop_segments = 0
    if has_planned_stops and pending_stop[trial] != NO_STOP and clock.phase == RUNNING:
        stop_segments = _segments_to_stop(
            job, start_index, run_progress, left,
            pending_stop[trial] & (STOP_MAINTENANCE | STOP_DRAIN) != 0,
        )  # fmt: skip
        if stop_segments > 0:
            x_stop = max(clock.phase_start, x_now) + _hours_to_progress(
                job, start_index, run_progress, stop_segments, slowdown, left
            )  # fmt: skip
    x_special = min(x_maint, x_stop)
    x_evict = np.inf
    if has_fail_slow:
        x_evict = state.evict_at_hours[trial]
        x_special = min(x_special, x_evict)
    if has_corruption:
        x_special = min(x_special, state.corruption_found_hours[trial])
    if has_fleet_preemption and job.fleet_index >= 0:  # at once if the job was past it
        x_special = min(x_special, max(
            state.fleet_taken_at_hours[trial, job.fleet_index] - idle, x_now))
    x_drain = np.inf
    if has_drain:  # a degraded server that drains found
        x_drain = state.drain_at_hours[trial]
        x_special = min(x_special, x_drain)
    x_hang = np.inf
    if has_random_saves and job.save_hang > 0.0 and clock.phase == RUNNING:
        x_hang = _save_start(state.hang_checkpoint[trial], clock, x_now, slowdown, start_index,
                             left, job)  # fmt: skip
        x_special = min(x_special, x_hang)
    x_save = np.inf
    if has_random_saves and clock.phase == RUNNING and job.walks_saves:
        x_save = _save_start(state.next_save[trial], clock, x_now, slowdown, start_index, left,
                             job)  # fmt: skip
        x_special = min(x_special, x_save)
    if clock.phase == RESTARTING:
        x_phase = clock.phase_start + (clock.restart_length - clock.restart_done)
    else:
        finish = segments_time(job, start_index, left) + job.last_segment_work_hours
        if not has_degradations or slowdown == 1.0 or job.storage_on_fabric:
            x_phase = clock.phase_start + (finish - run_progress) * slowdown
        else:
            # writes at full speed; the segment in progress is usually the one holding
            # hours already (a stall's, before its soft phase)
            done_before = completed_segments_hinted(job, start_index, run_progress, left,
                                                    held.segment - start_index - 1)
            slowed_before = slowed_job_hours(job, start_index, run_progress, done_before,
                                             left)  # fmt: skip
            # no earlier than at full speed: exact only if it may come first
            x_phase = clock.phase_start + (finish - run_progress)
            if x_phase <= min(min(x_deg, e_fail), min(x_horizon, x_special)):
                x_phase += (slowdown - 1.0) * (left * job.segment_hours
                                               + job.last_segment_work_hours - slowed_before)
    x_next = min(min(min(x_phase, x_horizon), min(x_deg, e_fail)), x_special)
    return NextEvent(x_next, x_phase, x_horizon, x_special, x_maint, x_stop, x_evict, x_drain,
                     x_deg, first_deg, e_exp, e_win, e_fail, stop_segments, start_index, left,
                     finish, done_before, slowed_before, x_hang, x_save)  # fmt: skip


@walk_phase
def planned_event(
    has_trace: bool, has_planned_stops: bool, has_maintenance: bool, has_fail_slow: bool,
    has_drain: bool, has_random_saves: bool, has_fleet_preemption: bool, trial: int,
    clock: TrialClock, booked: BookedHours, nxt: NextEvent, sources: Sources,
    job: CompiledJob, modes: CompiledModes, state: TrialState, trace: TraceBuffer,
) -> tuple[int, Event, TrialClock, BookedHours, Sources]:  # fmt: skip
    """A planned or delayed event at ``nxt.x_next``: a save whose write is drawn
    (:func:`.saves.start_save`), a stop at the checkpoint just reached, a maintenance
    window, a fail-slow unit detected (evicted, or re-routed: an event of impact
    ``SLOW`` that :func:`.degradation.keep_running` takes), a degraded server found, a
    durable save that hangs, a corruption found, or a server taken by a fleet's job of
    higher priority (:mod:`.taking`). One that waits for a checkpoint is marked pending
    instead.

    Returns
    -------
    (int, Event, TrialClock, BookedHours, Sources)
        GO_ON with the stop, or NEXT_STEP (nothing stops now); the clock and hours (held
        by a save) and the sources.

    Other Parameters
    ----------------
    has_trace, has_planned_stops, has_maintenance, has_fail_slow, has_drain,
    has_random_saves, has_fleet_preemption, trial, clock, booked, nxt, sources, job, modes,
    state, trace
        As for every phase (:mod:`relplan.sim.walk`).
    """
    x_next = nxt.x_next
    now = x_next + clock.idle
    pending_stop = state.pending_stop
    stop = NO_STOP_KIND
    stop_mode = -1
    repair = 0.0
    taken_wait = -1.0
    if has_fleet_preemption:
        taken_wait = server_taken_by(trial, x_next, clock.idle, job, state)
    if taken_wait >= 0.0:  # the job stops; it waits for a server to replace the one taken
        stop = SERVER_TAKEN
        repair = taken_wait
    elif has_random_saves and nxt.x_save <= x_next:
        stop, clock, booked, words = start_save(has_trace, trial, clock, booked, nxt,
                                                sources.words, job, state, trace)  # fmt: skip
        sources = Sources(words, sources.next_exponential_hours, sources.pointer)
    elif has_planned_stops and nxt.x_stop <= x_next:
        stop = STOP_AT_CHECKPOINT
        if has_drain and pending_stop[trial] == STOP_DRAIN and _free_spares(
            trial, state.spare_return_hours, state.spares_away, now
        ) < 1:  # no spare to drain to: no stop
            pending_stop[trial] = NO_STOP
            stop = NO_STOP_KIND
    elif has_maintenance and nxt.x_maint <= x_next:
        # the next window on the wall-clock schedule, after this one
        every = job.maintenance_every_hours
        next_maintenance = state.next_maintenance_hours
        if next_maintenance[trial] <= now:  # O(1), however many windows
            next_maintenance[trial] += every * (math.floor(
                (now - next_maintenance[trial]) / every) + 1.0)
        if job.maintenance_checkpoint_first and clock.phase == RUNNING:
            pending_stop[trial] |= STOP_MAINTENANCE  # at the next durable one
        else:
            stop = MAINTENANCE_NOW
    elif has_fail_slow and nxt.x_evict <= x_next:
        stop_mode = state.evict_mode[trial]
        state.evict_at_hours[trial] = np.inf
        if state.reroute_pending[trial]:  # the ladder's middle rung: evicted later
            state.reroute_pending[trial] = False
            state.evict_at_hours[trial] = x_next + (modes.tolerate_hours[stop_mode]
                                                    - modes.reroute_after_hours[stop_mode])
            return GO_ON, Event(np.int64(NO_STOP_KIND), np.int64(stop_mode), np.int64(SLOW),
                                0.0, x_next, False, 0.0, np.inf), clock, booked, sources
        if modes.evict_at_checkpoint[stop_mode] and clock.phase == RUNNING:
            pending_stop[trial] |= STOP_EVICTION  # at the next checkpoint
        else:
            stop = EVICT_NOW
            repair = state.evict_repair_hours[trial]
    elif has_drain and nxt.x_drain <= x_next:
        # degraded servers found: swapped at once for a free spare, or at the next
        # durable checkpoint
        next_found, stop_mode, drain_later = _find_degraded_servers(
            trial, x_next, modes.drain, modes.impact.shape[0], state.degradation_row,
            state.degradation_noticed_hours, state.degradation_count,
        )  # fmt: skip
        state.drain_at_hours[trial] = next_found
        if stop_mode < 0 or _free_spares(
            trial, state.spare_return_hours, state.spares_away, now
        ) < 1:
            if drain_later:
                pending_stop[trial] |= STOP_DRAIN
        else:
            stop = DRAIN_AT_ONCE
    elif has_random_saves and nxt.x_hang <= x_next:
        stop = SAVE_HANG  # the save hangs: the job is held until its timeout
    else:
        stop_mode = state.corruption_mode[trial]
        state.corruption_found_hours[trial] = np.inf
        stop = CORRUPTION_FOUND
        repair = state.corruption_repair_hours[trial]
    action = NEXT_STEP if stop == NO_STOP_KIND else GO_ON
    return action, Event(np.int64(stop), np.int64(stop_mode), np.int64(-1), repair,
                         x_next, False, 0.0, np.inf), clock, booked, sources  # fmt: skip


@walk_phase
def draw_failure(
    has_trace: bool, has_detection: bool, has_fail_slow: bool, trial: int,
    clock: TrialClock, nxt: NextEvent, sources: Sources, modes: CompiledModes,
    window: EventWindow, state: TrialState, trace: TraceBuffer, job: CompiledJob,
) -> tuple[Event, Sources]:  # fmt: skip
    """The failure at ``nxt.e_fail``, taken from its source: the on-the-fly stream
    (Walker's alias method: one uniform picks a column, its fraction the mode; another
    the repair; then the next gap) or the window's next pre-drawn event; and when it is
    found (one uniform more where its detector may miss it: ``recall``), and how long a
    fail-slow episode lasts (one more where it may pass: ``episode``).

    Returns
    -------
    (Event, Sources)
        The failure (a FAILURE stop if fatal), and the sources past it.

    Other Parameters
    ----------------
    has_trace, has_detection, has_fail_slow, trial, clock, nxt, sources, modes, window,
    state, trace, job
        As for every phase (:mod:`relplan.sim.walk`).
    """
    words, pointer = sources.words, sources.pointer
    next_exponential_hours = sources.next_exponential_hours
    e_fail = nxt.e_fail
    removed = False
    if nxt.e_exp <= nxt.e_win:
        exponential_modes = modes.exponential_modes
        u, words = uniform_from_words(words)
        pick = u * exponential_modes.size
        column = min(int(pick), exponential_modes.size - 1)
        if pick - column < modes.exponential_probability[column]:
            mode = exponential_modes[column]
        else:
            mode = modes.exponential_alias[column]
        u, words = uniform_from_words(words)
        repair = duration_from_uniform(
            modes.repair_kind[mode], modes.repair_scale_hours[mode], modes.repair_shape[mode], u
        ) + modes.repair_burn_in_hours[mode]
        gap, words = exponential_from_words(words)
        next_exponential_hours = nxt.e_exp + gap / modes.exponential_rate_per_hour
    else:
        mode = window.event_mode[pointer]
        repair = window.event_repair_hours[pointer]
        removed = window.event_removes.size > 0 and window.event_removes[pointer]
        pointer += 1
    state.failures_by_mode[trial, mode] += 1
    impact = modes.impact[mode]
    if removed:  # the unit leaves the fleet: never back
        if impact == FATAL or impact == DEGRADED or impact == ELASTIC:
            repair = np.inf
        else:
            removed = False
    if (impact == DEGRADED or impact == ELASTIC) and (
        state.degradations_by_row[trial, mode] >= modes.survivable_count[mode]
    ):
        impact = FATAL  # nothing left to run on (every spine, too many replicas)
    if impact == ELASTIC and modes.needs_spare[mode] and (
        not modes.uses_spares[mode] or _free_spares(
            trial, state.spare_return_hours, state.spares_away, e_fail + clock.idle
        ) < modes.spares_needed[mode]
    ):  # fmt: skip
        impact = FATAL  # live migration with no hot spare free: a restart instead
    if impact == PREEMPTION:  # saved on its notice (a pause, running only), or a crash
        saved = False
        if clock.phase == RUNNING and job.preempt_save_probability > 0.0:
            u, words = uniform_from_words(words)
            saved = u < job.preempt_save_probability
        if not saved:
            impact = FATAL
    detect = modes.detect_hours[mode]
    if has_detection and modes.recall[mode] < 1.0:  # the detector may miss it: found late
        u, words = uniform_from_words(words)
        if u >= modes.recall[mode]:
            detect = modes.late_detect_hours[mode]
    lasts = np.inf
    if has_fail_slow and impact == SLOW and modes.episode_kind[mode] >= 0:  # it may pass
        u, words = uniform_from_words(words)
        lasts = duration_from_uniform(modes.episode_kind[mode], modes.episode_scale_hours[mode],
                                      modes.episode_shape[mode], u)  # fmt: skip
    if has_trace and trial == trace.trial:
        _emit(trace, e_fail + clock.idle, e_fail + clock.idle, TRACE_FAILURE,
              mode, impact, 0.0)  # fmt: skip
    stop = FAILURE if impact == FATAL else NO_STOP_KIND
    return (Event(np.int64(stop), np.int64(mode), np.int64(impact), repair, e_fail, removed,
                  detect, lasts), Sources(words, next_exponential_hours, pointer))  # fmt: skip
