"""Each shipped config with the walk of its features against the one walk with all of them.

Before the walk was compiled per feature set (:class:`relplan.sim.compiled.WalkFeatures`),
every config ran one walk that held the code of every feature. That walk is still what
``walk_kernel`` compiles when every feature is on, so it is the engine of before, run in
this same process: for each shipped config, as shipped, :func:`compare_walks` times
:func:`relplan.sim.engine.simulate` with the config's own walk and with that one (forced
by patching :meth:`WalkFeatures.of` for the call), in alternating rounds
(:func:`benchmarks.measure.paired_times`), best of each, and checks that both give the
same numbers. The issue's bar is that the richest shipped config (the one whose walk has
the most features on; a tie goes to the costlier trial) is no slower than before (within
:data:`NO_SLOWER_TOLERANCE`).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any
from unittest import mock

import numpy as np

from benchmarks.cases import CONFIGS, config_path
from benchmarks.measure import paired_times
from relplan.config.loading import load_config
from relplan.sim.compiled import WalkFeatures
from relplan.sim.engine import TrialOutcomes, simulate
from relplan.sim.model import SimulationModel, build_model
from relplan.sim.precompile import feature_names, run_targets

EVERY_FEATURE = WalkFeatures(*[True] * len(WalkFeatures._fields))
"""The one walk of before: the code of every feature compiled in."""
SECONDS_PER_CALL = 0.5
"""Seconds each timed call aims at (its trials follow from the warm-up call's pace)."""
NO_SLOWER_TOLERANCE = 0.05
"""A walk within this fraction of the other's time counts as no slower: the spread of the
median ratio of a few alternating calls on a shared VM (the same walk set against itself
moves so)."""


def shipped_config_names() -> list[str]:
    """The shipped configs (``configs/*.toml``), by name."""
    return sorted(path.stem for path in CONFIGS.glob("*.toml"))


def run_with_walk(model: SimulationModel, trials: int, seed: int,
                  features: WalkFeatures | None) -> TrialOutcomes:  # fmt: skip
    """:func:`simulate` on one worker, with the model's own walk or the one of ``features``.

    Parameters
    ----------
    model : SimulationModel
        The model.
    trials, seed : int
        As for :func:`simulate`.
    features : WalkFeatures or None
        The walk to run (None: the model's own).

    Returns
    -------
    TrialOutcomes
        The trials.
    """
    if features is None:
        return simulate(model, trials, seed, workers=1)
    forced = classmethod(lambda cls, *args: features)
    with mock.patch.object(WalkFeatures, "of", forced):
        return simulate(model, trials, seed, workers=1)


def same_numbers(first: TrialOutcomes, second: TrialOutcomes) -> bool:
    """Whether two runs' wall hours, bucket hours and interruptions are identical."""
    return bool(np.array_equal(first.wall_hours, second.wall_hours)
                and np.array_equal(first.bucket_hours, second.bucket_hours)
                and np.array_equal(first.interruptions_by_mode, second.interruptions_by_mode))


def compare_walks(model: SimulationModel, seed: int, repeats: int,
                  reference: WalkFeatures = EVERY_FEATURE,
                  trials: int | None = None) -> dict[str, Any]:  # fmt: skip
    """A model's own walk against the ``reference`` walk: seconds per trial and numbers.

    Parameters
    ----------
    model : SimulationModel
        The model.
    seed : int
        Seed of every call.
    repeats : int
        Rounds of one timed call of each walk, alternating (the shortest of each counts).
    reference : WalkFeatures
        The walk set against the model's own (default: every feature, the walk of before).
    trials : int, optional
        Trials per timed call (default: about :data:`SECONDS_PER_CALL` of the model's own
        walk, from its warm-up call; at least 20).

    Returns
    -------
    dict
        ``features`` (the model's walk's features on), ``trials``, ``seconds_per_trial``
        (own walk), ``reference_seconds_per_trial``, ``per_trial_vs_reference`` (own /
        reference, shortest against shortest: below 1 is faster),
        ``per_trial_vs_reference_median`` (the median of the rounds' ratios: the steadier
        figure on a shared machine), ``no_slower`` (that median at most 1 +
        :data:`NO_SLOWER_TOLERANCE`) and
        ``same_numbers`` (both walks gave identical trials).
    """
    started = time.perf_counter()
    run_with_walk(model, 10, seed, reference)  # compiled or loaded here, not timed
    run_with_walk(model, 10, seed, None)
    warm = time.perf_counter()
    run_with_walk(model, 10, seed, None)
    per_trial_guess = max((time.perf_counter() - warm) / 10, 1e-7)
    if trials is None:
        trials = max(20, int(SECONDS_PER_CALL / per_trial_guess))
    theirs = run_with_walk(model, trials, seed, reference)
    paired, own = paired_times(lambda: run_with_walk(model, trials, seed, None),
                               lambda: run_with_walk(model, trials, seed, reference),
                               repeats)  # fmt: skip
    return {
        "features": feature_names(run_targets(model)[0].features),
        "trials": trials,
        "seconds_per_trial": paired.seconds / trials,
        "reference_seconds_per_trial": paired.reference_seconds / trials,
        "per_trial_vs_reference": paired.ratio,
        "per_trial_vs_reference_median": paired.median_ratio,
        "no_slower": bool(paired.median_ratio <= 1.0 + NO_SLOWER_TOLERANCE),
        "same_numbers": same_numbers(own, theirs),
        "seconds": time.perf_counter() - started,
    }


def one_walk_study(seed: int, repeats: int,
                   names: Sequence[str] | None = None) -> dict[str, Any]:  # fmt: skip
    """The report's ``one_walk`` section: :func:`compare_walks` on each shipped config.

    Parameters
    ----------
    seed : int
        Seed of every call.
    repeats : int
        Rounds per config.
    names : sequence of str, optional
        Configs to run (default: every shipped config).

    Returns
    -------
    dict
        ``reference`` (what the other walk is), ``configs`` (per name, as shipped: the
        figures of :func:`compare_walks`) and ``richest`` (the config whose walk has the
        most features on; a tie goes to the costlier trial).
    """
    configs = {}
    for name in names if names is not None else shipped_config_names():
        model = build_model(load_config(config_path(name)))
        configs[name] = {"config": f"configs/{name}.toml",
                         **compare_walks(model, seed, repeats)}  # fmt: skip
    richest = max(configs, key=lambda name: (len(configs[name]["features"]),
                                             configs[name]["seconds_per_trial"]))  # fmt: skip
    return {
        "reference": "the one walk with every feature compiled in (the engine before the "
                     "walk was compiled per feature set)",
        "configs": configs,
        "richest": richest,
    }
