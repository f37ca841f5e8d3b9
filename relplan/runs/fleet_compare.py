"""Fleets side by side (``relplan compare`` of fleet configs): each fleet run with the
same trials and seed, so that each job sees the same failures in every scenario, and
compared with the first; priced when the first has a ``[budget]``.

A fleet holds its cluster's hardware for its makespan (its longest job): its price is
the hardware of all its jobs' servers and spares, its own or pooled, with the switches
they need (:func:`fleet_hardware_price`), charged over the mean makespan; its lost value
is its GPU-hours lost at ``gpu_hour_value``. Net value against the first is
:func:`relplan.cluster.budget.net_value` of the two: the fleet's GPU-hours saved (wall
hours x GPUs summed over its jobs) at ``gpu_hour_value``, less the extra charge.
"""

from __future__ import annotations

from typing import Any

from relplan.analysis.provenance import config_digest, provenance_record
from relplan.cluster.budget import ScenarioCost, hardware_price, net_value
from relplan.cluster.topology import build_inventory
from relplan.config.fleet_config import Fleet
from relplan.config.schema import BudgetConfig
from relplan.errors import ConfigError
from relplan.runs.fleet import run_fleet


def fleet_hardware_price(fleet: Fleet, budget: BudgetConfig) -> float:
    """The price of a fleet's hardware: that of one job holding all its jobs' GPUs and
    all their spares (own and pooled) on its cluster, so that the switches they share
    are counted once.

    Examples
    --------
    >>> from relplan.config.fleet_config import load_fleet
    >>> fleet = load_fleet("configs/fleets/fleet-mix.toml")
    >>> pooled = load_fleet("configs/fleets/fleet-pool.toml")
    >>> budget = BudgetConfig(gpu_hour_value=2.5, prices={"host": 50000})
    >>> fleet_hardware_price(fleet, budget) == fleet_hardware_price(pooled, budget)
    True
    """
    spares = fleet.spares + sum(0 if job.pooled else job.config.job.spares
                                for job in fleet.jobs)  # fmt: skip
    whole = fleet.jobs[0].config.with_overrides(
        [f"job.gpus={fleet.gpus}", f"job.spares={spares}", "job.spare_domains=0"])
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
            price = fleet_hardware_price(fleet, budget)
            charge = price * row["makespan_hours"] / budget.amortization
            lost_value = row["gpu_hours_lost"] * budget.gpu_hour_value
            cost = ScenarioCost(price, charge, row["gpu_hours_lost"], lost_value,
                                charge + lost_value, row["makespan_hours"], row["gpu_hours"])
            costs.append(cost)
            row.update({"hardware_price": price, "hardware_charge": charge,
                        "lost_value": lost_value, "total_cost": charge + lost_value,
                        **net_value(costs[0], cost, budget)})  # fmt: skip
        rows.append(row)
    return {"trials": trials, "seed": seed, "scenarios": rows}
