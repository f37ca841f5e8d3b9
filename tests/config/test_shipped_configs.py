"""The shipped configs: they validate, run, and carry the numbers their comments cite."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from relplan.config.loading import load_config
from relplan.sim.engine import simulate
from relplan.sim.model import build_model
from tests.conftest import CONFIGS

SHIPPED = sorted(CONFIGS.glob("*.toml"))


def test_the_three_promised_configs_are_shipped() -> None:
    assert {p.stem for p in SHIPPED} >= {"small", "seed-moe-10k", "llama3-16k"}


@pytest.mark.parametrize("path", SHIPPED, ids=[p.stem for p in SHIPPED])
def test_shipped_config_validates_and_runs(path: Path) -> None:
    model = build_model(load_config(path))
    outcomes = simulate(model, trials=20, seed=0)
    assert np.all(outcomes.wall_hours >= model.job.work_hours)
    assert np.allclose(outcomes.bucket_hours.sum(axis=1), outcomes.wall_hours)


def test_small_config_is_a_few_hundred_gpus() -> None:
    config = load_config(CONFIGS / "small.toml")
    assert 100 <= config.job.gpus <= 1000




