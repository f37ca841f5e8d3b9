"""Lifetime distributions fitted to field data with right-censoring: ``relplan fit``.

Each unit contributes its time in service, in hours, and whether it failed then (an exact
failure time) or was still running (right-censored: its lifetime is longer). The
exponential, Weibull and lognormal families are fitted by maximum likelihood,

    log L = sum over failures of log f(t_i) + sum over censored units of log S(t_i),

in closed form for the exponential and with :mod:`scipy.optimize` for the others (the
Weibull through its one-dimensional profile score equation, the lognormal by Nelder-Mead).

- **Confidence intervals** (95%) are Wald intervals on the log scale: the parameters are
  estimated as ``log shape``, ``log scale`` (or ``log sigma``, ``log median``), their
  covariance is the inverse of the observed information (the Hessian of ``-log L`` at the
  optimum, by central differences), and ``exp(estimate +- 1.96 se)`` keeps every bound
  positive. The mean (MTBF) gets its interval by the delta method on ``log mean``.
- **Goodness of fit** is the Kolmogorov distance between the Kaplan-Meier estimate of the
  CDF and the fitted CDF, ``sup |F_KM(t) - F(t)|`` over the observed range: the
  Kolmogorov-Smirnov statistic made fit for censored data. A family passes when it is at
  most the larger of the Kaplan-Meier curve's own 95% bootstrap noise and 0.2 x the
  fraction failed by the last observation (:mod:`relplan.calibrate.fit_checks` says why).
- The best family is the one with the smallest AIC, ``2 p - 2 log L``, among the families
  that pass; if none passes, the smallest AIC of all, with a warning.
- The line written is then simulated over the data's own exposure
  (:func:`relplan.calibrate.fit_checks.count_check`) and its expected failures set against
  the observed ones: past 20% either way a warning, past 2x ``--write-config`` refuses it
  unless forced.
- Every family's mean is set next to the **exposure estimate** (total time on test /
  failures, the exponential's MTBF, which needs no shape) and the **longest
  observation**, as notes: a mean more than :data:`MEAN_EXPOSURE_TOLERANCE` times off the
  exposure estimate, or (a Weibull or lognormal) beyond the longest observation, comes
  from the family's shape or its tail rather than from ages the data saw. That is right
  for a wear-out fleet watched for less than one mean life (the Titan GPUs: a Weibull of
  shape 2.9 whose mean is 0.32x the exposure estimate) and wrong for a tail-driven fit;
  the two checks above tell them apart, the notes do not decide.

Every duration is in hours.
"""

from __future__ import annotations

import csv
import math
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from scipy import optimize, special

from relplan.calibrate.fit_checks import (
    GOF_METHOD,
    CountCheck,
    GofRule,
    RenewalWindow,
    count_check,
    gof_rule,
)
from relplan.config.schema import DistributionConfig
from relplan.config.toml_text import toml_value
from relplan.errors import ConfigError
from relplan.sim import distributions
from relplan.sim.distributions import Distribution
from relplan.stats.summary import Z_95, finite_or_none
from relplan.stats.survival import kaplan_meier

FAMILIES = ("exponential", "weibull", "lognormal")
"""The lifetime families fitted, in the order they are reported."""

CI_METHOD = "Wald on the log scale, from the observed information"

MEAN_EXPOSURE_TOLERANCE = 2.0
"""A family's mean more than this factor off the exposure estimate (total time / failures),
either way, is noted (informational: the goodness-of-fit and failure-count checks decide)."""

CHOSEN_BY = ("aic", "aic among passing", "aic, none passing", "asked")
"""How the best family was chosen: the smallest AIC of all (and it passes the
goodness-of-fit check), the smallest AIC among the families that pass, the smallest AIC
of all when none passes, or asked for (``--family``)."""

CONFIG_KEYS = ("lifetime", "repair")
"""What a fitted distribution can be written as in a ``[failures.NAME]`` table."""

_HESSIAN_STEP = 1e-4
"""Central-difference step on the log-parameters for the observed information."""


@dataclass(frozen=True)
class LifetimeSample:
    """Times in service of a population of units, some failed, the rest right-censored.

    Attributes
    ----------
    hours : numpy.ndarray
        Time in service of each unit, hours (>= 0).
    failed : numpy.ndarray of bool
        True where the unit failed at ``hours``; False where it was still running
        (right-censored).
    """

    hours: np.ndarray
    failed: np.ndarray

    @property
    def n(self) -> int:
        """Units in the sample."""
        return int(self.hours.size)

    @property
    def failures(self) -> int:
        """Units that failed."""
        return int(self.failed.sum())

    @property
    def censored(self) -> int:
        """Units still running at their time (right-censored)."""
        return self.n - self.failures


def lifetime_sample(hours: Any, failed: Any) -> LifetimeSample:
    """Check and pack times in service and failure flags into a :class:`LifetimeSample`.

    Parameters
    ----------
    hours : array_like of float
        Time in service of each unit, hours; finite and >= 0, and > 0 for a failure.
    failed : array_like of bool or {0, 1}
        1 (True) where the unit failed at its time, 0 where it was still running.

    Returns
    -------
    LifetimeSample
        The checked sample.

    Raises
    ------
    ConfigError
        Naming the column (``hours`` or ``failed``) when a value is out of range, or
        ``failed`` when fewer than two distinct failure times leave nothing to fit.

    Examples
    --------
    >>> sample = lifetime_sample([120.0, 300.0, 500.0], [1, 1, 0])
    >>> sample.n, sample.failures, sample.censored
    (3, 2, 1)
    """
    hours_array = np.asarray(hours, dtype=float).ravel()
    failed_raw = np.asarray(failed, dtype=float).ravel()
    if hours_array.size != failed_raw.size:
        raise ConfigError("failed", f"{failed_raw.size} flags for {hours_array.size} times")
    if hours_array.size == 0:
        raise ConfigError("hours", "no units: the data has no rows")
    if not np.all(np.isfinite(hours_array)):
        raise ConfigError("hours", "every time must be a finite number of hours")
    if np.any(hours_array < 0):
        row = int(np.argmax(hours_array < 0))
        raise ConfigError(
            "hours", f"must be >= 0 (row {row + 1} of the data has {hours_array[row]:g})"
        )
    if not np.all((failed_raw == 0) | (failed_raw == 1)):
        raise ConfigError("failed", "must be 1 (failed) or 0 (still running, censored)")
    failed_array = failed_raw == 1
    if np.any(failed_array & (hours_array == 0)):
        raise ConfigError(
            "hours", "a failure at 0 hours has no likelihood: drop it or give its time in service"
        )
    if not failed_array.any():
        raise ConfigError("failed", "no failures (every unit is censored): nothing to fit")
    if np.unique(hours_array[failed_array]).size < 2:
        raise ConfigError(
            "failed",
            "fewer than two distinct failure times: a Weibull or lognormal shape cannot be fitted",
        )
    return LifetimeSample(hours_array, failed_array)


def _parse_flag(text: str) -> float:
    lowered = text.strip().lower()
    if lowered in ("true", "yes"):
        return 1.0
    if lowered in ("false", "no"):
        return 0.0
    return float(lowered)


def read_lifetime_csv(path: str | Path) -> LifetimeSample:
    """Read a CSV of lifetimes: columns ``hours`` and ``failed`` (1 failed, 0 censored).

    Parameters
    ----------
    path : str or Path
        The CSV file, with a header row; other columns are ignored.

    Returns
    -------
    LifetimeSample
        The checked sample (see :func:`lifetime_sample`).

    Raises
    ------
    ConfigError
        ``CSV`` when the file is missing or unreadable; the column's name when it is
        missing or a value is not a number (with its line), negative, or not 0/1.

    Examples
    --------
    >>> read_lifetime_csv("tests/data/lifetimes.csv").n
    400
    """
    hours, failed, _ = _read_lifetime_rows(path, None)
    return lifetime_sample(hours, failed)


def _read_lifetime_rows(
    path: str | Path, group: str | None
) -> tuple[list[float], list[float], list[str]]:
    """The ``hours``, ``failed`` and (if named) group column of a lifetime CSV."""
    file = Path(path)
    if file.is_dir():
        raise ConfigError("CSV", f"{file} is a folder, not a CSV file")
    if not file.is_file():
        raise ConfigError("CSV", f"no such file: {file}")
    hours: list[float] = []
    failed: list[float] = []
    groups: list[str] = []
    try:
        with file.open(newline="", encoding="utf-8-sig") as handle:
            reader = csv.DictReader(handle)
            columns = [name.strip() for name in reader.fieldnames or []]
            for column in ("hours", "failed"):
                if column not in columns:
                    raise ConfigError(
                        column,
                        f"missing column in {file} (columns: {', '.join(columns) or 'none'})",
                    )
            if group is not None and group not in columns:
                raise ConfigError(
                    "--group", f"no column {group!r} in {file} (columns: {', '.join(columns)})"
                )
            reader.fieldnames = columns
            for row in reader:
                where = f"line {reader.line_num} of {file}"
                for column, parse, values in (
                    ("hours", float, hours),
                    ("failed", _parse_flag, failed),
                ):
                    text = (row.get(column) or "").strip()
                    if not text:
                        raise ConfigError(column, f"{where}: is empty")
                    try:
                        values.append(parse(text))
                    except ValueError:
                        raise ConfigError(column, f"{where}: {text!r} is not a number") from None
                if group is not None:
                    name = (row.get(group) or "").strip()
                    if not name:
                        raise ConfigError("--group", f"{where}: the {group!r} column is empty")
                    groups.append(name)
    except UnicodeDecodeError:
        raise ConfigError("CSV", f"{file} is not UTF-8 text") from None
    return hours, failed, groups


@dataclass(frozen=True)
class LifetimeFit:
    """One family fitted by maximum likelihood.

    Attributes
    ----------
    family : {"exponential", "weibull", "lognormal"}
        The family.
    params : dict of str to float
        The estimates: ``mtbf_hours`` (exponential); ``shape`` and ``scale_hours``
        (Weibull); ``sigma`` (of the log) and ``median_hours`` (lognormal).
    ci95 : dict of str to (float, float)
        95% confidence interval of each parameter (Wald on the log scale).
    log_likelihood : float
        Maximised log-likelihood, with time in hours (censored units count ``log S``).
    aic : float
        Akaike's information criterion, ``2 p - 2 log L``.
    km_distance : float
        Goodness of fit: ``sup |F_KM - F|`` over the observed range.
    mean_hours : float
        The fitted mean life (MTBF), hours.
    mean_ci95 : (float, float)
        Its 95% confidence interval (delta method on the log mean), hours.
    distribution : Distribution
        The fitted distribution, as the simulation uses it.
    """

    family: str
    params: dict[str, float]
    ci95: dict[str, tuple[float, float]]
    log_likelihood: float
    aic: float
    km_distance: float
    mean_hours: float
    mean_ci95: tuple[float, float]
    distribution: Distribution

    def to_dict(self) -> dict[str, Any]:
        """The fit as a JSON-ready dict (non-finite numbers become None)."""
        return {
            "params": {name: finite_or_none(value) for name, value in self.params.items()},
            "ci95": {
                name: [finite_or_none(low), finite_or_none(high)]
                for name, (low, high) in self.ci95.items()
            },
            "log_likelihood": finite_or_none(self.log_likelihood),
            "aic": finite_or_none(self.aic),
            "gof": {"method": GOF_METHOD, "km_distance": finite_or_none(self.km_distance)},
            "mean_hours": finite_or_none(self.mean_hours),
            "mean_ci95": [finite_or_none(bound) for bound in self.mean_ci95],
        }


@dataclass(frozen=True)
class FamilyCheck:
    """A family's mean next to the exposure estimate and the longest observation.

    Informational: a family's mean off the exposure estimate is right for a wear-out fleet
    watched for less than one mean life and wrong for a tail-driven fit, so these notes do
    not choose the family nor refuse a line (:func:`fit_lifetimes` does that by the
    goodness-of-fit and failure-count checks).

    Attributes
    ----------
    mean_to_exposure : float
        The family's mean over the exposure estimate (total time / failures).
    beyond_longest : bool
        Whether the mean lies beyond the longest time observed.
    reasons : tuple of str
        Where the mean lies beyond :data:`MEAN_EXPOSURE_TOLERANCE` of the exposure
        estimate, or (Weibull, lognormal) beyond the longest observation (empty: neither).
    notes : tuple of str
        What to know about the exponential's mean: the exponential's, beyond the longest
        observation, rests on its constant hazard alone (the data cover less than one mean
        life, so no shape can be told from them).
    """

    mean_to_exposure: float
    beyond_longest: bool
    reasons: tuple[str, ...]
    notes: tuple[str, ...] = ()

    @property
    def trusted(self) -> bool:
        """Whether the mean is within the tolerance of the exposure estimate and (Weibull,
        lognormal) not beyond the longest observation: the ``trusted`` of ``--json``."""
        return not self.reasons


def family_check(fit: LifetimeFit, exposure_hours: float, longest_hours: float) -> FamilyCheck:
    """Set a fitted family's mean next to the exposure estimate and the longest observation.

    Parameters
    ----------
    fit : LifetimeFit
        The fitted family.
    exposure_hours : float
        Total time on test over failures, hours.
    longest_hours : float
        The longest time observed (failed or censored), hours.

    Returns
    -------
    FamilyCheck
        The ratio, the flag and the reasons against the family, if any.

    Examples
    --------
    >>> sample = lifetime_sample([100.0, 300.0, 600.0], [1, 1, 0])
    >>> family_check(fit_exponential(sample), 500.0, 600.0).trusted
    True
    >>> family_check(fit_exponential(sample), 200.0, 600.0).reasons
    ('its mean 500 h is 2.5x the exposure estimate 200 h',)
    >>> family_check(fit_weibull(sample), 500.0, 400.0).reasons[-1]
    'its mean ... h lies beyond the longest observation, 400 h'
    """
    mean = fit.mean_hours
    ratio = mean / exposure_hours if math.isfinite(mean) else math.inf
    reasons = []
    if not (1.0 / MEAN_EXPOSURE_TOLERANCE <= ratio <= MEAN_EXPOSURE_TOLERANCE):
        reasons.append(
            f"its mean {mean:.4g} h is {ratio:.3g}x the exposure estimate {exposure_hours:.4g} h"
        )
    beyond = not mean <= longest_hours
    notes = []
    if beyond:
        text = f"its mean {mean:.4g} h lies beyond the longest observation, {longest_hours:.4g} h"
        if fit.family == "exponential":
            notes.append(
                f"{text}: it is the exposure estimate, which assumes a constant hazard the "
                "data cannot check"
            )
        else:
            reasons.append(text)
    return FamilyCheck(ratio, beyond, tuple(reasons), tuple(notes))


@dataclass(frozen=True)
class FitReport:
    """Every family fitted to one sample, the best, its checks and its config fragment.

    Attributes
    ----------
    sample : LifetimeSample
        The data.
    fits : dict of str to LifetimeFit
        One fit per family, in :data:`FAMILIES` order.
    checks : dict of str to FamilyCheck
        Each family's mean against the exposure estimate and the longest observation
        (notes).
    gof : GofRule
        The goodness-of-fit bound of the sample (the same for every family).
    counts : dict of str to CountCheck
        Each family's failures over the data's own exposure against the observed ones.
    best : str
        The family written: the one asked for, else the smallest AIC among the families
        that pass the goodness-of-fit check (the smallest AIC of all if none passes).
    aic_best : str
        The family with the smallest AIC of all.
    config : str
        A TOML ``lifetime = { ... }`` (or ``repair = { ... }``) line for the best fit, to
        paste into a ``[failures.NAME]`` table.
    warnings : tuple of str
        Why the best is not the AIC's choice, why it fails a check, what its line gives
        against the data's failures when that is off by more than 20%.
    key : {"lifetime", "repair"}
        What the config line sets.
    chosen_by : str
        How ``best`` was chosen, one of :data:`CHOSEN_BY`.
    notes : tuple of str
        Informational: the best family's mean against the exposure estimate and the
        longest observation.
    """

    sample: LifetimeSample
    fits: dict[str, LifetimeFit]
    checks: dict[str, FamilyCheck]
    gof: GofRule
    counts: dict[str, CountCheck]
    best: str
    aic_best: str
    config: str
    warnings: tuple[str, ...] = ()
    key: str = "lifetime"
    chosen_by: str = "aic"
    notes: tuple[str, ...] = ()

    @property
    def exposure_mean_hours(self) -> float:
        """Total time on test over failures, hours."""
        return float(self.sample.hours.sum()) / self.sample.failures

    @property
    def longest_hours(self) -> float:
        """The longest time observed, hours."""
        return float(self.sample.hours.max())

    @property
    def best_trusted(self) -> bool:
        """Whether the best family's mean is within the tolerance of the exposure estimate
        (and not beyond the longest observation): informational, see :class:`FamilyCheck`."""
        return self.checks[self.best].trusted

    def passes_gof(self, family: str) -> bool:
        """Whether a family passes the goodness-of-fit check."""
        return self.gof.passes(self.fits[family].km_distance)

    @property
    def passing(self) -> tuple[str, ...]:
        """The families that pass the goodness-of-fit check, in :data:`FAMILIES` order."""
        return tuple(family for family in self.fits if self.passes_gof(family))

    @property
    def count(self) -> CountCheck:
        """The best family's failure-count check: the line written, over the data's exposure."""
        return self.counts[self.best]

    @property
    def write_refused(self) -> bool:
        """Whether ``--write-config`` refuses the line (unless ``--force``): its failures
        over the data's exposure more than 2x off the observed ones, either way."""
        return self.count.verdict == "refuse"

    def refusal(self) -> str:
        """Why ``--write-config`` refuses the line, and what the other families give."""
        others = [f"{family} {self.counts[family].ratio:.2f}x"
                  + ("" if self.passes_gof(family) else " (fails the fit check)")
                  for family in self.fits if family != self.best]  # fmt: skip
        return (f"{self.count.text(self.best)}, more than 2x off; the other families give "
                f"{', '.join(others)} (--family NAME)")  # fmt: skip

    def to_dict(self) -> dict[str, Any]:
        """The report as a JSON-ready dict (the ``relplan fit --json`` object)."""
        fits = {}
        for family, fit in self.fits.items():
            check = self.checks[family]
            entry = fit.to_dict()
            entry["gof"] = {
                **entry["gof"],
                "bound": self.gof.bound,
                "passes": self.passes_gof(family),
            }
            fits[family] = {
                **entry,
                "mean_to_exposure": finite_or_none(check.mean_to_exposure),
                "beyond_longest": check.beyond_longest,
                "trusted": check.trusted,
                "reasons": list(check.reasons),
                "notes": list(check.notes),
                "count_check": self.counts[family].to_dict(),
            }
        return {
            "n": self.sample.n,
            "failures": self.sample.failures,
            "censored": self.sample.censored,
            "exposure_mean_hours": self.exposure_mean_hours,
            "longest_hours": self.longest_hours,
            "ci_method": CI_METHOD,
            "fits": fits,
            "best": self.best,
            "aic_best": self.aic_best,
            "best_trusted": self.best_trusted,
            "chosen_by": self.chosen_by,
            "warnings": list(self.warnings),
            "notes": list(self.notes),
            "gof": {**self.gof.to_dict(), "passing": list(self.passing)},
            "count_check": {
                **self.count.to_dict(),
                "family": self.best,
                "write_refused": self.write_refused,
            },
            "as": self.key,
            "config": self.config,
        }


def km_distance(sample: LifetimeSample, distribution: Distribution) -> float:
    """Kolmogorov distance between the Kaplan-Meier CDF and a fitted CDF.

    Parameters
    ----------
    sample : LifetimeSample
        The data.
    distribution : Distribution
        The fitted lifetime.

    Returns
    -------
    float
        ``sup |F_KM(t) - F(t)|`` over ``0 <= t <= max(hours)``: checked on both sides of
        every step of the Kaplan-Meier estimate and at the last time observed.

    Examples
    --------
    >>> from relplan.sim.distributions import exponential
    >>> sample = lifetime_sample([1.0, 2.0, 3.0, 4.0], [1, 1, 1, 1])
    >>> round(km_distance(sample, exponential(2.5)), 3)
    0.33
    """
    times, survival = kaplan_meier(sample.hours, sample.failed)
    fitted = distribution.cdf(times)
    km_after = 1.0 - survival
    km_before = np.concatenate(([0.0], km_after[:-1]))
    last = float(sample.hours.max())
    tail = abs(float(distribution.cdf(last)) - km_after[-1])
    return float(max(np.abs(fitted - km_after).max(), np.abs(fitted - km_before).max(), tail))


def _observed_covariance(
    negative_log_likelihood: Callable[[np.ndarray], float], optimum: np.ndarray
) -> np.ndarray:
    """Inverse of the Hessian of ``-log L`` at the optimum (central differences).

    NaN where the Hessian is not positive definite (a flat or degenerate likelihood).
    """
    size = optimum.size
    step = _HESSIAN_STEP
    hessian = np.empty((size, size))
    for i in range(size):
        for j in range(i, size):
            total = 0.0
            for sign_i, sign_j, weight in ((1, 1, 1), (1, -1, -1), (-1, 1, -1), (-1, -1, 1)):
                point = optimum.astype(float).copy()
                point[i] += sign_i * step
                point[j] += sign_j * step
                total += weight * negative_log_likelihood(point)
            hessian[i, j] = hessian[j, i] = total / (4.0 * step * step)
    if not np.all(np.isfinite(hessian)) or np.any(np.linalg.eigvalsh(hessian) <= 0):
        return np.full((size, size), np.nan)
    return np.linalg.inv(hessian)


def _log_interval(log_estimate: float, standard_error: float) -> tuple[float, float]:
    """``exp(log_estimate +- 1.96 se)``."""
    return (
        math.exp(log_estimate - Z_95 * standard_error),
        math.exp(log_estimate + Z_95 * standard_error),
    )


def _finish(
    family: str,
    sample: LifetimeSample,
    distribution: Distribution,
    log_params: dict[str, float],
    covariance: np.ndarray,
    log_mean_gradient: np.ndarray,
    log_likelihood: float,
) -> LifetimeFit:
    """Assemble a :class:`LifetimeFit` from estimates on the log scale and their covariance."""
    variances = np.diag(covariance)
    params = {name: math.exp(value) for name, value in log_params.items()}
    ci95 = {
        name: _log_interval(value, math.sqrt(variance))
        for (name, value), variance in zip(log_params.items(), variances, strict=True)
    }
    log_mean_se = math.sqrt(float(log_mean_gradient @ covariance @ log_mean_gradient))
    return LifetimeFit(
        family=family,
        params=params,
        ci95=ci95,
        log_likelihood=log_likelihood,
        aic=2.0 * len(log_params) - 2.0 * log_likelihood,
        km_distance=km_distance(sample, distribution),
        mean_hours=distribution.mean_hours,
        mean_ci95=_log_interval(math.log(distribution.mean_hours), log_mean_se),
        distribution=distribution,
    )


def fit_exponential(sample: LifetimeSample) -> LifetimeFit:
    """Fit an exponential lifetime: MTBF = total time in service / failures.

    Parameters
    ----------
    sample : LifetimeSample
        The data.

    Returns
    -------
    LifetimeFit
        ``params``: ``mtbf_hours``. The log MTBF has standard error ``1 / sqrt(failures)``.

    Examples
    --------
    >>> fit = fit_exponential(lifetime_sample([100.0, 300.0, 600.0], [1, 1, 0]))
    >>> fit.params["mtbf_hours"], [round(bound) for bound in fit.ci95["mtbf_hours"]]
    (500.0, [125, 1999])
    """
    failures = sample.failures
    mtbf = float(sample.hours.sum()) / failures
    log_likelihood = -failures * math.log(mtbf) - failures
    covariance = np.array([[1.0 / failures]])
    return _finish(
        "exponential",
        sample,
        distributions.exponential(mtbf),
        {"mtbf_hours": math.log(mtbf)},
        covariance,
        np.array([1.0]),
        log_likelihood,
    )


def _weibull_negative_log_likelihood(
    log_params: np.ndarray, log_failure_hours: np.ndarray, log_hours: np.ndarray
) -> float:
    """``-log L`` of a Weibull at (log shape, log scale), from the logs of the times."""
    shape = math.exp(log_params[0])
    log_scale = log_params[1]
    log_density = log_params[0] - log_scale + (shape - 1.0) * (log_failure_hours - log_scale)
    cumulative_hazard = np.exp(shape * (log_hours - log_scale)).sum()
    return float(-(log_density.sum() - cumulative_hazard))


def fit_weibull(sample: LifetimeSample) -> LifetimeFit:
    """Fit a Weibull lifetime by maximum likelihood with right-censoring.

    The shape ``k`` solves the profile score equation
    ``sum t^k log t / sum t^k - 1/k - mean(log t_failed) = 0`` (increasing in ``k``; every
    unit in the sums), found by Brent's method; then ``scale^k = sum t^k / failures``.

    Parameters as :func:`fit_exponential`.

    Returns
    -------
    LifetimeFit
        ``params``: ``shape`` and ``scale_hours``.

    Examples
    --------
    >>> import numpy as np
    >>> hours = 1000.0 * np.random.default_rng(1).weibull(1.5, 2000)
    >>> fit = fit_weibull(lifetime_sample(np.minimum(hours, 1500.0), hours < 1500.0))
    >>> round(fit.params["shape"], 1), round(fit.params["scale_hours"], -2)
    (1.5, 1000.0)
    """
    in_service = sample.hours > 0
    log_hours = np.log(sample.hours[in_service])
    log_failure_hours = np.log(sample.hours[sample.failed])
    relative = log_hours - log_hours.max()
    mean_relative_failure = float(log_failure_hours.mean() - log_hours.max())

    def score(log_shape: float) -> float:
        shape = math.exp(log_shape)
        weights = np.exp(shape * relative)
        return float(
            (weights * relative).sum() / weights.sum() - 1.0 / shape - mean_relative_failure
        )

    low, high = math.log(1e-3), math.log(10.0)
    while score(high) < 0 and high < math.log(1e4):
        high += math.log(4.0)
    log_shape = optimize.brentq(score, low, high, xtol=1e-13, rtol=1e-13)
    shape = math.exp(log_shape)
    log_sum = special.logsumexp(shape * relative) - math.log(sample.failures)
    log_scale = float(log_hours.max() + log_sum / shape)

    def negative_log_likelihood(log_params: np.ndarray) -> float:
        return _weibull_negative_log_likelihood(log_params, log_failure_hours, log_hours)

    optimum = np.array([log_shape, log_scale])
    covariance = _observed_covariance(negative_log_likelihood, optimum)
    # log mean = log scale + log Gamma(1 + 1/k); d/d(log k) = -digamma(1 + 1/k) / k
    gradient = np.array([-float(special.digamma(1.0 + 1.0 / shape)) / shape, 1.0])
    return _finish(
        "weibull",
        sample,
        distributions.weibull(shape, math.exp(log_scale)),
        {"shape": log_shape, "scale_hours": log_scale},
        covariance,
        gradient,
        -negative_log_likelihood(optimum),
    )


def _lognormal_negative_log_likelihood(
    log_params: np.ndarray, log_failure_hours: np.ndarray, log_censored_hours: np.ndarray
) -> float:
    """``-log L`` of a lognormal at (log sigma, log median), from the logs of the times."""
    sigma = math.exp(log_params[0])
    log_median = log_params[1]
    z_failed = (log_failure_hours - log_median) / sigma
    log_density = (
        -log_failure_hours
        - log_params[0]
        - 0.5 * math.log(2.0 * math.pi)
        - 0.5 * z_failed * z_failed
    )
    log_survival = special.log_ndtr(-(log_censored_hours - log_median) / sigma)
    return float(-(log_density.sum() + log_survival.sum()))


def fit_lognormal(sample: LifetimeSample) -> LifetimeFit:
    """Fit a lognormal lifetime by maximum likelihood with right-censoring.

    ``-log L`` is minimised over (log sigma, log median) by Nelder-Mead, started from the
    mean and standard deviation of the log failure times.

    Parameters as :func:`fit_exponential`.

    Returns
    -------
    LifetimeFit
        ``params``: ``sigma`` (of the log) and ``median_hours``.

    Examples
    --------
    >>> import numpy as np
    >>> hours = np.random.default_rng(2).lognormal(np.log(500.0), 1.2, 2000)
    >>> fit = fit_lognormal(lifetime_sample(np.minimum(hours, 2000.0), hours < 2000.0))
    >>> round(fit.params["sigma"], 1), round(fit.params["median_hours"], -2)
    (1.2, 500.0)
    """
    log_failure_hours = np.log(sample.hours[sample.failed])
    censored_hours = sample.hours[~sample.failed]
    log_censored_hours = np.log(censored_hours[censored_hours > 0])
    center = float(log_failure_hours.mean())
    spread = float(log_failure_hours.std()) or 1.0

    def negative_log_likelihood(log_params: np.ndarray) -> float:
        return _lognormal_negative_log_likelihood(log_params, log_failure_hours, log_censored_hours)

    start = np.array([math.log(spread), center])
    result = optimize.minimize(
        negative_log_likelihood,
        start,
        method="Nelder-Mead",
        options={
            "xatol": 1e-10,
            "fatol": 1e-12,
            "maxiter": 20000,
            "initial_simplex": start + np.array([[0.0, 0.0], [0.5, 0.0], [0.0, spread]]),
        },
    )
    optimum = np.asarray(result.x, dtype=float)
    sigma, median = math.exp(optimum[0]), math.exp(optimum[1])
    covariance = _observed_covariance(negative_log_likelihood, optimum)
    # log mean = log median + sigma^2 / 2; d/d(log sigma) = sigma^2
    gradient = np.array([sigma * sigma, 1.0])
    return _finish(
        "lognormal",
        sample,
        distributions.lognormal(sigma, median),
        {"sigma": optimum[0], "median_hours": optimum[1]},
        covariance,
        gradient,
        -float(result.fun),
    )


def duration_text(hours: float) -> str:
    """A duration as a config value with its unit, six significant digits.

    Parameters
    ----------
    hours : float
        The duration, hours (> 0).

    Returns
    -------
    str
        Hours (``"43830.1h"``; whole hours from a million up), or seconds below 0.0001 h.

    Examples
    --------
    >>> duration_text(43830.123456), duration_text(2.5e7), duration_text(1e-5)
    ('43830.1h', '25000000h', '0.036s')
    """
    if hours >= 1e6:
        return f"{hours:.0f}h"
    if hours >= 1e-4:
        return f"{hours:.6g}h"
    return f"{hours * 3600.0:.6g}s"


def lifetime_fragment(fit: LifetimeFit, key: str = "lifetime") -> str:
    """The TOML line giving a fitted lifetime in relplan's schema, checked by loading it.

    Parameters
    ----------
    fit : LifetimeFit
        The fit to write.
    key : {"lifetime", "repair"}
        The key the line sets in a ``[failures.NAME]`` table.

    Returns
    -------
    str
        ``lifetime = { dist = ..., ... }`` (or ``repair = ...``) and a newline, durations
        with their unit.

    Examples
    --------
    >>> fit = fit_exponential(lifetime_sample([100.0, 300.0, 600.0], [1, 1, 0]))
    >>> lifetime_fragment(fit)
    'lifetime = { dist = "exponential", mtbf = "500h" }\\n'
    """
    params = fit.params
    table: dict[str, Any] = {"dist": fit.family}
    if fit.family == "exponential":
        table["mtbf"] = duration_text(params["mtbf_hours"])
    elif fit.family == "weibull":
        table["shape"] = float(f'{params["shape"]:.6g}')
        table["scale"] = duration_text(params["scale_hours"])
    else:
        table["sigma"] = float(f'{params["sigma"]:.6g}')
        table["median"] = duration_text(params["median_hours"])
    text = f"{key} = {toml_value(table)}\n"
    loaded = DistributionConfig.model_validate(tomllib.loads(text)[key])
    if not math.isclose(loaded.mean_hours, fit.mean_hours, rel_tol=1e-4):
        raise AssertionError(
            f"{text.strip()} reads back a mean of {loaded.mean_hours} h, not {fit.mean_hours} h"
        )
    return text


def fit_lifetimes(
    sample: LifetimeSample,
    key: str = "lifetime",
    family: str | None = None,
    window: RenewalWindow | None = None,
) -> FitReport:
    """Fit the exponential, Weibull and lognormal families; pick the best the data support.

    Parameters
    ----------
    sample : LifetimeSample
        Times in service, hours, with failure flags (see :func:`lifetime_sample`).
    key : {"lifetime", "repair"}
        What the config line sets (``repair`` for fitted repair times).
    family : {"exponential", "weibull", "lognormal"}, optional
        The family to write whatever the AIC says (a warning says so when it fails the
        goodness-of-fit check); by default the best one.
    window : RenewalWindow, optional
        When the sample is times between failures built from event records: the units
        and the window they were watched over, so the failure count is a renewal count
        (see :func:`relplan.calibrate.fit_checks.count_check`).

    Returns
    -------
    FitReport
        Every fit with its goodness-of-fit and failure-count checks and its mean against
        the exposure estimate, the best family (the smallest AIC among those that pass
        the goodness-of-fit check), warnings, notes, and its config line.

    Raises
    ------
    ConfigError
        ``--as`` when ``key`` is neither ``lifetime`` nor ``repair``; ``--family`` for an
        unknown family.

    Examples
    --------
    >>> import numpy as np
    >>> hours = 8000.0 * np.random.default_rng(3).weibull(0.7, 3000)
    >>> report = fit_lifetimes(lifetime_sample(np.minimum(hours, 20000.0), hours < 20000.0))
    >>> report.best, round(report.fits["weibull"].params["shape"], 1), report.warnings
    ('weibull', 0.7, ())
    >>> report.passing, round(report.gof.bound, 2), report.count.verdict
    (('exponential', 'weibull', 'lognormal'), 0.17, 'ok')
    >>> print(report.config, end="")
    lifetime = { dist = "weibull", shape = 0.687..., scale = "79...h" }
    """
    if key not in CONFIG_KEYS:
        raise ConfigError("--as", f"must be one of {', '.join(CONFIG_KEYS)} (got {key!r})")
    if family is not None and family not in FAMILIES:
        raise ConfigError("--family", f"must be one of {', '.join(FAMILIES)} (got {family!r})")
    fits = {
        "exponential": fit_exponential(sample),
        "weibull": fit_weibull(sample),
        "lognormal": fit_lognormal(sample),
    }
    exposure = float(sample.hours.sum()) / sample.failures
    longest = float(sample.hours.max())
    checks = {name: family_check(fit, exposure, longest) for name, fit in fits.items()}
    rule = gof_rule(sample.hours, sample.failed)
    counts = {name: count_check(fit.distribution, sample.hours, sample.failed, window,
                                repairs=key == "repair")
              for name, fit in fits.items()}  # fmt: skip

    def misfit(name: str) -> str:
        return (f"its Kaplan-Meier distance {fits[name].km_distance:.3f} is above the bound "
                f"{rule.bound:.3f}")  # fmt: skip

    by_aic = sorted(FAMILIES, key=lambda name: fits[name].aic)
    passing = [name for name in by_aic if rule.passes(fits[name].km_distance)]
    aic_best = by_aic[0]
    warnings = []
    if family is not None:
        best, chosen_by = family, "asked"
        if best not in passing:
            warnings.append(f"{best} was asked for, but fails the goodness-of-fit check: "
                            f"{misfit(best)}")  # fmt: skip
    elif passing:
        best = passing[0]
        chosen_by = "aic" if best == aic_best else "aic among passing"
        if best != aic_best:
            warnings.append(f"{aic_best} has the smallest AIC but fails the goodness-of-fit "
                            f"check ({misfit(aic_best)}); {best} is the smallest AIC of the "
                            "families that pass")  # fmt: skip
    else:
        best, chosen_by = aic_best, "aic, none passing"
        warnings.append(f"no family passes the goodness-of-fit check; {best} (smallest AIC) "
                        f"is shown, but {misfit(best)}: the data may mix populations (fit "
                        "each apart with --group) or need another family")  # fmt: skip
    count = counts[best]
    if count.verdict == "refuse":
        warnings.append(f"{count.text(best)}: more than 2x off, so --write-config refuses "
                        "it unless --force")  # fmt: skip
    elif count.verdict == "warn":
        warnings.append(f"{count.text(best)}: more than 20% off")
    notes = [f"{best}: {reason}" for reason in checks[best].reasons]
    notes += [f"{best}: {note}" for note in checks[best].notes]
    return FitReport(
        sample,
        fits,
        checks,
        rule,
        counts,
        best,
        aic_best,
        lifetime_fragment(fits[best], key),
        tuple(warnings),
        key,
        chosen_by,
        tuple(notes),
    )


def fit_groups(
    samples: dict[str, LifetimeSample], key: str = "lifetime", family: str | None = None
) -> dict[str, FitReport]:
    """Fit each group of a sample apart (``relplan fit --group COLUMN``).

    Parameters
    ----------
    samples : dict of str to LifetimeSample
        One sample per group (see :func:`read_lifetime_groups`).
    key : {"lifetime", "repair"}
        What each config line sets.
    family : str, optional
        The family to write for every group (default: each group's best).

    Returns
    -------
    dict of str to FitReport
        One report per group, in the order given.

    Examples
    --------
    >>> groups = {"a": lifetime_sample([10.0, 20.0, 30.0], [1, 1, 0]),
    ...           "b": lifetime_sample([100.0, 300.0, 500.0], [1, 1, 1])}
    >>> {name: round(report.exposure_mean_hours) for name, report in fit_groups(groups).items()}
    {'a': 30, 'b': 300}
    """
    reports = {}
    for name, sample in samples.items():
        try:
            reports[name] = fit_lifetimes(sample, key, family)
        except ConfigError as error:
            raise ConfigError(error.key, f"group {name!r}: {error.message}") from None
    return reports


def read_lifetime_groups(
    path: str | Path, column: str
) -> tuple[dict[str, LifetimeSample], dict[str, str]]:
    """Read a lifetime CSV and split it by the values of one column.

    Parameters
    ----------
    path : str or Path
        The CSV file (columns ``hours``, ``failed`` and ``column``).
    column : str
        The column whose values name the groups.

    Returns
    -------
    samples : dict of str to LifetimeSample
        One checked sample per group that can be fitted, in order of first appearance.
    skipped : dict of str to str
        Groups with too few failures to fit, and why.

    Raises
    ------
    ConfigError
        ``--group`` when the column is missing or empty on a line, or when no group can
        be fitted; as :func:`read_lifetime_csv` otherwise, naming the group.

    Examples
    --------
    >>> samples, skipped = read_lifetime_groups("tests/data/lifetimes_batches.csv", "batch")
    >>> sorted(samples), skipped
    (['A', 'B'], {})
    """
    hours, failed, groups = _read_lifetime_rows(path, column)
    rows: dict[str, tuple[list[float], list[float]]] = {}
    for value, flag, group in zip(hours, failed, groups, strict=True):
        lists = rows.setdefault(str(group), ([], []))
        lists[0].append(value)
        lists[1].append(flag)
    checked = {}
    skipped = {}
    for name, (group_hours, group_failed) in rows.items():
        try:
            checked[name] = lifetime_sample(group_hours, group_failed)
        except ConfigError as error:
            if error.key != "failed":
                raise ConfigError(error.key, f"group {name!r}: {error.message}") from None
            skipped[name] = error.message
    if not checked:
        raise ConfigError("--group", f"no group of {column!r} has enough failures to fit")
    return checked, skipped
