"""How relplan's cost grows: with trials, cluster size and events per trial; and its memory.

:func:`scaling_study` times the engine (one worker) along five series on the small
config; :func:`fit_cost` fits ``seconds = per_trial * trials + per_event * events`` to
them; :func:`memory_study` takes the peak RSS of ``relplan simulate`` runs at two
cluster sizes; :func:`plot_scaling` draws the series on log-log axes.
"""

from __future__ import annotations

import functools
import json
import math
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.cases import (
    comparable_model,
    config_path,
    expected_events_per_trial,
    hours_text,
)
from benchmarks.levels import Level
from benchmarks.measure import best_time, floor_seconds, relplan_argv, timed_process
from benchmarks.throughput import outcome_events
from relplan.config.derived import ceil_div
from relplan.config.loading import load_config
from relplan.sim.engine import BLOCK_TRIALS, simulate
from relplan.sim.model import SimulationModel, build_model
from relplan.units import HOURS_PER_YEAR

SCALING_SERIES: tuple[str, ...] = (
    "trials",
    "cluster",
    "cluster_fixed_events",
    "cluster_spares_5pct",
    "events_per_trial",
)
"""The series of :func:`scaling_study`, in the order they are reported."""
SCALING_CONFIG = "small"
"""The shipped config every scaling series varies."""
SPARE_FRACTION = 0.05
"""Spare pool of the ``cluster_spares_5pct`` series, as a fraction of the job's servers."""
FIXED_EVENTS_PER_TRIAL = 50.0
"""Expected events per trial of the ``cluster_fixed_events`` series."""
CLUSTER_WORK = "7d"
"""Work of the ``cluster`` series."""
MEMORY_CONFIG = "llama3-16k"
"""The shipped config of the peak-RSS runs."""
WEIBULL_SHAPE = 0.7
"""Shape of the Weibull GPU lifetimes of the memory study's non-exponential runs."""


@functools.cache
def gpus_per_server(config: str = SCALING_CONFIG) -> int:
    """GPUs per server of a shipped config (``cluster.gpus_per_server``)."""
    return load_config(config_path(config)).cluster.gpus_per_server


def cluster_overrides(gpus: int, spares: int, work: str) -> list[str]:
    """``--set`` items sizing the small config's cluster for a job of ``gpus`` GPUs.

    Parameters
    ----------
    gpus : int
        GPUs of the job.
    spares : int
        Spare servers on top of the job's.
    work : str
        ``job.work`` (``"7d"``).

    Returns
    -------
    list of str
        ``job.gpus``, ``cluster.servers`` (``ceil(gpus / gpus_per_server) + spares``) and
        ``job.work``.
    """
    servers = ceil_div(gpus, gpus_per_server()) + spares
    return [f"job.gpus={gpus}", f"cluster.servers={servers}", f"job.work={work}"]


def work_for_events(model: SimulationModel, events_per_trial: float) -> float:
    """Work (hours) that gives a job ``events_per_trial`` expected interruptions.

    Parameters
    ----------
    model : SimulationModel
        The job to resize.
    events_per_trial : float
        Expected interruptions wanted (see :func:`benchmarks.cases.expected_events_per_trial`).

    Returns
    -------
    float
        The work, hours, found by bisection on a log scale.
    """
    low, high = 1e-3, 1e7
    for _ in range(200):
        middle = math.sqrt(low * high)
        trial_model = replace(model, job=replace(model.job, work_hours=middle))
        if expected_events_per_trial(trial_model) < events_per_trial:
            low = middle
        else:
            high = middle
    return math.sqrt(low * high)


def fit_cost(points: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Least-squares fit ``seconds = per_trial * trials + per_event * events``.

    Relative residuals are minimised (each point is divided by its time), so small and
    large runs weigh alike. A second fit adds ``units x trials``: its coefficient shows
    whether cost depends on the units at all.

    Parameters
    ----------
    points : sequence of dict
        Scaling points with ``seconds``, ``trials``, ``events`` and ``units_x_trials``.

    Returns
    -------
    dict
        ``per_trial_ns``, ``per_event_ns``, ``max_relative_residual`` and
        ``per_unit_trial_ns_if_added``.
    """
    seconds = np.array([point["seconds"] for point in points])
    trials = np.array([point["trials"] for point in points], dtype=float)
    events = np.array([point["events"] for point in points], dtype=float)
    unit_trials = np.array([point["units_x_trials"] for point in points], dtype=float)
    design = np.column_stack([trials, events]) / seconds[:, None]
    (per_trial, per_event), *_ = np.linalg.lstsq(design, np.ones_like(seconds), rcond=None)
    predicted = per_trial * trials + per_event * events
    with_units = np.column_stack([trials, events, unit_trials]) / seconds[:, None]
    (_, _, per_unit_trial), *_ = np.linalg.lstsq(with_units, np.ones_like(seconds), rcond=None)
    return {
        "model": "seconds = per_trial * trials + per_event * events",
        "per_trial_ns": 1e9 * per_trial,
        "per_event_ns": 1e9 * per_event,
        "max_relative_residual": float(np.max(np.abs(predicted / seconds - 1.0))),
        "per_unit_trial_ns_if_added": 1e9 * per_unit_trial,
    }


def measure_point(model: SimulationModel, trials: int, seed: int, repeats: int) -> dict[str, Any]:
    """One scaling point: the best of ``repeats`` one-worker runs and its floor.

    Parameters
    ----------
    model : SimulationModel
        The job.
    trials : int
        Trials per run.
    seed : int
        Seed of every run.
    repeats : int
        Timed runs (the shortest counts).

    Returns
    -------
    dict
        The job's size (``gpus``, ``units``, ``spares``, ``work_hours``), ``trials``,
        ``events``, ``seconds`` and the per-trial and per-event costs, ``floor_seconds``.
    """
    seconds, outcomes = best_time(lambda: simulate(model, trials, seed, workers=1), repeats)
    events = int(outcome_events(outcomes).sum())
    units = sum(mode.job_units for mode in model.modes)
    return {
        "gpus": model.job.gpus,
        "units": units,
        "spares": model.job.spares,
        "work_hours": model.job.work_hours,
        "trials": trials,
        "units_x_trials": units * trials,
        "events": events,
        "events_per_trial": events / trials,
        "seconds": seconds,
        "seconds_per_trial": seconds / trials,
        "ns_per_event": 1e9 * seconds / events if events else None,
        "floor_seconds": floor_seconds(events, trials, repeats=3),
    }


def trials_for(model: SimulationModel, target_events: float, low: int, high: int) -> int:
    """Trials that give about ``target_events`` events, clipped to ``[low, high]``."""
    per_trial = max(expected_events_per_trial(model), 1e-9)
    return int(min(max(target_events / per_trial, low), high))


def scaling_study(level: Level, seed: int) -> dict[str, Any]:
    """Cost against trials, against cluster size and against events per trial.

    Series (all on the small config, one worker):

    - ``trials``: 1k, 10k, 100k trials of the config as shipped;
    - ``cluster``: 1k to 100k GPUs at fixed per-unit rates, ``servers = ceil(gpus /
      gpus_per_server) + spares``, 7 days of work: events per trial grow with the GPUs;
    - ``cluster_fixed_events``: the same clusters with the work cut so that every trial
      expects the same number of events, so only the units change;
    - ``cluster_spares_5pct``: as ``cluster_fixed_events`` but with a spare pool of 5% of
      the job's servers (as in llama3-16k) instead of the config's 4 spares;
    - ``events_per_trial``: 512 GPUs, work from 7 to 1,920 days.

    Parameters
    ----------
    level : Level
        The series' points and repeats.
    seed : int
        Seed of every run.

    Returns
    -------
    dict
        Each series as a list of :func:`measure_point` points, the :func:`fit_cost` fit
        over all but ``cluster_spares_5pct``, and a note on what was held fixed.
    """
    repeats = level.scaling_repeats
    target = level.scaling_events
    small = comparable_model(SCALING_CONFIG)
    spares = small.job.spares

    by_trials = [measure_point(small, count, seed, repeats) for count in level.trial_counts]

    by_cluster, by_cluster_fixed, by_cluster_spares = [], [], []
    for gpus in level.gpu_counts:
        sized = cluster_overrides(gpus, spares, CLUSTER_WORK)
        model = comparable_model(SCALING_CONFIG, sized)
        trials = trials_for(model, target, 200, 100_000)
        by_cluster.append(measure_point(model, trials, seed, repeats))
        work = hours_text(work_for_events(model, FIXED_EVENTS_PER_TRIAL))
        model = comparable_model(SCALING_CONFIG, [*sized, f"job.work={work}"])
        trials = trials_for(model, target, 200, 100_000)
        by_cluster_fixed.append(measure_point(model, trials, seed, repeats))
        pool = math.ceil(SPARE_FRACTION * ceil_div(gpus, gpus_per_server()))
        overrides = [*cluster_overrides(gpus, pool, CLUSTER_WORK), f"job.work={work}"]
        model = comparable_model(SCALING_CONFIG, [*overrides, f"job.spares={pool}"])
        by_cluster_spares.append(measure_point(model, trials, seed, repeats))

    by_events = []
    for work in level.works:
        model = comparable_model(SCALING_CONFIG, [f"job.work={work}"])
        trials = trials_for(model, target, 200, 100_000)
        by_events.append(measure_point(model, trials, seed, repeats))

    fitted_points = by_trials + by_cluster + by_cluster_fixed + by_events
    return {
        "config": f"configs/{SCALING_CONFIG}.toml",
        "note": (
            f"one worker, best of {repeats}; clusters keep every per-unit rate, the 1 h "
            f"interval and {spares} spares, servers = ceil(gpus / {gpus_per_server()}) + "
            f"spares; 'cluster' runs {CLUSTER_WORK} of work, 'cluster_fixed_events' cuts "
            f"the work to {FIXED_EVENTS_PER_TRIAL:g} expected events per trial, and "
            f"'cluster_spares_5pct' also sets the spare pool to {SPARE_FRACTION:.0%} of the "
            "job's servers; trials chosen for a similar number of events per point"
        ),
        "trials": by_trials,
        "cluster": by_cluster,
        "cluster_fixed_events": by_cluster_fixed,
        "cluster_spares_5pct": by_cluster_spares,
        "events_per_trial": by_events,
        "fit": fit_cost(fitted_points),
        "fit_series": ["trials", "cluster", "cluster_fixed_events", "events_per_trial"],
    }


_RSS_SCRIPT = """
import json, resource, subprocess, sys
with open(sys.argv[1], "w") as out:
    subprocess.run(sys.argv[2:], stdout=out, check=True)
print(json.dumps({"max_rss_kib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}))
"""


def peak_rss_of_cli(arguments: Sequence[str]) -> tuple[int, dict[str, Any]]:
    """Peak RSS of one ``relplan simulate ARGUMENTS --json`` run, and its JSON.

    A fresh wrapper process runs the command (:func:`benchmarks.measure.relplan_argv`) as
    its only child and reports ``getrusage(RUSAGE_CHILDREN).ru_maxrss`` (the kernel's
    peak resident set, KiB on Linux).

    Parameters
    ----------
    arguments : sequence of str
        Arguments of ``relplan simulate`` (the config first).

    Returns
    -------
    (int, dict)
        The peak RSS, bytes, and the run's JSON summary.

    Raises
    ------
    RuntimeError
        If the run fails.
    """
    with tempfile.TemporaryDirectory() as folder:
        output = Path(folder) / "out.json"
        command = relplan_argv("simulate", *arguments, "--json")
        done = timed_process([sys.executable, "-c", _RSS_SCRIPT, str(output), *command])
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(command)} failed:\n{done.stderr[-3000:]}")
        summary = json.loads(output.read_text())
    max_rss_kib = json.loads(done.stdout.strip().splitlines()[-1])["max_rss_kib"]
    return 1024 * int(max_rss_kib), summary


def years_text(hours: float) -> str:
    """A duration for a ``--set`` value in years (``relplan.units.HOURS_PER_YEAR``).

    Examples
    --------
    >>> years_text(111757.734)
    '12.749y'
    """
    return np.format_float_positional(hours / HOURS_PER_YEAR, trim="-") + "y"


def memory_study(level: Level, seed: int) -> dict[str, Any]:
    """Peak RSS of ``relplan simulate configs/llama3-16k.toml --json`` at two cluster sizes.

    The extra RSS over a one-trial run, per trial, per failure event and per failure
    event of one canonical block (:data:`relplan.sim.engine.BLOCK_TRIALS` trials), set
    against units x trials (what an O(units x trials) sampler would need).

    Parameters
    ----------
    level : Level
        ``rss_trials``: trials of the largest runs.
    seed : int
        Seed of every run.

    Returns
    -------
    dict
        The command, the method, and one row per run.
    """
    config = str(config_path(MEMORY_CONFIG))
    big = level.rss_trials
    gpu_mode = next(mode for mode in build_model(load_config(config)).modes if mode.name == "gpu")
    weibull = (
        f'failures.gpu.lifetime={{ dist = "weibull", shape = {WEIBULL_SHAPE}, '
        f'mtbf = "{years_text(gpu_mode.lifetime.mean_hours)}" }}'
    )
    runs = [
        ("baseline: 16k GPUs, 1 trial", [], 1),
        ("4k GPUs", ["job.gpus=4096"], big),
        ("16k GPUs", [], big // 10),
        ("16k GPUs", [], big),
        ("16k GPUs, Weibull GPUs", [weibull], big // 10),
        ("16k GPUs, Weibull GPUs", [weibull], big),
    ]
    baseline_bytes = None
    rows = []
    for label, overrides, trials in runs:
        model = build_model(load_config(config, overrides))
        arguments = [config, "--trials", str(trials), "--seed", str(seed), "--workers", "1"]
        for item in overrides:
            arguments += ["--set", item]
        started = time.perf_counter()
        rss, summary = peak_rss_of_cli(arguments)
        seconds = time.perf_counter() - started
        if baseline_bytes is None:
            baseline_bytes = rss
        units = sum(mode.job_units for mode in model.modes)
        events_per_trial = float(summary["interruptions"]["mean"])
        extra = rss - baseline_bytes
        block_events = events_per_trial * min(trials, BLOCK_TRIALS)
        rows.append(
            {
                "label": label,
                "gpus": model.job.gpus,
                "overrides": overrides,
                "units": units,
                "trials": trials,
                "units_x_trials": units * trials,
                "events_per_trial": events_per_trial,
                "events": events_per_trial * trials,
                "seconds": seconds,
                "peak_rss_bytes": rss,
                "extra_rss_bytes": extra,
                "extra_bytes_per_trial": extra / trials if trials > 1 else None,
                "extra_bytes_per_event": extra / (events_per_trial * trials)
                if trials > 1
                else None,
                "extra_bytes_per_block_event": extra / block_events if trials > 1 else None,
            }
        )
    return {
        "command": f"python -m relplan simulate configs/{MEMORY_CONFIG}.toml --trials N "
        "--workers 1 --json [--set ...]",
        "note": f"the Weibull rows make GPU lifetimes Weibull (shape {WEIBULL_SHAPE}, same "
        "MTBF), which takes relplan's windowed O(events) sampler instead of the in-walk "
        "exponential one",
        "method": "getrusage(RUSAGE_CHILDREN).ru_maxrss of a wrapper whose only child is "
        "the run (kernel peak RSS); extra = over the one-trial baseline; a block is "
        f"relplan's unit of work, {BLOCK_TRIALS:,} trials (relplan.sim.engine.BLOCK_TRIALS)",
        "block_trials": BLOCK_TRIALS,
        "runs": rows,
    }


def plot_scaling(scaling: dict[str, Any], prefix: str | Path) -> list[Path]:
    """Log-log plot of the scaling study.

    Parameters
    ----------
    scaling : dict
        A :func:`scaling_study` result.
    prefix : str or Path
        Where to write: ``PREFIX.png`` and ``PREFIX.svg``.

    Returns
    -------
    list of Path
        The files written.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = (
        (("trials",), "trials", "trials (small, 512 GPUs)"),
        (
            ("cluster", "cluster_fixed_events", "cluster_spares_5pct"),
            "gpus",
            "job GPUs (small, fixed per-unit rates)",
        ),
        (("events_per_trial",), "events_per_trial", "events per trial (small, 7 to 1,920 d)"),
    )
    labels = {
        "trials": "",
        "cluster": f", {CLUSTER_WORK} of work",
        "cluster_fixed_events": f", {FIXED_EVENTS_PER_TRIAL:g} events/trial",
        "cluster_spares_5pct": f", {FIXED_EVENTS_PER_TRIAL:g} events/trial, "
        f"{SPARE_FRACTION:.0%} spares",
        "events_per_trial": "",
    }
    figure, axes = plt.subplots(2, 3, figsize=(14, 7.5), constrained_layout=True)
    for column, (series_names, key, label) in enumerate(panels):
        top, bottom = axes[0][column], axes[1][column]
        for index, series in enumerate(series_names):
            points = scaling[series]
            x = [point[key] for point in points]
            tag, color = labels[series], f"C{index}"
            top.loglog(
                x, [point["seconds"] for point in points], "o-", color=color,
                label=f"relplan{tag}",
            )  # fmt: skip
            bottom.loglog(
                x, [point["ns_per_event"] for point in points], "o-", color=color,
                label=f"relplan{tag}",
            )  # fmt: skip
            if series == "cluster_spares_5pct":
                continue  # the same events as cluster_fixed_events: the same floor
            top.loglog(
                x,
                [point["floor_seconds"] for point in points],
                "s--",
                color=color,
                alpha=0.6,
                label=f"random-number floor{tag}",
            )
            bottom.loglog(
                x,
                [1e9 * point["floor_seconds"] / point["events"] for point in points],
                "s--",
                color=color,
                alpha=0.6,
                label=f"floor{tag}",
            )
        top.set_ylabel("seconds (1 worker)")
        bottom.set_ylabel("ns per failure event")
        bottom.set_xlabel(label)
        for axis in (top, bottom):
            axis.grid(True, which="both", alpha=0.3)
            axis.legend(fontsize=7)
    figure.suptitle(
        "relplan engine cost (1 worker) against trials, cluster size and events per trial; "
        "dashed: numpy's time to draw the same variates"
    )
    prefix = Path(prefix)
    prefix.parent.mkdir(parents=True, exist_ok=True)
    written = []
    for suffix in (".png", ".svg"):
        path = prefix.with_name(prefix.name + suffix)
        figure.savefig(path, dpi=120)
        written.append(path)
    plt.close(figure)
    return written
