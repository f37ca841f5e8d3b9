"""Means and quantiles with their CIs: the summary by hand, the mean's interval against
the summary's and at another quantile, and both intervals covering the truth at their
stated rate."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from relplan.stats.summary import Z_95, finite_or_none, mean_ci, quantile_ci, summarize


def test_summarize_by_hand() -> None:
    data = np.arange(1.0, 101.0)  # 1..100
    summary = summarize(data)
    assert summary["mean"] == 50.5
    assert summary["std"] == pytest.approx(np.sqrt(np.sum((data - 50.5) ** 2) / 99))
    half_width = 1.959963984540054 * summary["std"] / 10.0
    assert summary["ci95"] == pytest.approx([50.5 - half_width, 50.5 + half_width])
    assert summary["p50"] == 50.5
    assert summary["p5"] == pytest.approx(5.95)
    assert summary["p99"] == pytest.approx(99.01)


def test_ci_covers_the_truth_about_95_percent_of_the_time() -> None:
    rng = np.random.default_rng(0)
    covered = 0
    for _ in range(400):
        low, high = summarize(rng.exponential(2.0, 400))["ci95"]
        covered += low <= 2.0 <= high
    # binomial(400, 0.95): sd 4.4; allow 4 sd
    assert abs(covered - 380) < 18


def test_z_95_is_the_normal_quantile() -> None:
    assert stats.norm.ppf(0.975) == pytest.approx(Z_95, abs=1e-12)


def test_mean_ci_by_hand_and_as_the_summary_gives_it() -> None:
    data = np.array([2.0, 4.0, 9.0])  # mean 5, sample variance (9 + 1 + 16) / 2 = 13
    estimate = mean_ci(data)
    assert estimate.mean == 5.0
    assert estimate.sem == pytest.approx(math.sqrt(13.0 / 3.0))
    assert estimate.ci == pytest.approx((5.0 - Z_95 * estimate.sem, 5.0 + Z_95 * estimate.sem))
    assert list(estimate.ci) == summarize(data)["ci95"]
    low, high = mean_ci(data, z=1.0).ci
    assert (low, high) == pytest.approx((5.0 - estimate.sem, 5.0 + estimate.sem))
    assert mean_ci(np.array([3.0])) == (3.0, 0.0, (3.0, 3.0))


def test_the_quantile_ci_covers_at_its_exact_binomial_rate() -> None:
    # the interval runs from the low-th to the (high + 1)-th order statistic: it covers
    # the true quantile exactly when low <= #(values below it) <= high, a binomial(n, q)
    # probability; 2,000 samples put the observed rate within 4 SE of it
    n, q, samples = 200, 0.95, 2000
    truth = -math.log(1.0 - q)  # the exponential(1) quantile
    low = int(stats.binom.ppf(0.025, n, q))
    high = int(stats.binom.ppf(0.975, n, q))
    exact = stats.binom.cdf(high, n, q) - stats.binom.cdf(low - 1, n, q)
    rng = np.random.default_rng(5)
    covered = 0
    for _ in range(samples):
        values = rng.exponential(1.0, n)
        value, (below, above) = quantile_ci(values, q)
        assert below <= value <= above
        covered += below <= truth <= above
    se = math.sqrt(exact * (1.0 - exact) / samples)
    assert exact >= 0.95
    assert abs(covered / samples - exact) < 4 * se


def test_finite_or_none() -> None:
    assert finite_or_none(float("nan")) is None
    assert finite_or_none(-math.inf) is None
    assert finite_or_none(0.5) == 0.5
