"""A simulation's frames and atomic files."""

from __future__ import annotations

from dataclasses import replace
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


# Each of Google's ml-goodput-measurement BadputType names (lower-cased) with the
# relplan hours it holds, written out by hand from the two vocabularies' definitions
# rather than read from relplan.vocab.ML_GOODPUT_BADPUT, so that a bucket moved to
# another name there fails here.
BADPUT_BY_HAND = {
    "unproductive_checkpoint_save_time": lambda h: h["checkpoint"],
    "unproductive_checkpoint_restore_time": lambda h: h["restart"] - h["restart_init"],
    "program_startup": lambda h: h["restart_init"],
    "wasted_progress_from_disruption": lambda h: h["rework"] + h["stall"],
    "infrastructure_recovery_from_disruption": lambda h: h["detect"] + h["waiting"],
    "other": lambda h: h["degraded"] + h["maintenance"] + h["overhead"],
}


def test_each_badput_name_holds_its_own_hours(minimal_model) -> None:
    # One trial whose lost buckets are distinct powers of two (no sum of some equals
    # another), 3/16 of its restart being start-up: each name's hours identify which
    # buckets it holds.
    outcomes = simulate(minimal_model, trials=1, seed=1)
    hours = {bucket: float(2 ** index) for index, bucket in enumerate(BUCKETS)}
    hours["useful"] = 1000.0
    hours["restart_init"] = hours["restart"] * 3 / 16
    bucket_hours = np.array([[hours[bucket] for bucket in BUCKETS]])
    outcomes = replace(outcomes, bucket_hours=bucket_hours,
                       wall_hours=bucket_hours.sum(axis=1),
                       restart_init_hours=np.array([hours["restart_init"]]))  # fmt: skip
    result = SimulationResult(minimal_model, outcomes, seed=1, config_name="minimal")
    badput = result.summary()["badput_ml_goodput"]
    assert set(badput) == set(BADPUT_BY_HAND)
    for name, by_hand in BADPUT_BY_HAND.items():
        assert badput[name] == by_hand(hours), name
    # every lost hour under exactly one name
    assert sum(badput.values()) == sum(hours[b] for b in BUCKETS if b != "useful")
