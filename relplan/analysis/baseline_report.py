"""The job's communication baseline beside its failure figures, for ``relplan baseline``.

Joins :func:`relplan.comm.baseline.baseline_report` (per dimension volume, time,
bandwidth; the source document's arithmetic) with what the simulation model knows: each
mode's MTBF over its units in the job, the job's MTTI and the slowdown of every degraded
state.
"""

from __future__ import annotations

import math
from typing import Any

from relplan.comm.baseline import baseline_report
from relplan.comm.seed_figures import cluster_mtbf_hours
from relplan.config.schema import RelplanConfig
from relplan.errors import ConfigError
from relplan.sim.model import SimulationModel, build_model
from relplan.stats.summary import finite_or_none

STEP_KEYS: tuple[str, ...] = (
    "compute_time_s",
    "pipeline_bubble_s",
    "exposed_communication_s",
    "step_time_s",
    "step_time_rtt_low_s",
    "step_time_rtt_high_s",
)
"""The step-time part of the baseline that ``simulate`` reports, seconds."""


def cluster_mtbf(model: SimulationModel) -> dict[str, float]:
    """MTBF of each failure mode over its units in the job, hours (component MTBF / count).

    Examples
    --------
    >>> from relplan.config.loading import load_config
    >>> mtbf = cluster_mtbf(build_model(load_config("configs/seed-moe-10k.toml")))
    >>> round(mtbf["gpu"], 2)  # the source document's 5-year GPU MTBF over 10,240 GPUs
    4.28
    """
    return {
        mode.name: cluster_mtbf_hours(mode.lifetime.mean_hours, mode.job_units)
        for mode in model.modes
        if mode.job_units > 0 and math.isfinite(mode.lifetime.mean_hours)
    }


def job_baseline(config: RelplanConfig, model: SimulationModel | None = None) -> dict[str, Any]:
    """The baseline report of a config with a ``[workload]``.

    Returns
    -------
    dict
        :func:`relplan.comm.baseline.baseline_report`'s keys, plus
        ``cluster_mtbf_hours`` (per mode, hours), ``job_mtti_hours`` (None when no mode
        interrupts the job) and ``degraded_slowdowns`` (per degraded or elastic mode, the
        step-time ratio with 1 to 4 unrepaired failures).

    Raises
    ------
    ConfigError
        Without a ``[workload]``.
    """
    if config.workload is None:
        raise ConfigError("workload", "the baseline needs a [workload] section (see README)")
    model = model if model is not None else build_model(config)
    report = baseline_report(config)
    report["cluster_mtbf_hours"] = cluster_mtbf(model)
    report["job_mtti_hours"] = finite_or_none(model.job_mtti_hours)
    report["degraded_slowdowns"] = {
        mode.name: list(mode.slowdown_by_count[:4])
        for mode in model.modes
        if mode.impact in ("degraded", "elastic")
    }
    return report


def step_baseline(config: RelplanConfig) -> dict[str, float] | None:
    """The step-time part of the baseline, seconds (None without a ``[workload]``)."""
    if config.workload is None:
        return None
    base = baseline_report(config)["baseline"]
    return {key: base[key] for key in STEP_KEYS}
