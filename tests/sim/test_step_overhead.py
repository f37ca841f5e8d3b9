"""A recovery stack's steady per-step tax (``job.step_overhead``): the job computes its
work times (1 + tax), and the tax on the work it keeps is the ``overhead`` bucket."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest
from typer.testing import CliRunner

from relplan.cli.app import app
from relplan.config.loading import load_config
from relplan.sim.closed_forms import checkpoint_count, expected_wall_hours
from relplan.sim.distributions import exponential as exp
from relplan.sim.distributions import fixed
from relplan.sim.engine import simulate
from relplan.sim.model import build_model
from relplan.vocab import BUCKETS
from tests.conftest import make_model, trial_timeline_hours, z_score

USEFUL, OVERHEAD = BUCKETS.index("useful"), BUCKETS.index("overhead")


@pytest.mark.parametrize("tax", [0.02, 0.25])
def test_failure_free_wall_time_is_the_work_times_one_plus_the_tax(tax: float) -> None:
    # 100 h of work, checkpoints free: failure-free the job takes exactly 100 (1 + tax) h,
    # 100 h of it useful and 100 tax h of overhead; goodput 1 / (1 + tax).
    config = load_config("configs/small.toml", [
        'job.recovery="failure-free"', "job.work=100h", "job.checkpoint.write=0s",
        f"job.step_overhead={tax}"])  # fmt: skip
    outcomes = simulate(build_model(config), trials=20, seed=1)
    assert np.allclose(outcomes.wall_hours, 100.0 * (1.0 + tax), rtol=1e-12)
    assert np.allclose(outcomes.bucket_hours[:, USEFUL], 100.0, rtol=1e-12)
    assert np.allclose(outcomes.bucket_hours[:, OVERHEAD], 100.0 * tax, rtol=1e-12)
    assert np.allclose(outcomes.bucket_hours.sum(axis=1), outcomes.wall_hours, rtol=1e-12)


def test_failure_free_checkpoints_are_counted_over_the_taxed_compute() -> None:
    # 100 h of work at a 10% tax: 110 h of compute in 1-h segments, 109 writes of 0.05 h
    config = load_config("configs/small.toml", [
        'job.recovery="failure-free"', "job.work=100h", "job.checkpoint.interval=1h",
        "job.checkpoint.write=3min", 'job.step_overhead="10%"'])  # fmt: skip
    outcomes = simulate(build_model(config), trials=5, seed=1)
    writes = checkpoint_count(110.0, 1.0)
    assert writes == 109
    assert np.allclose(outcomes.wall_hours, 110.0 + writes * 0.05, rtol=1e-12)


def test_mean_wall_time_with_a_tax_agrees_with_daly() -> None:
    # Daly's expected time over the taxed compute: 150 h of work at a 20% tax is 180 h
    # of compute, M = 10 h, tau = 1.5 h, delta = 0.1 h, R = 0.25 h, D = 0.1 h.
    modes = [{"units": 50, "lifetime": exp(500.0), "detect": 0.1, "repair": fixed(0.0)}]
    model = make_model(work=150.0, interval=1.5, write=0.1, restart=0.25, modes=modes)
    taxed = replace(model, job=replace(model.job, step_overhead=0.2))
    outcomes = simulate(taxed, trials=4000, seed=2024)
    exact = expected_wall_hours(180.0, 1.5, 0.1, 10.0, 0.25, 0.1)
    assert abs(z_score(outcomes.wall_hours, exact)) < 4
    untaxed = expected_wall_hours(150.0, 1.5, 0.1, 10.0, 0.25, 0.1)
    assert abs(z_score(outcomes.wall_hours, untaxed)) > 4  # the tax is detectable
    # the work kept is the job's work; its tax is a sixth of the compute kept
    assert np.allclose(outcomes.bucket_hours[:, USEFUL], 150.0, rtol=1e-12)
    assert np.allclose(outcomes.bucket_hours[:, OVERHEAD], 30.0, rtol=1e-12)


def test_no_tax_leaves_the_overhead_empty_and_the_numbers_as_they_were() -> None:
    model = make_model(work=50.0, interval=1.0, write=0.1, restart=0.25,
                       modes=[{"units": 20, "lifetime": exp(200.0), "detect": 0.1}])
    plain = simulate(model, trials=500, seed=7)
    explicit = simulate(replace(model, job=replace(model.job, step_overhead=0.0)), 500, 7)
    assert np.all(plain.bucket_hours[:, OVERHEAD] == 0.0)
    assert np.array_equal(plain.wall_hours, explicit.wall_hours)
    assert np.array_equal(plain.bucket_hours, explicit.bucket_hours)


def test_a_per_step_recovery_redoes_a_taxed_step() -> None:
    config = load_config("configs/small.toml", [
        'job.recovery="in-process"', "job.step=10s", 'job.step_overhead="5%"'])
    absorbed = [m for m in build_model(config).modes if m.impact == "elastic"]
    assert absorbed and all(m.rework_hours * 3600 == pytest.approx(10.5) for m in absorbed)


@pytest.mark.parametrize("value", ["-0.01", '"1001%"', '"a lot"'])
def test_a_bad_tax_names_its_key(value: str) -> None:
    result = CliRunner().invoke(app, ["validate", "configs/small.toml",
                                      "--set", f"job.step_overhead={value}"])
    assert result.exit_code == 2
    assert "job.step_overhead" in result.output and "Traceback" not in result.output


def test_the_timeline_of_a_trial_books_the_tax_as_the_engine_does() -> None:
    # a trial of small with failures, at a 10% tax: its timeline's hours per bucket are
    # the engine's for that trial, overhead and useful included
    model = build_model(load_config("configs/small.toml", ['job.step_overhead="10%"']))
    outcomes = simulate(model, trials=40, seed=3)
    hours = trial_timeline_hours(model, outcomes, 11, 3, 40,
                                 ("useful", "overhead", "rework", "checkpoint"))
    assert hours["overhead"] == pytest.approx(0.1 * hours["useful"])


def test_the_report_names_the_tax_and_its_compute(tmp_path) -> None:
    result = CliRunner().invoke(app, ["simulate", "configs/small.toml", "--trials", "50",
                                      "--set", 'job.step_overhead="5%"',
                                      "--out", str(tmp_path / "out")])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "tax of 5.0% a step: 756.0 h of compute" in result.output  # 720 h x 1.05
    report = (tmp_path / "out" / "report.md").read_text()
    assert "720.0 h of work with the recovery stack's tax of 5.0% a step (756.0 h" in report
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["lost_hours_breakdown"]["overhead"] == pytest.approx(36.0)
