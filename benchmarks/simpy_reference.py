"""Discrete-event reference of relplan's job model, written in SimPy.

This is the model a SimPy user would write by hand: a job process that computes and
writes checkpoints as timeouts, one failure-generator process per component class that
interrupts the job (:class:`simpy.Interrupt`), a spare pool (:class:`simpy.Container`)
and repairs as timeouts. It is self-contained (numpy + simpy, no relplan imports) so
that relplan's engine can be checked against it, and benchmarked against it.

Model (times in hours)
----------------------
- The job needs ``work_hours`` W of useful work. After every ``interval_hours`` tau of
  compute it writes a blocking checkpoint of ``write_hours`` delta; the last segment has
  no checkpoint, so a failure-free run writes ``ceil(W / tau) - 1`` checkpoints.
- Each unit of each failure class has an exponential lifetime. Hardware only ages while
  the job is *exposed* (computing, writing a checkpoint, restarting); during detection and
  waiting for a repair it is idle. The failures of a class therefore form a Poisson
  process of rate ``units / mtbf_hours`` on the exposure clock.
- On a failure: the work since the last completed checkpoint is lost (``rework``, which
  includes a partly written checkpoint), detection takes ``detect_hours`` (``detect``),
  then the failed unit is swapped for a free spare (``spares_used``) or the job waits
  (``waiting``) for the earlier of its own repair and the return of a spare in repair.
  Repairs start at the end of detection; repaired spares rejoin the pool. Then a restart
  of ``restart_hours`` R (``restart``), which failures can also hit, and the job resumes
  from the last completed checkpoint.

Exposure clock
--------------
An :class:`ExposureGate` is open while the job is exposed. Each class's failure process
draws an Exp(rate) amount of *exposed* time and sleeps it as a timeout; when the job goes
idle it closes the gate, which interrupts every sleeping failure process. Each one books
the exposed time it has slept, then waits for the gate to reopen and sleeps the rest.
Memorylessness is not used: the remaining exposure is carried over exactly.
"""

from __future__ import annotations

import math
import time
from collections.abc import Generator
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import simpy

__all__ = [
    "BUCKETS",
    "FailureClass",
    "ReferenceCase",
    "daly_expected_wall_hours",
    "job_mtbf_hours",
    "mean_downtime_hours",
    "simulate_reference",
]

#: Wall-clock buckets, in the order they are reported; their sum is the wall time.
BUCKETS: tuple[str, ...] = ("useful", "rework", "checkpoint", "detect", "restart", "waiting")


@dataclass(frozen=True)
class FailureClass:
    """One class of identical components in the job's footprint.

    Parameters
    ----------
    name : str
        Class name, e.g. ``"gpu"``.
    units : int
        Number of units of this class the job uses.
    mtbf_hours : float
        Mean of the exponential lifetime of one unit, hours of exposure.
    repair_hours : float
        Repair duration (``repair_dist="fixed"``) or its mean
        (``repair_dist="exponential"``), hours.
    detect_hours : float
        Time from the failure until it is noticed, hours.
    uses_spares : bool
        Whether a failed unit of this class can be swapped for a spare server.
    repair_dist : {"fixed", "exponential"}
        Distribution of the repair duration.
    """

    name: str
    units: int
    mtbf_hours: float
    repair_hours: float
    detect_hours: float = 0.0
    uses_spares: bool = False
    repair_dist: Literal["fixed", "exponential"] = "fixed"

    def __post_init__(self) -> None:
        if self.units < 0:
            raise ValueError(f"{self.name}: units must be >= 0, got {self.units}")
        if not self.mtbf_hours > 0:
            raise ValueError(f"{self.name}: mtbf_hours must be > 0, got {self.mtbf_hours}")
        if self.repair_hours < 0 or self.detect_hours < 0:
            raise ValueError(f"{self.name}: repair_hours and detect_hours must be >= 0")
        if self.repair_dist not in ("fixed", "exponential"):
            raise ValueError(f"{self.name}: repair_dist must be 'fixed' or 'exponential'")

    @property
    def failure_rate_per_hour(self) -> float:
        """Rate of failures of the whole class on the exposure clock, 1/hours."""
        return self.units / self.mtbf_hours


@dataclass(frozen=True)
class ReferenceCase:
    """Parameters of one reference job.

    Parameters
    ----------
    work_hours : float
        Useful work the job must do, W, hours.
    interval_hours : float
        Compute between checkpoints, tau, hours.
    write_hours : float
        Blocking checkpoint write, delta, hours.
    restart_hours : float
        Restart (re-init + checkpoint load), R, hours.
    spares : int
        Spare servers in the pool at the start.
    failure_classes : tuple of FailureClass
        The job's failure classes.
    """

    work_hours: float
    interval_hours: float
    write_hours: float
    restart_hours: float
    spares: int = 0
    failure_classes: tuple[FailureClass, ...] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        if not self.work_hours > 0 or not self.interval_hours > 0:
            raise ValueError("work_hours and interval_hours must be > 0")
        if self.write_hours < 0 or self.restart_hours < 0 or self.spares < 0:
            raise ValueError("write_hours, restart_hours and spares must be >= 0")

    @property
    def checkpoints_per_run(self) -> int:
        """Checkpoints written in a failure-free run, ``ceil(W / tau) - 1``."""
        return max(math.ceil(self.work_hours / self.interval_hours) - 1, 0)


# --------------------------------------------------------------------------- closed forms


def job_mtbf_hours(case: ReferenceCase) -> float:
    """Mean exposed time between job interruptions, M = 1 / sum(units / mtbf), hours."""
    rate = sum(c.failure_rate_per_hour for c in case.failure_classes)
    return math.inf if rate == 0 else 1.0 / rate


def mean_downtime_hours(case: ReferenceCase) -> float:
    """Rate-weighted mean downtime per failure (detect + waiting), hours.

    Classes without spares, or with an empty pool, wait for their mean repair; classes
    with spares are assumed to always find one free (no waiting). That is exact with no
    pool or an ample one (more spares than failures in repair at once); for a pool that
    runs dry the true waiting lies between this and the no-spare value.
    """
    rate = sum(c.failure_rate_per_hour for c in case.failure_classes)
    if rate == 0:
        return 0.0
    total = 0.0
    for c in case.failure_classes:
        waiting = 0.0 if (c.uses_spares and case.spares > 0) else c.repair_hours
        total += c.failure_rate_per_hour * (c.detect_hours + waiting)
    return total / rate


def daly_expected_wall_hours(
    work_hours: float,
    interval_hours: float,
    write_hours: float,
    restart_hours: float,
    mtbf_hours: float,
    downtime_hours: float,
) -> float:
    """Expected wall time of a checkpointed job with exponential failures (Daly 2006).

    One segment of exposed length s takes T(s) = (M + D) e^{R/M} (e^{s/M} - 1) on
    average, failures during the restart included. The job has m = ceil(W/tau) - 1 full
    segments of tau + delta and a last segment of W - m tau with no checkpoint.

    Parameters
    ----------
    work_hours : float
        Useful work W, hours.
    interval_hours : float
        Compute between checkpoints tau, hours.
    write_hours : float
        Blocking checkpoint write delta, hours.
    restart_hours : float
        Restart R, hours.
    mtbf_hours : float
        Job mean time between interruptions M (exposed time), hours.
    downtime_hours : float
        Mean downtime per failure D (detect + waiting), hours.

    Returns
    -------
    float
        Expected wall-clock time of the job, hours.
    """
    m = max(math.ceil(work_hours / interval_hours) - 1, 0)
    last = work_hours - m * interval_hours
    if math.isinf(mtbf_hours):
        return m * (interval_hours + write_hours) + last
    scale = (mtbf_hours + downtime_hours) * math.exp(restart_hours / mtbf_hours)

    def segment(s: float) -> float:
        return scale * math.expm1(s / mtbf_hours)

    return m * segment(interval_hours + write_hours) + segment(last)


def case_expected_wall_hours(case: ReferenceCase) -> float:
    """:func:`daly_expected_wall_hours` for a case (see :func:`mean_downtime_hours`)."""
    return daly_expected_wall_hours(
        case.work_hours,
        case.interval_hours,
        case.write_hours,
        case.restart_hours,
        job_mtbf_hours(case),
        mean_downtime_hours(case),
    )


# --------------------------------------------------------------------------- SimPy model


class ExposureGate:
    """Open while the job is exposed (its hardware ages); closed while it is down.

    Failure processes register themselves while they sleep on exposed time; closing the
    gate interrupts them so they can book the exposure they have used, and they wait on
    :meth:`opened` until the job is exposed again.
    """

    def __init__(self, env: simpy.Environment) -> None:
        self.env = env
        self.is_open = True
        self.sleeping: set[simpy.Process] = set()
        self._opened = env.event()

    def opened(self) -> simpy.Event:
        """Event that fires when the gate next opens."""
        return self._opened

    def close(self) -> None:
        """Stop the exposure clock: interrupt every sleeping failure process."""
        if not self.is_open:
            return
        self.is_open = False
        sleeping, self.sleeping = self.sleeping, set()
        for process in sleeping:
            process.interrupt("paused")

    def open(self) -> None:
        """Restart the exposure clock: wake the failure processes."""
        if self.is_open:
            return
        self.is_open = True
        opened, self._opened = self._opened, self.env.event()
        opened.succeed()


@dataclass(frozen=True)
class Failure:
    """Cause carried by the :class:`simpy.Interrupt` a failure process sends the job."""

    class_index: int


def failure_process(
    env: simpy.Environment,
    gate: ExposureGate,
    job: simpy.Process,
    class_index: int,
    rate_per_hour: float,
    rng: np.random.Generator,
) -> Generator[simpy.Event, Any, None]:
    """Failures of one class: Poisson of ``rate_per_hour`` on the exposure clock."""
    me = env.active_process
    while True:
        remaining = rng.exponential(1.0 / rate_per_hour)  # exposed hours to next failure
        while remaining > 0.0:
            if not gate.is_open:
                yield gate.opened()
                continue
            started = env.now
            gate.sleeping.add(me)
            try:
                yield env.timeout(remaining)
                remaining = 0.0
            except simpy.Interrupt:  # the job went idle: book the exposure used so far
                remaining -= env.now - started
            finally:
                gate.sleeping.discard(me)
        if job.is_alive:
            job.interrupt(Failure(class_index))


class ReferenceJob:
    """One trial of the job: state, accounting, and the SimPy job process."""

    def __init__(self, env: simpy.Environment, case: ReferenceCase, rng: np.random.Generator):
        self.env = env
        self.case = case
        self.repair_rng = rng
        self.gate = ExposureGate(env)
        self.spare_pool = simpy.Container(env, init=case.spares)
        self.hours = dict.fromkeys(BUCKETS, 0.0)
        self.interruptions_by_class = np.zeros(len(case.failure_classes), dtype=np.int64)
        self.spares_used = 0
        self.wall_hours = 0.0

    # -- job -------------------------------------------------------------------------
    def run(self) -> Generator[simpy.Event, Any, None]:
        """The job: compute segments and checkpoints; recover from interrupts."""
        env, case = self.env, self.case
        tau = case.interval_hours
        checkpoints = case.checkpoints_per_run
        last_segment = case.work_hours - checkpoints * tau
        committed = 0  # segments completed and saved by a checkpoint
        while True:
            started = env.now
            try:
                if committed < checkpoints:
                    yield env.timeout(tau)
                    yield env.timeout(case.write_hours)
                    self.hours["useful"] += tau
                    self.hours["checkpoint"] += case.write_hours
                    committed += 1
                else:
                    yield env.timeout(last_segment)
                    self.hours["useful"] += last_segment
                    return
            except simpy.Interrupt as interrupt:
                self.hours["rework"] += env.now - started
                yield from self.recover(interrupt.cause)

    def recover(self, failure: Failure) -> Generator[simpy.Event, Any, None]:
        """Detect, swap or wait for repair, restart; a failure in the restart repeats it."""
        env = self.env
        while True:
            failure_class = self.case.failure_classes[failure.class_index]
            self.interruptions_by_class[failure.class_index] += 1
            self.gate.close()

            yield env.timeout(failure_class.detect_hours)
            self.hours["detect"] += failure_class.detect_hours

            waiting_since = env.now
            yield from self.replace_unit(failure_class)
            self.hours["waiting"] += env.now - waiting_since

            self.gate.open()
            started = env.now
            try:
                yield env.timeout(self.case.restart_hours)
                self.hours["restart"] += self.case.restart_hours
                return
            except simpy.Interrupt as interrupt:
                self.hours["restart"] += env.now - started
                failure = interrupt.cause

    # -- spares and repair -----------------------------------------------------------
    def draw_repair_hours(self, failure_class: FailureClass) -> float:
        """Repair duration of one failed unit, hours."""
        if failure_class.repair_dist == "exponential":
            return float(self.repair_rng.exponential(failure_class.repair_hours))
        return failure_class.repair_hours

    def replace_unit(self, failure_class: FailureClass) -> Generator[simpy.Event, Any, None]:
        """Swap in a spare, or wait for the own repair or a spare's return, whichever first."""
        env = self.env
        repaired = env.timeout(self.draw_repair_hours(failure_class))  # repair starts now
        if not failure_class.uses_spares:
            yield repaired
            return
        spare = self.spare_pool.get(1)  # triggers at once when the pool has a spare
        yield spare | repaired
        if spare.triggered:
            self.spares_used += 1
            env.process(self.return_to_pool(repaired))
        else:
            spare.cancel()  # own unit repaired first: put it back, pool unchanged

    def return_to_pool(self, repaired: simpy.Event) -> Generator[simpy.Event, Any, None]:
        """A swapped-out unit joins the spare pool when its repair ends."""
        yield repaired
        yield self.spare_pool.put(1)


def simulate_trial(case: ReferenceCase, seed_sequence: np.random.SeedSequence) -> ReferenceJob:
    """Run one trial of the job in a fresh :class:`simpy.Environment`."""
    class_seeds = seed_sequence.spawn(len(case.failure_classes) + 1)
    env = simpy.Environment()
    job = ReferenceJob(env, case, np.random.default_rng(class_seeds[-1]))
    job_process = env.process(job.run())
    for index, failure_class in enumerate(case.failure_classes):
        if failure_class.failure_rate_per_hour > 0:
            env.process(
                failure_process(
                    env,
                    job.gate,
                    job_process,
                    index,
                    failure_class.failure_rate_per_hour,
                    np.random.default_rng(class_seeds[index]),
                )
            )
    env.run(until=job_process)
    job.wall_hours = env.now
    return job


def simulate_reference(case: ReferenceCase, trials: int, seed: int) -> dict[str, np.ndarray]:
    """Simulate ``trials`` independent runs of the job with SimPy.

    Parameters
    ----------
    case : ReferenceCase
        Job and failure parameters.
    trials : int
        Number of independent trials.
    seed : int
        Seed; trial i uses the i-th child of ``numpy.random.SeedSequence(seed)``.

    Returns
    -------
    dict of str to numpy.ndarray
        Per-trial arrays of length ``trials``: ``wall_hours`` and the buckets ``useful``,
        ``rework``, ``checkpoint``, ``detect``, ``restart``, ``waiting`` (hours; the
        buckets sum to ``wall_hours``), ``interruptions`` and ``spares_used`` (counts), and
        ``interruptions_by_class`` of shape ``(trials, len(case.failure_classes))``.
    """
    out: dict[str, np.ndarray] = {name: np.empty(trials) for name in ("wall_hours", *BUCKETS)}
    by_class = np.zeros((trials, len(case.failure_classes)), dtype=np.int64)
    spares_used = np.zeros(trials, dtype=np.int64)
    for trial, seed_sequence in enumerate(np.random.SeedSequence(seed).spawn(trials)):
        job = simulate_trial(case, seed_sequence)
        out["wall_hours"][trial] = job.wall_hours
        for bucket in BUCKETS:
            out[bucket][trial] = job.hours[bucket]
        by_class[trial] = job.interruptions_by_class
        spares_used[trial] = job.spares_used
    out["interruptions"] = by_class.sum(axis=1)
    out["spares_used"] = spares_used
    out["interruptions_by_class"] = by_class
    return out


def _demo() -> None:
    case = ReferenceCase(
        work_hours=24.0 * 14,
        interval_hours=2.0,
        write_hours=0.1,
        restart_hours=0.5,
        spares=64,
        failure_classes=(
            FailureClass(
                "gpu",
                units=10_240,
                mtbf_hours=5 * 8760.0,
                repair_hours=48.0,
                detect_hours=0.05,
                uses_spares=True,
                repair_dist="exponential",
            ),
            FailureClass(
                "link",
                units=2_560,
                mtbf_hours=10 * 8760.0,
                repair_hours=2.0,
                detect_hours=0.1,
                uses_spares=False,
            ),
        ),
    )
    trials = 500
    started = time.perf_counter()
    result = simulate_reference(case, trials=trials, seed=2026)
    elapsed = time.perf_counter() - started
    print(f"job MTBF {job_mtbf_hours(case):.2f} h, {trials} trials in {elapsed:.2f} s")
    for name in ("wall_hours", *BUCKETS, "interruptions", "spares_used"):
        values = result[name]
        print(f"  {name:<14} mean {values.mean():10.3f}  std {values.std(ddof=1):9.3f}")
    print(f"  goodput        mean {np.mean(case.work_hours / result['wall_hours']):10.4f}")
    print(f"  Daly closed form, a spare always free: {case_expected_wall_hours(case):10.3f} h")


if __name__ == "__main__":
    _demo()
