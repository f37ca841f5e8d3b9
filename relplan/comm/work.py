"""The job's healthy step and its failure-free work, from a config.

A job's work is given in hours (``job.work``: hours at this design's healthy speed), in
steps (``job.steps``) or in tokens (``job.tokens``, turned into steps by
``workload.tokens_per_step``). In steps or tokens, the failure-free hours are the steps
times *this* design's healthy step time, so a design that slows or speeds the healthy
step (leaves, spines, link speed, LACP width, dual-ToR, NICs, more GPUs) changes its
wall time as it should.
"""

from __future__ import annotations

from relplan.comm.inputs import workload_model
from relplan.comm.step import step_time
from relplan.config.schema import RelplanConfig


def healthy_step_hours(config: RelplanConfig) -> float | None:
    """One training step of the job at full capacity, hours: ``job.step``, else the
    workload's step time (compute, pipeline bubble and exposed communication,
    :func:`relplan.comm.step.step_time`), else None.

    Examples
    --------
    >>> from relplan.config.loading import load_config
    >>> round(healthy_step_hours(load_config("configs/small.toml", ["job.step=6s"])), 6)
    0.001667
    """
    if config.job.step is not None:
        return config.job.step
    inputs = workload_model(config)
    if inputs is None:
        return None
    training, parallelism, hardware, overlap = inputs
    return step_time(training, parallelism, hardware, overlap=overlap) / 3600.0


def job_steps(config: RelplanConfig) -> float | None:
    """Training steps the job must complete: ``job.steps``, or ``job.tokens /
    workload.tokens_per_step``; None for work in hours or a horizon.

    Examples
    --------
    >>> from relplan.config.loading import load_config
    >>> job_steps(load_config("configs/seed-dense-175b.toml", ["job.tokens=32B"]))
    10000.0
    """
    job = config.job
    if job.steps is not None:
        return float(job.steps)
    if job.tokens is not None and config.workload is not None:
        return job.tokens / config.workload.tokens_per_step
    return None


def failure_free_work_hours(config: RelplanConfig) -> float:
    """Hours the job trains if nothing fails, at this design's healthy speed.

    ``job.work`` (or the ``horizon``, which bounds the work of a calendar window), or
    :func:`job_steps` times :func:`healthy_step_hours`.

    Parameters
    ----------
    config : RelplanConfig
        A validated config (steps need a step time, tokens a ``[workload]``: the config's
        checks say so first).

    Returns
    -------
    float
        Hours.

    Examples
    --------
    >>> from relplan.config.loading import load_config
    >>> config = load_config("configs/small.toml", ["job.steps=3600", "job.step=2s"])
    >>> failure_free_work_hours(config)  # 3,600 steps of 2 s
    2.0
    """
    steps = job_steps(config)
    if steps is None:
        return config.job.work_bound_hours
    step_hours = healthy_step_hours(config)
    if step_hours is None:
        raise ValueError("job.steps needs a step time: a [workload] or job.step")
    return steps * step_hours
