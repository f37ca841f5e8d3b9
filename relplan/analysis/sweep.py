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
by independent noise. Points run in local threads or on a Dask cluster; the numbers
are the same either way.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pandas as pd

from relplan.analysis.results import summarize
from relplan.analysis.scenarios import run_scenario
from relplan.config.loading import parse_config
from relplan.config.study import Study
from relplan.vocab import METRIC_LABELS, METRICS


def _run_point(document: dict[str, Any], overrides: list[str], trials: int, seed: int,
               name: str) -> dict[str, Any]:  # fmt: skip
    """Simulate one point and summarise it (runs in a thread or on a Dask worker)."""
    result = run_scenario(parse_config(document, overrides), trials, seed, name)
    frame = result.trials_frame()
    row: dict[str, Any] = {"job_mtti_hours": result.model.job_mtti_hours,
                           "config_sha256": result.config_sha256}
    for metric in METRICS:
        stats = summarize(frame[metric].to_numpy())
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
    workers: int = 1,
    dask_address: str | None = None,
    progress: Callable[[int], None] | None = None,
) -> pd.DataFrame:
    """Run every point of a study.

    Parameters
    ----------
    study : Study
        The loaded study.
    trials : int, optional
        Trials per point (default: the study's).
    workers : int
        Local threads (ignored with ``dask_address``).
    dask_address : str, optional
        ``"local"`` for a local Dask cluster, or a scheduler address such as
        ``"tcp://10.0.0.1:8786"``; the numbers do not depend on it.
    progress : callable, optional
        Called with 1 as each point completes.

    Returns
    -------
    pandas.DataFrame
        One row per point, in study order: ``label``, the axis values, ``config_sha256``
        (the digest of the point's resolved config), and per metric its mean, CI, P5, P50
        and P95 (``<metric>``, ``<metric>_ci95_low``, ``<metric>_ci95_high``,
        ``<metric>_p5``, ``<metric>_p50``, ``<metric>_p95``).
    """
    spec = study.spec
    trials = trials or spec.trials
    points = study.points()
    tasks = [(study.base_document, overrides, trials, spec.seed, spec.name)
             for _, _, overrides in points]
    if dask_address is not None:
        rows = _run_on_dask(tasks, dask_address, progress)
    elif workers > 1:

        with ThreadPoolExecutor(max_workers=workers) as pool:
            futures = [pool.submit(_run_point, *task) for task in tasks]
            rows = []
            for future in futures:
                rows.append(future.result())
                if progress is not None:
                    progress(1)
    else:
        rows = []
        for task in tasks:
            rows.append(_run_point(*task))
            if progress is not None:
                progress(1)
    records = []
    for (label, values, _), row in zip(points, rows, strict=True):
        records.append({"label": label, **{k: v for k, v in values.items()}, **row})
    return pd.DataFrame(records)


def _run_on_dask(tasks: list[tuple], address: str,
                 progress: Callable[[int], None] | None) -> list[dict[str, Any]]:  # fmt: skip
    from dask.distributed import Client, LocalCluster, as_completed

    cluster = None
    if address == "local":
        cluster = LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                               dashboard_address=None)
        client = Client(cluster)
    else:
        client = Client(address)
    try:
        futures = [client.submit(_run_point, *task, pure=False) for task in tasks]
        index = {future.key: i for i, future in enumerate(futures)}
        rows: list[dict[str, Any] | None] = [None] * len(futures)
        for future in as_completed(futures):
            rows[index[future.key]] = future.result()
            if progress is not None:
                progress(1)
        return [row for row in rows if row is not None]
    finally:
        client.close()
        if cluster is not None:
            cluster.close()




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




