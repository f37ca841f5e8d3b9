"""relplan from Python: every command of the command line as a function.

Each function takes a config (a path, or a :class:`~relplan.config.schema.RelplanConfig`
from :func:`load_config` or :func:`loads_config`), runs the same checks as the command
(the config's warnings are given as :class:`~relplan.errors.RelplanWarning`; a job that
would never finish or a run that cannot fit in memory is refused before any work) and
returns the command's result: a frozen dataclass of its own (:class:`SimulateResult`,
:class:`CompareResult`, ...) with typed attributes and the interface of
:class:`~relplan.api.result.Result`: ``summary()`` is the command's ``--json`` object (the
same keys and, for the same config, trials and seed, the same numbers), ``to_frame()`` a
pandas DataFrame, ``plot(kind=None, ax=None)`` a figure, ``write(dir)`` its files. A
result pickles. Every error is a :class:`~relplan.errors.RelplanError`; a wrong argument
(``trials="100"``, ``seed=-1``, ``workers=0``, ...) is a
:class:`~relplan.errors.ConfigError` naming it (:class:`~relplan.api.arguments.RunArguments`).

The functions that run many points (:func:`compare`, :func:`run_study`, :func:`plan`)
take what the command line's ``--workers``, ``--dask``, ``--out`` (its store of finished
points) and ``--fresh`` give: ``workers=``, ``dask=`` (``"local"``, a scheduler address or
a ``distributed.Client``), ``store=`` (a folder, the store's file or a
:class:`~relplan.runs.store.PointStore`) and ``fresh=``; set up as the command line sets
them up (:mod:`relplan.runs.resources`). None of them changes a number.

A config given as a value is used as it is: ``overrides`` apply to it, and it is
validated again (a config changed with pydantic's tools is checked like a file).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from relplan.api.arguments import RunArguments
from relplan.api.calibration_results import AnalyzeResult, FitResult, ReplayResult
from relplan.api.config_results import (
    BaselineResult,
    CatalogResult,
    CheckResult,
    InventoryResult,
    WarmupResult,
)
from relplan.api.fleet_result import FleetComparisonResult, FleetResult
from relplan.api.result import Estimate, Result
from relplan.api.run_results import (
    CompareResult,
    OptimizeResult,
    PlanResult,
    SimulateResult,
    StudyResult,
)
from relplan.config.fleet_config import Fleet, load_fleet
from relplan.config.loading import load_config, loads_config
from relplan.config.schema import RelplanConfig
from relplan.config.study import Study, load_study
from relplan.errors import ConfigError
from relplan.runs import preflight
from relplan.runs.store import PointStore

__all__ = [
    "AnalyzeResult",
    "BaselineResult",
    "CatalogResult",
    "CheckResult",
    "CompareResult",
    "Estimate",
    "FitResult",
    "Fleet",
    "FleetComparisonResult",
    "FleetResult",
    "InventoryResult",
    "OptimizeResult",
    "PlanResult",
    "PointStore",
    "ReplayResult",
    "Result",
    "RunArguments",
    "SimulateResult",
    "StudyResult",
    "WarmupResult",
    "analyze",
    "baseline",
    "catalog",
    "check",
    "compare",
    "compare_fleets",
    "fit",
    "inventory",
    "load_config",
    "load_fleet",
    "loads_config",
    "optimize_interval",
    "plan",
    "replay",
    "run_study",
    "simulate",
    "simulate_fleet",
    "warmup",
]

ConfigSource = str | Path | RelplanConfig
"""A config file's path, or a config already loaded."""

Overrides = list[str] | dict[str, Any] | None
"""``KEY=VALUE`` items, or a dict of dotted keys to values (see
:meth:`~relplan.config.schema.RelplanConfig.with_overrides`)."""

DaskTarget = Any
"""``"local"`` (a cluster of ``workers`` workers in this process), a scheduler address
(``"tcp://10.0.0.1:8786"``), or a ``distributed.Client`` already connected."""

StoreTarget = str | Path | PointStore | None
"""A folder (its ``points.sqlite``, as ``--out`` keeps it), the store's file, or a
:class:`~relplan.runs.store.PointStore` already open."""


def _config(config: ConfigSource, overrides: Overrides = None, warn: bool = True,
            stacklevel: int = 3) -> tuple[RelplanConfig, str]:  # fmt: skip
    """The config as it is, with the overrides applied and validated again; its name.

    A config warning names the line ``stacklevel - 1`` calls up (the API's caller's)."""
    if isinstance(config, RelplanConfig):
        loaded, name = config.with_overrides(overrides or []), config.name or "config"
    elif isinstance(config, str | Path):
        items = overrides or []
        if isinstance(items, dict):
            loaded = load_config(config).with_overrides(items)
        else:
            loaded = load_config(config, list(items))
        name = loaded.name or Path(config).stem
    else:
        raise ConfigError("config", "must be a config file's path or a RelplanConfig, not a "
                                    f"{type(config).__name__}")  # fmt: skip
    if warn:  # the warning names the line of the caller's code that called the API
        preflight.warn_config(loaded, stacklevel=stacklevel)
    return loaded, name


def _reported(
    config: ConfigSource, overrides: Overrides, report: Callable[[RelplanConfig], dict[str, Any]]
) -> tuple[str, dict[str, Any]]:
    """The config's name and ``report`` of it (the overrides checked and applied first):
    what a result of one config's report is made of."""
    given = RunArguments(overrides=overrides)
    loaded, name = _config(config, given.overrides, stacklevel=4)
    return name, report(loaded)


def _settings(config: RelplanConfig, given: RunArguments) -> tuple[int, int, int, str, str]:
    """Trials, seed and threads: those given, else the config's ``[simulation]``; and
    what names the trials and the workers in an error."""
    settings = config.simulation
    return (given.trials if given.trials is not None else settings.trials,
            given.seed if given.seed is not None else settings.seed,
            given.workers if given.workers is not None else settings.workers,
            "trials" if given.trials is not None else "simulation.trials",
            "workers" if given.workers is not None else "simulation.workers")  # fmt: skip


def _checks_memory_here(dask: Any) -> bool:
    """Whether the points run on this machine (no Dask, or a local cluster): their memory
    is checked before the run."""
    return dask is None or dask == "local"


@contextmanager
def _running_points(given: RunArguments, workers: int, points: int | None,
                    ) -> Iterator[tuple[Any, PointStore | None, Callable[[], int]]]:  # fmt: skip
    """The pool and the store of a run of points, set up from the arguments as the command
    line sets them up (:func:`relplan.runs.resources.running_points`), and how many
    points the run has taken from the store so far (a store given open counts from now)."""
    from relplan.runs.resources import running_points

    with running_points(workers, given.dask, points, given.store, given.fresh,
                        dask_key="dask") as (pool, store):  # fmt: skip
        before = store.reused if store is not None else 0
        yield pool, store, lambda: store.reused - before if store is not None else 0


def simulate(
    config: ConfigSource,
    trials: int | None = None,
    seed: int | None = None,
    workers: int | None = None,
    overrides: Overrides = None,
) -> SimulateResult:
    """Simulate a training job many times (``relplan simulate``).

    Parameters
    ----------
    config : str, Path or RelplanConfig
        The config.
    trials, seed, workers : int, optional
        Monte Carlo settings (trials and threads at least 1, seed at least 0); by
        default the config's ``[simulation]`` values. One seed fixes every number,
        whatever the workers.
    overrides : list of str or dict, optional
        Keys to change first (see :meth:`RelplanConfig.with_overrides`).

    Returns
    -------
    SimulateResult
        ``goodput``, ``wall_hours``, ``lost_hours`` (:class:`Estimate`), ``model``,
        ``trials``, ``seed``, ...; ``summary()`` is the ``--json`` object;
        ``to_frame()`` one row per trial; ``plot()`` kinds ``lost-hours-histogram``,
        ``lost-hours-cdf``, ``lost-hours-by-bucket``, ``failures-by-mode``;
        ``write(dir)`` what ``--out`` writes.

    Raises
    ------
    ConfigError
        Naming the argument or the config key at fault.

    Examples
    --------
    >>> result = simulate("configs/small.toml", trials=200, seed=1)
    >>> result.trials, 0.9 < result.goodput.mean < 1.0
    (200, True)
    >>> result.summary()["goodput"]["mean"] == result.goodput.mean
    True
    >>> result.to_frame()[["wall_hours", "goodput"]].shape
    (200, 2)
    >>> len(repr(result)) < 600
    True
    >>> simulate("configs/small.toml", trials="200")
    Traceback (most recent call last):
    ...
    relplan.errors.ConfigError: trials: must be a whole number of at least 1, not a str ('200')
    """
    from relplan.analysis.baseline_report import step_baseline
    from relplan.runs.scenarios import run_scenario

    given = RunArguments(trials=trials, seed=seed, workers=workers, overrides=overrides)
    loaded, name = _config(config, given.overrides)
    trials, seed, workers, key, workers_key = _settings(loaded, given)
    preflight.check_run([loaded], "simulate", trials, key, workers, workers_key=workers_key)
    result = run_scenario(loaded, trials, seed, name, workers)
    source = None if isinstance(config, RelplanConfig) else str(config)
    return SimulateResult(result, loaded, source, step_baseline(loaded))


def _override_items(overrides: Overrides) -> list[str]:
    """Overrides as ``KEY=VALUE`` items (a fleet's are applied to its document)."""
    from relplan.config.toml_text import toml_value

    if isinstance(overrides, dict):
        return [f"{key}={toml_value(value)}" for key, value in overrides.items()]
    return list(overrides or [])


def simulate_fleet(
    config: str | Path | Fleet,
    trials: int | None = None,
    seed: int | None = None,
    workers: int | None = None,
    overrides: Overrides = None,
) -> FleetResult:
    """Simulate every job of a fleet config (``[[jobs]]``; ``relplan simulate`` of one).

    Each job runs on its own servers and spares as the config it is on its own, from a
    seed of its own drawn from ``seed`` and its name; trial ``t`` of the fleet is trial
    ``t`` of every job (:func:`relplan.runs.fleet.run_fleet`).

    Parameters
    ----------
    config : str, Path or Fleet
        The fleet config's file, or a fleet from :func:`relplan.config.fleet_config.load_fleet`.
    trials, seed, workers : int, optional
        As for :func:`simulate`; by default the fleet's ``[simulation]`` values.
    overrides : list of str or dict, optional
        Keys to change first: ``jobs.NAME.KEY`` one job's, any other the fleet's shared
        tables (a fleet given as a value takes none).

    Returns
    -------
    FleetResult
        ``goodput`` and ``gpu_hours_lost`` of the fleet (:class:`Estimate`), ``jobs()``
        each job's summary; ``summary()`` is the ``--json`` object, ``to_frame()`` one
        row per job, ``plot()`` the GPU-hours lost by job.

    Raises
    ------
    ConfigError
        Naming the argument or the key at fault (a job's as ``jobs.NAME.KEY``).

    Examples
    --------
    >>> result = simulate_fleet("configs/fleets/fleet-mix.toml", trials=50, seed=1)
    >>> result.trials, 0.8 < result.goodput.mean < 1.0
    (50, True)
    >>> int(result.to_frame().loc["pretrain-8k", "gpus"])
    8192
    """
    from relplan.runs.fleet import check_fleet_run, run_fleet

    given = RunArguments(trials=trials, seed=seed, workers=workers, overrides=overrides)
    items = _override_items(given.overrides)
    if isinstance(config, Fleet):
        if items:
            raise ConfigError("overrides", "a fleet given as a value takes none: load it "
                                           "with load_fleet(path, overrides)")  # fmt: skip
        fleet, name = config, config.name or "fleet"
    elif isinstance(config, str | Path):
        fleet = load_fleet(config, items)
        name = fleet.name or Path(config).stem
    else:
        raise ConfigError("config", "must be a fleet config's path or a Fleet, not a "
                                    f"{type(config).__name__}")  # fmt: skip
    trials, seed, workers, key, workers_key = _settings(fleet.jobs[0].config, given)
    check_fleet_run(fleet, trials, key, workers, workers_key, stacklevel=3)
    return FleetResult(run_fleet(fleet, trials, seed, workers), name)


def compare_fleets(
    configs: list[str | Path],
    variants: dict[str, Overrides] | None = None,
    trials: int | None = None,
    seed: int | None = None,
    workers: int | None = None,
    overrides: Overrides = None,
) -> FleetComparisonResult:
    """Compare fleet configs on common failure streams (``relplan compare`` of fleets).

    Parameters
    ----------
    configs : list of str or Path
        The fleet configs' files; the first is the reference.
    variants : dict, optional
        Variants of the first: label to the keys it changes
        (``{"shared pool": ["fleet.spares=56", ...]}``), as ``--variant``.
    trials, seed, workers : int, optional
        Shared by every fleet; by default the first's ``[simulation]`` values.
    overrides : list of str or dict, optional
        Applied to every fleet, before its variant.

    Returns
    -------
    FleetComparisonResult
        ``summary()`` is the ``--json`` object (:func:`relplan.runs.fleet_compare.compare_fleets`),
        ``to_frame()`` a row per fleet, ``plot()`` the GPU-hours lost by fleet.

    Raises
    ------
    ConfigError
        Naming the argument or the key at fault.

    Examples
    --------
    >>> result = compare_fleets(["configs/fleets/fleet-mix.toml"],
    ...                         {"8 crews": ["repair.crews=8"]}, trials=20, seed=0)
    >>> frame = result.to_frame()
    >>> bool(frame.loc["8 crews", "goodput"] < frame.loc["fleet-mix", "goodput"])
    True
    """
    from relplan.runs.fleet import check_fleet_run
    from relplan.runs.fleet_compare import compare_fleets as run_comparison

    given = RunArguments(trials=trials, seed=seed, workers=workers, overrides=overrides)
    if not isinstance(configs, list) or not configs:
        raise ConfigError("configs", "must be a list of fleet config files, at least one")
    shared = _override_items(given.overrides)
    specs: list[tuple[str | None, Path, list[str]]] = [
        (None, Path(path), shared) for path in configs]  # a config: named by its name
    specs += [(label, Path(configs[0]), [*shared, *_override_items(keys)])
              for label, keys in (variants or {}).items()]  # fmt: skip
    fleets = []
    for label, path, items in specs:
        fleet = load_fleet(path, items)
        fleets.append((label or fleet.name or path.stem, fleet))
    trials, seed, workers, key, workers_key = _settings(fleets[0][1].jobs[0].config, given)
    for _, fleet in fleets:
        check_fleet_run(fleet, trials, key, workers, workers_key, stacklevel=3)
    return FleetComparisonResult(run_comparison(fleets, trials, seed, workers))


def optimize_interval(
    config: ConfigSource,
    trials: int | None = None,
    seed: int | None = None,
    workers: int | None = None,
    overrides: Overrides = None,
    jointly: tuple[str, list[str]] | None = None,
) -> OptimizeResult:
    """Find the checkpoint interval (``relplan optimize``): Young, Daly and Monte Carlo.

    Parameters
    ----------
    config : str, Path or RelplanConfig
        The config.
    trials, seed, workers : int, optional
        Trials per interval tried (at least 2), the seed every interval shares, threads;
        by default the config's ``[simulation]`` values.
    overrides : list of str or dict, optional
        Keys to change first.
    jointly : (str, list of str), optional
        A second key and its values (``("health.probe.every", ["6h", "24h"])``): the
        interval is optimised at each, and the best pair kept (``--jointly``).

    Returns
    -------
    OptimizeResult
        ``young_hours``, ``daly_hours``, ``mc_optimal_hours``, ``mc_optimal_ci95``, ...;
        ``summary()`` is the ``--json`` object (and ``two_tier`` for a job with a fast
        tier); ``to_frame()`` the curve; ``plot()`` goodput against the interval;
        ``write(dir)`` what ``--out`` writes.

    Examples
    --------
    >>> optimum = optimize_interval("configs/small.toml", trials=100, seed=0)
    >>> low, high = optimum.summary()["mc_optimal_ci95"]
    >>> low <= optimum.mc_optimal_hours <= high
    True
    >>> list(optimum.to_frame().columns[:2])
    ['interval_hours', 'goodput_mean']
    """
    from relplan.analysis.optimize import optimize_config, optimize_jointly

    given = RunArguments(trials=trials, seed=seed, workers=workers, overrides=overrides)
    loaded, name = _config(config, given.overrides)
    trials, seed, workers, key, workers_key = _settings(loaded, given)
    command = "optimize" if loaded.job.checkpoint.fast is None else "tiers"
    preflight.check_run([loaded], command, trials, key, workers, workers_key=workers_key)
    if jointly is None:
        optimum, tiers = optimize_config(loaded, trials, seed, workers, None, key)
        return OptimizeResult(optimum, tiers, name)
    joint_key, values = jointly
    optimum, tiers, search = optimize_jointly(loaded, joint_key, list(values), trials, seed,
                                              workers, None, key)  # fmt: skip
    return OptimizeResult(optimum, tiers, name, search)


def compare(
    configs: list[ConfigSource],
    variants: dict[str, Overrides] | None = None,
    trials: int | None = None,
    seed: int | None = None,
    workers: int | None = None,
    overrides: Overrides = None,
    *,
    dask: DaskTarget = None,
    store: StoreTarget = None,
    fresh: bool = False,
) -> CompareResult:
    """Compare scenarios on common failure streams (``relplan compare``).

    Parameters
    ----------
    configs : list of str, Path or RelplanConfig
        The scenarios' configs; the first is the reference.
    variants : dict, optional
        Variants of the first config: label to the keys it changes (``{"dual-ToR":
        ["network.dual_tor=true"]}``), as ``--variant "LABEL: KEY=VALUE"``.
    trials, seed : int, optional
        Shared by every scenario; by default the first config's.
    workers : int, optional
        Scenarios at once on local processes (1: one after another, in this process), or
        the workers of a local Dask cluster; by default the first config's
        ``simulation.workers`` when it sets it, else every core.
    overrides : list of str or dict, optional
        Applied to every scenario, before its variant.
    dask : str or distributed.Client, optional
        Run the scenarios on Dask (``--dask``): ``"local"``, a scheduler address or a
        client.
    store : str, Path or PointStore, optional
        Keep each finished scenario (``--out``'s ``points.sqlite``): a rerun with the
        same config, seed, trials and budget reuses it.
    fresh : bool
        Ignore the scenarios stored before (``--fresh``).

    Returns
    -------
    CompareResult
        ``names``, ``goodput``, ``best``, ``reused``, ...; ``summary()`` is the
        ``--json`` object (``scenarios``, one entry each, priced when the first config
        has a ``[budget]``); ``to_frame()`` one row per scenario; ``plot()`` goodput by
        scenario with its CI; ``write(dir)`` comparison.csv and comparison.json.

    Examples
    --------
    >>> result = compare(["configs/small.toml"], {"no spares": ["job.spares=0"]},
    ...                  trials=50, workers=1)
    >>> [row["scenario"] for row in result.summary()["scenarios"]]
    ['small', 'no spares']
    """
    from relplan.runs.compare import ScenarioSpec, compare_scenarios, scenario_name
    from relplan.runs.resources import point_workers

    given = RunArguments(trials=trials, seed=seed, workers=workers, dask=dask, store=store,
                         fresh=fresh, overrides=overrides)  # fmt: skip
    if isinstance(configs, str | Path | RelplanConfig) or not configs:
        raise ConfigError("configs", "give a list of configs, at least one")
    if variants is not None and not isinstance(variants, dict):
        raise ConfigError("variants", "give a dict of labels to the keys each variant changes")
    bases = [_config(source, given.overrides, warn=False) for source in configs]
    specs = [ScenarioSpec(Path(name), (), name) for _, name in bases]
    loaded = [config for config, _ in bases]
    for label, items in (variants or {}).items():
        specs.append(ScenarioSpec(Path(label), (), label))
        loaded.append(loaded[0].with_overrides(RunArguments(overrides=items).overrides or []))
    if len(specs) < 2:
        raise ConfigError("variants", "compare needs two configs, or a config and a variant")
    preflight.warn_configs([(f"scenario {scenario_name(spec, config)}", config)
                            for spec, config in zip(specs, loaded, strict=True)],
                           stacklevel=2)  # fmt: skip
    trials, seed, _, key, workers_key = _settings(loaded[0], given)
    at_once = point_workers(given.workers, loaded[0])
    if _checks_memory_here(given.dask):
        preflight.check_run(loaded, "compare", trials, key, min(at_once, len(loaded)),
                            workers_key=workers_key)  # fmt: skip
    with _running_points(given, at_once, len(loaded)) as (pool, store, reused):
        data = compare_scenarios(specs, trials, seed, configs=loaded, store=store, pool=pool)
        return CompareResult(data, reused())


def run_study(
    study: str | Path | Study,
    trials: int | None = None,
    workers: int | None = None,
    dask: DaskTarget = None,
    *,
    seed: int | None = None,
    overrides: Overrides = None,
    store: StoreTarget = None,
    fresh: bool = False,
    dask_address: str | None = None,
) -> StudyResult:
    """Run a declarative study (``relplan sweep``) on common failure streams.

    Parameters
    ----------
    study : str, Path or Study
        The study file (``studies/*.toml``) or a loaded study.
    trials : int, optional
        Trials per point (default: the study's).
    workers : int, optional
        Points at once on local processes (1: one at a time in this process), or the
        workers of a local Dask cluster; by default the base config's
        ``simulation.workers`` when it sets it, else every core. A script that runs
        points on processes should keep its work under ``if __name__ == "__main__":``,
        as every multiprocessing program should.
    dask : str or distributed.Client, optional
        ``"local"`` (a cluster of ``workers`` workers in this process), a Dask scheduler
        address or a client; the numbers do not depend on it.
    seed : int, optional
        The seed every point shares (default: the study's); only with a study file.
    overrides : list of str or dict, optional
        Keys applied to every point, after the study's own ``set`` (``--set``); only
        with a study file.
    store : str, Path or PointStore, optional
        Keep each finished point (``--out``'s ``points.sqlite``): a rerun reuses it.
    fresh : bool
        Ignore the points stored before (``--fresh``).
    dask_address : str, optional
        The old name of ``dask`` (deprecated).

    Returns
    -------
    StudyResult
        ``study``, ``points``, ``trials``, ``answer``, ``reused``; ``summary()`` is the
        ``--json`` object (``study``, ``answer``, ``files`` (empty: :meth:`write`
        returns them), ``results``, ``provenance``); ``to_frame()`` one row per point;
        ``plot(kind)`` a metric by point (kinds: the study's metrics) or
        ``lost-hours-by-point``; ``write(dir)`` what ``sweep --out`` writes.

    Examples
    --------
    >>> result = run_study("studies/recovery-strategies.toml", trials=50, workers=1)
    >>> len(result.to_frame()) == len(result.summary()["results"])
    True
    """
    from relplan.runs.resources import point_workers
    from relplan.runs.sweep import run_study as run_study_points

    if dask_address is not None:
        warnings.warn("run_study(dask_address=...) is now dask=...", DeprecationWarning,
                      stacklevel=2)  # fmt: skip
        if dask is not None:
            raise ConfigError("dask_address", "give dask only (dask_address is its old name)")
        dask = dask_address
    given = RunArguments(trials=trials, seed=seed, workers=workers, dask=dask, store=store,
                         fresh=fresh, overrides=overrides)  # fmt: skip
    if isinstance(study, Study):
        for name, value in (("seed", given.seed), ("overrides", given.overrides)):
            if value is not None:
                raise ConfigError(name, "applies to a study file: give its path, or load it "
                                        "with relplan.config.study.load_study(path, "
                                        "overrides, seed)")  # fmt: skip
        loaded = study
    elif isinstance(study, str | Path):
        from relplan.config.overriding import override_items

        loaded = load_study(study, override_items(given.overrides or []), given.seed)
    else:
        raise ConfigError("study", f"must be a study file's path or a Study, not a "
                                   f"{type(study).__name__}")  # fmt: skip
    points = loaded.points()
    configs = loaded.labelled_configs()
    preflight.warn_configs(configs, stacklevel=2)
    per_point = given.trials or loaded.spec.trials
    try:  # the workers' config: the base with the study's own set, as the command line
        base = loaded.config(list(loaded.spec.set))
    except ConfigError:  # valid only with each point's own keys: the first point
        base = configs[0][1]
    at_once = point_workers(given.workers, base)
    if _checks_memory_here(given.dask):
        preflight.check_run([config for _, config in configs], "sweep", per_point,
                            "trials" if given.trials is not None else "study.trials",
                            min(at_once, len(configs)),
                            workers_key="workers" if given.workers is not None
                            else "simulation.workers")  # fmt: skip
    with _running_points(given, at_once, len(points)) as (pool, store, reused):
        results = run_study_points(loaded, per_point, store=store, pool=pool)
        return StudyResult(loaded, results, per_point, reused())


def plan(
    plan_file: str | Path,
    trials: int | None = None,
    seed: int | None = None,
    workers: int | None = None,
    *,
    overrides: Overrides = None,
    dask: DaskTarget = None,
    store: StoreTarget = None,
    fresh: bool = False,
) -> PlanResult:
    """Find the best portfolio of redundancy options within a budget (``relplan plan``).

    Parameters
    ----------
    plan_file : str or Path
        The plan (``studies/*plan*.toml``).
    trials, seed : int, optional
        Trials per portfolio (at least 2) and the seed; by default the plan's, else the
        base config's ``[simulation]``.
    workers : int, optional
        Portfolios at once on local processes (1: one at a time in this process), or the
        workers of a local Dask cluster.
    overrides : list of str or dict, optional
        Keys applied to every portfolio after the plan's own ``set`` (``--set``).
    dask : str or distributed.Client, optional
        Run the portfolios on Dask (``--dask``); the numbers do not depend on it.
    store : str, Path or PointStore, optional
        Keep each finished portfolio run (``--out``'s ``points.sqlite``): a rerun reuses
        it.
    fresh : bool
        Ignore the portfolio runs stored before (``--fresh``).

    Returns
    -------
    PlanResult
        ``best``, ``frontier``, ``attribution``, ``answer``, ``reused``, ...;
        ``summary()`` is the ``--json`` object (the frontier, the best portfolio, the
        attribution, the uncertainty, ``answer`` and ``files``, empty: :meth:`write`
        returns them); ``to_frame()`` one row per portfolio run; ``plot()`` kinds
        ``frontier``, ``attribution`` (and ``tornado`` with uncertain inputs);
        ``write(dir)`` what ``plan --out`` writes.

    Examples
    --------
    >>> result = plan("studies/redundancy-plan-seed-moe.toml", trials=20, workers=1)
    >>> "answer" in result.summary()
    True
    """
    from relplan.config.overriding import override_items
    from relplan.config.plan import load_plan
    from relplan.runs.planner import plan_settings, run_plan
    from relplan.runs.resources import point_workers

    given = RunArguments(trials=trials, seed=seed, workers=workers, dask=dask, store=store,
                         fresh=fresh, overrides=overrides)  # fmt: skip
    loaded = load_plan(plan_file, override_items(given.overrides or []))
    trials, seed = plan_settings(loaded, given.trials, given.seed, "trials")
    at_once = point_workers(given.workers, loaded.base)
    with _running_points(given, at_once, None) as (pool, store, reused):
        outcome = run_plan(loaded, trials, seed, store=store, pool=pool)
        outcome["source"] = str(plan_file)
        return PlanResult(outcome, reused())


def baseline(config: ConfigSource, overrides: Overrides = None) -> BaselineResult:
    """The job's communication baseline (``relplan baseline``).

    Parameters
    ----------
    config : str, Path or RelplanConfig
        The config (a ``[workload]`` gives the per-dimension traffic).
    overrides : list of str or dict, optional
        Keys to change first.

    Returns
    -------
    BaselineResult
        ``step_time_s``, ``compute_time_s``, ``exposed_communication_s``,
        ``job_mtti_hours``; ``summary()`` is the ``--json`` object; ``to_frame()`` one
        row per parallelism dimension; ``plot()`` the step time by dimension.

    Examples
    --------
    >>> sorted(baseline("configs/seed-moe-10k.toml").summary())[:2]
    ['baseline', 'cluster_mtbf_hours']
    """
    from relplan.analysis.baseline_report import job_baseline

    return BaselineResult(*_reported(config, overrides, job_baseline))


def inventory(config: ConfigSource, overrides: Overrides = None) -> InventoryResult:
    """Component counts, the fabric, failure rates and MTTI (``relplan inventory``).

    Parameters
    ----------
    config : str, Path or RelplanConfig
        The config.
    overrides : list of str or dict, optional
        Keys to change first.

    Returns
    -------
    InventoryResult
        ``job_servers``, ``spare_servers``, ``job_mtti_hours``, ``units``,
        ``failure_share``; ``summary()`` is the ``--json`` object; ``to_frame()`` one
        row per failure mode; ``plot()`` kinds ``failure-share``, ``units``.

    Examples
    --------
    >>> result = inventory("configs/small.toml")
    >>> result.summary()["job_servers"], "gpu" in result.to_frame().index
    (64, True)
    """
    from relplan.analysis.inventory_report import inventory_report

    return InventoryResult(*_reported(config, overrides, inventory_report))


def check(config: ConfigSource, overrides: Overrides = None) -> CheckResult:
    """Check a config (``relplan validate``): schema, units, consistency, warnings.

    Parameters as :func:`inventory`.

    Returns
    -------
    CheckResult
        ``gpus``, ``job_servers``, ``failure_modes``, ``job_mtti_hours``, ``warnings``
        and ``port_budget``; ``summary()``: ``valid`` (always True: an invalid config
        raises), ``gpus``, ``job_servers``, ``failure_modes``, ``job_mtti_hours`` and
        ``warnings`` (each ``KEY: message``, also given as
        :class:`~relplan.errors.RelplanWarning`); ``to_frame()`` and ``plot()`` the port
        budget per switch tier.

    Raises
    ------
    ConfigError
        Naming the key at fault, for an invalid config.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     result = check("configs/small.toml", ["job.checkpoint.write=2h"])
    >>> result.summary()["warnings"][0].split(":")[0]
    'job.checkpoint.write'
    """
    from relplan.sim.model import build_model

    given = RunArguments(overrides=overrides)
    loaded, name = _config(config, given.overrides, warn=False)
    warned = preflight.warn_config(loaded, stacklevel=2)
    model = build_model(loaded)
    return CheckResult(name, loaded.job.gpus, model.inventory.job_servers, len(model.modes),
                       model.job_mtti_hours, tuple(str(w) for w in warned),
                       tuple(model.inventory.port_budget))  # fmt: skip


def catalog() -> CatalogResult:
    """The default failure model of every component class, with sources (``relplan
    catalog``).

    Returns
    -------
    CatalogResult
        ``entries``; ``summary()`` is ``{"entries": [...]}``; ``to_frame()`` one row per
        entry; ``plot()`` the MTBF of each (log scale).

    Examples
    --------
    >>> len(catalog().to_frame()) > 5
    True
    """
    from relplan.config.catalog import CATALOG

    return CatalogResult(tuple(CATALOG))


def _warn_all(key: str, messages: Any) -> None:
    """Give each message as a :class:`~relplan.errors.RelplanWarning` about ``key`` (the
    argument or input it concerns), at the caller's line."""
    from relplan.errors import RelplanWarning

    for message in messages:
        warnings.warn(RelplanWarning(key, str(message)), stacklevel=3)


def fit(csv_path: str | Path, *, family: str | None = None, as_key: str = "lifetime",
        group: str | None = None, events: bool = False, start: str | None = None,
        end: str | None = None, units: int | None = None,
        unit_list: str | Path | None = None) -> FitResult:  # fmt: skip
    """Fit exponential, Weibull and lognormal lifetimes to censored data (``relplan fit``).

    The best family is the smallest AIC among those that pass the goodness-of-fit check
    against the Kaplan-Meier curve; its line is then simulated over the data's own exposure
    and its failures (repair hours, for ``as_key="repair"``) set against the observed.
    A best family that fails the check, or whose count is more than 20% off, is named in a
    :class:`~relplan.errors.RelplanWarning`; ``summary()["count_check"]["write_refused"]``
    says when ``relplan fit --write-config`` would refuse it (more than 2x off). See
    :mod:`relplan.calibrate.fit_checks`.

    Parameters
    ----------
    csv_path : str or Path
        A CSV of times in service, hours, with failure flags (see
        :func:`relplan.calibrate.lifetimes.read_lifetime_csv`); with ``events=True``, failure
        records ``unit,time`` instead.
    family : str, optional
        The family to report as the answer (``exponential``, ``weibull``, ``lognormal``)
        instead of the best.
    as_key : {"lifetime", "repair"}
        The config line the fit is written as.
    group : str, optional
        A column whose values split the data: each group is fitted apart.
    events : bool
        The file holds failure records; ``start``, ``end`` and ``units`` (or
        ``unit_list``) give the window and the units watched, and the censored times
        between failures are built from them.
    start, end : str, optional
        The window of an event log (ISO 8601).
    units : int, optional
        How many units an event log watched.
    unit_list : str or Path, optional
        A file naming the units an event log watched, one a line.

    Returns
    -------
    FitResult
        ``best``, ``config`` (per group with ``group``), ``reports``; ``summary()`` is
        the ``--json`` object; ``to_frame()`` one row per family (per group and family
        with ``group``); ``plot()`` the survival curves of the families against the
        Kaplan-Meier estimate.

    Examples
    --------
    >>> result = fit("tests/data/lifetimes.csv")
    >>> result.best in result.to_frame().index
    True
    >>> fit("tests/data/lifetimes.csv", as_key="repair").summary()["config"][:6]
    'repair'
    """
    from relplan.calibrate.field_data import fit_file

    fitted = fit_file(csv_path, family=family, as_key=as_key, group=group, events=events,
                      start=start, end=end, units=units, unit_list=unit_list)  # fmt: skip
    _warn_all("csv_path", fitted.warnings)
    return FitResult(Path(csv_path).name, fitted.reports, fitted.data,
                     group if fitted.grouped else None)  # fmt: skip


def analyze(log_path: str | Path, config: ConfigSource, start: str | None = None,
            end: str | None = None, *, ids: str = "auto",
            category_map: str | Path | dict[str, str] | None = None) -> AnalyzeResult:  # fmt: skip
    """Measure failure rates from an incident log against a config (``relplan analyze``).

    Parameters
    ----------
    log_path : str or Path
        The incident log (CSV or JSON lines).
    config : str, Path or RelplanConfig
        The config the log is measured against.
    start, end : str, optional
        The window (ISO dates); by default the log's first and last incidents.
    ids : str
        What the log's unit ids name: ``auto`` (a unit of the row's own mode),
        ``server``, ``gpu``, ``nic``, ``link`` or ``switch``.
    category_map : str, Path or dict, optional
        The log's own categories onto the config's modes (many to one): a CSV file with
        ``category`` and ``mode``, or a dict.

    Returns
    -------
    AnalyzeResult
        ``counts``, ``ratio_to_config``, ``window_hours``; ``summary()`` is the
        ``--json`` object; ``to_frame()`` one row per category; ``plot()`` the observed
        rates with their CIs against the config's.

    Examples
    --------
    >>> result = analyze("tests/data/incidents.csv", "configs/small.toml",
    ...                  "2024-01-01", "2025-01-01")
    >>> "categories" in result.summary()
    True
    """
    from relplan.calibrate.event_log import read_category_map
    from relplan.calibrate.incidents import incident_report, read_incident_log
    from relplan.vocab import LOG_ID_KINDS

    if ids not in LOG_ID_KINDS:
        raise ConfigError("ids", f"must be one of {', '.join(LOG_ID_KINDS)} (got {ids!r})")
    loaded, name = _config(config)
    mapping = (read_category_map(category_map) if isinstance(category_map, str | Path)
               else category_map)  # fmt: skip
    report = incident_report(read_incident_log(log_path), loaded, start, end, ids, mapping)
    _warn_all("log_path", report["warnings"])
    return AnalyzeResult(Path(log_path).name, name, report)


def replay(log_path: str | Path, config: ConfigSource, start: str, end: str, *,
           intervals_hours: list[float] | None = None, samples: int | None = None,
           seed: int | None = None,
           category_map: str | Path | dict[str, str] | None = None) -> ReplayResult:  # fmt: skip
    """Replay a log's real failures against a config's checkpoint policy (``relplan replay``).

    The job runs through the window and checkpoints every interval; each failure of a fatal
    mode loses the work since the last checkpoint, then costs the mode's detection, the
    wait the log's downtime adds and the config's restart; a transient mode's failure
    stalls the job. Job start times are drawn across the window (the history wrapped
    around), so each figure is a mean over them; its ``ci95`` is a 95% interval over
    histories resampled from the log in blocks (a circular block bootstrap), its
    ``phase_ci95`` the spread over start times alone.

    Parameters
    ----------
    log_path : str or Path
        The incident log (CSV or JSON lines) with ``time``, ``category`` and optionally
        ``unit`` and ``downtime_hours``.
    config : str, Path or RelplanConfig
        Its failure modes give each category's impact; its job the checkpoint and restart.
    start, end : str
        The window (ISO 8601).
    intervals_hours : list of float, optional
        Checkpoint intervals to replay, hours (default: the config's).
    samples : int, optional
        Job start times drawn, at least 1 (default: the command line's).
    seed : int, optional
        Seed of the draw, at least 0 (default: the config's ``simulation.seed``).
    category_map : str, Path or dict, optional
        The log's own categories onto the config's modes.

    Returns
    -------
    ReplayResult
        ``intervals_hours``, ``goodput``, ``best_interval_hours``, ``replay``;
        ``summary()`` is the ``--json`` object; ``to_frame()`` one row per interval;
        ``plot()`` the goodput against the interval with its CI.

    Examples
    --------
    >>> result = replay("tests/data/incidents.csv", "configs/small.toml",
    ...                 "2024-01-01", "2025-01-01", intervals_hours=[0.5, 1.0], samples=50)
    >>> len(result.to_frame())
    2
    """
    from relplan.calibrate.event_log import read_category_map
    from relplan.calibrate.incidents import read_incident_log
    from relplan.calibrate.replay import DEFAULT_SAMPLES, replay_log

    given = RunArguments(samples=samples, seed=seed)
    if intervals_hours is not None:
        _check_intervals(intervals_hours)
    loaded, name = _config(config)
    mapping = (read_category_map(category_map) if isinstance(category_map, str | Path)
               else category_map)  # fmt: skip
    report = replay_log(read_incident_log(log_path), loaded, start, end, intervals_hours,
                        samples=given.samples or DEFAULT_SAMPLES, seed=given.seed,
                        category_map=mapping)  # fmt: skip
    _warn_all("log_path", report.warnings)
    return ReplayResult(Path(log_path).name, name, report)


def _check_intervals(intervals_hours: Any) -> None:
    """Checkpoint intervals to replay: a list of positive hours."""
    import math
    import numbers

    if isinstance(intervals_hours, str) or not hasattr(intervals_hours, "__iter__"):
        raise ConfigError("intervals_hours", "give a list of intervals, hours")
    for value in intervals_hours:
        if (isinstance(value, bool) or not isinstance(value, numbers.Real)
                or not math.isfinite(value) or value <= 0):  # fmt: skip
            raise ConfigError("intervals_hours", f"each interval is a positive number of "
                                                 f"hours (got {value!r})")  # fmt: skip


def warmup(configs: list[ConfigSource] | None = None,
           overrides: Overrides = None) -> WarmupResult:  # fmt: skip
    """Compile the engine ahead of the first run (``relplan warmup``).

    The walk of trials is compiled on first use, once per set of features a config uses,
    and cached on disk by numba; a config's first run then pauses to compile (about 15 s
    on 2 cores). This compiles, without running a trial, every compiled function the runs
    of the configs call: the walk of each config's features with and without the trace
    the reports draw and the trace's segment arithmetic, each once (see
    :func:`relplan.runs.compile_ahead.warm_up`). What is already compiled is only listed. A
    live notice counts the seconds while a walk compiles.

    Parameters
    ----------
    configs : list of str, Path or RelplanConfig, optional
        The configs, or study files (their points); default: the shipped configs and
        every point of the shipped studies.
    overrides : list of str or dict, optional
        Keys to change in each config first (only with ``configs``).

    Returns
    -------
    WarmupResult
        ``compiled_now``, ``already_compiled``, ``seconds``; ``summary()`` is the
        ``--json`` object (``configs``, ``functions``, ``compiled_now``,
        ``already_compiled``, ``seconds``); ``to_frame()`` one row per compiled function
        (its kind, features, configs and compile seconds, null when it was compiled
        already); ``plot()`` the seconds of each.

    Examples
    --------
    >>> result = warmup(["configs/small.toml"])
    >>> summary = result.summary()
    >>> summary["compiled_now"] + summary["already_compiled"] == len(result.to_frame())
    True
    >>> warmup(["configs/small.toml"]).summary()["compiled_now"]  # all compiled now
    0
    """
    from relplan.config.overriding import override_items
    from relplan.runs.compile_ahead import configs_of, shipped_configs, warm_up

    given = RunArguments(overrides=overrides)
    if configs is None:
        if given.overrides:
            raise ConfigError("overrides", "give the configs they apply to (without them "
                                           "the shipped configs are warmed as they are)")
        loaded = shipped_configs()
    else:
        if isinstance(configs, str | Path | RelplanConfig):
            raise ConfigError("configs", "give a list of configs or study files")
        loaded = []
        for source in configs:
            if isinstance(source, RelplanConfig):
                config, name = _config(source, given.overrides, warn=False)
                loaded.append((name, config))
            else:
                loaded += configs_of(source, override_items(given.overrides or []))
    return WarmupResult(warm_up(loaded))
