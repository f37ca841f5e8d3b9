"""Per-trial random streams for compiled code: xoshiro256** seeded by numpy's SeedSequence.

Each trial owns four 64-bit words of state, so a trial's numbers depend only on the
seed and the trial's place in its block, never on which thread runs it or on what
other trials draw. The exposure-clock failure stream of a trial is therefore the same
for every checkpoint interval: common random numbers for free.

Reference: Blackman and Vigna, "Scrambled linear pseudorandom number generators",
ACM TOMS 47(4), 2021 (xoshiro256**). The inverse normal CDF is Acklam's rational
approximation refined by one Halley step (full double precision).
"""

from __future__ import annotations

import math

import numba
import numpy as np

_U11 = np.uint64(11)
_U17 = np.uint64(17)
_U45 = np.uint64(45)
_U7 = np.uint64(7)
_U5 = np.uint64(5)
_U9 = np.uint64(9)
_U64 = np.uint64(64)
_TWO_TO_MINUS_53 = 1.0 / 9007199254740992.0


def seed_states(seed_sequence: np.random.SeedSequence, n_trials: int) -> np.ndarray:
    """Independent xoshiro256** states for ``n_trials`` trials.

    Parameters
    ----------
    seed_sequence : numpy.random.SeedSequence
        The block's seed sequence.
    n_trials : int
        Number of trials.

    Returns
    -------
    numpy.ndarray
        Shape (n_trials, 4), dtype uint64, drawn from PCG64 seeded by the sequence;
        row ``i`` is the same whatever ``n_trials`` is; no row is all zero.
    """
    generator = np.random.Generator(np.random.PCG64(seed_sequence))
    state = generator.integers(0, 2**64 - 1, size=(n_trials, 4), dtype=np.uint64,
                               endpoint=True)
    state[:, 0] |= np.uint64(1)  # an all-zero state would stay zero
    return state


@numba.njit(inline="always")
def _rotl(x: np.uint64, k: np.uint64) -> np.uint64:
    return (x << k) | (x >> (_U64 - k))


@numba.njit(inline="always")
def _step(
    s0: np.uint64, s1: np.uint64, s2: np.uint64, s3: np.uint64
) -> tuple[np.uint64, np.uint64, np.uint64, np.uint64, np.uint64]:
    """One step of xoshiro256**: the next 64 random bits and the four words after it."""
    result = _rotl(s1 * _U5, _U7) * _U9
    t = s1 << _U17
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = _rotl(s3, _U45)
    return result, s0, s1, s2, s3


@numba.njit(inline="always")
def _unit_interval(bits: np.uint64) -> float:
    """The top 53 of 64 random bits as a variate in the open interval (0, 1)."""
    return ((bits >> _U11) + 0.5) * _TWO_TO_MINUS_53


@numba.njit(cache=True, nogil=True)
def next_u64(state: np.ndarray, row: int) -> np.uint64:
    """Advance row ``row`` of ``state`` and return the next 64 random bits."""
    result, s0, s1, s2, s3 = _step(state[row, 0], state[row, 1], state[row, 2], state[row, 3])
    state[row, 0] = s0
    state[row, 1] = s1
    state[row, 2] = s2
    state[row, 3] = s3
    return result


@numba.njit(cache=True, nogil=True)
def uniform(state: np.ndarray, row: int) -> float:
    """A uniform variate in the open interval (0, 1)."""
    return _unit_interval(next_u64(state, row))


@numba.njit(inline="always")
def load_words(state: np.ndarray, row: int) -> tuple[np.uint64, np.uint64, np.uint64, np.uint64]:
    """Row ``row`` of ``state`` as four words, for :func:`uniform_from_words`.

    A walk keeps a trial's stream in these local words while it walks the trial (in
    registers, where the compiler cannot keep array entries: a store to any other
    array might overwrite them) and stores them back with :func:`store_words`.
    """
    return state[row, 0], state[row, 1], state[row, 2], state[row, 3]


@numba.njit(inline="always")
def store_words(state: np.ndarray, row: int,
                words: tuple[np.uint64, np.uint64, np.uint64, np.uint64]) -> None:  # fmt: skip
    """Write four words taken by :func:`load_words` back to row ``row`` of ``state``."""
    state[row, 0] = words[0]
    state[row, 1] = words[1]
    state[row, 2] = words[2]
    state[row, 3] = words[3]


@numba.njit(inline="always")
def uniform_from_words(
    words: tuple[np.uint64, np.uint64, np.uint64, np.uint64],
) -> tuple[float, tuple[np.uint64, np.uint64, np.uint64, np.uint64]]:
    """:func:`uniform` on a stream held in four words: the variate and the words after it.

    The same numbers as :func:`uniform` on the row the words came from.

    Examples
    --------
    >>> state = seed_states(np.random.SeedSequence(1), 1)
    >>> u, after = uniform_from_words(tuple(state[0]))  # four numpy.uint64
    >>> bool(u == uniform(state, 0)), bool(np.all(np.array(after, dtype=np.uint64) == state[0]))
    (True, True)
    """
    result, s0, s1, s2, s3 = _step(words[0], words[1], words[2], words[3])
    return _unit_interval(result), (s0, s1, s2, s3)


@numba.njit(cache=True)
def normal_ppf(p: float) -> float:
    """Inverse of the standard normal CDF (Acklam's approximation plus a Halley step)."""
    a1, a2, a3 = -3.969683028665376e01, 2.209460984245205e02, -2.759285104469687e02
    a4, a5, a6 = 1.383577518672690e02, -3.066479806614716e01, 2.506628277459239e00
    b1, b2, b3 = -5.447609879822406e01, 1.615858368580409e02, -1.556989798598866e02
    b4, b5 = 6.680131188771972e01, -1.328068155288572e01
    c1, c2, c3 = -7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e00
    c4, c5, c6 = -2.549732539343734e00, 4.374664141464968e00, 2.938163982698783e00
    d1, d2 = 7.784695709041462e-03, 3.224671290700398e-01
    d3, d4 = 2.445134137142996e00, 3.754408661907416e00
    low = 0.02425
    if p < low:
        q = math.sqrt(-2.0 * math.log(p))
        x = (((((c1 * q + c2) * q + c3) * q + c4) * q + c5) * q + c6) / (
            (((d1 * q + d2) * q + d3) * q + d4) * q + 1.0
        )
    elif p <= 1.0 - low:
        q = p - 0.5
        r = q * q
        x = (((((a1 * r + a2) * r + a3) * r + a4) * r + a5) * r + a6) * q / (
            ((((b1 * r + b2) * r + b3) * r + b4) * r + b5) * r + 1.0
        )
    else:
        q = math.sqrt(-2.0 * math.log1p(-p))
        x = -(((((c1 * q + c2) * q + c3) * q + c4) * q + c5) * q + c6) / (
            (((d1 * q + d2) * q + d3) * q + d4) * q + 1.0
        )
    # One Halley step on Phi(x) - p, in the tail where it is precise (1 - p is exact
    # for p >= 0.5).
    if p > 0.5:
        error = (1.0 - p) - 0.5 * math.erfc(x / math.sqrt(2.0))
    else:
        error = 0.5 * math.erfc(-x / math.sqrt(2.0)) - p
    u = error * math.sqrt(2.0 * math.pi) * math.exp(0.5 * x * x)
    return x - u / (1.0 + 0.5 * x * u)


DURATION_FIXED, DURATION_EXPONENTIAL, DURATION_WEIBULL, DURATION_LOGNORMAL = 0, 1, 2, 3
"""Codes of the duration families for compiled code (see :func:`duration_code`)."""


def duration_code(kind: str) -> int:
    """The compiled-code code of a distribution family name."""
    return {
        "fixed": DURATION_FIXED,
        "exponential": DURATION_EXPONENTIAL,
        "weibull": DURATION_WEIBULL,
        "lognormal": DURATION_LOGNORMAL,
    }[kind]


@numba.njit(cache=True)
def duration_from_uniform(code: int, scale: float, shape: float, u: float) -> float:
    """The ``u``-quantile of a duration: fixed, exponential, Weibull or lognormal.

    ``scale`` is the fixed value, exponential mean, Weibull scale or lognormal median
    (hours); ``shape`` is the Weibull shape or the lognormal sigma.
    """
    if code == DURATION_FIXED:
        return scale
    if code == DURATION_EXPONENTIAL:
        return -scale * math.log1p(-u)
    if code == DURATION_WEIBULL:
        return scale * (-math.log1p(-u)) ** (1.0 / shape)
    return scale * math.exp(shape * normal_ppf(u))
