"""The two checks ``relplan fit`` judges a family by: the goodness-of-fit bound against the
Kaplan-Meier curve (its tolerance part by hand, true families passing; the noise part is
tested in tests/stats/test_survival.py), and the failures a line gives over the data's
own exposure (the renewal function against closed forms and Monte Carlo)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate

from relplan.calibrate.fit_checks import (
    COUNT_REFUSE,
    COUNT_WARN,
    GOF_TOLERANCE,
    RenewalWindow,
    count_check,
    count_verdict,
    expected_failures_in_follow_up,
    expected_repair_hours,
    gof_rule,
    renewal_function,
)
from relplan.calibrate.lifetimes import fit_exponential, fit_weibull, lifetime_sample
from relplan.sim import distributions


def test_the_tolerance_bound_is_a_fifth_of_the_fraction_failed() -> None:
    # 5 units, 4 failed before the last (censored) one: the curve ends at 1/5, so the
    # tolerance is 0.2 x 0.8; the bound is the larger of it and the noise bound
    hours = np.array([1.0, 2.0, 3.0, 4.0, 9.0])
    failed = np.array([True, True, True, True, False])
    rule = gof_rule(hours, failed)
    assert rule.km_end_cdf == pytest.approx(0.8)
    assert rule.tolerance_bound == pytest.approx(GOF_TOLERANCE * 0.8)
    assert rule.bound == max(rule.noise_bound, rule.tolerance_bound)
    assert rule.passes(rule.bound) and not rule.passes(rule.bound + 1e-9)


def test_a_true_family_passes_and_on_a_large_fleet_a_misfit_fails_past_the_tolerance() -> None:
    # 60 samples of 300 censored units from a Weibull of shape 1.5: the fitted Weibull
    # passes (the bound ignores that the parameters were fitted, so nearly always)
    rng = np.random.default_rng(4)
    passed = 0
    for _ in range(60):
        lifetimes = 1000.0 * rng.weibull(1.5, 300)
        watch = rng.uniform(0.0, 3000.0, 300)
        sample = lifetime_sample(np.minimum(lifetimes, watch), lifetimes <= watch)
        passed += gof_rule(sample.hours, sample.failed).passes(fit_weibull(sample).km_distance)
    assert passed >= 57  # at least 95%
    # 20,000 complete lifetimes of shape 3: the Kaplan-Meier curve ends at 1, so the
    # tolerance is 0.2 exactly and the noise bound about 1.36 / sqrt(20000) = 0.01
    lifetimes = 1000.0 * np.random.default_rng(5).weibull(3.0, 20000)
    sample = lifetime_sample(lifetimes, np.ones(lifetimes.size))
    rule = gof_rule(sample.hours, sample.failed)
    assert rule.tolerance_bound == pytest.approx(0.2) and rule.noise_bound < 0.02
    exponential = fit_exponential(sample)
    assert exponential.km_distance > rule.bound and not rule.passes(exponential.km_distance)
    # a Weibull of shape 2 is a clear misfit (past the noise) but within the tolerance
    shape_two = distributions.weibull(2.0, 1100.0)
    times = np.sort(lifetimes)
    distance = np.abs(shape_two.cdf(times) - np.arange(1, times.size + 1) / times.size).max()
    assert rule.noise_bound < distance <= rule.tolerance_bound


def test_the_follow_up_count_is_the_expected_failures_of_units_new_at_entry() -> None:
    # units enter new and are watched a uniform 0-3,000 h; with the true lifetime the
    # count is n P(T <= C) = n / 3000 x integral of F over [0, 3000], within the
    # sampling error of the follow-up distribution (about sd(F(C)) / sqrt(n) per unit)
    n = 5000
    lifetime = distributions.weibull(1.5, 1000.0)
    rng = np.random.default_rng(6)
    lifetimes = 1000.0 * rng.weibull(1.5, n)
    watch = rng.uniform(0.0, 3000.0, n)
    hours, failed = np.minimum(lifetimes, watch), lifetimes <= watch
    exact, _ = integrate.quad(lambda t: float(lifetime.cdf(np.array(t))), 0.0, 3000.0)
    exact /= 3000.0
    per_unit = expected_failures_in_follow_up(lifetime, hours, failed) / n
    spread = float(np.std(lifetime.cdf(watch)))
    assert abs(per_unit - exact) < 4 * spread / math.sqrt(n)
    check = count_check(lifetime, hours, failed)
    assert check.kind == "lifetimes" and check.observed == failed.sum()
    assert abs(check.ratio - 1.0) < 0.05  # the true lifetime reproduces the count


def test_the_renewal_function_against_its_closed_form_and_monte_carlo() -> None:
    # t / mean, up to the grid's error (2,000 steps: a few parts in a million)
    exponential = distributions.exponential(250.0)
    assert renewal_function(exponential, 3000.0) == pytest.approx(12.0, rel=1e-5)
    # a Weibull of shape 0.5, new at 0: a Monte Carlo of 20,000 units over 5,000 h
    lifetime = distributions.weibull(0.5, 400.0)
    rng = np.random.default_rng(7)
    counts = np.zeros(20000)
    clock = np.zeros(20000)
    alive = np.ones(20000, dtype=bool)
    while alive.any():
        clock[alive] += 400.0 * rng.weibull(0.5, alive.sum())
        alive &= clock <= 5000.0
        counts += alive
    standard_error = counts.std() / math.sqrt(counts.size)
    assert abs(renewal_function(lifetime, 5000.0) - counts.mean()) < 4 * standard_error


def test_the_renewal_count_is_units_times_window_over_the_mean_in_equilibrium() -> None:
    lifetime = distributions.weibull(0.5, 400.0)  # mean 800 h
    check = count_check(lifetime, np.ones(300), np.arange(300) < 250, RenewalWindow(20, 5000.0))
    assert check.kind == "renewal" and check.observed == 250
    assert check.expected == pytest.approx(20 * 5000.0 / 800.0)
    assert check.ratio == pytest.approx(125.0 / 250.0)
    assert check.expected_new == pytest.approx(20 * renewal_function(lifetime, 5000.0))
    assert check.expected_new > check.expected  # a falling hazard fails most when new
    assert check.to_dict()["verdict"] == "warn"  # exactly 2x off: not beyond it


def test_repair_hours_are_n_times_the_mean_and_cut_where_a_repair_was_under_way() -> None:
    # every repair ended: each drawn from the line, n x its mean
    lifetime = distributions.lognormal(2.0, 8.0)
    ended = np.array([1.0, 3.0, 20.0, 90.0])
    assert expected_repair_hours(lifetime, ended, np.ones(4, dtype=bool)) == pytest.approx(
        4 * lifetime.mean_hours
    )
    # half the repairs were still under way when the data were taken, each at 30 h: with
    # the true line the hours are n (E[T] / 2 + E[min(T, 30)] / 2), up to the estimate of
    # the share cut at 30 h (the censored over the repairs still open then: binomial)
    repair = distributions.weibull(0.6, 10.0)
    rng = np.random.default_rng(8)
    n = 4000
    times = 10.0 * rng.weibull(0.6, n)
    cut = np.where(rng.random(n) < 0.5, 30.0, np.inf)
    hours, ended = np.minimum(times, cut), times <= cut
    capped, _ = integrate.quad(lambda t: float(repair.sf(np.array(t))), 0.0, 30.0)
    exact = n * (repair.mean_hours + capped) / 2
    open_at_30 = np.count_nonzero(hours >= 30.0)
    share_error = math.sqrt(0.25 / open_at_30)
    expected = expected_repair_hours(repair, hours, ended)
    assert abs(expected - exact) < 4 * share_error * n * (repair.mean_hours - capped)
    check = count_check(repair, hours, ended, repairs=True)
    assert check.kind == "repairs" and check.observed == pytest.approx(hours.sum())
    assert abs(check.ratio - 1.0) < 0.1
    assert set(check.to_dict()) >= {"observed_hours", "expected_hours", "quantity"}


@pytest.mark.parametrize(
    ("ratio", "verdict"),
    [
        (1.0, "ok"),
        (1.0 + COUNT_WARN, "ok"),
        (1.0 - COUNT_WARN, "ok"),
        (1.0 + COUNT_WARN + 1e-9, "warn"),
        (1.0 - COUNT_WARN - 1e-9, "warn"),
        (COUNT_REFUSE, "warn"),
        (1.0 / COUNT_REFUSE, "warn"),
        (COUNT_REFUSE * 1.0001, "refuse"),
        (0.4999, "refuse"),
        (math.inf, "refuse"),
    ],
)
def test_the_count_verdict_warns_past_20_percent_and_refuses_past_2x(
    ratio: float, verdict: str
) -> None:
    assert count_verdict(ratio) == verdict
