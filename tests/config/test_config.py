"""Config schema: the minimal config, units, overrides, and one clear error per mistake."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from relplan.config.loading import apply_overrides, load_config, parse_config
from relplan.errors import ConfigError
from relplan.sim.model import build_model
from relplan.units import HOURS_PER_YEAR
from tests.conftest import assert_refused


def test_minimal_config_is_accepted_as_written(minimal_config_file: Path) -> None:
    config = load_config(minimal_config_file)
    assert config.job.work == 30 * 24
    assert config.job.checkpoint.interval == 1.0
    assert config.job.checkpoint.write == pytest.approx(2 / 60)
    assert config.failures["gpu"].detect == pytest.approx(30 / 3600)
    model = build_model(config)
    assert [m.name for m in model.modes] == ["gpu"]
    assert model.job_mtti_hours == pytest.approx(5 * HOURS_PER_YEAR / 1024)


def test_classes_left_out_never_fail(minimal_raw: dict[str, Any]) -> None:
    model = build_model(parse_config(minimal_raw))
    assert {m.unit for m in model.modes} == {"gpu"}


def test_afr_converts_to_mtbf(minimal_raw: dict[str, Any]) -> None:
    minimal_raw["failures"]["gpu"]["lifetime"] = {"dist": "exponential", "afr": "5%"}
    lifetime = build_model(parse_config(minimal_raw)).modes[0].lifetime
    assert lifetime.mean_hours == pytest.approx(-HOURS_PER_YEAR / math.log(0.95))


@pytest.mark.parametrize(
    ("lifetime", "mean_hours"),
    [
        ({"dist": "weibull", "shape": 0.8, "mtbf": "5y"}, 5 * HOURS_PER_YEAR),
        ({"dist": "weibull", "shape": 1.0, "scale": "1000h"}, 1000.0),
        ({"dist": "lognormal", "sigma": 1.0, "mean": "100h"}, 100.0),
        ({"dist": "lognormal", "sigma": 1.0, "median": "100h"}, 100.0 * math.exp(0.5)),
    ],
)
def test_lifetime_families(minimal_raw: dict[str, Any], lifetime: dict, mean_hours: float) -> None:
    minimal_raw["failures"]["gpu"]["lifetime"] = lifetime
    mode = build_model(parse_config(minimal_raw)).modes[0]
    assert mode.lifetime.mean_hours == pytest.approx(mean_hours)


def test_overrides_set_nested_typed_values(minimal_raw: dict[str, Any]) -> None:
    config = parse_config(
        minimal_raw,
        [
            "job.checkpoint.interval=30min",
            "cluster.servers=256",
            "failures.gpu.start=new",
            'failures.gpu.lifetime={ dist = "weibull", shape = 0.7, mtbf = "4y" }',
        ],
    )
    assert config.job.checkpoint.interval == 0.5
    assert config.cluster.servers == 256
    assert config.failures["gpu"].start == "new"
    assert config.failures["gpu"].lifetime.shape == 0.7


def test_overrides_do_not_touch_the_original(minimal_raw: dict[str, Any]) -> None:
    apply_overrides(minimal_raw, ["job.gpus=8"])
    assert minimal_raw["job"]["gpus"] == 1024


@pytest.mark.parametrize(
    ("overrides", "key", "words"),
    [
        (["job.colour=blue"], "job.colour", "unknown key"),
        (["failures.gpu.lifetime.mtbf=-5y"], "failures.gpu.lifetime.mtbf", "greater than 0"),
        (["failures.gpu.lifetime.mtbf=0h"], "failures.gpu.lifetime.mtbf", "greater than 0"),
        (["job.gpus=4096"], "job.gpus", "cluster has 1024"),
        (["job.work=30"], "job.work", "no unit"),
        (["job.work=30 fortnights"], "job.work", "unknown duration unit"),
        (["job.checkpoint.interval=0s"], "job.checkpoint.interval", "greater than 0"),
        (["simulation.trials=0"], "simulation.trials", "greater than 0"),
        (["job.spares=200"], "job.spares", "do not fit"),
        (["failures.gpu.lifetime.dist=gamma"], "failures.gpu.lifetime.dist", "exponential"),
        (["failures.gpu.lifetime.shape=2"], "failures.gpu.lifetime", "not shape"),
        (
            ["failures.hbm.lifetime.mtbf=3y", "failures.hbm.lifetime.dist=exponential"],
            "failures.hbm.unit",
            "needs 'unit'",
        ),
        (["job"], "--set", "KEY=VALUE"),
        (["job.gpus.x=1"], "job.gpus", "not a table"),
    ],
)
def test_bad_input_names_the_key(
    minimal_raw: dict[str, Any], overrides: list[str], key: str, words: str
) -> None:
    assert_refused(minimal_raw, overrides, key=key, words=words)


def test_missing_required_key(minimal_raw: dict[str, Any]) -> None:
    del minimal_raw["job"]["work"]
    assert_refused(minimal_raw, key="job.work", words="missing")


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such file"):
        load_config(tmp_path / "nope.toml")


def test_malformed_toml(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text("[job\ngpus = 3\n")
    with pytest.raises(ConfigError, match="not valid TOML") as caught:
        load_config(path)
    assert caught.value.key == "CONFIG"


def test_checkpoint_cost_from_size_and_bandwidth_with_async(minimal_raw) -> None:
    minimal_raw["job"]["checkpoint"] = {"interval": "1h", "size": "14TB",
                                        "bandwidth": "1TB/s", "blocking_fraction": "25%"}
    model = build_model(parse_config(minimal_raw))
    assert model.job.write_hours == pytest.approx(14.0 / 3600 * 0.25)


@pytest.mark.parametrize(
    ("checkpoint", "key", "words"),
    [
        ({"interval": "1h", "write": "1min", "size": "1TB", "bandwidth": "1GB/s"},
         "job.checkpoint", "not both"),
        ({"interval": "1h", "size": "1TB"}, "job.checkpoint", "go together"),
        ({"interval": "1h", "write": "1min", "fast": {"interval": "25min", "write": "5s"}},
         "job.checkpoint.fast.interval", "must divide"),
    ],
)
def test_bad_checkpoint_settings(minimal_raw, checkpoint, key, words) -> None:
    minimal_raw["job"]["checkpoint"] = checkpoint
    assert_refused(minimal_raw, key=key, words=words)


def test_fast_tier_maps_to_the_model(minimal_raw) -> None:
    minimal_raw["job"]["checkpoint"] = {"interval": "30min", "write": "1min",
                                        "fast": {"interval": "10min", "write": "5s",
                                                 "survives": "none"}}
    model = build_model(parse_config(minimal_raw))
    assert model.job.fast_interval_hours == pytest.approx(10 / 60)
    assert model.job.durable_every == 3
    assert model.modes[0].loses_fast_checkpoint  # a gpu failure loses the local copy


def test_elastic_recovery_needs_its_settings(minimal_raw) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config(minimal_raw, ['job.recovery="elastic"'])
    assert caught.value.key == "job.elastic"
