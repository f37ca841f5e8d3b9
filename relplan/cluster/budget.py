"""The value of redundancy: hardware cost against the GPU-hours it saves.

Each scenario (a config) is charged for the hardware its job holds: the job's footprint
plus its spare servers, each unit's price spread over ``amortization`` and charged for the
job's mean wall time. A switch tier whose switches lack ports (``relplan inventory``'s
port budget) is priced with the switches that would supply them
(:func:`switches_for_ports`).

Net value has one definition, here (:func:`net_value_of`), shared by ``compare``,
``plan`` and ``sweep``. Against a reference scenario (the first one, the plan's base),
with ``W`` a scenario's wall time, ``G`` its GPUs, ``P`` the price of the hardware its
job holds (for a plan, plus the options' own prices), ``v`` the GPU-hour value and ``A``
the amortization::

    gpu_hours_saved = W_reference x G_reference - W x G
    net_value       = gpu_hours_saved x v  -  (P - P_reference) x W / A

The first term is the value of the GPU-hours saved: wall time times GPUs, so fewer
failures, a faster healthy step (with the work in ``job.steps`` or ``job.tokens``) and
fewer GPUs all count, and a slower step or more GPUs count against. The second is the
extra hardware charge: the extra price spread over its service life, charged for the
hours the scenario holds it. A shorter wall time is credited once, in the first term;
the reference's hardware charge for running longer is not credited again. A scenario
pays for itself when its net value is positive; its break-even is the GPU-hour value at
which the net value is zero, ``extra_hardware_charge / gpu_hours_saved`` (when it saves
GPU-hours: above that value it pays).

With the work in hours (``job.work``) every scenario trains the same hours, so a slower
step costs nothing: ``compare``, ``sweep`` and ``plan`` warn when the scenarios'
healthy step times differ then (:func:`relplan.runs.preflight.speed_warning`).
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
        Price of the hardware the job holds (footprint, spare servers and the switches
        its ports need), currency.
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
    gpu_hours : float
        Mean wall hours x the job's GPUs.
    billed_gpu_hours : float or None
        The GPU-hours at the price paid for them, what net value compares: ``gpu_hours``
        x (1 - ``spot_discount``) on spot capacity (:func:`billing_factor`); None: as
        ``gpu_hours`` (costs stored before it existed).
    """

    hardware_price: float
    hardware_charge: float
    gpu_hours_lost: float
    lost_value: float
    total: float
    wall_hours: float
    gpu_hours: float
    billed_gpu_hours: float | None = None

    @property
    def paid_gpu_hours(self) -> float:
        """:attr:`billed_gpu_hours`, or :attr:`gpu_hours` when it is None."""
        return self.gpu_hours if self.billed_gpu_hours is None else self.billed_gpu_hours


def billing_factor(config: RelplanConfig, budget: BudgetConfig) -> float:
    """What a GPU-hour of this config costs, as a share of ``gpu_hour_value``: 1, or
    ``1 - spot_discount`` on spot capacity (a config with ``[preemption]``).

    Examples
    --------
    >>> from relplan.config.loading import load_config
    >>> config = load_config("configs/small.toml", ['budget.spot_discount="70%"'])
    >>> billing_factor(config, config.budget)
    1.0
    >>> spot = config.with_overrides(['preemption={ every = "40h" }'])
    >>> round(billing_factor(spot, spot.budget), 6)
    0.3
    """
    return 1.0 - budget.spot_discount if config.preemption is not None else 1.0


def switches_for_ports(inventory: Inventory) -> dict[str, int]:
    """The switches a job's fabric lacks, per tier: the rule that prices a design whose
    switches are short of ports.

    A tier whose switches each need ``n`` ports but have ``k`` (``n > k``) is given
    enough switches of its kind to supply the job's share of the ports:
    ``ceil(S x n / k) - S`` more, with ``S`` the tier's switches in the job's footprint
    (for spines: more spines that take the leaves' uplinks spread over more switches; for
    leaves: more leaves, each with fewer servers). The simulation runs the fabric as
    configured; only its price grows.

    Parameters
    ----------
    inventory : Inventory
        From :func:`relplan.cluster.topology.build_inventory`.

    Returns
    -------
    dict
        Tier (a component class: ``leaf``, ``spine``, ``core``) -> switches to add; only
        the tiers short of ports.

    Examples
    --------
    >>> from relplan.config.loading import load_config
    >>> from relplan.cluster.topology import build_inventory
    >>> switches_for_ports(build_inventory(load_config("configs/llama3-16k.toml")))
    {}
    >>> dual = load_config("configs/llama3-16k.toml", ["network.dual_tor=true"])
    >>> switches_for_ports(build_inventory(dual))  # 768 ports needed per 576-port spine
    {'spine': 22}
    """
    extra = {}
    for row in inventory.port_budget:
        if row.fits or row.ports_available <= 0:
            continue
        held = inventory.job_units(row.tier)
        needed = math.ceil(held * row.ports_needed / row.ports_available)
        if needed > held:
            extra[row.tier] = needed - held
    return extra


def hardware_price(config: RelplanConfig, inventory: Inventory, budget: BudgetConfig) -> float:
    """Price of the hardware a job holds: its footprint, its spare servers and the
    switches its ports need (:func:`switches_for_ports`).

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

    Examples
    --------
    >>> from relplan.config.loading import load_config
    >>> from relplan.cluster.topology import build_inventory
    >>> config = load_config("configs/small.toml")
    >>> f"{hardware_price(config, build_inventory(config), config.budget):,.0f}"
    '24,836,800'
    """
    prices = budget.prices
    total = sum(prices.get(c.component, 0.0) * c.job_units for c in inventory.components)
    nics = nics_per_server(config.cluster)
    spare_server = (
        prices.get("host", 0.0)
        + config.cluster.gpus_per_server * prices.get("gpu", 0.0)
        + nics * prices.get("nic", 0.0)
    )
    switches = sum(prices.get(tier, 0.0) * count
                   for tier, count in switches_for_ports(inventory).items())  # fmt: skip
    return total + inventory.spare_servers * spare_server + switches


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
        The scenario (its job's GPUs turn wall hours into GPU-hours).
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
                       gpu_hours_lost_mean, config.job.gpus,
                       billing_factor(config, budget))  # fmt: skip


def priced_cost(price: float, budget: BudgetConfig, wall_hours_mean: float,
                gpu_hours_lost_mean: float, job_gpus: int,
                billing: float = 1.0) -> ScenarioCost:  # fmt: skip
    """The cost of a job of ``job_gpus`` GPUs holding hardware of ``price`` for
    ``wall_hours_mean`` and losing ``gpu_hours_lost_mean`` GPU-hours, its GPU-hours paid
    at ``billing`` x ``gpu_hour_value`` (:func:`billing_factor`; see the module
    docstring).

    Examples
    --------
    >>> from relplan.config.schema import BudgetConfig
    >>> cost = priced_cost(1000.0, BudgetConfig(gpu_hour_value=2.0, amortization="100h"),
    ...                    50.0, 10.0, 8)
    >>> cost.hardware_charge, cost.lost_value, cost.total, cost.gpu_hours
    (500.0, 20.0, 520.0, 400.0)
    """
    charge = price * wall_hours_mean / budget.amortization
    lost_value = gpu_hours_lost_mean * budget.gpu_hour_value
    gpu_hours = wall_hours_mean * job_gpus
    return ScenarioCost(price, charge, gpu_hours_lost_mean, lost_value, charge + lost_value,
                        wall_hours_mean, gpu_hours,
                        gpu_hours * billing if billing != 1.0 else None)  # fmt: skip


def gpu_hours_saved(reference_wall_hours: Any, reference_gpus: int, wall_hours: Any,
                    gpus: int) -> Any:  # fmt: skip
    """GPU-hours a scenario saves against a reference: the difference of wall hours x
    GPUs, so fewer failures, a faster step and fewer GPUs all count.

    Parameters
    ----------
    reference_wall_hours, wall_hours : float or numpy.ndarray
        The reference's and the scenario's wall time (per trial, or means), hours.
    reference_gpus, gpus : int
        Their jobs' GPUs.

    Returns
    -------
    float or numpy.ndarray
        GPU-hours; elementwise for arrays.

    Examples
    --------
    >>> gpu_hours_saved(100.0, 8, 90.0, 8)  # 10 hours sooner on 8 GPUs
    80.0
    >>> gpu_hours_saved(100.0, 8, 90.0, 10)  # sooner, but on more GPUs
    -100.0
    """
    return reference_wall_hours * reference_gpus - wall_hours * gpus


def net_value_of(gpu_hours_saved: Any, extra_hardware_price: float, wall_hours: Any,
                 budget: BudgetConfig) -> Any:  # fmt: skip
    """Net value against a reference: value of the GPU-hours saved minus the extra
    hardware charge (the one definition; see the module docstring).

    Parameters
    ----------
    gpu_hours_saved : float or numpy.ndarray
        The reference's wall hours x GPUs minus the scenario's (per trial, or means;
        :func:`gpu_hours_saved`).
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
        ``gpu_hours_saved`` (the reference's mean wall hours x GPUs minus the
        scenario's), ``extra_hardware_charge`` (the extra price charged for the
        scenario's wall time), ``net_value`` (:func:`net_value_of`; positive: it pays for
        itself) and ``break_even_gpu_hour_value`` (the GPU-hour value at which the net
        value is zero, above which it pays; None when it saves no GPU-hours). With spot
        capacity on either side (:func:`billing_factor`), net value and break-even count
        the GPU-hours at the price paid for them, ``paid_gpu_hours_saved``.

    Examples
    --------
    >>> from relplan.config.schema import BudgetConfig
    >>> budget = BudgetConfig(gpu_hour_value=3.0, amortization="1000h")
    >>> base = priced_cost(1e6, budget, 1.2, 500.0, 500)      # 600 GPU-hours
    >>> better = priced_cost(1.2e6, budget, 1.0, 400.0, 500)  # 500 GPU-hours
    >>> figures = net_value(base, better, budget)
    >>> figures["gpu_hours_saved"], figures["extra_hardware_charge"], figures["net_value"]
    (100.0, 200.0, 100.0)
    >>> figures["break_even_gpu_hour_value"]
    2.0
    """
    saved = reference.gpu_hours - scenario.gpu_hours
    paid = reference.paid_gpu_hours - scenario.paid_gpu_hours  # spot hours cost less
    extra_price = scenario.hardware_price - reference.hardware_price
    extra = extra_price * scenario.wall_hours / budget.amortization
    break_even = extra / paid if paid > 0 else None
    if break_even is not None and not math.isfinite(break_even):
        break_even = None
    figures = {
        "gpu_hours_saved": saved,
        "extra_hardware_charge": extra,
        "net_value": net_value_of(paid, extra_price, scenario.wall_hours, budget),
        "break_even_gpu_hour_value": break_even,
    }
    if reference.billed_gpu_hours is not None or scenario.billed_gpu_hours is not None:
        figures["paid_gpu_hours_saved"] = paid
    return figures
