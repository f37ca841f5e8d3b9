"""The checkpoint interval of a live run, from its measured save times and failures.

The failure rate is a Gamma-Poisson posterior: a Gamma prior on the job's failure rate
(``prior_failures`` pseudo-failures over ``prior_failures x prior_mtti_hours`` hours: its
mean the prior's MTTI), updated by the failures seen over the hours run; its mean MTTI is
``(beta0 + hours) / (alpha0 + failures)``. The save time is the mean of the saves seen (a
blocking save; the prior's until one is seen). The interval is Daly's optimum for them
(:func:`relplan.sim.closed_forms.daly_interval`), in steps of the measured step time.

Beside it, NVRx-style section timeouts (``nvidia-resiliency-ext``'s fault tolerance
computes each section's timeout as the longest duration seen times a safety factor, 5 by
default) and the lead of a Slurm ``--signal``: time to finish the step in progress and
write a checkpoint before the allocation's end.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from scipy import stats

from relplan.errors import ConfigError
from relplan.sim.closed_forms import daly_interval

SAFETY_FACTOR = 5.0
"""A section's timeout over the longest duration seen (NVRx's default)."""

SIGNAL_SAVES = 2.0
"""The Slurm signal's lead in saves: time for the step in progress and two of the longest
saves seen (one may fail and be retried)."""

CREDIBLE = 0.9
"""The credibility of the MTTI interval reported."""


@dataclass(frozen=True)
class Advice:
    """The advice at one moment of a run.

    Attributes
    ----------
    interval_steps : int
        Steps between checkpoints (at least 1).
    interval_seconds : float
        The same in seconds of compute (Daly's optimum).
    mtti_hours : float
        The posterior mean MTTI, hours.
    mtti_ci90_hours : tuple of float
        Its 90% credible interval, hours.
    save_seconds : float
        The blocking save time used (the mean of those seen), seconds.
    step_seconds : float
        The step time used, seconds.
    failures, hours_run : float
        Failures seen and hours run so far (beyond the prior).
    section_timeouts_seconds : dict of str to float
        NVRx-style timeouts: ``setup`` (a restart), ``step``, ``checkpointing`` (a save),
        the longest seen times :data:`SAFETY_FACTOR`.
    slurm_signal_seconds : int
        The lead of ``sbatch --signal=B:USR1@SECONDS``: a step and
        :data:`SIGNAL_SAVES` of the longest saves, whole minutes.
    """

    interval_steps: int
    interval_seconds: float
    mtti_hours: float
    mtti_ci90_hours: tuple[float, float]
    save_seconds: float
    step_seconds: float
    failures: float
    hours_run: float
    section_timeouts_seconds: dict[str, float]
    slurm_signal_seconds: int

    def to_dict(self) -> dict[str, Any]:
        """The ``relplan advise --json`` object: every attribute by name."""
        data = asdict(self)
        data["mtti_ci90_hours"] = list(self.mtti_ci90_hours)
        return data


class IntervalAdvisor:
    """A checkpoint interval recomputed as a run goes: feed it what happens, ask it for
    the interval.

    Parameters
    ----------
    step_seconds : float
        The step time, seconds (updated by :meth:`on_step` when steps are timed).
    prior_mtti_hours : float
        The job's MTTI before any failure is seen (a plan's: ``relplan simulate``'s
        ``job_mtti_hours``), hours.
    prior_save_seconds : float
        The blocking save time before any save is seen, seconds.
    prior_failures : float
        The prior's weight, in failures: how many failures it takes to move the estimate
        halfway (default 2).
    restart_seconds : float
        A restart (start-up and checkpoint load), seconds: the ``setup`` section's
        timeout.
    clock : callable, optional
        Hours run so far, read at each question (default: hours since the advisor was
        made, on :func:`time.monotonic`); :meth:`on_hours` adds hours instead where the
        run's clock is its own.

    Examples
    --------
    >>> advisor = IntervalAdvisor(step_seconds=10.0, prior_mtti_hours=5.0,
    ...                           prior_save_seconds=60.0, clock=None)
    >>> advisor.on_save(60.0)
    >>> advisor.on_hours(100.0)
    >>> for _ in range(8):
    ...     advisor.on_failure()
    >>> advice = advisor.advice()
    >>> round(advice.mtti_hours, 2), advice.interval_steps
    (11.0, 214)
    """

    def __init__(self, step_seconds: float, prior_mtti_hours: float,
                 prior_save_seconds: float, prior_failures: float = 2.0,
                 restart_seconds: float = 0.0,
                 clock: Callable[[], float] | None = ...,  # type: ignore[assignment]
                 ) -> None:  # fmt: skip
        for name, value in (("step_seconds", step_seconds),
                            ("prior_mtti_hours", prior_mtti_hours),
                            ("prior_save_seconds", prior_save_seconds),
                            ("prior_failures", prior_failures)):  # fmt: skip
            if not (isinstance(value, int | float) and math.isfinite(value) and value > 0):
                raise ConfigError(name, f"must be a positive number, not {value!r}")
        if not (isinstance(restart_seconds, int | float) and restart_seconds >= 0):
            raise ConfigError("restart_seconds", f"must be 0 or more, not {restart_seconds!r}")
        self.step_seconds = float(step_seconds)
        self.prior_mtti_hours = float(prior_mtti_hours)
        self.prior_save_seconds = float(prior_save_seconds)
        self.prior_failures = float(prior_failures)
        self.restart_seconds = float(restart_seconds)
        self.failures = 0.0
        self._hours = 0.0
        self._saves: list[float] = []
        self._longest_step = float(step_seconds)
        if clock is ...:
            start = time.monotonic()
            clock = lambda: (time.monotonic() - start) / 3600.0  # noqa: E731
        self._clock = clock

    def __repr__(self) -> str:
        return (f"<IntervalAdvisor: {self.failures:g} failures in {self.hours_run:,.1f} h, "
                f"{len(self._saves)} saves>")

    @property
    def hours_run(self) -> float:
        """Hours run so far: those of :meth:`on_hours` and of the clock."""
        return self._hours + (self._clock() if self._clock is not None else 0.0)

    def on_save(self, seconds: float) -> None:
        """A blocking save took ``seconds``."""
        if not (math.isfinite(seconds) and seconds >= 0):
            raise ConfigError("seconds", f"a save takes 0 seconds or more, not {seconds!r}")
        self._saves.append(float(seconds))

    def on_step(self, seconds: float) -> None:
        """A step took ``seconds``: the step time follows it (a moving mean, 1% a step)."""
        if not (math.isfinite(seconds) and seconds > 0):
            raise ConfigError("seconds", f"a step takes more than 0 seconds, not {seconds!r}")
        self.step_seconds += 0.01 * (float(seconds) - self.step_seconds)
        self._longest_step = max(self._longest_step, float(seconds))

    def on_failure(self, count: float = 1.0) -> None:
        """The job failed (``count`` times)."""
        self.failures += count

    def on_hours(self, hours: float) -> None:
        """The job ran ``hours`` more (where its clock is not the advisor's)."""
        self._hours += hours

    def state_dict(self) -> dict[str, Any]:
        """What the advisor has seen, to save with a checkpoint (plain numbers and lists)
        and give back to :meth:`load_state_dict` after a restart, which then counts as a
        failure (:meth:`on_failure`) where it was one."""
        return {"failures": self.failures, "hours_run": self.hours_run,
                "saves": list(self._saves), "step_seconds": self.step_seconds,
                "longest_step": self._longest_step}  # fmt: skip

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Go on from what :meth:`state_dict` kept: its failures, hours, saves and step
        time (the clock starts again from zero)."""
        self.failures = float(state["failures"])
        self._hours = float(state["hours_run"])
        self._saves = [float(seconds) for seconds in state["saves"]]
        self.step_seconds = float(state["step_seconds"])
        self._longest_step = float(state["longest_step"])
        if self._clock is not None:
            self._hours -= self._clock()

    def mtti_posterior(self) -> Any:
        """The posterior of the failure rate per hour: a frozen :func:`scipy.stats.gamma`
        of shape ``alpha0 + failures`` and rate ``beta0 + hours_run``."""
        alpha = self.prior_failures + self.failures
        beta = self.prior_failures * self.prior_mtti_hours + self.hours_run
        return stats.gamma(alpha, scale=1.0 / beta)

    def advice(self) -> Advice:
        """Everything advised now (see :class:`Advice`)."""
        alpha = self.prior_failures + self.failures
        beta = self.prior_failures * self.prior_mtti_hours + self.hours_run
        mtti = beta / alpha
        rate = self.mtti_posterior()
        tail = (1.0 - CREDIBLE) / 2.0
        ci = (float(1.0 / rate.ppf(1.0 - tail)), float(1.0 / rate.ppf(tail)))
        save = sum(self._saves) / len(self._saves) if self._saves else self.prior_save_seconds
        longest_save = max(self._saves, default=self.prior_save_seconds)
        interval = daly_interval(save / 3600.0, mtti) * 3600.0
        steps = max(1, round(interval / self.step_seconds))
        timeouts = {"setup": SAFETY_FACTOR * self.restart_seconds,
                    "step": SAFETY_FACTOR * self._longest_step,
                    "checkpointing": SAFETY_FACTOR * longest_save}  # fmt: skip
        lead = self._longest_step + SIGNAL_SAVES * longest_save
        return Advice(steps, interval, mtti, ci, save, self.step_seconds, self.failures,
                      self.hours_run, timeouts, 60 * math.ceil(lead / 60.0))

    def interval_steps(self) -> int:
        """Steps between checkpoints now (:attr:`Advice.interval_steps`)."""
        return self.advice().interval_steps


def read_save_seconds(path: str | Path) -> list[float]:
    """Save times from a file: one number of seconds a line, or a CSV whose header has a
    ``seconds`` column.

    Raises
    ------
    ConfigError
        Naming ``--save-times``, the file and its first bad line.

    Examples
    --------
    >>> import tempfile, os
    >>> with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False) as file:
    ...     _ = file.write("step,seconds\\n100,61.5\\n200,58.5\\n")
    >>> read_save_seconds(file.name)
    [61.5, 58.5]
    >>> os.remove(file.name)
    """
    file = Path(path)
    try:
        lines = [line.strip() for line in file.read_text(encoding="utf-8").splitlines()]
    except OSError as error:
        raise ConfigError("--save-times", f"cannot read {file}: {error.strerror}") from None
    column = None
    header = lines[0].split(",") if lines else []
    if lines and not _is_number(header[0]):
        names = [name.strip() for name in header]
        if "seconds" not in names:
            raise ConfigError("--save-times", f"{file}: expected one number of seconds a "
                                              "line, or a CSV with a seconds column; line 1 "
                                              f"is {lines[0]!r}")  # fmt: skip
        column = names.index("seconds")
    seconds = []
    for number, line in enumerate(lines[1 if column is not None else 0:],
                                  start=2 if column is not None else 1):  # fmt: skip
        if not line:
            continue
        fields = line.split(",")
        text = fields[column] if column is not None and column < len(fields) else (
            line if column is None else "")
        if not _is_number(text) or float(text) < 0:
            raise ConfigError("--save-times", f"{file}, line {number}: {line!r} is not a "
                                              "number of seconds, 0 or more")  # fmt: skip
        seconds.append(float(text))
    if not seconds:
        raise ConfigError("--save-times", f"{file} holds no save time")
    return seconds


def _is_number(text: str) -> bool:
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False
