"""The network between the parts, worked by hand: node-aware collectives, oversubscription,
All-to-All concurrency, ECMP hashing and the slowest flow."""

from __future__ import annotations

import math

import pytest

from relplan.comm.baseline import baseline_report
from relplan.comm.collectives import node_aware_all_to_all_time_s, node_aware_allreduce_times_s
from relplan.comm.fabric import (
    crossing_share,
    ecmp_hashing_efficiency,
    expected_max_load,
    fabric_bandwidth_factor,
    retry_window_s,
)
from relplan.comm.inputs import CapacityScale, NetworkHardware, Parallelism, workload_model
from relplan.comm.step import (
    DimensionTraffic,
    group_ranks_per_server,
    network_bandwidth_bytes_per_s,
)
from relplan.config.loading import load_config
from tests.conftest import CONFIGS

SEED_MOE = CONFIGS / "seed-moe-10k.toml"
DENSE_175B = CONFIGS / "seed-dense-175b.toml"


def test_175b_pure_data_parallel_allreduce_is_node_aware() -> None:
    """700 GB per GPU over 5,000 GPUs, 8 to a server with 8 x 400G: about 3.5 s, not 28 s."""
    times = node_aware_allreduce_times_s(5000, 8, 700e9, 3.4e-6, 450e9, 10e-6, 50e9)
    best = min(time_s for time_s, _ in times.values())
    # bus bandwidth min(8 x 50, 8/7 x 450) = 400 GB/s; 2 (n-1)/n x 700 GB / 400 GB/s
    assert best == pytest.approx(2 * 4999 / 5000 * 700e9 / 400e9, rel=0.02)
    assert times["hierarchical"][0] > best  # the phases in turn: 2.7 s of NVLink + 3.5 s
    flat_one_nic = 2 * 4999 / 5000 * 700e9 / 50e9
    assert flat_one_nic == pytest.approx(28.0, rel=1e-3)


def test_175b_config_baseline_gives_3_5_s_without_hash_collisions() -> None:
    """At line rate (nic_efficiency = 1) the seed's 3.5 s; at the default 0.94 of line
    rate (nccl-tests: 47 of 50 GB/s) 3.5 / 0.94 = 3.72 s."""
    line_rate = load_config(DENSE_175B, ["network.load_balancing=adaptive",
                                         "network.nic_efficiency=1"])  # fmt: skip
    exact = baseline_report(line_rate)["baseline"]["dimensions"]["data"]
    assert exact["time_s"] == pytest.approx(3.5, rel=0.01)
    config = load_config(DENSE_175B, ["network.load_balancing=adaptive"])
    data = baseline_report(config)["baseline"]["dimensions"]["data"]
    assert data["time_s"] == pytest.approx(2 * 4999 / 5000 * 700e9 / (8 * 50e9 * 0.94), rel=0.01)
    assert data["algorithm"] in ("ring", "tree")
    # static ECMP hashing of the rings' crossing flows costs more, never less
    hashed = baseline_report(load_config(DENSE_175B))["baseline"]["dimensions"]["data"]
    assert hashed["time_s"] >= data["time_s"]


def test_group_geometry_follows_megatron_rank_order() -> None:
    moe = group_ranks_per_server(Parallelism(data=1280, tensor=8, expert=256), 8)
    assert moe == {"data": 1, "tensor": 8, "pipeline": 1, "expert": 8, "expert_data": 1}
    assert group_ranks_per_server(Parallelism(data=64, tensor=2), 8)["data"] == 4


@pytest.mark.parametrize(("servers", "per_leaf", "ring", "all_to_all"),
                         [(32, 10, 1 / 10, 22 / 31), (10, 10, 0.0, 0.0), (2, 1, 1.0, 1.0)])
def test_crossing_share_by_hand(servers, per_leaf, ring, all_to_all) -> None:
    assert crossing_share("ring", servers, per_leaf) == pytest.approx(ring)
    assert crossing_share("all_to_all", servers, per_leaf) == pytest.approx(all_to_all)


@pytest.mark.parametrize(("uplinks", "oversubscription"), [(80, 1.0), (40, 2.0), (20, 4.0)])
def test_oversubscribed_leaf_slows_the_all_to_all_by_hand(uplinks, oversubscription) -> None:
    """Seed MoE: EP 256 over 32 servers, 10 per leaf: 22/31 of each GPU's All-to-All crosses;
    at o:1 the uplinks give it min(1, 1 / (o x 22/31)) of 50 GB/s x 0.94 (adaptive
    routing; the NIC achieves 0.94 of line rate)."""
    config = load_config(SEED_MOE, [f"network.uplinks_per_leaf={uplinks}",
                                    "network.load_balancing=adaptive"])  # fmt: skip
    _, _, hardware, _ = workload_model(config)
    assert hardware.oversubscription == oversubscription
    expert = baseline_report(config)["baseline"]["dimensions"]["expert"]
    factor = min(1.0, 1.0 / (oversubscription * 22 / 31))
    assert expert["bandwidth_available_bytes_per_s"] == pytest.approx(47e9 * factor)
    # the dense rings cross a leaf once per 10 servers: even 4:1 leaves them their NICs
    data = baseline_report(config)["baseline"]["dimensions"]["data"]
    assert data["bandwidth_available_bytes_per_s"] == pytest.approx(47e9)
    # the expert-data rings stride 256 ranks = 32 servers, past the 10-server leaf: every
    # hop crosses (share 1), so at o:1 they get 1 / o of the NIC
    expert_data = baseline_report(config)["baseline"]["dimensions"]["expert_data"]
    assert expert_data["bandwidth_available_bytes_per_s"] == pytest.approx(
        47e9 * min(1.0, 1.0 / oversubscription))


def test_oversubscription_moves_the_step_time() -> None:
    steps = []
    for uplinks in (80, 40, 20):
        config = load_config(SEED_MOE, [f"network.uplinks_per_leaf={uplinks}",
                                        "workload.overlap.data=0"])  # fmt: skip
        steps.append(baseline_report(config)["baseline"]["step_time_s"])
    assert steps[0] < steps[1] < steps[2]


def test_all_to_all_keeps_its_peers_in_flight() -> None:
    """DeepEP-like dispatch at EP 256 (8 GPUs a server, 400G NICs): 128 tokens x top-8 x
    7,168 B (FP8) per rank = 7.3 MB; DeepEP measures 0.19 ms. Pairwise it would take
    255 alphas (2.55 ms) of latency alone."""
    size = 128 * 8 * 7168
    time_s, latency_s = node_aware_all_to_all_time_s(256, 8, size, 450e9, 10e-6, 50e9)
    assert latency_s == pytest.approx(10e-6)
    assert time_s == pytest.approx(10e-6 + 248 / 256 * size / 50e9)
    assert 0.1e-3 < time_s < 0.3e-3
    _, pairwise = node_aware_all_to_all_time_s(256, 8, size, 450e9, 10e-6, 50e9, concurrency=1)
    assert pairwise == pytest.approx(255 * 10e-6)
    _, sixteen = node_aware_all_to_all_time_s(256, 8, size, 450e9, 10e-6, 50e9, concurrency=16)
    assert sixteen == pytest.approx(math.ceil(255 / 16) * 10e-6)


def test_all_to_all_concurrency_is_a_config_key() -> None:
    default = baseline_report(load_config(SEED_MOE))["baseline"]["dimensions"]["expert"]
    pairwise = baseline_report(load_config(SEED_MOE, ["workload.all_to_all_concurrency=1"]))
    slow = pairwise["baseline"]["dimensions"]["expert"]
    # 4 x 64 All-to-Alls a step: one alpha each, or 255
    assert slow["time_s"] - default["time_s"] == pytest.approx(256 * 254 * 10e-6, rel=1e-6)


def test_ecmp_hashing_is_balls_into_bins() -> None:
    assert expected_max_load(1, 16) == 1.0
    assert expected_max_load(16, 1) == 16.0
    # two flows on two paths collide half the time: E[max] = 1.5
    assert expected_max_load(2, 2) == pytest.approx(1.5, abs=0.01)
    one, four = ecmp_hashing_efficiency(8, 8), ecmp_hashing_efficiency(32, 8)
    assert 0.35 < one < 0.42 and 0.54 < four < 0.6
    assert 1.2 < four / one < 1.8  # Meta's "up to 40%" from QP scaling is this order


def test_ecmp_rehashes_onto_the_paths_left() -> None:
    """A ring crossing each leaf (1 server per leaf), 8 flows over 8 paths: losing a path
    leaves each flow its path's capacity over the busiest path's load among the 7 left."""
    traffic = DimensionTraffic("data", "allreduce", 64, 1e9, 1, "scale_out", 1)
    hardware = NetworkHardware(nics_per_server=8, ecmp_paths=8, load_balancing="ecmp")
    healthy = network_bandwidth_bytes_per_s(traffic, hardware, CapacityScale())
    lost = network_bandwidth_bytes_per_s(
        traffic, hardware, CapacityScale(fabric=7 / 8, fabric_paths_lost=1))
    assert healthy == pytest.approx(50e9 * ecmp_hashing_efficiency(8, 8))
    assert lost == pytest.approx(50e9 * 7 / 8 * ecmp_hashing_efficiency(8, 7))
    assert lost < healthy
    assert lost * expected_max_load(8, 7) == pytest.approx(healthy * expected_max_load(8, 8))


def test_fabric_factor_by_hand() -> None:
    assert fabric_bandwidth_factor(1.0, 4.0) == 0.25
    assert fabric_bandwidth_factor(0.5, 4.0) == 0.5
    assert fabric_bandwidth_factor(0.0, 4.0) == 1.0
    assert fabric_bandwidth_factor(0.5, 1.0, capacity=0.25) == 0.5


def test_retry_window_matches_nccl_table() -> None:
    """NCCL's env docs: timeout 17 -> 3.8 s, 18 -> 7.5 s, 19 -> 15 s, 20 -> 30 s at 7 retries."""
    assert [round(retry_window_s(t), 1) for t in (17, 18, 19, 20)] == [3.8, 7.5, 15.0, 30.1]


def test_dual_tor_server_counts_both_legs_when_healthy() -> None:
    single = workload_model(load_config(SEED_MOE))[2]
    dual = workload_model(load_config(SEED_MOE, ["network.dual_tor=true"]))[2]
    lacp = workload_model(load_config(SEED_MOE, ["network.server_lacp.members=2"]))[2]
    assert dual.nic_bandwidth_bytes_per_s == 2 * single.nic_bandwidth_bytes_per_s
    assert lacp.nic_bandwidth_bytes_per_s == dual.nic_bandwidth_bytes_per_s
