"""relplan warmup: it compiles what a config's runs call, so that they compile nothing; a
second warmup has nothing to do; bad input is one error naming the argument."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import relplan
from relplan.cli.app import app
from tests.conftest import CONFIGS, REPO

runner = CliRunner()
SMALL = str(CONFIGS / "small.toml")


def test_a_second_warmup_has_nothing_to_compile() -> None:
    runner.invoke(app, ["warmup", SMALL, "--json"])  # compiles what this cache lacks
    again = runner.invoke(app, ["warmup", SMALL, "--json"])
    assert again.exit_code == 0, again.output
    data = json.loads(again.stdout)
    assert data["compiled_now"] == 0
    assert data["already_compiled"] == len(data["functions"]) >= 4
    assert all(not row["compiled_now"] and row["seconds"] is None for row in data["functions"])
    assert data["configs"] == ["small"]
    walks = [row for row in data["functions"] if row["kind"] in ("walk", "traced walk")]
    assert [row["kind"] for row in walks] == ["walk", "traced walk"]
    assert walks[0]["features"] == ["degradations"]  # small.toml: a spine routed around
    table = runner.invoke(app, ["warmup", SMALL])
    assert "Everything is already compiled" in table.stdout
    assert "degradations" in table.stdout


def test_configs_of_one_feature_set_share_its_walk(tmp_path: Path) -> None:
    """Two configs of the same features are one walk, listed with both."""
    data = relplan.warmup([SMALL, CONFIGS / "llama3-16k.toml"]).summary()
    walk = next(row for row in data["functions"] if row["kind"] == "walk")
    assert walk["configs"] == ["small", "llama3-16k"]
    assert len([row for row in data["functions"] if row["kind"] == "walk"]) == 1


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["no-such.toml"], "CONFIG: no such file: no-such.toml"),
        ([SMALL, "--set", "job.gpus=-1"], "job.gpus:"),
        (["--set", "job.gpus=8"], "--set:"),
    ],
)
def test_bad_input_is_one_error_naming_the_argument(args: list[str], named: str) -> None:
    result = runner.invoke(app, ["warmup", *args])
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {named}"), result.output
    assert "Traceback" not in result.output


def test_the_api_refuses_overrides_without_configs() -> None:
    with pytest.raises(relplan.ConfigError, match="overrides"):
        relplan.warmup(overrides=["job.gpus=8"])


_RUN_AFTER_WARMUP = """
import json, sys
from relplan.config.loading import load_config
from relplan.sim import timeline
from relplan.sim.engine import simulate
from relplan.sim.model import build_model
from relplan.sim.precompile import run_targets
from relplan.sim.trace import trace_trial

model = build_model(load_config(sys.argv[1]))
simulate(model, 50, seed=2)
trace_trial(model, seed=2, trial=7, trials=50)
dispatchers = {id(t.dispatcher): t.dispatcher for t in run_targets(model)}
misses = sum(sum(d.stats.cache_misses.values()) for d in dispatchers.values())
hits = sum(sum(d.stats.cache_hits.values()) for d in dispatchers.values())
print(json.dumps({"misses": misses, "hits": hits}))
"""


@pytest.mark.slow  # compiles the walk, traced and not, from an empty cache (about 30 s)
def test_after_warmup_a_run_and_its_trace_compile_nothing(minimal_config_file: Path,
                                                          tmp_path: Path) -> None:  # fmt: skip
    cache = tmp_path / "numba-cache"
    cache.mkdir()
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
    env.pop("NUMBA_DISABLE_JIT", None)

    def warmup() -> dict:
        done = subprocess.run(
            [sys.executable, "-m", "relplan", "warmup", str(minimal_config_file), "--json"],
            capture_output=True, text=True, env=env, cwd=REPO, check=True, timeout=600,
        )  # fmt: skip
        return json.loads(done.stdout)

    cold = warmup()
    assert cold["compiled_now"] == len(cold["functions"])  # an empty cache: all of them
    assert all(row["seconds"] > 0 for row in cold["functions"])
    assert {row["kind"] for row in cold["functions"]} == {
        "walk", "traced walk", "trace segments"}  # fmt: skip
    run = subprocess.run(
        [sys.executable, "-c", _RUN_AFTER_WARMUP, str(minimal_config_file)],
        capture_output=True, text=True, env=env, cwd=REPO, check=True, timeout=600,
    )  # fmt: skip
    counts = json.loads(run.stdout)
    assert counts["misses"] == 0  # nothing compiled: every call found the cache
    assert counts["hits"] >= 4  # the walk, traced and not, and the others were loaded
    assert "compiling" not in run.stderr
    warm = warmup()
    assert warm["compiled_now"] == 0
    assert warm["already_compiled"] == len(warm["functions"]) == len(cold["functions"])


def test_without_the_source_tree_warmup_asks_for_configs(monkeypatch, tmp_path: Path) -> None:
    import relplan.runs.compile_ahead as warmup

    monkeypatch.setattr(warmup, "SHIPPED_CONFIGS", tmp_path)  # no configs there
    result = runner.invoke(app, ["warmup"])
    assert result.exit_code == 2
    assert result.output.startswith("error: CONFIG: no shipped configs in ")


def test_a_study_warms_its_points_and_a_plan_is_refused() -> None:
    study = REPO / "studies" / "recovery-strategies.toml"
    data = json.loads(runner.invoke(app, ["warmup", str(study), "--json"]).stdout)
    assert data["configs"][0] == "recovery-strategies: restart on a hot spare"
    assert len(data["configs"]) == 4  # the study's four scenarios
    walks = {tuple(row["features"]) for row in data["functions"] if row["kind"] == "walk"}
    assert () in walks  # its failure-free point needs the walk with no feature
    plan = runner.invoke(app, ["warmup", str(REPO / "studies" / "redundancy-plan-seed-moe.toml")])
    assert plan.exit_code == 2
    assert plan.output.startswith("error: CONFIG: ") and "is a plan" in plan.output
