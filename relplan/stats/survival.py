"""Survival curves of censored data: the Kaplan-Meier estimate, the distance chance alone
puts between it and the truth, and the reverse Kaplan-Meier estimate of the follow-up.

Each unit has a time and whether it failed at that time (True) or was censored (still
running when watching stopped). Every duration is in hours; pure functions of arrays.
"""

from __future__ import annotations

import numpy as np


def kaplan_meier(hours: np.ndarray, failed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The Kaplan-Meier estimate of the survival function.

    Parameters
    ----------
    hours : numpy.ndarray
        Time of each unit, hours.
    failed : numpy.ndarray of bool
        Whether each unit failed (True) or was censored (False) at its time. At a tie a
        censored unit counts as still at risk of the failures at that time.

    Returns
    -------
    times : numpy.ndarray
        The distinct failure times, increasing, hours.
    survival : numpy.ndarray
        The estimate just after each of them.

    Examples
    --------
    >>> import numpy as np
    >>> times, survival = kaplan_meier(np.array([1.0, 2.0, 2.0, 3.0]),
    ...                                np.array([True, False, True, True]))
    >>> times.tolist(), survival.tolist()
    ([1.0, 2.0, 3.0], [0.75, 0.5, 0.0])
    """
    times = np.unique(hours[failed])
    at_risk = hours.size - np.searchsorted(np.sort(hours), times, side="left")
    deaths = np.bincount(np.searchsorted(times, hours[failed]), minlength=times.size)
    survival = np.cumprod(1.0 - deaths / at_risk)
    return times, survival


def km_noise_bound(
    hours: np.ndarray,
    failed: np.ndarray,
    samples: int,
    seed: int,
) -> float:
    """The 95th percentile of ``sup |S*_KM - S_KM|`` over bootstrap resamples of the units.

    Parameters
    ----------
    hours : numpy.ndarray
        Time of each unit, hours.
    failed : numpy.ndarray of bool
        Whether each unit failed at its time.
    samples : int
        Resamples drawn (each ``n`` units with replacement).
    seed : int
        Seed of the draw.

    Returns
    -------
    float
        The distance chance alone puts between a Kaplan-Meier curve and the truth, at 95%.
        Without censoring it is the bootstrap's Kolmogorov critical value, about
        ``1.36 / sqrt(n)``.

    Examples
    --------
    >>> import numpy as np
    >>> hours = np.random.default_rng(1).exponential(100.0, 2000)
    >>> bound = km_noise_bound(hours, np.ones(2000, dtype=bool), samples=400, seed=0)
    >>> bool(0.8 < bound * np.sqrt(2000) / 1.36 < 1.2)
    True
    """
    times, survival = kaplan_meier(hours, failed)
    order = np.argsort(hours, kind="stable")
    sorted_hours = hours[order]
    first_at_risk = np.searchsorted(sorted_hours, times, side="left")
    failure_slot = np.searchsorted(times, hours[failed])
    rng = np.random.default_rng(seed)
    distances = np.empty(samples)
    n = hours.size
    for index in range(samples):
        weights = np.bincount(rng.integers(0, n, n), minlength=n).astype(float)
        deaths = np.bincount(failure_slot, weights=weights[failed], minlength=times.size)
        at_risk = np.cumsum(weights[order][::-1])[::-1][first_at_risk]
        ratio = np.divide(deaths, at_risk, out=np.zeros_like(deaths), where=at_risk > 0)
        distances[index] = np.abs(np.cumprod(1.0 - ratio) - survival).max()
    return float(np.percentile(distances, 95.0))


def reverse_km_masses(
    hours: np.ndarray, failed: np.ndarray
) -> tuple[np.ndarray, np.ndarray, float]:
    """The reverse Kaplan-Meier estimate's masses at the censoring times, and the mass it
    leaves beyond the last (the units that all failed after it).

    Censorings are the events and failures censor the follow-up; at a tie the failure
    comes first.

    Parameters
    ----------
    hours, failed : numpy.ndarray
        The sample, as :func:`kaplan_meier` takes it.

    Returns
    -------
    times : numpy.ndarray
        The distinct censoring times, increasing, hours (empty without a censoring).
    masses : numpy.ndarray
        The estimate's probability at each of them.
    rest : float
        The probability left beyond the last censoring (1 without a censoring).

    Examples
    --------
    >>> import numpy as np
    >>> times, masses, rest = reverse_km_masses(np.array([3.0, 6.0, 10.0, 10.0]),
    ...                                         np.array([True, True, False, False]))
    >>> times.tolist(), masses.tolist(), rest
    ([10.0], [1.0], 0.0)
    """
    censored = ~failed
    if not censored.any():
        return np.empty(0), np.empty(0), 1.0
    times = np.unique(hours[censored])
    failure_hours = np.sort(hours[failed])
    tied_failures = (np.searchsorted(failure_hours, times, side="right")
                     - np.searchsorted(failure_hours, times, side="left"))  # fmt: skip
    at_risk = hours.size - np.searchsorted(np.sort(hours), times, side="left") - tied_failures
    ends = np.bincount(np.searchsorted(times, hours[censored]), minlength=times.size)
    survival = np.cumprod(1.0 - ends / at_risk)
    before = np.concatenate(([1.0], survival[:-1]))
    return times, before - survival, float(survival[-1])


def follow_up_distribution(hours: np.ndarray, failed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The data's own follow-up distribution: the reverse Kaplan-Meier estimate.

    Censorings are the events and failures censor the follow-up (a unit that failed was
    watched at least that long); at a tie the failure comes first. The mass the estimate
    leaves beyond the last censoring is put at the longest observation: no unit was
    watched longer.

    Parameters
    ----------
    hours, failed : numpy.ndarray
        The sample, as :func:`reverse_km_masses` (which this is built on) takes it.

    Returns
    -------
    times : numpy.ndarray
        Follow-up times, hours, increasing.
    probability : numpy.ndarray
        Their probabilities (summing to 1).

    Examples
    --------
    Four units watched 10 h each, two failing before: every follow-up is 10 h.

    >>> import numpy as np
    >>> follow_up_distribution(np.array([3.0, 6.0, 10.0, 10.0]),
    ...                        np.array([True, True, False, False]))
    (array([10.]), array([1.]))
    """
    times, probability, rest = reverse_km_masses(hours, failed)
    longest = float(hours.max())
    if rest > 0:
        if times.size and times[-1] == longest:
            probability = probability.copy()
            probability[-1] += rest
        else:
            times = np.append(times, longest)
            probability = np.append(probability, rest)
    return times, probability
