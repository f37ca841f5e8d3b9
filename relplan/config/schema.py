"""The TOML configuration schema (pydantic), loading, ``--set`` overrides and errors.

A config describes a cluster, the failure modes of its components, and the training
job. Every duration carries a unit ("90s", "30min", "2h", "54d", "5y"); every
mistake is reported as one :class:`ConfigError` naming the dotted key at fault.
"""

from __future__ import annotations

import math
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Discriminator,
    Field,
    PlainSerializer,
    SerializationInfo,
    Tag,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from relplan.config.checks import check_consistency
from relplan.config.overriding import apply_overrides, config_error, override_items
from relplan.config.toml_text import toml_document
from relplan.units import (
    HOURS_PER_YEAR,
    MAX_DURATION_HOURS,
    parse_bandwidth_bytes_per_s,
    parse_count,
    parse_duration_hours,
    parse_fraction,
    parse_size_bytes,
)
from relplan.vocab import (
    BLOCK_CLASSES,
    COMPONENT_CLASSES,
    DRAIN_POLICIES,
    FAILURE_UNITS,
    IMPACT_SETTINGS,
    RECOVERY_STRATEGIES,
    SERVER_CLASSES,
)

WITH_UNITS = {"units": True}
"""The serialization context of :meth:`RelplanConfig.to_document`: durations, sizes and
bandwidths as config text with their unit. Without it (a plain ``model_dump``, the config
digest) they stay numbers in hours, bytes and bytes per second."""


def _with_unit(unit: str) -> Any:
    """A serializer writing a number as config text in ``unit`` when asked to
    (:data:`WITH_UNITS`): ``repr`` keeps every digit, so that it reads back exactly."""

    def write(value: Any, info: SerializationInfo) -> Any:
        if value == "auto" or not (info.context or {}).get("units"):
            return value
        return f"{value!r}{unit}"

    return PlainSerializer(write, when_used="json")


Hours = Annotated[float, BeforeValidator(parse_duration_hours), _with_unit("h")]
Fraction = Annotated[float, BeforeValidator(parse_fraction)]
Count = Annotated[float, BeforeValidator(parse_count)]

DEFAULT_PEER_BANDWIDTH = 25e9
"""``job.checkpoint.fast.peer_bandwidth`` by default, bytes/s per GPU: half of a 400 Gb/s
NIC (one per GPU), the share a peer-memory restore sees beside the other ranks' traffic
(an assumption; GEMINI restores in-memory checkpoints at network speed)."""

DEFAULT_DETECT_HOURS: dict[str, float] = {
    "auto": 30.0 / 3600.0, "slow": 1.0, "corruption": 24.0,
}  # fmt: skip
"""``failures.NAME.detect`` by default, hours, by impact: 30 s for a crash (NCCL's QP retry
window) and for every other impact not listed; 1 h for a fail-slow unit (straggler
detectors compare step times over minutes to hours: an assumption); 24 h for silent data
corruption (Google's scanners and replay find it within days: an assumption)."""

DEFAULT_FAIL_SLOW_SLOWDOWN = 1.25
"""``slowdown`` of an ``impact = "slow"`` mode by default: the job's step-time ratio while
one unit straggles. ByteDance's straggler study (OSDI 2025) finds the worst 10% of jobs
wasting at least 21.3% of their GPU-hours, about a 1.25x step time (an assumption drawn
from that figure)."""

DEFAULT_REFERENCE_GPUS = 1024
"""``job.restart.reference_gpus`` by default: the job size an ``init`` is measured at."""

DEFAULT_RECONFIGURE_HOURS = 30.0 / 3600.0
"""``job.in_process.reconfigure`` by default, hours: 30 s to rebuild the communicators
around a failed replica (torchft and TrainMover report second-level recovery; an
assumption at the slow end of that range)."""


class _Strict(BaseModel):
    """A config table: unknown keys, values of the wrong TOML type (``true`` or ``"8"`` for
    a number, ``"yes"`` for a boolean) and NaN or infinite numbers are errors."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, allow_inf_nan=False)


class DistributionConfig(_Strict):
    """A duration distribution: ``{ dist = "weibull", shape = 0.8, mtbf = "5y" }``.

    exponential: one of ``mtbf`` / ``mean`` (the same thing) or ``afr``.
    weibull: ``shape`` and one of ``scale``, ``mtbf`` / ``mean``.
    lognormal: ``sigma`` (of the log, at most 10) and one of ``median``, ``mtbf`` / ``mean``.
    fixed: ``mean`` (a constant; zero allowed, for repairs).
    """

    dist: Literal["exponential", "weibull", "lognormal", "fixed"]
    mtbf: Hours | None = Field(default=None, gt=0)
    mean: Hours | None = Field(default=None, ge=0)
    afr: Fraction | None = Field(default=None, gt=0, lt=1)
    scale: Hours | None = Field(default=None, gt=0)
    shape: float | None = Field(default=None, gt=0)
    median: Hours | None = Field(default=None, gt=0)
    # sigma above 10 puts the lognormal's mass more than 40 decades apart: a typo, and
    # beyond what its equilibrium sampler can bracket
    sigma: float | None = Field(default=None, gt=0, le=10)

    @model_validator(mode="after")
    def _check_parameters(self) -> DistributionConfig:
        given = {
            k
            for k in ("mtbf", "mean", "afr", "scale", "shape", "median", "sigma")
            if getattr(self, k) is not None
        }
        allowed = {
            "exponential": {"mtbf", "mean", "afr"},
            "weibull": {"shape", "scale", "mtbf", "mean"},
            "lognormal": {"sigma", "median", "mtbf", "mean"},
            "fixed": {"mean"},
        }[self.dist]
        extra = given - allowed
        if extra:
            raise ValueError(
                f"{self.dist} takes {', '.join(sorted(allowed))}, not {', '.join(sorted(extra))}"
            )
        size_keys = given & {"mtbf", "mean", "afr", "scale", "median"}
        if len(size_keys) != 1:
            options = sorted(allowed - {"shape", "sigma"})
            raise ValueError(f"{self.dist} needs exactly one of {', '.join(options)}")
        if self.dist == "weibull" and self.shape is None:
            raise ValueError("weibull needs 'shape'")
        if self.dist == "lognormal" and self.sigma is None:
            raise ValueError("lognormal needs 'sigma'")
        if self.dist != "fixed" and self.mean is not None and self.mean <= 0:
            raise ValueError("'mean' must be greater than 0")
        self._check_range()
        return self

    def _check_range(self) -> None:
        """Refuse a shape or sigma whose mean, scale or median overflows a float."""
        try:
            if self.dist == "weibull":
                factor = math.gamma(1.0 + 1.0 / self.shape)  # mean / scale
                if not 0.0 < self.mean_hours / factor:
                    raise OverflowError
            elif self.dist == "lognormal":
                factor = math.exp(0.5 * self.sigma * self.sigma)  # mean / median
                if not 0.0 < self.mean_hours / factor:
                    raise OverflowError
            if not self.mean_hours <= MAX_DURATION_HOURS:
                raise ValueError(
                    f"the mean is {self.mean_hours / HOURS_PER_YEAR:.3g} years (at most 1e9)"
                )
        except OverflowError:
            if self.dist == "weibull":
                raise ValueError(
                    f"shape {self.shape:g} is too small: Gamma(1 + 1/shape) overflows (the "
                    f"shape must be above about 0.006)"
                ) from None
            raise ValueError(
                f"sigma {self.sigma:g} is too large: exp(sigma^2 / 2) overflows (sigma must "
                f"be below about 37)"
            ) from None

    @property
    def mean_hours(self) -> float:
        """The distribution's mean, hours, whichever keys give it.

        Examples
        --------
        >>> DistributionConfig(dist="lognormal", median="24h", sigma=0.8).mean_hours
        33.05...
        """
        if self.mtbf is not None or self.mean is not None:
            return self.mtbf if self.mtbf is not None else self.mean
        if self.afr is not None:
            return -HOURS_PER_YEAR / math.log1p(-self.afr)
        if self.scale is not None:
            return self.scale * math.gamma(1.0 + 1.0 / self.shape)
        return self.median * math.exp(0.5 * self.sigma * self.sigma)


def _zero_repair() -> DistributionConfig:
    return DistributionConfig(dist="fixed", mean="0s")


class LemonsConfig(_Strict):
    """``lemons = { share = "5%", factor = 10 }``: a cohort of bad units.

    A share ``share`` of the mode's units (drawn per trial) fails ``factor`` times as
    often as the others: their lifetimes are the mode's lifetime divided by ``factor``.
    A unit stays in its cohort across its repairs, unless ``curable = true`` (AIReSim's
    model): then a successful repair (probability ``repair_success``) makes a lemon a
    normal unit, a failed one leaves it a lemon (with no early refail), and repairs of
    normal units change nothing.
    """

    share: Fraction = Field(ge=0, le=1)
    factor: float = Field(ge=1)
    curable: bool = False


REFAIL_DEFAULT_HOURS = 1.0
"""Hours of use after which a unit whose repair failed fails again, when ``refail`` is not
given (``failures.NAME.refail``)."""


class FailureModeConfig(_Strict):
    """One failure mode: ``[failures.NAME]``.

    ``unit`` says what the mode is counted per (a component class or ``job``); it
    defaults to NAME when NAME is a component class. ``spares`` says whether a spare
    can replace the failed unit (default: yes for gpu, host and nic, which take a spare
    server; rack, which takes a rack's worth; domain, which takes a spare domain).

    ``impact`` is what a failure does to the job: ``auto`` (the default) derives it
    from the class and the network's redundancy (see :mod:`relplan.cluster.impact`); ``fatal``,
    ``degraded`` (runs on slowed by ``slowdown`` until repaired; default from the
    communication model) or ``transient`` (stalls for ``stall``, default the network's
    failover time, then optionally runs at ``soft_slowdown`` for ``soft_duration``;
    a stall as long as the collective timeout is fatal), ``slow`` (a fail-slow unit: the
    job runs at ``slowdown`` until ``detect`` notices it, then evicts it: ``evict = "now"``
    restarts on a spare from the last checkpoint, ``"at-checkpoint"`` runs on to the next
    checkpoint first) or ``corruption`` (silent data corruption, found ``detect`` later
    with probability ``detect_probability``: the job rolls back to the last retained
    checkpoint written before it).

    ``detect`` defaults by impact: 30 s (a crash or a hang's collective error), 1 h for a
    fail-slow unit and 24 h for corruption (assumptions: :data:`DEFAULT_DETECT_HOURS`).

    Units with a history: ``lemons`` (a cohort failing ``factor``
    times as often, :class:`LemonsConfig`); ``repair_success`` (the share of repairs that
    fix the unit: the others return it still faulty, and it fails again after ``refail``
    hours of use, a distribution, default a fixed 1 h); ``retire_after`` (after that many
    failures in the job, the unit is replaced by one drawn from the main population).

    ``retire = "remove"`` takes a retired unit out of the fleet for good: its position
    takes a spare that never returns to the pool, and once no spare is left the job stalls
    for good (``depleted``); the default, ``"replace"``, puts a new unit in its place.
    ``drain`` overrides ``job.drain`` for this mode (a degraded mode of a server's own NIC,
    link or optic only).
    ``keeps_fast_tier`` says whether a failure leaves a fast checkpoint tier held in host
    memory (``survives = "none"``) usable: by default a GPU, host or NIC failure loses it
    and any other keeps it; a process crash that keeps its host's memory says ``true``.
    """

    lifetime: DistributionConfig
    repair: DistributionConfig = Field(default_factory=_zero_repair)
    detect: Hours | None = Field(default=None, ge=0)
    unit: Literal[FAILURE_UNITS] | None = None
    start: Literal["equilibrium", "new"] = "equilibrium"
    spares: bool | None = None
    impact: Literal[IMPACT_SETTINGS] = "auto"
    evict: Literal["now", "at-checkpoint"] = "now"
    drain: Literal[DRAIN_POLICIES] | None = None
    keeps_fast_tier: bool | None = None
    detect_probability: Fraction = Field(default=1.0, ge=0, le=1)
    slowdown: float | None = Field(default=None, ge=1)
    stall: Hours | None = Field(default=None, ge=0)
    soft_slowdown: float | None = Field(default=None, ge=1)
    soft_duration: Hours | None = Field(default=None, ge=0)
    lemons: LemonsConfig | None = None
    repair_success: Fraction | None = Field(default=None, gt=0, le=1)
    refail: DistributionConfig | None = None
    retire_after: int | None = Field(default=None, ge=1, le=10**9)  # 1e9: never, in effect
    retire: Literal["replace", "remove"] = "replace"

    @field_validator("retire")
    @classmethod
    def _check_retire(cls, retire: str, info: ValidationInfo) -> str:
        if retire == "remove" and info.data.get("retire_after") is None:
            raise ValueError("removing retired units needs 'retire_after' (for example 3)")
        return retire

    @field_validator("refail")
    @classmethod
    def _check_refail(
        cls, refail: DistributionConfig | None, info: ValidationInfo
    ) -> DistributionConfig | None:
        if refail is not None and info.data.get("repair_success") is None:
            raise ValueError(
                "the time to the next failure after a failed repair needs "
                "'repair_success' (for example \"80%\")"
            )
        return refail

    @property
    def has_unit_history(self) -> bool:
        """Whether the mode follows its units: ``lemons``, ``repair_success`` or
        ``retire_after`` is given."""
        return (self.lemons is not None or self.repair_success is not None
                or self.retire_after is not None)  # fmt: skip

    @property
    def detect_hours(self) -> float:
        """Time from a failure until it is noticed, hours (``detect`` or its default)."""
        if self.detect is not None:
            return self.detect
        return DEFAULT_DETECT_HOURS.get(self.impact, DEFAULT_DETECT_HOURS["auto"])


class ClusterConfig(_Strict):
    """``[cluster]``: the servers and what is in them.

    ``servers_per_rack`` servers make a rack (a power domain, the ``rack`` class);
    ``servers_per_domain`` servers make a scale-up domain (the ``domain`` class: the
    servers one NVLink or ICI fabric joins, such as the 18 compute trays of a GB200
    NVL72 rack or the 16 four-chip hosts of a TPU v4 cube). The default, 1, is no
    scale-up domain beyond the server. ``gpu_peak_flops`` is one GPU's dense peak
    (FLOP/s, e.g. ``989e12`` for an H100 SXM at BF16): with ``workload.mfu`` it gives the
    step's compute time.
    """

    servers: int = Field(gt=0, strict=True)
    gpus_per_server: int = Field(default=8, gt=0, strict=True)
    nics_per_server: int | None = Field(default=None, gt=0)
    servers_per_rack: int = Field(default=4, gt=0)
    servers_per_domain: int = Field(default=1, gt=0, strict=True)
    gpu_peak_flops: float | None = Field(default=None, gt=0)


BytesPerSecond = Annotated[
    float, BeforeValidator(parse_bandwidth_bytes_per_s), _with_unit("B/s")
]
Bytes = Annotated[float, BeforeValidator(parse_size_bytes), _with_unit("B")]


class FailoverConfig(_Strict):
    """``[network.failover]``: detection and failover timers (BFD: RFC 5880; LACP: IEEE 802.1AX).

    BFD declares a link down after ``bfd_multiplier`` missed hellos; ECMP then
    reconverges. A link that goes down (PHY down: a flap, a pulled cable) leaves its LACP
    bundle or dual-ToR pair within ``phy_down`` (default 0.1 s: the host's 100 ms link
    poll, Linux bonding ``miimon``; switches debounce 0 by default); LACP's own timeout,
    3 s (fast rate) or 90 s (slow), applies only to a partner that stops sending while
    its link stays up (a hung NIC or host). A stall as
    long as ``collective_timeout`` (PyTorch NCCL default: 10 min) kills the job, and so does
    one as long as the RDMA transport's retry window, ``transport_timeout`` (about 30 s at
    NCCL's defaults, ``4.096 us x 2^NCCL_IB_TIMEOUT x NCCL_IB_RETRY_CNT``), whichever is
    shorter: the job then crashes when the window runs out.
    """

    bfd_interval: Hours = Field(default=0.3 / 3600.0, gt=0)
    bfd_multiplier: int = Field(default=3, gt=0)
    ecmp_reconvergence: Hours = Field(default=1.0 / 3600.0, ge=0)
    lacp_rate: Literal["fast", "slow"] = "fast"
    phy_down: Hours = Field(default=0.1 / 3600.0, ge=0)
    collective_timeout: Hours = Field(default=10.0 / 60.0, gt=0)
    # NCCL_IB_TIMEOUT 20 and NCCL_IB_RETRY_CNT 7 (defaults since NCCL 2.23):
    # 4.096 us x 2^20 x 7 = 30.06 s of retries before the transport gives up.
    transport_timeout: Hours = Field(default=4.096e-6 * 2**20 * 7 / 3600.0, gt=0)


class LacpConfig(_Strict):
    """An LACP bundle: ``{ members = 2, min_links = 1 }``.

    ``members`` physical links make one logical link, which stays up while at least
    ``min_links`` of them are up. The default, one member, is a plain link.
    """

    members: int = Field(default=1, gt=0)
    min_links: int = Field(default=1, gt=0)


class NetworkConfig(_Strict):
    """``[network]``: the fabric between the servers' NICs.

    ``topology``:

    - ``"spine-leaf"``: two tiers. ``servers_per_leaf`` servers hang from each leaf
      (default: as many as fill half the leaf's ``switch_ports``); each leaf has
      ``uplinks_per_leaf`` links up (default: as many as its downlinks, 1:1), spread
      over ``spines`` spines (default: one bundle to each spine).
    - ``"rail-optimized"``: scalable units of ``servers_per_unit`` servers (default: half
      a leaf's ports); NIC *i* of every server of a unit goes to the unit's rail leaf
      *i*, so a unit has ``nics_per_server`` rail leaves (twice that with ``dual_tor``);
      the rail leaves connect up to spines as in spine-leaf.
    - ``"fat-tree"``: a three-tier k-ary fat-tree of ``switch_ports`` = k-port switches:
      k pods of k/2 edge (``leaf``) and k/2 aggregation (``spine``) switches, (k/2)^2
      ``core`` switches, k^3/4 host ports; the servers' NIC links fill edge ports in
      order. Its shape follows from k, so it takes none of ``servers_per_leaf``,
      ``servers_per_unit``, ``uplinks_per_leaf``, ``spines``, ``spine_ports``.

    Every NIC has one link to its leaf, or a bundle of ``server_lacp.members`` links,
    and with ``dual_tor`` one such bundle to each leaf of an MLAG pair (twice the
    server links, server-side optics and leaves). Fabric links (leaf up to spine, spine
    up to core) come in bundles of ``fabric_lacp.members``: links = bundles x members.
    Optics are two per optical link; copper (DAC) links have none. ``link_speed`` is
    the speed of one link (one bundle member), stored in bytes per second;
    ``server_link_speed`` (NIC to leaf) and ``fabric_link_speed`` (leaf up to spine and
    beyond) set the two kinds apart (both default to ``link_speed``).

    ``nic_efficiency`` and ``nvlink_efficiency`` are the share of line rate a collective
    achieves (bus bandwidth over line rate): 0.94 for a 400G NIC (nccl-tests between
    nodes: 46-48 GB/s of 50, NVIDIA/nccl-tests #290, #267) and 0.82 for H100 NVLink (370
    of 450 GB/s, nccl-tests #212; NCCL's own model, 20.6 GB/s x 18 links).

    For the communication model: ``nvlink_bandwidth`` per GPU, the network ``rtt``,
    ``load_balancing`` (``ecmp``: flows hash onto the uplinks like balls into bins, with
    ``flows_per_connection`` queue pairs per connection; ``adaptive``: adaptive routing or
    packet spraying, no collisions), ``ecmp_efficiency`` (a fixed share of the uplinks the
    slowest flow sees, instead of the hashing model), ``nic_failover`` (``pxn``: a GPU whose
    NIC fails sends through a neighbour's NIC over NVLink instead of crashing),
    ``storage_on_fabric`` (checkpoint traffic shares the compute fabric, so a degraded
    fabric slows checkpoint writes too), ``pfc_pause_share`` (share of time PFC pauses the
    links a flap's congestion spreads to, from which the soft slowdown after a flap is
    derived) and, when the
    config has no ``[workload]``, ``comm_share``: the share of a step spent in exposed
    scale-out communication, from which degraded slowdowns are estimated.
    ``[network.failover]`` holds the detection and failover timers.
    """

    topology: Literal["spine-leaf", "rail-optimized", "fat-tree"] = "spine-leaf"
    switch_ports: int = Field(default=64, gt=1)
    spine_ports: int | None = Field(default=None, gt=1)
    servers_per_leaf: int | None = Field(default=None, gt=0)
    servers_per_unit: int | None = Field(default=None, gt=0)
    uplinks_per_leaf: int | None = Field(default=None, gt=0)
    spines: int | None = Field(default=None, gt=0)
    ecmp_width: int | None = Field(default=None, gt=0)
    dual_tor: bool = False
    server_lacp: LacpConfig = Field(default_factory=LacpConfig)
    fabric_lacp: LacpConfig = Field(default_factory=LacpConfig)
    server_links: Literal["optical", "copper"] = "optical"
    fabric_links: Literal["optical", "copper"] = "optical"
    link_speed: BytesPerSecond = Field(default=400e9 / 8, gt=0)
    server_link_speed: BytesPerSecond | None = Field(default=None, gt=0)
    fabric_link_speed: BytesPerSecond | None = Field(default=None, gt=0)
    nic_efficiency: Fraction = Field(default=0.94, gt=0, le=1)
    nvlink_efficiency: Fraction = Field(default=0.82, gt=0, le=1)
    nvlink_bandwidth: BytesPerSecond = Field(default=450e9, gt=0)
    rtt: Hours = Field(default=10e-6 / 3600.0, ge=0)
    load_balancing: Literal["ecmp", "adaptive"] = "ecmp"
    flows_per_connection: int = Field(default=1, gt=0)
    ecmp_efficiency: float | None = Field(default=None, gt=0, le=1)
    nic_failover: Literal["none", "pxn"] = "none"
    storage_on_fabric: bool = False
    pfc_pause_share: Fraction = Field(default=0.3, ge=0, lt=1)
    comm_share: Fraction = Field(default=0.3, ge=0, le=1)
    failover: FailoverConfig = Field(default_factory=FailoverConfig)


class FastTierConfig(_Strict):
    """``[job.checkpoint.fast]``: a fast checkpoint tier (host memory or a peer).

    ``interval`` must divide the durable interval. ``survives = "peer"`` (a copy on
    another host survives one failure) or ``"none"`` (lost when its server fails: a
    gpu, host or nic failure then rolls back to the last durable checkpoint). ``write``
    is the fast tier's own blocking write (``blocking_fraction`` does not scale it).
    ``peer_bandwidth`` is what one GPU reads its shard back at from a peer's (or its
    host's) memory, for ``job.restart.load = "auto"``.
    """

    interval: Hours = Field(gt=0)
    write: Hours = Field(ge=0)
    survives: Literal["peer", "none"] = "peer"
    peer_bandwidth: BytesPerSecond = Field(default=DEFAULT_PEER_BANDWIDTH, gt=0)


class CheckpointConfig(_Strict):
    """``[job.checkpoint]``: compute time between (durable) checkpoints and their cost.

    The write is given directly (``write``) or from ``size`` and the storage
    ``bandwidth``; with asynchronous checkpointing only ``blocking_fraction`` of it
    stops training, and the checkpoint becomes durable only once its background
    persist, a whole write (``size / bandwidth``) after the blocking part, completes.
    ``read_bandwidth`` is the store's aggregate read bandwidth shared by the whole job,
    for ``job.restart.load = "auto"`` (default: ``bandwidth``). ``keep`` durable
    checkpoints are retained (default: all), and every ``archive_every``-th one is kept
    forever: a corruption found late rolls back to the newest retained one before it.
    """

    interval: Hours = Field(gt=0)
    write: Hours | None = Field(default=None, ge=0)
    size: Bytes | None = Field(default=None, gt=0)
    bandwidth: BytesPerSecond | None = Field(default=None, gt=0)
    read_bandwidth: BytesPerSecond | None = Field(default=None, gt=0)
    blocking_fraction: Fraction = Field(default=1.0, gt=0, le=1)
    fast: FastTierConfig | None = None
    keep: int | None = Field(default=None, ge=1, strict=True)
    archive_every: int | None = Field(default=None, ge=1, strict=True)

    @model_validator(mode="after")
    def _check_cost(self) -> CheckpointConfig:
        if self.write is not None and (self.size is not None or self.bandwidth is not None):
            raise ValueError("give either 'write' or 'size' and 'bandwidth', not both")
        if (self.size is None) != (self.bandwidth is None):
            raise ValueError("'size' and 'bandwidth' go together")
        if not self.blocking_write_hours <= MAX_DURATION_HOURS:
            raise ValueError("a write of size / bandwidth takes more than 1e9 years")
        return self

    @property
    def write_hours(self) -> float:
        """Time one durable checkpoint takes to write whole, hours."""
        if self.size is not None and self.bandwidth is not None:
            return self.size / self.bandwidth / 3600.0
        return self.write or 0.0

    @property
    def blocking_write_hours(self) -> float:
        """Time one durable checkpoint blocks training, hours."""
        return self.write_hours * self.blocking_fraction

    @property
    def persist_hours(self) -> float:
        """Time after its blocking part until an asynchronous checkpoint is durable, hours
        (0 for a synchronous one: durable when its write ends)."""
        return self.write_hours if self.blocking_fraction < 1.0 else 0.0


class MaintenanceConfig(_Strict):
    """``[maintenance]``: planned maintenance windows, ``every`` (wall clock) for
    ``duration``; with ``checkpoint_first`` (the default) the job runs on to its next
    durable checkpoint and stops there, losing no work; without, it stops at once."""

    every: Hours = Field(gt=0)
    duration: Hours = Field(ge=0)
    checkpoint_first: bool = True


class ElasticConfig(_Strict):
    """``[job.elastic]``: elastic recovery (drop the failed data-parallel replica)."""

    data_parallel: int = Field(ge=2)
    reconfigure: Hours = Field(default=2.0 / 60.0, ge=0)
    rejoin: Hours = Field(default=5.0 / 60.0, ge=0)


def _auto_or_hours(value: Any) -> Any:
    return value if value == "auto" else parse_duration_hours(value)


class RestartConfig(_Strict):
    """``job.restart = { init = "3min", init_scaling = "log2", load = "auto" }``: a
    restart built from its parts.

    ``init`` is scheduling, process start and communicator set-up, measured at
    ``reference_gpus`` GPUs; ``init_scaling`` grows it with the job's size: ``none``,
    ``log2`` (times ``log2(gpus) / log2(reference_gpus)``, a tree-shaped set-up) or
    ``linear`` (times ``gpus / reference_gpus``). ``load`` is a duration, or ``auto``: the
    checkpoint read from the tier that survived, ``size / read_bandwidth`` from the
    durable store or ``size / gpus / peer_bandwidth`` from a peer's memory.
    """

    init: Hours = Field(ge=0)
    init_scaling: Literal["none", "log2", "linear"] = "none"
    reference_gpus: int = Field(default=DEFAULT_REFERENCE_GPUS, ge=2, strict=True)
    load: Annotated[
        Literal["auto"] | float,
        BeforeValidator(_auto_or_hours),
        _with_unit("h"),
    ] = Field(default=0.0)

    @model_validator(mode="after")
    def _check_load(self) -> RestartConfig:
        if self.load != "auto" and not 0.0 <= self.load <= MAX_DURATION_HOURS:
            raise ValueError("load: must be a duration >= 0 or \"auto\"")
        return self


def _restart_form(value: Any) -> str:
    """Which form ``job.restart`` takes: a table of parts, or one duration."""
    return "parts" if isinstance(value, dict | RestartConfig) else "duration"


class InProcessConfig(_Strict):
    """``[job.in_process]``: per-step recovery (just-in-time checkpointing, torchft,
    ElasWave): a failed replica is swapped or dropped within the running job.

    ``reconfigure`` is the time to rebuild the communicators around the failure after it
    is detected; at most ``max_concurrent`` replicas may be missing at once (one more
    falls back to checkpoint-restart); ``data_parallel`` replicas share the work (default:
    the workload's data-parallel degree).
    """

    reconfigure: Hours = Field(default=DEFAULT_RECONFIGURE_HOURS, ge=0)
    max_concurrent: int = Field(default=1, ge=1, strict=True)
    data_parallel: int | None = Field(default=None, ge=2, strict=True)


class JobConfig(_Strict):
    """``[job]``: the training run.

    Exactly one of ``work`` (useful hours to complete at this design's healthy speed: the
    run ends when they are done), ``steps`` (training steps to complete: the work is the
    steps times this design's healthy step time), ``tokens`` (``"15T"``: the steps are
    tokens / ``workload.tokens_per_step``) and ``horizon`` (a calendar window: the run
    stops there, and goodput is the work done over the window). ``restart`` is one
    duration, or its parts (:class:`RestartConfig`).
    ``step`` is one training step, the rework of a per-step recovery (default: the
    workload's step time). ``spares`` are loose spare servers; ``spare_domains`` whole
    spare scale-up domains of ``cluster.servers_per_domain`` servers each, which only a
    ``domain`` failure draws on. ``failures_during_recovery = false`` lets no failure
    strike while the job is detecting a failure, waiting or restarting (the rule of
    netcap, of the MTBI goodput model and of AIReSim); the default lets failures strike
    during restarts. ``drain`` swaps a server found running degraded (a lost dual-ToR leg
    or LACP member of its own links, a NIC under PXN; found its mode's ``detect`` after
    the failure) for a free spare: ``"never"`` (the default), ``"at-checkpoint"`` (at the
    next durable checkpoint: a restart, no rework) or ``"now"`` (at once: a restart from
    the last checkpoint); ``failures.NAME.drain`` overrides it per mode.
    ``idle_failures`` lets the hardware fail while the job is down; fail-slow units,
    corruptions and modes counted per job do not (they need the job running).
    ``spare_pool`` servers form a second tier of spares (AIReSim's spare pool, running
    preemptible work): when no spare of ``spares`` (warm standbys, swapped at once) is
    free, a failed server is replaced from it after ``spare_pool_swap``.
    """

    gpus: int = Field(gt=0, strict=True)
    work: Hours | None = Field(default=None, gt=0)
    steps: Count | None = Field(default=None, gt=0)
    tokens: Count | None = Field(default=None, gt=0)
    horizon: Hours | None = Field(default=None, gt=0)
    restart: Annotated[
        Annotated[RestartConfig, Tag("parts")] | Annotated[Hours, Field(ge=0), Tag("duration")],
        Discriminator(_restart_form),
    ] = Field(default=0.0)
    step: Hours | None = Field(default=None, gt=0)
    spares: int = Field(default=0, ge=0, strict=True)
    spare_domains: int = Field(default=0, ge=0, strict=True)
    spare_pool: int = Field(default=0, ge=0, strict=True)
    spare_pool_swap: Hours = Field(default=0.0, ge=0)
    checkpoint: CheckpointConfig
    recovery: Literal[RECOVERY_STRATEGIES] = "checkpoint-restart"
    elastic: ElasticConfig | None = None
    in_process: InProcessConfig | None = None
    idle_failures: bool = False
    failures_during_recovery: bool = True
    drain: Literal[DRAIN_POLICIES] = "never"

    @property
    def work_bound_hours(self) -> float:
        """Useful work the run may do, hours, when given in hours: ``work``, or the
        ``horizon`` (no run does more work than its window lasts); 0 for work in
        ``steps`` or ``tokens`` (see :func:`relplan.comm.work.failure_free_work_hours`)."""
        return self.work if self.work is not None else float(self.horizon or 0.0)


class ParallelismConfig(_Strict):
    """``[workload.parallelism]``: degrees; GPUs = data x tensor x pipeline.

    ``data`` defaults to the job's GPUs / (tensor x pipeline). Expert parallelism is
    carved out of the data x tensor ranks (Megatron-Core).
    """

    data: int | None = Field(default=None, gt=0)
    tensor: int = Field(default=1, gt=0)
    pipeline: int = Field(default=1, gt=0)
    expert: int = Field(default=1, gt=0)


class OverlapConfig(_Strict):
    """``[workload.overlap]``: share of compute each dimension's communication hides behind."""

    data: Fraction = Field(default=0.8, ge=0, le=1)
    tensor: Fraction = Field(default=0.0, ge=0, le=1)
    pipeline: Fraction = Field(default=0.0, ge=0, le=1)
    expert: Fraction = Field(default=0.0, ge=0, le=1)


class WorkloadConfig(_Strict):
    """``[workload]``: what a training step computes and exchanges (the baseline's input).

    ``all_to_all_concurrency`` is how many peers an All-to-All keeps in flight at once; by
    default all of them, as DeepEP's kernels post every peer's RDMA writes together (its
    dispatch takes about 0.2 ms at EP 256, near its 0.17 ms at EP 64: latency does not
    grow with the peers). 1 is the classical pairwise exchange, ``(n - 1)`` steps.

    The step's compute time is ``step_compute``, or from ``mfu`` (model FLOPs utilisation,
    in (0, 1]) with ``cluster.gpu_peak_flops``: ``6 x active parameters x tokens_per_step
    / (GPUs x peak x mfu)``, the active parameters being ``parameters`` plus ``top_k`` of
    the ``experts`` experts' share of ``expert_parameters`` (``experts`` defaults to the
    expert-parallel degree: one expert per rank). Give exactly one of the two. With
    ``parallelism.pipeline = p > 1`` the step also waits for the pipeline bubble, ``(p -
    1) / (pipeline_interleave x micro_batches)`` of the compute (1F1B; ``pipeline_interleave``
    virtual stages per GPU, Narayanan et al. SC'21, section 2.2).
    ``comm_efficiency`` is the seed's share of line rate in the *needed*-bandwidth
    figures of ``relplan baseline``; the timing uses ``network.nic_efficiency`` and
    ``network.nvlink_efficiency``.
    """

    parameters: float = Field(gt=0)
    expert_parameters: float = Field(default=0.0, ge=0)
    tokens_per_step: float = Field(gt=0)
    hidden_size: int = Field(gt=0)
    layers: int = Field(gt=0)
    micro_batches: int = Field(default=1, gt=0)
    step_compute: Hours | None = Field(default=None, gt=0)
    mfu: Fraction | None = Field(default=None, gt=0, le=1)
    experts: int | None = Field(default=None, gt=0)
    top_k: int = Field(default=2, gt=0)
    moe_layers: int | None = Field(default=None, ge=0)
    bytes_per_gradient: float = Field(default=4.0, gt=0)
    bytes_per_activation: float = Field(default=2.0, gt=0)
    bytes_per_token_expert: Bytes | None = Field(default=None, gt=0)
    comm_efficiency: Fraction = Field(default=0.7, gt=0, le=1)
    burst_factor: float = Field(default=4.0, ge=1)
    headroom: Fraction = Field(default=0.25, ge=0)
    all_to_all_concurrency: int | None = Field(default=None, gt=0)
    pipeline_interleave: int = Field(default=1, gt=0)
    parallelism: ParallelismConfig = Field(default_factory=ParallelismConfig)
    overlap: OverlapConfig = Field(default_factory=OverlapConfig)


class BudgetConfig(_Strict):
    """``[budget]``: what hardware costs and what a GPU-hour is worth.

    ``prices`` are per unit of a component class (any currency, the same for all);
    ``amortization`` spreads a unit's price over its service life, so a job is charged
    for the hours it holds the hardware; ``gpu_hour_value`` prices a lost GPU-hour;
    ``currency`` is the symbol money figures are shown with (``"$"``, ``"€"``, ``"CHF "``).
    """

    gpu_hour_value: float = Field(ge=0)
    amortization: Hours = Field(default=4 * HOURS_PER_YEAR, gt=0)
    prices: dict[str, float] = Field(default_factory=dict)
    currency: str = Field(default="$", min_length=1, max_length=4)

    @model_validator(mode="after")
    def _check_prices(self) -> BudgetConfig:
        for name, price in self.prices.items():
            if name not in COMPONENT_CLASSES:
                raise ValueError(
                    f"prices.{name}: not a component class ({', '.join(COMPONENT_CLASSES)})"
                )
            if price < 0:
                raise ValueError(f"prices.{name}: must be >= 0")
        return self


class SimulationConfig(_Strict):
    """``[simulation]``: Monte Carlo settings (the command line overrides them)."""

    trials: int = Field(default=1000, gt=0)
    seed: int = Field(default=0, ge=0)
    workers: int = Field(default=1, gt=0)


class RelplanConfig(_Strict):
    """A whole config: a validated, immutable value.

    Build one with :func:`relplan.load_config` (a file), :func:`relplan.loads_config`
    (TOML text) or :meth:`from_document` (a parsed TOML document); derive another with
    :meth:`with_overrides`, validated exactly as ``--set`` is. Its fields cannot be
    assigned (it is frozen). ``model_copy(update=...)`` validates the copy too (pydantic's
    would not), but :meth:`with_overrides` is the way to change a config: it takes the
    units a config file takes. :meth:`to_toml` writes it back as TOML text that
    :func:`relplan.loads_config` reads back to an equal config.

    Examples
    --------
    >>> from relplan.config.loading import load_config, loads_config
    >>> config = load_config("configs/small.toml")
    >>> shorter = config.with_overrides({"job.checkpoint.interval": "15min"})
    >>> shorter.job.checkpoint.interval, config.job.checkpoint.interval
    (0.25, 1.0)
    >>> loads_config(shorter.to_toml()) == shorter
    True
    >>> config.with_overrides(["job.checkpoint.interval=-1h"])
    Traceback (most recent call last):
    ...
    relplan.errors.ConfigError: job.checkpoint.interval: input should be greater than 0 (got '-1h')
    """

    name: str | None = None
    description: str | None = None
    cluster: ClusterConfig
    network: NetworkConfig = Field(default_factory=NetworkConfig)
    failures: dict[str, FailureModeConfig] = Field(default_factory=dict)
    job: JobConfig
    workload: WorkloadConfig | None = None
    maintenance: MaintenanceConfig | None = None
    budget: BudgetConfig | None = None
    simulation: SimulationConfig = Field(default_factory=SimulationConfig)

    @model_validator(mode="after")
    def _check_consistency(self) -> RelplanConfig:
        check_consistency(self)  # raises ConfigError, which pydantic lets through
        return self

    @classmethod
    def from_document(cls, document: dict[str, Any]) -> RelplanConfig:
        """Validate a parsed TOML document: each key, then the keys against each other.

        Parameters
        ----------
        document : dict
            As :func:`tomllib.loads` returns it (durations and sizes with their units).

        Returns
        -------
        RelplanConfig
            The validated config.

        Raises
        ------
        ConfigError
            Naming the first wrong key (the message lists any others); an unknown key
            gets the nearest known one ("did you mean ...?").

        Examples
        --------
        >>> document = {"cluster": {"servers": 4},
        ...             "job": {"gpus": 8, "work": "2d", "checkpoint": {"interval": "1h"}}}
        >>> RelplanConfig.from_document(document).job.work
        48.0
        """
        try:
            return cls.model_validate(document)
        except ValidationError as error:
            raise config_error(error, document=document, model=cls) from None

    def to_document(self) -> dict[str, Any]:
        """The config as a TOML document: the keys set (by the file, an override or a
        copy; defaults are left out, so that they stay defaults), durations in hours
        (``"0.25h"``), sizes in bytes (``"4e9B"``), bandwidths in bytes per second
        (``"5e10B/s"``).

        Returns
        -------
        dict
            A document :meth:`from_document` validates back to an equal config.

        Examples
        --------
        >>> from relplan.config.loading import load_config
        >>> load_config("configs/small.toml").to_document()["job"]["checkpoint"]["interval"]
        '1.0h'
        """
        return self.model_dump(mode="json", exclude_unset=True, exclude_none=True,
                               context=WITH_UNITS)

    def to_toml(self) -> str:
        """The config as TOML text (the keys set, see :meth:`to_document`; comments are
        not kept).

        Returns
        -------
        str
            Text that :func:`relplan.loads_config` reads back to an equal config.

        Examples
        --------
        >>> from relplan.config.loading import load_config
        >>> print(load_config("configs/small.toml").to_toml().splitlines()[0])
        name = "small"
        """
        return toml_document(self.to_document())

    def with_overrides(self, items: list[str] | dict[str, Any]) -> RelplanConfig:
        """A new config with some keys changed, validated exactly as ``--set`` is.

        Parameters
        ----------
        items : list of str or dict
            ``KEY=VALUE`` items (``["job.spares=2", "job.checkpoint.interval=30min"]``)
            or a dict of dotted keys to values (``{"job.checkpoint.interval": "30min"}``);
            durations, sizes and bandwidths take their unit, as in a config file.

        Returns
        -------
        RelplanConfig
            The new config (this one is unchanged). Setting one of ``job.work`` and
            ``job.horizon`` drops the other, as ``--set`` does.

        Raises
        ------
        ConfigError
            Naming the key at fault.

        Examples
        --------
        >>> from relplan.config.loading import load_config
        >>> config = load_config("configs/small.toml").with_overrides(["job.spares=2"])
        >>> config.job.spares
        2
        >>> config.with_overrides({"job.spare": 3})
        Traceback (most recent call last):
        ...
        relplan.errors.ConfigError: job.spare: unknown key; did you mean job.spares?
        """
        return self.from_document(apply_overrides(self.to_document(), override_items(items)))

    def model_copy(self, *, update: dict[str, Any] | None = None,
                   deep: bool = False) -> RelplanConfig:  # fmt: skip
        """A copy, validated like any config (pydantic's copy would skip validation).

        Prefer :meth:`with_overrides`, which takes the units a config file takes; values
        given here are in the model's units (hours, bytes, bytes per second).

        Raises
        ------
        ConfigError
            Naming the key at fault.
        """
        copied = super().model_copy(update=update, deep=deep)
        return self.from_document(copied.to_document())

    def failure_unit(self, mode_name: str) -> str:
        """The unit a failure mode is counted per (its ``unit``, else its name)."""
        unit = self.failures[mode_name].unit
        return unit if unit is not None else mode_name

    def uses_spares(self, mode_name: str) -> bool:
        """Whether a spare can stand in for a unit failed by this mode: a spare server
        (server classes), a rack's worth of them (``rack``) or a spare domain
        (``domain``); by default yes for these classes."""
        mode = self.failures[mode_name]
        if mode.spares is not None:
            return mode.spares
        return self.failure_unit(mode_name) in (*SERVER_CLASSES, *BLOCK_CLASSES)
