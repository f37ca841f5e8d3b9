"""Phase of the walk: the job down after a stop (detection, a maintenance window, a
replacement or a repair, failures meanwhile, drains), then its restart."""

from __future__ import annotations

import math

import numpy as np

from relplan.sim.compiled import (
    FINISHED,
    RESTARTING,
    RUNNING,
    SLOW,
    STOP_DRAIN,
    STOP_EVICTION,
    STOP_MAINTENANCE,
    TRACE_DETECT,
    TRACE_FINISH,
    TRACE_MAINTENANCE,
    TRACE_RESTART,
    TRACE_WAIT,
    CompiledJob,
    CompiledModes,
    EventWindow,
    TraceBuffer,
    TrialState,
    TrialStreams,
)
from relplan.sim.rng import (
    drawn_duration,
    load_words,
    store_words,
    uniform_from_words,
)
from relplan.sim.walk.degraded_units import _drain_servers, _end_slow_degradations
from relplan.sim.walk.emit import _emit
from relplan.sim.walk.idle import _idle_failures
from relplan.sim.walk.jit import walk_phase
from relplan.sim.walk.segments import _init_part, _init_part_cold, _windows_before
from relplan.sim.walk.spares import _crew_repair, _free_spares, _replacement_wait
from relplan.sim.walk.taking import note_running_from, take_server
from relplan.sim.walk.values import (
    CORRUPTION_FOUND,
    DRAIN_AT_ONCE,
    EVICT_NOW,
    FAILURE,
    MAINTENANCE_NOW,
    SAVE_HANG,
    SERVER_TAKEN,
    BookedHours,
    Event,
    Sources,
    TrialClock,
)


@walk_phase
def replacement(
    has_fail_slow: bool, has_maintenance: bool, has_spare_pool: bool,
    has_fleet_preemption: bool, trial: int,
    clock: TrialClock, event: Event, job: CompiledJob, modes: CompiledModes,
    state: TrialState,
) -> tuple[float, float, float]:  # fmt: skip
    """The job down after a stop: detection (a failure; a hung save's timeout), a
    maintenance window (one now, or one that waited for a checkpoint: it does not outlive
    a crash), and the wait for a replacement of the unit (a free spare, one of the second
    tier after its swap, the first back from repair) or its repair, unless a fleet's job
    takes a server from a job of lower priority instead (:mod:`.taking`); the wait for
    a server taken by such a job; the evictions that waited for a checkpoint.

    Returns
    -------
    (float, float, float)
        Hours of detection, of maintenance and of waiting beyond the maintenance.

    Other Parameters
    ----------------
    has_fail_slow, has_maintenance, has_spare_pool, has_fleet_preemption, trial, clock,
    event, job, modes, state
        As for every phase (:mod:`relplan.sim.walk`).
    """
    stop, repair = event.stop, event.repair
    detect = 0.0
    planned = 0.0
    wait = 0.0
    replaced = -1
    pending_stop = state.pending_stop
    if stop == FAILURE:
        detect = event.detect
        replaced = event.mode
    elif stop == SAVE_HANG:  # held until the save times out; nothing to replace
        detect = job.save_timeout_hours
    elif stop == EVICT_NOW or stop == CORRUPTION_FOUND:
        replaced = event.mode
    elif stop == MAINTENANCE_NOW:
        planned = job.maintenance_hours
        state.maintenances[trial] += 1
    elif stop == DRAIN_AT_ONCE:
        pass  # the degraded servers found go (wait_while_down); free spares come in
    elif stop == SERVER_TAKEN:
        wait = repair  # for the replacement of the server taken
    else:  # at a checkpoint: the evictions that waited for it
        if has_fail_slow and pending_stop[trial] & STOP_EVICTION:
            replaced = state.evict_mode[trial]
            repair = state.evict_repair_hours[trial]
            state.interruptions_by_mode[trial, replaced] += 1
        pending_stop[trial] &= ~STOP_EVICTION
    if has_maintenance and pending_stop[trial] & STOP_MAINTENANCE:
        planned = job.maintenance_hours
        state.maintenances[trial] += 1
        pending_stop[trial] &= ~STOP_MAINTENANCE
    if replaced >= 0:
        if has_fail_slow and modes.impact[replaced] == SLOW:
            _end_slow_degradations(
                trial, state.degradation_end_hours, state.degradation_row,
                state.degradation_noticed_hours, state.degradation_count,
                state.degradations_by_row, modes.impact,
            )  # fmt: skip
        noticed = event.at + clock.idle + detect
        if job.repair_crews > 0 and not modes.self_healing[replaced]:
            repair = _crew_repair(trial, state.crew_free_hours, state.crew_wait_hours,
                                  state.crew_repairs, noticed, repair)  # fmt: skip
        wait = repair
        if modes.self_healing[replaced]:  # back by itself `repair` after it
            wait = max(0.0, repair - detect)
        elif modes.uses_spares[replaced]:
            needed = modes.spares_needed[replaced]
            pool_return_hours = state.spare_pool_return_hours
            if has_spare_pool and pool_return_hours.shape[1] >= needed and (
                job.spare_pool_swap_hours < repair
            ) and (not modes.spare_domain[replaced]) and _free_spares(
                trial, state.spare_return_hours, state.spares_away, noticed
            ) < needed and _free_spares(
                trial, pool_return_hours, state.spare_pool_away, noticed
            ) >= needed:
                # no warm spare free: one of the second tier, after its swap
                _replacement_wait(trial, pool_return_hours, state.spare_pool_away,
                                  noticed, repair, needed)  # fmt: skip
                state.spares_used[trial] += needed
                wait = job.spare_pool_swap_hours
            else:  # _spare_wait, with only the pool it draws from
                if modes.spare_domain[replaced]:
                    wait = _replacement_wait(trial, state.spare_domain_return_hours,
                                             state.spare_domains_away, noticed, repair)
                else:
                    wait = _replacement_wait(trial, state.spare_return_hours,
                                             state.spares_away, noticed, repair, needed)
                if wait < repair:
                    state.spares_used[trial] += needed
                if has_fleet_preemption and job.takes_servers and wait > 0.0 and (
                    needed == 1 and not modes.spare_domain[replaced]
                ) and take_server(trial, event.at + clock.idle, noticed + wait, job, state):
                    wait = 0.0  # a server taken from a job of lower priority
    return detect, planned, max(0.0, wait - planned)  # a replacement during the window


@walk_phase
def wait_while_down(
    has_idle_failures: bool, has_drain: bool, trial: int, clock: TrialClock, event: Event,
    detect: float, planned: float, wait: float, steps: int, words: tuple, job: CompiledJob,
    modes: CompiledModes, streams: TrialStreams, state: TrialState, cancel: np.ndarray,
) -> tuple[float, int, tuple]:  # fmt: skip
    """Failures of the on-the-fly modes while the job is down (``job.idle_failures``: the
    extra wait they cause), then the degraded servers found so far swapped for spares.

    Parameters
    ----------
    detect, planned, wait : float
        Hours down: detection, maintenance, waiting (:func:`replacement`).
    words : tuple
        The trial's random stream.

    Returns
    -------
    (float, int, tuple)
        The wait (hours), the steps and the stream.

    Other Parameters
    ----------------
    has_idle_failures, has_drain, trial, clock, event, steps, job, modes, streams, state,
    cancel
        As for every phase (:mod:`relplan.sim.walk`).
    """
    down = event.at + clock.idle
    if has_idle_failures and job.idle_failures and modes.exponential_rate_per_hour > 0.0 and (
        wait < np.inf
    ):
        state.events_walked[trial] = steps
        store_words(streams.rng_state, trial, words)  # the helper draws from it
        wait += _idle_failures(
            trial, down, detect + planned + wait, modes, streams.rng_state,
            state.failures_by_mode, state.degradation_end_hours, state.degradation_row,
            state.degradation_noticed_hours, state.degradation_count,
            state.degradations_by_row, state.overflow, state.spare_return_hours,
            state.spares_away, state.spare_domain_return_hours, state.spare_domains_away,
            state.spares_used, state.events_walked, job.max_events_per_trial, cancel,
        )  # fmt: skip
        steps = state.events_walked[trial]
        words = load_words(streams.rng_state, trial)
    if has_drain and job.drains:
        # the job is stopped: swap its degraded servers found so far (those that
        # degraded while it was down are found at the restart)
        _drain_servers(trial, down, event.at, modes.drain, modes.impact.shape[0],
                       state.degradation_end_hours, state.degradation_row,
                       state.degradation_noticed_hours, state.degradation_count,
                       state.degradations_by_row, state.spare_return_hours,
                       state.spares_away, state.spares_used, state.drains)  # fmt: skip
        state.pending_stop[trial] &= ~STOP_DRAIN
    return wait, steps, words


@walk_phase
def retry_restart(
    trial: int, event: Event, words: tuple, job: CompiledJob, state: TrialState,
) -> tuple[float, float, bool, tuple]:  # fmt: skip
    """The restart's failed attempts (``job.restart.success``, ``black_hole``): each
    attempt succeeds with probability ``p``, ``max_attempts`` of them in the job's
    allocation, then a requeue, up to ``max_requeues``; a black hole (only after a
    failure) fails every attempt of the first allocation. The failed attempts before
    the success are geometric, one uniform: ``floor(log(u) / log(1 - p))``.

    Parameters
    ----------
    words : tuple
        The trial's random stream.

    Returns
    -------
    (float, float, bool, tuple)
        Hours of failed attempts (their start-up), hours of requeue delays, whether the
        job failed for good, and the stream.

    Other Parameters
    ----------------
    trial, event, job, state
        As for every phase (:mod:`relplan.sim.walk`).
    """
    attempts = job.restart_max_attempts
    allocations = 1 + job.restart_max_requeues
    failed = 0  # failed attempts
    if job.black_hole > 0.0 and event.stop == FAILURE:
        u, words = uniform_from_words(words)
        if u < job.black_hole:  # the retries land on the same faulty server
            failed = attempts
            allocations -= 1
    gave_up = allocations == 0
    if not gave_up:
        more = 0.0
        if job.restart_success < 1.0:
            u, words = uniform_from_words(words)
            more = math.floor(math.log(u) / math.log1p(-job.restart_success))
        if more >= attempts * allocations:
            failed += attempts * allocations
            gave_up = True
        else:
            failed += int(more)
    requeues = failed // attempts
    if gave_up:
        requeues = job.restart_max_requeues  # the last allocation's failures end it
    state.restart_attempts[trial] += failed + (0 if gave_up else 1)
    state.requeues[trial] += requeues
    return (failed * job.restart_init_hours, requeues * job.requeue_delay_hours, gave_up,
            words)  # fmt: skip


@walk_phase
def book_downtime(
    has_trace: bool, has_maintenance: bool, has_random_restarts: bool,
    has_fleet_preemption: bool, trial: int, clock: TrialClock, booked: BookedHours,
    event: Event, detect: float, planned: float, wait: float, words: tuple, job: CompiledJob,
    state: TrialState, trace: TraceBuffer,
) -> tuple[TrialClock, BookedHours, tuple]:  # fmt: skip
    """Book the downtime (hours of detection, maintenance, waiting, failed restart
    attempts, and the restart if nothing fails during it) and start the restart;
    maintenance windows that fall while the job is down run alongside (only what the
    last reaches beyond counts). The trial finishes if its calendar window ends
    meanwhile, if no spare is left for a unit gone for good, or if its restarts failed
    for good.

    Parameters
    ----------
    detect, planned, wait : float
        Hours down (:func:`replacement`, :func:`wait_while_down`).
    words : tuple
        The trial's random stream (failed restart attempts draw from it:
        :func:`retry_restart`, after the waits; then a durable load drawn from its
        distribution or measured durations).

    Returns
    -------
    (TrialClock, BookedHours, tuple)
        Its phase FINISHED, RESTARTING or (the restart done while down) RUNNING; and the
        stream.

    Other Parameters
    ----------------
    has_trace, has_maintenance, has_random_restarts, has_fleet_preemption, trial, clock,
    booked, event, job, state, trace
        As for every phase (:mod:`relplan.sim.walk`).
    """
    retried = 0.0  # hours of failed attempts
    gave_up = False
    if has_random_restarts:
        retried, requeued, gave_up, words = retry_restart(trial, event, words, job, state)
        wait += requeued
    # the restart reads the newest checkpoint that held: the fast tier's, or the durable
    # store's
    restart_length = job.restart_hours
    if clock.committed > clock.durable:
        restart_length = job.fast_restart_hours
        if has_random_restarts and job.fast_load_kind >= 0:  # the fast tier's load, drawn
            u, words = uniform_from_words(words)
            restart_length = job.restart_init_hours + drawn_duration(
                job.fast_load_kind, job.fast_load_scale_hours, job.fast_load_shape,
                job.fast_load_samples, u)  # fmt: skip
    elif has_random_restarts and job.load_kind >= 0:  # the durable load, drawn
        u, words = uniform_from_words(words)
        restart_length = job.restart_init_hours + drawn_duration(
            job.load_kind, job.load_scale_hours, job.load_shape, job.load_samples, u)
    wall_horizon, every = job.horizon_hours, job.maintenance_every_hours
    next_maintenance = state.next_maintenance_hours
    # without failures during recovery the restart is off the exposure clock
    recover = 0.0 if job.failures_during_recovery else restart_length
    down = event.at + clock.idle
    stalled = event.removed and wait == np.inf
    if stalled:  # no spare left for a unit gone for good: the job stalls
        state.depleted[trial] = True
        recover = 0.0
        wait = 0.0  # it ends here, or waits to its calendar window's end
        retried = 0.0
        if wall_horizon < np.inf:
            wait = max(0.0, wall_horizon - (down + detect + planned))
    elif gave_up:  # every restart attempt failed: the job fails after them
        state.job_failed[trial] = True
        recover = 0.0
        if wall_horizon < np.inf:  # its calendar window runs on, idle (waiting)
            wait += max(0.0, wall_horizon - (down + detect + planned + wait + retried))
    ready = down + detect + planned + wait + retried  # the restart's start
    beyond = 0.0  # what the last window reaches beyond the downtime: last
    if has_maintenance and next_maintenance[trial] < ready + recover:
        # only the windows that start before the calendar window's end count
        overlapped = _windows_before(
            next_maintenance[trial], min(ready + recover, wall_horizon),
            every,
        )  # fmt: skip
        if overlapped > 0:
            state.maintenances[trial] += overlapped
            last_window = next_maintenance[trial] + (overlapped - 1) * every
            next_maintenance[trial] = last_window + every
            beyond = max(0.0, last_window + job.maintenance_hours
                         - (ready + recover))  # fmt: skip
    over = ready + recover - wall_horizon
    if has_maintenance:
        over += beyond
    if over > 0.0:  # the calendar window ends while the job is down: latest first
        if has_maintenance:  # the window's reach beyond
            cut = min(over, beyond)
            beyond -= cut
            over -= cut
        cut = min(over, recover)
        recover -= cut
        over -= cut
        cut = min(over, retried)
        retried -= cut
        over -= cut
        cut = min(over, wait)
        wait -= cut
        cut_planned = min(over - cut, planned)
        planned -= cut_planned
        detect -= over - cut - cut_planned
    if has_trace and trial == trace.trial:
        mode = event.mode
        _emit(trace, down, down + detect, TRACE_DETECT, mode, 0.0, 0.0)
        _emit(trace, down + detect, down + detect + planned, TRACE_MAINTENANCE, mode, 0.0, 0.0)
        _emit(trace, down + detect + planned, down + detect + planned + wait,
              TRACE_WAIT, mode, 0.0, 0.0)  # fmt: skip
        if retried > 0.0:  # failed restart attempts
            _emit(trace, down + detect + planned + wait,
                  down + detect + planned + wait + retried, TRACE_RESTART, 0.0, 0.0, 0.0)
        if has_maintenance and beyond > 0.0:
            _emit(trace, down + detect + planned + wait + retried,
                  down + detect + planned + wait + retried + beyond, TRACE_MAINTENANCE,
                  mode, 0.0, 0.0)  # fmt: skip
    if has_maintenance:
        planned += beyond
    restart, restart_init = booked.restart, booked.restart_init
    idle = clock.idle + (detect + planned + wait + retried)
    if not job.failures_during_recovery:  # the restart, done while nothing fails
        restart += recover
        restart_init += _init_part_cold(0.0, recover, job.restart_init_hours)
        if has_trace and trial == trace.trial and recover > 0.0:
            _emit(trace, event.at + idle, event.at + idle + recover,
                  TRACE_RESTART, 0.0, 0.0, 0.0)  # fmt: skip
        idle += recover
    booked = BookedHours(booked.useful, booked.rework, booked.checkpoint,
                         booked.detect + detect, restart + retried, booked.waiting + wait,
                         booked.degraded, booked.stall, booked.maintenance + planned,
                         restart_init + retried)  # fmt: skip
    phase = RESTARTING
    wall_hours = clock.wall_hours
    run_progress = clock.run_progress
    if over > 0.0 or stalled or gave_up:
        wall_hours = wall_horizon if over > 0.0 else event.at + idle
        phase = FINISHED
        if has_trace and trial == trace.trial:
            _emit(trace, wall_hours, wall_hours, TRACE_FINISH, 0.0, 0.0, 0.0)
    elif not job.failures_during_recovery:
        phase = RUNNING
        run_progress = 0.0
    if has_fleet_preemption:  # running again once restarted (inf: over)
        note_running_from(trial, np.inf if phase == FINISHED else event.at + idle + (
            restart_length if phase == RESTARTING else 0.0), job, state)
    return TrialClock(np.int64(phase), clock.exposure_hours, event.at, run_progress,
                      clock.restart_done, restart_length, clock.committed, clock.durable,
                      idle, wall_hours), booked, words  # fmt: skip


@walk_phase
def restart_first(
    has_maintenance: bool, has_fail_slow: bool, has_drain: bool, has_corruption: bool,
    has_degradations: bool, trial: int, clock: TrialClock, booked: BookedHours,
    sources: Sources, end: int, steps: int, job: CompiledJob, window: EventWindow,
    state: TrialState, cancel: np.ndarray,
) -> tuple[TrialClock, BookedHours, int]:  # fmt: skip
    """The fast path of a restart: it usually ends before anything else happens. Its end
    is then the next step, and it is booked here as that step would book it. Invariant:
    the step would find ``x_next`` at the restart's end (no failure, end of a
    degradation, calendar end or planned or delayed event before it), within the window
    and finite, under the step limit and not cancelled; otherwise nothing changes and
    the walk takes the step as usual.

    Returns
    -------
    (TrialClock, BookedHours, int)
        And the steps.

    Other Parameters
    ----------------
    has_maintenance, has_fail_slow, has_drain, has_corruption, has_degradations, trial,
    clock, booked, sources, end, steps, job, window, state, cancel
        As for every phase (:mod:`relplan.sim.walk`).
    """
    idle = clock.idle
    exposure = clock.exposure_hours
    x_restart_end = clock.phase_start + (clock.restart_length - clock.restart_done)
    pointer = sources.pointer
    if not (x_restart_end <= sources.next_exponential_hours and (
        pointer >= end or x_restart_end <= window.event_exposure_hours[pointer]
    ) and x_restart_end <= job.horizon_hours - idle and x_restart_end <= window.horizon_hours
            and (x_restart_end < np.inf) and steps < job.max_events_per_trial
            and not cancel[0]):  # fmt: skip
        return clock, booked, steps
    if has_maintenance and not state.pending_stop[trial] & STOP_MAINTENANCE and (
        max(state.next_maintenance_hours[trial] - idle, exposure) < x_restart_end
    ):  # fmt: skip
        return clock, booked, steps
    if has_fail_slow and state.evict_at_hours[trial] < x_restart_end:
        return clock, booked, steps
    if has_drain and state.drain_at_hours[trial] < x_restart_end:
        return clock, booked, steps
    if has_corruption and state.corruption_found_hours[trial] < x_restart_end:
        return clock, booked, steps
    if has_degradations:
        degradation_ends_first = False
        for k in range(state.degradation_count[trial]):
            x = max(state.degradation_end_hours[trial, k] - idle, exposure)
            if x < x_restart_end:
                degradation_ends_first = True
        if degradation_ends_first:
            return clock, booked, steps
    booked = BookedHours(booked.useful, booked.rework, booked.checkpoint, booked.detect,
                         booked.restart + (clock.restart_length - clock.restart_done),
                         booked.waiting, booked.degraded, booked.stall, booked.maintenance,
                         booked.restart_init + _init_part(clock.restart_done,
                                                          clock.restart_length,
                                                          job.restart_init_hours))  # fmt: skip
    return TrialClock(np.int64(RUNNING), x_restart_end, x_restart_end, 0.0, 0.0,
                      clock.restart_length, clock.committed, clock.durable, idle,
                      clock.wall_hours), booked, steps + 1  # fmt: skip
