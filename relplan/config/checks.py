"""Checks between keys of a config that the schema of each key cannot make alone.

The job must fit the cluster, the fast tier must divide the durable interval, the
parallelism must multiply to the job's GPUs, a key must apply to the chosen topology. Each
failure is a :class:`~relplan.errors.ConfigError` naming the key.

Some settings are legal but almost certainly a mistake (a checkpoint write longer than its
interval, failures faster than a checkpoint cycle, switches short of ports):
:func:`config_warnings` names each as a :class:`~relplan.errors.RelplanWarning`
(:mod:`relplan.runs.preflight` gives them with :func:`warnings.warn`, and the command
line prints each as one ``warning:`` line on stderr before it works).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from relplan.config.derived import (
    ceil_div,
    data_parallel_degree,
    host_memory_needed,
    job_servers,
    restart_parts,
    uplink_bundles_per_leaf,
)
from relplan.errors import ConfigError, RelplanWarning
from relplan.units import SECONDS_PER_HOUR, format_bytes, format_duration
from relplan.vocab import (
    COMPONENT_CLASSES,
    DRAINABLE_CLASSES,
    FAILURE_UNITS,
    JOB_UNIT,
    PREEMPTION_MODE,
    RUNNING_ONLY_IMPACTS,
)

if TYPE_CHECKING:  # the schema runs these checks when it validates, so they take its type only
    from relplan.config.schema import RelplanConfig

MTTI_CYCLES = 1.0
"""Warn when the job's mean time to interruption is shorter than this many checkpoint
cycles (interval + write + restart): most of the time then goes to rework and restarts
(Daly's expected goodput is below about a half)."""


def config_warnings(
    config: RelplanConfig, job_mtti_hours: float, port_problems: Sequence[str] = (),
    step_hours: float | None = None,
) -> list[RelplanWarning]:
    """The legal but suspicious settings of a valid config, one warning each.

    Parameters
    ----------
    config : RelplanConfig
        A valid config.
    job_mtti_hours : float
        The job's mean time to interruption (``SimulationModel.job_mtti_hours``), hours.
    port_problems : sequence of str
        Switch tiers short of ports (:func:`relplan.cluster.topology.check_port_budget`).
    step_hours : float, optional
        The healthy step (``SimulationModel.step_hours``), hours; ``job.step`` if not given.

    Returns
    -------
    list of RelplanWarning
        Empty for a sound config. A checkpoint write longer than its interval; a job
        MTTI shorter than :data:`MTTI_CYCLES` checkpoint cycles; a tier short of ports;
        keys that do nothing for their mode (``evict`` without ``impact = "slow"``,
        ``detect_probability`` without ``"corruption"``); idle failures with modes that
        do not fail idle; maintenance windows that stop the job at once more often than
        it can reach a checkpoint; fewer retained checkpoints than a corruption's
        detection delay spans (every corruption found goes back to the start); an
        asynchronous persist longer than the interval; a calendar window shorter than
        one interval; an optimiser grid (``relplan optimize``) reaching intervals
        shorter than the persist; a preemption notice too short for a just-in-time save;
        live migration with no spare.

    Examples
    --------
    >>> from relplan.config.loading import load_config
    >>> config = load_config("configs/small.toml", ["job.checkpoint.write=2h"])
    >>> [w.key for w in config_warnings(config, job_mtti_hours=130.0)]
    ['job.checkpoint.write']
    """
    warnings = [RelplanWarning("port budget", problem) for problem in port_problems]
    checkpoint = config.job.checkpoint
    write = checkpoint.blocking_write_hours
    if write > checkpoint.interval:
        share = checkpoint.interval / (checkpoint.interval + write)
        warnings.append(RelplanWarning(
            "job.checkpoint.write",
            f"a checkpoint blocks training for {format_duration(write)}, longer than "
            f"job.checkpoint.interval ({format_duration(checkpoint.interval)}): at most "
            f"{share:.0%} of the time trains",
        ))  # fmt: skip
    fast = checkpoint.fast
    if fast is not None and fast.write_hours > fast.interval:
        warnings.append(RelplanWarning(
            "job.checkpoint.fast.write",
            f"a fast checkpoint takes {format_duration(fast.write_hours)}, longer than "
            f"job.checkpoint.fast.interval ({format_duration(fast.interval)})",
        ))  # fmt: skip
    for name, mode in config.failures.items():
        if mode.evict != "now" and mode.impact != "slow":
            warnings.append(RelplanWarning(
                f"failures.{name}.evict", 'only a fail-slow mode (impact = "slow") is evicted',
            ))  # fmt: skip
        for key, given in (("episode", mode.episode is not None),
                           ("mitigation", mode.mitigation != "evict"),
                           ("reroute", mode.reroute is not None)):
            if given and mode.impact != "slow":
                warnings.append(RelplanWarning(
                    f"failures.{name}.{key}", 'only a fail-slow mode (impact = "slow") has it',
                ))  # fmt: skip
        if mode.drain not in (None, "never") and (
            mode.impact not in ("auto", "degraded")
            or config.failure_unit(name) not in DRAINABLE_CLASSES
        ):
            warnings.append(RelplanWarning(
                f"failures.{name}.drain",
                f"only a server's own {', '.join(DRAINABLE_CLASSES)} running degraded (a "
                "lost dual-ToR leg or LACP member, a NIC under PXN) is drained",
            ))  # fmt: skip
        if mode.detect_probability < 1.0 and mode.impact != "corruption":
            warnings.append(RelplanWarning(
                f"failures.{name}.detect_probability",
                'only a corruption (impact = "corruption") may go unfound',
            ))  # fmt: skip
        if config.job.idle_failures:
            idle = _idle_failure_problem(config, name)
            if idle:
                warnings.append(RelplanWarning(
                    "job.idle_failures",
                    f"failures.{name} does not fail while the job is down: {idle}",
                ))  # fmt: skip
    if config.job.drain != "never" and not any(
        config.failure_unit(name) in DRAINABLE_CLASSES for name in config.failures
    ):
        warnings.append(RelplanWarning(
            "job.drain",
            f"no failure mode is a server's own {', '.join(DRAINABLE_CLASSES)}: nothing "
            "leaves a server running degraded, so nothing is drained",
        ))  # fmt: skip
    preemption = config.preemption
    if preemption is not None and preemption.save_on_notice > 0.0:
        step = step_hours if step_hours is not None else config.job.step or 0.0
        needed = step + write
        if needed > preemption.notice:
            warnings.append(RelplanWarning(
                "preemption.notice",
                f"{format_duration(preemption.notice)} of notice is shorter than a step and "
                f"the blocking write ({format_duration(needed)}): the just-in-time save can "
                "never complete, so every preemption is a crash",
            ))  # fmt: skip
    if checkpoint.hang > 0.0 and checkpoint.save_timeout < checkpoint.write_hours:
        warnings.append(RelplanWarning(
            "job.checkpoint.save_timeout",
            f"{format_duration(checkpoint.save_timeout)} is shorter than a save "
            f"({format_duration(checkpoint.write_hours)}): a save that does not hang would "
            "time out too",
        ))  # fmt: skip
    for key, tail in _drawn_write_tails(config):
        if tail >= DRAWN_WRITE_TAIL_WARNING:
            warnings.append(RelplanWarning(
                "job.checkpoint.save_timeout",
                f"{tail:.0%} of the saves drawn from {key} take longer than "
                f"{format_duration(checkpoint.save_timeout)}: each of them hangs",
            ))  # fmt: skip
    warnings += _predictor_warnings(config)
    if config.job.recovery == "live-migration" and config.job.spares == 0:
        warnings.append(RelplanWarning(
            "job.spares",
            'recovery = "live-migration" moves a failed server to a hot spare, and '
            "job.spares = 0: every failure falls back to a restart from the last "
            "checkpoint",
        ))  # fmt: skip
    warnings += _checkpoint_warnings(config, job_mtti_hours)
    maintenance = config.maintenance
    cycle = checkpoint.interval + write + restart_parts(config).durable_hours
    if maintenance is not None and not maintenance.checkpoint_first and (
        maintenance.every < maintenance.duration + cycle
    ):
        warnings.append(RelplanWarning(
            "maintenance.every",
            f"{format_duration(maintenance.duration)} windows every "
            f"{format_duration(maintenance.every)} that stop the job at once leave it less "
            f"than a checkpoint cycle ({format_duration(cycle)}) between them: it may never "
            "get past a checkpoint; set checkpoint_first = true",
        ))  # fmt: skip
    parts = "interval + write + restart"
    if not config.job.failures_during_recovery:  # no failure cuts a restart short
        cycle = checkpoint.interval + write
        parts = "interval + write"
    if job_mtti_hours < MTTI_CYCLES * cycle:
        warnings.append(RelplanWarning(
            "failures",
            f"the job's mean time to interruption ({format_duration(job_mtti_hours)}) is "
            f"shorter than a checkpoint cycle ({parts} = "
            f"{format_duration(MTTI_CYCLES * cycle)}): most of the time will go to rework "
            "and restarts, so goodput collapses; check the failure rates, or shorten "
            "job.checkpoint.interval",
        ))  # fmt: skip
    return warnings


def _predictor_warnings(config: RelplanConfig) -> list[RelplanWarning]:
    """A predictor whose false warnings outnumber the failures it catches (precision
    below 50%), or whose warning comes too late to checkpoint."""
    predictor = config.health.predictor if config.health is not None else None
    if predictor is None:
        return []
    warnings = []
    if predictor.precision < 0.5:
        warnings.append(RelplanWarning(
            "health.predictor.precision",
            f"at {predictor.precision:.0%} precision its false warnings "
            f"({(1 - predictor.precision) / predictor.precision:.2g} per failure caught) "
            "outnumber the failures it catches, each costing its action",
        ))  # fmt: skip
    write = config.job.checkpoint.blocking_write_hours
    if predictor.action == "checkpoint" and predictor.lead < write:
        warnings.append(RelplanWarning(
            "health.predictor.lead",
            f"{format_duration(predictor.lead)} of warning is shorter than the blocking "
            f"write ({format_duration(write)}): no checkpoint fits, so it changes nothing",
        ))  # fmt: skip
    return warnings


def _idle_failure_problem(config: RelplanConfig, name: str) -> str:
    """Why failure mode ``name`` does not fail while the job is down (``job.idle_failures``),
    or ``""`` if it does."""
    mode = config.failures[name]
    if mode.impact in RUNNING_ONLY_IMPACTS:
        return (f'a {"fail-slow unit" if mode.impact == "slow" else "corruption"} '
                "shows only in a running job")
    if config.failure_unit(name) == JOB_UNIT:
        return f'a mode counted per job (unit = "{JOB_UNIT}") needs the job running'
    if not mode.is_poisson:
        return "only modes with exponential lifetimes and no unit history do"
    return ""


OPTIMIZE_GRID_SPAN = 6.0
"""How far below the optimal interval ``relplan optimize`` searches by default (its
grid starts at the optimum / span; ``span`` of
:func:`relplan.analysis.optimize.optimize_interval`)."""


def _checkpoint_warnings(config: RelplanConfig, job_mtti_hours: float) -> list[RelplanWarning]:
    """Checkpoint settings that defeat themselves: retention shorter than a corruption's
    detection, a persist longer than the interval, a window shorter than one interval,
    an optimiser grid below the persist."""
    warnings = []
    checkpoint = config.job.checkpoint
    interval = checkpoint.interval
    detects = [mode.detect_hours for mode in config.failures.values()
               if mode.impact == "corruption"]  # fmt: skip
    if detects and checkpoint.keep is not None and checkpoint.archive_every is None:
        warnings += _retention_warnings(config, checkpoint.keep, max(detects))
    persist = checkpoint.persist_hours
    if persist > interval:
        warnings.append(RelplanWarning(
            "job.checkpoint.interval",
            f"an asynchronous checkpoint persists for {format_duration(persist)}, longer "
            f"than the interval ({format_duration(interval)}): a failure nearly always "
            "finds the newest checkpoint not yet durable",
        ))  # fmt: skip
    horizon = config.job.horizon
    if horizon is not None and horizon < interval:
        warnings.append(RelplanWarning(
            "job.horizon",
            f"the calendar window ({format_duration(horizon)}) is shorter than one "
            f"checkpoint interval ({format_duration(interval)}): no checkpoint is written",
        ))  # fmt: skip
    write = checkpoint.blocking_write_hours
    if persist > 0.0 and write > 0.0 and math.isfinite(job_mtti_hours):
        young = math.sqrt(2.0 * write * job_mtti_hours)
        if young / OPTIMIZE_GRID_SPAN < persist:
            warnings.append(RelplanWarning(
                "job.checkpoint.blocking_fraction",
                f"relplan optimize tries intervals down to about "
                f"{format_duration(young / OPTIMIZE_GRID_SPAN)}, shorter than the "
                f"asynchronous persist ({format_duration(persist)}): at those intervals "
                "the newest checkpoint is rarely durable when a failure strikes",
            ))  # fmt: skip
    return warnings


def durable_spacing_hours(config: RelplanConfig) -> float:
    """Running time between two durable checkpoints at full speed, hours: the interval
    and the blocking writes in it (the fast tier's too).

    A corruption's ``detect`` runs on the same clock (hours of the job's hardware in use),
    so this is how far apart the retained checkpoints lie against it; slowed running,
    stalls and restarts only spread them further.

    Examples
    --------
    >>> from relplan.config.loading import load_config
    >>> config = load_config("configs/small.toml")  # every hour, a 1-min write
    >>> round(durable_spacing_hours(config) * 60)
    61
    """
    checkpoint = config.job.checkpoint
    spacing = checkpoint.interval + checkpoint.blocking_write_hours
    fast = checkpoint.fast
    if fast is not None:
        spacing += (max(1, round(checkpoint.interval / fast.interval)) - 1) * fast.write_hours
    return spacing


def _retention_warnings(config: RelplanConfig, keep: int,
                        detect: float) -> list[RelplanWarning]:  # fmt: skip
    """Retention that loses the checkpoint a corruption found ``detect`` hours of running
    later must roll back to.

    With ``keep`` durable checkpoints a ``spacing`` apart, the oldest retained one is
    ``(keep - 1) x spacing`` of running before the newest. A corruption found ``detect``
    later needs the last checkpoint before it: retained for sure if ``(keep - 1) x
    spacing >= detect``; else lost (back to the start) for a share ``detect / spacing -
    (keep - 1)`` of corruptions (where the corruption falls in its segment), and for all
    of them once ``keep x spacing <= detect``.
    """
    spacing = durable_spacing_hours(config)
    reach = (keep - 1) * spacing
    if reach >= detect:
        return []
    needed = math.ceil(detect / spacing) + 1
    while (needed - 1) * spacing < detect:  # rounding of the division
        needed += 1
    share = min(1.0, detect / spacing - (keep - 1))
    lost = ("every corruption found rolls the job back to the start" if share >= 1.0
            else f"about {share:.0%} of the corruptions found roll the job back to the start")
    return [RelplanWarning(
        "job.checkpoint.keep",
        f"{keep} durable checkpoints, one every {format_duration(spacing)} of running "
        f"(interval and writes), reach back only {format_duration(reach)}, less than a "
        f"corruption's detection ({format_duration(detect)}): {lost}; keep {needed} or "
        "more, or set job.checkpoint.archive_every",
    )]  # fmt: skip


def check_consistency(config: RelplanConfig) -> None:
    """Check the keys of a schema-valid config against each other.

    Raises
    ------
    ConfigError
        Naming the first key at fault and what is wrong with it.
    """
    cluster, job = config.cluster, config.job
    total_gpus = cluster.servers * cluster.gpus_per_server
    if job.gpus > total_gpus:
        raise ConfigError(
            "job.gpus",
            f"the job needs {job.gpus} GPUs but the cluster has {total_gpus} "
            f"({cluster.servers} servers x {cluster.gpus_per_server})",
        )
    servers = job_servers(config)
    if servers + job.spares > cluster.servers and job.gpus % cluster.gpus_per_server:
        raise ConfigError(
            "job.gpus",
            f"{job.gpus} GPUs do not fill whole {cluster.gpus_per_server}-GPU servers: the job "
            f"takes {servers} (the last one partly), and with job.spares = {job.spares} that "
            f"is {servers + job.spares} of the cluster's {cluster.servers} servers",
        )
    if servers + job.spares > cluster.servers:
        raise ConfigError(
            "job.spares",
            f"{job.spares} spare servers do not fit: the job uses {servers} of the "
            f"cluster's {cluster.servers} servers",
        )
    _check_spare_domains(config)
    needed = host_memory_needed(config)
    host = cluster.host_memory
    if host is not None and sum(needed.values()) > host:
        parts = ", ".join(f"{tier} {format_bytes(size)}" for tier, size in needed.items())
        raise ConfigError(
            "cluster.host_memory",
            f"the checkpoint tiers need {format_bytes(sum(needed.values()))} of host memory "
            f"a server ({parts}: job.checkpoint.size over the job's servers) but a server "
            f"has {format_bytes(host)}",
        )
    if config.preemption is not None and PREEMPTION_MODE in config.failures:
        raise ConfigError(
            f"failures.{PREEMPTION_MODE}",
            f"'{PREEMPTION_MODE}' is the mode [preemption] adds: name this one otherwise",
        )
    if config.preemption is not None and config.preemption.save_on_notice > 0.0 and (
        config.job.step is None and config.workload is None
    ):
        raise ConfigError(
            "preemption.save_on_notice",
            "a just-in-time save needs the step it finishes first: give job.step (or a "
            "[workload] to derive it)",
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
    _check_drawn_writes(config)
    _check_health(config)


def _check_health(config: RelplanConfig) -> None:
    """Refuse detectors, flaps and probes a mode cannot take: a corruption's detector is
    its ``detect_probability``; flaps and the failures a probe finds are shares of a
    Poisson process (an exponential lifetime, no unit history); a probe covers modes of
    ``[failures]``."""
    for name, mode in config.failures.items():
        if mode.recall < 1.0 and mode.impact == "corruption":
            raise ConfigError(
                f"failures.{name}.recall",
                "a corruption's detector is its detect_probability (the share ever found)",
            )
        if mode.flap is not None and not mode.is_poisson:
            raise ConfigError(
                f"failures.{name}.flap",
                "flaps are a Poisson process: the mode needs an exponential lifetime (the "
                "flap rate) and no lemons, repair_success or retire_after",
            )
    predictor = config.health.predictor if config.health is not None else None
    for name in predictor.modes if predictor is not None else ():
        mode = config.failures.get(name)
        if mode is None or not mode.is_poisson:
            raise ConfigError(
                "health.predictor.modes",
                f"'{name}': a predictor watches modes of [failures] with an exponential "
                "lifetime and no lemons, repair_success or retire_after (the failures it "
                "warns of are a share of a Poisson process)",
            )
    probe = config.health.probe if config.health is not None else None
    for name in probe.coverage if probe is not None else ():
        if name not in config.failures:
            raise ConfigError(
                f"health.probe.coverage.{name}",
                f"no failure mode '{name}' in [failures] ({', '.join(config.failures)})",
            )
        if not config.failures[name].is_poisson:
            raise ConfigError(
                f"health.probe.coverage.{name}",
                "the failures a probe finds are a share of a Poisson process: the mode "
                "needs an exponential lifetime and no lemons, repair_success or "
                "retire_after",
            )


DRAWN_WRITE_TAIL_WARNING = 0.05
"""The share of drawn writes over ``job.checkpoint.save_timeout`` that ``validate`` warns of
(each one hangs)."""


def _drawn_write_tails(config: RelplanConfig) -> list[tuple[str, float]]:
    """The drawn checkpoint writes of a config, by key, each with the chance that it takes
    longer than ``job.checkpoint.save_timeout``."""
    checkpoint = config.job.checkpoint
    timeout = checkpoint.save_timeout
    tails = []
    if checkpoint.write_drawn:
        tails.append(("job.checkpoint.write", checkpoint.write_tail(timeout)))
    if checkpoint.fast is not None and checkpoint.fast.write_drawn:
        tails.append(("job.checkpoint.fast.write", checkpoint.fast.write_tail(timeout)))
    return tails


def _check_drawn_writes(config: RelplanConfig) -> None:
    """Refuse a save timeout shorter than the median of a drawn write: most saves would
    hang."""
    timeout = config.job.checkpoint.save_timeout
    for key, tail in _drawn_write_tails(config):
        if tail > 0.5:
            raise ConfigError(
                "job.checkpoint.save_timeout",
                f"{format_duration(timeout)} is shorter than the median of {key}: most saves "
                "would hang (a drawn write longer than the timeout hangs)",
            )


def _check_spare_domains(config: RelplanConfig) -> None:
    """Whole spare domains must fit beside the job's domains and its loose spares.

    The job's servers fill scale-up domains in order, so it holds ``ceil(servers /
    servers_per_domain)`` whole domains; spare domains are whole domains beyond them, and
    loose spares take the rest of the job's last domain first, then other servers.
    """
    cluster, job = config.cluster, config.job
    if job.spare_domains == 0:
        return
    size = cluster.servers_per_domain
    servers = job_servers(config)
    job_domains = ceil_div(servers, size)
    loose_outside = max(0, job.spares - (job_domains * size - servers))
    needed = (job_domains + job.spare_domains) * size + loose_outside
    if needed > cluster.servers:
        raise ConfigError(
            "job.spare_domains",
            f"{job.spare_domains} spare domains of {size} servers do not fit: the job's "
            f"{servers} servers fill {job_domains} domains ({job_domains * size} servers), "
            f"and with job.spares = {job.spares} that is {needed} of the cluster's "
            f"{cluster.servers} servers",
        )


MAX_CHECKPOINTS = 1e12
"""The most checkpoints a job may write: a shorter interval is a mistake (and its counts
would overflow the engine's integers)."""


def _check_job(config: RelplanConfig) -> None:
    job, checkpoint = config.job, config.job.checkpoint
    _check_work(config)
    if config.repair is not None and (job.idle_failures or job.drain != "never" or any(
        mode.drain not in (None, "never") for mode in config.failures.values()
    )):
        raise ConfigError("repair.crews", "repair crews with job.idle_failures or drains "
                                          "are not modelled yet: remove one of them")  # fmt: skip
    if job.idle_failures and not job.failures_during_recovery:
        raise ConfigError(
            "job.idle_failures",
            "contradicts job.failures_during_recovery = false (no failure strikes while "
            "the job is down): set one of them",
        )
    maintenance = config.maintenance
    for key, hours in (("maintenance.every", None if maintenance is None else maintenance.every),
                       ("maintenance.duration",
                        None if maintenance is None or maintenance.duration == 0.0
                        else maintenance.duration)):  # fmt: skip
        if hours is not None and hours < 1.0 / SECONDS_PER_HOUR:
            raise ConfigError(
                key, f"{hours * SECONDS_PER_HOUR:.3g} s is shorter than a second (at least 1 s)"
            )
    if maintenance is not None and maintenance.duration >= maintenance.every:
        raise ConfigError(
            "maintenance.duration",
            f"{format_duration(maintenance.duration)} windows every "
            f"{format_duration(maintenance.every)} leave no time to train",
        )
    intervals = [("job.checkpoint.interval", checkpoint.interval)]
    if checkpoint.fast is not None:
        intervals.append(("job.checkpoint.fast.interval", checkpoint.fast.interval))
    work = job.work_bound_hours
    if job.steps is not None and job.step is not None:
        work = job.steps * job.step
    for key, interval in intervals:
        if work / interval > MAX_CHECKPOINTS:
            raise ConfigError(
                key,
                f"{interval:.3g} h is too short for {work:.3g} h of work: "
                f"{work / interval:.3g} checkpoints (at most {MAX_CHECKPOINTS:.0e})",
            )
    if not isinstance(job.restart, float | int) and job.restart.load == "auto" and (
        checkpoint.size is None
        or (checkpoint.read_bandwidth is None and checkpoint.bandwidth is None)
    ):
        raise ConfigError(
            "job.restart.load",
            '"auto" reads the checkpoint back: give job.checkpoint.size and '
            "job.checkpoint.read_bandwidth (or bandwidth), or a load duration",
        )
    if job.recovery == "in-process" and job.step is None and config.workload is None:
        raise ConfigError(
            "job.step",
            'recovery = "in-process" redoes the interrupted step: give job.step '
            "(or a [workload] to derive it)",
        )
    if checkpoint.fast is not None:
        ratio = checkpoint.interval / checkpoint.fast.interval
        if ratio < 1.0 - 1e-9 or abs(ratio - round(ratio)) > 1e-6 * ratio:
            raise ConfigError(
                "job.checkpoint.fast.interval",
                f"must divide job.checkpoint.interval ({checkpoint.interval:g} h is "
                f"{ratio:.4g} fast intervals)",
            )
    drop = job.replica_drop
    if job.recovery == "replica-drop" and (drop is None or drop.replicas is None) and (
        config.workload is None
    ):
        raise ConfigError(
            "job.replica_drop.replicas",
            'recovery = "replica-drop" needs the replica groups: give '
            "job.replica_drop.replicas (or a [workload] with its data-parallel degree)",
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
        data = data_parallel_degree(config)
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


WORK_KEYS = ("work", "steps", "tokens", "horizon")
"""The ``[job]`` keys of which a config gives exactly one: how much the run trains."""


def _check_work(config: RelplanConfig) -> None:
    """Exactly one of ``job.work``, ``job.steps``, ``job.tokens`` and ``job.horizon``;
    steps need a step time and tokens a ``[workload]``; the step compute comes from
    exactly one of ``workload.step_compute`` and ``workload.mfu`` (with
    ``cluster.gpu_peak_flops``)."""
    job, workload = config.job, config.workload
    given = [key for key in WORK_KEYS if getattr(job, key) is not None]
    if not given:
        raise ConfigError(
            "job.work",
            "is required but missing: give one of job.work (hours at this design's healthy "
            "speed), job.steps, job.tokens or job.horizon (a calendar window)",
        )
    if len(given) > 1:
        keys = " and ".join(f"job.{key}" for key in given)
        raise ConfigError(
            f"job.{given[1]}",
            f"give exactly one of job.work, job.steps, job.tokens and job.horizon, not {keys}",
        )
    if job.tokens is not None and workload is None:
        raise ConfigError(
            "job.tokens", "needs a [workload] (its tokens_per_step turns tokens into steps)"
        )
    if job.steps is not None and workload is None and job.step is None:
        raise ConfigError(
            "job.steps",
            "needs a step time: a [workload] (the communication model's step) or job.step",
        )
    if workload is None:
        return
    if workload.mfu is not None and workload.step_compute is not None:
        raise ConfigError(
            "workload.mfu",
            "give either workload.step_compute or workload.mfu (with "
            "cluster.gpu_peak_flops), not both",
        )
    if workload.mfu is None and workload.step_compute is None:
        raise ConfigError(
            "workload.step_compute",
            "is required but missing (or give workload.mfu and cluster.gpu_peak_flops)",
        )
    if workload.mfu is not None and config.cluster.gpu_peak_flops is None:
        raise ConfigError(
            "workload.mfu",
            "needs cluster.gpu_peak_flops (one GPU's dense peak, FLOP/s, e.g. 989e12 for "
            "an H100 at BF16)",
        )
    if workload.experts is not None and workload.expert_parameters == 0:
        raise ConfigError("workload.experts", "needs workload.expert_parameters > 0")


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
        bundles = uplink_bundles_per_leaf(config)
        if network.ecmp_width > bundles:
            raise ConfigError(
                "network.ecmp_width",
                f"{network.ecmp_width} equal-cost uplinks, but a leaf has only {bundles} "
                f"uplink bundles",
            )
