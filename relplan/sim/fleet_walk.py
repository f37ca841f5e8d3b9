"""Several jobs walked together on one wall clock, where they share a spare pool and
repair crews (a fleet: ``[fleet] spares``, ``[repair] crews``).

Each job is walked by the single-job walk (:func:`relplan.sim.timeline.walk_kernel`),
trial ``t`` of every job being trial ``t`` of the fleet. The jobs' states are their own,
except the spare pool and the crews: their arrays are one set, shared, so that a job that
takes a spare or a crew takes it from the others. To keep the shared pool in the order
of the wall clock, the job whose next event comes first takes its events until the next
event of another job comes first (:attr:`~relplan.sim.compiled.EventWindow.wall_limit_hours`),
then pauses, and so on: every event of the fleet's trial is taken in wall-clock order.

A job claims a spare (or a crew) when its failure is taken, for the time the failure is
noticed (its detection later): another job's event within that detection sees it gone.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from relplan.errors import ConfigError, InfeasibleJobError
from relplan.sim.compiled import (
    FINISHED,
    EventWindow,
    TraceBuffer,
    TrialState,
    TrialStreams,
    WalkFeatures,
    compile_model,
)
from relplan.sim.engine import (
    DegradationOverflow,
    TrialOutcomes,
    check_walked,
    degradation_slots,
    trial_outcomes,
)
from relplan.sim.model import SimulationModel
from relplan.sim.rng import stream_key
from relplan.sim.timeline import walk_kernel

_NO_TRACE = TraceBuffer.off()
"""The jobs of a fleet walked together trace no trial."""


def _walk_one(walk: Any, t: int, job: Any, modes: Any, window: EventWindow,
              streams: TrialStreams, state: TrialState, cancel: np.ndarray, limit: float,
              next_slot: np.ndarray) -> float:  # fmt: skip
    """Walk trial ``t`` of one job until its next event comes after ``limit`` (wall
    time); return that event's wall time (inf: the trial is over)."""
    window.wall_limit_hours[0] = limit
    state.next_wall_hours[t] = np.inf
    next_slot[0] = t
    walk(next_slot, t + 1, 1, job, modes, window, streams, state, _NO_TRACE, cancel)
    if state.phase[t] == FINISHED or state.too_many_events[0]:
        return math.inf
    return float(state.next_wall_hours[t])


def _walk_fleet(walk: Any, compiled: list[Any], windows: list[EventWindow],
                streams: list[TrialStreams], states: list[TrialState],
                cancel: np.ndarray) -> None:  # fmt: skip
    """Walk every trial of every job, the jobs of a trial on one wall clock: the job whose
    next event comes first walks until another's comes first."""
    n_jobs = len(compiled)
    next_slot = np.zeros(1, dtype=np.int64)
    args = [(c.job, c.modes, windows[j], streams[j], states[j])
            for j, c in enumerate(compiled)]  # fmt: skip
    for t in range(states[0].phase.shape[0]):
        # each job's trial set up and its first event found, none taken
        next_wall = [_walk_one(walk, t, *args[j], cancel, -math.inf, next_slot)
                     for j in range(n_jobs)]  # fmt: skip
        while not cancel[0]:
            first = min(range(n_jobs), key=next_wall.__getitem__)
            if next_wall[first] == math.inf:
                break
            limit = min((next_wall[j] for j in range(n_jobs) if j != first),
                        default=math.inf)  # fmt: skip
            next_wall[first] = _walk_one(walk, t, *args[first], cancel, limit, next_slot)


def walk_fleet(models: list[SimulationModel], n_trials: int,
               seeds: list[np.random.SeedSequence], spares: int,
               crews: int) -> list[TrialOutcomes]:  # fmt: skip
    """Walk the jobs of a fleet together, sharing ``spares`` spare servers and ``crews``
    repair crews (0: a crew for every repair).

    Parameters
    ----------
    models : list of SimulationModel
        One per job; each with ``job.spares`` equal to ``spares`` (the pool it draws on)
        when there is a pool, and ``job.repair_crews`` to ``crews``.
    n_trials : int
        Trials, the same for every job.
    seeds : list of numpy.random.SeedSequence
        One per job: its failures' random streams.
    spares, crews : int
        The shared pool's spare servers (0: each job has its own spares) and repair
        crews (0: none shared).

    Returns
    -------
    list of TrialOutcomes
        Each job's trials.

    Raises
    ------
    ConfigError
        Naming a failure mode whose failures are not drawn in the walk (a lifetime that
        is not exponential, or units with a history): not walked together yet.
    InfeasibleJobError
        If a trial walked more steps than its job may, or had more degradations at once
        than there is room for.
    """
    compiled, states, windows, streams, features = [], [], [], [], []
    pool = np.zeros((n_trials, spares))
    away = np.zeros(n_trials, dtype=np.int64)
    crew_free = np.zeros((n_trials, crews))
    for model, seed in zip(models, seeds, strict=True):
        packed = compile_model(model, on_the_fly=True)
        if packed.window_modes:
            name = model.modes[packed.window_modes[0]].name
            raise ConfigError(f"failures.{name.split('.')[0]}.lifetime",
                              "a fleet's shared pool or crews need exponential lifetimes "
                              "without a unit history, for now")  # fmt: skip
        job = model.job
        slots = 4 * degradation_slots(model)
        state = TrialState.at_start(n_trials, len(model.modes), job.spares, slots,
                                    job.spare_domains, job.spare_pool, packed.job.drains,
                                    job.restarts_draw, job.saves_random, job.saves_walked,
                                    crews)  # fmt: skip
        if spares > 0:  # one pool for every job (else each has its own spares)
            state = state._replace(spare_return_hours=pool, spares_away=away)
        if crews > 0:
            state = state._replace(crew_free_hours=crew_free)
        trial_seeds, _ = seed.spawn(2)
        streams.append(TrialStreams(rng_state=np.empty((n_trials, 4), dtype=np.uint64),
                                    next_exponential_hours=np.empty(n_trials),
                                    key=stream_key(trial_seeds)))  # fmt: skip
        windows.append(EventWindow(
            active_trials=np.arange(n_trials, dtype=np.int64),
            offsets=np.zeros(n_trials + 1, dtype=np.int64),
            event_exposure_hours=np.empty(0), event_mode=np.empty(0, dtype=np.int64),
            event_repair_hours=np.empty(0), horizon_hours=math.inf,
            wall_limit_hours=np.full(1, math.inf),
        ))  # fmt: skip
        compiled.append(packed)
        states.append(state)
        features.append(WalkFeatures.of(packed.job, packed.modes, state, _NO_TRACE))
    union = WalkFeatures(*[any(flags) for flags in zip(*features, strict=True)])
    cancel = np.zeros(1, dtype=np.bool_)
    _walk_fleet(walk_kernel(union), compiled, windows, streams, states, cancel)
    for packed, state in zip(compiled, states, strict=True):
        try:
            check_walked(packed, state)
        except DegradationOverflow:
            raise InfeasibleJobError(
                f"a trial had more than {state.degradation_end_hours.shape[1]:,} "
                "degradations at once (failures of degraded, transient, elastic or slow "
                "modes not yet repaired): make their failures.*.repair shorter or their "
                "failures rarer"
            ) from None
    return [trial_outcomes(state, model) for model, state in zip(models, states, strict=True)]
