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
    point_to_point_time_s,
)
from relplan.comm.inputs import (
    CapacityScale,
    NetworkHardware,
    OverlapFractions,
    Parallelism,
    TrainingWorkload,
    nvlink_bandwidth_bytes_per_s,
    scale_out_bandwidth_bytes_per_s,
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
