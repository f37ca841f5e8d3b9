"""Work in steps or tokens, step compute from the MFU.

Every expectation is worked by hand in the test from the config's own numbers.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from typing import Any

import pytest

from relplan.comm.inputs import active_parameters, step_compute_seconds, workload_model
from relplan.comm.work import failure_free_work_hours, healthy_step_hours, job_steps
from relplan.config.loading import load_config, parse_config
from relplan.errors import ConfigError
from relplan.sim.model import build_model
from tests.conftest import CONFIGS

DENSE_175B = CONFIGS / "seed-dense-175b.toml"
SEED_MOE = CONFIGS / "seed-moe-10k.toml"

# A job whose communication always hides behind its compute: 64 GPUs of pure data
# parallelism (8 servers under one leaf: nothing crosses), a 1e9-parameter model whose
# 8 GB of fp32 gradients take well under the 0.8 x 10 s overlap window. Its step is its
# compute, 10 s, exactly.
HIDDEN_WORKLOAD: dict[str, Any] = {
    "parameters": 1e9,
    "tokens_per_step": 1e6,
    "hidden_size": 4096,
    "layers": 32,
    "step_compute": "10s",
    "parallelism": {"data": 64},
}


def _hidden(minimal_raw: dict[str, Any], **job: Any) -> dict[str, Any]:
    raw = copy.deepcopy(minimal_raw)
    raw["job"]["gpus"] = 64
    raw["job"].pop("work")
    raw["job"].update(job)
    raw["network"] = {"servers_per_leaf": 8}
    raw["workload"] = copy.deepcopy(HIDDEN_WORKLOAD)
    return raw


def test_steps_times_the_healthy_step_are_the_failure_free_hours(minimal_raw) -> None:
    config = parse_config(_hidden(minimal_raw, steps=36_000))
    assert healthy_step_hours(config) == pytest.approx(10.0 / 3600.0)
    assert failure_free_work_hours(config) == pytest.approx(36_000 * 10.0 / 3600.0)  # 100 h
    assert build_model(config).job.work_hours == pytest.approx(100.0)


def test_tokens_are_steps_of_tokens_per_step(minimal_raw) -> None:
    config = parse_config(_hidden(minimal_raw, tokens="36B"))
    assert job_steps(config) == pytest.approx(36e9 / 1e6)
    assert failure_free_work_hours(config) == pytest.approx(36_000 * 10.0 / 3600.0)


def test_job_step_sets_the_step_without_a_workload(minimal_raw) -> None:
    raw = copy.deepcopy(minimal_raw)
    raw["job"].pop("work")
    raw["job"].update(steps=7200, step="3s")
    config = parse_config(raw)
    assert failure_free_work_hours(config) == pytest.approx(7200 * 3 / 3600)


def test_a_slower_design_takes_longer_for_the_same_steps() -> None:
    """4:1 leaves slow the 175B step; in steps the failure-free hours grow by the same
    ratio, in hours they would not."""
    flat = load_config(DENSE_175B, ["job.steps=100000"])
    thin = load_config(DENSE_175B, ["job.steps=100000", "network.uplinks_per_leaf=16"])
    step_flat, step_thin = healthy_step_hours(flat), healthy_step_hours(thin)
    assert step_thin > 1.1 * step_flat
    assert failure_free_work_hours(thin) / failure_free_work_hours(flat) == pytest.approx(
        step_thin / step_flat)
    hours = load_config(DENSE_175B, ["job.work=14d", "network.uplinks_per_leaf=16"])
    assert failure_free_work_hours(hours) == pytest.approx(14 * 24)


def test_setting_steps_drops_the_configs_work() -> None:
    config = load_config(DENSE_175B, ["job.steps=1000"])
    assert config.job.work is None and config.job.steps == 1000
    back = load_config(DENSE_175B, ["job.steps=1000", "job.work=2d"])
    assert back.job.steps is None and back.job.work == 48.0


def test_mfu_gives_the_dense_step_compute() -> None:
    document = load_config(DENSE_175B).to_document()
    del document["workload"]["step_compute"]
    config = parse_config(document, ["workload.mfu=0.4", "cluster.gpu_peak_flops=989e12"])
    flops = 6 * 175e9 * 3.2e6
    assert step_compute_seconds(config) == pytest.approx(flops / (5000 * 989e12 * 0.4))
    training = workload_model(config)[0]
    assert training.compute_time_s == pytest.approx(flops / (5000 * 989e12 * 0.4))


def test_mfu_counts_top_k_experts_of_a_moe() -> None:
    """Seed MoE: 50e9 dense + 950e9 over 256 experts (EP 256), top-2: 57.42e9 active."""
    document = load_config(SEED_MOE).to_document()
    del document["workload"]["step_compute"]
    config = parse_config(document, ["workload.mfu=0.5", "cluster.gpu_peak_flops=989e12"])
    active = 50e9 + 950e9 * 2 / 256
    assert active_parameters(config) == pytest.approx(active)
    assert step_compute_seconds(config) == pytest.approx(
        6 * active * 2e6 / (10240 * 989e12 * 0.5))
    explicit = parse_config(document, ["workload.mfu=0.5", "cluster.gpu_peak_flops=989e12",
                                       "workload.experts=64"])  # fmt: skip
    assert active_parameters(explicit) == pytest.approx(50e9 + 950e9 * 2 / 64)


def test_more_gpus_shorten_the_mfu_step() -> None:
    """Twice the data parallelism at the same MFU halves the compute of a step."""
    document = load_config(DENSE_175B).to_document()
    del document["workload"]["step_compute"]
    base = ["workload.mfu=0.4", "cluster.gpu_peak_flops=989e12"]
    small = parse_config(document, base)
    large = parse_config(document, [*base, "cluster.servers=1300", "job.gpus=10000",
                                    "workload.parallelism.data=10000"])  # fmt: skip
    assert step_compute_seconds(large) == pytest.approx(step_compute_seconds(small) / 2)


BAD_INPUT = [
    (["job.steps=0"], "job.steps", "greater than 0"),
    (["job.steps=-5"], "job.steps", "greater than 0"),
    (["job.tokens=0"], "job.tokens", "greater than 0"),
    (['job.tokens="-1T"'], "job.tokens", "greater than 0"),
    (['job.tokens="12 parsecs"'], "job.tokens", "parsecs"),
    (["workload.mfu=0"], "workload.mfu", "greater than 0"),
    (["workload.mfu=1.5"], "workload.mfu", "less than or equal to 1"),
    (["workload.mfu=0.4"], "workload.mfu", "not both"),  # step_compute is given too
]


@pytest.mark.parametrize(("overrides", "key", "words"), BAD_INPUT)
def test_bad_work_and_compute_name_the_key(overrides, key, words) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config(DENSE_175B, overrides)
    assert caught.value.key == key
    assert words in str(caught.value)


def test_two_work_keys_in_one_file_name_them(minimal_raw) -> None:
    raw = _hidden(minimal_raw, steps=10, tokens="1B")
    with pytest.raises(ConfigError) as caught:
        parse_config(raw)
    assert caught.value.key == "job.tokens"
    assert "job.steps and job.tokens" in str(caught.value)
    raw = _hidden(minimal_raw, work="1d", horizon="2d")
    with pytest.raises(ConfigError, match=r"job\.work and job\.horizon"):
        parse_config(raw)


def test_no_work_key_names_all_four(minimal_raw) -> None:
    raw = _hidden(minimal_raw)
    with pytest.raises(ConfigError) as caught:
        parse_config(raw)
    assert caught.value.key == "job.work"
    for key in ("job.steps", "job.tokens", "job.horizon"):
        assert key in str(caught.value)


def test_tokens_without_a_workload_name_job_tokens(minimal_raw) -> None:
    raw = copy.deepcopy(minimal_raw)
    raw["job"].pop("work")
    raw["job"]["tokens"] = "1T"
    with pytest.raises(ConfigError) as caught:
        parse_config(raw)
    assert caught.value.key == "job.tokens" and "[workload]" in str(caught.value)


def test_steps_without_a_step_time_name_job_steps(minimal_raw) -> None:
    raw = copy.deepcopy(minimal_raw)
    raw["job"].pop("work")
    raw["job"]["steps"] = 1000
    with pytest.raises(ConfigError) as caught:
        parse_config(raw)
    assert caught.value.key == "job.steps" and "job.step" in str(caught.value)


def test_mfu_without_peak_flops_names_workload_mfu() -> None:
    document = load_config(DENSE_175B).to_document()
    del document["workload"]["step_compute"]
    with pytest.raises(ConfigError) as caught:
        parse_config(document, ["workload.mfu=0.4"])
    assert caught.value.key == "workload.mfu" and "gpu_peak_flops" in str(caught.value)
    with pytest.raises(ConfigError) as caught:
        parse_config(document)
    assert caught.value.key == "workload.step_compute"


@pytest.mark.parametrize(("option", "key"), [
    ("job.steps=0", "job.steps"), ("workload.mfu=2", "workload.mfu"),
    ("job.tokens=-3", "job.tokens"),
])  # fmt: skip
@pytest.mark.slow
def test_cli_exits_2_naming_the_key_before_any_work(option, key) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "relplan", "simulate", str(DENSE_175B), "--trials", "10",
         "--set", option], capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2
    assert key in done.stderr and "Traceback" not in done.stderr


@pytest.mark.slow
def test_simulate_json_reports_step_time_and_failure_free_hours() -> None:
    """A failure-free run of 10,000 steps: work = 10,000 x step; wall = work exactly."""
    done = subprocess.run(
        [sys.executable, "-m", "relplan", "simulate", str(DENSE_175B), "--trials", "5",
         "--set", "job.steps=10000", "--set", 'job.recovery="failure-free"',
         "--set", "job.checkpoint.size=1B", "--json"],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    step = healthy_step_hours(load_config(DENSE_175B)) * 3600.0
    assert data["step_time_s"] == pytest.approx(step)
    assert data["work_hours"] == pytest.approx(10_000 * step / 3600.0)
    assert data["wall_hours"]["mean"] == pytest.approx(
        data["work_hours"] + (data["work_hours"] // 1.0) * data["checkpoint_write_hours"],
        rel=1e-3)
