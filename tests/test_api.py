"""The Python API gives the command line's numbers, as objects with summary() and to_frame()."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

import relplan
from relplan.cli.app import app
from relplan.errors import ConfigError
from tests.conftest import CONFIGS, REPO


def test_simulate_matches_the_command_line_json() -> None:
    path = CONFIGS / "small.toml"
    result = relplan.simulate(path, trials=300, seed=4)
    cli = CliRunner().invoke(app, ["simulate", str(path), "--trials", "300", "--seed", "4",
                                   "--json"])  # fmt: skip
    assert cli.exit_code == 0, cli.output
    assert json.loads(cli.output)["goodput"] == result.summary()["goodput"]
    frame = result.to_frame()
    assert len(frame) == 300
    assert frame["goodput"].mean() == pytest.approx(result.summary()["goodput"]["mean"])


def test_simulate_takes_a_loaded_config_and_overrides() -> None:
    config = relplan.load_config(CONFIGS / "small.toml")
    by_path = relplan.simulate(CONFIGS / "small.toml", trials=100, seed=2,
                               overrides=["job.restart=5min"])  # fmt: skip
    by_object = relplan.simulate(config, trials=100, seed=2, overrides=["job.restart=5min"])
    assert by_object.summary()["wall_hours"] == by_path.summary()["wall_hours"]
    assert by_object.summary()["restart_hours"] == pytest.approx(5 / 60)


def test_simulate_defaults_come_from_the_config() -> None:
    config = relplan.load_config(CONFIGS / "small.toml",
                                 ["simulation.trials=37", "simulation.seed=3"])  # fmt: skip
    summary = relplan.simulate(config).summary()
    assert (summary["trials"], summary["seed"]) == (37, 3)


def test_bad_input_raises_config_error_naming_the_key() -> None:
    with pytest.raises(ConfigError) as error:
        relplan.load_config(CONFIGS / "small.toml", ["job.gpus=-1"])
    assert error.value.key == "job.gpus"


def test_optimize_interval_result_has_summary_and_frame() -> None:
    optimum = relplan.optimize_interval(CONFIGS / "small.toml", trials=60, seed=0)
    summary = optimum.summary()
    assert summary["young_hours"] > 0 and summary["daly_hours"] > 0
    frame = optimum.to_frame()
    assert frame["interval_hours"].is_monotonic_increasing
    assert frame["interval_hours"].min() <= summary["mc_optimal_hours"]
    assert summary["mc_optimal_hours"] <= frame["interval_hours"].max()


@pytest.mark.slow
def test_run_study_gives_every_point_and_writes_its_report(tmp_path) -> None:
    result = relplan.run_study(REPO / "studies" / "recovery-strategies.toml", trials=40)
    frame = result.to_frame()
    # summary() is the sweep command's --json object: its points are the "results"
    assert len(result.summary()["results"]) == len(frame) >= 2
    assert result.summary()["answer"]
    written = result.write(tmp_path)
    assert (tmp_path / "report.html") in written and (tmp_path / "report.html").stat().st_size


def test_unknown_attribute_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError):
        relplan.no_such_function  # noqa: B018
