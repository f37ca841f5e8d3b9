"""Benchmark relplan's engine against the SimPy reference model of the same job.

One command (from the repository root)::

    python benchmarks/run.py [--quick] [--scaling | --no-scaling] [--json PATH] [--plot PREFIX]

``--quick`` cuts the trial counts (under a minute); ``--tiny`` cuts them further (for the
tests); ``--cases`` picks cases; ``--seed`` the seed.

On identical cases (``small``, ``seed-moe-10k``, ``llama3-16k``: the shipped configs,
turned by ``--set`` overrides into what the SimPy reference models exactly: any repair
that is not fixed or exponential becomes an exponential of the same mean, and every
failure mode is fatal; both models are built from that) it runs, in this one process:

- relplan's :func:`relplan.engine.simulate` (one worker, after a warm-up call so numba's
  compile time is excluded; the first call is timed on its own), on many trials;
- the SimPy reference (``benchmarks/simpy_reference.py``) on few trials, time-capped;
- the *random-number floor*: numpy's default Generator drawing the variates the run
  consumed, three per failure event (an exponential inter-arrival time, a uniform for the
  failure mode, an exponential repair) plus five per trial (the four words seeding the
  trial's own stream and its first arrival);

and reports trials and failure events (interruptions) per second, the speedup per trial,
peak memory (tracemalloc: the Python and numpy allocations made during the call), the
floor and relplan's time as a multiple of it, and whether the two models agree (mean
wall hours and mean interruptions within 4 combined standard errors).

The scaling study (on by default, off with ``--quick`` unless ``--scaling`` is given)
measures the cost against trials, cluster size (1k to 100k GPUs at fixed component
rates) and events per trial, and the peak RSS of ``relplan simulate`` runs at two
cluster sizes, and can draw a log-log plot (``--plot PREFIX`` writes PREFIX.png and
PREFIX.svg).

Timings are printed, never asserted: the tests only check that the numbers exist and
that the two models agree.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import platform
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

import relplan
from relplan.config.loading import load_config
from relplan.sim.engine import TrialOutcomes, simulate
from relplan.sim.model import SimulationModel, build_model

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
CONFIGS = REPO / "configs"
CASES: tuple[str, ...] = ("small", "seed-moe-10k", "llama3-16k")
AGREEMENT_SIGMAS = 4.0
"""Two means agree when they differ by at most this many combined standard errors."""
SUPPORTED_REPAIRS: tuple[str, ...] = ("fixed", "exponential")
"""Repair distributions the SimPy reference can draw."""
GPUS_PER_SERVER = 8
BLOCK_TRIALS = 1_000
"""relplan's canonical block of trials (README, Reproducibility): its unit of work."""
SCALING_SERIES: tuple[str, ...] = (
    "trials",
    "cluster",
    "cluster_fixed_events",
    "cluster_spares_5pct",
    "events_per_trial",
)
SPARE_FRACTION = 0.05
"""Spare pool of the ``cluster_spares_5pct`` series, as a fraction of the job's servers."""
MEMORY_METHOD = "tracemalloc peak (Python + numpy allocations during the call)"
RELPLAN_ROOT = Path(relplan.__file__).resolve().parents[1]
"""Folder holding the relplan package this process imported; subprocesses use the same."""


def _subprocess_env(**extra: str) -> dict[str, str]:
    """Environment under which a child process imports this process's relplan."""
    path = os.pathsep.join(filter(None, [str(RELPLAN_ROOT), os.environ.get("PYTHONPATH")]))
    return {**os.environ, "PYTHONPATH": path, **extra}


def _load_reference():
    """Import ``benchmarks/simpy_reference.py`` (benchmarks/ is not a package)."""
    module = sys.modules.get("simpy_reference")
    if module is not None:
        return module
    spec = importlib.util.spec_from_file_location("simpy_reference", HERE / "simpy_reference.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["simpy_reference"] = module  # dataclasses resolve their module here
    spec.loader.exec_module(module)
    return module


ref = _load_reference()


# --------------------------------------------------------------------------- the cases


def _hours_text(hours: float) -> str:
    """A duration for a ``--set`` value, exact and without an exponent: ``"33.05...h"``."""
    return np.format_float_positional(hours, trim="-") + "h"


def _config_key(mode_name: str) -> str:
    """The ``[failures]`` key of a mode (a link or optic mode's fabric part is ``NAME.fabric``)."""
    return mode_name.split(".", 1)[0]


def reference_overrides(model: SimulationModel) -> list[str]:
    """``--set`` items that turn a model into one the SimPy reference runs exactly.

    The reference knows fatal failures only, with fixed or exponential repairs. So:

    - a repair that is neither fixed nor exponential (a lognormal or Weibull host
      repair) becomes an exponential repair of the same mean;
    - a mode whose failures do not stop the job (``impact`` degraded, transient or
      elastic: a spine or fabric optic under ECMP) is made ``fatal``.

    Parameters
    ----------
    model : SimulationModel
        The model built from the config as it is.

    Returns
    -------
    list of str
        Items such as ``failures.host.repair={ dist = "exponential", mean = "33.05h" }``
        or ``failures.spine.impact="fatal"``; empty when nothing needs changing.
    """
    items: list[str] = []
    for mode in model.modes:
        key = _config_key(mode.name)
        if mode.repair.kind not in SUPPORTED_REPAIRS:
            item = (
                f'failures.{key}.repair={{ dist = "exponential", '
                f'mean = "{_hours_text(mode.repair.mean_hours)}" }}'
            )
            if item not in items:
                items.append(item)
        if getattr(mode, "impact", "fatal") != "fatal":
            item = f'failures.{key}.impact="fatal"'
            if item not in items:
                items.append(item)
    return items


def comparable_model(config: str | Path, overrides: Sequence[str] = ()) -> SimulationModel:
    """A relplan model of a config that the SimPy reference can run exactly.

    Parameters
    ----------
    config : str or Path
        A TOML config, or the name of a shipped one (``"small"``).
    overrides : sequence of str
        ``--set`` items applied first.

    Returns
    -------
    SimulationModel
        The config's model with every failure fatal and every repair fixed or exponential
        (an exponential of the same mean replaces any other; see
        :func:`reference_overrides`).
    """
    path = Path(config)
    if not path.suffix:
        path = CONFIGS / f"{config}.toml"
    model = build_model(load_config(path, list(overrides)))
    extra = reference_overrides(model)
    if extra:
        model = build_model(load_config(path, [*overrides, *extra]))
    return model


def reference_case_from_model(model: SimulationModel):
    """The SimPy reference case of a relplan model: the same job and failure modes.

    Parameters
    ----------
    model : SimulationModel
        Every lifetime exponential; every repair fixed or exponential (see
        :func:`comparable_model`).

    Returns
    -------
    simpy_reference.ReferenceCase
        One failure class per mode, in mode order (so interruption columns line up),
        with the mode's job units, mean life (hours of exposure), repair, detection
        and use of spares.

    Raises
    ------
    ValueError
        If the model has what the reference does not: a lifetime that is not
        exponential, a repair neither fixed nor exponential, a failure that is not fatal,
        a fast checkpoint tier.
    """
    if getattr(model.job, "fast_interval_hours", None) is not None:
        raise ValueError("the SimPy reference has one checkpoint tier; this job has two")
    classes = []
    for mode in model.modes:
        if getattr(mode, "impact", "fatal") != "fatal":
            raise ValueError(
                f"{mode.name}: the SimPy reference knows fatal failures only, got "
                f"{mode.impact}; build the model with comparable_model()"
            )
        if getattr(mode, "loses_fast_checkpoint", False):
            raise ValueError(f"{mode.name}: the SimPy reference has no fast checkpoint tier")
        if mode.lifetime.kind != "exponential":
            raise ValueError(
                f"{mode.name}: the SimPy reference needs exponential lifetimes, "
                f"got {mode.lifetime.kind}"
            )
        if mode.repair.kind not in SUPPORTED_REPAIRS:
            raise ValueError(
                f"{mode.name}: the SimPy reference draws fixed or exponential repairs, got "
                f"{mode.repair.kind}; build the model with comparable_model()"
            )
        classes.append(
            ref.FailureClass(
                name=mode.name,
                units=mode.job_units,
                mtbf_hours=mode.lifetime.mean_hours,
                repair_hours=mode.repair.mean_hours,
                detect_hours=mode.detect_hours,
                uses_spares=mode.uses_spares,
                repair_dist=mode.repair.kind,
            )
        )
    job = model.job
    return ref.ReferenceCase(
        work_hours=job.work_hours,
        interval_hours=job.interval_hours,
        write_hours=job.write_hours,
        restart_hours=job.restart_hours,
        spares=job.spares,
        failure_classes=tuple(classes),
    )


def expected_events_per_trial(model: SimulationModel) -> float:
    """Expected interruptions per trial (Daly's exposure time over the job MTTI)."""
    job, mtti = model.job, model.job_mtti_hours
    if math.isinf(mtti):
        return 0.0
    exposure = ref.daly_expected_wall_hours(
        job.work_hours, job.interval_hours, job.write_hours, job.restart_hours, mtti, 0.0
    )
    return exposure / mtti


# --------------------------------------------------------------------------- measuring


def run_reference(
    case, trials: int, seed: int, time_cap_seconds: float, min_trials: int = 5
) -> tuple[dict[str, np.ndarray], float]:
    """Run the SimPy reference in chunks until ``trials`` or the time cap is reached.

    Returns
    -------
    (dict, float)
        The per-trial arrays of :func:`simpy_reference.simulate_reference` for the trials
        run (chunk ``c`` seeded by ``SeedSequence([seed, c])``), and the seconds taken.
    """
    chunk = max(1, min(trials // 10, 50))
    parts: list[dict[str, np.ndarray]] = []
    done = 0
    started = time.perf_counter()
    while done < trials:
        size = min(chunk, trials - done)
        parts.append(ref.simulate_reference(case, size, seed=[seed, len(parts)]))
        done += size
        if done >= min_trials and time.perf_counter() - started > time_cap_seconds:
            break
    seconds = time.perf_counter() - started
    merged = {key: np.concatenate([p[key] for p in parts]) for key in parts[0]}
    return merged, seconds


def best_time(function: Callable[[], Any], repeats: int) -> tuple[float, Any]:
    """The shortest of ``repeats`` timed calls (seconds) and the last call's result."""
    best, result = math.inf, None
    for _ in range(max(1, repeats)):
        started = time.perf_counter()
        result = function()
        best = min(best, time.perf_counter() - started)
    return best, result


def peak_traced_bytes(function: Callable[[], Any]) -> int:
    """Peak of the memory allocations traced by tracemalloc during a call, bytes."""
    was_tracing = tracemalloc.is_tracing()
    if not was_tracing:
        tracemalloc.start()
    tracemalloc.reset_peak()
    baseline, _ = tracemalloc.get_traced_memory()
    function()
    _, peak = tracemalloc.get_traced_memory()
    if not was_tracing:
        tracemalloc.stop()
    return int(peak - baseline)


def floor_seconds(events: int, trials: int, repeats: int = 5, seed: int = 0) -> float:
    """Time numpy needs to draw the variates a run consumed: 3 per event, 5 per trial.

    Per failure event an exponential inter-arrival time, a uniform for the failure mode
    and an exponential repair, drawn vectorised from ``numpy.random.default_rng``; per
    trial the four 64-bit words that seed its stream and its first arrival (relplan
    draws exactly these). The shortest of ``repeats`` timings, seconds.
    """
    rng = np.random.default_rng(seed)

    def draw() -> None:
        rng.exponential(size=events)
        rng.random(events)
        rng.exponential(size=events)
        rng.integers(0, 2**64 - 1, size=(trials, 4), dtype=np.uint64, endpoint=True)
        rng.exponential(size=trials)

    seconds, _ = best_time(draw, repeats)
    return seconds


def outcome_events(outcomes: TrialOutcomes) -> np.ndarray:
    """Interruptions (failure events) of each trial."""
    return np.asarray(outcomes.interruptions_by_mode).sum(axis=1)


def compare_means(relplan_values: np.ndarray, simpy_values: np.ndarray) -> dict[str, Any]:
    """Means, standard errors and the z-score of their difference."""

    def sem(values: np.ndarray) -> float:
        return float(np.std(values, ddof=1) / math.sqrt(values.size)) if values.size > 1 else 0.0

    relplan_mean, simpy_mean = float(np.mean(relplan_values)), float(np.mean(simpy_values))
    relplan_sem, simpy_sem = sem(relplan_values), sem(simpy_values)
    combined = math.hypot(relplan_sem, simpy_sem)
    difference = relplan_mean - simpy_mean
    z = difference / combined if combined > 0 else (0.0 if difference == 0 else math.inf)
    return {
        "relplan_mean": relplan_mean,
        "relplan_sem": relplan_sem,
        "simpy_mean": simpy_mean,
        "simpy_sem": simpy_sem,
        "z": z,
        "agree": bool(abs(z) <= AGREEMENT_SIGMAS),
    }


def agreement(outcomes: TrialOutcomes, reference: dict[str, np.ndarray]) -> dict[str, Any]:
    """Mean wall hours and mean interruptions of relplan vs the SimPy reference."""
    wall = compare_means(np.asarray(outcomes.wall_hours), reference["wall_hours"])
    interruptions = compare_means(
        outcome_events(outcomes).astype(float), reference["interruptions"].astype(float)
    )
    return {
        "wall_hours": wall,
        "interruptions": interruptions,
        "sigmas": AGREEMENT_SIGMAS,
        "agree": wall["agree"] and interruptions["agree"],
    }


# --------------------------------------------------------------------------- settings


@dataclass(frozen=True)
class CaseSettings:
    """Trial counts for one case."""

    relplan_trials: int
    simpy_trials: int
    simpy_time_cap_seconds: float


@dataclass(frozen=True)
class Level:
    """How big a run is: trial counts of the comparison, the scaling and the memory study."""

    name: str
    cases: dict[str, CaseSettings]
    repeats: int
    scaling_repeats: int
    scaling_events: float
    trial_counts: tuple[int, ...]
    gpu_counts: tuple[int, ...]
    works: tuple[str, ...]
    rss_trials: int


LEVELS = {
    "full": Level(
        "full",
        {
            "small": CaseSettings(20_000, 2_000, 30.0),
            "seed-moe-10k": CaseSettings(10_000, 300, 30.0),
            "llama3-16k": CaseSettings(10_000, 200, 30.0),
        },
        repeats=3,
        scaling_repeats=2,
        scaling_events=1.5e6,
        trial_counts=(1_000, 10_000, 100_000),
        gpu_counts=(1_024, 4_096, 16_384, 65_536, 100_000),
        works=("7d", "30d", "120d", "480d", "1920d"),
        rss_trials=100_000,
    ),
    "quick": Level(
        "quick",
        {
            "small": CaseSettings(2_000, 100, 3.0),
            "seed-moe-10k": CaseSettings(1_000, 15, 3.0),
            "llama3-16k": CaseSettings(1_000, 10, 3.0),
        },
        repeats=1,
        scaling_repeats=1,
        scaling_events=2e5,
        trial_counts=(1_000, 10_000),
        gpu_counts=(1_024, 4_096, 16_384),
        works=("7d", "30d", "120d"),
        rss_trials=20_000,
    ),
    "tiny": Level(
        "tiny",
        {
            "small": CaseSettings(500, 30, 2.0),
            "seed-moe-10k": CaseSettings(200, 5, 2.0),
            "llama3-16k": CaseSettings(200, 5, 2.0),
        },
        repeats=1,
        scaling_repeats=1,
        scaling_events=2e4,
        trial_counts=(100, 1_000),
        gpu_counts=(1_024, 4_096),
        works=("7d", "30d"),
        rss_trials=1_000,
    ),
}


# --------------------------------------------------------------------------- the cases


def benchmark_case(
    name: str, settings: CaseSettings, seed: int, repeats: int, workers_all: int
) -> dict[str, Any]:
    """relplan vs SimPy on one case; every figure of the table, as plain numbers."""
    model = comparable_model(name)
    case = reference_case_from_model(model)

    trials = settings.relplan_trials
    seconds, outcomes = best_time(lambda: simulate(model, trials, seed, workers=1), repeats)
    events = int(outcome_events(outcomes).sum())
    seconds_all, _ = best_time(lambda: simulate(model, trials, seed, workers=workers_all), repeats)
    memory = peak_traced_bytes(lambda: simulate(model, trials, seed, workers=1))
    floor = floor_seconds(events, trials)

    reference, simpy_seconds = run_reference(
        case, settings.simpy_trials, seed, settings.simpy_time_cap_seconds
    )
    simpy_trials = int(reference["wall_hours"].size)
    simpy_events = int(reference["interruptions"].sum())
    simpy_memory_trials = min(simpy_trials, 3)
    simpy_memory = peak_traced_bytes(
        lambda: ref.simulate_reference(case, simpy_memory_trials, seed=[seed, 10**6])
    )

    seconds_per_trial = seconds / trials
    simpy_seconds_per_trial = simpy_seconds / simpy_trials
    return {
        "config": f"configs/{name}.toml",
        "overrides": reference_overrides(build_model(load_config(CONFIGS / f"{name}.toml"))),
        "gpus": model.job.gpus,
        "modes": len(model.modes),
        "job_mtti_hours": model.job_mtti_hours,
        "trials": trials,
        "seconds": seconds,
        "seconds_per_trial": seconds_per_trial,
        "trials_per_second": trials / seconds,
        "events": events,
        "events_per_trial": events / trials,
        "events_per_second": events / seconds,
        "ns_per_event": 1e9 * seconds / events if events else None,
        "workers_all_cores": workers_all,
        "trials_per_second_all_cores": trials / seconds_all,
        "peak_memory_bytes": memory,
        "peak_memory_method": MEMORY_METHOD,
        "floor_seconds": floor,
        "floor_variates": 3 * events + trials,
        "floor_multiple": seconds / floor,
        "speedup_per_trial": simpy_seconds_per_trial / seconds_per_trial,
        "speedup_per_event": (simpy_seconds / simpy_events) / (seconds / events)
        if events and simpy_events
        else None,
        "simpy": {
            "trials": simpy_trials,
            "seconds": simpy_seconds,
            "seconds_per_trial": simpy_seconds_per_trial,
            "trials_per_second": simpy_trials / simpy_seconds,
            "events": simpy_events,
            "events_per_second": simpy_events / simpy_seconds,
            "peak_memory_bytes": simpy_memory,
            "peak_memory_trials": simpy_memory_trials,
            "peak_memory_method": MEMORY_METHOD,
        },
        "agreement": agreement(outcomes, reference),
    }


def first_call_seconds(seed: int) -> float:
    """Time of this process's first simulate call (numba compile, or load of its cache)."""
    model = comparable_model("small")
    started = time.perf_counter()
    simulate(model, 10, seed)
    return time.perf_counter() - started


_COLD_SCRIPT = """
import json, sys, time
started = time.perf_counter()
from relplan.config.loading import load_config
from relplan.sim.engine import simulate
from relplan.sim.model import build_model
model = build_model(load_config(sys.argv[1]))
imported = time.perf_counter()
simulate(model, 10, 0)
first = time.perf_counter()
simulate(model, 10, 0)
second = time.perf_counter()
print(json.dumps({"import_seconds": imported - started, "first_call_seconds": first - imported,
                  "warm_call_seconds": second - first}))
"""


def cold_compile() -> dict[str, Any]:
    """First-call time in a fresh process with an empty numba cache (a true compile).

    ``NUMBA_CACHE_DIR`` points at a temporary folder, so relplan's own cache is neither
    used nor touched.
    """
    with tempfile.TemporaryDirectory() as cache:
        done = subprocess.run(
            [sys.executable, "-c", _COLD_SCRIPT, str(CONFIGS / "small.toml")],
            capture_output=True, text=True, env=_subprocess_env(NUMBA_CACHE_DIR=cache),
            cwd=RELPLAN_ROOT, check=True,
        )  # fmt: skip
    return json.loads(done.stdout.strip().splitlines()[-1])


# --------------------------------------------------------------------------- scaling


def _measure_point(model: SimulationModel, trials: int, seed: int, repeats: int) -> dict:
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


def _trials_for(model: SimulationModel, target_events: float, low: int, high: int) -> int:
    per_trial = max(expected_events_per_trial(model), 1e-9)
    return int(min(max(target_events / per_trial, low), high))


def cluster_overrides(gpus: int, spares: int, work: str) -> list[str]:
    """``--set`` items sizing the small config's cluster for a job of ``gpus`` GPUs."""
    servers = math.ceil(gpus / GPUS_PER_SERVER) + spares
    return [f"job.gpus={gpus}", f"cluster.servers={servers}", f"job.work={work}"]


def work_for_events(model: SimulationModel, events_per_trial: float) -> float:
    """Work (hours) that gives a job ``events_per_trial`` expected interruptions."""
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
    large runs weigh alike. A third fit adds ``units x trials``: its coefficient shows
    whether cost depends on the units at all.
    """
    seconds = np.array([p["seconds"] for p in points])
    trials = np.array([p["trials"] for p in points], dtype=float)
    events = np.array([p["events"] for p in points], dtype=float)
    unit_trials = np.array([p["units_x_trials"] for p in points], dtype=float)
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


def scaling_study(level: Level, seed: int) -> dict[str, Any]:
    """Cost against trials, against cluster size and against events per trial.

    Series (all on the small config, one worker):

    - ``trials``: 1k, 10k, 100k trials of the config as shipped;
    - ``cluster``: 1k to 100k GPUs at fixed per-unit rates, ``servers = ceil(gpus / 8) +
      spares``, 7 days of work: events per trial grow with the GPUs;
    - ``cluster_fixed_events``: the same clusters with the work cut so that every trial
      expects the same number of events, so only the units change;
    - ``cluster_spares_5pct``: as ``cluster_fixed_events`` but with a spare pool of 5% of
      the job's servers (as in llama3-16k) instead of the config's 4 spares;
    - ``events_per_trial``: 512 GPUs, work from 7 to 1,920 days.
    """
    repeats = level.scaling_repeats
    target = level.scaling_events
    fixed_events_per_trial = 50.0
    small = comparable_model("small")
    spares = small.job.spares

    by_trials = [_measure_point(small, n, seed, repeats) for n in level.trial_counts]

    cluster_work = "7d"
    by_cluster, by_cluster_fixed, by_cluster_spares = [], [], []
    for gpus in level.gpu_counts:
        model = comparable_model("small", cluster_overrides(gpus, spares, cluster_work))
        trials = _trials_for(model, target, 200, 100_000)
        by_cluster.append(_measure_point(model, trials, seed, repeats))
        work = _hours_text(work_for_events(model, fixed_events_per_trial))
        overrides = [*cluster_overrides(gpus, spares, cluster_work), f"job.work={work}"]
        model = comparable_model("small", overrides)
        trials = _trials_for(model, target, 200, 100_000)
        by_cluster_fixed.append(_measure_point(model, trials, seed, repeats))
        pool = math.ceil(SPARE_FRACTION * math.ceil(gpus / GPUS_PER_SERVER))
        overrides = [*cluster_overrides(gpus, pool, cluster_work), f"job.work={work}"]
        model = comparable_model("small", [*overrides, f"job.spares={pool}"])
        by_cluster_spares.append(_measure_point(model, trials, seed, repeats))

    by_events = []
    for work in level.works:
        model = comparable_model("small", [f"job.work={work}"])
        trials = _trials_for(model, target, 200, 100_000)
        by_events.append(_measure_point(model, trials, seed, repeats))

    fitted_points = by_trials + by_cluster + by_cluster_fixed + by_events
    return {
        "config": "configs/small.toml",
        "note": (
            f"one worker, best of {repeats}; clusters keep every per-unit rate, the 1 h "
            f"interval and {spares} spares, servers = ceil(gpus / 8) + spares; 'cluster' "
            f"runs {cluster_work} of work, 'cluster_fixed_events' cuts the work to "
            f"{fixed_events_per_trial:g} expected events per trial, and "
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
    """Peak RSS (bytes) of one ``python -m relplan simulate ... --json`` run, and its JSON.

    A fresh wrapper process runs the command as its only child and reports
    ``getrusage(RUSAGE_CHILDREN).ru_maxrss`` (kernel peak resident set, KiB on Linux).
    """
    with tempfile.TemporaryDirectory() as folder:
        output = Path(folder) / "out.json"
        command = [sys.executable, "-m", "relplan", "simulate", *arguments, "--json"]
        done = subprocess.run(
            [sys.executable, "-c", _RSS_SCRIPT, str(output), *command],
            capture_output=True, text=True, env=_subprocess_env(), cwd=RELPLAN_ROOT, check=True,
        )  # fmt: skip
        summary = json.loads(output.read_text())
    max_rss_kib = json.loads(done.stdout.strip().splitlines()[-1])["max_rss_kib"]
    return 1024 * int(max_rss_kib), summary


def memory_study(level: Level, seed: int) -> dict[str, Any]:
    """Peak RSS of ``relplan simulate configs/llama3-16k.toml --json`` at two cluster sizes.

    The extra RSS over a one-trial run, per trial and per failure event, set against
    units x trials (what an O(units x trials) sampler would need).
    """
    config = str(CONFIGS / "llama3-16k.toml")
    big = level.rss_trials
    weibull = 'failures.gpu.lifetime={ dist = "weibull", shape = 0.7, mtbf = "12.749y" }'
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
        "command": "python -m relplan simulate configs/llama3-16k.toml --trials N --workers 1 "
        "--json [--set ...]",
        "note": "the Weibull rows make GPU lifetimes Weibull (shape 0.7, same MTBF), which "
        "takes relplan's windowed O(events) sampler instead of the in-walk exponential one",
        "method": "getrusage(RUSAGE_CHILDREN).ru_maxrss of a wrapper whose only child is "
        "the run (kernel peak RSS); extra = over the one-trial baseline; a block is "
        f"relplan's unit of work, {BLOCK_TRIALS:,} trials",
        "runs": rows,
    }


# --------------------------------------------------------------------------- output


def machine() -> dict[str, Any]:
    """Where the numbers were measured."""
    import numba
    import simpy

    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        usable = os.cpu_count()
    return {
        "nproc": usable,
        "cpu_count": os.cpu_count(),
        "cpu_model": cpu,
        "platform": platform.platform(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "numba": numba.__version__,
        "simpy": simpy.__version__,
        "relplan": relplan_source(),
        "load_average": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
    }


def relplan_source() -> dict[str, Any]:
    """Which relplan was measured: its folder, and the git commit (dirty or not) if any."""
    source: dict[str, Any] = {"path": str(RELPLAN_ROOT), "commit": None, "dirty": None}
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=RELPLAN_ROOT, capture_output=True, text=True
        )
        if commit.returncode == 0:
            source["commit"] = commit.stdout.strip()
            status = subprocess.run(
                ["git", "status", "--porcelain", "--", "relplan"],
                cwd=RELPLAN_ROOT, capture_output=True, text=True,
            )  # fmt: skip
            source["dirty"] = bool(status.stdout.strip())
    except OSError:
        pass
    return source


def _mib(value: float | None) -> str:
    return "-" if value is None else f"{value / 2**20:.1f} MiB"


def _rate(value: float) -> str:
    return f"{value:,.0f}" if value >= 100 else f"{value:,.1f}"


def render(report: dict[str, Any]) -> None:
    """Print the report as rich tables (a pure function of the report)."""
    from rich.console import Console
    from rich.table import Table

    console = Console(width=max(Console().width, 160))
    info = report["machine"]
    console.print(
        f"[bold]relplan vs SimPy[/bold] on {info['cpu_model']} ({info['nproc']} cores), "
        f"Python {info['python']}, numpy {info['numpy']}, numba {info['numba']}, "
        f"simpy {info['simpy']}"
    )
    first = report["first_call_seconds"]
    cold = report.get("cold_compile") or {}
    console.print(
        f"first-call time (this process, numba cache as found): {first:.3f} s; "
        f"cold compile (fresh process, empty cache): "
        f"{cold.get('first_call_seconds', float('nan')):.3f} s "
        f"(import {cold.get('import_seconds', float('nan')):.2f} s); excluded from the timings"
    )

    table = Table(title="Performance (relplan: 1 worker, after warm-up; events = interruptions)")
    for column in (
        "case", "trials\nrelplan/SimPy", "relplan\ntrials/s", "relplan\nevents/s",
        "relplan\nns/event", "SimPy\ntrials/s", "SimPy\nevents/s", "speedup\nper trial",
        "peak mem\nrelplan", "peak mem\nSimPy", "floor\n(s)", "relplan\nx floor",
    ):  # fmt: skip
        table.add_column(column, justify="right" if column != "case" else "left")
    for name, case in report["cases"].items():
        simpy_case = case["simpy"]
        table.add_row(
            name,
            f"{case['trials']:,}/{simpy_case['trials']:,}",
            _rate(case["trials_per_second"]),
            _rate(case["events_per_second"]),
            f"{case['ns_per_event']:.0f}" if case["ns_per_event"] else "-",
            _rate(simpy_case["trials_per_second"]),
            _rate(simpy_case["events_per_second"]),
            f"{case['speedup_per_trial']:,.0f}x",
            _mib(case["peak_memory_bytes"]),
            f"{_mib(simpy_case['peak_memory_bytes'])} ({simpy_case['peak_memory_trials']} tr)",
            f"{case['floor_seconds']:.4f}",
            f"{case['floor_multiple']:.1f}x",
        )
    console.print(table)

    table = Table(title=f"Agreement (|z| <= {AGREEMENT_SIGMAS:g} combined standard errors)")
    for column in (
        "case", "wall h relplan", "wall h SimPy", "z", "interruptions relplan",
        "interruptions SimPy", "z", "agree",
    ):  # fmt: skip
        table.add_column(column, justify="right" if column != "case" else "left")
    for name, case in report["cases"].items():
        wall, interruptions = case["agreement"]["wall_hours"], case["agreement"]["interruptions"]
        table.add_row(
            name,
            f"{wall['relplan_mean']:.2f} ± {wall['relplan_sem']:.2f}",
            f"{wall['simpy_mean']:.2f} ± {wall['simpy_sem']:.2f}",
            f"{wall['z']:+.2f}",
            f"{interruptions['relplan_mean']:.2f} ± {interruptions['relplan_sem']:.2f}",
            f"{interruptions['simpy_mean']:.2f} ± {interruptions['simpy_sem']:.2f}",
            f"{interruptions['z']:+.2f}",
            "yes" if case["agreement"]["agree"] else "[red]NO[/red]",
        )
    console.print(table)

    scaling = report.get("scaling")
    if scaling:
        table = Table(title=f"Scaling on {scaling['config']} ({scaling['note']})")
        for column in (
            "series", "GPUs", "units", "spares", "work h", "trials", "events/trial", "events",
            "seconds", "us/trial", "ns/event", "x floor",
        ):  # fmt: skip
            table.add_column(column, justify="right" if column != "series" else "left")
        for series in SCALING_SERIES:
            for point in scaling[series]:
                table.add_row(
                    series,
                    f"{point['gpus']:,}",
                    f"{point['units']:,}",
                    f"{point['spares']:,}",
                    f"{point['work_hours']:,.0f}",
                    f"{point['trials']:,}",
                    f"{point['events_per_trial']:,.1f}",
                    f"{point['events']:,}",
                    f"{point['seconds']:.3f}",
                    f"{1e6 * point['seconds_per_trial']:,.1f}",
                    f"{point['ns_per_event']:.0f}" if point["ns_per_event"] else "-",
                    f"{point['seconds'] / point['floor_seconds']:.1f}",
                )
        console.print(table)
        fit = scaling["fit"]
        console.print(
            f"fit over {', '.join(scaling['fit_series'])}: "
            f"{fit['per_trial_ns']:.0f} ns per trial + "
            f"{fit['per_event_ns']:.1f} ns per event (max relative residual "
            f"{fit['max_relative_residual']:.0%}); adding a units x trials term gives it "
            f"{fit['per_unit_trial_ns_if_added']:.2g} ns per unit-trial"
        )

    memory = report.get("memory")
    if memory:
        table = Table(title=f"Peak RSS of `{memory['command']}` ({memory['method']})")
        for column in (
            "run", "units", "trials", "units x trials", "events/trial", "events",
            "peak RSS", "extra RSS", "extra B/trial", "extra B/event",
            "extra B per event\nof a block",
        ):  # fmt: skip
            table.add_column(column, justify="right" if column != "run" else "left")

        def number(value: float | None, digits: int = 0) -> str:
            return "-" if value is None else f"{value:,.{digits}f}"

        for run in memory["runs"]:
            table.add_row(
                run["label"],
                f"{run['units']:,}",
                f"{run['trials']:,}",
                f"{run['units_x_trials']:.2e}",
                f"{run['events_per_trial']:.1f}",
                f"{run['events']:,.0f}",
                _mib(run["peak_rss_bytes"]),
                _mib(run["extra_rss_bytes"]),
                number(run["extra_bytes_per_trial"]),
                number(run["extra_bytes_per_event"], 2),
                number(run["extra_bytes_per_block_event"], 1),
            )
        console.print(table)


def plot_scaling(scaling: dict[str, Any], prefix: str | Path) -> list[Path]:
    """Log-log plot of the scaling study; writes ``PREFIX.png`` and ``PREFIX.svg``."""
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
        "cluster": ", 7 d of work",
        "cluster_fixed_events": ", 50 events/trial",
        "cluster_spares_5pct": ", 50 events/trial, 5% spares",
        "events_per_trial": "",
    }
    figure, axes = plt.subplots(2, 3, figsize=(14, 7.5), constrained_layout=True)
    for column, (series_names, key, label) in enumerate(panels):
        top, bottom = axes[0][column], axes[1][column]
        for index, series in enumerate(series_names):
            points = scaling[series]
            x = [p[key] for p in points]
            tag, color = labels[series], f"C{index}"
            top.loglog(x, [p["seconds"] for p in points], "o-", color=color, label=f"relplan{tag}")
            bottom.loglog(
                x, [p["ns_per_event"] for p in points], "o-", color=color, label=f"relplan{tag}"
            )
            if series == "cluster_spares_5pct":
                continue  # the same events as cluster_fixed_events: the same floor
            top.loglog(
                x,
                [p["floor_seconds"] for p in points],
                "s--",
                color=color,
                alpha=0.6,
                label=f"random-number floor{tag}",
            )
            bottom.loglog(
                x,
                [1e9 * p["floor_seconds"] / p["events"] for p in points],
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


def _plain(value: Any) -> Any:
    """JSON-ready: numpy scalars to Python numbers, inf/nan to None."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


# --------------------------------------------------------------------------- main


def run(
    level: str | Level = "full",
    scaling: bool | None = None,
    seed: int = 2026,
    cases: Sequence[str] = CASES,
) -> dict[str, Any]:
    """Run the benchmark and return the report (plain numbers, JSON-ready).

    Parameters
    ----------
    level : {"full", "quick", "tiny"} or Level
        Trial counts (see :data:`LEVELS`).
    scaling : bool, optional
        Run the scaling and memory study; default: only at the full level.
    seed : int
        Seed of every simulation.
    cases : sequence of str
        Names of the shipped configs to compare.
    """
    level = LEVELS[level] if isinstance(level, str) else level
    first = first_call_seconds(seed)  # must be this process's first simulate call
    simulate(comparable_model("small"), 10, seed)  # warm
    workers_all = machine()["nproc"] or 1
    report: dict[str, Any] = {
        "level": level.name,
        "seed": seed,
        "machine": machine(),
        "first_call_seconds": first,
        "cold_compile": cold_compile(),
        "cases": {
            name: benchmark_case(name, level.cases[name], seed, level.repeats, workers_all)
            for name in cases
        },
    }
    if scaling if scaling is not None else level.name == "full":
        report["scaling"] = scaling_study(level, seed)
        report["memory"] = memory_study(level, seed)
    return _plain(report)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Benchmark relplan's engine against the SimPy reference model."
    )
    parser.add_argument("--quick", action="store_true", help="few trials (well under a minute)")
    parser.add_argument(
        "--tiny", action="store_true", help="very few trials (for the tests; implies --quick)"
    )
    parser.add_argument(
        "--scaling",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="run the scaling and memory study (default: on, off with --quick)",
    )
    parser.add_argument("--json", metavar="PATH", help="write the report as JSON here")
    parser.add_argument("--plot", metavar="PREFIX", help="write PREFIX.png and PREFIX.svg")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument(
        "--cases", nargs="+", choices=CASES, default=list(CASES), help="cases to run"
    )
    args = parser.parse_args(argv)
    scaling = True if args.plot and args.scaling is None else args.scaling

    started = time.perf_counter()
    level = "tiny" if args.tiny else "quick" if args.quick else "full"
    report = run(level=level, scaling=scaling, seed=args.seed, cases=args.cases)
    report["total_seconds"] = time.perf_counter() - started
    if hasattr(os, "getloadavg"):
        report["load_average_at_end"] = list(os.getloadavg())
    render(report)
    if args.plot and "scaling" in report:
        for path in plot_scaling(report["scaling"], args.plot):
            print(f"wrote {path}")
    text = json.dumps(report, indent=2)
    if args.json:
        path = Path(args.json)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text + "\n")
        print(f"wrote {path}")
    else:
        print(text)
    print(f"total {report['total_seconds']:.1f} s")
    agree = all(case["agreement"]["agree"] for case in report["cases"].values())
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main())
