"""The job's healthy step and its failure-free work, from a config.

A job's work is given in hours (``job.work``: hours at this design's healthy speed), in
steps (``job.steps``) or in tokens (``job.tokens``, turned into steps by
``workload.tokens_per_step``). In steps or tokens, the failure-free hours are the steps
times *this* design's healthy step time, so a design that slows or speeds the healthy
step (leaves, spines, link speed, LACP width, dual-ToR, NICs, more GPUs) changes its
wall time as it should.
"""

from __future__ import annotations

from dataclasses import dataclass

from relplan.comm.inputs import CapacityScale, Inputs, workload_inputs
from relplan.comm.step import leaf_crossing_flows, step_time
from relplan.config.derived import DerivedFacts, derive
from relplan.config.schema import RelplanConfig


@dataclass(frozen=True)
class StepModel:
    """The job's training step, healthy and under a capacity loss: the communication
    model's inputs read off the config once, for every impact to ask.

    Attributes
    ----------
    inputs : tuple or None
        :func:`relplan.comm.inputs.workload_model` (None without a ``[workload]``).
    comm_share : float
        ``network.comm_share``: the exposed communication share of a step, for a config
        without a ``[workload]``.
    job_step_hours : float or None
        ``job.step``, which overrides the modelled step time.
    healthy_step_s : float or None
        The modelled step at full capacity, seconds (None without a ``[workload]``).
    """

    inputs: Inputs | None
    comm_share: float = 0.3
    job_step_hours: float | None = None
    healthy_step_s: float | None = None

    @property
    def step_hours(self) -> float | None:
        """One step, hours: ``job.step``, else the modelled healthy step, else None."""
        if self.job_step_hours is not None:
            return self.job_step_hours
        healthy = self.healthy_step_s
        return None if healthy is None else healthy / 3600.0

    def slowdown(self, loss: CapacityScale) -> float:
        """Step time with the slowest flow's reduced capacity over the healthy step (>= 1);
        without a ``[workload]``: ``1 + comm_share x (1 / min(fabric, server_nic) - 1)``.

        Examples
        --------
        >>> StepModel(None, comm_share=0.3).slowdown(CapacityScale(server_nic=0.5))
        1.3
        """
        if self.inputs is None:
            return 1.0 + self.comm_share * (1.0 / min(loss.fabric, loss.server_nic) - 1.0)
        training, parallelism, hardware, overlap = self.inputs
        return step_time(training, parallelism, hardware, loss, overlap) / self.healthy_step_s

    def crossing_flows(self) -> int | None:
        """The most flows one dimension sends off one leaf (None without a workload)."""
        if self.inputs is None:
            return None
        return leaf_crossing_flows(*self.inputs[:3])


def step_model(config: RelplanConfig, facts: DerivedFacts | None = None) -> StepModel:
    """The :class:`StepModel` of a validated config (:func:`build_step_model`), deriving
    its facts first unless given.

    Examples
    --------
    >>> from relplan.config.loading import load_config
    >>> round(step_model(load_config("configs/llama3-16k.toml")).healthy_step_s, 2)
    6.2
    """
    return build_step_model(config, facts if facts is not None else derive(config))


def build_step_model(config: RelplanConfig, facts: DerivedFacts) -> StepModel:
    """The :class:`StepModel` of a validated config: the healthy step, and the step under
    any capacity loss (:meth:`StepModel.slowdown`).

    Parameters
    ----------
    config : RelplanConfig
        A validated config (its ``[workload]``, ``network.comm_share`` and ``job.step``).
    facts : DerivedFacts
        Its derived facts (:func:`relplan.config.derived.derive`).

    Returns
    -------
    StepModel

    Examples
    --------
    >>> from relplan.config.loading import load_config
    >>> config = load_config("configs/llama3-16k.toml")
    >>> round(build_step_model(config, derive(config)).healthy_step_s, 2)
    6.2
    """
    inputs = workload_inputs(config, facts)
    healthy = None
    if inputs is not None:
        training, parallelism, hardware, overlap = inputs
        healthy = step_time(training, parallelism, hardware, overlap=overlap)
    return StepModel(inputs, config.network.comm_share, config.job.step, healthy)


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
    return step_model(config).step_hours


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


def failure_free_work_hours(config: RelplanConfig, step: StepModel | None = None) -> float:
    """Hours the job trains if nothing fails, at this design's healthy speed.

    ``job.work`` (or the ``horizon``, which bounds the work of a calendar window), or
    :func:`job_steps` times :func:`healthy_step_hours`.

    Parameters
    ----------
    config : RelplanConfig
        A validated config (steps need a step time, tokens a ``[workload]``: the config's
        checks say so first).
    step : StepModel, optional
        Its step model, when already built (:func:`step_model`).

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
    if step is None and job_steps(config) is None:
        return config.job.work_bound_hours  # hours of work: no step model needed
    return work_hours_at_step(config, step if step is not None else step_model(config))


def work_hours_at_step(config: RelplanConfig, step: StepModel) -> float:
    """Hours the job trains if nothing fails, with its step model built
    (:func:`failure_free_work_hours`).

    Examples
    --------
    >>> from relplan.config.loading import load_config
    >>> config = load_config("configs/small.toml", ["job.steps=1800", "job.step=2s"])
    >>> work_hours_at_step(config, step_model(config))  # 1,800 steps of 2 s
    1.0
    """
    steps = job_steps(config)
    if steps is None:
        return config.job.work_bound_hours
    step_hours = step.step_hours
    if step_hours is None:
        raise ValueError("job.steps needs a step time: a [workload] or job.step")
    return steps * step_hours
