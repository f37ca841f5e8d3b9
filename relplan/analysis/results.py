"""What one simulation gives: its summaries, tidy DataFrames and per-trial columns.

A :class:`SimulationResult` wraps the engine's per-trial arrays with what is needed
to read them: the job's size, the seed and the interval. Everything here is a pure
function of that data.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from relplan.analysis.provenance import provenance_record
from relplan.sim.engine import TrialOutcomes
from relplan.sim.model import JobSpec, SimulationModel
from relplan.stats.summary import finite_or_none, summarize
from relplan.vocab import BUCKETS, METRICS, ML_GOODPUT_BADPUT, PREEMPTION_MODE, UNIT_STATS

if TYPE_CHECKING:
    import pandas as pd


def work_done_hours(job: JobSpec, outcomes: TrialOutcomes,
                    rows: slice = slice(None)) -> np.ndarray:  # fmt: skip
    """Work each trial got done, hours at full speed: the job's work, or over a
    calendar window (``job.horizon_hours``) the ``useful`` hours inside it; a trial that
    stalled for good (``depleted``: its fleet ran out of units) or whose job failed for
    good (``job_failed``: every restart attempt failed) got its ``useful`` hours done.

    Parameters
    ----------
    job : JobSpec
        The simulated job.
    outcomes : TrialOutcomes
        The engine's per-trial arrays.
    rows : slice, optional
        The trials to give (default: all).

    Returns
    -------
    numpy.ndarray
        One value per trial of ``rows``; goodput is this over the trial's wall time.
    """
    useful = outcomes.bucket_hours[rows, BUCKETS.index("useful")]
    if job.horizon_hours is None:
        done = np.full(useful.shape, job.work_hours)
        ended = outcomes.depleted[rows] | outcomes.job_failed[rows]
        if ended.any():
            done[ended] = useful[ended]
        return done
    return useful.copy()


_CACHED = ("_trials", "column_names")
"""The cached properties of :class:`SimulationResult` a pickle leaves out."""


@dataclass(frozen=True)
class SimulationResult:
    """The outcome of ``relplan simulate``: per-trial data and what it was run with.

    Attributes
    ----------
    model : SimulationModel
        The simulated job and failure modes.
    outcomes : TrialOutcomes
        Per-trial arrays from the engine.
    seed : int
        The seed that fixes every number.
    config_name : str
        A label for the config (its name, or the file stem).
    config_sha256 : str
        Digest of the validated config the model was built from
        (:func:`relplan.analysis.provenance.config_digest`); empty for a model built by
        hand.
    """

    model: SimulationModel
    outcomes: TrialOutcomes
    seed: int
    config_name: str
    config_sha256: str = ""

    def __repr__(self) -> str:
        """One line (the per-trial arrays are in :meth:`trials_frame`)."""
        return (f"SimulationResult({self.config_name!r}, trials={self.trials:,}, "
                f"seed={self.seed}, goodput mean {float(self._trials['goodput'].mean()):.4f})")

    def __getstate__(self) -> dict[str, Any]:
        """What a pickle holds: the outcomes, not the tables built from them (built again
        on first use), so that a pickled result stays the size of its trials' arrays."""
        state = dict(self.__dict__)
        for cached in _CACHED:
            state.pop(cached, None)
        return state

    @property
    def provenance(self) -> dict[str, Any]:
        """The provenance record: relplan version, config digest, seed and trials."""
        return provenance_record(self.config_sha256, self.seed, self.trials)

    @property
    def trials(self) -> int:
        """Number of trials."""
        return self.outcomes.trials

    def trials_frame(self) -> pd.DataFrame:
        """One row per trial: wall hours, goodput, lost hours, buckets, interruptions.

        Built once per result and shared: treat it as read-only.

        Returns
        -------
        pandas.DataFrame
            Columns ``trial``, ``wall_hours``, ``work_done_hours`` (the job's work, or
            what a calendar window got done), ``goodput`` (work done over wall time),
            ``lost_hours`` (wall time not spent on work done), ``gpu_hours_lost``,
            ``interruptions`` (failures that stopped the job), ``spares_used``,
            ``maintenances`` (planned windows), ``corrupted_final`` (a corruption
            reached the final weights, found too late or never), ``drains`` (servers
            running degraded swapped for a spare; only with ``job.drain``),
            ``depleted`` (the job stalled for good: a unit removed from the fleet found no
            spare left; only with ``retire = "remove"``), ``restart_attempts``,
            ``requeues`` and ``job_failed`` (restart attempts made, requeues, and whether
            the job failed for good; only where a restart may fail), ``save_hangs``
            (durable saves that hung; only with ``job.checkpoint.hang``), one
            ``<bucket>_hours`` column per bucket, ``restart_init_hours`` and
            ``restart_load_hours`` (the restart bucket's two parts) and one
            ``failures_<mode>`` column per failure mode (whatever its impact). If some
            modes' units have a history (``lemons``, ``repair_success``,
            ``retire_after``): per such mode ``units_failed_<mode>``,
            ``repeat_units_<mode>`` (units that failed at least twice),
            ``max_failures_per_unit_<mode>`` and ``retired_units_<mode>``, and over them
            all ``repeat_units`` (their sum) and ``max_failures_per_unit`` (their max).
        """
        return self._trials

    def to_frame(self) -> pd.DataFrame:
        """The per-trial table (see :meth:`trials_frame`): one row per trial."""
        return self.trials_frame()

    @functools.cached_property
    def _trials(self) -> pd.DataFrame:
        import pandas as pd  # only tables need pandas; summaries are numpy

        return pd.DataFrame({name: self.column(name) for name in self.column_names})

    @functools.cached_property
    def column_names(self) -> tuple[str, ...]:
        """Names of the per-trial columns (:meth:`trials_frame`), in order."""
        outcomes, modes = self.outcomes, self.model.modes
        names = ["trial", "wall_hours", "work_done_hours", "goodput", "lost_hours",
                 "gpu_hours_lost", "interruptions", "failures", "spares_used", "maintenances",
                 "corrupted_final"]  # fmt: skip
        if any(mode.drain != "never" for mode in modes):
            names.append("drains")
        if any(m.history is not None and m.history.retire_removes for m in modes):
            names.append("depleted")
        if self.model.job.restarts_may_fail:
            names += ["restart_attempts", "requeues", "job_failed"]
        if self.model.job.save_hang > 0.0:
            names.append("save_hangs")
        names += [*(f"{bucket}_hours" for bucket in BUCKETS),
                  "restart_init_hours", "restart_load_hours",
                  *(f"failures_{mode}" for mode in outcomes.mode_names)]  # fmt: skip
        tracked = [m for m, tracks in zip(outcomes.mode_names, outcomes.mode_tracks_units,
                                          strict=True) if tracks]  # fmt: skip
        if tracked:
            names += ["repeat_units", "max_failures_per_unit"]
            names += [f"{name}_{mode}" for mode in tracked for name in UNIT_STATS]
        return tuple(names)

    def column(self, name: str, rows: slice = slice(None)) -> np.ndarray:
        """One per-trial column of :meth:`trials_frame`, made when asked for (not kept).

        The engine keeps its counts in small integer types; a column of counts comes out
        as int64 (as in the table).

        Parameters
        ----------
        name : str
            A column of :meth:`trials_frame` (:attr:`column_names`).
        rows : slice, optional
            The trials to give (default: all).

        Returns
        -------
        numpy.ndarray
            One value per trial of ``rows``.
        """
        outcomes, job = self.outcomes, self.model.job
        if name == "trial":
            return np.arange(outcomes.trials, dtype=np.int64)[rows]
        if name == "wall_hours":
            return outcomes.wall_hours[rows]
        if name == "work_done_hours":
            return work_done_hours(job, outcomes, rows)
        if name == "goodput":
            return self.column("work_done_hours", rows) / outcomes.wall_hours[rows]
        if name == "lost_hours":
            return outcomes.wall_hours[rows] - self.column("work_done_hours", rows)
        if name == "gpu_hours_lost":
            return self.column("lost_hours", rows) * job.gpus
        if name == "interruptions":
            return outcomes.interruptions_by_mode[rows].sum(axis=1, dtype=np.int64)
        if name == "failures":
            return outcomes.failures_by_mode[rows].sum(axis=1, dtype=np.int64)
        if name in ("spares_used", "maintenances", "drains", "restart_attempts", "requeues",
                    "save_hangs"):
            return getattr(outcomes, name)[rows].astype(np.int64)
        if name in ("corrupted_final", "depleted", "job_failed"):
            return getattr(outcomes, name)[rows]
        if name == "restart_init_hours":
            return outcomes.restart_init_hours[rows]
        if name == "restart_load_hours":
            return self.column("restart_hours", rows) - outcomes.restart_init_hours[rows]
        if name.endswith("_hours") and name.removesuffix("_hours") in BUCKETS:
            return outcomes.bucket_hours[rows, BUCKETS.index(name.removesuffix("_hours"))]
        if name.startswith("failures_") and name.removeprefix("failures_") in outcomes.mode_names:
            index = outcomes.mode_names.index(name.removeprefix("failures_"))
            return outcomes.failures_by_mode[rows, index].astype(np.int64)
        stats = outcomes.unit_stats[rows]
        if name == "repeat_units":
            return stats[:, :, UNIT_STATS.index("repeat_units")].sum(axis=1, dtype=np.int64)
        if name == "max_failures_per_unit":
            most = stats[:, :, UNIT_STATS.index("max_failures_per_unit")].max(axis=1)
            return most.astype(np.int64)
        tracked = [m for m, tracks in zip(outcomes.mode_names, outcomes.mode_tracks_units,
                                          strict=True) if tracks]  # fmt: skip
        for position, mode in enumerate(tracked):
            for stat, stat_name in enumerate(UNIT_STATS):
                if name == f"{stat_name}_{mode}":
                    return stats[:, position, stat].astype(np.int64)
        raise KeyError(name)

    def trial_chunks(self, rows: int) -> Iterator[dict[str, np.ndarray]]:
        """The per-trial table in pieces of ``rows`` trials (the last may be shorter).

        Parameters
        ----------
        rows : int
            Trials per piece.

        Yields
        ------
        dict of numpy.ndarray
            The columns of :meth:`trials_frame` for one piece of trials.
        """
        for start in range(0, self.trials, rows):
            piece = slice(start, min(start + rows, self.trials))
            yield {name: self.column(name, piece) for name in self.column_names}

    @property
    def _columns(self) -> Mapping[str, np.ndarray]:
        """The per-trial columns, each made when read (see :meth:`column`)."""
        return _Columns(self)

    def summary(self) -> dict[str, Any]:
        """The JSON-ready summary of the ``simulate --json`` contract (README).

        Returns
        -------
        dict
            ``trials``, ``seed``, ``interval_hours``, the job's figures (``work_hours``,
            the failure-free hours at this design's healthy speed, or ``horizon_hours``
            for a calendar window; ``step_time_s``, the healthy step time, seconds, None
            without a ``[workload]`` or ``job.step``), a summary (:func:`summarize`)
            of each metric and of ``work_done_hours``, ``lost_hours_breakdown`` (mean
            hours per bucket), ``restart_parts`` (mean hours of the restart bucket's
            ``init`` and ``load``), ``badput_ml_goodput`` (the same hours under Google's
            ml-goodput-measurement names, :data:`relplan.vocab.ML_GOODPUT_BADPUT`),
            ``maintenances`` (mean planned maintenance windows, apart from the
            interruptions), ``p_corrupted_final`` (the share of runs in which a corruption
            reached the final weights, not found before the end), ``drains`` (mean
            servers drained per trial; only when a mode drains), ``p_depleted`` (the
            share of runs that stalled for good; only with ``retire = "remove"``),
            ``save_hangs`` (mean durable saves that hung, with
            ``job.checkpoint.hang``), ``preemptions`` and ``liveput_gpus`` (with
            ``[preemption]``: the mean
            preemptions a run, and the liveput, the GPUs' worth of useful work the job
            keeps through them: mean goodput x GPUs), ``p_job_failed``,
            ``restart_attempts`` and ``requeues`` (the share of runs
            whose job failed for good, the mean restart attempts and requeues; only where
            a restart may fail), ``interruptions_by_class`` (mean per failure mode that
            can stop the job),
            ``failures_by_class`` (mean failures and impact of every mode),
            ``unit_failures_by_class`` (only if some modes' units have a history: per such
            mode, :func:`unit_failure_summary`) and ``provenance``
            (:func:`relplan.analysis.provenance.provenance_record`).
        """
        columns = self._columns
        job = self.model.job
        result: dict[str, Any] = {
            "config": self.config_name,
            "trials": self.trials,
            "seed": self.seed,
            "interval_hours": job.interval_hours,
            "checkpoint_write_hours": job.write_hours,
            "restart_hours": job.restart_hours,
            "fast_restart_hours": job.fast_restart_hours,
            "work_hours": job.work_hours if job.horizon_hours is None else None,
            "step_time_s": (self.model.step_hours * 3600.0
                            if self.model.step_hours is not None else None),
            "horizon_hours": job.horizon_hours,
            "job_gpus": job.gpus,
            "job_mtti_hours": finite_or_none(self.model.job_mtti_hours),
        }
        for metric in METRICS:
            result[metric] = summarize(columns[metric])
        result["lost_hours_breakdown"] = {
            bucket: float(columns[f"{bucket}_hours"].mean())
            for bucket in BUCKETS
            if bucket != "useful"
        }
        result["maintenances"] = float(columns["maintenances"].mean())
        result["p_corrupted_final"] = float(columns["corrupted_final"].mean())
        if "drains" in columns:
            result["drains"] = float(columns["drains"].mean())
        if "depleted" in columns:
            result["p_depleted"] = float(columns["depleted"].mean())
        if "save_hangs" in columns:
            result["save_hangs"] = float(columns["save_hangs"].mean())
        if job.burn_in_hours > 0.0:  # [health.burn_in]: before the job, beside it
            result["burn_in_hours"] = job.burn_in_hours
            result["burn_in_gpu_hours"] = job.burn_in_gpu_hours
        if PREEMPTION_MODE in self.outcomes.mode_names:  # [preemption]
            gpus = self.model.job.gpus
            result["preemptions"] = float(columns[f"failures_{PREEMPTION_MODE}"].mean())
            result["liveput_gpus"] = float(columns["goodput"].mean()) * gpus
        if "job_failed" in columns:
            result["p_job_failed"] = float(columns["job_failed"].mean())
            result["restart_attempts"] = float(columns["restart_attempts"].mean())
            result["requeues"] = float(columns["requeues"].mean())
        result["restart_parts"] = {
            part: float(columns[f"restart_{part}_hours"].mean()) for part in ("init", "load")
        }
        result["badput_ml_goodput"] = {
            name: float(sum(columns[f"{part}_hours"].mean() for part in parts))
            for name, parts in ML_GOODPUT_BADPUT.items()
        }
        outcomes = self.outcomes
        interruptions = outcomes.interruptions_by_mode.mean(axis=0)
        result["interruptions_by_class"] = {
            mode: float(interruptions[index])
            for index, mode in enumerate(outcomes.mode_names)
            if outcomes.mode_interrupts[index]
        }
        result["failures_by_class"] = {
            mode: {"impact": impact, "mean": float(columns[f"failures_{mode}"].mean())}
            for mode, impact in zip(outcomes.mode_names, outcomes.mode_impacts, strict=True)
        }
        tracked = [m for m, tracks in zip(outcomes.mode_names, outcomes.mode_tracks_units,
                                          strict=True) if tracks]  # fmt: skip
        if tracked:
            result["unit_failures_by_class"] = {
                mode: unit_failure_summary(columns, mode) for mode in tracked
            }
        result["provenance"] = self.provenance
        return result

    def summary_frame(self) -> pd.DataFrame:
        """One row per (metric, statistic): the tidy form of :meth:`summary`.

        Returns
        -------
        pandas.DataFrame
            Columns ``metric``, ``statistic``, ``value``.
        """
        summary = self.summary()
        rows = []
        for metric in METRICS:
            for statistic, value in summary[metric].items():
                if statistic == "ci95":
                    rows.append((metric, "ci95_low", value[0]))
                    rows.append((metric, "ci95_high", value[1]))
                else:
                    rows.append((metric, statistic, value))
        for bucket, hours in summary["lost_hours_breakdown"].items():
            rows.append((f"{bucket}_hours", "mean", hours))
        for mode, entry in summary["failures_by_class"].items():
            rows.append((f"failures_{mode}", "mean", entry["mean"]))
        for mode, entry in summary.get("unit_failures_by_class", {}).items():
            for name in UNIT_STATS:
                rows.append((f"{name}_{mode}", "mean", entry[name]))
        import pandas as pd

        return pd.DataFrame(rows, columns=["metric", "statistic", "value"])


class _Columns(Mapping[str, np.ndarray]):
    """The per-trial columns of a result, each made when read and not kept."""

    def __init__(self, result: SimulationResult) -> None:
        self._result = result

    def __getitem__(self, name: str) -> np.ndarray:
        if name not in self._result.column_names:  # ``in`` asks here too
            raise KeyError(name)
        return self._result.column(name)

    def __iter__(self) -> Iterator[str]:
        return iter(self._result.column_names)

    def __len__(self) -> int:
        return len(self._result.column_names)


def unit_failure_summary(columns: dict[str, np.ndarray], mode: str) -> dict[str, Any]:
    """What the units of one mode with a history did, over the trials.

    Parameters
    ----------
    columns : dict of numpy.ndarray
        The per-trial columns (:meth:`SimulationResult.trials_frame`).
    mode : str
        A mode whose units have a history.

    Returns
    -------
    dict
        Means per trial of ``failures``, ``units_failed``, ``repeat_units`` (units that
        failed at least twice), ``max_failures_per_unit`` and ``retired_units``;
        ``failures_per_failed_unit`` (mean failures over mean units failed; None if no
        unit failed); ``trials_with_repeat_units`` (share of trials with at least one
        repeat offender).
    """
    failures = columns[f"failures_{mode}"]
    summary: dict[str, Any] = {"failures": float(failures.mean())}
    for name in UNIT_STATS:
        summary[name] = float(columns[f"{name}_{mode}"].mean())
    units = summary["units_failed"]
    summary["failures_per_failed_unit"] = summary["failures"] / units if units > 0 else None
    summary["trials_with_repeat_units"] = float((columns[f"repeat_units_{mode}"] > 0).mean())
    return summary

