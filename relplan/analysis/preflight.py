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

from relplan.analysis.memory import check_memory, check_workers_memory, estimate_memory
from relplan.cluster.topology import check_port_budget
from relplan.config.checks import config_warnings
from relplan.config.schema import RelplanConfig
from relplan.errors import RelplanWarning
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
    return config_warnings(config, model.job_mtti_hours, check_port_budget(model.inventory))


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


def warn_configs(labelled: Sequence[tuple[str, RelplanConfig]],
                 stacklevel: int = 2) -> list[RelplanWarning]:  # fmt: skip
    """Give the warnings of several configs, one per key: the first one met, and how many
    other scenarios or points share the key.

    Parameters
    ----------
    labelled : sequence of (str, RelplanConfig)
        Each config with what names it (``"scenario dual-ToR"``, ``"study point ..."``).
    stacklevel : int
        As in :func:`warn_config`.

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
    first: dict[str, tuple[RelplanWarning, str]] = {}
    others: dict[str, int] = {}
    for label, config in labelled:
        for warning in warnings_of(config):
            if warning.key in first:
                others[warning.key] += 1
            else:
                first[warning.key], others[warning.key] = (warning, label), 0
    given = []
    for key, (warning, label) in first.items():
        more = others[key]
        given.append(RelplanWarning(
            key, f"{warning.message} ({label}{f' and {more} more' if more else ''})"
        ))  # fmt: skip
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
        What the run does (see :func:`relplan.analysis.memory.estimate_memory`).
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
        do not (see :func:`relplan.analysis.memory.check_workers_memory`).

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
