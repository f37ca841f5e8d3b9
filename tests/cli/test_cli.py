"""The command line: JSON contract, files, determinism, and exit code 2 on bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from relplan.cli.app import app
from tests.conftest import CONFIGS

runner = CliRunner()
SUMMARY_KEYS = ("mean", "std", "ci95", "p5", "p50", "p95", "p99")


def _run(*args: str):
    return runner.invoke(app, list(args))


def test_simulate_json_holds_the_contract(minimal_config_file: Path) -> None:
    result = _run("simulate", str(minimal_config_file), "--trials", "300", "--seed", "3", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["trials"] == 300
    assert data["seed"] == 3
    assert data["interval_hours"] == 1.0
    for metric in ("wall_hours", "goodput", "lost_hours", "interruptions"):
        assert set(SUMMARY_KEYS) <= set(data[metric])
        low, high = data[metric]["ci95"]
        assert low <= data[metric]["mean"] <= high
    assert set(data["lost_hours_breakdown"]) == {
        "rework",
        "checkpoint",
        "detect",
        "restart",
        "waiting",
        "degraded",
        "stall",
        "maintenance",
        "overhead",
    }
    assert sum(data["lost_hours_breakdown"].values()) == pytest.approx(
        data["lost_hours"]["mean"], rel=1e-9
    )
    assert set(data["interruptions_by_class"]) == {"gpu"}
    assert 0 < data["goodput"]["mean"] < 1


def test_same_seed_same_bytes(minimal_config_file: Path) -> None:
    args = ("simulate", str(minimal_config_file), "--trials", "20500", "--seed", "8", "--json")
    first, second = _run(*args), _run(*args)
    assert first.exit_code == 0
    assert first.stdout == second.stdout
    more_workers = _run(*args, "--workers", "2")
    assert more_workers.stdout == first.stdout
    other_seed = _run(
        "simulate", str(minimal_config_file), "--trials", "20500", "--seed", "9", "--json"
    )
    assert other_seed.stdout != first.stdout


def test_interval_and_set_override(minimal_config_file: Path) -> None:
    result = _run(
        "simulate",
        str(minimal_config_file),
        "--trials",
        "50",
        "--json",
        "--interval",
        "45min",
        "--set",
        "job.work=10d",
        "--set",
        "job.restart=5min",
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["interval_hours"] == 0.75
    assert data["work_hours"] == 240.0
    assert data["restart_hours"] == pytest.approx(5 / 60)


@pytest.mark.slow
def test_out_writes_three_files(minimal_config_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    result = _run("simulate", str(minimal_config_file), "--trials", "200", "--out", str(out))
    assert result.exit_code == 0, result.output
    trials = pd.read_parquet(out / "trials.parquet")
    assert len(trials) == 200
    assert {"wall_hours", "goodput", "rework_hours", "failures_gpu"} <= set(trials.columns)
    summary = pd.read_csv(out / "summary.csv")
    assert set(summary.columns) == {"metric", "statistic", "value"}
    saved = json.loads((out / "summary.json").read_text())
    assert saved["trials"] == 200
    assert saved["wall_hours"]["mean"] == pytest.approx(trials["wall_hours"].mean())
    assert not list(out.glob(".*tmp"))


def test_simulate_table_shows_the_summary(minimal_config_file: Path) -> None:
    result = _run("simulate", str(minimal_config_file), "--trials", "100")
    assert result.exit_code == 0, result.output
    for words in ("goodput", "lost hours", "rework", "waiting", "gpu", "P95"):
        assert words in result.stdout


def test_inventory_json(minimal_config_file: Path) -> None:
    result = _run("inventory", str(minimal_config_file), "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["components"]["gpu"] == {"cluster_units": 1024, "job_units": 1024}
    assert data["failure_modes"]["gpu"]["job_units"] == 1024
    assert data["job_mtti_hours"] == pytest.approx(5 * 8766 / 1024)
    table = _run("inventory", str(minimal_config_file))
    assert table.exit_code == 0 and "mean time to interruption" in table.stdout


def test_validate(minimal_config_file: Path) -> None:
    result = _run("validate", str(minimal_config_file))
    assert result.exit_code == 0
    assert "ok" in result.stdout


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("--trials", "0"), "--trials"),
        (("--interval", "45"), "--interval"),
        (("--interval", "-5min"), "--interval"),
        (("--set", "job.colour=red"), "job.colour"),
        (("--set", "failures.gpu.lifetime.mtbf=-1y"), "failures.gpu.lifetime.mtbf"),
        (("--set", "job.gpus=100000"), "job.gpus"),
        (("--set", "job.restart=20d"), "job"),
    ],
)
def test_bad_arguments_exit_2_with_one_message(
    minimal_config_file: Path, args: tuple[str, ...], words: str
) -> None:
    result = _run("simulate", str(minimal_config_file), *args)
    assert result.exit_code == 2
    assert words in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize("command", ["simulate", "inventory", "validate"])
def test_missing_and_malformed_files_exit_2(tmp_path: Path, command: str) -> None:
    missing = _run(command, str(tmp_path / "missing.toml"))
    assert missing.exit_code == 2 and "no such file" in missing.output
    bad = tmp_path / "bad.toml"
    bad.write_text("cluster = [\n")
    malformed = _run(command, str(bad))
    assert malformed.exit_code == 2 and "not valid TOML" in malformed.output


@pytest.mark.slow  # a simulation in a fresh interpreter
def test_module_entry_point_in_a_real_process(tmp_path: Path) -> None:
    """``python -m relplan`` works, and errors carry no traceback on stderr."""
    ok = subprocess.run(
        [
            sys.executable,
            "-m",
            "relplan",
            "simulate",
            str(CONFIGS / "small.toml"),
            "--trials",
            "100",
            "--json",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["trials"] == 100
    bad = subprocess.run(
        [
            sys.executable,
            "-m",
            "relplan",
            "simulate",
            str(CONFIGS / "small.toml"),
            "--set",
            "job.work=3",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert bad.returncode == 2
    assert "job.work" in bad.stderr and "Traceback" not in bad.stderr
    assert bad.stderr.strip().count("\n") <= 2


def test_optimize_json_and_files(tmp_path: Path) -> None:
    out = tmp_path / "opt"
    result = _run("optimize", str(CONFIGS / "small.toml"), "--trials", "200", "--json",
                  "--out", str(out))
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    for key in ("young_hours", "daly_hours", "mc_optimal_hours", "mc_optimal_ci95",
                "goodput_at_optimal", "p95_optimal_hours", "curve"):
        assert key in data
    low, high = data["mc_optimal_ci95"]
    assert low <= data["mc_optimal_hours"] <= high
    assert len(data["curve"]["interval_hours"]) >= 15
    assert (out / "goodput-vs-interval.png").stat().st_size > 1000
    assert (out / "curve.csv").exists() and (out / "optimize.json").exists()


def test_compare_on_common_streams() -> None:
    result = _run("compare", str(CONFIGS / "small.toml"), str(CONFIGS / "small.toml"),
                  "--trials", "100", "--json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)["scenarios"]
    assert rows[0]["goodput"] == rows[1]["goodput"]  # same seed, same streams
    assert rows[1]["gpu_hours_saved_vs_first"] == 0.0


@pytest.mark.slow
def test_validate_warns_when_a_design_does_not_fit_its_switches() -> None:
    """The seed MoE's 1:1 leaf of 10 eight-NIC servers needs 160 ports of a 128-port switch."""
    result = runner.invoke(app, ["validate", str(CONFIGS / "seed-moe-10k.toml")])
    assert result.exit_code == 0
    assert "warning: port budget: leaf: needs 160 ports (80 down + 80 up) but has 128: short " \
           "by 32" in result.stderr  # fmt: skip
    assert result.stdout.startswith("ok:")
    strict = runner.invoke(app, ["validate", str(CONFIGS / "seed-moe-10k.toml"), "--strict"])
    assert strict.exit_code == 1
    assert "short by 32" in strict.stderr


def test_validate_strict_passes_a_design_that_fits() -> None:
    result = runner.invoke(app, ["validate", str(CONFIGS / "small.toml"), "--strict"])
    assert result.exit_code == 0, result.output
    assert "warning" not in result.stderr


@pytest.mark.parametrize("command", ["simulate", "optimize", "compare", "sweep"])
def test_help_keeps_bracketed_words_and_names_its_metavars(command: str) -> None:
    """Rich markup ate '[default: from the config]' and showed a type tag on every option."""
    result = runner.invoke(app, [command, "--help"], env={"COLUMNS": "80"})
    assert result.exit_code == 0
    assert "--trials N" in result.output
    assert "<int" not in result.output and "<bool>" not in result.output
    if command != "sweep":
        assert "[default: from the config]" in result.output
    assert max(len(line) for line in result.output.splitlines()) <= 80
