"""The files of a fleet's run (``relplan simulate FLEET --out DIR``): the summary, a
table per job and per trial, and the figure of the GPU-hours lost by job; with a shared
pool, its occupancy over time, as a table and a figure."""

from __future__ import annotations

from pathlib import Path

from relplan.analysis.fleet_outcome import FleetOutcome
from relplan.output.files import to_json, write_text_atomic
from relplan.output.fleet_plots import gpu_hours_lost_by_job, spare_pool_over_time
from relplan.output.plots import save_figure

FLEET_FILES = ("summary.json", "jobs.csv", "trials.csv", "gpu-hours-lost-by-job.png",
               "gpu-hours-lost-by-job.svg")
"""What a fleet's ``--out`` writes."""

POOL_FILES = ("pool.csv", "spare-pool.png", "spare-pool.svg")
"""What it writes besides for a shared pool (``[fleet] spares``)."""


def write_fleet_outputs(outcome: FleetOutcome, folder: Path, name: str) -> list[Path]:
    """Write a fleet's files into ``folder`` (each atomically): :data:`FLEET_FILES`, and
    :data:`POOL_FILES` with a shared pool.

    Parameters
    ----------
    outcome : FleetOutcome
        The fleet's run.
    folder : Path
        Where (it exists).
    name : str
        The fleet's name, in the figure's title.

    Returns
    -------
    list of Path
        The files written.
    """
    summary_path = folder / "summary.json"
    write_text_atomic(summary_path, to_json(outcome.summary()) + "\n")
    jobs_path, trials_path = folder / "jobs.csv", folder / "trials.csv"
    write_text_atomic(jobs_path, outcome.jobs_frame().to_csv())
    write_text_atomic(trials_path, outcome.trials_frame().to_csv(index=False))
    figure = gpu_hours_lost_by_job(outcome.jobs_frame(), name)
    written = [summary_path, jobs_path, trials_path,
               *save_figure(figure, folder / "gpu-hours-lost-by-job")]
    pool = outcome.pool_frame()
    if not pool.empty:
        pool_path = folder / "pool.csv"
        write_text_atomic(pool_path, pool.to_csv(index=False))
        figure = spare_pool_over_time(pool, outcome.fleet.spares, name)
        written += [pool_path, *save_figure(figure, folder / "spare-pool")]
    return written
