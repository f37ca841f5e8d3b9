"""The host-memory budget of in-memory checkpoint tiers (``cluster.host_memory``)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from relplan.cli.app import app
from relplan.config.derived import host_memory_needed
from relplan.config.loading import load_config
from tests.conftest import CONFIGS

LLAMA = CONFIGS / "llama3-16k.toml"
SHARD = 5.67e12 / 2048  # 5.67 TB of state over the job's 2,048 servers


@pytest.mark.parametrize(("overrides", "expected"), [
    ([], {}),
    (['job.checkpoint.fast={ interval = "2.5min", write = "1s" }'], {"fast tier": 2 * SHARD}),
    (['job.checkpoint.fast={ interval = "2.5min", write = "1s", survives = "none" }'],
     {"fast tier": SHARD}),
    (["job.checkpoint.blocking_fraction=0.1"], {"asynchronous snapshot": SHARD}),
])
def test_each_tier_holds_its_shards_by_hand(overrides: list[str], expected: dict) -> None:
    needed = host_memory_needed(load_config(LLAMA, overrides))
    assert needed.keys() == expected.keys()
    for tier, size in expected.items():
        assert needed[tier] == pytest.approx(size)


def test_tiers_beyond_the_host_memory_name_both_numbers() -> None:
    runner = CliRunner()
    tiers = ['job.checkpoint.fast={ interval = "2.5min", write = "1s" }',
             "job.checkpoint.blocking_fraction=0.1"]  # 3 shards: 8.31 GB a server
    args = ["validate", str(LLAMA)] + [f"--set={item}" for item in tiers]
    result = runner.invoke(app, [*args, "--set", "cluster.host_memory=8GB"])
    assert result.exit_code == 2
    assert "cluster.host_memory" in result.output and "Traceback" not in result.output
    assert "8.31 GB" in result.output and "8 GB" in result.output
    assert runner.invoke(app, [*args, "--set", "cluster.host_memory=9GB"]).exit_code == 0
    assert runner.invoke(app, args).exit_code == 0  # no budget given: nothing to check
