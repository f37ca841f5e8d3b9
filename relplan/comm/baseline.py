"""The communication baseline of a job: per dimension volume, time, bandwidth, exposed time.

:func:`baseline` works on the model's plain records (bytes, seconds);
:func:`baseline_report` reads them off a validated config and assembles the report of
``relplan baseline``, with the source document's arithmetic beside it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any

from relplan.comm.collectives import AllReduceAlgorithm, require
from relplan.comm.inputs import (
    CapacityScale,
    NetworkHardware,
    OverlapFractions,
    Parallelism,
    TrainingWorkload,
    workload_model,
)
from relplan.comm.seed_figures import (
    bits_per_s,
    cluster_gradient_bytes_per_step,
    gradient_bytes_per_gpu,
    moe_traffic_estimate,
    required_bandwidth_per_gpu_bytes_per_s,
)
from relplan.comm.step import _evaluate, pipeline_bubble_s
from relplan.config.schema import RelplanConfig


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
    """Communication baseline of a job: per dimension, step time and RTT sensitivity.

    ``step_time_s = compute_time_s + pipeline_bubble_s + exposed_communication_s``:
    ``compute_time_s`` is the pure compute, the bubble its own part."""

    dimensions: tuple[DimensionBaseline, ...]
    compute_time_s: float
    pipeline_bubble_s: float
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
    require(0 < comm_efficiency <= 1, "comm_efficiency must be in (0, 1]")
    require(burst_factor >= 1 and headroom_fraction >= 0, "need burst_factor >= 1, headroom >= 0")
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
    busy = workload.compute_time_s + pipeline_bubble_s(workload, parallelism)
    return Baseline(
        dimensions=dimensions,
        compute_time_s=workload.compute_time_s,
        pipeline_bubble_s=busy - workload.compute_time_s,
        communication_time_s=sum(t.time_s for t in timed),
        exposed_communication_s=exposed,
        step_time_s=busy + exposed,
        rtt_low_s=rtt_low_s,
        rtt_high_s=rtt_high_s,
        step_time_rtt_low_s=busy + sum(t.exposed_s for t in at_rtt[rtt_low_s]),
        step_time_rtt_high_s=busy + sum(t.exposed_s for t in at_rtt[rtt_high_s]),
        communication_time_rtt_low_s=sum(t.time_s for t in at_rtt[rtt_low_s]),
        communication_time_rtt_high_s=sum(t.time_s for t in at_rtt[rtt_high_s]),
        dp_only_bandwidth_per_gpu_bytes_per_s=required_bandwidth_per_gpu_bytes_per_s(
            workload.dense_parameters + workload.expert_parameters,
            workload.bytes_per_gradient,
            workload.compute_time_s,
            comm_efficiency,
        ),
    )



def baseline_report(config: RelplanConfig) -> dict[str, Any]:
    """The job's communication baseline and the source document's arithmetic, from a config.

    Parameters
    ----------
    config : RelplanConfig
        A validated config with a ``[workload]`` section.

    Returns
    -------
    dict
        ``baseline`` (per dimension: collective, volume per step, time, bandwidth needed
        and available, latency share, exposed time; step time; RTT sensitivity; bytes,
        seconds, bytes/s), ``gradients`` (bytes per GPU, per step over the job, and the
        document's per-GPU bandwidth formula), ``moe`` (the document's MoE arithmetic,
        when the model has experts, with ``reconciliation``: the document's per-GPU average
        beside the baseline's own per-GPU need, by dimension).

    Raises
    ------
    ValueError
        If the config has no ``[workload]``.
    """
    inputs = workload_model(config)
    if inputs is None:
        raise ValueError("the config has no [workload] section")
    training, parallelism, hardware, overlap = inputs
    workload = config.workload
    assert workload is not None
    result = baseline(
        training, parallelism, hardware, overlap, comm_efficiency=workload.comm_efficiency,
        burst_factor=workload.burst_factor, headroom_fraction=workload.headroom,
    )  # fmt: skip
    parameters = workload.parameters + workload.expert_parameters
    per_gpu = gradient_bytes_per_gpu(parameters, workload.bytes_per_gradient)
    report: dict[str, Any] = {
        "baseline": result.to_dict(),
        "gradients": {
            "parameters": parameters,
            "bytes_per_gpu": per_gpu,
            "bytes_per_step_all_gpus": cluster_gradient_bytes_per_step(
                parameters, workload.bytes_per_gradient, config.job.gpus
            ),
            "dp_bandwidth_per_gpu_bytes_per_s": result.dp_only_bandwidth_per_gpu_bytes_per_s,
            "dp_bandwidth_per_gpu_bits_per_s": bits_per_s(
                result.dp_only_bandwidth_per_gpu_bytes_per_s
            ),
        },
    }
    if workload.expert_parameters > 0:
        moe = moe_traffic_estimate(
            workload.tokens_per_step,
            workload.top_k,
            training.token_expert_bytes,
            workload.parameters,
            workload.bytes_per_gradient,
            parallelism.expert_data,
            training.compute_time_s,
            workload.burst_factor,
            workload.headroom,
        )
        report["moe"] = {"expert_data_parallel": parallelism.expert_data, **asdict(moe)}
        report["moe"]["reconciliation"] = _reconcile_document_average(
            moe.average_bandwidth_per_gpu_bytes_per_s, report["baseline"]["dimensions"]
        )
    return report


def _reconcile_document_average(
    document_average_bytes_per_s: float, dimensions: dict[str, dict[str, Any]]
) -> dict[str, Any]:
    """The source document's per-GPU average beside the baseline's own per-GPU need.

    The document divides one step's All-to-All bytes summed over the whole cluster (4 GB)
    plus one data-parallel group's share of the dense gradients (10 GB) by the step time:
    2.8 GB/s. What one GPU must move is per dimension: every MoE layer's dispatch and
    combine, forward and backward, and each gradient AllReduce's ``2(n-1)/n`` of its own
    buffer, over the communication window. The ratio says how far apart the two are.
    """
    scale_out = {
        name: entry["bandwidth_needed_bytes_per_s"]
        for name, entry in dimensions.items()
        if entry["path"] == "scale_out" and entry["volume_per_step_bytes"] > 0
    }
    need = sum(scale_out.values())
    return {
        "document_average_per_gpu_bytes_per_s": document_average_bytes_per_s,
        "baseline_need_per_gpu_bytes_per_s": need,
        "baseline_need_by_dimension_bytes_per_s": scale_out,
        "ratio": need / document_average_bytes_per_s if document_average_bytes_per_s else None,
    }
