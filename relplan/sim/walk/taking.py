"""Phase of the walk: a fleet's job that takes a server from a job of lower priority
(``[fleet] preempt = "lower-priority"``), and the job it takes it from.

A job of a fleet walked together (:mod:`relplan.sim.fleet_walk`) that would wait for a
replacement server takes one from a running job of lower priority instead: the lowest
priority first, then by name (:attr:`~relplan.sim.compiled.CompiledJob.fleet_victims`).
The failed job goes on at once; the job it took the server from stops then, losing its
work since its last checkpoint, and waits for the replacement the failed job would have
waited for (the first spare back, or the failed unit repaired), then restarts. The spares
and the crews see nothing of it: a server moves from one job to the other, and the
replacement goes to the job that now lacks one.
"""

from __future__ import annotations

import numpy as np

from relplan.sim.compiled import CompiledJob, TrialState
from relplan.sim.walk.jit import array_helper, walk_phase


@array_helper
def _take_server(trial: int, now: float, ready: float, index: int, priorities: np.ndarray,
                 victims: np.ndarray, running_from: np.ndarray, taken_at: np.ndarray,
                 taken_wait: np.ndarray, wall_limit: np.ndarray) -> bool:  # fmt: skip
    """Take a server at wall time ``now`` from the first job of ``victims`` of lower
    priority than job ``index`` that runs then and has none taken yet; that job waits
    until ``ready`` for its replacement. The taker pauses at its next event (``wall_limit``
    lowered to ``now``), so that the victim's stop comes first. Whether one was taken."""
    own = priorities[index]
    for victim in victims:
        if priorities[victim] >= own:
            return False
        if running_from[trial, victim] <= now and taken_at[trial, victim] == np.inf:
            taken_at[trial, victim] = now
            taken_wait[trial, victim] = ready - now
            running_from[trial, victim] = np.inf
            wall_limit[0] = min(wall_limit[0], now)
            return True
    return False


@walk_phase
def take_server(trial: int, now: float, ready: float, job: CompiledJob,
                state: TrialState) -> bool:  # fmt: skip
    """:func:`_take_server` for ``job`` of a fleet whose failed unit, failed at wall time
    ``now``, would be replaced at ``ready``: whether it took a server instead (then it
    waits for nothing)."""
    return _take_server(trial, now, ready, job.fleet_index, job.fleet_priorities,
                        job.fleet_victims, state.fleet_running_from_hours,
                        state.fleet_taken_at_hours, state.fleet_taken_wait_hours,
                        state.fleet_wall_limit_hours)  # fmt: skip


@walk_phase
def server_taken_by(trial: int, x_next: float, idle: float, job: CompiledJob,
                    state: TrialState) -> float:  # fmt: skip
    """If a job of higher priority took a server of ``job`` by exposure ``x_next`` (wall
    time less ``idle``): the hours the job now waits for its replacement, the taking
    cleared and counted (:attr:`~relplan.sim.compiled.TrialState.servers_taken`); else -1."""
    index = job.fleet_index
    if index < 0 or state.fleet_taken_at_hours[trial, index] - idle > x_next:
        return -1.0  # (a job on its own: none)
    state.fleet_taken_at_hours[trial, index] = np.inf
    state.servers_taken[trial] += 1
    return state.fleet_taken_wait_hours[trial, index]


@walk_phase
def note_running_from(trial: int, wall_hours: float, job: CompiledJob,
                      state: TrialState) -> None:  # fmt: skip
    """Note the wall time from which ``job`` runs again after a stop (inf: it is over),
    from which a job of higher priority may take a server of it (a job on its own: none)."""
    if job.fleet_index >= 0:
        state.fleet_running_from_hours[trial, job.fleet_index] = wall_hours
