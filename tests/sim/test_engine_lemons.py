"""The engine with units that have a history: lemon cohorts, imperfect
repair and retirement reach the job's failure counts, and the per-unit counts hold only the
failures the walk reached."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from relplan.sim import distributions
from relplan.sim.compiled import compile_model
from relplan.sim.engine import BLOCK_TRIALS, simulate, simulate_block
from relplan.sim.model import UnitHistory
from relplan.vocab import BUCKETS, UNIT_STATS
from tests.conftest import make_model, z_score

exp = distributions.exponential
UNITS_FAILED, REPEAT, MOST, RETIRED = (UNIT_STATS.index(name) for name in UNIT_STATS)
JOB = {"work": 300.0, "interval": 2.0, "write": 0.1, "restart": 0.2}
EXPOSURE = 300.0 + 149 * 0.1  # the work and its 149 checkpoint writes, hours


def _harmless(history: UnitHistory | None, units: int = 200, mean: float = 2000.0) -> dict:
    """A degraded mode that neither slows nor stops the job: the exposure is the
    failure-free wall time (work and checkpoint writes), :data:`EXPOSURE`."""
    return {"units": units, "lifetime": exp(mean), "impact": "degraded", "slowdown": (1.0,),
            "history": history}  # fmt: skip


def test_a_stationary_exponential_lemon_cohort_multiplies_the_failure_count() -> None:
    """The exposure is fixed, so E[failures] = units x exposure / mean x (1 - s + s f)."""
    share, factor = 0.05, 10.0
    lemons = make_model(**JOB, modes=[_harmless(UnitHistory(share, factor))])
    plain = make_model(**JOB, modes=[_harmless(None)])
    with_lemons = simulate(lemons, 4000, seed=3)
    without = simulate(plain, 4000, seed=4)
    assert np.all(with_lemons.wall_hours == pytest.approx(EXPOSURE))
    expected = 200 * EXPOSURE / 2000.0
    assert abs(z_score(without.failures_by_mode[:, 0], expected)) < 4
    multiplier = 1 - share + share * factor
    assert abs(z_score(with_lemons.failures_by_mode[:, 0], expected * multiplier)) < 4
    assert lemons.modes[0].job_rate_per_hour == pytest.approx(200 / 2000.0 * multiplier)


def test_imperfect_repair_adds_its_refails_to_the_job() -> None:
    """Each genuine failure brings (1 - p) / p refails on average; with a stationary start
    a unit fails (1 / p) / (mean + (1 - p) / p x refail) times per hour of use."""
    p, refail = 0.75, distributions.fixed(1.0)
    model = make_model(**JOB, modes=[_harmless(UnitHistory(repair_success=p, refail=refail))])
    outcomes = simulate(model, 4000, seed=5)
    per_hour = (1 / p) / (2000.0 + (1 - p) / p * 1.0)
    assert np.all(outcomes.wall_hours == pytest.approx(EXPOSURE))
    assert abs(z_score(outcomes.failures_by_mode[:, 0], 200 * EXPOSURE * per_hour)) < 4
    # worked by hand: 200 units x 314.9 h / 2000.33 h x 4/3 = 41.98 failures, of which
    # 200 x 314.9 / 2000.33 = 31.49 genuine and a third as many refails
    assert 200 * EXPOSURE * per_hour == pytest.approx(41.98, abs=1e-2)


def test_retiring_lemons_brings_the_interruptions_down() -> None:
    """A fatal lemon mode: retiring each failed unit (K = 1) replaces lemons by population
    draws, so the job sees fewer failures than with the lemons kept, more than none."""
    job = {"work": 200.0, "interval": 1.0, "write": 0.05, "restart": 0.1}

    def fatal(history: UnitHistory | None) -> dict:
        return {"units": 100, "lifetime": exp(1000.0), "history": history}

    lemons = UnitHistory(lemon_share=0.15, lemon_factor=5.0)
    retired = UnitHistory(lemon_share=0.15, lemon_factor=5.0, retire_after=1)
    counts = {
        label: simulate(make_model(**job, modes=[fatal(history)]), 3000, seed=6)
        for label, history in (("plain", None), ("lemons", lemons), ("retired", retired))
    }
    rate = {label: o.failures_by_mode[:, 0].sum() / (o.wall_hours - o.bucket_hours[:, 3:6]
                                                     .sum(axis=1)).sum()
            for label, o in counts.items()}  # fmt: skip
    assert rate["plain"] < rate["retired"] < rate["lemons"]
    retired_stats = counts["retired"].unit_stats[:, 0]
    assert np.array_equal(retired_stats[:, RETIRED], counts["retired"].failures_by_mode[:, 0])


@pytest.mark.parametrize("window_factor", [0.05, 1.2])
def test_the_unit_counts_hold_only_the_failures_the_walk_reached(window_factor: float) -> None:
    """With retire_after = 2 a unit fails at most twice, so per trial the failures the
    walk counted are exactly the units that failed plus the repeat offenders: any failure
    tallied beyond a job's end (windows overshoot it) would break the equality."""
    history = UnitHistory(lemon_share=0.2, lemon_factor=8.0, repair_success=0.5,
                          refail=exp(0.5), retire_after=2)  # fmt: skip
    model = make_model(**JOB, modes=[
        {"units": 100, "lifetime": distributions.weibull_from_mean(1.5, 5000.0)},
        {"units": 64, "lifetime": distributions.weibull_from_mean(0.8, 3000.0),
         "detect": 0.05, "repair": exp(2.0), "history": history},
    ])  # fmt: skip
    outcomes = simulate_block(model, 3000, np.random.SeedSequence(7),
                              window_factor=window_factor)  # fmt: skip
    failures = outcomes.failures_by_mode[:, 1]
    stats = outcomes.unit_stats[:, 0]
    assert failures.sum() > 3000
    assert np.array_equal(failures, stats[:, UNITS_FAILED] + stats[:, REPEAT])
    assert np.array_equal(stats[:, RETIRED], stats[:, REPEAT])
    assert stats[:, MOST].max() == 2
    assert np.array_equal(stats[:, MOST] > 0, failures > 0)
    assert outcomes.unit_stats.shape == (3000, 1, len(UNIT_STATS))  # none for mode 0
    assert outcomes.mode_tracks_units == (False, True)


def test_a_mode_with_a_history_is_drawn_in_windows_and_the_others_stay_on_the_fly() -> None:
    model = make_model(**JOB, modes=[_harmless(UnitHistory(repair_success=1.0)),
                                     _harmless(None)])  # fmt: skip
    assert compile_model(model).window_modes == (0,)


def test_the_unit_counts_do_not_depend_on_the_workers() -> None:
    history = UnitHistory(lemon_share=0.1, lemon_factor=5.0, repair_success=0.8, retire_after=3)
    mode = {"units": 50, "lifetime": exp(500.0), "history": history}
    model = make_model(work=50.0, interval=1.0, write=0.05, restart=0.1, modes=[mode])
    one = simulate(model, BLOCK_TRIALS + 500, seed=9, workers=1)
    two = simulate(model, BLOCK_TRIALS + 500, seed=9, workers=2)
    assert np.array_equal(one.unit_stats, two.unit_stats)
    assert np.array_equal(one.wall_hours, two.wall_hours)


def test_a_calendar_window_that_ends_while_the_job_is_down_keeps_the_counts_exact() -> None:
    """With ``job.horizon`` a trial can stop at the failure that leaves the job down past
    the window's end: that failure is booked, and so is its unit."""
    history = UnitHistory(lemon_share=0.2, lemon_factor=8.0, repair_success=0.5,
                          refail=exp(0.5), retire_after=2)  # fmt: skip
    model = make_model(work=5000.0, interval=1.0, write=0.05, restart=0.1, modes=[
        {"units": 64, "lifetime": exp(2000.0), "repair": exp(30.0), "history": history},
    ])  # fmt: skip
    model = replace(model, job=replace(model.job, horizon_hours=150.0))
    outcomes = simulate(model, 3000, seed=12)
    assert np.all(outcomes.wall_hours == pytest.approx(150.0))
    down_at_end = outcomes.bucket_hours[:, BUCKETS.index("waiting")] > 0
    assert down_at_end.sum() > 100
    failures = outcomes.failures_by_mode[:, 0]
    stats = outcomes.unit_stats[:, 0]
    assert np.array_equal(failures, stats[:, UNITS_FAILED] + stats[:, REPEAT])
