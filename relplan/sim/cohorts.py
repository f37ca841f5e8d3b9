"""Failure events of units that remember their past: lemons, imperfect repair, retirement.

A failure mode with a :class:`~relplan.sim.model.UnitHistory` is drawn unit by unit, like
:class:`relplan.sim.events.RenewalStream` (O(failures), not O(units x trials)), but each
followed unit carries its cohort and its failure count, and each failure its *ordinal*:
the unit's failures in the trial so far, this one included.

- **Lemons.** Each trial draws ``Binomial(units, share)`` lemons. A lemon's lifetime is
  the mode's lifetime divided by ``factor`` (:meth:`Distribution.faster`): the same
  family, ``factor`` times the rate. The normal units keep the mode's lifetime, so the
  lemons come on top of it: a stationary exponential mode fails ``1 - share + share *
  factor`` times as often. A unit stays in its cohort across its repairs.
- **Imperfect repair.** After each failure the repair works with probability
  ``repair_success`` (p): the unit starts a fresh life of its cohort. Otherwise it comes
  back still faulty and fails again after ``refail`` hours of use. Each genuine failure
  thus brings a geometric number of refails, ``(1 - p) / p`` on average.
- **Curable lemons** (``lemons.curable``, AIReSim's model). A repair that works (``p``)
  makes a lemon a normal unit for good; one that does not leaves it a lemon, which fails
  again after a fresh lemon life (no refail). A normal unit is always repaired.
- **Retirement.** At its ``retire_after``-th failure in the job a unit is replaced by a
  new one drawn from the main population: a cohort drawn afresh (a lemon with probability
  ``share``), a failure count of zero, and a fresh life from age 0.

Start. Units start as the mode's ``start`` says (``new``: age 0; ``equilibrium``: a
remaining life from the forward-recurrence distribution of their cohort). In equilibrium
with imperfect repair, a unit is found in a refail period with probability ``extra / (mean
life + extra)``, ``extra = (1 - p) / p * mean refail`` (an alternating renewal process:
a life, then the refails), and then fails after an equilibrium remaining refail. Failure
counts start at zero with the job: what a unit did before is not known. Cohorts start at
``share`` whatever ``retire_after`` (which in a fleet would have thinned the lemons).

Draws come in a fixed order (cohort by cohort, then the renewals batch by batch, each
batch drawing its uniforms and durations for every event of the batch), so that the block's
seed fixes every number.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from relplan.errors import InfeasibleJobError
from relplan.sim.compiled import MAX_EVENTS_PER_TRIAL
from relplan.sim.distributions import Distribution
from relplan.sim.events import MAX_WINDOW_EVENTS, StartState
from relplan.sim.model import UnitHistory
from relplan.vocab import UNIT_STATS

NORMAL, LEMON = 0, 1
"""Cohort codes of a followed unit."""


class UnitEvents(NamedTuple):
    """The failures of one window of a :class:`UnitStream` (unsorted).

    Attributes
    ----------
    trial_index : numpy.ndarray of int64
        Block index of the trial of each failure.
    time_hours : numpy.ndarray of float64
        Failure time on the stream's clock, hours.
    ordinal : numpy.ndarray of int64
        The failed unit's failures in the trial so far, this one included (1: its first).
    """

    trial_index: np.ndarray
    time_hours: np.ndarray
    ordinal: np.ndarray


def _empty_events() -> UnitEvents:
    return UnitEvents(np.empty(0, dtype=np.int64), np.empty(0), np.empty(0, dtype=np.int64))


@dataclass
class UnitStream:
    """Failure times of ``units`` units with a history, for a block of trials, window by
    window (see the module's description).

    Parameters
    ----------
    units : int
        Units of the mode in each trial.
    lifetime : Distribution
        Time to failure of a normal unit, hours of use.
    history : UnitHistory
        Lemons, imperfect repair and retirement.
    n_trials, rng, start
        As :class:`relplan.sim.events.RenewalStream` takes them.
    """

    units: int
    lifetime: Distribution
    history: UnitHistory
    n_trials: int
    rng: np.random.Generator
    start: StartState = "equilibrium"
    lower_hours: float = 0.0
    _cohort_lifetimes: tuple[Distribution, Distribution] = field(init=False, repr=False)
    _never_failed: np.ndarray = field(init=False, repr=False)
    _pending_trial: np.ndarray = field(init=False, repr=False)
    _pending_time: np.ndarray = field(init=False, repr=False)
    _pending_cohort: np.ndarray = field(init=False, repr=False)
    _pending_count: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        history, rng = self.history, self.rng
        self._cohort_lifetimes = history.cohort_lifetimes(self.lifetime)
        lemons = np.zeros(self.n_trials, dtype=np.int64)
        if history.lemon_share > 0.0 and self.units > 0:
            lemons = rng.binomial(self.units, history.lemon_share, self.n_trials)
        # units of each cohort still in the life they had at time 0
        self._never_failed = np.stack([self.units - lemons, lemons]).astype(np.int64)
        self._pending_trial = np.empty(0, dtype=np.int64)
        self._pending_time = np.empty(0)
        self._pending_cohort = np.empty(0, dtype=np.int64)
        self._pending_count = np.empty(0, dtype=np.int64)
        extra = history.refail_hours_per_failure()
        if self.start != "equilibrium" or extra <= 0.0 or self.units == 0:
            return
        # Units found in a refail period at time 0 fail after an equilibrium remaining refail.
        trials, times, cohorts = [], [], []
        for cohort in (NORMAL, LEMON):
            mean_life = self._cohort_lifetimes[cohort].mean_hours
            down = rng.binomial(self._never_failed[cohort], extra / (mean_life + extra))
            self._never_failed[cohort] -= down
            total = int(down.sum())
            trials.append(np.repeat(np.arange(self.n_trials, dtype=np.int64), down))
            times.append(history.refail.equilibrium_ppf(rng.random(total)))
            cohorts.append(np.full(total, cohort, dtype=np.int64))
        self._pending_trial = np.concatenate(trials)
        self._pending_time = np.concatenate(times)
        self._pending_cohort = np.concatenate(cohorts)
        self._pending_count = np.zeros(self._pending_trial.size, dtype=np.int64)

    def _first_failures(
        self, lower: float, upper: float, active_trials: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """First failures in ``[lower, upper)`` of the units still in their initial life:
        a binomial count per trial and cohort, times by exact truncated inversion."""
        equilibrium = self.start == "equilibrium"
        trials, times, cohorts = [], [], []
        for cohort in (NORMAL, LEMON):
            if cohort == LEMON and self.history.lemon_share <= 0.0:
                continue
            lifetime = self._cohort_lifetimes[cohort]
            probability = float(lifetime.window_probability(lower, upper, equilibrium))
            counts = self.rng.binomial(self._never_failed[cohort, active_trials], probability)
            self._never_failed[cohort, active_trials] -= counts
            first = np.repeat(active_trials, counts)
            trials.append(first)
            times.append(lifetime.sample_window(
                self.rng, np.full(first.size, lower), upper, equilibrium
            ))  # fmt: skip
            cohorts.append(np.full(first.size, cohort, dtype=np.int64))
        return np.concatenate(trials), np.concatenate(times), np.concatenate(cohorts)

    def _next_lives(
        self, times: np.ndarray, cohort: np.ndarray, ordinal: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """After failures at ``times`` of units of ``cohort`` (their ``ordinal``-th): the
        time of each unit's next failure, its cohort and its failure count."""
        history, rng = self.history, self.rng
        size = times.size
        count = ordinal
        if history.retire_after is not None:
            retired = ordinal >= history.retire_after
            lemon = rng.random(size) < history.lemon_share
            cohort = np.where(retired, np.where(lemon, LEMON, NORMAL), cohort)
            count = np.where(retired, 0, ordinal)
        else:
            retired = np.zeros(size, dtype=np.bool_)
        if history.lemons_curable:
            # a successful repair cures a lemon; a failed one leaves it a lemon
            cured = (rng.random(size) < history.repair_success) & (cohort == LEMON) & ~retired
            cohort = np.where(cured, NORMAL, cohort)
        gap = self.lifetime.sample(self.rng, size)
        if history.lemon_factor != 1.0:
            gap = np.where(cohort == LEMON, gap / history.lemon_factor, gap)
        if history.repair_success < 1.0 and not history.lemons_curable:
            faulty = (rng.random(size) >= history.repair_success) & ~retired
            gap = np.where(faulty, history.refail.sample(rng, size), gap)
        return times + gap, cohort, count

    def next_window(self, upper_hours: float, active_trials: np.ndarray) -> UnitEvents:
        """Failures in ``[lower, upper)`` for the active trials, then move the window on.

        Parameters
        ----------
        upper_hours : float
            End of the window, hours on this stream's clock (the job's exposure).
        active_trials : numpy.ndarray of int
            Sorted indices (within the block) of the trials that still need events;
            the others are dropped for good.

        Returns
        -------
        UnitEvents
            Each failure's trial, time (hours) and ordinal, unsorted.

        Raises
        ------
        InfeasibleJobError
            If the window would hold more failures than half the steps its trials may
            walk, or more than :data:`relplan.sim.events.MAX_WINDOW_EVENTS` (a unit that
            fails again and again: a tiny ``repair_success`` with a short ``refail``, or
            heavy infant mortality).
        """
        lower = self.lower_hours
        if upper_hours <= lower:
            raise ValueError("a window must end after it starts")
        self.lower_hours = upper_hours
        if self.units == 0 or active_trials.size == 0:
            return _empty_events()
        first_trials, first_times, first_cohorts = self._first_failures(
            lower, upper_hours, active_trials
        )
        keep = np.isin(self._pending_trial, active_trials)
        pending = (self._pending_trial[keep], self._pending_time[keep],
                   self._pending_cohort[keep], self._pending_count[keep])  # fmt: skip
        due = pending[1] < upper_hours
        current = [np.concatenate([first, part[due]]) for first, part in zip(
            (first_trials, first_times, first_cohorts,
             np.zeros(first_trials.size, dtype=np.int64)), pending, strict=True
        )]  # fmt: skip
        later = [[part[~due]] for part in pending]

        out_trials, out_times, out_ordinals = [], [], []
        limit = min(MAX_WINDOW_EVENTS, MAX_EVENTS_PER_TRIAL // 2 * active_trials.size)
        drawn = 0
        while current[0].size:
            trials, times, cohorts, counts = current
            drawn += times.size
            if drawn > limit:
                raise InfeasibleJobError(
                    f"one failure mode gives more than {limit:,} failures to "
                    f"{active_trials.size:,} trials in {upper_hours - lower:.3g} h: its units "
                    "fail again and again (a low repair_success with a short refail, or "
                    "heavy infant mortality); raise repair_success or retire the units "
                    "sooner (retire_after)"
                )
            ordinal = counts + 1
            out_trials.append(trials)
            out_times.append(times)
            out_ordinals.append(ordinal)
            renewal, cohorts, counts = self._next_lives(times, cohorts, ordinal)
            inside = renewal < upper_hours
            for store, part in zip(later, (trials, renewal, cohorts, counts), strict=True):
                store.append(part[~inside])
            current = [trials[inside], renewal[inside], cohorts[inside], counts[inside]]
        (self._pending_trial, self._pending_time, self._pending_cohort,
         self._pending_count) = (np.concatenate(parts) for parts in later)  # fmt: skip
        if not out_times:
            return _empty_events()
        return UnitEvents(np.concatenate(out_trials), np.concatenate(out_times),
                          np.concatenate(out_ordinals))  # fmt: skip


def walked_events(event_trial: np.ndarray, walked_per_trial: np.ndarray) -> np.ndarray:
    """Which events of a window a walk reached, from how many each trial reached.

    A trial walks its window's events in order (sorted by trial, then time), so the
    events it reached are the first ``walked_per_trial[trial]`` of its own. Counting them
    (from the failures the walk booked) rather than comparing times holds however the
    trial stopped: at the job's end, at the window's horizon, or at the end of a calendar
    window reached while the job was down after a failure.

    Parameters
    ----------
    event_trial : numpy.ndarray of int64
        Block index of the trial of each event, sorted.
    walked_per_trial : numpy.ndarray of int64
        Per block trial: the window's events the walk reached.

    Returns
    -------
    numpy.ndarray of bool
        One flag per event.
    """
    position = np.arange(event_trial.size) - np.searchsorted(event_trial, event_trial)
    return position < walked_per_trial[event_trial]


def tally_unit_failures(
    stats: np.ndarray,
    trial: np.ndarray,
    column: np.ndarray,
    ordinal: np.ndarray,
    walked: np.ndarray,
    retire_after: np.ndarray,
) -> None:
    """Add the failures a walk reached to each trial's per-unit counts, in place.

    Only the failures the walk reached count (``walked``, see :func:`walked_events`): a
    window holds failures beyond the end of a job that finished in it, which never
    happened.

    Parameters
    ----------
    stats : numpy.ndarray of int64
        Shape (trials, modes with a history, len(:data:`~relplan.vocab.UNIT_STATS`)):
        the block's counts.
    trial : numpy.ndarray of int64
        Block index of the trial of each failure of the window.
    column : numpy.ndarray of int64
        The column of ``stats`` of each failure's mode (any value where ``ordinal`` is 0).
    ordinal : numpy.ndarray of int64
        The unit's failures so far, this one included (0: a mode without a history).
    walked : numpy.ndarray of bool
        Whether the walk reached each failure.
    retire_after : numpy.ndarray of int64
        Per column: ``retire_after`` (0: never retired).
    """
    walked = walked & (ordinal > 0)
    n_trials, n_columns, _ = stats.shape
    trials, columns, reached = trial[walked], column[walked], ordinal[walked]
    cell = trials * n_columns + columns
    index = {name: position for position, name in enumerate(UNIT_STATS)}
    for name, selected in (
        ("units_failed", reached == 1),
        ("repeat_units", reached == 2),
        ("retired_units", reached == retire_after[columns]),
    ):
        counts = np.bincount(cell[selected], minlength=n_trials * n_columns)
        stats[:, :, index[name]] += counts.reshape(n_trials, n_columns)
    most = np.full(reached.size, index["max_failures_per_unit"])
    np.maximum.at(stats, (trials, columns, most), reached)


class UnitCounts(NamedTuple):
    """Per-trial counts of a :class:`UnitStream` over a horizon (see
    :func:`unit_failure_counts`).

    Attributes
    ----------
    failures : numpy.ndarray of int64
        Failures per trial.
    units_failed : numpy.ndarray of int64
        Units that failed at least once (a replacement counts as a unit of its own).
    repeat_units : numpy.ndarray of int64
        Units that failed at least twice.
    max_failures_per_unit : numpy.ndarray of int64
        Most failures of one unit (0: none failed).
    """

    failures: np.ndarray
    units_failed: np.ndarray
    repeat_units: np.ndarray
    max_failures_per_unit: np.ndarray


def unit_failure_counts(
    units: int,
    lifetime: Distribution,
    history: UnitHistory,
    horizon_hours: float,
    n_trials: int,
    rng: np.random.Generator,
    start: StartState = "equilibrium",
    windows: int = 1,
) -> UnitCounts:
    """Failures of ``units`` units with a history in ``[0, horizon)``, per trial.

    A convenience over :class:`UnitStream`, used to check it against hand-worked and
    closed-form counts.

    Parameters
    ----------
    units : int
        Units per trial.
    lifetime : Distribution
        Time to failure of a normal unit, hours.
    history : UnitHistory
        Lemons, imperfect repair and retirement.
    horizon_hours, n_trials, rng, start, windows
        As :func:`relplan.sim.events.renewal_failure_counts` takes them (the horizon in
        hours).

    Returns
    -------
    UnitCounts
        One entry per trial in each array.
    """
    stream = UnitStream(units, lifetime, history, n_trials, rng, start)
    counts = np.zeros((4, n_trials), dtype=np.int64)
    everyone = np.arange(n_trials)
    for edge in np.linspace(0.0, horizon_hours, windows + 1)[1:]:
        trials, _, ordinal = stream.next_window(float(edge), everyone)
        counts[0] += np.bincount(trials, minlength=n_trials)
        counts[1] += np.bincount(trials[ordinal == 1], minlength=n_trials)
        counts[2] += np.bincount(trials[ordinal == 2], minlength=n_trials)
        np.maximum.at(counts[3], trials, ordinal)
    return UnitCounts(*counts)
