"""From the cluster and network sections to an inventory of component classes.

The inventory counts every class (gpu, host, nic, optic, link, leaf, spine, core, rack,
domain) in the whole cluster and in the job's footprint: what the job's servers touch. The
job's servers fill the fabric in order (leaves, rail units or fat-tree edge ports), and
racks and scale-up domains in order too.

- spine-leaf: servers fill leaves (leaf pairs with dual-ToR); spines, and the leaves'
  uplinks with their optics, belong to the footprint only when the job spans more
  than one leaf (pair).
- rail-optimized: servers fill scalable units; a unit has one rail leaf per NIC (a
  pair per NIC with dual-ToR). Traffic inside a unit stays on its rail leaves
  (same-rail peers share a leaf; cross-rail traffic crosses NVLink first), so spines
  belong to the footprint only when the job spans more than one unit.
- fat-tree (k-ary, k-port switches): the servers' NIC links fill edge (``leaf``) ports
  in order, k/2 per edge, k/2 edges per pod. The footprint holds the edges its links
  reach, the k/2 aggregation switches (``spine``) of each pod it reaches when it spans
  more than one edge (pair), and all (k/2)^2 ``core`` switches when it spans pods. The
  cluster counts the pods its servers fill; more than k pods overflow the core
  switches' k ports, which the port budget reports.

The inventory also carries the topology facts the impact model needs and a port
budget per switch tier. :func:`build_inventory` never refuses a design that does not
fit its switches; :func:`check_port_budget` says what does not fit.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from relplan.config.derived import DerivedFacts, ceil_div, derive
from relplan.config.schema import NetworkConfig, RelplanConfig
from relplan.vocab import COMPONENT_CLASSES


@dataclass(frozen=True)
class ComponentCount:
    """How many units of one component class there are.

    Attributes
    ----------
    component : str
        The class name (gpu, host, nic, optic, link, leaf, spine, core).
    cluster_units : int
        Units in the whole cluster.
    job_units : int
        Units in the job's footprint (spare servers excluded).
    """

    component: str
    cluster_units: int
    job_units: int


@dataclass(frozen=True)
class PortBudget:
    """Ports one switch of a tier needs against the ports it has (whole cluster).

    Attributes
    ----------
    tier : str
        ``leaf``, ``spine`` or ``core``.
    switches : int
        Switches of the tier in the cluster.
    down_ports : int
        Ports per switch facing the tier below (the servers' links, for a leaf).
    up_ports : int
        Ports per switch facing the tier above (0 when no tier above is in use).
    ports_available : int
        Ports of one switch (its radix).
    ports_needed : int
        ``down_ports + up_ports``.
    fits : bool
        Whether ``ports_needed <= ports_available``.
    shortfall : int
        Ports missing per switch (0 when it fits).
    """

    tier: str
    switches: int
    down_ports: int
    up_ports: int
    ports_available: int
    ports_needed: int = field(init=False)
    fits: bool = field(init=False)
    shortfall: int = field(init=False)

    def __post_init__(self) -> None:
        needed = self.down_ports + self.up_ports
        object.__setattr__(self, "ports_needed", needed)
        object.__setattr__(self, "fits", needed <= self.ports_available)
        object.__setattr__(self, "shortfall", max(0, needed - self.ports_available))


@dataclass(frozen=True)
class Inventory:
    """Component counts for a cluster and a job's footprint, and the fabric's facts.

    Attributes
    ----------
    components : tuple of ComponentCount
        One entry per class, in the order of :data:`relplan.vocab.COMPONENT_CLASSES`.
    job_servers : int
        Servers the job runs on.
    spare_servers : int
        Spare servers set aside for the job: the loose ones and those of its spare
        domains.
    servers_per_leaf : int
        Servers under one leaf (a leaf pair with dual-ToR; a scalable unit's rail leaf
        for rail-optimized; at least 1 in a fat-tree, where a server with more NIC
        links than an edge's k/2 host ports spans ``leaves_per_server`` edges).
    job_leaves : int
        Leaf (edge) switches the job's servers hang from.
    topology : str
        ``spine-leaf``, ``rail-optimized`` or ``fat-tree``.
    nics_per_server : int
        NICs in one server.
    leaves_per_server : int
        Leaves one server's links reach (2 with dual-ToR; a rail-optimized server
        reaches one rail leaf, or pair, per NIC).
    rails : int
        Rails (NICs per server) of a rail-optimized fabric; 0 for other topologies.
    uplinks_per_leaf : int
        Links from one leaf to the tier above (bundles x fabric LACP members).
    uplink_bundles_per_leaf : int
        Logical uplinks of one leaf (``uplinks_per_leaf / fabric_lacp_members``).
    spines : int
        Spines (aggregation switches in a fat-tree) in the job's path: the job's spine
        units, 0 when the job sits under one leaf (pair) or rail unit.
    spines_per_leaf : int
        Spines one leaf's uplinks reach: the ECMP fan-out, so one lost spine cuts an
        attached leaf's uplink capacity by ``1 / spines_per_leaf``.
    ecmp_width : int
        Equal-cost uplinks in use per leaf (default ``spines_per_leaf``).
    job_pods : int
        Fat-tree pods the job's servers reach (0 for other topologies).
    server_lacp_members, server_lacp_min_links : int
        Links per server-side bundle (one per NIC per leaf), and the fewest that keep it up.
    fabric_lacp_members, fabric_lacp_min_links : int
        Links per fabric bundle (leaf-spine, spine-core), and the fewest that keep it up.
    dual_tor : bool
        Whether every NIC is homed to two leaves (an MLAG pair).
    oversubscription : float
        A leaf's downlink capacity over its uplink capacity (1.0 = 1:1).
    link_speed_bytes_per_s : float
        Speed of one link (one bundle member), bytes per second.
    job_server_links, job_fabric_links : int
        The job's links split into server-to-leaf links and switch-to-switch links
        (optics are two per optical link of each kind).
    port_budget : tuple of PortBudget
        One row per switch tier of the topology (leaf, spine, and core in a fat-tree).
    """

    components: tuple[ComponentCount, ...]
    job_servers: int
    spare_servers: int
    servers_per_leaf: int
    job_leaves: int
    topology: str = "spine-leaf"
    nics_per_server: int = 1
    leaves_per_server: int = 1
    rails: int = 0
    uplinks_per_leaf: int = 0
    uplink_bundles_per_leaf: int = 0
    spines: int = 0
    spines_per_leaf: int = 0
    ecmp_width: int = 0
    job_pods: int = 0
    server_lacp_members: int = 1
    server_lacp_min_links: int = 1
    fabric_lacp_members: int = 1
    fabric_lacp_min_links: int = 1
    dual_tor: bool = False
    oversubscription: float = 1.0
    link_speed_bytes_per_s: float = 400e9 / 8
    port_budget: tuple[PortBudget, ...] = ()
    job_server_links: int = 0
    job_fabric_links: int = 0

    def job_units(self, component: str) -> int:
        """Units of a class in the job's footprint (1 for the pseudo-class ``job``)."""
        if component == "job":
            return 1
        return self._by_name()[component].job_units

    def cluster_units(self, component: str) -> int:
        """Units of a class in the whole cluster (1 for the pseudo-class ``job``)."""
        if component == "job":
            return 1
        return self._by_name()[component].cluster_units

    def _by_name(self) -> dict[str, ComponentCount]:
        return {c.component: c for c in self.components}


@dataclass(frozen=True)
class _Footprint:
    """Network units reached by a number of servers (the cluster's, or the job's)."""

    leaves: int
    spines: int
    cores: int
    server_links: int
    fabric_links: int
    pods: int = 0


@dataclass(frozen=True)
class _Fabric:
    """One topology worked out: its shape, and the cluster's and job's footprints."""

    servers_per_leaf: int
    leaves_per_server: int
    uplinks_per_leaf: int
    spines_per_leaf: int
    leaf_down_ports: int
    cluster: _Footprint
    job: _Footprint
    port_budget: tuple[PortBudget, ...]


def _two_tier(network: NetworkConfig, facts: DerivedFacts, servers: int) -> _Fabric:
    """Spine-leaf or rail-optimized: leaves (rail leaves) under one tier of spines."""
    nics, job_servers = facts.nics_per_server, facts.job_servers
    shape = facts.leaf_shape
    if shape is None:
        raise ValueError("a two-tier fabric needs the leaf shape of its facts")
    group = shape.servers_per_group
    leaves_per_group = shape.leaves_per_group
    ports_per_server = shape.ports_per_server
    leaf_down_ports = shape.leaf_down_ports
    uplinks = shape.uplinks_per_leaf
    bundles = shape.uplink_bundles_per_leaf
    fabric_members = network.fabric_lacp.members
    links_per_server = nics * facts.links_per_nic
    spines = network.spines or bundles
    spines_per_leaf = min(spines, bundles)

    def footprint(server_count: int) -> _Footprint:
        groups = ceil_div(server_count, group)
        leaves = groups * leaves_per_group
        spine_count = min(spines, leaves * spines_per_leaf) if groups > 1 else 0
        return _Footprint(
            leaves=leaves,
            spines=spine_count,
            cores=0,
            server_links=server_count * links_per_server,
            fabric_links=leaves * uplinks if spine_count else 0,
        )

    cluster = footprint(servers)
    leaf_budget = PortBudget(
        tier="leaf",
        switches=cluster.leaves,
        down_ports=min(group, servers) * ports_per_server,
        up_ports=uplinks if cluster.spines else 0,
        ports_available=network.switch_ports,
    )
    # Leaves spread their uplink bundles evenly over the spines; the busiest spine
    # takes the rounded-up share.
    spine_down = (
        ceil_div(cluster.leaves * bundles, cluster.spines) * fabric_members
        if cluster.spines
        else 0
    )
    spine_budget = PortBudget(
        tier="spine",
        switches=cluster.spines,
        down_ports=spine_down,
        up_ports=0,
        ports_available=network.spine_ports or network.switch_ports,
    )
    return _Fabric(
        servers_per_leaf=group,
        leaves_per_server=leaves_per_group,
        uplinks_per_leaf=uplinks,
        spines_per_leaf=spines_per_leaf,
        leaf_down_ports=leaf_down_ports,
        cluster=cluster,
        job=footprint(job_servers),
        port_budget=(leaf_budget, spine_budget),
    )


def _fat_tree(network: NetworkConfig, facts: DerivedFacts, servers: int) -> _Fabric:
    """A three-tier k-ary fat-tree; the servers' NIC links fill edge ports in order."""
    nics, job_servers = facts.nics_per_server, facts.job_servers
    k = network.switch_ports
    half = k // 2
    homes = facts.server_legs
    fabric_members = network.fabric_lacp.members
    ports_per_server = nics * network.server_lacp.members  # per home

    def footprint(server_count: int) -> _Footprint:
        host_ports = server_count * ports_per_server
        edges = homes * ceil_div(host_ports, half)
        pods = ceil_div(edges, half)
        aggregations = pods * half if edges > homes else 0
        cores = half * half if pods > 1 else 0
        edge_uplinks = edges * half * fabric_members if aggregations else 0
        aggregation_uplinks = aggregations * half * fabric_members if cores else 0
        return _Footprint(
            leaves=edges,
            spines=aggregations,
            cores=cores,
            server_links=host_ports * homes,
            fabric_links=edge_uplinks + aggregation_uplinks,
            pods=pods,
        )

    cluster = footprint(servers)
    budget = (
        PortBudget(
            tier="leaf",
            switches=cluster.leaves,
            down_ports=min(half, servers * ports_per_server),
            up_ports=half * fabric_members if cluster.spines else 0,
            ports_available=k,
        ),
        PortBudget(
            tier="spine",
            switches=cluster.spines,
            down_ports=min(half, cluster.leaves) * fabric_members if cluster.spines else 0,
            up_ports=half * fabric_members if cluster.cores else 0,
            ports_available=k,
        ),
        PortBudget(
            tier="core",
            switches=cluster.cores,
            down_ports=cluster.pods * fabric_members if cluster.cores else 0,
            up_ports=0,
            ports_available=k,
        ),
    )
    return _Fabric(
        servers_per_leaf=max(1, half // ports_per_server),
        leaves_per_server=homes * ceil_div(ports_per_server, half),
        uplinks_per_leaf=half * fabric_members,
        spines_per_leaf=half,
        leaf_down_ports=half,
        cluster=cluster,
        job=footprint(job_servers),
        port_budget=budget,
    )


def build_inventory(config: RelplanConfig, facts: DerivedFacts | None = None) -> Inventory:
    """Count every component class of a config (:func:`inventory_from_facts`), deriving
    its facts first unless given.

    Examples
    --------
    >>> from relplan.config.loading import load_config
    >>> build_inventory(load_config("configs/seed-moe-10k.toml")).job_servers
    1280
    """
    return inventory_from_facts(config, facts if facts is not None else derive(config))


def inventory_from_facts(config: RelplanConfig, facts: DerivedFacts) -> Inventory:
    """Count every component class in the cluster and in the job's footprint.

    Parameters
    ----------
    config : RelplanConfig
        A validated config (its per-class settings: server counts, link media, LACP).
    facts : DerivedFacts
        Its derived facts (:func:`relplan.config.derived.derive`).

    Returns
    -------
    Inventory
        Counts per class (optics are two per optical link), the topology's facts and
        its port budget. A design that does not fit its switches is counted all the
        same; :func:`check_port_budget` names what does not fit.

    Examples
    --------
    >>> from relplan.config.loading import load_config
    >>> from relplan.config.derived import derive
    >>> config = load_config("configs/seed-moe-10k.toml")
    >>> inventory = inventory_from_facts(config, derive(config))
    >>> inventory.job_units("gpu"), inventory.job_servers
    (10240, 1280)
    """
    cluster, network = config.cluster, config.network
    nics = facts.nics_per_server
    servers_in_job = facts.job_servers
    build = _fat_tree if network.topology == "fat-tree" else _two_tier
    fabric = build(network, facts, cluster.servers)

    def optics(footprint: _Footprint) -> int:
        server_optics = 2 * footprint.server_links * (network.server_links == "optical")
        fabric_optics = 2 * footprint.fabric_links * (network.fabric_links == "optical")
        return server_optics + fabric_optics

    def network_counts(footprint: _Footprint) -> dict[str, int]:
        return {
            "optic": optics(footprint),
            "link": footprint.server_links + footprint.fabric_links,
            "leaf": footprint.leaves,
            "spine": footprint.spines,
            "core": footprint.cores,
        }

    cluster_network = network_counts(fabric.cluster)
    job_network = network_counts(fabric.job)
    counts = {
        "gpu": (cluster.servers * cluster.gpus_per_server, config.job.gpus),
        "host": (cluster.servers, servers_in_job),
        "nic": (cluster.servers * nics, servers_in_job * nics),
        **{name: (cluster_network[name], job_network[name]) for name in cluster_network},
        # the job's servers fill racks in order, like leaves
        "rack": (ceil_div(cluster.servers, cluster.servers_per_rack),
                 ceil_div(servers_in_job, cluster.servers_per_rack)),
        # and scale-up domains: the job holds whole domains, its last one maybe partly used
        "domain": (ceil_div(cluster.servers, cluster.servers_per_domain),
                   ceil_div(servers_in_job, cluster.servers_per_domain)),
    }
    bundles = fabric.uplinks_per_leaf // network.fabric_lacp.members
    uplinks = facts.leaf_uplinks
    return Inventory(
        components=tuple(ComponentCount(name, *counts[name]) for name in COMPONENT_CLASSES),
        job_servers=servers_in_job,
        spare_servers=config.job.spares
        + config.job.spare_domains * cluster.servers_per_domain,
        servers_per_leaf=fabric.servers_per_leaf,
        job_leaves=fabric.job.leaves,
        topology=network.topology,
        nics_per_server=nics,
        leaves_per_server=fabric.leaves_per_server,
        rails=nics if network.topology == "rail-optimized" else 0,
        uplinks_per_leaf=fabric.uplinks_per_leaf,
        uplink_bundles_per_leaf=bundles,
        spines=fabric.job.spines,
        spines_per_leaf=fabric.spines_per_leaf,
        ecmp_width=uplinks.ecmp_paths,
        job_pods=fabric.job.pods,
        server_lacp_members=network.server_lacp.members,
        server_lacp_min_links=network.server_lacp.min_links,
        fabric_lacp_members=network.fabric_lacp.members,
        fabric_lacp_min_links=network.fabric_lacp.min_links,
        dual_tor=network.dual_tor,
        oversubscription=uplinks.oversubscription,
        link_speed_bytes_per_s=network.link_speed,
        port_budget=fabric.port_budget,
        job_server_links=fabric.job.server_links,
        job_fabric_links=fabric.job.fabric_links,
    )


def check_port_budget(inventory: Inventory) -> list[str]:
    """Name every switch tier whose switches have too few ports.

    Parameters
    ----------
    inventory : Inventory
        An inventory from :func:`build_inventory`.

    Returns
    -------
    list of str
        One line per tier that does not fit, for example
        ``"leaf: needs 160 ports (80 down + 80 up) but has 128: short by 32"``;
        empty when every tier fits.

    Examples
    --------
    >>> from relplan.config.loading import load_config
    >>> check_port_budget(build_inventory(load_config("configs/seed-moe-10k.toml")))
    ['leaf: needs 160 ports (80 down + 80 up) but has 128: short by 32']
    """
    return [
        f"{row.tier}: needs {row.ports_needed} ports ({row.down_ports} down + "
        f"{row.up_ports} up) but has {row.ports_available}: short by {row.shortfall}"
        for row in inventory.port_budget
        if not row.fits
    ]
