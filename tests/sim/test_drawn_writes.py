"""Checkpoint writes drawn at each save (``job.checkpoint.write`` or ``fast.write`` as a
distribution or measured durations): by hand, against Daly's form with the effective write
``-M ln E[e^{-W/M}]``, and the saves that time out."""

from __future__ import annotations

import math

import numpy as np
import pytest

from relplan.config.loading import load_config, parse_config
from relplan.sim.closed_forms import effective_write_hours, expected_wall_hours
from relplan.sim.distributions import lognormal
from relplan.sim.engine import simulate
from relplan.sim.model import build_model
from relplan.vocab import BUCKETS
from tests.conftest import assert_validate_refuses, trial_timeline_hours

FAILS_AT = 6.4


def _one_failure(write: object, trials: int = 20, seed: int = 1, **checkpoint: object):
    """One server whose host fails once, 6.4 h into the run (a fixed lifetime from new),
    hourly checkpoints of ``write``, a restart of 6 min."""
    config = parse_config({
        "cluster": {"servers": 4, "gpus_per_server": 8},
        "job": {"gpus": 8, "work": "6.9h", "spares": 1, "restart": "0.1h",
                "failures_during_recovery": False,
                "checkpoint": {"interval": "1h", "write": write, **checkpoint}},
        "failures": {"host": {"lifetime": {"dist": "fixed", "mean": f"{FAILS_AT}h"},
                              "detect": "0s", "start": "new"}},
    })  # fmt: skip
    return build_model(config), simulate(build_model(config), trials, seed)


def _bucket(outcomes, name: str) -> np.ndarray:
    return outcomes.bucket_hours[:, BUCKETS.index(name)]


@pytest.mark.parametrize("write", ["6min", "42min"])
def test_a_measured_write_of_one_value_is_the_fixed_write(write: str) -> None:
    # 42 min: the host fails 0.3 h into the fourth save's write (3 x 1.7 h + 1 h of
    # compute = 6.1 h): the segment is lost, its compute and the write spent are rework
    _, fixed = _one_failure(write, save_timeout="1000h")
    _, drawn = _one_failure([write], save_timeout="1000h")
    assert np.allclose(drawn.wall_hours, fixed.wall_hours, rtol=0, atol=1e-6)
    assert np.allclose(drawn.bucket_hours, fixed.bucket_hours, rtol=0, atol=1e-6)
    if write == "42min":
        assert np.allclose(_bucket(drawn, "rework"), 1.0 + 0.3)
        assert np.allclose(_bucket(drawn, "checkpoint"), 6 * 0.7, atol=1e-6)


def test_the_timeline_books_a_write_cut_short_as_the_engine_does() -> None:
    model, outcomes = _one_failure(["42min", "24min", "30min"], trials=30, seed=2,
                                   save_timeout="1000h")
    assert np.ptp(_bucket(outcomes, "checkpoint")) > 0.1  # the writes differ by trial
    for trial in range(3):
        trial_timeline_hours(model, outcomes, trial, 2, 30,
                             ("useful", "rework", "checkpoint", "restart"))


def _preempted(write: object, trials: int, seed: int, every: float = 5.0, **checkpoint):
    """A job crashed by Poisson preemptions every ``every`` hours on average (no notice,
    back at once): exponential interruptions, nothing else, restart 0.1 h."""
    config = parse_config({
        "cluster": {"servers": 2, "gpus_per_server": 8},
        "job": {"gpus": 8, "work": "10h", "restart": "0.1h", "step": "10s",
                "checkpoint": {"interval": "1h", "write": write, **checkpoint}},
        "failures": {"gpu": {"lifetime": {"dist": "exponential", "mtbf": "1e12h"}}},
        "preemption": {"every": f"{every}h"},
    })  # fmt: skip
    return simulate(build_model(config), trials, seed)


def test_a_lognormal_write_gives_dalys_time_with_the_effective_write() -> None:
    # a write drawn afresh at every attempt: E[T] is Daly's with the write
    # -M ln E[e^{-W/M}], below the mean write's (the long writes are the ones cut)
    every, n = 5.0, 20000
    write = lognormal(1.0, 0.25)  # median 15 min, mean 24.7 min
    outcomes = _preempted({"dist": "lognormal", "median": "15min", "sigma": 1.0}, n, 7,
                          every, save_timeout="1000h")  # fmt: skip
    effective = effective_write_hours(write, every)
    exact = expected_wall_hours(10.0, 1.0, effective, every, 0.1)
    se = outcomes.wall_hours.std(ddof=1) / math.sqrt(n)
    assert abs(outcomes.wall_hours.mean() - exact) < 4 * se
    with_mean = expected_wall_hours(10.0, 1.0, write.mean_hours, every, 0.1)
    assert with_mean - exact > 6 * se  # the mean write would be measurably wrong


def test_writes_longer_than_the_timeout_hang() -> None:
    # half the saves take 1 min, half 20 min, longer than the 10-min timeout: each save
    # hangs until a draw holds, geometric with mean 1 hang; a hang holds the job for the
    # timeout (detect), loses its hour of compute and restarts (6 min). Nine saves:
    # E[T] = 10 + 9 x (1/60) + 9 x (1 + 1/6 + 0.1)
    n = 8000
    config = parse_config({
        "cluster": {"servers": 2, "gpus_per_server": 8},
        "job": {"gpus": 8, "work": "10h", "restart": "0.1h",
                "checkpoint": {"interval": "1h", "write": ["1min", "20min"],
                               "save_timeout": "10min"}},
        "failures": {"gpu": {"lifetime": {"dist": "exponential", "mtbf": "1e12h"}}},
    })  # fmt: skip
    outcomes = simulate(build_model(config), n, 3)
    hangs = outcomes.save_hangs.astype(float)
    assert abs(hangs.mean() - 9.0) < 4 * math.sqrt(9 * 2.0 / n)  # var of NB(9, 1/2): 18
    exact = 10.0 + 9 / 60 + 9.0 * (1.0 + 1 / 6 + 0.1)
    se = outcomes.wall_hours.std(ddof=1) / math.sqrt(n)
    assert abs(outcomes.wall_hours.mean() - exact) < 4 * se
    assert np.allclose(_bucket(outcomes, "detect"), hangs / 6)
    assert np.allclose(_bucket(outcomes, "checkpoint"), 9 / 60)


def test_a_drawn_fast_write_is_lost_with_the_fast_tier() -> None:
    # fast saves every 15 min (a drawn write of 0 or 6 min), durable hourly (free); the
    # host fails at 6.4 h, taking the fast tier (survives = none): the run goes back to
    # the last durable checkpoint, and the fast writes after it are rework (the
    # timeline, which labels each write, agrees)
    model, outcomes = _one_failure(
        "0s", trials=400, seed=4,
        fast={"interval": "15min", "write": ["0s", "6min"], "survives": "none"})
    checkpoint = _bucket(outcomes, "checkpoint")
    assert np.allclose(outcomes.wall_hours, outcomes.bucket_hours.sum(axis=1))
    # every fast write is 0 or 0.1 h: the kept ones are whole multiples
    kept = np.round(checkpoint / 0.1, 6)
    assert np.allclose(kept, np.round(kept))
    for trial in range(3):
        trial_timeline_hours(model, outcomes, trial, 4, 400,
                             ("useful", "rework", "checkpoint", "restart"))


@pytest.mark.parametrize("value", ['["-1min"]', "[]", '{dist="lognormal", median="1min"}'])
def test_bad_drawn_writes_name_their_key(value: str) -> None:
    assert_validate_refuses([f"job.checkpoint.write={value}"], "job.checkpoint")


def test_a_fixed_write_changes_no_number() -> None:
    plain = load_config("configs/small.toml")
    spelled = load_config("configs/small.toml", ['job.checkpoint.write="1min"'])
    a = simulate(build_model(plain), 200, 5)
    b = simulate(build_model(spelled), 200, 5)
    assert np.array_equal(a.wall_hours, b.wall_hours)


def test_fast_saves_that_hang_are_negative_binomial() -> None:
    # 39 saves in 10 h, every fourth durable: 30 fast ones, each attempt hanging with
    # probability h until one holds (NB: E = 30 h / (1 - h)); a hang holds the job for the
    # 10-min timeout, loses its 15 min of compute and restarts from the fast checkpoint
    # before it (6 min): E[T] = 10 + E[hangs] (0.25 + 1/6 + 0.1)
    h, n = 0.1, 8000
    config = parse_config({
        "cluster": {"servers": 2, "gpus_per_server": 8},
        "job": {"gpus": 8, "work": "10h", "restart": "0.1h",
                "checkpoint": {"interval": "1h", "write": "0s", "save_timeout": "10min",
                               "fast": {"interval": "15min", "write": "0s", "hang": h}}},
        "failures": {"gpu": {"lifetime": {"dist": "exponential", "mtbf": "1e12h"}}},
    })  # fmt: skip
    outcomes = simulate(build_model(config), n, 8)
    hangs = outcomes.save_hangs.astype(float)
    assert abs(hangs.mean() - 30 * h / (1 - h)) < 4 * math.sqrt(30 * h / (1 - h) ** 2 / n)
    exact = 10.0 + 30 * h / (1 - h) * (0.25 + 1 / 6 + 0.1)
    se = outcomes.wall_hours.std(ddof=1) / math.sqrt(n)
    assert abs(outcomes.wall_hours.mean() - exact) < 4 * se
    assert np.allclose(_bucket(outcomes, "rework"), hangs * 0.25)


def test_a_fast_load_is_drawn_at_each_restart_from_the_fast_tier() -> None:
    # the host fails once at 6.4 h; its fast checkpoint survives on a peer: the restart
    # is the 1-min start-up and a fast load of 1 or 5 min, half the time each
    config = parse_config({
        "cluster": {"servers": 4, "gpus_per_server": 8},
        "job": {"gpus": 8, "work": "6.9h", "spares": 1,
                "restart": {"init": "1min", "load": "10min"},
                "failures_during_recovery": False,
                "checkpoint": {"interval": "1h", "write": "0s",
                               "fast": {"interval": "15min", "write": "0s",
                                        "load": ["1min", "5min"]}}},
        "failures": {"host": {"lifetime": {"dist": "fixed", "mean": f"{FAILS_AT}h"},
                              "detect": "0s", "start": "new"}},
    })  # fmt: skip
    n = 4000
    restart = _bucket(simulate(build_model(config), n, 9), "restart") * 60
    assert set(np.round(np.unique(restart), 6)) == {2.0, 6.0}
    assert abs(np.isclose(restart, 2.0).mean() - 0.5) < 4 * math.sqrt(0.25 / n)
    assert build_model(config).job.fast_restart_hours == pytest.approx(4 / 60)


def test_saves_that_hang_and_writes_drawn_go_together() -> None:
    model = build_model(load_config("configs/small.toml", [
        'job.checkpoint.hang="2%"', 'job.checkpoint.write=["1min", "3min"]']))
    assert model.job.save_hang == 0.02 and model.job.write_draw == (1 / 60, 3 / 60)
    outcomes = simulate(model, 200, 4)
    assert outcomes.save_hangs.sum() > 0
    assert np.allclose(outcomes.wall_hours, outcomes.bucket_hours.sum(axis=1))
