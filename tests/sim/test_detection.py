"""Detectors that miss failures and raise false alarms, flaps against the transport
timeout, and active probes (issue 35), against Daly's form and the thinning of a Poisson
process."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from relplan.config.loading import parse_config
from relplan.sim.closed_forms import expected_wall_hours
from relplan.sim.distributions import exponential
from relplan.sim.engine import simulate
from relplan.sim.health import flap_shares
from relplan.sim.model import build_model, ladder_rungs
from relplan.vocab import BUCKETS
from tests.conftest import assert_validate_refuses, z_score

MTBF, RESTART = 8.0, 0.1  # one server's GPUs: the job's mean time between crashes, hours


def _config(failures: dict, servers: int = 3, **extra):
    """One 8-GPU server whose GPUs crash the job every 8 h on average (a job-level
    exponential), 20 h of work, hourly free checkpoints, a 6-min restart, spares to
    spare."""
    return parse_config({
        "cluster": {"servers": servers, "gpus_per_server": 8},
        "job": {"gpus": 8, "work": "20h", "restart": f"{RESTART}h", "spares": servers - 1,
                "checkpoint": {"interval": "1h", "write": "0s"}},
        "failures": failures, **extra,
    })  # fmt: skip


def _gpu(**mode) -> dict:
    return {"gpu": {"lifetime": {"dist": "exponential", "mtbf": f"{MTBF * 8}h"},
                    "repair": {"dist": "fixed", "mean": "0s"}, **mode}}  # fmt: skip


def _bucket(outcomes, name: str) -> np.ndarray:
    return outcomes.bucket_hours[:, BUCKETS.index(name)]


def test_missed_failures_are_found_late_and_cost_dalys_downtime() -> None:
    # each crash is found 3 min after it with probability r, else 10 min after (the
    # collective timeout): Daly's form with the mean detection as its downtime, and the
    # detection hours a mixture of the two
    r, n = 0.7, 20000
    model = build_model(_config(_gpu(detect="3min", recall=r)))
    outcomes = simulate(model, n, 3)
    downtime = r * 0.05 + (1 - r) * 10 / 60
    exact = expected_wall_hours(20.0, 1.0, 0.0, MTBF, RESTART, downtime)
    assert abs(z_score(outcomes.wall_hours, exact)) < 4
    crashes = outcomes.interruptions_by_mode[:, 0].astype(float)
    late = (_bucket(outcomes, "detect") - 0.05 * crashes) / (10 / 60 - 0.05)
    assert np.allclose(late, np.round(late), atol=1e-6)  # whole crashes, each 3 or 10 min
    share_late = late.sum() / crashes.sum()
    assert abs(share_late - (1 - r)) < 4 * math.sqrt(r * (1 - r) / crashes.sum())


def test_a_perfect_detector_changes_no_number() -> None:
    plain = simulate(build_model(_config(_gpu(detect="3min"))), 300, 4)
    spelled = simulate(build_model(_config(_gpu(detect="3min", recall=1.0))), 300, 4)
    assert np.array_equal(plain.wall_hours, spelled.wall_hours)


def test_false_alarms_add_their_rate_to_dalys_interruptions() -> None:
    # f false alarms a day per 1,000 servers on the job's one server: a Poisson process
    # of rate f / 24000 per hour, each an eviction (a restart from the checkpoint, found
    # at once, a spare in: spares to spare, none waits for the flagged servers' 4-h
    # triage): Daly's form with the two rates added, the crashes' detection as the
    # downtime of their share
    f, n = 2000.0, 20000  # 2 a day on one server: one every 12 h
    model = build_model(_config(_gpu(detect="3min", false_positives=f), servers=10))
    assert [m.name for m in model.modes] == ["gpu", "gpu.false-alarm"]
    rate = 1 / MTBF + f / 24000
    downtime = (1 / MTBF) / rate * 0.05
    outcomes = simulate(model, n, 5)
    exact = expected_wall_hours(20.0, 1.0, 0.0, 1 / rate, RESTART, downtime)
    assert abs(z_score(outcomes.wall_hours, exact)) < 4
    alarms = outcomes.interruptions_by_mode[:, 1]
    assert alarms.sum() > 0 and model.job_mtti_hours == pytest.approx(1 / rate)


def test_flaps_longer_than_the_transport_timeout_crash_and_the_others_stall() -> None:
    # flaps of exponential length (mean 20 s) against a 30-s timeout: P(D > 30 s) of
    # them crash, found 30 s after; the others stall the job E[D | D <= 30 s]
    flap = {"dist": "exponential", "mean": "20s"}
    config = _config(_gpu(flap=flap), network={"failover": {"transport_timeout": "30s"}})
    model = build_model(config)
    assert [m.name for m in model.modes] == ["gpu", "gpu.flap-stall"]
    n = 4000
    outcomes = simulate(model, n, 6)
    crashes, stalls = outcomes.failures_by_mode[:, 0], outcomes.failures_by_mode[:, 1]
    total = crashes.sum() + stalls.sum()
    p = math.exp(-1.5)
    assert abs(crashes.sum() / total - p) < 4 * math.sqrt(p * (1 - p) / total)
    share, stall = flap_shares(exponential(20 / 3600), 30 / 3600)
    assert share == pytest.approx(p)
    assert stall * 3600 == pytest.approx(20 - 30 * p / (1 - p))  # E[D | D <= t], by hand
    assert model.modes[1].stall_hours == pytest.approx(stall)
    assert model.modes[0].detect_hours == pytest.approx(30 / 3600)


def test_a_probe_finds_its_share_ahead_and_costs_its_pauses() -> None:
    # a 6-min probe every 24 h of running (a 1/240 tax) covering 80% of the GPU's
    # failures, which show 6 h ahead: 0.8 x 6 / 24 = 20% of them are found and drained
    # at the next checkpoint (no rework), the rest crash
    config = _config(_gpu(latent="6h"), health={"probe": {
        "every": "24h", "duration": "6min", "coverage": {"gpu": 0.8}}})
    model = build_model(config)
    assert [m.name for m in model.modes] == ["gpu", "gpu.probe-found"]
    assert model.job.step_overhead == pytest.approx(0.1 / 24)
    n = 4000
    outcomes = simulate(model, n, 7)
    found, crashed = outcomes.failures_by_mode[:, 1].sum(), outcomes.failures_by_mode[:, 0].sum()
    total = found + crashed
    assert abs(found / total - 0.2) < 4 * math.sqrt(0.16 / total)


@pytest.mark.parametrize(("keys", "key"), [
    (["failures.gpu.recall=1.5"], "failures.gpu.recall"),
    (["failures.gpu.false_positives=-1"], "failures.gpu.false_positives"),
    (['failures.hbm.impact="corruption"', "failures.hbm.recall=0.5"], "failures.hbm.recall"),
    (['failures.gpu.lifetime={ dist = "weibull", shape = 0.8, mtbf = "10y" }',
      'failures.gpu.flap={ dist = "exponential", mean = "20s" }'], "failures.gpu.flap"),
    (['health.probe={ every = "1h", duration = "2h" }'], "health.probe"),
    (['health.probe={ every = "24h", duration = "5min", coverage = { tpu = 0.5 } }'],
     "health.probe.coverage.tpu"),
    (['failures.gpu.impact="slow"', 'failures.gpu.reroute={ slowdown = 1.1 }'],
     "failures.gpu.reroute"),
    (['failures.gpu.impact="slow"', 'failures.gpu.mitigation="ladder"',
      'failures.gpu.reroute={ slowdown = 1.3 }'], "failures.gpu.reroute"),
])  # fmt: skip
def test_bad_detectors_and_probes_name_their_key(keys: list[str], key: str) -> None:
    assert_validate_refuses(keys, key)


def _predicted(recall: float, precision: float = 1.0, lead: str = "6min", **job):
    predictor = {"modes": ["gpu"], "recall": recall, "precision": precision, "lead": lead}
    config = _config(_gpu(detect="0s"), health={"predictor": predictor})
    return build_model(config.with_overrides({"job.checkpoint.write": "6min", **job}))


def test_a_predictor_of_recall_zero_changes_no_number() -> None:
    plain = build_model(_config(_gpu(detect="0s")).with_overrides(
        {"job.checkpoint.write": "6min"}))
    assert np.array_equal(simulate(_predicted(0.0), 300, 8).wall_hours,
                          simulate(plain, 300, 8).wall_hours)


def test_warned_failures_cost_a_checkpoint_and_a_restart_and_no_rework() -> None:
    # every failure warned of 6 min ahead (the write): a stall of the write and the
    # restart, nothing redone; 25% precision adds three false warnings per failure, each
    # a 6-min checkpoint for nothing
    model = _predicted(1.0, precision=0.25)
    assert [m.name for m in model.modes] == ["gpu.predicted", "predictor.false-warning"]
    n = 4000
    outcomes = simulate(model, n, 9)
    warned = outcomes.failures_by_mode[:, 0].astype(float)
    false = outcomes.failures_by_mode[:, 1].astype(float)
    assert np.allclose(_bucket(outcomes, "rework"), 0.0)
    # each stall its action's hours, less where one begins inside another
    stall, booked = _bucket(outcomes, "stall"), warned * 0.2 + false * 0.1
    assert np.all(stall <= booked + 1e-9) and stall.sum() > 0.9 * booked.sum()
    assert abs(false.sum() / warned.sum() - 3.0) < 4 * math.sqrt(3.0 * 4 / warned.sum())


def test_the_optimum_with_exact_predictions_is_aupys() -> None:
    # Aupy, Robert, Vivien and Zaidouni (JPDC 2014): with exact predictions of recall r
    # (the warned failures cost no rework, whatever the period), the optimal period is
    # Young's for the failures missed, sqrt(2 mu C / (1 - r)); the Monte Carlo optimum's
    # 95% CI holds the exact optimum of Daly's cost at that MTTI, and Aupy's first-order
    # figure is within its first-order error (C, as Young's is of Daly's) of it
    from relplan.analysis.optimize import optimize_interval
    from relplan.sim.closed_forms import exact_interval

    r = 0.6
    model = _predicted(r, lead="6min", **{"job.work": "200h"})
    result = optimize_interval(model, trials=1500, seed=12)
    missed_mtti = MTBF / (1 - r)
    low, high = result.mc_optimal_ci95
    assert low <= exact_interval(0.1, missed_mtti) <= high
    aupy = math.sqrt(2 * MTBF * 0.1 / (1 - r))
    assert abs(aupy - exact_interval(0.1, missed_mtti)) < 0.1
    assert low <= aupy * (1 + 0.1 / aupy) ** -1 <= high or abs(aupy - high) < 0.1


def test_a_burn_in_swaps_the_lemons_it_finds_and_reports_its_cost() -> None:
    # 20% of the GPUs are lemons failing 20x as often; a burn-in finding 75% of them
    # leaves 5%. Its cost: 12 h over the job's server and its two spares (24 GPUs)
    lemons = {"lemons": {"share": 0.2, "factor": 20.0}}
    burn_in = {"burn_in": {"duration": "12h", "catches": "75%"}}
    with_burn_in = build_model(_config(_gpu(**lemons), health=burn_in))
    assert with_burn_in.modes[0].history.lemon_share == pytest.approx(0.05)
    assert with_burn_in.job.burn_in_gpu_hours == pytest.approx(12 * 24)
    # catching every lemon leaves the failures of a fleet without any (a Poisson count
    # of 8 GPUs x 20 h / 64 h, plus the rework's: compared by the mean, 4 SE)
    every = build_model(_config(_gpu(**lemons), health={"burn_in": {"duration": "12h"}}))
    none = build_model(_config(_gpu()))
    n = 6000
    a = simulate(every, n, 10).failures_by_mode[:, 0].astype(float)
    b = simulate(none, n, 10).failures_by_mode[:, 0].astype(float)
    se = math.sqrt(a.var(ddof=1) / n + b.var(ddof=1) / n)
    assert abs(a.mean() - b.mean()) < 4 * se


def test_the_summary_reports_the_burn_in() -> None:
    from relplan.api import simulate as run

    config = _config(_gpu(), health={"burn_in": {"duration": "12h"}})
    summary = run(config, trials=50, seed=1).summary()
    assert summary["burn_in_hours"] == 12.0 and summary["burn_in_gpu_hours"] == 12.0 * 24
    assert summary["lost_hours_breakdown"]["waiting"] >= 12.0  # the job waits for it


def _slow_episodes(length: float, **mode):
    """A fail-slow GPU every 100 h on average, slowing the job 1.5x for ``length`` hours
    if left in; 1,000 h of work, hourly free checkpoints, a 15-min restart."""
    config = parse_config({
        "cluster": {"servers": 3, "gpus_per_server": 8},
        "job": {"gpus": 8, "work": "1000h", "restart": "15min", "spares": 2,
                "checkpoint": {"interval": "1h", "write": "0s"}},
        "failures": {"gpu": {
            "lifetime": {"dist": "exponential", "mtbf": "800h"}, "impact": "slow",
            "slowdown": 1.5, "repair": {"dist": "fixed", "mean": "0s"},
            "episode": {"dist": "fixed", "mean": f"{length}h"}, **mode}},
    })  # fmt: skip
    outcomes = simulate(build_model(config), 400, 11)
    return (outcomes.wall_hours - 1000.0) / outcomes.failures_by_mode[:, 0]


def test_always_evict_is_todays_fail_slow() -> None:
    config = _config(_gpu(impact="slow", slowdown=1.5, detect="10min"))
    spelled = _config(_gpu(impact="slow", slowdown=1.5, detect="10min", mitigation="evict"))
    assert np.array_equal(simulate(build_model(config), 300, 12).wall_hours,
                          simulate(build_model(spelled), 300, 12).wall_hours)


@pytest.mark.parametrize("length", [0.5, 2.25, 4.0, 10.0])
def test_the_ladder_costs_at_most_twice_the_offline_optimum(length: float) -> None:
    # a third of each hour lost while a 1.5x unit is in; an eviction costs the 15-min
    # restart and half an hour of rework on average: the break-even is 2.25 h. The best
    # choice knowing the episode's length is to tolerate it all or to evict at once;
    # the ladder (tolerate 2.25 h, then evict) costs at most twice that, per episode
    tolerate = _slow_episodes(length, detect="1e5h")
    evict = _slow_episodes(length, detect="0s")
    ladder = _slow_episodes(length, detect="0s", mitigation="ladder")
    best = tolerate if tolerate.mean() < evict.mean() else evict
    # the bound is tight beyond the break-even (tolerated b, then evicted: c b + E = 2 E):
    # within 4 standard errors of the difference
    se = math.sqrt(ladder.var(ddof=1) + 4 * best.var(ddof=1)) / math.sqrt(ladder.size)
    assert ladder.mean() <= 2.0 * best.mean() + 4 * se
    # and by hand: below the break-even it tolerates (c D), beyond it pays both
    expected = length / 3 if length < 2.25 else 2.25 / 3 + evict.mean()
    assert abs(ladder.mean() - expected) < 0.05 * expected


def _ladder_cost(length: float, a: float, evict: float, b: float = 0.0,
                 stall: float = math.inf) -> float:  # fmt: skip
    """What the ladder of :func:`ladder_rungs` pays for an episode of ``length`` hours
    past its detection, by hand: tolerated at ``a`` an hour, re-routed (a stall, then ``b``
    an hour), evicted."""
    slowdown, rerouted = 1.0 / (1.0 - a), 1.0 / (1.0 - b)
    reroute_at, evict_at = ladder_rungs(slowdown, evict, rerouted, stall)
    if length <= min(reroute_at, evict_at):
        return a * length
    if reroute_at == math.inf:
        return a * evict_at + evict
    if length <= evict_at:
        return a * reroute_at + stall + b * (length - reroute_at)
    return a * reroute_at + stall + b * (evict_at - reroute_at) + evict


@given(length=st.floats(0.0, 1e4), a=st.floats(0.01, 0.9), evict=st.floats(0.01, 10.0),
       b_share=st.floats(0.0, 0.99), stall_share=st.floats(0.0, 2.0))
def test_the_ladders_rungs_cost_at_most_two_plus_r_over_e_of_the_best(
    length: float, a: float, evict: float, b_share: float, stall_share: float,
) -> None:  # fmt: skip
    # the best choice knowing the episode: tolerate it all, re-route at once, evict at once
    b, stall = a * b_share, evict * stall_share
    best = min(a * length, stall + b * length, evict)
    two_rungs = _ladder_cost(length, a, evict)
    assert two_rungs <= 2.0 * min(a * length, evict) * (1 + 1e-9) + 1e-12
    three_rungs = _ladder_cost(length, a, evict, b, stall)
    assert three_rungs <= (2.0 + min(stall / evict, 1.0)) * best * (1 + 1e-9) + 1e-12


def test_the_bound_with_a_middle_rung_is_reached() -> None:
    # just past the eviction, the ladder has tolerated, re-routed and evicted: R + 2 E
    a, b, stall, evict = 1.0 / 3.0, 0.1, 0.1, 1.0
    evict_at = ladder_rungs(1.5, evict, 1.0 / 0.9, stall)[1]
    assert _ladder_cost(evict_at * 1.000001, a, evict, b, stall) == pytest.approx(
        (2.0 + stall / evict) * evict, rel=1e-5)


@pytest.mark.parametrize("length", [0.5, 2.0, 20.0])
def test_a_re_routed_slow_unit_costs_its_stall_and_the_smaller_slowdown(length: float) -> None:
    # a 1.5x unit (a third of each hour lost), re-routed 3 min (0.05 h) for a 1.1x
    # slowdown once that is cheaper (0.206 h after its detection), evicted once the
    # re-routed slowdown has cost an eviction (7.7 h after it): by hand, per episode,
    # with the episode running on through the re-route's stall
    a, b, stall = 1.0 / 3.0, 1.0 - 1.0 / 1.1, 0.05
    reroute = {"stall": "3min", "slowdown": 1.1}
    ladder = _slow_episodes(length, detect="0s", mitigation="ladder", reroute=reroute)
    evict = _slow_episodes(length, detect="0s")  # an eviction's cost, as the engine books it
    reroute_at, evict_at = ladder_rungs(1.5, 0.75, 1.1, stall)
    before = a * reroute_at + stall
    if length < evict_at:
        expected = before + b * (length - reroute_at - stall)
    else:
        expected = before + b * (evict_at - reroute_at - stall) + evict.mean()
    assert abs(ladder.mean() - expected) < 0.05 * expected
    tolerate = _slow_episodes(length, detect="1e5h")
    best = min(tolerate.mean(), evict.mean(), stall + b * length)
    se = math.sqrt(ladder.var(ddof=1) + 9 * evict.var(ddof=1)) / math.sqrt(ladder.size)
    assert ladder.mean() <= (2.0 + stall / 0.75) * best + 4 * se


def test_a_migration_on_warning_is_a_stall_of_its_swap() -> None:
    config = _config(_gpu(detect="0s"), health={"predictor": {
        "modes": ["gpu"], "recall": 1.0, "lead": "5min", "action": "migrate",
        "swap": "2min"}})
    outcomes = simulate(build_model(config), 2000, 13)
    warned = outcomes.failures_by_mode[:, 0].astype(float)
    assert np.allclose(_bucket(outcomes, "rework"), 0.0)
    stall = _bucket(outcomes, "stall")
    assert np.all(stall <= warned / 30 + 1e-9) and stall.sum() > 0.95 * warned.sum() / 30


@pytest.mark.parametrize(("predictor", "key"), [
    ({"precision": "40%"}, "health.predictor.precision"),
    ({"lead": "1min"}, "health.predictor.lead"),
])  # fmt: skip
def test_a_predictor_that_cannot_pay_is_a_warning(predictor: dict, key: str) -> None:
    from relplan.config.checks import config_warnings

    settings = {"modes": ["gpu"], "recall": 0.5, "lead": "10min", **predictor}
    config = _config(_gpu(), health={"predictor": settings}).with_overrides(
        {"job.checkpoint.write": "2min"})
    assert key in [w.key for w in config_warnings(config, 10.0)]


def test_compare_takes_a_detector_as_a_variant() -> None:
    import relplan

    result = relplan.compare(
        ["configs/small.toml"], variants={"false alarms": ["failures.gpu.false_positives=20"]},
        trials=100, seed=1)
    frame = result.to_frame()
    assert len(frame) == 2
    walls = frame.filter(like="wall").iloc[:, 0].to_numpy()
    assert walls[1] > walls[0]  # evictions for nothing cost time


def test_a_burn_in_ages_away_infant_mortality() -> None:
    # one unit per trial, Weibull shape 0.5 (infant mortality), scale 1,000 h, started
    # new: a 100-h burn-in leaves it failing in the first 10 h with probability
    # 1 - S(110) / S(100), not 1 - S(10)
    from relplan.sim.distributions import weibull
    from relplan.sim.events import RenewalStream

    life, n = weibull(0.5, 1000.0), 200_000
    survival = [math.exp(-((t / 1000.0) ** 0.5)) for t in (10.0, 100.0, 110.0)]
    for age, exact in ((0.0, 1 - survival[0]), (100.0, 1 - survival[2] / survival[1])):
        stream = RenewalStream(1, life, n, np.random.default_rng(14), start="new",
                               age_hours=age)  # fmt: skip
        trials, _ = stream.next_window(10.0, np.arange(n))
        share = np.unique(trials).size / n
        assert abs(share - exact) < 4 * math.sqrt(exact * (1 - exact) / n)
    config = _config({"gpu": {"lifetime": {"dist": "weibull", "shape": 0.5, "scale": "1000h"},
                              "start": "new"}}, health={"burn_in": {"duration": "100h"}})
    assert build_model(config).modes[0].age_hours == 100.0


def test_a_returning_burn_in_lengthens_each_repair_by_its_duration() -> None:
    # one server, no spare: the job waits for each repair (fixed 1 h). A burn-in of each
    # unit back from repair adds its 2 h to every wait; the crashes (on the exposure
    # clock) are the same, so the waits differ by exactly 2 h a crash
    def waiting(health: dict) -> tuple[np.ndarray, np.ndarray]:
        mode = _gpu(repair={"dist": "fixed", "mean": "1h"})
        outcomes = simulate(build_model(_config(mode, servers=1, health=health)), 400, 15)
        return _bucket(outcomes, "waiting"), outcomes.interruptions_by_mode[:, 0]

    plain, crashes = waiting({"burn_in": {"duration": "2h"}})
    returning, same = waiting({"burn_in": {"duration": "2h", "returning": True}})
    assert np.array_equal(crashes, same) and crashes.sum() > 500
    assert np.allclose(returning - plain, 2.0 * crashes)


def test_a_returning_burn_in_ages_each_renewal() -> None:
    # a renewed Weibull unit of shape 0.5 (scale 1,000 h) burnt in for 100 h lives
    # E[X - b | X > b] = integral of S(b + t) / S(b) dt on average, not E[X] (4 SE)
    from scipy.integrate import quad

    from relplan.sim.distributions import weibull
    from relplan.sim.events import RenewalStream

    life, burn_in, n = weibull(0.5, 1000.0), 100.0, 100_000
    stream = RenewalStream(1, life, 1, np.random.default_rng(16), start="new",
                           renewal_age_hours=burn_in)  # fmt: skip
    lives = stream._renewed_lives(n)
    sf = lambda t: math.exp(-((t / 1000.0) ** 0.5))  # noqa: E731
    exact = quad(lambda t: sf(burn_in + t) / sf(burn_in), 0, math.inf)[0]
    assert abs(z_score(lives, exact)) < 4
    assert exact > life.mean_hours * 1.1  # infant mortality burned away
    config = _config({"gpu": {"lifetime": {"dist": "weibull", "shape": 0.5, "scale": "1000h"}}},
                     health={"burn_in": {"duration": "100h", "returning": True}})
    assert build_model(config).modes[0].return_burn_in_hours == 100.0
