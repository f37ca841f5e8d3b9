"""The simulation model: a validated config resolved into numbers the engine runs on.

Data flows one way: config -> inventory -> :class:`SimulationModel` -> events ->
timeline. Every duration here is in hours.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from relplan.config import RelplanConfig
from relplan.distributions import Distribution
from relplan.topology import Inventory, build_inventory


@dataclass(frozen=True)
class FailureMode:
    """One way the job's hardware (or software) fails.

    Attributes
    ----------
    name : str
        The mode's key in ``[failures]``.
    unit : str
        What the mode is counted per (a component class, or ``job``).
    job_units : int
        Units of that kind in the job's footprint.
    lifetime : Distribution
        Time to failure of one unit while the job's hardware is in use, hours.
    repair : Distribution
        Time to repair or replace a failed unit, hours.
    detect_hours : float
        Time from the failure until the job notices it, hours.
    uses_spares : bool
        Whether a spare server can stand in for the failed unit.
    start : {"equilibrium", "new"}
        Age of the units when the job starts.
    impact : {"fatal", "degraded", "transient"}
        What a failure does to the job (see :mod:`relplan.timeline`).
    slowdown_by_count : tuple of float
        Step-time ratio while ``k`` failures of this mode are unrepaired (entry
        ``k - 1``; the last entry holds for more), for ``degraded`` modes.
    stall_hours : float
        Stall of a ``transient`` failure (detection plus failover), hours.
    soft_slowdown : float
        Step-time ratio after a transient stall (congestion spreading), if any.
    soft_hours : float
        How long the soft slowdown lasts, hours.
    loses_fast_checkpoint : bool
        Whether the failure destroys the fast (in-memory) checkpoint tier.
    """

    name: str
    unit: str
    job_units: int
    lifetime: Distribution
    repair: Distribution
    detect_hours: float
    uses_spares: bool
    start: str
    impact: str = "fatal"
    slowdown_by_count: tuple[float, ...] = (1.0,)
    stall_hours: float = 0.0
    soft_slowdown: float = 1.0
    soft_hours: float = 0.0
    loses_fast_checkpoint: bool = False

    @property
    def job_rate_per_hour(self) -> float:
        """Long-run failures per hour of use across the job's units."""
        return self.job_units / self.lifetime.mean_hours

    @property
    def is_fatal(self) -> bool:
        """Whether a failure of this mode interrupts the job."""
        return self.impact == "fatal"


@dataclass(frozen=True)
class JobSpec:
    """The training job.

    Attributes
    ----------
    gpus : int
        GPUs the job runs on.
    work_hours : float
        Useful work at full speed, hours.
    interval_hours : float
        Compute time between checkpoints (tau), hours.
    write_hours : float
        Blocking time to write a checkpoint (delta), hours.
    restart_hours : float
        Re-initialisation and checkpoint load after a failure (R), hours.
    spares : int
        Spare servers in the pool.
    """

    gpus: int
    work_hours: float
    interval_hours: float
    write_hours: float
    restart_hours: float
    spares: int


@dataclass(frozen=True)
class SimulationModel:
    """Everything the engine needs: the job and its failure modes.

    Attributes
    ----------
    job : JobSpec
        The job.
    modes : tuple of FailureMode
        Failure modes with at least one unit in the job's footprint, in config order.
    inventory : Inventory or None
        The component counts the modes were derived from (None for a model built by
        hand from numbers).
    """

    job: JobSpec
    modes: tuple[FailureMode, ...]
    inventory: Inventory | None

    @property
    def job_mtti_hours(self) -> float:
        """Mean time to interruption of the job, hours of use (inf with no fatal failures)."""
        rate = sum(mode.job_rate_per_hour for mode in self.modes if mode.is_fatal)
        return 1.0 / rate if rate > 0 else float("inf")

    def with_interval(self, interval_hours: float) -> SimulationModel:
        """The same model with another checkpoint interval, hours."""
        return replace(self, job=replace(self.job, interval_hours=interval_hours))


def build_model(config: RelplanConfig) -> SimulationModel:
    """Resolve a validated config into a :class:`SimulationModel`.

    Parameters
    ----------
    config : RelplanConfig
        A validated config.

    Returns
    -------
    SimulationModel
        The job, and every failure mode that touches the job's footprint.
    """
    inventory = build_inventory(config)
    modes = []
    for name, mode in config.failures.items():
        unit = config.failure_unit(name)
        units = inventory.job_units(unit)
        if units == 0:
            continue
        modes.append(
            FailureMode(
                name=name,
                unit=unit,
                job_units=units,
                lifetime=mode.lifetime.to_distribution(),
                repair=mode.repair.to_distribution(),
                detect_hours=mode.detect,
                uses_spares=config.uses_spares(name),
                start=mode.start,
            )
        )
    job = config.job
    return SimulationModel(
        job=JobSpec(
            gpus=job.gpus,
            work_hours=job.work,
            interval_hours=job.checkpoint.interval,
            write_hours=job.checkpoint.write,
            restart_hours=job.restart,
            spares=job.spares,
        ),
        modes=tuple(modes),
        inventory=inventory,
    )
