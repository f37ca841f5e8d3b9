"""A fleet of jobs (``[[jobs]]``, issue 36): one job is today's config number for
number; jobs on servers of their own are the single-job runs they are alone, and the
fleet's totals add them; bad fleets exit 2 naming the job and key."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest
from typer.testing import CliRunner

from relplan.analysis.fleet_outcome import job_seed
from relplan.cli.app import app
from relplan.config.fleet_config import parse_fleet
from relplan.config.loading import parse_config, read_toml
from relplan.errors import ConfigError
from relplan.runs.fleet import run_fleet
from relplan.runs.scenarios import run_scenario
from tests.conftest import REPO, z_score

SMALL = read_toml(REPO / "configs" / "small.toml", "CONFIG")
FLEET = REPO / "configs" / "fleets" / "fleet-mix.toml"


def _fleet_document(*jobs: dict, servers: int | None = None) -> dict:
    """configs/small.toml with ``[[jobs]]`` in place of its ``[job]``."""
    document = {key: copy.deepcopy(value) for key, value in SMALL.items() if key != "job"}
    document["jobs"] = [{**copy.deepcopy(SMALL["job"]), **job} for job in jobs]
    if servers is not None:
        document["cluster"]["servers"] = servers
    return document


def _same(a, b) -> bool:
    columns = a.column_names
    return columns == b.column_names and all(
        np.array_equal(a.column(name), b.column(name)) for name in columns)


def test_a_fleet_of_one_job_is_todays_config_number_for_number() -> None:
    fleet = parse_fleet(_fleet_document({"name": "only"}))
    assert fleet.jobs[0].config == parse_config(SMALL)
    alone = run_scenario(parse_config(SMALL), 300, 5, "small")
    assert _same(run_fleet(fleet, 300, 5).results["only"], alone)


def test_jobs_on_servers_of_their_own_are_their_single_job_runs() -> None:
    # the small job (64 servers, 4 spares) and a quarter of it (32 and 2) on 102 servers: each
    # job's trials are exactly its run alone from its own seed, and the fleet's totals
    # add them trial by trial
    fleet = parse_fleet(_fleet_document({"name": "a"}, {"name": "b", "gpus": 256, "spares": 2},
                                        servers=102))
    outcome = run_fleet(fleet, 200, 7)
    for job in fleet.jobs:
        alone = run_scenario(job.config, 200, job_seed(7, job.name), job.name)
        assert _same(outcome.results[job.name], alone)
    a, b = outcome.results["a"], outcome.results["b"]
    frame = outcome.trials_frame()
    assert np.allclose(frame["gpu_hours"], a.column("wall_hours") * 512
                       + b.column("wall_hours") * 256)
    assert np.allclose(frame["gpu_hours_lost"],
                       a.column("gpu_hours_lost") + b.column("gpu_hours_lost"))
    useful = a.column("work_done_hours") * 512 + b.column("work_done_hours") * 256
    assert np.allclose(frame["goodput"], useful / frame["gpu_hours"])
    assert np.allclose(frame["makespan_hours"],
                       np.maximum(a.column("wall_hours"), b.column("wall_hours")))
    # the larger job's share of the lost GPU-hours, by hand
    share = outcome.lost_share_by_size()[0]
    assert share["min_gpus"] == 512 and share["share_of_jobs"] == 0.5
    assert share["share_of_gpu_hours_lost"] == pytest.approx(
        a.column("gpu_hours_lost").mean() / frame["gpu_hours_lost"].mean())


def test_reordering_the_jobs_changes_no_number() -> None:
    jobs = ({"name": "a"}, {"name": "b", "gpus": 256, "spares": 2})
    forward = run_fleet(parse_fleet(_fleet_document(*jobs, servers=102)), 100, 3)
    backward = run_fleet(parse_fleet(_fleet_document(*jobs[::-1], servers=102)), 100, 3)
    for name in ("a", "b"):
        assert _same(forward.results[name], backward.results[name])


def test_a_jobs_key_is_changed_with_jobs_name_key() -> None:
    fleet = parse_fleet(_fleet_document({"name": "a"}, {"name": "b", "gpus": 64}, servers=80),
                        ["jobs.b.checkpoint.interval=2h"])
    assert fleet.job("b").config.job.checkpoint.interval == 2.0
    assert fleet.job("a").config.job.checkpoint.interval == 1.0
    assert [job.first_server for job in fleet.jobs] == [0, 68]


@pytest.mark.parametrize(("jobs", "overrides", "key"), [
    (({"name": "a"}, {"name": "b"}), [], "jobs"),  # 136 servers on 68
    (({"name": "a"}, {"name": "a", "gpus": 8}), [], "jobs.a.name"),
    (({"gpus": 8},), [], "jobs[0].name"),
    (({"name": "a", "priority": -1},), [], "jobs.a.priority"),
    (({"name": "a", "priority": "high"},), [], "jobs.a.priority"),
    (({"name": "a"},), ["jobs.a.gpus=-8"], "jobs.a.gpus"),
    (({"name": "a"},), ["jobs.a.checkpont.interval=1h"], "jobs.a.checkpont"),
    (({"name": "a"},), ["jobs.z.gpus=8"], "jobs.z.gpus"),
])  # fmt: skip
def test_a_bad_fleet_names_the_job_and_key(jobs: tuple, overrides: list[str], key: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_fleet(_fleet_document(*jobs), overrides)
    assert caught.value.key == key


def test_a_job_and_jobs_together_are_refused() -> None:
    document = _fleet_document({"name": "a"})
    document["job"] = copy.deepcopy(SMALL["job"])
    with pytest.raises(ConfigError, match="not both"):
        parse_fleet(document)


def test_simulate_runs_a_fleet_config_from_the_command_line() -> None:
    runner = CliRunner()
    result = runner.invoke(app, ["simulate", str(FLEET), "--trials", "20", "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output)
    assert summary["fleet"]["jobs"] == len(summary["jobs"]) == 13
    assert summary["fleet"]["gpus"] == sum(job["job_gpus"] for job in summary["jobs"].values())
    lost = sum(job["gpu_hours_lost"]["mean"] for job in summary["jobs"].values())
    assert summary["fleet"]["gpu_hours_lost"]["mean"] == pytest.approx(lost)
    table = runner.invoke(app, ["simulate", str(FLEET), "--trials", "20"])
    assert table.exit_code == 0 and "Who loses the GPU-hours" in table.output
    refused = runner.invoke(app, ["simulate", str(FLEET), "--interval", "2h"])
    assert refused.exit_code == 2 and "--interval" in refused.output
    assert "Traceback" not in refused.output
    bad = runner.invoke(app, ["simulate", str(FLEET), "--set", "jobs.pretrain-8k.gpus=99999"])
    assert bad.exit_code == 2 and "jobs" in bad.output and "Traceback" not in bad.output


def test_the_json_page_names_every_key_of_a_fleet() -> None:
    import re

    page = (REPO / "docs" / "reference" / "json.md").read_text()
    section = page.split("## Fleets", 1)[1].split("\n## ", 1)[0]
    documented = {key for line in section.splitlines() if line.startswith("| `")
                  for key in re.findall(r"`([a-z0-9_]+)`", line.split(" | ")[0])}  # fmt: skip
    summary = run_fleet(parse_fleet(_fleet_document({"name": "a"}, {"name": "b", "gpus": 64},
                                                    servers=80)), 10, 0).summary()
    assert set(summary) == {"fleet", "jobs"} and set(summary["fleet"]) == documented
    assert {"priority", "first_server", "goodput", "seed"} <= set(summary["jobs"]["b"])


def test_a_fleets_out_folder_holds_its_files(tmp_path) -> None:
    from relplan.output.fleet_report import FLEET_FILES

    out = tmp_path / "fleet"
    result = CliRunner().invoke(app, ["simulate", str(FLEET), "--trials", "10", "--out",
                                      str(out), "--json"])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in out.iterdir() if not p.name.startswith(".")) == sorted(
        FLEET_FILES)
    assert json.loads((out / "summary.json").read_text()) == json.loads(result.stdout)


# --------------------------------------------------------------- a shared pool and crews

NODES, NODE_MTBF, REPAIR = 16, 2000.0, 48.0  # servers a job, hours, hours


def _pooled(spares: int, crews: int | None = None, jobs: int = 2,
            lifetime: dict | None = None) -> dict:  # fmt: skip
    """``jobs`` jobs of 16 servers whose servers crash every 2,000 h, sharing ``spares``
    spare servers (and ``crews`` repair crews), exponential 48-h repairs, free detection,
    restarts and writes, 20,000 h of work each."""
    job = {"gpus": NODES * 8, "work": "20000h", "restart": "0s",
           "checkpoint": {"interval": "1h", "write": "0s"}}
    document = {
        "cluster": {"servers": jobs * NODES + spares, "gpus_per_server": 8},
        "fleet": {"spares": spares},
        "failures": {"host": {
            "lifetime": lifetime or {"dist": "exponential", "mtbf": f"{NODE_MTBF}h"},
            "repair": {"dist": "exponential", "mean": f"{REPAIR}h"}, "detect": "0s"}},
        "jobs": [{"name": f"job-{k}", **job} for k in range(jobs)],
    }  # fmt: skip
    if crews is not None:
        document["repair"] = {"crews": crews}
    return document


def _waiting_share(spares: int, crews: int) -> float:
    """Two jobs sharing a pool, by hand: the servers in repair are a birth-death chain,
    failing at ``2 m lambda`` while both jobs run (up to ``spares`` in repair), at ``m
    lambda`` while one waits, repaired at ``min(n, crews) mu``; a job waits half the time
    one does and all the time both do."""
    one_job = NODES / NODE_MTBF
    births = [2 * one_job] * (spares + 1) + [one_job]
    weights = [1.0]
    for n in range(1, spares + 3):
        weights.append(weights[-1] * births[n - 1] * REPAIR / min(n, crews))
    total = sum(weights)
    return weights[spares + 1] / total / 2 + weights[spares + 2] / total


@pytest.mark.parametrize(("spares", "crews"), [(1, None), (1, 1), (2, 1)])
def test_jobs_sharing_a_pool_wait_as_the_machine_repair_queue(spares: int,
                                                              crews: int | None) -> None:
    outcome = run_fleet(parse_fleet(_pooled(spares, crews)), 300, 8)
    exact = _waiting_share(spares, crews or spares + 2)
    for result in outcome.results.values():
        waiting = result.column("waiting_hours") / result.column("wall_hours")
        # each trial starts with the pool full: a transient well under 4 SE in 20,000 h
        assert abs(z_score(waiting, exact)) < 4


def test_a_pool_too_large_to_run_dry_is_the_jobs_alone() -> None:
    # 12 shared spares for two jobs almost never run out: each job's goodput is that of
    # the job alone with 12 spares of its own (within 4 SE of the difference)
    together = run_fleet(parse_fleet(_pooled(12)), 200, 9)
    alone = parse_fleet(_pooled(12, jobs=1))
    for name, result in together.results.items():
        single = run_scenario(alone.jobs[0].config, 200, 9, name).column("goodput")
        both = result.column("goodput")
        se = np.sqrt(both.var(ddof=1) / both.size + single.var(ddof=1) / single.size)
        assert abs(both.mean() - single.mean()) < 4 * se


def test_a_one_job_fleet_with_a_pool_is_the_job_with_those_spares() -> None:
    fleet = parse_fleet(_pooled(3, jobs=1))
    assert fleet.jobs[0].config.job.spares == 3 and not fleet.walked_together
    alone = run_scenario(fleet.jobs[0].config, 100, 2, "job-0")
    assert _same(run_fleet(fleet, 100, 2).results["job-0"], alone)


def test_reordering_pooled_jobs_changes_no_number() -> None:
    document = _pooled(1, 1, jobs=3)
    forward = run_fleet(parse_fleet(document), 60, 4)
    document["jobs"] = document["jobs"][::-1]
    backward = run_fleet(parse_fleet(document), 60, 4)
    for name in forward.results:
        assert _same(forward.results[name], backward.results[name])


@pytest.mark.parametrize(("change", "key"), [
    ({"fleet": {"spares": -1}}, "fleet.spares"),
    ({"fleet": {"spares": 1, "crews": 2}}, "fleet.crews"),
    ({"lifetime": {"dist": "weibull", "shape": 1.5, "mtbf": "2000h"}}, "failures.host.lifetime"),
])  # fmt: skip
def test_a_bad_shared_pool_names_its_key(change: dict, key: str) -> None:
    document = _pooled(1, lifetime=change.get("lifetime"))
    if "fleet" in change:
        document["fleet"] = change["fleet"]
    with pytest.raises(ConfigError) as caught:
        run_fleet(parse_fleet(document), 5, 0)
    assert caught.value.key == key


def test_a_pooled_job_has_no_spares_of_its_own() -> None:
    document = _pooled(1)
    document["jobs"][0]["spares"] = 2
    with pytest.raises(ConfigError) as caught:
        parse_fleet(document)
    assert caught.value.key == "jobs.job-0.spares"


@pytest.mark.parametrize("path", sorted((REPO / "configs" / "fleets").glob("*.toml")),
                         ids=lambda p: p.stem)  # fmt: skip
def test_every_shipped_fleet_runs(path) -> None:
    from relplan.config.fleet_config import load_fleet

    outcome = run_fleet(load_fleet(path), 5, 0)
    assert 0.5 < outcome.summary()["fleet"]["goodput"]["mean"] < 1.0


def test_jobs_with_their_own_spares_and_crews_to_spare_are_the_jobs_alone() -> None:
    # shared crews that never run out change no job's odds: each job, walked with the
    # others, has the goodput it has alone (its own 12 spares kept its own)
    document = _pooled(0, 1000)
    del document["fleet"]
    document["cluster"]["servers"] += 24
    for job in document["jobs"]:
        job["spares"] = 12
    together = run_fleet(parse_fleet(document), 200, 10)
    assert parse_fleet(document).walked_together
    alone = parse_fleet({**document, "jobs": document["jobs"][:1]})
    single = run_scenario(alone.jobs[0].config, 200, 10, "alone").column("goodput")
    for result in together.results.values():
        both = result.column("goodput")
        se = np.sqrt(both.var(ddof=1) / both.size + single.var(ddof=1) / single.size)
        assert abs(both.mean() - single.mean()) < 4 * se


def test_fleets_compare_on_common_streams_and_price_by_hand() -> None:
    from relplan.config.fleet_config import load_fleet
    from relplan.runs.fleet_compare import compare_fleets, fleet_hardware_price

    base = load_fleet(FLEET)
    crews = load_fleet(FLEET, ["repair.crews=8"])
    rows = compare_fleets([("base", base), ("same", base), ("8 crews", crews)], 30, 3)[
        "scenarios"]
    assert rows[1]["gpu_hours_saved_vs_first"] == 0.0 and rows[1]["net_value"] == 0.0
    assert rows[2]["goodput"] < rows[0]["goodput"]  # 8 crews for 13 jobs bind
    budget = base.jobs[0].config.budget
    price = fleet_hardware_price(crews, budget)
    assert rows[2]["hardware_charge"] == pytest.approx(
        price * rows[2]["makespan_hours"] / budget.amortization)
    saved = rows[0]["gpu_hours"] - rows[2]["gpu_hours"]
    assert rows[2]["net_value"] == pytest.approx(
        saved * budget.gpu_hour_value
        - (price - rows[0]["hardware_price"]) * rows[2]["makespan_hours"] / budget.amortization)


def test_compare_takes_fleet_configs_from_the_command_line(tmp_path) -> None:
    runner = CliRunner()
    pool = str(REPO / "configs" / "fleets" / "fleet-pool.toml")
    result = runner.invoke(app, ["compare", str(FLEET), pool, "--trials", "10", "--json",
                                 "--out", str(tmp_path / "cmp")])  # fmt: skip
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)["scenarios"]
    assert [row["spares"] for row in rows] == [0, 56] and "net_value" in rows[1]
    assert (tmp_path / "cmp" / "comparison.csv").exists()
    table = runner.invoke(app, ["compare", str(FLEET), "--variant", "8 crews: repair.crews=8",
                                "--trials", "10"])  # fmt: skip
    assert table.exit_code == 0 and "Fleets on common failure streams" in table.output
    for args, named in ((["--dask", "local"], "--dask"),
                        ([str(REPO / "configs" / "small.toml")], "fleet config")):
        refused = runner.invoke(app, ["compare", str(FLEET), *args, "--trials", "5"])
        assert refused.exit_code == 2 and named in refused.output, refused.output
        assert "Traceback" not in refused.output


def test_validate_checks_a_fleet_config() -> None:
    runner = CliRunner()
    result = runner.invoke(app, ["validate", str(FLEET)])
    assert result.exit_code == 0 and "a fleet of 13 jobs on 12,800 GPUs" in result.output
    bad = runner.invoke(app, ["validate", str(FLEET), "--set", "jobs.pretrain-8k.gpus=-8"])
    assert bad.exit_code == 2 and "jobs.pretrain-8k.gpus" in bad.output
    assert "Traceback" not in bad.output


# --------------------------------------------------------------- explicit placement


def test_placed_jobs_keep_their_servers_and_the_others_pack_around_them() -> None:
    # three jobs of 8 servers (64 GPUs) and no spares on 40 servers: b placed at 4, so
    # a (packed first) no longer fits before it and goes after it; c after a
    jobs = [{"name": name, "gpus": 64, "spares": 0} for name in "abc"]
    jobs[1]["first_server"] = 4
    fleet = parse_fleet(_fleet_document(*jobs, servers=40))
    assert {job.name: job.first_server for job in fleet.jobs} == {"a": 12, "b": 4, "c": 20}
    # placement moves no number: each job is still the config it is alone
    unplaced = parse_fleet(_fleet_document(*[{k: v for k, v in job.items()
                                              if k != "first_server"} for job in jobs],
                                           servers=40))  # fmt: skip
    assert [job.config for job in fleet.jobs] == [job.config for job in unplaced.jobs]


@pytest.mark.parametrize(("places", "key", "words"), [
    ({"a": 0, "b": 7}, "jobs.b.first_server", "overlap job a's 0-7"),
    ({"b": 35}, "jobs.b.first_server", "run past the cluster's 40"),
    ({"a": -1}, "jobs.a.first_server", "0 or more"),
    ({"a": 6, "b": 20}, "jobs.c", "no run of 8 free servers"),
])  # fmt: skip
def test_a_bad_placement_names_the_job_and_key(places: dict, key: str, words: str) -> None:
    jobs = [{"name": name, "gpus": 64, "spares": 0, **({"first_server": places[name]}
                                                      if name in places else {})}
            for name in "abc"]  # fmt: skip
    document = _fleet_document(*jobs, servers=40 if "c" not in key else 30)
    with pytest.raises(ConfigError) as caught:
        parse_fleet(document)
    assert caught.value.key == key and words in caught.value.message


def test_validate_refuses_overlapping_placements_with_exit_2() -> None:
    result = CliRunner().invoke(app, ["validate", str(FLEET), "--set",
                                      "jobs.pretrain-8k.first_server=0", "--set",
                                      "jobs.finetune-1k-a.first_server=100"])  # fmt: skip
    assert result.exit_code == 2 and "jobs.finetune-1k-a.first_server" in result.output
    assert "overlap job pretrain-8k" in result.output and "Traceback" not in result.output
