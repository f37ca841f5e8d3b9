"""The source document's figures, reproduced from shipped configs (not typed in)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from relplan.analysis.baseline import cluster_mtbf
from relplan.cli.app import app
from relplan.comm.baseline import baseline_report
from relplan.config.loading import load_config
from relplan.sim.model import build_model
from tests.conftest import CONFIGS


def test_dense_175b_needs_400_gb_per_s_per_gpu() -> None:
    report = baseline_report(load_config(CONFIGS / "seed-dense-175b.toml"))
    gradients = report["gradients"]
    assert gradients["dp_bandwidth_per_gpu_bytes_per_s"] == pytest.approx(400e9)
    assert gradients["dp_bandwidth_per_gpu_bits_per_s"] == pytest.approx(3.2e12)
    assert gradients["bytes_per_gpu"] == pytest.approx(700e9)
    assert gradients["bytes_per_step_all_gpus"] == pytest.approx(3.5e15)
    # one 400G NIC (50 GB/s) per GPU cannot carry it
    data = report["baseline"]["dimensions"]["data"]
    assert data["bandwidth_available_bytes_per_s"] == pytest.approx(50e9)
    assert data["bandwidth_needed_bytes_per_s"] > data["bandwidth_available_bytes_per_s"]


def test_seed_moe_traffic_per_step() -> None:
    report = baseline_report(load_config(CONFIGS / "seed-moe-10k.toml"))
    moe = report["moe"]
    assert moe["all_to_all_bytes_per_step"] == pytest.approx(4e9)
    assert moe["dp_gradient_bytes_per_step"] == pytest.approx(400e9)
    assert moe["expert_data_parallel"] == 40
    assert moe["dp_gradient_bytes_per_group"] == pytest.approx(10e9)
    assert moe["average_bandwidth_per_gpu_bytes_per_s"] == pytest.approx(2.8e9)
    # TP rides NVLink inside a server; the rest rides the NICs
    dims = report["baseline"]["dimensions"]
    assert dims["tensor"]["path"] == "nvlink"
    assert dims["data"]["path"] == "scale_out"
    # tensor parallel is latency bound next to data parallel
    assert dims["tensor"]["latency_share"] > dims["data"]["latency_share"]


def test_five_year_gpu_mtbf_over_ten_thousand_gpus() -> None:
    config = load_config(CONFIGS / "seed-moe-10k.toml",
                         ["job.gpus=10000", "workload.parallelism.data=1250",
                          "workload.parallelism.expert=250"])
    mtbf = cluster_mtbf(build_model(config))
    assert mtbf["gpu"] == pytest.approx(4.38, abs=0.005)


def test_rtt_sensitivity_grows_step_time() -> None:
    base = baseline_report(load_config(CONFIGS / "seed-moe-10k.toml"))["baseline"]
    assert base["rtt_low_s"] == pytest.approx(10e-6)
    assert base["rtt_high_s"] == pytest.approx(50e-6)
    assert base["step_time_rtt_high_s"] > base["step_time_rtt_low_s"] >= base["compute_time_s"]


def test_baseline_command() -> None:
    runner = CliRunner()
    result = runner.invoke(app, ["baseline", str(CONFIGS / "seed-moe-10k.toml"), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert set(data) >= {"baseline", "gradients", "moe", "cluster_mtbf_hours", "job_mtti_hours"}
    assert set(data["baseline"]["dimensions"]) >= {"data", "tensor", "pipeline", "expert"}
    table = runner.invoke(app, ["baseline", str(CONFIGS / "seed-dense-175b.toml")])
    assert table.exit_code == 0 and "3.2 Tbps" in table.stdout
    missing = runner.invoke(app, ["baseline", str(CONFIGS / "small.toml")])
    assert missing.exit_code == 2 and "workload" in missing.output
    simulated = runner.invoke(app, ["simulate", str(CONFIGS / "seed-moe-10k.toml"),
                                    "--trials", "20", "--json"])
    step = json.loads(simulated.stdout)["baseline"]
    assert step["step_time_s"] == pytest.approx(data["baseline"]["step_time_s"])
