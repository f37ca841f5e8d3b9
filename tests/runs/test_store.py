"""The store of finished points: reuse, --fresh, and a sweep killed with SIGKILL that
resumes to exactly the results of an uninterrupted run."""

from __future__ import annotations

import re
import signal
import sqlite3
import subprocess
import sys
import time

import pandas as pd
import pytest

from relplan.runs.store import STORE_NAME, PointStore, point_key
from tests.conftest import CONFIGS

STUDY = """\
[study]
name = "killed"
question = "Which interval?"
base = "{base}"
trials = 1500
seed = 4
metrics = ["goodput", "wall_hours"]
axes = {{ "job.checkpoint.interval" = ["20min", "30min", "40min", "50min", "1h", "70min",
                                       "80min", "90min", "100min", "2h", "3h", "4h"] }}
"""


def test_points_are_stored_and_reused(tmp_path) -> None:
    path = tmp_path / STORE_NAME
    key = point_key("ab" * 32, 0, 10, "sweep")
    with PointStore(path) as store:
        assert store.get(key) is None
        store.put(key, {"goodput": 0.5, "label": "x"})
    with PointStore(path) as store:
        assert store.get(key) == {"goodput": 0.5, "label": "x"}
        assert store.reused == 1 and len(store) == 1
    with PointStore(path, fresh=True) as store:
        assert store.get(key) is None and len(store) == 0
    assert point_key("ab" * 32, 0, 11, "sweep") != key


def test_points_of_an_older_engine_are_not_reused(tmp_path, monkeypatch) -> None:
    """A point stored before the engine's numbers moved (NUMBERS_VERSION) is computed
    again: its key differs."""
    from relplan.runs import store as store_module

    old = point_key("ab" * 32, 0, 10, "sweep")
    with PointStore(tmp_path / STORE_NAME) as store:
        store.put(old, {"goodput": 0.5})
    monkeypatch.setattr(store_module, "NUMBERS_VERSION", store_module.NUMBERS_VERSION + 1)
    new = point_key("ab" * 32, 0, 10, "sweep")
    assert new != old
    with PointStore(tmp_path / STORE_NAME) as store:
        assert store.get(new) is None and store.get(old) == {"goodput": 0.5}


def _stored(path) -> int:
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as connection:
            return int(connection.execute("SELECT COUNT(*) FROM points").fetchone()[0])
    except sqlite3.Error:
        return 0


def _sweep(study, out, *extra: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "relplan", "sweep", str(study), "--out",
                             str(out), *extra], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)  # fmt: skip


@pytest.mark.slow  # a sweep on processes, killed and run again (about 130 s under load)
def test_a_sweep_killed_with_sigkill_resumes_to_the_uninterrupted_results(tmp_path) -> None:
    study = tmp_path / "study.toml"
    study.write_text(STUDY.format(base=CONFIGS / "seed-moe-10k.toml"))
    killed = tmp_path / "killed"
    process = _sweep(study, killed)
    deadline = time.monotonic() + 300  # a hang guard, not a speed check
    while _stored(killed / STORE_NAME) < 2 and process.poll() is None:
        assert time.monotonic() < deadline
        time.sleep(0.02)
    if process.poll() is not None:
        pytest.fail("the sweep finished before it could be killed: make its points slower")
    process.send_signal(signal.SIGKILL)
    process.wait()
    assert process.returncode == -signal.SIGKILL
    kept = _stored(killed / STORE_NAME)  # readable, with every committed point
    assert 2 <= kept < 12
    resumed = _sweep(study, killed)
    _, stderr = resumed.communicate(timeout=600)
    assert resumed.returncode == 0, stderr
    reused = re.search(r"reused (\d+) of 12 points", stderr)
    assert reused is not None and int(reused.group(1)) == kept  # none computed twice
    assert _stored(killed / STORE_NAME) == 12
    whole = tmp_path / "whole"
    uninterrupted = _sweep(study, whole)
    _, stderr = uninterrupted.communicate(timeout=600)
    assert uninterrupted.returncode == 0, stderr
    assert "reused" not in stderr
    pd.testing.assert_frame_equal(pd.read_parquet(killed / "results.parquet"),
                                  pd.read_parquet(whole / "results.parquet"))  # fmt: skip
    # --fresh ignores the store: everything is computed again
    again = _sweep(study, killed, "--fresh", "--trials", "50")
    _, stderr = again.communicate(timeout=600)
    assert again.returncode == 0 and "reused" not in stderr


@pytest.mark.slow
def test_compare_reuses_its_stored_scenarios(tmp_path) -> None:
    """compare --out stores each scenario; a rerun reuses them all and prints the same
    comparison; a changed budget is a different point."""
    import json

    from typer.testing import CliRunner

    from relplan.cli.app import app

    runner = CliRunner()
    args = ["compare", str(CONFIGS / "small.toml"), "--variant", "no spares: job.spares=0",
            "--trials", "30", "--json", "--out", str(tmp_path)]
    first, again = runner.invoke(app, args), runner.invoke(app, args)
    assert first.exit_code == again.exit_code == 0, again.output
    assert "reused" not in first.stderr and "reused 2 of 2 scenarios" in again.stderr
    assert json.loads(again.stdout)["scenarios"] == json.loads(first.stdout)["scenarios"]
    priced = runner.invoke(app, [*args, "--set", "budget.gpu_hour_value=5"])
    assert priced.exit_code == 0 and "reused" not in priced.stderr
