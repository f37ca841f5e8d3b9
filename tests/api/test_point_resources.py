"""compare, run_study and plan from Python take what the command line's --workers,
--dask, --out (its store of finished points) and --fresh give, and set them up as it
does: a store is reused on the second call, a local Dask cluster gives the same numbers,
and neither changes a number."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import relplan
from relplan.cli.app import app
from relplan.errors import RelplanWarning
from relplan.runs.store import STORE_NAME, PointStore
from tests.conftest import CONFIGS, REPO

SMALL = CONFIGS / "small.toml"
STUDY = REPO / "studies" / "recovery-strategies.toml"
PLAN = REPO / "studies" / "redundancy-plan-seed-moe.toml"
VARIANTS = {"no spares": ["job.spares=0"], "restart 5min": ["job.restart=5min"]}


def _compare(**given: Any) -> relplan.CompareResult:
    return relplan.compare([SMALL], VARIANTS, trials=40, seed=4, **given)


def _plan(**given: Any) -> relplan.PlanResult:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RelplanWarning)
        return relplan.plan(PLAN, trials=6, seed=1, **given)


def test_compare_reuses_its_store_on_the_second_call(tmp_path: Path) -> None:
    first = _compare(workers=1, store=tmp_path)
    assert first.reused == 0 and (tmp_path / STORE_NAME).exists()
    again = _compare(workers=1, store=tmp_path)
    assert again.reused == len(again.names) == 3
    assert again.summary() == first.summary()
    assert _compare(workers=1, store=tmp_path, fresh=True).reused == 0


def test_compare_uses_a_store_given_open_and_counts_this_calls_reuse(tmp_path: Path) -> None:
    with PointStore(tmp_path / "mine.sqlite") as store:
        first = _compare(workers=1, store=store)
        assert first.reused == 0 and len(store) == 3
        second = _compare(workers=1, store=store)  # stored by this process: not "reused"
        assert second.summary() == first.summary()
    with PointStore(tmp_path / "mine.sqlite") as store:
        assert _compare(workers=1, store=store).reused == 3
        assert _compare(workers=1, store=store).reused == 0  # counted once per store


def test_compare_on_local_processes_gives_the_same_numbers() -> None:
    assert _compare(workers=2).summary() == _compare(workers=1).summary()


@pytest.mark.slow
def test_compare_on_a_local_dask_cluster_gives_the_same_numbers() -> None:
    here = _compare(workers=1)
    for workers in (1, 2):
        assert _compare(workers=workers, dask="local").summary() == here.summary()


@pytest.mark.slow
def test_compare_on_a_dask_client_given_gives_the_same_numbers() -> None:
    from dask.distributed import Client, LocalCluster

    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                      dashboard_address=None) as cluster, Client(cluster) as client:  # fmt: skip
        on_dask = _compare(dask=client)
        assert client.status == "running"  # left open for the caller
    assert on_dask.summary() == _compare(workers=1).summary()


@pytest.mark.slow
def test_plan_reuses_its_store_and_runs_on_dask_with_the_same_numbers(tmp_path: Path) -> None:
    here = _plan(workers=1)
    stored = _plan(workers=1, store=tmp_path / "plan")
    assert stored.summary() == here.summary() and stored.reused == 0
    again = _plan(workers=1, store=tmp_path / "plan")
    assert again.reused > 0 and again.summary() == here.summary()
    assert _plan(workers=2, dask="local").summary() == here.summary()


@pytest.mark.slow
def test_a_study_reuses_its_store_and_runs_on_dask_with_the_same_numbers(tmp_path: Path) -> None:
    here = relplan.run_study(STUDY, trials=20, workers=1)
    stored = relplan.run_study(STUDY, trials=20, workers=1, store=tmp_path)
    again = relplan.run_study(STUDY, trials=20, workers=1, store=tmp_path)
    assert (stored.reused, again.reused) == (0, len(here.points))
    on_dask = relplan.run_study(STUDY, trials=20, workers=2, dask="local")
    for result in (stored, again, on_dask):
        assert result.summary() == here.summary()


@pytest.mark.slow
def test_a_study_takes_the_command_lines_seed_and_overrides(tmp_path: Path) -> None:
    result = relplan.run_study(STUDY, trials=10, workers=1, seed=7,
                               overrides=["job.restart=5min"])  # fmt: skip
    done = CliRunner().invoke(app, ["sweep", str(STUDY), "--trials", "10", "--workers", "1",
                                    "--seed", "7", "--set", "job.restart=5min", "--json",
                                    "--out", str(tmp_path)])  # fmt: skip
    assert done.exit_code == 0, done.output
    cli = json.loads(done.stdout[done.stdout.index("{"):])
    assert result.summary()["results"] == cli["results"]
    assert result.summary()["provenance"] == cli["provenance"]
    assert result.study.spec.seed == 7
    by_dict = relplan.run_study(STUDY, trials=10, workers=1, seed=7,
                                overrides={"job.restart": "5min"})  # fmt: skip
    assert by_dict.summary()["results"] == cli["results"]
    assert result.summary()["results"] != relplan.run_study(STUDY, trials=10,
                                                            workers=1).summary()["results"]
