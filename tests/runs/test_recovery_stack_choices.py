"""Recovery stacks as choices: the shipped Clockwork study reproduces the measured order
within its stated tolerance, ``compare`` takes stacks as variants on common failure
streams, and ``plan`` takes them as levels of one option with their prices."""

from __future__ import annotations

import numpy as np
import pytest

from relplan.api import run_study, simulate
from relplan.config.plan import load_plan
from relplan.runs.compare import ScenarioSpec, compare_scenarios, parse_variant
from relplan.runs.planner import run_plan
from tests.conftest import CONFIGS, REPO

MEASURED_MINUTES = {"live migration (TorchPass)": 405.0, "checkpoint-restart": 818.0,
                    "replica drop (TorchFT)": 930.0}  # fmt: skip
"""Clockwork's runs to 3,000 steps, one each (clockwork.io, 2026)."""


def test_the_study_reproduces_clockworks_order_within_its_tolerance() -> None:
    # the study's tolerance: each measured time inside its stack's simulated P5-P95
    # (one run each), and the mean times in the measured order
    result = run_study(REPO / "studies" / "recovery-stacks.toml", trials=400)
    frame = result.to_frame().set_index("label")
    minutes = {label: frame.loc[label, "wall_hours"] * 60 for label in MEASURED_MINUTES}
    order = sorted(MEASURED_MINUTES, key=MEASURED_MINUTES.get)
    assert sorted(minutes, key=minutes.get) == order
    for label, measured in MEASURED_MINUTES.items():
        low = frame.loc[label, "wall_hours_p5"] * 60
        high = frame.loc[label, "wall_hours_p95"] * 60
        assert low <= measured <= high, (label, low, measured, high)


def test_compare_takes_stacks_as_variants_on_common_streams() -> None:
    config = CONFIGS / "llama4-scout-64.toml"
    settings = ["cluster.servers=10", "job.spares=2"]
    scenarios = [ScenarioSpec(config, tuple(settings)),
                 parse_variant('migrate: job.recovery="live-migration"', config, settings),
                 parse_variant('drop: job.recovery="replica-drop"; job.replica_drop.replicas=4',
                               config, settings)]  # fmt: skip
    rows = compare_scenarios(scenarios, trials=300, seed=4, workers=1)["scenarios"]
    alone = simulate(config, trials=300, seed=4, overrides=[
        *settings, 'job.recovery="live-migration"'])
    assert rows[1]["wall_hours"] == pytest.approx(alone.wall_hours.mean, rel=1e-12)
    # with spares for all, migration beats a restart, and the 5% tax shows in the drop
    assert rows[1]["wall_hours"] < rows[0]["wall_hours"]
    assert rows[2]["wall_hours"] > rows[1]["wall_hours"] * 1.04


def test_plan_takes_stacks_as_levels_of_one_option_with_their_prices(tmp_path) -> None:
    path = tmp_path / "stacks.toml"
    path.write_text(f"""\
[plan]
base = "{CONFIGS / 'llama4-scout-64.toml'}"
objective = "wall_hours"
trials = 200
budget = 1e6
[[plan.options]]
label = "stack"
levels = [['job.recovery="live-migration"', "cluster.servers=10", "job.spares=2"],
          ['job.recovery="replica-drop"', "job.replica_drop.replicas=4"]]
level_labels = ["live migration", "replica drop"]
price = [5e4, 0.0]
""")
    result = run_plan(load_plan(path))
    assert result["evaluated"] == 3  # the base stack and each level, never two at once
    assert result["best"]["options"] == ["stack: live migration"]
    assert result["best"]["hardware_cost"] >= 5e4  # the level's price is counted
    assert np.isfinite(result["best"]["objective"])
