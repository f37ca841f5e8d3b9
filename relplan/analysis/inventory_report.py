"""The inventory report: what the job touches, how often it fails, and what each failure does.

The data behind ``relplan inventory``: component counts of the cluster and of the job's
footprint, the fabric's facts, the port budget per switch tier, every failure mode with its
rate, share, repair and impact, and the job's mean time to interruption.
"""

from __future__ import annotations

from typing import Any

from relplan.cluster.topology import Inventory, check_port_budget
from relplan.config.schema import RelplanConfig
from relplan.sim.model import SimulationModel, build_model
from relplan.stats.summary import finite_or_none


def topology_facts(inventory: Inventory) -> dict[str, Any]:
    """The fabric's facts of an inventory, as a JSON-ready dict (link speed in bytes/s)."""
    return {
        "topology": inventory.topology,
        "nics_per_server": inventory.nics_per_server,
        "servers_per_leaf": inventory.servers_per_leaf,
        "leaves_per_server": inventory.leaves_per_server,
        "rails": inventory.rails,
        "job_leaves": inventory.job_leaves,
        "job_pods": inventory.job_pods,
        "uplinks_per_leaf": inventory.uplinks_per_leaf,
        "uplink_bundles_per_leaf": inventory.uplink_bundles_per_leaf,
        "spines": inventory.spines,
        "spines_per_leaf": inventory.spines_per_leaf,
        "ecmp_width": inventory.ecmp_width,
        "server_lacp_members": inventory.server_lacp_members,
        "server_lacp_min_links": inventory.server_lacp_min_links,
        "fabric_lacp_members": inventory.fabric_lacp_members,
        "fabric_lacp_min_links": inventory.fabric_lacp_min_links,
        "dual_tor": inventory.dual_tor,
        "oversubscription": inventory.oversubscription,
        "link_speed_bytes_per_s": inventory.link_speed_bytes_per_s,
    }


def inventory_report(config: RelplanConfig, model: SimulationModel | None = None) -> dict[str, Any]:
    """The inventory of a config as a JSON-ready dict (counts, rates, job MTTI).

    Parameters
    ----------
    config : RelplanConfig
        A validated config.
    model : SimulationModel, optional
        Its model, if already built.

    Returns
    -------
    dict
        ``components`` (cluster and job units per class), ``failure_modes`` (per mode:
        unit, units in the job, mean life in hours, failures per hour of the job's use,
        share of failures, impact, slowdown of one unrepaired failure, stall, whether a
        spare stands in, and ``spares_needed`` servers at once or a ``spare_domain``,
        and ``needs_spare``: absorbed by live migration only with a spare free),
        ``job_mtti_hours`` (fatal modes, and those a live migration finds no spare for),
        ``job_servers``, ``spare_servers``,
        ``topology`` (the fabric's facts), ``port_budget`` (per switch tier: switches,
        ports down, up, needed and available per switch, fits, shortfall) and
        ``port_problems`` (one line per tier that does not fit).

    Examples
    --------
    >>> from relplan.config.loading import load_config
    >>> report = inventory_report(load_config("configs/small.toml"))
    >>> report["components"]["gpu"]["job_units"]
    512
    """
    model = model if model is not None else build_model(config)
    inventory = model.inventory
    total_rate = sum(mode.job_rate_per_hour for mode in model.modes)
    return {
        "components": {
            c.component: {"cluster_units": c.cluster_units, "job_units": c.job_units}
            for c in inventory.components
        },
        "failure_modes": {
            mode.name: {
                "unit": mode.unit,
                "job_units": mode.job_units,
                "lifetime": mode.lifetime.kind,
                "mean_life_hours": mode.lifetime.mean_hours,
                "mean_repair_hours": mode.mean_repair_hours,
                "detect_hours": mode.detect_hours,
                "uses_spares": mode.uses_spares,
                "spares_needed": mode.spares_needed,
                "spare_domain": mode.spare_domain,
                "job_failures_per_hour": mode.job_rate_per_hour,
                "share": mode.job_rate_per_hour / total_rate if total_rate else 0.0,
                "impact": mode.impact,
                "slowdown": mode.slowdown_by_count[0],
                "stall_hours": mode.stall_hours,
                "needs_spare": mode.needs_spare,
            }
            for mode in model.modes
        },
        "job_servers": inventory.job_servers,
        "spare_servers": inventory.spare_servers,
        "servers_per_leaf": inventory.servers_per_leaf,
        "job_mtti_hours": finite_or_none(model.job_mtti_hours),
        "topology": topology_facts(inventory),
        "port_budget": [
            {
                "tier": row.tier,
                "switches": row.switches,
                "down_ports": row.down_ports,
                "up_ports": row.up_ports,
                "ports_needed": row.ports_needed,
                "ports_available": row.ports_available,
                "fits": row.fits,
                "shortfall": row.shortfall,
            }
            for row in inventory.port_budget
        ],
        "port_problems": check_port_budget(inventory),
    }
