"""Collectives by hand, step time and slowdown of the communication model."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from relplan.comm.baseline import Baseline, baseline
from relplan.comm.collectives import (
    all_to_all_bytes_per_rank,
    all_to_all_time_s,
    allgather_bytes_per_rank,
    allgather_time_s,
    halving_doubling_allreduce_bytes_per_rank,
    halving_doubling_allreduce_time_s,
    hierarchical_allreduce_bytes_per_rank,
    hierarchical_allreduce_time_s,
    point_to_point_bytes_per_rank,
    point_to_point_time_s,
    reduce_scatter_bytes_per_rank,
    reduce_scatter_time_s,
    ring_allreduce_bytes_per_rank,
    ring_allreduce_time_s,
    tree_allreduce_bytes_per_rank,
    tree_allreduce_time_s,
)
from relplan.comm.inputs import (
    CapacityScale,
    NetworkHardware,
    OverlapFractions,
    Parallelism,
    TrainingWorkload,
)
from relplan.comm.step import (
    DimensionTraffic,
    network_bandwidth_bytes_per_s,
    slowdown,
    step_time,
    traffic_per_step,
)

# Small collective: S = 8 MB, alpha = 1 us, B = 1 GB/s, so S/B = 8 ms.
S, ALPHA, B = 8e6, 1e-6, 1e9

FLAT_COLLECTIVES = [
    ring_allreduce_time_s,
    tree_allreduce_time_s,
    halving_doubling_allreduce_time_s,
    reduce_scatter_time_s,
    allgather_time_s,
    all_to_all_time_s,
]


# --- collectives, by hand -------------------------------------------------------------------
@pytest.mark.parametrize(
    ("ranks", "expected_s"),
    [
        (2, 2 * 1 * 1e-6 + (2 * 1 / 2) * 8e-3),  # 2 us + 8 ms
        (4, 2 * 3 * 1e-6 + (2 * 3 / 4) * 8e-3),  # 6 us + 12 ms
        (8, 2 * 7 * 1e-6 + (2 * 7 / 8) * 8e-3),  # 14 us + 14 ms
    ],
)
def test_ring_allreduce_by_hand(ranks: int, expected_s: float) -> None:
    assert ring_allreduce_time_s(ranks, S, ALPHA, B) == pytest.approx(expected_s, rel=1e-12)


@pytest.mark.parametrize(
    ("ranks", "expected_s"),
    [
        (2, 2 * 1 * 1e-6 + 2 * 8e-3),  # log2 2 = 1
        (4, 2 * 2 * 1e-6 + 2 * 8e-3),  # log2 4 = 2
        (8, 2 * 3 * 1e-6 + 2 * 8e-3),  # log2 8 = 3
        (5, 2 * 3 * 1e-6 + 2 * 8e-3),  # ceil(log2 5) = 3
    ],
)
def test_tree_allreduce_by_hand(ranks: int, expected_s: float) -> None:
    assert tree_allreduce_time_s(ranks, S, ALPHA, B) == pytest.approx(expected_s, rel=1e-12)


@pytest.mark.parametrize(
    ("ranks", "expected_s"),
    [
        (2, 2 * 1 * 1e-6 + (2 * 1 / 2) * 8e-3),
        (4, 2 * 2 * 1e-6 + (2 * 3 / 4) * 8e-3),
        (8, 2 * 3 * 1e-6 + (2 * 7 / 8) * 8e-3),
        # 6 ranks: power of two p = 4, fix-up adds 2 steps and 2 whole buffers
        (6, (2 * 2 + 2) * 1e-6 + (2 * 3 / 4 + 2) * 8e-3),
    ],
)
def test_halving_doubling_allreduce_by_hand(ranks: int, expected_s: float) -> None:
    assert halving_doubling_allreduce_time_s(ranks, S, ALPHA, B) == pytest.approx(
        expected_s, rel=1e-12
    )


@pytest.mark.parametrize(
    ("ranks", "expected_s"),
    [
        (2, 1 * 1e-6 + (1 / 2) * 8e-3),
        (4, 3 * 1e-6 + (3 / 4) * 8e-3),
        (8, 7 * 1e-6 + (7 / 8) * 8e-3),
    ],
)
@pytest.mark.parametrize("collective", [reduce_scatter_time_s, allgather_time_s, all_to_all_time_s])
def test_reduce_scatter_allgather_all_to_all_by_hand(collective, ranks, expected_s) -> None:
    assert collective(ranks, S, ALPHA, B) == pytest.approx(expected_s, rel=1e-12)


def test_all_to_all_concurrent_peers_cuts_latency_steps() -> None:
    # 8 ranks, 7 peers sent 4 at a time: ceil(7 / 4) = 2 latency steps
    expected_s = 2 * 1e-6 + (7 / 8) * 8e-3
    assert all_to_all_time_s(8, S, ALPHA, B, concurrent_peers=4) == pytest.approx(expected_s)


def test_point_to_point_by_hand() -> None:
    assert point_to_point_time_s(S, ALPHA, B) == pytest.approx(1e-6 + 8e-3, rel=1e-12)


def test_hierarchical_allreduce_by_hand() -> None:
    # G = 8 GPUs per node, N = 4 nodes, S = 8 GB; NVLink 400 GB/s, 1 us; NIC 50 GB/s, 10 us.
    intra_s = 2 * 7 * 1e-6 + (2 * 7 / 8) * 8e9 / 400e9  # 14 us + 35 ms
    inter_ring_s = 2 * 3 * 10e-6 + (2 * 3 / 4) * (8e9 / 8) / 50e9  # 60 us + 30 ms
    inter_tree_s = 2 * 2 * 10e-6 + (2 * 3 / 4) * (8e9 / 8) / 50e9  # 2 log2(4) steps
    args = (8, 4, 8e9, 1e-6, 400e9, 10e-6, 50e9)
    assert hierarchical_allreduce_time_s(*args) == pytest.approx(intra_s + inter_ring_s)
    assert hierarchical_allreduce_time_s(*args, inter_node_algorithm="tree") == pytest.approx(
        intra_s + inter_tree_s
    )
    assert hierarchical_allreduce_bytes_per_rank(8, 4, 8e9) == pytest.approx(
        ((2 * 7 / 8) * 8e9, (2 * 3 / 4) * 1e9)
    )


def test_hierarchical_beats_flat_ring_latency_at_scale() -> None:
    # 1024 GPUs: flat ring 2 * 1023 network steps vs 2 * 7 NVLink + 2 * 127 network steps.
    flat_s = ring_allreduce_time_s(1024, 0.0, 10e-6, 50e9)
    hier_s = hierarchical_allreduce_time_s(8, 128, 0.0, 1e-6, 400e9, 10e-6, 50e9)
    assert flat_s == pytest.approx(2 * 1023 * 10e-6)
    assert hier_s == pytest.approx(2 * 7 * 1e-6 + 2 * 127 * 10e-6)
    assert hier_s < flat_s


@pytest.mark.parametrize("ranks", [2, 3, 8, 100, 1024])
def test_ring_latency_term_is_exactly_2_n_minus_1_alpha(ranks: int) -> None:
    alpha = 7e-6
    assert ring_allreduce_time_s(ranks, 1e9, alpha, math.inf) == 2 * (ranks - 1) * alpha
    assert ring_allreduce_time_s(ranks, 0.0, alpha, 1e9) == 2 * (ranks - 1) * alpha


@pytest.mark.parametrize("collective", FLAT_COLLECTIVES)
def test_one_rank_costs_nothing(collective) -> None:
    assert collective(1, S, ALPHA, B) == 0.0


def test_one_rank_hierarchical_costs_nothing() -> None:
    assert hierarchical_allreduce_time_s(1, 1, S, ALPHA, B, ALPHA, B) == 0.0


def test_bytes_per_rank_by_hand() -> None:
    assert ring_allreduce_bytes_per_rank(4, 1000.0) == pytest.approx(2 * 3 / 4 * 1000)  # 1500
    assert tree_allreduce_bytes_per_rank(4, 1000.0) == 2000.0
    assert halving_doubling_allreduce_bytes_per_rank(8, 1000.0) == pytest.approx(2 * 7 / 8 * 1000)
    assert halving_doubling_allreduce_bytes_per_rank(6, 1000.0) == pytest.approx(1500 + 2000)
    assert reduce_scatter_bytes_per_rank(4, 1000.0) == pytest.approx(750.0)
    assert allgather_bytes_per_rank(4, 1000.0) == pytest.approx(750.0)
    assert all_to_all_bytes_per_rank(4, 1000.0) == pytest.approx(750.0)
    assert point_to_point_bytes_per_rank(1000.0) == 1000.0
    assert ring_allreduce_bytes_per_rank(1, 1000.0) == tree_allreduce_bytes_per_rank(1, 1e3) == 0


@pytest.mark.parametrize(
    "bad_args",
    [(0, S, ALPHA, B), (2.5, S, ALPHA, B), (2, -1.0, ALPHA, B), (2, S, -1e-6, B), (2, S, ALPHA, 0)],
)
def test_collective_rejects_bad_arguments(bad_args) -> None:
    with pytest.raises(ValueError):
        ring_allreduce_time_s(*bad_args)


# --- the source document's figures ----------------------------------------------------------








# --- the seed's MoE job in the per-dimension model --------------------------------------------
# 10,240 GPUs = TP 8 x dense DP 1,280; EP 256 carved out of DP x TP, so expert DP = 40.
# Hidden size and layers are not in the seed: 8192 and 64 are assumptions for the tests.
SEED_MOE_WORKLOAD = TrainingWorkload(
    dense_parameters=50e9,
    expert_parameters=950e9,
    tokens_per_step=2e6,
    hidden_size=8192,
    layers=64,
    compute_time_s=5.0,
    micro_batches=1,
    top_k=2,
    bytes_per_token_expert=1e3,
)
SEED_MOE_PARALLELISM = Parallelism(data=1280, tensor=8, pipeline=1, expert=256)
SEED_HARDWARE = NetworkHardware()  # 450 GB/s NVLink, 400 Gb/s NIC per GPU, 10 us RTT, 1:1
NO_OVERLAP = OverlapFractions(data=0.0, tensor=0.0, pipeline=0.0, expert=0.0)


def test_seed_moe_traffic_matches_seed_volumes() -> None:
    traffic = {t.dimension: t for t in traffic_per_step(SEED_MOE_WORKLOAD, SEED_MOE_PARALLELISM)}
    assert SEED_MOE_PARALLELISM.gpus == 10_240
    # one dispatch: 2e6 / (1280 x 1 x 8) tokens per GPU x 2 experts x 1 KB
    assert traffic["expert"].buffer_bytes == pytest.approx(2e6 / 10_240 * 2 * 1e3)
    # summed over the 10,240 GPUs this is the seed's 4 GB All-to-All
    assert traffic["expert"].buffer_bytes * 10_240 == pytest.approx(4e9)
    assert traffic["expert"].path == "scale_out"
    assert traffic["expert"].collectives_per_step == 4 * 64 * 1
    # expert-data-parallel group is the seed's "DP 40"
    assert traffic["expert_data"].group_ranks == 10_240 // 256 == 40
    assert traffic["expert_data"].buffer_bytes == pytest.approx(950e9 / 256 * 4)
    # dense gradients: 50e9 / TP 8 x 4 B = 25 GB AllReduced over 1,280 ranks
    assert traffic["data"].buffer_bytes == pytest.approx(50e9 / 8 * 4)
    assert traffic["data"].volume_per_gpu_bytes == pytest.approx(2 * 1279 / 1280 * 25e9)
    assert traffic["tensor"].path == "nvlink"


def test_tp_is_latency_bound_dp_is_bandwidth_bound() -> None:
    result = baseline(SEED_MOE_WORKLOAD, SEED_MOE_PARALLELISM, SEED_HARDWARE)
    tensor, data = result.dimension("tensor"), result.dimension("data")
    assert tensor.latency_share > data.latency_share
    assert data.latency_share < 0.01  # 25 GB gradients: bandwidth bound
    assert tensor.latency_share > 0.1  # 3.2 MB activations x 256 per step: latency matters


def test_traffic_per_step_by_hand() -> None:
    workload = TrainingWorkload(
        dense_parameters=8e9,
        tokens_per_step=2**20,
        hidden_size=4096,
        layers=32,
        compute_time_s=1.0,
        micro_batches=4,
        bytes_per_gradient=2,
        bytes_per_activation=2,
    )
    traffic = {t.dimension: t for t in traffic_per_step(workload, Parallelism(4, 2, 2, 1))}
    # data: 8e9 / (TP 2 x PP 2) x 2 B = 4 GB, ring-equivalent 2 x 3/4 of it
    assert traffic["data"].buffer_bytes == pytest.approx(4e9)
    assert traffic["data"].volume_per_gpu_bytes == pytest.approx(2 * 3 / 4 * 4e9)
    # tensor: 2^20 / (DP 4 x 4 micro-batches) = 65,536 tokens x 4096 x 2 B per AllReduce
    activation = 65_536 * 4096 * 2
    assert traffic["tensor"].buffer_bytes == pytest.approx(activation)
    assert traffic["tensor"].collectives_per_step == 4 * (32 // 2) * 4  # 256
    assert traffic["tensor"].volume_per_gpu_bytes == pytest.approx(256 * (2 * 1 / 2) * activation)
    # pipeline: 2 sends per micro-batch of the activation split over TP 2
    assert traffic["pipeline"].collectives_per_step == 8
    assert traffic["pipeline"].volume_per_gpu_bytes == pytest.approx(8 * activation / 2)
    assert traffic["expert"].volume_per_gpu_bytes == 0.0
    assert traffic["expert_data"].volume_per_gpu_bytes == 0.0


def test_parallelism_and_overlap_validation() -> None:
    with pytest.raises(ValueError):
        Parallelism(data=40, tensor=8, pipeline=1, expert=256)  # 256 does not divide 320
    with pytest.raises(ValueError):
        OverlapFractions(data=0.8, expert=0.5)  # slices of compute overlap
    with pytest.raises(ValueError):
        CapacityScale(fabric=0.0)


# --- step time, degraded capacity, slowdown -------------------------------------------------
# Data parallel only: 1e9 params x 4 B = 4 GB over 4 ranks, ring, 50 GB/s, alpha = RTT = 10 us.
DP_WORKLOAD = TrainingWorkload(
    dense_parameters=1e9, tokens_per_step=1e5, hidden_size=1024, layers=8, compute_time_s=1.0
)
DP_PARALLELISM = Parallelism(data=4)
DP_RING_S = 2 * 3 * 10e-6 + (2 * 3 / 4) * 4e9 / 50e9  # 60 us + 120 ms
# One GPU and one NIC per server: every rank is its own server, so the rings are flat.
DP_HARDWARE = NetworkHardware(gpus_per_server=1, nics_per_server=1)
# A flat 4-rank ring, one rank per server and one server per leaf: every hop crosses.
DP_RING = DimensionTraffic("data", "allreduce", 4, 4e9, 1, "scale_out", 1)


def test_step_time_by_hand() -> None:
    assert step_time(
        DP_WORKLOAD, DP_PARALLELISM, DP_HARDWARE, overlap=NO_OVERLAP, allreduce_algorithm="ring"
    ) == pytest.approx(1.0 + DP_RING_S)
    # 10% of compute hides 0.1 s of it
    partial = OverlapFractions(data=0.1)
    assert step_time(
        DP_WORKLOAD, DP_PARALLELISM, DP_HARDWARE, overlap=partial, allreduce_algorithm="ring"
    ) == pytest.approx(1.0 + DP_RING_S - 0.1)
    # fully hidden behind 80% of compute
    assert step_time(DP_WORKLOAD, DP_PARALLELISM, DP_HARDWARE) == pytest.approx(1.0)


def test_slowdown_by_hand_for_half_fabric() -> None:
    degraded_ring_s = 2 * 3 * 10e-6 + (2 * 3 / 4) * 4e9 / 25e9  # bandwidth term doubles
    result = slowdown(
        DP_WORKLOAD,
        DP_PARALLELISM,
        DP_HARDWARE,
        CapacityScale(fabric=0.5),
        overlap=NO_OVERLAP,
        allreduce_algorithm="ring",
    )
    assert result == pytest.approx((1.0 + degraded_ring_s) / (1.0 + DP_RING_S))


def test_slowdown_is_one_at_full_capacity() -> None:
    args = (SEED_MOE_WORKLOAD, SEED_MOE_PARALLELISM, SEED_HARDWARE, CapacityScale())
    for overlap in (NO_OVERLAP, OverlapFractions()):
        assert slowdown(*args, overlap) == 1.0


@pytest.mark.parametrize("spines", [2, 4, 16, 128])
def test_losing_one_spine_cuts_crossing_bandwidth_by_one_over_spines(spines: int) -> None:
    hardware = NetworkHardware(ecmp_paths=spines)
    full = network_bandwidth_bytes_per_s(DP_RING, hardware, CapacityScale())
    lost = CapacityScale(fabric=1 - 1 / spines, fabric_paths_lost=1)
    degraded = network_bandwidth_bytes_per_s(DP_RING, hardware, lost)
    assert full == 50e9
    assert degraded / full == pytest.approx(1 - 1 / spines)


def test_spine_loss_is_free_on_an_undersubscribed_fabric() -> None:
    # 1:2 (uplinks twice the downlinks): the uplinks give 100 GB/s, the NIC's 50 GB/s binds.
    hardware = NetworkHardware(oversubscription=0.5, ecmp_paths=16)
    degraded = CapacityScale(fabric=15 / 16, fabric_paths_lost=1)
    assert network_bandwidth_bytes_per_s(DP_RING, hardware, degraded) == 50e9


def test_ecmp_and_oversubscription_reduce_fabric_share() -> None:
    hardware = NetworkHardware(oversubscription=2.0, ecmp_efficiency=0.8)
    assert network_bandwidth_bytes_per_s(DP_RING, hardware, CapacityScale()) == pytest.approx(
        50e9 * 0.8 / 2.0
    )


def test_dual_homed_nic_port_loss_halves_server_bandwidth() -> None:
    bandwidth = network_bandwidth_bytes_per_s(DP_RING, SEED_HARDWARE, CapacityScale(server_nic=0.5))
    assert bandwidth == pytest.approx(50e9 / 2)


def test_nvlink_loss_slows_only_through_tensor_parallel() -> None:
    half_nvlink = CapacityScale(nvlink=0.5)
    moe = slowdown(SEED_MOE_WORKLOAD, SEED_MOE_PARALLELISM, SEED_HARDWARE, half_nvlink, NO_OVERLAP)
    assert moe > 1.0
    dp_only = slowdown(DP_WORKLOAD, DP_PARALLELISM, DP_HARDWARE, half_nvlink, NO_OVERLAP)
    assert dp_only == 1.0


capacity_fraction = st.floats(min_value=0.05, max_value=1.0)
shrink = st.floats(min_value=0.05, max_value=1.0)


@settings(max_examples=150, deadline=None)
@given(
    nvlink=capacity_fraction,
    fabric=capacity_fraction,
    server_nic=capacity_fraction,
    nvlink_shrink=shrink,
    fabric_shrink=shrink,
    nic_shrink=shrink,
    exposed=st.booleans(),
)
def test_slowdown_is_monotone_in_capacity(
    nvlink, fabric, server_nic, nvlink_shrink, fabric_shrink, nic_shrink, exposed
) -> None:
    overlap = NO_OVERLAP if exposed else OverlapFractions()
    higher = CapacityScale(nvlink, fabric, server_nic)
    lower = CapacityScale(nvlink * nvlink_shrink, fabric * fabric_shrink, server_nic * nic_shrink)
    args = (SEED_MOE_WORKLOAD, SEED_MOE_PARALLELISM, SEED_HARDWARE)
    slow_higher = slowdown(*args, higher, overlap)
    slow_lower = slowdown(*args, lower, overlap)
    assert slow_higher >= 1.0
    assert slow_lower >= slow_higher * (1 - 1e-12)


def test_slowdown_grows_strictly_when_communication_is_exposed() -> None:
    args = (SEED_MOE_WORKLOAD, SEED_MOE_PARALLELISM, SEED_HARDWARE)
    results = [
        slowdown(*args, CapacityScale(fabric=f, server_nic=f), NO_OVERLAP) for f in (1, 0.75, 0.5)
    ]
    assert results[0] == 1.0 < results[1] < results[2]


def test_auto_algorithm_is_no_slower_than_ring_or_tree() -> None:
    args = (SEED_MOE_WORKLOAD, SEED_MOE_PARALLELISM, SEED_HARDWARE, None, NO_OVERLAP)
    auto = step_time(*args, allreduce_algorithm="auto")
    assert auto <= step_time(*args, allreduce_algorithm="ring")
    assert auto <= step_time(*args, allreduce_algorithm="tree")


# --- baseline -------------------------------------------------------------------------------
def test_baseline_dp_only_by_hand() -> None:
    result = baseline(
        DP_WORKLOAD, DP_PARALLELISM, DP_HARDWARE, overlap=NO_OVERLAP, allreduce_algorithm="ring"
    )
    data = result.dimension("data")
    assert data.time_s == pytest.approx(DP_RING_S)
    assert data.latency_share == pytest.approx(60e-6 / DP_RING_S)
    assert data.volume_per_step_bytes == pytest.approx(2 * 3 / 4 * 4e9)
    assert data.bandwidth_needed_bytes_per_s == pytest.approx(2 * 3 / 4 * 4e9 / (1.0 * 0.7))
    assert data.bandwidth_available_bytes_per_s == 50e9
    assert data.exposed_s == pytest.approx(DP_RING_S)
    assert result.step_time_s == pytest.approx(1.0 + DP_RING_S)
    # RTT 10 -> 50 us adds 2 (n - 1) x 40 us to a 4-rank ring (alpha = one RTT per step)
    assert result.step_time_rtt_high_s - result.step_time_rtt_low_s == pytest.approx(6 * 40e-6)
    # the seed's DP-only figure for this model: 1e9 x 4 x 2 / (1 s x 0.7)
    assert result.dp_only_bandwidth_per_gpu_bytes_per_s == pytest.approx(8e9 / 0.7)


def test_baseline_alpha_per_rtt_half_is_one_way_latency() -> None:
    hardware = NetworkHardware(gpus_per_server=1, nics_per_server=1, alpha_per_rtt=0.5)
    result = baseline(
        DP_WORKLOAD, DP_PARALLELISM, hardware, overlap=NO_OVERLAP, allreduce_algorithm="ring"
    )
    assert result.step_time_rtt_high_s - result.step_time_rtt_low_s == pytest.approx(6 * 20e-6)


def test_baseline_expert_need_includes_burst_and_headroom() -> None:
    result = baseline(
        SEED_MOE_WORKLOAD,
        SEED_MOE_PARALLELISM,
        SEED_HARDWARE,
        burst_factor=4.0,
        headroom_fraction=0.25,
    )
    expert = result.dimension("expert")
    average = expert.volume_per_step_bytes / (5.0 * 0.7)
    assert expert.bandwidth_needed_bytes_per_s == pytest.approx(average * 4.0 * 1.25)
    assert expert.bandwidth_needed_bytes_per_s < expert.bandwidth_available_bytes_per_s


def test_baseline_totals_and_json() -> None:
    result = baseline(SEED_MOE_WORKLOAD, SEED_MOE_PARALLELISM, SEED_HARDWARE)
    assert isinstance(result, Baseline)
    assert result.communication_time_s == pytest.approx(sum(d.time_s for d in result.dimensions))
    assert result.step_time_s == pytest.approx(
        result.compute_time_s + sum(d.exposed_s for d in result.dimensions)
    )
    assert result.step_time_rtt_high_s > result.step_time_rtt_low_s
    encoded = json.loads(json.dumps(result.to_dict()))
    assert set(encoded["dimensions"]) == {"data", "tensor", "pipeline", "expert", "expert_data"}
    assert encoded["step_time_s"] == pytest.approx(result.step_time_s)
    assert encoded["dimensions"]["tensor"]["path"] == "nvlink"
