"""Daly (2006): the published optima (117, 57 and 9.1 min) and expected wall time
(547.9 h), by formula and by Monte Carlo."""

from __future__ import annotations

import math

import pytest

from relplan.analysis.optimize import optimize_interval
from relplan.sim import distributions
from relplan.sim.closed_forms import (
    daly_interval,
    exact_interval,
    segment_wall_hours,
)
from relplan.sim.engine import simulate
from tests.conftest import MINUTE, make_model


@pytest.mark.parametrize(
    ("mtbf_hours", "published_minutes", "tolerance_minutes"),
    [(24.0, 117.0, 0.5), (6.0, 57.0, 0.5), (0.25, 9.1, 0.05)],
)
def test_daly_reproduces_his_published_optima(
    mtbf_hours: float, published_minutes: float, tolerance_minutes: float
) -> None:
    """Daly 2006 figure captions: M = 24 h, 6 h, 15 min; delta = 5 min; 117, 57, 9.1 min."""
    tau = daly_interval(5 * MINUTE, mtbf_hours) / MINUTE
    assert tau == pytest.approx(published_minutes, abs=tolerance_minutes)


def test_expected_wall_time_of_daly_case() -> None:
    """Daly's T_w at the optimum for M = 24 h, Ts = 500 h, R = 10 min, delta = 5 min: 547.9 h."""
    tau = exact_interval(5 * MINUTE, 24.0)
    per_work = segment_wall_hours(tau + 5 * MINUTE, 24.0, 10 * MINUTE) / tau
    assert 500.0 * per_work == pytest.approx(547.9, abs=0.1)


@pytest.mark.slow  # the 24 h case alone takes about 18 s
@pytest.mark.parametrize(("mtbf_hours", "published_minutes", "published_wall_hours"),
                         [(24.0, 117.0, 547.9), (6.0, 57.0, 610.2)])
def test_daly_2006_validation_case_by_monte_carlo(mtbf_hours, published_minutes,
                                                  published_wall_hours) -> None:
    """Daly's figure captions: Ts = 500 h, R = 10 min, delta = 5 min (reference V1)."""
    model = make_model(work=500.0, interval=1.0, write=5 * MINUTE, restart=10 * MINUTE,
                       modes=[{"units": 1, "lifetime": distributions.exponential(mtbf_hours)}])
    result = optimize_interval(model, trials=3000, seed=7)
    assert result.mc_optimal_hours / MINUTE == pytest.approx(published_minutes, rel=0.02)
    walls = simulate(model.with_interval(result.mc_optimal_hours), 3000, seed=8).wall_hours
    standard_error = walls.std(ddof=1) / math.sqrt(walls.size)
    # the published figure is rounded to 0.1 h
    assert abs(walls.mean() - published_wall_hours) < 4 * standard_error + 0.05
