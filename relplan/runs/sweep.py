"""Declarative studies: a base config, axes of dotted keys, metrics, a report.

A study (``studies/*.toml``)::

    [study]
    name = "checkpoint-cadence-seed-moe"
    question = "How often should the seed MoE job checkpoint?"
    base = "../configs/seed-moe-10k.toml"     # relative to the study file
    trials = 500
    seed = 0
    combine = "grid"                          # or "zip"
    metrics = ["goodput", "wall_hours", "lost_hours"]
    objective = "goodput"                     # the metric the answer is about
    goal = "max"                              # or "min"
    x = "job.checkpoint.interval"             # the plots' x axis (default: first axis)
    set = ["job.spares=64"]                   # overrides for every point

    [study.axes]
    "job.checkpoint.interval" = ["10min", "20min", "30min", "1h", "2h"]
    "job.restart" = { values = ["5min", "20min"] }
    "job.gpus" = { start = 1024, stop = 131072, num = 8, scale = "log", step = 8 }

    [[study.scenarios]]                       # or named scenarios instead of axes
    label = "elastic"
    set = ['job.recovery="elastic"']

Every point runs with the same seed, so every point sees the same failure stream on
the exposure clock (common random numbers): differences between points are not blurred
by independent noise. Points run on local processes (by default one per core), in this
process, or on a Dask cluster (:mod:`relplan.runs.executor`); the numbers are the same
everywhere.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import ExitStack
from typing import Any

import pandas as pd

from relplan.analysis.provenance import config_digest
from relplan.cluster.budget import net_value, scenario_cost
from relplan.cluster.topology import build_inventory
from relplan.config.loading import parse_config
from relplan.config.schema import RelplanConfig
from relplan.config.study import Study
from relplan.runs.executor import (
    PointPool,
    Progress,
    block_progress,
    configured_workers,
    dask_client,
    default_workers,
)
from relplan.runs.fleet_compare import fleet_digest, priced_fleet_points, run_fleet_point
from relplan.runs.scenarios import run_scenario
from relplan.runs.store import PointStore, point_key
from relplan.stats.summary import summarize
from relplan.vocab import METRIC_LABELS, METRICS


def _run_point(document: dict[str, Any], overrides: list[str], trials: int, seed: int,
               name: str, progress: Callable[[int], None] | None = None,
               ) -> dict[str, Any]:  # fmt: skip
    """Simulate one point and summarise it (here, in a worker process or on Dask)."""
    result = run_scenario(parse_config(document, overrides), trials, seed, name,
                          progress=progress)  # fmt: skip
    step_hours = result.model.step_hours
    row: dict[str, Any] = {"job_mtti_hours": result.model.job_mtti_hours,
                           "config_sha256": result.config_sha256,
                           "step_time_s": step_hours * 3600.0 if step_hours else None,
                           "work_hours": result.model.job.work_hours,
                           "job_gpus": result.model.job.gpus}
    for metric in METRICS:
        stats = summarize(result.column(metric))  # one column at a time: no whole table
        row[metric] = stats["mean"]
        row[f"{metric}_ci95_low"], row[f"{metric}_ci95_high"] = stats["ci95"]
        row[f"{metric}_p5"] = stats["p5"]
        row[f"{metric}_p50"] = stats["p50"]
        row[f"{metric}_p95"] = stats["p95"]
    for bucket, hours in result.summary()["lost_hours_breakdown"].items():
        row[f"{bucket}_hours_mean"] = hours
    return row


def run_study(
    study: Study,
    trials: int | None = None,
    workers: int | None = None,
    dask_address: str | None = None,
    progress: Progress | None = None,
    client: Any = None,
    store: PointStore | None = None,
    pool: PointPool | None = None,
) -> pd.DataFrame:
    """Run every point of a study (those not finished in ``store`` already).

    Parameters
    ----------
    study : Study
        The loaded study.
    trials : int, optional
        Trials per point (default: the study's).
    workers : int, optional
        Points at once on local processes (1: one after another in this process); by
        default the base config's ``simulation.workers`` when it sets it, else every
        core (see :mod:`relplan.runs.executor`). Ignored on Dask.
    dask_address : str, optional
        ``"local"`` for a local Dask cluster of ``workers`` workers, or a scheduler
        address such as ``"tcp://10.0.0.1:8786"``; the numbers do not depend on it.
    progress : callable, optional
        Called with ``(trials, points)`` newly finished (see
        :data:`relplan.runs.executor.Progress`): the points reused from ``store`` at
        once, then each block's trials in this process, each point's trials and the point
        when it finishes elsewhere.
    client : distributed.Client, optional
        A client already connected (see :func:`dask_client`); used instead of
        ``dask_address``.
    store : PointStore, optional
        Finished points: those found are reused (``store.reused`` counts them), and each
        point computed is stored, by this process, the moment it finishes.
    pool : PointPool, optional
        Where the points run, already made (and perhaps started, see
        :meth:`PointPool.start`); used instead of ``workers``, ``dask_address`` and
        ``client``.

    Returns
    -------
    pandas.DataFrame
        One row per point, in study order: ``label``, the axis values, ``config_sha256``
        (the digest of the point's resolved config), and per metric its mean, CI, P5, P50
        and P95 (``<metric>``, ``<metric>_ci95_low``, ``<metric>_ci95_high``,
        ``<metric>_p5``, ``<metric>_p50``, ``<metric>_p95``); with a ``[budget]`` in the
        first point's config also the :data:`MONEY_COLUMNS` against the first point.
        A fleet's point (a study whose base is a fleet config) has the same columns for
        the whole fleet (:func:`relplan.runs.fleet_compare.run_fleet_point`: its
        makespan as ``wall_hours``), priced as ``compare`` prices fleets.
    """
    spec = study.spec
    trials = trials or spec.trials
    points = study.points()
    if workers is None:
        workers = default_workers(configured_workers(study.config(points[0][2])))
    if study.is_fleet:  # each point a fleet: its jobs' totals (relplan.runs.fleet_compare)
        fleets = [study.fleet(overrides) for _, _, overrides in points]
        digests = [fleet_digest(fleet) for fleet in fleets]
        run_point: Callable[..., dict[str, Any]] = run_fleet_point
    else:
        configs = [study.config(overrides) for _, _, overrides in points]
        digests = [config_digest(config) for config in configs]
        run_point = _run_point
    keys = [point_key(digest, spec.seed, trials, "sweep") for digest in digests]
    rows: list[dict[str, Any] | None] = [
        store.get(key) if store is not None else None for key in keys
    ]
    todo = [i for i, row in enumerate(rows) if row is None]
    if progress is not None and len(todo) < len(points):
        progress((len(points) - len(todo)) * trials, len(points) - len(todo))
    with ExitStack() as stack:
        if pool is None:
            if client is None and dask_address is not None:
                client = stack.enter_context(dask_client(dask_address, workers=workers))
            pool = stack.enter_context(PointPool(min(workers, max(1, len(todo))), client))
        blocks = block_progress(progress) if pool.local else None
        tasks = [(study.base_document, points[i][2], trials, spec.seed, spec.name, blocks)
                 for i in todo]  # fmt: skip
        for index, row in pool.run(run_point, tasks):
            point = todo[index]
            rows[point] = row
            if store is not None:
                store.put(keys[point], row, "sweep", points[point][0])
            if progress is not None:
                progress(0 if pool.local else trials, 1)
    records = []
    for (label, values, _), row in zip(points, rows, strict=True):
        records.append({"label": label, **{k: v for k, v in values.items()}, **row})
    if study.is_fleet:
        return pd.DataFrame(priced_fleet_points(fleets, records))
    return pd.DataFrame(priced_points(configs, records))


MONEY_COLUMNS: tuple[str, ...] = (
    "gpu_hours", "gpu_hours_saved_vs_first", "hardware_price", "hardware_charge",
    "lost_value", "total_cost", "gpu_hours_saved", "extra_hardware_charge", "net_value",
    "break_even_gpu_hour_value",
)  # fmt: skip
"""The columns a study whose first point has a ``[budget]`` adds to each point, priced as
``compare`` prices a scenario against the first (:mod:`relplan.cluster.budget`): its mean
wall hours x GPUs and the GPU-hours it saves against the first point, the price of the
hardware its job holds (the switches its ports need included), that price charged for
its mean wall time, the value of the GPU-hours it loses, their total, and against the
first point the GPU-hours saved (the same as ``gpu_hours_saved_vs_first``), the extra
hardware charge, the net value and the break-even GPU-hour value (None when it saves
no GPU-hours)."""


def priced_points(configs: list[RelplanConfig],
                  records: list[dict[str, Any]]) -> list[dict[str, Any]]:  # fmt: skip
    """Each point's row with the :data:`MONEY_COLUMNS` against the first point, priced at
    the first point's ``[budget]``; the rows as they are without one.

    Parameters
    ----------
    configs : list of RelplanConfig
        Each point's resolved config, in study order.
    records : list of dict
        Each point's row (``wall_hours``, ``gpu_hours_lost``: means).

    Returns
    -------
    list of dict
        New rows.
    """
    budget = configs[0].budget if configs else None
    if budget is None:
        return records
    costs = [scenario_cost(config, build_inventory(config), budget, float(row["wall_hours"]),
                           float(row["gpu_hours_lost"]))
             for config, row in zip(configs, records, strict=True)]  # fmt: skip
    priced = []
    for cost, row in zip(costs, records, strict=True):
        gain = net_value(costs[0], cost, budget)
        priced.append({**row, "gpu_hours": cost.gpu_hours,
                       "gpu_hours_saved_vs_first": gain["gpu_hours_saved"],
                       "hardware_price": cost.hardware_price,
                       "hardware_charge": cost.hardware_charge, "lost_value": cost.lost_value,
                       "total_cost": cost.total, **gain})  # fmt: skip
    return priced


def answer_sentence(study: Study, results: pd.DataFrame, trials: int) -> str:
    """The study's answer in one sentence, from its objective and goal.

    ``max``/``min``: the best point (the ``reference`` scenario, such as a failure-free
    bound, is left out of the ranking and quoted as the bound); ``trend``: the objective
    from the first point to the last.
    """
    spec = study.spec
    metric = spec.objective
    label, unit, fmt = METRIC_LABELS.get(metric, (metric.replace("_", " "), "", "{:.4g}"))

    def number(amount: float) -> str:
        text = fmt.format(amount)
        return f"{text} {unit}" if unit in ("h", "GPU-h") else text

    def value(row: pd.Series) -> str:
        low, high = row[f"{metric}_ci95_low"], row[f"{metric}_ci95_high"]
        return f"{number(row[metric])} (95% CI {number(low)} to {number(high)})"

    tail = f"over {len(results)} points of {trials} trials each on common failure streams."
    if spec.goal == "trend":
        first, last = results.iloc[0], results.iloc[-1]
        return (f"Mean {label} goes from {value(first)} at {first['label']} to "
                f"{value(last)} at {last['label']}, {tail}")
    ranked = results[results["label"] != spec.reference] if spec.reference else results
    column = ranked[metric]
    best = column.idxmax() if spec.goal == "max" else column.idxmin()
    worst = column.idxmin() if spec.goal == "max" else column.idxmax()
    row = results.loc[best]
    sentence = (
        f"{row['label']} gives the {'highest' if spec.goal == 'max' else 'lowest'} mean "
        f"{label}, {value(row)}, against {number(results.loc[worst, metric])} at the worst "
        f"({results.loc[worst, 'label']})"
    )
    if spec.reference:
        bound = results[results["label"] == spec.reference].iloc[0]
        sentence += f"; the {spec.reference} is {number(bound[metric])}"
    return f"{sentence}, {tail}"




