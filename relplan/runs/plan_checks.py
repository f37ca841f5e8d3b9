"""What a redundancy plan checks before it runs: the warnings of its base and of each
option level (as ``compare`` gives its scenarios'), and whether the fabric has the
switch ports each option needs.

A tier whose switches need more ports than they have is priced with the switches that
would supply them (:func:`relplan.cluster.budget.switches_for_ports`); an option level
whose switches the base config cannot price is left out of the plan
(:func:`fit_plan_to_fabric`). The planner is :mod:`relplan.runs.planner`.
"""

from __future__ import annotations

import warnings
from dataclasses import replace

from relplan.cluster.budget import switches_for_ports
from relplan.cluster.topology import build_inventory, check_port_budget
from relplan.config.plan import Plan, PlanOption, Portfolio
from relplan.config.schema import BudgetConfig, RelplanConfig
from relplan.errors import ConfigError, RelplanWarning
from relplan.runs.preflight import warn_configs
from relplan.units import format_money


def _single(plan: Plan, index: int, level: int) -> Portfolio:
    """The portfolio that buys one level of one option."""
    return tuple(level if i == index else -1 for i in range(len(plan.options)))


def _switch_words(switches: dict[str, int], budget: BudgetConfig | None) -> str:
    """``41 more spine switches ($2.46M)``: switches added for ports, with their price."""
    currency = budget.currency if budget is not None else ""
    parts = []
    for tier, count in switches.items():
        price = budget.prices.get(tier, 0.0) * count if budget is not None else 0.0
        parts.append(f"{count:,} more {tier} switch{'es' if count != 1 else ''} "
                     f"({format_money(price, currency)})")  # fmt: skip
    return " and ".join(parts)


def fit_plan_to_fabric(plan: Plan) -> Plan:
    """Check a plan's base and each option level alone before anything runs, as
    ``compare`` checks its scenarios: give their config warnings (the port budget among
    them) and the speed warning (:func:`relplan.runs.preflight.warn_configs`), and
    fit the options to the fabric's ports.

    The rule for a fabric short of ports (a tier whose switches need more ports than
    they have, :func:`relplan.cluster.topology.check_port_budget`): every portfolio is
    priced with the switches that would supply them
    (:func:`relplan.cluster.budget.switches_for_ports`, at the base's ``[budget]`` price
    of the tier), and a warning names each option level that adds some. When the base
    config cannot price them (no ``[budget]``, or no price for the tier), an option level
    that needs more of them than the base is left out of the plan, with a warning naming
    its port budget.

    Returns
    -------
    Plan
        The plan, without the option levels left out (the same object when none is).

    Raises
    ------
    ConfigError
        Naming ``plan.options`` when every option level is left out: each option, and
        the ports its switches are short.

    Examples
    --------
    >>> import warnings
    >>> from relplan.config.plan import load_plan
    >>> plan = load_plan("studies/redundancy-plan-seed-moe.toml")
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     fitted = fit_plan_to_fabric(plan)
    >>> fitted is plan  # priced, not left out
    True
    >>> [str(w.message).split(" for ")[0] for w in caught
    ...  if "dual-ToR: no drain is priced" in str(w.message)]  # doctest: +NORMALIZE_WHITESPACE
    ['port budget: plan option dual-ToR: no drain is priced with 64 more leaf switches
      ($2.56M) and 41 more spine switches ($2.46M)']
    """
    budget = plan.base.budget
    base_switches = switches_for_ports(build_inventory(plan.base))
    labelled: list[tuple[str, RelplanConfig]] = plan.job_configs(plan.empty(), "plan base")
    notes: list[RelplanWarning] = []
    if base_switches and budget is not None:
        notes.append(RelplanWarning("port budget", f"the plan's base is priced with "
                                                   f"{_switch_words(base_switches, budget)} "
                                                   "for the ports its fabric lacks"))
    kept: list[list[int]] = []
    refused: list[str] = []
    for index, option in enumerate(plan.options):
        levels = []
        for level, name in enumerate(option.level_names()):
            config = plan.config(_single(plan, index, level))
            inventory = build_inventory(config)
            switches = switches_for_ports(inventory)
            beyond = {tier: count for tier, count in switches.items()
                      if count > base_switches.get(tier, 0)}  # fmt: skip
            unpriced = [tier for tier in beyond
                        if budget is None or budget.prices.get(tier, 0.0) <= 0.0]  # fmt: skip
            if unpriced:
                short = "; ".join(line for line in check_port_budget(inventory)
                                  if line.split(":")[0] in beyond)  # fmt: skip
                why = ("the base config has no [budget]" if budget is None else
                       f"budget.prices has no price for {' or '.join(unpriced)} switches")
                refused.append(f"{name} ({short})")
                notes.append(RelplanWarning("port budget", f"plan option {name} is left out: "
                                                           f"{short}, and {why} to price "
                                                           "the switches it needs"))
                continue
            levels.append(level)
            labelled += plan.job_configs(_single(plan, index, level), f"plan option {name}")
            if beyond:
                notes.append(RelplanWarning("port budget", f"plan option {name} is priced with "
                                                           f"{_switch_words(switches, budget)}"
                                                           " for the ports its fabric lacks"))
        kept.append(levels)
    warn_configs(labelled, stacklevel=3)
    for note in notes:
        warnings.warn(note, stacklevel=3)
    if not any(kept):
        raise ConfigError("plan.options", "every option needs switch ports the fabric lacks, "
                                          "with no price for the switches: "
                                          + "; ".join(refused))  # fmt: skip
    if all(len(levels) == len(option.level_overrides())
           for levels, option in zip(kept, plan.options, strict=True)):  # fmt: skip
        return plan
    options = [_option_levels(option, levels)
               for option, levels in zip(plan.options, kept, strict=True) if levels]  # fmt: skip
    return replace(plan, spec=plan.spec.model_copy(update={"options": options}))


def _option_levels(option: PlanOption, levels: list[int]) -> PlanOption:
    """An option with only the given levels (their labels and prices kept)."""
    if option.set or len(levels) == len(option.level_overrides()):
        return option
    prices = option.level_prices()
    names = option.level_labels or ["; ".join(level) for level in option.levels]
    return PlanOption(label=option.label, levels=[option.levels[i] for i in levels],
                      level_labels=[names[i] for i in levels],
                      price=[prices[i] for i in levels])  # fmt: skip
