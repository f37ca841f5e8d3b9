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

Where jobs take servers from jobs of lower priority (``[fleet] preempt``,
:mod:`relplan.sim.walk.taking`), the jobs also share when each runs and the servers
taken from each: a job that takes one pauses, so that its victim's stop, at that wall
time, is the next event taken.

The pool's occupancy is measured between the fleet's events: after each event, the spares
away in repair (those that will return later) until the next event, with the returns
between; a job then walks one event at a time. A spare claimed for a failure's notice
counts from the failure on.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import Any

import numba
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


@numba.njit(cache=True, nogil=True)
def _pool_occupancy(return_hours: np.ndarray, away: int, start: float, end: float,
                    time_at: np.ndarray, day_hours: np.ndarray,
                    bin_hours: float) -> None:  # fmt: skip
    """Add the pool's spares away from wall time ``start`` to ``end``: the return times
    ``return_hours[:away]`` (ascending) later than ``start`` each keep one away until
    then. ``time_at[k]`` gains the hours with ``k`` spares away, ``day_hours[b]`` the
    spare-hours away within bin ``b`` (``bin_hours`` wide; the last bin takes the rest)."""
    first = 0
    while first < away and return_hours[first] <= start:
        first += 1
    count = away - first
    at = start
    last_bin = day_hours.shape[0] - 1
    k = first
    while at < end:
        until = end if k >= away else min(return_hours[k], end)
        time_at[count] += until - at
        if count > 0:
            t = at
            while t < until:
                b = min(int(t / bin_hours), last_bin)
                edge = until if b == last_bin else min(until, (b + 1) * bin_hours)
                day_hours[b] += count * (edge - t)
                t = edge
        at = until
        k += 1
        count -= 1


@dataclasses.dataclass
class PoolTracker:
    """The shared pool's occupancy over each trial, measured between the fleet's events
    (see the module's doc).

    Attributes
    ----------
    time_at_hours : numpy.ndarray
        Shape (trials, spares + 1): wall hours with ``k`` spares away in repair.
    away_hours : numpy.ndarray
        Shape (trials, bins): spare-hours away in each bin of ``bin_hours``.
    bin_hours : float
        The width of a bin of :attr:`away_hours`, hours.
    """

    time_at_hours: np.ndarray
    away_hours: np.ndarray
    bin_hours: float

    @classmethod
    def empty(cls, n_trials: int, spares: int, span_hours: float) -> PoolTracker:
        """Room for ``n_trials`` trials of a pool of ``spares``, in daily bins (wider if
        ``span_hours``, what a trial may last, is longer than 1,000 days)."""
        bin_hours = max(24.0, 24.0 * math.ceil(span_hours / 24.0 / 1000.0))
        bins = min(1000, max(1, math.ceil(span_hours / bin_hours)))
        return cls(np.zeros((n_trials, spares + 1)), np.zeros((n_trials, bins)), bin_hours)

    def add(self, trial: int, return_hours: np.ndarray, away: int, start: float,
            end: float) -> None:  # fmt: skip
        """Add the spares away from ``start`` to ``end`` (wall hours)."""
        if end > start:
            _pool_occupancy(return_hours[trial], away, start, end, self.time_at_hours[trial],
                            self.away_hours[trial], self.bin_hours)  # fmt: skip


def _walk_fleet(walk: Any, compiled: list[Any], windows: list[EventWindow],
                streams: list[TrialStreams], states: list[TrialState], cancel: np.ndarray,
                pool: PoolTracker | None) -> None:  # fmt: skip
    """Walk every trial of every job, the jobs of a trial on one wall clock: the job whose
    next event comes first walks until another's comes first. A job a server was taken
    from has its stop next; one that is over runs no more (it lends no server)."""
    n_jobs = len(compiled)
    next_slot = np.zeros(1, dtype=np.int64)
    args = [(c.job, c.modes, windows[j], streams[j], states[j])
            for j, c in enumerate(compiled)]  # fmt: skip
    shared = states[0]
    taking = shared.fleet_taken_at_hours.shape[1] > 0
    for t in range(shared.phase.shape[0]):
        # each job's trial set up and its first event found, none taken
        next_wall = [_walk_one(walk, t, *args[j], cancel, -math.inf, next_slot)
                     for j in range(n_jobs)]  # fmt: skip
        now = 0.0
        while not cancel[0]:
            first = min(range(n_jobs), key=next_wall.__getitem__)
            if next_wall[first] == math.inf:
                break
            if pool is not None:
                pool.add(t, shared.spare_return_hours, int(shared.spares_away[t]), now,
                         next_wall[first])  # fmt: skip
                now = next_wall[first]
            limit = min((next_wall[j] for j in range(n_jobs) if j != first),
                        default=math.inf)  # fmt: skip
            if pool is not None:  # one event at a time: the pool measured after each
                limit = min(limit, next_wall[first])
            next_wall[first] = _walk_one(walk, t, *args[first], cancel, limit, next_slot)
            if taking:
                if next_wall[first] == math.inf:
                    shared.fleet_running_from_hours[t, first] = math.inf
                for j in range(n_jobs):  # a server just taken: its job's stop is next
                    if j != first:  # (its own walk may find it a rounding later: as is)
                        next_wall[j] = min(next_wall[j], shared.fleet_taken_at_hours[t, j])
        if pool is not None:  # to the last job's end (one that ends while down, too)
            pool.add(t, shared.spare_return_hours, int(shared.spares_away[t]), now,
                     max(float(state.wall_hours[t]) for state in states))  # fmt: skip


@dataclasses.dataclass
class FleetWalk:
    """What a fleet's walk gives: each job's trials, and what the jobs shared.

    Attributes
    ----------
    outcomes : list of TrialOutcomes
        Each job's trials.
    servers_taken : list of numpy.ndarray
        Per job, per trial: servers a job of higher priority took from it (zeros
        without ``[fleet] preempt``).
    crew_wait_hours, crew_repairs : list of numpy.ndarray
        Per job, per trial: hours its repairs waited for a crew, and its repairs (zeros
        without ``[repair] crews``).
    pool : PoolTracker or None
        The shared pool's occupancy (None: no shared pool).
    """

    outcomes: list[TrialOutcomes]
    servers_taken: list[np.ndarray]
    crew_wait_hours: list[np.ndarray]
    crew_repairs: list[np.ndarray]
    pool: PoolTracker | None


def _taking_jobs(packed: Any, index: int, priorities: Sequence[int],
                 victims: Sequence[int]) -> Any:  # fmt: skip
    """The compiled model of the fleet's job ``index`` that takes servers from jobs of
    lower priority, ``victims`` first."""
    job = packed.job._replace(fleet_index=index, takes_servers=True,
                              fleet_priorities=np.asarray(priorities, dtype=np.int64),
                              fleet_victims=np.asarray(victims, dtype=np.int64))  # fmt: skip
    return dataclasses.replace(packed, job=job)


def walk_fleet(models: list[SimulationModel], n_trials: int,
               seeds: list[np.random.SeedSequence], spares: int, crews: int,
               priorities: Sequence[int] | None = None,
               victims: Sequence[int] = ()) -> FleetWalk:  # fmt: skip
    """Walk the jobs of a fleet together, sharing ``spares`` spare servers and ``crews``
    repair crews (0: a crew for every repair), and, given ``priorities``, taking servers
    from jobs of lower priority.

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
    priorities : sequence of int, optional
        Each job's priority: a job that would wait for a replacement takes a server from
        a running job of lower priority instead (``[fleet] preempt = "lower-priority"``;
        None: none is taken).
    victims : sequence of int
        The jobs, by index, in the order a server is taken from them (lowest priority
        first, then by name); with ``priorities``.

    Returns
    -------
    FleetWalk
        Each job's trials, and what the jobs shared.

    Raises
    ------
    ConfigError
        Naming a failure mode whose failures are not drawn in the walk (a lifetime that
        is not exponential, or units with a history): not walked together yet.
    InfeasibleJobError
        If a trial walked more steps than its job may, or had more degradations at once
        than there is room for.

    Examples
    --------
    >>> from relplan.config.loading import load_config
    >>> from relplan.sim.model import build_model
    >>> model = build_model(load_config("configs/small.toml"))
    >>> walked = walk_fleet([model, model], 4, [np.random.SeedSequence(s) for s in (1, 2)],
    ...                     spares=0, crews=1)
    >>> len(walked.outcomes), walked.outcomes[0].wall_hours.shape
    (2, (4,))
    """
    n_jobs = len(models)
    taking = priorities is not None and n_jobs > 1
    compiled, states, windows, streams, features = [], [], [], [], []
    pool = np.zeros((n_trials, spares))
    away = np.zeros(n_trials, dtype=np.int64)
    crew_free = np.zeros((n_trials, crews))
    fleet_jobs = n_jobs if taking else 0
    running_from = np.zeros((n_trials, fleet_jobs))
    taken_at = np.full((n_trials, fleet_jobs), np.inf)
    taken_wait = np.zeros((n_trials, fleet_jobs))
    for index, (model, seed) in enumerate(zip(models, seeds, strict=True)):
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
                                    crews, fleet_jobs)  # fmt: skip
        if spares > 0:  # one pool for every job (else each has its own spares)
            state = state._replace(spare_return_hours=pool, spares_away=away)
        if crews > 0:
            state = state._replace(crew_free_hours=crew_free)
        wall_limit = np.full(1, math.inf)
        if taking:
            packed = _taking_jobs(packed, index, priorities, victims)
            state = state._replace(fleet_running_from_hours=running_from,
                                   fleet_taken_at_hours=taken_at,
                                   fleet_taken_wait_hours=taken_wait,
                                   fleet_wall_limit_hours=wall_limit)  # fmt: skip
        trial_seeds, _ = seed.spawn(2)
        streams.append(TrialStreams(rng_state=np.empty((n_trials, 4), dtype=np.uint64),
                                    next_exponential_hours=np.empty(n_trials),
                                    key=stream_key(trial_seeds)))  # fmt: skip
        windows.append(EventWindow(
            active_trials=np.arange(n_trials, dtype=np.int64),
            offsets=np.zeros(n_trials + 1, dtype=np.int64),
            event_exposure_hours=np.empty(0), event_mode=np.empty(0, dtype=np.int64),
            event_repair_hours=np.empty(0), horizon_hours=math.inf,
            wall_limit_hours=wall_limit,
        ))  # fmt: skip
        compiled.append(packed)
        states.append(state)
        features.append(WalkFeatures.of(packed.job, packed.modes, state, _NO_TRACE))
    union = WalkFeatures(*[any(flags) for flags in zip(*features, strict=True)])
    cancel = np.zeros(1, dtype=np.bool_)
    tracker = None
    if spares > 0:
        span = 3.0 * max(model.job.work_hours for model in models)
        tracker = PoolTracker.empty(n_trials, spares, span)
    _walk_fleet(walk_kernel(union), compiled, windows, streams, states, cancel, tracker)
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
    none = np.zeros(n_trials)
    return FleetWalk(
        outcomes=[trial_outcomes(state, model)
                  for model, state in zip(models, states, strict=True)],
        servers_taken=[state.servers_taken.copy() if taking else none.astype(np.int64)
                       for state in states],
        crew_wait_hours=[state.crew_wait_hours.copy() if crews else none
                         for state in states],
        crew_repairs=[state.crew_repairs.copy() if crews else none.astype(np.int64)
                      for state in states],
        pool=tracker,
    )  # fmt: skip
