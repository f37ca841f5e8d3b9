"""Segment arithmetic of the walk: checkpoint segments crossed in closed form, at full
speed or slowed (see :mod:`relplan.sim.timeline`)."""

from __future__ import annotations

import math

import numba

from relplan.sim.compiled import CompiledJob


@numba.njit(cache=True, inline="always")
def segments_time(job: CompiledJob, start_index: int, count: int) -> float:
    """Job-time of ``count`` segments after checkpoint number ``start_index``.

    Parameters
    ----------
    job : CompiledJob
        The job's numbers.
    start_index : int
        Checkpoints committed before the first of the segments.
    count : int
        Segments, each its compute and its checkpoint write.

    Returns
    -------
    float
        Hours at full speed.
    """
    if job.durable_every == 1:  # one tier: no integer division on the hot path
        return count * (job.segment_hours + job.durable_write_hours)
    durable = (start_index + count) // job.durable_every - start_index // job.durable_every
    return count * (job.segment_hours + job.fast_write_hours) + durable * (
        job.durable_write_hours - job.fast_write_hours
    )


@numba.njit(cache=True)
def _segments_within(
    job: CompiledJob, start_index: int, span: float, most: int, added_per_segment: float
) -> int:
    """Segments after checkpoint number ``start_index`` that end within ``span`` hours,
    each taking its job-time plus ``added_per_segment`` hours.

    Parameters
    ----------
    job, start_index
        As for :func:`segments_time`: the job, and the checkpoints before the segments.
    span : float
        Hours from the start of the first segment.
    most : int
        The most segments to count.
    added_per_segment : float
        Hours each segment takes beyond its job-time (0: job-time itself).

    Returns
    -------
    int
        The segments.
    """
    if job.durable_every == 1:  # one tier: no integer division on the hot path
        per_segment = job.segment_hours + job.durable_write_hours + added_per_segment
        return min(max(int(span / per_segment), 0), most)
    average = job.segment_hours + job.fast_write_hours + (
        job.durable_write_hours - job.fast_write_hours
    ) / job.durable_every + added_per_segment
    count = min(max(int(span / average), 0), most)
    while count < most and (
        segments_time(job, start_index, count + 1) + (count + 1) * added_per_segment <= span
    ):
        count += 1
    while count > 0 and segments_time(job, start_index, count) + count * added_per_segment > span:
        count -= 1
    return count


@numba.njit(cache=True, inline="always")
def completed_segments(job: CompiledJob, start_index: int, elapsed: float, most: int) -> int:
    """Segments completed ``elapsed`` job-hours after checkpoint number ``start_index``.

    Parameters
    ----------
    job : CompiledJob
        The job's numbers.
    start_index : int
        Checkpoints committed when the run began.
    elapsed : float
        Job-time run since then, hours.
    most : int
        The most segments the run can complete (those before the last segment).

    Returns
    -------
    int
        Segments whose checkpoint write has finished.
    """
    return _segments_within(job, start_index, elapsed, most, 0.0)


@numba.njit(cache=True)
def slowed_job_hours(
    job: CompiledJob, start_index: int, progress: float, done: int, most: int
) -> float:
    """Job-time in the first ``progress`` job-hours of a run that a degradation slows.

    All of it if checkpoint writes share the compute fabric; otherwise only the compute
    (``segment_hours`` per completed segment and the compute of the segment in
    progress), not the writes.

    Parameters
    ----------
    job, start_index, most
        As for :func:`completed_segments`.
    progress : float
        Job-time run since the run began, hours.
    done : int
        ``completed_segments(job, start_index, progress, most)``.

    Returns
    -------
    float
        Hours at full speed.
    """
    if job.storage_on_fabric:
        return progress
    into = progress - segments_time(job, start_index, done)
    if done < most:  # past the segment's compute, the job is writing
        into = min(into, job.segment_hours)
    return done * job.segment_hours + into


@numba.njit(cache=True, error_model="numpy")
def completed_segments_hinted(
    job: CompiledJob, start_index: int, elapsed: float, most: int, hint: int
) -> int:
    """:func:`completed_segments`, trying ``hint`` first: no division if the run is in
    segment ``hint + 1`` (after ``hint`` completed segments)."""
    if 0 <= hint <= most and segments_time(job, start_index, hint) <= elapsed and (
        hint == most or elapsed < segments_time(job, start_index, hint + 1)
    ):
        return hint
    return completed_segments(job, start_index, elapsed, most)


@numba.njit(cache=True)
def completed_segments_after(
    job: CompiledJob, start_index: int, done_before: int, elapsed: float, most: int
) -> int:
    """:func:`completed_segments` at ``elapsed``, knowing that the run had completed
    ``done_before`` segments at an earlier point: no division while the run is still in
    the same segment.
    """
    if done_before == most or elapsed < segments_time(job, start_index, done_before + 1):
        return done_before
    return completed_segments(job, start_index, elapsed, most)


@numba.njit(cache=True, error_model="numpy")
def progress_after(
    job: CompiledJob, start_index: int, progress: float, done_before: int,
    slowed_before: float, wall_hours: float, slowdown: float, most: int,
) -> float:  # fmt: skip
    """Job-time a run reaches ``wall_hours`` after ``progress``, at ``slowdown``.

    At slowdown ``s`` the compute advances ``1 / s`` job-hours per hour and a write (off
    the compute fabric) one. Within the segment in progress that is direct; beyond it,
    the run's first ``n`` segments take ``s tau n + writes`` hours: the segments
    completed by the end of the stretch come in closed form (as in
    :func:`completed_segments`), then the offset into the one in progress.

    Parameters
    ----------
    job, start_index, progress, most
        As for :func:`slowed_job_hours`: the job, the run (from checkpoint
        ``start_index``, ``progress`` job-hours in, at most ``most`` segments).
    done_before : int
        :func:`completed_segments` at ``progress``.
    slowed_before : float
        :func:`slowed_job_hours` at ``progress``, hours.
    wall_hours : float
        Hours of running from ``progress`` on, at ``slowdown`` throughout.
    slowdown : float
        Step-time ratio.

    Returns
    -------
    float
        Job-time since the run began, hours.
    """
    if slowdown == 1.0 or job.storage_on_fabric or done_before == most:
        return progress + wall_hours / slowdown  # all slowed (the last segment: compute)
    tau = job.segment_hours
    # within the segment in progress: the rest of its compute, then its write
    segment_start = segments_time(job, start_index, done_before)
    compute_left = segment_start + tau - progress
    write_wall = wall_hours
    if compute_left > 0.0:
        if wall_hours <= slowdown * compute_left:
            return progress + wall_hours / slowdown
        write_wall = wall_hours - slowdown * compute_left
    write_start = max(progress, segment_start + tau)
    if write_start + write_wall < segments_time(job, start_index, done_before + 1):
        return write_start + write_wall
    added = (slowdown - 1.0) * tau  # per segment, beyond its job-time
    # hours from the run's start to the end of the stretch, had it all run at `slowdown`
    target = progress + (slowdown - 1.0) * slowed_before + wall_hours
    done = _segments_within(job, start_index, target, most, added)
    reached = segments_time(job, start_index, done)
    into = target - reached - done * added
    if done == most or into <= slowdown * tau:
        return reached + into / slowdown
    return reached + tau + (into - slowdown * tau)


@numba.njit(cache=True, inline="always")
def _init_part(done_from: float, done_to: float, init_hours: float) -> float:
    """Of the restart done from ``done_from`` to ``done_to`` hours into it, the hours of
    start-up (the first ``init_hours``); the rest is checkpoint load."""
    return min(done_to, init_hours) - min(done_from, init_hours)


@numba.njit(cache=True)
def _segments_to_stop(
    job: CompiledJob, start_index: int, progress: float, most: int, durable_only: bool
) -> int:
    """Segments of the run (from checkpoint ``start_index``) up to the checkpoint a planned
    stop waits for: the next one after ``progress`` job-hours, or the next durable one; 0
    if the job ends first (none left before its last segment)."""
    reach = completed_segments(job, start_index, progress, most) + 1
    if durable_only and job.durable_every > 1:
        every = job.durable_every
        reach = ((start_index + reach + every - 1) // every) * every - start_index
    return reach if reach <= most else 0


@numba.njit(cache=True)
def _hours_to_progress(
    job: CompiledJob, start_index: int, progress: float, reach: int, slowdown: float,
    most: int,
) -> float:  # fmt: skip
    """Hours of running at ``slowdown`` from ``progress`` job-hours until the run has
    completed ``reach`` segments: the compute slowed, the writes too if storage shares
    the fabric."""
    target = segments_time(job, start_index, reach)
    if slowdown == 1.0 or job.storage_on_fabric:
        return (target - progress) * slowdown
    done = completed_segments(job, start_index, progress, most)
    slowed = slowed_job_hours(job, start_index, progress, done, most)
    return (target - progress) + (slowdown - 1.0) * (reach * job.segment_hours - slowed)


@numba.njit(cache=True)
def _retained_before(before: int, newest_durable: int, every: int, keep: int,
                     archive: int) -> int:  # fmt: skip
    """The newest durable checkpoint at or before checkpoint ``before`` that is still
    retained: among the ``keep`` newest durable ones (0: all are kept), else the newest
    archived one (every ``archive``-th durable one), else the start (0).

    Examples
    --------
    >>> _retained_before(7, 10, 1, 0, 0), _retained_before(7, 10, 1, 2, 0)
    (7, 0)
    >>> _retained_before(7, 10, 1, 2, 3), _retained_before(7, 12, 2, 0, 0)
    (6, 6)
    """
    target = (before // every) * every
    if keep > 0 and target < newest_durable - (keep - 1) * every:
        target = 0
        if archive > 0:
            target = (before // (every * archive)) * (every * archive)
    return min(target, newest_durable)


@numba.njit(cache=True)
def _windows_before(next_hours: float, end_hours: float, every_hours: float) -> int:
    """Windows of a schedule (the next at ``next_hours``, then every ``every_hours``) that
    start before ``end_hours``: O(1), however many.

    Examples
    --------
    >>> _windows_before(24.0, 24.0, 24.0), _windows_before(24.0, 24.5, 24.0)
    (0, 1)
    >>> _windows_before(24.0, 96.0, 24.0), _windows_before(24.0, 96.1, 24.0)
    (3, 4)
    """
    if not next_hours < end_hours:
        return 0
    return math.ceil((end_hours - next_hours) / every_hours)


@numba.njit(cache=True)
def _segments_time_cold(job: CompiledJob, start_index: int, count: int) -> float:
    """:func:`segments_time` as a call, for the paths that run once per stop: inlining
    it there would only lengthen the first compile."""
    return segments_time(job, start_index, count)


@numba.njit(cache=True)
def _completed_segments_cold(job: CompiledJob, start_index: int, elapsed: float,
                             most: int) -> int:  # fmt: skip
    """:func:`completed_segments` as a call, for the paths that run once per stop."""
    return completed_segments(job, start_index, elapsed, most)


@numba.njit(cache=True)
def _init_part_cold(done_from: float, done_to: float, init_hours: float) -> float:
    """:func:`_init_part` as a call, for the paths that run once per stop."""
    return _init_part(done_from, done_to, init_hours)
