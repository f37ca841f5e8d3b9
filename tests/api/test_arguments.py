"""One argument check for the whole API (relplan.api.arguments.RunArguments): a wrong
argument is one ConfigError naming it, raised before any work, from every function that
takes it; a whole number of numpy's is a whole number."""

from __future__ import annotations

import time
import warnings
from typing import Any

import numpy as np
import pytest

import relplan
from relplan.api.arguments import RunArguments
from relplan.errors import ConfigError
from relplan.runs.store import STORE_NAME, PointStore
from tests.conftest import CONFIGS, REPO

SMALL = CONFIGS / "small.toml"
INCIDENTS = REPO / "tests" / "data" / "incidents.csv"

RUNS: dict[str, Any] = {
    "simulate": lambda **given: relplan.simulate(SMALL, **given),
    "optimize_interval": lambda **given: relplan.optimize_interval(SMALL, **given),
    "compare": lambda **given: relplan.compare([SMALL], {"no spares": ["job.spares=0"]},
                                               **given),
    "run_study": lambda **given: relplan.run_study(REPO / "studies" / "recovery-strategies.toml",
                                                   **given),
    "plan": lambda **given: relplan.plan(REPO / "studies" / "redundancy-plan-seed-moe.toml",
                                         **given),
}
"""Every function that runs the Monte Carlo engine, with trials, seed and workers."""

BAD = [
    ("trials", 0, "at least 1"),
    ("trials", -5, "at least 1"),
    ("trials", "100", "not a str"),
    ("trials", 2.5, "not a float"),
    ("trials", True, "not a bool"),
    ("seed", -1, "at least 0"),
    ("seed", "0", "not a str"),
    ("workers", 0, "at least 1"),
    ("workers", 1.0, "not a float"),
]


@pytest.mark.parametrize("function", RUNS)
@pytest.mark.parametrize(("argument", "value", "says"), BAD,
                         ids=[f"{a}={v!r}" for a, v, _ in BAD])  # fmt: skip
def test_a_wrong_monte_carlo_argument_is_one_error_naming_it(function: str, argument: str,
                                                              value: Any, says: str) -> None:
    started = time.perf_counter()
    with pytest.raises(ConfigError) as caught:
        RUNS[function](**{argument: value})
    assert caught.value.key == argument
    assert says in caught.value.message
    assert time.perf_counter() - started < 1.0  # refused before any work


@pytest.mark.parametrize("function", ["compare", "run_study", "plan"])
@pytest.mark.parametrize(("argument", "value"), [
    ("dask", 3), ("dask", ""), ("store", 5), ("fresh", "yes"), ("fresh", True),
    ("overrides", "job.spares=2"), ("overrides", [1]), ("overrides", {1: 2}),
])  # fmt: skip
def test_a_wrong_run_argument_is_one_error_naming_it(function: str, argument: str,
                                                     value: Any) -> None:
    with pytest.raises(ConfigError) as caught:
        RUNS[function](**{argument: value})
    assert caught.value.key == argument


def test_fresh_needs_a_store_given_as_a_path(tmp_path) -> None:
    with PointStore(tmp_path / STORE_NAME) as store:
        with pytest.raises(ConfigError) as caught:
            RunArguments(store=store, fresh=True)
    assert caught.value.key == "fresh"
    assert RunArguments(store=tmp_path, fresh=True).store == tmp_path / STORE_NAME


@pytest.mark.parametrize(("given", "expected"), [
    ("out/study", "out/study/points.sqlite"),  # a folder, as --out keeps it
    ("out/runs.sqlite", "out/runs.sqlite"),  # the file itself
])  # fmt: skip
def test_a_store_path_is_a_folder_or_the_file(given: str, expected: str) -> None:
    assert RunArguments(store=given).store.as_posix() == expected


def test_an_existing_folder_holds_the_store(tmp_path) -> None:
    folder = tmp_path / "with.dot"
    folder.mkdir()
    assert RunArguments(store=folder).store == folder / STORE_NAME


def test_a_bad_dask_address_names_dask_not_the_command_lines_option() -> None:
    with pytest.raises(ConfigError) as caught:
        relplan.compare([SMALL], {"no spares": ["job.spares=0"]}, trials=10,
                        dask="tcp://127.0.0.1:1")  # fmt: skip
    assert caught.value.key == "dask"


def test_a_numpy_whole_number_is_a_whole_number() -> None:
    by_numpy = relplan.simulate(SMALL, trials=np.int64(20), seed=np.uint32(3),
                                workers=np.int32(1))  # fmt: skip
    by_int = relplan.simulate(SMALL, trials=20, seed=3, workers=1)
    assert by_numpy.summary() == by_int.summary()
    assert type(by_numpy.trials) is int


@pytest.mark.parametrize(("argument", "value"), [("samples", 0), ("samples", "50"),
                                                 ("seed", -1)])  # fmt: skip
def test_replay_checks_its_samples_and_seed(argument: str, value: Any) -> None:
    with pytest.raises(ConfigError) as caught:
        relplan.replay(INCIDENTS, SMALL, "2024-01-01", "2025-01-01", **{argument: value})
    assert caught.value.key == argument


@pytest.mark.parametrize("value", [[0.0], [-1.0], ["1h"], 1.0, [float("nan")]])
def test_replay_checks_its_intervals(value: Any) -> None:
    with pytest.raises(ConfigError) as caught:
        relplan.replay(INCIDENTS, SMALL, "2024-01-01", "2025-01-01", intervals_hours=value)
    assert caught.value.key == "intervals_hours"


@pytest.mark.parametrize("function", ["check", "inventory", "baseline"])
def test_a_config_of_the_wrong_type_and_bad_overrides_are_named(function: str) -> None:
    with pytest.raises(ConfigError) as caught:
        getattr(relplan, function)(42)
    assert caught.value.key == "config"
    with pytest.raises(ConfigError) as caught:
        getattr(relplan, function)(SMALL, "job.spares=2")
    assert caught.value.key == "overrides"


def test_compare_needs_a_list_of_configs_and_a_second_scenario() -> None:
    for configs, variants, key in ((str(SMALL), None, "configs"), ([], None, "configs"),
                                   ([SMALL], None, "variants"),
                                   ([SMALL], ["job.spares=0"], "variants")):  # fmt: skip
        with pytest.raises(ConfigError) as caught:
            relplan.compare(configs, variants, trials=10)
        assert caught.value.key == key


def test_a_loaded_study_takes_no_seed_or_overrides() -> None:
    from relplan.config.study import load_study

    study = load_study(REPO / "studies" / "recovery-strategies.toml")
    for argument, value in (("seed", 3), ("overrides", ["job.spares=2"])):
        with pytest.raises(ConfigError) as caught:
            relplan.run_study(study, trials=10, **{argument: value})
        assert caught.value.key == argument


def test_the_old_dask_address_still_works_and_says_so() -> None:
    with pytest.warns(DeprecationWarning, match="dask="), pytest.raises(ConfigError) as caught:
        relplan.run_study(REPO / "studies" / "recovery-strategies.toml", trials=10,
                          dask_address="tcp://127.0.0.1:1")  # fmt: skip
    assert caught.value.key == "dask"


def test_warnings_still_name_the_callers_line() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        relplan.simulate(SMALL, trials=10, seed=0, overrides={"job.checkpoint.write": "2h"})
    assert [w.filename for w in caught if issubclass(w.category, relplan.RelplanWarning)] == [
        __file__]
