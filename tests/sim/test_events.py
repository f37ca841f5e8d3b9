"""Exact O(events) failure streams against renewal theory."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from relplan.sim import distributions
from relplan.sim.events import RenewalStream, renewal_failure_counts
from tests.conftest import z_score


@pytest.mark.parametrize("shape", [0.7, 1.5])
@pytest.mark.parametrize("windows", [1, 4])
def test_stationary_weibull_renewal_count(shape: float, windows: int) -> None:
    """Stationary alternating renewal: E[N(T)] = units * T / (mean life + mean repair)."""
    lifetime = distributions.weibull_from_mean(shape, 500.0)
    repair = distributions.lognormal_from_mean(0.8, 50.0)
    units, horizon, trials = 40, 2000.0, 4000
    counts = renewal_failure_counts(
        units,
        lifetime,
        horizon,
        trials,
        np.random.default_rng(17 + windows),
        start="equilibrium",
        repair_gap=repair,
        windows=windows,
    )
    exact = units * horizon / (lifetime.mean_hours + repair.mean_hours)
    assert abs(z_score(counts, exact)) < 4


@pytest.mark.slow
@pytest.mark.parametrize("shape", [0.7, 1.5])
def test_stationary_count_without_repair_gap(shape: float) -> None:
    """On the job's exposure clock (no gap) a stationary unit fails T / mean life times."""
    lifetime = distributions.weibull_from_mean(shape, 300.0)
    counts = renewal_failure_counts(
        100, lifetime, 900.0, 4000, np.random.default_rng(3), start="equilibrium", windows=3
    )
    assert abs(z_score(counts, 100 * 900.0 / 300.0)) < 4


def test_new_units_are_not_stationary() -> None:
    """Weibull shape < 1 from age 0 fails more early on (infant mortality) than in equilibrium."""
    lifetime = distributions.weibull_from_mean(0.5, 1000.0)
    rng = np.random.default_rng(9)
    new = renewal_failure_counts(200, lifetime, 100.0, 2000, rng, start="new")
    stationary = renewal_failure_counts(200, lifetime, 100.0, 2000, rng, start="equilibrium")
    assert abs(z_score(stationary, 200 * 100.0 / 1000.0)) < 4
    # The first failure of a new unit is F itself: E[first failures] = units * F(H).
    assert new.mean() > 200 * float(lifetime.cdf(100.0)) - 4 * new.std() / np.sqrt(new.size)
    assert new.mean() > stationary.mean() * 1.5


def test_poisson_superposition_count() -> None:
    lifetime = distributions.exponential(1000.0)
    counts = renewal_failure_counts(
        500, lifetime, 40.0, 3000, np.random.default_rng(1), start="new", windows=2
    )
    assert abs(z_score(counts, 500 * 40.0 / 1000.0)) < 4
    assert counts.var(ddof=1) == pytest.approx(counts.mean(), rel=0.1)


def test_failure_times_lie_in_their_windows() -> None:
    lifetime = distributions.weibull_from_mean(0.8, 100.0)
    stream = RenewalStream(50, lifetime, 10, np.random.default_rng(2))
    everyone = np.arange(10)
    trials, times = stream.next_window(30.0, everyone)
    assert times.size > 0 and times.min() >= 0.0 and times.max() < 30.0
    trials, times = stream.next_window(60.0, everyone[::2])
    assert times.size > 0 and times.min() >= 30.0 and times.max() < 60.0
    assert set(np.unique(trials)) <= set(everyone[::2])


def test_memory_is_proportional_to_events_not_units_times_trials() -> None:
    """100,000 units x 10,000 trials would be 8 GB as a lifetime array; events are few."""
    lifetime = distributions.weibull_from_mean(0.7, 5 * 8766.0)
    stream = RenewalStream(100_000, lifetime, 10_000, np.random.default_rng(4))
    tracemalloc.start()
    _, times = stream.next_window(2.0, np.arange(10_000))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    expected_events = 100_000 * 10_000 * 2.0 / (5 * 8766.0)
    assert times.size == pytest.approx(expected_events, rel=0.05)
    assert peak < 64 * times.size + 16 * 10_000 + 1_000_000  # bytes: O(events + trials)
