"""The walk per feature set: what each feature costs per trial, and its walk's cold compile.

The walk of trials is compiled once per set of features a model uses
(:class:`relplan.sim.compiled.WalkFeatures`). The shipped cases of
:mod:`benchmarks.throughput` all run the plain walk (every failure fatal, so that the SimPy
reference runs them too). Here ``configs/small.toml``, made plain the same way
(:func:`benchmarks.cases.shipped_overrides`), gets one feature at a time
(:data:`FEATURE_VARIANTS`, ``--set`` items like those of ``tests/sim/test_walk_features.py``),
and all of them at once; for each variant, in this one process, after a warm-up call:

- relplan's :func:`relplan.sim.engine.simulate` on one worker, best of ``repeats``
  rounds that time the variants in turn:
  trials/s, ns per event (an event: a failure of any mode, each one a step of the walk,
  survived or not), the random-number floor (:func:`benchmarks.measure.floor_seconds`)
  and the multiple of it;
- the cost per trial and per event against the plain variant (same trials and seed; a
  variant's trials hold their own events, so both are given);
- optionally (``compile_walks=True``) the cold compile of the variant's walk: a fresh
  process on an empty ``NUMBA_CACHE_DIR`` builds the model and times
  ``dispatcher.compile(signature)`` of its walk alone (the walk and its callees, what the
  first run of such a config compiles before its first trial; the traced walk and the
  small functions apart), see :func:`cold_compile_seconds`.

The SimPy reference knows fatal failures only: it runs none of these features, so the
speedup against it is given for the plain walk only (the ``small`` case).
"""

from __future__ import annotations

import json
import math
import sys
import tempfile
import time
from collections.abc import Sequence
from typing import Any

from benchmarks.cases import config_path, shipped_overrides
from benchmarks.measure import best_time, floor_seconds, subprocess_env, timed_process
from relplan.config.loading import load_config
from relplan.sim.engine import TrialOutcomes, simulate
from relplan.sim.model import SimulationModel, build_model
from relplan.sim.precompile import feature_names, run_targets

FEATURE_CONFIG = "small"
"""The shipped config every variant starts from."""

PLAIN = "plain"
"""The variant with every feature off: the ``small`` case of :mod:`benchmarks.throughput`."""

EVERY_FEATURE = "every_feature"
"""The variant with every feature on."""

_ONE_AT_A_TIME: dict[str, tuple[str, ...]] = {
    PLAIN: (),
    "horizon": ('job.horizon="30d"',),
    "maintenance": ('maintenance.every="7d"', 'maintenance.duration="4h"'),
    "fail_slow": ('failures.host.impact="slow"',),
    "corruption": ('failures.hbm.impact="corruption"',),
    "drain": ("network.dual_tor=true", 'failures.optic.impact="degraded"',
              'job.drain="at-checkpoint"'),
    "idle_failures": ("job.idle_failures=true",),
    "spare_pool": ("job.spare_pool=10", 'job.spare_pool_swap="20min"'),
    "degradations": ('failures.spine.impact="degraded"',),
    "random_restarts": ('job.restart={ init = "10min", success = "80%", black_hole = "5%", '
                        'load = { dist = "lognormal", median = "5min", sigma = 0.8 } }',),
    "preemption": ('preemption={ every = "100h", notice = "2min", save_on_notice = 0.5, '
                   'return_delay = { dist = "fixed", mean = "30min" } }',),
    "random_saves": ('job.checkpoint.fail="5%"', 'job.checkpoint.hang="2%"',
                     'job.checkpoint.write={ dist = "lognormal", median = "1min", sigma = 0.5 }'),
    "detection": ('failures.gpu.recall="90%"',),
}  # fmt: skip

FEATURE_VARIANTS: dict[str, tuple[str, ...]] = {
    **_ONE_AT_A_TIME,
    EVERY_FEATURE: tuple(item for items in _ONE_AT_A_TIME.values() for item in items),
}
"""Each variant's ``--set`` items, applied after the plain overrides. ``planned_stops``
has no variant of its own: it comes with maintenance, fail-slow units and drains (a stop
that waits for a checkpoint); a fail-slow unit is a degradation too, and a drain needs a
degraded server (here a lost dual-ToR leg or server optic); a saved preemption is a pause
the degradations' phase handles, so ``preemption`` comes with ``degradations``."""

SIMPY_NOTE = "n/a: the SimPy reference knows fatal failures only"
"""What the table says of a feature against SimPy."""

COMPILE_METHOD = (
    "fresh process, empty NUMBA_CACHE_DIR: dispatcher.compile(signature) of the variant's "
    "walk (with its callees), timed alone"
)
"""How the cold compile of a walk is measured (:func:`cold_compile_seconds`)."""


def variant_overrides(name: str) -> list[str]:
    """The ``--set`` items of a variant: the plain overrides of ``small``, then its own.

    Examples
    --------
    >>> variant_overrides("horizon")[-1]
    'job.horizon="30d"'
    """
    return [*shipped_overrides(FEATURE_CONFIG), *FEATURE_VARIANTS[name]]


def variant_model(name: str) -> SimulationModel:
    """The model of a variant (:data:`FEATURE_VARIANTS`)."""
    return build_model(load_config(config_path(FEATURE_CONFIG), variant_overrides(name)))


def walk_features(model: SimulationModel) -> list[str]:
    """The features the walk of a model's runs has on (its trace apart)."""
    return feature_names(run_targets(model)[0].features)


def failure_events(outcomes: TrialOutcomes) -> int:
    """Failures of every mode in a run (survived or not): the steps the walk took for them."""
    return int(outcomes.failures_by_mode.sum())


_COMPILE_CHILD = """
import json, sys, time
from benchmarks.features import variant_model
from relplan.sim.precompile import feature_names, run_targets

walk = run_targets(variant_model(sys.argv[1]))[0]
cached = walk.is_compiled()
started = time.perf_counter()
walk.compile()
print(json.dumps({"seconds": time.perf_counter() - started, "cached_before": cached}))
"""


def cold_compile_seconds(name: str, fresh_cache: bool = True) -> dict[str, Any]:
    """Compile time of a variant's walk in a fresh process (see :data:`COMPILE_METHOD`).

    Parameters
    ----------
    name : str
        A variant of :data:`FEATURE_VARIANTS`.
    fresh_cache : bool
        Run on an empty ``NUMBA_CACHE_DIR`` (the cold compile); False keeps numba's cache
        as found (for the tests: then it times a load, or nothing).

    Returns
    -------
    dict
        ``seconds`` (the compile), ``cached_before`` (whether the cache held the walk
        already: False on an empty cache) and ``process_seconds`` (the whole child).
    """
    argv = [sys.executable, "-c", _COMPILE_CHILD, name]
    if fresh_cache:
        with tempfile.TemporaryDirectory(prefix="relplan-numba-cache-") as cache:
            run = timed_process(argv, env=subprocess_env(NUMBA_CACHE_DIR=cache))
    else:
        run = timed_process(argv)
    if run.returncode != 0:
        raise RuntimeError(f"compiling the {name} walk failed: {run.stderr[-2000:]}")
    return {**json.loads(run.stdout), "process_seconds": run.seconds}


def benchmark_variants(names: Sequence[str], trials: int, seed: int,
                       repeats: int) -> dict[str, dict[str, Any]]:  # fmt: skip
    """Variants on one worker: every figure of their rows but those against the plain walk.

    Each variant is warmed first (one short call compiles its walk, or loads it from
    numba's cache), then the variants are timed in turn, ``repeats`` rounds, so that a
    change of the machine's load touches them all alike; the shortest call counts.

    Parameters
    ----------
    names : sequence of str
        Variants of :data:`FEATURE_VARIANTS`.
    trials : int
        Trials per timed call.
    seed : int
        Seed of every call.
    repeats : int
        Rounds of timed calls.

    Returns
    -------
    dict
        Per name, plain numbers: ``overrides``, ``features``, ``trials``, ``seconds``,
        ``seconds_per_trial``, ``trials_per_second``, ``events``, ``events_per_trial``,
        ``ns_per_event``, ``floor_seconds``, ``floor_multiple``, ``first_call_seconds``
        (the 10-trial warm-up call: the walk compiled, or loaded from numba's cache, as
        found).
    """
    models = {name: variant_model(name) for name in names}
    first_call = {}
    for name, model in models.items():  # warm: compiled or loaded here, not in the timings
        first_call[name], _ = best_time(lambda model=model: simulate(model, 10, seed), 1)
    best = dict.fromkeys(names, math.inf)
    outcomes: dict[str, TrialOutcomes] = {}
    for _ in range(max(1, repeats)):
        for name, model in models.items():
            seconds, outcomes[name] = best_time(
                lambda model=model: simulate(model, trials, seed, workers=1), 1)
            best[name] = min(best[name], seconds)
    rows = {}
    for name, model in models.items():
        seconds, events = best[name], failure_events(outcomes[name])
        floor = floor_seconds(events, trials)
        rows[name] = {
            "overrides": list(FEATURE_VARIANTS[name]),
            "features": walk_features(model),
            "trials": trials,
            "seconds": seconds,
            "seconds_per_trial": seconds / trials,
            "trials_per_second": trials / seconds,
            "events": events,
            "events_per_trial": events / trials,
            "ns_per_event": 1e9 * seconds / events if events else None,
            "floor_seconds": floor,
            "floor_multiple": seconds / floor,
            "first_call_seconds": first_call[name],
        }
    return rows


def feature_study(
    trials: int,
    seed: int,
    repeats: int,
    names: Sequence[str] = tuple(FEATURE_VARIANTS),
    compile_walks: bool = False,
    simpy_speedup_per_trial: float | None = None,
) -> dict[str, Any]:
    """Every variant of :data:`FEATURE_VARIANTS`: the report's ``features`` section.

    Parameters
    ----------
    trials, seed, repeats : int
        As for :func:`benchmark_variants`, for every variant.
    names : sequence of str
        The variants to run; the plain one is always run first (the others are set
        against it).
    compile_walks : bool
        Also time each variant's cold compile (:func:`cold_compile_seconds`; about 10-25
        s each on 2 cores).
    simpy_speedup_per_trial : float, optional
        The ``small`` case's speedup against SimPy, shown for the plain walk.

    Returns
    -------
    dict
        ``config``, ``plain_overrides``, ``trials``, ``seed``, ``repeats``, ``events``
        (what an event is), ``simpy_note``, ``compile_method`` (None when not measured),
        ``seconds`` (the warm-up and timing of the variants, their cold compiles apart)
        and ``variants``: per name the figures of :func:`benchmark_variants`, plus
        ``per_trial_vs_plain``, ``per_event_vs_plain``, ``speedup_per_trial_vs_simpy``
        (None but for the plain walk) and ``cold_compile_seconds`` (None when not
        measured).
    """
    ordered = [PLAIN, *(name for name in names if name != PLAIN)]
    unknown = [name for name in ordered if name not in FEATURE_VARIANTS]
    if unknown:
        raise ValueError(f"unknown feature variants: {', '.join(unknown)}")
    started = time.perf_counter()
    variants = benchmark_variants(ordered, trials, seed, repeats)
    timing_seconds = time.perf_counter() - started
    plain = variants[PLAIN]
    for name, row in variants.items():
        row["per_trial_vs_plain"] = row["seconds_per_trial"] / plain["seconds_per_trial"]
        row["per_event_vs_plain"] = (row["ns_per_event"] / plain["ns_per_event"]
                                     if row["ns_per_event"] and plain["ns_per_event"]
                                     else None)  # fmt: skip
        row["speedup_per_trial_vs_simpy"] = simpy_speedup_per_trial if name == PLAIN else None
        row["cold_compile_seconds"] = None
        row["cold_compile_process_seconds"] = None
        if compile_walks:
            compiled = cold_compile_seconds(name)
            row["cold_compile_seconds"] = compiled["seconds"]
            row["cold_compile_process_seconds"] = compiled["process_seconds"]
    return {
        "config": f"configs/{FEATURE_CONFIG}.toml",
        "plain_overrides": shipped_overrides(FEATURE_CONFIG),
        "trials": trials,
        "seed": seed,
        "repeats": repeats,
        "events": "failures of every mode, survived or not (each a step of the walk)",
        "simpy_note": SIMPY_NOTE,
        "compile_method": COMPILE_METHOD if compile_walks else None,
        "seconds": timing_seconds,
        "variants": variants,
    }
