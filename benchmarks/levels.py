"""How big a benchmark run is: trial counts and repeats at the full, quick and tiny levels."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CaseSettings:
    """Trial counts for one case of the relplan-vs-SimPy comparison.

    Attributes
    ----------
    relplan_trials : int
        Trials relplan runs.
    simpy_trials : int
        Trials the SimPy reference runs at most.
    simpy_time_cap_seconds : float
        Time after which the reference stops (once it has run a few trials).
    """

    relplan_trials: int
    simpy_trials: int
    simpy_time_cap_seconds: float


@dataclass(frozen=True)
class Level:
    """How big a run is: the comparison, the scaling and memory study, the start-up study.

    Attributes
    ----------
    name : str
        ``"full"``, ``"quick"`` or ``"tiny"``.
    cases : dict of str to CaseSettings
        Trial counts of each case.
    repeats : int
        Timed calls per case (the shortest counts).
    scaling_repeats : int
        Timed calls per scaling point.
    scaling_events : float
        Failure events each scaling point aims at (its trials follow).
    trial_counts : tuple of int
        Points of the ``trials`` series.
    gpu_counts : tuple of int
        Points of the cluster series.
    works : tuple of str
        Points of the ``events_per_trial`` series (``job.work`` values).
    rss_trials : int
        Trials of the largest peak-RSS runs.
    startup_repeats : int
        Fresh processes timed per start-up command and per reference (the shortest counts).
    cold_runs : int
        Cold first runs (empty numba cache) timed.
    feature_trials : int
        Trials of each variant of the walk per feature set (:mod:`benchmarks.features`).
    feature_repeats : int
        Rounds of timed calls of the variants (the shortest of each counts).
    """

    name: str
    cases: dict[str, CaseSettings]
    repeats: int
    scaling_repeats: int
    scaling_events: float
    trial_counts: tuple[int, ...]
    gpu_counts: tuple[int, ...]
    works: tuple[str, ...]
    rss_trials: int
    startup_repeats: int
    cold_runs: int
    feature_trials: int
    feature_repeats: int


LEVELS: dict[str, Level] = {
    "full": Level(
        "full",
        {
            "plain-exponential": CaseSettings(100_000, 2_000, 30.0),
            "small": CaseSettings(100_000, 2_000, 30.0),
            "seed-moe-10k": CaseSettings(10_000, 300, 30.0),
            "llama3-16k": CaseSettings(10_000, 200, 30.0),
        },
        repeats=5,
        scaling_repeats=2,
        scaling_events=1.5e6,
        trial_counts=(1_000, 10_000, 100_000),
        gpu_counts=(1_024, 4_096, 16_384, 65_536, 100_000),
        works=("7d", "30d", "120d", "480d", "1920d"),
        rss_trials=100_000,
        startup_repeats=5,
        cold_runs=2,
        feature_trials=100_000,
        feature_repeats=7,
    ),
    "quick": Level(
        "quick",
        {
            "plain-exponential": CaseSettings(10_000, 100, 3.0),
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
        startup_repeats=3,
        cold_runs=1,
        feature_trials=10_000,
        feature_repeats=2,
    ),
    "tiny": Level(
        "tiny",
        {
            "plain-exponential": CaseSettings(500, 30, 2.0),
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
        startup_repeats=2,
        cold_runs=1,
        feature_trials=200,
        feature_repeats=1,
    ),
}
"""The levels by name: ``full`` (the default run), ``quick`` (``--quick``), ``tiny``
(``--tiny``, for the tests)."""
