"""Scenarios side by side on common failure streams, priced when the first has a budget.

A comparison runs every scenario with the same trials and seed, so each sees the same
failures on the exposure clock, and reports goodput, wall time, GPU-hours lost and saved
against the first (wall hours x GPUs); with a ``[budget]`` in the first config also each
scenario's hardware charge, the value of what it loses, its net value (the value of the
GPU-hours saved minus the extra hardware charge, :mod:`relplan.cluster.budget`) and
break-even GPU-hour value.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import astuple, dataclass
from pathlib import Path
from typing import Any

from relplan.analysis.provenance import config_digest
from relplan.cluster.budget import ScenarioCost, net_value, scenario_cost, switches_for_ports
from relplan.config.loading import load_config
from relplan.config.schema import BudgetConfig, RelplanConfig
from relplan.errors import ConfigError
from relplan.runs.executor import (
    PointPool,
    Progress,
    block_progress,
    configured_workers,
    default_workers,
)
from relplan.runs.scenarios import run_scenario
from relplan.runs.store import PointStore, point_key


@dataclass(frozen=True)
class ScenarioSpec:
    """One scenario: a config file, the overrides applied to it, and its label.

    Attributes
    ----------
    config_path : Path
        The TOML config.
    overrides : tuple of str
        ``KEY=VALUE`` items applied before validation.
    label : str or None
        The name shown; None uses the config's ``name`` or its file name.
    """

    config_path: Path
    overrides: tuple[str, ...] = ()
    label: str | None = None


def parse_variant(text: str, config_path: Path, overrides: list[str]) -> ScenarioSpec:
    """Read a ``--variant "LABEL: KEY=VALUE; KEY=VALUE"`` of a config.

    The label ends at the last colon before the first ``=`` (no key holds a colon), so a
    label may hold colons of its own: ``"4:1 leaves: network.uplinks_per_leaf=20"``.

    Examples
    --------
    >>> parse_variant("dual-ToR: network.dual_tor=true", Path("a.toml"), []).overrides
    ('network.dual_tor=true',)
    >>> parse_variant("4:1: network.uplinks_per_leaf=20", Path("a.toml"), []).label
    '4:1'
    """
    label, sep, _ = text.split("=", 1)[0].rpartition(":")  # up to the first key's end
    rest = text[len(label) + 1:]
    items = [item.strip() for item in rest.split(";") if item.strip()]
    if not sep or not label.strip() or not items:
        raise ConfigError("--variant", f"{text!r} is not 'LABEL: KEY=VALUE[; KEY=VALUE]...'")
    return ScenarioSpec(config_path, (*overrides, *items), label.strip())


def _require_two(scenarios: list[ScenarioSpec]) -> None:
    """Refuse fewer than two scenarios: a comparison needs two sides."""
    if len(scenarios) < 2:
        raise ConfigError("CONFIG", "compare needs two configs, or a config and a --variant")


def load_scenarios(scenarios: list[ScenarioSpec]) -> list[RelplanConfig]:
    """Load and validate every scenario's config, with its overrides.

    Raises
    ------
    ConfigError
        With fewer than two scenarios, or a bad config.
    """
    _require_two(scenarios)
    return [load_config(s.config_path, list(s.overrides)) for s in scenarios]


def scenario_name(spec: ScenarioSpec, config: RelplanConfig) -> str:
    """A scenario's label: its own, the config's ``name``, or the config's file name."""
    return spec.label or config.name or spec.config_path.stem


def _run_compared(config: RelplanConfig, budget: BudgetConfig | None, trials: int, seed: int,
                  name: str, progress: Callable[[int], None] | None = None,
                  ) -> tuple[dict[str, Any], list[float] | None]:  # fmt: skip
    """Simulate one scenario: its row and, priced at ``budget``, its cost (as a list of
    :class:`ScenarioCost` fields); runs here, in a worker process or on Dask."""
    result = run_scenario(config, trials, seed, name, progress=progress)
    summary = result.summary()
    row: dict[str, Any] = {
        "scenario": name,
        "goodput": summary["goodput"]["mean"],
        "goodput_ci95": summary["goodput"]["ci95"],
        "goodput_p5": summary["goodput"]["p5"],
        "step_time_s": summary["step_time_s"],
        "work_hours": summary["work_hours"],
        "wall_hours": summary["wall_hours"]["mean"],
        "gpu_hours": summary["wall_hours"]["mean"] * summary["job_gpus"],
        "wall_hours_p50": summary["wall_hours"]["p50"],
        "wall_hours_p95": summary["wall_hours"]["p95"],
        "lost_hours": summary["lost_hours"]["mean"],
        "gpu_hours_lost": summary["gpu_hours_lost"]["mean"],
        "interruptions": summary["interruptions"]["mean"],
        "provenance": summary["provenance"],
    }
    if budget is None:
        return row, None
    cost = scenario_cost(config, result.model.inventory, budget,
                         summary["wall_hours"]["mean"], summary["gpu_hours_lost"]["mean"])
    row.update({"hardware_price": cost.hardware_price,
                "hardware_charge": cost.hardware_charge,
                "lost_value": cost.lost_value, "total_cost": cost.total,
                "switches_for_ports": switches_for_ports(result.model.inventory)})
    return row, list(astuple(cost))


def gpu_hours_saved(first: dict[str, Any], row: dict[str, Any]) -> float:
    """GPU-hours a scenario saves against the first: the difference of their mean wall
    hours x GPUs, so a slower healthy step, more GPUs and more failures all count (rows
    stored before ``gpu_hours`` existed: the difference of GPU-hours lost).

    Examples
    --------
    >>> gpu_hours_saved({"gpu_hours": 1000.0}, {"gpu_hours": 900.0})
    100.0
    """
    if "gpu_hours" in first and "gpu_hours" in row:
        return first["gpu_hours"] - row["gpu_hours"]
    return first["gpu_hours_lost"] - row["gpu_hours_lost"]


def compare_scenarios(
    scenarios: list[ScenarioSpec],
    trials: int | None = None,
    seed: int | None = None,
    workers: int | None = None,
    progress: Progress | None = None,
    configs: list[RelplanConfig] | None = None,
    store: PointStore | None = None,
    client: Any = None,
    pool: PointPool | None = None,
) -> dict[str, Any]:
    """Run scenarios on common failure streams and compare them with the first.

    Parameters
    ----------
    scenarios : list of ScenarioSpec
        At least two; the first is the reference.
    trials, seed : int, optional
        Monte Carlo settings shared by every scenario; by default the first config's
        ``[simulation]`` values.
    workers : int, optional
        Scenarios at once on local processes (1: one after another in this process); by
        default the first config's ``simulation.workers`` when it sets it, else every
        core (see :mod:`relplan.runs.executor`). Changes no number.
    progress : callable, optional
        Called with ``(trials, points)`` newly finished (see
        :data:`relplan.runs.executor.Progress`).
    configs : list of RelplanConfig, optional
        The scenarios' configs, already loaded (see :func:`load_scenarios`).
    store : PointStore, optional
        Finished scenarios: reused when found (same config, seed, trials and budget),
        each stored, by this process, the moment it finishes.
    client : distributed.Client, optional
        Run the scenarios on this Dask cluster (see
        :func:`relplan.runs.executor.dask_client`).
    pool : PointPool, optional
        Where the scenarios run, already made (see
        :meth:`relplan.runs.executor.PointPool.start`); used instead of ``workers``
        and ``client``.

    Returns
    -------
    dict
        ``trials``, ``seed`` and ``scenarios``: one row per scenario with ``scenario``,
        ``goodput``, ``goodput_ci95``, ``goodput_p5`` (its bad tail), ``step_time_s``
        (its healthy step, seconds; None without a step time), ``work_hours`` (its
        failure-free hours: with work in steps or tokens, steps x its own step time),
        ``wall_hours`` (mean), ``gpu_hours`` (mean wall hours x its GPUs),
        ``wall_hours_p50``, ``wall_hours_p95``, ``lost_hours``, ``gpu_hours_lost``,
        ``interruptions``, ``provenance`` (relplan version, config digest, seed, trials),
        ``gpu_hours_saved_vs_first`` (the first scenario's ``gpu_hours`` less this one's:
        failures and speed both count, and so do more or fewer GPUs) and, with a budget,
        ``hardware_price``,
        ``hardware_charge``, ``lost_value``, ``total_cost``, ``switches_for_ports``
        (tier -> switches priced in because the fabric lacks ports,
        :func:`relplan.cluster.budget.switches_for_ports`), ``gpu_hours_saved`` (the
        same as ``gpu_hours_saved_vs_first``: what the net value counts), ``net_value``,
        ``extra_hardware_charge``, ``break_even_gpu_hour_value`` (see
        :func:`relplan.cluster.budget.net_value`: the one definition, shared with
        ``plan`` and ``sweep``).

    Raises
    ------
    ConfigError
        With fewer than two scenarios, or a bad config.
    """
    _require_two(scenarios)
    configs = configs if configs is not None else load_scenarios(scenarios)
    settings = configs[0].simulation
    trials = trials if trials is not None else settings.trials
    seed = seed if seed is not None else settings.seed
    workers = default_workers(workers if workers is not None else configured_workers(configs[0]))
    budget = configs[0].budget
    # "cost3": a stored cost holds the wall hours it is charged for and its GPU-hours, and
    # its price the switches its ports need (older ones do not)
    kind = "compare" if budget is None else f"compare:cost3:{config_digest(budget)}"
    names = [scenario_name(spec, config) for spec, config in zip(scenarios, configs,
                                                                  strict=True)]  # fmt: skip
    keys = [point_key(config_digest(config), seed, trials, kind) for config in configs]
    found = [store.get(key) if store is not None else None for key in keys]
    todo = [i for i, stored in enumerate(found) if stored is None]
    if progress is not None and len(todo) < len(configs):
        progress((len(configs) - len(todo)) * trials, len(configs) - len(todo))
    with ExitStack() as stack:
        if pool is None:
            pool = stack.enter_context(PointPool(min(workers, max(1, len(todo))), client))
        blocks = block_progress(progress) if pool.local else None
        tasks = [(configs[i], budget, trials, seed, names[i], blocks) for i in todo]
        for index, (row, cost) in pool.run(_run_compared, tasks):
            point = todo[index]
            found[point] = {"row": row, "cost": cost}
            if store is not None:
                store.put(keys[point], found[point], "compare", names[point])
            if progress is not None:
                progress(0 if pool.local else trials, 1)
    rows: list[dict[str, Any]] = []
    costs: list[ScenarioCost] = []
    for name, stored in zip(names, found, strict=True):
        assert stored is not None
        rows.append({**stored["row"], "scenario": name})
        if budget is not None:
            costs.append(ScenarioCost(*stored["cost"]))
    for index, row in enumerate(rows):
        row["gpu_hours_saved_vs_first"] = gpu_hours_saved(rows[0], row)
        if budget is not None:
            row.update(net_value(costs[0], costs[index], budget))
    return {"trials": trials, "seed": seed, "scenarios": rows}
