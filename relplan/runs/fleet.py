"""Running a fleet: each job of ``[[jobs]]`` on its own servers and spares, simulated as
the config it is on its own, from a seed of its own
(:func:`~relplan.analysis.fleet_outcome.job_seed`), and the fleet's totals over them
(:class:`~relplan.analysis.fleet_outcome.FleetOutcome`).

Jobs that share nothing but the fabric are independent: walking each alone is exact for
each job, and the fleet's totals add them trial by trial. Jobs that share a pool of
spares or repair crews are walked together on one wall clock
(:mod:`relplan.sim.fleet_walk`). A switch above several jobs strikes each of them on its
own stream (each job's rate is right; their joint tail is not).
"""

from __future__ import annotations

import numpy as np

from relplan.analysis.fleet_outcome import FleetOutcome, job_seed
from relplan.analysis.provenance import config_digest
from relplan.analysis.results import SimulationResult
from relplan.config.fleet_config import Fleet
from relplan.runs.preflight import check_run, warn_configs
from relplan.runs.scenarios import run_scenario
from relplan.sim.fleet_walk import walk_fleet
from relplan.sim.model import build_model


def check_fleet_run(fleet: Fleet, trials: int, key: str, workers: int, workers_key: str,
                    stacklevel: int = 2) -> None:  # fmt: skip
    """Before any work: give the jobs' warnings (one per key, naming the first job that
    has it and how many more do), and refuse a job that would never finish or a run that
    cannot fit in memory (:func:`relplan.runs.preflight.check_run`; ``key`` and
    ``workers_key`` name the trials and the workers in an error)."""
    warn_configs([(f"job {job.name}", job.config) for job in fleet.jobs],
                 stacklevel=stacklevel + 1, same_work=False)  # fmt: skip
    check_run([job.config for job in fleet.jobs], "simulate", trials, key, workers,
              workers_key=workers_key)  # fmt: skip


def run_fleet(fleet: Fleet, trials: int, seed: int, workers: int = 1) -> FleetOutcome:
    """Simulate every job of a fleet.

    Parameters
    ----------
    fleet : Fleet
        The validated fleet (:func:`relplan.config.fleet_config.load_fleet`).
    trials : int
        Monte Carlo trials, the same for every job (trial ``t`` of the fleet is trial
        ``t`` of each job).
    seed : int
        The fleet's seed: it fixes every number, whatever the workers. A fleet of one
        job runs from it (the numbers of the same config with ``[job]``); several jobs
        each from :func:`~relplan.analysis.fleet_outcome.job_seed` of it and their name.
    workers : int
        Threads running blocks of trials; changes no number.

    Returns
    -------
    FleetOutcome

    Examples
    --------
    >>> from relplan.config.fleet_config import load_fleet
    >>> outcome = run_fleet(load_fleet("configs/fleets/fleet-mix.toml"), trials=20, seed=1)
    >>> len(outcome.results), 0.8 < outcome.summary()["fleet"]["goodput"]["mean"] < 1
    (13, True)
    """
    if fleet.walked_together:
        return _run_together(fleet, trials, seed)
    alone = len(fleet.jobs) == 1  # today's single-job config: its seed is the fleet's
    results = {
        job.name: run_scenario(job.config, trials, seed if alone else job_seed(seed, job.name),
                               job.name, workers)
        for job in fleet.jobs
    }
    return FleetOutcome(fleet, results, trials, seed)


def _run_together(fleet: Fleet, trials: int, seed: int) -> FleetOutcome:
    """The jobs of a fleet that share a pool or crews, or take servers from each other,
    walked on one wall clock (:func:`relplan.sim.fleet_walk.walk_fleet`), each from its
    own seed."""
    models = [build_model(job.config) for job in fleet.jobs]
    seeds = [job_seed(seed, job.name) for job in fleet.jobs]
    priorities = [job.priority for job in fleet.jobs] if fleet.preempts else None
    walked = walk_fleet(models, trials, [np.random.SeedSequence(s) for s in seeds],
                        fleet.spares, fleet.crews, priorities, fleet.victim_order())
    results = {
        job.name: SimulationResult(model, outcomes, job_seed_, job.name,
                                   config_digest(job.config))
        for job, model, outcomes, job_seed_ in zip(fleet.jobs, models, walked.outcomes, seeds,
                                                   strict=True)
    }  # fmt: skip
    return FleetOutcome(fleet, results, trials, seed, shared=walked)
