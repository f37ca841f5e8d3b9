"""The simulation model: a validated config resolved into numbers the engine runs on.

Data flows one way: config -> inventory -> :class:`SimulationModel` -> events ->
timeline. Every duration here is in hours.

:func:`build_model` assembles the model once, in stages, each taking the previous
stage's record: config -> derived facts (:func:`relplan.config.derived.derive`) ->
inventory (:func:`relplan.cluster.topology.inventory_from_facts`) -> step model, healthy and
under any capacity loss (:func:`relplan.comm.work.build_step_model`) -> impacts, one per part
of each mode (:func:`resolve_impacts`) -> :class:`SimulationModel`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from relplan.cluster.impact import Impact, resolve_impact
from relplan.cluster.topology import Inventory, inventory_from_facts
from relplan.comm.work import StepModel, build_step_model, work_hours_at_step
from relplan.config.derived import DerivedFacts, derive, job_servers
from relplan.config.schema import (
    REFAIL_DEFAULT_HOURS,
    CheckpointConfig,
    DistributionConfig,
    FailureModeConfig,
    JobConfig,
    PreemptionConfig,
    RelplanConfig,
    RestartConfig,
)
from relplan.sim import distributions, health
from relplan.sim.closed_forms import erlang_loss
from relplan.sim.distributions import Distribution
from relplan.vocab import (
    DRAINABLE_CLASSES,
    JOB_UNIT,
    PREEMPTION_MODE,
    RUNNING_ONLY_IMPACTS,
    SERVER_CLASSES,
)

DEFAULT_REFAIL = distributions.fixed(REFAIL_DEFAULT_HOURS)
"""A unit whose repair failed fails again after 1 h of use, unless ``refail`` says
otherwise."""


@dataclass(frozen=True)
class UnitHistory:
    """How a mode's units remember their past: lemons, imperfect repair, retirement.

    A mode with a history is drawn unit by unit (:class:`relplan.sim.cohorts.UnitStream`),
    never on the fly, so that each failure knows its unit.

    Attributes
    ----------
    lemon_share : float
        Share of the units (drawn per trial, binomially) in the lemon cohort.
    lemon_factor : float
        How many times as often a lemon fails: its lifetime is the mode's divided by it.
    repair_success : float
        Probability that a repair fixes the unit; otherwise it comes back still faulty.
    refail : Distribution
        Hours of use until a unit whose repair failed fails again.
    retire_after : int or None
        Failures in the job after which the unit is replaced by one drawn from the main
        population (a new unit, of a cohort drawn afresh); None: never.
    retire_removes : bool
        Whether a retired unit leaves the fleet (``retire = "remove"``): its position takes
        a spare for good, and with none left the job stalls.
    lemons_curable : bool
        Whether a successful repair (``repair_success``) makes a lemon a normal unit; a
        failed repair then leaves it a lemon with no early refail, and a repair of a
        normal unit always works (AIReSim's model).
    """

    lemon_share: float = 0.0
    lemon_factor: float = 1.0
    repair_success: float = 1.0
    refail: Distribution = DEFAULT_REFAIL
    retire_after: int | None = None
    retire_removes: bool = False
    lemons_curable: bool = False

    def cohort_lifetimes(self, lifetime: Distribution) -> tuple[Distribution, Distribution]:
        """The lifetime of a normal unit and of a lemon, hours."""
        return lifetime, lifetime.faster(self.lemon_factor)

    def refail_hours_per_failure(self) -> float:
        """Mean hours of use spent in refail periods per genuine failure:
        ``(1 - p) / p`` refails of mean ``refail`` each; none when lemons are curable
        (a failed repair leaves a lemon, with no refail)."""
        if self.lemons_curable:
            return 0.0
        p = self.repair_success
        return (1.0 - p) / p * self.refail.mean_hours

    def failures_per_hour(self, lifetime: Distribution) -> float:
        """Long-run failures per hour of use of one unit of the cohort mix at the job's
        start (retirement, which lowers it, left out).

        Each genuine failure brings a geometric number of refails, ``1 / p`` failures
        in all, per cycle of one life and the refail periods: a unit of mean life ``m``
        fails ``(1 / p) / (m + (1 - p) / p * refail)`` times per hour.

        Parameters
        ----------
        lifetime : Distribution
            The mode's lifetime (of a normal unit), hours.

        Returns
        -------
        float
            Failures per hour of use.
        """
        extra = self.refail_hours_per_failure()
        per_cycle = 1.0 if self.lemons_curable else 1.0 / self.repair_success
        normal, lemon = self.cohort_lifetimes(lifetime)
        share = self.lemon_share
        return per_cycle * ((1.0 - share) / (normal.mean_hours + extra)
                            + share / (lemon.mean_hours + extra))  # fmt: skip


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
        Whether a spare can stand in for the failed unit (spare servers, or a spare
        domain with ``spare_domain``).
    start : {"equilibrium", "new"}
        Age of the units when the job starts.
    impact : {"fatal", "degraded", "transient", "elastic", "slow", "corruption", "preemption"}
        What a failure does to the job (see :mod:`relplan.sim.timeline`).
    slowdown_by_count : tuple of float
        Step-time ratio while ``k`` failures of this mode are unrepaired (entry
        ``k - 1``; the last entry holds for more), for ``degraded`` modes.
    survivable_count : int or None
        Unrepaired failures of a ``degraded`` mode the job runs through; a failure
        beyond them is fatal (every spine lost). None: no limit.
    stall_hours : float
        Stall of a ``transient`` failure (detection plus failover), or of a ``slow``
        mode's re-routing, hours.
    soft_slowdown : float
        Step-time ratio after a transient stall (congestion spreading), if any, or of a
        ``slow`` mode's unit once re-routed.
    soft_hours : float
        How long the soft slowdown lasts, hours.
    loses_fast_checkpoint : bool
        Whether the failure destroys the fast (in-memory) checkpoint tier.
    self_healing : bool
        Whether the unit comes back by itself ``repair`` after the failure (a flap that
        hung the job), rather than after a repair that starts once it is noticed.
    rework_hours : float
        Job-time an ``elastic`` failure throws away: the interrupted step of an
        in-process recovery (0 for elastic recovery), hours.
    needs_spare : bool
        For an ``elastic`` mode: the failure is absorbed only if a hot spare is free
        (live migration); with none it is fatal.
    evict_at_checkpoint : bool
        For a ``slow`` mode: once detected, the unit is evicted at the job's next
        checkpoint (no work lost) rather than at once (a restart from the last one).
    detect_probability : float
        For a ``corruption`` mode: the chance that a corruption is ever found.
    history : UnitHistory or None
        Lemons, imperfect repair and retirement (None: every unit alike, as good as
        new after each repair).
    spares_needed : int
        The job's servers a failure takes down, which a swap replaces: 1, or a rack's
        or a scale-up domain's servers (at most the job's).
    spare_domain : bool
        Whether a swap takes one whole spare domain (``job.spare_domains``) rather than
        ``spares_needed`` loose spare servers (``job.spares``).
    drain : {"never", "at-checkpoint", "now"}
        For a degraded mode that slows one server (a lost dual-ToR leg or LACP member):
        when that server is swapped for a free spare (:data:`relplan.vocab.DRAIN_POLICIES`).
    recall : float
        For a ``fatal`` or ``slow`` mode: the share of failures its detector catches
        ``detect_hours`` after them; the rest are found ``late_detect_hours`` after them.
    late_detect_hours : float
        When a failure the detector misses is found, hours.
    episode : Distribution or None
        For a ``slow`` mode: how long an episode lasts if the unit is left in (None:
        until it is evicted).
    tolerate_hours : float
        For a ``slow`` mode with the ladder: how long past its detection a slow unit is
        tolerated before it is evicted (the break-even time), hours.
    reroute_after_hours : float
        For a ``slow`` mode with the ladder's middle rung: how long past its detection a
        slow unit is re-routed (inf: never), hours; then evicted ``tolerate_hours``
        after its detection.
    age_hours : float
        For a mode started ``new`` without a unit history: the age its units start at, a
        burn-in's length (``[health.burn_in]``), hours.
    return_burn_in_hours : float
        The burn-in of each unit back from repair (``[health.burn_in] returning``),
        added to its repair, hours; its next life starts at this age.
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
    self_healing: bool = False
    survivable_count: int | None = None
    rework_hours: float = 0.0
    needs_spare: bool = False
    evict_at_checkpoint: bool = False
    detect_probability: float = 1.0
    history: UnitHistory | None = None
    spares_needed: int = 1
    spare_domain: bool = False
    drain: str = "never"
    recall: float = 1.0
    late_detect_hours: float = 0.0
    episode: Distribution | None = None
    tolerate_hours: float = 0.0
    reroute_after_hours: float = math.inf
    age_hours: float = 0.0
    return_burn_in_hours: float = 0.0

    @property
    def mean_repair_hours(self) -> float:
        """Mean hours until a failed unit is back: its repair and, with a returning
        burn-in, the burn-in."""
        return self.repair.mean_hours + self.return_burn_in_hours

    @property
    def job_rate_per_hour(self) -> float:
        """Long-run failures per hour of use across the job's units (with a history: at
        the job's start, see :meth:`UnitHistory.failures_per_hour`)."""
        if self.history is not None:
            return self.job_units * self.history.failures_per_hour(self.lifetime)
        return self.job_units / self.lifetime.mean_hours

    @property
    def fails_while_down(self) -> bool:
        """Whether the mode's units can fail while the job is down (``job.idle_failures``):
        hardware does, a fail-slow unit or a corruption (which show only in a running job,
        :data:`relplan.vocab.RUNNING_ONLY_IMPACTS`) and a mode counted per job (which needs
        the job running) do not.

        Examples
        --------
        >>> from relplan.sim import distributions
        >>> gpu = FailureMode("gpu", "gpu", 8, distributions.exponential(800.0),
        ...                   distributions.fixed(48.0), 0.5, False, "equilibrium")
        >>> gpu.fails_while_down, replace(gpu, impact="corruption").fails_while_down
        (True, False)
        >>> replace(gpu, unit="job").fails_while_down
        False
        """
        return self.impact not in RUNNING_ONLY_IMPACTS and self.unit != JOB_UNIT

    @property
    def is_fatal(self) -> bool:
        """Whether a failure of this mode interrupts the job (a crash; an evicted fail-slow
        unit and a corruption found late do too, but later, and are counted apart)."""
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
        Re-initialisation and checkpoint load after a failure (R), from the durable
        store, hours.
    spares : int
        Spare servers in the pool.
    fast_interval_hours : float or None
        Compute between fast-tier checkpoints, hours (None: one tier). Every
        ``interval_hours / fast_interval_hours``-th checkpoint is durable instead.
    fast_write_hours : float
        Blocking write of a fast-tier checkpoint, hours.
    storage_on_fabric : bool
        Whether checkpoint writes share the compute fabric, so that a degraded fabric
        slows them as it slows compute (``network.storage_on_fabric``); if not, a write
        takes its normal time whatever the fabric's state.
    fast_restart_hours : float or None
        A restart that reads a fast-tier checkpoint, hours (None: ``restart_hours``).
    restart_init_hours : float
        The part of either restart that is start-up (scheduling, processes,
        communicators) rather than checkpoint load, hours (at most the shorter restart).
    persist_hours : float
        After its blocking write, how long a durable checkpoint takes to become durable
        (an asynchronous checkpoint's background persist), hours of the job's progress;
        a failure before then rolls back to the previous durable checkpoint. 0:
        durable when its write ends.
    horizon_hours : float or None
        A calendar window: every trial stops at this wall time, whatever work it has
        done (``work_hours`` then bounds the work); None: each trial runs until its work
        is done.
    idle_failures : bool
        Whether the job's hardware also fails while the job is down (detection and
        waiting): such a failure is found at the restart and needs its own replacement.
    keep_checkpoints : int or None
        Durable checkpoints retained (None: all).
    archive_every : int or None
        Every how many durable checkpoints one is kept forever (None: none).
    maintenance_every_hours : float or None
        Planned maintenance every so many wall-clock hours (None: none).
    maintenance_hours : float
        Length of a maintenance window, hours.
    maintenance_checkpoint_first : bool
        Whether the job runs on to its next durable checkpoint before a maintenance
        window (no work lost), rather than stopping at once.
    spare_domains : int
        Whole spare scale-up domains in their own pool (``job.spare_domains``).
    failures_during_recovery : bool
        Whether failures strike during restarts (``job.failures_during_recovery``); if
        not, a restart is off the exposure clock like detection and waiting.
    spare_pool : int
        Spare servers of the second tier (``job.spare_pool``), used when none of
        ``spares`` is free.
    spare_pool_swap_hours : float
        Time to bring in a spare of the second tier, hours.
    step_overhead : float
        The recovery stack's steady tax on every step, a share of its time
        (``job.step_overhead``): the job computes ``work_hours * (1 + step_overhead)``
        hours (:attr:`compute_hours`), and the tax on the work it keeps is the
        ``overhead`` bucket.
    restart_success : float
        The chance that one restart attempt succeeds (``job.restart.success``); a failed
        one costs ``restart_init_hours``.
    restart_max_attempts : int
        Attempts within the job's allocation before a requeue.
    restart_max_requeues : int
        Requeues before the job fails for good.
    requeue_delay_hours : float
        The wait for a requeued job, hours.
    black_hole : float
        The chance that a failure's retries land on the same faulty server, failing
        every attempt of the allocation.
    preempt_save_probability : float
        The chance that a preemption is saved on its notice (``save_on_notice``, or 0
        when a step and the blocking write do not fit in the notice).
    preempt_save_hours : float
        The blocking write of a just-in-time save, hours.
    durable_save_fail, fast_save_fail : float
        The chance that a durable (fast) save is lost (``job.checkpoint.fail``,
        ``job.checkpoint.fast.fail``).
    fast_corrupt : float
        The chance that a fast checkpoint a restart reads is unusable
        (``job.checkpoint.fast.corrupt``).
    save_hang : float
        The chance that a durable save hangs (``job.checkpoint.hang``).
    save_timeout_hours : float
        How long a hung save holds the job, and the longest drawn write that does not
        hang, hours (inf: none hangs).
    restart_load : Distribution or tuple of float or None
        The durable load drawn at each restart (``job.restart.load`` as a distribution,
        or measured durations, hours, drawn from evenly); None: ``restart_hours`` less
        the start-up, every time.
    write_draw, fast_write_draw : Distribution or tuple of float or None
        The blocking write of a durable (fast) checkpoint drawn at each save
        (``job.checkpoint.write`` or ``fast.write`` as a distribution or measured
        durations, hours, the durable one times ``blocking_fraction``); None:
        ``write_hours`` (``fast_write_hours``) every time, which are otherwise their
        means. A drawn write longer than ``save_timeout_hours`` hangs.
    fast_save_hang : float
        The chance that a fast save hangs (``job.checkpoint.fast.hang``).
    fast_load : Distribution or tuple of float or None
        A fast checkpoint's load drawn at each restart from the fast tier
        (``job.checkpoint.fast.load`` as a distribution or measured durations); None:
        ``fast_restart_hours`` less the start-up, every time.
    burn_in_hours, burn_in_gpu_hours : float
        A burn-in before the job (``[health.burn_in]``): its length, which the job waits
        (``waiting`` hours at its start, in its wall time), and the GPU-hours it takes
        over the job's servers and its spares.
    repair_crews : int
        Repairs under way at once (``[repair] crews``; 0: no limit): a failed unit's
        repair starts when a crew is free, first come, first served.
    """

    gpus: int
    work_hours: float
    interval_hours: float
    write_hours: float
    restart_hours: float
    spares: int
    fast_interval_hours: float | None = None
    fast_write_hours: float = 0.0
    storage_on_fabric: bool = False
    fast_restart_hours: float | None = None
    restart_init_hours: float = 0.0
    persist_hours: float = 0.0
    horizon_hours: float | None = None
    idle_failures: bool = False
    keep_checkpoints: int | None = None
    archive_every: int | None = None
    maintenance_every_hours: float | None = None
    maintenance_hours: float = 0.0
    maintenance_checkpoint_first: bool = True
    spare_domains: int = 0
    failures_during_recovery: bool = True
    spare_pool: int = 0
    spare_pool_swap_hours: float = 0.0
    step_overhead: float = 0.0
    restart_success: float = 1.0
    restart_max_attempts: int = 3
    restart_max_requeues: int = 2
    requeue_delay_hours: float = 0.0
    black_hole: float = 0.0
    preempt_save_probability: float = 0.0
    preempt_save_hours: float = 0.0
    durable_save_fail: float = 0.0
    fast_save_fail: float = 0.0
    fast_corrupt: float = 0.0
    save_hang: float = 0.0
    save_timeout_hours: float = math.inf
    restart_load: Distribution | tuple[float, ...] | None = None
    write_draw: Distribution | tuple[float, ...] | None = None
    fast_write_draw: Distribution | tuple[float, ...] | None = None
    fast_save_hang: float = 0.0
    fast_load: Distribution | tuple[float, ...] | None = None
    burn_in_hours: float = 0.0
    burn_in_gpu_hours: float = 0.0
    repair_crews: int = 0

    @property
    def saves_random(self) -> bool:
        """Whether a save may be lost or hang, or take a drawn time, or a fast checkpoint
        be unusable."""
        return self.durable_save_fail > 0.0 or self.fast_save_fail > 0.0 or (
            self.fast_corrupt > 0.0 or self.save_hang > 0.0) or self.saves_walked

    @property
    def saves_walked(self) -> bool:
        """Whether the walk stops at each save: a checkpoint write drawn, of either tier,
        or fast saves that may hang."""
        return (self.write_draw is not None or self.fast_write_draw is not None
                or self.fast_save_hang > 0.0)  # fmt: skip

    @property
    def restarts_may_fail(self) -> bool:
        """Whether a restart attempt may fail (``success < 1`` or a ``black_hole``)."""
        return self.restart_success < 1.0 or self.black_hole > 0.0

    @property
    def restarts_draw(self) -> bool:
        """Whether a restart draws random numbers: its attempts may fail, or its load is
        drawn (:attr:`restart_load`)."""
        return self.restarts_may_fail or self.restart_load is not None or (
            self.fast_load is not None)

    @property
    def compute_hours(self) -> float:
        """Compute the job runs failure-free, hours: its work with the recovery stack's
        per-step tax, ``work_hours * (1 + step_overhead)`` (``work_hours`` itself without
        a tax)."""
        return self.work_hours * (1.0 + self.step_overhead)

    @property
    def segment_hours(self) -> float:
        """Compute between any two checkpoints (the fast interval with two tiers), hours."""
        return self.fast_interval_hours or self.interval_hours

    @property
    def durable_every(self) -> int:
        """Every how many checkpoints one is durable (1 with one tier)."""
        if self.fast_interval_hours is None:
            return 1
        return max(1, round(self.interval_hours / self.fast_interval_hours))

    @property
    def mean_write_hours(self) -> float:
        """Average blocking write per checkpoint, hours."""
        if self.fast_interval_hours is None:
            return self.write_hours
        every = self.durable_every
        return (self.fast_write_hours * (every - 1) + self.write_hours) / every


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
    step_hours : float or None
        The design's healthy step time, hours (None without a ``[workload]`` or
        ``job.step``); with work in steps or tokens, ``job.work_hours`` is the steps
        times it.
    """

    job: JobSpec
    modes: tuple[FailureMode, ...]
    inventory: Inventory | None
    step_hours: float | None = None

    @property
    def job_mtti_hours(self) -> float:
        """Mean time to interruption of the job, hours of use (inf with no fatal failures).

        The failures a live migration absorbs (:attr:`FailureMode.needs_spare`) interrupt
        the job when they find no hot spare free: a share :func:`erlang_loss` of them,
        the spares serving the failed units for their mean repair (first order); the
        preemptions that are not saved on their notice interrupt it too."""
        rate = sum(mode.job_rate_per_hour for mode in self.modes if mode.is_fatal)
        unsaved = 1.0 - self.job.preempt_save_probability  # a saved preemption loses no work
        rate += sum(mode.job_rate_per_hour * unsaved for mode in self.modes
                    if mode.impact == "preemption")  # fmt: skip
        absorbed = [mode for mode in self.modes if mode.needs_spare]
        if absorbed:
            offered = sum(mode.job_rate_per_hour for mode in absorbed)
            busy = sum(mode.job_rate_per_hour * mode.mean_repair_hours for mode in absorbed)
            rate += offered * erlang_loss(self.job.spares, busy)
        return 1.0 / rate if rate > 0 else float("inf")

    def with_interval(self, interval_hours: float) -> SimulationModel:
        """The same model with another (durable) checkpoint interval, hours.

        With two tiers the number of fast checkpoints per durable one is kept.
        """
        job = self.job
        if job.fast_interval_hours is None:
            return replace(self, job=replace(job, interval_hours=interval_hours))
        every = job.durable_every
        return replace(self, job=replace(job, interval_hours=interval_hours,
                                         fast_interval_hours=interval_hours / every))

    def with_tiers(self, fast_interval_hours: float, durable_every: int) -> SimulationModel:
        """The same model with a fast tier every ``fast_interval_hours`` and a durable
        checkpoint every ``durable_every`` of them."""
        return replace(self, job=replace(
            self.job, fast_interval_hours=fast_interval_hours,
            interval_hours=fast_interval_hours * durable_every,
        ))  # fmt: skip


def _parts(config: RelplanConfig, inventory: Inventory, name: str,
           unit: str) -> list[tuple[str, int, bool]]:  # fmt: skip
    """A mode's parts: (name, job units, fabric?). Links and optics split in two."""
    if unit not in ("link", "optic"):
        return [(name, inventory.job_units(unit), False)]
    per_link = 1
    server, fabric = inventory.job_server_links, inventory.job_fabric_links
    if unit == "optic":
        per_link = 2
        server *= config.network.server_links == "optical"
        fabric *= config.network.fabric_links == "optical"
    return [(name, per_link * server, False), (f"{name}.fabric", per_link * fabric, True)]


def unit_history(mode: FailureModeConfig, lemons_caught: float = 0.0) -> UnitHistory | None:
    """The :class:`UnitHistory` of a validated ``[failures.NAME]`` table (None without
    ``lemons``, ``repair_success`` or ``retire_after``), with ``lemons_caught`` of its
    lemons found by a burn-in and swapped before the job (``[health.burn_in]``)."""
    if not mode.has_unit_history:
        return None
    lemons = mode.lemons
    return UnitHistory(
        lemon_share=lemons.share * (1.0 - lemons_caught) if lemons is not None else 0.0,
        lemon_factor=lemons.factor if lemons is not None else 1.0,
        repair_success=mode.repair_success if mode.repair_success is not None else 1.0,
        refail=(distributions.from_config(mode.refail) if mode.refail is not None
                else DEFAULT_REFAIL),
        retire_after=mode.retire_after,
        lemons_curable=lemons is not None and lemons.curable,
        retire_removes=mode.retire == "remove",
    )  # fmt: skip


def _spare_draw(config: RelplanConfig, inventory: Inventory, unit: str) -> dict[str, object]:
    """What a swap of a failed ``unit`` takes: the job's servers it took down (a rack's,
    a domain's, at most the job's; one otherwise), and whether they come as a whole spare
    domain (a scale-up domain: its servers must share one NVLink or ICI fabric)."""
    cluster = config.cluster
    per_unit = {"rack": cluster.servers_per_rack, "domain": cluster.servers_per_domain}
    needed = min(per_unit.get(unit, 1), inventory.job_servers)
    return {"spares_needed": max(1, needed), "spare_domain": unit == "domain"}


def _lemons_caught(config: RelplanConfig) -> float:
    """The share of lemons a burn-in finds before the job (0 without one)."""
    burn_in = config.health.burn_in if config.health is not None else None
    return burn_in.catches if burn_in is not None else 0.0


def _burn_in_age(config: RelplanConfig, mode: FailureModeConfig) -> float:
    """The age a mode's units start the job at: a burn-in's length for a mode started new
    whose units have no history (infant mortality burned away), else 0."""
    burn_in = config.health.burn_in if config.health is not None else None
    if burn_in is None or mode.start != "new" or mode.has_unit_history:
        return 0.0
    return burn_in.duration


def _return_burn_in(config: RelplanConfig, unit: str, impact: Impact) -> float:
    """A mode's ``return_burn_in_hours``: the burn-in of each of its units back from
    repair (``[health.burn_in] returning``), for hardware that is repaired; none for a
    mode counted per job or a unit that comes back by itself (a flap)."""
    burn_in = config.health.burn_in if config.health is not None else None
    if burn_in is None or not burn_in.returning or unit == JOB_UNIT or impact.self_healing:
        return 0.0
    if impact.kind not in ("fatal", "degraded", "slow", "elastic"):
        return 0.0
    return burn_in.duration


def _burn_in(config: RelplanConfig) -> dict[str, float]:
    """The :class:`JobSpec` fields of a burn-in before the job: its hours, and its
    GPU-hours over the job's servers and its spares."""
    burn_in = config.health.burn_in if config.health is not None else None
    if burn_in is None:
        return {}
    cluster = config.cluster
    servers = job_servers(config) + config.job.spares + config.job.spare_pool
    return {"burn_in_hours": burn_in.duration,
            "burn_in_gpu_hours": burn_in.duration * servers * cluster.gpus_per_server}


def break_even_hours(slowdown: float, evict_cost_hours: float) -> float:
    """How long a slow unit is tolerated before it is evicted (ski rental): until the job
    time the slowdown has taken, ``(1 - 1 / slowdown)`` of each hour, equals what an
    eviction costs.

    Whatever the episode's length ``D``, this costs at most twice the best choice made
    knowing ``D``: ``min(c D, E)`` with ``c = 1 - 1 / slowdown``.

    Parameters
    ----------
    slowdown : float
        The step-time ratio of the slow unit (> 1).
    evict_cost_hours : float
        What an eviction costs, job-hours (a restart, and the rework of a stop at once).

    Returns
    -------
    float
        Hours of running (inf for a slowdown of 1: it costs nothing).

    Examples
    --------
    >>> break_even_hours(1.25, 0.25)  # 20% of each hour lost; a 15-min eviction
    1.25
    """
    rate = 1.0 - 1.0 / slowdown
    return evict_cost_hours / rate if rate > 0.0 else math.inf


def ladder_rungs(slowdown: float, evict_cost_hours: float, reroute_slowdown: float = 1.0,
                 reroute_stall_hours: float = math.inf) -> tuple[float, float]:  # fmt: skip
    """When a detected slow unit is re-routed and when it is evicted (ski rental with a
    middle rung): the lower envelope of what each choice costs after ``t`` hours,
    tolerating ``a t``, re-routing ``R + b t``, evicting ``E`` (``a = 1 - 1 / slowdown``,
    ``b = 1 - 1 / reroute_slowdown``, ``R`` the re-route's stall, ``E`` the eviction's
    cost). The ladder moves to the next choice when the envelope does: re-route at
    ``R / (a - b)``, evict at ``(E - R) / b``; if re-routing is never the cheapest, evict
    at the break-even time :func:`break_even_hours`.

    Whatever the episode's length ``D``, this costs at most ``2 + R / E`` times the
    best choice made knowing ``D``, ``min(a D, R + b D, E)``: twice it until the
    eviction, and a re-route paid for nothing beyond (2 without the middle rung).

    Parameters
    ----------
    slowdown : float
        The step-time ratio of the slow unit (> 1).
    evict_cost_hours : float
        What an eviction costs, job-hours (a restart, and the rework of a stop at once).
    reroute_slowdown : float
        The step-time ratio once re-routed (below ``slowdown``).
    reroute_stall_hours : float
        What re-routing costs, hours of stall (inf: no middle rung).

    Returns
    -------
    (float, float)
        Hours past the detection at which the unit is re-routed (inf: never) and
        evicted (inf: never).

    Examples
    --------
    >>> [round(t, 4) for t in ladder_rungs(1.5, 0.75)]  # no middle rung: break-even
    [inf, 2.25]
    >>> [round(t, 4) for t in ladder_rungs(1.5, 0.75, 1.1, 0.05)]  # re-route, evict later
    [0.2063, 7.7]
    """
    tolerate_rate = 1.0 - 1.0 / slowdown
    rerouted_rate = 1.0 - 1.0 / reroute_slowdown
    evict_after = break_even_hours(slowdown, evict_cost_hours)
    if reroute_stall_hours == math.inf or tolerate_rate <= rerouted_rate:
        return math.inf, evict_after
    reroute_after = reroute_stall_hours / (tolerate_rate - rerouted_rate)
    if tolerate_rate * reroute_after >= evict_cost_hours:  # evicting is cheaper first
        return math.inf, evict_after
    if rerouted_rate <= 0.0:
        return reroute_after, math.inf
    return reroute_after, (evict_cost_hours - reroute_stall_hours) / rerouted_rate


def _fail_slow_ladder(config: RelplanConfig, facts: DerivedFacts, mode: FailureModeConfig,
                      impact: Impact) -> dict[str, object]:  # fmt: skip
    """The :class:`FailureMode` fields of a fail-slow mode's episodes and its ladder: the
    rungs' times (:func:`ladder_rungs`), with an eviction's cost a restart and, for an
    eviction at once, half a checkpoint interval of rework on average."""
    if impact.kind != "slow":
        return {}
    fields: dict[str, object] = {}
    if mode.episode is not None:
        fields["episode"] = distributions.from_config(mode.episode)
    if mode.mitigation == "ladder":
        checkpoint = config.job.checkpoint
        segment = checkpoint.fast.interval if checkpoint.fast is not None else (
            checkpoint.interval)
        rework = 0.0 if mode.evict == "at-checkpoint" else segment / 2.0
        evict_cost = facts.restart.durable_hours + rework
        reroute = mode.reroute
        if reroute is None:
            fields["tolerate_hours"] = break_even_hours(impact.slowdown_by_count[0],
                                                        evict_cost)  # fmt: skip
        else:
            reroute_after, evict_after = ladder_rungs(
                impact.slowdown_by_count[0], evict_cost, reroute.slowdown, reroute.stall)
            fields.update(tolerate_hours=evict_after, reroute_after_hours=reroute_after,
                          stall_hours=reroute.stall, soft_slowdown=reroute.slowdown)
    return fields


def _probe_tax(config: RelplanConfig) -> float:
    """The share of running time active probes pause the job (``[health.probe]``:
    ``duration / every``), a tax on every step like a recovery stack's."""
    probe = config.health.probe if config.health is not None else None
    return probe.duration / probe.every if probe is not None else 0.0


def _detection(config: RelplanConfig, mode: FailureModeConfig, kind: str) -> dict[str, float]:
    """The :class:`FailureMode` fields of a detector that misses some failures
    (``recall`` below 1): found ``detect_late`` after them (none otherwise)."""
    if mode.recall >= 1.0 or kind not in ("fatal", "slow"):
        return {}
    late = mode.detect_late
    if late is None:
        late = config.network.failover.collective_timeout
    return {"recall": mode.recall, "late_detect_hours": late}


def _with_detectors(config: RelplanConfig, mode: FailureModeConfig, resolved: PartImpact,
                    failure_mode: FailureMode) -> list[FailureMode]:  # fmt: skip
    """A mode with what its detector, its flaps and the probes add
    (:mod:`relplan.sim.health`): the crashes and stalls of a flapping fatal mode, the
    failures a probe finds ahead, the detector's false alarms (on the mode's part in the
    job's servers, not its fabric part)."""
    parts = [failure_mode]
    if mode.flap is not None and failure_mode.impact == "fatal":
        parts = health.split_flaps(failure_mode, distributions.from_config(mode.flap),
                                   config.network.failover.transport_timeout)  # fmt: skip
    probe = config.health.probe if config.health is not None else None
    found = health.probe_share(mode, resolved.name, probe)
    if found > 0.0 and failure_mode.impact == "fatal":
        parts = [piece for part in parts for piece in (
            health.split_probe_finds(part, found) if part.impact == "fatal" else [part])]
    drains = failure_mode.impact == "degraded" and failure_mode.drain != "never"
    if mode.false_positives > 0.0 and not resolved.fabric and (
        failure_mode.impact in ("fatal", "slow") or drains
    ):
        parts.append(health.false_alarm_mode(failure_mode, mode.false_positives,
                                             job_servers(config), mode.false_alarm_triage))
    return parts


def _with_predictor(config: RelplanConfig, facts: DerivedFacts,
                    modes: list[FailureMode]) -> list[FailureMode]:  # fmt: skip
    """The modes with a failure predictor's effect (``[health.predictor]``): each watched
    fatal mode split into the failures it misses and those it warns of, and its false
    warnings as a mode of their own (:mod:`relplan.sim.health`)."""
    predictor = config.health.predictor if config.health is not None else None
    if predictor is None:
        return modes
    cost = health.predicted_cost(predictor, config.job.checkpoint.blocking_write_hours,
                                 facts.restart.durable_hours)  # fmt: skip
    if cost is None:  # warned too late to act (a warning says so)
        return modes
    stall, rework = cost
    watched = [m for m in modes if m.name in predictor.modes and m.impact == "fatal"]
    names = {m.name for m in watched}
    split = [piece for m in modes for piece in (
        health.split_predicted(m, predictor.recall, stall, rework) if m.name in names
        else [m])]  # fmt: skip
    rate = sum(m.job_units / m.lifetime.mean_hours for m in watched)
    false_rate = rate * predictor.recall * (1.0 - predictor.precision) / predictor.precision
    if false_rate > 0.0:
        action = stall  # a migration for nothing
        if predictor.action == "checkpoint":  # a checkpoint for nothing: the write only
            action = config.job.checkpoint.blocking_write_hours
        split.append(health.false_warning_mode(watched[0], false_rate, action))
    return split


def _preemption_mode(preemption: PreemptionConfig) -> FailureMode:
    """The job's preemptions as a failure mode counted per job: Poisson at the given mean,
    seen at once (the notice), back after ``return_delay`` (its "repair")."""
    return FailureMode(
        name=PREEMPTION_MODE, unit=JOB_UNIT, job_units=1,
        lifetime=distributions.exponential(preemption.mean_hours),
        repair=distributions.from_config(preemption.return_delay), detect_hours=0.0,
        uses_spares=False, start="equilibrium", impact="preemption",
    )  # fmt: skip


def _preemption_save(config: RelplanConfig, step: StepModel) -> dict[str, float]:
    """The :class:`JobSpec` fields of a just-in-time save on a preemption's notice: its
    chance (``save_on_notice`` if one step and the blocking write fit in the notice, else
    0) and the write."""
    preemption = config.preemption
    if preemption is None:
        return {}
    write = config.job.checkpoint.blocking_write_hours
    fits = (step.step_hours or 0.0) + write <= preemption.notice
    return {"preempt_save_probability": preemption.save_on_notice if fits else 0.0,
            "preempt_save_hours": write}


def _random_saves(checkpoint: CheckpointConfig) -> dict[str, float]:
    """The :class:`JobSpec` fields of saves that may be lost or hang and fast checkpoints
    that may be unusable (none unless a config says so)."""
    fields = {}
    if checkpoint.fail > 0.0:
        fields["durable_save_fail"] = checkpoint.fail
    if checkpoint.hang > 0.0:
        fields["save_hang"] = checkpoint.hang
    fast = checkpoint.fast
    if fast is not None and fast.fail > 0.0:
        fields["fast_save_fail"] = fast.fail
    if fast is not None and fast.corrupt > 0.0:
        fields["fast_corrupt"] = fast.corrupt
    return fields


def _drawn_duration(
    value: DistributionConfig | list[float], factor: float = 1.0
) -> Distribution | tuple[float, ...]:
    """A duration drawn each time, from a config's distribution table or measured
    durations (hours), times ``factor``."""
    if isinstance(value, list):
        return tuple(float(hours) * factor for hours in value)
    return distributions.from_config(value).faster(1.0 / factor)


def _drawn_writes(checkpoint: CheckpointConfig) -> dict[str, object]:
    """The :class:`JobSpec` fields of checkpoint writes drawn at each save (none unless a
    tier's ``write`` is a distribution or a list), fast saves that may hang and a fast
    load drawn at each restart."""
    fields: dict[str, object] = {}
    if checkpoint.write_drawn:
        fields["write_draw"] = _drawn_duration(checkpoint.write, checkpoint.blocking_fraction)
    fast = checkpoint.fast
    if fast is not None and fast.write_drawn:
        fields["fast_write_draw"] = _drawn_duration(fast.write)
    if fast is not None and fast.hang > 0.0:
        fields["fast_save_hang"] = fast.hang
    if fast is not None and isinstance(fast.load, list | DistributionConfig):
        fields["fast_load"] = _drawn_duration(fast.load)
    return fields


def _restart_policy(job: JobConfig) -> dict[str, object]:
    """The :class:`JobSpec` fields of restarts that may fail and loads drawn at each
    restart, from ``job.restart`` (a restart given as one duration always succeeds and
    takes its time)."""
    restart = job.restart
    if not isinstance(restart, RestartConfig):
        return {}
    load = restart.load
    drawn: dict[str, object] = {}
    if not isinstance(load, str | float | int):
        drawn["restart_load"] = _drawn_duration(load)
    return {
        **drawn,
        "restart_success": restart.success,
        "restart_max_attempts": restart.max_attempts,
        "restart_max_requeues": restart.max_requeues,
        "requeue_delay_hours": restart.requeue_delay,
        "black_hole": restart.black_hole,
    }


def keeps_fast_tier(setting: bool | None, unit: str) -> bool:
    """Whether a failure keeps a fast tier held in its servers' memory (``survives =
    "none"``): ``failures.NAME.keeps_fast_tier`` if given, else by unit: a server's part
    (GPU, host, NIC) takes its memory with it, anything else (a link, a switch, a process
    crash counted per ``job``) leaves it."""
    if setting is not None:
        return setting
    return unit not in SERVER_CLASSES


def drains_servers(impact: str, unit: str, fabric: bool) -> bool:
    """Whether a failure of this kind leaves one server running degraded, which a drain
    can swap for a spare: a degraded mode of a server's own legs
    (:data:`relplan.vocab.DRAINABLE_CLASSES`: a lost dual-ToR leg or LACP member of a
    server link or its optic, a NIC under PXN), not a switch, a fabric link, a GPU or
    host, a block of servers or a mode counted per job.

    Examples
    --------
    >>> drains_servers("degraded", "link", False), drains_servers("degraded", "link", True)
    (True, False)
    >>> drains_servers("degraded", "job", False), drains_servers("fatal", "nic", False)
    (False, False)
    """
    return impact == "degraded" and not fabric and unit in DRAINABLE_CLASSES


def _drain(config: RelplanConfig, name: str, impact: str, unit: str, fabric: bool) -> str:
    """The drain policy of one part of mode ``name``: its own, else ``job.drain``; never
    for a part that does not leave one server degraded."""
    if not drains_servers(impact, unit, fabric):
        return "never"
    return config.failures[name].drain or config.job.drain


def build_model(config: RelplanConfig) -> SimulationModel:
    """Resolve a validated config into a :class:`SimulationModel`.

    Parameters
    ----------
    config : RelplanConfig
        A validated config.

    Returns
    -------
    SimulationModel
        The job, and every failure mode that touches the job's footprint, with its
        impact resolved from the network's redundancy (link and optic modes split
        into their server part, named as in the config, and their switch-to-switch
        part, ``NAME.fabric``). ``recovery = "failure-free"`` keeps no mode.

    Examples
    --------
    >>> from relplan.config.loading import load_config
    >>> model = build_model(load_config("configs/llama3-16k.toml"))
    >>> round(model.job_mtti_hours, 2)  # Llama 3's 419 interruptions in 54 days
    3.09
    """
    facts = derive(config)
    inventory = inventory_from_facts(config, facts)
    step = build_step_model(config, facts)  # healthy and degraded: once for every mode
    impacts = resolve_impacts(config, facts, inventory, step)
    return _simulation_model(config, facts, inventory, step, impacts)


@dataclass(frozen=True)
class PartImpact:
    """The resolved impact of one part of a failure mode (the impacts stage's record).

    Attributes
    ----------
    name : str
        The mode's key in ``[failures]``.
    unit : str
        The component class it fails (:meth:`RelplanConfig.failure_unit`).
    part : str
        The part's name: ``name``, or ``NAME.fabric`` for a link or optic mode's
        switch-to-switch part.
    job_units : int
        Units of the part in the job's footprint (> 0).
    fabric : bool
        Whether this is the switch-to-switch part.
    impact : Impact
        What a failure of this part does to the job.
    """

    name: str
    unit: str
    part: str
    job_units: int
    fabric: bool
    impact: Impact


def resolve_impacts(
    config: RelplanConfig, facts: DerivedFacts, inventory: Inventory, step: StepModel
) -> tuple[PartImpact, ...]:
    """The impact of every part of every failure mode in the job's footprint, in config
    order (none for ``recovery = "failure-free"``).

    Parameters
    ----------
    config : RelplanConfig
        The validated config (its per-mode settings).
    facts : DerivedFacts
        Its derived facts (:func:`relplan.config.derived.derive`).
    inventory : Inventory
        Its inventory (:func:`relplan.cluster.topology.inventory_from_facts`).
    step : StepModel
        Its step model (:func:`relplan.comm.work.build_step_model`).

    Returns
    -------
    tuple of PartImpact

    Examples
    --------
    >>> from relplan.config.loading import load_config
    >>> config = load_config("configs/small.toml")
    >>> facts = derive(config)
    >>> inventory = inventory_from_facts(config, facts)
    >>> parts = resolve_impacts(config, facts, inventory, build_step_model(config, facts))
    >>> len(parts) == len(build_model(config).modes)
    True
    """
    if config.job.recovery == "failure-free":
        return ()
    impacts = []
    for name in config.failures:
        unit = config.failure_unit(name)
        for part, units, fabric in _parts(config, inventory, name, unit):
            if units > 0:
                impact = resolve_impact(config, facts, inventory, step, name, fabric)
                impacts.append(PartImpact(name, unit, part, units, fabric, impact))
    return tuple(impacts)


def _simulation_model(
    config: RelplanConfig, facts: DerivedFacts, inventory: Inventory, step: StepModel,
    impacts: tuple[PartImpact, ...],
) -> SimulationModel:  # fmt: skip
    """The last stage: the job and its modes from the earlier stages' records."""
    job = config.job
    checkpoint = job.checkpoint
    fast = checkpoint.fast
    modes = []
    for resolved in impacts:
        name, unit, impact = resolved.name, resolved.unit, resolved.impact
        mode = config.failures[name]
        detect = mode.detect_hours if impact.detect_hours is None else impact.detect_hours
        stall = impact.stall_hours + (mode.detect_hours if impact.kind == "elastic" else 0.0)
        modes.extend(_with_detectors(config, mode, resolved, FailureMode(
                name=resolved.part,
                unit=unit,
                job_units=resolved.job_units,
                lifetime=distributions.from_config(mode.lifetime),
                repair=distributions.from_config(mode.repair),
                detect_hours=detect,
                uses_spares=config.uses_spares(name),
                start=mode.start,
                impact=impact.kind,
                slowdown_by_count=impact.slowdown_by_count,
                soft_hours=impact.soft_hours,
                loses_fast_checkpoint=fast is not None
                and fast.survives == "none"
                and not keeps_fast_tier(mode.keeps_fast_tier, unit),
                self_healing=impact.self_healing,
                survivable_count=impact.survivable_count,
                rework_hours=impact.rework_hours,
                needs_spare=impact.needs_spare,
                evict_at_checkpoint=mode.evict == "at-checkpoint",
                detect_probability=mode.detect_probability,
                history=unit_history(mode, _lemons_caught(config)),
                drain=_drain(config, name, impact.kind, unit, resolved.fabric),
                **_spare_draw(config, inventory, unit),
                **_detection(config, mode, impact.kind),
                # a slow mode's re-routing stalls, then slows as a transient's soft phase
                **({"stall_hours": stall, "soft_slowdown": impact.soft_slowdown}
                   | _fail_slow_ladder(config, facts, mode, impact)),
                age_hours=_burn_in_age(config, mode),
                return_burn_in_hours=_return_burn_in(config, unit, impact),
            )))
    modes = _with_predictor(config, facts, modes)
    if config.preemption is not None:
        modes.append(_preemption_mode(config.preemption))
    restart = facts.restart
    maintenance = config.maintenance
    return SimulationModel(
        job=JobSpec(
            gpus=job.gpus,
            work_hours=work_hours_at_step(config, step),
            interval_hours=checkpoint.interval,
            write_hours=checkpoint.blocking_write_hours,
            restart_hours=restart.durable_hours,
            spares=job.spares,
            fast_interval_hours=fast.interval if fast is not None else None,
            fast_write_hours=fast.write_hours if fast is not None else 0.0,
            storage_on_fabric=config.network.storage_on_fabric,
            fast_restart_hours=restart.fast_hours if fast is not None else None,
            restart_init_hours=restart.init_hours,
            persist_hours=checkpoint.persist_hours,
            horizon_hours=job.horizon,
            idle_failures=job.idle_failures,
            keep_checkpoints=checkpoint.keep,
            archive_every=checkpoint.archive_every,
            maintenance_every_hours=maintenance.every if maintenance is not None else None,
            maintenance_hours=maintenance.duration if maintenance is not None else 0.0,
            maintenance_checkpoint_first=maintenance is None or maintenance.checkpoint_first,
            spare_domains=job.spare_domains,
            failures_during_recovery=job.failures_during_recovery,
            spare_pool=job.spare_pool,
            spare_pool_swap_hours=job.spare_pool_swap,
            step_overhead=job.step_tax + _probe_tax(config),
            **_restart_policy(job),
            **_preemption_save(config, step),
            save_timeout_hours=checkpoint.save_timeout,
            **_random_saves(checkpoint),
            **_drawn_writes(checkpoint),
            **_burn_in(config),
            repair_crews=config.repair.crews if config.repair is not None else 0,
        ),
        modes=tuple(modes),
        inventory=inventory,
        step_hours=step.step_hours,
    )
