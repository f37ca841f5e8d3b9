"""Redundancy plans (``studies/*plan*.toml``): their schema, options and portfolios.

A plan names a base config (its ``[budget]`` prices the hardware), the options a team can
buy (each a set of ``--set`` overrides, or mutually exclusive levels of one), an objective,
an optional spend limit and the uncertain inputs; :func:`load_plan` validates it, and
every portfolio's config, before anything runs. The planner is
:mod:`relplan.runs.planner`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from relplan.config.fleet_config import Fleet, is_fleet_document, parse_fleet
from relplan.config.loading import config_error, config_hint, parse_config, read_toml
from relplan.config.schema import RelplanConfig
from relplan.errors import ConfigError

PLAN_OBJECTIVES: dict[str, str] = {
    "net_value": "max",
    "goodput": "max",
    "wall_hours": "min",
    "gpu_hours_lost": "min",
    "p95_wall_hours": "min",
    "cost_per_useful_gpu_hour": "min",
    "goodput_per_dollar": "max",
}
"""The objectives a plan may rank portfolios by, and whether more or less is better (see
:mod:`relplan.runs.planner` for each one's definition)."""

MONEY_OBJECTIVES: frozenset[str] = frozenset(
    {"net_value", "cost_per_useful_gpu_hour", "goodput_per_dollar"}
)
"""The objectives that need the base config's ``[budget]`` (prices, GPU-hour value)."""

_NUMBER_WITH_UNIT = re.compile(r"^\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*(\S*)\s*$")


class PlanOption(BaseModel):
    """One thing to buy: ``{ label, set = [...] }`` or ``{ label, levels = [[...], ...] }``.

    ``price`` is an extra hardware price per level that the inventory does not show (a
    better optic's premium, a storage tier), in the budget's currency; one number for
    every level, or one per level.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)
    label: str = Field(min_length=1)
    set: list[str] = Field(default_factory=list)
    levels: list[list[str]] = Field(default_factory=list)
    level_labels: list[str] = Field(default_factory=list)
    price: float | list[float] = 0.0

    @model_validator(mode="after")
    def _check(self) -> PlanOption:
        if bool(self.set) == bool(self.levels):
            raise ValueError("give either 'set' (one level) or 'levels' (several)")
        if any(not level for level in self.levels):
            raise ValueError("levels: every level needs at least one KEY=VALUE")
        if self.level_labels and len(self.level_labels) != len(self.levels):
            raise ValueError("level_labels: one label per level")
        prices = self.price if isinstance(self.price, list) else [self.price]
        if isinstance(self.price, list) and len(prices) != len(self.level_overrides()):
            raise ValueError("price: one number, or one per level")
        if any(p < 0 for p in prices):
            raise ValueError("price: must be >= 0")
        return self

    def level_overrides(self) -> list[list[str]]:
        """The overrides of each level (one level for an option given by ``set``)."""
        return [list(self.set)] if self.set else [list(level) for level in self.levels]

    def level_names(self) -> list[str]:
        """How each level is named in tables: the label, with the level's label or
        overrides when there are several."""
        if self.set:
            return [self.label]
        names = self.level_labels or ["; ".join(level) for level in self.levels]
        return [f"{self.label}: {name}" for name in names]

    def level_prices(self) -> list[float]:
        """The extra price of each level."""
        count = len(self.level_overrides())
        return list(self.price) if isinstance(self.price, list) else [self.price] * count


class UncertainInput(BaseModel):
    """``{ low, high }``: an input known only within a range, as typed in a config
    (``"1%"``, ``"5min"``, ``2.5``); both ends must carry the same unit."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    low: str | float
    high: str | float

    @model_validator(mode="after")
    def _check(self) -> UncertainInput:
        (low, unit_low), (high, unit_high) = split_unit(self.low), split_unit(self.high)
        if unit_low != unit_high:
            raise ValueError(f"low and high need the same unit ({unit_low!r} vs {unit_high!r})")
        if not low < high:
            raise ValueError("low must be below high")
        return self

    def value_at(self, fraction: float) -> str:
        """The override value ``fraction`` of the way from ``low`` to ``high``, as TOML
        (a quoted string when it has a unit).

        Examples
        --------
        >>> UncertainInput(low="1%", high="4%").value_at(0.5)
        '"2.5%"'
        """
        (low, unit), (high, _) = split_unit(self.low), split_unit(self.high)
        value = low + fraction * (high - low)
        text = f"{value:.6g}{unit}"
        return f'"{text}"' if unit else text


def split_unit(value: str | float) -> tuple[float, str]:
    """A number and the unit after it.

    Examples
    --------
    >>> split_unit("2.5min")
    (2.5, 'min')
    >>> split_unit(3)
    (3.0, '')
    """
    if isinstance(value, int | float):
        return float(value), ""
    match = _NUMBER_WITH_UNIT.match(value)
    if match is None:
        raise ValueError(f"{value!r} is not a number with an optional unit")
    return float(match.group(1)), match.group(2)


class UncertaintySpec(BaseModel):
    """``[plan.uncertainty]``: the uncertain inputs by dotted key, and how many draws."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    samples: int = Field(default=16, ge=2, le=1000)
    inputs: dict[str, UncertainInput] = Field(default_factory=dict)


class PlanSpec(BaseModel):
    """The ``[plan]`` table."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    name: str = ""
    question: str = ""
    base: str
    set: list[str] = Field(default_factory=list)
    budget: float | None = Field(default=None, ge=0)
    objective: str = "net_value"
    trials: int | None = Field(default=None, ge=2)
    seed: int | None = Field(default=None, ge=0)
    exhaustive_limit: int = Field(default=256, ge=1)
    options: list[PlanOption] = Field(min_length=1)
    notes: str = ""

    @field_validator("objective")
    @classmethod
    def _known_objective(cls, objective: str) -> str:
        if objective not in PLAN_OBJECTIVES:
            raise ValueError(f"{objective!r} is not an objective; choose one of "
                             f"{', '.join(PLAN_OBJECTIVES)}")  # fmt: skip
        return objective

    @field_validator("options")
    @classmethod
    def _distinct_labels(cls, options: list[PlanOption]) -> list[PlanOption]:
        labels = [option.label for option in options]
        repeated = {label for label in labels if labels.count(label) > 1}
        if repeated:
            raise ValueError(f"label {sorted(repeated)[0]!r} is used twice")
        return options


Portfolio = tuple[int, ...]
"""A portfolio: per option the level bought, or -1 for none."""


@dataclass(frozen=True)
class Plan:
    """A loaded plan: its spec, its uncertainty, its base config and where it came from.

    A plan whose base is a fleet config (``[[jobs]]``) buys for the whole fleet: its
    ``base`` and :meth:`config` are then the fleet as one job holding all its GPUs and
    spares (:meth:`~relplan.config.fleet_config.Fleet.as_one_job`: what prices its
    hardware and sizes its run), and :meth:`fleet` the fleet itself.
    """

    spec: PlanSpec
    uncertainty: UncertaintySpec
    base: RelplanConfig
    base_document: dict[str, Any]
    path: Path

    @property
    def options(self) -> list[PlanOption]:
        """The options, in the file's order."""
        return self.spec.options

    def overrides(self, portfolio: Portfolio, extra: tuple[str, ...] = ()) -> list[str]:
        """The plan's ``set``, then a portfolio's overrides, then ``extra`` (an uncertain
        draw)."""
        items: list[str] = list(self.spec.set)
        for option, level in zip(self.options, portfolio, strict=True):
            if level >= 0:
                items += option.level_overrides()[level]
        return [*items, *extra]

    @property
    def is_fleet(self) -> bool:
        """Whether the base is a fleet config (``[[jobs]]``)."""
        return is_fleet_document(self.base_document)

    def fleet(self, portfolio: Portfolio, extra: tuple[str, ...] = ()) -> Fleet:
        """A fleet base with a portfolio's overrides (and ``extra``) validated."""
        return parse_fleet(self.base_document, self.overrides(portfolio, extra))

    def config(self, portfolio: Portfolio, extra: tuple[str, ...] = ()) -> RelplanConfig:
        """The base config with a portfolio's overrides (and ``extra``) validated; for a
        fleet, the fleet as one job (see the class)."""
        return _resolved(self.base_document, self.overrides(portfolio, extra))

    def job_configs(self, portfolio: Portfolio, label: str) -> list[tuple[str, RelplanConfig]]:
        """A portfolio's configs, labelled ``label`` (and ``job NAME`` for each job of a
        fleet): those whose warnings the plan gives."""
        if not self.is_fleet:
            return [(label, self.config(portfolio))]
        return [(f"{label}, job {job.name}", job.config) for job in self.fleet(portfolio).jobs]

    def names(self, portfolio: Portfolio) -> list[str]:
        """The names of the levels a portfolio buys."""
        return [option.level_names()[level]
                for option, level in zip(self.options, portfolio, strict=True) if level >= 0]

    def extra_price(self, portfolio: Portfolio) -> float:
        """The options' own prices (beyond the inventory difference), currency."""
        return sum(option.level_prices()[level]
                   for option, level in zip(self.options, portfolio, strict=True) if level >= 0)

    def empty(self) -> Portfolio:
        """The base: nothing bought."""
        return tuple(-1 for _ in self.options)


def _resolved(document: dict[str, Any], overrides: list[str]) -> RelplanConfig:
    """A config document (or a fleet's, as one job) with ``overrides``, validated."""
    if is_fleet_document(document):
        return parse_fleet(document, overrides).as_one_job()
    return parse_config(document, overrides)


def _check_overrides(spec: PlanSpec, uncertainty: UncertaintySpec, overrides: list[str],
                     sources: dict[str, str]) -> None:  # fmt: skip
    """Refuse an override whose key a plan option or an uncertain input also sets."""
    for item in overrides:
        key = item.partition("=")[0].strip()
        option_name = sources.get(key, "--set")
        if key in uncertainty.inputs:
            raise ConfigError(key, f"given by {option_name} but an uncertain input of the "
                                   f"plan (plan.uncertainty.{key}), drawn for each sample: "
                                   "change it in the plan file instead")
        setting = [option.label for option in spec.options
                   if any(i.partition("=")[0].strip() == key
                          for level in option.level_overrides() for i in level)]  # fmt: skip
        if setting:
            names = ", ".join(repr(label) for label in setting)
            raise ConfigError(key, f"given by {option_name} but also set by the plan's option"
                                   f"{'s' if len(setting) > 1 else ''} {names}, whose value "
                                   "would win in the portfolios that buy it: change it in "
                                   "the plan file instead")


def load_plan(path: str | Path, overrides: list[str] | None = None,
              sources: dict[str, str] | None = None) -> Plan:
    """Read and validate a plan file, its base config and every portfolio's config.

    Parameters
    ----------
    path : str or Path
        The plan's TOML file; ``plan.base`` is relative to it.
    overrides : list of str, optional
        ``KEY=VALUE`` items applied to every portfolio after the plan's own ``set`` (the
        command line's ``--set``). A key an option or an uncertain input also sets is
        refused: their value would win, silently.
    sources : dict, optional
        The command-line option that gave each override's key (default ``--set``).

    Returns
    -------
    Plan

    Raises
    ------
    ConfigError
        Naming the plan key (``plan.options.1.levels``, ...) or the config key at fault,
        before anything runs. The base config needs a ``[budget]`` to price hardware.

    Examples
    --------
    >>> plan = load_plan("studies/redundancy-plan-seed-moe.toml")
    >>> plan.spec.objective
    'net_value'
    """
    file = Path(path)
    document = read_toml(file, "PLAN")
    if "study" in document and "plan" not in document:
        raise ConfigError("PLAN", f"{file} is a study: run it with relplan sweep")
    if "plan" not in document:
        raise ConfigError("PLAN", f"{file} is not a plan (no [plan] table){config_hint(document)}")
    if set(document) != {"plan"}:
        extra = sorted(set(document) - {"plan"}) or ["plan"]
        raise ConfigError(extra[0], "a plan file holds one [plan] table")
    table = dict(document["plan"])
    uncertainty_table = table.pop("uncertainty", {})
    try:
        spec = PlanSpec.model_validate(table)
    except ValidationError as error:
        raise config_error(error, ("plan",)) from None
    if not isinstance(uncertainty_table, dict):
        raise ConfigError("plan.uncertainty", "must be a table of KEY = { low, high }")
    inputs = {}
    for key, value in uncertainty_table.items():
        if key == "samples":
            continue
        try:
            inputs[key] = UncertainInput.model_validate(value)
        except ValidationError as error:
            raise config_error(error, ("plan", "uncertainty", key)) from None
    settings = {k: uncertainty_table[k] for k in ("samples",) if k in uncertainty_table}
    try:
        uncertainty = UncertaintySpec.model_validate({**settings, "inputs": inputs})
    except ValidationError as error:
        raise config_error(error, ("plan", "uncertainty")) from None
    _check_overrides(spec, uncertainty, overrides or [], sources or {})
    spec = spec.model_copy(update={"set": [*spec.set, *(overrides or [])]})
    base_document = read_toml((file.parent / spec.base).resolve(), "plan.base")
    try:
        base = _resolved(base_document, spec.set)
    except ConfigError as error:
        where = "plan.set and --set" if overrides else "plan.set"
        raise ConfigError(error.key, f"{error.message} ({where})") from None
    if base.budget is None and spec.objective in MONEY_OBJECTIVES:
        raise ConfigError("budget", f"the objective {spec.objective} needs money figures: "
                                    f"add a [budget] (gpu_hour_value, prices) to the base "
                                    f"config {spec.base}")  # fmt: skip
    plan = Plan(spec, uncertainty, base, base_document, file)
    for option in spec.options:
        for level, overrides in enumerate(option.level_overrides()):
            try:
                _resolved(base_document, [*spec.set, *overrides])
            except ConfigError as error:
                raise ConfigError(
                    error.key, f"{error.message} (plan option {option.label!r}, level {level})"
                ) from None
    for key, value in uncertainty.inputs.items():
        for end in (0.0, 1.0):
            try:
                _resolved(base_document, [*spec.set, f"{key}={value.value_at(end)}"])
            except ConfigError as error:
                raise ConfigError(f"plan.uncertainty.{key}", error.message) from None
    return plan
