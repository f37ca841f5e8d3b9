"""Hand-worked timelines of the engine's semantics: checkpoint writes off or on the fabric
under a degradation, overlapping stalls, stalls during a restart, and rework as everything
since the last surviving checkpoint.

Every case is worked by hand in the comments (times in hours; exposure = wall clock until
the first detection or wait). The one-tier job: W = 10, tau = 3, delta = 0.5, R = 1, so
failure-free it computes [0,3), writes [3,3.5), ... and ends at 11.5. The two-tier job:
fast checkpoints every 1 h of compute (0.05 h writes), every third one durable (0.5 h):
checkpoints end at job-time 1.05, 2.1, 3.6 (durable), 4.65, 5.7, 7.2 (durable), 8.25,
9.3, 10.8 (durable); the job ends at 11.8.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from relplan.sim import distributions
from relplan.sim.compiled import TRACE_COLUMNS, TraceBuffer
from relplan.sim.engine import TrialOutcomes, walk_trial
from relplan.sim.model import SimulationModel
from relplan.sim.trace import _expand
from relplan.vocab import BUCKETS
from tests.conftest import make_model

exp = distributions.exponential
fixed = distributions.fixed

ONE_TIER = {"work": 10.0, "interval": 3.0, "write": 0.5, "restart": 1.0}
NEVER = exp(1e9)
"""A lifetime so long that only the failures a test feeds in happen."""


def _mode(**fields: object) -> dict:
    return {"units": 1, "lifetime": NEVER, **fields}


def _one_tier(*modes: dict, on_fabric: bool = False) -> SimulationModel:
    model = make_model(**ONE_TIER, modes=list(modes))
    return replace(model, job=replace(model.job, storage_on_fabric=on_fabric))


def _two_tier(*modes: dict, on_fabric: bool = False) -> SimulationModel:
    model = _one_tier(*modes, on_fabric=on_fabric)
    return replace(model, job=replace(model.job, fast_interval_hours=1.0, fast_write_hours=0.05))


def _buckets(outcomes: TrialOutcomes) -> dict[str, float]:
    return dict(zip(BUCKETS, outcomes.bucket_hours[0], strict=True))


def _walk(model: SimulationModel, times: list[float], modes: list[int],
          repairs: list[float]) -> tuple[float, dict[str, float]]:  # fmt: skip
    """Wall time and buckets of a hand-fed trial, after checking its trace against them."""
    rows = np.full((10_000, TRACE_COLUMNS), -1.0)
    outcomes = walk_trial(model, times, modes, repairs, TraceBuffer.for_trial(0, rows))
    wall, b = float(outcomes.wall_hours[0]), _buckets(outcomes)
    assert sum(b.values()) == pytest.approx(wall, rel=1e-12)
    assert min(b.values()) >= -1e-12
    assert b["useful"] == pytest.approx(model.job.work_hours)
    intervals, _ = _expand(model, rows[rows[:, 2] >= 0])
    lengths = (intervals.end_hours - intervals.start_hours).groupby(intervals.bucket).sum()
    for bucket in ("rework", "detect", "waiting", "restart", "stall", "degraded"):
        assert lengths.get(bucket, 0.0) == pytest.approx(b[bucket], abs=1e-9), bucket
    # a stretched surviving segment shows its degraded time apart from its work and writes
    kept = lengths.get("useful", 0.0) + lengths.get("checkpoint", 0.0)
    assert kept == pytest.approx(b["useful"] + b["checkpoint"], abs=1e-9)
    assert intervals.end_hours.max() == pytest.approx(wall)
    return wall, b


# -- 1. checkpoint writes off or on the fabric under a degradation -----------------------


def test_a_degraded_job_writes_at_full_speed_off_the_fabric() -> None:
    # x1.5 from exposure 1 to the end (repair 100 h). Left at 1.0: 9 h of compute and
    # three 0.5 h writes. Off the fabric 9 x 1.5 + 1.5 = 15: the job ends at 16, 4.5 h
    # degraded; on it (9 + 1.5) x 1.5 = 15.75: it ends at 16.75, 5.25 h degraded.
    degraded = _mode(impact="degraded", slowdown=(1.5,))
    wall, b = _walk(_one_tier(degraded), [1.0], [0], [100.0])
    assert wall == pytest.approx(16.0)
    assert b["degraded"] == pytest.approx(4.5)
    assert b["checkpoint"] == pytest.approx(1.5)
    wall, b = _walk(_one_tier(degraded, on_fabric=True), [1.0], [0], [100.0])
    assert wall == pytest.approx(16.75)
    assert b["degraded"] == pytest.approx(5.25)
    assert b["checkpoint"] == pytest.approx(1.5)  # the slowed part of a write is degraded


def test_a_degradation_that_ends_mid_segment_off_and_on_the_fabric() -> None:
    # x2 for the first 7 h. Off the fabric: compute [0,3) takes 6 h, the write [3,3.5)
    # 0.5 h, then 0.5 h computes 0.25: job-time 3.75 at 7.0, 3.25 h extra, end 14.75.
    # On the fabric: 7 h at x2 is 3.5 h of job-time, 3.5 h extra, end 15.0.
    degraded = _mode(impact="degraded", slowdown=(2.0,))
    wall, b = _walk(_one_tier(degraded), [0.0], [0], [7.0])
    assert (wall, b["degraded"]) == pytest.approx((14.75, 3.25))
    wall, b = _walk(_one_tier(degraded, on_fabric=True), [0.0], [0], [7.0])
    assert (wall, b["degraded"]) == pytest.approx((15.0, 3.5))


def test_a_degraded_two_tier_job_off_and_on_the_fabric() -> None:
    degraded = _mode(impact="degraded", slowdown=(2.0,))
    # Slowed throughout: 10 h of compute at x2 and 1.8 h of writes = 21.8 off the fabric,
    # 2 x 11.8 = 23.6 on it.
    wall, b = _walk(_two_tier(degraded), [0.0], [0], [100.0])
    assert (wall, b["degraded"]) == pytest.approx((21.8, 10.0))
    wall, b = _walk(_two_tier(degraded, on_fabric=True), [0.0], [0], [100.0])
    assert (wall, b["degraded"]) == pytest.approx((23.6, 11.8))
    # x2 from exposure 2.5 (job-time 2.5, 0.4 h into the third segment's compute) for
    # 4 h, off the fabric: the rest of that compute 1.2 h, the durable write 0.5 h, the
    # fourth segment's compute 2 h, its fast write 0.05 h, then 0.25 h computes 0.125:
    # job-time 4.775, 0.6 + 1 + 0.125 = 1.725 h extra.
    wall, b = _walk(_two_tier(degraded), [2.5], [0], [4.0])
    assert (wall, b["degraded"]) == pytest.approx((11.8 + 1.725, 1.725))
    # on the fabric 4 h at x2 is 2 h of job-time, 2 h extra
    wall, b = _walk(_two_tier(degraded, on_fabric=True), [2.5], [0], [4.0])
    assert (wall, b["degraded"]) == pytest.approx((11.8 + 2.0, 2.0))


def _reference_wall(model: SimulationModel, windows: list[tuple[float, float]],
                    slowdowns: tuple[float, ...]) -> tuple[float, float]:  # fmt: skip
    """Wall time and degraded hours of a job slowed over ``windows`` (start, length; the
    slowdown by how many are open at once), walked piece by piece: O(checkpoints)."""
    job = model.job
    pieces = []  # (job-time, slowed?)
    segment, every = job.segment_hours, job.durable_every
    done = 0.0
    number = 0
    while job.work_hours - done > segment * (1 + 1e-12):
        number += 1
        durable = number % every == 0
        write = job.write_hours if durable else job.fast_write_hours
        pieces += [(segment, True), (write, job.storage_on_fabric)]
        done += segment
    pieces.append((job.work_hours - done, True))
    edges = sorted({t for start, length in windows for t in (start, start + length)})

    def slowdown_at(t: float) -> float:
        count = sum(start <= t < start + length for start, length in windows)
        return 1.0 if count == 0 else slowdowns[min(count, len(slowdowns)) - 1]

    t = degraded = 0.0
    for length, slowed in pieces:
        left = length
        while left > 1e-15:
            rate = 1.0 / slowdown_at(t) if slowed else 1.0
            change = next((e for e in edges if e > t), np.inf)
            if rate * (change - t) >= left:
                degraded += left / rate - left
                t += left / rate
                left = 0.0
            else:
                left -= rate * (change - t)
                degraded += (change - t) * (1.0 - rate)
                t = change
    return t, degraded


@settings(max_examples=150, deadline=None)
@given(
    starts=st.lists(st.floats(min_value=0.0, max_value=20.0), max_size=8).map(sorted),
    lengths=st.lists(st.floats(min_value=0.0, max_value=6.0), min_size=8, max_size=8),
    two_tiers=st.booleans(),
    on_fabric=st.booleans(),
)
def test_closed_form_slowed_segments_match_a_piece_by_piece_walk(
    starts, lengths, two_tiers, on_fabric
) -> None:
    """The walk's closed form over whole and partial segments against a reference that
    steps through every compute and write."""
    slowdowns = (1.5, 2.5, 3.0)
    build = _two_tier if two_tiers else _one_tier
    model = build(_mode(impact="degraded", slowdown=slowdowns), on_fabric=on_fabric)
    windows = list(zip(starts, lengths[: len(starts)], strict=True))
    outcomes = walk_trial(model, starts, [0] * len(starts), [w for _, w in windows])
    wall, degraded = _reference_wall(model, windows, slowdowns)
    assert outcomes.wall_hours[0] == pytest.approx(wall, rel=1e-12, abs=1e-12)
    assert _buckets(outcomes)["degraded"] == pytest.approx(degraded, rel=1e-12, abs=1e-12)


# -- 2. overlapping stalls count their union ----------------------------------------------


def test_overlapping_stalls_count_their_union() -> None:
    stall = _mode(impact="transient", stall=0.5)
    # [2.0, 2.5) and [2.3, 2.8): stalled 0.8 h, not 1.0; the job ends at 11.5 + 0.8
    wall, b = _walk(_one_tier(stall), [2.0, 2.3], [0, 0], [0.0, 0.0])
    assert (wall, b["stall"]) == pytest.approx((12.3, 0.8))
    # a chain: [2.0, 2.5), [2.3, 2.8), [2.6, 3.1): 1.1 h
    wall, b = _walk(_one_tier(stall), [2.0, 2.3, 2.6], [0, 0, 0], [0.0] * 3)
    assert (wall, b["stall"]) == pytest.approx((12.6, 1.1))
    # one inside another: [2.0, 3.0) holds [2.3, 2.5): 1.0 h
    long_and_short = [_mode(impact="transient", stall=1.0), stall]
    wall, b = _walk(_one_tier(*long_and_short), [2.0, 2.3], [0, 1], [0.0, 0.0])
    assert (wall, b["stall"]) == pytest.approx((12.5, 1.0))
    # stalls that do not overlap add up
    wall, b = _walk(_one_tier(stall), [2.0, 2.5], [0, 0], [0.0, 0.0])
    assert (wall, b["stall"]) == pytest.approx((12.5, 1.0))


# -- 3. a stall during a restart holds the restart up --------------------------------------

FATAL = _mode(detect=0.1, repair=fixed(2.0))


def test_a_stall_during_a_restart_extends_it() -> None:
    # Fatal at 5.0: one checkpoint kept, 1.5 h rework, detect 0.1, wait 2, restart from
    # exposure 5.0. A 0.3 h stall at 5.4 pauses it: it ends at 6.3, not 6.0; then 8 h of
    # job: exposure 14.3, wall 16.4.
    model = _one_tier(FATAL, _mode(impact="transient", stall=0.3))
    wall, b = _walk(model, [5.0, 5.4], [0, 1], [2.0, 0.0])
    assert wall == pytest.approx(16.4)
    assert b["restart"] == pytest.approx(1.0)
    assert b["stall"] == pytest.approx(0.3)
    assert b["rework"] == pytest.approx(1.5)
    # two overlapping stalls in the restart: [5.4, 5.7) and [5.6, 5.9) hold it 0.5 h
    wall, b = _walk(model, [5.0, 5.4, 5.6], [0, 1, 1], [2.0, 0.0, 0.0])
    assert (wall, b["restart"], b["stall"]) == pytest.approx((16.6, 1.0, 0.5))


def test_a_fatal_failure_cuts_a_stalled_restart_short() -> None:
    # As above; a second fatal failure at 5.5 ends the stall after 0.1 h, with 0.4 h of
    # the restart done. Another detect 0.1 and wait 2, a whole restart [5.5, 6.5), then
    # 8 h of job: exposure 14.5, wall 14.5 + 4.2.
    model = _one_tier(FATAL, _mode(impact="transient", stall=0.3))
    wall, b = _walk(model, [5.0, 5.4, 5.5], [0, 1, 0], [2.0, 0.0, 2.0])
    assert wall == pytest.approx(18.7)
    assert b["restart"] == pytest.approx(0.4 + 1.0)
    assert b["stall"] == pytest.approx(0.1)
    assert b["rework"] == pytest.approx(1.5)


def test_an_elastic_stall_during_a_restart_extends_it() -> None:
    # Detection and reconfiguration of an elastic failure (0.15 h) at 5.4 hold the
    # restart up as a transient stall does (no slowdown after it here).
    elastic = _mode(impact="elastic", stall=0.15, slowdown=(1.0,))
    wall, b = _walk(_one_tier(FATAL, elastic), [5.0, 5.4], [0, 1], [2.0, 1.0])
    assert (wall, b["restart"], b["stall"]) == pytest.approx((16.25, 1.0, 0.15))


# -- 4. rework is everything since the last surviving checkpoint ---------------------------


def test_a_fatal_failure_rolls_back_slowed_time_and_stalls() -> None:
    # Checkpoint 1 at 3.5. x2 over [4.0, 5.0): job-time 4.0 -> 4.5, 0.5 h extra; a 0.25 h
    # stall at 5.5; fatal at 6.0 with job-time 5.25. Everything since the checkpoint is
    # rework: 6.0 - 3.5 = 1.75 of job-time + 0.5 slowed + 0.25 stalled = 2.5. (The
    # engine used to book the same 2.5 h as 1.75 rework, 0.5 degraded and 0.25 stall:
    # the wall time does not move.) Detect 0.1, wait 2, restart [6, 7), 8 h more:
    # exposure 15, wall 17.1.
    model = _one_tier(FATAL, _mode(impact="degraded", slowdown=(2.0,)),
                      _mode(impact="transient", stall=0.25))
    wall, b = _walk(model, [4.0, 5.5, 6.0], [1, 2, 0], [1.0, 0.0, 2.0])
    assert wall == pytest.approx(17.1)
    assert b["rework"] == pytest.approx(2.5)
    assert b["degraded"] == 0.0
    assert b["stall"] == 0.0


def test_slowed_time_before_the_checkpoint_survives() -> None:
    # x2 over [2.0, 5.0) straddles checkpoint 1: compute [2,3) takes 2 h (1 h extra),
    # the write ends at 4.5, then 0.5 h computes 0.25 (0.25 h extra). Fatal at 5.5: the
    # 1 h extra before the checkpoint stays degraded, the 0.25 after it is rework with the
    # 0.75 h of job-time: 5.5 - 4.5 = 1.0 h. Restart [5.5, 6.5), 8 h: wall 14.5 + 2.1.
    model = _one_tier(FATAL, _mode(impact="degraded", slowdown=(2.0,)))
    wall, b = _walk(model, [2.0, 5.5], [1, 0], [3.0, 2.0])
    assert wall == pytest.approx(16.6)
    assert b["degraded"] == pytest.approx(1.0)
    assert b["rework"] == pytest.approx(1.0)
    # with storage on the fabric the write is slowed too: it ends at 5.0, then 0 h of
    # slowed compute; job-time 4.0 at the failure, 0.5 h rework, 1.5 h degraded
    on_fabric = _one_tier(FATAL, _mode(impact="degraded", slowdown=(2.0,)), on_fabric=True)
    wall, b = _walk(on_fabric, [2.0, 5.5], [1, 0], [3.0, 2.0])
    assert wall == pytest.approx(16.6)
    assert b["degraded"] == pytest.approx(1.5)
    assert b["rework"] == pytest.approx(0.5)


@pytest.mark.parametrize("loses_fast", [False, True])
def test_a_lost_fast_tier_rolls_back_slowed_time_and_stalls(loses_fast: bool) -> None:
    # Two tiers. x2 over [1.5, 2.0) in the second segment: 0.25 h extra, before the
    # durable checkpoint 3 (job-time 3.6, exposure 3.85). x2 over [4.25, 5.25): job-time
    # 4.0 -> 4.5, 0.5 h extra; a 0.2 h stall at 5.25; fast checkpoint 4 (job-time 4.65)
    # at 5.6; fatal at 6.1 with job-time 5.15.
    model = _two_tier(_mode(loses_fast=loses_fast), _mode(impact="degraded", slowdown=(2.0,)),
                      _mode(impact="transient", stall=0.2))
    wall, b = _walk(model, [1.5, 4.25, 5.25, 6.1], [1, 1, 2, 0], [0.5, 1.0, 0.0, 0.0])
    if loses_fast:
        # Back to the durable checkpoint 3: the 0.5 h since checkpoint 4, and checkpoint
        # 4's 1.05 h with its 0.5 h slowed and 0.2 h stalled: 2.25 = 6.1 - 3.85. Restart
        # [6.1, 7.1), then 11.8 - 3.6 = 8.2 h: 15.3.
        assert b["rework"] == pytest.approx(2.25)
        assert b["degraded"] == pytest.approx(0.25)
        assert b["stall"] == 0.0
        assert wall == pytest.approx(15.3)
    else:
        # Back to checkpoint 4 only: 0.5 h rework; restart, then 11.8 - 4.65 = 7.15 h.
        assert b["rework"] == pytest.approx(0.5)
        assert b["degraded"] == pytest.approx(0.75)
        assert b["stall"] == pytest.approx(0.2)
        assert wall == pytest.approx(6.1 + 1.0 + 7.15)


@pytest.mark.parametrize("on_fabric", [False, True])
def test_a_lost_fast_tier_after_one_stretch_across_a_durable_checkpoint(on_fabric: bool) -> None:
    # x2 over [2.5, 8.5) from job-time 2.5, in one stretch across the durable checkpoint 3
    # and fast checkpoints after it; a failure that loses the fast tier at 9.0 rolls back
    # to checkpoint 3. Restart [9, 10), then 8.2 h: wall 18.2 either way.
    model = _two_tier(_mode(loses_fast=True), _mode(impact="degraded", slowdown=(2.0,)),
                      on_fabric=on_fabric)
    wall, b = _walk(model, [2.5, 9.0], [1, 0], [6.0, 0.0])
    assert wall == pytest.approx(18.2)
    if on_fabric:
        # everything at x2: checkpoint 3 at exposure 2.5 + 2 x 1.1 = 4.7, 1.1 h extra
        # before it; job-time 5.5 at 8.5, 6.0 at 9.0
        assert b["degraded"] == pytest.approx(1.1)
        assert b["rework"] == pytest.approx(9.0 - 4.7)
    else:
        # compute at x2: checkpoint 3 at 2.5 + 1.2 + 0.5 = 4.2, 0.6 h extra before it;
        # checkpoints 4 and 5 at 6.25 and 8.3, job-time 5.8 at 8.5, 6.3 at 9.0
        assert b["degraded"] == pytest.approx(0.6)
        assert b["rework"] == pytest.approx(9.0 - 4.2)


@pytest.mark.slow  # a property test of many walks (about 14 s)
@settings(max_examples=150, deadline=None)
@given(
    times=st.lists(st.floats(min_value=0.0, max_value=30.0), max_size=20).map(sorted),
    kinds=st.lists(st.integers(min_value=0, max_value=4), min_size=20, max_size=20),
    repairs=st.lists(st.floats(min_value=0.0, max_value=4.0), min_size=20, max_size=20),
    two_tiers=st.booleans(),
    on_fabric=st.booleans(),
)
def test_any_stream_books_what_its_trace_shows(times, kinds, repairs, two_tiers,
                                               on_fabric) -> None:  # fmt: skip
    """Whatever happens, the rollback bookkeeping (kept in O(1) per event) agrees with the
    trace, which relabels what each failure rolls back from the timeline itself."""
    modes = [_mode(detect=0.05), _mode(detect=0.05, loses_fast=True),
             _mode(impact="degraded", slowdown=(1.5, 2.0)),
             _mode(impact="transient", stall=0.2, soft_slowdown=1.3, soft_hours=0.5),
             _mode(impact="elastic", stall=0.1, slowdown=(1.25,), soft_hours=0.2)]
    model = (_two_tier if two_tiers else _one_tier)(*modes, on_fabric=on_fabric)
    # _walk checks every bucket against the trace; the job never beats its failure-free time
    wall, b = _walk(model, times, kinds[: len(times)], repairs[: len(times)])
    failure_free = _walk(model, [], [], [])[0]
    assert wall >= failure_free - 1e-9
    assert b["rework"] >= -1e-12 and b["stall"] >= -1e-12
