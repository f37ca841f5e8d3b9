"""Inventory counts, worked by hand."""

from __future__ import annotations

from typing import Any

from relplan.config import parse_config
from relplan.topology import build_inventory


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
