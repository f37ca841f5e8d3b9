"""The degradations in progress of a trial (their ends, rows of the slowdown table and
when a drain finds them): the slowdown, fail-slow units evicted, degraded servers drained."""

from __future__ import annotations

import numpy as np

from relplan.sim.compiled import DRAIN_NEVER, DRAIN_NOW, SLOW
from relplan.sim.walk.jit import array_helper
from relplan.sim.walk.spares import _free_spares, _replacement_wait


@array_helper
def _drain_servers(
    trial: int, now: float, now_exposure: float, mode_drain: np.ndarray, n_modes: int,
    degradation_end: np.ndarray, degradation_row: np.ndarray,
    degradation_noticed: np.ndarray, degradation_count: np.ndarray,
    degradations_by_row: np.ndarray, spare_return_hours: np.ndarray, spares_away: np.ndarray,
    spares_used: np.ndarray, drains: np.ndarray,
) -> None:  # fmt: skip
    """Swap each server found running degraded (a mode that drains, found by exposure
    ``now_exposure``) for a free spare while the job is stopped at wall time ``now``: its
    degradation ends, and the spare pool has the server back when its repair ends.
    Servers left when no spare is free, and those not found yet, run on."""
    k = degradation_count[trial] - 1
    while k >= 0:
        row = degradation_row[trial, k]
        if row < n_modes and mode_drain[row] != DRAIN_NEVER and (
            degradation_end[trial, k] > now
        ) and degradation_noticed[trial, k] <= now_exposure:
            if _free_spares(trial, spare_return_hours, spares_away, now) < 1:
                return
            _replacement_wait(trial, spare_return_hours, spares_away, now,
                              degradation_end[trial, k] - now, 1)  # fmt: skip
            spares_used[trial] += 1
            drains[trial] += 1
            last = degradation_count[trial] - 1
            degradations_by_row[trial, row] -= 1
            degradation_end[trial, k] = degradation_end[trial, last]
            degradation_row[trial, k] = degradation_row[trial, last]
            degradation_noticed[trial, k] = degradation_noticed[trial, last]
            degradation_count[trial] = last
        k -= 1


@array_helper
def _find_degraded_servers(
    trial: int, now_exposure: float, mode_drain: np.ndarray, n_modes: int,
    degradation_row: np.ndarray, degradation_noticed: np.ndarray,
    degradation_count: np.ndarray,
) -> tuple[float, int, bool]:  # fmt: skip
    """The degraded servers that drain found by exposure ``now_exposure`` (their mode's
    ``detect`` after their failure), each marked found (``-inf``).

    Returns the exposure at which the next one is found (inf: none pending), a mode of
    one found now that drains at once (-1: none), and whether one found now drains at
    the next checkpoint."""
    next_found = np.inf
    drain_now_mode = -1
    at_checkpoint = False
    for k in range(degradation_count[trial]):
        row = degradation_row[trial, k]
        if row < n_modes and mode_drain[row] != DRAIN_NEVER:
            found = degradation_noticed[trial, k]
            if found == -np.inf:  # found before: its policy applied then
                continue
            if found <= now_exposure:
                degradation_noticed[trial, k] = -np.inf
                if mode_drain[row] == DRAIN_NOW:
                    drain_now_mode = row
                else:
                    at_checkpoint = True
            elif found < next_found:
                next_found = found
    return next_found, drain_now_mode, at_checkpoint


@array_helper
def _current_slowdown(
    trial: int, degradations_by_row: np.ndarray, slowdown_table: np.ndarray
) -> float:
    """The worst step-time ratio among the trial's degradations in progress (1: none)."""
    worst = 1.0
    depth = slowdown_table.shape[1]
    for row in range(degradations_by_row.shape[1]):
        count = degradations_by_row[trial, row]
        if count > 0:
            value = slowdown_table[row, min(count, depth - 1)]
            if value > worst:
                worst = value
    return worst


@array_helper
def _is_slow_row(row: int, impact: np.ndarray) -> bool:
    """Whether a row of the slowdown table is a fail-slow unit's: its mode's own row, or
    its soft row once the ladder re-routed it (a transient mode's soft row is not)."""
    n_modes = impact.shape[0]
    return impact[row if row < n_modes else row - n_modes] == SLOW


@array_helper
def _end_slow_degradations(
    trial: int, degradation_end: np.ndarray, degradation_row: np.ndarray,
    degradation_noticed: np.ndarray, degradation_count: np.ndarray,
    degradations_by_row: np.ndarray, impact: np.ndarray,
) -> None:  # fmt: skip
    """End the trial's fail-slow degradations (those with no end, and the episodes of a
    slow mode that would pass by themselves): their units are evicted."""
    k = degradation_count[trial] - 1
    while k >= 0:
        row = degradation_row[trial, k]
        if degradation_end[trial, k] == np.inf or _is_slow_row(row, impact):
            last = degradation_count[trial] - 1
            degradations_by_row[trial, degradation_row[trial, k]] -= 1
            degradation_end[trial, k] = degradation_end[trial, last]
            degradation_row[trial, k] = degradation_row[trial, last]
            if degradation_noticed.shape[1] > 0:  # a model that drains
                degradation_noticed[trial, k] = degradation_noticed[trial, last]
            degradation_count[trial] = last
        k -= 1
