"""Phase of the walk: a run's progress over checkpoint segments, and what a stop keeps of
it (the checkpoint it waited for, the last completed one, the retained durable one)."""

from __future__ import annotations

import numpy as np

from relplan.sim.compiled import (
    RESTARTING,
    RUNNING,
    TRACE_RESTART,
    TRACE_ROLLBACK,
    TRACE_RUN,
    TRACE_STOP,
    CompiledJob,
    CompiledModes,
    HeldHours,
    TraceBuffer,
    TrialState,
)
from relplan.sim.rng import uniform_from_words
from relplan.sim.walk.emit import _emit
from relplan.sim.walk.held import _hold_slowed_stretch, _settle_held_hours
from relplan.sim.walk.jit import walk_phase
from relplan.sim.walk.saves import good_checkpoint, next_hang, settle_write, unspent_write
from relplan.sim.walk.segments import (
    _completed_segments_cold,
    _init_part_cold,
    _retained_before,
    _segments_time_cold,
    completed_segments,
    completed_segments_after,
    progress_after,
)
from relplan.sim.walk.values import (
    CORRUPTION_FOUND,
    EVICT_NOW,
    FAILURE,
    MAINTENANCE_NOW,
    SAVE_HANG,
    STOP_AT_CHECKPOINT,
    BookedHours,
    Event,
    NextEvent,
    Sources,
    TrialClock,
    with_checkpoints,
    with_work,
)


@walk_phase
def advance_run(
    has_trace: bool, has_degradations: bool, trial: int, clock: TrialClock,
    booked: BookedHours, held: HeldHours, nxt: NextEvent, slowdown: float, job: CompiledJob,
    trace: TraceBuffer,
) -> tuple[TrialClock, BookedHours, HeldHours]:  # fmt: skip
    """Advance the trial's exposure, and a running job's progress, to ``nxt.x_next``
    (nothing progresses during a stall); a slowed stretch's extra time is booked
    ``degraded`` and held for a failure to roll back.

    Returns
    -------
    (TrialClock, BookedHours, HeldHours)
        The trial's values at the step's exposure.

    Other Parameters
    ----------------
    has_trace, has_degradations, trial, clock, booked, held, nxt, slowdown, job, trace
        As for every phase (:mod:`relplan.sim.walk`).
    """
    x_next, phase_start, run_progress = nxt.x_next, clock.phase_start, clock.run_progress
    degraded = booked.degraded
    if clock.phase == RUNNING and x_next > phase_start:
        start_index = nxt.start_index
        left = nxt.left
        stretch = x_next - phase_start
        progress = run_progress
        extra = 0.0
        if not has_degradations or slowdown == 1.0:  # full speed: no division
            reached = progress + stretch
        elif job.storage_on_fabric:
            reached = progress + stretch / slowdown
            extra = stretch * (1.0 - 1.0 / slowdown)
        else:
            reached = nxt.finish
            if x_next < nxt.x_phase:
                reached = min(nxt.finish, progress_after(job, start_index, progress,
                                                         nxt.done_before, nxt.slowed_before,
                                                         stretch, slowdown, left))
            extra = stretch - (reached - progress)
        if has_trace and trial == trace.trial:
            _emit(trace, phase_start + clock.idle, x_next + clock.idle,
                  TRACE_RUN, progress, reached, start_index)
        run_progress = reached
        if has_degradations:
            degraded += extra
        if has_degradations and slowdown != 1.0:
            # hold the extra time for a failure to roll back
            done_before = nxt.done_before
            if job.storage_on_fabric:
                done_before = completed_segments(job, start_index, progress, left)
            held = _hold_slowed_stretch(
                job, held, start_index, done_before,
                completed_segments_after(job, start_index, done_before, reached, left),
                reached, slowdown, extra, left,
            )  # fmt: skip
        phase_start = x_next
    return (TrialClock(clock.phase, x_next, phase_start, run_progress, clock.restart_done,
                       clock.restart_length, clock.committed, clock.durable, clock.idle,
                       clock.wall_hours),
            BookedHours(booked.useful, booked.rework, booked.checkpoint, booked.detect,
                        booked.restart, booked.waiting, degraded, booked.stall,
                        booked.maintenance, booked.restart_init),
            held)  # fmt: skip


@walk_phase
def rework_run(
    has_random_saves: bool, trial: int, clock: TrialClock, booked: BookedHours,
    held: HeldHours, nxt: NextEvent, event: Event, job: CompiledJob, state: TrialState,
) -> tuple[TrialClock, BookedHours, HeldHours]:  # fmt: skip
    """A running job stopped at exposure ``at``: everything since the last completed
    checkpoint is rework (the compute and writes, a drawn write's hold, the extra time
    of slowed running and the stalls); the checkpoints completed are committed, and the
    last durable one whose persist is over becomes the durable checkpoint.

    Returns
    -------
    (TrialClock, BookedHours, HeldHours)
        With the run's work since its last checkpoint moved to rework (a save that hangs
        loses the segment it ends, even a write of no time).

    Other Parameters
    ----------------
    has_random_saves, trial, clock, booked, held, nxt, event, job, state
        As for every phase (:mod:`relplan.sim.walk`).
    """
    at = event.at
    segment, every = job.segment_hours, job.durable_every
    start_index, left = nxt.start_index, nxt.left
    useful, rework, checkpoint = booked.useful, booked.rework, booked.checkpoint
    degraded, stall = booked.degraded, booked.stall
    write_cut = 0.0
    if clock.phase_start > at:  # cut a stall short (held: it is in the segment in progress)
        cut = clock.phase_start - at
        if has_random_saves and job.walks_saves:  # a drawn write's hold first, then stalls
            write_cut = min(unspent_write(trial, at, state), cut)
            checkpoint -= write_cut
            cut -= write_cut
        stall -= cut
        held = HeldHours(held.segment, held.degraded_hours, held.stall_hours - cut,
                         held.fast_tier_durable, held.fast_tier_degraded_hours,
                         held.fast_tier_stall_hours)  # fmt: skip
    elapsed = clock.run_progress
    if every == 1:  # one tier: completed_segments and segments_time, inline
        segment_and_write = job.segment_hours + job.durable_write_hours
        done = min(max(int(elapsed / segment_and_write), 0), left)
        done_time = done * segment_and_write
    else:
        done = _completed_segments_cold(job, start_index, elapsed, left)
        done_time = _segments_time_cold(job, start_index, done)
    if has_random_saves and event.stop == SAVE_HANG:  # not committed, at its boundary too
        hung = state.next_save[trial] - 1 if job.walks_saves else state.hang_checkpoint[trial]
        if done > hung - 1 - start_index:
            done = hung - 1 - start_index
            done_time = _segments_time_cold(job, start_index, done)
    useful += done * segment
    checkpoint += done_time - done * segment
    rework += elapsed - done_time
    if has_random_saves and job.walks_saves and (
        state.writing_checkpoint[trial] > start_index + done
    ):
        spent = state.write_held_hours[trial] - write_cut  # its segment is lost
        checkpoint -= spent
        rework += spent
        state.writing_checkpoint[trial] = 0
    if held.segment > start_index + done:  # held in the segment the failure rolls back
        rework += held.degraded_hours + held.stall_hours
        degraded -= held.degraded_hours
        stall -= held.stall_hours
        held = HeldHours(0, 0.0, 0.0, held.fast_tier_durable, held.fast_tier_degraded_hours,
                         held.fast_tier_stall_hours)  # fmt: skip
    elif held.segment > 0:  # held in a completed segment
        held = _settle_held_hours(held, every)
    committed = clock.committed + done
    # the last durable checkpoint this run wrote, once its persist is over
    latest = committed  # one tier: no integer division
    if every > 1:
        latest = (committed // every) * every
    persist = job.persist_hours
    if persist > 0.0:
        while latest > start_index and elapsed < persist + _segments_time_cold(
            job, start_index, latest - start_index
        ):
            latest -= every
    durable = clock.durable
    if latest > start_index or persist == 0.0:
        durable = latest
    return (with_checkpoints(clock, elapsed, committed, durable),
            with_work(booked, useful, rework, checkpoint, degraded, stall), held)


@walk_phase
def roll_back(
    has_trace: bool, has_corruption: bool, has_random_saves: bool, trial: int,
    clock: TrialClock, booked: BookedHours, held: HeldHours, event: Event, words: tuple,
    job: CompiledJob, modes: CompiledModes, state: TrialState, trace: TraceBuffer,
) -> tuple[TrialClock, BookedHours, HeldHours, tuple]:  # fmt: skip
    """Roll back to the last durable checkpoint if the stop took the fast tier (a
    maintenance window takes every server), or (one tier) if the newest checkpoint died
    in its persist; a corruption found rolls back to the newest retained durable
    checkpoint written before it; where saves may be lost or a fast checkpoint unusable,
    further back to the newest one that held (:func:`.saves.good_checkpoint`). The
    checkpoints after it are gone: their compute, writes (the fast tier's drawn ones
    too), and the slowed extra time and stalls held after the durable one, are rework.

    Parameters
    ----------
    words : tuple
        The trial's random stream (the saves a restart needs are drawn from it).

    Returns
    -------
    (TrialClock, BookedHours, HeldHours, tuple)
        Rolled back to the target checkpoint, if any is lost; and the stream.

    Other Parameters
    ----------------
    has_trace, has_corruption, has_random_saves, trial, clock, booked, held, event, job,
    modes, state, trace
        As for every phase (:mod:`relplan.sim.walk`).
    """
    every = job.durable_every
    committed = clock.committed
    durable = clock.durable
    useful, rework, checkpoint = booked.useful, booked.rework, booked.checkpoint
    degraded, stall = booked.degraded, booked.stall
    stop = event.stop
    target = committed
    lost_fast_tier = stop != STOP_AT_CHECKPOINT and (
        stop == MAINTENANCE_NOW or every == 1
        or (event.mode >= 0 and modes.loses_fast_checkpoint[event.mode])
    )  # fmt: skip
    if lost_fast_tier:
        target = durable
    if has_corruption and stop == CORRUPTION_FOUND:
        target = min(target, _retained_before(
            state.corruption_checkpoint[trial], durable, every, job.keep_checkpoints,
            job.archive_every,
        ))  # fmt: skip
    saves_walked = has_random_saves and job.walks_saves
    if has_random_saves:
        target, words = good_checkpoint(trial, target, durable, lost_fast_tier, words, job,
                                        state)  # fmt: skip
        if job.save_hang > 0.0:  # the next run's save that hangs
            state.hang_checkpoint[trial], words = next_hang(target, words, job)
    if saves_walked:
        settle_write(trial, committed, job, state)
    if target < committed:
        lost = committed - target
        lost_time = _segments_time_cold(job, target, lost)
        useful -= lost * job.segment_hours
        checkpoint -= lost_time - lost * job.segment_hours
        rework += lost_time
        if held.fast_tier_durable >= target:  # held after the target
            rework += held.fast_tier_degraded_hours + held.fast_tier_stall_hours
            degraded -= held.fast_tier_degraded_hours
            stall -= held.fast_tier_stall_hours
        if saves_walked and state.fast_tier_write_durable[trial] >= target:
            rework += state.fast_tier_write_hours[trial]  # the fast tier's drawn writes
            checkpoint -= state.fast_tier_write_hours[trial]
        if saves_walked:
            state.fast_tier_write_hours[trial] = 0.0
            state.fast_tier_write_durable[trial] = target
        held = HeldHours(held.segment, held.degraded_hours, held.stall_hours, target, 0.0, 0.0)
        if has_trace and trial == trace.trial:
            _emit(trace, event.at + clock.idle, event.at + clock.idle, TRACE_ROLLBACK,
                  target, committed, 0.0)  # fmt: skip
        committed = target
        durable = min(durable, target)
    if has_corruption and state.undetected_checkpoint[trial] >= committed:
        state.undetected_checkpoint[trial] = -1  # the corrupted work is rolled back too
    if has_corruption and state.corruption_checkpoint[trial] >= committed:
        # lineage: a pending corruption lies in work rolled back: never found
        state.corruption_found_hours[trial] = np.inf
    if saves_walked:  # the next run's first save
        state.next_save[trial] = committed + 1
    clock = with_checkpoints(clock, clock.run_progress, committed, durable)
    return clock, with_work(booked, useful, rework, checkpoint, degraded, stall), held, words


@walk_phase
def stop_job(
    has_trace: bool, has_planned_stops: bool, trial: int, clock: TrialClock,
    booked: BookedHours, held: HeldHours, nxt: NextEvent, event: Event, job: CompiledJob,
    state: TrialState, trace: TraceBuffer,
) -> tuple[TrialClock, BookedHours, HeldHours]:  # fmt: skip
    """What a stop of the job keeps: all of it at the checkpoint a planned stop waited
    for; else a restart under way is lost. The walk then books a run's work since its
    last checkpoint as rework (:func:`rework_run`), and rolls back (:func:`roll_back`).

    Returns
    -------
    (TrialClock, BookedHours, HeldHours)
        What the trial keeps of its run.

    Other Parameters
    ----------------
    has_trace, has_planned_stops, trial, clock, booked, held, nxt, event, job, state, trace
        As for every phase (:mod:`relplan.sim.walk`).
    """
    stop = event.stop
    at = event.at
    idle = clock.idle
    if stop == FAILURE or stop == EVICT_NOW or stop == CORRUPTION_FOUND:
        state.interruptions_by_mode[trial, event.mode] += 1
    elif stop == SAVE_HANG:  # no failure mode's: counted apart
        state.save_hangs[trial] += 1
    if has_planned_stops and stop == STOP_AT_CHECKPOINT:
        # the job has just reached the checkpoint it waited for: keep it all
        reach = nxt.stop_segments
        boundary = _segments_time_cold(job, nxt.start_index, reach)
        committed = clock.committed + reach
        held = _settle_held_hours(held, job.durable_every) if held.segment > 0 else held
        clock = TrialClock(clock.phase, clock.exposure_hours, clock.phase_start, boundary,
                           clock.restart_done, clock.restart_length, np.int64(committed),
                           np.int64(max(clock.durable, (committed // job.durable_every)
                                        * job.durable_every)),
                           idle, clock.wall_hours)  # fmt: skip
        booked = BookedHours(booked.useful + reach * job.segment_hours, booked.rework,
                             booked.checkpoint + (boundary - reach * job.segment_hours),
                             booked.detect, booked.restart, booked.waiting, booked.degraded,
                             booked.stall, booked.maintenance, booked.restart_init)
        if has_trace and trial == trace.trial:  # a stop that keeps its work
            _emit(trace, at + idle, at + idle, TRACE_STOP, 0.0, 0.0, 0.0)
    elif stop != FAILURE and has_trace and trial == trace.trial:  # loses work
        _emit(trace, at + idle, at + idle, TRACE_STOP, 1.0, 0.0, 0.0)
    if stop == STOP_AT_CHECKPOINT:
        pass
    elif clock.phase == RESTARTING:
        restart, restart_init, stall = booked.restart, booked.restart_init, booked.stall
        phase_start = clock.phase_start
        if phase_start > at:  # a stall pausing the restart ends here
            stall -= phase_start - at
        else:
            restart += at - phase_start
            restart_init += _init_part_cold(clock.restart_done,
                                            clock.restart_done + at - phase_start,
                                            job.restart_init_hours)  # fmt: skip
            if has_trace and trial == trace.trial:
                _emit(trace, phase_start + idle, at + idle, TRACE_RESTART, 0.0, 0.0, 0.0)
        clock = TrialClock(clock.phase, clock.exposure_hours, phase_start, clock.run_progress,
                           0.0, clock.restart_length, clock.committed, clock.durable, idle,
                           clock.wall_hours)  # fmt: skip
        booked = BookedHours(booked.useful, booked.rework, booked.checkpoint, booked.detect,
                             restart, booked.waiting, booked.degraded, stall,
                             booked.maintenance, restart_init)  # fmt: skip
    return clock, booked, held


@walk_phase
def note_corruption(
    trial: int, clock: TrialClock, nxt: NextEvent, event: Event, sources: Sources,
    job: CompiledJob, modes: CompiledModes, state: TrialState,
) -> Sources:  # fmt: skip
    """A silent corruption at ``event.at``: found ``detect`` later (or never, one uniform
    draws which); the last checkpoint before it is the newest one without it.

    Returns
    -------
    Sources
        Past the uniform drawn.

    Other Parameters
    ----------------
    trial, clock, nxt, event, sources, job, modes, state
        As for every phase (:mod:`relplan.sim.walk`).
    """
    mode = event.mode
    before = clock.committed
    if clock.phase == RUNNING:
        before += completed_segments(job, nxt.start_index, clock.run_progress, nxt.left)
    u, words = uniform_from_words(sources.words)
    if u < modes.detect_probability[mode]:
        if state.corruption_found_hours[trial] == np.inf:  # else: an earlier one covers it
            state.corruption_found_hours[trial] = event.at + modes.detect_hours[mode]
            state.corruption_checkpoint[trial] = before
            state.corruption_mode[trial] = mode
            state.corruption_repair_hours[trial] = event.repair
    elif state.undetected_checkpoint[trial] < 0:
        state.undetected_checkpoint[trial] = before
    return Sources(words, sources.next_exponential_hours, sources.pointer)
