"""What every run checks before it works: warnings about a config, and whether the run can
finish and fit in memory.

The library gives the warnings with :func:`warnings.warn` as
:class:`~relplan.errors.RelplanWarning`: a notebook shows each, a script may filter them or
turn them into errors, and the command line prints each once as a ``warning: KEY:
message`` line on stderr. Every function of :mod:`relplan.api` and every command run the
same checks.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

from relplan.cluster.topology import check_port_budget
from relplan.config.checks import config_warnings
from relplan.config.schema import RelplanConfig
from relplan.errors import RelplanWarning
from relplan.runs.memory import check_memory, check_workers_memory, estimate_memory
from relplan.sim.engine import check_feasible
from relplan.sim.model import build_model


def warnings_of(config: RelplanConfig) -> list[RelplanWarning]:
    """The legal but suspicious settings of a valid config (none are given).

    Parameters
    ----------
    config : RelplanConfig
        A valid config.

    Returns
    -------
    list of RelplanWarning
        See :func:`relplan.config.checks.config_warnings`; switch tiers short of ports
        are named ``port budget``.

    Examples
    --------
    >>> from relplan.config.loading import load_config
    >>> config = load_config("configs/small.toml", ["job.checkpoint.write=2h"])
    >>> [str(w).split(":")[0] for w in warnings_of(config)]
    ['job.checkpoint.write']
    """
    model = build_model(config)
    return config_warnings(config, model.job_mtti_hours, check_port_budget(model.inventory),
                           model.step_hours)  # fmt: skip


def warn_config(config: RelplanConfig, where: str = "",
                stacklevel: int = 2) -> list[RelplanWarning]:  # fmt: skip
    """Give each warning of a config with :func:`warnings.warn`.

    Parameters
    ----------
    config : RelplanConfig
        A valid config.
    where : str
        Appended to each message, e.g. `` (scenario dual-ToR)``.
    stacklevel : int
        As :func:`warnings.warn`'s, counted from the caller of this function: the frame
        whose line the warning names (2: the caller's caller).

    Returns
    -------
    list of RelplanWarning
        The warnings given.

    Examples
    --------
    >>> import warnings
    >>> from relplan.config.loading import load_config
    >>> config = load_config("configs/small.toml", ["job.checkpoint.write=2h"])
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     given = warn_config(config)
    >>> [w.category.__name__ for w in caught], given[0].key
    (['RelplanWarning'], 'job.checkpoint.write')
    """
    given = [RelplanWarning(w.key, w.message + where) for w in warnings_of(config)]
    for warning in given:
        warnings.warn(warning, stacklevel=stacklevel + 1)
    return given


def speed_warning(labelled: Sequence[tuple[str, RelplanConfig]],
                  step_hours: Sequence[float | None]) -> RelplanWarning | None:  # fmt: skip
    """The warning that scenarios' healthy step times differ while their work is in hours.

    With ``job.work`` (or a calendar window, ``job.horizon``) every scenario trains the
    same hours whatever its step time, so a design that slows the step (a thinner
    network) or speeds it (more GPUs) shows no difference in wall time, GPU-hours or net
    value; with ``job.steps`` or ``job.tokens`` the hours follow each design's own step.

    Parameters
    ----------
    labelled : sequence of (str, RelplanConfig)
        Each config with what names it.
    step_hours : sequence of float or None
        Each one's healthy step, hours (``SimulationModel.step_hours``; None without one).

    Returns
    -------
    RelplanWarning or None
        Keyed ``job.work`` (``job.horizon`` when no config gives ``job.work``), naming
        the fastest and the slowest step; None when the step times agree (within one
        part in a million), or no config with a step time has its work in hours.

    Examples
    --------
    >>> from relplan.config.loading import load_config
    >>> config = load_config("configs/airesim-default.toml")  # work in hours
    >>> print(speed_warning([("scenario a", config), ("scenario b", config)],
    ...                     [5.0 / 3600, 6.0 / 3600]).message)  # doctest: +NORMALIZE_WHITESPACE
    the healthy step time differs between them (5.000 s at scenario a to 6.000 s at
    scenario b, +20.00%) but the work is in hours (job.work): each trains the same hours, so the
    speed difference is not counted in wall time, GPU-hours or net value; give the work
    as job.steps or job.tokens
    """
    timed = [(label, config, step) for (label, config), step
             in zip(labelled, step_hours, strict=True) if step is not None]  # fmt: skip
    keys = [key for key in ("work", "horizon")
            if any(getattr(config.job, key) is not None for _, config, _ in timed)]
    if len(timed) < 2 or not keys:
        return None
    key = f"job.{keys[0]}"
    fastest = min(timed, key=lambda item: item[2])
    slowest = max(timed, key=lambda item: item[2])
    if slowest[2] - fastest[2] <= 1e-6 * slowest[2]:
        return None
    return RelplanWarning(
        key,
        f"the healthy step time differs between them ({fastest[2] * 3600:.3f} s at "
        f"{fastest[0]} to {slowest[2] * 3600:.3f} s at {slowest[0]}, "
        f"{slowest[2] / fastest[2] - 1.0:+.2%}) but the work is in hours ({key}): each "
        "trains the same hours, so the speed difference is not counted in wall time, "
        "GPU-hours or net value; give the work as job.steps or job.tokens",
    )  # fmt: skip


def warn_configs(labelled: Sequence[tuple[str, RelplanConfig]],
                 stacklevel: int = 2, same_work: bool = True) -> list[RelplanWarning]:  # fmt: skip
    """Give the warnings of several configs, one per key (one per switch tier's shortfall
    for the port budget): the first one met, and how many other scenarios or points
    share it; then the speed warning (:func:`speed_warning`) when their healthy step
    times differ while their work is in hours.

    Parameters
    ----------
    labelled : sequence of (str, RelplanConfig)
        Each config with what names it (``"scenario dual-ToR"``, ``"study point ..."``).
    stacklevel : int
        As in :func:`warn_config`.
    same_work : bool
        Whether the configs are alternatives for the same work (scenarios, points), so
        that differing step times matter; not a fleet's jobs, each with its own work.

    Returns
    -------
    list of RelplanWarning
        The warnings given, each message ending in ``(LABEL)`` or ``(LABEL and N more)``.

    Examples
    --------
    >>> import warnings
    >>> from relplan.config.loading import load_config
    >>> config = load_config("configs/small.toml", ["job.checkpoint.write=2h"])
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     given = warn_configs([("scenario a", config), ("scenario b", config)])
    >>> given[0].message.endswith("(scenario a and 1 more)")
    True
    """
    first: dict[tuple[str, str], tuple[RelplanWarning, str]] = {}
    others: dict[tuple[str, str], int] = {}
    steps = []
    for label, config in labelled:
        model = build_model(config)
        steps.append(model.step_hours)
        problems = check_port_budget(model.inventory)
        for warning in config_warnings(config, model.job_mtti_hours, problems,
                                       model.step_hours):  # fmt: skip
            # a port budget per tier: one tier short must not hide another
            group = (warning.key, warning.message.split(":")[0]
                     if warning.key == "port budget" else "")  # fmt: skip
            if group in first:
                others[group] += 1
            else:
                first[group], others[group] = (warning, label), 0
    given = []
    for group, (warning, label) in first.items():
        more = others[group]
        given.append(RelplanWarning(
            warning.key, f"{warning.message} ({label}{f' and {more} more' if more else ''})"
        ))  # fmt: skip
    speed = speed_warning(labelled, steps) if same_work else None
    if speed is not None:
        given.append(speed)
    for warning in given:
        warnings.warn(warning, stacklevel=stacklevel + 1)
    return given


def check_run(configs: Sequence[RelplanConfig], command: str, trials: int, key: str,
              workers: int = 1, write_trials: bool = False,
              workers_key: str = "workers") -> None:  # fmt: skip
    """Refuse, before any work, a job that would never finish and a run that cannot fit in
    the available memory.

    Parameters
    ----------
    configs : sequence of RelplanConfig
        What the run simulates (one, or each scenario or point).
    command : {"simulate", "optimize", "tiers", "compare", "sweep"}
        What the run does (see :func:`relplan.runs.memory.estimate_memory`).
    trials : int
        Trials per run (interval, scenario or point).
    key : str
        What names the trials in an error (``--trials``, ``simulation.trials``).
    workers : int
        Blocks or points in flight at once.
    write_trials : bool
        Whether every trial's row is kept (``simulate --out``).
    workers_key : str
        What names the workers in an error (``--workers``, ``simulation.workers``).

    Raises
    ------
    InfeasibleJobError
        If a job would (almost) never finish.
    ConfigError
        Naming ``key`` when the trials need more memory than is available with one
        worker, ``workers_key`` when they fit but ``workers`` blocks or points in flight
        do not (see :func:`relplan.runs.memory.check_workers_memory`).

    Examples
    --------
    >>> from relplan.config.loading import load_config
    >>> check_run([load_config("configs/small.toml")], "simulate", 10**15, "trials")
    Traceback (most recent call last):
    ...
    relplan.errors.ConfigError: trials: 1,000,000,000,000,000 trials need about ...
    """
    models = [build_model(config) for config in configs]
    for model in models:
        check_feasible(model)
    check_memory(estimate_memory(models, command, 1, write_trials), trials, key)
    check_workers_memory(models, command, trials, workers, workers_key, write_trials)
