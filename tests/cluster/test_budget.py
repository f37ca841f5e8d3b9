"""Hardware cost against GPU-hours saved: hand-computed prices and break-evens."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from typer.testing import CliRunner

from relplan.cli.app import app
from relplan.cluster.budget import hardware_price, net_value, scenario_cost
from relplan.cluster.topology import build_inventory
from relplan.config.loading import parse_config
from tests.conftest import CONFIGS, assert_refused


def _config(minimal_raw: dict[str, Any]):
    minimal_raw["job"]["gpus"] = 64  # 8 servers of 8 GPUs, 8 NICs each
    minimal_raw["job"]["spares"] = 2
    minimal_raw["network"] = {"servers_per_leaf": 4, "server_links": "copper"}
    minimal_raw["budget"] = {"gpu_hour_value": 3.0, "amortization": "1000h",
                             "prices": {"gpu": 100.0, "host": 50.0, "nic": 10.0, "leaf": 1000.0}}
    return parse_config(minimal_raw)


def test_hardware_price_by_hand(minimal_raw) -> None:
    config = _config(minimal_raw)
    inventory = build_inventory(config)
    # footprint: 64 GPUs, 8 hosts, 64 NICs, 2 leaves (4 servers each); spines unpriced
    footprint = 64 * 100 + 8 * 50 + 64 * 10 + 2 * 1000
    spare_server = 50 + 8 * 100 + 8 * 10
    assert hardware_price(config, inventory, config.budget) == pytest.approx(
        footprint + 2 * spare_server
    )
    cost = scenario_cost(config, inventory, config.budget, wall_hours_mean=500.0,
                         gpu_hours_lost_mean=1000.0)
    assert cost.hardware_charge == pytest.approx((footprint + 2 * spare_server) * 0.5)
    assert cost.lost_value == pytest.approx(3000.0)


def test_net_value_and_break_even() -> None:
    """By hand: the better design costs 2e5 more and runs 1.0 h against the base's 1.2 h
    on 500 GPUs: 100 GPU-hours fewer. Value saved 100 x 3 = 300; extra charge 2e5 x 1.0 h
    / 1000 h = 200; net 100, break-even 2 per GPU-hour. The base's charge for its longer
    run (1e6 x 0.2 h / 1000 h = 200) is not credited a second time: that would give 300."""
    from relplan.cluster.budget import priced_cost
    from relplan.config.schema import BudgetConfig

    budget = BudgetConfig(gpu_hour_value=3.0, amortization="1000h")
    reference = priced_cost(1e6, budget, 1.2, 500.0, 500)
    better = priced_cost(1.2e6, budget, 1.0, 400.0, 500)
    gain = net_value(reference, better, budget)
    assert gain["gpu_hours_saved"] == pytest.approx(100.0)
    assert gain["extra_hardware_charge"] == pytest.approx(200.0)
    assert gain["net_value"] == pytest.approx(100.0)
    assert gain["break_even_gpu_hour_value"] == pytest.approx(2.0)
    worse = priced_cost(1.2e6, budget, 1.3, 600.0, 500)
    assert net_value(reference, worse, budget)["break_even_gpu_hour_value"] is None
    # at the break-even value the net value is zero
    even = BudgetConfig(gpu_hour_value=gain["break_even_gpu_hour_value"], amortization="1000h")
    assert net_value(reference, better, even)["net_value"] == pytest.approx(0.0, abs=1e-9)


def test_net_value_counts_wall_hours_times_gpus_not_gpu_hours_lost() -> None:
    """A design that loses no more to failures but runs slower (1.3 h against 1.0 h on
    100 GPUs, the same 50 GPU-hours lost, 1e5 cheaper): it spends 30 GPU-hours more, so
    at 3 per GPU-hour it costs 90, less its saved charge 1e5 x 1.3 / 1000 = 130: net
    +40. GPU-hours lost alone would have said +130. On more GPUs (120, 1.0 h) it spends
    20 GPU-hours more: -60 + 0."""
    from relplan.cluster.budget import priced_cost
    from relplan.config.schema import BudgetConfig

    budget = BudgetConfig(gpu_hour_value=3.0, amortization="1000h")
    reference = priced_cost(1e6, budget, 1.0, 50.0, 100)
    slower = net_value(reference, priced_cost(9e5, budget, 1.3, 50.0, 100), budget)
    assert slower["gpu_hours_saved"] == pytest.approx(-30.0)
    assert slower["extra_hardware_charge"] == pytest.approx(-130.0)
    assert slower["net_value"] == pytest.approx(40.0)
    assert slower["break_even_gpu_hour_value"] is None  # it saves no GPU-hours
    wider = net_value(reference, priced_cost(1e6, budget, 1.0, 50.0, 120), budget)
    assert wider["gpu_hours_saved"] == pytest.approx(-20.0)
    assert wider["net_value"] == pytest.approx(-60.0)


def test_a_fabric_short_of_ports_is_priced_with_the_switches_it_needs() -> None:
    """Llama 3's fabric with dual-ToR: 768 leaves of 64 uplinks over 64 spines of 576
    ports, 768 ports per spine needed: ceil(64 x 768 / 576) = 86 spines supply them, 22
    more, each at the spine's price; the single-homed fabric fits and adds none."""
    from relplan.cluster.budget import switches_for_ports
    from relplan.config.loading import load_config
    from relplan.config.schema import BudgetConfig

    budget = BudgetConfig(gpu_hour_value=2.0, prices={"spine": 1000.0})
    single = load_config(CONFIGS / "llama3-16k.toml")
    dual = load_config(CONFIGS / "llama3-16k.toml", ["network.dual_tor=true"])
    assert switches_for_ports(build_inventory(single)) == {}
    inventory = build_inventory(dual)
    (spine,) = [row for row in inventory.port_budget if row.tier == "spine"]
    assert (spine.switches, spine.ports_needed, spine.ports_available) == (64, 768, 576)
    assert switches_for_ports(inventory) == {"spine": math.ceil(64 * 768 / 576) - 64}
    assert hardware_price(dual, inventory, budget) == pytest.approx(
        (inventory.job_units("spine") + 22) * 1000.0)


def test_unknown_price_class_is_refused(minimal_raw) -> None:
    minimal_raw["budget"] = {"gpu_hour_value": 2.0, "prices": {"gpus": 1.0}}
    assert_refused(minimal_raw, key="budget", words="prices.gpus")


def test_compare_prices_variants() -> None:
    result = CliRunner().invoke(app, [
        "compare", str(CONFIGS / "small.toml"), "--variant", "dual-ToR: network.dual_tor=true",
        "--variant", "no spares: job.spares=0", "--trials", "100", "--json",
    ])
    assert result.exit_code == 0, result.output
    rows = {row["scenario"]: row for row in json.loads(result.stdout)["scenarios"]}
    assert set(rows) == {"small", "dual-ToR", "no spares"}
    assert rows["dual-ToR"]["hardware_price"] > rows["small"]["hardware_price"]
    assert rows["no spares"]["hardware_price"] < rows["small"]["hardware_price"]
    assert rows["no spares"]["gpu_hours_saved"] < 0
    assert rows["no spares"]["break_even_gpu_hour_value"] is None
    bad = CliRunner().invoke(app, ["compare", str(CONFIGS / "small.toml"), "--variant", "oops"])
    assert bad.exit_code == 2 and "--variant" in bad.output
