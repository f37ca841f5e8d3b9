"""Lifetime and repair-time distributions, with exact truncated and equilibrium sampling.

Every distribution works in hours and offers, vectorised over numpy arrays:

- ``cdf``, ``sf``, ``ppf``, ``isf`` of the lifetime itself (through ``scipy.stats``);
- the same four for the *equilibrium* (forward-recurrence) distribution
  ``F_e(x) = (1/mean) * integral_0^x sf(u) du``: the remaining life of a unit found
  up at a random moment of a stationary renewal process (Cox 1962, ch. 5);
- ``sample_window``: draws from the distribution restricted to ``[lower, upper)``
  by inverting the CDF (or the survival function in the upper tail, for precision).

The equilibrium forms are closed where they exist: exponential (itself), Weibull
(a regularised incomplete gamma), fixed (uniform); lognormal is inverted by a
vectorised bisection on its closed-form CDF.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from types import ModuleType
from typing import Literal

import numpy as np

from relplan.config.schema import DistributionConfig

FloatArray = np.ndarray


def _stats() -> ModuleType:
    """``scipy.stats``, imported on first use: it takes most of a second to import, and a
    job whose lifetimes are all exponential never needs it."""
    from scipy import stats

    return stats


def _special() -> ModuleType:
    """``scipy.special``, imported on first use (see :func:`_stats`)."""
    from scipy import special

    return special


def _bisect_increasing(
    func, target: FloatArray, low: FloatArray, high: FloatArray, iterations: int = 80
) -> FloatArray:
    """Solve ``func(x) = target`` for an increasing ``func`` by vectorised bisection in log x."""
    log_low = np.log(low)
    log_high = np.log(high)
    for _ in range(iterations):
        log_mid = 0.5 * (log_low + log_high)
        below = func(np.exp(log_mid)) < target
        log_low = np.where(below, log_mid, log_low)
        log_high = np.where(below, log_high, log_mid)
    return np.exp(0.5 * (log_low + log_high))


@dataclass(frozen=True)
class Distribution:
    """A positive random duration, in hours.

    Build one with :func:`exponential`, :func:`weibull`, :func:`lognormal` or
    :func:`fixed`. Instances are immutable and hashable.

    Attributes
    ----------
    kind : {"exponential", "weibull", "lognormal", "fixed"}
        Family of the distribution.
    mean_hours : float
        Mean duration, hours.
    shape : float
        Weibull shape k, or lognormal sigma (of the log); 1 for exponential, 0 for fixed.
    scale_hours : float
        Weibull scale, lognormal median, exponential mean, or the fixed value, hours.
    """

    kind: Literal["exponential", "weibull", "lognormal", "fixed"]
    mean_hours: float
    shape: float
    scale_hours: float

    # -- the lifetime itself ---------------------------------------------------------------
    @property
    def _frozen(self):
        if self.kind == "exponential":
            return _stats().expon(scale=self.scale_hours)
        if self.kind == "weibull":
            return _stats().weibull_min(self.shape, scale=self.scale_hours)
        if self.kind == "lognormal":
            return _stats().lognorm(self.shape, scale=self.scale_hours)
        raise AssertionError("fixed durations have no scipy form")  # pragma: no cover

    def scipy(self):
        """The equivalent frozen ``scipy.stats`` distribution (not for ``fixed``)."""
        return self._frozen

    def cdf(self, hours: FloatArray) -> FloatArray:
        """Probability that the duration is at most ``hours``."""
        x = np.asarray(hours, dtype=float)
        if self.kind == "exponential":
            return -np.expm1(-np.maximum(x, 0.0) / self.scale_hours)
        if self.kind == "fixed":
            return (x >= self.scale_hours).astype(float)
        return self._frozen.cdf(x)

    def sf(self, hours: FloatArray) -> FloatArray:
        """Probability that the duration exceeds ``hours``."""
        x = np.asarray(hours, dtype=float)
        if self.kind == "exponential":
            return np.exp(-np.maximum(x, 0.0) / self.scale_hours)
        if self.kind == "fixed":
            return (x < self.scale_hours).astype(float)
        return self._frozen.sf(x)

    def ppf(self, probability: FloatArray) -> FloatArray:
        """Duration, hours, below which the given probability lies."""
        q = np.asarray(probability, dtype=float)
        if self.kind == "exponential":
            return -self.scale_hours * np.log1p(-q)
        if self.kind == "fixed":
            return np.full_like(q, self.scale_hours)
        return self._frozen.ppf(q)

    def isf(self, probability: FloatArray) -> FloatArray:
        """Duration, hours, above which the given probability lies."""
        q = np.asarray(probability, dtype=float)
        if self.kind == "exponential":
            return -self.scale_hours * np.log(q)
        if self.kind == "fixed":
            return np.full_like(q, self.scale_hours)
        return self._frozen.isf(q)

    def sample(self, rng: np.random.Generator, size: int) -> FloatArray:
        """Draw ``size`` independent durations, hours."""
        if self.kind == "exponential":
            return rng.exponential(self.scale_hours, size)
        if self.kind == "weibull":
            return self.scale_hours * rng.weibull(self.shape, size)
        if self.kind == "lognormal":
            return rng.lognormal(math.log(self.scale_hours), self.shape, size)
        return np.full(size, self.scale_hours)

    def faster(self, factor: float) -> Distribution:
        """The same family with every duration divided by ``factor``: a rate ``factor``
        times as high (a lemon unit's lifetime).

        Parameters
        ----------
        factor : float
            Rate multiplier, at least 1 (dimensionless).

        Returns
        -------
        Distribution
            Mean and scale divided by ``factor``, the same shape (Weibull k, lognormal
            sigma), hours.

        Examples
        --------
        >>> weibull_from_mean(0.7, 1000.0).faster(10.0).mean_hours
        100.0
        """
        return Distribution(self.kind, self.mean_hours / factor, self.shape,
                            self.scale_hours / factor)  # fmt: skip

    # -- the equilibrium (forward-recurrence) distribution ---------------------------------
    def equilibrium_cdf(self, hours: FloatArray) -> FloatArray:
        """CDF of the remaining life of a unit found up in a stationary renewal process."""
        x = np.maximum(np.asarray(hours, dtype=float), 0.0)
        if self.kind == "exponential":
            return self.cdf(x)
        if self.kind == "weibull":
            return _special().gammainc(1.0 / self.shape, (x / self.scale_hours) ** self.shape)
        if self.kind == "fixed":
            return np.minimum(x / self.scale_hours, 1.0)
        return 1.0 - self.equilibrium_sf(x)

    def equilibrium_sf(self, hours: FloatArray) -> FloatArray:
        """Survival function of the equilibrium remaining life."""
        x = np.maximum(np.asarray(hours, dtype=float), 0.0)
        if self.kind == "exponential":
            return self.sf(x)
        if self.kind == "weibull":
            return _special().gammaincc(1.0 / self.shape, (x / self.scale_hours) ** self.shape)
        if self.kind == "fixed":
            return np.maximum(1.0 - x / self.scale_hours, 0.0)
        # lognormal: integral_x^inf sf(u) du = mean * Phi_bar(z - sigma) - x * sf(x)
        sigma = self.shape
        with np.errstate(divide="ignore"):
            z = (np.log(x) - math.log(self.scale_hours)) / sigma
        tail = _special().ndtr(sigma - z) - x * _special().ndtr(-z) / self.mean_hours
        return np.clip(tail, 0.0, 1.0)

    def equilibrium_ppf(self, probability: FloatArray) -> FloatArray:
        """Inverse of :meth:`equilibrium_cdf`, hours."""
        q = np.asarray(probability, dtype=float)
        if self.kind == "exponential":
            return self.ppf(q)
        if self.kind == "weibull":
            inverse = _special().gammaincinv(1.0 / self.shape, q)
            return self.scale_hours * inverse ** (1.0 / self.shape)
        if self.kind == "fixed":
            return q * self.scale_hours
        return self._lognormal_equilibrium_inverse(q, upper_tail=False)

    def equilibrium_isf(self, probability: FloatArray) -> FloatArray:
        """Inverse of :meth:`equilibrium_sf`, hours."""
        q = np.asarray(probability, dtype=float)
        if self.kind == "exponential":
            return self.isf(q)
        if self.kind == "weibull":
            return self.scale_hours * _special().gammainccinv(1.0 / self.shape, q) ** (
                1.0 / self.shape
            )
        if self.kind == "fixed":
            return (1.0 - q) * self.scale_hours
        return self._lognormal_equilibrium_inverse(q, upper_tail=True)

    def _lognormal_equilibrium_inverse(self, q: FloatArray, upper_tail: bool) -> FloatArray:
        sigma = self.shape
        low = np.full(q.shape, self.scale_hours * math.exp(-40.0 * sigma - 40.0))
        high = np.full(q.shape, self.scale_hours * math.exp(40.0 * sigma + 40.0))
        if upper_tail:
            # equilibrium_sf is decreasing: solve -sf(x) = -q
            return _bisect_increasing(lambda x: -self.equilibrium_sf(x), -q, low, high)
        return _bisect_increasing(self.equilibrium_cdf, q, low, high)

    # -- exact sampling restricted to a window ---------------------------------------------
    def window_probability(
        self, lower_hours: FloatArray, upper_hours: float, equilibrium: bool
    ) -> FloatArray:
        """Probability of ending in ``[lower, upper)`` given survival to ``lower``."""
        sf = self.equilibrium_sf if equilibrium else self.sf
        s_low = sf(lower_hours)
        s_high = sf(upper_hours)
        with np.errstate(invalid="ignore", divide="ignore"):
            p = np.where(s_low > 0.0, 1.0 - s_high / s_low, 1.0)
        return np.clip(p, 0.0, 1.0)

    def sample_window(
        self,
        rng: np.random.Generator,
        lower_hours: FloatArray,
        upper_hours: float,
        equilibrium: bool = False,
    ) -> FloatArray:
        """Draw durations conditioned to lie in ``[lower, upper)``, by exact inversion.

        Parameters
        ----------
        rng : numpy.random.Generator
            Source of the uniform variates (one per draw).
        lower_hours : array_like
            Lower end of each window, hours; one draw per element.
        upper_hours : float
            Upper end of the windows, hours.
        equilibrium : bool
            Draw from the equilibrium remaining-life distribution instead.

        Returns
        -------
        numpy.ndarray
            One duration per element of ``lower_hours``, hours.
        """
        lower = np.asarray(lower_hours, dtype=float)
        uniforms = rng.random(lower.shape)
        if equilibrium:
            cdf, sf, ppf, isf = (
                self.equilibrium_cdf,
                self.equilibrium_sf,
                self.equilibrium_ppf,
                self.equilibrium_isf,
            )
        else:
            cdf, sf, ppf, isf = self.cdf, self.sf, self.ppf, self.isf
        c_low, c_high = cdf(lower), cdf(upper_hours)
        # Invert the CDF where it is small (precise near 0), the survival function elsewhere.
        use_cdf = c_high < 0.5
        out = np.empty_like(lower)
        if np.any(use_cdf):
            qc = c_low[use_cdf] + uniforms[use_cdf] * (c_high - c_low[use_cdf])
            out[use_cdf] = ppf(qc)
        if not np.all(use_cdf):
            s_low, s_high = sf(lower[~use_cdf]), sf(upper_hours)
            qs = s_low - uniforms[~use_cdf] * (s_low - s_high)
            out[~use_cdf] = isf(np.maximum(qs, np.finfo(float).tiny))
        # Guard the rounding of the inverse at the edges of the window.
        return np.clip(out, lower, np.nextafter(upper_hours, -np.inf))


def exponential(mean_hours: float) -> Distribution:
    """Exponential duration with the given mean (MTBF), hours."""
    return Distribution("exponential", float(mean_hours), 1.0, float(mean_hours))


def weibull(shape: float, scale_hours: float) -> Distribution:
    """Weibull duration of shape k and scale, hours (mean = scale * Gamma(1 + 1/k))."""
    mean = scale_hours * math.gamma(1.0 + 1.0 / shape)
    return Distribution("weibull", float(mean), float(shape), float(scale_hours))


def weibull_from_mean(shape: float, mean_hours: float) -> Distribution:
    """Weibull duration of shape k whose mean is ``mean_hours``."""
    return weibull(shape, mean_hours / math.gamma(1.0 + 1.0 / shape))


def lognormal(sigma: float, median_hours: float) -> Distribution:
    """Lognormal duration: log-standard-deviation sigma and median, hours."""
    mean = median_hours * math.exp(0.5 * sigma * sigma)
    return Distribution("lognormal", float(mean), float(sigma), float(median_hours))


def lognormal_from_mean(sigma: float, mean_hours: float) -> Distribution:
    """Lognormal duration of log-standard-deviation sigma whose mean is ``mean_hours``."""
    return lognormal(sigma, mean_hours * math.exp(-0.5 * sigma * sigma))


def fixed(hours: float) -> Distribution:
    """A constant duration, hours."""
    return Distribution("fixed", float(hours), 0.0, float(hours))


def from_config(config: DistributionConfig) -> Distribution:
    """The :class:`Distribution` a config's ``{ dist = ..., ... }`` table describes.

    Parameters
    ----------
    config : DistributionConfig
        A validated lifetime or repair table.

    Returns
    -------
    Distribution
        In hours; an annual failure rate ``afr`` becomes the exponential mean
        ``-8766 h / ln(1 - afr)``.

    Examples
    --------
    >>> from relplan.config.schema import DistributionConfig
    >>> from_config(DistributionConfig(dist="weibull", shape=0.7, mtbf="5y")).mean_hours
    43830.0
    """
    if config.dist == "exponential":
        return exponential(config.mean_hours)
    if config.dist == "weibull":
        if config.scale is not None:
            return weibull(config.shape, config.scale)
        return weibull_from_mean(config.shape, config.mean_hours)
    if config.dist == "lognormal":
        if config.median is not None:
            return lognormal(config.sigma, config.median)
        return lognormal_from_mean(config.sigma, config.mean_hours)
    return fixed(config.mean_hours)
