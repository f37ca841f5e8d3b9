"""The spare pools of a trial: the return times of the spares away in repair, in order,
and the wait for a replacement."""

from __future__ import annotations

import numpy as np

from relplan.sim.walk.jit import array_helper, inlined_array_helper


@inlined_array_helper
def _spares_back(trial: int, return_hours: np.ndarray, away: np.ndarray, now: float) -> int:
    """Let the spares of a pool back from repair by wall time ``now`` leave its list of
    spares away (the earliest return times, at its front); return how many are still away.

    ``return_hours[trial, :away[trial]]`` holds the return times of the spares away in
    ascending order; the other spares are free. Its order is all that matters: the
    waits depend only on the return times, however they are kept.
    """
    size = away[trial]
    back = 0
    while back < size and return_hours[trial, back] <= now:
        back += 1
    if back > 0:
        size -= back
        for k in range(size):
            return_hours[trial, k] = return_hours[trial, k + back]
        away[trial] = size
    return size


@inlined_array_helper
def _send_away(trial: int, return_hours: np.ndarray, size: int, back_hours: float) -> None:
    """Add a spare back at wall time ``back_hours`` to the ``size`` spares away, in order:
    a repair that ends after the others (the usual case) costs O(1)."""
    k = size
    while k > 0 and return_hours[trial, k - 1] > back_hours:
        return_hours[trial, k] = return_hours[trial, k - 1]
        k -= 1
    return_hours[trial, k] = back_hours


@array_helper
def _replacement_wait(
    trial: int, return_hours: np.ndarray, away: np.ndarray, noticed: float, repair: float,
    needed: int = 1,
) -> float:  # fmt: skip
    """Hours from ``noticed`` until a replacement is ready: ``needed`` free spares (0),
    enough of them back from repair before the failed unit, or the failed unit itself.

    The spares away in repair are a per-trial list of their return times in ascending
    order (``away[trial]`` of them, see :func:`_spares_back`); the others are free. A
    failure of one unit costs O(1) when its repair ends after those under way, O(away) at
    most. A failure of ``needed > 1`` units at once (a rack) takes them all together: the
    free spares and, if too few, the first ones back, unless the failed units' repair
    ends first; the failed units go back to the pool when it ends. A pool smaller than
    ``needed`` never covers it: the job waits for the repair.
    """
    n_spares = return_hours.shape[1]
    if n_spares < needed:
        return repair
    size = _spares_back(trial, return_hours, away, noticed)
    back_after = noticed + repair
    if size + needed <= n_spares:
        # free spares go in; the failed units are away until their repair ends
        for _ in range(needed):
            _send_away(trial, return_hours, size, back_after)
            size += 1
        away[trial] = size
        return 0.0
    if needed > 1:
        return _block_replacement_wait(trial, return_hours, away, noticed, repair,
                                       size + needed - n_spares)  # fmt: skip
    back = return_hours[trial, 0]
    if back < back_after:
        # A spare comes back before the failed unit: take it; the failed unit joins
        # the pool when its own repair ends.
        for k in range(size - 1):
            return_hours[trial, k] = return_hours[trial, k + 1]
        _send_away(trial, return_hours, size - 1, back_after)
        return back - noticed
    return repair


@array_helper
def _block_replacement_wait(
    trial: int, return_hours: np.ndarray, away: np.ndarray, noticed: float, repair: float,
    short: int,
) -> float:  # fmt: skip
    """:func:`_replacement_wait` for a block of units when the free spares are ``short``
    of it: wait for the ``short``-th spare back, unless the block's own repair comes
    first. Taking the spares leaves every spare of the pool in the job or away: those
    still in repair, and the block's units until their repair ends. O(spares)."""
    size = away[trial]
    ready = return_hours[trial, short - 1]
    back_after = noticed + repair
    if ready >= back_after:
        return repair
    n_spares = return_hours.shape[1]
    kept = size - short  # still in repair: the latest ones
    later = 0  # of them, those back after the block's units
    while later < kept and return_hours[trial, size - 1 - later] > back_after:
        later += 1
    for k in range(later):  # to the end of the list
        return_hours[trial, n_spares - 1 - k] = return_hours[trial, size - 1 - k]
    for k in range(kept - later):  # the others to its front
        return_hours[trial, k] = return_hours[trial, short + k]
    for k in range(kept - later, n_spares - later):  # the block's units between
        return_hours[trial, k] = back_after
    away[trial] = n_spares
    return ready - noticed


@array_helper
def _crew_repair(trial: int, crew_free_hours: np.ndarray, crew_wait_hours: np.ndarray,
                 crew_repairs: np.ndarray, noticed: float, repair: float) -> float:  # fmt: skip
    """Hours from ``noticed`` until a unit is repaired when its repair waits for a crew
    (``[repair] crews``): it starts once the first crew is free, first come, first
    served, and that crew is busy until it ends. Without crews (none in the array), the
    repair itself. Counts the repair and its wait for a crew (``crew_repairs``,
    ``crew_wait_hours``)."""
    crews = crew_free_hours.shape[1]
    if crews == 0:
        return repair
    first = 0
    for crew in range(1, crews):
        if crew_free_hours[trial, crew] < crew_free_hours[trial, first]:
            first = crew
    free = crew_free_hours[trial, first]
    crew_repairs[trial] += 1
    if free <= noticed:  # a crew is free: the repair starts at once
        crew_free_hours[trial, first] = noticed + repair
        return repair
    crew_free_hours[trial, first] = free + repair
    crew_wait_hours[trial] += free - noticed
    return free + repair - noticed


@array_helper
def _free_spares(trial: int, return_hours: np.ndarray, away: np.ndarray, now: float) -> int:
    """Spares of the pool free at wall time ``now``: those away in repair that are back
    leave the list (as :func:`_replacement_wait` does), the others count against it."""
    return return_hours.shape[1] - _spares_back(trial, return_hours, away, now)


@array_helper
def _spare_wait(
    trial: int, needed: int, whole_domain: bool, spare_return_hours: np.ndarray,
    spares_away: np.ndarray, spare_domain_return_hours: np.ndarray,
    spare_domains_away: np.ndarray, spares_used: np.ndarray, noticed: float, repair: float,
) -> float:  # fmt: skip
    """Hours from ``noticed`` until the job has a replacement for a unit of ``mode`` that
    failed with ``repair`` hours of repair: from the pool of whole spare domains for a
    scale-up domain, else the mode's ``spares_needed`` loose spare servers at once (see
    :func:`_replacement_wait`); counts the spare servers swapped in."""
    if whole_domain:
        wait = _replacement_wait(trial, spare_domain_return_hours, spare_domains_away,
                                 noticed, repair, 1)
    else:
        wait = _replacement_wait(trial, spare_return_hours, spares_away, noticed, repair,
                                 needed)
    if wait < repair:
        spares_used[trial] += needed
    return wait
