"""What a fleet's jobs found together: per job, and for the fleet (GPU-hours, GPU-hours
lost, goodput weighted by GPUs, and who loses them: the share of the lost GPU-hours that
jobs of each size take: failures that hit few jobs but much of the runtime).

Trial ``t`` of the fleet is trial ``t`` of every job: each job's trials are drawn from
its own seed (:func:`job_seed`), so that the jobs' failures are independent, as they are
on servers of their own.
"""

from __future__ import annotations

import functools
import zlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from relplan.analysis.results import SimulationResult
from relplan.config.fleet_config import Fleet
from relplan.sim.fleet_walk import FleetWalk
from relplan.stats.summary import summarize
from relplan.vocab import METRICS

if TYPE_CHECKING:
    import pandas as pd

FLEET_METRICS = ("gpu_hours", "gpu_hours_lost", "goodput", "makespan_hours")
"""The fleet's per-trial quantities (columns of :meth:`FleetOutcome.trials_frame`)."""

SUMMED_METRICS = ("gpu_hours_lost", "interruptions", "spares_used")
"""Of :data:`relplan.vocab.METRICS`, those a fleet sums over its jobs; ``wall_hours`` and
``goodput`` are its makespan and its goodput, the others means over its GPUs (each job
weighted by its GPUs: hours a GPU of the fleet spends so, on average)."""


def job_seed(seed: int, name: str) -> int:
    """The seed of one job of a fleet: from the fleet's seed and the job's name (not its
    place in the config), so that reordering the jobs changes no number.

    Examples
    --------
    >>> job_seed(0, "pretrain-8k") == job_seed(0, "pretrain-8k") != job_seed(1, "pretrain-8k")
    True
    """
    sequence = np.random.SeedSequence([seed, zlib.crc32(name.encode())])
    return int(sequence.generate_state(1, dtype=np.uint32)[0])


@dataclass(frozen=True)
class FleetOutcome:
    """Every job's trials, and the fleet's totals over them.

    Attributes
    ----------
    fleet : Fleet
        The fleet simulated.
    results : dict of str to SimulationResult
        Each job's outcomes, by name, in the fleet's order.
    trials, seed : int
        Trials run (the same for every job) and the fleet's seed.
    shared : FleetWalk or None
        What the jobs walked together shared: servers taken, waits for a crew, the
        pool's occupancy (None: the jobs were walked alone, sharing nothing).
    """

    fleet: Fleet
    results: dict[str, SimulationResult]
    trials: int
    seed: int
    shared: FleetWalk | None = field(default=None, repr=False)

    @functools.cached_property
    def _columns(self) -> dict[str, np.ndarray]:
        gpu_hours = np.zeros(self.trials)
        useful = np.zeros(self.trials)
        lost = np.zeros(self.trials)
        makespan = np.zeros(self.trials)
        for job in self.fleet.jobs:
            result = self.results[job.name]
            wall = result.column("wall_hours")
            gpu_hours += wall * job.gpus
            useful += result.column("work_done_hours") * job.gpus
            lost += result.column("gpu_hours_lost")
            makespan = np.maximum(makespan, wall)
        return {"gpu_hours": gpu_hours, "gpu_hours_lost": lost,
                "goodput": useful / gpu_hours, "makespan_hours": makespan}  # fmt: skip

    def metric_column(self, metric: str) -> np.ndarray:
        """Per trial, one of :data:`relplan.vocab.METRICS` for the whole fleet: its
        makespan (``wall_hours``), its goodput, the sum over its jobs (those of
        :data:`SUMMED_METRICS`) or the mean over its GPUs (the other hours).

        Examples
        --------
        >>> from relplan.config.fleet_config import load_fleet
        >>> from relplan.runs.fleet import run_fleet
        >>> outcome = run_fleet(load_fleet("configs/fleets/fleet-mix.toml"), trials=4, seed=1)
        >>> bool((outcome.metric_column("wall_hours") > 700).all())
        True
        """
        if metric == "wall_hours":
            return self._columns["makespan_hours"]
        if metric == "goodput":
            return self._columns["goodput"]
        if metric not in METRICS:
            raise KeyError(metric)
        total = np.zeros(self.trials)
        for job in self.fleet.jobs:
            column = self.results[job.name].column(metric)
            total += column if metric in SUMMED_METRICS else column * job.gpus
        return total if metric in SUMMED_METRICS else total / self.fleet.gpus

    def lost_hours_breakdown(self) -> dict[str, float]:
        """Mean hours lost per run in each bucket, over the fleet's GPUs (each job's
        :meth:`~relplan.analysis.results.SimulationResult.summary` breakdown weighted by
        its GPUs)."""
        breakdown: dict[str, float] = {}
        for job in self.fleet.jobs:
            for bucket, hours in self.results[job.name].summary()["lost_hours_breakdown"].items():
                breakdown[bucket] = breakdown.get(bucket, 0.0) + hours * job.gpus
        return {bucket: hours / self.fleet.gpus for bucket, hours in breakdown.items()}

    def trials_frame(self) -> pd.DataFrame:
        """One row per trial of the fleet: ``gpu_hours`` (wall hours x GPUs over the
        jobs), ``gpu_hours_lost``, ``goodput`` (useful GPU-hours over GPU-hours) and
        ``makespan_hours`` (the longest job's wall time)."""
        import pandas as pd

        return pd.DataFrame({"trial": np.arange(self.trials), **self._columns})

    def jobs_frame(self) -> pd.DataFrame:
        """One row per job: its name, GPUs, priority, mean goodput, wall hours, GPU-hours
        lost, interruptions and servers taken from it by jobs of higher priority, and its
        share of the fleet's GPU-hours lost."""
        import pandas as pd

        total_lost = float(self._columns["gpu_hours_lost"].mean())
        rows = []
        for job in self.fleet.jobs:
            result = self.results[job.name]
            lost = float(result.column("gpu_hours_lost").mean())
            rows.append({
                "job": job.name, "gpus": job.gpus, "priority": job.priority,
                "goodput": float(result.column("goodput").mean()),
                "wall_hours": float(result.column("wall_hours").mean()),
                "gpu_hours_lost": lost,
                "interruptions": float(result.column("interruptions").mean()),
                "servers_taken": float(self._servers_taken(job.name).mean()),
                "share_of_gpu_hours_lost": lost / total_lost if total_lost > 0 else 0.0,
            })  # fmt: skip
        return pd.DataFrame(rows).set_index("job")

    def lost_share_by_size(self) -> list[dict[str, float]]:
        """Who loses the fleet's GPU-hours: for each job size ``N`` in the fleet, the
        jobs of at least ``N`` GPUs' share of the jobs, of the fleet's GPU-hours and of
        its GPU-hours lost (means over the trials), largest size first."""
        total = float(self._columns["gpu_hours"].mean())
        total_lost = float(self._columns["gpu_hours_lost"].mean())
        rows = []
        for size in sorted({job.gpus for job in self.fleet.jobs}, reverse=True):
            chosen = [job for job in self.fleet.jobs if job.gpus >= size]
            hours = sum(float(self.results[j.name].column("wall_hours").mean()) * j.gpus
                        for j in chosen)  # fmt: skip
            lost = sum(float(self.results[j.name].column("gpu_hours_lost").mean())
                       for j in chosen)  # fmt: skip
            rows.append({"min_gpus": size, "share_of_jobs": len(chosen) / len(self.fleet.jobs),
                         "share_of_gpu_hours": hours / total,
                         "share_of_gpu_hours_lost": lost / total_lost if total_lost else 0.0})
        return rows

    def _servers_taken(self, name: str) -> np.ndarray:
        """Per trial, the servers jobs of higher priority took from job ``name``."""
        if self.shared is None:
            return np.zeros(self.trials)
        index = [job.name for job in self.fleet.jobs].index(name)
        return self.shared.servers_taken[index].astype(float)

    def pool_frame(self) -> pd.DataFrame:
        """The shared pool's spares away in repair over the wall clock: one row per bin
        (a day, or wider for runs of years) from ``start_hours``, with the mean, P5 and P95
        over the trials still running then of the spares away on average in it, and how
        many trials that is. Empty without a shared pool.

        Examples
        --------
        >>> from relplan.config.fleet_config import load_fleet
        >>> from relplan.runs.fleet import run_fleet
        >>> fleet = load_fleet("configs/fleets/fleet-pool.toml")
        >>> frame = run_fleet(fleet, trials=8, seed=1).pool_frame()
        >>> list(frame.columns)
        ['start_hours', 'away_mean', 'away_p5', 'away_p95', 'trials']
        """
        import pandas as pd

        columns = ["start_hours", "away_mean", "away_p5", "away_p95", "trials"]
        pool = None if self.shared is None else self.shared.pool
        if pool is None:
            return pd.DataFrame(columns=columns)
        width = pool.bin_hours
        starts = np.arange(pool.away_hours.shape[1]) * width
        makespan = self._columns["makespan_hours"][:, None]
        covered = np.clip(makespan - starts[None, :], 0.0, None)
        covered[:, :-1] = np.minimum(covered[:, :-1], width)  # the last bin takes the rest
        running = covered > 0.0
        rows = []
        for b, start in enumerate(starts):
            if not running[:, b].any():
                break
            away = pool.away_hours[running[:, b], b] / covered[running[:, b], b]
            rows.append([float(start), float(away.mean()), float(np.percentile(away, 5)),
                         float(np.percentile(away, 95)), int(running[:, b].sum())])
        return pd.DataFrame(rows, columns=columns)

    def _pool_summary(self) -> dict[str, Any] | None:
        """The shared pool's occupancy: the share of the wall time (to each trial's
        makespan) with each count of spares away, and their mean, and the share with
        none free; None without a shared pool."""
        pool = None if self.shared is None else self.shared.pool
        if pool is None:
            return None
        time_at = pool.time_at_hours.sum(axis=0)
        share = time_at / time_at.sum() if time_at.sum() > 0 else time_at
        spares = self.fleet.spares
        return {"spares": spares,
                "mean_away": float(np.dot(np.arange(spares + 1), share)),
                "empty_share": float(share[spares]),
                "away_share": [float(x) for x in share]}  # fmt: skip

    def _repair_queue_summary(self) -> dict[str, Any] | None:
        """The shared crews' queue: repairs per trial, hours they waited for a crew per
        trial, and the mean wait of a repair; None without shared crews."""
        if self.shared is None or self.fleet.crews == 0:
            return None
        repairs = np.sum(self.shared.crew_repairs, axis=0).astype(float)
        waits = np.sum(self.shared.crew_wait_hours, axis=0)
        return {"crews": self.fleet.crews, "repairs": summarize(repairs),
                "wait_hours": summarize(waits),
                "mean_wait_hours": float(waits.sum() / repairs.sum()) if repairs.sum() else 0.0}

    def summary(self) -> dict[str, Any]:
        """The ``--json`` object of a fleet's ``simulate``: ``fleet`` (``jobs``,
        ``gpus``, the shared ``spares`` and ``crews``, ``preempt``, ``trials``, ``seed``,
        an estimate of each of :data:`FLEET_METRICS`, ``lost_share_by_size``,
        ``servers_taken``, the shared ``pool``'s occupancy and the ``repair_queue``) and
        ``jobs`` (each job's single-job summary, with its ``priority``, ``first_server``,
        ``seed`` and ``servers_taken``)."""
        fleet: dict[str, Any] = {"jobs": len(self.fleet.jobs), "gpus": self.fleet.gpus,
                                 "spares": self.fleet.spares, "crews": self.fleet.crews,
                                 "preempt": self.fleet.settings.preempt,
                                 "trials": self.trials, "seed": self.seed}  # fmt: skip
        for metric in FLEET_METRICS:
            fleet[metric] = summarize(self._columns[metric])
        fleet["lost_share_by_size"] = self.lost_share_by_size()
        fleet["servers_taken"] = summarize(sum(
            (self._servers_taken(job.name) for job in self.fleet.jobs), np.zeros(self.trials)))
        fleet["pool"] = self._pool_summary()
        fleet["repair_queue"] = self._repair_queue_summary()
        jobs = {}
        for job in self.fleet.jobs:
            jobs[job.name] = {"priority": job.priority, "first_server": job.first_server,
                              **self.results[job.name].summary(),
                              "servers_taken": summarize(self._servers_taken(job.name))}
        return {"fleet": fleet, "jobs": jobs}
