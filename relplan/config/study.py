"""Declarative studies (``studies/*.toml``): their schema, their axes and points.

A study names a base config, axes of dotted keys (or named scenarios), the metrics to
report and the objective its answer is about; :func:`load_study` validates it and expands
its points into ``--set`` overrides of the base config.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from relplan.config.fleet_config import Fleet, is_fleet_document, parse_fleet
from relplan.config.loading import (
    apply_overrides,
    config_error,
    config_hint,
    parse_config,
    read_toml,
)
from relplan.config.schema import RelplanConfig
from relplan.config.toml_text import toml_value
from relplan.errors import ConfigError
from relplan.vocab import METRICS


class RangeAxis(BaseModel):
    """An axis given as a range: ``{ start, stop, num, scale = "linear" | "log", step }``.

    ``step`` rounds every value to a multiple of it (e.g. 8 GPUs per server); ``unit``
    is appended to every value (e.g. "min").
    """

    model_config = ConfigDict(extra="forbid", frozen=True)
    start: float
    stop: float
    num: int = Field(ge=2)
    scale: Literal["linear", "log"] = "linear"
    step: float | None = Field(default=None, gt=0)
    unit: str = ""

    def values(self) -> list[Any]:
        """The axis values, rounded to ``step`` and with ``unit`` appended."""
        if self.scale == "log":
            if self.start <= 0 or self.stop <= 0:
                raise ValueError("a log axis needs start and stop > 0")
            raw = np.geomspace(self.start, self.stop, self.num)
        else:
            raw = np.linspace(self.start, self.stop, self.num)
        if self.step is not None:
            raw = np.maximum(np.round(raw / self.step), 1) * self.step
        numbers = [int(v) if float(v).is_integer() else float(v) for v in raw]
        if self.unit:
            return [f"{v:g}{self.unit}" for v in numbers]
        return numbers


class ListAxis(BaseModel):
    """An axis given as ``{ values = [...] }``."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    values_: list[Any] = Field(alias="values", min_length=1)

    def values(self) -> list[Any]:
        """The axis values."""
        return list(self.values_)


class Scenario(BaseModel):
    """A named point: ``{ label, set = [KEY=VALUE, ...] }``."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    label: str
    set: list[str] = Field(default_factory=list)


class StudySpec(BaseModel):
    """The ``[study]`` table."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    name: str
    question: str
    base: str
    trials: int = Field(default=500, gt=0)
    seed: int = Field(default=0, ge=0)
    combine: Literal["grid", "zip"] = "grid"
    metrics: list[str] = Field(default_factory=lambda: ["goodput", "wall_hours", "lost_hours"])
    objective: str = "goodput"
    goal: Literal["max", "min", "trend"] = "max"
    reference: str | None = None
    x: str | None = None
    hue: str | None = None
    set: list[str] = Field(default_factory=list)
    axes: dict[str, list[Any] | ListAxis | RangeAxis] = Field(default_factory=dict)
    scenarios: list[Scenario] = Field(default_factory=list)
    notes: str = ""

    @model_validator(mode="after")
    def _check(self) -> StudySpec:
        unknown = [m for m in [*self.metrics, self.objective] if m not in METRICS]
        if unknown:
            raise ValueError(f"unknown metric {unknown[0]!r} (known: {', '.join(METRICS)})")
        if not self.axes and not self.scenarios:
            raise ValueError("a study needs 'axes' or 'scenarios'")
        labels = [scenario.label for scenario in self.scenarios]
        repeated = sorted({label for label in labels if labels.count(label) > 1})
        if repeated:
            raise ValueError(f"scenario label {repeated[0]!r} is used twice")
        if self.reference is not None and self.reference not in {s.label for s in self.scenarios}:
            raise ValueError(f"reference {self.reference!r} is not a scenario label")
        if self.combine == "zip":
            lengths = {len(self.axis_values(k)) for k in self.axes}
            if len(lengths) > 1:
                raise ValueError("zipped axes must have the same length")
        return self

    def axis_values(self, key: str) -> list[Any]:
        """The values of axis ``key``."""
        axis = self.axes[key]
        return list(axis) if isinstance(axis, list) else axis.values()

    def point_count(self) -> int:
        """How many points the study has: its scenarios, and its axes' grid (or zip),
        counted without making them."""
        if not self.axes:
            return len(self.scenarios)
        lengths = [len(self.axis_values(key)) for key in self.axes]
        grid = lengths[0] if self.combine == "zip" else int(np.prod(lengths, dtype=object))
        return len(self.scenarios) + grid


@dataclass(frozen=True)
class Study:
    """A loaded study: its spec, its base config document and where it came from."""

    spec: StudySpec
    base_document: dict[str, Any]
    path: Path

    def points(self) -> list[tuple[str, dict[str, Any], list[str]]]:
        """Each point: (label, axis values by key, overrides)."""
        spec = self.spec
        points = []
        for scenario in spec.scenarios:
            points.append((scenario.label, {"scenario": scenario.label},
                           [*spec.set, *scenario.set]))
        if spec.axes:
            keys = list(spec.axes)
            columns = [spec.axis_values(k) for k in keys]
            combos = zip(*columns, strict=True) if spec.combine == "zip" else itertools.product(
                *columns
            )
            for combo in combos:
                values = dict(zip(keys, combo, strict=True))
                overrides = [*spec.set, *(f"{k}={toml_value(v)}" for k, v in values.items())]
                label = ", ".join(f"{k.split('.')[-1]}={v}" for k, v in values.items())
                points.append((label, values, overrides))
        return points

    @property
    def is_fleet(self) -> bool:
        """Whether the base is a fleet config (``[[jobs]]``): each point is a fleet."""
        return is_fleet_document(self.base_document)

    def fleet(self, overrides: list[str]) -> Fleet:
        """A fleet base with a point's overrides applied and validated."""
        return parse_fleet(self.base_document, overrides)

    def config(self, overrides: list[str]) -> RelplanConfig:
        """The base config with a point's overrides applied and validated; for a fleet,
        the config of its largest job (which sizes a point's run)."""
        if self.is_fleet:
            return max(self.fleet(overrides).jobs, key=lambda job: job.gpus).config
        return parse_config(apply_overrides(self.base_document, []), overrides)

    def configs(self) -> list[RelplanConfig]:
        """Every point's config (:meth:`config`), validated, in :meth:`points` order.

        Raises
        ------
        ConfigError
            Naming the key at fault and the point.
        """
        configs = []
        for label, _, overrides in self.points():
            try:
                configs.append(self.config(overrides))
            except ConfigError as error:
                raise ConfigError(error.key, f"{error.message} (study point {label})") from None
        return configs

    def labelled_configs(self) -> list[tuple[str, RelplanConfig]]:
        """Every config the points run, labelled ``study point LABEL`` (and ``job NAME``
        for each job of a fleet), validated, in :meth:`points` order.

        Examples
        --------
        >>> study = load_study("studies/fleet-spares.toml")
        >>> study.labelled_configs()[0][0]
        'study point spares=0, crews=1, preempt=never, job pretrain-8k'
        """
        self.configs()  # each point checked, an error naming it
        labelled = []
        for label, _, overrides in self.points():
            if self.is_fleet:
                labelled += [(f"study point {label}, job {job.name}", job.config)
                             for job in self.fleet(overrides).jobs]  # fmt: skip
            else:
                labelled.append((f"study point {label}", self.config(overrides)))
        return labelled


def load_study(
    path: str | Path,
    overrides: list[str] | None = None,
    seed: int | None = None,
    validate_points: bool = True,
    sources: Mapping[str, str] | None = None,
) -> Study:
    """Read and validate a study file and its base config.

    Parameters
    ----------
    path : str or Path
        The study file.
    overrides : list of str, optional
        ``KEY=VALUE`` items applied to every point after the study's own ``set`` (the
        command line's ``--set``); a key the study varies cannot be overridden.
    seed : int, optional
        Replaces the study's ``seed``.

    Raises
    ------
    ConfigError
        Naming the study key (``study.axes``, ``study.base``, ...) or the config key at
        fault; every point's config is validated before anything runs. An axis without
        values is named (``study.axes.KEY``). An override whose key a scenario also sets
        is refused (the scenario's value would win on its points, silently), naming the
        key, and in the message the option that gave it (``sources``) and the scenarios.
    validate_points : bool
        Whether to validate every point's config now (False: later, with
        :meth:`Study.configs`, e.g. after the points are counted).
    sources : mapping, optional
        The command-line option that gave each override's key (default ``--set``).

    Examples
    --------
    >>> study = load_study("studies/recovery-strategies.toml", ["job.work=10d"], seed=7)
    >>> study.spec.seed, study.spec.set[-1]
    (7, 'job.work=10d')
    """
    file = Path(path)
    document = read_toml(file, "STUDY")
    if "plan" in document and "study" not in document:
        raise ConfigError("STUDY", f"{file} is a plan: run it with relplan plan")
    if "study" not in document:
        raise ConfigError("STUDY", f"{file} is not a study (no [study] table)"
                                   f"{config_hint(document)}")
    if set(document) != {"study"}:
        extra = sorted(set(document) - {"study"}) or ["study"]
        raise ConfigError(extra[0], "a study file holds one [study] table")
    try:
        spec = StudySpec.model_validate(document["study"])
    except ValidationError as error:
        raise config_error(error, ("study",)) from None
    for key in spec.axes:
        if not spec.axis_values(key):
            raise ConfigError(f"study.axes.{key}", "has no values: an axis needs at least one")
    for item in overrides or []:
        key = item.partition("=")[0].strip()
        option = (sources or {}).get(key, "--set")
        if key in spec.axes:
            raise ConfigError(key, f"is an axis of the study: each point sets it, so {option} "
                                   "cannot override it for all of them")
        setting = [scenario.label for scenario in spec.scenarios
                   if any(i.partition("=")[0].strip() == key for i in scenario.set)]  # fmt: skip
        if setting:
            names = ", ".join(repr(label) for label in setting)
            raise ConfigError(key, f"given by {option} but also set by the study's scenario"
                                   f"{'s' if len(setting) > 1 else ''} {names}, whose value "
                                   "would win there: change it in the study file instead")
    update: dict[str, Any] = {"set": [*spec.set, *(overrides or [])]}
    if seed is not None:
        update["seed"] = seed
    spec = spec.model_copy(update=update)
    base_document = read_toml((file.parent / spec.base).resolve(), "study.base")
    study = Study(spec, base_document, file)
    if validate_points:
        study.configs()
    return study
