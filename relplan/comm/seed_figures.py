"""The source document's arithmetic: per-GPU bandwidth, gradient volumes, the MoE case, MTBF.

Kept apart from the alpha-beta model so that the document's own figures (400 GB/s per
GPU, 4.38 h cluster MTBF, 4 GB of All-to-All per step) can be reproduced and checked.
"""

from __future__ import annotations

from dataclasses import dataclass

from relplan.units import BITS_PER_BYTE


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
