"""compare: scenarios on common failure streams, with [simulation]'s settings by default."""

from __future__ import annotations

import pytest

from relplan.analysis.compare import ScenarioSpec, compare_scenarios, parse_variant
from relplan.analysis.scenarios import run_scenario
from relplan.comm.work import healthy_step_hours
from relplan.config.loading import load_config
from relplan.errors import ConfigError
from tests.conftest import CONFIGS

SMALL = CONFIGS / "small.toml"


@pytest.mark.slow
def test_compare_takes_trials_and_seed_from_the_first_config() -> None:
    settings = ["simulation.trials=40", "simulation.seed=9"]
    scenarios = [ScenarioSpec(SMALL, tuple(settings)),
                 parse_variant("short restart: job.restart=5min", SMALL, settings)]
    data = compare_scenarios(scenarios)
    assert (data["trials"], data["seed"]) == (40, 9)
    alone = run_scenario(load_config(SMALL, settings), 40, 9, "small").summary()
    assert data["scenarios"][0]["goodput"] == alone["goodput"]["mean"]
    assert data["scenarios"][1]["scenario"] == "short restart"


def test_arguments_override_the_config_settings() -> None:
    scenarios = [ScenarioSpec(SMALL), parse_variant("b: job.spares=2", SMALL, [])]
    data = compare_scenarios(scenarios, trials=30, seed=3)
    assert (data["trials"], data["seed"]) == (30, 3)
    assert data["scenarios"][0]["gpu_hours_saved_vs_first"] == 0.0


def test_one_scenario_is_refused() -> None:
    with pytest.raises(ConfigError, match="two configs"):
        compare_scenarios([ScenarioSpec(SMALL)])


def test_a_malformed_variant_names_the_option() -> None:
    with pytest.raises(ConfigError) as error:
        parse_variant("no colon here", SMALL, [])
    assert error.value.key == "--variant"


def test_compare_in_steps_prices_the_slower_step() -> None:
    """175B in 20,000 steps, failure-free, checkpoints free. A 4:1 leaf slows the
    healthy step, so its failure-free hours, wall hours and GPU-hours grow by 20,000 x the
    step difference; the saving against the first is minus that x 5,000 GPUs."""
    dense = CONFIGS / "seed-dense-175b.toml"
    document = load_config(dense).to_document()
    assert "size" in document["job"]["checkpoint"]  # size / bandwidth: set the write instead
    settings = ["job.steps=20000", 'job.recovery="failure-free"',
                "job.checkpoint.bandwidth=1e30B/s"]
    scenarios = [ScenarioSpec(dense, tuple(settings)),
                 parse_variant("four-to-one: network.uplinks_per_leaf=16", dense, settings)]
    data = compare_scenarios(scenarios, trials=4, seed=1)
    steps = [healthy_step_hours(load_config(dense, [*settings, *s.overrides[3:]]))
             for s in scenarios]  # fmt: skip
    first, thin = data["scenarios"]
    assert first["step_time_s"] == pytest.approx(steps[0] * 3600)
    assert thin["step_time_s"] == pytest.approx(steps[1] * 3600)
    assert thin["work_hours"] == pytest.approx(20_000 * steps[1])
    assert thin["wall_hours"] == pytest.approx(20_000 * steps[1])
    assert thin["gpu_hours_saved_vs_first"] == pytest.approx(
        -20_000 * (steps[1] - steps[0]) * 5000)
    assert thin["gpu_hours_saved_vs_first"] < -5e4  # the slower step costs GPU-hours
