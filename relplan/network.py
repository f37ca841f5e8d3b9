"""Communication model: alpha-beta collectives, traffic per parallelism, step time, baseline.

Pure functions and frozen dataclasses with no dependency on the rest of relplan. Units are SI
throughout: bytes, seconds, bytes per second (``*_bits_per_s`` only where the source quotes
bits). Sources: Thakur, Rabenseifner & Gropp (2005) for the classical collective costs, NCCL
``tuning.cc`` and nccl-tests ``PERFORMANCE.md`` for the tree model and bus-bandwidth factors,
and the seed document (shared/seed/) for the bandwidth formula and the MoE worked case; see
shared/reference/comm-model.md.

Modelling choices (each documented where it is made):

- A collective costs ``latency_steps * alpha + bytes_per_rank / B``; ``bytes_per_rank`` is the
  volume on one rank's critical path (the beta term's volume).
- ``alpha`` on the scale-out path is ``network_rtt_s * alpha_per_rtt``; the default
  ``alpha_per_rtt = 1`` follows the seed ("ring AllReduce needs 2(N-1) RTTs"); 0.5 gives the
  one-way latency of the textbook alpha.
- Exposed communication is computed per dimension: each dimension hides behind its own,
  disjoint share of the compute time (its overlap fraction; the fractions sum to <= 1).
- All scale-out traffic is assumed to cross the spine layer (conservative for rail-local rings).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from typing import Any, Literal

HOURS_PER_YEAR = 8766.0
BITS_PER_BYTE = 8.0

AllReduceAlgorithm = Literal["ring", "tree", "halving_doubling", "auto"]
DIMENSIONS = ("data", "tensor", "pipeline", "expert", "expert_data")


# --------------------------------------------------------------------------------------------
# Alpha-beta collective costs
# --------------------------------------------------------------------------------------------
def _check_collective(
    ranks: int, buffer_bytes: float, latency_s: float, bandwidth_bytes_per_s: float
) -> None:
    if isinstance(ranks, bool) or int(ranks) != ranks or ranks < 1:
        raise ValueError(f"ranks must be a positive integer, got {ranks!r}")
    if not buffer_bytes >= 0:
        raise ValueError(f"buffer_bytes must be >= 0, got {buffer_bytes!r}")
    if not latency_s >= 0:
        raise ValueError(f"latency_s must be >= 0, got {latency_s!r}")
    if not bandwidth_bytes_per_s > 0:
        raise ValueError(f"bandwidth_bytes_per_s must be > 0, got {bandwidth_bytes_per_s!r}")


def _ceil_log2(ranks: int) -> int:
    return (int(ranks) - 1).bit_length()


def ring_allreduce_bytes_per_rank(ranks: int, buffer_bytes: float) -> float:
    """Bytes each rank sends in a ring AllReduce: ``2(n-1)/n * S``."""
    return 2.0 * (ranks - 1) / ranks * buffer_bytes


def tree_allreduce_bytes_per_rank(ranks: int, buffer_bytes: float) -> float:
    """Bytes on a rank's path in NCCL's double binary tree: ``~2 S`` (0 for one rank)."""
    return 2.0 * buffer_bytes if ranks > 1 else 0.0


def halving_doubling_allreduce_bytes_per_rank(ranks: int, buffer_bytes: float) -> float:
    """Critical-path bytes of recursive halving/doubling AllReduce (with non-power-of-2 fix-up).

    ``2(p-1)/p * S`` for the largest power of two ``p <= n``, plus ``2 S`` when ``n`` is not a
    power of two (the extra ranks send their buffer in and receive the result back).
    """
    power = 1 << (int(ranks).bit_length() - 1)
    extra = 2.0 * buffer_bytes if power != ranks else 0.0
    return 2.0 * (power - 1) / power * buffer_bytes + extra


def reduce_scatter_bytes_per_rank(ranks: int, buffer_bytes: float) -> float:
    """Bytes each rank sends in a ring ReduceScatter of an ``S``-byte array: ``(n-1)/n * S``."""
    return (ranks - 1) / ranks * buffer_bytes


def allgather_bytes_per_rank(ranks: int, buffer_bytes: float) -> float:
    """Bytes each rank sends in a ring AllGather of an ``S``-byte result: ``(n-1)/n * S``."""
    return (ranks - 1) / ranks * buffer_bytes


def all_to_all_bytes_per_rank(ranks: int, buffer_bytes: float) -> float:
    """Bytes each rank sends to others in an All-to-All of ``S`` bytes per rank: ``(n-1)/n S``."""
    return (ranks - 1) / ranks * buffer_bytes


def point_to_point_bytes_per_rank(buffer_bytes: float) -> float:
    """Bytes the sender moves in one send/receive: ``S``."""
    return float(buffer_bytes)


def hierarchical_allreduce_bytes_per_rank(
    gpus_per_node: int, nodes: int, buffer_bytes: float
) -> tuple[float, float]:
    """Bytes per GPU of a two-level AllReduce, as ``(over NVLink, over the NIC)``.

    Intra-node ring ``2(G-1)/G * S`` and inter-node ring on a ``S/G`` shard ``2(N-1)/N * S/G``.
    """
    return (
        ring_allreduce_bytes_per_rank(gpus_per_node, buffer_bytes),
        ring_allreduce_bytes_per_rank(nodes, buffer_bytes / gpus_per_node),
    )


def ring_allreduce_time_s(
    ranks: int, buffer_bytes: float, latency_s: float, bandwidth_bytes_per_s: float
) -> float:
    """Ring AllReduce time (Thakur et al. 2005; NCCL ring).

    ``T = 2(n-1) alpha + 2(n-1)/n * S / B``.

    Parameters
    ----------
    ranks : int
        Ranks in the collective, ``n`` (1 costs 0).
    buffer_bytes : float
        AllReduce buffer ``S``, bytes.
    latency_s : float
        Per-step latency ``alpha``, seconds.
    bandwidth_bytes_per_s : float
        Per-rank injection bandwidth ``B`` (one direction), bytes/s; ``inf`` allowed.

    Returns
    -------
    float
        Time, seconds.
    """
    _check_collective(ranks, buffer_bytes, latency_s, bandwidth_bytes_per_s)
    bytes_moved = ring_allreduce_bytes_per_rank(ranks, buffer_bytes)
    return 2 * (ranks - 1) * latency_s + bytes_moved / bandwidth_bytes_per_s


def tree_allreduce_time_s(
    ranks: int, buffer_bytes: float, latency_s: float, bandwidth_bytes_per_s: float
) -> float:
    """Pipelined double-binary-tree AllReduce time, as NCCL models it (comm-model.md 1.2, 1.4).

    ``T = 2 ceil(log2 n) alpha + 2 S / B`` (NCCL: tree algbw = busbw / 2, independent of ``n``).
    Parameters and return as :func:`ring_allreduce_time_s` (seconds, bytes, bytes/s).
    """
    _check_collective(ranks, buffer_bytes, latency_s, bandwidth_bytes_per_s)
    bytes_moved = tree_allreduce_bytes_per_rank(ranks, buffer_bytes)
    return 2 * _ceil_log2(ranks) * latency_s + bytes_moved / bandwidth_bytes_per_s


def halving_doubling_allreduce_time_s(
    ranks: int, buffer_bytes: float, latency_s: float, bandwidth_bytes_per_s: float
) -> float:
    """Recursive halving/doubling (Rabenseifner) AllReduce time (Thakur et al. 2005).

    Power of two: ``2 log2(n) alpha + 2(n-1)/n * S / B``. Otherwise, with ``p`` the largest
    power of two below ``n``, the fix-up adds two steps of a whole buffer:
    ``(2 log2(p) + 2) alpha + (2(p-1)/p + 2) S / B``. Units as :func:`ring_allreduce_time_s`.
    """
    _check_collective(ranks, buffer_bytes, latency_s, bandwidth_bytes_per_s)
    power = 1 << (int(ranks).bit_length() - 1)
    steps = 2 * (power.bit_length() - 1) + (2 if power != ranks else 0)
    bytes_moved = halving_doubling_allreduce_bytes_per_rank(ranks, buffer_bytes)
    return steps * latency_s + bytes_moved / bandwidth_bytes_per_s


def reduce_scatter_time_s(
    ranks: int, buffer_bytes: float, latency_s: float, bandwidth_bytes_per_s: float
) -> float:
    """Ring ReduceScatter time: ``(n-1) alpha + (n-1)/n * S / B``; ``S`` = whole input, bytes.

    Units as :func:`ring_allreduce_time_s` (seconds, bytes, bytes/s).
    """
    _check_collective(ranks, buffer_bytes, latency_s, bandwidth_bytes_per_s)
    bytes_moved = reduce_scatter_bytes_per_rank(ranks, buffer_bytes)
    return (ranks - 1) * latency_s + bytes_moved / bandwidth_bytes_per_s


def allgather_time_s(
    ranks: int, buffer_bytes: float, latency_s: float, bandwidth_bytes_per_s: float
) -> float:
    """Ring AllGather time: ``(n-1) alpha + (n-1)/n * S / B``; ``S`` = gathered result, bytes.

    Units as :func:`ring_allreduce_time_s` (seconds, bytes, bytes/s).
    """
    _check_collective(ranks, buffer_bytes, latency_s, bandwidth_bytes_per_s)
    bytes_moved = allgather_bytes_per_rank(ranks, buffer_bytes)
    return (ranks - 1) * latency_s + bytes_moved / bandwidth_bytes_per_s


def all_to_all_time_s(
    ranks: int,
    buffer_bytes: float,
    latency_s: float,
    bandwidth_bytes_per_s: float,
    concurrent_peers: int = 1,
) -> float:
    """Pairwise All-to-All time: ``(n-1) alpha + (n-1)/n * S / B``.

    ``S`` is the total each rank sends (bytes), ``B`` the effective per-rank bandwidth (bytes/s;
    reduce it for less than full bisection). Returns seconds. With ``concurrent_peers = k > 1``
    the sends overlap in groups of ``k`` and the latency term is ``ceil((n-1)/k) alpha`` (NCCL
    and DeepEP post all peers at once; the default 1 is the classical pairwise exchange).
    """
    _check_collective(ranks, buffer_bytes, latency_s, bandwidth_bytes_per_s)
    _require(int(concurrent_peers) == concurrent_peers >= 1, "concurrent_peers must be >= 1")
    bytes_moved = all_to_all_bytes_per_rank(ranks, buffer_bytes)
    return -(-(ranks - 1) // concurrent_peers) * latency_s + bytes_moved / bandwidth_bytes_per_s


def point_to_point_time_s(
    buffer_bytes: float, latency_s: float, bandwidth_bytes_per_s: float
) -> float:
    """Send/receive time: ``alpha + S / B`` (seconds; bytes; bytes/s)."""
    _check_collective(1, buffer_bytes, latency_s, bandwidth_bytes_per_s)
    return latency_s + point_to_point_bytes_per_rank(buffer_bytes) / bandwidth_bytes_per_s


def hierarchical_allreduce_time_s(
    gpus_per_node: int,
    nodes: int,
    buffer_bytes: float,
    nvlink_latency_s: float,
    nvlink_bandwidth_bytes_per_s: float,
    network_latency_s: float,
    nic_bandwidth_bytes_per_s: float,
    inter_node_algorithm: Literal["ring", "tree"] = "ring",
) -> float:
    """Two-level AllReduce over ``G`` GPUs per node and ``N`` nodes (comm-model.md 1.2).

    ``T = 2(G-1) alpha_nvl + 2(G-1)/G * S / B_nvl + L_net + 2(N-1)/N * (S/G) / B_nic``, where
    ``G`` parallel inter-node collectives (one per rail) each carry an ``S/G`` shard and
    ``L_net = 2(N-1) alpha_net`` (ring) or ``2 ceil(log2 N) alpha_net`` (tree).

    Parameters
    ----------
    gpus_per_node, nodes : int
        ``G`` and ``N``.
    buffer_bytes : float
        AllReduce buffer ``S``, bytes.
    nvlink_latency_s, network_latency_s : float
        Per-step latency inside a node and between nodes, seconds.
    nvlink_bandwidth_bytes_per_s, nic_bandwidth_bytes_per_s : float
        Per-GPU NVLink and NIC bandwidth (one direction), bytes/s.
    inter_node_algorithm : {"ring", "tree"}
        Latency term of the inter-node phase.

    Returns
    -------
    float
        Time, seconds.
    """
    _check_collective(gpus_per_node, buffer_bytes, nvlink_latency_s, nvlink_bandwidth_bytes_per_s)
    _check_collective(nodes, buffer_bytes, network_latency_s, nic_bandwidth_bytes_per_s)
    if inter_node_algorithm not in ("ring", "tree"):
        raise ValueError(f"inter_node_algorithm must be 'ring' or 'tree': {inter_node_algorithm!r}")
    nvlink_bytes, nic_bytes = hierarchical_allreduce_bytes_per_rank(
        gpus_per_node, nodes, buffer_bytes
    )
    inter_steps = 2 * (nodes - 1) if inter_node_algorithm == "ring" else 2 * _ceil_log2(nodes)
    return (
        2 * (gpus_per_node - 1) * nvlink_latency_s
        + nvlink_bytes / nvlink_bandwidth_bytes_per_s
        + inter_steps * network_latency_s
        + nic_bytes / nic_bandwidth_bytes_per_s
    )


_ALLREDUCE_TIME: dict[str, Callable[[int, float, float, float], float]] = {
    "ring": ring_allreduce_time_s,
    "tree": tree_allreduce_time_s,
    "halving_doubling": halving_doubling_allreduce_time_s,
}


# --------------------------------------------------------------------------------------------
# The source document's figures
# --------------------------------------------------------------------------------------------
def required_bandwidth_per_gpu_bytes_per_s(
    parameters: float, bytes_per_gradient: float, step_compute_time_s: float, comm_efficiency: float
) -> float:
    """Seed formula for per-GPU bandwidth of pure data parallelism.

    ``params * bytes_per_gradient * 2 / (step_compute_time * comm_efficiency)``; the factor 2 is
    the ring AllReduce's ``2(n-1)/n`` for large ``n``. 175e9 x 4 x 2 / (5 s x 0.7) = 400 GB/s.

    Parameters
    ----------
    parameters : float
        Model parameters synchronised by data parallelism.
    bytes_per_gradient : float
        Bytes per gradient element (4 for fp32, 2 for bf16).
    step_compute_time_s : float
        Compute time of one step, seconds.
    comm_efficiency : float
        Fraction of line rate achieved, in (0, 1].

    Returns
    -------
    float
        Bandwidth per GPU, bytes/s.
    """
    if not (step_compute_time_s > 0 and 0 < comm_efficiency <= 1):
        raise ValueError("step_compute_time_s must be > 0 and comm_efficiency in (0, 1]")
    return parameters * bytes_per_gradient * 2.0 / (step_compute_time_s * comm_efficiency)


def bits_per_s(bytes_per_s: float) -> float:
    """Convert bytes/s to bits/s (x 8)."""
    return bytes_per_s * BITS_PER_BYTE


def gradient_bytes_per_gpu(parameters: float, bytes_per_gradient: float) -> float:
    """Gradient bytes each data-parallel GPU holds per step: 175e9 x 4 B = 700 GB."""
    return parameters * bytes_per_gradient


def cluster_gradient_bytes_per_step(
    parameters: float, bytes_per_gradient: float, gpus: int
) -> float:
    """Seed's cluster-total view: gradient bytes per GPU x GPUs (700 GB x 5,000 = 3.5 PB)."""
    return gradient_bytes_per_gpu(parameters, bytes_per_gradient) * gpus


@dataclass(frozen=True)
class MoeTrafficEstimate:
    """The seed's average-load arithmetic for an MoE job (bytes, bytes/s)."""

    all_to_all_bytes_per_step: float
    dp_gradient_bytes_per_step: float
    dp_gradient_bytes_per_group: float
    average_bandwidth_per_gpu_bytes_per_s: float
    peak_bandwidth_per_gpu_bytes_per_s: float
    provisioned_bandwidth_per_gpu_bytes_per_s: float


def moe_traffic_estimate(
    tokens_per_step: float,
    top_k: int,
    bytes_per_token_expert: float,
    dense_parameters: float,
    bytes_per_gradient: float,
    data_parallel_groups: int,
    step_time_s: float,
    burst_factor: float = 4.0,
    headroom_fraction: float = 0.25,
) -> MoeTrafficEstimate:
    """Reproduce the seed's MoE worked case, literally.

    All-to-All = tokens x top_k x payload (2e6 x 2 x 1 KB = 4 GB); DP gradients = dense params x
    bytes x 2 (50e9 x 4 x 2 = 400 GB), per group / DP (10 GB); average per GPU =
    (All-to-All + per-group gradients) / step time ((4 + 10) GB / 5 s = 2.8 GB/s). Peak = average
    x burst factor (seed: 3-5x); provisioned = peak x (1 + headroom) (seed: 20-30%).

    Parameters
    ----------
    tokens_per_step : float
        Tokens per training step.
    top_k : int
        Experts each token is routed to.
    bytes_per_token_expert : float
        Payload per token-expert pair, bytes.
    dense_parameters : float
        Non-expert parameters.
    bytes_per_gradient : float
        Bytes per gradient element.
    data_parallel_groups : int
        Data-parallel degree the gradient volume is divided by.
    step_time_s : float
        Step time, seconds.
    burst_factor, headroom_fraction : float
        Peak over average, and provisioning headroom.

    Returns
    -------
    MoeTrafficEstimate
        Volumes in bytes, bandwidths in bytes/s.
    """
    all_to_all = tokens_per_step * top_k * bytes_per_token_expert
    gradients = dense_parameters * bytes_per_gradient * 2.0
    per_group = gradients / data_parallel_groups
    average = (all_to_all + per_group) / step_time_s
    peak = average * burst_factor
    return MoeTrafficEstimate(
        all_to_all, gradients, per_group, average, peak, peak * (1.0 + headroom_fraction)
    )


def cluster_mtbf_hours(component_mtbf_hours: float, count: int) -> float:
    """Mean time between failures of ``count`` independent components in series.

    ``component MTBF / count``: a 5-year GPU MTBF (5 x 8766 h) over 10,000 GPUs is 4.38 h.

    Parameters
    ----------
    component_mtbf_hours : float
        MTBF of one component, hours.
    count : int
        Number of components.

    Returns
    -------
    float
        Cluster MTBF, hours.
    """
    if not (component_mtbf_hours > 0 and count >= 1):
        raise ValueError("component_mtbf_hours must be > 0 and count >= 1")
    return component_mtbf_hours / count


# --------------------------------------------------------------------------------------------
# Inputs: workload, parallelism, hardware, capacity, overlap
# --------------------------------------------------------------------------------------------
def _require(condition: bool, message: str) -> None:
    if not condition:
        raise ValueError(message)


@dataclass(frozen=True)
class TrainingWorkload:
    """What one training step computes and synchronises.

    ``bytes_per_token_expert`` defaults to ``hidden_size * bytes_per_activation``;
    ``moe_layers`` defaults to ``layers`` when ``expert_parameters > 0``, else 0.
    ``tp_allreduces_per_layer`` counts forward + backward per micro-batch (Megatron: 2 + 2).
    """

    dense_parameters: float
    tokens_per_step: float
    hidden_size: int
    layers: int
    compute_time_s: float
    micro_batches: int = 1
    expert_parameters: float = 0.0
    moe_layers: int | None = None
    top_k: int = 2
    bytes_per_gradient: float = 4.0
    bytes_per_activation: float = 2.0
    bytes_per_token_expert: float | None = None
    tp_allreduces_per_layer: int = 4

    def __post_init__(self) -> None:
        _require(min(self.dense_parameters, self.expert_parameters) >= 0, "parameters must be >= 0")
        _require(self.tokens_per_step > 0 < self.hidden_size, "tokens, hidden_size must be > 0")
        _require(self.layers >= 1 and self.micro_batches >= 1, "layers, micro_batches must be >= 1")
        _require(self.compute_time_s > 0, "compute_time_s must be > 0")
        _require(self.bytes_per_gradient > 0 and self.bytes_per_activation > 0, "bytes must be > 0")

    @property
    def moe_layer_count(self) -> int:
        if self.moe_layers is not None:
            return self.moe_layers
        return self.layers if self.expert_parameters > 0 else 0

    @property
    def token_expert_bytes(self) -> float:
        if self.bytes_per_token_expert is not None:
            return self.bytes_per_token_expert
        return self.hidden_size * self.bytes_per_activation


@dataclass(frozen=True)
class Parallelism:
    """Parallel degrees, Megatron-Core style.

    GPUs = data x tensor x pipeline. Expert-parallel groups are carved out of the data x tensor
    ranks of a stage, so ``expert`` must divide ``data * tensor``; expert weights are replicated
    over ``data * tensor / expert`` ranks (the expert-data-parallel group). In the seed's MoE case
    (10,240 GPUs, TP 8, EP 256) dense DP is 1,280 and expert DP is 40 (the seed's "DP 40").
    """

    data: int = 1
    tensor: int = 1
    pipeline: int = 1
    expert: int = 1

    def __post_init__(self) -> None:
        degrees = (self.data, self.tensor, self.pipeline, self.expert)
        _require(all(int(d) == d and d >= 1 for d in degrees), "degrees must be integers >= 1")
        _require((self.data * self.tensor) % self.expert == 0, "expert must divide data * tensor")

    @property
    def gpus(self) -> int:
        return self.data * self.tensor * self.pipeline

    @property
    def expert_data(self) -> int:
        return self.data * self.tensor // self.expert


@dataclass(frozen=True)
class NetworkHardware:
    """Per-GPU links. Defaults: H100-class node, one 400 Gb/s NIC per GPU (comm-model.md 5).

    Scale-out ``alpha = network_rtt_s * alpha_per_rtt`` (1.0: the seed's one RTT per sync step).
    ``nvlink_latency_s`` is NCCL 2.30.7's NVLink ring Simple per-step latency (3.4 us).
    ``all_to_all_concurrent_peers``: see :func:`all_to_all_time_s` (1 = pairwise, ``(n-1)`` steps).
    """

    gpus_per_server: int = 8
    nvlink_bandwidth_bytes_per_s: float = 450e9
    nvlink_latency_s: float = 3.4e-6
    nic_bandwidth_bytes_per_s: float = 50e9
    network_rtt_s: float = 10e-6
    alpha_per_rtt: float = 1.0
    oversubscription: float = 1.0
    ecmp_efficiency: float = 1.0
    all_to_all_concurrent_peers: int = 1

    def __post_init__(self) -> None:
        _require(self.gpus_per_server >= 1, "gpus_per_server must be >= 1")
        _require(
            self.nvlink_bandwidth_bytes_per_s > 0 and self.nic_bandwidth_bytes_per_s > 0,
            "bandwidths must be > 0",
        )
        _require(
            self.nvlink_latency_s >= 0 and self.network_rtt_s >= 0 and self.alpha_per_rtt >= 0,
            "latencies must be >= 0",
        )
        _require(self.oversubscription > 0, "oversubscription must be > 0")
        _require(0 < self.ecmp_efficiency <= 1, "ecmp_efficiency must be in (0, 1]")

    @property
    def network_latency_s(self) -> float:
        return self.network_rtt_s * self.alpha_per_rtt


@dataclass(frozen=True)
class CapacityScale:
    """Remaining fraction of each path's bandwidth, in (0, 1]; 1 = healthy."""

    nvlink: float = 1.0
    fabric: float = 1.0
    server_nic: float = 1.0

    def __post_init__(self) -> None:
        _require(
            all(0 < s <= 1 for s in (self.nvlink, self.fabric, self.server_nic)),
            "capacity scales must be in (0, 1]",
        )


@dataclass(frozen=True)
class OverlapFractions:
    """Share of compute time each dimension's communication can hide behind.

    The shares are disjoint slices of the compute window, so they must sum to <= 1. The expert
    weights' gradient sync (``expert_data``) shares the ``data`` slice with the dense gradients.
    """

    data: float = 0.8
    tensor: float = 0.0
    pipeline: float = 0.0
    expert: float = 0.0

    def __post_init__(self) -> None:
        shares = (self.data, self.tensor, self.pipeline, self.expert)
        _require(
            all(s >= 0 for s in shares) and sum(shares) <= 1 + 1e-12,
            "overlap fractions must be >= 0 and sum to <= 1",
        )


def spine_loss_fabric_scale(spines: int, lost: int = 1) -> float:
    """Fabric capacity left after losing spines under ECMP: ``1 - lost/spines``."""
    _require(0 <= lost < spines, "need 0 <= lost < spines")
    return 1.0 - lost / spines


def lacp_member_loss_scale(members: int, lost: int = 1, min_links: int = 1) -> float:
    """Bundle capacity left after losing LACP members: ``(M - m)/M``; 0.0 below ``min_links``."""
    _require(0 <= lost <= members, "need 0 <= lost <= members")
    remaining = members - lost
    return remaining / members if remaining >= min_links else 0.0


def nic_port_loss_scale(ports_per_server: int = 2, lost: int = 1) -> float:
    """Server NIC capacity left when ports fail on a multi-homed server (dual-homed: 0.5)."""
    _require(0 <= lost < ports_per_server, "need 0 <= lost < ports_per_server")
    return (ports_per_server - lost) / ports_per_server


def nvlink_bandwidth_bytes_per_s(hardware: NetworkHardware, capacity: CapacityScale) -> float:
    """Per-GPU NVLink bandwidth after degradation, bytes/s."""
    return hardware.nvlink_bandwidth_bytes_per_s * capacity.nvlink


def scale_out_bandwidth_bytes_per_s(hardware: NetworkHardware, capacity: CapacityScale) -> float:
    """Effective per-GPU scale-out bandwidth, bytes/s.

    ``min(B_nic * server_nic, B_nic * ecmp_efficiency * fabric / oversubscription)``: the
    server's NIC, or its share of the spine layer (all GPUs sending across it at once), which
    ever is smaller. A synchronous collective runs at its slowest member, so one degraded server
    sets the bandwidth of every group it belongs to.
    """
    nic = hardware.nic_bandwidth_bytes_per_s
    fabric_share = nic * hardware.ecmp_efficiency * capacity.fabric / hardware.oversubscription
    return min(nic * capacity.server_nic, fabric_share)


# --------------------------------------------------------------------------------------------
# Traffic per parallelism dimension
# --------------------------------------------------------------------------------------------
_BUS_FACTOR: dict[str, Callable[[int], float]] = {
    "allreduce": lambda n: 2.0 * (n - 1) / n,
    "all_to_all": lambda n: (n - 1) / n,
    "point_to_point": lambda n: 1.0,
}


@dataclass(frozen=True)
class DimensionTraffic:
    """One dimension's collectives in one step (busiest GPU).

    ``buffer_bytes`` is ``S`` of one collective; ``volume_per_gpu_bytes`` uses nccl-tests' bus
    factors (AllReduce ``2(n-1)/n``, All-to-All ``(n-1)/n``, send 1), algorithm-independent.
    """

    dimension: str
    collective: str
    group_ranks: int
    buffer_bytes: float
    collectives_per_step: int
    path: str

    @property
    def volume_per_gpu_bytes(self) -> float:
        if self.group_ranks <= 1 or self.collectives_per_step == 0:
            return 0.0
        factor = _BUS_FACTOR[self.collective](self.group_ranks)
        return self.collectives_per_step * factor * self.buffer_bytes


def traffic_per_step(
    workload: TrainingWorkload, parallelism: Parallelism, gpus_per_server: int = 8
) -> tuple[DimensionTraffic, ...]:
    """Collectives per training step for each dimension (comm-model.md, Suggested model C).

    - data: one gradient AllReduce over ``data`` ranks of ``dense / (TP PP) * bytes_per_gradient``.
    - tensor: ``tp_allreduces_per_layer * ceil(layers/PP) * micro_batches`` AllReduces of one
      micro-batch's activations, ``tokens / (DP m) * hidden * bytes_per_activation``.
    - pipeline: ``2 m`` sends (activation forward, gradient backward) of that activation / TP.
    - expert: ``4 * ceil(moe_layers/PP) * m`` All-to-Alls (dispatch and combine, forward and
      backward), each rank sending ``tokens / (DP m TP) * top_k * bytes_per_token_expert``.
    - expert_data: one AllReduce over ``DP TP / EP`` ranks of ``experts / (EP PP) * bytes``.

    Tensor and expert groups that fit in a server ride NVLink; everything else the scale-out path.

    Parameters
    ----------
    workload : TrainingWorkload
        Model and batch (parameters, tokens, bytes per element).
    parallelism : Parallelism
        Degrees.
    gpus_per_server : int
        GPUs sharing NVLink.

    Returns
    -------
    tuple of DimensionTraffic
        In the order of ``DIMENSIONS``; dimensions of degree 1 have no collectives.
    """
    p, w = parallelism, workload
    tokens_per_micro_batch = w.tokens_per_step / (p.data * w.micro_batches)
    activation_bytes = tokens_per_micro_batch * w.hidden_size * w.bytes_per_activation
    layers_per_stage = math.ceil(w.layers / p.pipeline)
    moe_layers_per_stage = math.ceil(w.moe_layer_count / p.pipeline)

    def path(ranks: int) -> str:
        return "nvlink" if ranks <= gpus_per_server else "scale_out"

    return (
        DimensionTraffic(
            "data",
            "allreduce",
            p.data,
            w.dense_parameters / (p.tensor * p.pipeline) * w.bytes_per_gradient,
            1 if p.data > 1 else 0,
            "scale_out",
        ),
        DimensionTraffic(
            "tensor",
            "allreduce",
            p.tensor,
            activation_bytes,
            w.tp_allreduces_per_layer * layers_per_stage * w.micro_batches if p.tensor > 1 else 0,
            path(p.tensor),
        ),
        DimensionTraffic(
            "pipeline",
            "point_to_point",
            p.pipeline,
            activation_bytes / p.tensor,
            2 * w.micro_batches if p.pipeline > 1 else 0,
            "scale_out",
        ),
        DimensionTraffic(
            "expert",
            "all_to_all",
            p.expert,
            tokens_per_micro_batch / p.tensor * w.top_k * w.token_expert_bytes,
            4 * moe_layers_per_stage * w.micro_batches if p.expert > 1 else 0,
            path(p.expert),
        ),
        DimensionTraffic(
            "expert_data",
            "allreduce",
            p.expert_data,
            w.expert_parameters / (p.expert * p.pipeline) * w.bytes_per_gradient,
            1 if p.expert_data > 1 and w.expert_parameters > 0 else 0,
            "scale_out",
        ),
    )


# --------------------------------------------------------------------------------------------
# Step time and slowdown
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Timed:
    traffic: DimensionTraffic
    algorithm: str
    time_s: float
    latency_s: float
    bandwidth_bytes_per_s: float
    exposed_s: float


def _time_dimension(
    traffic: DimensionTraffic,
    alpha: float,
    bandwidth: float,
    algorithm: AllReduceAlgorithm,
    concurrent_peers: int,
) -> tuple[str, float, float]:
    """Return (algorithm, time of all the step's collectives, their latency part), seconds."""
    ranks, count = traffic.group_ranks, traffic.collectives_per_step
    if traffic.collective == "allreduce":
        names = ("ring", "tree") if algorithm == "auto" else (algorithm,)
        chosen = min(
            names, key=lambda a: _ALLREDUCE_TIME[a](ranks, traffic.buffer_bytes, alpha, bandwidth)
        )
        cost = _ALLREDUCE_TIME[chosen]
    elif traffic.collective == "all_to_all":
        chosen = "direct"

        def cost(n: int, s: float, a: float, b: float) -> float:
            return all_to_all_time_s(n, s, a, b, concurrent_peers)
    else:
        chosen = "p2p"

        def cost(n: int, s: float, a: float, b: float) -> float:
            return point_to_point_time_s(s, a, b)

    if ranks <= 1 or count == 0:
        return chosen, 0.0, 0.0
    return (
        chosen,
        count * cost(ranks, traffic.buffer_bytes, alpha, bandwidth),
        count * cost(ranks, 0.0, alpha, bandwidth),
    )


def _evaluate(
    workload: TrainingWorkload,
    parallelism: Parallelism,
    hardware: NetworkHardware,
    overlap: OverlapFractions,
    capacity: CapacityScale,
    algorithm: AllReduceAlgorithm,
) -> tuple[_Timed, ...]:
    if algorithm not in (*_ALLREDUCE_TIME, "auto"):
        raise ValueError(f"unknown AllReduce algorithm {algorithm!r}")
    rows = []
    for traffic in traffic_per_step(workload, parallelism, hardware.gpus_per_server):
        if traffic.path == "nvlink":
            alpha = hardware.nvlink_latency_s
            bandwidth = nvlink_bandwidth_bytes_per_s(hardware, capacity)
        else:
            alpha = hardware.network_latency_s
            bandwidth = scale_out_bandwidth_bytes_per_s(hardware, capacity)
        timing = _time_dimension(
            traffic, alpha, bandwidth, algorithm, hardware.all_to_all_concurrent_peers
        )
        rows.append((traffic, *timing, bandwidth))
    # Exposure: each overlap slot hides behind its own slice of compute; data and expert_data
    # (both gradient syncs) share the data slot, the exposed part split in proportion to time.
    slot = {
        "data": "data",
        "expert_data": "data",
        "tensor": "tensor",
        "pipeline": "pipeline",
        "expert": "expert",
    }
    slot_time: dict[str, float] = {}
    for traffic, _, time_s, _, _ in rows:
        slot_time[slot[traffic.dimension]] = slot_time.get(slot[traffic.dimension], 0.0) + time_s
    timed = []
    for traffic, chosen, time_s, latency_s, bandwidth in rows:
        total = slot_time[slot[traffic.dimension]]
        hidden_window = getattr(overlap, slot[traffic.dimension]) * workload.compute_time_s
        exposed = max(0.0, total - hidden_window) * (time_s / total) if total > 0 else 0.0
        timed.append(_Timed(traffic, chosen, time_s, latency_s, bandwidth, exposed))
    return tuple(timed)


def step_time(
    workload: TrainingWorkload,
    parallelism: Parallelism,
    hardware: NetworkHardware,
    capacity: CapacityScale | None = None,
    overlap: OverlapFractions | None = None,
    allreduce_algorithm: AllReduceAlgorithm = "auto",
) -> float:
    """Time of one training step: compute plus exposed communication.

    ``T = compute + sum_d max(0, T_d - phi_d * compute)`` (per-dimension exposure; see
    :class:`OverlapFractions`). TP rides NVLink (if the group fits in a server), the rest rides
    the scale-out path (:func:`scale_out_bandwidth_bytes_per_s`). Latency terms do not change with
    capacity. ``allreduce_algorithm="auto"`` takes the faster of ring and tree, as NCCL does.

    Parameters
    ----------
    workload, parallelism, hardware
        The job and the links.
    capacity : CapacityScale, optional
        Bandwidth fraction left per path (NVLink, fabric, server NIC); default healthy.
    overlap : OverlapFractions, optional
        Share of compute each dimension hides behind; default ``OverlapFractions()``.
    allreduce_algorithm : {"auto", "ring", "tree", "halving_doubling"}
        AllReduce algorithm for data, tensor and expert_data.

    Returns
    -------
    float
        Step time, seconds.
    """
    timed = _evaluate(
        workload,
        parallelism,
        hardware,
        overlap or OverlapFractions(),
        capacity or CapacityScale(),
        allreduce_algorithm,
    )
    return workload.compute_time_s + sum(t.exposed_s for t in timed)


def slowdown(
    workload: TrainingWorkload,
    parallelism: Parallelism,
    hardware: NetworkHardware,
    capacity: CapacityScale,
    overlap: OverlapFractions | None = None,
    allreduce_algorithm: AllReduceAlgorithm = "auto",
) -> float:
    """Step time at reduced capacity over step time at full capacity (dimensionless, >= 1).

    Equal to 1 at full capacity and non-increasing in each capacity scale. Parameters as
    :func:`step_time`.
    """
    degraded = step_time(workload, parallelism, hardware, capacity, overlap, allreduce_algorithm)
    healthy = step_time(
        workload, parallelism, hardware, CapacityScale(), overlap, allreduce_algorithm
    )
    return degraded / healthy


# --------------------------------------------------------------------------------------------
# Baseline
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class DimensionBaseline:
    """Baseline of one parallelism dimension per step (bytes, seconds, bytes/s)."""

    dimension: str
    collective: str
    algorithm: str
    path: str
    group_ranks: int
    collectives_per_step: int
    buffer_bytes: float
    volume_per_step_bytes: float
    time_s: float
    latency_share: float
    bandwidth_needed_bytes_per_s: float
    bandwidth_available_bytes_per_s: float
    exposed_s: float


@dataclass(frozen=True)
class Baseline:
    """Communication baseline of a job: per dimension, step time and RTT sensitivity."""

    dimensions: tuple[DimensionBaseline, ...]
    compute_time_s: float
    communication_time_s: float
    exposed_communication_s: float
    step_time_s: float
    rtt_low_s: float
    rtt_high_s: float
    step_time_rtt_low_s: float
    step_time_rtt_high_s: float
    communication_time_rtt_low_s: float
    communication_time_rtt_high_s: float
    dp_only_bandwidth_per_gpu_bytes_per_s: float

    def dimension(self, name: str) -> DimensionBaseline:
        """The entry of dimension ``name`` (one of ``DIMENSIONS``)."""
        for entry in self.dimensions:
            if entry.dimension == name:
                return entry
        raise KeyError(name)

    def to_dict(self) -> dict[str, Any]:
        """Plain dict for JSON; ``dimensions`` keyed by dimension name."""
        result = asdict(self)
        result["dimensions"] = {d.dimension: asdict(d) for d in self.dimensions}
        return result


def baseline(
    workload: TrainingWorkload,
    parallelism: Parallelism,
    hardware: NetworkHardware,
    overlap: OverlapFractions | None = None,
    allreduce_algorithm: AllReduceAlgorithm = "auto",
    comm_efficiency: float = 0.7,
    burst_factor: float = 4.0,
    headroom_fraction: float = 0.25,
    rtt_low_s: float = 10e-6,
    rtt_high_s: float = 50e-6,
) -> Baseline:
    """Build the communication baseline of a job at full capacity.

    Per dimension, bandwidth needed = volume per step / (compute time x comm_efficiency), the rate
    that moves the step's volume within the compute window (the seed's formula); for the expert
    dimension it is also multiplied by ``burst_factor x (1 + headroom_fraction)`` (seed: peak
    3-5x average, 20-30% headroom). Latency share = latency term / time. RTT sensitivity re-runs
    the model with ``network_rtt_s`` at ``rtt_low_s`` and ``rtt_high_s`` (alpha as in
    :class:`NetworkHardware`; NVLink latency unchanged).

    Parameters
    ----------
    workload, parallelism, hardware, overlap, allreduce_algorithm
        As :func:`step_time`.
    comm_efficiency : float
        Fraction of line rate achieved, in (0, 1].
    burst_factor, headroom_fraction : float
        All-to-All peak over average, and provisioning headroom.
    rtt_low_s, rtt_high_s : float
        Network round-trip times compared, seconds.

    Returns
    -------
    Baseline
        Volumes in bytes, times in seconds, bandwidths in bytes/s.
    """
    _require(0 < comm_efficiency <= 1, "comm_efficiency must be in (0, 1]")
    _require(burst_factor >= 1 and headroom_fraction >= 0, "need burst_factor >= 1, headroom >= 0")
    overlap = overlap or OverlapFractions()
    args = (overlap, CapacityScale(), allreduce_algorithm)
    timed = _evaluate(workload, parallelism, hardware, *args)
    window_s = workload.compute_time_s * comm_efficiency
    dimensions = tuple(
        DimensionBaseline(
            dimension=t.traffic.dimension,
            collective=t.traffic.collective,
            algorithm=t.algorithm,
            path=t.traffic.path,
            group_ranks=t.traffic.group_ranks,
            collectives_per_step=t.traffic.collectives_per_step,
            buffer_bytes=t.traffic.buffer_bytes,
            volume_per_step_bytes=t.traffic.volume_per_gpu_bytes,
            time_s=t.time_s,
            latency_share=t.latency_s / t.time_s if t.time_s > 0 else 0.0,
            bandwidth_needed_bytes_per_s=t.traffic.volume_per_gpu_bytes
            / window_s
            * (burst_factor * (1 + headroom_fraction) if t.traffic.dimension == "expert" else 1),
            bandwidth_available_bytes_per_s=t.bandwidth_bytes_per_s,
            exposed_s=t.exposed_s,
        )
        for t in timed
    )
    at_rtt = {
        rtt: _evaluate(workload, parallelism, replace(hardware, network_rtt_s=rtt), *args)
        for rtt in (rtt_low_s, rtt_high_s)
    }
    exposed = sum(t.exposed_s for t in timed)
    return Baseline(
        dimensions=dimensions,
        compute_time_s=workload.compute_time_s,
        communication_time_s=sum(t.time_s for t in timed),
        exposed_communication_s=exposed,
        step_time_s=workload.compute_time_s + exposed,
        rtt_low_s=rtt_low_s,
        rtt_high_s=rtt_high_s,
        step_time_rtt_low_s=workload.compute_time_s + sum(t.exposed_s for t in at_rtt[rtt_low_s]),
        step_time_rtt_high_s=workload.compute_time_s + sum(t.exposed_s for t in at_rtt[rtt_high_s]),
        communication_time_rtt_low_s=sum(t.time_s for t in at_rtt[rtt_low_s]),
        communication_time_rtt_high_s=sum(t.time_s for t in at_rtt[rtt_high_s]),
        dp_only_bandwidth_per_gpu_bytes_per_s=required_bandwidth_per_gpu_bytes_per_s(
            workload.dense_parameters + workload.expert_parameters,
            workload.bytes_per_gradient,
            workload.compute_time_s,
            comm_efficiency,
        ),
    )
