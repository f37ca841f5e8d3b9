"""Per-trial xoshiro256** streams and inversion sampling in compiled code."""

from __future__ import annotations

import numba
import numpy as np
import pytest
from scipy import special, stats

from relplan.sim.rng import (
    ZIGGURAT_AREA,
    ZIGGURAT_LAYERS,
    ZIGGURAT_TAIL,
    duration_code,
    duration_from_uniform,
    exponential,
    normal_ppf,
    seed_states,
    stream_key,
    trial_words,
    uniform,
    ziggurat_tables,
)


@numba.njit(cache=True)
def _draw(state: np.ndarray, row: int, count: int, exponentials: bool = False) -> np.ndarray:
    """``count`` uniforms (or standard exponentials) from row ``row`` of ``state``."""
    out = np.empty(count)
    for i in range(count):
        out[i] = exponential(state, row) if exponentials else uniform(state, row)
    return out


def test_xoshiro_reference_vector() -> None:
    """xoshiro256** from state (1, 2, 3, 4): first output is 11520 (Vigna's reference C code)."""
    from relplan.sim.rng import next_u64

    @numba.njit
    def first(state: np.ndarray) -> np.uint64:
        return next_u64(state, 0)

    state = np.array([[1, 2, 3, 4]], dtype=np.uint64)
    assert int(first(state)) == 11520
    assert int(first(state)) == 0
    assert int(first(state)) == 1509978240


def test_uniforms_are_uniform_and_rows_independent() -> None:
    state = seed_states(np.uint64(42), 2)
    first, second = _draw(state, 0, 50_000), _draw(state, 1, 50_000)
    assert 0.0 < first.min() and first.max() < 1.0
    assert stats.kstest(first, "uniform").pvalue > 1e-3
    assert abs(np.corrcoef(first, second)[0, 1]) < 0.02


@numba.njit(cache=True)
def _words_of(key: np.uint64, trials: int) -> np.ndarray:
    out = np.empty((trials, 4), dtype=np.uint64)
    for trial in range(trials):
        words = trial_words(key, trial)
        for k in range(4):
            out[trial, k] = words[k]
    return out


def test_trial_words_are_splitmix64() -> None:
    """Trial 0 of key 0 starts from SplitMix64's first four outputs from seed 0 (the
    reference C code, splitmix64.c), and the walk's words are seed_states' rows."""
    assert seed_states(np.uint64(0), 1)[0].tolist() == [
        16294208416658607535, 7960286522194355700, 487617019471545679, 17909611376780542444,
    ]
    key = stream_key(np.random.SeedSequence(3))
    assert np.array_equal(_words_of(key, 1000), seed_states(key, 1000))
    assert np.all(seed_states(key, 1000)[:, 0] & np.uint64(1) == 1)  # never all zero


def test_consecutive_trials_streams_are_independent() -> None:
    """The first uniform of each of 20,000 consecutive trials is uniform and uncorrelated
    with the next trial's."""
    state = seed_states(stream_key(np.random.SeedSequence(11)), 20_000)
    first = np.array([_draw(state, row, 1)[0] for row in range(state.shape[0])])
    assert stats.kstest(first, "uniform").pvalue > 1e-3
    assert abs(np.corrcoef(first[:-1], first[1:])[0, 1]) < 4 / np.sqrt(first.size)


def test_ziggurat_layers_have_equal_areas() -> None:
    """Every layer of the table holds the same area under exp(-x), the base with its tail,
    and the top layer ends at density 1."""
    widths, thresholds, densities = ziggurat_tables()
    x = np.append(widths * 2.0**53, 0.0)
    areas = x[1:ZIGGURAT_LAYERS] * (densities[2:] - densities[1:ZIGGURAT_LAYERS])
    assert areas[:-1] == pytest.approx(ZIGGURAT_AREA, rel=1e-9)
    assert x[1] * np.exp(-x[1]) + np.exp(-x[1]) == pytest.approx(ZIGGURAT_AREA, rel=1e-9)
    assert densities[ZIGGURAT_LAYERS - 1] + ZIGGURAT_AREA / x[ZIGGURAT_LAYERS - 1] == (
        pytest.approx(1.0, abs=1e-12))
    assert x[1] == ZIGGURAT_TAIL and thresholds[ZIGGURAT_LAYERS - 1] == 0


def test_ziggurat_exponentials_are_exponential() -> None:
    """Two million draws: the mean and variance within 4 standard errors of 1, the
    Kolmogorov-Smirnov test, a chi-square over 400 bins (the wedges and layer edges), and
    the share beyond the tail's start, exp(-r)."""
    state = seed_states(stream_key(np.random.SeedSequence(5)), 1)
    draws = _draw(state, 0, 2_000_000, exponentials=True)
    n = draws.size
    assert abs(draws.mean() - 1.0) < 4 / np.sqrt(n)
    assert abs(draws.var() - 1.0) < 4 * np.sqrt(8 / n)  # var of (x - 1)^2 is 8
    assert stats.kstest(draws, "expon").pvalue > 1e-3
    edges = np.append(np.linspace(0.0, 10.0, 400), np.inf)
    expected = n * -np.diff(np.exp(-edges))
    observed = np.histogram(draws, edges)[0]
    assert stats.chisquare(observed, expected).pvalue > 1e-3
    tail = np.exp(-ZIGGURAT_TAIL)
    assert abs((draws > ZIGGURAT_TAIL).mean() - tail) < 4 * np.sqrt(tail / n)


def test_rows_depend_only_on_their_seed() -> None:
    a = seed_states(np.uint64(7), 5)
    b = seed_states(np.uint64(7), 9)
    assert np.array_equal(a, b[:5])
    assert not np.array_equal(a, seed_states(np.uint64(8), 5))


@pytest.mark.parametrize("p", [1e-12, 1e-6, 0.001, 0.02, 0.3, 0.5, 0.77, 0.98, 1 - 1e-9])
def test_normal_ppf_matches_scipy(p: float) -> None:
    assert normal_ppf(p) == pytest.approx(special.ndtri(p), rel=1e-12, abs=1e-12)


@pytest.mark.parametrize(
    ("kind", "scale", "shape", "reference"),
    [
        ("exponential", 3.0, 1.0, stats.expon(scale=3.0)),
        ("weibull", 3.0, 0.7, stats.weibull_min(0.7, scale=3.0)),
        ("lognormal", 3.0, 0.8, stats.lognorm(0.8, scale=3.0)),
    ],
)
def test_duration_inversion_matches_scipy_quantiles(kind, scale, shape, reference) -> None:
    for u in (0.01, 0.2, 0.5, 0.9, 0.999):
        got = duration_from_uniform(duration_code(kind), scale, shape, u)
        assert got == pytest.approx(reference.ppf(u), rel=1e-10)
    assert duration_from_uniform(duration_code("fixed"), 4.0, 0.0, 0.3) == 4.0
