"""Studies and plans whose base is a fleet config (issue 36): each point is the whole
fleet, its numbers those of the fleet run alone, priced as ``compare`` prices fleets."""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from relplan.cli.app import app
from relplan.config.fleet_config import load_fleet
from relplan.config.study import load_study
from relplan.runs.fleet import run_fleet
from relplan.runs.fleet_compare import fleet_cost
from relplan.runs.sweep import run_study
from tests.conftest import REPO

POOL = REPO / "configs" / "fleets" / "fleet-pool.toml"


def _study(tmp_path, axes: str = '"fleet.spares" = [4, 16]') -> str:
    path = tmp_path / "fleet-study.toml"
    path.write_text(f"""
[study]
name = "fleet-study"
question = "How many shared spares?"
base = "{POOL.as_posix()}"
trials = 12
seed = 3
metrics = ["goodput", "wall_hours", "gpu_hours_lost", "interruptions"]
set = ["repair.crews=2"]

[study.axes]
{axes}
""")
    return str(path)


def test_a_fleet_studys_points_are_the_fleets_runs_priced_by_hand(tmp_path) -> None:
    study = load_study(_study(tmp_path))
    assert study.is_fleet
    results = run_study(study, workers=1)
    fleets = [load_fleet(POOL, ["repair.crews=2", f"fleet.spares={n}"]) for n in (4, 16)]
    budget = fleets[0].jobs[0].config.budget
    costs = []
    for fleet, (_, row) in zip(fleets, results.iterrows(), strict=True):
        outcome = run_fleet(fleet, 12, 3)
        summary = outcome.summary()["fleet"]
        assert row["goodput"] == summary["goodput"]["mean"]
        assert row["wall_hours"] == summary["makespan_hours"]["mean"]
        assert row["gpu_hours_lost"] == pytest.approx(summary["gpu_hours_lost"]["mean"])
        interruptions = sum(result.column("interruptions") for result in outcome.results.values())
        assert row["interruptions"] == pytest.approx(np.mean(interruptions))
        assert row["job_gpus"] == fleet.gpus and row["pool_empty_share"] >= 0.0
        costs.append(fleet_cost(fleet, budget, row["wall_hours"], row["gpu_hours"],
                                row["gpu_hours_lost"]))  # fmt: skip
    saved = costs[0].gpu_hours - costs[1].gpu_hours
    extra = (costs[1].hardware_price - costs[0].hardware_price) * results.iloc[1]["wall_hours"]
    assert results.iloc[1]["net_value"] == pytest.approx(
        saved * budget.gpu_hour_value - extra / budget.amortization)
    assert results.iloc[0]["net_value"] == 0.0


def test_a_fleet_study_labels_each_jobs_config() -> None:
    study = load_study(REPO / "studies" / "fleet-spares.toml")
    labelled = study.labelled_configs()
    assert len(labelled) == 13 * len(study.points())
    assert labelled[0][0] == "study point spares=0, crews=1, preempt=never, job pretrain-8k"
    assert study.config(study.points()[0][2]).job.gpus == 8192  # the largest job sizes it


def test_sweep_runs_a_fleet_study_from_the_command_line(tmp_path) -> None:
    result = CliRunner().invoke(app, ["sweep", _study(tmp_path), "--trials", "6", "--json",
                                      "--out", str(tmp_path / "out"), "--workers", "1"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert [row["fleet.spares"] for row in data["results"]] == [4, 16]
    assert (tmp_path / "out" / "sweep.png").exists()
    bad = CliRunner().invoke(app, ["sweep", _study(tmp_path, '"fleet.spares" = [-1]'),
                                   "--trials", "4"])  # fmt: skip
    assert bad.exit_code == 2 and "fleet.spares" in bad.output
    assert "Traceback" not in bad.output


def test_a_fleet_plans_portfolios_are_the_fleets_runs_priced_by_hand() -> None:
    from relplan.config.plan import load_plan
    from relplan.runs.planner import run_plan

    plan = load_plan(REPO / "studies" / "fleet-plan.toml")
    assert plan.is_fleet and plan.base.job.gpus == 12800  # the fleet as one job
    report = run_plan(plan, trials=8, seed=2, workers=1)
    budget = plan.base.budget
    rows = {" + ".join(row["options"]) or "base": row for row in report["portfolios"]}
    runs = {}
    for name, portfolio in (("base", plan.empty()), ("crews: 3", (-1, 0, -1))):
        fleet = plan.fleet(portfolio)
        runs[name] = (run_fleet(fleet, 8, 2).trials_frame(),
                      fleet_cost(fleet, budget, 0.0, 0.0, 0.0).hardware_price)
    frame, price = runs["crews: 3"]
    base_frame, base_price = runs["base"]
    row = rows["crews: 3"]
    assert row["goodput"] == pytest.approx(frame["goodput"].mean(), rel=1e-12)
    assert row["wall_hours"] == pytest.approx(frame["makespan_hours"].mean(), rel=1e-12)
    cost = price + 6e5 - base_price  # the inventory's difference (none) and the crew's price
    assert row["hardware_cost"] == pytest.approx(cost)
    by_hand = ((base_frame["gpu_hours"] - frame["gpu_hours"]) * budget.gpu_hour_value
               - cost * frame["makespan_hours"] / budget.amortization).mean()
    assert row["net_value"] == pytest.approx(by_hand, rel=1e-9)
