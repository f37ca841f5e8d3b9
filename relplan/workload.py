"""From a config's ``[workload]`` and ``[network]`` to the communication model and baseline.

:mod:`relplan.network` works on plain numbers (bytes, seconds); this module reads them
off a validated config and assembles the baseline report of ``relplan baseline``.
"""

from __future__ import annotations

import math
from dataclasses import asdict
from typing import Any

from relplan import network
from relplan.config import RelplanConfig

Inputs = tuple[
    network.TrainingWorkload, network.Parallelism, network.NetworkHardware,
    network.OverlapFractions,
]  # fmt: skip


def workload_model(config: RelplanConfig) -> Inputs | None:
    """The communication model's inputs from a config, or None without ``[workload]``.

    Parameters
    ----------
    config : RelplanConfig
        A validated config.

    Returns
    -------
    tuple or None
        ``(TrainingWorkload, Parallelism, NetworkHardware, OverlapFractions)``: the
        per-GPU NIC bandwidth is the server's NIC links (``link_speed`` x LACP members x
        NICs) shared by its GPUs.
    """
    workload = config.workload
    if workload is None:
        return None
    degrees = workload.parallelism
    data = degrees.data or config.job.gpus // (degrees.tensor * degrees.pipeline)
    training = network.TrainingWorkload(
        dense_parameters=workload.parameters,
        tokens_per_step=workload.tokens_per_step,
        hidden_size=workload.hidden_size,
        layers=workload.layers,
        compute_time_s=workload.step_compute * 3600.0,
        micro_batches=workload.micro_batches,
        expert_parameters=workload.expert_parameters,
        moe_layers=workload.moe_layers,
        top_k=workload.top_k,
        bytes_per_gradient=workload.bytes_per_gradient,
        bytes_per_activation=workload.bytes_per_activation,
        bytes_per_token_expert=workload.bytes_per_token_expert,
    )
    parallelism = network.Parallelism(data, degrees.tensor, degrees.pipeline, degrees.expert)
    net, cluster = config.network, config.cluster
    nics = cluster.nics_per_server or cluster.gpus_per_server
    hardware = network.NetworkHardware(
        gpus_per_server=cluster.gpus_per_server,
        nvlink_bandwidth_bytes_per_s=net.nvlink_bandwidth,
        nic_bandwidth_bytes_per_s=net.link_speed * net.server_lacp.members * nics
        / cluster.gpus_per_server,
        network_rtt_s=net.rtt * 3600.0,
        ecmp_efficiency=net.ecmp_efficiency,
    )
    overlap = network.OverlapFractions(
        workload.overlap.data, workload.overlap.tensor, workload.overlap.pipeline,
        workload.overlap.expert,
    )  # fmt: skip
    return training, parallelism, hardware, overlap


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
        when the model has experts) and ``cluster_mtbf_hours`` (each failure mode's
        MTBF over its units in the job).

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
    result = network.baseline(
        training, parallelism, hardware, overlap, comm_efficiency=workload.comm_efficiency,
        burst_factor=workload.burst_factor, headroom_fraction=workload.headroom,
    )  # fmt: skip
    parameters = workload.parameters + workload.expert_parameters
    per_gpu = network.gradient_bytes_per_gpu(parameters, workload.bytes_per_gradient)
    report: dict[str, Any] = {
        "baseline": result.to_dict(),
        "gradients": {
            "parameters": parameters,
            "bytes_per_gpu": per_gpu,
            "bytes_per_step_all_gpus": network.cluster_gradient_bytes_per_step(
                parameters, workload.bytes_per_gradient, config.job.gpus
            ),
            "dp_bandwidth_per_gpu_bytes_per_s": result.dp_only_bandwidth_per_gpu_bytes_per_s,
            "dp_bandwidth_per_gpu_bits_per_s": network.bits_per_s(
                result.dp_only_bandwidth_per_gpu_bytes_per_s
            ),
        },
    }
    if workload.expert_parameters > 0:
        moe = network.moe_traffic_estimate(
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
    return report


def cluster_mtbf(config: RelplanConfig, model) -> dict[str, float]:
    """MTBF of each failure mode over its units in the job, hours (component MTBF / count)."""
    return {
        mode.name: network.cluster_mtbf_hours(mode.lifetime.mean_hours, mode.job_units)
        for mode in model.modes
        if mode.job_units > 0 and math.isfinite(mode.lifetime.mean_hours)
    }

