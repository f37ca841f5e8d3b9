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
**bootstrap over job start times** replays the history for ``samples`` start times drawn
uniformly over the window, the history wrapped around its end (a job started at ``s``
sees the failure at ``t`` at ``(t - s) mod window``): the same failures, each start time
one possible job. It reports the mean over start times and the 2.5th and 97.5th
percentiles (``ci95``): where a job started at a random time in the window lands.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np

from relplan.analysis.event_log import parse_time
from relplan.analysis.incidents import IncidentLog, prepare_log
from relplan.config.schema import RelplanConfig
from relplan.errors import ConfigError
from relplan.sim.model import build_model
from relplan.vocab import BUCKETS

DEFAULT_SAMPLES = 1000
"""Job start times the bootstrap draws by default."""

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


def _shifted(failures: Sequence[ReplayFailure], window_hours: float, start: float) -> list[
    ReplayFailure
]:
    """The history as a job started ``start`` hours into the window sees it (wrapped)."""
    moved = [
        ReplayFailure(
            (failure.offset_hours - start) % window_hours,
            failure.impact,
            failure.detect_hours,
            failure.waiting_hours,
            failure.stall_hours,
        )
        for failure in failures
    ]
    return sorted(moved, key=lambda failure: failure.offset_hours)


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
        ``at_window_start``), ``lost_hours`` (``mean``, ``ci95``), ``bucket_hours``
        (means), ``interruptions`` (``mean``, ``ci95``).
    warnings : tuple of str
        What the replay left out.
    """

    window: dict[str, Any]
    log: dict[str, Any]
    policy: dict[str, Any]
    intervals: list[dict[str, Any]]
    warnings: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """The report as a JSON-ready dict (the ``relplan replay --json`` object)."""
        return {
            "window": self.window,
            "log": self.log,
            "policy": self.policy,
            "intervals": self.intervals,
            "warnings": list(self.warnings),
        }


def _summary(values: np.ndarray) -> dict[str, Any]:
    low, high = np.percentile(values, [2.5, 97.5])
    return {"mean": float(values.mean()), "ci95": [float(low), float(high)]}


def replay_failures(
    failures: Sequence[ReplayFailure],
    window_hours: float,
    policy: ReplayPolicy,
    samples: int = DEFAULT_SAMPLES,
    seed: int = 0,
) -> dict[str, Any]:
    """Replay a history for ``samples`` job start times drawn uniformly over the window.

    Parameters
    ----------
    failures : sequence of ReplayFailure
        The history, offsets in ``[0, window_hours]``.
    window_hours : float
        The window, hours.
    policy : ReplayPolicy
        Checkpoint interval, write and restart.
    samples : int
        Start times drawn (>= 1).
    seed : int
        Seed of the draw.

    Returns
    -------
    dict
        ``interval_hours``, ``goodput`` (``mean``, ``ci95``: 2.5th and 97.5th percentiles
        over start times, ``at_window_start``: the job started at the window's start),
        ``lost_hours`` (``mean``, ``ci95``), ``bucket_hours`` (means over start times),
        ``interruptions`` (``mean``, ``ci95``).

    Examples
    --------
    >>> result = replay_failures([ReplayFailure(50.0, "fatal")], 100.0,
    ...                          ReplayPolicy(1.0, 0.0, 0.5), samples=2000)
    >>> round(result["lost_hours"]["mean"], 1)  # rework 0.5 on average, restart 0.5
    1.0
    """
    ordered = sorted(failures, key=lambda failure: failure.offset_hours)
    starts = np.random.default_rng(seed).uniform(0.0, window_hours, samples)
    outcomes = [replay_history(_shifted(ordered, window_hours, start), window_hours, policy)
                for start in starts]  # fmt: skip
    goodput = np.array([outcome.goodput for outcome in outcomes])
    lost = np.array([outcome.lost_hours for outcome in outcomes])
    interruptions = np.array([outcome.interruptions for outcome in outcomes], dtype=float)
    at_start = replay_history(ordered, window_hours, policy)
    return {
        "interval_hours": policy.interval_hours,
        "goodput": {**_summary(goodput), "at_window_start": at_start.goodput},
        "lost_hours": {**_summary(lost), "at_window_start": at_start.lost_hours},
        "bucket_hours": {
            bucket: float(np.mean([outcome.bucket_hours[bucket] for outcome in outcomes]))
            for bucket in BUCKETS
        },
        "interruptions": {**_summary(interruptions), "at_window_start": at_start.interruptions},
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
        The failures (see :func:`relplan.analysis.incidents.read_incident_log`); a
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
        :func:`relplan.analysis.incidents.map_categories`).

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
    >>> from relplan.analysis.incidents import incident_log
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
    results = [
        replay_failures(
            failures,
            window_hours,
            ReplayPolicy(interval, policy_base.write_hours, restart),
            samples,
            seed,
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
    )
