"""Saves that may be lost (``job.checkpoint.fail``, ``job.checkpoint.fast.fail``) and fast
checkpoints that may be unusable (``job.checkpoint.fast.corrupt``), by hand and against
the geometric closed form.

One server whose host fails once, 6.4 h into a 6.9-h job (a fixed lifetime from new:
its replacement would fail 6.4 h after the restart, after the end unless the restart
goes back to the very start); free hourly checkpoints, a restart of 6 min.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from relplan.config.loading import load_config, parse_config
from relplan.sim.engine import simulate
from relplan.sim.model import build_model
from relplan.vocab import BUCKETS
from tests.conftest import assert_validate_refuses, trial_timeline_hours

FAILS_AT = 6.4
FAST = {"interval": "15min", "write": "0s"}


def _run(trials: int = 20, seed: int = 1, **checkpoint: object):
    config = parse_config({
        "cluster": {"servers": 4, "gpus_per_server": 8},
        "job": {"gpus": 8, "work": "6.9h", "spares": 1, "restart": "0.1h",
                "failures_during_recovery": False,
                "checkpoint": {"interval": "1h", "write": "0s", **checkpoint}},
        "failures": {"host": {"lifetime": {"dist": "fixed", "mean": f"{FAILS_AT}h"},
                              "detect": "0s", "start": "new"}},
    })  # fmt: skip
    return simulate(build_model(config), trials, seed)


def _rework(outcomes) -> np.ndarray:
    return outcomes.bucket_hours[:, BUCKETS.index("rework")]


def test_lost_durable_saves_go_back_a_geometric_number_of_checkpoints() -> None:
    # six hourly saves before the failure, each lost with probability q: the restart
    # goes back G of them, P(G >= g) = q^g: E[rework] = 0.4 + sum_{g=1..6} q^g hours
    # (q / (1 - q) without the truncation: the interval stretched to tau / (1 - q))
    q, n = 0.3, 6000
    outcomes = _run(n, 4, fail=q)
    rework = _rework(outcomes)
    exact = 0.4 + sum(q**g for g in range(1, 7))
    assert abs(rework.mean() - exact) < 4 * rework.std(ddof=1) / math.sqrt(n)
    held = np.isclose(rework, 0.4)  # the newest save held
    assert abs(held.mean() - (1 - q)) < 4 * math.sqrt(q * (1 - q) / n)
    steps = np.round(rework - 0.4, 9)
    # whole checkpoints back (all six lost, q^6 of the runs, restarts from the start and
    # fails again 6.4 h later: those run on)
    assert set(np.unique(steps[steps < 6.0])) <= {float(g) for g in range(6)}


def test_a_fast_save_lost_goes_back_to_the_one_before_or_the_durable() -> None:
    # fast saves every 15 min: 25 of them by 6.4 h, the 24th durable (6 h). The 25th
    # (6.25 h) is lost with probability 1/2; the durable one never is: the restart goes
    # back 0.15 h or 0.4 h, half the time each
    outcomes = _run(4000, 2, fast={**FAST, "fail": 0.5})
    rework = _rework(outcomes)
    assert set(np.round(np.unique(rework), 9)) == {0.15, 0.4}
    assert abs(np.isclose(rework, 0.15).mean() - 0.5) < 4 * math.sqrt(0.25 / 4000)


def test_an_unusable_fast_checkpoint_falls_back_to_the_durable_tier() -> None:
    assert np.allclose(_rework(_run(fast=FAST)), 0.15)
    assert np.allclose(_rework(_run(fast={**FAST, "corrupt": 1.0})), 0.4)
    half = _rework(_run(4000, 3, fast={**FAST, "corrupt": 0.5}))
    assert abs(np.isclose(half, 0.4).mean() - 0.5) < 4 * math.sqrt(0.25 / 4000)


def test_saves_that_always_hold_change_no_number() -> None:
    plain = _run(200, 5, fast=FAST)
    spelled = _run(200, 5, fast={**FAST, "fail": 0.0, "corrupt": 0.0}, fail=0.0)
    assert np.array_equal(plain.wall_hours, spelled.wall_hours)
    assert np.array_equal(plain.bucket_hours, spelled.bucket_hours)


def test_the_timeline_of_a_trial_books_lost_saves_as_the_engine_does() -> None:
    model = build_model(load_config("configs/small.toml", ['job.checkpoint.fail="40%"']))
    outcomes = simulate(model, trials=40, seed=3)
    trial = int(np.argmax(_rework(outcomes)))
    hours = trial_timeline_hours(model, outcomes, trial, 3, 40,
                                 ("useful", "rework", "checkpoint", "restart"))
    assert hours["rework"] > 1.0  # more than an interval: saves were lost


@pytest.mark.parametrize(("key", "value"), [
    ("job.checkpoint.fail", "1.0"),
    ("job.checkpoint.fail", '"-5%"'),
    ("job.checkpoint.hang", "1.0"),
    ("job.checkpoint.save_timeout", '"0s"'),
    ("job.checkpoint.fast", '{ interval = "15min", write = "1s", corrupt = 1.5 }'),
])
def test_bad_save_probabilities_name_their_key(key: str, value: str) -> None:
    assert_validate_refuses([f"{key}={value}"], key)


def _hanging(trials: int, seed: int, **checkpoint: object):
    config = parse_config({
        "cluster": {"servers": 4, "gpus_per_server": 8},
        "job": {"gpus": 8, "work": "10h", "spares": 1, "restart": "0.1h",
                "checkpoint": {"interval": "1h", "write": "3min", **checkpoint}},
        "failures": {"host": {"lifetime": {"dist": "exponential", "mtbf": "1e12h"}}},
    })  # fmt: skip
    return config, simulate(build_model(config), trials, seed)


def test_hung_saves_are_negative_binomial_and_each_costs_a_segment_and_the_timeout() -> None:
    # nine durable saves, each attempt hanging with probability h until one holds: the
    # hangs are negative binomial, E = 9 h / (1 - h); each holds the job 30 min (detect),
    # loses its segment's hour of compute and restarts (6 min): E[T] = 10 + 9 x 0.05 +
    # E[hangs] (1 + 0.5 + 0.1)
    h, n = 0.2, 8000
    _, outcomes = _hanging(n, 6, hang=h, save_timeout="30min")
    hangs = outcomes.save_hangs.astype(float)
    mean_hangs = 9 * h / (1 - h)
    assert abs(hangs.mean() - mean_hangs) < 4 * math.sqrt(9 * h / (1 - h) ** 2 / n)
    exact = 10.0 + 9 * 0.05 + mean_hangs * 1.6
    se = outcomes.wall_hours.std(ddof=1) / math.sqrt(n)
    assert abs(outcomes.wall_hours.mean() - exact) < 4 * se
    assert np.allclose(_rework(outcomes), hangs * 1.0)  # the hung segment's compute
    assert np.allclose(outcomes.bucket_hours[:, BUCKETS.index("detect")], hangs * 0.5)


def test_a_timeout_shorter_than_the_save_is_a_warning() -> None:
    from relplan.config.checks import config_warnings

    config, _ = _hanging(2, 1, hang=0.1, save_timeout="2min")
    assert "job.checkpoint.save_timeout" in [w.key for w in config_warnings(config, 1e3)]


def test_the_timeline_of_a_trial_books_hung_saves_as_the_engine_does() -> None:
    model = build_model(load_config("configs/small.toml", ['job.checkpoint.hang="5%"']))
    outcomes = simulate(model, trials=40, seed=3)
    trial = int(np.argmax(outcomes.save_hangs))
    assert outcomes.save_hangs[trial] > 0
    trial_timeline_hours(model, outcomes, trial, 3, 40,
                         ("useful", "rework", "checkpoint", "restart", "detect"))
