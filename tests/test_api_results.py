"""The library a notebook trusts: configs as values, warnings, and one result interface
whose summary() is the command line's --json object."""

from __future__ import annotations

import json
import subprocess
import sys
import warnings
from pathlib import Path

import pydantic
import pytest
from matplotlib.figure import Figure
from typer.testing import CliRunner

import relplan
from relplan.cli.app import app
from relplan.config.study import load_study
from relplan.errors import ConfigError, InfeasibleJobError, RelplanError, RelplanWarning
from tests.conftest import CONFIGS, REPO

SHIPPED = sorted(CONFIGS.glob("*.toml"))
STUDIES = sorted(p for p in (REPO / "studies").glob("*.toml") if "plan" not in p.name)


# -- the config as a value ----------------------------------------------------------------


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_every_shipped_config_reads_back_from_its_toml(path: Path) -> None:
    config = relplan.load_config(path)
    again = relplan.loads_config(config.to_toml())
    assert again == config
    assert again.to_toml() == config.to_toml()


@pytest.mark.parametrize("path", STUDIES, ids=lambda p: p.name)
def test_every_study_point_reads_back_from_its_toml(path: Path) -> None:
    study = load_study(path)
    for _, _, items in study.points():
        config = study.config(items)
        assert relplan.loads_config(config.to_toml()) == config


def test_a_default_stays_a_default_through_with_overrides_and_to_toml() -> None:
    # "every core" for points needs simulation.workers to stay unset (configured_workers)
    from relplan.runs.executor import configured_workers

    config = relplan.load_config(CONFIGS / "small.toml")
    assert configured_workers(config) is None
    assert configured_workers(config.with_overrides(["job.spares=1"])) is None
    assert configured_workers(relplan.loads_config(config.to_toml())) is None
    assert configured_workers(config.with_overrides(["simulation.workers=3"])) == 3


def test_units_are_written_only_into_the_toml_not_into_the_digest() -> None:
    # the config digest hashes model_dump(mode="json"): numbers in hours, as before
    config = relplan.load_config(CONFIGS / "small.toml", ["job.checkpoint.interval=30min"])
    assert config.model_dump(mode="json")["job"]["checkpoint"]["interval"] == 0.5
    assert config.to_document()["job"]["checkpoint"]["interval"] == "30min"  # as given


def test_with_overrides_takes_a_list_or_a_dict_and_leaves_the_config_unchanged() -> None:
    config = relplan.load_config(CONFIGS / "small.toml")
    by_list = config.with_overrides(["job.checkpoint.interval=15min", "job.spares=2"])
    by_dict = config.with_overrides({"job.checkpoint.interval": "15min", "job.spares": 2})
    assert by_list == by_dict
    assert (by_list.job.checkpoint.interval, by_list.job.spares) == (0.25, 2)
    assert config.job.checkpoint.interval == 1.0 and config.job.spares != 2
    assert by_list == relplan.load_config(CONFIGS / "small.toml",
                                          ["job.checkpoint.interval=15min", "job.spares=2"])


def test_a_config_cannot_be_changed_in_place() -> None:
    config = relplan.load_config(CONFIGS / "small.toml")
    with pytest.raises(pydantic.ValidationError):
        config.job.checkpoint.interval = 0.25
    with pytest.raises(pydantic.ValidationError):
        config.job = config.job


@pytest.mark.parametrize("route", ["set", "dict", "model_copy", "simulate"])
def test_a_negative_interval_is_refused_whatever_the_route(route: str) -> None:
    config = relplan.load_config(CONFIGS / "small.toml")
    with pytest.raises(ConfigError) as error:
        if route == "set":
            relplan.load_config(CONFIGS / "small.toml", ["job.checkpoint.interval=-15min"])
        elif route == "dict":
            config.with_overrides({"job.checkpoint.interval": "-15min"})
        elif route == "model_copy":
            checkpoint = config.job.checkpoint.model_copy(update={"interval": -0.25})
            config.model_copy(update={"job": config.job.model_copy(
                update={"checkpoint": checkpoint})})  # fmt: skip
        else:  # a sub-model copied by hand into a config pydantic's copy never validates
            job = config.job.model_copy(update={"checkpoint": config.job.checkpoint.model_copy(
                update={"interval": -0.25})})  # fmt: skip
            unchecked = pydantic.BaseModel.model_copy(config, update={"job": job})
            relplan.simulate(unchecked, trials=10, seed=0)
    assert error.value.key == "job.checkpoint.interval"


def test_simulate_applies_overrides_to_the_config_as_it_is() -> None:
    config = relplan.load_config(CONFIGS / "small.toml")
    checkpoint = config.job.checkpoint.model_copy(update={"interval": 0.25})
    edited = config.model_copy(update={"job": config.job.model_copy(
        update={"checkpoint": checkpoint})})  # fmt: skip
    assert edited.job.checkpoint.interval == 0.25
    result = relplan.simulate(edited, trials=20, seed=0, overrides=["job.spares=2"])
    assert result.model.job.interval_hours == 0.25
    assert result.model.job.interval_hours != config.job.checkpoint.interval


def test_an_unknown_key_suggests_the_nearest() -> None:
    with pytest.raises(ConfigError, match=r"did you mean job\.checkpoint\.interval\?"):
        relplan.load_config(CONFIGS / "small.toml", ["job.checkpoint.intervall=1h"])
    with pytest.raises(ConfigError) as error:
        relplan.load_config(CONFIGS / "small.toml", ["job.zzzzzz=1"])
    assert "did you mean" not in error.value.message


def test_errors_share_one_base_and_warnings_are_user_warnings() -> None:
    assert issubclass(ConfigError, RelplanError) and issubclass(InfeasibleJobError, RelplanError)
    assert issubclass(RelplanWarning, UserWarning)


# -- warnings in the library, printed once by the command line -----------------------------


def test_the_library_gives_the_config_warnings() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        relplan.simulate(CONFIGS / "small.toml", trials=10, seed=0,
                         overrides={"job.checkpoint.write": "2h"})  # fmt: skip
    given = [w for w in caught if issubclass(w.category, RelplanWarning)]
    assert [w.message.key for w in given] == ["job.checkpoint.write"]
    assert given[0].filename == __file__  # the warning names the caller's line


@pytest.mark.slow
def test_the_command_line_prints_each_warning_once() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "relplan", "validate", str(CONFIGS / "small.toml"),
         "--set", "job.checkpoint.write=2h"],
        capture_output=True, text=True, cwd=REPO, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("warning:")]
    assert len(lines) == 1 and lines[0].startswith("warning: job.checkpoint.write: ")


def test_the_memory_check_is_the_librarys() -> None:
    with pytest.raises(ConfigError) as error:
        relplan.simulate(CONFIGS / "small.toml", trials=10**15, seed=0)
    assert error.value.key == "trials" and "memory" in error.value.message


# -- one result interface, the --json object -------------------------------------------------


def _cli_json(*args: str) -> dict:
    done = CliRunner().invoke(app, [*args, "--json"])
    assert done.exit_code == 0, done.output
    return json.loads(done.stdout[done.stdout.index("{"):])


def test_every_summary_has_the_keys_of_the_command_lines_json() -> None:
    small, moe = str(CONFIGS / "small.toml"), str(CONFIGS / "seed-moe-10k.toml")
    lifetimes = str(REPO / "tests" / "data" / "lifetimes.csv")
    pairs = [
        (relplan.simulate(small, trials=40, seed=3),
         _cli_json("simulate", small, "--trials", "40", "--seed", "3")),
        (relplan.optimize_interval(small, trials=20, seed=3),
         _cli_json("optimize", small, "--trials", "20", "--seed", "3")),
        (relplan.compare([small], {"no spares": ["job.spares=0"]}, trials=20, seed=3, workers=1),
         _cli_json("compare", small, "--variant", "no spares: job.spares=0", "--trials", "20",
                   "--seed", "3", "--workers", "1")),
        (relplan.inventory(small), _cli_json("inventory", small)),
        (relplan.baseline(moe), _cli_json("baseline", moe)),
        (relplan.catalog(), _cli_json("catalog")),
        (relplan.fit(lifetimes), _cli_json("fit", lifetimes)),
    ]
    for result, cli in pairs:
        assert set(result.summary()) == set(cli), result.command
    simulated, cli = pairs[0]
    assert simulated.summary()["goodput"] == cli["goodput"]
    assert pairs[2][0].summary()["scenarios"] == pairs[2][1]["scenarios"]


@pytest.mark.slow
def test_a_result_is_short_to_print_draws_on_given_axes_and_writes(tmp_path) -> None:
    result = relplan.simulate(CONFIGS / "small.toml", trials=50, seed=1)
    assert len(repr(result)) < 600 and "goodput" in repr(result)
    assert "<table" in result._repr_html_()
    figure = Figure()
    axes = figure.add_subplot()
    for kind in result.plot_kinds:
        assert result.plot(kind, ax=axes) is figure
    assert isinstance(result.plot(), Figure)
    with pytest.raises(ConfigError, match="kind"):
        result.plot("no-such-figure")
    written = result.write(tmp_path / "sim")
    assert (tmp_path / "sim" / "summary.json") in written
    catalog = relplan.catalog()
    files = catalog.write(tmp_path / "catalog")
    assert json.loads(files[0].read_text()) == catalog.summary()
    assert len(catalog.to_frame()) == len(catalog.summary()["entries"])


def test_the_optimum_draws_on_given_axes() -> None:
    optimum = relplan.optimize_interval(CONFIGS / "small.toml", trials=10, seed=0)
    figure = Figure()
    axes = figure.add_subplot()
    assert optimum.plot(ax=axes) is figure and axes.get_gid() == "goodput"
    assert len(optimum.plot().axes) >= 1


def test_a_comparison_draws_its_scenarios_on_given_axes() -> None:
    result = relplan.compare([CONFIGS / "small.toml"], {"no spares": ["job.spares=0"]},
                             trials=20, seed=0, workers=1)  # fmt: skip
    figure = Figure()
    axes = figure.add_subplot()
    assert result.plot(ax=axes) is figure
    labels = [tick.get_text().split("\n")[0] for tick in axes.get_yticklabels()]
    assert sorted(labels) == ["no spares", "small"]


def test_the_log_functions_give_the_command_lines_objects() -> None:
    """fit (grouped, as a repair), analyze (per server) and replay from Python give the
    --json objects of the same commands, value for value."""
    small = str(CONFIGS / "small.toml")
    incidents = str(REPO / "tests" / "data" / "incidents.csv")
    batches = str(REPO / "tests" / "data" / "lifetimes_batches.csv")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RelplanWarning)
        grouped = relplan.fit(batches, group="batch", as_key="repair")
        replayed = relplan.replay(incidents, small, "2024-01-01", "2025-01-01",
                                  intervals_hours=[0.5, 2.0], samples=40, seed=5)
        analyzed = relplan.analyze(incidents, small, "2024-01-01", "2025-01-01", ids="server")
    assert grouped.summary() == _cli_json("fit", batches, "--group", "batch", "--as", "repair")
    assert replayed.summary() == _cli_json(
        "replay", incidents, "--config", small, "--start", "2024-01-01", "--end", "2025-01-01",
        "--interval", "30min", "--interval", "2h", "--samples", "40", "--seed", "5")
    assert analyzed.summary() == _cli_json(
        "analyze", incidents, "--config", small, "--start", "2024-01-01", "--end",
        "2025-01-01", "--ids", "server")
    assert list(replayed.to_frame()["interval_hours"]) == [0.5, 2.0]
    assert set(grouped.to_frame().index.get_level_values("batch")) == set(
        grouped.summary()["groups"])
    with pytest.raises(ConfigError, match="ids"):
        relplan.analyze(incidents, small, ids="rack")


def test_library_log_warnings_are_relplan_warnings() -> None:
    """A replay leaves out modes it cannot replay and says so as a RelplanWarning."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        relplan.replay(REPO / "tests" / "data" / "incidents.csv", CONFIGS / "small.toml",
                       "2024-01-01", "2025-01-01", samples=10)
    messages = [str(w.message) for w in caught if issubclass(w.category, RelplanWarning)]
    assert any(message.startswith("log_path: not replayed") for message in messages)
