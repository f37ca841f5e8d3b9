"""The engine against Daly's closed form, hand-worked timelines, and itself."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from relplan.errors import InfeasibleJobError
from relplan.sim import distributions, timeline
from relplan.sim.closed_forms import checkpoint_count, expected_wall_hours
from relplan.sim.compiled import EventWindow, TrialState, TrialStreams, compile_model
from relplan.sim.engine import (
    BLOCK_TRIALS,
    block_seed,
    simulate,
    simulate_block,
    walk_block,
    walk_trial,
)
from relplan.sim.rng import seed_states
from relplan.vocab import BUCKETS
from tests.conftest import make_model, z_score

exp = distributions.exponential
fixed = distributions.fixed

# (label, job numbers in hours, failure modes). Each mode: units, mean life, detect, repair.
DALY_CASES = [
    (
        "plain",
        {"work": 200.0, "interval": 2.0, "write": 0.1, "restart": 0.2},
        [{"units": 100, "lifetime": exp(2000.0)}],
    ),
    (
        "restart-failures",
        {"work": 100.0, "interval": 1.0, "write": 0.05, "restart": 1.0},
        [{"units": 8, "lifetime": exp(32.0), "detect": 0.05}],
    ),
    (
        "waiting-for-repair",
        {"work": 150.0, "interval": 1.5, "write": 0.1, "restart": 0.25},
        [{"units": 50, "lifetime": exp(500.0), "detect": 0.1, "repair": fixed(3.0)}],
    ),
    (
        "two-classes",
        {"work": 100.0, "interval": 1.2, "write": 0.08, "restart": 0.3},
        [
            {"units": 64, "lifetime": exp(640.0), "detect": 0.01, "repair": exp(2.0)},
            {"units": 10, "lifetime": exp(200.0), "detect": 0.2, "repair": fixed(0.5)},
        ],
    ),
    (
        "long-write-partial-last-segment",
        {"work": 61.0, "interval": 3.0, "write": 1.0, "restart": 0.5},
        [{"units": 1, "lifetime": exp(5.0), "detect": 0.02, "repair": fixed(0.3)}],
    ),
]


def _daly_downtime(modes: list[dict]) -> tuple[float, float]:
    """Job MTBF and the rate-weighted mean downtime (detect + repair wait), hours."""
    rates = np.array([m["units"] / m["lifetime"].mean_hours for m in modes])
    downtime = np.array(
        [m.get("detect", 0.0) + m.get("repair", fixed(0.0)).mean_hours for m in modes]
    )
    return 1.0 / rates.sum(), float((rates * downtime).sum() / rates.sum())


@pytest.mark.parametrize(("label", "job", "modes"), DALY_CASES, ids=[c[0] for c in DALY_CASES])
def test_mean_wall_time_agrees_with_daly(label: str, job: dict, modes: list[dict]) -> None:
    model = make_model(**job, modes=modes)
    outcomes = simulate(model, trials=4000, seed=2024)
    mtbf, downtime = _daly_downtime(modes)
    exact = expected_wall_hours(
        job["work"], job["interval"], job["write"], mtbf, job["restart"], downtime
    )
    assert abs(z_score(outcomes.wall_hours, exact)) < 4
    # A closed form that ignored failures during restarts would be detectably off
    # when restarts are long against the MTBF.
    if label == "restart-failures":
        no_restart_failures = (
            expected_wall_hours(job["work"], job["interval"], job["write"], mtbf, 0.0, downtime)
            + job["restart"] * job["work"] / mtbf
        )
        assert abs(z_score(outcomes.wall_hours, no_restart_failures)) > 4


def test_ample_spares_remove_waiting() -> None:
    modes = [
        {
            "units": 50,
            "lifetime": exp(500.0),
            "detect": 0.1,
            "repair": fixed(100.0),
            "uses_spares": True,
        }
    ]
    job = {"work": 150.0, "interval": 1.5, "write": 0.1, "restart": 0.25}
    model = make_model(**job, modes=modes, spares=200)
    outcomes = simulate(model, trials=3000, seed=5)
    waiting = outcomes.bucket_hours[:, BUCKETS.index("waiting")]
    assert np.all(waiting == 0.0)
    assert np.array_equal(outcomes.spares_used, outcomes.interruptions_by_mode[:, 0])
    exact = expected_wall_hours(150.0, 1.5, 0.1, 10.0, 0.25, 0.1)
    assert abs(z_score(outcomes.wall_hours, exact)) < 4


def test_without_spares_every_failure_waits_its_repair() -> None:
    modes = [
        {
            "units": 50,
            "lifetime": exp(500.0),
            "detect": 0.1,
            "repair": fixed(3.0),
            "uses_spares": True,
        }
    ]
    model = make_model(work=50.0, interval=1.0, write=0.05, restart=0.2, modes=modes, spares=0)
    outcomes = simulate(model, trials=500, seed=1)
    waiting = outcomes.bucket_hours[:, BUCKETS.index("waiting")]
    detect = outcomes.bucket_hours[:, BUCKETS.index("detect")]
    assert np.allclose(waiting, 3.0 * outcomes.interruptions_by_mode[:, 0])
    assert np.allclose(detect, 0.1 * outcomes.interruptions_by_mode[:, 0])


def test_buckets_sum_to_wall_and_useful_is_the_work() -> None:
    _, job, modes = DALY_CASES[3]
    outcomes = simulate(make_model(**job, modes=modes), trials=1500, seed=3)
    assert np.allclose(outcomes.bucket_hours.sum(axis=1), outcomes.wall_hours, rtol=1e-12)
    assert np.allclose(outcomes.bucket_hours[:, BUCKETS.index("useful")], job["work"])
    assert np.all(outcomes.bucket_hours >= 0.0)
    assert np.all(outcomes.bucket_hours[:, BUCKETS.index("degraded")] == 0.0)
    assert np.all(outcomes.bucket_hours[:, BUCKETS.index("stall")] == 0.0)


def test_failure_free_job_takes_work_plus_checkpoints() -> None:
    model = make_model(work=10.0, interval=3.0, write=0.5, restart=1.0, modes=[])
    outcomes = simulate(model, trials=10, seed=0)
    assert checkpoint_count(10.0, 3.0) == 3
    assert np.allclose(outcomes.wall_hours, 10.0 + 3 * 0.5)


# -- hand-worked timelines: W = 10, tau = 3, delta = 0.5, R = 1 ----------------------------
HAND_JOB = {"work": 10.0, "interval": 3.0, "write": 0.5, "restart": 1.0}
HAND_MODE = {"units": 1, "lifetime": exp(1e9), "detect": 0.1, "repair": fixed(2.0)}


def _buckets(outcomes) -> dict[str, float]:
    return dict(zip(BUCKETS, outcomes.bucket_hours[0], strict=True))


def test_hand_worked_failure_while_computing() -> None:
    # Segments: compute [0,3) write [3,3.5) compute [3.5,6.5) ... Failure at 5.0:
    # one checkpoint done (3 h kept), 1.5 h lost; detect 0.1, wait 2, restart [5,6);
    # then 7 h of work left: 2 checkpoints and 1 h, 8 h: ends at exposure 14.
    model = make_model(**HAND_JOB, modes=[HAND_MODE])
    outcomes = walk_trial(model, [5.0], [0], [2.0])
    b = _buckets(outcomes)
    assert b["useful"] == pytest.approx(10.0)
    assert b["rework"] == pytest.approx(1.5)
    assert b["checkpoint"] == pytest.approx(1.5)
    assert b["detect"] == pytest.approx(0.1)
    assert b["waiting"] == pytest.approx(2.0)
    assert b["restart"] == pytest.approx(1.0)
    assert outcomes.wall_hours[0] == pytest.approx(14.0 + 2.1)


def test_hand_worked_failure_during_restart() -> None:
    # As above, then a second failure at 5.4, 0.4 h into the restart: the restart
    # starts again, from 5.4 to 6.4, and the job ends at exposure 14.4.
    model = make_model(**HAND_JOB, modes=[HAND_MODE])
    outcomes = walk_trial(model, [5.0, 5.4], [0, 0], [2.0, 2.0])
    b = _buckets(outcomes)
    assert b["restart"] == pytest.approx(1.4)
    assert b["rework"] == pytest.approx(1.5)
    assert b["detect"] == pytest.approx(0.2)
    assert b["waiting"] == pytest.approx(4.0)
    assert outcomes.wall_hours[0] == pytest.approx(14.4 + 4.2)
    assert outcomes.interruptions_by_mode[0, 0] == 2


def test_hand_worked_failure_during_a_checkpoint_write_loses_it() -> None:
    # Failure at 3.2, 0.2 h into the first write: that checkpoint is lost, 3.2 h rework.
    model = make_model(**HAND_JOB, modes=[HAND_MODE])
    outcomes = walk_trial(model, [3.2], [0], [2.0])
    b = _buckets(outcomes)
    assert b["rework"] == pytest.approx(3.2)
    assert b["checkpoint"] == pytest.approx(1.5)  # three writes in the successful run
    assert outcomes.wall_hours[0] == pytest.approx(3.2 + 2.1 + 1.0 + 11.5)


def test_hand_worked_failure_in_last_segment_and_after_the_end() -> None:
    # Failure-free the job ends at exposure 11.5; a failure at 11.0 is in the last
    # segment (after the third checkpoint at 10.5): 0.5 h lost. One at 20 never happens.
    model = make_model(**HAND_JOB, modes=[HAND_MODE])
    outcomes = walk_trial(model, [11.0, 20.0 + 3.1], [0, 0], [2.0, 2.0])
    b = _buckets(outcomes)
    assert b["rework"] == pytest.approx(0.5)
    assert outcomes.interruptions_by_mode[0, 0] == 1
    assert outcomes.wall_hours[0] == pytest.approx(11.0 + 2.1 + 1.0 + 1.0)


def test_hand_worked_spare_pool() -> None:
    # One spare, repair 10 h. Failure at exposure 5 (wall 5, noticed 5.1): the spare
    # goes in, back at 15.1 is the repaired unit. Failure at exposure 7 (wall 7.1,
    # noticed 7.2): the pool is empty; the repaired unit returns at 15.1, before the
    # new failure's own repair (17.2), so the job waits 7.9 h and takes it.
    mode = {**HAND_MODE, "repair": fixed(10.0), "uses_spares": True}
    model = make_model(**HAND_JOB, modes=[mode], spares=1)
    outcomes = walk_trial(model, [5.0, 7.0], [0, 0], [10.0, 10.0])
    b = _buckets(outcomes)
    assert outcomes.spares_used[0] == 2
    assert b["waiting"] == pytest.approx(7.9)
    assert b["rework"] == pytest.approx(2.5)
    assert b["restart"] == pytest.approx(2.0)
    assert outcomes.wall_hours[0] == pytest.approx(16.0 + 8.1)


# -- reproducibility ----------------------------------------------------------------------


def test_same_seed_same_numbers_whatever_the_workers() -> None:
    _, job, modes = DALY_CASES[3]
    model = make_model(**job, modes=modes)
    trials = 2 * BLOCK_TRIALS + 300
    serial = simulate(model, trials, seed=99, workers=1)
    threaded = simulate(model, trials, seed=99, workers=2)
    assert np.array_equal(serial.wall_hours, threaded.wall_hours)
    assert np.array_equal(serial.bucket_hours, threaded.bucket_hours)
    assert np.array_equal(serial.interruptions_by_mode, threaded.interruptions_by_mode)
    other = simulate(model, trials, seed=100)
    assert not np.array_equal(serial.wall_hours, other.wall_hours)


def test_blocks_are_seeded_independently_of_their_neighbours() -> None:
    """Block b's numbers come from (seed, b) alone, so any split of blocks agrees."""
    _, job, modes = DALY_CASES[0]
    model = make_model(**job, modes=modes)
    whole = simulate(model, 2 * BLOCK_TRIALS, seed=4)
    second_alone = simulate_block(model, BLOCK_TRIALS, block_seed(4, 1))
    assert np.array_equal(whole.wall_hours[BLOCK_TRIALS:], second_alone.wall_hours)


# -- exactness of the windowed sampling --------------------------------------------------


def _brute_force_weibull(model, trials: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Per-unit lifetimes drawn one by one (O(units) per trial), then the same walk."""
    rng = np.random.default_rng(seed)
    mode = model.modes[0]
    walls, counts = np.empty(trials), np.empty(trials)
    horizon = 20.0 * model.job.work_hours
    for trial in range(trials):
        times = []
        for _ in range(mode.job_units):
            t = float(mode.lifetime.equilibrium_ppf(rng.random()))
            while t < horizon:
                times.append(t)
                t += float(mode.lifetime.sample(rng, 1)[0])
        times.sort()
        outcome = walk_trial(model, times, [0] * len(times), [0.0] * len(times))
        walls[trial] = outcome.wall_hours[0]
        counts[trial] = outcome.interruptions_by_mode[0, 0]
    return walls, counts


@pytest.mark.parametrize("shape", [0.6, 1.5])
def test_windowed_sampling_matches_per_unit_brute_force(shape: float) -> None:
    lifetime = distributions.weibull_from_mean(shape, 200.0)
    model = make_model(
        work=40.0,
        interval=1.0,
        write=0.05,
        restart=0.25,
        modes=[{"units": 20, "lifetime": lifetime, "detect": 0.1}],
    )
    engine = simulate_block(model, 3000, np.random.SeedSequence(10), window_factor=0.1)
    walls, counts = _brute_force_weibull(model, 1500, seed=11)
    for ours, reference in (
        (engine.wall_hours, walls),
        (engine.interruptions_by_mode[:, 0].astype(float), counts),
    ):
        se = math.hypot(
            ours.std(ddof=1) / math.sqrt(ours.size),
            reference.std(ddof=1) / math.sqrt(reference.size),
        )
        assert abs(ours.mean() - reference.mean()) < 4 * se


def test_window_length_does_not_change_the_distribution() -> None:
    lifetime = distributions.lognormal_from_mean(1.5, 100.0)
    model = make_model(
        work=30.0,
        interval=1.0,
        write=0.05,
        restart=0.2,
        modes=[{"units": 10, "lifetime": lifetime, "start": "new"}],
    )
    short = simulate_block(model, 4000, np.random.SeedSequence(1), window_factor=0.05)
    long = simulate_block(model, 4000, np.random.SeedSequence(2), window_factor=3.0)
    se = math.hypot(short.wall_hours.std() / 63.2, long.wall_hours.std() / 63.2)
    assert abs(short.wall_hours.mean() - long.wall_hours.mean()) < 4 * se


def test_hopeless_job_is_refused() -> None:
    model = make_model(
        work=100.0,
        interval=1.0,
        write=0.1,
        restart=5.0,
        modes=[{"units": 1000, "lifetime": exp(100.0)}],
    )
    with pytest.raises(InfeasibleJobError, match="restart"):
        simulate(model, trials=10, seed=0)


def test_on_the_fly_and_windowed_sampling_agree() -> None:
    """Exponential modes drawn inside the walk match the exact windowed sampler."""
    _, job, modes = DALY_CASES[3]
    model = make_model(**job, modes=modes)
    fly = simulate_block(model, 4000, np.random.SeedSequence(1), on_the_fly=True)
    windows = simulate_block(model, 4000, np.random.SeedSequence(2), on_the_fly=False)
    for ours, theirs in ((fly.wall_hours, windows.wall_hours),
                         (fly.interruptions_by_mode[:, 1] * 1.0,
                          windows.interruptions_by_mode[:, 1] * 1.0)):
        se = math.hypot(ours.std() / math.sqrt(ours.size), theirs.std() / math.sqrt(theirs.size))
        assert abs(ours.mean() - theirs.mean()) < 4 * se


def test_exposure_stream_is_common_to_every_interval() -> None:
    """Common random numbers: the failures a trial sees do not depend on tau."""
    _, job, modes = DALY_CASES[0]
    counts = []
    for interval in (0.5, 2.0, 8.0):
        model = make_model(**{**job, "interval": interval}, modes=modes)
        outcome = simulate(model, 500, seed=3)
        exposure = outcome.wall_hours - outcome.bucket_hours[:, BUCKETS.index("detect")]
        counts.append((outcome.interruptions_by_mode[:, 0], exposure))
    # A trial that runs longer in exposure sees the same first failures, then more.
    (c1, e1), (c2, e2) = counts[0], counts[2]
    longer = e2 > e1
    assert np.all(c2[longer] >= c1[longer])
    assert np.all(c2[~longer] <= c1[~longer])


# -- degraded and transient failures, worked by hand (W = 10, tau = 3, delta = 0.5, R = 1) --


def _hand_model(**mode: object):
    base = {"units": 1, "lifetime": exp(1e9), "detect": 0.0, "repair": fixed(0.0)}
    return make_model(**HAND_JOB, modes=[{**base, **mode}])


def test_hand_worked_degradation() -> None:
    # Half speed from exposure 2 to 5. Storage off the fabric (the default): compute
    # [2,3) of job-time takes 2 h, the write [3,3.5) its 0.5 h, then 0.5 h of wall
    # computes 0.25 h: 1.25 h of extra time; the job ends at 12.75.
    model = _hand_model(impact="degraded", slowdown=(2.0,))
    outcomes = walk_trial(model, [2.0], [0], [3.0])
    b = _buckets(outcomes)
    assert b["degraded"] == pytest.approx(1.25)
    assert b["rework"] == 0.0
    assert outcomes.wall_hours[0] == pytest.approx(12.75)
    # Storage on the fabric: the write is slowed too, 1.5 h of extra time.
    on_fabric = replace(model, job=replace(model.job, storage_on_fabric=True))
    outcomes = walk_trial(on_fabric, [2.0], [0], [3.0])
    assert _buckets(outcomes)["degraded"] == pytest.approx(1.5)
    assert outcomes.wall_hours[0] == pytest.approx(13.0)


def test_hand_worked_overlapping_degradations() -> None:
    # Failures at 1 and 2, each repaired in 2 h: x2 on [1,2), x4 on [2,3), x2 on [3,4).
    model = _hand_model(impact="degraded", slowdown=(2.0, 4.0))
    outcomes = walk_trial(model, [1.0, 2.0], [0, 0], [2.0, 2.0])
    assert _buckets(outcomes)["degraded"] == pytest.approx(0.5 + 0.75 + 0.5)
    assert outcomes.wall_hours[0] == pytest.approx(13.25)


def test_hand_worked_failure_beyond_the_survivable_count_stops_the_job() -> None:
    # Two spines: the first lost at 1 runs the job at x2 until wall 4; the second at 2
    # leaves no path: the job stops before the checkpoint at 3, so the 2 h since the
    # start (1 h at full speed, 1 h at x2: 1.5 h of job-time and 0.5 h of slowdown) are
    # rework. It waits 2 h for that spine (no detection time here), restarts (the first
    # spine is back at wall 4, when the restart begins: full speed from there) and
    # redoes the 10 h with its 3 writes.
    model = _hand_model(impact="degraded", slowdown=(2.0,), survivable=1)
    outcomes = walk_trial(model, [1.0, 2.0], [0, 0], [3.0, 2.0])
    b = _buckets(outcomes)
    assert outcomes.interruptions_by_mode[0, 0] == 1
    assert outcomes.failures_by_mode[0, 0] == 2
    assert b["rework"] == pytest.approx(2.0)
    assert b["degraded"] == pytest.approx(0.0)
    assert b["waiting"] == pytest.approx(2.0)
    assert b["restart"] == pytest.approx(1.0)
    assert outcomes.wall_hours[0] == pytest.approx(2.0 + 2.0 + 1.0 + 11.5)
    # with no limit the second loss only slows the job
    unlimited = walk_trial(_hand_model(impact="degraded", slowdown=(2.0,)),
                           [1.0, 2.0], [0, 0], [3.0, 2.0])  # fmt: skip
    assert unlimited.interruptions_by_mode[0, 0] == 0


def test_hand_worked_repair_goes_on_while_the_job_is_down() -> None:
    # Degraded x2 at exposure 2 for 10 wall hours; a fatal failure at exposure 4
    # (detect 0.1, wait 2) rolls back the 3 h of job-time and the 1 h of slowed extra
    # time in them. The degradation ends at wall 12 = exposure 9.9: 4.9 h at x2 after
    # the restart cost 2.45 h more.
    degraded = {"units": 1, "lifetime": exp(1e9), "impact": "degraded", "slowdown": (2.0,)}
    fatal = {"units": 1, "lifetime": exp(1e9), "detect": 0.1, "repair": fixed(2.0)}
    model = make_model(**HAND_JOB, modes=[degraded, fatal])
    outcomes = walk_trial(model, [2.0, 4.0], [0, 1], [10.0, 2.0])
    b = _buckets(outcomes)
    assert b["rework"] == pytest.approx(3.0 + 1.0)
    assert b["degraded"] == pytest.approx(2.45)
    assert b["waiting"] == pytest.approx(2.0)
    assert outcomes.wall_hours[0] == pytest.approx(21.05)


def test_hand_worked_transient_stall_and_soft_degradation() -> None:
    stall_only = walk_trial(_hand_model(impact="transient", stall=0.2), [2.0], [0], [0.0])
    assert _buckets(stall_only)["stall"] == pytest.approx(0.2)
    assert stall_only.wall_hours[0] == pytest.approx(11.7)
    # then x1.5 until 1 h after the stall: [2.2, 3.2) costs 1/3 h more
    soft = _hand_model(impact="transient", stall=0.2, soft_slowdown=1.5, soft_hours=1.0)
    outcomes = walk_trial(soft, [2.0], [0], [0.0])
    assert _buckets(outcomes)["degraded"] == pytest.approx(1.0 / 3.0)
    assert outcomes.wall_hours[0] == pytest.approx(11.5 + 0.2 + 1.0 / 3.0)


def test_fatal_failure_during_a_stall_cuts_it_short() -> None:
    transient = {"units": 1, "lifetime": exp(1e9), "impact": "transient", "stall": 0.5}
    fatal = {"units": 1, "lifetime": exp(1e9)}
    model = make_model(**HAND_JOB, modes=[transient, fatal])
    outcomes = walk_trial(model, [2.0, 2.2], [0, 1], [0.0, 0.0])
    b = _buckets(outcomes)
    # the stall, cut to 0.2 h, is in the rolled-back work: rework with the 2 h of compute
    assert b["stall"] == 0.0
    assert b["rework"] == pytest.approx(2.0 + 0.2)
    assert outcomes.wall_hours[0] == pytest.approx(14.7)


def test_degraded_run_never_beats_a_healthy_one_on_the_same_stream() -> None:
    _, job, modes = DALY_CASES[3]
    slowed = [{**modes[0]}, {**modes[1], "impact": "degraded", "slowdown": (1.3, 1.6)}]
    healthy = [{**modes[0]}, {**modes[1], "impact": "degraded", "slowdown": (1.0,)}]
    a = simulate(make_model(**job, modes=slowed), 1000, seed=5)
    b = simulate(make_model(**job, modes=healthy), 1000, seed=5)
    assert np.all(a.wall_hours >= b.wall_hours - 1e-9)
    assert np.all(b.bucket_hours[:, BUCKETS.index("degraded")] == 0.0)
    assert a.wall_hours.mean() > b.wall_hours.mean()


# -- two checkpoint tiers and elastic recovery, worked by hand ----------------------------


def _two_tier_model(loses_fast: bool):
    base = make_model(work=10.0, interval=3.0, write=0.5, restart=1.0,
                      modes=[{"units": 1, "lifetime": exp(1e9), "loses_fast": loses_fast}])
    return replace(base, job=replace(base.job, fast_interval_hours=1.0, fast_write_hours=0.05))


def test_failure_free_two_tier_pattern() -> None:
    # checkpoints 1,2 fast (0.05 h), 3 durable (0.5 h), ... 9 durable; then 1 h of work
    outcomes = walk_trial(_two_tier_model(False), [], [], [])
    assert outcomes.wall_hours[0] == pytest.approx(10.0 + 6 * 0.05 + 3 * 0.5)


def test_a_surviving_fast_tier_shortens_rework() -> None:
    # Failure at exposure 5.0: four checkpoints done (the 4th, fast, at 4.65): 0.35 h lost.
    survived = walk_trial(_two_tier_model(False), [5.0], [0], [0.0])
    b = _buckets(survived)
    assert b["rework"] == pytest.approx(0.35)
    assert b["checkpoint"] == pytest.approx(0.65 + 1.15)
    assert survived.wall_hours[0] == pytest.approx(13.15)
    # The same failure destroying the fast tier rolls back to the durable checkpoint 3:
    # the 4th segment (1 h of compute and its 0.05 h fast write) is lost too.
    lost = walk_trial(_two_tier_model(True), [5.0], [0], [0.0])
    b = _buckets(lost)
    assert b["rework"] == pytest.approx(0.35 + 1.05)
    assert b["checkpoint"] == pytest.approx(0.6 + 1.2)
    assert b["useful"] == pytest.approx(10.0)
    assert lost.wall_hours[0] == pytest.approx(14.2)


def test_hand_worked_elastic_continue() -> None:
    # DP 4: a failure at exposure 2 costs detect 0.05 + reconfigure 0.1 of stall, then the
    # job runs on 3 of 4 replicas (x4/3) until the unit is repaired (2 h) and rejoins
    # (0.2 h): from wall 2.15 to 4.35, 2.2 h, of which 0.5 h writes the first checkpoint
    # at full speed (storage off the fabric) and 1.7 h computes at 3/4 speed: 0.425 h
    # lost, no rework.
    elastic = {"units": 1, "lifetime": exp(1e9), "impact": "elastic", "detect": 0.05,
               "slowdown": (4 / 3, 2.0), "stall": 0.15, "soft_hours": 0.2}
    model = make_model(**HAND_JOB, modes=[elastic])
    outcomes = walk_trial(model, [2.0], [0], [2.0])
    b = _buckets(outcomes)
    assert b["rework"] == 0.0
    assert b["stall"] == pytest.approx(0.15)
    assert b["degraded"] == pytest.approx(0.425)
    assert outcomes.wall_hours[0] == pytest.approx(11.5 + 0.15 + 0.425)
    # Restarting from the checkpoint instead loses the 2 h since the start, waits for the
    # repair and restarts: elastic avoids that rework.
    restart = make_model(**HAND_JOB, modes=[{"units": 1, "lifetime": exp(1e9),
                                              "detect": 0.05}])
    b_restart = _buckets(walk_trial(restart, [2.0], [0], [2.0]))
    assert b_restart["rework"] == pytest.approx(2.0)
    assert b_restart["waiting"] == pytest.approx(2.0)


def test_trace_of_a_trial_adds_up_to_its_buckets() -> None:
    from relplan.sim.trace import trace_trial

    degraded = {"units": 20, "lifetime": exp(400.0), "impact": "degraded", "slowdown": (1.5,),
                "repair": fixed(4.0)}
    transient = {"units": 20, "lifetime": exp(400.0), "impact": "transient", "stall": 0.1}
    fatal = {"units": 20, "lifetime": exp(300.0), "detect": 0.1, "repair": fixed(1.0)}
    weibull = {"units": 10, "lifetime": distributions.weibull_from_mean(0.7, 600.0),
               "detect": 0.05}
    model = make_model(work=200.0, interval=2.0, write=0.1, restart=0.3,
                       modes=[fatal, degraded, transient, weibull])
    outcomes = simulate(model, 50, seed=4)
    for trial in (0, 17, 49):
        intervals, failures = trace_trial(model, seed=4, trial=trial, trials=50)
        lengths = (intervals.end_hours - intervals.start_hours).groupby(intervals.bucket).sum()
        b = dict(zip(BUCKETS, outcomes.bucket_hours[trial], strict=True))
        assert intervals.end_hours.max() == pytest.approx(outcomes.wall_hours[trial])
        assert lengths.sum() == pytest.approx(outcomes.wall_hours[trial])
        for bucket in ("detect", "waiting", "restart", "stall"):
            assert lengths.get(bucket, 0.0) == pytest.approx(b[bucket], abs=1e-9)
        # kept slowed running is split: its job-time in its own bucket, the time the
        # slowdown added as degraded, so that every bucket matches the walk's
        for bucket in ("useful", "rework", "checkpoint", "degraded"):
            assert lengths.get(bucket, 0.0) == pytest.approx(b[bucket], abs=1e-9)
        assert b["degraded"] > 0  # the case exercises the split
        assert len(failures) == outcomes.failures_by_mode[trial].sum()
        assert np.all(np.diff(intervals.start_hours) >= 0)


def test_alias_table_reproduces_the_weights() -> None:
    from relplan.sim.compiled import alias_table

    weights = np.array([5.0, 1.0, 0.5, 3.5, 0.0001])
    labels = [10, 11, 12, 13, 14]
    probability, alias = alias_table(weights, labels)
    mass = dict.fromkeys(labels, 0.0)
    for column, label in enumerate(labels):
        mass[label] += probability[column] / len(labels)
        mass[int(alias[column])] += (1.0 - probability[column]) / len(labels)
    assert np.allclose([mass[k] for k in labels], weights / weights.sum())


def test_mode_shares_follow_their_rates() -> None:
    modes = [{"units": 10, "lifetime": exp(1000.0 * (k + 1)), "name": f"m{k}"} for k in range(5)]
    model = make_model(work=2000.0, interval=1.0, write=0.01, restart=0.01, modes=modes)
    counts = simulate(model, 400, seed=2).failures_by_mode.sum(axis=0)
    rates = np.array([1.0 / (k + 1) for k in range(5)])
    expected = counts.sum() * rates / rates.sum()
    chi2 = float(((counts - expected) ** 2 / expected).sum())
    assert chi2 < 20.5  # chi-square, 4 degrees of freedom, p = 0.0004


@settings(max_examples=200, deadline=None)
@given(
    times=st.lists(st.floats(min_value=0.0, max_value=40.0), max_size=25).map(sorted),
    impacts=st.lists(st.sampled_from(["fatal", "degraded", "transient", "elastic"]),
                     min_size=25, max_size=25),
    repairs=st.lists(st.floats(min_value=0.0, max_value=5.0), min_size=25, max_size=25),
    spares=st.integers(min_value=0, max_value=3),
)
def test_any_failure_stream_keeps_the_books_balanced(times, impacts, repairs, spares) -> None:
    """Whatever happens, every wall hour lands in one bucket and the work gets done."""
    kinds = ["fatal", "degraded", "transient", "elastic"]
    modes = [
        {"units": 1, "lifetime": exp(1e9), "impact": kind, "detect": 0.05, "slowdown": (1.5, 2.0),
         "stall": 0.1, "soft_slowdown": 1.2, "soft_hours": 0.3, "uses_spares": True}
        for kind in kinds
    ]
    model = make_model(work=20.0, interval=2.0, write=0.2, restart=0.5, modes=modes,
                       spares=spares)
    codes = [kinds.index(kind) for kind in impacts[: len(times)]]
    outcome = walk_trial(model, times, codes, repairs[: len(times)])
    b = outcome.bucket_hours[0]
    assert np.all(b >= -1e-9)
    assert b.sum() == pytest.approx(outcome.wall_hours[0], rel=1e-9, abs=1e-9)
    assert b[BUCKETS.index("useful")] == pytest.approx(20.0)
    assert outcome.wall_hours[0] >= 20.0 + 9 * 0.2 - 1e-9


def _assert_trace_matches_buckets(model, times, modes, repairs) -> None:
    """The trace of a hand-fed trial adds up to the walk's own buckets."""
    from relplan.sim.trace import _expand

    compiled_rows = np.full((10_000, 6), -1.0)
    from relplan.sim.compiled import TraceBuffer

    state = walk_trial(model, times, modes, repairs, TraceBuffer.for_trial(0, compiled_rows))
    intervals, _ = _expand(model, compiled_rows[compiled_rows[:, 2] >= 0])
    lengths = (intervals.end_hours - intervals.start_hours).groupby(intervals.bucket).sum()
    b = dict(zip(BUCKETS, state.bucket_hours[0], strict=True))
    assert lengths.sum() == pytest.approx(state.wall_hours[0])
    for bucket in ("rework", "detect", "waiting", "restart", "stall"):
        assert lengths.get(bucket, 0.0) == pytest.approx(b[bucket], abs=1e-9), bucket
    assert np.all(np.diff(intervals.start_hours) >= -1e-12)
    assert np.all(intervals.start_hours.to_numpy()[1:] >= intervals.end_hours.to_numpy()[:-1]
                  - 1e-9)


def test_trace_shows_a_lost_fast_tier_as_rework() -> None:
    model = make_model(work=10.0, interval=4.0, write=0.5, restart=0.2,
                       modes=[{"units": 1, "lifetime": exp(100.0), "loses_fast": True}])
    model = replace(model, job=replace(model.job, fast_interval_hours=1.0,
                                       fast_write_hours=0.1))
    _assert_trace_matches_buckets(model, [3.5], [0], [0.0])


def test_trace_of_a_fatal_failure_during_stacked_stalls() -> None:
    modes = [{"units": 1, "lifetime": exp(10.0)},
             {"units": 1, "lifetime": exp(10.0), "impact": "transient", "stall": 0.3}]
    model = make_model(work=5.0, interval=2.0, write=0.25, restart=0.3, modes=modes)
    _assert_trace_matches_buckets(model, [1.0, 1.1, 1.2], [1, 1, 0], [0.0, 0.0, 1.0])


def test_a_soft_phase_runs_from_the_end_of_its_own_stall() -> None:
    transient = {"units": 1, "lifetime": exp(10.0), "impact": "transient", "stall": 0.3,
                 "soft_slowdown": 2.0, "soft_hours": 0.5}
    model = make_model(work=5.0, interval=10.0, write=0.0, restart=0.3, modes=[transient])
    one = _buckets(walk_trial(model, [1.0], [0], [0.0]))
    two = _buckets(walk_trial(model, [1.0, 1.2], [0, 0], [0.0, 0.0]))
    assert one["degraded"] == pytest.approx(0.25)
    # the stalls overlap: [1.0, 1.3) and [1.2, 1.5) stall the job 0.5 h. The second's soft
    # phase runs 1.5-2.0 at half speed (the first's, 1.3-1.8, inside it)
    assert two["degraded"] == pytest.approx(0.25)
    assert two["stall"] == pytest.approx(0.5)


def test_meta_ettr_approximation_in_the_small_loss_regime() -> None:
    """Kokolis et al. (HPCA 2025): E[ETTR] ~ (1 - N r_f (u0 + dt/2)) / (1 + w/dt) when
    N r_f (u0 + dt) << 1 (reference V5a). A first-order form: it should hold to well under
    0.1% here, not to the Monte Carlo error."""
    mtbf, restart, interval, write = 200.0, 0.2, 1.0, 0.02
    model = make_model(work=2000.0, interval=interval, write=write, restart=restart,
                       modes=[{"units": 1, "lifetime": exp(mtbf)}])
    goodput = 2000.0 / simulate(model, 4000, seed=1).wall_hours
    approximation = (1 - (restart + interval / 2) / mtbf) / (1 + write / interval)
    assert goodput.mean() == pytest.approx(approximation, rel=1e-3)


def test_a_trial_past_the_event_bound_stops_the_run() -> None:
    """A trial that walks more steps than the bound stops, unfinished, and the run raises
    (the bound is lowered to 5 here; each of the 8 failures is one step)."""
    model = _hand_model(impact="degraded", slowdown=(1.1,))
    compiled = compile_model(model, on_the_fly=False)
    small = dataclasses.replace(compiled, job=compiled.job._replace(max_events_per_trial=5))
    times = [0.5 + 0.1 * k for k in range(8)]
    state = TrialState.at_start(1, 1, 0)
    window = EventWindow(np.zeros(1, dtype=np.int64), np.array([0, 8], dtype=np.int64),
                         np.array(times), np.zeros(8, dtype=np.int64), np.full(8, 0.05),
                         np.inf)  # fmt: skip
    streams = TrialStreams(seed_states(np.uint64(0), 1), np.full(1, np.inf))
    with pytest.raises(InfeasibleJobError, match="5 failures and repairs"):
        walk_block(small, state, window, streams)
    assert state.too_many_events[0]
    assert state.events_walked[0] == 6
    assert state.wall_hours[0] == 0.0  # unfinished
    # with the shipped bound the same trial finishes
    outcomes = walk_trial(model, times, [0] * 8, [0.05] * 8)
    assert outcomes.wall_hours[0] > model.job.work_hours


def test_a_model_expected_past_the_event_bound_is_refused_before_the_work() -> None:
    """An MTBF of 0.01 h over 10 h of work: about 1,000 failures per trial are fine; over
    1,000 h of work, 100,000 are more than half the bound."""
    mode = {"units": 1, "lifetime": exp(0.01), "impact": "degraded", "slowdown": (1.1,)}
    short = make_model(work=10.0, interval=1.0, write=0.01, restart=0.1, modes=[mode])
    assert simulate(short, 4, 1).wall_hours.min() > 10.0
    long = make_model(work=1_000.0, interval=1.0, write=0.01, restart=0.1, modes=[mode])
    with pytest.raises(InfeasibleJobError, match="failures"):
        simulate(long, 4, 1)


def test_cancelled_walks_stop_at_their_next_step() -> None:
    """Ctrl-C sets the cancel flag: every walk stops where it is and the run raises."""
    model = make_model(**HAND_JOB, modes=[HAND_MODE])
    timeline.cancel_walks()
    try:
        with pytest.raises(KeyboardInterrupt):
            simulate_block(model, 500, block_seed(0, 0))
    finally:
        timeline.allow_walks()
    assert simulate_block(model, 500, block_seed(0, 0)).wall_hours.min() >= 11.5


def test_heavy_infant_mortality_is_refused_before_it_fills_the_memory() -> None:
    """A lognormal GPU lifetime with sigma 8, started new: most units fail again within
    seconds of each renewal, millions of times per trial. The window that would hold them
    is refused (it used to exhaust the memory), naming what to change."""
    infant = {"units": 1024, "lifetime": distributions.lognormal_from_mean(8.0, 5 * 8766.0),
              "start": "new", "repair": fixed(0.0)}
    model = make_model(work=720.0, interval=1.0, write=0.02, restart=0.1, modes=[infant])
    with pytest.raises(InfeasibleJobError, match="heavy infant mortality"):
        simulate(model, 50, 0)
