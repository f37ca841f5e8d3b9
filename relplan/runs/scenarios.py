"""One scenario run: a validated config in, a :class:`SimulationResult` out.

``simulate``, ``compare`` and every point of a sweep run through :func:`run_scenario`, so
they build the model, seed the engine and label the result the same way.
"""

from __future__ import annotations

from collections.abc import Callable

from relplan.analysis.provenance import config_digest
from relplan.analysis.results import SimulationResult
from relplan.config.schema import RelplanConfig
from relplan.sim.engine import simulate
from relplan.sim.model import build_model


def run_scenario(
    config: RelplanConfig,
    trials: int,
    seed: int,
    name: str,
    workers: int = 1,
    progress: Callable[[int], None] | None = None,
) -> SimulationResult:
    """Simulate one validated config.

    Parameters
    ----------
    config : RelplanConfig
        The scenario.
    trials : int
        Monte Carlo trials.
    seed : int
        Seed of every random number: scenarios run with the same seed see the same
        failure streams (common random numbers).
    name : str
        The scenario's label in tables and figures.
    workers : int
        Threads running blocks of trials; changes no number.
    progress : callable, optional
        Called with the trials of each finished block.

    Returns
    -------
    SimulationResult
        The per-trial outcomes with the model they came from.

    Examples
    --------
    >>> from relplan.config.loading import load_config
    >>> result = run_scenario(load_config("configs/small.toml"), trials=50, seed=1,
    ...                       name="small")
    >>> 0 < result.summary()["goodput"]["mean"] <= 1
    True
    """
    model = build_model(config)
    outcomes = simulate(model, trials, seed, workers, progress=progress)
    return SimulationResult(model, outcomes, seed, name, config_digest(config))
