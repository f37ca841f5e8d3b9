"""A simulation's frames and atomic files."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from relplan.analysis.results import SimulationResult
from relplan.output.files import write_atomic, write_text_atomic
from relplan.sim.engine import simulate
from relplan.vocab import BUCKETS


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
