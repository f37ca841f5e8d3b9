"""Recovery stacks (``job.recovery``: live migration, replica drop) and restarts that fail
(``job.restart.success``, ``max_attempts``, ``max_requeues``, ``black_hole``), against
hand-computed walks and closed forms.

The hand cases run one job server whose host fails once, at a fixed age: 6.5 h of
running (``start = "new"``, a fixed lifetime; its replacement would fail 6.5 h later,
after the job is done). Checkpoints are hourly and free; a restart is 6 min.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from relplan.config.checks import config_warnings
from relplan.config.loading import parse_config
from relplan.sim.engine import simulate
from relplan.sim.model import build_model
from relplan.vocab import BUCKETS
from tests.conftest import assert_validate_refuses, trial_timeline_hours

WORK, FAILS_AT, DETECT, RESTART, REPAIR = 10.0, 6.5, 30.0 / 3600.0, 0.1, 1.0


def _config(recovery: str = "checkpoint-restart", spares: int = 1, **job: object):
    """One 8-GPU server (and ``spares`` spare servers) whose host fails once, 6.5 h in."""
    raw = {
        "cluster": {"servers": 4, "gpus_per_server": 8},
        "job": {"gpus": 8, "work": f"{WORK}h", "spares": spares, "recovery": recovery,
                "restart": f"{RESTART}h", "failures_during_recovery": False,
                "checkpoint": {"interval": "1h", "write": "0s"}, **job},
        "failures": {"host": {"lifetime": {"dist": "fixed", "mean": f"{FAILS_AT}h"},
                              "repair": {"dist": "fixed", "mean": f"{REPAIR}h"},
                              "detect": "30s", "start": "new"}},
    }  # fmt: skip
    return parse_config(raw)


def _run(config, trials: int = 20, seed: int = 1):
    return simulate(build_model(config), trials=trials, seed=seed)


def _bucket(outcomes, name: str) -> np.ndarray:
    return outcomes.bucket_hours[:, BUCKETS.index(name)]


def test_checkpoint_restart_by_hand() -> None:
    # the job rolls back 0.5 h to its 6-h checkpoint, detects, restarts on the spare
    outcomes = _run(_config())
    assert np.allclose(outcomes.wall_hours, WORK + 0.5 + DETECT + RESTART, rtol=1e-12)


def test_live_migration_costs_detection_and_the_swap_and_no_rework() -> None:
    outcomes = _run(_config("live-migration", live_migration={"swap": "0.02h"}))
    assert np.allclose(outcomes.wall_hours, WORK + DETECT + 0.02, rtol=1e-12)
    assert np.all(_bucket(outcomes, "rework") == 0.0)
    assert np.allclose(_bucket(outcomes, "stall"), DETECT + 0.02, rtol=1e-12)
    assert np.all(outcomes.spares_used == 1)


def test_live_migration_without_a_free_spare_falls_back_to_a_restart() -> None:
    # no spare: the failure is fatal, the job waits for the repair and restarts from its
    # last checkpoint, as checkpoint-restart does
    config = _config("live-migration", spares=0)
    outcomes = _run(config)
    expected = WORK + 0.5 + DETECT + REPAIR + RESTART
    assert np.allclose(outcomes.wall_hours, expected, rtol=1e-12)
    assert np.allclose(_run(_config(spares=0)).wall_hours, expected, rtol=1e-12)
    assert "job.spares" in [w.key for w in config_warnings(config, job_mtti_hours=1e3)]


def test_replica_drop_runs_slowed_until_the_group_rejoins_and_pays_its_tax() -> None:
    # two replica groups: one out runs the job at 2x its step time for the 0.05-h rejoin
    # (a spare is free at once), half of which is lost; no rework; every step pays 5%
    config = _config("replica-drop", replica_drop={"replicas": 2, "reconfigure": "0.01h",
                                                   "rejoin": "0.05h"})  # fmt: skip
    outcomes = _run(config)
    compute = WORK * 1.05
    assert np.allclose(outcomes.wall_hours, compute + DETECT + 0.01 + 0.05 / 2, rtol=1e-12)
    assert np.allclose(_bucket(outcomes, "overhead"), WORK * 0.05, rtol=1e-12)
    assert np.all(_bucket(outcomes, "rework") == 0.0)
    untaxed = _run(_config("replica-drop", step_overhead=0.0,
                           replica_drop={"replicas": 2, "reconfigure": "0.01h", "rejoin": "0.05h"}))
    assert np.allclose(untaxed.wall_hours, WORK + DETECT + 0.01 + 0.05 / 2, rtol=1e-12)


def test_a_stacks_tax_defaults_to_its_own_and_can_be_set() -> None:
    assert _config("replica-drop", replica_drop={"replicas": 2}).job.step_tax == 0.05
    assert _config("live-migration").job.step_tax == 0.0
    assert _config("replica-drop", step_overhead="140%",
                   replica_drop={"replicas": 2}).job.step_tax == 1.4


def _restarting(trials: int, **restart: object):
    parts = {"init": f"{RESTART}h", **restart}
    return _run(_config(restart=parts), trials=trials, seed=11)


def test_expected_restart_attempts_are_one_over_the_success() -> None:
    p, n = 0.4, 4000
    outcomes = _restarting(n, success=p, max_attempts=1000, max_requeues=0)
    attempts = outcomes.restart_attempts.astype(float)
    se = math.sqrt(1.0 - p) / p / math.sqrt(n)  # a geometric count's standard error
    assert abs(attempts.mean() - 1.0 / p) < 4 * se
    assert not outcomes.job_failed.any()
    # each failed attempt costs the start-up, by hand for every trial
    base = WORK + 0.5 + DETECT + RESTART
    assert np.allclose(outcomes.wall_hours, base + (attempts - 1.0) * RESTART, rtol=1e-12)


def test_the_chance_that_every_attempt_fails_is_one_minus_p_to_the_k() -> None:
    # 2 attempts an allocation and 1 requeue: k = 4 attempts in all
    p, n = 0.5, 4000
    outcomes = _restarting(n, success=p, max_attempts=2, max_requeues=1,
                           requeue_delay="0.25h")  # fmt: skip
    failed = outcomes.job_failed.astype(float)
    exact = (1.0 - p) ** 4
    assert abs(failed.mean() - exact) < 4 * math.sqrt(exact * (1 - exact) / n)
    # a requeue follows two failed attempts: P(F >= 2) = (1 - p)^2
    requeued = outcomes.requeues.astype(float)
    assert abs(requeued.mean() - (1 - p) ** 2) < 4 * math.sqrt((1 - p) ** 2 / n)
    # the requeue delays are waiting hours; a failed job ends with the work it did
    assert np.allclose(_bucket(outcomes, "waiting"), 0.25 * requeued, rtol=1e-12)
    gone = outcomes.job_failed
    assert np.allclose(outcomes.wall_hours[gone], FAILS_AT + DETECT + 4 * RESTART + 0.25)
    assert np.allclose(_bucket(outcomes, "useful")[gone], 6.0)  # its last checkpoint


def test_a_black_hole_fails_every_attempt_of_the_allocation() -> None:
    b, n = 0.3, 4000
    outcomes = _restarting(n, black_hole=b, max_attempts=3, max_requeues=1,
                           requeue_delay="0.25h")  # fmt: skip
    holed = outcomes.requeues == 1
    share = holed.mean()
    assert abs(share - b) < 4 * math.sqrt(b * (1 - b) / n)
    assert np.all(outcomes.restart_attempts[holed] == 4)
    assert np.all(outcomes.restart_attempts[~holed] == 1)
    assert not outcomes.job_failed.any()
    # with no requeue left a black hole fails the job
    none_left = _restarting(n, black_hole=b, max_attempts=3, max_requeues=0)
    assert np.array_equal(none_left.job_failed, none_left.restart_attempts == 3)


def test_a_failed_job_over_a_calendar_window_ends_at_the_window() -> None:
    config = _config(restart={"init": f"{RESTART}h", "success": 0.01, "max_attempts": 1,
                              "max_requeues": 0}, work=None, horizon="20h")  # fmt: skip
    outcomes = _run(config, trials=50)
    gone = outcomes.job_failed
    assert gone.mean() > 0.9
    assert np.allclose(outcomes.wall_hours[gone], 20.0)
    assert np.allclose(outcomes.bucket_hours.sum(axis=1), outcomes.wall_hours)


def test_restarts_that_always_succeed_change_no_number() -> None:
    plain = _run(_config(restart={"init": f"{RESTART}h"}), trials=200)
    spelled = _run(_config(restart={"init": f"{RESTART}h", "success": 1.0, "max_attempts": 1,
                                    "black_hole": 0.0}), trials=200)  # fmt: skip
    assert np.array_equal(plain.wall_hours, spelled.wall_hours)
    assert np.all(plain.restart_attempts == 0)  # not counted where nothing may fail


@pytest.mark.parametrize(("key", "value"), [
    ("job.restart", '{ init = "5min", success = 0 }'),
    ("job.restart", '{ init = "5min", success = 1.5 }'),
    ("job.restart", '{ init = "5min", max_attempts = 0 }'),
    ("job.restart", '{ init = "5min", black_hole = "120%" }'),
    ("job.step_overhead", "-0.01"),
    ("job.recovery", '"teleport"'),
])
def test_bad_stack_and_retry_settings_name_their_key(key: str, value: str) -> None:
    assert_validate_refuses([f"{key}={value}"], key)


def test_replica_drop_without_its_groups_names_the_key() -> None:
    assert_validate_refuses(['job.recovery="replica-drop"'], "job.replica_drop.replicas",
                            "configs/airesim-default.toml")  # fmt: skip


def test_the_timeline_of_a_trial_books_failed_attempts_as_the_engine_does() -> None:
    from relplan.config.loading import load_config

    model = build_model(load_config("configs/small.toml", [
        'job.restart={ init = "10min", load = "5min", success = "40%", black_hole = "20%" }']))
    outcomes = simulate(model, trials=40, seed=3)
    trial = int(np.argmax(outcomes.restart_attempts))
    assert outcomes.restart_attempts[trial] > outcomes.interruptions_by_mode[trial].sum()
    trial_timeline_hours(model, outcomes, trial, 3, 40,
                         ("useful", "rework", "restart", "waiting", "detect"))


def test_mean_wall_time_with_failing_restarts_agrees_with_daly() -> None:
    # Daly's expected time with the failed attempts as failure-free downtime: each
    # interruption adds (1 - p) / p failed start-ups of `init` to the detection D.
    from dataclasses import replace

    from relplan.sim.closed_forms import expected_wall_hours
    from relplan.sim.distributions import exponential, fixed
    from tests.conftest import make_model, z_score

    modes = [{"units": 50, "lifetime": exponential(500.0), "detect": 0.1,
              "repair": fixed(0.0)}]  # fmt: skip
    model = make_model(work=150.0, interval=1.5, write=0.1, restart=0.25, modes=modes)
    p, init = 0.3, 0.2
    failing = replace(model, job=replace(model.job, restart_init_hours=init, restart_success=p,
                                         restart_max_attempts=10**6))  # fmt: skip
    outcomes = simulate(failing, trials=4000, seed=2024)
    exact = expected_wall_hours(150.0, 1.5, 0.1, 10.0, 0.25, 0.1 + (1 - p) / p * init)
    assert abs(z_score(outcomes.wall_hours, exact)) < 4
    plain = expected_wall_hours(150.0, 1.5, 0.1, 10.0, 0.25, 0.1)
    assert abs(z_score(outcomes.wall_hours, plain)) > 4  # the failed attempts show


def test_live_migrations_interruptions_are_the_failures_finding_no_spare() -> None:
    # Erlang's loss formula by hand: one spare, load a = rate x repair; B(1, a) = a / (1 + a)
    from relplan.sim.closed_forms import erlang_loss

    assert erlang_loss(1, 0.25) == pytest.approx(0.25 / 1.25)
    assert erlang_loss(2, 1.0) == pytest.approx(0.2)  # (1/2) / (1 + 1 + 1/2)
    assert erlang_loss(0, 3.0) == 1.0
    config = parse_config({
        "cluster": {"servers": 10, "gpus_per_server": 8},
        "job": {"gpus": 64, "work": "100h", "spares": 2, "recovery": "live-migration",
                "restart": "6min", "checkpoint": {"interval": "1h", "write": "0s"}},
        "failures": {"gpu": {"lifetime": {"dist": "exponential", "mtbf": "32h"},
                             "repair": {"dist": "fixed", "mean": "30min"}}},
    })  # fmt: skip
    model = build_model(config)
    rate = 64 / 32.0  # failures an hour
    assert model.job_mtti_hours == pytest.approx(1.0 / (rate * erlang_loss(2, rate * 0.5)))


def test_a_load_drawn_at_each_restart_agrees_with_daly_on_its_mean() -> None:
    # restarts off the failure clock: each interruption costs D + init + E[load] of
    # failure-free downtime, whatever the load's spread
    from dataclasses import replace

    from relplan.sim.closed_forms import expected_wall_hours
    from relplan.sim.distributions import exponential, fixed
    from tests.conftest import make_model, z_score

    modes = [{"units": 50, "lifetime": exponential(500.0), "detect": 0.1,
              "repair": fixed(0.0)}]  # fmt: skip
    model = make_model(work=150.0, interval=1.5, write=0.1, restart=0.45, modes=modes)
    drawn = replace(model, job=replace(model.job, restart_init_hours=0.2,
                                       restart_load=exponential(0.25),
                                       failures_during_recovery=False))  # fmt: skip
    outcomes = simulate(drawn, trials=4000, seed=2024)
    exact = expected_wall_hours(150.0, 1.5, 0.1, 10.0, 0.0, 0.1 + 0.2 + 0.25)
    assert abs(z_score(outcomes.wall_hours, exact)) < 4
    restart = outcomes.bucket_hours[:, BUCKETS.index("restart")]
    interruptions = outcomes.interruptions_by_mode.sum(axis=1)
    assert np.allclose(outcomes.restart_init_hours, 0.2 * interruptions)
    loads = restart - outcomes.restart_init_hours
    assert not np.allclose(loads, 0.25 * interruptions)  # drawn, not the mean each time


def test_measured_loads_are_drawn_from_the_list() -> None:
    outcomes = _run(_config(restart={"init": f"{RESTART}h", "load": ["1min", "9min"]}),
                    trials=4000, seed=7)
    loads = np.round((_bucket(outcomes, "restart") - outcomes.restart_init_hours) * 60, 6)
    assert set(np.unique(loads)) == {1.0, 9.0}  # one restart a trial: one of the two
    assert abs((loads == 1.0).mean() - 0.5) < 4 * math.sqrt(0.25 / 4000)
