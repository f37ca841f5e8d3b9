"""Spot capacity priced (``budget.spot_discount`` with ``[preemption]``): ``compare`` and
``plan`` weigh the discount against the time preemptions cost, to the cent."""

from __future__ import annotations

import pytest

from relplan.config.loading import load_config
from relplan.config.plan import load_plan
from relplan.runs.compare import ScenarioSpec, compare_scenarios, parse_variant
from relplan.runs.planner import run_plan
from tests.conftest import CONFIGS

SMALL = CONFIGS / "small.toml"
SPOT = 'preemption={ every = "40h", notice = "2min", save_on_notice = 0.5 }'


def test_a_spot_run_pays_its_gpu_hours_at_the_discount_to_the_cent() -> None:
    settings = ['budget.spot_discount="70%"']
    scenarios = [ScenarioSpec(SMALL, tuple(settings)),
                 parse_variant(f"spot: {SPOT}", SMALL, settings)]
    first, spot = compare_scenarios(scenarios, trials=40, seed=2, workers=1)["scenarios"]
    budget = load_config(SMALL).budget
    gpus = load_config(SMALL).job.gpus
    assert spot["wall_hours"] > first["wall_hours"]  # preemptions cost time...
    assert spot["gpu_hours_saved"] == pytest.approx(
        (first["wall_hours"] - spot["wall_hours"]) * gpus)  # ...and GPU-hours
    paid = first["wall_hours"] * gpus - spot["wall_hours"] * gpus * 0.3
    assert spot["paid_gpu_hours_saved"] == pytest.approx(paid)
    assert abs(spot["net_value"] - paid * budget.gpu_hour_value) < 0.005  # same hardware
    assert spot["net_value"] > 0  # at 70% off, spot pays despite the lost time
    assert "paid_gpu_hours_saved" not in first


def test_without_a_discount_spot_only_costs_time() -> None:
    scenarios = [ScenarioSpec(SMALL, ()), parse_variant(f"spot: {SPOT}", SMALL, [])]
    _, spot = compare_scenarios(scenarios, trials=40, seed=2, workers=1)["scenarios"]
    assert spot["net_value"] < 0
    assert "paid_gpu_hours_saved" not in spot  # a spot discount of 0 bills as on-demand


def test_plan_weighs_a_spot_option_by_its_discount(tmp_path) -> None:
    plan_file = tmp_path / "spot.toml"
    plan_file.write_text(f"""\
[plan]
base = "{SMALL}"
objective = "net_value"
budget = 1e6
trials = 40
set = ['budget.spot_discount="70%"']
[[plan.options]]
label = "spot"
set = ['{SPOT}']
""")
    result = run_plan(load_plan(plan_file))
    best = result["best"]
    assert best["options"] == ["spot"]
    config = load_config(SMALL, ['budget.spot_discount="70%"'])
    gpus, value = config.job.gpus, config.budget.gpu_hour_value
    base_wall = result["base"]["wall_hours"]
    paid = base_wall * gpus - best["wall_hours"] * gpus * 0.3
    assert best["net_value"] == pytest.approx(paid * value, rel=1e-9)


def test_the_shipped_spot_study_prices_its_points_in_its_report() -> None:
    from relplan.config.study import load_study
    from relplan.output.study_report import results_tables
    from relplan.runs.sweep import run_study
    from tests.conftest import REPO

    study = load_study(REPO / "studies" / "spot.toml")
    results = run_study(study, trials=60)
    tables = dict(results_tables(study, results))
    money = tables["Money against the first point (at its [budget])"]
    assert list(money["point"]) == list(results["label"])
    spot = results.set_index("label").loc["spot, 2-min notice"]
    gpus = load_config(SMALL).job.gpus
    first = results.set_index("label").loc["on-demand", "wall_hours"] * gpus
    assert spot["paid_gpu_hours_saved"] == pytest.approx(first - spot["wall_hours"] * gpus * 0.3)
    row = money.set_index("point").loc["spot, 2-min notice"]
    assert row["net value"] == f"{spot['net_value']:,.0f}"
    assert float(row["net value"].replace(",", "")) > 0  # at 70% off, spot pays
