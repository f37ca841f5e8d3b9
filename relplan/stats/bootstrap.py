"""The circular block bootstrap of a history of events over a window (``relplan replay``).

A log is one history: its failures could have come at other times, more or fewer of them,
and a figure computed from it (a replay's goodput) varies with them. The bootstrap makes
new histories from the log's own: the window is filled with blocks of ``block_hours``,
each a stretch of the history starting at a uniform point of the window, the history
wrapped around its end (a circular block bootstrap in continuous time; Politis and Romano
1992). A block keeps every failure in it and their spacing, so bursts (several failures
within hours of each other, a repair that fails again) stay together, while the blocks
themselves come in a new order and number: the count, the clustering and the phase of the
failures against anything periodic (checkpoints) vary as the history allows.

**The block length** is chosen by the rule of Politis and White (2004), with the correction
of Patton, Politis and White (2009), for the circular bootstrap, applied to the counts of
failures per bin (bins of the window's length over the number of failures, at least
:data:`MIN_BINS` bins, so about one failure a bin): the flat-top lag window estimates
``G = sum_k lambda(k/M) |k| R(k)`` and the long-run variance
``g = sum_k lambda(k/M) R(k)`` from the autocovariances ``R(k)``, with ``M`` twice the
first lag after which :data:`PW_INSIGNIFICANT_LAGS` autocorrelations in a row are
insignificant (within ``2 sqrt(log10(n) / n)``), and the block is
``b = (2 G^2 / D)^(1/3) n^(1/3)`` bins with ``D = 4/3 g^2``, between one bin and
``min(3 sqrt(n), n / 3)``. Failures without dependence between bins (a Poisson
process) get blocks of about a bin; bursty ones get longer blocks. Every duration is in
hours.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

BLOCK_METHOD = "circular block bootstrap of the failure history"
BLOCK_RULE = "Politis and White (2004), corrected by Patton, Politis and White (2009)"

MIN_BINS = 10
"""Fewest bins of the window the block-length rule counts failures in."""

PW_INSIGNIFICANT_LAGS = 5
"""Autocorrelations in a row that must be insignificant to end the rule's lag search
(Politis and White's ``K_N``, at least 5)."""


def flat_top(x: float) -> float:
    """The trapezoidal flat-top lag window of Politis and Romano: 1 up to 1/2, then down to 0
    at 1.

    Examples
    --------
    >>> flat_top(0.25), flat_top(0.75), flat_top(1.5)
    (1.0, 0.5, 0.0)
    """
    x = abs(x)
    if x <= 0.5:
        return 1.0
    return max(0.0, 2.0 * (1.0 - x))


def circular_block_length(series: np.ndarray) -> float:
    """The circular bootstrap's block length for a series, by Politis and White's rule.

    Parameters
    ----------
    series : numpy.ndarray
        The series (here: failures per bin), at least two values.

    Returns
    -------
    float
        The block length, in steps of the series, between 1 and ``min(3 sqrt(n), n / 3)``
        (1 for a constant series or one whose long-run variance estimate is not positive).

    Examples
    --------
    An autoregressive series with coefficient 0.8 needs long blocks; white noise, short:

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> noise = rng.normal(size=2000)
    >>> ar = np.zeros(2000)
    >>> for i in range(1, 2000):
    ...     ar[i] = 0.8 * ar[i - 1] + noise[i]
    >>> circular_block_length(noise) < 3 < 10 < circular_block_length(ar)
    True
    """
    values = np.asarray(series, dtype=float)
    n = values.size
    longest = max(1.0, min(3.0 * math.sqrt(n), n / 3.0))
    centred = values - values.mean()
    variance = float(centred @ centred) / n
    if n < 3 or variance <= 0.0:
        return 1.0
    runs = max(PW_INSIGNIFICANT_LAGS, int(math.sqrt(math.log10(n))))
    max_lag = min(n - 1, math.ceil(math.sqrt(n)) + runs)
    autocovariance = np.array([float(centred[lag:] @ centred[: n - lag]) / n
                               for lag in range(max_lag + 1)])  # fmt: skip
    correlation = np.abs(autocovariance / variance)
    critical = 2.0 * math.sqrt(math.log10(n) / n)
    first = None
    for lag in range(1, max_lag - runs + 2):
        if np.all(correlation[lag : lag + runs] < critical):
            first = lag - 1
            break
    lags = min(max_lag, 2 * max(first, 1)) if first is not None else max_lag
    g_sum = 0.0
    long_run = autocovariance[0]
    for lag in range(1, lags + 1):
        weight = flat_top(lag / lags)
        g_sum += 2.0 * weight * lag * autocovariance[lag]
        long_run += 2.0 * weight * autocovariance[lag]
    if long_run <= 0.0 or g_sum == 0.0:
        return 1.0
    d_circular = 4.0 / 3.0 * long_run * long_run
    block = (2.0 * g_sum * g_sum / d_circular) ** (1.0 / 3.0) * n ** (1.0 / 3.0)
    return float(min(max(block, 1.0), longest))


@dataclass(frozen=True)
class BlockRule:
    """The block length chosen for a history, and what it rests on.

    Attributes
    ----------
    block_hours : float
        The block length, hours.
    bin_hours : float
        The bins the failures were counted in, hours.
    bins : int
        How many bins the window holds.
    block_bins : float
        The block length in bins (Politis and White's rule).
    """

    block_hours: float
    bin_hours: float
    bins: int
    block_bins: float

    def to_dict(self) -> dict[str, Any]:
        """The rule as a JSON-ready dict."""
        return {
            "method": BLOCK_METHOD,
            "rule": BLOCK_RULE,
            "block_hours": self.block_hours,
            "bin_hours": self.bin_hours,
            "bins": self.bins,
            "block_bins": self.block_bins,
        }


def block_rule(offsets_hours: np.ndarray, window_hours: float) -> BlockRule:
    """The block length for a history of failures over a window.

    Parameters
    ----------
    offsets_hours : numpy.ndarray
        When each failure came, hours from the window's start.
    window_hours : float
        The window, hours (> 0).

    Returns
    -------
    BlockRule
        The block length (at least one bin, at most the window) and its bins.

    Examples
    --------
    >>> import numpy as np
    >>> rule = block_rule(np.array([5.0, 50.0, 51.0, 90.0]), 100.0)
    >>> rule.bins, rule.bin_hours, rule.block_hours >= rule.bin_hours
    (10, 10.0, True)
    """
    bins = max(MIN_BINS, int(np.asarray(offsets_hours).size))
    bin_hours = window_hours / bins
    index = np.minimum((np.asarray(offsets_hours) / bin_hours).astype(int), bins - 1)
    counts = np.bincount(index, minlength=bins)
    block_bins = circular_block_length(counts)
    return BlockRule(min(window_hours, block_bins * bin_hours), bin_hours, bins, block_bins)


@dataclass(frozen=True)
class Resampled:
    """Histories made by the block bootstrap, one a row, padded after each one's last failure.

    Attributes
    ----------
    offsets_hours : numpy.ndarray
        ``(histories, length)``: the failure times, hours, increasing along a row.
    source : numpy.ndarray of int
        The index of the log's failure each one copies.
    active : numpy.ndarray of bool
        Where a row holds a failure.
    """

    offsets_hours: np.ndarray
    source: np.ndarray
    active: np.ndarray

    @property
    def counts(self) -> np.ndarray:
        """Failures in each history."""
        return self.active.sum(axis=1)


def resample_histories(
    offsets_hours: np.ndarray,
    window_hours: float,
    block_hours: float,
    samples: int,
    rng: np.random.Generator,
) -> Resampled:
    """New histories made of blocks of the log's own, by the circular block bootstrap.

    Each history fills the window with ``ceil(window / block)`` blocks placed end to end,
    the last cut at the window's end; block ``j`` copies the log's failures in
    ``[s_j, s_j + block)`` (wrapped around the window's end), ``s_j`` uniform over the
    window.

    Parameters
    ----------
    offsets_hours : numpy.ndarray
        The history: each failure's time from the window's start, hours, increasing.
    window_hours : float
        The window, hours.
    block_hours : float
        The block length, hours (> 0, at most the window).
    samples : int
        Histories to make.
    rng : numpy.random.Generator
        Draws the blocks' starts.

    Returns
    -------
    Resampled
        The histories, their sources and where each row holds a failure.

    Examples
    --------
    Blocks as long as the window: the history itself, started at a random point.

    >>> import numpy as np
    >>> made = resample_histories(np.array([10.0, 60.0]), 100.0, 100.0, 2,
    ...                           np.random.default_rng(0))
    >>> made.counts.tolist(), sorted(made.source[0].tolist())
    ([2, 2], [0, 1])
    >>> [round(float(row[1] - row[0]), 6) % 100 for row in made.offsets_hours]
    [50.0, 50.0]
    """
    history = np.asarray(offsets_hours, dtype=float)
    size = history.size
    blocks = math.ceil(window_hours / block_hours)
    starts = rng.uniform(0.0, window_hours, (samples, blocks)).ravel()
    wrapped = np.concatenate((history, history + window_hours))
    low = np.searchsorted(wrapped, starts, side="left")
    high = np.searchsorted(wrapped, starts + block_hours, side="left")
    counts = high - low
    first = np.cumsum(counts) - counts
    within = np.arange(int(counts.sum())) - np.repeat(first, counts)
    taken = np.repeat(low, counts) + within
    shift = np.repeat(np.tile(np.arange(blocks) * block_hours, samples) - starts, counts)
    placed = wrapped[taken] + shift
    row = np.repeat(np.repeat(np.arange(samples), blocks), counts)
    keep = placed < window_hours
    placed, taken, row = placed[keep], taken[keep], row[keep]
    lengths = np.bincount(row, minlength=samples)
    column = np.arange(placed.size) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    shape = (samples, int(lengths.max(initial=0)))
    offsets = np.zeros(shape)
    source = np.zeros(shape, dtype=int)
    active = np.zeros(shape, dtype=bool)
    offsets[row, column] = placed
    source[row, column] = taken % size if size else taken
    active[row, column] = True
    return Resampled(offsets, source, active)
