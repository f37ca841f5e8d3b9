"""The TOML configuration schema (pydantic), loading, ``--set`` overrides and errors.

A config describes a cluster, the failure modes of its components, and the training
job. Every duration carries a unit ("90s", "30min", "2h", "54d", "5y"); every
mistake is reported as one :class:`ConfigError` naming the dotted key at fault.
"""

from __future__ import annotations

import math
from collections.abc import Callable
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
    ValidatorFunctionWrapHandler,
    WrapValidator,
    field_validator,
    model_validator,
)

from relplan.config.checks import check_consistency
from relplan.config.derived import drawn_mean_hours, drawn_tail
from relplan.config.overriding import apply_overrides, config_error, override_items
from relplan.config.toml_text import toml_document
from relplan.units import (
    HOURS_PER_YEAR,
    MAX_DURATION_HOURS,
    Quantity,
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
    INIT_SCALINGS,
    PREEMPT_POLICIES,
    RECOVERY_STRATEGIES,
    SERVER_CLASSES,
)

WITH_UNITS = {"units": True}
"""The serialization context of :meth:`RelplanConfig.to_document`: durations, sizes and
bandwidths as config text with their unit. Without it (a plain ``model_dump``, the config
digest) they stay numbers in hours, bytes and bytes per second."""


def _with_unit(unit: str) -> Any:
    """A serializer writing a number as config text when asked to (:data:`WITH_UNITS`): the
    text it was read from (a :class:`~relplan.units.Quantity`: ``"12.749y"`` stays
    ``"12.749y"``), else the number in ``unit``, with ``repr`` keeping every digit, so that
    it reads back exactly."""

    def write(value: Any, info: SerializationInfo) -> Any:
        if value == "auto" or not (info.context or {}).get("units"):
            return value
        if isinstance(value, Quantity):
            return value.text
        return f"{value!r}{unit}"

    return PlainSerializer(write, when_used="json")


def _keeping_text(parse: Callable[[Any], float]) -> Any:
    """A validator reading a quantity with ``parse`` (its checks, such as ``gt=0``, then
    apply to the number) into a :class:`~relplan.units.Quantity` that keeps its text;
    ``"auto"`` passes through where the field allows it."""

    def read(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        if value == "auto":
            return handler(value)
        number = handler(parse(value))
        return Quantity(number, value.strip()) if isinstance(value, str) else number

    return WrapValidator(read)


def _shown(unit: str | None = None, default: str | None = None) -> dict[str, str]:
    """What the config reference (:mod:`relplan.config.reference`) shows of a key beyond
    its type and description: the unit of a plain number, and the default in words where
    it follows from other keys (``json_schema_extra`` of its ``Field``)."""
    return {key: text for key, text in (("unit", unit), ("default", default)) if text}


_DURATION_TEXT = _keeping_text(parse_duration_hours)
Hours = Annotated[float, _DURATION_TEXT, _with_unit("h")]
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


DEFAULT_MIGRATION_SWAP_HOURS = 1.0 / 60.0
"""``job.live_migration.swap`` by default, hours: 1 min to move a failed server's state to
a hot spare and resume at the same step (TorchPass reports seconds in its model-aware mode
and longer without code changes; an assumption within that range)."""

DEFAULT_REQUEUE_DELAY_HOURS = 10.0 / 60.0
"""``job.restart.requeue_delay`` by default, hours: 10 min for a requeued job to be
scheduled again (the 504-GPU B200 report measures an 11-min median retry, arXiv
2605.09370; an assumption near it)."""

DEFAULT_FALSE_ALARM_TRIAGE_HOURS = 4.0
"""``failures.*.false_alarm_triage`` by default, hours: a server a detector flagged wrongly
is out of the pool this long for its checks before it returns (an assumption: a DCGM
level-3 diagnostic and a reboot, NVSentinel's quarantine-then-clear cycle)."""

DEFAULT_REROUTE_STALL_HOURS = 30.0 / 3600.0
"""``failures.*.reroute.stall`` by default, hours: 30 s to move a slow unit's traffic or
work away from it (new routes or a rebalanced micro-batch split; Greyhound re-plans in
seconds to tens of seconds: an assumption at the slow end)."""

DEFAULT_SAVE_TIMEOUT_HOURS = 10.0 / 60.0
"""``job.checkpoint.save_timeout`` by default, hours: 10 min, PyTorch's default timeout of
a collective on NCCL (600 s), which a save stuck on its storage target runs into (an
assumption: frameworks time saves out in different ways)."""

DEFAULT_REJOIN_HOURS = 5.0 / 60.0
"""``job.elastic.rejoin`` and ``job.replica_drop.rejoin`` by default, hours: 5 min for a
replica to take its place again once a spare is free or its unit repaired (an
assumption)."""

STEP_OVERHEAD_BY_RECOVERY: dict[str, float] = {"replica-drop": 0.05}
"""``job.step_overhead`` by default, by ``job.recovery``: 5% a step for replica drop (a
quorum across replica groups every step and their gradient all-reduce outside the
in-group collectives; Clockwork calls the coordination negligible at second-long steps but
measured torchft far slower on a Gloo all-reduce: an assumption); 0 for every other stack
(live migration works below the framework, at no per-step cost)."""


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

    dist: Literal["exponential", "weibull", "lognormal", "fixed"] = Field(
        description="The family: `exponential`, `weibull`, `lognormal` or `fixed` (a constant).")
    mtbf: Hours | None = Field(default=None, gt=0, description=(
        "The mean (mean time between failures); the same as `mean`."))
    mean: Hours | None = Field(default=None, ge=0, description=(
        "The mean; for `fixed`, the constant (zero allowed: a restart-only repair)."))
    afr: Fraction | None = Field(default=None, gt=0, lt=1, description=(
        "`exponential`: the annual failure rate, a probability (`\"5%\"`); MTBF = "
        "-8766 h / ln(1 - AFR)."))
    scale: Hours | None = Field(default=None, gt=0, description=(
        "`weibull`: the scale, the age by which 63.2% have failed."))
    shape: float | None = Field(default=None, gt=0, description=(
        "`weibull`: the shape (below 1 a hazard falling with age, above 1 wear-out); above "
        "about 0.006, below which the mean overflows."))
    median: Hours | None = Field(default=None, gt=0, description="`lognormal`: the median.")
    # sigma above 10 puts the lognormal's mass more than 40 decades apart: a typo, and
    # beyond what its equilibrium sampler can bracket
    sigma: float | None = Field(default=None, gt=0, le=10, description=(
        "`lognormal`: the standard deviation of the log of the duration, at most 10."))

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

    share: Fraction = Field(ge=0, le=1, description=(
        "Share of the mode's units in the bad cohort, drawn per trial."))
    factor: float = Field(ge=1, description=(
        "How many times as often a lemon fails: its lifetimes are the mode's divided by it."),
        json_schema_extra=_shown(unit="x"))
    curable: bool = Field(default=False, description=(
        "A successful repair (probability `repair_success`) makes a lemon a normal unit "
        "(AIReSim's model); a failed one leaves it a lemon."))


REFAIL_DEFAULT_HOURS = 1.0
"""Hours of use after which a unit whose repair failed fails again, when ``refail`` is not
given (``failures.NAME.refail``)."""


class RerouteConfig(_Strict):
    """``failures.NAME.reroute``: the fail-slow ladder's middle rung. Traffic is routed
    around a slow link, or work rebalanced away from a slow GPU: a short stall, after
    which the job runs at a smaller slowdown until the episode passes or the unit is
    evicted."""

    stall: Hours = Field(default=DEFAULT_REROUTE_STALL_HOURS, ge=0, description=(
        "How long re-routing stalls the job."))
    slowdown: float = Field(ge=1, le=1e3, allow_inf_nan=False, description=(
        "The job's step-time ratio once re-routed (below the mode's `slowdown`)."),
        json_schema_extra=_shown(unit="x"))


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

    lifetime: DistributionConfig = Field(description=(
        "Time to failure of one unit (a distribution)."))
    repair: DistributionConfig = Field(default_factory=_zero_repair, description=(
        "Time to repair a failed unit (a distribution); the job waits for it only when no "
        "spare stands in."), json_schema_extra=_shown(default="fixed, 0 s"))
    detect: Hours | None = Field(default=None, ge=0, description=(
        "Time from the failure until the job notices it."), json_schema_extra=_shown(
        default="30 s; 1 h for `slow`, 24 h for `corruption`"))
    unit: Literal[FAILURE_UNITS] | None = Field(default=None, description=(
        "What the mode is counted per: a component class, or `job` (one per job)."),
        json_schema_extra=_shown(default="NAME, when NAME is a class"))
    start: Literal["equilibrium", "new"] = Field(default="equilibrium", description=(
        "`equilibrium`: units of every age, as in a running fleet; `new`: every unit of age "
        "0 at the job's start (shows infant mortality)."))
    spares: bool | None = Field(default=None, description=(
        "Whether a spare stands in for a failed unit: a spare server, a rack's worth of "
        "them, a spare domain."), json_schema_extra=_shown(
        default="true for gpu, host, nic, rack, domain"))
    impact: Literal[IMPACT_SETTINGS] = Field(default="auto", description=(
        "What a failure does to the job: `auto` (from the class and the network's "
        "redundancy), `fatal`, `degraded` (runs on slowed until repaired), `transient` (a "
        "stall), `slow` (a fail-slow unit) or `corruption` (silent data corruption)."))
    evict: Literal["now", "at-checkpoint"] = Field(default="now", description=(
        "`slow`: once found, `now` restarts on a spare from the last checkpoint; "
        "`at-checkpoint` runs on to the next checkpoint first."))
    drain: Literal[DRAIN_POLICIES] | None = Field(default=None, description=(
        "Overrides `job.drain` for this mode (a degraded mode of a server's own NIC, link "
        "or optic only)."), json_schema_extra=_shown(default="`job.drain`"))
    keeps_fast_tier: bool | None = Field(default=None, description=(
        "Whether a failure leaves a fast checkpoint tier held in host memory (`survives = "
        "\"none\"`) usable; a process crash that keeps its host's memory says `true`."),
        json_schema_extra=_shown(default="false for gpu, host, nic; true otherwise"))
    detect_probability: Fraction = Field(default=1.0, ge=0, le=1, description=(
        "`corruption`: the probability a corruption is found, `detect` after it."))
    slowdown: float | None = Field(default=None, ge=1, description=(
        "`degraded`, `slow`: the job's step-time ratio while it lasts."),
        json_schema_extra=_shown(unit="x", default="the communication model; 1.25 for `slow`"))
    stall: Hours | None = Field(default=None, ge=0, description=(
        "`transient`: how long the job stalls; a stall as long as the collective timeout or "
        "the transport's retry window is fatal."), json_schema_extra=_shown(
        default="the failover timers"))
    soft_slowdown: float | None = Field(default=None, ge=1, description=(
        "`transient`: the step-time ratio after the stall, for `soft_duration` (PFC "
        "congestion spreading)."), json_schema_extra=_shown(
        unit="x", default="from `network.pfc_pause_share`"))
    soft_duration: Hours | None = Field(default=None, ge=0, description=(
        "`transient`: how long the slowdown after the stall lasts."),
        json_schema_extra=_shown(default="0: none"))
    lemons: LemonsConfig | None = Field(default=None, description=(
        "A cohort of bad units, failing `factor` times as often (a table)."))
    repair_success: Fraction | None = Field(default=None, gt=0, le=1, description=(
        "Share of repairs that fix the unit; the others return it still faulty."),
        json_schema_extra=_shown(default="every repair fixes it"))
    refail: DistributionConfig | None = Field(default=None, description=(
        "After a failed repair, the use until the unit fails again (a distribution; needs "
        "`repair_success`)."), json_schema_extra=_shown(default="fixed, 1 h"))
    retire_after: int | None = Field(default=None, ge=1, le=10**9, description=(  # 1e9: never
        "Replace a unit after this many failures in the job, by one drawn from the main "
        "population."), json_schema_extra=_shown(unit="failures", default="never"))
    retire: Literal["replace", "remove"] = Field(default="replace", description=(
        "`replace`: a new unit takes a retired one's place; `remove`: it leaves the fleet "
        "for good, its spare never returns (needs `retire_after`)."))

    recall: Fraction = Field(default=1.0, ge=0, le=1, description=(
        "The share of failures the detector catches `detect` after them; the rest are "
        "found `detect_late` after them (a fatal failure: the job hangs in a collective "
        "until its timeout; a fail-slow unit: evicted that much later)."),
        json_schema_extra=_shown(unit="share"))
    detect_late: Hours | None = Field(default=None, ge=0, description=(
        "When a failure the detector misses is found."), json_schema_extra=_shown(
        default="`network.failover.collective_timeout`"))
    false_positives: float = Field(default=0.0, ge=0, le=1e6, allow_inf_nan=False,
                                   description=(
        "False alarms of the mode's detector per day per 1,000 of the job's servers, each "
        "costing what its action costs: an eviction (the job stops, restarts, a spare "
        "takes the flagged server's place) or, for a mode that drains, a drain."),
        json_schema_extra=_shown(unit="per day per 1,000 servers"))
    false_alarm_triage: Hours = Field(default=DEFAULT_FALSE_ALARM_TRIAGE_HOURS, ge=0,
                                      description=(
        "How long a server flagged wrongly is out of the pool before it returns."))
    flap: DistributionConfig | None = Field(default=None, description=(
        "A flapping mode: how long each failure keeps the port down (a distribution). A "
        "flap longer than `network.failover.transport_timeout` crashes the job; a shorter "
        "one stalls it as long. Needs an exponential `lifetime` (the flap rate)."))
    episode: DistributionConfig | None = Field(default=None, description=(
        "A fail-slow mode (`impact = \"slow\"`): how long a slow episode lasts if the "
        "unit is left in (Greyhound: most are transient, sub-minute to ~10 h); without "
        "it an episode lasts until the unit is evicted."),
        json_schema_extra=_shown(default="until evicted"))
    mitigation: Literal["evict", "ladder"] = Field(default="evict", description=(
        "A fail-slow mode: `evict` once detected; `ladder`: tolerate it for the "
        "break-even time (an eviction's cost over the share of each hour the slowdown "
        "takes), then evict if it still lasts (ski rental: at most twice the cost of the "
        "best choice made knowing the episode's length)."))
    reroute: RerouteConfig | None = Field(default=None, description=(
        "A middle rung for the ladder (a table): re-route around the slow unit once "
        "that costs less than tolerating it, evict once the re-routed slowdown has cost "
        "what an eviction does."), json_schema_extra=_shown(default="none: tolerate, evict"))
    latent: Hours | None = Field(default=None, ge=0, description=(
        "How long before it fails a unit shows to an active probe (`[health.probe]`)."),
        json_schema_extra=_shown(default="0: no probe finds it"))

    @field_validator("reroute")
    @classmethod
    def _check_reroute(
        cls, reroute: RerouteConfig | None, info: ValidationInfo
    ) -> RerouteConfig | None:
        if reroute is None:
            return None
        if info.data.get("mitigation") != "ladder":
            raise ValueError('re-routing is a rung of the ladder: it needs mitigation = "ladder"')
        slowdown = info.data.get("slowdown") or DEFAULT_FAIL_SLOW_SLOWDOWN
        if reroute.slowdown >= slowdown:
            raise ValueError(
                f"the re-routed slowdown ({reroute.slowdown:g}) must be below the mode's "
                f"slowdown ({slowdown:g}), or re-routing gains nothing"
            )
        return reroute

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
    def is_poisson(self) -> bool:
        """Whether the mode's failures are a Poisson process in each unit: an exponential
        lifetime and no unit history (what flaps, probes and predictors thin, and what
        fails while the job is down)."""
        return self.lifetime.dist == "exponential" and not self.has_unit_history

    @property
    def detect_hours(self) -> float:
        """Time from a failure until it is noticed, hours (``detect`` or its default)."""
        if self.detect is not None:
            return self.detect
        return DEFAULT_DETECT_HOURS.get(self.impact, DEFAULT_DETECT_HOURS["auto"])


BytesPerSecond = Annotated[float, _keeping_text(parse_bandwidth_bytes_per_s), _with_unit("B/s")]
Bytes = Annotated[float, _keeping_text(parse_size_bytes), _with_unit("B")]


class ClusterConfig(_Strict):
    """``[cluster]``: the servers and what is in them.

    ``servers_per_rack`` servers make a rack (a power domain, the ``rack`` class);
    ``servers_per_domain`` servers make a scale-up domain (the ``domain`` class: the
    servers one NVLink or ICI fabric joins, such as the 18 compute trays of a GB200
    NVL72 rack or the 16 four-chip hosts of a TPU v4 cube). The default, 1, is no
    scale-up domain beyond the server. ``gpu_peak_flops`` is one GPU's dense peak
    (FLOP/s, e.g. ``989e12`` for an H100 SXM at BF16): with ``workload.mfu`` it gives the
    step's compute time. ``host_memory`` is the host RAM of a server that checkpoints may
    use: the in-memory tiers must fit in it (:func:`relplan.config.derived.host_memory_needed`).
    """

    servers: int = Field(gt=0, strict=True, description=(
        "Servers in the cluster: the job's and the spares."), json_schema_extra=_shown(
        unit="servers"))
    gpus_per_server: int = Field(default=8, gt=0, strict=True, description=(
        "GPUs in a server."), json_schema_extra=_shown(unit="GPUs"))
    nics_per_server: int | None = Field(default=None, gt=0, description=(
        "Scale-out NICs in a server."), json_schema_extra=_shown(
        unit="NICs", default="`gpus_per_server`"))
    servers_per_rack: int = Field(default=4, gt=0, description=(
        "Servers in a rack, a power domain (the `rack` class), filled in order."),
        json_schema_extra=_shown(unit="servers"))
    servers_per_domain: int = Field(default=1, gt=0, strict=True, description=(
        "Servers in a scale-up (NVLink or ICI) domain (the `domain` class), filled in "
        "order; 1: none beyond the server."), json_schema_extra=_shown(unit="servers"))
    gpu_peak_flops: float | None = Field(default=None, gt=0, description=(
        "One GPU's dense peak (989e12 for an H100 SXM at BF16), for `workload.mfu`."),
        json_schema_extra=_shown(unit="FLOP/s"))
    host_memory: Bytes | None = Field(default=None, gt=0, description=(
        "Host RAM of a server that checkpoints may use (`\"1TB\"`): the in-memory fast "
        "tier and an asynchronous write's snapshot must fit in it."),
        json_schema_extra=_shown(default="not checked"))


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

    bfd_interval: Hours = Field(default=0.3 / 3600.0, gt=0, description="BFD's hello interval.")
    bfd_multiplier: int = Field(default=3, gt=0, description=(
        "Missed hellos before BFD declares a link down."), json_schema_extra=_shown(
        unit="hellos"))
    ecmp_reconvergence: Hours = Field(default=1.0 / 3600.0, ge=0, description=(
        "Time for ECMP to route around a link BFD declared down."))
    lacp_rate: Literal["fast", "slow"] = Field(default="fast", description=(
        "LACP's partner timeout: `fast` 3 s, `slow` 90 s (for a partner silent with its link "
        "up: a hung NIC or host)."))
    phy_down: Hours = Field(default=0.1 / 3600.0, ge=0, description=(
        "How soon a link that goes down (a flap, a pulled cable) leaves its LACP bundle or "
        "dual-ToR pair: the host's link poll (Linux bonding `miimon`)."))
    collective_timeout: Hours = Field(default=10.0 / 60.0, gt=0, description=(
        "A stall this long kills the job (PyTorch NCCL's default)."))
    # NCCL_IB_TIMEOUT 20 and NCCL_IB_RETRY_CNT 7 (defaults since NCCL 2.23):
    # 4.096 us x 2^20 x 7 = 30.06 s of retries before the transport gives up.
    transport_timeout: Hours = Field(default=4.096e-6 * 2**20 * 7 / 3600.0, gt=0, description=(
        "The RDMA transport's retry window: a stall this long kills the job too "
        "(`4.096 us x 2^NCCL_IB_TIMEOUT x NCCL_IB_RETRY_CNT`, NCCL's defaults 20 and 7)."))


class LacpConfig(_Strict):
    """An LACP bundle: ``{ members = 2, min_links = 1 }``.

    ``members`` physical links make one logical link, which stays up while at least
    ``min_links`` of them are up. The default, one member, is a plain link.
    """

    members: int = Field(default=1, gt=0, description=(
        "Physical links making one logical link; 1: a plain link."), json_schema_extra=_shown(
        unit="links"))
    min_links: int = Field(default=1, gt=0, description=(
        "Fewest members up for the logical link to stay up."), json_schema_extra=_shown(
        unit="links"))


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

    topology: Literal["spine-leaf", "rail-optimized", "fat-tree"] = Field(
        default="spine-leaf", description=(
            "`spine-leaf`: servers under leaves, leaves up to spines; `rail-optimized`: NIC "
            "*i* of a unit's servers on the unit's rail leaf *i*; `fat-tree`: a k-ary "
            "fat-tree of `switch_ports` = k-port switches."))
    switch_ports: int = Field(default=64, gt=1, description=(
        "Ports of a leaf, and of a spine unless `spine_ports` says otherwise; a fat-tree's k "
        "(every tier)."), json_schema_extra=_shown(unit="ports"))
    spine_ports: int | None = Field(default=None, gt=1, description=(
        "Ports of a spine, when they differ from a leaf's (not for a fat-tree)."),
        json_schema_extra=_shown(unit="ports", default="`switch_ports`"))
    servers_per_leaf: int | None = Field(default=None, gt=0, description=(
        "spine-leaf: servers under each leaf."), json_schema_extra=_shown(
        unit="servers", default="half a leaf's ports, one per NIC link"))
    servers_per_unit: int | None = Field(default=None, gt=0, description=(
        "rail-optimized: servers in a scalable unit."), json_schema_extra=_shown(
        unit="servers", default="half a leaf's ports"))
    uplinks_per_leaf: int | None = Field(default=None, gt=0, description=(
        "Links up from a leaf; oversubscription is a leaf's downlinks over them."),
        json_schema_extra=_shown(unit="links", default="its downlinks (1:1)"))
    spines: int | None = Field(default=None, gt=0, description=(
        "Spine switches (not for a fat-tree)."), json_schema_extra=_shown(
        unit="switches", default="one bundle from each leaf to each spine"))
    ecmp_width: int | None = Field(default=None, gt=0, description=(
        "Equal-cost uplinks a leaf's flows hash onto."), json_schema_extra=_shown(
        unit="uplinks", default="the spines a leaf reaches"))
    dual_tor: bool = Field(default=False, description=(
        "Every NIC homed to an MLAG pair of leaves: twice the server links, their optics "
        "and the leaves."))
    server_lacp: LacpConfig = Field(default_factory=LacpConfig, description=(
        "Links per NIC per leaf, an LACP bundle (a table)."))
    fabric_lacp: LacpConfig = Field(default_factory=LacpConfig, description=(
        "Links per leaf-spine (spine-core) bundle, an LACP bundle (a table)."))
    server_links: Literal["optical", "copper"] = Field(default="optical", description=(
        "NIC to leaf links: `optical` (two optics a link) or `copper` (DAC, no optics)."))
    fabric_links: Literal["optical", "copper"] = Field(default="optical", description=(
        "Leaf to spine (and beyond) links: `optical` or `copper`."))
    link_speed: BytesPerSecond = Field(default=400e9 / 8, gt=0, description=(
        "The speed of one link (one bundle member)."))
    server_link_speed: BytesPerSecond | None = Field(default=None, gt=0, description=(
        "NIC to leaf links' speed."), json_schema_extra=_shown(default="`link_speed`"))
    fabric_link_speed: BytesPerSecond | None = Field(default=None, gt=0, description=(
        "Leaf to spine (and beyond) links' speed."), json_schema_extra=_shown(
        default="`link_speed`"))
    nic_efficiency: Fraction = Field(default=0.94, gt=0, le=1, description=(
        "Share of line rate a collective achieves on a NIC (bus bandwidth over line rate; "
        "nccl-tests between nodes: 46-48 GB/s of 50)."))
    nvlink_efficiency: Fraction = Field(default=0.82, gt=0, le=1, description=(
        "Share of line rate a collective achieves on NVLink (H100: 370 of 450 GB/s)."))
    nvlink_bandwidth: BytesPerSecond = Field(default=450e9, gt=0, description=(
        "NVLink bandwidth of one GPU, for the communication model."))
    rtt: Hours = Field(default=10e-6 / 3600.0, ge=0, description=(
        "The network's round trip: one alpha per synchronisation step."))
    load_balancing: Literal["ecmp", "adaptive"] = Field(default="ecmp", description=(
        "`ecmp`: flows hash onto the uplinks like balls into bins; `adaptive`: adaptive "
        "routing or packet spraying, no collisions."))
    flows_per_connection: int = Field(default=1, gt=0, description=(
        "Queue pairs per connection, each hashed by ECMP."), json_schema_extra=_shown(
        unit="flows"))
    ecmp_efficiency: float | None = Field(default=None, gt=0, le=1, description=(
        "A fixed share of the uplinks the slowest flow sees, instead of the hashing model."),
        json_schema_extra=_shown(unit="share", default="the hashing model"))
    nic_failover: Literal["none", "pxn"] = Field(default="none", description=(
        "`pxn`: a GPU whose NIC fails sends through a neighbour's NIC over NVLink instead of "
        "crashing the job."))
    storage_on_fabric: bool = Field(default=False, description=(
        "Checkpoint traffic shares the compute fabric, so a degraded fabric slows "
        "checkpoint writes too."))
    pfc_pause_share: Fraction = Field(default=0.3, ge=0, lt=1, description=(
        "Share of time PFC pauses the links a flap's congestion spreads to; gives the "
        "slowdown after a flap."))
    comm_share: Fraction = Field(default=0.3, ge=0, le=1, description=(
        "Without a `[workload]`: the share of a step spent in exposed scale-out "
        "communication, from which degraded slowdowns are estimated."))
    failover: FailoverConfig = Field(default_factory=FailoverConfig, description=(
        "The detection and failover timers (a table)."))


def _load_form(value: Any) -> str:
    """Which form a drawn duration (``job.restart.load``, ``job.checkpoint.write``) takes:
    a distribution table, a list of measured durations, or one duration (or ``"auto"``)."""
    if isinstance(value, dict | DistributionConfig):
        return "distribution"
    return "measured" if isinstance(value, list | tuple) else "duration"


DrawnHours = Annotated[
    Annotated[DistributionConfig, Tag("distribution")]
    | Annotated[list[Hours], Tag("measured")]
    | Annotated[Hours, Tag("duration")],
    Discriminator(_load_form),
]
"""A duration, a distribution (``{ dist = "lognormal", median = "5min", sigma = 0.8 }``) or a
list of measured durations: drawn each time (a write at each save)."""


def _check_drawn(value: float | list[float] | DistributionConfig, key: str) -> None:
    """Refuse an empty or negative list of measured durations under ``key``."""
    if isinstance(value, list) and (
        not value or not all(0.0 <= hours <= MAX_DURATION_HOURS for hours in value)
    ):
        raise ValueError(f"{key}: a list of measured durations, each >= 0, not empty")


class _DrawnWrite(_Strict):
    """A checkpoint tier whose ``write`` may be drawn at each save: what the checks ask of
    it (its ``write`` and ``write_hours`` are the tier's own)."""

    def write_tail(self, hours: float) -> float:
        """The chance that a write takes longer than ``hours`` (0 or 1 for a fixed one)."""
        return drawn_tail(self.write if self.write is not None else self.write_hours, hours)

    @property
    def write_drawn(self) -> bool:
        """Whether the write is drawn at each save (a distribution or measured list)."""
        return isinstance(self.write, list | DistributionConfig)


class FastTierConfig(_DrawnWrite):
    """``[job.checkpoint.fast]``: a fast checkpoint tier (host memory or a peer).

    ``interval`` must divide the durable interval. ``survives = "peer"`` (a copy on
    another host survives one failure) or ``"none"`` (lost when its server fails: a
    gpu, host or nic failure then rolls back to the last durable checkpoint). ``write``
    is the fast tier's own blocking write (``blocking_fraction`` does not scale it).
    ``peer_bandwidth`` is what one GPU reads its shard back at from a peer's (or its
    host's) memory, for ``job.restart.load = "auto"``. A fast save is lost with
    probability ``fail`` and hangs with probability ``hang``; a fast checkpoint a
    restart reads is unusable with probability ``corrupt`` (the restart falls back to the
    durable tier). ``write`` and ``load`` may be drawn at each save and restart.
    """

    interval: Hours = Field(gt=0, description=(
        "Compute between fast checkpoints; must divide `job.checkpoint.interval`."))
    write: DrawnHours = Field(description=(
        "The fast tier's own blocking write (`blocking_fraction` does not scale it): a "
        "duration, a distribution or a list of measured durations, drawn at each save."))
    survives: Literal["peer", "none"] = Field(default="peer", description=(
        "`peer`: a copy on another host survives one failure; `none`: lost when its server "
        "fails (a gpu, host or nic failure then rolls back to the last durable checkpoint)."))
    peer_bandwidth: BytesPerSecond = Field(default=DEFAULT_PEER_BANDWIDTH, gt=0, description=(
        "What one GPU reads its shard back at from a peer's (or its host's) memory, for "
        "`job.restart.load = \"auto\"`."))
    fail: Fraction = Field(default=0.0, ge=0, lt=1, description=(
        "The chance that a fast save is lost (the checkpoint before it stays the restart "
        "point)."), json_schema_extra=_shown(unit="probability"))
    corrupt: Fraction = Field(default=0.0, ge=0, le=1, description=(
        "The chance that a fast checkpoint a restart reads is unusable: the restart falls "
        "back to the durable tier, its load and its rework."),
        json_schema_extra=_shown(unit="probability"))
    hang: Fraction = Field(default=0.0, ge=0, lt=1, description=(
        "The chance that a fast save hangs: the job crashes `job.checkpoint.save_timeout` "
        "later and restarts from the checkpoint before it."),
        json_schema_extra=_shown(unit="probability"))
    load: DrawnHours | None = Field(default=None, description=(
        "The load of a fast checkpoint at a restart, drawn each time: a distribution or "
        "a list of measured durations (or one duration)."), json_schema_extra=_shown(
        default="`size / gpus / peer_bandwidth` with `job.restart.load = \"auto\"`, "
        "else the durable load"))

    @model_validator(mode="after")
    def _check_write(self) -> FastTierConfig:
        _check_drawn(self.write, "write")
        if self.load is not None:
            _check_drawn(self.load, "load")
            if not isinstance(self.load, list | DistributionConfig) and not (
                0.0 <= self.load <= MAX_DURATION_HOURS
            ):
                raise ValueError("load: must be a duration >= 0")
        if not isinstance(self.write, list | DistributionConfig) and not (
            0.0 <= self.write <= MAX_DURATION_HOURS
        ):
            raise ValueError("write: must be a duration >= 0")
        return self

    @property
    def write_hours(self) -> float:
        """The mean blocking write of one fast checkpoint, hours."""
        return drawn_mean_hours(self.write)

    @property
    def load_hours(self) -> float | None:
        """The mean load of a fast checkpoint at a restart, hours (None: not given)."""
        return None if self.load is None else drawn_mean_hours(self.load)


class CheckpointConfig(_DrawnWrite):
    """``[job.checkpoint]``: compute time between (durable) checkpoints and their cost.

    The write is given directly (``write``) or from ``size`` and the storage
    ``bandwidth``; with asynchronous checkpointing only ``blocking_fraction`` of it
    stops training, and the checkpoint becomes durable only once its background
    persist, a whole write (``size / bandwidth``) after the blocking part, completes.
    ``read_bandwidth`` is the store's aggregate read bandwidth shared by the whole job,
    for ``job.restart.load = "auto"`` (default: ``bandwidth``). ``keep`` durable
    checkpoints are retained (default: all), and every ``archive_every``-th one is kept
    forever: a corruption found late rolls back to the newest retained one before it.
    A durable save is lost with probability ``fail``: its time is spent, and a restart
    goes back to the newest save that held (the saves are drawn when a restart needs
    them, each once). A durable save hangs with probability ``hang``: the job is held
    ``save_timeout`` (detection hours) and restarts from the checkpoint before it.
    """

    interval: Hours = Field(gt=0, description=(
        "Compute between durable checkpoints (Young's and Daly's tau)."))
    write: DrawnHours | None = Field(default=None, description=(
        "The write of one durable checkpoint (delta): a duration, a distribution or a list "
        "of measured durations, drawn at each save; or give `size` and `bandwidth`."),
        json_schema_extra=_shown(default="0, or `size` / `bandwidth`"))
    size: Bytes | None = Field(default=None, gt=0, description=(
        "Size of a checkpoint; with `bandwidth` it gives the write."))
    bandwidth: BytesPerSecond | None = Field(default=None, gt=0, description=(
        "The storage's write bandwidth, with `size`."))
    read_bandwidth: BytesPerSecond | None = Field(default=None, gt=0, description=(
        "The store's aggregate read bandwidth, shared by the whole job, for "
        "`job.restart.load = \"auto\"`."), json_schema_extra=_shown(default="`bandwidth`"))
    blocking_fraction: Fraction = Field(default=1.0, gt=0, le=1, description=(
        "Asynchronous checkpointing: the share of the write that stops training; the "
        "checkpoint is durable a whole write after its blocking part."))
    fast: FastTierConfig | None = Field(default=None, description=(
        "A fast checkpoint tier in host or peer memory (a table)."))
    fail: Fraction = Field(default=0.0, ge=0, lt=1, description=(
        "The chance that a durable save is lost (the checkpoint before it stays the "
        "restart point)."), json_schema_extra=_shown(unit="probability"))
    hang: Fraction = Field(default=0.0, ge=0, lt=1, description=(
        "The chance that a durable save hangs (a starved storage target): the job crashes "
        "`save_timeout` later and restarts from the checkpoint before it."),
        json_schema_extra=_shown(unit="probability"))
    save_timeout: Hours = Field(default=DEFAULT_SAVE_TIMEOUT_HOURS, gt=0, description=(
        "How long a hung save holds the job before it is killed."))
    keep: int | None = Field(default=None, ge=1, strict=True, description=(
        "Durable checkpoints retained; a corruption found late rolls back to the newest "
        "retained one before it."), json_schema_extra=_shown(
        unit="checkpoints", default="all"))
    archive_every: int | None = Field(default=None, ge=1, strict=True, description=(
        "Every this-many-th retained checkpoint is kept for good."), json_schema_extra=_shown(
        unit="checkpoints", default="none"))

    @model_validator(mode="after")
    def _check_cost(self) -> CheckpointConfig:
        if self.write is not None and (self.size is not None or self.bandwidth is not None):
            raise ValueError("give either 'write' or 'size' and 'bandwidth', not both")
        if self.write is not None:
            _check_drawn(self.write, "write")
            if not self.write_drawn and not 0.0 <= self.write <= MAX_DURATION_HOURS:
                raise ValueError("write: must be a duration >= 0")
        if (self.size is None) != (self.bandwidth is None):
            raise ValueError("'size' and 'bandwidth' go together")
        if not self.blocking_write_hours <= MAX_DURATION_HOURS:
            raise ValueError("a write of size / bandwidth takes more than 1e9 years")
        return self

    @property
    def write_hours(self) -> float:
        """Time one durable checkpoint takes to write whole, hours (the mean of a drawn
        write)."""
        if self.size is not None and self.bandwidth is not None:
            return self.size / self.bandwidth / 3600.0
        return drawn_mean_hours(self.write) if self.write is not None else 0.0

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

    every: Hours = Field(gt=0, description="Wall-clock time from one window to the next.")
    duration: Hours = Field(ge=0, description="How long each window lasts.")
    checkpoint_first: bool = Field(default=True, description=(
        "Run on to the next durable checkpoint and stop there, losing no work; `false`: stop "
        "at once."))


class PreemptionConfig(_Strict):
    """``[preemption]``: spot or preemptible capacity taken back with a notice.

    The job is preempted at random while it runs: on average ``every`` hours of running,
    or with a chance ``per_day`` in a day of running (exactly one of the two; a Poisson
    process). It gets ``notice`` first; the signal is serviced with probability
    ``save_on_notice``, and a just-in-time save then succeeds if one training step plus
    the checkpoint's blocking write fits in the notice. A saved job loses no work: it
    waits for its capacity (``return_delay``, a distribution) and restarts from the save.
    An unsaved one is a crash: it waits the same, restarts and redoes the work since its
    last checkpoint. The save and the wait are ``waiting`` hours.
    """

    every: Hours | None = Field(default=None, gt=0, description=(
        "Mean running time between preemptions (one of `every`, `per_day`)."))
    per_day: Fraction | None = Field(default=None, gt=0, lt=1, description=(
        "The chance of a preemption in a day of running (one of `every`, `per_day`)."),
        json_schema_extra=_shown(unit="probability"))
    notice: Hours = Field(default=0.0, ge=0, description=(
        "Warning before the capacity goes (AWS spot: 2 min; GKE spot: about 30 s)."))
    save_on_notice: Fraction = Field(default=0.0, ge=0, le=1, description=(
        "The chance that the notice is serviced with a just-in-time save (it succeeds only "
        "if a step and the blocking write fit in the notice)."),
        json_schema_extra=_shown(unit="probability"))
    return_delay: DistributionConfig = Field(default_factory=_zero_repair, description=(
        "Time until the capacity comes back (a distribution)."),
        json_schema_extra=_shown(default="fixed, 0 s"))

    @model_validator(mode="after")
    def _check_rate(self) -> PreemptionConfig:
        if (self.every is None) == (self.per_day is None):
            raise ValueError("give exactly one of every and per_day")
        return self

    @property
    def mean_hours(self) -> float:
        """Mean running hours between preemptions."""
        if self.every is not None:
            return self.every
        return 24.0 / -math.log1p(-float(self.per_day or 0.0))


class ElasticConfig(_Strict):
    """``[job.elastic]``: elastic recovery (drop the failed data-parallel replica)."""

    data_parallel: int = Field(ge=2, description=(
        "Data-parallel replicas: with `k` dropped the job runs at `DP / (DP - k)` of its "
        "step time."), json_schema_extra=_shown(unit="replicas"))
    reconfigure: Hours = Field(default=2.0 / 60.0, ge=0, description=(
        "The stall, after detection, to drop the failed replica."))
    rejoin: Hours = Field(default=DEFAULT_REJOIN_HOURS, ge=0, description=(
        "Time to take a replica back once a spare is free or the unit is repaired."))


class LiveMigrationConfig(_Strict):
    """``[job.live_migration]``: the live-migration stack (Clockwork TorchPass, TrainMover).

    A failed server's state moves to a free hot spare (``job.spares``) and the job resumes
    at the same step: the failure costs its detection and ``swap``, no rework. Its
    failure domain is one server (GPU, host, NIC and the server's own links); switches
    and job-level faults (software, hangs) restart from a checkpoint, and so does a
    server's failure when no hot spare is free (the fallback).
    """

    swap: Hours = Field(default=DEFAULT_MIGRATION_SWAP_HOURS, ge=0, description=(
        "The stall, after detection, to move the failed server's state to a hot spare."))


class ReplicaDropConfig(_Strict):
    """``[job.replica_drop]``: the replica-drop stack (torchft).

    A failed server takes its replica group out (the failure domain: ``replicas`` groups
    share the job's GPUs); the others go on without it, the job at ``R / (R - k)`` of its
    step time with ``k`` groups out, until a spare or the repaired unit lets the group
    ``rejoin``. No rework; every step pays ``job.step_overhead`` (5% unless set). One
    group left is the floor: losing it too restarts from a checkpoint (the fallback), as
    do switch and job-level faults.
    """

    replicas: int | None = Field(default=None, ge=2, strict=True, description=(
        "Replica groups sharing the work: with `k` out the job runs at `R / (R - k)` of its "
        "step time."), json_schema_extra=_shown(
        unit="groups", default="the workload's data-parallel degree"))
    reconfigure: Hours = Field(default=DEFAULT_RECONFIGURE_HOURS, ge=0, description=(
        "The stall, after detection, to drop the failed group (a new quorum)."))
    rejoin: Hours = Field(default=DEFAULT_REJOIN_HOURS, ge=0, description=(
        "Time for a group to take its place again once a spare is free or the unit is "
        "repaired."))


def _init_scaling_form(value: Any) -> str:
    """Which form ``job.restart.init_scaling`` takes: a power-law table, or a name."""
    return "power law" if isinstance(value, dict | InitPowerLawConfig) else "name"


class InitPowerLawConfig(_Strict):
    """``init_scaling = { exponent = 1.5 }``: a restart's start-up that grows as a power of
    the job's size, ``(gpus / reference_gpus) ** exponent`` (SPARe, arXiv 2603.00357:
    quadratic or worse at scale)."""

    exponent: float = Field(ge=0, le=4, allow_inf_nan=False, description=(
        "The power of `gpus / reference_gpus` the start-up grows by (0: not at all, 1: "
        "linearly, 2: quadratically)."))


class RestartConfig(_Strict):
    """``job.restart = { init = "3min", init_scaling = "log2", load = "auto" }``: a
    restart built from its parts.

    ``init`` is scheduling, process start and communicator set-up, measured at
    ``reference_gpus`` GPUs; ``init_scaling`` grows it with the job's size: ``none``,
    ``log2`` (times ``log2(gpus) / log2(reference_gpus)``, a tree-shaped set-up),
    ``linear`` (times ``gpus / reference_gpus``), ``quadratic`` (its square) or a power law
    ``{ exponent = a }`` (its ``a``-th power). ``load`` is a duration, or ``auto``: the
    checkpoint read from the tier that survived, ``size / read_bandwidth`` from the
    durable store or ``size / gpus / peer_bandwidth`` from a peer's memory; or a
    distribution or a list of measured durations of the durable load, drawn at each
    restart (its mean enters the closed forms).

    A restart may itself fail: each attempt succeeds with probability ``success``; a
    failed one costs its start-up (``init``, scaled) and is retried at once, up to
    ``max_attempts`` in the job's allocation (NVRx: 3 in-job restarts); then the job is
    requeued, waits ``requeue_delay`` and tries ``max_attempts`` times again, up to
    ``max_requeues`` requeues (NVRx: 2 job retries); past them the job fails (the trial
    ends there: ``job_failed``). With probability ``black_hole`` a failure's retries land
    on the same faulty server (it was not excluded): every attempt of the allocation fails
    until the requeue excludes it. The failed attempts are ``restart`` hours (start-up),
    the requeue delays ``waiting`` hours; nothing fails meanwhile.
    """

    init: Hours = Field(ge=0, description=(
        "Scheduling, process start and communicator set-up, measured at `reference_gpus`."))
    init_scaling: Annotated[
        Annotated[InitPowerLawConfig, Tag("power law")]
        | Annotated[Literal[tuple(INIT_SCALINGS)], Tag("name")],
        Discriminator(_init_scaling_form),
    ] = Field(
        default="none", description=(
            "How `init` grows with the job: `none`, `log2` (x log2(gpus) / "
            "log2(reference_gpus), a tree-shaped set-up), `linear` (x gpus / "
            "reference_gpus), `quadratic` (x (gpus / reference_gpus)^2) or a power law "
            "`{ exponent = a }` (x (gpus / reference_gpus)^a)."))
    reference_gpus: int = Field(default=DEFAULT_REFERENCE_GPUS, ge=2, strict=True, description=(
        "The job size `init` was measured at."), json_schema_extra=_shown(unit="GPUs"))
    load: Annotated[
        Annotated[DistributionConfig, Tag("distribution")]
        | Annotated[list[Hours], Tag("measured")]
        | Annotated[Literal["auto"] | float, _DURATION_TEXT, _with_unit("h"), Tag("duration")],
        Discriminator(_load_form),
    ] = Field(default=0.0, description=(
        "The checkpoint's load from the durable store: a duration; `auto`: from the tier "
        "that survived, `size / read_bandwidth` from the durable store or `size / gpus / "
        "peer_bandwidth` from a peer's memory; a distribution (`{ dist = \"lognormal\", "
        "median = \"5min\", sigma = 0.8 }`) or a list of measured durations, drawn at "
        "each restart."))

    success: Fraction = Field(default=1.0, gt=0, le=1, description=(
        "The chance that one restart attempt succeeds; a failed attempt costs its "
        "start-up (`init`, scaled) and is retried."), json_schema_extra=_shown(
        unit="probability"))
    max_attempts: int = Field(default=3, ge=1, strict=True, description=(
        "Attempts within the job's allocation before it is requeued."),
        json_schema_extra=_shown(unit="attempts"))
    max_requeues: int = Field(default=2, ge=0, strict=True, description=(
        "Requeues, each with `max_attempts` attempts, before the job fails for good."),
        json_schema_extra=_shown(unit="requeues"))
    requeue_delay: Hours = Field(default=DEFAULT_REQUEUE_DELAY_HOURS, ge=0, description=(
        "The wait for a requeued job to be scheduled again."))
    black_hole: Fraction = Field(default=0.0, ge=0, le=1, description=(
        "The chance that a failure's retries land on the same faulty server: every "
        "attempt in the allocation fails, until a requeue excludes it."),
        json_schema_extra=_shown(unit="probability"))

    @model_validator(mode="after")
    def _check_load(self) -> RestartConfig:
        load = self.load
        if isinstance(load, list):
            if not load or not all(0.0 <= hours <= MAX_DURATION_HOURS for hours in load):
                raise ValueError("load: a list of measured durations, each >= 0, not empty")
        elif isinstance(load, float | int) and not 0.0 <= load <= MAX_DURATION_HOURS:
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

    reconfigure: Hours = Field(default=DEFAULT_RECONFIGURE_HOURS, ge=0, description=(
        "Time to rebuild the communicators around a failure once it is detected."))
    max_concurrent: int = Field(default=1, ge=1, strict=True, description=(
        "Replicas that may be missing at once; one more falls back to checkpoint-restart."),
        json_schema_extra=_shown(unit="replicas"))
    data_parallel: int | None = Field(default=None, ge=2, strict=True, description=(
        "Replicas sharing the work."), json_schema_extra=_shown(
        unit="replicas", default="the workload's data-parallel degree"))


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

    gpus: int = Field(gt=0, strict=True, description="GPUs the job runs on.",
                      json_schema_extra=_shown(unit="GPUs"))
    work: Hours | None = Field(default=None, gt=0, description=(
        "Useful hours to complete at this design's healthy speed (one of `work`, `steps`, "
        "`tokens`, `horizon`)."))
    steps: Count | None = Field(default=None, gt=0, description=(
        "Training steps to complete: the work is the steps times this design's healthy step "
        "time."), json_schema_extra=_shown(unit="steps"))
    tokens: Count | None = Field(default=None, gt=0, description=(
        "Tokens to train (`\"15T\"`): the steps are tokens / `workload.tokens_per_step`."),
        json_schema_extra=_shown(unit="tokens"))
    horizon: Hours | None = Field(default=None, gt=0, description=(
        "A calendar window: the run stops there, and goodput is the work done over it."))
    restart: Annotated[
        Annotated[RestartConfig, Tag("parts")] | Annotated[Hours, Field(ge=0), Tag("duration")],
        Discriminator(_restart_form),
    ] = Field(default=0.0, description=(
        "Re-initialisation and checkpoint load after a failure: one duration, or its parts "
        "(a table)."))
    step: Hours | None = Field(default=None, gt=0, description=(
        "One training step: the rework of a per-step recovery, and the step of work in "
        "steps without a `[workload]`."), json_schema_extra=_shown(
        default="the workload's step time"))
    spares: int = Field(default=0, ge=0, strict=True, description=(
        "Hot spare servers (warm standbys, swapped in at once)."), json_schema_extra=_shown(
        unit="servers"))
    spare_domains: int = Field(default=0, ge=0, strict=True, description=(
        "Whole spare scale-up domains, which only a `domain` failure draws on."),
        json_schema_extra=_shown(unit="domains"))
    spare_pool: int = Field(default=0, ge=0, strict=True, description=(
        "A second tier of spare servers (running preemptible work), used when no hot spare "
        "is free, after `spare_pool_swap`."), json_schema_extra=_shown(unit="servers"))
    spare_pool_swap: Hours = Field(default=0.0, ge=0, description=(
        "Time to swap a server in from the spare pool."))
    checkpoint: CheckpointConfig = Field(description="Checkpoints and their cost (a table).")
    recovery: Literal[RECOVERY_STRATEGIES] = Field(default="checkpoint-restart", description=(
        "The recovery stack: `checkpoint-restart` (from the last surviving checkpoint), "
        "`live-migration` (a failed server's state to a hot spare), `replica-drop` (the "
        "failed replica group out until it rejoins, with a per-step tax), `elastic` (drop "
        "the failed replica), `in-process` (per-step recovery) or `failure-free` (no "
        "failures: the upper bound)."))
    live_migration: LiveMigrationConfig | None = Field(default=None, description=(
        "Live migration's settings (a table)."))
    replica_drop: ReplicaDropConfig | None = Field(default=None, description=(
        "Replica drop's settings (a table)."))
    elastic: ElasticConfig | None = Field(default=None, description=(
        "Elastic recovery's settings (a table)."))
    in_process: InProcessConfig | None = Field(default=None, description=(
        "Per-step recovery's settings (a table)."))
    idle_failures: bool = Field(default=False, description=(
        "The hardware fails while the job is down too (not fail-slow, corruption or `unit "
        "= \"job\"` modes)."))
    step_overhead: Fraction | None = Field(default=None, ge=0, le=10, description=(
        "The recovery stack's steady tax on every step, a share of the step's time "
        "(`\"2%\"`): replicas kept in step, a quorum per step. Failure-free, the job takes "
        "its work x (1 + step_overhead); the tax on the work kept is the `overhead` "
        "bucket."), json_schema_extra=_shown(
        unit="share of a step", default="5% for `replica-drop`, 0 otherwise"))
    failures_during_recovery: bool = Field(default=True, description=(
        "Failures strike while the job detects a failure, waits or restarts; `false`: none "
        "do (the rule of netcap, of the MTBI goodput model and of AIReSim)."))
    drain: Literal[DRAIN_POLICIES] = Field(default="never", description=(
        "Swap a server found running degraded (its own NIC, link or optic) for a free "
        "spare: `never`, `at-checkpoint` (a restart at the next durable checkpoint, no "
        "rework) or `now` (a restart from the last checkpoint)."))

    @property
    def step_tax(self) -> float:
        """The recovery stack's per-step tax, a share of a step: ``step_overhead``, or the
        stack's own (:data:`STEP_OVERHEAD_BY_RECOVERY`) when it is not given."""
        if self.step_overhead is not None:
            return self.step_overhead
        return STEP_OVERHEAD_BY_RECOVERY.get(self.recovery, 0.0)

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

    data: int | None = Field(default=None, gt=0, description="The data-parallel degree.",
                             json_schema_extra=_shown(default="`job.gpus` / (tensor x pipeline)"))
    tensor: int = Field(default=1, gt=0, description="The tensor-parallel degree.")
    pipeline: int = Field(default=1, gt=0, description="The pipeline-parallel degree.")
    expert: int = Field(default=1, gt=0, description=(
        "The expert-parallel degree, carved out of the data x tensor ranks."))


class OverlapConfig(_Strict):
    """``[workload.overlap]``: share of compute each dimension's communication hides behind."""

    data: Fraction = Field(default=0.8, ge=0, le=1, description=(
        "Share of compute the data-parallel traffic hides behind."))
    tensor: Fraction = Field(default=0.0, ge=0, le=1, description=(
        "Share of compute the tensor-parallel traffic hides behind."))
    pipeline: Fraction = Field(default=0.0, ge=0, le=1, description=(
        "Share of compute the pipeline traffic hides behind."))
    expert: Fraction = Field(default=0.0, ge=0, le=1, description=(
        "Share of compute the expert-parallel (All-to-All) traffic hides behind."))


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

    parameters: float = Field(gt=0, description="Dense parameters.",
                              json_schema_extra=_shown(unit="parameters"))
    expert_parameters: float = Field(default=0.0, ge=0, description=(
        "MoE expert parameters, all experts together."), json_schema_extra=_shown(
        unit="parameters"))
    tokens_per_step: float = Field(gt=0, description="Tokens of one training step.",
                                   json_schema_extra=_shown(unit="tokens"))
    hidden_size: int = Field(gt=0, description="The model's hidden size.")
    layers: int = Field(gt=0, description="Transformer layers.",
                        json_schema_extra=_shown(unit="layers"))
    micro_batches: int = Field(default=1, gt=0, description=(
        "Micro-batches per step (the pipeline bubble's m; collectives per micro-batch)."))
    step_compute: Hours | None = Field(default=None, gt=0, description=(
        "Pure compute time of one step; or give `mfu`."))
    mfu: Fraction | None = Field(default=None, gt=0, le=1, description=(
        "Model FLOPs utilisation, with `cluster.gpu_peak_flops`: compute = 6 x active "
        "parameters x tokens_per_step / (GPUs x peak x mfu); or give `step_compute`."))
    experts: int | None = Field(default=None, gt=0, description=(
        "Experts per MoE layer."), json_schema_extra=_shown(default="`parallelism.expert`"))
    top_k: int = Field(default=2, gt=0, description="Experts each token is routed to.",
                       json_schema_extra=_shown(unit="experts"))
    moe_layers: int | None = Field(default=None, ge=0, description=(
        "Layers with experts."), json_schema_extra=_shown(
        unit="layers", default="`layers` with `expert_parameters`, else 0"))
    bytes_per_gradient: float = Field(default=4.0, gt=0, description=(
        "Bytes of one gradient element in the data-parallel AllReduce."),
        json_schema_extra=_shown(unit="bytes"))
    bytes_per_activation: float = Field(default=2.0, gt=0, description=(
        "Bytes of one activation element (tensor-parallel and pipeline traffic)."),
        json_schema_extra=_shown(unit="bytes"))
    bytes_per_token_expert: Bytes | None = Field(default=None, gt=0, description=(
        "All-to-All payload per token-expert pair."), json_schema_extra=_shown(
        default="`hidden_size` x `bytes_per_activation`"))
    comm_efficiency: Fraction = Field(default=0.7, gt=0, le=1, description=(
        "The seed's share of line rate in the *needed*-bandwidth figures of `relplan "
        "baseline`; the timing uses `network.nic_efficiency` and `nvlink_efficiency`."))
    burst_factor: float = Field(default=4.0, ge=1, description=(
        "`relplan baseline`: peak over average bandwidth (the seed's 3-5x)."),
        json_schema_extra=_shown(unit="x"))
    headroom: Fraction = Field(default=0.25, ge=0, description=(
        "`relplan baseline`: provisioning headroom above the peak (the seed's 20-30%)."))
    all_to_all_concurrency: int | None = Field(default=None, gt=0, description=(
        "Peers an All-to-All keeps in flight at once; 1: the pairwise exchange, `n - 1` "
        "steps."), json_schema_extra=_shown(unit="peers", default="all of them (DeepEP)"))
    pipeline_interleave: int = Field(default=1, gt=0, description=(
        "Virtual pipeline stages per GPU (the bubble's v)."), json_schema_extra=_shown(
        unit="stages"))
    parallelism: ParallelismConfig = Field(default_factory=ParallelismConfig, description=(
        "Parallelism degrees; GPUs = data x tensor x pipeline (a table)."))
    overlap: OverlapConfig = Field(default_factory=OverlapConfig, description=(
        "Share of compute each dimension's communication hides behind (a table)."))


class BudgetConfig(_Strict):
    """``[budget]``: what hardware costs and what a GPU-hour is worth.

    ``prices`` are per unit of a component class (any currency, the same for all);
    ``amortization`` spreads a unit's price over its service life, so a job is charged
    for the hours it holds the hardware; ``gpu_hour_value`` prices a lost GPU-hour;
    ``currency`` is the symbol money figures are shown with (``"$"``, ``"€"``, ``"CHF "``).
    """

    gpu_hour_value: float = Field(ge=0, description=(
        "What a GPU-hour is worth: prices lost and saved GPU-hours (net value)."),
        json_schema_extra=_shown(unit="currency per GPU-hour"))
    amortization: Hours = Field(default=4 * HOURS_PER_YEAR, gt=0, description=(
        "Service life a unit's price is spread over: a job is charged for the hours it "
        "holds the hardware."))
    prices: dict[str, float] = Field(default_factory=dict, description=(
        "Price of one unit of each component class (`{ gpu = 30000, leaf = 40000 }`), one "
        "currency for all."), json_schema_extra=_shown(unit="currency", default="none"))
    spot_discount: Fraction = Field(default=0.0, ge=0, lt=1, description=(
        "What spot or preemptible capacity saves on a GPU-hour (`\"70%\"`): a config "
        "with `[preemption]` pays its GPU-hours at (1 - spot_discount) x "
        "`gpu_hour_value`."), json_schema_extra=_shown(unit="share of a GPU-hour"))
    currency: str = Field(default="$", min_length=1, max_length=4, description=(
        "The symbol money is shown with (`\"$\"`, `\"€\"`, `\"CHF \"`)."))

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

    trials: int = Field(default=1000, gt=0, description=(
        "Trials (simulated runs of the job) when the command line gives no `--trials`."),
        json_schema_extra=_shown(unit="trials"))
    seed: int = Field(default=0, ge=0, description=(
        "The seed of every random stream: the same seed gives the same numbers."))
    workers: int = Field(default=1, gt=0, description=(
        "What runs at once without `--workers`: on simulate and optimize threads; on sweep, "
        "compare and plan points, each in a local process."), json_schema_extra=_shown(
        default="1; points: every core"))


class ProbeConfig(_Strict):
    """``[health.probe]``: an active health check (a DCGM diagnostic, an NCCL all-reduce
    test) that pauses the job for ``duration`` every ``every`` of running, and finds a
    failing unit of a covered mode before the job hits it: one that shows ``latent``
    hours ahead (``failures.*.latent``) is found by a probe with probability
    ``coverage x min(latent / every, 1)`` and drained at the next durable checkpoint
    instead of crashing the job."""

    every: Hours = Field(gt=0, description="Running time from one probe to the next.")
    duration: Hours = Field(ge=0, description="How long each probe pauses the job.")
    coverage: dict[str, Fraction] = Field(default_factory=dict, description=(
        "Per failure mode (its key in `[failures]`), the share of its latent failures a "
        "probe finds."))

    @model_validator(mode="after")
    def _check_probe(self) -> ProbeConfig:
        if self.duration >= self.every:
            raise ValueError("duration: a probe must be shorter than its period (every)")
        for name, share in self.coverage.items():
            if not 0.0 <= share <= 1.0:
                raise ValueError(f"coverage.{name}: a share in [0, 1]")
        return self


class BurnInConfig(_Strict):
    """``[health.burn_in]``: every server of the job and its spares runs a burn-in of
    ``duration`` before the job starts, which finds ``catches`` of the lemons
    (``failures.*.lemons``): they are swapped for good units before the job. Its cost is
    the burn-in's GPU-hours (``burn_in_gpu_hours``) and the time before the job starts
    (``burn_in_hours``), reported beside the job's own. With ``returning``, each unit back
    from repair burns in before it returns."""

    duration: Hours = Field(ge=0, description="How long the burn-in runs.")
    catches: Fraction = Field(default=1.0, ge=0, le=1, description=(
        "The share of the lemons it finds."), json_schema_extra=_shown(unit="share"))
    returning: bool = Field(default=False, description=(
        "Each unit back from repair burns in too before it returns: its repair lasts "
        "`duration` longer, and its next life starts aged by it, drawn given that it "
        "survived the burn-in (infant mortality burned away)."))


class PredictorConfig(_Strict):
    """``[health.predictor]``: a failure predictor (ByteDance's: 46-85% precision) that
    warns of a failure of the ``modes`` it watches ``lead`` ahead; it catches
    ``recall`` of them, and ``precision`` of its warnings are right. On a warning the job
    acts: ``checkpoint`` writes a checkpoint at once (the blocking write; the ``lead``
    beyond it is rework) and restarts from it after the failure, losing nothing before;
    ``migrate`` moves the unit's work to a spare before the failure (a stall of
    ``swap``). A false warning costs the action (a checkpoint, a migration) and nothing
    fails."""

    modes: list[str] = Field(min_length=1, description=(
        "The failure modes (keys of `[failures]`) it watches: fatal ones with an "
        "exponential lifetime."))
    recall: Fraction = Field(ge=0, le=1, description=(
        "The share of their failures it warns of."), json_schema_extra=_shown(unit="share"))
    precision: Fraction = Field(default=1.0, gt=0, le=1, description=(
        "The share of its warnings that a failure follows."),
        json_schema_extra=_shown(unit="share"))
    lead: Hours = Field(ge=0, description="How long before the failure it warns.")
    action: Literal["checkpoint", "migrate"] = Field(default="checkpoint", description=(
        "`checkpoint`: write a checkpoint on the warning; `migrate`: move to a spare."))
    swap: Hours = Field(default=DEFAULT_MIGRATION_SWAP_HOURS, ge=0, description=(
        "How long a migration stalls the job (`action = \"migrate\"`)."))


class FleetConfig(_Strict):
    """``[fleet]``: what a fleet's jobs (``[[jobs]]``) share beyond the cluster."""

    spares: int = Field(default=0, ge=0, le=10**6, strict=True, description=(
        "Spare servers in one pool shared by the jobs: a job's failed server is swapped "
        "for one if the pool has one, else the job waits for the first back from repair "
        "(first come, first served). A job of the fleet then has no spares of its own."),
        json_schema_extra=_shown(unit="servers"))
    preempt: Literal[PREEMPT_POLICIES] = Field(default="never", description=(
        "What a job that would wait for a replacement server does: \"never\" waits; "
        "\"lower-priority\" takes a server from a running job of lower priority "
        "(jobs.*.priority; the lowest first, then by name), which stops, loses its work "
        "since its last checkpoint and waits for that replacement instead."))


class RepairConfig(_Strict):
    """``[repair]``: who repairs the failed units. Without it every repair starts once its
    failure is noticed (as many crews as failures)."""

    crews: int = Field(ge=1, le=10**6, strict=True, description=(
        "Repairs under way at once: a failed unit waits for a free crew (first come, "
        "first served), its repair starting then. The repairs of units the job swaps or "
        "waits for, and of units running degraded or replaced by a hot spare, queue; a "
        "flap, which comes back by itself, does not."), json_schema_extra=_shown(
        unit="crews"))


class HealthConfig(_Strict):
    """``[health]``: checks that run beside the job (active probes, a burn-in, a failure
    predictor)."""

    probe: ProbeConfig | None = Field(default=None, description=(
        "An active probe (a table)."))
    burn_in: BurnInConfig | None = Field(default=None, description=(
        "A burn-in before the job (a table)."))
    predictor: PredictorConfig | None = Field(default=None, description=(
        "A failure predictor (a table)."))


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

    name: str | None = Field(default=None, description=(
        "A label for tables, reports and provenance."), json_schema_extra=_shown(
        default="the file's name"))
    description: str | None = Field(default=None, description="One line about the config.")
    cluster: ClusterConfig = Field(description="The servers and what is in them.")
    network: NetworkConfig = Field(default_factory=NetworkConfig, description=(
        "The fabric between the servers' NICs."))
    failures: dict[str, FailureModeConfig] = Field(default_factory=dict, description=(
        "One table per failure mode, `[failures.NAME]`."))
    job: JobConfig = Field(description="The training run.")
    workload: WorkloadConfig | None = Field(default=None, description=(
        "What a step computes and exchanges: the communication model's input."))
    maintenance: MaintenanceConfig | None = Field(default=None, description=(
        "Planned maintenance windows."))
    health: HealthConfig | None = Field(default=None, description=(
        "Health checks beside the job: active probes, a burn-in (a table)."))
    preemption: PreemptionConfig | None = Field(default=None, description=(
        "Spot or preemptible capacity taken back with a notice."))
    repair: RepairConfig | None = Field(default=None, description=(
        "Repair crews (a table); without it, no repair waits for one."))
    budget: BudgetConfig | None = Field(default=None, description=(
        "Prices, for `compare`, `plan` and `sweep`."))
    simulation: SimulationConfig = Field(default_factory=SimulationConfig, description=(
        "Monte Carlo settings the command line overrides."))

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
        copy; defaults are left out, so that they stay defaults), durations, sizes and
        bandwidths as the text they were given (``"12.749y"``, ``"14TB"``,
        ``"400Gbps"``), or, for a value given as a number (:meth:`model_copy`), in hours
        (``"0.25h"``), bytes (``"4e9B"``) or bytes per second (``"5e10B/s"``).

        Returns
        -------
        dict
            A document :meth:`from_document` validates back to an equal config.

        Examples
        --------
        >>> from relplan.config.loading import load_config
        >>> config = load_config("configs/small.toml")
        >>> config.to_document()["failures"]["gpu"]["lifetime"]["mtbf"]
        '12.749y'
        >>> config.with_overrides(["job.checkpoint.interval=90min"]).to_document()["job"][
        ...     "checkpoint"]["interval"]
        '90min'
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
