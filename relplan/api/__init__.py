"""relplan from Python: every command of the command line as a function.

Each function takes a config (a path, or a :class:`~relplan.config.schema.RelplanConfig`
from :func:`load_config` or :func:`loads_config`), runs the same checks as the command
(the config's warnings are given as :class:`~relplan.errors.RelplanWarning`; a job that
would never finish or a run that cannot fit in memory is refused before any work) and
returns a :class:`~relplan.api.result.Result`: ``summary()`` is the command's ``--json``
object (the same keys and, for the same config, trials and seed, the same numbers),
``to_frame()`` a pandas DataFrame, ``plot(kind=None, ax=None)`` a figure, ``write(dir)``
its files. Every error is a :class:`~relplan.errors.RelplanError`.

A config given as a value is used as it is: ``overrides`` apply to it, and it is
validated again (a config changed with pydantic's tools is checked like a file).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from relplan.analysis.provenance import study_provenance
from relplan.api.result import Result
from relplan.config.loading import load_config, loads_config
from relplan.config.schema import RelplanConfig
from relplan.config.study import Study, load_study
from relplan.runs import preflight
from relplan.runs.sweep import answer_sentence
from relplan.units import format_duration

__all__ = [
    "Result",
    "StudyResult",
    "analyze",
    "baseline",
    "catalog",
    "check",
    "compare",
    "fit",
    "inventory",
    "load_config",
    "loads_config",
    "optimize_interval",
    "plan",
    "replay",
    "run_study",
    "simulate",
    "warmup",
]

ConfigSource = str | Path | RelplanConfig
"""A config file's path, or a config already loaded."""

Overrides = list[str] | dict[str, Any] | None
"""``KEY=VALUE`` items, or a dict of dotted keys to values (see
:meth:`~relplan.config.schema.RelplanConfig.with_overrides`)."""


def _config(config: ConfigSource, overrides: Overrides = None,
            warn: bool = True) -> tuple[RelplanConfig, str]:  # fmt: skip
    """The config as it is, with the overrides applied and validated again; its name."""
    if isinstance(config, RelplanConfig):
        loaded, name = config.with_overrides(overrides or []), config.name or "config"
    else:
        items = overrides or []
        if isinstance(items, dict):
            loaded = load_config(config).with_overrides(items)
        else:
            loaded = load_config(config, list(items))
        name = loaded.name or Path(config).stem
    if warn:  # the warning names the line of the caller's code that called the API
        preflight.warn_config(loaded, stacklevel=3)
    return loaded, name


def _settings(config: RelplanConfig, trials: int | None, seed: int | None,
              workers: int | None) -> tuple[int, int, int, str]:  # fmt: skip
    settings = config.simulation
    return (trials if trials is not None else settings.trials,
            seed if seed is not None else settings.seed,
            workers if workers is not None else settings.workers,
            "trials" if trials is not None else "simulation.trials")  # fmt: skip


def _own_figure(kind: str, draw: Any) -> Any:
    """A plotter for a figure of several axes, which cannot go on the caller's ``ax``."""

    def plotter(ax: Any) -> Any:
        if ax is not None:
            from relplan.errors import ConfigError

            raise ConfigError("ax", f"the {kind} figure lays out its own axes: call "
                                    f"plot({kind!r}) without ax")  # fmt: skip
        return draw()

    return plotter


def simulate(
    config: ConfigSource,
    trials: int | None = None,
    seed: int | None = None,
    workers: int | None = None,
    overrides: Overrides = None,
) -> Result:
    """Simulate a training job many times (``relplan simulate``).

    Parameters
    ----------
    config : str, Path or RelplanConfig
        The config.
    trials, seed, workers : int, optional
        Monte Carlo settings; by default the config's ``[simulation]`` values. One seed
        fixes every number, whatever the workers.
    overrides : list of str or dict, optional
        Keys to change first (see :meth:`RelplanConfig.with_overrides`).

    Returns
    -------
    Result
        ``summary()`` is the ``--json`` object; ``to_frame()`` one row per trial;
        ``plot()`` kinds ``lost-hours-histogram``, ``lost-hours-cdf``,
        ``lost-hours-by-bucket``, ``failures-by-mode``; ``write(dir)`` what ``--out``
        writes. ``model``, ``trials`` and the other attributes of
        :class:`~relplan.analysis.results.SimulationResult` are reached through it.

    Examples
    --------
    >>> result = simulate("configs/small.toml", trials=200, seed=1)
    >>> summary = result.summary()
    >>> summary["trials"], 0.9 < summary["goodput"]["mean"] < 1.0
    (200, True)
    >>> result.to_frame()[["wall_hours", "goodput"]].shape
    (200, 2)
    >>> len(repr(result)) < 600
    True
    """
    from relplan.analysis.baseline_report import step_baseline
    from relplan.output import plots
    from relplan.output.report import failure_table, write_simulation_outputs
    from relplan.runs.scenarios import run_scenario

    loaded, name = _config(config, overrides)
    trials, seed, workers, key = _settings(loaded, trials, seed, workers)
    preflight.check_run([loaded], "simulate", trials, key, workers)
    result = run_scenario(loaded, trials, seed, name, workers)
    data = result.summary()
    step = step_baseline(loaded)
    if step is not None:
        data["baseline"] = step
    goodput = data["goodput"]
    headline = (f"{name}, {trials:,} trials, seed {seed}: goodput {goodput['mean']:.4f} "
                f"(95% CI {goodput['ci95'][0]:.4f} to {goodput['ci95'][1]:.4f}), wall P50 "
                f"{format_duration(data['wall_hours']['p50'])}")  # fmt: skip
    source = None if isinstance(config, RelplanConfig) else str(config)
    return Result(
        "simulate", headline, data, result, frame=result.to_frame,
        plots={
            "lost-hours-histogram": lambda ax: plots.lost_hours_histogram(
                result.trials_frame(), name, ax=ax),
            "lost-hours-cdf": lambda ax: plots.lost_hours_cdf(result.trials_frame(), name, ax=ax),
            "lost-hours-by-bucket": lambda ax: plots.lost_hours_by_bucket(
                data["lost_hours_breakdown"], name, ax=ax),
            "failures-by-mode": lambda ax: plots.failures_by_mode(
                failure_table(data), name, ax=ax),
        },
        writer=lambda folder: write_simulation_outputs(result, folder, source),
    )  # fmt: skip


def optimize_interval(
    config: ConfigSource,
    trials: int | None = None,
    seed: int | None = None,
    workers: int | None = None,
    overrides: Overrides = None,
) -> Result:
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

    Returns
    -------
    Result
        ``summary()`` is the ``--json`` object (``young_hours``, ``daly_hours``,
        ``mc_optimal_hours``, ``mc_optimal_ci95``, ..., and ``two_tier`` for a job with
        a fast tier); ``to_frame()`` the curve; ``plot()`` goodput against the interval;
        the :class:`~relplan.analysis.optimize.IntervalOptimum`'s attributes
        (``young_hours``, ``mc_optimal_hours``, ...) are reached through it.

    Examples
    --------
    >>> optimum = optimize_interval("configs/small.toml", trials=100, seed=0)
    >>> low, high = optimum.summary()["mc_optimal_ci95"]
    >>> low <= optimum.mc_optimal_hours <= high
    True
    >>> list(optimum.to_frame().columns[:2])
    ['interval_hours', 'goodput_mean']
    """
    from relplan.analysis.optimize import optimize_config
    from relplan.output import plots
    from relplan.output.report import write_optimize_outputs

    loaded, name = _config(config, overrides)
    trials, seed, workers, key = _settings(loaded, trials, seed, workers)
    command = "optimize" if loaded.job.checkpoint.fast is None else "tiers"
    preflight.check_run([loaded], command, trials, key, workers)
    optimum, tiers = optimize_config(loaded, trials, seed, workers, None, key)
    data = optimum.to_dict()
    if tiers is not None:
        data["two_tier"] = tiers.to_dict()
    headline = (f"{name}: Monte Carlo optimum {format_duration(optimum.mc_optimal_hours)}, "
                f"Young {format_duration(optimum.young_hours)}, Daly "
                f"{format_duration(optimum.daly_hours)} ({trials:,} trials per interval)")
    return Result(
        "optimize", headline, data, optimum, frame=optimum.to_frame,
        plots={"goodput-vs-interval": lambda ax: plots.goodput_vs_interval(
            optimum.curve, name, young_hours=optimum.young_hours,
            daly_hours=optimum.daly_hours, mc_optimal_hours=optimum.mc_optimal_hours,
            mc_optimal_ci95=optimum.mc_optimal_ci95,
            p95_optimal_hours=optimum.p95_optimal_hours,
            p95_optimal_ci95=optimum.p95_optimal_ci95, ax=ax)},
        writer=lambda folder: write_optimize_outputs(optimum, data, folder, name),
    )  # fmt: skip


def compare(
    configs: list[ConfigSource],
    variants: dict[str, Overrides] | None = None,
    trials: int | None = None,
    seed: int | None = None,
    workers: int | None = None,
    overrides: Overrides = None,
) -> Result:
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
        Scenarios at once on local processes (1: one after another, in this process).
    overrides : list of str or dict, optional
        Applied to every scenario, before its variant.

    Returns
    -------
    Result
        ``summary()`` is the ``--json`` object (``scenarios``, one entry each, priced
        when the first config has a ``[budget]``); ``to_frame()`` one row per scenario;
        ``plot()`` goodput by scenario with its CI; ``write(dir)`` comparison.csv and
        comparison.json.

    Examples
    --------
    >>> result = compare(["configs/small.toml"], {"no spares": ["job.spares=0"]},
    ...                  trials=50, workers=1)
    >>> [row["scenario"] for row in result.summary()["scenarios"]]
    ['small', 'no spares']
    """
    from relplan.output import plots
    from relplan.output.files import write_comparison_files
    from relplan.runs.compare import ScenarioSpec, compare_scenarios, scenario_name
    from relplan.runs.executor import configured_workers, default_workers

    if not configs:
        from relplan.errors import ConfigError

        raise ConfigError("configs", "give at least one config")
    bases = [_config(source, overrides, warn=False) for source in configs]
    specs = [ScenarioSpec(Path(name), (), name) for _, name in bases]
    loaded = [config for config, _ in bases]
    for label, items in (variants or {}).items():
        specs.append(ScenarioSpec(Path(label), (), label))
        loaded.append(loaded[0].with_overrides(items or []))
    preflight.warn_configs([(f"scenario {scenario_name(spec, config)}", config)
                            for spec, config in zip(specs, loaded, strict=True)],
                           stacklevel=2)  # fmt: skip
    trials, seed, _, key = _settings(loaded[0], trials, seed, None)
    at_once = default_workers(workers if workers is not None else configured_workers(loaded[0]))
    preflight.check_run(loaded, "compare", trials, key, min(at_once, len(loaded)))
    data = compare_scenarios(specs, trials, seed, workers, configs=loaded)
    frame = pd.json_normalize(data["scenarios"])
    best = max(data["scenarios"], key=lambda row: row["goodput"])
    headline = (f"{len(specs)} scenarios, {trials:,} trials, seed {seed}; best goodput: "
                f"{best['scenario']} ({best['goodput']:.4f})")
    return Result(
        "compare", headline, data, None, frame=lambda: frame.copy(),
        plots={"goodput": lambda ax: plots.metric_by_point(
            frame.rename(columns={"scenario": "label"}).assign(
                goodput_ci95_low=frame["goodput_ci95"].str[0],
                goodput_ci95_high=frame["goodput_ci95"].str[1]),
            "goodput", "comparison", ax=ax)},
        writer=lambda folder: write_comparison_files(data, folder),
    )  # fmt: skip


@dataclass(frozen=True, repr=False, eq=False)
class StudyResult(Result):
    """The points of a study (a :class:`~relplan.api.result.Result` of ``sweep``).

    Attributes
    ----------
    study : Study
        The loaded study.
    points : pandas.DataFrame
        One row per point (see :func:`relplan.runs.sweep.run_study`).
    trials : int
        Trials per point.
    """

    study: Study | None = None
    points: pd.DataFrame | None = None
    trials: int = 0


def run_study(
    study: str | Path | Study,
    trials: int | None = None,
    workers: int | None = None,
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
        Points at once on local processes (1: one at a time in this process); by default
        the base config's ``simulation.workers`` when it sets it, else every core. A
        script that runs points on processes should keep its work under
        ``if __name__ == "__main__":``, as every multiprocessing program should.
    dask_address : str, optional
        ``"local"`` (a cluster of ``workers`` workers in this process) or a Dask
        scheduler address; the numbers do not depend on it.

    Returns
    -------
    StudyResult
        ``summary()`` is the ``--json`` object (``study``, ``answer``, ``files`` (empty
        until written), ``results``, ``provenance``); ``to_frame()`` one row per point;
        ``plot(kind)`` a metric by point (kinds: the study's metrics); ``write(dir)`` what
        ``sweep --out`` writes.

    Examples
    --------
    >>> result = run_study("studies/recovery-strategies.toml", trials=50, workers=1)
    >>> len(result.to_frame()) == len(result.summary()["results"])
    True
    """
    import json

    from relplan.output import plots
    from relplan.output.study_report import write_study_outputs
    from relplan.runs.executor import configured_workers, default_workers
    from relplan.runs.sweep import run_study as run_study_points

    loaded = study if isinstance(study, Study) else load_study(study)
    configs = [(f"study point {label}", loaded.config(items))
               for label, _, items in loaded.points()]
    preflight.warn_configs(configs, stacklevel=2)
    per_point = trials or loaded.spec.trials
    if dask_address is None or dask_address == "local":
        at_once = default_workers(workers if workers is not None
                                  else configured_workers(configs[0][1]))  # fmt: skip
        preflight.check_run([config for _, config in configs], "sweep", per_point,
                            "trials" if trials is not None else "study.trials",
                            min(at_once, len(configs)))  # fmt: skip
    results = run_study_points(loaded, per_point, workers, dask_address)
    answer = answer_sentence(loaded, results, per_point)
    data = {
        "study": loaded.spec.name,
        "answer": answer,
        "files": [],
        "results": json.loads(results.to_json(orient="records")),
        "provenance": study_provenance(loaded, results, per_point),
    }
    spec = loaded.spec
    return StudyResult(
        "sweep", f"{spec.name}, {len(results)} points x {per_point:,} trials: {answer}", data,
        None, frame=lambda: results, writer=lambda folder: write_study_outputs(
            loaded, results, folder, per_point),
        plots={metric: (lambda ax, m=metric: plots.metric_by_point(
            results, m, spec.name, reference=spec.reference, ax=ax)) for metric in spec.metrics},
        study=loaded, points=results, trials=per_point,
    )  # fmt: skip


def plan(
    plan_file: str | Path,
    trials: int | None = None,
    seed: int | None = None,
    workers: int | None = None,
) -> Result:
    """Find the best portfolio of redundancy options within a budget (``relplan plan``).

    Parameters
    ----------
    plan_file : str or Path
        The plan (``studies/*plan*.toml``).
    trials, seed : int, optional
        Trials per portfolio (at least 2) and the seed; by default the plan's, else the
        base config's ``[simulation]``.
    workers : int, optional
        Portfolios at once on local processes (1: one at a time in this process).

    Returns
    -------
    Result
        ``summary()`` is the ``--json`` object (the frontier, the best portfolio, the
        attribution, the uncertainty, ``answer`` and ``files``, empty until written);
        ``to_frame()`` one row per portfolio run; ``plot()`` kinds ``frontier``,
        ``attribution``; ``write(dir)`` what ``plan --out`` writes.

    Examples
    --------
    >>> result = plan("studies/redundancy-plan-seed-moe.toml", trials=20, workers=1)
    >>> "answer" in result.summary()
    True
    """
    from relplan.config.plan import load_plan
    from relplan.output.plan_plots import attribution_figure, frontier_figure
    from relplan.output.plan_report import plan_answer, write_plan_outputs
    from relplan.runs.executor import PointPool, configured_workers, default_workers
    from relplan.runs.planner import run_plan

    loaded = load_plan(plan_file)
    count = default_workers(workers if workers is not None else configured_workers(loaded.base))
    with PointPool(count, None) as pool:
        result = run_plan(loaded, trials, seed, pool=pool.start())
    result["source"] = str(plan_file)
    answer = plan_answer(result)
    data = {**result, "answer": answer, "files": []}
    frame_key = next((k for k in ("portfolios", "frontier") if isinstance(result.get(k), list)),
                     None)  # fmt: skip
    return Result(
        "plan", answer, data, None,
        frame=(lambda: pd.json_normalize(result[frame_key])) if frame_key else None,
        plots={"frontier": _own_figure("frontier", lambda: frontier_figure(result)),
               "attribution": _own_figure("attribution", lambda: attribution_figure(result))},
        writer=lambda folder: write_plan_outputs(result, folder, answer),
    )  # fmt: skip


def baseline(config: ConfigSource, overrides: Overrides = None) -> Result:
    """The job's communication baseline (``relplan baseline``).

    Parameters
    ----------
    config : str, Path or RelplanConfig
        The config (a ``[workload]`` gives the per-dimension traffic).
    overrides : list of str or dict, optional
        Keys to change first.

    Returns
    -------
    Result
        ``summary()`` is the ``--json`` object; ``to_frame()`` one row per key of it.

    Examples
    --------
    >>> sorted(baseline("configs/seed-moe-10k.toml").summary())[:2]
    ['baseline', 'cluster_mtbf_hours']
    """
    from relplan.analysis.baseline_report import job_baseline

    loaded, name = _config(config, overrides)
    data = job_baseline(loaded)
    return Result("baseline", f"{name}: job MTTI {format_duration(data['job_mtti_hours'])}",
                  data)  # fmt: skip


def inventory(config: ConfigSource, overrides: Overrides = None) -> Result:
    """Component counts, the fabric, failure rates and MTTI (``relplan inventory``).

    Parameters
    ----------
    config : str, Path or RelplanConfig
        The config.
    overrides : list of str or dict, optional
        Keys to change first.

    Returns
    -------
    Result
        ``summary()`` is the ``--json`` object; ``to_frame()`` one row per failure mode.

    Examples
    --------
    >>> result = inventory("configs/small.toml")
    >>> result.summary()["job_servers"], "gpu" in result.to_frame().index
    (64, True)
    """
    from relplan.analysis.inventory_report import inventory_report

    loaded, name = _config(config, overrides)
    data = inventory_report(loaded)
    return Result(
        "inventory", f"{name}: {data['job_servers']} job servers, {data['spare_servers']} "
        f"spares, job MTTI {format_duration(data['job_mtti_hours'])}", data,
        frame=lambda: pd.DataFrame.from_dict(data["failure_modes"], orient="index"),
    )  # fmt: skip


def check(config: ConfigSource, overrides: Overrides = None) -> Result:
    """Check a config (``relplan validate``): schema, units, consistency, warnings.

    Parameters
    ----------
    config : str, Path or RelplanConfig
        The config.
    overrides : list of str or dict, optional
        Keys to change first.

    Returns
    -------
    Result
        ``summary()``: ``valid`` (always True: an invalid config raises), ``gpus``,
        ``job_servers``, ``failure_modes``, ``job_mtti_hours`` and ``warnings`` (each
        ``KEY: message``, also given as :class:`~relplan.errors.RelplanWarning`).

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

    loaded, name = _config(config, overrides, warn=False)
    given = preflight.warn_config(loaded, stacklevel=2)
    model = build_model(loaded)
    data = {
        "valid": True,
        "gpus": loaded.job.gpus,
        "job_servers": model.inventory.job_servers,
        "failure_modes": len(model.modes),
        "job_mtti_hours": model.job_mtti_hours,
        "warnings": [str(w) for w in given],
    }
    return Result("check", f"{name} is valid: {data['gpus']} GPUs on {data['job_servers']} "
                  f"servers, job MTTI {format_duration(data['job_mtti_hours'])}, "
                  f"{len(given)} warnings", data, loaded)  # fmt: skip


def catalog() -> Result:
    """The default failure model of every component class, with sources (``relplan
    catalog``).

    Returns
    -------
    Result
        ``summary()`` is ``{"entries": [...]}``; ``to_frame()`` one row per entry.

    Examples
    --------
    >>> len(catalog().to_frame()) > 5
    True
    """
    from relplan.config.catalog import CATALOG

    entries = [entry.to_dict() for entry in CATALOG]
    return Result("catalog", f"{len(entries)} component classes", {"entries": entries},
                  frame=lambda: pd.DataFrame(entries))  # fmt: skip


def _warn_all(key: str, messages: Any) -> None:
    """Give each message as a :class:`~relplan.errors.RelplanWarning` about ``key`` (the
    argument or input it concerns), at the caller's line."""
    import warnings

    from relplan.errors import RelplanWarning

    for message in messages:
        warnings.warn(RelplanWarning(key, str(message)), stacklevel=3)


def fit(csv_path: str | Path, *, family: str | None = None, as_key: str = "lifetime",
        group: str | None = None, events: bool = False, start: str | None = None,
        end: str | None = None, units: int | None = None,
        unit_list: str | Path | None = None) -> Result:  # fmt: skip
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
    Result
        ``summary()`` is the ``--json`` object; ``to_frame()`` one row per family (per
        group and family with ``group``).

    Examples
    --------
    >>> result = fit("tests/data/lifetimes.csv")
    >>> result.summary()["best"] in result.to_frame().index
    True
    >>> fit("tests/data/lifetimes.csv", as_key="repair").summary()["config"][:6]
    'repair'
    """
    from relplan.calibrate.field_data import fit_file

    fitted = fit_file(csv_path, family=family, as_key=as_key, group=group, events=events,
                      start=start, end=end, units=units, unit_list=unit_list)  # fmt: skip
    _warn_all("csv_path", fitted.warnings)
    data = fitted.data
    if fitted.grouped:
        frames = {name: pd.DataFrame.from_dict(one["fits"], orient="index")
                  for name, one in data["groups"].items()}  # fmt: skip
        return Result("fit", f"{len(fitted.reports)} groups of {group!r} fitted apart", data,
                      fitted.reports,
                      frame=lambda: pd.concat(frames, names=[group, "family"]))  # fmt: skip
    report = fitted.reports[""]
    return Result("fit", f"{report.best} chosen by {data.get('chosen_by', 'AIC')} "
                  f"({report.sample.n} units, {report.sample.failures} failures)", data, report,
                  frame=lambda: pd.DataFrame.from_dict(data["fits"], orient="index"))  # fmt: skip


def analyze(log_path: str | Path, config: ConfigSource, start: str | None = None,
            end: str | None = None, *, ids: str = "auto",
            category_map: str | Path | dict[str, str] | None = None) -> Result:  # fmt: skip
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
    Result
        ``summary()`` is the ``--json`` object; ``to_frame()`` one row per category.

    Examples
    --------
    >>> result = analyze("tests/data/incidents.csv", "configs/small.toml",
    ...                  "2024-01-01", "2025-01-01")
    >>> "categories" in result.summary()
    True
    """
    from relplan.calibrate.event_log import read_category_map
    from relplan.calibrate.incidents import incident_report, read_incident_log
    from relplan.errors import ConfigError
    from relplan.vocab import LOG_ID_KINDS

    if ids not in LOG_ID_KINDS:
        raise ConfigError("ids", f"must be one of {', '.join(LOG_ID_KINDS)} (got {ids!r})")
    loaded, name = _config(config)
    mapping = (read_category_map(category_map) if isinstance(category_map, str | Path)
               else category_map)  # fmt: skip
    report = incident_report(read_incident_log(log_path), loaded, start, end, ids, mapping)
    _warn_all("log_path", report["warnings"])
    window = report.get("window", {})
    return Result("analyze", f"{Path(log_path).name} against {name}, "
                  f"{window.get('start')} to {window.get('end')}", report,
                  frame=lambda: pd.DataFrame.from_dict(report["categories"],
                                                       orient="index"))  # fmt: skip


def replay(log_path: str | Path, config: ConfigSource, start: str, end: str, *,
           intervals_hours: list[float] | None = None, samples: int | None = None,
           seed: int | None = None,
           category_map: str | Path | dict[str, str] | None = None) -> Result:  # fmt: skip
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
        Job start times drawn (default: the command line's).
    seed : int, optional
        Seed of the draw (default: the config's ``simulation.seed``).
    category_map : str, Path or dict, optional
        The log's own categories onto the config's modes.

    Returns
    -------
    Result
        ``summary()`` is the ``--json`` object; ``to_frame()`` one row per interval.

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

    loaded, name = _config(config)
    mapping = (read_category_map(category_map) if isinstance(category_map, str | Path)
               else category_map)  # fmt: skip
    report = replay_log(read_incident_log(log_path), loaded, start, end, intervals_hours,
                        samples=samples or DEFAULT_SAMPLES, seed=seed,
                        category_map=mapping)  # fmt: skip
    _warn_all("log_path", report.warnings)
    data = report.to_dict()
    return Result("replay", f"{Path(log_path).name} replayed against {name}, "
                  f"{start} to {end}", data, report,
                  frame=lambda: _replay_frame(data))  # fmt: skip


def _replay_frame(data: dict[str, Any]) -> pd.DataFrame:
    """One row per interval replayed: goodput, lost hours and interruptions (means)."""
    rows = []
    for entry in data["intervals"]:
        row = {"interval_hours": entry["interval_hours"]}
        for key in ("goodput", "lost_hours", "interruptions"):
            value = entry[key]
            row[key] = value["mean"] if isinstance(value, dict) else value
        rows.append(row)
    return pd.DataFrame(rows)


def warmup(configs: list[ConfigSource] | None = None, overrides: Overrides = None) -> Result:
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
    Result
        ``summary()`` is the ``--json`` object (``configs``, ``functions``,
        ``compiled_now``, ``already_compiled``, ``seconds``); ``to_frame()`` one row per
        compiled function (its kind, features, configs and compile seconds, null when it
        was compiled already).

    Examples
    --------
    >>> result = warmup(["configs/small.toml"])
    >>> summary = result.summary()
    >>> summary["compiled_now"] + summary["already_compiled"] == len(result.to_frame())
    True
    >>> warmup(["configs/small.toml"]).summary()["compiled_now"]  # all compiled now
    0
    """
    from relplan.errors import ConfigError
    from relplan.runs.compile_ahead import configs_of, shipped_configs, warm_up

    if configs is None:
        if overrides:
            raise ConfigError("overrides", "give the configs they apply to (without them "
                                           "the shipped configs are warmed as they are)")
        loaded = shipped_configs()
    else:
        loaded = []
        for source in configs:
            if isinstance(source, RelplanConfig) or isinstance(overrides, dict):
                config, name = _config(source, overrides, warn=False)
                loaded.append((name, config))
            else:
                loaded += configs_of(source, overrides)
    data = warm_up(loaded)
    functions = len(data["functions"])
    headline = (f"{data['compiled_now']} of {functions} functions compiled now, in "
                f"{data['seconds']:.1f} s, for {len(loaded)} configs"
                if data["compiled_now"] else
                f"everything already compiled ({functions} functions, {len(loaded)} configs)")
    return Result("warmup", headline, data, frame=lambda: pd.DataFrame(data["functions"]))
