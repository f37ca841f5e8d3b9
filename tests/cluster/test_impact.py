"""Impact of each failure mode from the network's redundancy: the boundary cases."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import pytest

from relplan.cluster.impact import CapacityLoss, capacity_slowdown
from relplan.comm.inputs import spine_loss_fabric_scale
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
    assert dual["leaf"].impact == dual["nic"].impact == "degraded"
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
    assert spine_loss_fabric_scale(8, 1) == pytest.approx(1 - 1 / 8)


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
    config = _config(minimal_raw, {"servers_per_leaf": 4},
                     {"flap": {"unit": "link", "impact": "transient", "stall": stall,
                               "lifetime": EXP}})
    flap = _modes(config)["flap"]
    assert flap.impact == impact
    if impact == "fatal":
        assert flap.detect_hours == pytest.approx(10 / 60)  # hangs until the timeout


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
    config = _config(minimal_raw, {"servers_per_leaf": 4},
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
