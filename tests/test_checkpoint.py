"""Young, Daly and the closed-form expected wall time, against Daly's published numbers."""

from __future__ import annotations

import math

import pytest
from scipy import optimize

from relplan.checkpoint import (
    checkpoint_count,
    daly_interval,
    exact_interval,
    expected_wall_hours,
    segment_wall_hours,
    young_interval,
)

MINUTE = 1 / 60


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


def test_young_is_sqrt_two_delta_m() -> None:
    assert young_interval(5 * MINUTE, 24.0) / MINUTE == pytest.approx(120.0)
    assert young_interval(0.5, 1.0) == pytest.approx(1.0)


def test_daly_long_write_branch() -> None:
    assert daly_interval(5.0, 2.0) == 2.0


@pytest.mark.parametrize(("write", "mtbf"), [(5 * MINUTE, 24.0), (5 * MINUTE, 6.0), (0.1, 1.0)])
def test_lambert_interval_minimises_the_cost_per_unit_of_work(write: float, mtbf: float) -> None:
    def cost(tau: float) -> float:
        return segment_wall_hours(tau + write, mtbf, 0.0) / tau

    numeric = optimize.minimize_scalar(
        cost, bounds=(1e-4, 10 * mtbf), method="bounded", options={"xatol": 1e-10}
    ).x
    assert exact_interval(write, mtbf) == pytest.approx(numeric, rel=1e-5)


def test_expected_wall_time_of_daly_case() -> None:
    """Daly's T_w at the optimum for M = 24 h, Ts = 500 h, R = 10 min, delta = 5 min: 547.9 h."""
    tau = exact_interval(5 * MINUTE, 24.0)
    per_work = segment_wall_hours(tau + 5 * MINUTE, 24.0, 10 * MINUTE) / tau
    assert 500.0 * per_work == pytest.approx(547.9, abs=0.1)


def test_no_failures_means_work_plus_checkpoints() -> None:
    assert checkpoint_count(10.0, 3.0) == 3
    assert checkpoint_count(9.0, 3.0) == 2
    assert checkpoint_count(2.0, 3.0) == 0
    assert expected_wall_hours(10.0, 3.0, 0.5, math.inf, 1.0) == pytest.approx(11.5)
    # with a huge MTBF the closed form tends to the failure-free time
    assert expected_wall_hours(10.0, 3.0, 0.5, 1e12, 1.0, 5.0) == pytest.approx(11.5, rel=1e-9)
