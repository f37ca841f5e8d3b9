"""Phase of the walk: a trial's entries read at its start and written back at its stop,
and the hours booked when its phase or its calendar window ends."""

from __future__ import annotations

import numpy as np

from relplan.sim.compiled import (
    FINISHED,
    NO_STOP,
    RESTARTING,
    RUNNING,
    TRACE_FINISH,
    TRACE_RESTART,
    CompiledJob,
    CompiledModes,
    HeldHours,
    TraceBuffer,
    TrialState,
    TrialStreams,
)
from relplan.sim.rng import exponential_from_words, load_words, store_words, trial_words
from relplan.sim.walk.degraded_units import _current_slowdown
from relplan.sim.walk.emit import _emit
from relplan.sim.walk.jit import walk_phase
from relplan.sim.walk.saves import next_hang, unspent_write
from relplan.sim.walk.segments import _init_part, completed_segments, segments_time
from relplan.sim.walk.values import (
    B_CHECKPOINT,
    B_DEGRADED,
    B_DETECT,
    B_MAINTENANCE,
    B_RESTART,
    B_REWORK,
    B_STALL,
    B_USEFUL,
    B_WAITING,
    BookedHours,
    NextEvent,
    Sources,
    TrialClock,
)


@walk_phase
def start_trial(
    has_degradations: bool, has_drain: bool, has_random_saves: bool, trial: int,
    fresh: bool, pointer: int, job: CompiledJob, modes: CompiledModes,
    streams: TrialStreams, state: TrialState,
) -> tuple[TrialClock, BookedHours, HeldHours, Sources, float]:  # fmt: skip
    """A trial's own entries, as local values while it is walked (kept in registers or on
    the stack, not reloaded from their arrays after every store to another array). A
    fresh trial starts from :meth:`TrialState.at_start`'s values without reading them
    (fewer cache lines: most trials are walked once): its entries are set here, and its
    stream's first failure is drawn first.

    Parameters
    ----------
    fresh : bool
        Whether it has not been walked yet.
    pointer : int
        Its first pre-drawn event in the window.

    Returns
    -------
    (TrialClock, BookedHours, HeldHours, Sources, float)
        And the step-time ratio of its degradations in progress.

    Other Parameters
    ----------------
    has_degradations, has_drain, has_random_saves, trial, job, modes, streams, state
        As for every phase (:mod:`relplan.sim.walk`).
    """
    slowdown = 1.0
    if not fresh:
        words = load_words(streams.rng_state, trial)
        buckets = state.bucket_hours
        if state.degradation_count[trial] > 0:
            slowdown = _current_slowdown(trial, state.degradations_by_row, modes.slowdown_table)
        return (
            TrialClock(np.int64(state.phase[trial]), state.exposure_hours[trial],
                       state.phase_start_hours[trial], state.run_progress_hours[trial],
                       state.restart_done_hours[trial], state.restart_hours[trial],
                       np.int64(state.committed_checkpoints[trial]),
                       np.int64(state.durable_checkpoint[trial]), state.idle_hours[trial],
                       state.wall_hours[trial]),
            BookedHours(buckets[trial, B_USEFUL], buckets[trial, B_REWORK],
                        buckets[trial, B_CHECKPOINT], buckets[trial, B_DETECT],
                        buckets[trial, B_RESTART], buckets[trial, B_WAITING],
                        buckets[trial, B_DEGRADED], buckets[trial, B_STALL],
                        buckets[trial, B_MAINTENANCE], state.restart_init_hours[trial]),
            HeldHours(state.rollback_segment[trial], state.rollback_degraded_hours[trial],
                      state.rollback_stall_hours[trial], state.fast_tier_durable[trial],
                      state.fast_tier_degraded_hours[trial],
                      state.fast_tier_stall_hours[trial]),
            Sources(words, streams.next_exponential_hours[trial], pointer),
            slowdown,
        )  # fmt: skip
    words = trial_words(streams.key, trial)
    next_exponential_hours = np.inf
    if modes.exponential_rate_per_hour > 0.0:
        gap, words = exponential_from_words(words)
        next_exponential_hours = gap / modes.exponential_rate_per_hour
    if has_random_saves and job.save_hang > 0.0:  # the first run's save that hangs
        state.hang_checkpoint[trial], words = next_hang(0, words, job)
    if has_random_saves and job.walks_saves:
        state.next_save[trial] = 1  # the first save, its write drawn
        state.writing_checkpoint[trial] = 0
        state.write_held_hours[trial] = 0.0
        state.fast_tier_write_hours[trial] = 0.0
        state.fast_tier_write_durable[trial] = 0
    for column in range(modes.impact.shape[0]):
        state.failures_by_mode[trial, column] = 0
        state.interruptions_by_mode[trial, column] = 0
    if has_degradations:  # read only by degraded, elastic and slow modes
        for column in range(state.degradations_by_row.shape[1]):
            state.degradations_by_row[trial, column] = 0
    state.degradation_count[trial] = 0
    state.spares_away[trial] = 0
    state.spare_domains_away[trial] = 0
    state.spare_pool_away[trial] = 0
    state.spares_used[trial] = 0
    state.maintenances[trial] = 0
    state.drains[trial] = 0
    state.depleted[trial] = False
    state.pending_stop[trial] = NO_STOP
    state.next_maintenance_hours[trial] = job.maintenance_every_hours  # inf: no window
    state.evict_at_hours[trial] = np.inf
    for crew in range(state.crew_free_hours.shape[1]):  # [repair] crews: all free
        state.crew_free_hours[trial, crew] = 0.0
    if has_drain:
        state.drain_at_hours[trial] = np.inf
    state.corruption_found_hours[trial] = np.inf
    state.undetected_checkpoint[trial] = -1
    burn_in = job.burn_in_hours  # the job waits for its burn-in (off the exposure clock)
    return (TrialClock(np.int64(RUNNING), 0.0, 0.0, 0.0, 0.0, 0.0, np.int64(0), np.int64(0),
                       burn_in, 0.0),
            BookedHours(0.0, 0.0, 0.0, 0.0, 0.0, burn_in, 0.0, 0.0, 0.0, 0.0),
            HeldHours(0, 0.0, 0.0, 0, 0.0, 0.0),
            Sources(words, next_exponential_hours, pointer),
            slowdown)  # fmt: skip


@walk_phase
def store_trial(
    trial: int, clock: TrialClock, booked: BookedHours, held: HeldHours, sources: Sources,
    steps: int, streams: TrialStreams, state: TrialState,
) -> None:  # fmt: skip
    """Write a trial's entries back when it stops: what the outcomes read, and, unless it
    finished, where it stands (the next window goes on from there).

    Other Parameters
    ----------------
    trial, clock, booked, held, sources, steps, streams, state
        As for every phase (:mod:`relplan.sim.walk`).
    """
    buckets = state.bucket_hours
    state.phase[trial] = clock.phase
    state.restart_init_hours[trial] = booked.restart_init
    state.wall_hours[trial] = clock.wall_hours
    buckets[trial, B_USEFUL] = booked.useful
    buckets[trial, B_REWORK] = booked.rework
    buckets[trial, B_CHECKPOINT] = booked.checkpoint
    buckets[trial, B_DETECT] = booked.detect
    buckets[trial, B_RESTART] = booked.restart
    buckets[trial, B_WAITING] = booked.waiting
    buckets[trial, B_DEGRADED] = booked.degraded
    buckets[trial, B_STALL] = booked.stall
    buckets[trial, B_MAINTENANCE] = booked.maintenance
    state.events_walked[trial] = steps
    if clock.phase != FINISHED:  # the next window goes on from here
        store_words(streams.rng_state, trial, sources.words)
        state.exposure_hours[trial] = clock.exposure_hours
        state.phase_start_hours[trial] = clock.phase_start
        state.run_progress_hours[trial] = clock.run_progress
        state.restart_done_hours[trial] = clock.restart_done
        state.restart_hours[trial] = clock.restart_length
        state.committed_checkpoints[trial] = clock.committed
        state.durable_checkpoint[trial] = clock.durable
        state.idle_hours[trial] = clock.idle
        streams.next_exponential_hours[trial] = sources.next_exponential_hours
        state.rollback_segment[trial] = held.segment
        state.rollback_degraded_hours[trial] = held.degraded_hours
        state.rollback_stall_hours[trial] = held.stall_hours
        state.fast_tier_durable[trial] = held.fast_tier_durable
        state.fast_tier_degraded_hours[trial] = held.fast_tier_degraded_hours
        state.fast_tier_stall_hours[trial] = held.fast_tier_stall_hours


@walk_phase
def end_phase(
    has_trace: bool, trial: int, clock: TrialClock, booked: BookedHours, nxt: NextEvent,
    job: CompiledJob, trace: TraceBuffer,
) -> tuple[TrialClock, BookedHours]:  # fmt: skip
    """The phase ends at ``nxt.x_next``: a restart (the job runs from its checkpoint), or
    the run, and with it the job (FINISHED: its last segments booked useful and
    checkpoint).

    Returns
    -------
    (TrialClock, BookedHours)
        RUNNING after a restart, else FINISHED with the job done.

    Other Parameters
    ----------------
    has_trace, trial, clock, booked, nxt, job, trace
        As for every phase (:mod:`relplan.sim.walk`).
    """
    x_next, idle = nxt.x_next, clock.idle
    if clock.phase == RESTARTING:
        if has_trace and trial == trace.trial:
            _emit(trace, clock.phase_start + idle, x_next + idle, TRACE_RESTART, 0.0, 0.0, 0.0)
        return (TrialClock(np.int64(RUNNING), clock.exposure_hours, x_next, 0.0, 0.0,
                           clock.restart_length, clock.committed, clock.durable, idle,
                           clock.wall_hours),
                BookedHours(booked.useful, booked.rework, booked.checkpoint, booked.detect,
                            booked.restart + (clock.restart_length - clock.restart_done),
                            booked.waiting, booked.degraded, booked.stall,
                            booked.maintenance,
                            booked.restart_init + _init_part(clock.restart_done,
                                                             clock.restart_length,
                                                             job.restart_init_hours)))  # fmt: skip
    left = nxt.left
    segment = job.segment_hours
    wall_hours = x_next + idle
    if has_trace and trial == trace.trial:
        _emit(trace, wall_hours, wall_hours, TRACE_FINISH, 0.0, 0.0, 0.0)
    return (TrialClock(np.int64(FINISHED), clock.exposure_hours, clock.phase_start,
                       clock.run_progress, clock.restart_done, clock.restart_length,
                       np.int64(job.total_segments), clock.durable, idle, wall_hours),
            BookedHours(booked.useful + (left * segment + job.last_segment_work_hours),
                        booked.rework,
                        booked.checkpoint + (segments_time(job, nxt.start_index, left)
                                             - (left * segment)),
                        booked.detect, booked.restart, booked.waiting, booked.degraded,
                        booked.stall, booked.maintenance, booked.restart_init))  # fmt: skip


@walk_phase
def end_at_horizon(
    has_trace: bool, has_random_saves: bool, trial: int, clock: TrialClock,
    booked: BookedHours, nxt: NextEvent, job: CompiledJob, state: TrialState,
    trace: TraceBuffer,
) -> tuple[TrialClock, BookedHours]:  # fmt: skip
    """The calendar window ends: book what is under way up to it (a stall or a drawn
    write's hold reaching beyond it cut; a restart's part; a run's progress since the
    restart counts as done, compute and writes), and finish.

    Returns
    -------
    (TrialClock, BookedHours)
        FINISHED.

    Other Parameters
    ----------------
    has_trace, has_random_saves, trial, clock, booked, nxt, job, state, trace
        As for every phase (:mod:`relplan.sim.walk`).
    """
    x_horizon = nxt.x_horizon
    phase_start = clock.phase_start
    useful, checkpoint, stall = booked.useful, booked.checkpoint, booked.stall
    restart, restart_init = booked.restart, booked.restart_init
    committed = clock.committed
    if phase_start > x_horizon:  # a stall reaching beyond it
        cut = phase_start - x_horizon
        if has_random_saves and job.walks_saves:  # a drawn write's hold first, then stalls after it
            write_cut = min(unspent_write(trial, x_horizon, state), cut)
            checkpoint -= write_cut
            cut -= write_cut
        stall -= cut
    elif clock.phase == RESTARTING:
        restart += x_horizon - phase_start
        restart_init += _init_part(clock.restart_done,
                                   clock.restart_done + x_horizon - phase_start,
                                   job.restart_init_hours)  # fmt: skip
        if has_trace and trial == trace.trial:
            _emit(trace, phase_start + clock.idle, job.horizon_hours,
                  TRACE_RESTART, 0.0, 0.0, 0.0)  # fmt: skip
    if clock.phase == RUNNING:
        segment = job.segment_hours
        elapsed = clock.run_progress
        done = completed_segments(job, nxt.start_index, elapsed, nxt.left)
        done_time = segments_time(job, nxt.start_index, done)
        into = elapsed - done_time
        compute_into = into if done == nxt.left else min(into, segment)
        useful += done * segment + compute_into
        checkpoint += done_time - done * segment + (into - compute_into)
        committed += done
    if has_trace and trial == trace.trial:
        _emit(trace, job.horizon_hours, job.horizon_hours, TRACE_FINISH, 0.0, 0.0, 0.0)
    return (TrialClock(np.int64(FINISHED), clock.exposure_hours, phase_start,
                       clock.run_progress, clock.restart_done, clock.restart_length,
                       np.int64(committed), clock.durable, clock.idle, job.horizon_hours),
            BookedHours(useful, booked.rework, checkpoint, booked.detect, restart,
                        booked.waiting, booked.degraded, stall, booked.maintenance,
                        restart_init))  # fmt: skip
