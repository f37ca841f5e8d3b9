"""The value of redundancy: hardware cost against the GPU-hours it saves.

Each scenario (a config) is charged for the hardware its job holds: the job's footprint
plus its spare servers, each unit's price spread over ``amortization`` and charged for the
job's mean wall time. Its failures cost the GPU-hours they lose, at ``gpu_hour_value``.

Net value has one definition, here (:func:`net_value_of`), shared by ``compare`` and
``plan``. Against a reference scenario, with ``L`` the GPU-hours lost, ``P`` the price of
the hardware the job holds (for a plan, plus the options' own prices), ``W`` the
scenario's wall time, ``v`` the GPU-hour value and ``A`` the amortization::

    net_value = (L_reference - L) * v  -  (P - P_reference) * W / A

The first term is the value of the GPU-hours saved; the second the extra hardware
charge: the extra price spread over its service life, charged for the hours the
scenario holds it. A shorter wall time is credited once, in the first term (lost
GPU-hours are the job's GPUs times its wall time beyond the work); the reference's
hardware charge for running longer is not credited again. A scenario pays for itself
when its net value is positive; its break-even is the GPU-hour value at which it is zero.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

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
    wall_hours : float
        The job's mean wall time the charge is for, hours.
    """

    hardware_price: float
    hardware_charge: float
    gpu_hours_lost: float
    lost_value: float
    total: float
    wall_hours: float


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
    return priced_cost(hardware_price(config, inventory, budget), budget, wall_hours_mean,
                       gpu_hours_lost_mean)  # fmt: skip


def priced_cost(price: float, budget: BudgetConfig, wall_hours_mean: float,
                gpu_hours_lost_mean: float) -> ScenarioCost:  # fmt: skip
    """The cost of a job holding hardware of ``price`` for ``wall_hours_mean`` and losing
    ``gpu_hours_lost_mean`` GPU-hours (see the module docstring).

    Examples
    --------
    >>> from relplan.config.schema import BudgetConfig
    >>> cost = priced_cost(1000.0, BudgetConfig(gpu_hour_value=2.0, amortization="100h"),
    ...                    50.0, 10.0)
    >>> cost.hardware_charge, cost.lost_value, cost.total
    (500.0, 20.0, 520.0)
    """
    charge = price * wall_hours_mean / budget.amortization
    lost_value = gpu_hours_lost_mean * budget.gpu_hour_value
    return ScenarioCost(price, charge, gpu_hours_lost_mean, lost_value, charge + lost_value,
                        wall_hours_mean)  # fmt: skip


def net_value_of(gpu_hours_saved: Any, extra_hardware_price: float, wall_hours: Any,
                 budget: BudgetConfig) -> Any:  # fmt: skip
    """Net value against a reference: value of the GPU-hours saved minus the extra
    hardware charge (the one definition; see the module docstring).

    Parameters
    ----------
    gpu_hours_saved : float or numpy.ndarray
        Reference's GPU-hours lost minus the scenario's (per trial, or means).
    extra_hardware_price : float
        The scenario's hardware price minus the reference's, currency.
    wall_hours : float or numpy.ndarray
        The scenario's wall time (per trial, or its mean), hours.
    budget : BudgetConfig
        ``gpu_hour_value`` and ``amortization``.

    Returns
    -------
    float or numpy.ndarray
        Currency; elementwise for arrays (its mean is the net value of the means).

    Examples
    --------
    >>> from relplan.config.schema import BudgetConfig
    >>> budget = BudgetConfig(gpu_hour_value=3.0, amortization="1000h")
    >>> net_value_of(100.0, 2e5, 1.0, budget)  # 300 saved, 200 of extra charge
    100.0
    """
    return gpu_hours_saved * budget.gpu_hour_value - extra_hardware_price * wall_hours / (
        budget.amortization
    )


def net_value(reference: ScenarioCost, scenario: ScenarioCost, budget: BudgetConfig) -> dict:
    """What a scenario gains against the reference, and its break-even GPU-hour value.

    Returns
    -------
    dict
        ``gpu_hours_saved``, ``extra_hardware_charge`` (the extra price charged for the
        scenario's wall time), ``net_value`` (:func:`net_value_of`; positive: it pays for
        itself) and ``break_even_gpu_hour_value`` (the GPU-hour value at which the net
        value is zero; None when it saves nothing).

    Examples
    --------
    >>> from relplan.config.schema import BudgetConfig
    >>> budget = BudgetConfig(gpu_hour_value=3.0, amortization="1000h")
    >>> base = priced_cost(1e6, budget, 1.2, 500.0)
    >>> better = priced_cost(1.2e6, budget, 1.0, 400.0)
    >>> figures = net_value(base, better, budget)
    >>> figures["extra_hardware_charge"], figures["net_value"]
    (200.0, 100.0)
    """
    saved = reference.gpu_hours_lost - scenario.gpu_hours_lost
    extra_price = scenario.hardware_price - reference.hardware_price
    extra = extra_price * scenario.wall_hours / budget.amortization
    break_even = extra / saved if saved > 0 else None
    if break_even is not None and not math.isfinite(break_even):
        break_even = None
    return {
        "gpu_hours_saved": saved,
        "extra_hardware_charge": extra,
        "net_value": net_value_of(saved, extra_price, scenario.wall_hours, budget),
        "break_even_gpu_hour_value": break_even,
    }
