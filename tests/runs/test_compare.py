"""compare: scenarios on common failure streams, with [simulation]'s settings by default."""

from __future__ import annotations

import pytest

from relplan.comm.work import healthy_step_hours
from relplan.config.loading import load_config
from relplan.errors import ConfigError
from relplan.runs.compare import ScenarioSpec, compare_scenarios, parse_variant
from relplan.runs.scenarios import run_scenario
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


@pytest.mark.parametrize(("text", "label", "items"), [
    ("4:1 leaves: network.uplinks_per_leaf=16", "4:1 leaves", ("network.uplinks_per_leaf=16",)),
    ('late: a=1; b="12:00"', "late", ("a=1", 'b="12:00"')),
])
def test_a_variant_label_may_hold_colons(text: str, label: str, items: tuple) -> None:
    # the label ends at the last colon before the first key's '=': "4:1" once read as
    # the label "4" and a key "1: network..."
    variant = parse_variant(text, SMALL, [])
    assert (variant.label, variant.overrides) == (label, items)


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


def test_net_value_of_a_slower_design_is_its_gpu_hours_at_their_value_to_the_cent() -> None:
    """The seed MoE job in steps with 4:1 leaves (20 of a leaf's 80 uplinks): the
    All-to-All and expert gradients crawl, the healthy step grows by about 60% and so do
    the wall hours. Its net value is the GPU-hours it saves against 1:1 (wall hours x
    GPUs, negative here) at gpu_hour_value, minus its extra hardware charge (negative:
    fewer uplinks), worked out from the row's own figures; the GPU-hours lost alone would
    have put it millions of dollars higher."""
    moe = CONFIGS / "seed-moe-10k.toml"
    settings = ("job.steps=513735",)
    scenarios = [ScenarioSpec(moe, settings),
                 parse_variant("four-to-one: network.uplinks_per_leaf=20", moe, list(settings))]
    first, thin = compare_scenarios(scenarios, trials=12, seed=3, workers=1)["scenarios"]
    budget = load_config(moe).budget
    gpus = load_config(moe).job.gpus
    assert thin["step_time_s"] > 1.2 * first["step_time_s"]  # a slower healthy step
    saved = first["wall_hours"] * gpus - thin["wall_hours"] * gpus
    extra = (thin["hardware_price"] - first["hardware_price"]) * thin["wall_hours"] / (
        budget.amortization)
    assert extra < 0  # 4:1 leaves are cheaper
    by_hand = saved * budget.gpu_hour_value - extra
    assert abs(thin["net_value"] - by_hand) < 0.005
    assert abs(thin["extra_hardware_charge"] - extra) < 0.005
    assert abs(thin["gpu_hours_saved"] - saved) < 1e-6 * abs(saved)
    assert thin["gpu_hours_saved_vs_first"] == pytest.approx(thin["gpu_hours_saved"])
    lost_only = (first["gpu_hours_lost"] - thin["gpu_hours_lost"]) * budget.gpu_hour_value - extra
    assert thin["net_value"] < lost_only - 1e6  # the slower step is counted
    assert thin["break_even_gpu_hour_value"] is None  # it saves no GPU-hours
