"""The timeline of one sample trial, interval by interval, for plots and inspection.

The compiled walk writes a trace of the trial it is asked to follow (runs, restarts,
detections, waits, stalls, failures); this module expands each run into its compute
and checkpoint-write segments, with the same segment arithmetic as the walk, and
labels what a failure rolls back (the part of a run since its last completed
checkpoint, the stalls in it, and on a lost fast tier everything since the durable
checkpoint) as rework, as the walk's buckets do.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from relplan.sim import timeline
from relplan.sim.compiled import (
    TRACE_COLUMNS,
    TRACE_DETECT,
    TRACE_FAILURE,
    TRACE_FINISH,
    TRACE_MAINTENANCE,
    TRACE_RESTART,
    TRACE_ROLLBACK,
    TRACE_RUN,
    TRACE_STALL,
    TRACE_STOP,
    TRACE_WAIT,
    TraceBuffer,
    compile_model,
)
from relplan.sim.engine import block_seed, block_sizes, block_trials, simulate_block
from relplan.sim.model import SimulationModel
from relplan.vocab import IMPACTS

MAX_TRACE_ROWS = 2_000_000


def trace_trial(
    model: SimulationModel, seed: int, trial: int, trials: int
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The timeline of trial ``trial`` of a run of ``trials`` trials with ``seed``.

    The trial is the very same as in that run: its block is simulated again, whole.

    Parameters
    ----------
    model : SimulationModel
        The job and its failure modes.
    seed : int
        The run's seed.
    trial : int
        Index of the trial in the run.
    trials : int
        Trials in the run (they fix the size of the trial's block).

    Returns
    -------
    intervals : pandas.DataFrame
        Columns ``start_hours``, ``end_hours`` (wall clock) and ``bucket`` (useful,
        rework, checkpoint, degraded, detect, waiting, restart, stall, maintenance,
        overhead), covering the trial's wall time; slowed running that is kept shows as
        the bucket it ran in (its job-time) followed by ``degraded`` (the time the
        slowdown added: compute only, unless storage shares the fabric); slowed running
        that is rolled back is rework, stretched; a stall in rolled-back work is rework;
        with a per-step tax (``job.step_overhead``) each useful interval is its work
        followed by the tax on it (``overhead``).
    failures : pandas.DataFrame
        Columns ``time_hours`` (wall clock), ``mode`` and ``impact``.
    """
    if not 0 <= trial < trials:
        raise ValueError(f"trial {trial} is not in a run of {trials} trials")
    per_block = block_trials(model)
    block, position = divmod(trial, per_block)
    size = block_sizes(trials, per_block)[block]
    trace = TraceBuffer.for_trial(position, np.full((MAX_TRACE_ROWS, TRACE_COLUMNS), -1.0))
    simulate_block(model, size, block_seed(seed, block), trace=trace)
    return _expand(model, trace.written_rows())


def _cut_stalls(open_stalls: list[list], removed: set[int], when: float) -> None:
    """A stop at ``when`` ends the stalls it cuts short; those that never began are gone
    (their ids join ``removed``).

    Only the stalls since the previous stop (``open_stalls``, emptied here) can reach past
    ``when``: the stops come in time order, and each one cut those before it, so a trial
    with many failures costs O(stalls), not O(failures x intervals)."""
    for interval in open_stalls:
        if interval[0] >= when:
            removed.add(id(interval))
        elif interval[1] > when:
            interval[1] = when
    open_stalls.clear()


def _split_overhead(intervals: list[list], step_overhead: float) -> list[list]:
    """Each ``useful`` interval as its work, then the recovery stack's tax on it
    (``overhead``), as the engine books them; the intervals as they are without a tax."""
    if step_overhead <= 0.0:
        return intervals
    split = []
    for start, end, bucket in intervals:
        if bucket != "useful":
            split.append([start, end, bucket])
            continue
        work_end = start + (end - start) / (1.0 + step_overhead)
        split += [[start, work_end, "useful"], [work_end, end, "overhead"]]
    return split


def _rewind(run: list[np.ndarray], intervals: list[list], progress: float) -> None:
    """A run that goes on from ``progress``, short of where it was (an in-process
    recovery redid a step): the last stretches of ``run`` beyond it become rework."""
    while run and progress < float(run[-1][4]) - 1e-12:
        last = run[-1].copy()
        span = float(last[4] - last[3])
        take = min(float(last[4]) - progress, span)
        cut = float(last[0]) if take >= span else float(
            last[1] - (last[1] - last[0]) * take / span)
        if last[1] > cut:
            intervals.append([cut, float(last[1]), "rework", 0])
        if take >= span:
            run.pop()
        else:
            last[1], last[4] = cut, last[4] - take
            run[-1] = last


def _expand(model: SimulationModel, rows: np.ndarray) -> tuple[pd.DataFrame, pd.DataFrame]:
    job = compile_model(model).job
    segment = job.segment_hours
    names = [m.name for m in model.modes]
    impacts = list(IMPACTS)
    # [start, end, bucket, checkpoint number of the segment (0: not a segment)]
    intervals: list[list] = []
    failures = []
    run: list[np.ndarray] = []
    # the stalls of the run in progress: [interval, checkpoints committed at the restart,
    # job-time since the restart at the stall]
    run_stalls: list[tuple[list, int, float]] = []
    # the stalls since the last stop, which the next one may cut; the ids of those cut away
    open_stalls: list[list] = []
    removed: set[int] = set()

    def segment_time(start: int, count: int) -> float:
        return timeline.segments_time(job, start, count)

    def completed(start: int, progress: float) -> int:
        # the segments a run from checkpoint `start` completes, bounded as the walk does
        return timeline.completed_segments(job, start, progress, job.total_segments - 1 - start)

    def slowed(start: int, progress: float) -> float:
        most = job.total_segments - 1 - start
        return timeline.slowed_job_hours(job, start, progress, completed(start, progress), most)

    def close_run(lost: bool) -> None:
        if run:
            start_committed, j_end = int(run[0][5]), float(run[-1][4])
        elif run_stalls:  # a run that stalled before it made any progress
            start_committed, j_end = run_stalls[0][1], run_stalls[-1][2]
        else:
            return
        done = completed(start_committed, j_end)
        if lost:
            # a stall in the segment in progress at the failure is rolled back with it
            for interval, _, at_progress in run_stalls:
                if completed(start_committed, at_progress) >= done:
                    interval[2] = "rework"
        run_stalls.clear()
        if not run:
            return
        edges = [0.0]
        labels: list[tuple[str, int]] = []
        for k in range(1, done + 1):
            begin = segment_time(start_committed, k - 1)
            edges += [begin + segment, segment_time(start_committed, k)]
            labels += [("useful", start_committed + k), ("checkpoint", start_committed + k)]
        if j_end > edges[-1]:
            if not lost and j_end > edges[-1] + segment:  # stopped in a write (a horizon)
                edges.append(edges[-1] + segment)
                labels.append(("useful", 0))
                labels.append(("checkpoint", 0))
            else:
                labels.append(("rework" if lost else "useful", 0))
            edges.append(j_end)
        edges_array = np.array(edges)
        # each stretch of the run runs at one speed: its extra time over its job-time
        # falls on its slowed job-time (the compute, and the writes if storage shares
        # the fabric), linearly; cut it at the segment edges inside it (a stall or a
        # change of speed separates stretches)
        for wall_start, wall_end, _, j_start, j_stop, _ in run:
            if j_stop <= j_start:
                continue
            inside = edges_array[(edges_array > j_start) & (edges_array < j_stop)]
            cuts = np.concatenate([[j_start], inside, [j_stop]])
            slowed_cuts = np.array([slowed(start_committed, float(c)) for c in cuts])
            slowed_span = slowed_cuts[-1] - slowed_cuts[0]
            extra = (wall_end - wall_start) - (j_stop - j_start)
            if slowed_span > 0.0:
                walls = wall_start + (cuts - j_start) + extra * (
                    slowed_cuts - slowed_cuts[0]) / slowed_span
            else:
                walls = wall_start + (cuts - j_start) / (j_stop - j_start) * (
                    wall_end - wall_start)
            for k in range(len(cuts) - 1):
                middle = 0.5 * (cuts[k] + cuts[k + 1])
                label, number = labels[min(int(np.searchsorted(edges_array, middle)) - 1,
                                           len(labels) - 1)]
                if walls[k + 1] <= walls[k]:
                    continue
                # the part of a kept piece beyond its own job-time is time lost to the
                # slowdown: the degraded bucket, as the walk counts it
                at_speed = float(min(walls[k] + (cuts[k + 1] - cuts[k]), walls[k + 1]))
                if label in ("useful", "checkpoint") and walls[k + 1] - at_speed > 1e-12:
                    intervals.append([float(walls[k]), at_speed, label, number])
                    intervals.append([at_speed, float(walls[k + 1]), "degraded", number])
                else:
                    intervals.append([float(walls[k]), float(walls[k + 1]), label, number])
        run.clear()

    for row in rows:
        code = int(row[2])
        if code == TRACE_RUN:
            _rewind(run, intervals, float(row[3]))
            run.append(row)
        elif code == TRACE_FAILURE:
            impact = impacts[int(row[4])]
            failures.append((row[0], names[int(row[3])], impact))
            if impact == "fatal":
                _cut_stalls(open_stalls, removed, float(row[0]))
                close_run(lost=True)
        elif code == TRACE_STOP and row[3] == 1.0:  # a stop that loses work, as a crash does
            _cut_stalls(open_stalls, removed, float(row[0]))
            close_run(lost=True)
        elif code == TRACE_ROLLBACK:
            # the fast checkpoints after the durable one are lost: their work, and the
            # stalls in it, are rework
            for interval in intervals:
                kept = interval[2] in ("useful", "checkpoint", "degraded", "stall")
                if kept and interval[3] > row[3]:
                    interval[2] = "rework"
        elif code == TRACE_FINISH or (code == TRACE_STOP and row[3] == 0.0):
            close_run(lost=False)  # the end, or a stop at a checkpoint
        elif code == TRACE_STALL:  # a failure's stall, or a drawn write's hold (mode -1)
            if row[1] > row[0]:
                interval = [float(row[0]), float(row[1]),
                            "stall" if row[3] >= 0.0 else "checkpoint", 0]
                intervals.append(interval)
                open_stalls.append(interval)
                if row[4] >= 0.0:  # while running (not during a restart)
                    start_committed = int(row[5])
                    done = completed(start_committed, float(row[4]))
                    interval[3] = start_committed + done + 1  # the segment it stalls
                    run_stalls.append((interval, start_committed, float(row[4])))
        else:
            bucket = {TRACE_RESTART: "restart", TRACE_DETECT: "detect",
                      TRACE_WAIT: "waiting", TRACE_MAINTENANCE: "maintenance"}[code]
            if row[1] > row[0]:
                intervals.append([float(row[0]), float(row[1]), bucket, 0])
    kept = [i[:3] for i in intervals if id(i) not in removed]
    frame = pd.DataFrame(_split_overhead(kept, model.job.step_overhead),
                         columns=["start_hours", "end_hours", "bucket"])
    frame = frame.sort_values("start_hours", kind="stable").reset_index(drop=True)
    failure_frame = pd.DataFrame(failures, columns=["time_hours", "mode", "impact"])
    return frame, failure_frame
