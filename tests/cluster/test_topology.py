"""Inventory counts, worked by hand."""

from __future__ import annotations

import json
from typing import Any

import pytest
from typer.testing import CliRunner

from relplan.cli.app import app
from relplan.cluster.topology import Inventory, build_inventory, check_port_budget
from relplan.config.loading import load_config, parse_config
from relplan.errors import ConfigError
from relplan.sim.model import build_model
from relplan.vocab import COMPONENT_CLASSES
from tests.conftest import CONFIGS


def test_counts_worked_by_hand(minimal_raw: dict[str, Any]) -> None:
    # 128 servers x 8 GPUs, 8 NICs each; 64-port leaves at 1:1 hold 32 NICs = 4 servers;
    # 32 leaves, 32 uplinks each, one to each of 32 spines. The job uses 40 servers.
    minimal_raw["job"]["gpus"] = 320
    inventory = build_inventory(parse_config(minimal_raw))
    counts = {c.component: (c.cluster_units, c.job_units) for c in inventory.components}
    assert inventory.servers_per_leaf == 4
    assert inventory.job_servers == 40
    assert counts["gpu"] == (1024, 320)
    assert counts["host"] == (128, 40)
    assert counts["nic"] == (1024, 320)
    assert counts["leaf"] == (32, 10)
    assert counts["spine"] == (32, 32)
    # links: one per NIC, plus leaf uplinks; optics two per optical link
    assert counts["link"] == (1024 + 32 * 32, 320 + 10 * 32)
    assert counts["optic"] == (2 * (1024 + 1024), 2 * (320 + 320))


def test_job_inside_one_leaf_touches_no_spine(minimal_raw: dict[str, Any]) -> None:
    minimal_raw["job"]["gpus"] = 16
    minimal_raw["network"] = {"servers_per_leaf": 4, "server_links": "copper"}
    inventory = build_inventory(parse_config(minimal_raw))
    assert inventory.job_units("spine") == 0
    assert inventory.job_units("leaf") == 1
    assert inventory.job_units("link") == 16
    assert inventory.job_units("optic") == 0  # copper server links, no fabric links used


def test_partial_server_rounds_up(minimal_raw: dict[str, Any]) -> None:
    minimal_raw["job"]["gpus"] = 12
    inventory = build_inventory(parse_config(minimal_raw))
    assert inventory.job_servers == 2
    assert inventory.job_units("gpu") == 12
    assert inventory.job_units("job") == 1


# -- topologies, redundancy options and the port budget -------------------------------------


def _inventory(raw: dict[str, Any], network: dict[str, Any], **cluster: int) -> Inventory:
    raw["network"] = network
    raw["cluster"].update(cluster)
    gpus = raw["cluster"]["servers"] * raw["cluster"].get("gpus_per_server", 8)
    raw["job"]["gpus"] = min(raw["job"]["gpus"], gpus)
    return build_inventory(parse_config(raw))


def _counts(inventory: Inventory) -> dict[str, tuple[int, int]]:
    return {c.component: (c.cluster_units, c.job_units) for c in inventory.components}


def test_every_class_is_counted_and_spine_leaf_has_no_core(minimal_raw: dict[str, Any]) -> None:
    inventory = build_inventory(parse_config(minimal_raw))
    assert [c.component for c in inventory.components] == list(COMPONENT_CLASSES)
    assert "core" in COMPONENT_CLASSES
    assert _counts(inventory)["core"] == (0, 0)
    assert inventory.topology == "spine-leaf"
    assert inventory.spines == inventory.spines_per_leaf == inventory.ecmp_width == 32
    assert inventory.oversubscription == 1.0
    assert inventory.link_speed_bytes_per_s == 400e9 / 8
    assert check_port_budget(inventory) == []


def test_fat_tree_k4_by_hand(minimal_raw: dict[str, Any]) -> None:
    # k = 4: 4 pods of 2 edge + 2 aggregation switches, (4/2)^2 = 4 cores, 4^3/4 = 16 hosts.
    # 16 one-NIC servers fill all 16 host ports.
    minimal_raw["job"]["gpus"] = 16
    inventory = _inventory(
        minimal_raw, {"topology": "fat-tree", "switch_ports": 4}, servers=16, gpus_per_server=1
    )
    counts = _counts(inventory)
    assert counts["leaf"] == (8, 8)
    assert counts["spine"] == (8, 8)
    assert counts["core"] == (4, 4)
    # 16 host links + 8 edges x 2 up + 8 aggregations x 2 up; two optics per link.
    assert counts["link"] == (16 + 16 + 16, 48)
    assert counts["optic"] == (96, 96)
    assert inventory.job_pods == 4
    assert inventory.spines_per_leaf == inventory.ecmp_width == 2
    assert inventory.oversubscription == 1.0
    budget = {row.tier: row for row in inventory.port_budget}
    assert (budget["leaf"].down_ports, budget["leaf"].up_ports) == (2, 2)
    assert (budget["spine"].down_ports, budget["spine"].up_ports) == (2, 2)
    assert (budget["core"].down_ports, budget["core"].up_ports) == (4, 0)
    assert all(row.fits and row.ports_available == 4 for row in inventory.port_budget)


@pytest.mark.parametrize(
    ("job_gpus", "leaves", "spines", "cores", "links"),
    [
        (2, 1, 0, 0, 2),  # one edge: no aggregation switch
        (4, 2, 2, 0, 4 + 2 * 2),  # two edges of pod 0: its 2 aggregations
        (6, 3, 4, 4, 6 + 3 * 2 + 4 * 2),  # spans pods: 2 pods' aggregations, every core
    ],
)
def test_fat_tree_job_footprint(
    minimal_raw: dict[str, Any], job_gpus: int, leaves: int, spines: int, cores: int, links: int
) -> None:
    minimal_raw["job"]["gpus"] = job_gpus
    inventory = _inventory(
        minimal_raw, {"topology": "fat-tree", "switch_ports": 4}, servers=16, gpus_per_server=1
    )
    assert inventory.job_units("leaf") == inventory.job_leaves == leaves
    assert inventory.job_units("spine") == inventory.spines == spines
    assert inventory.job_units("core") == cores
    assert inventory.job_units("link") == links


def test_fat_tree_maps_eight_nic_servers_onto_edge_ports(minimal_raw: dict[str, Any]) -> None:
    # k = 8: 4 host ports per edge, so an 8-NIC server spans 2 edges; 16 servers = 128 =
    # 8^3/4 host ports: the whole tree, 8 pods x 4 edges, 32 aggregations, 16 cores.
    inventory = _inventory(minimal_raw, {"topology": "fat-tree", "switch_ports": 8}, servers=16)
    counts = _counts(inventory)
    assert counts["leaf"] == (32, 32)
    assert counts["spine"] == (32, 32)
    assert counts["core"] == (16, 16)
    assert inventory.leaves_per_server == 2
    assert inventory.servers_per_leaf == 1
    assert check_port_budget(inventory) == []


def test_fat_tree_beyond_k_pods_overflows_the_core(minimal_raw: dict[str, Any]) -> None:
    # 20 host ports on k = 4 need 10 edges = 5 pods, but a core switch has 4 ports.
    minimal_raw["job"]["gpus"] = 20
    inventory = _inventory(
        minimal_raw, {"topology": "fat-tree", "switch_ports": 4}, servers=20, gpus_per_server=1
    )
    assert _counts(inventory)["leaf"] == (10, 10)
    assert check_port_budget(inventory) == [
        "core: needs 5 ports (5 down + 0 up) but has 4: short by 1"
    ]


def test_fat_tree_dual_tor_pairs_edges(minimal_raw: dict[str, Any]) -> None:
    # 8 one-NIC servers, each NIC on two edges of a pair: 16 host links over 8 edges.
    minimal_raw["job"]["gpus"] = 8
    inventory = _inventory(
        minimal_raw,
        {"topology": "fat-tree", "switch_ports": 4, "dual_tor": True},
        servers=8,
        gpus_per_server=1,
    )
    counts = _counts(inventory)
    assert counts["leaf"] == (8, 8)
    assert counts["core"] == (4, 4)
    assert counts["link"][0] == 16 + 8 * 2 + 8 * 2
    assert inventory.leaves_per_server == 2


def test_rail_optimized_two_units_by_hand(minimal_raw: dict[str, Any]) -> None:
    # 8 servers x 4 GPUs/NICs; 8-port leaves at 1:1 take 4 servers: 2 units of 4 servers,
    # 4 rails each = 8 rail leaves, each with 4 uplinks, one to each of 4 spines.
    minimal_raw["job"]["gpus"] = 16  # 4 servers: one unit, no spine
    network = {"topology": "rail-optimized", "switch_ports": 8}
    inventory = _inventory(minimal_raw, network, servers=8, gpus_per_server=4)
    counts = _counts(inventory)
    assert inventory.servers_per_leaf == 4
    assert inventory.rails == inventory.leaves_per_server == 4
    assert counts["leaf"] == (8, 4)
    assert counts["spine"] == (4, 0)
    assert counts["link"] == (8 * 4 + 8 * 4, 4 * 4)
    budget = {row.tier: row for row in inventory.port_budget}
    assert (budget["leaf"].down_ports, budget["leaf"].up_ports) == (4, 4)
    assert budget["spine"].down_ports == 8  # 8 leaves x 4 uplinks over 4 spines
    assert check_port_budget(inventory) == []
    # 5 servers: two units, so the spines and every rail leaf's uplinks join in.
    minimal_raw["job"]["gpus"] = 20
    inventory = _inventory(minimal_raw, network, servers=8, gpus_per_server=4)
    assert _counts(inventory)["leaf"] == (8, 8)
    assert _counts(inventory)["spine"] == (4, 4)
    assert inventory.job_units("link") == 5 * 4 + 8 * 4


def test_rail_optimized_dual_tor_doubles_rail_leaves(minimal_raw: dict[str, Any]) -> None:
    network = {"topology": "rail-optimized", "switch_ports": 8, "dual_tor": True}
    inventory = _inventory(minimal_raw, network, servers=8, gpus_per_server=4)
    counts = _counts(inventory)
    assert counts["leaf"] == (16, 16)
    assert inventory.leaves_per_server == 8
    assert counts["link"][0] == 2 * 8 * 4 + 16 * 4


def test_dual_tor_doubles_server_links_optics_and_leaves(minimal_raw: dict[str, Any]) -> None:
    minimal_raw["job"]["gpus"] = 320  # 40 servers = 10 leaf pairs
    single = _counts(build_inventory(parse_config(minimal_raw)))
    inventory = _inventory(minimal_raw, {"dual_tor": True})
    dual = _counts(inventory)
    assert inventory.dual_tor and inventory.leaves_per_server == 2
    assert inventory.servers_per_leaf == 4
    assert dual["leaf"] == (2 * 32, 2 * 10) == (2 * single["leaf"][0], 2 * single["leaf"][1])
    assert dual["spine"] == (32, 32)
    # server links 2 x 1024 (job 2 x 320); every leaf still has 32 uplinks.
    assert dual["link"] == (2 * 1024 + 64 * 32, 2 * 320 + 20 * 32)
    assert dual["optic"] == (2 * (2 * 1024 + 64 * 32), 2 * (2 * 320 + 20 * 32))
    spine = next(row for row in inventory.port_budget if row.tier == "spine")
    assert spine.down_ports == 64 and spine.fits  # 64 leaves x 32 uplinks over 32 spines


def test_lacp_bundles_count_links_as_bundles_times_members(minimal_raw: dict[str, Any]) -> None:
    network = {
        "server_lacp": {"members": 2, "min_links": 1},
        "fabric_lacp": {"members": 4, "min_links": 2},
        "spine_ports": 256,
    }
    inventory = _inventory(minimal_raw, network)
    counts = _counts(inventory)
    # 2 links per NIC: 16 per server, so half of 64 ports holds 2 servers: 64 leaves;
    # 32 uplinks per leaf = 8 bundles of 4, one bundle to each of 8 spines.
    assert inventory.servers_per_leaf == 2
    assert inventory.uplinks_per_leaf == 32
    assert inventory.uplink_bundles_per_leaf == inventory.spines_per_leaf == 8
    assert inventory.ecmp_width == 8
    assert counts["leaf"] == (64, 64)
    assert counts["spine"] == (8, 8)
    assert counts["link"] == (128 * 8 * 2 + 64 * 32, 128 * 8 * 2 + 64 * 32)
    assert (inventory.server_lacp_members, inventory.server_lacp_min_links) == (2, 1)
    assert (inventory.fabric_lacp_members, inventory.fabric_lacp_min_links) == (4, 2)
    spine = next(row for row in inventory.port_budget if row.tier == "spine")
    assert spine.down_ports == 64 * 4  # each leaf: one bundle of 4 to every spine
    assert spine.fits


@pytest.mark.parametrize(
    ("server_links", "fabric_links", "cluster_optics"),
    [
        ("optical", "optical", 2 * (1024 + 1024)),
        ("copper", "optical", 2 * 1024),
        ("optical", "copper", 2 * 1024),
        ("copper", "copper", 0),
    ],
)
def test_optics_two_per_optical_link_none_for_copper(
    minimal_raw: dict[str, Any], server_links: str, fabric_links: str, cluster_optics: int
) -> None:
    network = {"server_links": server_links, "fabric_links": fabric_links}
    inventory = _inventory(minimal_raw, network)
    assert inventory.cluster_units("optic") == cluster_optics
    assert inventory.cluster_units("link") == 1024 + 1024


def test_port_budget_names_the_leaf_shortfall(minimal_raw: dict[str, Any]) -> None:
    # 8 servers x 8 NICs = 64 down and 64 up on a 64-port leaf: counted, not refused.
    inventory = _inventory(minimal_raw, {"servers_per_leaf": 8})
    leaf = next(row for row in inventory.port_budget if row.tier == "leaf")
    assert (leaf.ports_needed, leaf.ports_available, leaf.fits, leaf.shortfall) == (
        128,
        64,
        False,
        64,
    )
    assert inventory.cluster_units("leaf") == 16
    assert check_port_budget(inventory) == [
        "leaf: needs 128 ports (64 down + 64 up) but has 64: short by 64"
    ]


def test_port_budget_names_the_spine_shortfall(minimal_raw: dict[str, Any]) -> None:
    # 32 leaves, one uplink to each of 32 spines: 32 ports per spine, which has 16.
    inventory = _inventory(minimal_raw, {"spine_ports": 16})
    assert check_port_budget(inventory) == [
        "spine: needs 32 ports (32 down + 0 up) but has 16: short by 16"
    ]
    inventory = _inventory(minimal_raw, {"spine_ports": 32})
    assert check_port_budget(inventory) == []


def test_oversubscription_is_downlinks_over_uplinks(minimal_raw: dict[str, Any]) -> None:
    inventory = _inventory(minimal_raw, {"uplinks_per_leaf": 8, "link_speed": "200Gbps"})
    assert inventory.oversubscription == 32 / 8
    assert inventory.spines == inventory.spines_per_leaf == 8
    assert inventory.link_speed_bytes_per_s == 200e9 / 8


def test_seed_case_leaf_does_not_fit_128_ports() -> None:
    """The document's 10 servers per leaf at 1:1 need 160 ports on a 128-port leaf."""
    inventory = build_inventory(load_config(CONFIGS / "seed-moe-10k.toml"))
    budget = {row.tier: row for row in inventory.port_budget}
    assert (budget["leaf"].down_ports, budget["leaf"].up_ports) == (80, 80)
    assert not budget["leaf"].fits and budget["leaf"].shortfall == 32
    # 1,344 servers = 135 leaves x 80 uplinks over 128 spines: 85 ports of 128.
    assert budget["spine"].switches == 128
    assert budget["spine"].down_ports == 85 and budget["spine"].fits
    assert check_port_budget(inventory) == [
        "leaf: needs 160 ports (80 down + 80 up) but has 128: short by 32"
    ]
    assert inventory.job_leaves == 128 and inventory.spines == 128
    assert inventory.spines_per_leaf == inventory.ecmp_width == 80
    assert inventory.oversubscription == 1.0
    assert inventory.link_speed_bytes_per_s == 400e9 / 8


@pytest.mark.parametrize(
    ("network", "key"),
    [
        ({"topology": "fat-tree", "switch_ports": 6, "dual_tor": True}, "network.dual_tor"),
        ({"topology": "fat-tree", "switch_ports": 5}, "network.switch_ports"),
        ({"topology": "fat-tree", "spines": 4}, "network.spines"),
        ({"topology": "fat-tree", "servers_per_leaf": 4}, "network.servers_per_leaf"),
        ({"topology": "rail-optimized", "servers_per_leaf": 4}, "network.servers_per_leaf"),
        ({"servers_per_unit": 4}, "network.servers_per_unit"),
        ({"server_lacp": {"members": 2, "min_links": 3}}, "network.server_lacp.min_links"),
        ({"fabric_lacp": {"members": 1, "min_links": 2}}, "network.fabric_lacp.min_links"),
        ({"server_lacp": {"members": 0}}, "network.server_lacp.members"),
        ({"fabric_lacp": {"members": 4}, "uplinks_per_leaf": 30}, "network.uplinks_per_leaf"),
        ({"ecmp_width": 33}, "network.ecmp_width"),
        ({"topology": "fat-tree", "switch_ports": 8, "ecmp_width": 5}, "network.ecmp_width"),
        ({"link_speed": 400}, "network.link_speed"),
        ({"link_speed": "400 furlongs"}, "network.link_speed"),
        ({"topology": "torus"}, "network.topology"),
        ({"lacp": {"members": 2}}, "network.lacp"),
    ],
)
def test_bad_network_config_names_the_key(
    minimal_raw: dict[str, Any], network: dict[str, Any], key: str
) -> None:
    minimal_raw["network"] = network
    with pytest.raises(ConfigError) as error:
        parse_config(minimal_raw)
    assert error.value.key == key


def test_core_is_a_failure_unit(minimal_raw: dict[str, Any]) -> None:
    minimal_raw["network"] = {"topology": "fat-tree", "switch_ports": 8}
    minimal_raw["failures"]["core"] = {"lifetime": {"dist": "exponential", "afr": "10%"}}
    minimal_raw["failures"]["agg"] = {
        "lifetime": {"dist": "exponential", "afr": "10%"},
        "unit": "core",
    }
    model = build_model(parse_config(minimal_raw))
    assert {m.name: m.job_units for m in model.modes if m.unit == "core"} == {
        "core": 16,
        "agg": 16,
    }


def test_inventory_command_shows_port_budget_and_topology() -> None:
    config = str(CONFIGS / "seed-moe-10k.toml")
    result = CliRunner().invoke(app, ["inventory", config, "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert [row["tier"] for row in data["port_budget"]] == ["leaf", "spine"]
    leaf = data["port_budget"][0]
    assert (leaf["ports_needed"], leaf["ports_available"], leaf["fits"]) == (160, 128, False)
    assert leaf["shortfall"] == 32
    assert data["topology"]["topology"] == "spine-leaf"
    assert data["topology"]["ecmp_width"] == 80
    assert data["components"]["core"] == {"cluster_units": 0, "job_units": 0}
    assert data["port_problems"] == [
        "leaf: needs 160 ports (80 down + 80 up) but has 128: short by 32"
    ]
    table = CliRunner().invoke(app, ["inventory", config])
    assert table.exit_code == 0, table.output
    for words in ("Port budget", "short by 32", "ecmp width", "400 Gbps"):
        assert words in table.stdout


def test_racks_are_power_domains_filled_in_order(minimal_raw) -> None:
    minimal_raw["cluster"]["servers_per_rack"] = 6
    minimal_raw["job"]["gpus"] = 8 * 13  # 13 servers: 3 racks of 6
    minimal_raw["failures"]["power"] = {"unit": "rack", "lifetime": {"dist": "exponential",
                                                                     "afr": "2%"},
                                        "repair": {"dist": "fixed", "mean": "6h"}}
    config = parse_config(minimal_raw)
    inventory = build_inventory(config)
    assert inventory.cluster_units("rack") == -(-128 // 6)
    assert inventory.job_units("rack") == 3
    from relplan.sim.model import build_model

    power = next(m for m in build_model(config).modes if m.name == "power")
    assert power.job_units == 3
    assert power.impact == "fatal"  # a whole rack down interrupts the job
    # the job restarts on a rack's worth of loose spare servers, when the pool has them
    assert power.uses_spares and power.spares_needed == 6 and not power.spare_domain


def test_scale_up_domains_are_filled_in_order(minimal_raw) -> None:
    # GB200 NVL72: 18 compute trays of 4 GPUs make one NVLink domain. 128 such servers
    # are 7 whole domains and 2 servers (8 domains); a 400-GPU job takes 100 servers:
    # 5 whole domains and 10 servers of a sixth, whose failure takes the job down too.
    minimal_raw["cluster"].update(gpus_per_server=4, servers_per_domain=18)
    minimal_raw["job"].update(gpus=400, spares=2, spare_domains=1)
    minimal_raw["failures"]["nvl"] = {"unit": "domain", "lifetime": {"dist": "exponential",
                                                                     "mtbf": "50y"},
                                      "repair": {"dist": "fixed", "mean": "8h"}}
    config = parse_config(minimal_raw)
    inventory = build_inventory(config)
    assert inventory.cluster_units("domain") == 8
    assert inventory.job_units("domain") == 6
    assert inventory.job_units("gpu") == 400 and inventory.job_servers == 100
    assert inventory.spare_servers == 2 + 18  # loose spares and a spare domain's servers
    modes = {m.name: m for m in build_model(config).modes}
    nvl = modes["nvl"]
    assert nvl.job_units == 6 and nvl.impact == "fatal"
    assert nvl.lifetime.mean_hours == pytest.approx(50 * 8766)
    assert nvl.uses_spares and nvl.spare_domain and nvl.spares_needed == 18
    assert not modes["gpu"].spare_domain and modes["gpu"].spares_needed == 1
    assert build_model(config).job.spare_domains == 1
    # the default: no scale-up domain beyond the server
    del minimal_raw["cluster"]["servers_per_domain"]
    del minimal_raw["job"]["spare_domains"]
    inventory = build_inventory(parse_config(minimal_raw))
    assert inventory.cluster_units("domain") == 128 and inventory.job_units("domain") == 100
