"""Shipped configs against the fleets they were calibrated on: Llama 3's interruption
table, the source document's GPU MTBF."""

from __future__ import annotations

import numpy as np
import pytest

from relplan.config.loading import load_config
from relplan.sim.engine import simulate
from relplan.sim.model import build_model
from relplan.units import HOURS_PER_YEAR
from relplan.vocab import BUCKETS
from tests.conftest import CONFIGS


def test_llama3_reproduces_its_interruption_rate() -> None:
    """419 unexpected interruptions in 54 days: a job MTTI of 54 x 24 / 419 = 3.09 h."""
    model = build_model(load_config(CONFIGS / "llama3-16k.toml"))
    assert model.job.gpus == 16384
    assert model.job_mtti_hours == pytest.approx(54 * 24 / 419, rel=0.01)
    gpu_share = sum(m.job_rate_per_hour for m in model.modes if m.unit == "gpu") * (
        model.job_mtti_hours
    )
    assert gpu_share == pytest.approx(268 / 419, rel=0.01)  # GPU category: 64% by count
    # Simulated: interruptions per hour of hardware use match the table.
    outcomes = simulate(model, trials=200, seed=1)
    idle = outcomes.bucket_hours[:, [BUCKETS.index("detect"), BUCKETS.index("waiting")]].sum(1)
    rate = outcomes.interruptions_by_mode.sum(1) / (outcomes.wall_hours - idle)
    assert abs(rate.mean() - 419 / (54 * 24)) < 4 * rate.std(ddof=1) / np.sqrt(rate.size)


def test_seed_case_gpu_mtbf() -> None:
    """The source document: a 5-year GPU MTBF over 10,000 GPUs gives 4.38 h."""
    model = build_model(load_config(CONFIGS / "seed-moe-10k.toml"))
    gpu = next(m for m in model.modes if m.name == "gpu")
    assert gpu.lifetime.mean_hours == 5 * HOURS_PER_YEAR
    assert gpu.lifetime.mean_hours / 10_000 == pytest.approx(4.38, abs=0.005)
    assert model.job.gpus == 10240
    assert model.inventory.job_servers == 1280
    assert model.inventory.job_units("leaf") == 128
    assert model.inventory.job_units("spine") == 128
