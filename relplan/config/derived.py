"""Defaults derived from other keys of a validated config: one home for each.

A config may leave out what follows from its other keys (the NICs per server, the
data-parallel degree, the servers under a leaf, a leaf's uplinks). Every module that
needs one of these asks here, so the schema's checks, the topology, the communication
model and the budget always agree.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from relplan.vocab import INIT_SCALINGS

if TYPE_CHECKING:  # the schema validates with these helpers, so they take its types only
    from relplan.config.schema import (
        ClusterConfig,
        DistributionConfig,
        NetworkConfig,
        RelplanConfig,
    )


def ceil_div(numerator: int, denominator: int) -> int:
    """Integer division rounded up.

    Examples
    --------
    >>> ceil_div(1025, 8)
    129
    """
    return -(-numerator // denominator)


def nics_per_server(cluster: ClusterConfig) -> int:
    """NICs in a server: ``cluster.nics_per_server``, by default one per GPU.

    Examples
    --------
    >>> from relplan.config.schema import ClusterConfig
    >>> nics_per_server(ClusterConfig(servers=4, gpus_per_server=8))
    8
    """
    return cluster.nics_per_server or cluster.gpus_per_server


def server_legs(network: NetworkConfig) -> int:
    """Leaves each NIC is homed to: 2 with ``network.dual_tor`` (one leg to each leaf of
    an MLAG pair), else 1. The one home of the dual-ToR link factor.

    Examples
    --------
    >>> from relplan.config.schema import NetworkConfig
    >>> server_legs(NetworkConfig(dual_tor=True)), server_legs(NetworkConfig())
    (2, 1)
    """
    return 2 if network.dual_tor else 1


def links_per_nic(network: NetworkConfig) -> int:
    """Links of one NIC: ``server_lacp.members`` to each of its :func:`server_legs`.

    Examples
    --------
    >>> from relplan.config.schema import NetworkConfig
    >>> links_per_nic(NetworkConfig(dual_tor=True, server_lacp={"members": 2}))
    4
    """
    return network.server_lacp.members * server_legs(network)


def server_link_speed(network: NetworkConfig) -> float:
    """Speed of one NIC-to-leaf link, bytes/s: ``network.server_link_speed``, by default
    ``link_speed``.

    Examples
    --------
    >>> from relplan.config.schema import NetworkConfig
    >>> server_link_speed(NetworkConfig(link_speed="400Gbps", server_link_speed="200Gbps"))
    25000000000.0
    """
    return network.server_link_speed or network.link_speed


def fabric_link_speed(network: NetworkConfig) -> float:
    """Speed of one switch-to-switch link, bytes/s: ``network.fabric_link_speed``, by
    default ``link_speed``.

    Examples
    --------
    >>> from relplan.config.schema import NetworkConfig
    >>> fabric_link_speed(NetworkConfig(link_speed="400Gbps"))
    50000000000.0
    """
    return network.fabric_link_speed or network.link_speed


def job_servers(config: RelplanConfig) -> int:
    """Servers the job's GPUs fill: ``ceil(job.gpus / cluster.gpus_per_server)``."""
    return ceil_div(config.job.gpus, config.cluster.gpus_per_server)


def host_memory_needed(config: RelplanConfig) -> dict[str, float]:
    """Host RAM each of the job's servers holds for its checkpoints, bytes, by tier: its
    shard of the model state (``job.checkpoint.size / job servers``) for the fast tier, and
    a peer's shard too when the tier ``survives = "peer"``; one shard for the snapshot of
    an asynchronous durable write (``blocking_fraction`` below 1). Empty without a
    ``job.checkpoint.size`` or without such tiers.

    Examples
    --------
    >>> from relplan.config.loading import load_config
    >>> config = load_config("configs/llama3-16k.toml", [
    ...     'job.checkpoint.fast={ interval = "2.5min", write = "1s" }'])
    >>> {tier: round(size / 1e9, 2) for tier, size in host_memory_needed(config).items()}
    {'fast tier': 5.54}
    """
    checkpoint = config.job.checkpoint
    if checkpoint.size is None:
        return {}
    shard = checkpoint.size / job_servers(config)
    needed = {}
    if checkpoint.fast is not None:
        needed["fast tier"] = shard * (2 if checkpoint.fast.survives == "peer" else 1)
    if checkpoint.blocking_fraction < 1.0:
        needed["asynchronous snapshot"] = shard
    return needed


def data_parallel_degree(config: RelplanConfig) -> int:
    """The data-parallel degree: ``workload.parallelism.data``, by default the job's GPUs
    over tensor x pipeline (1 replica per GPU without a ``[workload]``)."""
    if config.workload is None:
        return config.job.gpus
    degrees = config.workload.parallelism
    return degrees.data or config.job.gpus // (degrees.tensor * degrees.pipeline)


@dataclass(frozen=True)
class LeafShape:
    """How servers hang from leaves in a two-tier (spine-leaf or rail-optimized) fabric.

    Attributes
    ----------
    servers_per_group : int
        Servers under one leaf (pair), or in one rail-optimized scalable unit.
    leaves_per_group : int
        Leaves serving one group: the pair of a dual-ToR leaf, or a unit's rail leaves.
    ports_per_server : int
        Leaf ports one server takes on one of its group's leaves.
    leaf_down_ports : int
        Downlink ports of one leaf.
    uplinks_per_leaf : int
        Links from a leaf up to the spines (whole bundles of ``fabric_lacp.members``).
    uplink_bundles_per_leaf : int
        Those links as bundles: the leaf's equal-cost paths up.
    """

    servers_per_group: int
    leaves_per_group: int
    ports_per_server: int
    leaf_down_ports: int
    uplinks_per_leaf: int
    uplink_bundles_per_leaf: int


def two_tier_shape(network: NetworkConfig, nics: int) -> LeafShape:
    """The leaf shape of a spine-leaf or rail-optimized fabric, with its defaults.

    Parameters
    ----------
    network : NetworkConfig
        The ``[network]`` table.
    nics : int
        NICs per server (see :func:`nics_per_server`).

    Returns
    -------
    LeafShape
        By default a leaf fills half its ports with servers (one bundle per NIC) and
        has as many links up as down (1:1).

    Examples
    --------
    >>> from relplan.config.schema import NetworkConfig
    >>> shape = two_tier_shape(NetworkConfig(switch_ports=64), nics=8)
    >>> shape.servers_per_group, shape.uplinks_per_leaf
    (4, 32)
    """
    homes = server_legs(network)
    server_members = network.server_lacp.members
    fabric_members = network.fabric_lacp.members
    half_leaf = network.switch_ports // 2
    if network.topology == "rail-optimized":
        # A group is a scalable unit: each of its rail leaves takes one bundle per server.
        group = network.servers_per_unit or max(1, half_leaf // server_members)
        leaves_per_group = nics * homes
        ports_per_server = server_members
    else:
        # A group is the servers under one leaf (pair): every NIC's bundle goes there.
        group = network.servers_per_leaf or max(1, half_leaf // (nics * server_members))
        leaves_per_group = homes
        ports_per_server = nics * server_members
    leaf_down_ports = group * ports_per_server
    uplinks = network.uplinks_per_leaf or ceil_div(leaf_down_ports, fabric_members) * (
        fabric_members
    )
    return LeafShape(
        servers_per_group=group,
        leaves_per_group=leaves_per_group,
        ports_per_server=ports_per_server,
        leaf_down_ports=leaf_down_ports,
        uplinks_per_leaf=uplinks,
        uplink_bundles_per_leaf=uplinks // fabric_members,
    )


def uplink_bundles_per_leaf(config: RelplanConfig) -> int:
    """Equal-cost uplink bundles of one leaf (edge switch), in any topology.

    A k-ary fat-tree's edge switch has k/2 uplinks; a two-tier leaf has
    :attr:`LeafShape.uplink_bundles_per_leaf`.
    """
    network = config.network
    if network.topology == "fat-tree":
        return network.switch_ports // 2
    return two_tier_shape(network, nics_per_server(config.cluster)).uplink_bundles_per_leaf


@dataclass(frozen=True)
class LeafUplinks:
    """What a job's traffic meets at a leaf (rail leaf, edge switch), in any topology.

    Attributes
    ----------
    servers_per_leaf : int
        Servers whose traffic to each other stays under one leaf (pair, rail unit, edge).
    oversubscription : float
        The leaf's downlink over uplink capacity (1.0 is non-blocking; 2.0 is 2:1), in
        bytes/s: ports times their link speed (``server_link_speed`` down,
        ``fabric_link_speed`` up).
    ecmp_paths : int
        Equal-cost uplink paths (bundles) ECMP spreads the leaf's crossing flows over.
    links_per_nic : int
        Links of one NIC: LACP members, times two legs with dual-ToR.
    """

    servers_per_leaf: int
    oversubscription: float
    ecmp_paths: int
    links_per_nic: int


def leaf_uplinks(config: RelplanConfig) -> LeafUplinks:
    """The leaf facts of a config's fabric (see :class:`LeafUplinks`).

    Examples
    --------
    >>> from relplan.config.loading import load_config
    >>> config = load_config("configs/seed-moe-10k.toml")
    >>> leaf_uplinks(config)
    LeafUplinks(servers_per_leaf=10, oversubscription=1.0, ecmp_paths=80, links_per_nic=1)
    >>> leaf_uplinks(load_config("configs/seed-moe-10k.toml", ["network.uplinks_per_leaf=40"]))
    LeafUplinks(servers_per_leaf=10, oversubscription=2.0, ecmp_paths=40, links_per_nic=1)
    """
    network = config.network
    nics = nics_per_server(config.cluster)
    links = links_per_nic(network)
    if network.topology == "fat-tree":
        half = network.switch_ports // 2
        ports_per_server = nics * network.server_lacp.members
        return LeafUplinks(
            servers_per_leaf=max(1, half // ports_per_server),
            oversubscription=server_link_speed(network)
            / (network.fabric_lacp.members * fabric_link_speed(network)),
            ecmp_paths=network.ecmp_width or half,
            links_per_nic=links,
        )
    shape = two_tier_shape(network, nics)
    spines = network.spines or shape.uplink_bundles_per_leaf
    return LeafUplinks(
        servers_per_leaf=shape.servers_per_group,
        oversubscription=shape.leaf_down_ports * server_link_speed(network)
        / (shape.uplinks_per_leaf * fabric_link_speed(network)),
        ecmp_paths=network.ecmp_width or min(spines, shape.uplink_bundles_per_leaf),
        links_per_nic=links,
    )


def drawn_mean_hours(value: float | list[float] | DistributionConfig) -> float:
    """The mean of a drawn duration (:data:`relplan.config.schema.DrawnHours`: a
    distribution table, measured durations or one duration), hours.

    Examples
    --------
    >>> drawn_mean_hours(0.5), drawn_mean_hours([0.1, 0.3])
    (0.5, 0.2)
    """
    if isinstance(value, list):
        return sum(value) / len(value)
    if isinstance(value, float | int):
        return float(value)
    return value.mean_hours


def drawn_tail(value: float | list[float] | DistributionConfig, hours: float) -> float:
    """The chance that a drawn duration (a distribution table, measured durations or one
    duration) exceeds ``hours``.

    Examples
    --------
    >>> from relplan.config.schema import DistributionConfig
    >>> drawn_tail([0.1, 0.2, 0.3, 0.4], 0.25), drawn_tail(0.5, 0.25)
    (0.5, 1.0)
    >>> round(drawn_tail(DistributionConfig(dist="lognormal", median="1h", sigma=1.0), 1.0), 3)
    0.5
    """
    if isinstance(value, list):
        return sum(1 for sample in value if sample > hours) / len(value)
    if isinstance(value, float | int):
        return float(value > hours)
    mean = value.mean_hours
    if value.dist == "fixed":
        return float(mean > hours)
    if value.dist == "exponential":
        return math.exp(-hours / mean)
    if value.dist == "weibull":
        scale = mean / math.gamma(1.0 + 1.0 / value.shape)
        return math.exp(-((hours / scale) ** value.shape))
    median = mean * math.exp(-0.5 * value.sigma**2)
    return 0.5 * math.erfc(math.log(hours / median) / (value.sigma * math.sqrt(2.0)))


@dataclass(frozen=True)
class RestartParts:
    """A restart after a fatal failure, built from its parts (``job.restart``).

    Attributes
    ----------
    init_hours : float
        Scheduling, process start and communicator set-up at the job's size, hours.
    durable_load_hours : float
        Reading the checkpoint back from the durable store, hours.
    fast_load_hours : float
        Reading it back from the fast tier (a peer's memory), hours.
    """

    init_hours: float
    durable_load_hours: float
    fast_load_hours: float

    @property
    def durable_hours(self) -> float:
        """A restart from the durable store, hours."""
        return self.init_hours + self.durable_load_hours

    @property
    def fast_hours(self) -> float:
        """A restart from the fast tier, hours."""
        return self.init_hours + self.fast_load_hours


def init_scale(scaling: str | float, gpus: int, reference_gpus: int) -> float:
    """How much longer the start-up of ``gpus`` GPUs takes than that of ``reference_gpus``.

    Parameters
    ----------
    scaling : {"none", "log2", "linear", "quadratic"} or float
        ``log2``: ``log2(gpus) / log2(reference_gpus)`` (a tree-shaped set-up, such as
        NCCL's communicator bootstrap); ``linear``, ``quadratic`` and a number ``a``:
        ``(gpus / reference_gpus) ** a`` with ``a`` 1, 2 or the number (a power law,
        :data:`relplan.vocab.INIT_SCALINGS`); ``none``: 1.
    gpus, reference_gpus : int
        Job size, and the size the start-up was measured at.

    Returns
    -------
    float
        The factor (1 at the reference size).

    Examples
    --------
    >>> init_scale("log2", 16384, 1024), init_scale("linear", 2048, 1024)
    (1.4, 2.0)
    >>> init_scale("quadratic", 4096, 1024), init_scale(1.5, 4096, 1024)
    (16.0, 8.0)
    """
    if scaling == "log2":
        return math.log2(max(gpus, 2)) / math.log2(reference_gpus)
    exponent = INIT_SCALINGS[scaling] if isinstance(scaling, str) else float(scaling)
    return (gpus / reference_gpus) ** exponent  # x ** 0.0 is exactly 1.0


def restart_parts(config: RelplanConfig) -> RestartParts:
    """The restart's parts: ``job.restart`` as one duration (all of it ``init``, the
    same from either tier), or ``{init, init_scaling, load}`` (a load drawn at each
    restart, from a distribution or measured durations, counts its mean here).

    With ``load = "auto"`` the checkpoint is read from the tier that survived: the whole
    checkpoint at the store's aggregate ``job.checkpoint.read_bandwidth`` (default: its
    write ``bandwidth``), or each GPU's shard (``size / gpus``) at
    ``job.checkpoint.fast.peer_bandwidth`` from a peer's memory.

    Parameters
    ----------
    config : RelplanConfig
        A validated config (``load = "auto"`` needs ``job.checkpoint.size`` and a read
        bandwidth; :func:`relplan.config.checks.check_consistency` says so first).

    Returns
    -------
    RestartParts

    Examples
    --------
    >>> from relplan.config.loading import load_config
    >>> config = load_config("configs/llama3-16k.toml", [  # 5.67 TB at 2 TB/s
    ...     'job.restart={init="2min", load="auto"}'])
    >>> parts = restart_parts(config)
    >>> round(parts.init_hours * 60, 3), round(parts.durable_load_hours * 3600, 3)
    (2.0, 2.835)
    """
    job = config.job
    restart = job.restart
    fast = job.checkpoint.fast
    fast_load = None  # the fast tier's own load (its mean, if drawn)
    if fast is not None and fast.load is not None:
        fast_load = fast.load_hours
    if isinstance(restart, float | int):  # one duration, not a table of parts
        return RestartParts(float(restart), 0.0, fast_load or 0.0)
    scaling = restart.init_scaling
    if not isinstance(scaling, str):  # a power law { exponent = a }
        scaling = scaling.exponent
    init = restart.init * init_scale(scaling, job.gpus, restart.reference_gpus)
    load = restart.load
    if not isinstance(load, str):  # a duration, a distribution or measured durations: mean
        mean = drawn_mean_hours(load)
        return RestartParts(init, mean, mean if fast_load is None else fast_load)
    checkpoint = job.checkpoint
    size = checkpoint.size or 0.0
    read = checkpoint.read_bandwidth or checkpoint.bandwidth
    durable = size / read / 3600.0 if read else 0.0
    shard = size / job.gpus / fast.peer_bandwidth / 3600.0 if fast is not None else durable
    return RestartParts(init, durable, shard if fast_load is None else fast_load)


@dataclass(frozen=True)
class DerivedFacts:
    """Every fact the model's later stages derive from a config, read off it once.

    The first stage of building a model (:func:`derive`); the inventory, the step model
    and the impacts take this record instead of asking the config again. Each field is
    computed by the one function above that owns its formula.

    Attributes
    ----------
    job_servers : int
        Servers the job's GPUs fill (:func:`job_servers`).
    nics_per_server : int
        NICs in a server (:func:`nics_per_server`).
    server_legs : int
        Leaves each NIC is homed to (:func:`server_legs`).
    links_per_nic : int
        Links of one NIC (:func:`links_per_nic`).
    server_link_speed_bytes_per_s : float
        One NIC-to-leaf link, bytes/s (:func:`server_link_speed`).
    fabric_link_speed_bytes_per_s : float
        One switch-to-switch link, bytes/s (:func:`fabric_link_speed`).
    leaf_shape : LeafShape or None
        The two-tier leaf shape (:func:`two_tier_shape`); None for a fat-tree.
    leaf_uplinks : LeafUplinks
        What the job's traffic meets at a leaf (:func:`leaf_uplinks`).
    data_parallel_degree : int
        The data-parallel degree (:func:`data_parallel_degree`).
    restart : RestartParts
        The restart's parts (:func:`restart_parts`).
    """

    job_servers: int
    nics_per_server: int
    server_legs: int
    links_per_nic: int
    server_link_speed_bytes_per_s: float
    fabric_link_speed_bytes_per_s: float
    leaf_shape: LeafShape | None
    leaf_uplinks: LeafUplinks
    data_parallel_degree: int
    restart: RestartParts


def derive(config: RelplanConfig) -> DerivedFacts:
    """The :class:`DerivedFacts` of a validated config: the first stage of a model.

    Examples
    --------
    >>> from relplan.config.loading import load_config
    >>> facts = derive(load_config("configs/seed-moe-10k.toml"))
    >>> facts.job_servers, facts.nics_per_server, facts.leaf_uplinks.servers_per_leaf
    (1280, 8, 10)
    """
    network = config.network
    nics = nics_per_server(config.cluster)
    shape = None if network.topology == "fat-tree" else two_tier_shape(network, nics)
    return DerivedFacts(
        job_servers=job_servers(config),
        nics_per_server=nics,
        server_legs=server_legs(network),
        links_per_nic=links_per_nic(network),
        server_link_speed_bytes_per_s=server_link_speed(network),
        fabric_link_speed_bytes_per_s=fabric_link_speed(network),
        leaf_shape=shape,
        leaf_uplinks=leaf_uplinks(config),
        data_parallel_degree=data_parallel_degree(config),
        restart=restart_parts(config),
    )
