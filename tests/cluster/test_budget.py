"""Hardware cost against GPU-hours saved: hand-computed prices and break-evens."""

from __future__ import annotations

import json
from typing import Any

import pytest
from typer.testing import CliRunner

from relplan.cli.app import app
from relplan.cluster.budget import hardware_price, net_value, scenario_cost
from relplan.cluster.topology import build_inventory
from relplan.config.loading import parse_config
from relplan.errors import ConfigError
from tests.conftest import CONFIGS


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
    """By hand: the better design costs 2e5 more and runs 1.0 h against the base's 1.2 h,
    losing 100 GPU-hours fewer. Value saved 100 x 3 = 300; extra charge 2e5 x 1.0 h /
    1000 h = 200; net 100, break-even 2 per GPU-hour. The base's charge for its longer
    run (1e6 x 0.2 h / 1000 h = 200) is not credited a second time: that would give 300."""
    from relplan.cluster.budget import priced_cost
    from relplan.config.schema import BudgetConfig

    budget = BudgetConfig(gpu_hour_value=3.0, amortization="1000h")
    reference = priced_cost(1e6, budget, 1.2, 500.0)
    better = priced_cost(1.2e6, budget, 1.0, 400.0)
    gain = net_value(reference, better, budget)
    assert gain["gpu_hours_saved"] == pytest.approx(100.0)
    assert gain["extra_hardware_charge"] == pytest.approx(200.0)
    assert gain["net_value"] == pytest.approx(100.0)
    assert gain["break_even_gpu_hour_value"] == pytest.approx(2.0)
    worse = priced_cost(1.2e6, budget, 1.3, 600.0)
    assert net_value(reference, worse, budget)["break_even_gpu_hour_value"] is None


def test_unknown_price_class_is_refused(minimal_raw) -> None:
    minimal_raw["budget"] = {"gpu_hour_value": 2.0, "prices": {"gpus": 1.0}}
    with pytest.raises(ConfigError) as caught:
        parse_config(minimal_raw)
    assert caught.value.key == "budget"
    assert "prices.gpus" in caught.value.message


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
