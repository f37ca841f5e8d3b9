"""The TOML configuration schema (pydantic), loading, ``--set`` overrides and errors.

A config describes a cluster, the failure modes of its components, and the training
job. Every duration carries a unit ("90s", "30min", "2h", "54d", "5y"); every
mistake is reported as one :class:`ConfigError` naming the dotted key at fault.
"""

from __future__ import annotations

import copy
import math
import tomllib
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    model_validator,
)

from relplan import distributions
from relplan.distributions import Distribution
from relplan.units import (
    HOURS_PER_YEAR,
    parse_bandwidth_bytes_per_s,
    parse_duration_hours,
    parse_fraction,
    parse_size_bytes,
)

COMPONENT_CLASSES: tuple[str, ...] = (
    "gpu",
    "host",
    "nic",
    "optic",
    "link",
    "leaf",
    "spine",
    "core",
    "rack",
)
"""Component classes the topology counts; a failure mode attaches to one of them.

``leaf`` is the edge/ToR tier, ``spine`` the tier above it (the aggregation tier of a
fat-tree), ``core`` a fat-tree's top tier; ``rack`` a rack or power domain of
``cluster.servers_per_rack`` servers, whose failure takes all of them down at once."""

FAILURE_UNITS: tuple[str, ...] = (*COMPONENT_CLASSES, "job")
"""What a failure mode can be counted per: a component class, or the job as a whole."""

SERVER_CLASSES: tuple[str, ...] = ("gpu", "host", "nic")
"""Classes that live inside a server, so a spare server can stand in for them."""


class ConfigError(Exception):
    """A config or argument is wrong: ``key`` names it, ``message`` says what is wrong."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(f"{key}: {message}")
        self.key = key
        self.message = message


Hours = Annotated[float, BeforeValidator(parse_duration_hours)]
Fraction = Annotated[float, BeforeValidator(parse_fraction)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class DistributionConfig(_Strict):
    """A duration distribution: ``{ dist = "weibull", shape = 0.8, mtbf = "5y" }``.

    exponential: one of ``mtbf`` / ``mean`` (the same thing) or ``afr``.
    weibull: ``shape`` and one of ``scale``, ``mtbf`` / ``mean``.
    lognormal: ``sigma`` (of the log) and one of ``median``, ``mtbf`` / ``mean``.
    fixed: ``mean`` (a constant; zero allowed, for repairs).
    """

    dist: Literal["exponential", "weibull", "lognormal", "fixed"]
    mtbf: Hours | None = Field(default=None, gt=0)
    mean: Hours | None = Field(default=None, ge=0)
    afr: Fraction | None = Field(default=None, gt=0, lt=1)
    scale: Hours | None = Field(default=None, gt=0)
    shape: float | None = Field(default=None, gt=0)
    median: Hours | None = Field(default=None, gt=0)
    sigma: float | None = Field(default=None, gt=0)

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
        return self

    def to_distribution(self) -> Distribution:
        """The validated :class:`~relplan.distributions.Distribution`, in hours."""
        mean = self.mtbf if self.mtbf is not None else self.mean
        if self.dist == "exponential":
            if self.afr is not None:
                mean = -HOURS_PER_YEAR / math.log1p(-self.afr)
            return distributions.exponential(mean)
        if self.dist == "weibull":
            if self.scale is not None:
                return distributions.weibull(self.shape, self.scale)
            return distributions.weibull_from_mean(self.shape, mean)
        if self.dist == "lognormal":
            if self.median is not None:
                return distributions.lognormal(self.sigma, self.median)
            return distributions.lognormal_from_mean(self.sigma, mean)
        return distributions.fixed(self.mean)


def _zero_repair() -> DistributionConfig:
    return DistributionConfig(dist="fixed", mean="0s")


class FailureModeConfig(_Strict):
    """One failure mode: ``[failures.NAME]``.

    ``unit`` says what the mode is counted per (a component class or ``job``); it
    defaults to NAME when NAME is a component class. ``spares`` says whether a spare
    server can replace the failed unit (default: yes for gpu, host and nic).

    ``impact`` is what a failure does to the job: ``auto`` (the default) derives it
    from the class and the network's redundancy (see :mod:`relplan.impact`); ``fatal``,
    ``degraded`` (runs on slowed by ``slowdown`` until repaired; default from the
    communication model) or ``transient`` (stalls for ``stall``, default the network's
    failover time, then optionally runs at ``soft_slowdown`` for ``soft_duration``;
    a stall as long as the collective timeout is fatal).
    """

    lifetime: DistributionConfig
    repair: DistributionConfig = Field(default_factory=_zero_repair)
    detect: Hours = Field(default=30.0 / 3600.0, ge=0)
    unit: (
        Literal["gpu", "host", "nic", "optic", "link", "leaf", "spine", "core", "rack", "job"]
        | None
    ) = None
    start: Literal["equilibrium", "new"] = "equilibrium"
    spares: bool | None = None
    impact: Literal["auto", "fatal", "degraded", "transient"] = "auto"
    slowdown: float | None = Field(default=None, ge=1)
    stall: Hours | None = Field(default=None, ge=0)
    soft_slowdown: float | None = Field(default=None, ge=1)
    soft_duration: Hours | None = Field(default=None, ge=0)


class ClusterConfig(_Strict):
    """``[cluster]``: the servers and what is in them."""

    servers: int = Field(gt=0)
    gpus_per_server: int = Field(default=8, gt=0)
    nics_per_server: int | None = Field(default=None, gt=0)
    servers_per_rack: int = Field(default=4, gt=0)


BytesPerSecond = Annotated[float, BeforeValidator(parse_bandwidth_bytes_per_s)]
Bytes = Annotated[float, BeforeValidator(parse_size_bytes)]


class FailoverConfig(_Strict):
    """``[network.failover]``: detection and failover timers (shared/reference, Sec. 6).

    BFD declares a link down after ``bfd_multiplier`` missed hellos; ECMP then
    reconverges. LACP's own detection is 3 s (fast rate) or 90 s (slow). A stall as
    long as ``collective_timeout`` (PyTorch NCCL default: 10 min) kills the job.
    """

    bfd_interval: Hours = Field(default=0.3 / 3600.0, gt=0)
    bfd_multiplier: int = Field(default=3, gt=0)
    ecmp_reconvergence: Hours = Field(default=1.0 / 3600.0, ge=0)
    lacp_rate: Literal["fast", "slow"] = "fast"
    collective_timeout: Hours = Field(default=10.0 / 60.0, gt=0)


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
    the speed of one link (one bundle member), stored in bytes per second.

    For the communication model: ``nvlink_bandwidth`` per GPU, the network ``rtt``,
    ``ecmp_efficiency`` (share of the fabric ECMP hashing actually uses) and, when the
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
    nvlink_bandwidth: BytesPerSecond = Field(default=450e9, gt=0)
    rtt: Hours = Field(default=10e-6 / 3600.0, ge=0)
    ecmp_efficiency: float = Field(default=1.0, gt=0, le=1)
    comm_share: Fraction = Field(default=0.3, ge=0, le=1)
    failover: FailoverConfig = Field(default_factory=FailoverConfig)


class FastTierConfig(_Strict):
    """``[job.checkpoint.fast]``: a fast checkpoint tier (host memory or a peer).

    ``interval`` must divide the durable interval. ``survives = "peer"`` (a copy on
    another host survives one failure) or ``"none"`` (lost when its server fails: a
    gpu, host or nic failure then rolls back to the last durable checkpoint).
    """

    interval: Hours = Field(gt=0)
    write: Hours = Field(ge=0)
    survives: Literal["peer", "none"] = "peer"


class CheckpointConfig(_Strict):
    """``[job.checkpoint]``: compute time between (durable) checkpoints and their cost.

    The write is given directly (``write``) or from ``size`` and the storage
    ``bandwidth``; with asynchronous checkpointing only ``blocking_fraction`` of it
    stops training.
    """

    interval: Hours = Field(gt=0)
    write: Hours | None = Field(default=None, ge=0)
    size: Bytes | None = Field(default=None, gt=0)
    bandwidth: BytesPerSecond | None = Field(default=None, gt=0)
    blocking_fraction: Fraction = Field(default=1.0, gt=0, le=1)
    fast: FastTierConfig | None = None

    @model_validator(mode="after")
    def _check_cost(self) -> CheckpointConfig:
        if self.write is not None and (self.size is not None or self.bandwidth is not None):
            raise ValueError("give either 'write' or 'size' and 'bandwidth', not both")
        if (self.size is None) != (self.bandwidth is None):
            raise ValueError("'size' and 'bandwidth' go together")
        return self

    @property
    def blocking_write_hours(self) -> float:
        """Time one durable checkpoint blocks training, hours."""
        if self.size is not None and self.bandwidth is not None:
            write = self.size / self.bandwidth / 3600.0
        else:
            write = self.write or 0.0
        return write * self.blocking_fraction


class ElasticConfig(_Strict):
    """``[job.elastic]``: elastic recovery (drop the failed data-parallel replica)."""

    data_parallel: int = Field(ge=2)
    reconfigure: Hours = Field(default=2.0 / 60.0, ge=0)
    rejoin: Hours = Field(default=5.0 / 60.0, ge=0)


class JobConfig(_Strict):
    """``[job]``: the training run."""

    gpus: int = Field(gt=0)
    work: Hours = Field(gt=0)
    restart: Hours = Field(default=0.0, ge=0)
    spares: int = Field(default=0, ge=0)
    checkpoint: CheckpointConfig
    recovery: Literal["checkpoint-restart", "elastic", "failure-free"] = "checkpoint-restart"
    elastic: ElasticConfig | None = None


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
    """``[workload]``: what a training step computes and exchanges (the baseline's input)."""

    parameters: float = Field(gt=0)
    expert_parameters: float = Field(default=0.0, ge=0)
    tokens_per_step: float = Field(gt=0)
    hidden_size: int = Field(gt=0)
    layers: int = Field(gt=0)
    micro_batches: int = Field(default=1, gt=0)
    step_compute: Hours = Field(gt=0)
    top_k: int = Field(default=2, gt=0)
    moe_layers: int | None = Field(default=None, ge=0)
    bytes_per_gradient: float = Field(default=4.0, gt=0)
    bytes_per_activation: float = Field(default=2.0, gt=0)
    bytes_per_token_expert: Bytes | None = Field(default=None, gt=0)
    comm_efficiency: Fraction = Field(default=0.7, gt=0, le=1)
    burst_factor: float = Field(default=4.0, ge=1)
    headroom: Fraction = Field(default=0.25, ge=0)
    parallelism: ParallelismConfig = Field(default_factory=ParallelismConfig)
    overlap: OverlapConfig = Field(default_factory=OverlapConfig)


class BudgetConfig(_Strict):
    """``[budget]``: what hardware costs and what a GPU-hour is worth.

    ``prices`` are per unit of a component class (any currency, the same for all);
    ``amortization`` spreads a unit's price over its service life, so a job is charged
    for the hours it holds the hardware; ``gpu_hour_value`` prices a lost GPU-hour.
    """

    gpu_hour_value: float = Field(ge=0)
    amortization: Hours = Field(default=4 * HOURS_PER_YEAR, gt=0)
    prices: dict[str, float] = Field(default_factory=dict)

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
    """A whole config file."""

    name: str | None = None
    description: str | None = None
    cluster: ClusterConfig
    network: NetworkConfig = Field(default_factory=NetworkConfig)
    failures: dict[str, FailureModeConfig] = Field(default_factory=dict)
    job: JobConfig
    workload: WorkloadConfig | None = None
    budget: BudgetConfig | None = None
    simulation: SimulationConfig = Field(default_factory=SimulationConfig)

    def failure_unit(self, mode_name: str) -> str:
        """The unit a failure mode is counted per (its ``unit``, else its name)."""
        unit = self.failures[mode_name].unit
        return unit if unit is not None else mode_name

    def uses_spares(self, mode_name: str) -> bool:
        """Whether a spare server can stand in for a unit failed by this mode."""
        mode = self.failures[mode_name]
        if mode.spares is not None:
            return mode.spares
        return self.failure_unit(mode_name) in SERVER_CLASSES


# -- loading -------------------------------------------------------------------------------


def _describe(error: dict[str, Any]) -> tuple[str, str]:
    key = ".".join(str(part) for part in error["loc"]) or "(config)"
    kind = error["type"]
    message = error["msg"]
    if kind == "extra_forbidden":
        message = "unknown key"
    elif kind == "missing":
        message = "is required but missing"
    elif message.startswith("Value error, "):
        message = message[len("Value error, ") :]
    elif kind in ("greater_than", "greater_than_equal", "less_than"):
        message = f"{message[0].lower()}{message[1:]} (got {error.get('input')!r})"
    return key, message


def _parse_override_value(text: str) -> Any:
    """A ``--set`` value: a TOML value when it parses as one, else the plain string."""
    try:
        return tomllib.loads(f"value = {text}")["value"]
    except tomllib.TOMLDecodeError:
        return text


def apply_overrides(raw: dict[str, Any], overrides: list[str]) -> dict[str, Any]:
    """Apply ``KEY=VALUE`` overrides with dotted keys to a raw config mapping.

    Parameters
    ----------
    raw : dict
        The parsed TOML document (not modified).
    overrides : list of str
        Items such as ``"job.checkpoint.interval=30min"`` or ``"cluster.servers=256"``.

    Returns
    -------
    dict
        A new mapping with the overrides applied.

    Raises
    ------
    ConfigError
        If an item has no ``=`` or its key runs through a value that is not a table.
    """
    document = copy.deepcopy(raw)
    for item in overrides:
        key, sep, text = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ConfigError("--set", f"{item!r} is not KEY=VALUE (for example job.work=30d)")
        parts = key.split(".")
        table = document
        for depth, part in enumerate(parts[:-1]):
            child = table.setdefault(part, {})
            if not isinstance(child, dict):
                raise ConfigError(".".join(parts[: depth + 1]), "is a value, not a table")
            table = child
        table[parts[-1]] = _parse_override_value(text.strip())
    return document


def parse_config(raw: dict[str, Any], overrides: list[str] | None = None) -> RelplanConfig:
    """Validate a raw config mapping, after applying ``--set`` overrides.

    Raises
    ------
    ConfigError
        Naming the first wrong key; the message lists any others.
    """
    document = apply_overrides(raw, list(overrides or []))
    try:
        config = RelplanConfig.model_validate(document)
    except ValidationError as error:
        problems = [_describe(e) for e in error.errors()]
        key, message = problems[0]
        for other_key, other_message in problems[1:]:
            message += f"; {other_key}: {other_message}"
        raise ConfigError(key, message) from None
    _check_consistency(config)
    return config


def load_config(path: str | Path, overrides: list[str] | None = None) -> RelplanConfig:
    """Read, override and validate a TOML config file.

    Parameters
    ----------
    path : str or Path
        The TOML file.
    overrides : list of str, optional
        ``KEY=VALUE`` items with dotted keys, applied before validation.

    Returns
    -------
    RelplanConfig
        The validated, immutable config.

    Raises
    ------
    ConfigError
        If the file is missing or malformed, or any key is unknown or wrong.
    """
    return parse_config(read_toml(path, "CONFIG"), overrides)


def read_toml(path: str | Path, key: str) -> dict[str, Any]:
    """Read a TOML file; a missing, unreadable or malformed file is a :class:`ConfigError`.

    Parameters
    ----------
    path : str or Path
        The file.
    key : str
        What the error names (the argument, such as ``CONFIG``, or a key).

    Returns
    -------
    dict
        The parsed document.
    """
    file = Path(path)
    if not file.is_file():
        raise ConfigError(key, f"no such file: {file}")
    try:
        return tomllib.loads(file.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(key, f"{file} is not valid TOML: {error}") from None
    except UnicodeDecodeError:
        raise ConfigError(key, f"{file} is not UTF-8 text") from None


def _check_consistency(config: RelplanConfig) -> None:
    cluster, job = config.cluster, config.job
    total_gpus = cluster.servers * cluster.gpus_per_server
    if job.gpus > total_gpus:
        raise ConfigError(
            "job.gpus",
            f"the job needs {job.gpus} GPUs but the cluster has {total_gpus} "
            f"({cluster.servers} servers x {cluster.gpus_per_server})",
        )
    job_servers = -(-job.gpus // cluster.gpus_per_server)
    if job_servers + job.spares > cluster.servers:
        raise ConfigError(
            "job.spares",
            f"{job.spares} spare servers do not fit: the job uses {job_servers} of the "
            f"cluster's {cluster.servers} servers",
        )
    for name, mode in config.failures.items():
        if mode.unit is None and name not in COMPONENT_CLASSES:
            raise ConfigError(
                f"failures.{name}.unit",
                f"'{name}' is not a component class ({', '.join(COMPONENT_CLASSES)}), so it "
                f"needs 'unit' to say what it is counted per ({', '.join(FAILURE_UNITS)})",
            )
    _check_job(config)
    _check_network(config)


def _check_job(config: RelplanConfig) -> None:
    job, checkpoint = config.job, config.job.checkpoint
    if checkpoint.fast is not None:
        ratio = checkpoint.interval / checkpoint.fast.interval
        if ratio < 1.0 - 1e-9 or abs(ratio - round(ratio)) > 1e-6 * ratio:
            raise ConfigError(
                "job.checkpoint.fast.interval",
                f"must divide job.checkpoint.interval ({checkpoint.interval:g} h is "
                f"{ratio:.4g} fast intervals)",
            )
    if job.recovery == "elastic":
        if job.elastic is None:
            raise ConfigError(
                "job.elastic", 'recovery = "elastic" needs [job.elastic] with data_parallel'
            )
        if (
            config.workload is not None
            and config.workload.parallelism.data is not None
            and (config.workload.parallelism.data != job.elastic.data_parallel)
        ):
            raise ConfigError("job.elastic.data_parallel", "differs from workload.parallelism.data")
    workload = config.workload
    if workload is not None:
        degrees = workload.parallelism
        model_parallel = degrees.tensor * degrees.pipeline
        data = degrees.data if degrees.data is not None else job.gpus // model_parallel
        if data * model_parallel != job.gpus:
            raise ConfigError(
                "workload.parallelism",
                f"data x tensor x pipeline = {data} x {degrees.tensor} x {degrees.pipeline} "
                f"= {data * model_parallel} GPUs, but the job has {job.gpus}",
            )
        if (data * degrees.tensor) % degrees.expert:
            raise ConfigError(
                "workload.parallelism.expert",
                f"must divide data x tensor = {data * degrees.tensor}",
            )


_NOT_FOR_TOPOLOGY: dict[str, dict[str, str]] = {
    "spine-leaf": {"servers_per_unit": "it sizes rail-optimized units: use servers_per_leaf"},
    "rail-optimized": {
        "servers_per_leaf": "a rail leaf serves one scalable unit: use servers_per_unit"
    },
    "fat-tree": {
        key: "a k-ary fat-tree derives it from switch_ports (k)"
        for key in (
            "servers_per_leaf",
            "servers_per_unit",
            "uplinks_per_leaf",
            "spines",
            "spine_ports",
        )
    },
}


def _check_network(config: RelplanConfig) -> None:
    """Check the ``[network]`` keys against each other and against the topology."""
    network = config.network
    for name in ("server_lacp", "fabric_lacp"):
        lacp = getattr(network, name)
        if lacp.min_links > lacp.members:
            raise ConfigError(
                f"network.{name}.min_links",
                f"{lacp.min_links} is more than the bundle's {lacp.members} members",
            )
    for key, reason in _NOT_FOR_TOPOLOGY[network.topology].items():
        if getattr(network, key) is not None:
            raise ConfigError(
                f"network.{key}", f"does not apply to topology '{network.topology}': {reason}"
            )
    if network.topology == "fat-tree":
        k = network.switch_ports
        if k % 2:
            raise ConfigError(
                "network.switch_ports", f"a k-ary fat-tree needs an even port count k (got {k})"
            )
        if network.dual_tor and k % 4:
            raise ConfigError(
                "network.dual_tor",
                f"pairs the k/2 edge switches of a pod, so k/2 must be even: switch_ports "
                f"must be a multiple of 4 (got {k})",
            )
    members = network.fabric_lacp.members
    if network.uplinks_per_leaf is not None and network.uplinks_per_leaf % members:
        raise ConfigError(
            "network.uplinks_per_leaf",
            f"{network.uplinks_per_leaf} links do not make whole bundles of "
            f"fabric_lacp.members = {members}",
        )
    if network.ecmp_width is not None:
        # The bound depends on derived defaults, which the topology works out
        # (imported here: topology imports this module).
        from relplan.topology import build_inventory

        bundles = build_inventory(config).uplink_bundles_per_leaf
        if network.ecmp_width > bundles:
            raise ConfigError(
                "network.ecmp_width",
                f"{network.ecmp_width} equal-cost uplinks, but a leaf has only {bundles} "
                f"uplink bundles",
            )
