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

from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor, as_completed
from contextlib import contextmanager
from typing import Any

import pandas as pd

from relplan.analysis.provenance import config_digest
from relplan.analysis.results import summarize
from relplan.analysis.scenarios import run_scenario
from relplan.analysis.store import PointStore, point_key
from relplan.config.loading import parse_config
from relplan.config.study import Study
from relplan.errors import ConfigError
from relplan.vocab import METRIC_LABELS, METRICS

DASK_CONNECT_SECONDS = 5
"""How long to wait for a Dask scheduler before giving up, seconds."""


def _run_point(document: dict[str, Any], overrides: list[str], trials: int, seed: int,
               name: str, progress: Callable[[int], None] | None = None,
               ) -> dict[str, Any]:  # fmt: skip
    """Simulate one point and summarise it (runs in a thread or on a Dask worker)."""
    result = run_scenario(parse_config(document, overrides), trials, seed, name,
                          progress=progress)  # fmt: skip
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


@contextmanager
def dask_client(address: str, timeout_seconds: float | None = None) -> Iterator[Any]:
    """Connect to Dask (or start a local cluster) before any work, and close it after.

    Parameters
    ----------
    address : str
        ``"local"`` for a local cluster in this process, or a scheduler address such as
        ``"tcp://10.0.0.1:8786"``.
    timeout_seconds : float, optional
        How long to wait for the scheduler (default: :data:`DASK_CONNECT_SECONDS`).

    Yields
    ------
    distributed.Client
        The connected client.

    Raises
    ------
    ConfigError
        Naming ``--dask`` when the address is malformed or no scheduler answers in time.

    Examples
    --------
    >>> with dask_client("nonsense") as client:
    ...     pass
    Traceback (most recent call last):
    ...
    relplan.errors.ConfigError: --dask: 'nonsense' is not "local" or a scheduler address ...
    """
    from dask.distributed import Client, LocalCluster

    timeout_seconds = DASK_CONNECT_SECONDS if timeout_seconds is None else timeout_seconds
    cluster = None
    try:
        if address == "local":
            cluster = LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                   dashboard_address=None)  # fmt: skip
            client = Client(cluster)
        else:
            client = Client(address, timeout=f"{timeout_seconds}s")
    except ValueError as error:
        raise ConfigError("--dask", f"{address!r} is not \"local\" or a scheduler address such "
                                    f"as tcp://10.0.0.1:8786 ({error})") from None
    except (OSError, TimeoutError) as error:
        raise ConfigError("--dask", f"no Dask scheduler answered at {address} within "
                                    f"{timeout_seconds:g} s ({error})") from None
    try:
        yield client
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def run_study(
    study: Study,
    trials: int | None = None,
    workers: int = 1,
    dask_address: str | None = None,
    progress: Callable[[int], None] | None = None,
    client: Any = None,
    store: PointStore | None = None,
) -> pd.DataFrame:
    """Run every point of a study (those not finished in ``store`` already).

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
        Called with the trials done: each block's locally, each point's on Dask.
    client : distributed.Client, optional
        A client already connected (see :func:`dask_client`); used instead of
        ``dask_address``.
    store : PointStore, optional
        Finished points: those found are reused (``store.reused`` counts them), and each
        point computed is stored the moment it finishes.

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
    keys = [point_key(config_digest(study.config(overrides)), spec.seed, trials, "sweep")
            for _, _, overrides in points]  # fmt: skip
    rows: list[dict[str, Any] | None] = [
        store.get(key) if store is not None else None for key in keys
    ]
    todo = [i for i, row in enumerate(rows) if row is None]
    tasks = [(study.base_document, points[i][2], trials, spec.seed, spec.name) for i in todo]

    def finished(index: int, row: dict[str, Any]) -> None:
        rows[todo[index]] = row
        if store is not None:
            store.put(keys[todo[index]], row, "sweep", points[todo[index]][0])

    if client is not None:
        _run_on_dask(tasks, client, progress, finished)
    elif dask_address is not None:
        with dask_client(dask_address) as connected:
            _run_on_dask(tasks, connected, progress, finished)
    elif workers > 1:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            futures = {pool.submit(_run_point, *task, progress): i
                       for i, task in enumerate(tasks)}  # fmt: skip
            for future in as_completed(futures):
                finished(futures[future], future.result())
    else:
        for index, task in enumerate(tasks):
            finished(index, _run_point(*task, progress))
    records = []
    for (label, values, _), row in zip(points, rows, strict=True):
        records.append({"label": label, **{k: v for k, v in values.items()}, **row})
    return pd.DataFrame(records)


def _run_on_dask(tasks: list[tuple], client: Any, progress: Callable[[int], None] | None,
                 finished: Callable[[int, dict[str, Any]], None]) -> None:  # fmt: skip
    from dask.distributed import as_completed as dask_completed

    futures = [client.submit(_run_point, *task, pure=False) for task in tasks]
    index = {future.key: i for i, future in enumerate(futures)}
    for future in dask_completed(futures):
        i = index[future.key]
        finished(i, future.result())
        if progress is not None:
            progress(tasks[i][2])


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




