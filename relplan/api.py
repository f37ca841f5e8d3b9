"""relplan from Python: load a config, simulate it, optimise its checkpoint interval, run a
study. The functions :mod:`relplan` exposes at its top level.

Each takes a config (a path, or a :class:`~relplan.config.schema.RelplanConfig` from
:func:`load_config`) and returns a result object with ``summary()`` (a JSON-ready dict)
and ``to_frame()`` (a pandas DataFrame). The numbers are those of the command line for the
same config, trials and seed.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from relplan.analysis.optimize import IntervalOptimum, optimize_config
from relplan.analysis.provenance import study_provenance
from relplan.analysis.results import SimulationResult
from relplan.analysis.scenarios import run_scenario
from relplan.analysis.sweep import answer_sentence
from relplan.analysis.sweep import run_study as run_study_points
from relplan.config import loading
from relplan.config.loading import load_config
from relplan.config.schema import RelplanConfig
from relplan.config.study import Study, load_study
from relplan.output.study_report import write_study_outputs

__all__ = ["StudyResult", "load_config", "optimize_interval", "run_study", "simulate"]

ConfigSource = str | Path | RelplanConfig
"""A config file's path, or a config already loaded."""


def _config(config: ConfigSource, overrides: list[str] | None) -> tuple[RelplanConfig, str]:
    if isinstance(config, RelplanConfig):
        if overrides:
            config = loading.parse_config(config.source_document, overrides)
        return config, config.name or "config"
    loaded = loading.load_config(config, overrides)
    return loaded, loaded.name or Path(config).stem


def simulate(
    config: ConfigSource,
    trials: int | None = None,
    seed: int | None = None,
    workers: int | None = None,
    overrides: list[str] | None = None,
) -> SimulationResult:
    """Simulate a training job many times (``relplan simulate``).

    Parameters
    ----------
    config : str, Path or RelplanConfig
        The config.
    trials, seed, workers : int, optional
        Monte Carlo settings; by default the config's ``[simulation]`` values. One seed
        fixes every number, whatever the workers.
    overrides : list of str, optional
        ``KEY=VALUE`` items applied to the config first.

    Returns
    -------
    SimulationResult
        ``summary()`` gives the ``--json`` object; ``to_frame()`` one row per trial.

    Examples
    --------
    >>> result = simulate("configs/small.toml", trials=200, seed=1)
    >>> summary = result.summary()
    >>> summary["trials"], 0.9 < summary["goodput"]["mean"] < 1.0
    (200, True)
    >>> result.to_frame()[["wall_hours", "goodput"]].shape
    (200, 2)
    """
    loaded, name = _config(config, overrides)
    settings = loaded.simulation
    return run_scenario(
        loaded,
        trials if trials is not None else settings.trials,
        seed if seed is not None else settings.seed,
        name,
        workers if workers is not None else settings.workers,
    )


def optimize_interval(
    config: ConfigSource,
    trials: int | None = None,
    seed: int | None = None,
    workers: int | None = None,
    overrides: list[str] | None = None,
) -> IntervalOptimum:
    """Find the checkpoint interval (``relplan optimize``): Young, Daly and Monte Carlo.

    Parameters
    ----------
    config : str, Path or RelplanConfig
        The config.
    trials, seed, workers : int, optional
        Trials per interval tried (at least 2), the seed every interval shares, threads;
        by default the config's ``[simulation]`` values.
    overrides : list of str, optional
        ``KEY=VALUE`` items applied to the config first.

    Returns
    -------
    IntervalOptimum
        ``summary()`` gives the ``--json`` object (``young_hours``, ``daly_hours``,
        ``mc_optimal_hours``, ``mc_optimal_ci95``, ...); ``to_frame()`` the curve.

    Examples
    --------
    >>> optimum = optimize_interval("configs/small.toml", trials=100, seed=0)
    >>> low, high = optimum.summary()["mc_optimal_ci95"]
    >>> low <= optimum.mc_optimal_hours <= high
    True
    >>> list(optimum.to_frame().columns[:2])
    ['interval_hours', 'goodput_mean']
    """
    loaded, _ = _config(config, overrides)
    settings = loaded.simulation
    optimum, _ = optimize_config(
        loaded,
        trials if trials is not None else settings.trials,
        seed if seed is not None else settings.seed,
        workers if workers is not None else settings.workers,
    )
    return optimum


@dataclass(frozen=True)
class StudyResult:
    """The points of a study and what they were run with.

    Attributes
    ----------
    study : Study
        The loaded study.
    points : pandas.DataFrame
        One row per point (see :func:`relplan.analysis.sweep.run_study`).
    trials : int
        Trials per point.
    """

    study: Study
    points: pd.DataFrame
    trials: int

    def summary(self) -> dict[str, Any]:
        """``study``, ``question``, ``answer`` (one sentence), ``trials``, ``points`` and
        ``provenance`` (:func:`relplan.analysis.provenance.study_provenance`)."""
        return {
            "study": self.study.spec.name,
            "question": self.study.spec.question,
            "answer": answer_sentence(self.study, self.points, self.trials),
            "trials": self.trials,
            "points": len(self.points),
            "provenance": study_provenance(self.study, self.points, self.trials),
        }

    def to_frame(self) -> pd.DataFrame:
        """One row per point: label, axis values, config digest and each metric's mean, CI,
        P5, P50 and P95."""
        return self.points

    def write(self, directory: str | Path) -> list[Path]:
        """Write results.parquet, the figures, report.md and report.html; return the paths."""
        return write_study_outputs(self.study, self.points, Path(directory), self.trials)


def run_study(
    study: str | Path | Study,
    trials: int | None = None,
    workers: int | None = None,
    dask_address: str | None = None,
) -> StudyResult:
    """Run a declarative study (``relplan sweep``) on common failure streams.

    Parameters
    ----------
    study : str, Path or Study
        The study file (``studies/*.toml``) or a loaded study.
    trials : int, optional
        Trials per point (default: the study's).
    workers : int, optional
        Points at once on local processes (1: one at a time in this process); by default
        the base config's ``simulation.workers`` when it sets it, else every core. A
        script that runs points on processes should keep its work under
        ``if __name__ == "__main__":``, as every multiprocessing program should.
    dask_address : str, optional
        ``"local"`` (a cluster of ``workers`` workers in this process) or a Dask
        scheduler address; the numbers do not depend on it.

    Returns
    -------
    StudyResult
        ``summary()`` holds the one-sentence answer; ``to_frame()`` one row per point.

    Examples
    --------
    >>> result = run_study("studies/recovery-strategies.toml", trials=50)
    >>> len(result.to_frame()) == result.summary()["points"]
    True
    """
    loaded = study if isinstance(study, Study) else load_study(study)
    per_point = trials or loaded.spec.trials
    points = run_study_points(loaded, per_point, workers, dask_address)
    return StudyResult(loaded, points, per_point)
