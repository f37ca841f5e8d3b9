"""The circular block bootstrap of a failure history: Politis and White's block length
against its closed form for an autoregressive series, longer blocks for bursty failures
than for Poisson ones, and resampled histories that keep the count on average and the
spacing within a block."""

from __future__ import annotations

import math

import numpy as np
import pytest

from relplan.stats.bootstrap import (
    MIN_BINS,
    block_rule,
    circular_block_length,
    resample_histories,
)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_block_length_of_an_autoregressive_series_is_near_its_closed_form(seed: int) -> None:
    # AR(1) with coefficient phi: G / g = 2 phi / (1 - phi^2), so the circular bootstrap's
    # optimal block is (3/2 (G / g)^2)^(1/3) n^(1/3) (Politis and White 2004, with the
    # correction of 2009): 38.9 for phi = 0.8 and n = 2000
    phi, n = 0.8, 2000
    rng = np.random.default_rng(seed)
    noise = rng.normal(size=n)
    series = np.zeros(n)
    for index in range(1, n):
        series[index] = phi * series[index - 1] + noise[index]
    ratio = 2 * phi / (1 - phi * phi)
    exact = (1.5 * ratio * ratio) ** (1 / 3) * n ** (1 / 3)
    assert circular_block_length(series) == pytest.approx(exact, rel=0.35)
    assert circular_block_length(noise) < 3


def test_a_constant_series_gets_blocks_of_one() -> None:
    assert circular_block_length(np.ones(50)) == 1.0


def test_bursty_failures_get_longer_blocks_than_poisson_ones() -> None:
    # 300 failures over 3,000 h: uniform, or in bursts that spread over several bins
    # (each burst's failures a few tens of hours apart)
    rng = np.random.default_rng(3)
    window = 3000.0
    poisson = np.sort(rng.uniform(0.0, window, 300))
    centres = rng.uniform(0.0, window - 100.0, 30)
    bursty = np.sort((centres[:, None] + rng.uniform(0.0, 100.0, (30, 10))).ravel())
    calm, clustered = block_rule(poisson, window), block_rule(bursty, window)
    assert calm.bins == clustered.bins == 300 and calm.bin_hours == pytest.approx(10.0)
    assert calm.block_bins < 2.5
    assert clustered.block_bins > 2 * calm.block_bins
    assert block_rule(np.array([5.0]), 100.0).bins == MIN_BINS  # a short log: ten bins


def test_resampled_histories_keep_the_count_on_average_and_the_spacing_in_a_block() -> None:
    rng = np.random.default_rng(4)
    window = 1000.0
    history = np.sort(rng.uniform(0.0, window, 50))
    made = resample_histories(history, window, 40.0, 4000, np.random.default_rng(5))
    counts = made.counts
    # 25 blocks of 40 h fill the window exactly: on average every failure once
    assert abs(counts.mean() - 50) < 4 * counts.std() / math.sqrt(counts.size)
    assert counts.std() == pytest.approx(math.sqrt(50), rel=0.25)  # about Poisson
    for row in range(20):
        offsets = made.offsets_hours[row, made.active[row]]
        assert np.all(np.diff(offsets) >= 0) and offsets.max(initial=0) < window
        # a failure and the next, copied from one block, keep the log's spacing
        source = made.source[row, made.active[row]]
        same_block = np.floor(offsets[1:] / 40.0) == np.floor(offsets[:-1] / 40.0)
        gaps = np.diff(offsets)[same_block]
        original = ((history[source[1:]] - history[source[:-1]]) % window)[same_block]
        assert gaps == pytest.approx(original)
