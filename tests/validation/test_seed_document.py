"""The source document's figures: 400 GB/s = 3.2 Tbps per GPU, 700 GB and 3.5 PB per
step, 4.38 h, and the MoE case's 4 GB, 400 GB, 10 GB and 2.8 GB/s."""

from __future__ import annotations

import pytest

from relplan.comm.seed_figures import (
    bits_per_s,
    cluster_gradient_bytes_per_step,
    cluster_mtbf_hours,
    gradient_bytes_per_gpu,
    moe_traffic_estimate,
    required_bandwidth_per_gpu_bytes_per_s,
)


def test_seed_per_gpu_bandwidth_formula() -> None:
    # 175e9 x 4 B x 2 / (5 s x 0.7) = 1.4e12 / 3.5 = 400 GB/s = 3.2 Tb/s
    bandwidth = required_bandwidth_per_gpu_bytes_per_s(175e9, 4, 5.0, 0.7)
    assert bandwidth == pytest.approx(400e9)
    assert bits_per_s(bandwidth) == pytest.approx(3.2e12)
    # bf16 gradients halve it
    assert required_bandwidth_per_gpu_bytes_per_s(175e9, 2, 5.0, 0.7) == pytest.approx(200e9)


def test_seed_cluster_gradient_volume() -> None:
    assert gradient_bytes_per_gpu(175e9, 4) == pytest.approx(700e9)  # 700 GB per GPU
    assert cluster_gradient_bytes_per_step(175e9, 4, 5000) == pytest.approx(3.5e15)  # 3.5 PB


def test_seed_cluster_mtbf() -> None:
    five_years_hours = 5 * 8766
    assert cluster_mtbf_hours(five_years_hours, 10_000) == pytest.approx(4.383)  # 43830 / 1e4
    assert cluster_mtbf_hours(5 * 365 * 24, 10_000) == pytest.approx(4.38)  # the seed's 365 d
    with pytest.raises(ValueError):
        cluster_mtbf_hours(five_years_hours, 0)


def test_seed_moe_case() -> None:
    estimate = moe_traffic_estimate(
        tokens_per_step=2e6,
        top_k=2,
        bytes_per_token_expert=1e3,
        dense_parameters=50e9,
        bytes_per_gradient=4,
        data_parallel_groups=40,
        step_time_s=5.0,
        burst_factor=4.0,
        headroom_fraction=0.25,
    )
    assert estimate.all_to_all_bytes_per_step == pytest.approx(2e6 * 2 * 1e3)  # 4 GB
    assert estimate.dp_gradient_bytes_per_step == pytest.approx(50e9 * 4 * 2)  # 400 GB
    assert estimate.dp_gradient_bytes_per_group == pytest.approx(400e9 / 40)  # 10 GB
    assert estimate.average_bandwidth_per_gpu_bytes_per_s == pytest.approx((4e9 + 10e9) / 5)
    assert estimate.average_bandwidth_per_gpu_bytes_per_s == pytest.approx(2.8e9)
    assert estimate.peak_bandwidth_per_gpu_bytes_per_s == pytest.approx(2.8e9 * 4)
    assert estimate.provisioned_bandwidth_per_gpu_bytes_per_s == pytest.approx(2.8e9 * 4 * 1.25)
    # ... which a 400 Gb/s NIC (50 GB/s) covers, as the seed concludes
    assert estimate.provisioned_bandwidth_per_gpu_bytes_per_s < 400e9 / 8
