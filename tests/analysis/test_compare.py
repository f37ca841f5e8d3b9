"""compare: scenarios on common failure streams, with [simulation]'s settings by default."""

from __future__ import annotations

import pytest

from relplan.analysis.compare import ScenarioSpec, compare_scenarios, parse_variant
from relplan.analysis.scenarios import run_scenario
from relplan.config.loading import load_config
from relplan.errors import ConfigError
from tests.conftest import CONFIGS

SMALL = CONFIGS / "small.toml"


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
