"""How far a fitted lifetime is from the data it was fitted to: ``relplan fit``'s two checks.

**Goodness of fit against the Kaplan-Meier curve.** The statistic is the Kolmogorov
distance ``D = sup |F_KM(t) - F(t)|`` over the observed range. A family *passes* when
``D`` is at most the larger of two bounds:

- the **noise bound**: the 95th percentile of ``sup |S*_KM - S_KM|`` over
  :data:`GOF_BOOTSTRAP_SAMPLES` bootstrap resamples of the units (Efron 1981: resampling
  (time, failed) pairs carries the censoring with it), the distance chance alone puts
  between the Kaplan-Meier curve and the truth. It ignores that the family's parameters
  were fitted to the same data (which pulls ``D`` down), so it errs towards passing: a
  screen against misfits the data show clearly, not a test that rejects 5% of true
  models;
- the **tolerance bound**: :data:`GOF_TOLERANCE` times the fraction the Kaplan-Meier
  curve has failed by the last observation, ``F_KM(t_last)``. With tens of thousands of
  units every parametric family differs from the curve by more than chance (Titan's
  30,207 GPUs: the noise bound is 0.016, the closest family 0.033 off); a misfit of
  less than a fifth of the failures the data saw, at any age, is one a plan can live with
  (the same 20% at which the failure count below warns).

A significance test alone would reject every family on a large fleet, and a fixed
tolerance alone would let a small sample pass anything; the larger of the two rejects a
family only when its misfit is both real and large.

**Failures over the data's own exposure.** The line a fit writes is simulated over the
exposure the data came from, and the expected failure count set against the observed one
(``ratio = expected / observed``): past :data:`COUNT_WARN` either way it warns, past
:data:`COUNT_REFUSE` times either way ``--write-config`` refuses it. Computed exactly:

- *lifetimes* (one row per unit, time in service from new): each unit is new at entry and
  watched for a follow-up drawn from the data's own follow-up distribution, the reverse
  Kaplan-Meier estimate (censorings as events; Schemper and Smith 1996), no follow-up
  longer than the longest observation: ``expected = n * sum P(C = c) F(c)``;
- *times between failures from event records* (``--events``): each of the units is a
  renewal process over the window, in equilibrium as a config simulates the line
  (``start = "equilibrium"``, the default): ``expected = units * window / mean`` exactly
  (a stationary renewal process has rate ``1 / mean``). Started new (``start = "new"``)
  it is ``units * M(window)``, ``M`` the renewal function (by the Riemann-Stieltjes
  scheme of Xie 1989), reported beside it;
- *repair times* (``--as repair``): every repair that ended was watched to its end, so
  the count of ends says nothing; what a repair line is for is the hours of repair. Each
  of the data's repairs is drawn from the line and cut at its follow-up where it was
  still under way (the reverse Kaplan-Meier again, the mass beyond the last cut
  uncut): ``expected = n * sum P(C = c) E[min(T, c)]``, set against the hours observed.

Every duration is in hours.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from relplan.sim.distributions import Distribution
from relplan.stats.summary import finite_or_none
from relplan.stats.survival import (
    follow_up_distribution,
    kaplan_meier,
    km_noise_bound,
    reverse_km_masses,
)

GOF_TOLERANCE = 0.2
"""The tolerance bound of the goodness-of-fit check, as a share of ``F_KM(t_last)``."""

GOF_BOOTSTRAP_SAMPLES = 400
"""Bootstrap resamples of the units for the noise bound."""

GOF_SEED = 0
"""Seed of the noise bound's resampling: the same data always get the same bound."""

GOF_METHOD = "Kolmogorov distance between the Kaplan-Meier CDF and the fitted CDF"
GOF_RULE = (
    "passes when the distance is at most the larger of the 95th percentile of the "
    "Kaplan-Meier curve's own bootstrap distance and 0.2 x F_KM at the last observation"
)

COUNT_WARN = 0.2
"""Expected over observed failures off 1 by more than this, either way: a warning."""

COUNT_REFUSE = 2.0
"""Expected over observed failures beyond this factor, either way: ``--write-config``
refuses the line (unless ``--force``)."""

COUNT_VERDICTS = ("ok", "warn", "refuse")
"""What the failure-count check says of a line: within 20%, past it, past 2x."""

COUNT_METHODS = {
    "repairs": "the data's repairs, each drawn from the line and cut at its own follow-up "
    "where it was still under way (the reverse Kaplan-Meier estimate): hours of repair",
    "lifetimes": "units new at entry, each watched for a follow-up drawn from the data's "
    "own follow-up distribution (the reverse Kaplan-Meier estimate)",
    "renewal": "every unit a renewal process over the window, in equilibrium "
    '(start = "equilibrium", as a config simulates the line)',
}
"""How the expected count is computed, by kind of data."""

RENEWAL_GRID = 2000
"""Steps of the renewal function's grid over the window."""


@dataclass(frozen=True)
class GofRule:
    """The goodness-of-fit bound of one sample (the same for every family).

    Attributes
    ----------
    noise_bound : float
        95th percentile of the Kaplan-Meier curve's own bootstrap distance.
    tolerance_bound : float
        :data:`GOF_TOLERANCE` x ``km_end_cdf``.
    km_end_cdf : float
        ``F_KM`` at the last time observed: the fraction the data saw fail.
    """

    noise_bound: float
    tolerance_bound: float
    km_end_cdf: float

    @property
    def bound(self) -> float:
        """The larger of the two bounds: a family passes at or below it."""
        return max(self.noise_bound, self.tolerance_bound)

    def passes(self, distance: float) -> bool:
        """Whether a family at this Kaplan-Meier distance passes."""
        return bool(distance <= self.bound)

    def to_dict(self) -> dict[str, Any]:
        """The rule as a JSON-ready dict (``relplan fit --json``'s ``gof``)."""
        return {
            "method": GOF_METHOD,
            "rule": GOF_RULE,
            "bound": self.bound,
            "noise_bound": self.noise_bound,
            "tolerance_bound": self.tolerance_bound,
            "tolerance": GOF_TOLERANCE,
            "km_end_cdf": self.km_end_cdf,
            "bootstrap_samples": GOF_BOOTSTRAP_SAMPLES,
            "seed": GOF_SEED,
        }


def gof_rule(hours: np.ndarray, failed: np.ndarray) -> GofRule:
    """The bound a family's Kaplan-Meier distance must not exceed, for one sample.

    Parameters
    ----------
    hours, failed : numpy.ndarray
        The sample, as :func:`~relplan.stats.survival.km_noise_bound` takes it.

    Returns
    -------
    GofRule
        The noise bound, the tolerance bound and the fraction failed they rest on.

    Examples
    --------
    >>> import numpy as np
    >>> rule = gof_rule(np.array([1.0, 2.0, 3.0, 4.0, 9.0]),
    ...                 np.array([True, True, True, True, False]))
    >>> round(rule.km_end_cdf, 2), round(rule.tolerance_bound, 2), rule.bound >= 0.16
    (0.8, 0.16, True)
    """
    _, survival = kaplan_meier(hours, failed)
    km_end_cdf = float(1.0 - survival[-1])
    noise = km_noise_bound(hours, failed, GOF_BOOTSTRAP_SAMPLES, GOF_SEED)
    return GofRule(noise, GOF_TOLERANCE * km_end_cdf, km_end_cdf)


def expected_repair_hours(
    distribution: Distribution, hours: np.ndarray, failed: np.ndarray
) -> float:
    """Hours a repair-time line gives over the data's own repairs: each drawn from the line,
    cut at its follow-up where it was still under way.

    Parameters
    ----------
    distribution : Distribution
        The repair time, hours.
    hours : numpy.ndarray
        Time of each repair (ended, or under way so far), hours.
    failed : numpy.ndarray of bool
        Whether each ended.

    Returns
    -------
    float
        ``n * (sum over cuts c of P(C = c) E[min(T, c)] + P(no cut) E[T])``, with
        ``E[min(T, c)] = mean * F_e(c)`` (``F_e`` the equilibrium CDF).

    Examples
    --------
    >>> import numpy as np
    >>> from relplan.sim.distributions import exponential
    >>> expected_repair_hours(exponential(5.0), np.array([1.0, 2.0, 12.0]), np.ones(3, bool))
    15.0
    """
    times, probability, rest = reverse_km_masses(hours, failed)
    mean = distribution.mean_hours
    cut = (
        float(np.sum(probability * mean * distribution.equilibrium_cdf(times)))
        if times.size
        else 0.0
    )
    return float(hours.size * (cut + rest * mean))


def expected_failures_in_follow_up(
    distribution: Distribution, hours: np.ndarray, failed: np.ndarray
) -> float:
    """Failures a lifetime gives over the data's own exposure: units new at entry, each
    over a follow-up drawn from the data's follow-up distribution.

    Parameters
    ----------
    distribution : Distribution
        The lifetime, hours.
    hours, failed : numpy.ndarray
        The sample, as :func:`~relplan.stats.survival.follow_up_distribution` takes it.

    Returns
    -------
    float
        ``n * sum over follow-ups c of P(C = c) F(c)``.

    Examples
    --------
    >>> import numpy as np
    >>> from relplan.sim.distributions import exponential
    >>> hours, failed = np.array([3.0, 6.0, 10.0, 10.0]), np.array([True, True, False, False])
    >>> round(expected_failures_in_follow_up(exponential(10.0), hours, failed), 4)  # 4 F(10)
    2.5285
    """
    times, probability = follow_up_distribution(hours, failed)
    return float(hours.size * np.sum(probability * distribution.cdf(times)))


def renewal_function(distribution: Distribution, hours: float, steps: int = RENEWAL_GRID) -> float:
    """The expected number of renewals by ``hours`` of a unit new at 0: ``M(hours)``.

    Solves ``M(t) = F(t) + integral_0^t F(t - x) dM(x)`` by the Riemann-Stieltjes scheme of
    Xie (1989) on ``steps`` equal steps (midpoints for the convolution).

    Parameters
    ----------
    distribution : Distribution
        The lifetime, hours.
    hours : float
        The time, hours (> 0).
    steps : int
        Grid steps.

    Returns
    -------
    float
        ``M(hours)``.

    Examples
    --------
    >>> from relplan.sim.distributions import exponential
    >>> round(renewal_function(exponential(100.0), 500.0), 4)  # t / mean exactly
    5.0
    """
    step = hours / steps
    at_midpoints = distribution.cdf((np.arange(steps) + 0.5) * step)
    at_nodes = distribution.cdf(np.arange(steps + 1) * step)
    renewals = np.zeros(steps + 1)
    increments = np.zeros(steps + 1)
    first = float(at_midpoints[0])
    for node in range(1, steps + 1):
        total = (at_nodes[node] + np.dot(at_midpoints[node - 1:0:-1], increments[1:node])
                 - first * renewals[node - 1])  # fmt: skip
        renewals[node] = total / (1.0 - first)
        increments[node] = renewals[node] - renewals[node - 1]
    return float(renewals[-1])


@dataclass(frozen=True)
class RenewalWindow:
    """Units each watched over one window, their failures renewed (``relplan fit --events``).

    Attributes
    ----------
    units : int
        Units watched.
    window_hours : float
        The window, hours.
    """

    units: int
    window_hours: float


def count_verdict(ratio: float) -> str:
    """What the failure-count check says of a ratio of expected to observed failures.

    Examples
    --------
    >>> count_verdict(1.1), count_verdict(0.57), count_verdict(0.067), count_verdict(2.0)
    ('ok', 'warn', 'refuse', 'warn')
    """
    if not math.isfinite(ratio) or not 1.0 / COUNT_REFUSE <= ratio <= COUNT_REFUSE:
        return "refuse"
    if abs(ratio - 1.0) > COUNT_WARN:
        return "warn"
    return "ok"


@dataclass(frozen=True)
class CountCheck:
    """A fitted line's failures over the data's own exposure, against the observed ones.

    Attributes
    ----------
    kind : {"lifetimes", "renewal", "repairs"}
        How the exposure was simulated (see :data:`COUNT_METHODS`).
    observed : float
        Failures in the data (with ``repairs``: hours of repair).
    expected : float
        Failures (hours of repair) the line gives over the same exposure.
    expected_new : float or None
        With ``renewal``: the units started new (``start = "new"``) instead.
    """

    kind: str
    observed: float
    expected: float
    expected_new: float | None = None

    @property
    def ratio(self) -> float:
        """Expected over observed failures."""
        return self.expected / self.observed

    @property
    def verdict(self) -> str:
        """``ok``, ``warn`` (past 20%) or ``refuse`` (past 2x)."""
        return count_verdict(self.ratio)

    @property
    def quantity(self) -> str:
        """What is counted: ``failures``, or ``repair hours``."""
        return "repair hours" if self.kind == "repairs" else "failures"

    def text(self, family: str) -> str:
        """One sentence: what the line gives against what the data hold."""
        if self.kind == "repairs":
            return (f"{family}, drawn for each of the data's repairs, gives "
                    f"{self.expected:,.0f} h of repair against the {self.observed:,.0f} h "
                    f"observed ({self.ratio:.2f}x)")  # fmt: skip
        where = ("over the data's own follow-up" if self.kind == "lifetimes"
                 else "over the log's window, in equilibrium")  # fmt: skip
        sentence = (f"{family}, simulated {where}, gives {self.expected:,.0f} failures "
                    f"against the {self.observed:,.0f} observed ({self.ratio:.2f}x)")  # fmt: skip
        if self.expected_new is not None:
            sentence += (f"; started new (start = \"new\") {self.expected_new:,.0f} "
                         f"({self.expected_new / self.observed:.2f}x)")  # fmt: skip
        return sentence

    def to_dict(self) -> dict[str, Any]:
        """The check as a JSON-ready dict."""
        unit = "hours" if self.kind == "repairs" else "failures"
        return {
            "method": COUNT_METHODS[self.kind],
            "quantity": self.quantity,
            f"observed_{unit}": self.observed if self.kind == "repairs" else int(self.observed),
            f"expected_{unit}": finite_or_none(self.expected),
            "ratio": finite_or_none(self.ratio),
            "verdict": self.verdict,
            "expected_failures_new": (
                None if self.expected_new is None else finite_or_none(self.expected_new)
            ),
        }


def count_check(
    distribution: Distribution,
    hours: np.ndarray,
    failed: np.ndarray,
    window: RenewalWindow | None = None,
    repairs: bool = False,
) -> CountCheck:
    """Simulate a fitted line over the data's own exposure; set its failures against theirs.

    Parameters
    ----------
    distribution : Distribution
        The fitted lifetime, hours.
    hours : numpy.ndarray
        Time of each unit (or gap), hours.
    failed : numpy.ndarray of bool
        Whether each ended in a failure.
    window : RenewalWindow, optional
        For times between failures built from event records: the units and the window
        they were watched over (a renewal count); without it, one life per unit.
    repairs : bool
        The times are repair times: compare the hours of repair instead (see
        :func:`expected_repair_hours`).

    Returns
    -------
    CountCheck
        Observed and expected failures, their ratio and verdict.

    Examples
    --------
    A renewal log of 10 units over 1,000 h with 25 failures, against a mean of 500 h: a
    config would simulate 20 failures (0.8x).

    >>> import numpy as np
    >>> from relplan.sim.distributions import exponential
    >>> check = count_check(exponential(500.0), np.ones(35), np.arange(35) < 25,
    ...                     RenewalWindow(10, 1000.0))
    >>> round(check.expected, 6), round(check.ratio, 2), check.verdict
    (20.0, 0.8, 'ok')
    """
    if repairs:
        return CountCheck("repairs", float(hours.sum()),
                          expected_repair_hours(distribution, hours, failed))  # fmt: skip
    observed = int(np.count_nonzero(failed))
    if window is None:
        return CountCheck("lifetimes", observed,
                          expected_failures_in_follow_up(distribution, hours, failed))  # fmt: skip
    mean = distribution.mean_hours
    expected = window.units * window.window_hours / mean if mean > 0 else math.inf
    expected_new = window.units * renewal_function(distribution, window.window_hours)
    return CountCheck("renewal", observed, expected, expected_new)
