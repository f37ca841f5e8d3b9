"""Memory bounded by a budget, not by trials: compact per-trial outcomes
gathered block by block, blocks sized by the events a trial holds, and the per-trial table
written a piece at a time; none of it changes a number."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

from relplan.analysis.results import SimulationResult
from relplan.config.loading import load_config
from relplan.output import files
from relplan.sim import distributions, engine
from relplan.sim.engine import (
    BLOCK_TRIALS,
    block_seed,
    block_sizes,
    block_trials,
    collect_outcomes,
    narrow_counts,
    simulate,
    simulate_block,
    window_events_per_trial,
)
from relplan.sim.model import UnitHistory, build_model
from tests.conftest import REPO, make_model

exp = distributions.exponential
SHIPPED = sorted((REPO / "configs").glob("*.toml"))
JOB = {"work": 300.0, "interval": 2.0, "write": 0.1, "restart": 0.2}


def _lemon_model():
    """A job with a mode whose units have a history (drawn in windows, tallied per unit)."""
    history = UnitHistory(lemon_share=0.1, lemon_factor=5.0, repair_success=0.8,
                          refail=distributions.fixed(1.0))  # fmt: skip
    return make_model(**JOB, modes=[
        {"units": 300, "lifetime": exp(3000.0), "history": history},
        {"units": 50, "lifetime": distributions.weibull(0.7, 4000.0)},
        {"units": 20, "lifetime": exp(5000.0)},
    ])  # fmt: skip


def _int64_counts(outcomes: engine.TrialOutcomes) -> engine.TrialOutcomes:
    """The same outcomes with every count widened to int64 (as they used to be kept)."""
    return dataclasses.replace(outcomes, **{
        name: getattr(outcomes, name).astype(np.int64)
        for name in ("maintenances", "failures_by_mode", "interruptions_by_mode",
                     "spares_used", "unit_stats")
    })  # fmt: skip


def test_counts_take_the_smallest_integer_type_that_holds_them() -> None:
    assert narrow_counts(np.array([0, 127])).dtype == np.int8
    assert narrow_counts(np.array([-128, 3])).dtype == np.int8
    assert narrow_counts(np.array([128])).dtype == np.int16
    assert narrow_counts(np.array([-129])).dtype == np.int16
    assert narrow_counts(np.array([32_768])).dtype == np.int32
    assert narrow_counts(np.array([2**31])).dtype == np.int64
    assert narrow_counts(np.zeros((0, 3), dtype=np.int64)).dtype == np.int8
    assert narrow_counts(np.array([[1, 300], [2, 3]])).tolist() == [[1, 300], [2, 3]]


def test_blocks_are_gathered_in_order_and_counts_widen_when_a_later_block_needs_it() -> None:
    model = make_model(**JOB, modes=[{"units": 100, "lifetime": exp(2000.0)}])
    first = simulate_block(model, 7, block_seed(1, 0))
    second = simulate_block(model, 5, block_seed(1, 1))
    big = dataclasses.replace(second, failures_by_mode=second.failures_by_mode + 1000)
    joined = collect_outcomes(iter([first, big]), 12)
    assert joined.failures_by_mode.dtype == np.int16  # 1000 and more: int8 is too small
    assert joined.failures_by_mode.tolist() == np.concatenate(
        [first.failures_by_mode, big.failures_by_mode]).tolist()  # fmt: skip
    assert np.array_equal(joined.wall_hours, np.concatenate([first.wall_hours,
                                                             big.wall_hours]))  # fmt: skip
    assert joined.wall_hours.dtype == np.float64 and joined.bucket_hours.dtype == np.float64
    with pytest.raises(ValueError, match="hold 12 trials, not 13"):
        collect_outcomes(iter([first, big]), 13)


@pytest.mark.parametrize("config", SHIPPED, ids=lambda p: p.stem)
def test_shipped_configs_keep_the_canonical_block_unless_their_trials_hold_many_events(
    config,
) -> None:
    """Configs without pre-drawn failures keep the 10,000-trial blocks they always had (and
    their numbers); AIReSim's scenario, about 22,000 pre-drawn failures a trial, gets
    blocks of 50 trials (2,000,000 / 22,000 = 90, rounded down to 1, 2 or 5 x 10^k)."""
    model = build_model(load_config(config))
    events = window_events_per_trial(model)
    if events == 0:
        assert block_trials(model) == BLOCK_TRIALS
    else:
        assert config.stem == "airesim-default"
        assert 20_000 < events < 25_000
        assert block_trials(model) == 50


def test_a_model_whose_trials_hold_many_events_gets_smaller_blocks(monkeypatch) -> None:
    model = _lemon_model()
    events = window_events_per_trial(model)
    # by hand: the windowed modes (the lemons' and the Weibull one) over 1.2 x the
    # first window; a block of 10,000 trials would hold 10,000 x events
    assert events > 0
    monkeypatch.setattr(engine, "BLOCK_EVENTS", 100 * events)
    assert block_trials(model) == 100
    monkeypatch.setattr(engine, "BLOCK_EVENTS", 7.5 * events)
    assert block_trials(model) == 5  # 1, 2 or 5 times a power of ten, at most 7.5
    monkeypatch.setattr(engine, "BLOCK_EVENTS", 0.5 * events)
    assert block_trials(model) == 1
    monkeypatch.setattr(engine, "BLOCK_EVENTS", 10 * BLOCK_TRIALS * events)
    assert block_trials(model) == BLOCK_TRIALS


def test_small_blocks_are_canonical_blocks_whatever_the_workers(monkeypatch) -> None:
    model = _lemon_model()
    monkeypatch.setattr(engine, "BLOCK_EVENTS", 20 * window_events_per_trial(model))
    assert block_trials(model) == 20
    one = simulate(model, 50, seed=8, workers=1)
    two = simulate(model, 50, seed=8, workers=2)
    blocks = [simulate_block(model, size, block_seed(8, index))
              for index, size in enumerate(block_sizes(50, 20))]  # fmt: skip
    assert [b.trials for b in blocks] == [20, 20, 10]
    for name in ("wall_hours", "bucket_hours", "failures_by_mode", "unit_stats"):
        assert np.array_equal(getattr(one, name), getattr(two, name))
        assert np.array_equal(getattr(one, name),
                              np.concatenate([getattr(b, name) for b in blocks]))  # fmt: skip


def _result(model, trials: int, seed: int = 2) -> SimulationResult:
    return SimulationResult(model=model, outcomes=simulate(model, trials, seed), seed=seed,
                            config_name="memory")  # fmt: skip


def test_compact_counts_change_no_number_of_the_summary_or_the_table() -> None:
    model = _lemon_model()
    compact = _result(model, 300)
    assert compact.outcomes.failures_by_mode.dtype.itemsize < 8
    wide = dataclasses.replace(compact, outcomes=_int64_counts(compact.outcomes))
    assert compact.summary() == wide.summary()  # exactly: same values, same order
    pd.testing.assert_frame_equal(compact.trials_frame(), wide.trials_frame())
    assert compact.trials_frame()["failures"].dtype == np.int64


def test_trials_parquet_written_piece_by_piece_is_the_per_trial_table(
    tmp_path, monkeypatch
) -> None:
    result = _result(_lemon_model(), 23)
    monkeypatch.setattr(files, "PARQUET_ROWS", 5)
    files.write_result_files(result, tmp_path)
    path = tmp_path / "trials.parquet"
    assert pq.ParquetFile(path).metadata.num_row_groups == math.ceil(23 / 5)
    pd.testing.assert_frame_equal(pd.read_parquet(path), result.trials_frame())
    assert pq.read_schema(path).metadata[b"trials"] == b"23"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no temp


def test_a_column_made_for_some_trials_is_that_part_of_the_whole_column() -> None:
    result = _result(_lemon_model(), 40)
    for name in result.column_names:
        whole = result.column(name)
        assert np.array_equal(result.column(name, slice(10, 25)), whole[10:25]), name
    with pytest.raises(KeyError):
        result.column("no_such_column")


def test_the_trace_of_a_trial_in_a_small_block_is_that_trial(monkeypatch) -> None:
    """The timeline of ``simulate --out`` re-runs the trial's own block: with blocks of 20
    trials, trial 47 is trial 7 of block 2."""
    from relplan.sim.trace import trace_trial

    model = _lemon_model()
    monkeypatch.setattr(engine, "BLOCK_EVENTS", 20 * window_events_per_trial(model))
    outcomes = simulate(model, 50, seed=8)
    for trial in (3, 47):
        intervals, failures = trace_trial(model, seed=8, trial=trial, trials=50)
        assert intervals.end_hours.max() == pytest.approx(outcomes.wall_hours[trial])
        assert len(failures) == outcomes.failures_by_mode[trial].sum()
