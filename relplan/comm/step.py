"""Traffic per parallelism dimension, the step time and the slowdown of a degraded state.

Each dimension's collectives are timed by the alpha-beta model of
:mod:`relplan.comm.collectives` on its path (NVLink inside a server, the NICs beyond) and
hide behind their share of the compute; step time = compute + exposed communication.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from relplan.comm.collectives import (
    _ALLREDUCE_TIME,
    AllReduceAlgorithm,
    all_to_all_time_s,
    node_aware_all_to_all_time_s,
    node_aware_allreduce_times_s,
    point_to_point_time_s,
)
from relplan.comm.fabric import crossing_share, ecmp_hashing_efficiency, fabric_bandwidth_factor
from relplan.comm.inputs import (
    CapacityScale,
    NetworkHardware,
    OverlapFractions,
    Parallelism,
    TrainingWorkload,
)

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
    ranks_per_server: int = 1

    @property
    def servers(self) -> int:
        """Servers the group spans (its ranks fill them ``ranks_per_server`` at a time)."""
        return -(-self.group_ranks // self.ranks_per_server)

    @property
    def volume_per_gpu_bytes(self) -> float:
        if self.group_ranks <= 1 or self.collectives_per_step == 0:
            return 0.0
        factor = _BUS_FACTOR[self.collective](self.group_ranks)
        return self.collectives_per_step * factor * self.buffer_bytes


def traffic_per_step(
    workload: TrainingWorkload, parallelism: Parallelism, gpus_per_server: int = 8
) -> tuple[DimensionTraffic, ...]:
    """Collectives per training step for each dimension (comm-model notes, Suggested model C).

    - data: one gradient AllReduce over ``data`` ranks of ``dense / (TP PP) * bytes_per_gradient``.
    - tensor: ``tp_allreduces_per_layer * ceil(layers/PP) * micro_batches`` AllReduces of one
      micro-batch's activations, ``tokens / (DP m) * hidden * bytes_per_activation``.
    - pipeline: ``2 m`` sends (activation forward, gradient backward) of that activation / TP.
    - expert: ``4 * ceil(moe_layers/PP) * m`` All-to-Alls (dispatch and combine, forward and
      backward), each rank sending ``tokens / (DP m TP) * top_k * bytes_per_token_expert``.
    - expert_data: one AllReduce over ``DP TP / EP`` ranks of ``experts / (EP PP) * bytes``.

    A group whose ranks all share one server rides NVLink; the others span servers
    (:func:`group_ranks_per_server` says how many of their ranks share one).

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
    per_server = group_ranks_per_server(parallelism, gpus_per_server)

    def path(ranks: int, dimension: str) -> str:
        return "nvlink" if ranks <= per_server[dimension] else "scale_out"

    rows = (
        ("data", "allreduce", p.data,
         w.dense_parameters / (p.tensor * p.pipeline) * w.bytes_per_gradient,
         1 if p.data > 1 else 0),
        ("tensor", "allreduce", p.tensor, activation_bytes,
         w.tp_allreduces_per_layer * layers_per_stage * w.micro_batches if p.tensor > 1 else 0),
        ("pipeline", "point_to_point", p.pipeline, activation_bytes / p.tensor,
         2 * w.micro_batches if p.pipeline > 1 else 0),
        ("expert", "all_to_all", p.expert,
         tokens_per_micro_batch / p.tensor * w.top_k * w.token_expert_bytes,
         4 * moe_layers_per_stage * w.micro_batches if p.expert > 1 else 0),
        ("expert_data", "allreduce", p.expert_data,
         w.expert_parameters / (p.expert * p.pipeline) * w.bytes_per_gradient,
         1 if p.expert_data > 1 and w.expert_parameters > 0 else 0),
    )  # fmt: skip
    return tuple(
        DimensionTraffic(dimension, collective, ranks, buffer, count,
                         path(ranks, dimension), per_server[dimension])
        for dimension, collective, ranks, buffer, count in rows
    )  # fmt: skip


def group_ranks_per_server(parallelism: Parallelism, gpus_per_server: int) -> dict[str, int]:
    """How many ranks of one group of each dimension share a server (Megatron rank order).

    Ranks are numbered tensor fastest, then data, then pipeline, and fill servers in order;
    expert groups are carved out of consecutive data x tensor ranks. So a tensor or expert
    group packs ``min(degree, G)`` ranks into a server, a data-parallel group (stride
    ``tensor``) ``G / tensor`` when ``tensor < G``, an expert-data group (stride ``expert``)
    ``G / expert``; a pipeline's stages are on different servers.

    Examples
    --------
    >>> group_ranks_per_server(Parallelism(data=5000), 8)["data"]  # pure data parallel
    8
    >>> group_ranks_per_server(Parallelism(data=1280, tensor=8, expert=256), 8)
    {'data': 1, 'tensor': 8, 'pipeline': 1, 'expert': 8, 'expert_data': 1}
    """
    g, p = gpus_per_server, parallelism

    def strided(stride: int, degree: int) -> int:
        return max(1, min(degree, g // stride)) if stride < g else 1

    return {
        "data": strided(p.tensor, p.data),
        "tensor": min(p.tensor, g),
        "pipeline": 1,
        "expert": min(p.expert, g),
        "expert_data": strided(p.expert, p.expert_data),
    }


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


def _uplink_flows(traffic: DimensionTraffic, hardware: NetworkHardware) -> int:
    """Flows that leave one leaf for this dimension: a ring's crossings are one per NIC (each
    rail's ring), an All-to-All's every pair of ranks split by the leaf."""
    per_connection = hardware.flows_per_connection
    if traffic.collective != "all_to_all":
        return hardware.nics_per_server * per_connection
    inside = min(hardware.servers_per_leaf, traffic.servers) * traffic.ranks_per_server
    outside = traffic.group_ranks - inside
    return max(1, min(inside * outside * per_connection, 1 << 16))


def network_bandwidth_bytes_per_s(
    traffic: DimensionTraffic, hardware: NetworkHardware, capacity: CapacityScale
) -> float:
    """Per-GPU network bandwidth of one dimension's slowest flow, bytes/s.

    The GPU's share of its server's NICs (after a lost member or leg, ``server_nic``),
    times what the leaf's uplinks give the traffic that crosses them
    (:func:`relplan.comm.fabric.fabric_bandwidth_factor`): rings cross a leaf once per
    channel, an All-to-All sends its off-leaf share; the uplinks run at ``1 /
    oversubscription`` of the downlinks, less what the slowest path lost, less ECMP
    hash collisions on the paths left.
    """
    nic = hardware.nic_bandwidth_bytes_per_s * capacity.server_nic
    if traffic.path == "nvlink":
        return nic
    pattern = "all_to_all" if traffic.collective == "all_to_all" else "ring"
    if traffic.collective == "point_to_point":
        share = 1.0 if hardware.servers_per_leaf <= 1 else 1.0 / hardware.servers_per_leaf
    else:
        share = crossing_share(pattern, traffic.servers, hardware.servers_per_leaf)
    paths = max(1, hardware.ecmp_paths - capacity.fabric_paths_lost)
    if hardware.ecmp_efficiency is not None:
        hashing = hardware.ecmp_efficiency
    elif hardware.load_balancing == "adaptive" or share == 0.0:
        hashing = 1.0
    else:
        hashing = ecmp_hashing_efficiency(_uplink_flows(traffic, hardware), paths)
    factor = fabric_bandwidth_factor(share, hardware.oversubscription, capacity.fabric, hashing)
    return nic * factor


def _time_dimension(
    traffic: DimensionTraffic,
    hardware: NetworkHardware,
    capacity: CapacityScale,
    algorithm: AllReduceAlgorithm,
) -> tuple[str, float, float, float]:
    """(algorithm, time of the step's collectives, their latency part, bus bandwidth)."""
    ranks, count, per_server = traffic.group_ranks, traffic.collectives_per_step, 1
    nvlink = hardware.nvlink_bandwidth_bytes_per_s * capacity.nvlink
    network = network_bandwidth_bytes_per_s(traffic, hardware, capacity)
    per_server = traffic.ranks_per_server
    if traffic.collective == "allreduce":
        if traffic.path == "nvlink" or algorithm == "auto":
            times = node_aware_allreduce_times_s(
                ranks, per_server, traffic.buffer_bytes, hardware.nvlink_latency_s, nvlink,
                hardware.network_latency_s, network,
            )  # fmt: skip
        else:  # a named algorithm over a flat group (no node awareness)
            function = _ALLREDUCE_TIME[algorithm]
            alpha = hardware.network_latency_s
            times = {algorithm: (function(ranks, traffic.buffer_bytes, alpha, network),
                                 function(ranks, 0.0, alpha, network))}  # fmt: skip
        chosen = min(times, key=lambda name: times[name][0])
        one, latency = times[chosen]
        g = min(per_server, ranks)
        bus = nvlink if traffic.path == "nvlink" else (
            min(g * network, g / (g - 1) * nvlink) if g > 1 else network)
    elif traffic.collective == "all_to_all":
        chosen, bus = "direct", network if traffic.path == "scale_out" else nvlink
        if traffic.path == "nvlink":
            one = all_to_all_time_s(ranks, traffic.buffer_bytes, hardware.nvlink_latency_s,
                                    nvlink, ranks - 1 if ranks > 1 else 1)  # fmt: skip
            latency = hardware.nvlink_latency_s if ranks > 1 else 0.0
        else:
            one, latency = node_aware_all_to_all_time_s(
                ranks, per_server, traffic.buffer_bytes, nvlink, hardware.network_latency_s,
                network, hardware.all_to_all_concurrency,
            )  # fmt: skip
    else:
        chosen, bus = "p2p", network
        one = point_to_point_time_s(traffic.buffer_bytes, hardware.network_latency_s, network)
        latency = hardware.network_latency_s
    if ranks <= 1 or count == 0:
        return chosen, 0.0, 0.0, bus
    return chosen, count * one, count * latency, bus


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
    rows = [
        (traffic, *_time_dimension(traffic, hardware, capacity, algorithm))
        for traffic in traffic_per_step(workload, parallelism, hardware.gpus_per_server)
    ]
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
    :class:`OverlapFractions`). A group inside one server rides NVLink; a group across
    servers is node-aware (:func:`relplan.comm.collectives.node_aware_allreduce_times_s`) at
    the bandwidth its slowest flow gets (:func:`network_bandwidth_bytes_per_s`). Latency
    terms do not change with capacity. ``allreduce_algorithm="auto"`` takes the fastest of
    ring, tree and hierarchical, as NCCL's tuner does; a named one runs over a flat group.

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
