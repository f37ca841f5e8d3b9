"""Lifetime distributions against scipy.stats: samples, truncated windows, equilibrium."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, stats

from relplan.sim import distributions
from relplan.sim.distributions import Distribution

CASES = {
    "exponential": distributions.exponential(1000.0),
    "weibull-0.7": distributions.weibull_from_mean(0.7, 1000.0),
    "weibull-1.5": distributions.weibull_from_mean(1.5, 1000.0),
    "lognormal": distributions.lognormal_from_mean(1.2, 1000.0),
}
SCIPY = {
    "exponential": stats.expon(scale=1000.0),
    "weibull-0.7": stats.weibull_min(0.7, scale=1000.0 / math.gamma(1 + 1 / 0.7)),
    "weibull-1.5": stats.weibull_min(1.5, scale=1000.0 / math.gamma(1 + 1 / 1.5)),
    "lognormal": stats.lognorm(1.2, scale=1000.0 * math.exp(-0.5 * 1.2**2)),
}


@pytest.mark.parametrize("name", CASES)
def test_mean_matches_scipy(name: str) -> None:
    assert CASES[name].mean_hours == pytest.approx(SCIPY[name].mean(), rel=1e-9)
    assert CASES[name].mean_hours == pytest.approx(1000.0, rel=1e-9)


@pytest.mark.parametrize("name", CASES)
def test_samples_pass_ks_against_scipy(name: str) -> None:
    rng = np.random.default_rng(11)
    sample = CASES[name].sample(rng, 20_000)
    assert stats.kstest(sample, SCIPY[name].cdf).pvalue > 1e-3


@pytest.mark.parametrize("name", CASES)
@pytest.mark.parametrize(("lower", "upper"), [(0.0, 50.0), (0.0, 5000.0), (800.0, 1500.0)])
def test_window_samples_follow_the_truncated_distribution(
    name: str, lower: float, upper: float
) -> None:
    rng = np.random.default_rng(5)
    reference = SCIPY[name]
    sample = CASES[name].sample_window(rng, np.full(20_000, lower), upper)
    assert sample.min() >= lower
    assert sample.max() < upper
    mass = reference.cdf(upper) - reference.cdf(lower)

    def truncated_cdf(x: np.ndarray) -> np.ndarray:
        return (reference.cdf(x) - reference.cdf(lower)) / mass

    assert stats.kstest(sample, truncated_cdf).pvalue > 1e-3


def _equilibrium_cdf_by_quadrature(reference, x: float) -> float:
    value, _ = integrate.quad(reference.sf, 0.0, x, limit=200, epsabs=1e-12, epsrel=1e-12)
    return value / reference.mean()


@pytest.mark.parametrize("name", CASES)
@pytest.mark.parametrize("x", [1.0, 100.0, 1000.0, 4000.0])
def test_equilibrium_cdf_is_the_integrated_survival(name: str, x: float) -> None:
    expected = _equilibrium_cdf_by_quadrature(SCIPY[name], x)
    dist: Distribution = CASES[name]
    assert float(dist.equilibrium_cdf(x)) == pytest.approx(expected, rel=1e-6, abs=1e-10)
    assert float(dist.equilibrium_sf(x)) == pytest.approx(1 - expected, rel=1e-5, abs=1e-9)


@pytest.mark.parametrize("name", CASES)
def test_equilibrium_inverses(name: str) -> None:
    dist = CASES[name]
    q = np.array([1e-6, 0.01, 0.3, 0.5, 0.9, 0.999])
    assert dist.equilibrium_cdf(dist.equilibrium_ppf(q)) == pytest.approx(q, rel=1e-7)
    assert dist.equilibrium_sf(dist.equilibrium_isf(q)) == pytest.approx(q, rel=1e-7)


@pytest.mark.parametrize("name", CASES)
def test_equilibrium_window_samples_pass_ks(name: str) -> None:
    rng = np.random.default_rng(8)
    dist = CASES[name]
    sample = dist.sample_window(rng, np.zeros(20_000), 3000.0, equilibrium=True)
    mass = float(dist.equilibrium_cdf(3000.0))
    pvalue = stats.kstest(sample, lambda x: dist.equilibrium_cdf(x) / mass).pvalue
    assert pvalue > 1e-3


def test_fixed_distribution() -> None:
    dist = distributions.fixed(4.0)
    rng = np.random.default_rng(0)
    assert np.all(dist.sample(rng, 5) == 4.0)
    assert dist.mean_hours == 4.0
    assert float(dist.equilibrium_cdf(1.0)) == pytest.approx(0.25)


def test_window_probability_conditions_on_survival() -> None:
    dist = distributions.weibull(1.5, 100.0)
    p = float(dist.window_probability(50.0, 80.0, equilibrium=False))
    reference = stats.weibull_min(1.5, scale=100.0)
    assert p == pytest.approx((reference.cdf(80) - reference.cdf(50)) / reference.sf(50))
