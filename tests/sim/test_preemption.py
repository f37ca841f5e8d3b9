"""Preemption with notice (``[preemption]``): Poisson preemptions of the running job,
saved on their notice (a pause that keeps the progress) or crashes, against closed forms."""

from __future__ import annotations

import math

import numpy as np
import pytest

from relplan.config.checks import config_warnings
from relplan.config.loading import load_config, parse_config
from relplan.sim.closed_forms import expected_wall_hours
from relplan.sim.engine import simulate
from relplan.sim.model import build_model
from relplan.vocab import BUCKETS
from tests.conftest import assert_validate_refuses, trial_timeline_hours, z_score

EVERY, WRITE, RESTART = 5.0, 30.0 / 3600.0, 0.1


def _config(work: str = "10h", interval: str = "1h", horizon: str | None = None, **pre):
    """One server that never fails, preempted every 5 h of running on average."""
    job = {"gpus": 8, "restart": f"{RESTART}h", "step": "10s",
           "checkpoint": {"interval": interval, "write": "30s"}}  # fmt: skip
    job.update({"horizon": horizon} if horizon else {"work": work})
    return parse_config({
        "cluster": {"servers": 2, "gpus_per_server": 8}, "job": job,
        "failures": {"gpu": {"lifetime": {"dist": "exponential", "mtbf": "1e12h"}}},
        "preemption": {"every": f"{EVERY}h", **pre},
    })  # fmt: skip


def _bucket(outcomes, name: str) -> np.ndarray:
    return outcomes.bucket_hours[:, BUCKETS.index(name)]


def test_without_checkpoints_the_expected_time_is_the_exponential_closed_form() -> None:
    # no checkpoint before the end: E[T] = (e^{lambda W} - 1) / lambda, and with a restart
    # R that preemptions may cut short, Daly's (M + 0) e^{R/M} (e^{W/M} - 1)
    outcomes = simulate(build_model(_config(work="4h", interval="5h")), 20000, seed=5)
    restart_free = (math.exp(4.0 / EVERY) - 1.0) * EVERY
    with_restart = expected_wall_hours(4.0, 5.0, WRITE, EVERY, RESTART)
    assert with_restart == pytest.approx(math.exp(RESTART / EVERY) * restart_free)
    assert abs(z_score(outcomes.wall_hours, with_restart)) < 4
    assert np.all(_bucket(outcomes, "checkpoint") == 0.0)


def test_a_notice_that_fits_a_step_and_the_write_loses_no_work() -> None:
    # every preemption saved: no rework; each costs the save, the return delay and the
    # restart, off the failure clock: E[T] = C + (C / M) (write + E[delay] + R)
    config = _config(notice="2min", save_on_notice=1.0,
                     return_delay={"dist": "exponential", "mean": "12min"})  # fmt: skip
    outcomes = simulate(build_model(config), 8000, seed=2)
    compute = 10.0 + 9 * WRITE  # 10 h of work, 9 hourly checkpoints
    exact = compute + compute / EVERY * (WRITE + 0.2 + RESTART)
    assert np.all(_bucket(outcomes, "rework") == 0.0)
    assert abs(z_score(outcomes.wall_hours, exact)) < 4
    preempted = outcomes.interruptions_by_mode[:, -1]
    assert abs(z_score(preempted, compute / EVERY)) < 4  # Poisson over the running time
    assert np.allclose(_bucket(outcomes, "restart"), preempted * RESTART)


def test_a_notice_too_short_for_the_save_makes_every_preemption_a_crash() -> None:
    short = _config(notice="15s", save_on_notice=1.0)  # 10 s step + 30 s write > 15 s
    assert "preemption.notice" in [w.key for w in config_warnings(short, 1e3)]
    unsaved = _config(notice="15s", save_on_notice=0.0)
    a = simulate(build_model(short), 500, seed=4)
    b = simulate(build_model(unsaved), 500, seed=4)
    assert np.array_equal(a.wall_hours, b.wall_hours)
    assert _bucket(a, "rework").sum() > 0.0


def test_a_save_serviced_half_the_time_saves_half_the_rework() -> None:
    never = simulate(build_model(_config(notice="2min")), 6000, seed=8)
    half = simulate(build_model(_config(notice="2min", save_on_notice=0.5)), 6000, seed=8)
    a, b = _bucket(half, "rework"), _bucket(never, "rework")
    ratio = a.mean() / b.mean()
    # the delta method, leaving out the (positive) covariance of the common streams: wider
    relative = [x.std(ddof=1) / math.sqrt(x.size) / x.mean() for x in (a, b)]
    se = ratio * math.hypot(*relative)
    assert abs(ratio - 0.5) < 4 * se


def test_a_pause_that_outlasts_the_calendar_window_ends_the_trial_there() -> None:
    config = _config(horizon="3h", notice="2min", save_on_notice=1.0,
                     return_delay={"dist": "fixed", "mean": "10h"})  # fmt: skip
    outcomes = simulate(build_model(config), 300, seed=1)
    assert np.allclose(outcomes.wall_hours, 3.0)
    assert np.allclose(outcomes.bucket_hours.sum(axis=1), 3.0)


def test_the_timeline_of_a_preempted_trial_books_as_the_engine_does() -> None:
    model = build_model(load_config("configs/small.toml", [
        'preemption={ every = "60h", notice = "2min", save_on_notice = 0.7, '
        'return_delay = { dist = "exponential", mean = "30min" } }']))
    outcomes = simulate(model, trials=40, seed=3)
    trial = int(np.argmax(outcomes.interruptions_by_mode[:, -1]))
    hours = trial_timeline_hours(model, outcomes, trial, 3, 40,
                                 ("useful", "rework", "restart", "waiting", "checkpoint"))
    assert hours["waiting"] > 0.0  # its preemptions waited for their capacity


@pytest.mark.parametrize(("value", "key"), [
    ('{ every = "5h", per_day = "10%" }', "preemption"),
    ("{ notice = \"1min\" }", "preemption"),
    ('{ every = "5h", save_on_notice = 1.5 }', "preemption.save_on_notice"),
    ('{ per_day = 1.0 }', "preemption.per_day"),
    ('{ every = "-5h" }', "preemption.every"),
])
def test_bad_preemption_settings_name_their_key(value: str, key: str) -> None:
    assert_validate_refuses([f"preemption={value}"], key)


def test_a_save_needs_a_step_and_the_mode_name_is_taken() -> None:
    assert_validate_refuses(['preemption={ every = "50h", save_on_notice = 0.5 }'],
                            "preemption.save_on_notice", "configs/airesim-default.toml")
    assert_validate_refuses(['preemption={ every = "50h" }',
                             'failures.preemption={ unit = "job", lifetime = '
                             '{ dist = "exponential", mtbf = "9h" } }'],
                            "failures.preemption")  # fmt: skip


def test_per_day_is_a_rate() -> None:
    config = load_config("configs/small.toml", ['preemption={ per_day = "50%" }'])
    assert config.preemption.mean_hours == pytest.approx(24.0 / math.log(2.0))
