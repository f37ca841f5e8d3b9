"""How big a run of points (a study, a plan) is, told before it starts: how many points,
about how much memory and time.

The count comes from the study or plan file alone (no point's config is validated yet),
so a run of a million points is announced at once, and refused without ``--yes`` above
:data:`POINT_LIMIT`. The memory and time are rough (within a factor of a few): the
memory of one point's trials (:func:`relplan.runs.memory.estimate_memory`) plus a
measured cost of each point's bookkeeping; the time from the engine's measured cost per
trial and per failure event plus a measured cost per point.
"""

from __future__ import annotations

from dataclasses import dataclass

from relplan.errors import ConfigError
from relplan.runs.memory import estimate_memory
from relplan.sim.engine import first_window_hours
from relplan.sim.model import SimulationModel
from relplan.units import format_bytes, format_duration

POINT_LIMIT = 100_000
"""Points a study or plan may have without ``--yes``."""

TRIAL_SECONDS = 0.9e-6
"""Engine time per trial, seconds (the README's Performance fit, 2 cores)."""

EVENT_SECONDS = 120e-9
"""Engine time per failure event, seconds (the same fit)."""

POINT_SECONDS = 0.1
"""Time per point beyond its trials (its config, model, statistics, row), seconds:
measured as (46 s - 9 s) / 396 between sweeps of 400 and 4 points of 2 trials of
configs/small.toml, one worker, 2 cores."""

POINT_BYTES = 640 * 2**10
"""Memory per point a sweep holds until it ends (its config, its row, its share of the
figures), bytes: measured as (561 MB - 313 MB) / 396 peak RSS between the same sweeps."""


@dataclass(frozen=True)
class RunSize:
    """What a run of points will take, estimated before it starts.

    Attributes
    ----------
    points : int
        Points (study points, portfolios) the run evaluates.
    trials : int
        Trials per point.
    memory_bytes : float
        Peak memory, bytes (rough).
    seconds : float
        Wall time, seconds (rough).
    """

    points: int
    trials: int
    memory_bytes: float
    seconds: float

    def sentence(self, what: str = "points") -> str:
        """One line for the terminal.

        Examples
        --------
        >>> RunSize(1200, 500, 2.5e9, 3600.0).sentence()
        '1,200 points x 500 trials: about 2.5 GB of memory and 1 h (rough estimate)'
        >>> RunSize(1, 500, 2.5e9, 3600.0).sentence("portfolios").split(":")[0]
        '1 portfolio x 500 trials'
        """
        if self.points == 1 and what.endswith("s"):
            what = what[:-1]
        return (f"{self.points:,} {what} x {self.trials:,} trials: about "
                f"{format_bytes(self.memory_bytes)} of memory and "
                f"{format_duration(self.seconds / 3600.0)} (rough estimate)")  # fmt: skip


def events_per_trial(model: SimulationModel) -> float:
    """Failure events a trial of ``model`` draws, about (its rate times its exposure).

    Examples
    --------
    >>> from relplan.config.loading import load_config
    >>> from relplan.sim.model import build_model
    >>> 0 < events_per_trial(build_model(load_config("configs/small.toml"))) < 100
    True
    """
    rate = sum(mode.job_rate_per_hour for mode in model.modes)
    try:
        return rate * first_window_hours(model)
    except OverflowError:
        return float("inf")


def run_size(model: SimulationModel, points: int, trials: int, workers: int = 1) -> RunSize:
    """Estimate a run of ``points`` points of ``trials`` trials, each like ``model``.

    Parameters
    ----------
    model : SimulationModel
        A representative point (the study's or plan's base config).
    points : int
        Points to run.
    trials : int
        Trials per point.
    workers : int
        Points run at once.

    Returns
    -------
    RunSize

    Examples
    --------
    >>> from relplan.config.loading import load_config
    >>> from relplan.sim.model import build_model
    >>> size = run_size(build_model(load_config("configs/small.toml")), 10, 100)
    >>> size.points, size.trials, size.seconds > 10 * 0.1
    (10, 100, True)
    """
    in_flight = max(1, min(workers, points))
    memory = estimate_memory([model], "sweep", in_flight).bytes(trials) + POINT_BYTES * points
    per_point = POINT_SECONDS + trials * (TRIAL_SECONDS + EVENT_SECONDS * events_per_trial(model))
    return RunSize(points, trials, memory, points * per_point)


def check_point_count(points: int, confirmed: bool, what: str = "points",
                      key: str = "--yes") -> None:  # fmt: skip
    """Refuse a run of more than :data:`POINT_LIMIT` points unless it was confirmed.

    Raises
    ------
    ConfigError
        Naming ``key`` (``--yes``) when ``points`` exceeds the limit and ``confirmed`` is
        False.

    Examples
    --------
    >>> check_point_count(10, confirmed=False)
    >>> check_point_count(200_000, confirmed=False)
    Traceback (most recent call last):
    ...
    relplan.errors.ConfigError: --yes: the run has 200,000 points, more than 100,000: ...
    """
    if points > POINT_LIMIT and not confirmed:
        raise ConfigError(key, f"the run has {points:,} {what}, more than {POINT_LIMIT:,}: "
                               f"give {key} to run them all, or make the run smaller")
