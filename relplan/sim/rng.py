"""Per-trial random streams for compiled code: xoshiro256** seeded by SplitMix64 from a
block key (itself from numpy's SeedSequence), and the variates the walk draws from them.

Each trial owns four 64-bit words of state, the SplitMix64 words of its place in its
block (:func:`trial_words`), so a trial's numbers depend only on the seed and that place,
never on which thread runs it or on what other trials draw. The exposure-clock failure
stream of a trial is therefore the same for every checkpoint interval: common random
numbers for free. Exponential gaps come from a ziggurat (:func:`exponential_from_words`),
which needs a logarithm for about one draw in 2,000; durations by inversion of one
uniform (:func:`duration_from_uniform`).

References: Blackman and Vigna, "Scrambled linear pseudorandom number generators",
ACM TOMS 47(4), 2021 (xoshiro256**, seeded by SplitMix64); Steele, Lea and Flood, "Fast
splittable pseudorandom number generators", OOPSLA 2014 (SplitMix64); Marsaglia and
Tsang, "The ziggurat method for generating random variables", J. Stat. Softw. 5(8), 2000.
The inverse normal CDF is Acklam's rational approximation refined by one Halley step
(full double precision).
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
_U1 = np.uint64(1)
_U2 = np.uint64(2)
_U3 = np.uint64(3)
_U4 = np.uint64(4)
_U27 = np.uint64(27)
_U30 = np.uint64(30)
_U31 = np.uint64(31)
_U64 = np.uint64(64)
_TWO_TO_MINUS_53 = 1.0 / 9007199254740992.0

# SplitMix64 (Steele, Lea and Flood 2014): its increment and the multipliers of its mix
_GOLDEN_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_MIX_1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX_2 = np.uint64(0x94D049BB133111EB)


def stream_key(seed_sequence: np.random.SeedSequence) -> np.uint64:
    """The 64-bit key of a block's trial streams (:func:`trial_words`), from its seed.

    Parameters
    ----------
    seed_sequence : numpy.random.SeedSequence
        The block's seed sequence for its trials' streams.

    Returns
    -------
    numpy.uint64
        The first word of the sequence's state.

    Examples
    --------
    >>> int(stream_key(np.random.SeedSequence(0))) == int(stream_key(np.random.SeedSequence(0)))
    True
    """
    return np.uint64(seed_sequence.generate_state(1, np.uint64)[0])


@numba.njit(inline="always")
def _split_mix(x: np.uint64) -> np.uint64:
    """SplitMix64's output function (Steele, Lea and Flood 2014)."""
    x = (x ^ (x >> _U30)) * _MIX_1
    x = (x ^ (x >> _U27)) * _MIX_2
    return x ^ (x >> _U31)


@numba.njit(inline="always")
def trial_words(key: np.uint64, trial: int) -> tuple[np.uint64, np.uint64, np.uint64, np.uint64]:
    """The xoshiro256** state a trial's stream starts from: four words of SplitMix64.

    The words ``4 * trial + 1`` to ``4 * trial + 4`` of the SplitMix64 sequence started
    at ``key``, as its authors advise to seed xoshiro256** (Blackman and Vigna 2021):
    each trial's state depends on the key and its place in the block only, and costs
    four mixes where the walk first walks it. The first word's lowest bit is set, so no
    state is all zero.

    Examples
    --------
    >>> words = trial_words(np.uint64(1), 0)
    >>> bool(np.all(np.array(words, dtype=np.uint64) == seed_states(np.uint64(1), 1)[0]))
    True
    """
    x = key + np.uint64(trial) * _U4 * _GOLDEN_GAMMA
    return (_split_mix(x + _GOLDEN_GAMMA) | _U1, _split_mix(x + _U2 * _GOLDEN_GAMMA),
            _split_mix(x + _U3 * _GOLDEN_GAMMA), _split_mix(x + _U4 * _GOLDEN_GAMMA))  # fmt: skip


def seed_states(key: np.uint64, n_trials: int) -> np.ndarray:
    """The xoshiro256** states :func:`trial_words` gives trials ``0 .. n_trials - 1``.

    The walk seeds a trial itself; this is the same, vectorised, for a caller that
    needs the states before a walk (a test, a hand-built call).

    Parameters
    ----------
    key : numpy.uint64
        The streams' key (:func:`stream_key`).
    n_trials : int
        Number of trials.

    Returns
    -------
    numpy.ndarray
        Shape (n_trials, 4), dtype uint64; row ``i`` is the same whatever ``n_trials`` is;
        no row is all zero.

    Examples
    --------
    >>> states = seed_states(np.uint64(7), 3)
    >>> states.shape, bool(np.all(seed_states(np.uint64(7), 2) == states[:2]))
    ((3, 4), True)
    """
    # SplitMix64 counts modulo 2**64: its sums and products wrap
    counter = np.arange(4 * n_trials, dtype=np.uint64) + _U1
    x = np.uint64(key) + counter * _GOLDEN_GAMMA
    x = (x ^ (x >> _U30)) * _MIX_1
    x = (x ^ (x >> _U27)) * _MIX_2
    state = (x ^ (x >> _U31)).reshape(n_trials, 4)
    state[:, 0] |= _U1  # an all-zero state would stay zero
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
    >>> state = seed_states(np.uint64(1), 1)
    >>> u, after = uniform_from_words(tuple(state[0]))  # four numpy.uint64
    >>> bool(u == uniform(state, 0)), bool(np.all(np.array(after, dtype=np.uint64) == state[0]))
    (True, True)
    """
    result, s0, s1, s2, s3 = _step(words[0], words[1], words[2], words[3])
    return _unit_interval(result), (s0, s1, s2, s3)


ZIGGURAT_LAYERS = 256
"""Layers of the exponential ziggurat (:func:`exponential_from_words`)."""

ZIGGURAT_TAIL = 7.69711747013104972
"""Where the base layer's tail starts (Marsaglia and Tsang 2000, 256 layers)."""

ZIGGURAT_AREA = 3.949659822581572e-3
"""The area of each of the ziggurat's layers (Marsaglia and Tsang 2000, 256 layers)."""


def ziggurat_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The exponential ziggurat's tables: scaled widths, accept thresholds, densities.

    Layer ``i`` is the rectangle of width ``x[i]`` between the densities ``exp(-x[i])``
    and ``exp(-x[i + 1])``, each of area :data:`ZIGGURAT_AREA`; layer 0 is the base, the
    rectangle under ``exp(-r)`` out to ``r`` = :data:`ZIGGURAT_TAIL` plus the tail beyond,
    counted as a rectangle of width ``area / exp(-r)``; ``x[256] = 0``.

    Returns
    -------
    widths : numpy.ndarray
        ``x[i] / 2**53`` (256 floats): a 53-bit integer ``j`` gives ``x = j * widths[i]``.
    thresholds : numpy.ndarray
        ``floor(x[i + 1] / x[i] * 2**53)`` (256 uint64): ``j`` below it lies under the
        curve with no test.
    densities : numpy.ndarray
        ``exp(-x[i])`` for ``i`` = 0..256 (257 floats; ``densities[256] = 1``).

    Examples
    --------
    >>> widths, thresholds, densities = ziggurat_tables()
    >>> float(widths[1] * 2**53)  # the base layer's rectangle reaches the tail
    7.69711747013105
    >>> float(densities[255] + ZIGGURAT_AREA / (widths[255] * 2**53))  # the top layer ends at 1
    1.0...
    """
    x = np.empty(ZIGGURAT_LAYERS + 1)
    x[0] = ZIGGURAT_AREA / math.exp(-ZIGGURAT_TAIL)
    x[1] = ZIGGURAT_TAIL
    for i in range(1, ZIGGURAT_LAYERS - 1):
        x[i + 1] = -math.log(math.exp(-x[i]) + ZIGGURAT_AREA / x[i])
    x[ZIGGURAT_LAYERS] = 0.0
    scale = 2.0**53
    widths = x[:ZIGGURAT_LAYERS] / scale
    thresholds = np.array([math.floor(x[i + 1] / x[i] * scale) for i in range(ZIGGURAT_LAYERS)],
                          dtype=np.uint64)  # fmt: skip
    densities = np.exp(-x)
    densities[ZIGGURAT_LAYERS] = 1.0
    return widths, thresholds, densities


_ZIGGURAT_WIDTHS, _ZIGGURAT_THRESHOLDS, _ZIGGURAT_DENSITIES = ziggurat_tables()
_U8_MASK = np.uint64(ZIGGURAT_LAYERS - 1)


@numba.njit(inline="always")
def _ziggurat_point(
    words: tuple[np.uint64, np.uint64, np.uint64, np.uint64],
) -> tuple[int, float, bool, tuple[np.uint64, np.uint64, np.uint64, np.uint64]]:
    """One try of the ziggurat: the layer (the draw's low 8 bits), the point ``x`` across
    it (its top 53 bits), whether ``x`` lies under the curve with no test, and the words
    after the draw."""
    bits, s0, s1, s2, s3 = _step(words[0], words[1], words[2], words[3])
    layer = int(bits & _U8_MASK)
    j = bits >> _U11
    return (layer, float(j) * _ZIGGURAT_WIDTHS[layer], j < _ZIGGURAT_THRESHOLDS[layer],
            (s0, s1, s2, s3))  # fmt: skip


@numba.njit(cache=True, nogil=True)
def _exponential_slow(
    layer: int, x: float, words: tuple[np.uint64, np.uint64, np.uint64, np.uint64],
) -> tuple[float, tuple[np.uint64, np.uint64, np.uint64, np.uint64]]:
    """The ziggurat's rare cases (about 2.2% of draws): the tail, a wedge, a new try."""
    while True:
        if layer == 0:  # beyond the tail's start: memoryless, r plus an exponential
            u, words = uniform_from_words(words)
            return ZIGGURAT_TAIL - math.log(u), words
        low = _ZIGGURAT_DENSITIES[layer]
        u, words = uniform_from_words(words)
        if low + u * (_ZIGGURAT_DENSITIES[layer + 1] - low) < math.exp(-x):
            return x, words  # under the curve, in the wedge
        layer, x, under, words = _ziggurat_point(words)
        if under:
            return x, words


@numba.njit(inline="always")
def exponential_from_words(
    words: tuple[np.uint64, np.uint64, np.uint64, np.uint64],
) -> tuple[float, tuple[np.uint64, np.uint64, np.uint64, np.uint64]]:
    """A standard exponential variate (mean 1) by the ziggurat: the variate and the words
    after it.

    One 64-bit draw: its low 8 bits pick one of 256 layers of equal area under
    ``exp(-x)``, its top 53 bits a point across the layer; about 97.8% of draws lie under
    the curve with one integer comparison and are returned. The rest take a wedge test,
    the tail or a new try (:func:`_exponential_slow`), so a variate takes one draw of the
    stream or, rarely, more. Exact in distribution (to the 53-bit grid), with no
    logarithm on the common path. Reference: Marsaglia and Tsang, "The ziggurat method
    for generating random variables", J. Stat. Softw. 5(8), 2000.

    Examples
    --------
    >>> state = seed_states(np.uint64(1), 1)
    >>> x, after = exponential_from_words(tuple(state[0]))
    >>> bool(x > 0.0)
    True
    """
    layer, x, under, words = _ziggurat_point(words)
    if under:
        return x, words
    return _exponential_slow(layer, x, words)


@numba.njit(cache=True, nogil=True)
def exponential(state: np.ndarray, row: int) -> float:
    """:func:`exponential_from_words` on row ``row`` of ``state`` (advanced in place)."""
    x, words = exponential_from_words(load_words(state, row))
    store_words(state, row, words)
    return x


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

DURATION_MEASURED = 99
"""The code of a duration drawn evenly from measured ones (see :func:`drawn_duration`)."""


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


@numba.njit(cache=True)
def drawn_duration(code: int, scale: float, shape: float, samples: np.ndarray,
                   u: float) -> float:  # fmt: skip
    """The ``u``-quantile of a duration drawn each time (a restart's load, a save's write):
    of its family (:func:`duration_from_uniform`), or, for :data:`DURATION_MEASURED`, of
    its measured durations ``samples``, each as likely.

    Examples
    --------
    >>> drawn_duration(DURATION_MEASURED, 0.0, 0.0, np.array([1.0, 2.0, 4.0]), 0.5)
    2.0
    >>> round(drawn_duration(DURATION_EXPONENTIAL, 2.0, 1.0, np.zeros(0), 0.5), 4)
    1.3863
    """
    if code == DURATION_MEASURED:
        count = samples.size
        return samples[min(int(u * count), count - 1)]
    return duration_from_uniform(code, scale, shape, u)
