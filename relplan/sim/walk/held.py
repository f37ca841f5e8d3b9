"""The hours a failure may still roll back (:class:`relplan.sim.compiled.HeldHours`): held
segment by segment, settled when their segment completes."""

from __future__ import annotations

import numba

from relplan.sim.compiled import CompiledJob, HeldHours
from relplan.sim.walk.segments import segments_time


@numba.njit(cache=True)
def _settle_held_hours(held: HeldHours, every: int) -> HeldHours:
    """``held`` once its segment has completed: a fatal failure no longer rolls its hours
    back; losing the fast tier does, unless a durable checkpoint ends the segment or
    comes after it.

    Parameters
    ----------
    held : HeldHours
        A trial's held hours, with ``held.segment > 0``.
    every : int
        Every how many checkpoints one is durable (1: one tier, every one).

    Returns
    -------
    HeldHours
        With no segment's hours held.
    """
    durable_after = held.fast_tier_durable
    fast_degraded = held.fast_tier_degraded_hours
    fast_stall = held.fast_tier_stall_hours
    if every > 1:  # with one tier every checkpoint is durable: nothing to keep
        last_durable = held.segment // every * every
        if last_durable > durable_after:  # the fast tier's hours are safe now
            durable_after = last_durable
            fast_degraded = 0.0
            fast_stall = 0.0
        if held.segment > last_durable:
            fast_degraded += held.degraded_hours
            fast_stall += held.stall_hours
    return HeldHours(0, 0.0, 0.0, durable_after, fast_degraded, fast_stall)


@numba.njit(cache=True)
def _hold_hours(
    held: HeldHours, segment: int, degraded_hours: float, stall_hours: float, every: int
) -> HeldHours:
    """``held`` with ``degraded_hours`` of slowed extra time and ``stall_hours`` of stalls
    spent in segment ``segment`` of the run in progress; the hours of an earlier segment,
    which has completed since, are settled first.

    Parameters
    ----------
    held : HeldHours
        A trial's held hours.
    segment : int
        The segment the hours were spent in (numbered by the checkpoint that ends it).
    degraded_hours, stall_hours : float
        Hours.
    every : int
        Every how many checkpoints one is durable.

    Returns
    -------
    HeldHours
    """
    if held.segment != segment and held.segment > 0:
        held = _settle_held_hours(held, every)
    return HeldHours(segment, held.degraded_hours + degraded_hours,
                     held.stall_hours + stall_hours, held.fast_tier_durable,
                     held.fast_tier_degraded_hours, held.fast_tier_stall_hours)  # fmt: skip


@numba.njit(cache=True, error_model="numpy")
def _hold_slowed_stretch(
    job: CompiledJob, held: HeldHours, start_index: int, done_before: int, done_after: int,
    reached: float, slowdown: float, extra_hours: float, most: int,
) -> HeldHours:  # fmt: skip
    """``held`` with the ``extra_hours`` of a stretch run at ``slowdown``, held segment by
    segment, in O(1) whatever the checkpoints the stretch crosses.

    The extra time accrues in proportion to the slowed job-time (:func:`slowed_job_hours`),
    so the parts after the last checkpoint the stretch completes, and after its last
    durable one, come in closed form.

    Parameters
    ----------
    job : CompiledJob
        The job's numbers.
    held : HeldHours
        The trial's held hours.
    start_index : int
        Checkpoints committed when the run began.
    done_before, done_after : int
        Segments the run had completed at the start and at the end of the stretch.
    reached : float
        Job-time since the run began at the end of the stretch, hours.
    slowdown : float
        Step-time ratio during the stretch.
    extra_hours : float
        The stretch's wall time beyond its job-time, hours.
    most : int
        The most segments the run can complete (those before the last segment).

    Returns
    -------
    HeldHours
    """
    every = job.durable_every
    first = start_index + done_before + 1  # the segment the stretch starts in
    if done_after == done_before:
        return _hold_hours(held, first, extra_hours, 0.0, every)
    boundary = segments_time(job, start_index, done_after)
    into = reached - boundary
    if not job.storage_on_fabric and done_after < most:
        into = min(into, job.segment_hours)
    after = (slowdown - 1.0) * into  # in the segment in progress at the end
    last_durable = (start_index + done_after) // every * every
    if last_durable >= first:
        # a durable checkpoint completes in the stretch: what came before it is safe
        if job.storage_on_fabric:
            kept = boundary - segments_time(job, start_index, last_durable - start_index)
        else:
            kept = (start_index + done_after - last_durable) * job.segment_hours
        return HeldHours(start_index + done_after + 1, after, 0.0, last_durable,
                         (slowdown - 1.0) * kept, 0.0)  # fmt: skip
    settled = _settle_held_hours(_hold_hours(held, first, extra_hours - after, 0.0, every),
                                 every)  # fmt: skip
    return HeldHours(start_index + done_after + 1, after, 0.0, settled.fast_tier_durable,
                     settled.fast_tier_degraded_hours, settled.fast_tier_stall_hours)  # fmt: skip
