"""Fleets side by side (``relplan compare`` of fleet configs, and the points of a study
whose base is a fleet): each fleet run with the same trials and seed, so that each job
sees the same failures in every scenario, and compared with the first; priced when the
first has a ``[budget]``.

A fleet holds its cluster's hardware for its makespan (its longest job): its price is
the hardware of all its jobs' servers and spares, its own or pooled, with the switches
they need (:func:`fleet_hardware_price`), charged over the mean makespan; its lost value
is its GPU-hours lost at ``gpu_hour_value``. Net value against the first is
:func:`relplan.cluster.budget.net_value` of the two: the fleet's GPU-hours saved (wall
hours x GPUs summed over its jobs) at ``gpu_hour_value``, less the extra charge.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from relplan.analysis.provenance import config_digest, provenance_record
from relplan.cluster.budget import ScenarioCost, hardware_price, net_value
from relplan.cluster.topology import build_inventory
from relplan.config.fleet_config import Fleet, parse_fleet
from relplan.config.schema import BudgetConfig
from relplan.errors import ConfigError
from relplan.runs.fleet import run_fleet
from relplan.stats.summary import summarize
from relplan.vocab import METRICS


def fleet_hardware_price(fleet: Fleet, budget: BudgetConfig) -> float:
    """The price of a fleet's hardware: that of one job holding all its jobs' GPUs and
    all their spares (own and pooled) on its cluster
    (:meth:`~relplan.config.fleet_config.Fleet.as_one_job`), so that the switches they
    share are counted once.

    Examples
    --------
    >>> from relplan.config.fleet_config import load_fleet
    >>> fleet = load_fleet("configs/fleets/fleet-mix.toml")
    >>> pooled = load_fleet("configs/fleets/fleet-pool.toml")
    >>> budget = BudgetConfig(gpu_hour_value=2.5, prices={"host": 50000})
    >>> fleet_hardware_price(fleet, budget) == fleet_hardware_price(pooled, budget)
    True
    """
    whole = fleet.as_one_job()
    return hardware_price(whole, build_inventory(whole), budget)


def fleet_digest(fleet: Fleet) -> str:
    """SHA-256 of a fleet: its shared settings and each job's name and resolved config.

    Examples
    --------
    >>> from relplan.config.fleet_config import load_fleet
    >>> len(fleet_digest(load_fleet("configs/fleets/fleet-mix.toml")))
    64
    """
    return config_digest([fleet.settings.model_dump(mode="json"),
                          *[[job.name, config_digest(job.config)] for job in fleet.jobs]])


def compare_fleets(fleets: list[tuple[str, Fleet]], trials: int, seed: int,
                   workers: int = 1) -> dict[str, Any]:  # fmt: skip
    """Run fleets on common failure streams and compare them with the first.

    Parameters
    ----------
    fleets : list of (str, Fleet)
        Each scenario's label and fleet; at least two, the first the reference.
    trials, seed, workers : int
        Shared by every scenario (workers: threads of a fleet's independent jobs).

    Returns
    -------
    dict
        ``trials``, ``seed`` and ``scenarios``: one row per fleet with ``scenario``,
        ``jobs``, ``gpus``, ``spares`` and ``crews`` (shared), ``goodput`` (mean, of
        the fleet's GPU-hours), ``goodput_ci95``, ``goodput_p5``, ``gpu_hours``,
        ``gpu_hours_lost``, ``gpu_hours_lost_p95``, ``makespan_hours`` (means),
        ``gpu_hours_saved_vs_first``, ``provenance`` (:func:`fleet_digest`, seed,
        trials) and, with a ``[budget]`` in the first,
        ``hardware_price``, ``hardware_charge``, ``lost_value``, ``total_cost``,
        ``gpu_hours_saved``, ``extra_hardware_charge``, ``net_value`` and
        ``break_even_gpu_hour_value``.

    Examples
    --------
    >>> from relplan.config.fleet_config import load_fleet
    >>> fleets = [("own spares", load_fleet("configs/fleets/fleet-mix.toml")),
    ...           ("pooled", load_fleet("configs/fleets/fleet-pool.toml"))]
    >>> rows = compare_fleets(fleets, trials=20, seed=0)["scenarios"]
    >>> [row["scenario"] for row in rows], rows[0]["gpu_hours_saved_vs_first"]
    (['own spares', 'pooled'], 0.0)
    """
    if len(fleets) < 2:
        raise ConfigError("CONFIG", "compare needs two fleet configs, or one and a --variant")
    budget = fleets[0][1].jobs[0].config.budget
    rows = []
    costs: list[ScenarioCost] = []
    for label, fleet in fleets:
        summary = run_fleet(fleet, trials, seed, workers).summary()["fleet"]
        row: dict[str, Any] = {
            "scenario": label, "jobs": summary["jobs"], "gpus": summary["gpus"],
            "spares": summary["spares"], "crews": summary["crews"],
            "goodput": summary["goodput"]["mean"],
            "goodput_ci95": summary["goodput"]["ci95"],
            "goodput_p5": summary["goodput"]["p5"],
            "gpu_hours": summary["gpu_hours"]["mean"],
            "gpu_hours_lost": summary["gpu_hours_lost"]["mean"],
            "gpu_hours_lost_p95": summary["gpu_hours_lost"]["p95"],
            "makespan_hours": summary["makespan_hours"]["mean"],
            "provenance": provenance_record(fleet_digest(fleet), seed, trials),
        }  # fmt: skip
        row["gpu_hours_saved_vs_first"] = (rows[0]["gpu_hours"] if rows else row["gpu_hours"]
                                           ) - row["gpu_hours"]  # fmt: skip
        if budget is not None:
            cost = fleet_cost(fleet, budget, row["makespan_hours"], row["gpu_hours"],
                              row["gpu_hours_lost"])  # fmt: skip
            costs.append(cost)
            row.update({"hardware_price": cost.hardware_price,
                        "hardware_charge": cost.hardware_charge,
                        "lost_value": cost.lost_value, "total_cost": cost.total,
                        **net_value(costs[0], cost, budget)})  # fmt: skip
        rows.append(row)
    return {"trials": trials, "seed": seed, "scenarios": rows}


def fleet_cost(fleet: Fleet, budget: BudgetConfig, makespan_hours: float, gpu_hours: float,
               gpu_hours_lost: float) -> ScenarioCost:  # fmt: skip
    """A fleet's cost: its hardware (:func:`fleet_hardware_price`) charged over its mean
    makespan, and its mean GPU-hours lost at ``gpu_hour_value``; ``gpu_hours`` (its jobs'
    wall hours x GPUs, summed) is what net value compares.

    Examples
    --------
    >>> from relplan.config.fleet_config import load_fleet
    >>> fleet = load_fleet("configs/fleets/fleet-mix.toml")
    >>> cost = fleet_cost(fleet, fleet.jobs[0].config.budget, 800.0, 8e6, 6e5)
    >>> cost.lost_value == 6e5 * fleet.jobs[0].config.budget.gpu_hour_value
    True
    """
    price = fleet_hardware_price(fleet, budget)
    charge = price * makespan_hours / budget.amortization
    lost_value = gpu_hours_lost * budget.gpu_hour_value
    return ScenarioCost(price, charge, gpu_hours_lost, lost_value, charge + lost_value,
                        makespan_hours, gpu_hours)


def run_fleet_point(document: dict[str, Any], overrides: list[str], trials: int, seed: int,
                    name: str, progress: Callable[[int], None] | None = None,
                    ) -> dict[str, Any]:  # fmt: skip
    """Simulate one point of a study whose base is a fleet, and summarise it as a point
    of a single job's study (:func:`relplan.runs.sweep.run_study`): each of
    :data:`relplan.vocab.METRICS` for the whole fleet
    (:meth:`~relplan.analysis.fleet_outcome.FleetOutcome.metric_column`: ``wall_hours``
    its makespan), the buckets' hours over its GPUs, and its ``gpu_hours``, the pool's
    ``pool_empty_share``, the ``servers_taken`` and the repairs' ``crew_wait_hours_mean``.
    Runs here, in a worker process or on Dask; ``progress`` is told the trials at the end.

    Examples
    --------
    >>> from relplan.config.loading import read_toml
    >>> document = read_toml("configs/fleets/fleet-pool.toml", "CONFIG")
    >>> row = run_fleet_point(document, ["fleet.spares=30"], 4, 0, "demo")
    >>> row["job_gpus"], 0 < row["goodput"] < 1
    (12800, True)
    """
    fleet = parse_fleet(document, overrides)
    outcome = run_fleet(fleet, trials, seed)
    summary = outcome.summary()["fleet"]
    row: dict[str, Any] = {
        "job_mtti_hours": None, "config_sha256": fleet_digest(fleet), "step_time_s": None,
        "work_hours": sum(outcome.results[job.name].model.job.work_hours * job.gpus
                          for job in fleet.jobs) / fleet.gpus, "job_gpus": fleet.gpus,
        "gpu_hours": summary["gpu_hours"]["mean"],
        "pool_empty_share": summary["pool"]["empty_share"] if summary["pool"] else None,
        "servers_taken": summary["servers_taken"]["mean"],
        "crew_wait_hours_mean": summary["repair_queue"]["mean_wait_hours"]
        if summary["repair_queue"] else None,
    }  # fmt: skip
    for metric in METRICS:
        stats = summarize(outcome.metric_column(metric))
        row[metric] = stats["mean"]
        row[f"{metric}_ci95_low"], row[f"{metric}_ci95_high"] = stats["ci95"]
        row[f"{metric}_p5"] = stats["p5"]
        row[f"{metric}_p50"] = stats["p50"]
        row[f"{metric}_p95"] = stats["p95"]
    for bucket, hours in outcome.lost_hours_breakdown().items():
        row[f"{bucket}_hours_mean"] = hours
    if progress is not None:
        progress(trials)
    return row


def priced_fleet_points(fleets: list[Fleet],
                        records: list[dict[str, Any]]) -> list[dict[str, Any]]:  # fmt: skip
    """Each fleet point's row with the money columns of a study's point
    (:data:`relplan.runs.sweep.MONEY_COLUMNS`) against the first, priced at the first
    point's ``[budget]`` (:func:`fleet_cost`: its makespan, ``wall_hours``, and its
    ``gpu_hours``); the rows as they are without one."""
    budget = fleets[0].jobs[0].config.budget if fleets else None
    if budget is None:
        return records
    costs = [fleet_cost(fleet, budget, float(row["wall_hours"]), float(row["gpu_hours"]),
                        float(row["gpu_hours_lost"]))
             for fleet, row in zip(fleets, records, strict=True)]  # fmt: skip
    priced = []
    for cost, row in zip(costs, records, strict=True):
        gain = net_value(costs[0], cost, budget)
        priced.append({**row, "gpu_hours_saved_vs_first": gain["gpu_hours_saved"],
                       "hardware_price": cost.hardware_price,
                       "hardware_charge": cost.hardware_charge, "lost_value": cost.lost_value,
                       "total_cost": cost.total, **gain})  # fmt: skip
    return priced
