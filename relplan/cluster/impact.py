"""What a failure does to the job: fatal, degraded (with its slowdown) or transient.

The effect of each failure mode follows from its component class and the redundancy
of the network (README, "The model"), unless the config overrides it:

- gpu, host, job-level modes: fatal (with elastic recovery, a server-level failure
  drops one data-parallel replica instead; with replica drop, its replica group until it
  rejoins; with in-process recovery, it is absorbed within the running job, at the cost
  of the interrupted step; with live migration, the server's state moves to a free hot
  spare, and with none free the failure is fatal).
- nic (a NIC card, all its ports): fatal, or with ``network.nic_failover = "pxn"``
  degraded (its GPU sends through a neighbour's NIC).
- server links and their optics, leaf (ToR): fatal when single-homed with one link per
  NIC; a NIC with more links (LACP members, dual-ToR legs) loses one and runs its
  slowest flow at ``(links - 1) / links`` (degraded) while ``min_links`` hold.
- fabric links and their optics, spines, cores: ECMP routes around them; the slowest
  flow loses its path's share (one of the leaf's equal-cost paths, one of an aggregation
  switch's core uplinks, a member of its bundle) and ECMP rehashes onto what is left.
- transient modes (flaps, reroutes): a stall for detection plus failover (BFD
  interval x multiplier + ECMP reconvergence on the fabric; on a server's bundle or
  dual-ToR pair, the PHY-down detection for a link that goes down and LACP's timeout
  only for a partner that stops sending with its link up; the flap itself where nothing
  fails over). A stall as long as the transport's
  retry window (about 30 s) or the collective timeout is fatal: the job crashes when the
  window runs out, then restarts. A soft phase after the stall (PFC congestion
  spreading) runs at a slowdown derived from ``network.pfc_pause_share``.

The slowdown of a degraded state is the step time with the reduced bandwidth over
the step time at full bandwidth, from :mod:`relplan.comm.step` when the config has a
``[workload]``; otherwise ``1 + comm_share x (1 / capacity - 1)``.
"""

from __future__ import annotations

from dataclasses import dataclass

from relplan.cluster.topology import Inventory
from relplan.comm.inputs import CapacityScale
from relplan.comm.work import StepModel, step_model
from relplan.config.derived import DerivedFacts
from relplan.config.schema import (
    DEFAULT_FAIL_SLOW_SLOWDOWN,
    FailureModeConfig,
    InProcessConfig,
    LiveMigrationConfig,
    RelplanConfig,
    ReplicaDropConfig,
)
from relplan.vocab import FABRIC_CLASSES, SERVER_CLASSES

LACP_TIMEOUT_HOURS = {"fast": 3.0 / 3600.0, "slow": 90.0 / 3600.0}
"""LACP's partner timeout by ``network.failover.lacp_rate``, hours: three missed LACPDUs
at 1 s (fast) or 30 s (slow) (IEEE 802.1AX; Linux ``bond_3ad.c``)."""

MAX_CONCURRENT = 16
"""Concurrent losses of one mode tabulated where they compound (spines, elastic replicas);
the last entry holds for more."""


@dataclass(frozen=True)
class Impact:
    """The resolved effect of one failure mode (or one part of it).

    Attributes
    ----------
    kind : {"fatal", "degraded", "transient", "elastic", "slow", "corruption"}
        What a failure does.
    slowdown_by_count : tuple of float
        Step-time ratio with k = 1, 2, ... failures of the mode unrepaired.
    stall_hours : float
        Stall of a transient (or the detection plus reconfiguration of an elastic
        shrink), hours.
    soft_slowdown, soft_hours : float
        Slowdown after a transient stall and how long it lasts, hours (for elastic
        recovery, ``soft_hours`` is the time a replacement needs to rejoin).
    detect_hours : float or None
        Detection time to use instead of the mode's (a hang waits for the timeout).
    self_healing : bool
        The failed unit comes back by itself its repair time after the failure (a flap),
        so a fatal failure waits only for what is left of it after detection.
    survivable_count : int or None
        Concurrent failures of the mode the job runs through degraded; one more is fatal
        (every spine lost, say). None: no limit (the last slowdown holds for more).
    rework_hours : float
        Job-time an absorbed failure throws away (the interrupted step of an in-process
        recovery, with the recovery stack's per-step tax), hours.
    needs_spare : bool
        An absorbed failure needs a free hot spare (live migration); without one it is
        fatal (a restart from a checkpoint).
    reason : str
        Why, in a few words (shown by ``relplan inventory``).
    """

    kind: str
    slowdown_by_count: tuple[float, ...] = (1.0,)
    stall_hours: float = 0.0
    soft_slowdown: float = 1.0
    soft_hours: float = 0.0
    detect_hours: float | None = None
    self_healing: bool = False
    survivable_count: int | None = None
    rework_hours: float = 0.0
    needs_spare: bool = False
    reason: str = ""


def capacity_slowdown(config: RelplanConfig, loss: CapacityScale) -> float:
    """Step time with the slowest flow's reduced capacity over step time at full (>= 1).

    Parameters
    ----------
    config : RelplanConfig
        The config (its ``[workload]`` and ``[network]``).
    loss : CapacityScale
        What the slowest flow keeps of its uplink path, of its server's NICs, and how many
        equal-cost paths its leaf lost.

    Returns
    -------
    float
        The slowdown; 1 at full capacity (:meth:`relplan.comm.work.StepModel.slowdown`).
    """
    return step_model(config).slowdown(loss)


def _degraded(
    step: StepModel, losses: list[CapacityScale], reason: str,
    survivable_count: int | None = None,
) -> Impact:  # fmt: skip
    return Impact(
        "degraded", tuple(step.slowdown(loss) for loss in losses),
        survivable_count=survivable_count, reason=reason,
    )  # fmt: skip


def _fatal_or_elastic(config: RelplanConfig, facts: DerivedFacts, step: StepModel, unit: str,
                      reason: str) -> Impact:  # fmt: skip
    job = config.job
    if job.recovery == "in-process" and unit in SERVER_CLASSES:
        in_process = job.in_process or InProcessConfig()
        data = in_process.data_parallel or facts.data_parallel_degree
        most = min(data - 1, in_process.max_concurrent)
        steps = tuple(data / (data - k) for k in range(1, most + 1))
        return Impact(
            "elastic", steps, stall_hours=in_process.reconfigure, survivable_count=most,
            rework_hours=(step.step_hours or 0.0) * (1.0 + job.step_tax),
            reason="in-process: swap or drop the replica, redo the step",
        )  # fmt: skip
    if job.recovery == "live-migration" and unit in SERVER_CLASSES:
        migration = job.live_migration or LiveMigrationConfig()
        return Impact(
            "elastic", stall_hours=migration.swap, needs_spare=True,
            reason="live migration: the server's state to a hot spare (none free: restart)",
        )  # fmt: skip
    if job.recovery == "replica-drop" and unit in SERVER_CLASSES:
        drop = job.replica_drop or ReplicaDropConfig()
        groups = drop.replicas or facts.data_parallel_degree
        most = min(groups - 1, MAX_CONCURRENT)
        return Impact(
            "elastic", tuple(groups / (groups - k) for k in range(1, most + 1)),
            stall_hours=drop.reconfigure, soft_hours=drop.rejoin, survivable_count=most,
            reason="replica drop: the replica group out until it rejoins",
        )  # fmt: skip
    if job.recovery == "elastic" and job.elastic is not None and unit in SERVER_CLASSES:
        data = job.elastic.data_parallel
        steps = tuple(data / (data - k) for k in range(1, min(data - 1, MAX_CONCURRENT) + 1))
        return Impact(
            "elastic", steps, stall_hours=job.elastic.reconfigure,
            soft_hours=job.elastic.rejoin, reason="elastic: drop a data-parallel replica",
        )  # fmt: skip
    return Impact("fatal", reason=reason)


def _server_side(config: RelplanConfig, facts: DerivedFacts, inventory: Inventory,
                 step: StepModel, unit: str) -> Impact:  # fmt: skip
    """A NIC card, a leaf (ToR), and a server link or its optic.

    A NIC's links are ``members`` LACP members to each of its legs (two with dual-ToR). A
    lost link, optic or ToR takes one link of each NIC it serves: the slowest flow keeps
    ``(links - 1) / links`` of that NIC, so losing a dual-ToR leg costs what losing one
    member of a two-member bundle does. A NIC card takes all of its links with it: fatal,
    unless ``network.nic_failover = "pxn"`` sends its GPU's traffic through a neighbour's
    NIC over NVLink (that NIC then carries two GPUs' flows: half each).
    """
    members, min_links = inventory.server_lacp_members, inventory.server_lacp_min_links
    links = facts.links_per_nic
    if unit == "nic":
        if config.network.nic_failover == "pxn" and inventory.nics_per_server > 1:
            return _degraded(step, [CapacityScale(server_nic=0.5)],
                             "NIC lost: PXN through a neighbour's NIC")  # fmt: skip
        return _fatal_or_elastic(config, facts, step, "nic", "NIC card lost (all its ports)")
    if inventory.dual_tor:
        return _degraded(step, [CapacityScale(server_nic=(links - 1) / links)],
                         f"dual-ToR: one of {links} links of the NIC lost")  # fmt: skip
    if unit in ("link", "optic") and members > 1 and members - 1 >= min_links:
        return _degraded(
            step, [CapacityScale(server_nic=(members - 1) / members)],
            f"LACP: {members - 1} of {members} members left (min_links {min_links})",
        )  # fmt: skip
    if unit in ("link", "optic") and members > 1:
        return _fatal_or_elastic(
            config, facts, step, "nic", f"LACP: {members - 1} members left < min_links {min_links}"
        )
    single = "nic" if unit != "leaf" else unit
    return _fatal_or_elastic(config, facts, step, single, "single-homed")


def _fabric_side(config: RelplanConfig, inventory: Inventory, step: StepModel,
                 unit: str) -> Impact:  # fmt: skip
    """Spine, core, and a fabric link (or its optic): ECMP routes around them.

    The slowest flow sets the pace: a lost spine leaves every leaf ``P - 1`` of its ``P``
    equal-cost paths (ECMP rehashes onto them); a lost fat-tree core takes one of the
    ``k/2`` uplinks of the aggregation switches it serves; a lost fabric link takes one
    path from its leaf; a lost member of a fabric bundle leaves the flows hashed onto
    that bundle ``(M - 1)/M`` of it (while ``min_links`` hold) under static ECMP, a
    slowdown weighted by the probability that the job's flows hashed onto that member
    (:func:`lag_member_hit_probability`), while adaptive routing spreads the load over
    the leaf's ``P x M - 1`` links left.

    Spines are shared by every leaf, so concurrent spine losses compound (``k`` lost
    leave ``P - k`` paths) and losing every spine is fatal. A core, a fabric link or a
    bundle member is one of many: concurrent losses land at different aggregation
    switches, leaves or bundles, and the slowest flow sees one of them.
    """
    paths = max(inventory.ecmp_width, 1)
    if unit == "core":
        half = config.network.switch_ports // 2
        if half <= 1:
            return Impact("fatal", reason="no other core path")
        loss = CapacityScale(fabric=1.0 - 1.0 / half, fabric_paths_lost=1)
        return _degraded(step, [loss], f"fat-tree: an aggregation switch loses one of "
                                         f"{half} core uplinks")  # fmt: skip
    members, min_links = inventory.fabric_lacp_members, inventory.fabric_lacp_min_links
    if unit not in FABRIC_CLASSES and members > 1 and members - 1 >= min_links:
        if config.network.load_balancing == "adaptive":
            # load-aware routing weighs the thinner bundle down
            links = paths * members
            return _degraded(step, [CapacityScale(fabric=(links - 1) / links)],
                             f"LACP fabric bundle, adaptive routing: {links - 1} of the "
                             f"leaf's {links} uplinks left")  # fmt: skip
        hit = _hit_probability(step, paths, members)
        slowed = step.slowdown(CapacityScale(fabric=(members - 1) / members))
        return Impact("degraded", (1.0 + hit * (slowed - 1.0),),
                      reason=f"LACP fabric bundle: {members - 1} of {members} members left; "
                             f"the job's flows hashed onto it with probability {hit:.2f}")
    if paths <= 1:
        return Impact("fatal", reason=f"no other {unit} path")
    if unit in FABRIC_CLASSES:
        losses = [CapacityScale(fabric=1.0 - k / paths, fabric_paths_lost=k)
                  for k in range(1, min(paths - 1, MAX_CONCURRENT) + 1)]  # fmt: skip
        return _degraded(step, losses, f"ECMP: one of {paths} spine paths lost",
                         survivable_count=paths - 1)  # fmt: skip
    loss = CapacityScale(fabric=1.0 - 1.0 / paths, fabric_paths_lost=1)
    return _degraded(step, [loss], f"ECMP: one of {paths} uplink paths lost")


def lag_member_hit_probability(config: RelplanConfig, bundles: int, members: int,
                               step: StepModel | None = None) -> float:  # fmt: skip
    """Probability that a lost fabric LAG member carried some of the job's flows.

    A leaf's crossing flows hash onto its ``bundles x members`` uplinks, each member a
    path of its own; the job's ``F`` flows leaving one leaf
    (:func:`relplan.comm.step.leaf_crossing_flows`) miss a given member with probability
    ``(1 - 1 / (bundles x members))^F``. Only a member that carried some of them slows
    the job (its flows rehash onto the bundle's other members). Without a ``[workload]``:
    1 (the pessimistic bound).

    Examples
    --------
    >>> from relplan.config.loading import load_config
    >>> config = load_config("configs/seed-dense-175b.toml", ["network.fabric_lacp.members=2"])
    >>> round(lag_member_hit_probability(config, 32, 2), 4)  # 8 flows over 64 members
    0.1184
    """
    return _hit_probability(step if step is not None else step_model(config), bundles, members)


def _hit_probability(step: StepModel, bundles: int, members: int) -> float:
    flows = step.crossing_flows()
    if flows is None:
        return 1.0
    return 1.0 - (1.0 - 1.0 / (bundles * members)) ** flows


def pfc_soft_slowdown(config: RelplanConfig, step: StepModel | None = None) -> float:
    """Slowdown while PFC congestion spreads after a flap, from the communication model.

    Links the pauses spread to carry traffic ``1 - network.pfc_pause_share`` of the time,
    both at the servers' NICs and on the uplinks: the step time at that capacity over the
    healthy one. ``soft_slowdown`` in a failure mode overrides it.
    """
    step = step if step is not None else step_model(config)
    return _pfc_slowdown(step, config.network.pfc_pause_share)


def _pfc_slowdown(step: StepModel, pause_share: float) -> float:
    left = 1.0 - pause_share
    return step.slowdown(CapacityScale(fabric=left, server_nic=left))


def default_stall_hours(config: RelplanConfig, inventory: Inventory, unit: str,
                        mode: FailureModeConfig, fabric: bool) -> float:  # fmt: skip
    """Detection plus failover of a transient on this kind of unit, hours.

    On the fabric: BFD detection plus ECMP reconvergence. On a server with another link
    to fail over to (LACP members, a dual-ToR leg): a link, optic or leaf that goes down
    (PHY down) leaves the bundle within ``failover.phy_down``; LACP's timeout (3 s fast,
    90 s slow) applies only to a partner that stops sending while its link stays up (a
    transient of a NIC or host). Where nothing fails over, the stall is the flap itself
    (the mode's repair time).

    Examples
    --------
    >>> from relplan.config.loading import load_config
    >>> from relplan.cluster.topology import build_inventory
    >>> config = load_config("configs/seed-moe-10k.toml", [
    ...     "network.server_lacp.members=2", 'network.failover.lacp_rate="slow"'])
    >>> flap = config.failures["link_flap"]
    >>> inventory = build_inventory(config)
    >>> round(default_stall_hours(config, inventory, "link", flap, False) * 3600, 3)
    0.1
    >>> round(default_stall_hours(config, inventory, "nic", flap, False) * 3600, 3)
    90.0
    """
    failover = config.network.failover
    bfd = failover.bfd_interval * failover.bfd_multiplier + failover.ecmp_reconvergence
    if fabric or unit in FABRIC_CLASSES:
        return bfd
    if inventory.dual_tor or inventory.server_lacp_members > 1:
        if unit in ("link", "optic", "leaf"):
            return failover.phy_down  # PHY down: the member leaves at the next link poll
        return LACP_TIMEOUT_HOURS[failover.lacp_rate]  # partner silent, carrier up
    return mode.repair.mean_hours  # nothing fails over: the flap itself


def resolve_impact(
    config: RelplanConfig, facts: DerivedFacts, inventory: Inventory, step: StepModel,
    name: str, fabric: bool = False,
) -> Impact:  # fmt: skip
    """The impact of failure mode ``name`` (its fabric part when ``fabric``).

    Parameters
    ----------
    config : RelplanConfig
        The validated config (the mode's own settings and the failover timers).
    facts : DerivedFacts
        Its derived facts (:func:`relplan.config.derived.derive`).
    inventory : Inventory
        Its inventory (redundancy facts).
    step : StepModel
        The job's step model, healthy and degraded (:func:`relplan.comm.work.step_model`).
    name : str
        The mode's key in ``[failures]``.
    fabric : bool
        For link and optic modes: the switch-to-switch part instead of the server part.

    Returns
    -------
    Impact
        What a failure of this mode does to the job.
    """
    mode = config.failures[name]
    unit = config.failure_unit(name)
    kind = mode.impact
    if kind == "auto":
        if unit in FABRIC_CLASSES or (fabric and unit in ("link", "optic")):
            impact = _fabric_side(config, inventory, step, unit)
        elif unit in ("nic", "leaf", "link", "optic"):
            impact = _server_side(config, facts, inventory, step, unit)
        else:
            impact = _fatal_or_elastic(config, facts, step, unit, "no redundancy for this class")
    elif kind == "fatal":
        impact = _fatal_or_elastic(config, facts, step, unit, "set in the config")
    elif kind == "degraded":
        if mode.slowdown is not None:
            impact = Impact("degraded", (mode.slowdown,), reason="slowdown set in the config")
        elif unit in FABRIC_CLASSES or fabric:
            impact = _fabric_side(config, inventory, step, unit)
        else:
            impact = _degraded(step, [CapacityScale(server_nic=0.5)], "half a server's NICs")
    elif kind == "slow":
        impact = Impact(
            "slow", (mode.slowdown or DEFAULT_FAIL_SLOW_SLOWDOWN,),
            reason=f"fail-slow: runs slowed until evicted ({mode.evict})",
        )  # fmt: skip
    elif kind == "corruption":
        impact = Impact("corruption", reason="silent data corruption: rolls back when found")
    else:  # transient
        stall = mode.stall
        if stall is None:
            stall = default_stall_hours(config, inventory, unit, mode, fabric)
        failover = config.network.failover
        window = min(failover.transport_timeout, failover.collective_timeout)
        if stall >= window:
            what = ("the transport's retry window" if window < failover.collective_timeout
                    else "the collective timeout")  # fmt: skip
            return Impact("fatal", detect_hours=window, self_healing=True,
                          reason=f"stall outlasts {what}: the job crashes")  # fmt: skip
        soft_hours = mode.soft_duration or 0.0
        soft = mode.soft_slowdown
        if soft is None:
            soft = _pfc_slowdown(step, config.network.pfc_pause_share) if soft_hours > 0 else 1.0
        impact = Impact(
            "transient", stall_hours=stall, soft_slowdown=soft, soft_hours=soft_hours,
            reason="stall for detection + failover",
        )  # fmt: skip
    if kind == "auto" and impact.kind == "degraded" and mode.slowdown is not None:
        impact = Impact("degraded", (mode.slowdown,),
                        survivable_count=impact.survivable_count, reason=impact.reason)
    return impact
