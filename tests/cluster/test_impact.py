"""Impact of each failure mode from the network's redundancy: the boundary cases."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import pytest

from relplan.cluster.impact import capacity_slowdown
from relplan.comm.inputs import CapacityScale as CapacityLoss
from relplan.config.loading import parse_config
from relplan.sim.engine import simulate
from relplan.sim.model import build_model
from relplan.vocab import BUCKETS

EXP = {"dist": "exponential", "mtbf": "20y"}


def _config(minimal_raw: dict[str, Any], network_section: dict, failures: dict, **job):
    raw = copy.deepcopy(minimal_raw)
    raw["job"]["gpus"] = 256
    raw["job"].update(job)
    raw["network"] = network_section
    raw["failures"] = failures
    return parse_config(raw)


def _modes(config) -> dict:
    return {m.name: m for m in build_model(config).modes}


@pytest.mark.parametrize(
    ("members", "min_links", "impact"), [(2, 1, "degraded"), (2, 2, "fatal"), (4, 3, "degraded"),
                                         (4, 4, "fatal")],
)
def test_lacp_member_loss_degrades_while_min_links_hold(minimal_raw, members, min_links, impact):
    config = _config(
        minimal_raw,
        {"servers_per_leaf": 4, "server_lacp": {"members": members, "min_links": min_links}},
        {"link": {"lifetime": EXP}},
    )
    link = _modes(config)["link"]
    assert link.impact == impact
    if impact == "degraded":
        expected = capacity_slowdown(config, CapacityLoss(server_nic=(members - 1) / members))
        assert link.slowdown_by_count[0] == pytest.approx(expected)
        assert link.slowdown_by_count[0] > 1.0


def test_dual_tor_turns_leaf_and_nic_failures_into_degraded_time(minimal_raw) -> None:
    repair = {"dist": "fixed", "mean": "8h"}
    failures = {"leaf": {"lifetime": EXP, "repair": repair},
                "nic": {"lifetime": EXP, "repair": repair}, "gpu": {"lifetime": EXP}}
    single = _modes(_config(minimal_raw, {"servers_per_leaf": 4}, failures))
    dual_config = _config(minimal_raw, {"servers_per_leaf": 4, "dual_tor": True}, failures)
    dual = _modes(dual_config)
    assert single["leaf"].impact == single["nic"].impact == "fatal"
    assert dual["leaf"].impact == "degraded"
    assert dual["nic"].impact == "fatal"  # a NIC card takes both of its legs with it
    assert dual["gpu"].impact == "fatal"
    half = capacity_slowdown(dual_config, CapacityLoss(server_nic=0.5))
    assert dual["leaf"].slowdown_by_count[0] == pytest.approx(half)
    # interruptions become degraded hours on the same failure stream
    a = simulate(build_model(_config(minimal_raw, {"servers_per_leaf": 4}, failures)), 300, 1)
    b = simulate(build_model(dual_config), 300, 1)
    assert a.interruptions_by_mode.sum() > b.interruptions_by_mode.sum()
    assert b.bucket_hours[:, BUCKETS.index("degraded")].sum() > 0.0


def test_losing_one_of_s_spines_cuts_fabric_capacity_by_one_over_s(minimal_raw) -> None:
    config = _config(minimal_raw, {"servers_per_leaf": 4, "spines": 8, "uplinks_per_leaf": 32},
                     {"spine": {"lifetime": EXP}})
    spine = _modes(config)["spine"]
    assert spine.impact == "degraded"
    share = config.network.comm_share
    for lost, slowdown in enumerate(spine.slowdown_by_count[:3], start=1):
        capacity = 1.0 - lost / 8
        assert slowdown == pytest.approx(1.0 + share * (1.0 / capacity - 1.0))


def test_spine_losses_compound_until_the_last_while_link_losses_land_apart(minimal_raw):
    """Every leaf uses every spine: k of P lost leave P - k paths and the P-th stops the
    job. A fabric link is one of many: concurrent ones land on different leaves."""
    failures = {"spine": {"lifetime": EXP}, "link": {"lifetime": EXP}}
    config = _config(minimal_raw, {"servers_per_leaf": 4, "spines": 4, "uplinks_per_leaf": 32},
                     failures)  # fmt: skip
    modes = _modes(config)
    paths = build_model(config).inventory.ecmp_width
    assert modes["spine"].survivable_count == paths - 1
    assert len(modes["spine"].slowdown_by_count) == paths - 1
    assert list(modes["spine"].slowdown_by_count) == sorted(modes["spine"].slowdown_by_count)
    assert modes["link.fabric"].survivable_count is None
    assert modes["link.fabric"].slowdown_by_count == pytest.approx(
        (capacity_slowdown(config, CapacityLoss(fabric=1 - 1 / paths, fabric_paths_lost=1)),))


def test_fabric_links_are_degraded_and_server_links_fatal_when_single_homed(minimal_raw):
    config = _config(minimal_raw, {"servers_per_leaf": 4}, {"optic": {"lifetime": EXP}})
    modes = _modes(config)
    inventory = build_model(config).inventory
    assert modes["optic"].impact == "fatal"
    assert modes["optic.fabric"].impact == "degraded"
    assert modes["optic"].job_units == 2 * inventory.job_server_links
    assert modes["optic.fabric"].job_units == 2 * inventory.job_fabric_links


@pytest.mark.parametrize(("stall", "impact"), [("9min", "transient"), ("10min", "fatal"),
                                               ("11min", "fatal"), ("1s", "transient")])
def test_a_stall_reaching_the_collective_timeout_is_fatal(minimal_raw, stall, impact) -> None:
    # a transport that retries for an hour leaves the collective timeout (10 min) in charge
    config = _config(minimal_raw, {"servers_per_leaf": 4, "failover": {"transport_timeout": "1h"}},
                     {"flap": {"unit": "link", "impact": "transient", "stall": stall,
                               "lifetime": EXP}})
    flap = _modes(config)["flap"]
    assert flap.impact == impact
    if impact == "fatal":
        assert flap.detect_hours == pytest.approx(10 / 60)  # hangs until the timeout


@pytest.mark.parametrize(("stall", "impact"), [("29s", "transient"), ("31s", "fatal"),
                                               ("90s", "fatal"), ("1s", "transient")])
def test_a_stall_outlasting_the_transport_retry_window_is_fatal(minimal_raw, stall, impact):
    """NCCL_IB_TIMEOUT 20 x NCCL_IB_RETRY_CNT 7: 4.096 us x 2^20 x 7 = 30.06 s of retries."""
    config = _config(minimal_raw, {"servers_per_leaf": 4},
                     {"flap": {"unit": "link", "impact": "transient", "stall": stall,
                               "lifetime": EXP}})
    flap = _modes(config)["flap"]
    assert flap.impact == impact
    if impact == "fatal":
        assert flap.detect_hours * 3600 == pytest.approx(4.096e-6 * 2**20 * 7)


def test_a_slow_lacp_blackhole_crashes_the_job(minimal_raw) -> None:
    """LACP's slow rate notices a dead partner (a hung NIC, its link up) after 90 s: past
    the 30 s retry window. The fast rate notices it after 3 s."""
    config = _config(minimal_raw, {"servers_per_leaf": 4, "server_lacp": {"members": 2},
                                   "failover": {"lacp_rate": "slow"}},
                     {"hang": {"unit": "nic", "impact": "transient", "lifetime": EXP}})
    assert _modes(config)["hang"].impact == "fatal"
    fast = _config(minimal_raw, {"servers_per_leaf": 4, "server_lacp": {"members": 2}},
                   {"hang": {"unit": "nic", "impact": "transient", "lifetime": EXP}})
    assert _modes(fast)["hang"].impact == "transient"
    assert _modes(fast)["hang"].stall_hours == pytest.approx(3.0 / 3600)


def test_a_flap_leaves_the_bundle_at_phy_down_not_at_the_lacp_timeout(minimal_raw) -> None:
    """A flapping link goes down (PHY down): the bonding driver drops it at its next 100 ms
    link poll, whatever LACP's rate."""
    for rate in ("slow", "fast"):
        config = _config(minimal_raw, {"servers_per_leaf": 4, "server_lacp": {"members": 2},
                                       "failover": {"lacp_rate": rate}},
                         {"flap": {"unit": "link", "impact": "transient", "lifetime": EXP}})
        flap = _modes(config)["flap"]
        assert flap.impact == "transient"
        assert flap.stall_hours == pytest.approx(0.1 / 3600)
    dual = _config(minimal_raw, {"servers_per_leaf": 4, "dual_tor": True,
                                 "failover": {"lacp_rate": "slow", "phy_down": "50ms"}},
                   {"flap": {"unit": "link", "impact": "transient", "lifetime": EXP}})
    assert _modes(dual)["flap"].stall_hours == pytest.approx(0.05 / 3600)


def test_default_stall_is_bfd_detection_plus_reconvergence_on_the_fabric(minimal_raw) -> None:
    config = _config(minimal_raw, {"servers_per_leaf": 4,
                                   "failover": {"bfd_interval": "300ms", "bfd_multiplier": 3,
                                                "ecmp_reconvergence": "1s"}},
                     {"flap": {"unit": "link", "impact": "transient", "lifetime": EXP}})
    assert _modes(config)["flap.fabric"].stall_hours == pytest.approx(1.9 / 3600)


def test_each_class_may_override_its_impact(minimal_raw) -> None:
    config = _config(minimal_raw, {"servers_per_leaf": 4},
                     {"spine": {"lifetime": EXP, "impact": "fatal"},
                      "leaf": {"lifetime": EXP, "impact": "degraded", "slowdown": 1.7}})
    modes = _modes(config)
    assert modes["spine"].impact == "fatal"
    assert modes["leaf"].impact == "degraded"
    assert modes["leaf"].slowdown_by_count == (1.7,)


def test_workload_gives_slowdown_from_the_communication_model(minimal_raw) -> None:
    raw = copy.deepcopy(minimal_raw)
    raw["job"]["gpus"] = 256
    raw["network"] = {"servers_per_leaf": 4, "spines": 8, "uplinks_per_leaf": 32}
    raw["failures"] = {"spine": {"lifetime": EXP}}
    raw["workload"] = {"parameters": 70e9, "tokens_per_step": 4e6, "hidden_size": 8192,
                       "layers": 80, "step_compute": "6s",
                       "parallelism": {"tensor": 8, "pipeline": 4}}
    with_workload = parse_config(raw)
    spine = _modes(with_workload)["spine"]
    slowdowns = np.array(spine.slowdown_by_count)
    assert np.all(slowdowns >= 1.0)
    assert np.all(np.diff(slowdowns) >= -1e-12)  # more spines lost, never faster
    assert capacity_slowdown(with_workload, CapacityLoss()) == pytest.approx(1.0)


def test_elastic_recovery_drops_a_replica(minimal_raw) -> None:
    config = _config(minimal_raw, {"servers_per_leaf": 4}, {"gpu": {"lifetime": EXP},
                                                            "leaf": {"lifetime": EXP}},
                     recovery="elastic", elastic={"data_parallel": 32, "reconfigure": "2min",
                                                  "rejoin": "5min"})
    modes = _modes(config)
    assert modes["gpu"].impact == "elastic"
    assert modes["gpu"].slowdown_by_count[:2] == pytest.approx((32 / 31, 32 / 30))
    assert modes["gpu"].stall_hours == pytest.approx(30 / 3600 + 2 / 60)
    assert modes["leaf"].impact == "fatal"


def test_failure_free_upper_bound_has_no_modes(minimal_raw) -> None:
    config = _config(minimal_raw, {}, {"gpu": {"lifetime": EXP}}, recovery="failure-free")
    assert build_model(config).modes == ()


def test_a_hung_flap_waits_only_for_what_is_left_of_it(minimal_raw) -> None:
    """A 15 min flap hangs the job until the 10 min timeout, then 5 more minutes."""
    config = _config(minimal_raw, {"servers_per_leaf": 4, "failover": {"transport_timeout": "1h"}},
                     {"flap": {"unit": "link", "impact": "transient", "stall": "15min",
                               "repair": {"dist": "fixed", "mean": "15min"}, "lifetime": EXP}})
    model = build_model(config)
    flap = next(m for m in model.modes if m.name == "flap")
    assert flap.impact == "fatal" and flap.self_healing
    from relplan.sim.engine import walk_trial

    index = model.modes.index(flap)
    outcome = walk_trial(model, [5.0], [index], [0.25])
    b = dict(zip(BUCKETS, outcome.bucket_hours[0], strict=True))
    assert b["detect"] == pytest.approx(10 / 60)
    assert b["waiting"] == pytest.approx(5 / 60)


MOE_WORKLOAD = {"parameters": 50e9, "expert_parameters": 950e9, "tokens_per_step": 2e6,
                "hidden_size": 8192, "layers": 64, "step_compute": "5s", "top_k": 2,
                "bytes_per_token_expert": "1KB", "overlap": {"data": 0.0},
                "parallelism": {"tensor": 8, "expert": 64}}


def _with_workload(minimal_raw, network, failures):
    raw = copy.deepcopy(minimal_raw)
    raw["job"]["gpus"] = 512
    raw["network"] = network
    raw["failures"] = failures
    raw["workload"] = copy.deepcopy(MOE_WORKLOAD)
    return parse_config(raw)


def test_losing_a_fabric_bundle_member_halves_the_flows_on_that_bundle(minimal_raw) -> None:
    """Two-member leaf-spine bundles under static ECMP: the flows hashed onto the bundle
    keep half of it; the average over every bundle of the leaf (1 - 1/(2 x bundles)) is
    not what they see."""
    network = {"servers_per_leaf": 4, "uplinks_per_leaf": 32,
               "fabric_lacp": {"members": 2, "min_links": 1}, "load_balancing": "ecmp"}
    config = _with_workload(minimal_raw, network, {"link": {"lifetime": EXP}})
    link = _modes(config)["link.fabric"]
    assert link.impact == "degraded"
    assert link.slowdown_by_count[0] == pytest.approx(
        capacity_slowdown(config, CapacityLoss(fabric=0.5)))
    average = capacity_slowdown(config, CapacityLoss(fabric=1 - 1 / 32))
    assert link.slowdown_by_count[0] > average >= 1.0


def test_adaptive_routing_spreads_a_bundle_member_loss_over_the_leaf(minimal_raw) -> None:
    """Adaptive routing weighs the thinner bundle down: the leaf keeps 31 of its 32 uplinks,
    and the slowdown is less than losing a whole one-member path of 16 would cost."""
    network = {"servers_per_leaf": 4, "uplinks_per_leaf": 32,
               "fabric_lacp": {"members": 2, "min_links": 1}, "load_balancing": "adaptive"}
    config = _config(minimal_raw, network, {"link": {"lifetime": EXP}})
    link = _modes(config)["link.fabric"]
    assert link.impact == "degraded"
    assert link.slowdown_by_count[0] == pytest.approx(
        capacity_slowdown(config, CapacityLoss(fabric=1 - 1 / 32)))
    path = capacity_slowdown(config, CapacityLoss(fabric=1 - 1 / 16, fabric_paths_lost=1))
    assert 1.0 < link.slowdown_by_count[0] < path


def test_losing_a_fat_tree_core_cuts_an_aggregation_switch_by_two_over_k(minimal_raw) -> None:
    network = {"topology": "fat-tree", "switch_ports": 16, "load_balancing": "adaptive"}
    config = _config(minimal_raw, network, {"core": {"lifetime": EXP}})
    core = _modes(config)["core"]
    assert core.impact == "degraded"
    share = config.network.comm_share
    assert core.slowdown_by_count[0] == pytest.approx(1.0 + share * (1.0 / (1 - 2 / 16) - 1.0))


def test_dual_tor_leg_costs_what_an_lacp_member_costs(minimal_raw) -> None:
    failures = {"link": {"lifetime": EXP}, "leaf": {"lifetime": EXP}}
    # the same leaf (4 servers, 1:1, no hash collisions); two links per NIC either way
    dual = _with_workload(minimal_raw, {"servers_per_leaf": 4, "dual_tor": True,
                                        "load_balancing": "adaptive"}, failures)
    lacp = _with_workload(minimal_raw, {"servers_per_leaf": 4, "load_balancing": "adaptive",
                                        "server_lacp": {"members": 2, "min_links": 1}}, failures)
    dual_modes, lacp_modes = _modes(dual), _modes(lacp)
    assert dual_modes["link"].impact == lacp_modes["link"].impact == "degraded"
    assert dual_modes["link"].slowdown_by_count[0] == pytest.approx(
        lacp_modes["link"].slowdown_by_count[0])
    assert dual_modes["leaf"].slowdown_by_count[0] == pytest.approx(
        dual_modes["link"].slowdown_by_count[0])
    half = capacity_slowdown(dual, CapacityLoss(server_nic=0.5))
    assert dual_modes["link"].slowdown_by_count[0] == pytest.approx(half)


def test_a_nic_card_under_dual_tor_is_fatal_unless_pxn_reroutes(minimal_raw) -> None:
    failures = {"nic": {"lifetime": EXP}}
    plain = _modes(_config(minimal_raw, {"servers_per_leaf": 4, "dual_tor": True}, failures))
    assert plain["nic"].impact == "fatal"
    pxn = _config(minimal_raw, {"servers_per_leaf": 4, "dual_tor": True, "nic_failover": "pxn"},
                  failures)
    rerouted = _modes(pxn)["nic"]
    assert rerouted.impact == "degraded"
    assert rerouted.slowdown_by_count[0] == pytest.approx(
        capacity_slowdown(pxn, CapacityLoss(server_nic=0.5)))


def test_pfc_soft_slowdown_comes_from_the_pause_share(minimal_raw) -> None:
    flap = {"unit": "link", "impact": "transient", "lifetime": EXP, "soft_duration": "5min"}
    config = _with_workload(minimal_raw, {"servers_per_leaf": 4, "pfc_pause_share": "30%"},
                            {"flap": flap})
    derived = _modes(config)["flap.fabric"]
    expected = capacity_slowdown(config, CapacityLoss(fabric=0.7, server_nic=0.7))
    assert derived.soft_slowdown == pytest.approx(expected) and expected > 1.0
    override = _with_workload(minimal_raw, {"servers_per_leaf": 4},
                              {"flap": {**flap, "soft_slowdown": 1.3}})
    assert _modes(override)["flap.fabric"].soft_slowdown == 1.3
    calmer = _with_workload(minimal_raw, {"servers_per_leaf": 4, "pfc_pause_share": "10%"},
                            {"flap": flap})
    assert 1.0 < _modes(calmer)["flap.fabric"].soft_slowdown < derived.soft_slowdown
