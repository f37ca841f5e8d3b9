"""The bad tail of goodput, its P5, shows in every table that ranks scenarios or points."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from relplan.cli.app import app
from tests.conftest import CONFIGS, REPO

runner = CliRunner()
SMALL = str(CONFIGS / "small.toml")


@pytest.mark.slow
def test_compare_shows_the_p5_of_goodput() -> None:
    args = ["compare", SMALL, "--variant", "no spares: job.spares=0", "--trials", "40"]
    table = runner.invoke(app, args)
    data = json.loads(runner.invoke(app, [*args, "--json"]).stdout)
    assert table.exit_code == 0, table.output
    assert "P5" in table.stdout  # the header may wrap: "goodput" over "P5"
    for row in data["scenarios"]:
        assert row["goodput_p5"] <= row["goodput"]
        assert f"{row['goodput_p5']:.4f}" in table.stdout


@pytest.mark.slow
def test_sweep_shows_the_p5_of_goodput(tmp_path) -> None:
    study = REPO / "studies" / "recovery-strategies.toml"
    result = runner.invoke(app, ["sweep", str(study), "--trials", "20", "--set",
                                 "job.work=5d", "--out", str(tmp_path)])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "P5" in result.stdout

