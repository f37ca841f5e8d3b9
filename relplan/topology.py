"""From the cluster and network sections to an inventory of component classes.

The inventory counts every class (gpu, host, nic, optic, link, leaf, spine) in the
whole cluster and in the job's footprint: what the job's servers touch. The job's
servers fill leaves in order; spines (and the leaf-spine links and their optics)
belong to the footprint only when the job spans more than one leaf.
"""

from __future__ import annotations

from dataclasses import dataclass

from relplan.config import COMPONENT_CLASSES, RelplanConfig


@dataclass(frozen=True)
class ComponentCount:
    """How many units of one component class there are.

    Attributes
    ----------
    component : str
        The class name (gpu, host, nic, optic, link, leaf, spine).
    cluster_units : int
        Units in the whole cluster.
    job_units : int
        Units in the job's footprint (spare servers excluded).
    """

    component: str
    cluster_units: int
    job_units: int


@dataclass(frozen=True)
class Inventory:
    """Component counts for a cluster and a job's footprint.

    Attributes
    ----------
    components : tuple of ComponentCount
        One entry per class, in the order of :data:`relplan.config.COMPONENT_CLASSES`.
    job_servers : int
        Servers the job runs on.
    spare_servers : int
        Spare servers set aside for the job.
    servers_per_leaf : int
        Servers under one leaf switch.
    job_leaves : int
        Leaf switches the job's servers hang from.
    """

    components: tuple[ComponentCount, ...]
    job_servers: int
    spare_servers: int
    servers_per_leaf: int
    job_leaves: int

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


def build_inventory(config: RelplanConfig) -> Inventory:
    """Count every component class in the cluster and in the job's footprint.

    Parameters
    ----------
    config : RelplanConfig
        A validated config.

    Returns
    -------
    Inventory
        Counts per class; optics are two per optical link.
    """
    cluster, network = config.cluster, config.network
    nics_per_server = cluster.nics_per_server or cluster.gpus_per_server
    servers_per_leaf = network.servers_per_leaf or max(
        1, (network.switch_ports // 2) // nics_per_server
    )
    uplinks_per_leaf = network.uplinks_per_leaf or servers_per_leaf * nics_per_server
    spines = network.spines or uplinks_per_leaf

    job_servers = -(-config.job.gpus // cluster.gpus_per_server)
    cluster_leaves = -(-cluster.servers // servers_per_leaf)
    job_leaves = -(-job_servers // servers_per_leaf)
    cluster_spines = spines if cluster_leaves > 1 else 0
    job_spines = spines if job_leaves > 1 else 0

    def links(servers: int, leaves: int, spine_count: int) -> tuple[int, int]:
        server_links = servers * nics_per_server
        fabric_links = leaves * uplinks_per_leaf if spine_count else 0
        optics = 2 * server_links * (network.server_links == "optical") + 2 * fabric_links * (
            network.fabric_links == "optical"
        )
        return server_links + fabric_links, optics

    cluster_links, cluster_optics = links(cluster.servers, cluster_leaves, cluster_spines)
    job_links, job_optics = links(job_servers, job_leaves, job_spines)
    counts = {
        "gpu": (cluster.servers * cluster.gpus_per_server, config.job.gpus),
        "host": (cluster.servers, job_servers),
        "nic": (cluster.servers * nics_per_server, job_servers * nics_per_server),
        "optic": (cluster_optics, job_optics),
        "link": (cluster_links, job_links),
        "leaf": (cluster_leaves, job_leaves),
        "spine": (cluster_spines, job_spines),
    }
    return Inventory(
        components=tuple(ComponentCount(name, *counts[name]) for name in COMPONENT_CLASSES),
        job_servers=job_servers,
        spare_servers=config.job.spares,
        servers_per_leaf=servers_per_leaf,
        job_leaves=job_leaves,
    )
