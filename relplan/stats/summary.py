"""Means and quantiles of per-trial values with their 95% confidence intervals.

One home for the normal quantile, the mean's interval, the distribution-free interval of a
quantile and the summary every result reports (:func:`summarize`). Pure functions of
arrays.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np

from relplan.vocab import PERCENTILES

Z_95 = 1.959963984540054
"""Two-sided 95% quantile of the standard normal."""


class MeanCI(NamedTuple):
    """A mean with its standard error and normal confidence interval.

    Attributes
    ----------
    mean : float
        The sample mean.
    sem : float
        Standard error of the mean: the sample standard deviation (ddof=1) over
        ``sqrt(n)``; 0 for one value.
    ci : tuple of float
        ``(mean - z sem, mean + z sem)``.
    """

    mean: float
    sem: float
    ci: tuple[float, float]


def mean_ci(values: np.ndarray, z: float = Z_95) -> MeanCI:
    """The mean of ``values`` with its normal confidence interval.

    Parameters
    ----------
    values : numpy.ndarray
        One value per trial (any unit; the interval is in the same unit).
    z : float, optional
        The normal quantile of the interval (default :data:`Z_95`, a two-sided 95%
        interval).

    Returns
    -------
    MeanCI
        ``mean``, ``sem`` and ``ci``.

    Examples
    --------
    >>> import numpy as np
    >>> estimate = mean_ci(np.array([1.0, 2.0, 3.0, 4.0]))
    >>> estimate.mean, round(estimate.sem, 4), [round(bound, 3) for bound in estimate.ci]
    (2.5, 0.6455, [1.235, 3.765])
    """
    mean = float(np.mean(values))
    sem = float(np.std(values, ddof=1)) / math.sqrt(values.size) if values.size > 1 else 0.0
    return MeanCI(mean, sem, (mean - z * sem, mean + z * sem))


def quantile_ci(values: np.ndarray, q: float) -> tuple[float, tuple[float, float]]:
    """The ``q`` quantile of ``values`` with a distribution-free 95% CI from order
    statistics (the binomial's 2.5% and 97.5% points of ``n`` and ``q`` pick the ranks).

    Parameters
    ----------
    values : numpy.ndarray
        One value per trial.
    q : float
        The quantile, in (0, 1).

    Returns
    -------
    value : float
        The ``q`` quantile (numpy's linear interpolation).
    ci : tuple of float
        The order statistics that bound it at 95%.

    Examples
    --------
    >>> import numpy as np
    >>> value, ci = quantile_ci(np.arange(1.0, 101.0), 0.5)
    >>> value, ci
    (50.5, (40.0, 61.0))
    """
    from scipy import stats

    ordered = np.sort(values)
    n = ordered.size
    low = int(stats.binom.ppf(0.025, n, q))
    high = int(stats.binom.ppf(0.975, n, q))
    value = float(np.quantile(values, q))
    return value, (float(ordered[max(low - 1, 0)]), float(ordered[min(high, n - 1)]))


def summarize(values: np.ndarray) -> dict[str, Any]:
    """Mean with a 95% confidence interval, standard deviation and percentiles.

    Parameters
    ----------
    values : numpy.ndarray
        One value per trial.

    Returns
    -------
    dict
        ``mean``, ``std`` (sample, ddof=1), ``sem`` (standard error of the mean),
        ``ci95`` ([low, high], normal approximation), ``p5``, ``p50``, ``p95``, ``p99``.

    Examples
    --------
    >>> import numpy as np
    >>> stats = summarize(np.array([1.0, 2.0, 3.0, 4.0]))
    >>> stats["mean"], stats["p50"]
    (2.5, 2.5)
    """
    data = np.asarray(values, dtype=float)
    mean = float(data.mean())
    std = float(data.std(ddof=1)) if data.size > 1 else 0.0
    sem = std / math.sqrt(data.size)
    summary: dict[str, Any] = {
        "mean": mean,
        "std": std,
        "sem": sem,
        "ci95": [mean - Z_95 * sem, mean + Z_95 * sem],
    }
    for q, value in zip(PERCENTILES, np.percentile(data, PERCENTILES), strict=True):
        summary[f"p{q}"] = float(value)
    return summary


def finite_or_none(value: float) -> float | None:
    """``value``, or None where it is infinite or NaN (JSON has no infinity).

    Examples
    --------
    >>> finite_or_none(float("inf")) is None, finite_or_none(2.0)
    (True, 2.0)
    """
    return value if math.isfinite(value) else None
