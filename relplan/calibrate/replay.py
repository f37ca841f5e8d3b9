"""A real failure history replayed against a config's checkpoint policy: ``relplan replay``.

The log's failures (time, category, optionally downtime) over a window ``[start, end]`` are
laid on a job that runs through the whole window and checkpoints every ``interval`` hours
of work, each checkpoint blocking for the config's write time. Deterministic rules, the
model's own (see the project's design):

- a failure of a **fatal** mode loses the work since the last completed checkpoint
  (``rework``: the useful time and any part of a write in progress), then the job is down
  for the mode's ``detect`` time, then ``waiting`` and then the config's restart. The
  waiting is what the log's downtime adds beyond detection and restart
  (``max(0, downtime - detect - restart)``; none without a downtime): the history's own
  wait for a repair or a spare.
- a failure during the **restart** starts the restart again (from its own detection); one
  during detection or waiting is absorbed (the job's hardware is idle then, as in the
  model), and so are simultaneous records of one failure.
- a **transient** mode's failure stalls the job for the mode's stall time (``stall``).
- failures of other impacts (degraded, slow, corruption, elastic) are counted but not
  replayed: their cost depends on state a log does not give.

Every hour of the window goes to one bucket (:data:`relplan.vocab.BUCKETS`): ``useful``,
``rework``, ``checkpoint``, ``detect``, ``waiting``, ``restart``, ``stall`` (the others stay
0); goodput is ``useful / window`` and the lost hours are the rest. A part of an outage
past the window's end is cut off.

Where the job starts decides where its checkpoints fall between the failures. The
history is replayed for ``samples`` **job start times** drawn uniformly over the window,
the history wrapped around its end (a job started at ``s`` sees the failure at ``t`` at
``(t - s) mod window``): the same failures, each start time one possible job. Each figure
is the mean over start times, with the 2.5th and 97.5th percentiles over them as
``phase_ci95``: where a job started at a random time in the window lands, given this
history.

The log is one history among those its failure process could have given. The 95%
interval (``ci95``) is a **circular block bootstrap of the failure history**
(:mod:`relplan.stats.bootstrap`): ``samples`` new histories, each the window
filled with blocks of the log's own (each from a uniform point, the history wrapped),
replayed from their start; the 2.5th and 97.5th percentiles of their figures. A block
keeps the failures in it and their spacing (a burst stays a burst); the block length is
Politis and White's rule on the failures per bin, about a bin (one failure's worth of
window) for failures without dependence, longer for bursty ones. The interval then holds
how many failures came and when, not only where the checkpoints fell: on a Poisson log
it covers the process's goodput at about the stated 95%.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np

from relplan.calibrate.event_log import parse_time
from relplan.calibrate.incidents import IncidentLog, prepare_log
from relplan.config.schema import RelplanConfig
from relplan.errors import ConfigError
from relplan.sim.model import build_model
from relplan.stats.bootstrap import BlockRule, Resampled, block_rule, resample_histories
from relplan.vocab import BUCKETS

DEFAULT_SAMPLES = 1000
"""Job start times, and histories the block bootstrap makes, by default."""

HISTORY_STREAM = 1
"""The block bootstrap's random stream, apart from the start times': ``(seed, 1)``."""

REPLAYED_IMPACTS = ("fatal", "transient")
"""Impacts a replay applies; failures of the others are counted, not replayed."""


@dataclass(frozen=True)
class ReplayFailure:
    """One failure of the history, as the replay applies it.

    Attributes
    ----------
    offset_hours : float
        Hours from the window's start.
    impact : {"fatal", "transient"}
        What it does to the job.
    detect_hours : float
        Its mode's detection time (fatal), hours.
    waiting_hours : float
        The wait it adds beyond detection and restart (from the log's downtime), hours.
    stall_hours : float
        Its mode's stall (transient), hours.
    """

    offset_hours: float
    impact: str
    detect_hours: float = 0.0
    waiting_hours: float = 0.0
    stall_hours: float = 0.0


@dataclass(frozen=True)
class ReplayPolicy:
    """The checkpoint and restart policy a history is replayed against.

    Attributes
    ----------
    interval_hours : float
        Work between checkpoints (tau), hours (> 0).
    write_hours : float
        Blocking time of a checkpoint write (delta), hours.
    restart_hours : float
        Restart after detection (and waiting), hours.
    """

    interval_hours: float
    write_hours: float
    restart_hours: float


@dataclass
class ReplayOutcome:
    """One replay: hours per bucket and the interruptions.

    Attributes
    ----------
    bucket_hours : dict of str to float
        Hours of the window per bucket (:data:`relplan.vocab.BUCKETS`).
    interruptions : int
        Fatal failures that stopped the job (absorbed ones not counted).
    absorbed : int
        Failures during detection or waiting, which cost nothing more.
    """

    bucket_hours: dict[str, float] = field(
        default_factory=lambda: dict.fromkeys(BUCKETS, 0.0)
    )
    interruptions: int = 0
    absorbed: int = 0

    @property
    def window_hours(self) -> float:
        """The window, hours (the sum of the buckets)."""
        return sum(self.bucket_hours.values())

    @property
    def goodput(self) -> float:
        """Useful hours over the window."""
        return self.bucket_hours["useful"] / self.window_hours

    @property
    def lost_hours(self) -> float:
        """Hours of the window not useful."""
        return self.window_hours - self.bucket_hours["useful"]


def replay_history(
    failures: Sequence[ReplayFailure], window_hours: float, policy: ReplayPolicy
) -> ReplayOutcome:
    """Replay failures (sorted by offset, within the window) on a job started at offset 0.

    Parameters
    ----------
    failures : sequence of ReplayFailure
        The history, sorted by ``offset_hours``, each in ``[0, window_hours]``.
    window_hours : float
        The window, hours.
    policy : ReplayPolicy
        Checkpoint interval, write and restart.

    Returns
    -------
    ReplayOutcome
        Hours per bucket (summing to the window) and the interruptions.

    Examples
    --------
    One crash 10.25 h in, hourly checkpoints written in no time, 0.1 h to detect, 0.5 h to
    restart: 0.25 h of rework, 0.85 h lost of 100.

    >>> outcome = replay_history([ReplayFailure(10.25, "fatal", detect_hours=0.1)], 100.0,
    ...                          ReplayPolicy(1.0, 0.0, 0.5))
    >>> round(outcome.lost_hours, 6), round(outcome.bucket_hours["rework"], 6)
    (0.85, 0.25)
    """
    tau, delta, restart = policy.interval_hours, policy.write_hours, policy.restart_hours
    segment = tau + delta
    buckets = dict.fromkeys(BUCKETS, 0.0)
    outcome = ReplayOutcome(buckets)
    position = 0.0  # where the job is in its current segment (work, then write)
    now = 0.0  # when the job runs again
    wait_end = restart_end = -math.inf

    def clipped(begin: float, end: float) -> float:
        return max(0.0, min(end, window_hours) - min(begin, window_hours))

    def run(until: float) -> None:
        nonlocal position
        if until <= now:
            return
        reach = position + (until - now)
        full = math.floor(reach / segment)
        rest = reach - full * segment
        start_full = math.floor(position / segment)  # 0: position is inside a segment
        start_rest = position - start_full * segment

        def work(full_segments: int, part: float) -> float:
            return full_segments * tau + min(part, tau)

        def written(full_segments: int, part: float) -> float:
            return full_segments * delta + max(0.0, part - tau)

        buckets["useful"] += work(full, rest) - work(start_full, start_rest)
        buckets["checkpoint"] += written(full, rest) - written(start_full, start_rest)
        position = rest

    def outage(at: float, failure: ReplayFailure) -> None:
        nonlocal now, wait_end, restart_end
        detect_end = at + failure.detect_hours
        wait_end = detect_end + failure.waiting_hours
        restart_end = wait_end + restart
        buckets["detect"] += clipped(at, detect_end)
        buckets["waiting"] += clipped(detect_end, wait_end)
        buckets["restart"] += clipped(wait_end, restart_end)
        outcome.interruptions += 1
        now = restart_end

    for failure in failures:
        at = failure.offset_hours
        if at < now:  # the job is down or stalled
            if failure.impact != "fatal" or at < wait_end:
                outcome.absorbed += 1
                continue
            if at < restart_end:  # the restart starts again
                buckets["restart"] -= clipped(at, restart_end)
                outage(at, failure)
                continue
            buckets["stall"] -= clipped(at, now)  # a crash ends a stall
            now = at
        run(at)
        now = at
        if failure.impact == "fatal":
            lost_work, lost_write = min(position, tau), max(0.0, position - tau)
            buckets["useful"] -= lost_work
            buckets["checkpoint"] -= lost_write
            buckets["rework"] += lost_work + lost_write
            position = 0.0
            outage(at, failure)
        else:
            buckets["stall"] += clipped(at, at + failure.stall_hours)
            now = at + failure.stall_hours
    run(window_hours)
    return outcome


@dataclass(frozen=True)
class HistoryBatch:
    """Many histories at once, one a row, padded: the input of :func:`replay_batch`.

    Attributes
    ----------
    offsets_hours : numpy.ndarray
        ``(histories, length)``: each failure's offset, hours, increasing along a row.
    active : numpy.ndarray of bool
        Where a row holds a failure (False: padding after its last).
    fatal : numpy.ndarray of bool
        Where the failure is fatal (else transient).
    detect_hours, waiting_hours, stall_hours : numpy.ndarray
        Each failure's detection, waiting and stall, hours.
    """

    offsets_hours: np.ndarray
    active: np.ndarray
    fatal: np.ndarray
    detect_hours: np.ndarray
    waiting_hours: np.ndarray
    stall_hours: np.ndarray


def _history_arrays(failures: Sequence[ReplayFailure]) -> dict[str, np.ndarray]:
    """A history's failures as arrays, in its order."""
    return {
        "offsets_hours": np.array([failure.offset_hours for failure in failures], dtype=float),
        "fatal": np.array([failure.impact == "fatal" for failure in failures], dtype=bool),
        "detect_hours": np.array([failure.detect_hours for failure in failures], dtype=float),
        "waiting_hours": np.array([failure.waiting_hours for failure in failures], dtype=float),
        "stall_hours": np.array([failure.stall_hours for failure in failures], dtype=float),
    }


def shifted_batch(
    failures: Sequence[ReplayFailure], window_hours: float, starts: np.ndarray
) -> HistoryBatch:
    """The history as jobs started ``starts`` hours into the window see it (wrapped).

    A job started at ``s`` sees the failure at ``t`` at ``(t - s) mod window``; each row
    is sorted (stably: simultaneous failures keep their order).

    Examples
    --------
    >>> import numpy as np
    >>> batch = shifted_batch([ReplayFailure(10.0, "fatal"), ReplayFailure(60.0, "fatal")],
    ...                       100.0, np.array([0.0, 30.0]))
    >>> batch.offsets_hours.tolist()
    [[10.0, 60.0], [30.0, 80.0]]
    """
    columns = _history_arrays(failures)
    moved = (columns["offsets_hours"][None, :] - np.asarray(starts)[:, None]) % window_hours
    order = np.argsort(moved, axis=1, kind="stable")
    return HistoryBatch(
        offsets_hours=np.take_along_axis(moved, order, axis=1),
        active=np.ones(moved.shape, dtype=bool),
        **{name: values[order] for name, values in columns.items() if name != "offsets_hours"},
    )


def _resampled_batch(failures: Sequence[ReplayFailure], made: Resampled) -> HistoryBatch:
    """Bootstrap histories (each failure a copy of one of ``failures``) as a batch."""
    columns = _history_arrays(failures)
    if not columns["offsets_hours"].size:
        empty = np.zeros(made.offsets_hours.shape)
        return HistoryBatch(made.offsets_hours, made.active, empty.astype(bool), empty, empty,
                            empty)  # fmt: skip
    return HistoryBatch(
        offsets_hours=made.offsets_hours,
        active=made.active,
        **{name: values[made.source] for name, values in columns.items()
           if name != "offsets_hours"},
    )  # fmt: skip


@dataclass(frozen=True)
class BatchOutcome:
    """Replays of many histories: hours per bucket and interruptions, one value a history.

    Attributes
    ----------
    bucket_hours : dict of str to numpy.ndarray
        Hours of the window per bucket (:data:`relplan.vocab.BUCKETS`), per history.
    interruptions : numpy.ndarray of int
        Fatal failures that stopped the job, per history.
    absorbed : numpy.ndarray of int
        Failures during detection or waiting, per history.
    """

    bucket_hours: dict[str, np.ndarray]
    interruptions: np.ndarray
    absorbed: np.ndarray

    @property
    def window_hours(self) -> np.ndarray:
        """The window, hours (the sum of the buckets, in their order)."""
        total = np.zeros_like(self.bucket_hours["useful"])
        for bucket in BUCKETS:
            total = total + self.bucket_hours[bucket]
        return total

    @property
    def goodput(self) -> np.ndarray:
        """Useful hours over the window, per history."""
        return self.bucket_hours["useful"] / self.window_hours

    @property
    def lost_hours(self) -> np.ndarray:
        """Hours of the window not useful, per history."""
        return self.window_hours - self.bucket_hours["useful"]


def replay_batch(batch: HistoryBatch, window_hours: float, policy: ReplayPolicy) -> BatchOutcome:
    """:func:`replay_history` on every row of a batch at once, with the same arithmetic.

    The rows are stepped through together, failure by failure, each rule of the replay a
    mask; every number equals the one :func:`replay_history` gives the row's failures.

    Parameters
    ----------
    batch : HistoryBatch
        The histories.
    window_hours, policy
        As :func:`replay_history` takes them, one history of the batch at a time.

    Returns
    -------
    BatchOutcome
        Hours per bucket and interruptions, per history.

    Examples
    --------
    >>> import numpy as np
    >>> batch = shifted_batch([ReplayFailure(10.25, "fatal", detect_hours=0.1)], 100.0,
    ...                       np.array([0.0]))
    >>> outcome = replay_batch(batch, 100.0, ReplayPolicy(1.0, 0.0, 0.5))
    >>> round(float(outcome.lost_hours[0]), 6), round(float(outcome.bucket_hours["rework"][0]), 6)
    (0.85, 0.25)
    """
    tau, delta, restart = policy.interval_hours, policy.write_hours, policy.restart_hours
    segment = tau + delta
    window = window_hours
    rows = batch.offsets_hours.shape[0]
    hours = {bucket: np.zeros(rows) for bucket in BUCKETS}
    interruptions = np.zeros(rows, dtype=int)
    absorbed = np.zeros(rows, dtype=int)
    position = np.zeros(rows)
    now = np.zeros(rows)
    wait_end = np.full(rows, -math.inf)
    restart_end = np.full(rows, -math.inf)

    def clipped(begin: np.ndarray, end: np.ndarray) -> np.ndarray:
        return np.maximum(0.0, np.minimum(end, window) - np.minimum(begin, window))

    def add(bucket: str, mask: np.ndarray, values: np.ndarray) -> None:
        hours[bucket] = np.where(mask, hours[bucket] + values, hours[bucket])

    def run(mask: np.ndarray, until: np.ndarray | float) -> None:
        nonlocal position
        mask = mask & (until > now)
        reach = position + (until - now)
        full = np.floor(reach / segment)
        rest = reach - full * segment
        start_full = np.floor(position / segment)
        start_rest = position - start_full * segment
        add("useful", mask, (full * tau + np.minimum(rest, tau))
            - (start_full * tau + np.minimum(start_rest, tau)))  # fmt: skip
        add("checkpoint", mask, (full * delta + np.maximum(0.0, rest - tau))
            - (start_full * delta + np.maximum(0.0, start_rest - tau)))  # fmt: skip
        position = np.where(mask, rest, position)

    def outage(mask: np.ndarray, at: np.ndarray, index: int) -> None:
        nonlocal now, wait_end, restart_end
        detect_end = at + batch.detect_hours[:, index]
        new_wait_end = detect_end + batch.waiting_hours[:, index]
        new_restart_end = new_wait_end + restart
        add("detect", mask, clipped(at, detect_end))
        add("waiting", mask, clipped(detect_end, new_wait_end))
        add("restart", mask, clipped(new_wait_end, new_restart_end))
        interruptions[mask] += 1
        wait_end = np.where(mask, new_wait_end, wait_end)
        restart_end = np.where(mask, new_restart_end, restart_end)
        now = np.where(mask, restart_end, now)

    with np.errstate(invalid="ignore"):
        for index in range(batch.offsets_hours.shape[1]):
            at = batch.offsets_hours[:, index]
            active = batch.active[:, index]
            fatal = batch.fatal[:, index]
            down = active & (at < now)
            absorb = down & (~fatal | (at < wait_end))
            again = down & ~absorb & (at < restart_end)  # the restart starts again
            ends_stall = down & ~absorb & ~again  # a crash ends a stall
            absorbed[absorb] += 1
            add("restart", again, -clipped(at, restart_end))
            outage(again, at, index)
            add("stall", ends_stall, -clipped(at, now))
            now = np.where(ends_stall, at, now)
            going = active & ~absorb & ~again
            run(going, at)
            now = np.where(going, at, now)
            crash = going & fatal
            lost_work = np.minimum(position, tau)
            lost_write = np.maximum(0.0, position - tau)
            add("useful", crash, -lost_work)
            add("checkpoint", crash, -lost_write)
            add("rework", crash, lost_work + lost_write)
            position = np.where(crash, 0.0, position)
            outage(crash, at, index)
            stalled = going & ~fatal
            stall = batch.stall_hours[:, index]
            add("stall", stalled, clipped(at, at + stall))
            now = np.where(stalled, at + stall, now)
        run(np.ones(rows, dtype=bool), window)
    return BatchOutcome(hours, interruptions, absorbed)


@dataclass(frozen=True)
class ReplayReport:
    """A history replayed for each interval, bootstrapped over job start times.

    Attributes
    ----------
    window : dict
        ``start``, ``end`` (ISO 8601), ``hours``.
    log : dict
        ``events`` in the window, ``outside`` it, ``duplicates_dropped``,
        ``mapped_dropped``, ``replayed`` (per impact), ``not_replayed`` (per category).
    policy : dict
        ``write_hours``, ``restart_hours``, ``samples``, ``seed``.
    intervals : list of dict
        Per interval: ``interval_hours``, ``goodput`` (``mean``, ``ci95``,
        ``phase_ci95``, ``at_window_start``), ``lost_hours`` and ``interruptions`` (the
        same), ``bucket_hours`` (means over start times).
    warnings : tuple of str
        What the replay left out.
    bootstrap : dict
        The block bootstrap of the history: ``method``, ``rule``, ``block_hours``,
        ``bin_hours``, ``bins``, ``block_bins``, ``samples``.
    """

    window: dict[str, Any]
    log: dict[str, Any]
    policy: dict[str, Any]
    intervals: list[dict[str, Any]]
    warnings: tuple[str, ...] = ()
    bootstrap: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The report as a JSON-ready dict (the ``relplan replay --json`` object)."""
        return {
            "window": self.window,
            "log": self.log,
            "policy": self.policy,
            "bootstrap": self.bootstrap,
            "intervals": self.intervals,
            "warnings": list(self.warnings),
        }


def _percentiles(values: np.ndarray) -> list[float]:
    low, high = np.percentile(values, [2.5, 97.5])
    return [float(low), float(high)]


def bootstrap_histories(
    failures: Sequence[ReplayFailure], window_hours: float, samples: int, seed: int
) -> tuple[BlockRule, HistoryBatch]:
    """New histories made of blocks of a log's own (the circular block bootstrap).

    Parameters
    ----------
    failures, window_hours
        The history and its window, as :func:`replay_failures` takes them.
    samples : int
        Histories to make.
    seed : int
        Seed (its stream :data:`HISTORY_STREAM`, apart from the start times').

    Returns
    -------
    rule : BlockRule
        The block length chosen (Politis and White's rule) and its bins.
    histories : HistoryBatch
        One history a row, sorted by offset, within the window; a failure keeps its
        impact, detection, waiting and stall.

    Examples
    --------
    >>> rule, histories = bootstrap_histories(
    ...     [ReplayFailure(10.0, "fatal"), ReplayFailure(60.0, "fatal")], 100.0, 3, seed=0)
    >>> rule.bins, histories.offsets_hours.shape[0]
    (10, 3)
    """
    ordered = sorted(failures, key=lambda failure: failure.offset_hours)
    offsets = np.array([failure.offset_hours for failure in ordered], dtype=float)
    rule = block_rule(offsets, window_hours)
    rng = np.random.default_rng([seed, HISTORY_STREAM])
    made = resample_histories(offsets, window_hours, rule.block_hours, samples, rng)
    return rule, _resampled_batch(ordered, made)


def replay_failures(
    failures: Sequence[ReplayFailure],
    window_hours: float,
    policy: ReplayPolicy,
    samples: int = DEFAULT_SAMPLES,
    seed: int = 0,
    histories: HistoryBatch | None = None,
) -> dict[str, Any]:
    """Replay a history for job start times over the window, and its bootstrap histories.

    Parameters
    ----------
    failures : sequence of ReplayFailure
        The history, offsets in ``[0, window_hours]``.
    window_hours : float
        The window, hours.
    policy : ReplayPolicy
        Checkpoint interval, write and restart.
    samples : int
        Start times drawn (>= 1), and histories made when ``histories`` is not given.
    seed : int
        Seed of the draws.
    histories : HistoryBatch, optional
        The bootstrap histories (see :func:`bootstrap_histories`), to replay several
        intervals on the same ones; by default made here.

    Returns
    -------
    dict
        ``interval_hours``; ``goodput``, ``lost_hours`` and ``interruptions``, each with
        ``mean`` (over start times), ``ci95`` (2.5th and 97.5th percentiles over the
        bootstrap histories), ``phase_ci95`` (the same over start times: where the
        checkpoints fall, this history given) and ``at_window_start`` (the job started at
        the window's start); ``bucket_hours`` (means over start times).

    Examples
    --------
    >>> result = replay_failures([ReplayFailure(50.0, "fatal")], 100.0,
    ...                          ReplayPolicy(1.0, 0.0, 0.5), samples=2000)
    >>> round(result["lost_hours"]["mean"], 1)  # rework 0.5 on average, restart 0.5
    1.0
    """
    ordered = sorted(failures, key=lambda failure: failure.offset_hours)
    starts = np.random.default_rng(seed).uniform(0.0, window_hours, samples)
    outcomes = replay_batch(shifted_batch(ordered, window_hours, starts), window_hours, policy)
    if histories is None:
        _, histories = bootstrap_histories(ordered, window_hours, samples, seed)
    resampled = replay_batch(histories, window_hours, policy)
    at_start = replay_history(ordered, window_hours, policy)

    def summary(measure: str) -> dict[str, Any]:
        values = np.asarray(getattr(outcomes, measure), dtype=float)
        bootstrap = np.asarray(getattr(resampled, measure), dtype=float)
        return {
            "mean": float(values.mean()),
            "ci95": _percentiles(bootstrap),
            "phase_ci95": _percentiles(values),
            "at_window_start": getattr(at_start, measure),
        }

    return {
        "interval_hours": policy.interval_hours,
        "goodput": summary("goodput"),
        "lost_hours": summary("lost_hours"),
        "bucket_hours": {
            bucket: float(np.mean(outcomes.bucket_hours[bucket])) for bucket in BUCKETS
        },
        "interruptions": summary("interruptions"),
    }


def replay_log(
    log: IncidentLog,
    config: RelplanConfig,
    start: str | datetime,
    end: str | datetime,
    intervals_hours: Sequence[float] | None = None,
    samples: int = DEFAULT_SAMPLES,
    seed: int | None = None,
    category_map: dict[str, str] | None = None,
) -> ReplayReport:
    """Replay an incident log's failures against a config's checkpoint and restart policy.

    Parameters
    ----------
    log : IncidentLog
        The failures (see :func:`relplan.calibrate.incidents.read_incident_log`); a
        ``downtime_hours`` where given sets the wait beyond detection and restart.
    config : RelplanConfig
        Its failure modes give each category's impact, detection and stall; its job the
        checkpoint write (blocking part) and restart.
    start, end : str or datetime
        The window (ISO 8601); failures outside it are left out.
    intervals_hours : sequence of float, optional
        Checkpoint intervals to replay, hours (default: the config's).
    samples : int
        Job start times drawn for the bootstrap (>= 1).
    seed : int, optional
        Seed of the draw (default: the config's ``simulation.seed``).
    category_map : dict of str to str, optional
        The log's own categories onto the config's modes (see
        :func:`relplan.calibrate.incidents.map_categories`).

    Returns
    -------
    ReplayReport
        Per interval: goodput, lost hours, hours per bucket and interruptions.

    Raises
    ------
    ConfigError
        ``--start`` / ``--end`` for a bad window, ``LOG`` for a window without failures,
        ``category`` for categories the config lacks, ``--interval`` for an interval
        <= 0, ``--samples`` for fewer than one, ``--map`` for a bad map.

    Examples
    --------
    >>> from relplan.calibrate.incidents import incident_log
    >>> from relplan.config.loading import load_config
    >>> log = incident_log(["2024-01-02T10:15Z"], ["gpu"])
    >>> report = replay_log(log, load_config("configs/small.toml"), "2024-01-01", "2024-01-31",
    ...                     samples=200)
    >>> report.intervals[0]["interruptions"]["mean"], report.window["hours"]
    (1.0, 720.0)
    """
    window_start, window_end = parse_time(start, "--start"), parse_time(end, "--end")
    if window_end <= window_start:
        raise ConfigError(
            "--end", f"{window_end.isoformat()} is not after --start {window_start.isoformat()}"
        )
    if samples < 1:
        raise ConfigError("--samples", f"must be at least 1 (got {samples})")
    model = build_model(config)
    if intervals_hours is None:
        intervals_hours = [model.job.interval_hours]
    for interval in intervals_hours:
        if not interval > 0:
            raise ConfigError("--interval", f"must be > 0 (got {interval!r} h)")
    log, mapped_dropped, duplicates = prepare_log(log, config, category_map)
    window_hours = (window_end - window_start).total_seconds() / 3600.0
    modes = {mode.name: mode for mode in model.modes}
    restart = model.job.restart_hours
    failures = []
    not_replayed: Counter[str] = Counter()
    replayed: Counter[str] = Counter()
    outside = 0
    for time, category, downtime in zip(log.times, log.categories, log.downtime_hours,
                                        strict=True):  # fmt: skip
        if not window_start <= time <= window_end:
            outside += 1
            continue
        mode = modes.get(category) or modes.get(f"{category}.fabric")
        if mode is None or mode.impact not in REPLAYED_IMPACTS:
            not_replayed[category] += 1
            continue
        replayed[mode.impact] += 1
        waiting = max(0.0, downtime - mode.detect_hours - restart) if downtime else 0.0
        failures.append(
            ReplayFailure(
                offset_hours=(time - window_start).total_seconds() / 3600.0,
                impact=mode.impact,
                detect_hours=mode.detect_hours,
                waiting_hours=waiting,
                stall_hours=mode.stall_hours,
            )
        )
    events = sum(replayed.values()) + sum(not_replayed.values())
    if events == 0:
        raise ConfigError(
            "LOG",
            f"no failure between {window_start.isoformat()} and {window_end.isoformat()}"
            + (
                f" (the log runs from {min(log.times).isoformat()} to "
                f"{max(log.times).isoformat()})"
                if log.times
                else " (the log is empty)"
            ),
        )
    warnings = []
    if model.job.fast_interval_hours is not None:
        warnings.append("the fast checkpoint tier is not replayed: every checkpoint is durable")
    if model.job.persist_hours > 0:
        warnings.append("an asynchronous checkpoint counts as durable once its write ends")
    if duplicates:
        warnings.append(f"{duplicates:,} duplicated rows dropped")
    if not_replayed:
        warnings.append(
            "not replayed (their impact is neither fatal nor transient, or they have no "
            "unit in the job): "
            + ", ".join(f"{name} ({count})" for name, count in sorted(not_replayed.items()))
        )
    seed = config.simulation.seed if seed is None else seed
    policy_base = ReplayPolicy(model.job.interval_hours, model.job.write_hours, restart)
    rule, histories = bootstrap_histories(failures, window_hours, samples, seed)
    results = [
        replay_failures(
            failures,
            window_hours,
            ReplayPolicy(interval, policy_base.write_hours, restart),
            samples,
            seed,
            histories,
        )
        for interval in intervals_hours
    ]
    return ReplayReport(
        window={
            "start": window_start.isoformat(),
            "end": window_end.isoformat(),
            "hours": window_hours,
        },
        log={
            "events": events,
            "outside": outside,
            "duplicates_dropped": duplicates,
            "mapped_dropped": mapped_dropped,
            "replayed": dict(replayed),
            "not_replayed": dict(not_replayed),
        },
        policy={
            "write_hours": policy_base.write_hours,
            "restart_hours": restart,
            "samples": samples,
            "seed": seed,
        },
        intervals=results,
        warnings=tuple(warnings),
        bootstrap={**rule.to_dict(), "samples": samples},
    )
