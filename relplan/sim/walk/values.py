"""The values the phases of the walk pass each other: a trial's clocks, its booked hours,
the next event of a step and what happened at it, and the codes that tell the walk how to
go on. Immutable named tuples of scalars: a phase returns new ones, and numba keeps their
fields in registers (the phases are inlined into the walk)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from relplan.sim.walk.jit import walk_phase

B_USEFUL, B_REWORK, B_CHECKPOINT, B_DETECT, B_RESTART, B_WAITING, B_DEGRADED, B_STALL = range(8)
B_MAINTENANCE = 8
"""Columns of ``TrialState.bucket_hours`` (the order of :data:`relplan.vocab.BUCKETS`)."""

NO_STOP_KIND, FAILURE, STOP_AT_CHECKPOINT, MAINTENANCE_NOW, EVICT_NOW, CORRUPTION_FOUND = range(6)
DRAIN_AT_ONCE, SAVE_HANG, SERVER_TAKEN = 6, 7, 8
"""What stops the job at a step of the walk: nothing, a fatal failure, the checkpoint a
planned stop waited for, a maintenance window that does not wait, a fail-slow unit
evicted at once, a corruption found, a degraded server drained at once, a durable save
that hangs (``job.checkpoint.hang``), a server taken by a fleet's job of higher
priority (``[fleet] preempt``)."""

GO_ON, NEXT_STEP, END_TRIAL = range(3)
"""What a phase tells the walk: go on with the step, take the next step, or stop the trial."""


class TrialClock(NamedTuple):
    """Where a trial stands: its phase and clocks, hours unless said.

    Attributes
    ----------
    phase : int
        RUNNING, RESTARTING or FINISHED (:mod:`relplan.sim.compiled`).
    exposure_hours : float
        Exposure reached (hardware in use).
    phase_start : float
        Exposure at which the phase began (or a stall in progress ends).
    run_progress : float
        Job-time run since the restart.
    restart_done : float
        Hours of the restart under way already done.
    restart_length : float
        Hours of the restart under way.
    committed : int
        Checkpoints committed at the restart.
    durable : int
        The newest durable checkpoint.
    idle : float
        Wall time beyond exposure (the job down).
    wall_hours : float
        Wall time at which the job finished.
    """

    phase: int
    exposure_hours: float
    phase_start: float
    run_progress: float
    restart_done: float
    restart_length: float
    committed: int
    durable: int
    idle: float
    wall_hours: float


class BookedHours(NamedTuple):
    """A trial's hours booked to each bucket (:data:`relplan.vocab.BUCKETS`), and of the
    restart hours, those of start-up (``restart_init``)."""

    useful: float
    rework: float
    checkpoint: float
    detect: float
    restart: float
    waiting: float
    degraded: float
    stall: float
    maintenance: float
    restart_init: float


class Sources(NamedTuple):
    """Where the trial's failures come from: its random stream (four words), the exposure
    of its next on-the-fly failure, hours, and its next pre-drawn event (an index of the
    window's events)."""

    words: tuple[int, int, int, int]
    next_exponential_hours: float
    pointer: int


class NextEvent(NamedTuple):
    """The next thing that happens to a trial, and what it was weighed against: exposure
    hours (``x_*``, ``e_*``; inf: none) but for the counts.

    Attributes
    ----------
    x_next : float
        The earliest of them.
    x_phase, x_horizon, x_special : float
        The end of the phase, of the calendar window, the first planned or delayed event.
    x_maint, x_stop, x_evict, x_drain : float
        A maintenance window, the checkpoint a planned stop waits for, a fail-slow unit
        evicted, a degraded server found.
    x_deg : float
        The first end of a degradation, that of ``first_deg`` (an index of its list).
    first_deg : int
    e_exp, e_win, e_fail : float
        The next failure on the fly, pre-drawn, and the first of the two.
    stop_segments : int
        Segments of the run to the checkpoint a planned stop waits for.
    start_index, left : int
        Checkpoints committed at the restart; segments left before the last one.
    finish : float
        Job-time of the run at the end of the job.
    done_before : int
        Segments of the run completed (computed only for a slowed run).
    slowed_before : float
        Slowed job-time of the run (:func:`relplan.sim.walk.segments.slowed_job_hours`).
    x_hang : float
        The start of the durable save that hangs next (``job.checkpoint.hang``).
    x_save : float
        The start of the next save whose write is drawn (``job.checkpoint.write`` as a
        distribution), or of any save where a tier's write is drawn.
    """

    x_next: float
    x_phase: float
    x_horizon: float
    x_special: float
    x_maint: float
    x_stop: float
    x_evict: float
    x_drain: float
    x_deg: float
    first_deg: int
    e_exp: float
    e_win: float
    e_fail: float
    stop_segments: int
    start_index: int
    left: int
    finish: float
    done_before: int
    slowed_before: float
    x_hang: float
    x_save: float


class Event(NamedTuple):
    """What happens at a step: a stop of the job (``stop``, NO_STOP_KIND: none), the mode
    (-1: none), its impact, its repair (hours), its exposure (hours), whether the unit
    leaves the fleet for good, when a failure is found after it (hours: the mode's
    ``detect``, or its late detection when its detector missed it), and how long a
    fail-slow episode lasts if left in (hours; inf: until evicted)."""

    stop: int
    mode: int
    impact: int
    repair: float
    at: float
    removed: bool
    detect: float
    lasts: float


@walk_phase
def with_work(booked: BookedHours, useful: float, rework: float, checkpoint: float,
              degraded: float, stall: float) -> BookedHours:  # fmt: skip
    """``booked`` with new hours of work (useful, rework, checkpoint) and of the slowed
    extra time and stalls (degraded, stall): what a rework or a rollback moves."""
    return BookedHours(useful, rework, checkpoint, booked.detect, booked.restart,
                       booked.waiting, degraded, stall, booked.maintenance,
                       booked.restart_init)  # fmt: skip


@walk_phase
def with_checkpoints(clock: TrialClock, run_progress: float, committed: int,
                     durable: int) -> TrialClock:  # fmt: skip
    """``clock`` with a new progress (job-hours), checkpoints committed and durable one."""
    return TrialClock(clock.phase, clock.exposure_hours, clock.phase_start, run_progress,
                      clock.restart_done, clock.restart_length, np.int64(committed),
                      np.int64(durable), clock.idle, clock.wall_hours)  # fmt: skip
