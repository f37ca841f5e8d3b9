"""Units with a history: lemons, imperfect repair and retirement,
against closed forms of renewal theory and hand-worked counts."""

from __future__ import annotations

import math

import numpy as np
import pytest

from relplan.sim import distributions
from relplan.sim.cohorts import UnitStream, unit_failure_counts
from relplan.sim.model import UnitHistory
from tests.conftest import z_score


@pytest.mark.parametrize(
    "lifetime",
    [distributions.exponential(1000.0), distributions.weibull_from_mean(0.7, 1000.0)],
    ids=["exponential", "weibull"],
)
@pytest.mark.parametrize("windows", [1, 3])
def test_a_stationary_lemon_cohort_multiplies_the_failure_count(
    lifetime: distributions.Distribution, windows: int
) -> None:
    """Lemons on top of the normal lifetime: E[N] = units H / mean x (1 - s + s f)."""
    share, factor = 0.05, 10.0
    history = UnitHistory(lemon_share=share, lemon_factor=factor)
    units, horizon = 200, 500.0
    counts = unit_failure_counts(units, lifetime, history, horizon, 4000,
                                 np.random.default_rng(11 + windows), windows=windows)
    plain = units * horizon / lifetime.mean_hours
    assert abs(z_score(counts.failures, plain * (1 - share + share * factor))) < 4
    assert units * history.failures_per_hour(lifetime) * horizon == pytest.approx(
        plain * (1 - share + share * factor)
    )


@pytest.mark.slow
@pytest.mark.parametrize(
    ("lifetime", "refail"),
    [
        (distributions.exponential(500.0), distributions.fixed(1.0)),
        (distributions.weibull_from_mean(1.5, 300.0), distributions.lognormal_from_mean(1.0, 20.0)),
    ],
    ids=["exponential-fixed-refail", "weibull-lognormal-refail"],
)
def test_imperfect_repair_adds_a_geometric_number_of_refails(
    lifetime: distributions.Distribution, refail: distributions.Distribution
) -> None:
    """A cycle is one life and (1 - p) / p refails on average: 1 / p failures per
    ``mean + (1 - p) / p x mean refail`` hours, from a stationary start."""
    p = 0.8
    history = UnitHistory(repair_success=p, refail=refail)
    units, horizon = 100, 1000.0
    counts = unit_failure_counts(units, lifetime, history, horizon, 4000,
                                 np.random.default_rng(5), windows=2)
    extra = (1 - p) / p * refail.mean_hours
    exact = units * horizon * (1 / p) / (lifetime.mean_hours + extra)
    assert abs(z_score(counts.failures, exact)) < 4
    # worked by hand for the first case: 100 units x 1000 h / 500.25 h x 1.25 = 249.9
    if lifetime.kind == "exponential":
        assert exact == pytest.approx(249.875)


def test_short_refails_make_repeat_offenders() -> None:
    """With refail short against the horizon, a unit that failed has a second failure
    unless its repair worked and its fresh life outlasts the horizon."""
    lifetime = distributions.exponential(2000.0)
    p = 0.5
    history = UnitHistory(repair_success=p, refail=distributions.fixed(0.5))
    counts = unit_failure_counts(1000, lifetime, history, 100.0, 3000,
                                 np.random.default_rng(8), start="new")
    assert counts.repeat_units.sum() > 0.45 * counts.units_failed.sum()
    assert counts.max_failures_per_unit.max() >= 4
    assert np.all(counts.failures >= counts.units_failed)


def test_retire_after_one_makes_a_renewal_process_of_the_population_mix() -> None:
    """With K = 1 every failed unit is replaced by a population draw: each position is an
    ordinary renewal process with a hyperexponential life (a lemon with probability s),
    whose renewal function is ``t / mu + (E[X^2] / (2 mu^2) - 1)(1 - exp(-kappa t))``,
    ``kappa = lambda (s + f (1 - s))``."""
    share, factor, mean = 0.15, 5.0, 400.0
    rate = 1.0 / mean
    retire = UnitHistory(lemon_share=share, lemon_factor=factor, retire_after=1)
    units, horizon, trials = 50, 2000.0, 4000
    counts = unit_failure_counts(units, distributions.exponential(mean), retire, horizon,
                                 trials, np.random.default_rng(21), windows=2)
    mu = (1 - share) / rate + share / (factor * rate)
    second = 2 * (1 - share) / rate**2 + 2 * share / (factor * rate) ** 2
    kappa = rate * (share + factor * (1 - share))
    exact = units * (horizon / mu + (second / (2 * mu**2) - 1) * (1 - math.exp(-kappa * horizon)))
    assert abs(z_score(counts.failures, exact)) < 4
    # every failure is a unit's first: retired at once
    assert np.array_equal(counts.units_failed, counts.failures)
    assert counts.repeat_units.sum() == 0
    # retiring lemons brings the count down from the lemon rate toward the plain renewal
    keep = UnitHistory(lemon_share=share, lemon_factor=factor)
    kept = unit_failure_counts(units, distributions.exponential(mean), keep, horizon, trials,
                               np.random.default_rng(22))
    plain = units * horizon / mean
    assert plain < counts.failures.mean() < kept.failures.mean()
    assert abs(z_score(kept.failures, plain * (1 - share + share * factor))) < 4


def test_tracking_alone_changes_no_rate_and_counts_repeat_units() -> None:
    """repair_success = 100% only follows the units: Poisson failures per unit, so
    E[units failing at least twice] = units x P(Poisson(lambda H) >= 2)."""
    history = UnitHistory(repair_success=1.0)
    units, horizon, mean = 400, 300.0, 500.0
    counts = unit_failure_counts(units, distributions.exponential(mean), history, horizon,
                                 3000, np.random.default_rng(3), windows=2)
    x = horizon / mean
    assert abs(z_score(counts.failures, units * x)) < 4
    assert abs(z_score(counts.units_failed, units * (1 - math.exp(-x)))) < 4
    assert abs(z_score(counts.repeat_units, units * (1 - math.exp(-x) - x * math.exp(-x)))) < 4


def test_the_same_seed_gives_the_same_events() -> None:
    history = UnitHistory(lemon_share=0.1, lemon_factor=4.0, repair_success=0.7, retire_after=3)
    lifetime = distributions.weibull_from_mean(0.8, 200.0)

    def events() -> tuple[np.ndarray, ...]:
        stream = UnitStream(30, lifetime, history, 50, np.random.default_rng(9))
        first = stream.next_window(100.0, np.arange(50))
        second = stream.next_window(150.0, np.arange(0, 50, 2))
        return (*first, *second)

    for a, b in zip(events(), events(), strict=True):
        assert np.array_equal(a, b)
