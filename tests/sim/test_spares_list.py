"""The spares away in repair, kept by the walk as a sorted list of return times, give the
waits a pool of spares gives by hand: here a binary heap of return times (Python's
heapq), failure by failure, over random failures, repairs and blocks of units."""

from __future__ import annotations

import heapq

import numpy as np

from relplan.sim.timeline import _free_spares, _replacement_wait


def _wait_by_hand(heap: list[float], spares: int, noticed: float, repair: float,
                  needed: int) -> float:  # fmt: skip
    """The wait for ``needed`` replacements, ``heap`` holding the return times of the
    spares away: free spares go at once; else the first ones back, unless the failed
    units' own repair ends first."""
    if spares < needed:
        return repair
    while heap and heap[0] <= noticed:  # back in the pool
        heapq.heappop(heap)
    back_after = noticed + repair
    if len(heap) + needed <= spares:
        for _ in range(needed):
            heapq.heappush(heap, back_after)
        return 0.0
    short = len(heap) + needed - spares
    ordered = sorted(heap)
    ready = ordered[short - 1]
    if ready >= back_after:
        return repair
    heap[:] = ordered[short:] + [back_after] * (spares - (len(ordered) - short))
    heapq.heapify(heap)
    return ready - noticed


def test_the_spares_list_gives_the_waits_of_a_heap_of_return_times() -> None:
    rng = np.random.default_rng(7)
    checked = taken_back = 0
    for _ in range(200):
        spares = int(rng.integers(1, 12))
        trial = 1  # the middle row: the other trials' rows must stay as they are
        return_hours = np.full((3, spares), -7.0)
        away = np.zeros(3, dtype=np.int64)
        heap: list[float] = []
        now = 0.0
        for _ in range(200):
            now += rng.exponential(1.0)
            if rng.random() < 0.1:
                free = _free_spares(trial, return_hours, away, now)
                while heap and heap[0] <= now:
                    heapq.heappop(heap)
                assert free == spares - len(heap)
                continue
            repair = float(rng.choice([0.5, 2.0, 8.0, rng.exponential(5.0)]))
            needed = int(rng.choice([1, 1, 1, 2, 4]))
            wait = _replacement_wait(trial, return_hours, away, now, repair, needed)
            expected = _wait_by_hand(heap, spares, now, repair, needed)
            assert wait == expected
            assert away[trial] == len(heap)
            assert np.array_equal(return_hours[trial, : away[trial]], np.sort(heap))
            assert (return_hours[[0, 2]] == -7.0).all() and (away[[0, 2]] == 0).all()
            checked += 1
            taken_back += 0.0 < wait < repair
    assert checked > 30_000 and taken_back > 1_000  # waits for a spare back were tested
