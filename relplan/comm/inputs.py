"""The communication model's inputs: workload, parallelism, hardware, capacity, overlap.

Frozen records in SI units (bytes, seconds, bytes per second), and :func:`workload_model`,
which reads them off a validated config.
"""

from __future__ import annotations

from dataclasses import dataclass

from relplan.comm.collectives import require
from relplan.config.derived import DerivedFacts, derive
from relplan.config.schema import RelplanConfig


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
    pipeline_interleave: int = 1

    def __post_init__(self) -> None:
        require(min(self.dense_parameters, self.expert_parameters) >= 0, "parameters must be >= 0")
        require(self.tokens_per_step > 0 < self.hidden_size, "tokens, hidden_size must be > 0")
        require(self.layers >= 1 and self.micro_batches >= 1, "layers, micro_batches must be >= 1")
        require(self.compute_time_s > 0, "compute_time_s must be > 0")
        require(self.bytes_per_gradient > 0 and self.bytes_per_activation > 0, "bytes must be > 0")
        require(self.pipeline_interleave >= 1, "pipeline_interleave must be >= 1")

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
        require(all(int(d) == d and d >= 1 for d in degrees), "degrees must be integers >= 1")
        require((self.data * self.tensor) % self.expert == 0, "expert must divide data * tensor")

    @property
    def gpus(self) -> int:
        return self.data * self.tensor * self.pipeline

    @property
    def expert_data(self) -> int:
        return self.data * self.tensor // self.expert


@dataclass(frozen=True)
class NetworkHardware:
    """Per-GPU links and the leaf they hang from. Defaults: H100-class node, one 400 Gb/s NIC
    per GPU, a non-blocking fabric with adaptive routing (comm-model notes, section 5).

    Scale-out ``alpha = network_rtt_s * alpha_per_rtt`` (1.0: the seed's one RTT per sync step).
    ``nvlink_latency_s`` is NCCL 2.30.7's NVLink ring Simple per-step latency (3.4 us).
    ``nic_bandwidth_bytes_per_s`` is one GPU's share of its server's NICs.

    The leaf: ``servers_per_leaf`` servers talk to each other without touching its uplinks,
    which carry ``1 / oversubscription`` of its downlinks over ``ecmp_paths`` equal-cost paths.
    ``load_balancing = "ecmp"`` hashes ``flows_per_connection`` flows per connection onto the
    paths like balls into bins; ``"adaptive"`` spreads them evenly. ``ecmp_efficiency``, when
    given, is a fixed share of the uplinks the slowest flow sees instead. ``lag_members``:
    links per uplink bundle (fabric LACP); flows hash onto the members, so a leaf's paths
    are ``ecmp_paths x lag_members`` links.
    ``all_to_all_concurrency``: peers an All-to-All keeps in flight (None: all of them).
    """

    gpus_per_server: int = 8
    nics_per_server: int = 8
    nvlink_bandwidth_bytes_per_s: float = 450e9
    nvlink_latency_s: float = 3.4e-6
    nic_bandwidth_bytes_per_s: float = 50e9
    network_rtt_s: float = 10e-6
    alpha_per_rtt: float = 1.0
    servers_per_leaf: int = 1
    oversubscription: float = 1.0
    ecmp_paths: int = 1
    load_balancing: str = "adaptive"
    flows_per_connection: int = 1
    ecmp_efficiency: float | None = None
    all_to_all_concurrency: int | None = None
    lag_members: int = 1

    def __post_init__(self) -> None:
        require(self.lag_members >= 1, "lag_members must be >= 1")
        require(self.gpus_per_server >= 1 and self.nics_per_server >= 1,
                "gpus_per_server and nics_per_server must be >= 1")  # fmt: skip
        require(
            self.nvlink_bandwidth_bytes_per_s > 0 and self.nic_bandwidth_bytes_per_s > 0,
            "bandwidths must be > 0",
        )
        require(
            self.nvlink_latency_s >= 0 and self.network_rtt_s >= 0 and self.alpha_per_rtt >= 0,
            "latencies must be >= 0",
        )
        require(self.oversubscription > 0, "oversubscription must be > 0")
        require(self.servers_per_leaf >= 1 and self.ecmp_paths >= 1,
                "servers_per_leaf and ecmp_paths must be >= 1")  # fmt: skip
        require(self.load_balancing in ("ecmp", "adaptive"),
                "load_balancing must be 'ecmp' or 'adaptive'")  # fmt: skip
        require(self.flows_per_connection >= 1, "flows_per_connection must be >= 1")
        require(self.ecmp_efficiency is None or 0 < self.ecmp_efficiency <= 1,
                "ecmp_efficiency must be in (0, 1]")  # fmt: skip
        require(self.all_to_all_concurrency is None or self.all_to_all_concurrency >= 1,
                "all_to_all_concurrency must be >= 1")  # fmt: skip

    @property
    def network_latency_s(self) -> float:
        return self.network_rtt_s * self.alpha_per_rtt


@dataclass(frozen=True)
class CapacityScale:
    """What is left after losses, for the slowest flow; 1 (and 0 lost) = healthy.

    Attributes
    ----------
    nvlink : float
        Share of a GPU's NVLink bandwidth.
    fabric : float
        Share of the uplink capacity the slowest crossing flow's path keeps (a bundle with
        a member lost, a leaf with an uplink lost).
    server_nic : float
        Share of the slowest server's NIC bandwidth (a lost LACP member or dual-ToR leg).
    fabric_paths_lost : int
        Equal-cost paths the worst leaf lost: ECMP rehashes onto those left.
    """

    nvlink: float = 1.0
    fabric: float = 1.0
    server_nic: float = 1.0
    fabric_paths_lost: int = 0

    def __post_init__(self) -> None:
        require(
            all(0 < s <= 1 for s in (self.nvlink, self.fabric, self.server_nic)),
            "capacity scales must be in (0, 1]",
        )
        require(self.fabric_paths_lost >= 0, "fabric_paths_lost must be >= 0")


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
        require(
            all(s >= 0 for s in shares) and sum(shares) <= 1 + 1e-12,
            "overlap fractions must be >= 0 and sum to <= 1",
        )


Inputs = tuple[TrainingWorkload, Parallelism, NetworkHardware, OverlapFractions]
"""What the communication model needs of a config: workload, degrees, hardware, overlap."""


def active_parameters(config: RelplanConfig) -> float:
    """Parameters one token passes through: the dense ones plus ``top_k`` of the
    ``workload.experts`` experts' share of the expert parameters (``experts`` defaults to
    the expert-parallel degree).

    Examples
    --------
    >>> from relplan.config.loading import load_config
    >>> active_parameters(load_config("configs/seed-moe-10k.toml"))  # 50e9 + 950e9 x 2/256
    57421875000.0
    """
    workload = config.workload
    require(workload is not None, "the config has no [workload]")
    experts = workload.experts or workload.parallelism.expert
    expert_share = workload.expert_parameters * min(workload.top_k, experts) / experts
    return workload.parameters + expert_share


def step_compute_seconds(config: RelplanConfig) -> float:
    """The step's pure compute time, seconds: ``workload.step_compute``, or
    ``6 x active parameters x tokens_per_step / (GPUs x cluster.gpu_peak_flops x mfu)``
    (the 6 N D training FLOPs of Kaplan et al. 2020; Narayanan et al. SC'21).

    Examples
    --------
    >>> from relplan.config.loading import load_config, parse_config
    >>> document = load_config("configs/seed-dense-175b.toml").to_document()
    >>> del document["workload"]["step_compute"]
    >>> config = parse_config(document, ["workload.mfu=0.4", "cluster.gpu_peak_flops=989e12"])
    >>> round(step_compute_seconds(config), 4)  # 6 x 175e9 x 3.2e6 / (5000 x 989e12 x 0.4)
    1.6987
    """
    workload = config.workload
    require(workload is not None, "the config has no [workload]")
    if workload.step_compute is not None:
        return workload.step_compute * 3600.0
    peak, mfu = config.cluster.gpu_peak_flops, workload.mfu
    require(peak is not None and mfu is not None, "mfu needs cluster.gpu_peak_flops")
    flops = 6.0 * active_parameters(config) * workload.tokens_per_step
    return flops / (config.job.gpus * peak * mfu)


def workload_model(config: RelplanConfig, facts: DerivedFacts | None = None) -> Inputs | None:
    """The communication model's inputs from a config (:func:`workload_inputs`), deriving
    its facts first unless given; None without ``[workload]``."""
    return workload_inputs(config, facts if facts is not None else derive(config))


def workload_inputs(config: RelplanConfig, facts: DerivedFacts) -> Inputs | None:
    """The communication model's inputs from a config, or None without ``[workload]``.

    Parameters
    ----------
    config : RelplanConfig
        A validated config (its ``[workload]`` and the network's efficiencies).
    facts : DerivedFacts
        Its derived facts (:func:`relplan.config.derived.derive`).

    Returns
    -------
    tuple or None
        ``(TrainingWorkload, Parallelism, NetworkHardware, OverlapFractions)``: the
        per-GPU NIC bandwidth is the server's NIC links (``server_link_speed`` x LACP
        members x legs (two with dual-ToR) x NICs) shared by its GPUs, times
        ``network.nic_efficiency`` (NVLink: ``nvlink_bandwidth x nvlink_efficiency``); the
        leaf's facts come from :attr:`relplan.config.derived.DerivedFacts.leaf_uplinks`.
    """
    workload = config.workload
    if workload is None:
        return None
    degrees = workload.parallelism
    data = facts.data_parallel_degree
    training = TrainingWorkload(
        dense_parameters=workload.parameters,
        tokens_per_step=workload.tokens_per_step,
        hidden_size=workload.hidden_size,
        layers=workload.layers,
        compute_time_s=step_compute_seconds(config),
        micro_batches=workload.micro_batches,
        expert_parameters=workload.expert_parameters,
        moe_layers=workload.moe_layers,
        top_k=workload.top_k,
        bytes_per_gradient=workload.bytes_per_gradient,
        bytes_per_activation=workload.bytes_per_activation,
        bytes_per_token_expert=workload.bytes_per_token_expert,
        pipeline_interleave=workload.pipeline_interleave,
    )
    parallelism = Parallelism(data, degrees.tensor, degrees.pipeline, degrees.expert)
    net, cluster = config.network, config.cluster
    nics = facts.nics_per_server
    leaf = facts.leaf_uplinks
    hardware = NetworkHardware(
        gpus_per_server=cluster.gpus_per_server,
        nics_per_server=nics,
        nvlink_bandwidth_bytes_per_s=net.nvlink_bandwidth * net.nvlink_efficiency,
        nic_bandwidth_bytes_per_s=facts.server_link_speed_bytes_per_s * leaf.links_per_nic * nics
        / cluster.gpus_per_server * net.nic_efficiency,
        network_rtt_s=net.rtt * 3600.0,
        servers_per_leaf=leaf.servers_per_leaf,
        oversubscription=leaf.oversubscription,
        ecmp_paths=leaf.ecmp_paths,
        load_balancing=net.load_balancing,
        flows_per_connection=net.flows_per_connection,
        ecmp_efficiency=net.ecmp_efficiency,
        all_to_all_concurrency=workload.all_to_all_concurrency,
        lag_members=net.fabric_lacp.members,
    )
    overlap = OverlapFractions(
        workload.overlap.data, workload.overlap.tensor, workload.overlap.pipeline,
        workload.overlap.expert,
    )  # fmt: skip
    return training, parallelism, hardware, overlap
