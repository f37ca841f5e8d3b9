"""Phase of the walk: failures the job runs on through (degraded, slow, elastic and
transient stalls), and the ends of degradations."""

from __future__ import annotations

import numpy as np

from relplan.sim.compiled import (
    DEGRADED,
    DRAIN_NEVER,
    ELASTIC,
    PREEMPTION,
    RESTARTING,
    RUNNING,
    SLOW,
    STOP_EVICTION,
    TRACE_RESTART,
    TRACE_STALL,
    TRANSIENT,
    CompiledJob,
    CompiledModes,
    HeldHours,
    TraceBuffer,
    TrialState,
)
from relplan.sim.walk.degraded_units import _current_slowdown, _is_slow_row
from relplan.sim.walk.emit import _emit
from relplan.sim.walk.held import _hold_hours
from relplan.sim.walk.jit import walk_phase
from relplan.sim.walk.preemption import pause_for_preemption
from relplan.sim.walk.segments import _init_part, completed_segments, segments_time
from relplan.sim.walk.spares import _crew_repair, _spare_wait
from relplan.sim.walk.values import BookedHours, Event, NextEvent, TrialClock


@walk_phase
def end_degradation(
    has_drain: bool, has_fail_slow: bool, trial: int, first_deg: int, job: CompiledJob,
    modes: CompiledModes, state: TrialState,
) -> float:  # fmt: skip
    """End degradation ``first_deg`` of the trial's list (its unit repaired, its soft
    phase over, a fail-slow episode passed): it leaves the list. The last fail-slow
    episode to pass takes its pending eviction with it.

    Parameters
    ----------
    trial, first_deg : int
        The trial, and the index of the degradation in its list.

    Returns
    -------
    float
        The step-time ratio of the degradations left.

    Other Parameters
    ----------------
    has_drain, has_fail_slow, trial, job, modes, state
        As for every phase (:mod:`relplan.sim.walk`).
    """
    degradation_end = state.degradation_end_hours
    degradation_row = state.degradation_row
    row = degradation_row[trial, first_deg]
    last = state.degradation_count[trial] - 1
    degradation_end[trial, first_deg] = degradation_end[trial, last]
    degradation_row[trial, first_deg] = degradation_row[trial, last]
    if has_drain and job.drains:
        noticed = state.degradation_noticed_hours
        noticed[trial, first_deg] = noticed[trial, last]
    state.degradation_count[trial] = last
    state.degradations_by_row[trial, row] -= 1
    n_modes = modes.impact.shape[0]
    if has_fail_slow and _is_slow_row(row, modes.impact):
        slow_left = 0
        for mode in range(n_modes):
            if modes.impact[mode] == SLOW:  # in, or in re-routed
                slow_left += (state.degradations_by_row[trial, mode]
                              + state.degradations_by_row[trial, n_modes + mode])
        if slow_left == 0:  # the episode passed before its eviction: none
            state.evict_at_hours[trial] = np.inf
            state.pending_stop[trial] &= ~STOP_EVICTION
    return _current_slowdown(trial, state.degradations_by_row, modes.slowdown_table)


@walk_phase
def strike_slow(
    trial: int, event: Event, slowdown: float, idle: float, modes: CompiledModes,
    state: TrialState,
) -> float:  # fmt: skip
    """A fail-slow unit: the job runs at its pace until a detector notices it (``detect``
    later) and evicts it, at once or, with the ladder (``mitigation = "ladder"``), once
    it has been tolerated for the break-even time, re-routed first if the ladder has
    that rung (:func:`reroute_slow_units`); a second one meanwhile is evicted with the
    first. An episode that passes first (``episode``) ends the slowdown and
    the eviction with it (:func:`end_degradation`).

    Parameters
    ----------
    idle : float
        The trial's wall time beyond its exposure, hours (an episode ends on the wall
        clock).

    Returns
    -------
    float
        The step-time ratio, with the slow unit.

    Other Parameters
    ----------------
    trial, event, slowdown, modes, state
        As for every phase (:mod:`relplan.sim.walk`).
    """
    mode = event.mode
    k = state.degradation_count[trial]
    if k >= state.degradation_end_hours.shape[1]:
        state.overflow[0] = True
        return slowdown
    state.degradation_end_hours[trial, k] = event.at + idle + event.lasts  # inf: evicted
    state.degradation_row[trial, k] = mode
    state.degradation_count[trial] = k + 1
    state.degradations_by_row[trial, mode] += 1
    slowdown = _current_slowdown(trial, state.degradations_by_row, modes.slowdown_table)
    if state.evict_at_hours[trial] == np.inf and not state.pending_stop[trial] & STOP_EVICTION:
        reroute_after = modes.reroute_after_hours[mode]
        state.evict_at_hours[trial] = event.at + event.detect + min(
            reroute_after, modes.tolerate_hours[mode])
        state.reroute_pending[trial] = reroute_after < modes.tolerate_hours[mode]
        state.evict_mode[trial] = mode
        state.evict_repair_hours[trial] = event.repair
    return slowdown


@walk_phase
def reroute_slow_units(trial: int, mode: int, modes: CompiledModes, state: TrialState) -> float:
    """The fail-slow ladder's middle rung: the slow units of ``mode`` in the job are
    re-routed around (their stall booked by :func:`keep_running`), and slow it from now
    on at the re-routed slowdown, their soft row of the slowdown table, until their
    episode passes or they are evicted.

    Returns
    -------
    float
        The step-time ratio, re-routed.

    Other Parameters
    ----------------
    trial, mode, modes, state
        As for every phase (:mod:`relplan.sim.walk`).
    """
    rerouted = modes.impact.shape[0] + mode
    for k in range(state.degradation_count[trial]):
        if state.degradation_row[trial, k] == mode:
            state.degradation_row[trial, k] = rerouted
            state.degradations_by_row[trial, mode] -= 1
            state.degradations_by_row[trial, rerouted] += 1
    return _current_slowdown(trial, state.degradations_by_row, modes.slowdown_table)


@walk_phase
def keep_running(
    has_trace: bool, has_drain: bool, has_preemption: bool, trial: int, clock: TrialClock,
    booked: BookedHours, held: HeldHours, nxt: NextEvent, event: Event, slowdown: float,
    job: CompiledJob, modes: CompiledModes, state: TrialState, trace: TraceBuffer,
) -> tuple[TrialClock, BookedHours, HeldHours, float]:  # fmt: skip
    """A degraded, transient or elastic failure: the job keeps its progress. A transient
    one (failover) or an elastic one (detection and reconfiguration) stalls the job, and
    pauses a restart; stalls that overlap count their union. In-process recovery redoes
    the interrupted step. Then the job runs slowed: until the unit's repair (degraded),
    for the soft phase (transient), until a replacement rejoins (elastic); re-routed,
    after the stall of the fail-slow ladder's middle rung (an event of impact ``SLOW``
    from :func:`.arrival.planned_event`: a drawn slow failure never gets here). A preemption
    saved on its notice pauses the job (:func:`.preemption.pause_for_preemption`).

    Returns
    -------
    (TrialClock, BookedHours, HeldHours, float)
        And the step-time ratio.

    Other Parameters
    ----------------
    has_trace, has_drain, has_preemption, trial, clock, booked, held, nxt, event,
    slowdown, job, modes, state, trace
        As for every phase (:mod:`relplan.sim.walk`).
    """
    if has_preemption and event.impact == PREEMPTION:
        clock, booked = pause_for_preemption(has_trace, trial, clock, booked, event, job,
                                             state, trace)  # fmt: skip
        return clock, booked, held, slowdown
    mode, impact, at, idle = event.mode, event.impact, event.at, clock.idle
    phase, phase_start = clock.phase, clock.phase_start
    run_progress, restart_done = clock.run_progress, clock.restart_done
    restart, restart_init = booked.restart, booked.restart_init
    rework, stall = booked.rework, booked.stall
    start_index, left = nxt.start_index, nxt.left
    duration = event.repair
    table_row = mode
    # the end of this failure's own stall (exposure), from which a soft phase or a
    # shrunk run is timed
    begin = at
    if impact == ELASTIC or impact == TRANSIENT or impact == SLOW:
        begin = at + modes.stall_hours[mode]  # nothing progresses, a restart neither
        if phase == RESTARTING and at > phase_start:  # the restart pauses: bank it
            restart += at - phase_start
            restart_init += _init_part(restart_done, restart_done + at - phase_start,
                                       job.restart_init_hours)  # fmt: skip
            restart_done += at - phase_start
            if has_trace and trial == trace.trial:
                _emit(trace, phase_start + idle, at + idle, TRACE_RESTART, 0.0, 0.0, 0.0)
            phase_start = at
        # phase_start >= at now: the end of a stall in progress, if any; this one adds
        # what reaches beyond it
        if begin > phase_start:
            added = begin - phase_start
            stall += added
            at_progress = -1.0  # none: restarting
            if phase == RUNNING:
                at_progress = run_progress
                segment_number = start_index + 1 + completed_segments(
                    job, start_index, at_progress, left
                )
                held = _hold_hours(held, segment_number, 0.0, added, job.durable_every)
            if has_trace and trial == trace.trial:
                _emit(trace, phase_start + idle, begin + idle, TRACE_STALL, mode, at_progress,
                      start_index)  # fmt: skip
            phase_start = begin
    if modes.rework_hours[mode] > 0.0 and phase == RUNNING:
        # in-process recovery redoes the interrupted step (not beyond the last
        # checkpoint, which ends a step)
        into = run_progress - segments_time(
            job, start_index, completed_segments(job, start_index, run_progress, left),
        )  # fmt: skip
        lost = min(modes.rework_hours[mode], into)
        run_progress -= lost
        rework += lost
    clock = TrialClock(phase, clock.exposure_hours, phase_start, run_progress, restart_done,
                       clock.restart_length, clock.committed, clock.durable, idle,
                       clock.wall_hours)  # fmt: skip
    booked = BookedHours(booked.useful, rework, booked.checkpoint, booked.detect, restart,
                         booked.waiting, booked.degraded, stall, booked.maintenance,
                         restart_init)  # fmt: skip
    if impact == SLOW:  # the ladder's re-route (a planned event): the stall, then this
        return clock, booked, held, reroute_slow_units(trial, mode, modes, state)
    repair = event.repair
    if job.repair_crews > 0 and (impact == DEGRADED or impact == ELASTIC) and (
        not modes.self_healing[mode]
    ):  # the unit's repair waits for a crew ([repair] crews)
        repair = _crew_repair(trial, state.crew_free_hours, state.crew_wait_hours,
                              state.crew_repairs, begin + idle, repair)  # fmt: skip
        duration = repair
    if impact == ELASTIC:
        wait = repair
        if modes.uses_spares[mode]:
            wait = _spare_wait(trial, modes.spares_needed[mode], modes.spare_domain[mode],
                               state.spare_return_hours, state.spares_away,
                               state.spare_domain_return_hours, state.spare_domains_away,
                               state.spares_used, begin + idle, repair)  # fmt: skip
        duration = wait + modes.soft_hours[mode]  # soft hours: the rejoin
    elif impact == TRANSIENT:
        duration = modes.soft_hours[mode]
        table_row = modes.impact.shape[0] + mode  # the soft rows follow the repair rows
    k = state.degradation_count[trial]
    if duration <= 0.0:  # over at once (a hot spare took the replica's place)
        return clock, booked, held, slowdown
    if k >= state.degradation_end_hours.shape[1]:
        state.overflow[0] = True
        return clock, booked, held, slowdown
    state.degradation_end_hours[trial, k] = begin + idle + duration
    state.degradation_row[trial, k] = table_row
    if has_drain and impact == DEGRADED and modes.drain[mode] != DRAIN_NEVER:
        # a server running degraded: found `detect` of running later
        found = at + event.detect
        state.degradation_noticed_hours[trial, k] = found
        state.drain_at_hours[trial] = min(state.drain_at_hours[trial], found)
    state.degradation_count[trial] = k + 1
    state.degradations_by_row[trial, table_row] += 1
    slowdown = _current_slowdown(trial, state.degradations_by_row, modes.slowdown_table)
    return clock, booked, held, slowdown
