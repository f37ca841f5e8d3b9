"""Phase of the walk: a preemption saved on its notice, a pause that keeps the job's
progress (``[preemption]``; an unsaved one is a crash, :mod:`.recovery`)."""

from __future__ import annotations

from relplan.sim.compiled import (
    TRACE_RESTART,
    TRACE_WAIT,
    CompiledJob,
    TraceBuffer,
    TrialState,
)
from relplan.sim.walk.emit import _emit
from relplan.sim.walk.jit import walk_phase
from relplan.sim.walk.segments import _init_part_cold
from relplan.sim.walk.values import BookedHours, Event, TrialClock


@walk_phase
def pause_for_preemption(
    has_trace: bool, trial: int, clock: TrialClock, booked: BookedHours, event: Event,
    job: CompiledJob, state: TrialState, trace: TraceBuffer,
) -> tuple[TrialClock, BookedHours]:  # fmt: skip
    """A preemption saved on its notice: the job writes a checkpoint where it stands,
    waits for its capacity (the event's drawn ``return_delay``) and restarts from that
    save, its progress kept. Nothing fails meanwhile (its capacity is away): the pause is
    off the exposure clock. The save and the wait are ``waiting`` hours, the restart
    ``restart`` hours. A calendar window that ends meanwhile cuts the pause there (the
    next step ends the trial).

    Returns
    -------
    (TrialClock, BookedHours)
        The clock after the pause (only its idle hours move) and the hours booked.

    Other Parameters
    ----------------
    has_trace, trial, clock, booked, event, job, state, trace
        As for every phase (:mod:`relplan.sim.walk`).
    """
    state.interruptions_by_mode[trial, event.mode] += 1
    down = event.at + clock.idle  # wall time the capacity goes
    wait = job.preempt_save_hours + event.repair
    restart = job.restart_hours
    over = down + wait + restart - job.horizon_hours
    if over > 0.0:  # the calendar window ends during the pause: latest first
        cut = min(over, restart)
        restart -= cut
        wait -= over - cut
    if has_trace and trial == trace.trial:
        _emit(trace, down, down + wait, TRACE_WAIT, event.mode, 0.0, 0.0)
        _emit(trace, down + wait, down + wait + restart, TRACE_RESTART, 0.0, 0.0, 0.0)
    booked = BookedHours(booked.useful, booked.rework, booked.checkpoint, booked.detect,
                         booked.restart + restart, booked.waiting + wait, booked.degraded,
                         booked.stall, booked.maintenance,
                         booked.restart_init + _init_part_cold(0.0, restart,
                                                               job.restart_init_hours))
    clock = TrialClock(clock.phase, clock.exposure_hours, clock.phase_start,
                       clock.run_progress, clock.restart_done, clock.restart_length,
                       clock.committed, clock.durable, clock.idle + wait + restart,
                       clock.wall_hours)  # fmt: skip
    return clock, booked
