"""Every command's result is a frozen dataclass of its own: typed, documented attributes
that agree with its summary(), a figure for every command (on the axes given), files
written as one run, a short repr, an HTML view, and a pickle that gives it back."""

from __future__ import annotations

import dataclasses
import inspect
import json
import pickle
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from matplotlib.figure import Figure

import relplan
from relplan.api.result import REPR_LIMIT, Result
from relplan.errors import ConfigError, RelplanWarning
from tests.conftest import CONFIGS, REPO

SMALL, MOE = CONFIGS / "small.toml", CONFIGS / "seed-moe-10k.toml"
DATA = REPO / "tests" / "data"
WINDOW = ("2024-01-01", "2025-01-01")


def _quietly(run: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RelplanWarning)
        return run()


FAST: dict[str, Any] = {
    "simulate": lambda: relplan.simulate(SMALL, trials=60, seed=2),
    "optimize": lambda: relplan.optimize_interval(SMALL, trials=10, seed=2),
    "compare": lambda: relplan.compare([SMALL], {"no spares": ["job.spares=0"]}, trials=30,
                                       seed=2, workers=1),
    "inventory": lambda: relplan.inventory(MOE),
    "baseline": lambda: relplan.baseline(MOE),
    "check": lambda: relplan.check(MOE),
    "catalog": relplan.catalog,
    "warmup": lambda: relplan.warmup([SMALL]),
    "fit": lambda: relplan.fit(DATA / "lifetimes.csv"),
    "fit-grouped": lambda: relplan.fit(DATA / "lifetimes_batches.csv", group="batch"),
    "analyze": lambda: relplan.analyze(DATA / "incidents.csv", SMALL, *WINDOW),
    "replay": lambda: relplan.replay(DATA / "incidents.csv", SMALL, *WINDOW,
                                     intervals_hours=[0.5, 1.0, 4.0], samples=20, seed=1),
}
"""A quick call of every command but sweep and plan (those are in the slow test)."""

CLASSES = [relplan.SimulateResult, relplan.OptimizeResult, relplan.CompareResult,
           relplan.StudyResult, relplan.PlanResult, relplan.CheckResult,
           relplan.InventoryResult, relplan.BaselineResult, relplan.CatalogResult,
           relplan.WarmupResult, relplan.FitResult, relplan.AnalyzeResult,
           relplan.ReplayResult]  # fmt: skip


@pytest.fixture(scope="module")
def results() -> dict[str, Result]:
    return {name: _quietly(run) for name, run in FAST.items()}


def test_every_command_has_a_class_of_its_own() -> None:
    commands = [cls.command for cls in CLASSES]
    assert len(set(commands)) == len(CLASSES) == 13
    for cls in CLASSES:
        assert issubclass(cls, Result) and dataclasses.is_dataclass(cls)
        assert cls.__dataclass_params__.frozen
        assert cls.figures, f"{cls.__name__} has no figure"


@pytest.mark.parametrize("cls", CLASSES, ids=lambda cls: cls.__name__)
def test_every_attribute_is_typed_documented_and_in_dir(cls: type) -> None:
    documented = inspect.getdoc(cls) or ""
    for field in dataclasses.fields(cls):
        assert field.type not in ("Any", "object", ""), f"{cls.__name__}.{field.name} untyped"
        assert f"{field.name} :" in documented, f"{cls.__name__}.{field.name} undocumented"
    for name, member in inspect.getmembers(cls, lambda m: isinstance(m, property)):
        if not name.startswith("_"):
            assert member.__doc__, f"{cls.__name__}.{name} undocumented"
            returns = inspect.signature(member.fget).return_annotation
            assert returns is not inspect.Signature.empty, f"{cls.__name__}.{name} untyped"


def test_a_result_cannot_be_changed_and_has_no_untyped_door(results) -> None:
    result = results["simulate"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.simulation = None  # type: ignore[misc]
    with pytest.raises(AttributeError):
        result.no_such_attribute  # noqa: B018
    assert {"goodput", "wall_hours", "model", "trials", "seed"} <= set(dir(result))


@pytest.mark.parametrize("name", FAST)
def test_a_result_pickles_and_comes_back_whole(results, name: str) -> None:
    result = results[name]
    result.to_frame()  # the tables built from the data stay out of the pickle
    back = pickle.loads(pickle.dumps(result))
    assert type(back) is type(result)
    assert back.summary() == result.summary()
    assert back.to_frame().equals(result.to_frame())
    assert repr(back) == repr(result)


def test_a_simulations_pickle_is_the_size_of_its_trials() -> None:
    result = relplan.simulate(SMALL, trials=2000, seed=1)
    result.to_frame(), result.summary()
    arrays = sum(value.nbytes for value in vars(result.simulation.outcomes).values()
                 if isinstance(value, np.ndarray))  # fmt: skip
    assert len(pickle.dumps(result)) < 1.2 * arrays + 64_000


@pytest.mark.parametrize("name", FAST)
def test_every_figure_draws_alone_and_on_given_axes(results, name: str) -> None:
    result = results[name]
    assert result.plot_kinds
    for kind in result.plot_kinds:
        figure = Figure()
        axes = figure.add_subplot()
        assert result.plot(kind, ax=axes) is figure
        assert axes.has_data()
        assert axes.get_xlabel() or axes.get_ylabel(), f"{name} {kind}: no axis label"
    drawn = result.plot()
    assert isinstance(drawn, Figure) and drawn.axes
    with pytest.raises(ConfigError) as caught:
        result.plot("no-such-figure")
    assert caught.value.key == "kind" and result.plot_kinds[0] in caught.value.message


@pytest.mark.parametrize("name", FAST)
def test_a_result_is_short_to_print_and_shows_a_table(results, name: str) -> None:
    result = results[name]
    assert repr(result).startswith(f"<relplan {result.command}: ")
    assert len(repr(result)) <= REPR_LIMIT
    assert "<table" in result._repr_html_()


def test_the_typed_attributes_are_the_summarys_numbers(results) -> None:
    simulated = results["simulate"].summary()
    result = results["simulate"]
    assert result.goodput.mean == simulated["goodput"]["mean"]
    assert list(result.goodput.ci95) == simulated["goodput"]["ci95"]
    assert result.wall_hours.percentiles["p95"] == simulated["wall_hours"]["p95"]
    assert result.lost_hours_breakdown == simulated["lost_hours_breakdown"]
    assert (result.trials, result.seed) == (simulated["trials"], simulated["seed"])
    optimum = results["optimize"]
    summary = optimum.summary()
    for key in ("young_hours", "daly_hours", "exact_hours", "mc_optimal_hours",
                "p95_optimal_hours"):
        assert getattr(optimum, key) == summary[key], key
    assert list(optimum.mc_optimal_ci95) == summary["mc_optimal_ci95"]
    compared = results["compare"]
    assert compared.names == [row["scenario"] for row in compared.summary()["scenarios"]]
    assert compared.goodput[compared.best] == max(compared.goodput.values())
    inventory = results["inventory"]
    assert inventory.units == {cls: entry["job_units"]
                               for cls, entry in inventory.summary()["components"].items()}
    assert sum(inventory.failure_share.values()) == pytest.approx(1.0)
    check = results["check"]
    assert [dataclasses.asdict(tier) for tier in check.port_budget] == [
        {key: row[key] for key in dataclasses.asdict(tier)}
        for tier, row in zip(check.port_budget, inventory.summary()["port_budget"],
                             strict=True)]  # fmt: skip
    baseline = results["baseline"]
    assert baseline.step_time_s == baseline.summary()["baseline"]["step_time_s"]
    assert set(baseline.to_frame().index) == set(baseline.summary()["baseline"]["dimensions"])
    fitted = results["fit"]
    assert fitted.best == fitted.summary()["best"] and fitted.config == fitted.summary()["config"]
    assert results["fit-grouped"].best == {name: group["best"] for name, group in
                                           results["fit-grouped"].summary()["groups"].items()}
    analyzed = results["analyze"]
    assert analyzed.counts == {name: entry["count"]
                               for name, entry in analyzed.summary()["categories"].items()}
    replayed = results["replay"]
    means = {entry["interval_hours"]: entry["goodput"]["mean"]
             for entry in replayed.summary()["intervals"]}  # fmt: skip
    assert replayed.goodput == means
    assert replayed.best_interval_hours == max(means, key=means.get)
    frame = replayed.to_frame()
    assert (frame["goodput_ci95_low"] <= frame["goodput"]).all()
    warmed = results["warmup"]
    assert warmed.compiled_now + warmed.already_compiled == len(warmed.summary()["functions"])
    assert len(results["catalog"].entries) == len(results["catalog"].summary()["entries"])


def test_a_summary_is_a_new_copy_each_call(results) -> None:
    result = results["inventory"]
    result.summary()["job_servers"] = -1
    assert result.summary()["job_servers"] == result.job_servers > 0


@pytest.mark.parametrize("name", [pytest.param("inventory", marks=pytest.mark.slow),
                                  pytest.param("catalog", marks=pytest.mark.slow),
                                  "fit", "replay"])  # fmt: skip
def test_a_command_without_out_writes_its_summary_frame_and_figures(results, name: str,
                                                                   tmp_path: Path) -> None:
    result = results[name]
    written = result.write(tmp_path / name)
    command = result.command
    assert json.loads((tmp_path / name / f"{command}.json").read_text()) == result.summary()
    for kind in result.plot_kinds:
        assert tmp_path / name / f"{command}-{kind}.png" in written
    assert all(path.exists() and path.stat().st_size for path in written)
    rows = (tmp_path / name / f"{command}.csv").read_text().splitlines()
    assert len(rows) == len(result.to_frame()) + 1


@pytest.mark.slow
def test_write_replaces_the_previous_run_and_refuses_a_file(results, tmp_path: Path) -> None:
    folder = tmp_path / "out"
    results["compare"].write(folder)
    assert (folder / "comparison.json").exists()
    results["catalog"].write(folder)  # the previous run's files go with it
    assert not (folder / "comparison.json").exists() and (folder / "catalog.json").exists()
    (tmp_path / "a-file").write_text("")
    with pytest.raises(ConfigError) as caught:
        results["catalog"].write(tmp_path / "a-file")
    assert caught.value.key == "directory"


@pytest.mark.slow
def test_sweep_and_plan_results_pickle_draw_and_write(tmp_path: Path) -> None:
    study = relplan.run_study(REPO / "studies" / "recovery-strategies.toml", trials=20,
                              workers=1)  # fmt: skip
    plan = _quietly(lambda: relplan.plan(REPO / "studies" / "redundancy-plan-seed-moe.toml",
                                         trials=10, workers=1))
    assert study.plot_kinds == [*study.metrics, "lost-hours-by-point"]
    assert plan.plot_kinds[:2] == ["frontier", "attribution"]
    for result in (study, plan):
        back = pickle.loads(pickle.dumps(result))
        assert back.summary() == result.summary()
        for kind in result.plot_kinds:
            figure = Figure()
            assert result.plot(kind, ax=figure.add_subplot()) is figure
        written = result.write(tmp_path / result.command)
        assert tmp_path / result.command / "report.html" in written
    document = json.loads((tmp_path / "plan" / "plan.json").read_text())
    assert all(Path(path).parent == tmp_path / "plan" for path in document["files"])
    assert plan.best["options"] == plan.summary()["best"]["options"]
    assert study.answer == study.summary()["answer"]
