"""The derived facts record: every fact the model's later stages need, read off once."""

from __future__ import annotations

import dataclasses

import pytest

from relplan.cluster.topology import build_inventory, inventory_from_facts
from relplan.comm.work import build_step_model, step_model
from relplan.config.derived import derive
from relplan.config.loading import load_config, parse_config


def test_derived_facts_of_a_dual_homed_lacp_job_worked_by_hand() -> None:
    config = load_config("configs/small.toml", [
        "network.dual_tor=true", "network.server_lacp.members=2",
        'network.link_speed="400Gbps"', 'network.server_link_speed="200Gbps"',
        "network.uplinks_per_leaf=32", 'job.restart="10min"',
    ])  # fmt: skip
    facts = derive(config)
    assert facts.job_servers == 512 // 8
    assert facts.nics_per_server == 8  # one per GPU by default
    assert facts.server_legs == 2
    assert facts.links_per_nic == 2 * 2  # two members to each of two leaves
    assert facts.server_link_speed_bytes_per_s == 200e9 / 8
    assert facts.fabric_link_speed_bytes_per_s == 400e9 / 8
    shape = facts.leaf_shape
    assert shape is not None
    # 4 servers under a leaf pair; each server takes 8 NICs x 2 members on each leaf
    assert (shape.servers_per_group, shape.ports_per_server, shape.leaf_down_ports) == (
        4, 16, 64)  # fmt: skip
    # 64 ports down at 25 GB/s over 32 up at 50 GB/s: 1:1
    assert facts.leaf_uplinks.oversubscription == pytest.approx(1.0)
    assert facts.data_parallel_degree == 512  # no [workload]: one replica per GPU
    assert facts.restart.durable_hours == pytest.approx(10 / 60)
    assert facts.restart.fast_hours == pytest.approx(10 / 60)


def test_a_fat_tree_has_no_leaf_shape() -> None:
    document = load_config("configs/small.toml").to_document()
    del document["network"]["servers_per_leaf"]
    facts = derive(parse_config(document, ['network.topology="fat-tree"']))
    assert facts.leaf_shape is None
    # a 64-port edge switch: 32 ports down, 8 NICs a server -> 4 servers under it
    assert facts.leaf_uplinks.servers_per_leaf == 32 // 8


def test_the_stages_read_the_facts_not_the_config() -> None:
    config = load_config("configs/seed-moe-10k.toml")
    facts = derive(config)
    # a record with other facts moves the inventory and the step: the stages use it
    fewer = dataclasses.replace(facts, job_servers=facts.job_servers // 2)
    assert inventory_from_facts(config, fewer).job_servers == facts.job_servers // 2
    assert build_inventory(config).job_servers == facts.job_servers
    slower = dataclasses.replace(
        facts, server_link_speed_bytes_per_s=facts.server_link_speed_bytes_per_s / 4)
    healthy = step_model(config).healthy_step_s
    assert build_step_model(config, facts).healthy_step_s == healthy
    assert build_step_model(config, slower).healthy_step_s > healthy
