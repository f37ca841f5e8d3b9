"""The value of redundancy: hardware cost against the GPU-hours it saves.

Each scenario (a config) is charged for the hardware its job holds: the job's footprint
plus its spare servers, each unit's price spread over ``amortization`` and charged for the
job's mean wall time. Its failures cost the GPU-hours they lose, at ``gpu_hour_value``.
Against a reference scenario, a scenario's net value is the value of the GPU-hours it
saves minus its extra hardware charge; it pays for itself when that is positive, and its
break-even is the GPU-hour value at which it would be zero.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from relplan.cluster.topology import Inventory
from relplan.config.derived import nics_per_server
from relplan.config.schema import BudgetConfig, RelplanConfig


@dataclass(frozen=True)
class ScenarioCost:
    """What one scenario costs for one job.

    Attributes
    ----------
    hardware_price : float
        Price of the hardware the job holds (footprint and spare servers), currency.
    hardware_charge : float
        That price spread over its service life, charged for the job's mean wall time.
    gpu_hours_lost : float
        Mean GPU-hours lost to failures.
    lost_value : float
        ``gpu_hours_lost x gpu_hour_value``.
    total : float
        ``hardware_charge + lost_value``.
    """

    hardware_price: float
    hardware_charge: float
    gpu_hours_lost: float
    lost_value: float
    total: float


def hardware_price(config: RelplanConfig, inventory: Inventory, budget: BudgetConfig) -> float:
    """Price of the hardware a job holds: its footprint plus its spare servers.

    Parameters
    ----------
    config : RelplanConfig
        The scenario's config.
    inventory : Inventory
        Its inventory.
    budget : BudgetConfig
        Prices per unit of each component class (a class without a price costs 0).

    Returns
    -------
    float
        The price, currency.
    """
    prices = budget.prices
    total = sum(prices.get(c.component, 0.0) * c.job_units for c in inventory.components)
    nics = nics_per_server(config.cluster)
    spare_server = (
        prices.get("host", 0.0)
        + config.cluster.gpus_per_server * prices.get("gpu", 0.0)
        + nics * prices.get("nic", 0.0)
    )
    return total + inventory.spare_servers * spare_server


def scenario_cost(
    config: RelplanConfig,
    inventory: Inventory,
    budget: BudgetConfig,
    wall_hours_mean: float,
    gpu_hours_lost_mean: float,
) -> ScenarioCost:
    """The cost of one scenario for one job (see the module docstring).

    Parameters
    ----------
    config, inventory : RelplanConfig, Inventory
        The scenario.
    budget : BudgetConfig
        Prices, amortization and the GPU-hour value (shared by the scenarios compared).
    wall_hours_mean : float
        The job's mean wall time, hours.
    gpu_hours_lost_mean : float
        Its mean GPU-hours lost.

    Returns
    -------
    ScenarioCost
    """
    price = hardware_price(config, inventory, budget)
    charge = price * wall_hours_mean / budget.amortization
    lost_value = gpu_hours_lost_mean * budget.gpu_hour_value
    return ScenarioCost(price, charge, gpu_hours_lost_mean, lost_value, charge + lost_value)


def net_value(reference: ScenarioCost, scenario: ScenarioCost, gpu_hour_value: float) -> dict:
    """What a scenario gains against the reference, and its break-even GPU-hour value.

    Returns
    -------
    dict
        ``gpu_hours_saved``, ``extra_hardware_charge``, ``net_value`` (value saved minus
        extra charge; positive: it pays for itself) and ``break_even_gpu_hour_value``
        (the GPU-hour value at which the net value is zero; None when it saves nothing).
    """
    saved = reference.gpu_hours_lost - scenario.gpu_hours_lost
    extra = scenario.hardware_charge - reference.hardware_charge
    break_even = extra / saved if saved > 0 else None
    if break_even is not None and not math.isfinite(break_even):
        break_even = None
    return {
        "gpu_hours_saved": saved,
        "extra_hardware_charge": extra,
        "net_value": saved * gpu_hour_value - extra,
        "break_even_gpu_hour_value": break_even,
    }
