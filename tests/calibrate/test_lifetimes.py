"""Lifetime fits with right-censoring: known parameters recovered within their CIs, the
right family picked, CIs that cover, and config fragments the schema accepts."""

from __future__ import annotations

import math
import tomllib
from pathlib import Path

import numpy as np
import pytest
from scipy import optimize, stats

from relplan.calibrate.lifetimes import (
    FAMILIES,
    fit_exponential,
    fit_lifetimes,
    fit_lognormal,
    fit_weibull,
    km_distance,
    lifetime_fragment,
    lifetime_sample,
    read_lifetime_csv,
)
from relplan.config.schema import DistributionConfig
from relplan.errors import ConfigError
from relplan.sim import distributions
from tests.conftest import REPO, assert_config_error

CENSOR_HOURS = 3000.0
"""Units enter service uniformly over this span and are observed to its end."""


def censored_sample(lifetimes: np.ndarray, rng: np.random.Generator):
    """Right-censor lifetimes at uniform observation times (staggered entry)."""
    observed = rng.uniform(0.0, CENSOR_HOURS, lifetimes.size)
    return lifetime_sample(np.minimum(lifetimes, observed), lifetimes <= observed)


def draw(family: str, parameter: float, size: int, seed: int):
    """A censored sample from a known distribution (mean life about 1000 h)."""
    rng = np.random.default_rng(seed)
    if family == "exponential":
        lifetimes = rng.exponential(1000.0, size)
    elif family == "weibull":
        lifetimes = 1000.0 * rng.weibull(parameter, size)
    else:
        lifetimes = rng.lognormal(math.log(600.0), parameter, size)
    return censored_sample(lifetimes, rng)


def inside(value: float, interval: tuple[float, float]) -> bool:
    low, high = interval
    return low <= value <= high


def test_exponential_recovers_its_mtbf_within_the_ci() -> None:
    fit = fit_exponential(draw("exponential", 1.0, 400, seed=11))
    assert inside(1000.0, fit.ci95["mtbf_hours"])
    assert fit.mean_ci95 == fit.ci95["mtbf_hours"]
    low, high = fit.ci95["mtbf_hours"]
    assert high / low < 1.5  # 400 units, most failed: a usefully narrow interval


def test_exponential_mle_is_time_over_failures_and_maximises_the_likelihood() -> None:
    sample = draw("exponential", 1.0, 300, seed=12)
    fit = fit_exponential(sample)
    assert fit.params["mtbf_hours"] == pytest.approx(sample.hours.sum() / sample.failures)
    t, d = sample.hours, sample.failed

    def log_likelihood(mean: float) -> float:
        return (
            stats.expon.logpdf(t[d], scale=mean).sum() + stats.expon.logsf(t[~d], scale=mean).sum()
        )

    assert fit.log_likelihood == pytest.approx(log_likelihood(fit.params["mtbf_hours"]))
    assert fit.log_likelihood > log_likelihood(1.05 * fit.params["mtbf_hours"])
    assert fit.log_likelihood > log_likelihood(0.95 * fit.params["mtbf_hours"])


@pytest.mark.parametrize("shape", [0.7, 1.5])
def test_weibull_recovers_shape_scale_and_mean_within_their_cis(shape: float) -> None:
    fit = fit_weibull(draw("weibull", shape, 600, seed=21))
    assert inside(shape, fit.ci95["shape"])
    assert inside(1000.0, fit.ci95["scale_hours"])
    assert inside(1000.0 * math.gamma(1.0 + 1.0 / shape), fit.mean_ci95)
    assert fit.ci95["shape"][1] - fit.ci95["shape"][0] < 0.5 * shape


def test_lognormal_recovers_sigma_median_and_mean_within_their_cis() -> None:
    sigma = 1.2
    fit = fit_lognormal(draw("lognormal", sigma, 600, seed=31))
    assert inside(sigma, fit.ci95["sigma"])
    assert inside(600.0, fit.ci95["median_hours"])
    assert inside(600.0 * math.exp(0.5 * sigma * sigma), fit.mean_ci95)


@pytest.mark.parametrize("family", ["weibull", "lognormal"])
def test_the_fits_are_the_maximum_of_scipys_censored_likelihood(family: str) -> None:
    sample = draw(family, 0.9, 500, seed=41)
    t, d = sample.hours, sample.failed
    scipy_family = stats.weibull_min if family == "weibull" else stats.lognorm

    def negative_log_likelihood(log_params: np.ndarray) -> float:
        shape, scale = np.exp(log_params)
        frozen = scipy_family(shape, scale=scale)
        return -(frozen.logpdf(t[d]).sum() + frozen.logsf(t[~d]).sum())

    reference = optimize.minimize(
        negative_log_likelihood,
        np.log([1.0, 800.0]),
        method="Nelder-Mead",
        options={"xatol": 1e-9, "fatol": 1e-11, "maxiter": 10000},
    )
    fit = fit_weibull(sample) if family == "weibull" else fit_lognormal(sample)
    shape_key, scale_key = (
        ("shape", "scale_hours") if family == "weibull" else ("sigma", "median_hours")
    )
    assert fit.params[shape_key] == pytest.approx(math.exp(reference.x[0]), rel=1e-5)
    assert fit.params[scale_key] == pytest.approx(math.exp(reference.x[1]), rel=1e-5)
    assert fit.log_likelihood == pytest.approx(-reference.fun, abs=1e-6)


def test_weibull_shape_ci_covers_the_truth_about_95_percent_of_the_time() -> None:
    # 200 samples of 80 units: the Wald interval on log shape should cover ~95%; the band
    # is about three binomial standard errors wide either side.
    rng = np.random.default_rng(51)
    covered = 0
    for _ in range(200):
        sample = censored_sample(1000.0 * rng.weibull(1.5, 80), rng)
        covered += inside(1.5, fit_weibull(sample).ci95["shape"])
    assert 0.90 <= covered / 200 <= 0.99


@pytest.mark.parametrize(
    ("family", "parameter", "best"),
    [
        ("exponential", 1.0, "exponential"),
        ("weibull", 0.7, "weibull"),
        ("weibull", 1.5, "weibull"),
        ("lognormal", 1.0, "lognormal"),
    ],
)
def test_aic_picks_the_family_the_data_came_from(family: str, parameter: float, best: str) -> None:
    # 5,000 units. An exponential is a Weibull of shape 1, so the Weibull can only tie it
    # (the AIC's penalty of 2 decides); the other families are hundreds of AIC apart.
    report = fit_lifetimes(draw(family, parameter, 5000, seed=61))
    assert report.best == best
    others = [report.fits[other].aic for other in FAMILIES if other != best]
    margin = min(others) - report.fits[best].aic
    assert margin > (0.0 if family == "exponential" else 50.0)


def test_the_right_family_is_closer_to_the_kaplan_meier_curve() -> None:
    report = fit_lifetimes(draw("weibull", 0.7, 2000, seed=71))
    distances = {family: fit.km_distance for family, fit in report.fits.items()}
    assert distances["weibull"] < 0.03
    assert distances["exponential"] > 2 * distances["weibull"]


def test_km_distance_is_the_kolmogorov_statistic_without_censoring() -> None:
    rng = np.random.default_rng(81)
    hours = rng.exponential(10.0, 200)
    sample = lifetime_sample(hours, np.ones(200))
    statistic = stats.kstest(hours, stats.expon(scale=10.0).cdf).statistic
    assert km_distance(sample, distributions.exponential(10.0)) == pytest.approx(statistic)


@pytest.mark.parametrize(
    ("family", "parameter"), [("exponential", 1.0), ("weibull", 0.7), ("lognormal", 1.2)]
)
def test_every_fragment_loads_through_the_schema_with_the_fitted_mean(
    family: str, parameter: float
) -> None:
    report = fit_lifetimes(draw(family, parameter, 300, seed=91))
    for fit in report.fits.values():
        text = lifetime_fragment(fit)
        lifetime = DistributionConfig.model_validate(tomllib.loads(text)["lifetime"])
        assert lifetime.dist == fit.family
        assert lifetime.mean_hours == pytest.approx(fit.mean_hours, rel=1e-5)
    assert report.config == lifetime_fragment(report.fits[report.best])


def test_report_dict_holds_the_contract() -> None:
    data = fit_lifetimes(draw("weibull", 1.5, 300, seed=101)).to_dict()
    assert {"n", "failures", "censored", "fits", "best", "config"} <= set(data)
    assert data["n"] == data["failures"] + data["censored"] == 300
    assert list(data["fits"]) == list(FAMILIES)
    for fit in data["fits"].values():
        assert {"params", "ci95", "log_likelihood", "aic", "gof", "mean_hours", "mean_ci95"} <= set(
            fit
        )
        assert set(fit["ci95"]) == set(fit["params"])
        low, high = fit["mean_ci95"]
        assert low < fit["mean_hours"] < high


def test_reads_the_shipped_csv() -> None:
    sample = read_lifetime_csv(REPO / "tests" / "data" / "lifetimes.csv")
    assert (sample.n, sample.failures) == (400, 204)
    assert fit_lifetimes(sample).best == "weibull"  # drawn with shape 0.7


@pytest.mark.parametrize(
    ("text", "key", "words"),
    [
        ("time,failed\n1,1\n", "hours", "missing column"),
        ("hours\n1\n", "failed", "missing column"),
        ("hours,failed\n10,1\nabc,0\n", "hours", "line 3"),
        ("hours,failed\n10,1\n-5,0\n", "hours", ">= 0"),
        ("hours,failed\n10,1\n20,2\n", "failed", "1 (failed) or 0"),
        ("hours,failed\n10,0\n20,0\n", "failed", "no failures"),
        ("hours,failed\n10,1\n10,1\n20,0\n", "failed", "two distinct"),
        ("hours,failed\n", "hours", "no rows"),
    ],
)
def test_bad_csv_names_the_column(tmp_path: Path, text: str, key: str, words: str) -> None:
    path = tmp_path / "data.csv"
    path.write_text(text)
    assert_config_error(read_lifetime_csv, path, key=key, words=words)


def test_missing_csv_names_the_argument(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as error:
        read_lifetime_csv(tmp_path / "missing.csv")
    assert error.value.key == "CSV"
