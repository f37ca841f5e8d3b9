"""Survival curves of censored data: the Kaplan-Meier estimate by hand, its bootstrap noise
bound against the Kolmogorov critical value, and the reverse Kaplan-Meier follow-up."""

from __future__ import annotations

import math

import numpy as np
import pytest

from relplan.stats.survival import follow_up_distribution, kaplan_meier, km_noise_bound

SAMPLES, SEED = 400, 0
"""Resamples and seed of the noise bound (those of ``relplan fit``'s check)."""

KOLMOGOROV_95 = 1.3581
"""The 95% point of the Kolmogorov distribution: sup |F_n - F| sqrt(n) for large n."""


def test_kaplan_meier_without_censoring_is_the_empirical_survival() -> None:
    hours = np.array([5.0, 1.0, 3.0, 3.0, 8.0])
    times, survival = kaplan_meier(hours, np.ones(5, dtype=bool))
    assert times.tolist() == [1.0, 3.0, 5.0, 8.0]
    assert survival.tolist() == pytest.approx([0.8, 0.4, 0.2, 0.0])


def test_kaplan_meier_with_censoring_by_hand() -> None:
    # 5 units: failures at 1 and 4, censored at 2 and 3 (out of the risk set after), one
    # still at risk at 4 beside the failure: S = 4/5 after 1, then 4/5 x 1/2 after 4
    hours = np.array([1.0, 2.0, 3.0, 4.0, 4.0])
    failed = np.array([True, False, False, True, False])
    times, survival = kaplan_meier(hours, failed)
    assert times.tolist() == [1.0, 4.0]
    assert survival.tolist() == pytest.approx([4 / 5, 4 / 5 * 1 / 2])


@pytest.mark.parametrize("seed", [1, 2])
def test_the_noise_bound_without_censoring_is_the_kolmogorov_critical_value(seed: int) -> None:
    # with every unit failed the Kaplan-Meier curve is the empirical CDF, and the
    # bootstrap's 95% point of sup |F*_n - F_n| estimates 1.358 / sqrt(n); 400 resamples
    # put the estimate within a few per cent
    n = 3000
    hours = np.random.default_rng(seed).exponential(100.0, n)
    bound = km_noise_bound(hours, np.ones(n, dtype=bool), SAMPLES, SEED)
    assert bound * math.sqrt(n) == pytest.approx(KOLMOGOROV_95, rel=0.1)


def test_the_noise_bound_grows_with_censoring() -> None:
    # the same 2,000 lifetimes, then censored at uniform times: fewer units at risk late,
    # a noisier curve
    rng = np.random.default_rng(3)
    lifetimes = rng.exponential(100.0, 2000)
    complete = km_noise_bound(lifetimes, np.ones(2000, dtype=bool), SAMPLES, SEED)
    watch = rng.uniform(0.0, 150.0, 2000)
    censored = km_noise_bound(np.minimum(lifetimes, watch), lifetimes <= watch, SAMPLES,
                              SEED)
    assert censored > 1.2 * complete


def test_the_follow_up_is_the_reverse_kaplan_meier() -> None:
    # censored at 4 (of 5 at risk of censoring: the unit failing at 2 is gone) and at 6
    # (2 at risk, the failure at 6 coming first at the tie); the rest at the longest, 8
    hours = np.array([2.0, 4.0, 5.0, 6.0, 6.0, 8.0])
    failed = np.array([True, False, True, True, False, True])
    times, probability = follow_up_distribution(hours, failed)
    assert times.tolist() == [4.0, 6.0, 8.0]
    assert probability.tolist() == pytest.approx([1 / 5, 4 / 5 * 1 / 2, 4 / 5 * 1 / 2])
    assert probability.sum() == pytest.approx(1.0)
