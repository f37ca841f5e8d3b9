"""Summaries, DataFrames and atomic files."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from relplan.analysis.results import SimulationResult, summarize
from relplan.output.files import write_atomic, write_text_atomic
from relplan.sim.engine import simulate
from relplan.vocab import BUCKETS


def test_summarize_by_hand() -> None:
    data = np.arange(1.0, 101.0)  # 1..100
    summary = summarize(data)
    assert summary["mean"] == 50.5
    assert summary["std"] == pytest.approx(np.sqrt(np.sum((data - 50.5) ** 2) / 99))
    half_width = 1.959963984540054 * summary["std"] / 10.0
    assert summary["ci95"] == pytest.approx([50.5 - half_width, 50.5 + half_width])
    assert summary["p50"] == 50.5
    assert summary["p5"] == pytest.approx(5.95)
    assert summary["p99"] == pytest.approx(99.01)


def test_ci_covers_the_truth_about_95_percent_of_the_time() -> None:
    rng = np.random.default_rng(0)
    covered = 0
    for _ in range(400):
        low, high = summarize(rng.exponential(2.0, 400))["ci95"]
        covered += low <= 2.0 <= high
    # binomial(400, 0.95): sd 4.4; allow 4 sd
    assert abs(covered - 380) < 18


def test_frames_agree_with_the_outcomes(minimal_model) -> None:
    outcomes = simulate(minimal_model, trials=300, seed=1)
    result = SimulationResult(minimal_model, outcomes, seed=1, config_name="minimal")
    frame = result.trials_frame()
    assert len(frame) == 300
    assert np.allclose(frame["goodput"], minimal_model.job.work_hours / frame["wall_hours"])
    assert np.allclose(frame["gpu_hours_lost"], frame["lost_hours"] * 1024)
    bucket_columns = [f"{bucket}_hours" for bucket in BUCKETS if bucket != "useful"]
    assert np.allclose(frame[bucket_columns].sum(axis=1), frame["lost_hours"])
    assert np.allclose(frame["work_done_hours"], minimal_model.job.work_hours)
    assert np.allclose(frame["restart_init_hours"] + frame["restart_load_hours"],
                       frame["restart_hours"])  # fmt: skip
    summary = result.summary()
    assert summary["interruptions"]["mean"] == pytest.approx(frame["interruptions"].mean())
    tidy = result.summary_frame()
    row = tidy[(tidy.metric == "wall_hours") & (tidy.statistic == "p95")]
    assert row.value.iloc[0] == pytest.approx(np.percentile(frame["wall_hours"], 95))


def test_atomic_write_leaves_nothing_half_written(tmp_path: Path) -> None:
    target = tmp_path / "summary.json"
    write_text_atomic(target, "old")

    def broken(temporary: Path) -> None:
        temporary.write_text("half")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        write_atomic(target, broken)
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["summary.json"]
