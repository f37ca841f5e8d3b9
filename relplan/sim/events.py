"""Exact failure-event generation for many identical units, at a cost of O(events).

A failure mode with ``N`` identical units is a superposition of ``N`` renewal
processes. Drawing a lifetime per unit per trial would cost O(units x trials); here
the cost is O(failures) instead:

- the number of units whose first failure falls in a window ``[a, b)``, among the
  ``n`` that have not failed yet, is ``Binomial(n, P(a <= T < b | T >= a))``; their
  failure times come from the lifetime distribution truncated to the window (exact
  inverse-CDF sampling);
- only units that failed are followed further, one fresh lifetime (plus the repair
  gap, when one is given) at a time; a renewal beyond the window is kept pending for
  the next window;
- a window that proves too short is extended by the same rule, conditioned on
  survival to its start, so nothing depends on the window length.

With exponential lifetimes and no repair gap the superposition is a Poisson process
of rate ``N / mean`` (exact, and cheaper), which is used instead.

Units start either *new* (age 0) or in *equilibrium*: a unit found up at a random
moment of the stationary process has a remaining life drawn from the
forward-recurrence distribution; with a repair gap, a unit is found down with
probability ``mean_repair / (mean_life + mean_repair)`` and comes up after an
equilibrium remaining repair.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from relplan.errors import InfeasibleJobError
from relplan.sim.compiled import MAX_EVENTS_PER_TRIAL
from relplan.sim.distributions import Distribution

MAX_WINDOW_EVENTS = 20_000_000
"""Most failures one window of one mode may hold for a block (about 320 MB), whatever the
block's size; with half of :data:`~relplan.sim.compiled.MAX_EVENTS_PER_TRIAL` per trial,
the bound that stops heavy infant mortality before it fills the memory."""

StartState = Literal["equilibrium", "new"]


@dataclass
class RenewalStream:
    """Failure times of ``units`` identical units for a block of trials, window by window.

    The clock is whatever the caller decides: the job's exposure clock (no repair
    gap: a failed unit is replaced or repaired while the clock stands still) or the
    wall clock (with ``repair_gap``: a failed unit is away for its repair time).

    Parameters
    ----------
    units : int
        Number of identical units in each trial.
    lifetime : Distribution
        Time to failure of a unit, hours.
    n_trials : int
        Number of trials in the block.
    rng : numpy.random.Generator
        Generator for every draw of this stream (shared in a fixed order with others).
    start : {"equilibrium", "new"}
        State of the units at time 0.
    repair_gap : Distribution or None
        Time a failed unit is away before its next life starts, hours, on this clock.
    age_hours : float
        For units started ``new``: the age they start at, hours (a burn-in's length: a
        unit that failed in it was replaced by one that did not); their first lives are
        drawn given survival to it. Their renewals start new, or at
        ``renewal_age_hours``.
    renewal_age_hours : float
        The age each renewal starts at, hours (a burn-in of each unit back from repair,
        ``[health.burn_in] returning``): its life is drawn given survival to it.
    """

    units: int
    lifetime: Distribution
    n_trials: int
    rng: np.random.Generator
    start: StartState = "equilibrium"
    repair_gap: Distribution | None = None
    age_hours: float = 0.0
    renewal_age_hours: float = 0.0
    lower_hours: float = 0.0
    _never_failed: np.ndarray = field(init=False, repr=False)
    _pending_trial: np.ndarray = field(init=False, repr=False)
    _pending_time: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._never_failed = np.full(self.n_trials, self.units, dtype=np.int64)
        self._pending_trial = np.empty(0, dtype=np.int64)
        self._pending_time = np.empty(0, dtype=float)
        if self.start == "equilibrium" and self.repair_gap is not None and self.units > 0:
            # Units found in repair at time 0 come up after an equilibrium remaining repair.
            mean_life, mean_repair = self.lifetime.mean_hours, self.repair_gap.mean_hours
            down = self.rng.binomial(
                self.units, mean_repair / (mean_life + mean_repair), self.n_trials
            )
            self._never_failed -= down
            total = int(down.sum())
            remaining_repair = self.repair_gap.equilibrium_ppf(self.rng.random(total))
            self._pending_trial = np.repeat(np.arange(self.n_trials, dtype=np.int64), down)
            self._pending_time = remaining_repair + self.lifetime.sample(self.rng, total)

    @property
    def is_poisson(self) -> bool:
        """True when the superposition is exactly a Poisson process."""
        return self.lifetime.kind == "exponential" and self.repair_gap is None

    def _renewed_lives(self, count: int) -> np.ndarray:
        """The lives of ``count`` renewals, hours: new, or given survival to
        :attr:`renewal_age_hours` (a burn-in's)."""
        age = self.renewal_age_hours
        if age <= 0.0:
            return self.lifetime.sample(self.rng, count)
        return self.lifetime.sample_window(self.rng, np.full(count, age), np.inf) - age

    def next_window(
        self, upper_hours: float, active_trials: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Failure times in ``[lower, upper)`` for the active trials, then move the window on.

        Parameters
        ----------
        upper_hours : float
            End of the window, hours on this stream's clock.
        active_trials : numpy.ndarray of int
            Sorted indices (within the block) of the trials that still need events;
            the others are dropped for good.

        Returns
        -------
        trial_index : numpy.ndarray of int64
            Block index of the trial of each failure.
        time_hours : numpy.ndarray of float64
            Failure time, hours (unsorted).

        Raises
        ------
        InfeasibleJobError
            If the window would hold more failures than half the steps its trials may
            walk (:data:`~relplan.sim.compiled.MAX_EVENTS_PER_TRIAL`), or more than
            :data:`MAX_WINDOW_EVENTS`.
        """
        lower = self.lower_hours
        if upper_hours <= lower:
            raise ValueError("a window must end after it starts")
        self.lower_hours = upper_hours
        if self.units == 0 or active_trials.size == 0:
            return np.empty(0, dtype=np.int64), np.empty(0, dtype=float)
        if self.is_poisson:
            rate = self.units / self.lifetime.mean_hours
            counts = self.rng.poisson(rate * (upper_hours - lower), active_trials.size)
            trials = np.repeat(active_trials, counts)
            times = lower + (upper_hours - lower) * self.rng.random(trials.size)
            return trials, np.minimum(times, np.nextafter(upper_hours, -np.inf))

        equilibrium_first_life = self.start == "equilibrium"
        age = 0.0 if equilibrium_first_life else self.age_hours  # first lives, aged
        probability = float(self.lifetime.window_probability(
            lower + age, upper_hours + age, equilibrium_first_life))
        counts = self.rng.binomial(self._never_failed[active_trials], probability)
        self._never_failed[active_trials] -= counts
        first_trials = np.repeat(active_trials, counts)
        first_times = self.lifetime.sample_window(
            self.rng, np.full(first_trials.size, lower + age), upper_hours + age,
            equilibrium_first_life,
        ) - age  # fmt: skip

        keep = np.isin(self._pending_trial, active_trials, assume_unique=False)
        pending_trial, pending_time = self._pending_trial[keep], self._pending_time[keep]
        due = pending_time < upper_hours
        current_trials = np.concatenate([first_trials, pending_trial[due]])
        current_times = np.concatenate([first_times, pending_time[due]])
        next_pending_trial = [pending_trial[~due]]
        next_pending_time = [pending_time[~due]]

        out_trials, out_times = [], []
        limit = min(MAX_WINDOW_EVENTS, MAX_EVENTS_PER_TRIAL // 2 * active_trials.size)
        drawn = 0
        while current_times.size:
            drawn += current_times.size
            if drawn > limit:
                raise InfeasibleJobError(
                    f"one failure mode gives more than {limit:,} failures to "
                    f"{active_trials.size:,} trials in {upper_hours - lower:.3g} h: its units "
                    "fail again and again right after each renewal (heavy infant mortality: "
                    "a lognormal lifetime with a large sigma or a Weibull with a small shape, "
                    "started new); raise the shape, lower sigma, or start in equilibrium"
                )
            out_trials.append(current_trials)
            out_times.append(current_times)
            renewal = current_times + self._renewed_lives(current_times.size)
            if self.repair_gap is not None:
                renewal += self.repair_gap.sample(self.rng, current_times.size)
            inside = renewal < upper_hours
            next_pending_trial.append(current_trials[~inside])
            next_pending_time.append(renewal[~inside])
            current_trials, current_times = current_trials[inside], renewal[inside]
        self._pending_trial = np.concatenate(next_pending_trial)
        self._pending_time = np.concatenate(next_pending_time)
        if not out_times:
            return np.empty(0, dtype=np.int64), np.empty(0, dtype=float)
        return np.concatenate(out_trials), np.concatenate(out_times)


def renewal_failure_counts(
    units: int,
    lifetime: Distribution,
    horizon_hours: float,
    n_trials: int,
    rng: np.random.Generator,
    start: StartState = "equilibrium",
    repair_gap: Distribution | None = None,
    windows: int = 1,
) -> np.ndarray:
    """Number of failures of ``units`` renewing units in ``[0, horizon)`` per trial.

    A convenience over :class:`RenewalStream`, used to check the stream against
    renewal theory (a stationary process has ``horizon / (mean life + mean repair)``
    expected failures per unit).

    Parameters
    ----------
    units : int
        Identical units per trial.
    lifetime : Distribution
        Time to failure, hours.
    horizon_hours : float
        Length of the observed period, hours.
    n_trials : int
        Independent trials.
    rng : numpy.random.Generator
        Source of randomness.
    start : {"equilibrium", "new"}
        State at time 0.
    repair_gap : Distribution or None
        Repair time between a failure and the next life, hours.
    windows : int
        Split the horizon into this many windows (the answer must not depend on it).

    Returns
    -------
    numpy.ndarray of int64
        Failures per trial.
    """
    stream = RenewalStream(units, lifetime, n_trials, rng, start, repair_gap)
    counts = np.zeros(n_trials, dtype=np.int64)
    everyone = np.arange(n_trials)
    for edge in np.linspace(0.0, horizon_hours, windows + 1)[1:]:
        trials, _ = stream.next_window(float(edge), everyone)
        counts += np.bincount(trials, minlength=n_trials)
    return counts
