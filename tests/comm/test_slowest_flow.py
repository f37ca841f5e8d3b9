"""The slowest flow, done right, worked by hand.

Per-hop shares compose as a minimum; strided groups cross the leaf; LAG members are
paths; the achievable share of line rate; separate server and fabric link speeds; the
pipeline bubble as its own part of the step.
"""

from __future__ import annotations

import pytest

from relplan.cluster.impact import lag_member_hit_probability
from relplan.comm.baseline import baseline_report
from relplan.comm.fabric import ecmp_hashing_efficiency
from relplan.comm.inputs import (
    CapacityScale,
    NetworkHardware,
    Parallelism,
    TrainingWorkload,
    workload_model,
)
from relplan.comm.step import (
    DimensionTraffic,
    group_rank_stride,
    group_server_stride,
    network_bandwidth_bytes_per_s,
    pipeline_bubble_s,
    step_time,
)
from relplan.config.derived import leaf_uplinks
from relplan.config.loading import load_config
from relplan.sim.model import build_model
from tests.conftest import CONFIGS

DENSE_175B = CONFIGS / "seed-dense-175b.toml"
SEED_MOE = CONFIGS / "seed-moe-10k.toml"
LLAMA3 = CONFIGS / "llama3-16k.toml"


def _ring(servers: int, stride: int = 1) -> DimensionTraffic:
    return DimensionTraffic("data", "allreduce", servers * 8, 1e9, 1, "scale_out", 8, stride)


def test_losses_on_one_flow_take_the_smaller_share_not_the_product() -> None:
    """A ring over 40 servers, 10 per leaf, at 4:1 with adaptive routing: the uplinks give
    min(1, 1 / (4 x 1/10)) = 1, so a NIC at half keeps the flow at 0.5 of 50 GB/s. With
    a share of 1 (every hop crossing), the uplinks give 1/4; a NIC at half then costs
    nothing more: min(0.5, 0.25) = 0.25, not 0.5 x 0.25."""
    hardware = NetworkHardware(nic_bandwidth_bytes_per_s=50e9, servers_per_leaf=10,
                               oversubscription=4.0, ecmp_paths=16,
                               load_balancing="adaptive")  # fmt: skip
    half_nic = CapacityScale(server_nic=0.5)
    assert network_bandwidth_bytes_per_s(_ring(40), hardware, half_nic) == pytest.approx(25e9)
    strided = _ring(40, stride=32)  # one server of the group per leaf: every hop crosses
    assert network_bandwidth_bytes_per_s(strided, hardware, CapacityScale()) == pytest.approx(
        50e9 / 4)
    assert network_bandwidth_bytes_per_s(strided, hardware, half_nic) == pytest.approx(50e9 / 4)
    # PFC pausing both hops 30% of the time: the flow keeps 0.7 of its slower hop
    pfc = CapacityScale(fabric=0.7, server_nic=0.7)
    assert network_bandwidth_bytes_per_s(strided, hardware, pfc) == pytest.approx(
        50e9 * min(0.7, 0.7 / 4))


def test_strides_follow_the_documented_rank_order() -> None:
    """TP innermost, then EP, then DP, then PP: seed MoE (TP 8, EP 256, DP 1,280) and
    Llama 3 (TP 8, PP 16, DP 128) on 8-GPU servers."""
    moe = Parallelism(data=1280, tensor=8, expert=256)
    assert group_rank_stride(moe) == {"data": 8, "tensor": 1, "pipeline": 10240,
                                      "expert": 1, "expert_data": 256}  # fmt: skip
    assert group_server_stride(moe, 8)["expert_data"] == 256 // 8
    llama = Parallelism(data=128, tensor=8, pipeline=16)
    assert group_server_stride(llama, 8)["pipeline"] == 128 * 8 // 8
    assert group_server_stride(llama, 8)["data"] == 1


def test_strided_expert_data_crosses_every_hop_of_an_oversubscribed_leaf() -> None:
    """Seed MoE at 2:1 (40 uplinks), adaptive routing: the expert-data ring's neighbours
    sit 32 servers apart, past the 10-server leaf, so every hop crosses: 1/2 of the
    0.94 x 50 GB/s NIC. Before the stride, its servers were taken as consecutive: it
    crossed once per 10 servers and kept the whole NIC."""
    config = load_config(SEED_MOE, ["network.uplinks_per_leaf=40",
                                    "network.load_balancing=adaptive"])  # fmt: skip
    dimensions = baseline_report(config)["baseline"]["dimensions"]
    assert dimensions["expert_data"]["bandwidth_available_bytes_per_s"] == pytest.approx(
        0.94 * 50e9 / 2)


def test_achievable_bandwidth_is_a_share_of_line_rate() -> None:
    """0.94 of a 400G NIC (47 of 50 GB/s) and 0.82 of H100 NVLink (369 of 450 GB/s)."""
    _, _, hardware, _ = workload_model(load_config(DENSE_175B))
    assert hardware.nic_bandwidth_bytes_per_s == pytest.approx(0.94 * 50e9)
    assert hardware.nvlink_bandwidth_bytes_per_s == pytest.approx(0.82 * 450e9)
    _, _, line, _ = workload_model(load_config(DENSE_175B, ["network.nic_efficiency=1",
                                                            "network.nvlink_efficiency=1"]))
    assert line.nic_bandwidth_bytes_per_s == pytest.approx(50e9)
    assert line.nvlink_bandwidth_bytes_per_s == pytest.approx(450e9)


def test_server_and_fabric_link_speeds_are_separate() -> None:
    """175B leaves: 8 servers x 8 NICs = 64 ports down, 64 up. 200G down and 400G up is
    0.5:1; 400G down and 200G up is 2:1. The NIC runs at its server link's speed."""
    fast_up = load_config(DENSE_175B, ['network.server_link_speed="200Gbps"',
                                       'network.fabric_link_speed="400Gbps"'])  # fmt: skip
    assert leaf_uplinks(fast_up).oversubscription == pytest.approx(64 * 25e9 / (64 * 50e9))
    assert workload_model(fast_up)[2].nic_bandwidth_bytes_per_s == pytest.approx(0.94 * 25e9)
    slow_up = load_config(DENSE_175B, ['network.fabric_link_speed="200Gbps"'])
    assert leaf_uplinks(slow_up).oversubscription == pytest.approx(2.0)
    assert workload_model(slow_up)[2].nic_bandwidth_bytes_per_s == pytest.approx(0.94 * 50e9)


def test_the_pipeline_bubble_is_its_own_part_of_the_step() -> None:
    """Llama 3: 4.4 s of compute (6 N D / (n x peak x MFU)), PP 16, 16 micro-batches, 4
    virtual stages: 15/64 of the compute is bubble (one virtual stage: 15/16);
    compute_time_s stays the pure compute."""
    base = baseline_report(load_config(LLAMA3))["baseline"]
    compute = 6 * 405e9 * 16.78e6 / (16384 * 989e12 * 0.572)  # mfu 0.572: 4.3993 s
    assert base["compute_time_s"] == pytest.approx(compute)
    assert base["pipeline_bubble_s"] == pytest.approx(15 / 64 * compute)
    assert base["step_time_s"] == pytest.approx(
        compute + 15 / 64 * compute + base["exposed_communication_s"])
    plain = baseline_report(load_config(LLAMA3, ["workload.pipeline_interleave=1"]))
    assert plain["baseline"]["pipeline_bubble_s"] == pytest.approx(15 / 16 * compute)
    workload = TrainingWorkload(1e9, 1e6, 4096, 32, compute_time_s=2.0, micro_batches=8)
    assert pipeline_bubble_s(workload, Parallelism(data=8)) == 0.0
    hardware = NetworkHardware()
    flat = step_time(workload, Parallelism(data=8), hardware)
    staged = step_time(workload, Parallelism(data=2, pipeline=4), hardware)
    assert staged - 3 / 8 * 2.0 >= 2.0 and flat >= 2.0


def test_lag_members_are_paths_of_their_own() -> None:
    """175B with fabric bundles of 2: 64 uplinks as 32 bundles x 2 members. The rings send
    8 flows off a leaf (one per NIC); they hash over 64 member paths."""
    config = load_config(DENSE_175B, ["network.fabric_lacp.members=2"])
    _, _, hardware, _ = workload_model(config)
    assert hardware.ecmp_paths == 32 and hardware.lag_members == 2
    data = baseline_report(config)["baseline"]["dimensions"]["data"]
    share = 1 / 8  # the ring crosses once per 8-server leaf
    factor = min(1.0, ecmp_hashing_efficiency(8, 64) / share)
    per_gpu = min(0.94 * 50e9, 0.94 * 50e9 * factor)
    # node-aware: 8 GPUs' NICs together, below 8/7 of NVLink
    assert data["bandwidth_available_bytes_per_s"] == pytest.approx(
        min(8 * per_gpu, 8 / 7 * 0.82 * 450e9))
    assert factor < 1.0  # 8 flows on 64 paths collide: the busiest path sets the pace


def test_a_lost_lag_member_slows_only_the_flows_hashed_onto_it() -> None:
    """The 8 flows leaving a leaf miss one of its 64 members with (63/64)^8; the job slows
    by the member's (M-1)/M only when some of them used it."""
    config = load_config(DENSE_175B, ["network.fabric_lacp.members=2",
                                      "network.uplinks_per_leaf=16"])  # fmt: skip
    hit = 1 - (1 - 1 / (8 * 2)) ** 8
    assert lag_member_hit_probability(config, 8, 2) == pytest.approx(hit)
    modes = {m.name: m for m in build_model(config).modes}
    training, parallelism, hardware, overlap = workload_model(config)
    healthy = step_time(training, parallelism, hardware, overlap=overlap)
    slowed = step_time(training, parallelism, hardware, CapacityScale(fabric=0.5), overlap)
    expected = 1 + hit * (slowed / healthy - 1)
    assert modes["link.fabric"].slowdown_by_count[0] == pytest.approx(expected)
    assert 1.0 < expected < slowed / healthy
