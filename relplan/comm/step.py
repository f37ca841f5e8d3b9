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
    server_stride: int = 1

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
    stride = group_server_stride(parallelism, gpus_per_server)

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
                         path(ranks, dimension), per_server[dimension], stride[dimension])
        for dimension, collective, ranks, buffer, count in rows
    )  # fmt: skip


RANK_ORDER = ("tensor", "expert", "data", "pipeline")
"""The order ranks are numbered in, fastest first (Megatron-Core's ``tp-ep-dp-pp`` with
expert-tensor parallelism 1): a tensor group is consecutive ranks; an expert group is
consecutive ranks of the data x tensor block; the dense data-parallel group strides by
``tensor``; the expert-data group strides by ``expert``; the pipeline's stages stride by
``data x tensor`` (world / pipeline)."""


def group_rank_stride(parallelism: Parallelism) -> dict[str, int]:
    """Ranks between two neighbours of one group of each dimension (:data:`RANK_ORDER`).

    Examples
    --------
    >>> group_rank_stride(Parallelism(data=1280, tensor=8, expert=256))
    {'data': 8, 'tensor': 1, 'pipeline': 10240, 'expert': 1, 'expert_data': 256}
    """
    p = parallelism
    return {
        "data": p.tensor,
        "tensor": 1,
        "pipeline": p.data * p.tensor,
        "expert": 1,
        "expert_data": p.expert,
    }


def group_server_stride(parallelism: Parallelism, gpus_per_server: int) -> dict[str, int]:
    """Servers between the servers of two neighbours of one group, per dimension: 1 for a
    group whose ranks fill servers one after another, ``stride / gpus_per_server`` for a
    group whose rank stride spans whole servers.

    Examples
    --------
    >>> group_server_stride(Parallelism(data=1280, tensor=8, expert=256), 8)["expert_data"]
    32
    >>> group_server_stride(Parallelism(data=128, tensor=8, pipeline=16), 8)["pipeline"]
    128
    """
    return {
        dimension: max(1, stride // gpus_per_server)
        for dimension, stride in group_rank_stride(parallelism).items()
    }


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
    stride = group_rank_stride(parallelism)
    degree = {"data": p.data, "tensor": p.tensor, "pipeline": p.pipeline,
              "expert": p.expert, "expert_data": p.expert_data}  # fmt: skip
    return {
        dimension: max(1, min(degree[dimension], g // stride[dimension]))
        if stride[dimension] < g else 1
        for dimension in degree
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


def _crossing_share(traffic: DimensionTraffic, hardware: NetworkHardware) -> float:
    """Share of a server's egress for this dimension that leaves its leaf."""
    pattern = "all_to_all" if traffic.collective == "all_to_all" else "ring"
    return crossing_share(pattern, traffic.servers, hardware.servers_per_leaf,
                          traffic.server_stride)  # fmt: skip


def _uplink_flows(traffic: DimensionTraffic, hardware: NetworkHardware) -> int:
    """Flows that leave one leaf for this dimension. A ring's (or chain's) crossings: one
    per NIC (each rail's ring) for each of its servers whose next hop is off the leaf,
    ``servers_per_leaf x crossing share`` of them (one per leaf for consecutive servers,
    every server for a group strided past the leaf: the leaf then holds that many
    groups' rings); an All-to-All's every pair of ranks split by the leaf."""
    per_connection = hardware.flows_per_connection
    if traffic.collective != "all_to_all":
        crossing_servers = max(1, round(hardware.servers_per_leaf
                                        * _crossing_share(traffic, hardware)))  # fmt: skip
        return hardware.nics_per_server * per_connection * crossing_servers
    per_leaf = group_servers_per_leaf(traffic.server_stride, hardware.servers_per_leaf)
    inside = min(per_leaf, traffic.servers) * traffic.ranks_per_server
    outside = traffic.group_ranks - inside
    return max(1, min(inside * outside * per_connection, 1 << 16))


def network_bandwidth_bytes_per_s(
    traffic: DimensionTraffic, hardware: NetworkHardware, capacity: CapacityScale
) -> float:
    """Per-GPU network bandwidth of one dimension's slowest flow, bytes/s.

    The flow crosses two hops, its server's NIC and its leaf's uplinks, and runs at the
    smaller of the two shares (not their product): the NIC's, after a lost member or leg
    (``server_nic``), and the uplinks', what they give the traffic that crosses them
    (:func:`relplan.comm.fabric.fabric_bandwidth_factor`): rings (and the pipeline's
    chain) cross a leaf once per channel for each leaf the group's servers fill, an
    All-to-All sends its off-leaf share, both following the group's server stride
    (:func:`group_server_stride`); the uplinks run at ``1 / oversubscription`` of the
    downlinks, less what the slowest path lost, less ECMP hash collisions on the paths
    left. The collisions are those of one leaf's crossing flows over its paths (the
    expected busiest path of balls into bins), not the worst leaf of the job.
    """
    nic = hardware.nic_bandwidth_bytes_per_s
    if traffic.path == "nvlink":
        return nic * capacity.server_nic
    share = _crossing_share(traffic, hardware)
    paths = max(1, hardware.ecmp_paths - capacity.fabric_paths_lost) * hardware.lag_members
    if hardware.ecmp_efficiency is not None:
        hashing = hardware.ecmp_efficiency
    elif hardware.load_balancing == "adaptive" or share == 0.0:
        hashing = 1.0
    else:
        hashing = ecmp_hashing_efficiency(_uplink_flows(traffic, hardware), paths)
    factor = fabric_bandwidth_factor(share, hardware.oversubscription, capacity.fabric, hashing)
    return nic * min(capacity.server_nic, factor)


def leaf_crossing_flows(
    workload: TrainingWorkload, parallelism: Parallelism, hardware: NetworkHardware
) -> int:
    """The most flows one dimension sends off one leaf at once (0 if nothing crosses).

    Examples
    --------
    >>> w = TrainingWorkload(1e9, 1e6, 4096, 32, compute_time_s=1.0)
    >>> leaf_crossing_flows(w, Parallelism(data=64), NetworkHardware(servers_per_leaf=4))
    8
    """
    flows = [
        _uplink_flows(traffic, hardware)
        for traffic in traffic_per_step(workload, parallelism, hardware.gpus_per_server)
        if traffic.path == "scale_out" and traffic.volume_per_gpu_bytes > 0
        and _crossing_share(traffic, hardware) > 0
    ]
    return max(flows, default=0)


def group_servers_per_leaf(server_stride: int, servers_per_leaf: int) -> int:
    """Servers of one group under one leaf, when its servers sit ``server_stride`` apart.

    Examples
    --------
    >>> group_servers_per_leaf(1, 10), group_servers_per_leaf(2, 10), group_servers_per_leaf(32, 10)
    (10, 5, 1)
    """
    return max(1, servers_per_leaf // max(1, server_stride))


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


def pipeline_bubble_s(workload: TrainingWorkload, parallelism: Parallelism) -> float:
    """Idle time of the pipeline's fill and drain in one step, seconds.

    ``(p - 1) / (v m)`` of the compute for ``p`` stages, ``m`` micro-batches and ``v``
    virtual stages per GPU (1F1B and its interleaved form; Narayanan et al. SC'21, section
    2.2); 0 without pipeline parallelism.

    Examples
    --------
    >>> w = TrainingWorkload(1e9, 1e6, 4096, 32, compute_time_s=6.0, micro_batches=16)
    >>> pipeline_bubble_s(w, Parallelism(data=8, pipeline=4))  # 3/16 x 6 s
    1.125
    """
    p = parallelism.pipeline
    if p <= 1:
        return 0.0
    return (p - 1) / (workload.pipeline_interleave * workload.micro_batches) * (
        workload.compute_time_s
    )


def step_time(
    workload: TrainingWorkload,
    parallelism: Parallelism,
    hardware: NetworkHardware,
    capacity: CapacityScale | None = None,
    overlap: OverlapFractions | None = None,
    allreduce_algorithm: AllReduceAlgorithm = "auto",
) -> float:
    """Time of one training step: compute, the pipeline bubble and exposed communication.

    ``T = compute + bubble + sum_d max(0, T_d - phi_d * compute)`` (per-dimension
    exposure, see :class:`OverlapFractions`; bubble, :func:`pipeline_bubble_s`). A group
    inside one server rides NVLink; a group across servers is node-aware
    (:func:`relplan.comm.collectives.node_aware_allreduce_times_s`) at the bandwidth its
    slowest flow gets (:func:`network_bandwidth_bytes_per_s`). Latency terms do not change
    with capacity. ``allreduce_algorithm="auto"`` takes the fastest of
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
    bubble = pipeline_bubble_s(workload, parallelism)
    return workload.compute_time_s + bubble + sum(t.exposed_s for t in timed)


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
