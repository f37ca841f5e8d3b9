"""Config keys of lemon units and imperfect repair: the model they build,
one error naming the key for each mistake (exit 2), and the per-unit columns of simulate."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from typer.testing import CliRunner

from relplan.cli.app import app
from relplan.config.loading import parse_config
from relplan.sim import distributions
from relplan.sim.model import DEFAULT_REFAIL, UnitHistory, build_model
from tests.conftest import assert_refused

runner = CliRunner()
SMALL = Path(__file__).resolve().parents[2] / "configs" / "small.toml"


def test_the_keys_build_the_unit_history(minimal_raw: dict[str, Any]) -> None:
    minimal_raw["failures"]["gpu"].update({
        "lemons": {"share": "15%", "factor": 5},
        "repair_success": "80%",
        "refail": {"dist": "exponential", "mean": "30min"},
        "retire_after": 3,
    })  # fmt: skip
    mode = build_model(parse_config(minimal_raw)).modes[0]
    assert mode.history == UnitHistory(lemon_share=0.15, lemon_factor=5.0, repair_success=0.8,
                                       refail=distributions.exponential(0.5), retire_after=3)


def test_refail_defaults_to_one_hour_and_plain_modes_have_no_history(
    minimal_raw: dict[str, Any],
) -> None:
    assert build_model(parse_config(minimal_raw)).modes[0].history is None
    minimal_raw["failures"]["gpu"]["repair_success"] = 0.7
    history = build_model(parse_config(minimal_raw)).modes[0].history
    assert history == UnitHistory(repair_success=0.7)
    assert history.refail == DEFAULT_REFAIL == distributions.fixed(1.0)


@pytest.mark.parametrize(
    ("key", "value", "named", "words"),
    [
        ("lemons", {"share": "150%", "factor": 10}, "lemons.share", "less than or equal to 1"),
        ("lemons", {"share": -0.1, "factor": 10}, "lemons.share", "greater than or equal to 0"),
        ("lemons", {"share": "5%", "factor": 0.5}, "lemons.factor", "greater than or equal to 1"),
        ("lemons", {"share": "5%"}, "lemons.factor", "missing"),
        ("lemons", {"share": "5%", "factor": 10, "colour": 1}, "lemons.colour", "unknown key"),
        ("repair_success", 0, "repair_success", "greater than 0"),
        ("repair_success", "120%", "repair_success", "less than or equal to 1"),
        ("retire_after", 0, "retire_after", "greater than or equal to 1"),
        ("retire_after", 2.5, "retire_after", "valid integer"),
        ("refail", {"dist": "fixed", "mean": "1h"}, "refail", "needs 'repair_success'"),
    ],
)  # fmt: skip
def test_a_bad_value_names_its_key(
    minimal_raw: dict[str, Any], key: str, value: Any, named: str, words: str
) -> None:
    minimal_raw["failures"]["gpu"][key] = value
    assert_refused(minimal_raw, key=f"failures.gpu.{named}", words=words)


@pytest.mark.parametrize(
    ("override", "key"),
    [
        ('failures.gpu.lemons={ share = "150%", factor = 10 }', "failures.gpu.lemons.share"),
        ('failures.gpu.lemons={ share = "5%", factor = 0.5 }', "failures.gpu.lemons.factor"),
        ('failures.gpu.repair_success="0%"', "failures.gpu.repair_success"),
        ("failures.gpu.retire_after=0", "failures.gpu.retire_after"),
    ],
)
def test_the_command_line_exits_2_with_one_line_naming_the_key(override: str, key: str) -> None:
    result = runner.invoke(app, ["simulate", str(SMALL), "--trials", "2", "--set", override])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert len(result.stderr.splitlines()) == 1
    assert result.stderr.startswith(f"error: {key}: "), result.stderr


@pytest.mark.slow
def test_simulate_writes_the_per_unit_columns(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = runner.invoke(app, [
        "simulate", str(SMALL), "--trials", "300", "--out", str(out),
        "--set", 'failures.gpu.lemons={ share = "15%", factor = 5 }',
        "--set", 'failures.gpu.repair_success="70%"',
        "--set", "failures.gpu.retire_after=3",
    ])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "Failures per unit" in result.stdout
    trials = pd.read_parquet(out / "trials.parquet")
    for column in ("repeat_units", "max_failures_per_unit", "units_failed_gpu",
                   "repeat_units_gpu", "max_failures_per_unit_gpu", "retired_units_gpu"):
        assert column in trials.columns, column
    assert "units_failed_hbm" not in trials.columns
    assert trials["max_failures_per_unit_gpu"].max() <= 3  # retired at the third
    assert (trials["units_failed_gpu"] + trials["repeat_units_gpu"]
            <= trials["failures_gpu"]).all()  # fmt: skip
    assert trials["repeat_units"].sum() > 0
    summary = json.loads((out / "summary.json").read_text())
    gpu = summary["unit_failures_by_class"]["gpu"]
    assert set(gpu) >= {"units_failed", "repeat_units", "max_failures_per_unit",
                        "retired_units", "failures_per_failed_unit",
                        "trials_with_repeat_units"}  # fmt: skip
    assert gpu["failures_per_failed_unit"] > 1
    assert "Failures per unit" in (out / "report.md").read_text()


def test_a_config_without_the_keys_has_no_per_unit_summary() -> None:
    result = runner.invoke(app, ["simulate", str(SMALL), "--trials", "50", "--json"])
    assert result.exit_code == 0, result.output
    assert "unit_failures_by_class" not in json.loads(result.stdout)
