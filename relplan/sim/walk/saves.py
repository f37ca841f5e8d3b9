"""Saves that may be lost, hang or take a drawn time, and fast checkpoints that may be
unusable: the checkpoint a restart finds good (``job.checkpoint.fail``,
``job.checkpoint.fast.fail`` and ``corrupt``), the durable save that hangs next
(``job.checkpoint.hang``), and the write drawn at each save (``job.checkpoint.write`` or
``fast.write`` as a distribution or measured durations).

Whether a save held is drawn when a restart needs it, once: a restart walks back from
its target over the saves not yet known good, each held with its tier's probability,
and the first that held (or the newest known good, at worst the start) becomes the
target and is known good from then on. Every checkpoint after the target is rewritten
by the run that follows, so no draw is ever reused. The save that hangs is drawn at the
start of each run: the run's durable saves before it are geometric.

A drawn write holds the job from the end of its segment's compute (:func:`start_save`):
nothing progresses, as in a stall, and the checkpoint commits when the hold ends (its
segments' arithmetic keeps only :data:`~relplan.sim.compiled.DRAWN_WRITE_HOURS` of it). A
stop during the hold loses the segment, and the write's hours spent are rework; a write
longer than ``save_timeout`` hangs. The write of the newest checkpoint is held apart
until the next save or stop settles it (:func:`settle_write`); the drawn writes of the
fast checkpoints since the last durable one are rework if the fast tier is lost.
"""

from __future__ import annotations

import math

from relplan.sim.compiled import TRACE_STALL, CompiledJob, TraceBuffer, TrialState
from relplan.sim.rng import drawn_duration, uniform_from_words
from relplan.sim.walk.emit import _emit
from relplan.sim.walk.jit import walk_phase
from relplan.sim.walk.values import (
    NO_STOP_KIND,
    SAVE_HANG,
    BookedHours,
    NextEvent,
    TrialClock,
    with_work,
)


@walk_phase
def good_checkpoint(
    trial: int, target: int, durable: int, lost_fast_tier: bool, words: tuple,
    job: CompiledJob, state: TrialState,
) -> tuple[int, tuple]:  # fmt: skip
    """The checkpoint a restart aimed at ``target`` finds good.

    A fast checkpoint is unusable with probability ``fast_corrupt``: the restart falls
    back to the durable tier (``durable``). Then, from the target back, each save not yet
    known good held with probability ``1 - fail`` of its tier (a durable boundary every
    ``durable_every`` checkpoints, the fast tier between); over the durable tier only
    when the fast tier is lost or unusable.

    Parameters
    ----------
    target : int
        The checkpoint the restart aims at (committed checkpoints counted from the start).
    durable : int
        The newest durable checkpoint.
    lost_fast_tier : bool
        Whether the stop took the fast tier (the target is then ``durable``).
    words : tuple
        The trial's random stream.

    Returns
    -------
    (int, tuple)
        The checkpoint found good, and the stream.

    Other Parameters
    ----------------
    trial, job, state
        As for every phase (:mod:`relplan.sim.walk`).
    """
    every = job.durable_every
    durable_only = lost_fast_tier or every == 1
    if not durable_only and target > durable and job.fast_corrupt > 0.0:
        u, words = uniform_from_words(words)
        if u < job.fast_corrupt:  # the fast checkpoint is unusable: the durable tier
            target = durable
            durable_only = True
    floor = state.verified_durable[trial] if durable_only else state.verified_checkpoint[trial]
    floor = min(floor, target)  # a corruption found goes further back: taken as good
    while target > floor:
        fail = job.durable_save_fail if target % every == 0 else job.fast_save_fail
        if fail <= 0.0:
            break
        u, words = uniform_from_words(words)
        if u >= fail:  # this save held
            break
        target -= every if durable_only else 1
    target = max(target, floor)  # the newest known good, at worst
    state.verified_checkpoint[trial] = target
    if target % every == 0:
        state.verified_durable[trial] = target
    return target, words


@walk_phase
def next_hang(start: int, words: tuple, job: CompiledJob) -> tuple[int, tuple]:
    """The checkpoint whose durable save hangs first in a run from checkpoint ``start``:
    the first durable one after it, then as many durable ones on as the saves that held
    before, ``floor(log(u) / log(1 - hang))`` (one uniform).

    Parameters
    ----------
    start : int
        The checkpoint the run starts from.
    words : tuple
        The trial's random stream.

    Returns
    -------
    (int, tuple)
        The checkpoint (counted from the start of the job), and the stream.

    Other Parameters
    ----------------
    job
        As for every phase (:mod:`relplan.sim.walk`).
    """
    every = job.durable_every
    u, words = uniform_from_words(words)
    held = math.floor(math.log(u) / math.log1p(-job.save_hang))
    first = (start // every + 1) * every
    return first + min(held, job.total_segments) * every, words


@walk_phase
def settle_write(trial: int, committed: int, job: CompiledJob, state: TrialState) -> None:
    """Settle the newest drawn write once its checkpoint is among the ``committed`` ones: a
    durable checkpoint's keeps every write before it safe; a fast one's joins the fast
    tier's writes (rework if the fast tier is lost).

    Parameters
    ----------
    committed : int
        Checkpoints committed now (counted from the start of the job).

    Other Parameters
    ----------------
    trial, job, state
        As for every phase (:mod:`relplan.sim.walk`).
    """
    writing = state.writing_checkpoint[trial]
    if writing == 0 or writing > committed:
        return
    if writing % job.durable_every == 0:
        state.fast_tier_write_hours[trial] = 0.0
        state.fast_tier_write_durable[trial] = writing
    else:
        state.fast_tier_write_hours[trial] += state.write_held_hours[trial]
    state.writing_checkpoint[trial] = 0
    state.write_held_hours[trial] = 0.0


@walk_phase
def unspent_write(trial: int, at: float, state: TrialState) -> float:
    """Of the newest drawn write, the hours of its hold still to come at exposure ``at``
    (0 once it is over), hours.

    Other Parameters
    ----------------
    trial, state
        As for every phase (:mod:`relplan.sim.walk`).
    """
    if state.writing_checkpoint[trial] == 0:
        return 0.0
    return max(state.write_end_hours[trial] - at, 0.0)


@walk_phase
def start_save(
    has_trace: bool, trial: int, clock: TrialClock, booked: BookedHours, nxt: NextEvent,
    words: tuple, job: CompiledJob, state: TrialState, trace: TraceBuffer,
) -> tuple[int, TrialClock, BookedHours, tuple]:  # fmt: skip
    """A save whose write is drawn starts at ``nxt.x_next`` (its segment's compute done):
    the job is held for the write, booked ``checkpoint``; a write longer than
    ``save_timeout`` hangs instead (SAVE_HANG), and so does the durable save drawn to
    hang (:func:`next_hang`) and a fast save with probability ``fast_save_hang``.

    Returns
    -------
    (int, TrialClock, BookedHours, tuple)
        The stop (NO_STOP_KIND or SAVE_HANG), the clock held, the hours, the stream.

    Other Parameters
    ----------------
    has_trace, trial, clock, booked, nxt, words, job, state, trace
        As for every phase (:mod:`relplan.sim.walk`).
    """
    number = state.next_save[trial]
    state.next_save[trial] = number + 1
    if job.save_hang > 0.0 and number == state.hang_checkpoint[trial]:
        return NO_STOP_KIND, clock, booked, words  # it hangs now (planned_event)
    settle_write(trial, number - 1, job, state)
    durable = number % job.durable_every == 0
    kind = job.write_kind if durable else job.fast_write_kind
    if not durable and job.fast_save_hang > 0.0:
        u, words = uniform_from_words(words)
        if u < job.fast_save_hang:
            return SAVE_HANG, clock, booked, words
    hold = 0.0  # a tier whose write is fixed: none (its write is in the arithmetic)
    if kind >= 0:
        u, words = uniform_from_words(words)
        if durable:
            write = drawn_duration(kind, job.write_scale_hours, job.write_shape,
                                   job.write_samples, u)  # fmt: skip
        else:
            write = drawn_duration(kind, job.fast_write_scale_hours, job.fast_write_shape,
                                   job.fast_write_samples, u)  # fmt: skip
        if write > job.save_timeout_hours:
            return SAVE_HANG, clock, booked, words
        hold = max(write - (job.durable_write_hours if durable else job.fast_write_hours),
                   0.0)  # fmt: skip
    at = nxt.x_next
    state.writing_checkpoint[trial] = number  # settled once committed, hold or none
    state.write_held_hours[trial] = hold
    state.write_end_hours[trial] = at + hold
    if hold == 0.0:
        return NO_STOP_KIND, clock, booked, words
    if has_trace and trial == trace.trial:
        _emit(trace, at + clock.idle, at + hold + clock.idle, TRACE_STALL, -1.0,
              clock.run_progress, nxt.start_index)  # fmt: skip
    clock = TrialClock(clock.phase, clock.exposure_hours, at + hold, clock.run_progress,
                       clock.restart_done, clock.restart_length, clock.committed,
                       clock.durable, clock.idle, clock.wall_hours)  # fmt: skip
    return NO_STOP_KIND, clock, with_work(booked, booked.useful, booked.rework,
                                          booked.checkpoint + hold, booked.degraded,
                                          booked.stall), words  # fmt: skip
