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
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from relplan.analysis.results import SimulationResult
from relplan.config.fleet_config import Fleet
from relplan.stats.summary import summarize

if TYPE_CHECKING:
    import pandas as pd

FLEET_METRICS = ("gpu_hours", "gpu_hours_lost", "goodput", "makespan_hours")
"""The fleet's per-trial quantities (columns of :meth:`FleetOutcome.trials_frame`)."""


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
    """

    fleet: Fleet
    results: dict[str, SimulationResult]
    trials: int
    seed: int

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

    def trials_frame(self) -> pd.DataFrame:
        """One row per trial of the fleet: ``gpu_hours`` (wall hours x GPUs over the
        jobs), ``gpu_hours_lost``, ``goodput`` (useful GPU-hours over GPU-hours) and
        ``makespan_hours`` (the longest job's wall time)."""
        import pandas as pd

        return pd.DataFrame({"trial": np.arange(self.trials), **self._columns})

    def jobs_frame(self) -> pd.DataFrame:
        """One row per job: its name, GPUs, priority, mean goodput, wall hours, GPU-hours
        lost and interruptions, and its share of the fleet's GPU-hours lost."""
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

    def summary(self) -> dict[str, Any]:
        """The ``--json`` object of a fleet's ``simulate``: ``fleet`` (``jobs``,
        ``gpus``, the shared ``spares`` and ``crews``, ``trials``, ``seed``, an estimate
        of each of :data:`FLEET_METRICS` and ``lost_share_by_size``) and ``jobs`` (each
        job's single-job summary, with its ``priority``, ``first_server`` and ``seed``)."""
        fleet: dict[str, Any] = {"jobs": len(self.fleet.jobs), "gpus": self.fleet.gpus,
                                 "spares": self.fleet.spares, "crews": self.fleet.crews,
                                 "trials": self.trials, "seed": self.seed}  # fmt: skip
        for metric in FLEET_METRICS:
            fleet[metric] = summarize(self._columns[metric])
        fleet["lost_share_by_size"] = self.lost_share_by_size()
        jobs = {}
        for job in self.fleet.jobs:
            jobs[job.name] = {"priority": job.priority, "first_server": job.first_server,
                              **self.results[job.name].summary()}  # fmt: skip
        return {"fleet": fleet, "jobs": jobs}
