"""What a failure does to the job: fatal, degraded (with its slowdown) or transient.

The effect of each failure mode follows from its component class and the redundancy
of the network (README, "The model"), unless the config overrides it:

- gpu, host, job-level modes: fatal (with elastic recovery, a server-level failure
  drops one data-parallel replica instead).
- nic, server links and their optics, leaf: fatal when single-homed; with dual-ToR
  the server keeps its other homing and runs at half bandwidth (degraded); with an
  LACP bundle a lost member degrades the bundle while ``members - 1 >= min_links``,
  else the link is down (fatal unless dual-homed).
- fabric links and their optics, spines, cores: ECMP routes around them; capacity
  falls by the lost path's share (one of ``ecmp_width`` paths, one of the spines a
  leaf reaches, a bundle member) and the job runs slowed.
- transient modes (flaps, reroutes): a stall for detection plus failover (BFD
  interval x multiplier + ECMP reconvergence on the fabric, LACP's timeout on a
  bundle, the flap itself where nothing fails over). A stall as long as the
  collective timeout is fatal: the job hangs until the timeout, then restarts.

The slowdown of a degraded state is the step time with the reduced bandwidth over
the step time at full bandwidth, from :mod:`relplan.comm.step` when the config has a
``[workload]``; otherwise ``1 + comm_share x (1 / capacity - 1)``.
"""

from __future__ import annotations

from dataclasses import dataclass

from relplan.cluster.topology import Inventory
from relplan.comm.inputs import CapacityScale, workload_model
from relplan.comm.step import slowdown
from relplan.config.schema import FailureModeConfig, RelplanConfig
from relplan.vocab import FABRIC_CLASSES, SERVER_CLASSES

MAX_CONCURRENT = 16
"""Concurrent losses of one mode tabulated for compounding capacity losses."""


@dataclass(frozen=True)
class Impact:
    """The resolved effect of one failure mode (or one part of it).

    Attributes
    ----------
    kind : {"fatal", "degraded", "transient", "elastic"}
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
    reason: str = ""


@dataclass(frozen=True)
class CapacityLoss:
    """Remaining share of each path's bandwidth after one or more losses."""

    fabric: float = 1.0
    server_nic: float = 1.0


def capacity_slowdown(config: RelplanConfig, loss: CapacityLoss) -> float:
    """Step time with reduced capacity over step time at full capacity (>= 1).

    Parameters
    ----------
    config : RelplanConfig
        The config (its ``[workload]`` and ``[network]``).
    loss : CapacityLoss
        Remaining share of the fabric's and of one server's NIC bandwidth.

    Returns
    -------
    float
        The slowdown; 1 at full capacity.
    """
    fabric = max(loss.fabric, 1e-6)
    server_nic = max(loss.server_nic, 1e-6)
    inputs = workload_model(config)
    if inputs is None:
        share = config.network.comm_share
        return 1.0 + share * (1.0 / min(fabric, server_nic) - 1.0)
    training, parallelism, hardware, overlap = inputs
    capacity = CapacityScale(fabric=fabric, server_nic=server_nic)
    return slowdown(training, parallelism, hardware, capacity, overlap)


def _degraded(config: RelplanConfig, losses: list[CapacityLoss], reason: str) -> Impact:
    return Impact(
        "degraded", tuple(capacity_slowdown(config, loss) for loss in losses), reason=reason
    )


def _fatal_or_elastic(config: RelplanConfig, unit: str, reason: str) -> Impact:
    job = config.job
    if job.recovery == "elastic" and job.elastic is not None and unit in SERVER_CLASSES:
        data = job.elastic.data_parallel
        steps = tuple(data / (data - k) for k in range(1, min(data - 1, MAX_CONCURRENT) + 1))
        return Impact(
            "elastic", steps, stall_hours=job.elastic.reconfigure,
            soft_hours=job.elastic.rejoin, reason="elastic: drop a data-parallel replica",
        )  # fmt: skip
    return Impact("fatal", reason=reason)


def _server_side(config: RelplanConfig, inventory: Inventory, unit: str) -> Impact:
    """nic, leaf, and a server link (or its optic)."""
    if inventory.dual_tor:
        return _degraded(config, [CapacityLoss(server_nic=0.5)], "dual-ToR: other homing")
    members, min_links = inventory.server_lacp_members, inventory.server_lacp_min_links
    if unit in ("link", "optic") and members > 1 and members - 1 >= min_links:
        return _degraded(
            config, [CapacityLoss(server_nic=(members - 1) / members)],
            f"LACP: {members - 1} of {members} members left (min_links {min_links})",
        )  # fmt: skip
    if unit in ("link", "optic") and members > 1:
        return _fatal_or_elastic(
            config, "nic", f"LACP: {members - 1} members left < min_links {min_links}"
        )
    return _fatal_or_elastic(config, "nic" if unit != "leaf" else unit, "single-homed")


def _fabric_side(config: RelplanConfig, inventory: Inventory, unit: str) -> Impact:
    """Spine, core, and a fabric link (or its optic): ECMP routes around them."""
    if unit in FABRIC_CLASSES:
        paths = inventory.spines_per_leaf or inventory.spines or 1
        if unit == "core":
            paths = max(inventory.cluster_units("core"), 1)
        reason = f"ECMP: one of {paths} {unit} paths lost"
    else:
        members, min_links = inventory.fabric_lacp_members, inventory.fabric_lacp_min_links
        if members > 1 and members - 1 >= min_links:
            paths = inventory.ecmp_width * members or 1
            reason = f"LACP fabric bundle: {members - 1} of {members} members left"
        else:
            paths = inventory.ecmp_width or 1
            reason = f"ECMP: one of {paths} uplinks lost"
    if paths <= 1:
        return Impact("fatal", reason=f"no other {unit} path")
    most = min(paths - 1, MAX_CONCURRENT)
    losses = [CapacityLoss(fabric=1.0 - k / paths) for k in range(1, most + 1)]
    return _degraded(config, losses, reason)


def default_stall_hours(config: RelplanConfig, inventory: Inventory, unit: str,
                        mode: FailureModeConfig, fabric: bool) -> float:  # fmt: skip
    """Detection plus failover of a transient on this kind of unit, hours."""
    failover = config.network.failover
    bfd = failover.bfd_interval * failover.bfd_multiplier + failover.ecmp_reconvergence
    if fabric or unit in FABRIC_CLASSES:
        return bfd
    if inventory.dual_tor or inventory.server_lacp_members > 1:
        lacp = 3.0 / 3600.0 if failover.lacp_rate == "fast" else 90.0 / 3600.0
        return lacp
    return mode.repair.mean_hours  # nothing fails over: the flap itself


def resolve_impact(
    config: RelplanConfig, inventory: Inventory, name: str, fabric: bool = False
) -> Impact:
    """The impact of failure mode ``name`` (its fabric part when ``fabric``).

    Parameters
    ----------
    config : RelplanConfig
        The validated config.
    inventory : Inventory
        Its inventory (redundancy facts).
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
            impact = _fabric_side(config, inventory, unit)
        elif unit in ("nic", "leaf", "link", "optic"):
            impact = _server_side(config, inventory, unit)
        else:
            impact = _fatal_or_elastic(config, unit, "no redundancy for this class")
    elif kind == "fatal":
        impact = _fatal_or_elastic(config, unit, "set in the config")
    elif kind == "degraded":
        if mode.slowdown is not None:
            impact = Impact("degraded", (mode.slowdown,), reason="slowdown set in the config")
        elif unit in FABRIC_CLASSES or fabric:
            impact = _fabric_side(config, inventory, unit)
        else:
            impact = _degraded(config, [CapacityLoss(server_nic=0.5)], "half a server's NICs")
    else:  # transient
        stall = mode.stall
        if stall is None:
            stall = default_stall_hours(config, inventory, unit, mode, fabric)
        timeout = config.network.failover.collective_timeout
        if stall >= timeout:
            return Impact("fatal", detect_hours=timeout, self_healing=True,
                          reason="stall reaches the collective timeout: the job hangs")
        impact = Impact(
            "transient", stall_hours=stall, soft_slowdown=mode.soft_slowdown or 1.0,
            soft_hours=mode.soft_duration or 0.0, reason="stall for detection + failover",
        )  # fmt: skip
    if kind == "auto" and impact.kind == "degraded" and mode.slowdown is not None:
        impact = Impact("degraded", (mode.slowdown,), reason=impact.reason)
    return impact
