"""The ``relplan`` command line (typer): parse, call the library, render.

Every command takes a TOML config and repeatable ``--set KEY=VALUE`` overrides. A bad
config or argument prints one message naming the key and exits with code 2.

Start-up is kept lean: this module imports only typer and relplan's light modules; each
command imports the library it needs (pydantic, numpy, numba, pandas, matplotlib) when it
runs, so ``relplan --help`` and ``relplan --version`` pay for none of them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from relplan.cli.calibration_commands import analyze_command, fit_command, replay_command
from relplan.cli.common import (
    SEED,
    TRIALS,
    ConfigArgument,
    DaskOption,
    FreshOption,
    HorizonOption,
    IntervalOption,
    JsonOption,
    PointWorkersOption,
    SeedOption,
    SetOption,
    TrialsOption,
    WorkersOption,
    YesOption,
    command_overrides,
    out_option,
    parse_jointly,
    points_progress,
    quiet_option,
    reports_errors,
)
from relplan.cli.notes import (
    announce_points,
    note_reused,
    write_outputs,
)
from relplan.errors import ConfigError
from relplan.version import __version__

if TYPE_CHECKING:
    from relplan.config.schema import RelplanConfig

app = typer.Typer(
    name="relplan",
    help="Monte Carlo reliability and checkpoint planner for large AI training clusters.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # plain help: brackets in help text stay as written
)

def _show_version(value: bool) -> None:
    if value:
        typer.echo(f"relplan {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            callback=_show_version,
            is_eager=True,
            help="Show relplan's version and exit.",
        ),
    ] = False,
) -> None:
    """Monte Carlo reliability and checkpoint planner for large AI training clusters."""


def _load(config_path: Path, overrides: list[str] | None, warn: bool = True) -> RelplanConfig:
    """Load a config; give its warnings (printed on stderr by :func:`reports_errors`)."""
    from relplan.config.loading import load_config
    from relplan.runs.preflight import warn_config

    config = load_config(config_path, overrides or [])
    if warn:
        warn_config(config)
    return config


def _config_name(config: RelplanConfig, config_path: Path) -> str:
    return config.name or config_path.stem


def _check_memory(configs: list[RelplanConfig], command: str, trials: int, key: str,
                  workers: int = 1, write_trials: bool = False,
                  workers_key: str = "--workers") -> None:  # fmt: skip
    """Refuse, before any work, a job that would never finish, and a run that cannot fit
    in the available memory: too many trials (the error names ``key``), or too many
    workers holding their blocks or points at once (it names ``workers_key``); see
    :func:`relplan.runs.preflight.check_run`."""
    from relplan.runs.preflight import check_run

    check_run(configs, command, trials, key, workers, write_trials, workers_key)


def _settings(config: RelplanConfig, trials: int | None, seed: int | None,
              workers: int | None) -> tuple[int, int, int, str]:  # fmt: skip
    """Trials, seed and workers from the options or the config, and what names the trials."""
    settings = config.simulation
    return (
        trials if trials is not None else settings.trials,
        seed if seed is not None else settings.seed,
        workers if workers is not None else settings.workers,
        "--trials" if trials is not None else "simulation.trials",
    )


@contextmanager
def _progress(label: str, total: int, show: bool) -> Iterator[Callable[[int], None] | None]:
    """A progress bar on stderr counting ``total`` trials (None when not shown)."""
    if not show:
        yield None
        return
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    from relplan.cli.render import error_console

    with Progress(TextColumn(label), BarColumn(), MofNCompleteColumn(), TextColumn("trials"),
                  TimeElapsedColumn(), console=error_console, transient=True) as bar:  # fmt: skip
        task = bar.add_task(label, total=total)
        yield lambda n: bar.advance(task, n)


def _shows_progress(as_json: bool) -> bool:
    from relplan.cli.render import error_console

    return not as_json and error_console.is_terminal


def _report(
    config_path: Path,
    overrides: list[str] | None,
    as_json: bool,
    build: Callable[[RelplanConfig], dict[str, Any]],
    render: Callable[[dict[str, Any], str], None],
) -> None:
    """Build a report of a config; print it as JSON, or render it for the terminal."""
    from relplan.output.files import to_json

    config = _load(config_path, overrides)
    data = build(config)
    if as_json:
        typer.echo(to_json(data))
        return
    render(data, _config_name(config, config_path))


@app.command("validate")
@reports_errors
def validate_command(
    config_path: ConfigArgument,
    overrides: SetOption = None,
    interval: IntervalOption = None,
    strict: Annotated[
        bool,
        typer.Option(
            "--strict",
            help="Exit 1 when a warning is given (a legal but suspicious setting).",
        ),
    ] = False,
) -> None:
    """Check a config: schema, units and consistency. Exit 0 when it is valid.

    (relplan published checks relplan itself against published figures.)

    A legal but suspicious setting (switches short of ports, a checkpoint write longer
    than its interval, failures faster than a checkpoint cycle) is valid but gets one
    warning line on stderr naming the key, as from every command; with --strict that is
    an error (exit 1).
    """
    from relplan.cli.render import console
    from relplan.config.fleet_config import is_fleet_file
    from relplan.runs.preflight import warn_config
    from relplan.sim.model import build_model
    from relplan.units import format_duration

    if is_fleet_file(config_path):
        from relplan.cli.fleet_command import validate_fleet_command

        validate_fleet_command(config_path, command_overrides(overrides, interval), strict)
        return
    config = _load(config_path, command_overrides(overrides, interval), warn=False)
    problems = warn_config(config)
    if strict and problems:
        from relplan.cli.render import error_console

        error_console.print(f"[bold red]error:[/] --strict: {config_path} is valid but has "
                            f"{len(problems)} warning{'s' if len(problems) > 1 else ''}",
                            highlight=False, soft_wrap=True)  # fmt: skip
        raise typer.Exit(code=1)
    model = build_model(config)
    console.print(
        f"[green]ok[/]: {config_path} is valid: {config.job.gpus} GPUs on "
        f"{model.inventory.job_servers} servers, {len(model.modes)} failure modes, "
        f"job MTTI {format_duration(model.job_mtti_hours)}",
        highlight=False,
    )


@app.command("catalog")
@reports_errors
def catalog_command(as_json: JsonOption = False) -> None:
    """Show the default failure model of every component class, with its sources."""
    from relplan.config.catalog import CATALOG

    entries = [entry.to_dict() for entry in CATALOG]
    if as_json:
        from relplan.output.files import to_json

        typer.echo(to_json({"entries": entries}))
        return
    from relplan.cli.render import render_catalog

    render_catalog(entries)


@app.command("inventory")
@reports_errors
def inventory_command(
    config_path: ConfigArgument, overrides: SetOption = None, as_json: JsonOption = False
) -> None:
    """Show component counts, the fabric and its port budget, per-class failure rates and MTTI."""
    from relplan.analysis.inventory_report import inventory_report
    from relplan.cli.render import render_inventory

    _report(config_path, overrides, as_json, inventory_report, render_inventory)


@app.command("simulate")
@reports_errors
def simulate_command(
    config_path: ConfigArgument,
    trials: TrialsOption = None,
    seed: SeedOption = None,
    interval: IntervalOption = None,
    horizon: HorizonOption = None,
    overrides: SetOption = None,
    workers: WorkersOption = None,
    as_json: JsonOption = False,
    out: Annotated[
        Path | None, out_option("trials.parquet, summary.csv, summary.json, figures, "
                                "report.md, report.html and provenance.json here"),
    ] = None,
) -> None:
    """Simulate a training job many times; report wall time, goodput and lost hours.

    A fleet config ([[jobs]]) runs every job and reports each and the fleet's totals."""
    from relplan.analysis.baseline_report import step_baseline
    from relplan.config.fleet_config import is_fleet_file
    from relplan.output.files import to_json
    from relplan.runs.scenarios import run_scenario

    if is_fleet_file(config_path):
        from relplan.cli.fleet_command import simulate_fleet_command

        simulate_fleet_command(config_path, trials, seed, workers, overrides, as_json, out,
                               {"--interval": interval, "--horizon": horizon})
        return
    config = _load(config_path, command_overrides(overrides, interval, horizon))
    if out is not None:
        from relplan.output.files import check_output_dir

        check_output_dir(out)
    workers_key = "--workers" if workers is not None else "simulation.workers"
    trials, seed, workers, key = _settings(config, trials, seed, workers)
    _check_memory([config], "simulate", trials, key, workers, write_trials=out is not None,
                  workers_key=workers_key)
    with _progress("simulating", trials, _shows_progress(as_json)) as advance:
        result = run_scenario(config, trials, seed, _config_name(config, config_path), workers,
                              advance)  # fmt: skip
    if out is not None:
        from relplan.output.report import write_simulation_outputs

        write_outputs(out, lambda folder: write_simulation_outputs(result, folder,
                                                                   str(config_path)))
    baseline = step_baseline(config)
    if as_json:
        data = result.summary()
        if baseline is not None:
            data["baseline"] = baseline
        typer.echo(to_json(data))
        return
    from relplan.cli.render import (
        render_failure_free_work,
        render_simulation,
        render_step_baseline,
    )
    from relplan.units import format_duration

    if baseline is not None:
        render_step_baseline(baseline)
    job = result.model.job
    if job.horizon_hours is None:
        render_failure_free_work(job.work_hours, result.model.step_hours, job.compute_hours)
    # a calendar window takes the place of the write in the title (80 columns)
    window = f"write {format_duration(job.write_hours)}"
    if job.horizon_hours is not None:
        window = f"over {format_duration(job.horizon_hours)}"
    render_simulation(
        result.summary(),
        f"{result.config_name}: {trials:,} trials, seed {seed}, "
        f"interval {format_duration(job.interval_hours)}, {window}, job MTTI "
        f"{format_duration(result.model.job_mtti_hours)}",
    )


@app.command("baseline")
@reports_errors
def baseline_command(
    config_path: ConfigArgument, overrides: SetOption = None, as_json: JsonOption = False
) -> None:
    """Show the job's communication baseline: per parallelism dimension and per step."""
    from relplan.analysis.baseline_report import job_baseline
    from relplan.cli.render import render_baseline

    _report(config_path, overrides, as_json, job_baseline, render_baseline)


@app.command("optimize")
@reports_errors
def optimize_command(
    config_path: ConfigArgument,
    trials: TrialsOption = None,
    seed: SeedOption = None,
    horizon: HorizonOption = None,
    overrides: SetOption = None,
    workers: WorkersOption = None,
    as_json: JsonOption = False,
    out: Annotated[
        Path | None, out_option("optimize.json, curve.csv and goodput-vs-interval plots here")
    ] = None,
    jointly: Annotated[str | None, typer.Option(
        "--jointly", metavar="KEY=V1,V2,...", show_default=False, help=(
            "Optimise the interval at each value of a key too, e.g. "
            "health.probe.every=6h,12h,24h: the best pair wins."))] = None,
) -> None:
    """Find the checkpoint interval: Young, Daly and the Monte Carlo optimum with its CI.

    Every interval tried runs --trials trials (at least 2: the confidence intervals come
    from the spread between trials).
    """
    from relplan.analysis.optimize import optimize_config, optimize_jointly, planned_trials
    from relplan.output.files import to_json
    from relplan.sim.model import build_model

    config = _load(config_path, command_overrides(overrides, horizon=horizon))
    if out is not None:
        from relplan.output.files import check_output_dir

        check_output_dir(out)
    workers_key = "--workers" if workers is not None else "simulation.workers"
    trials, seed, workers, key = _settings(config, trials, seed, workers)
    command = "optimize" if config.job.checkpoint.fast is None else "tiers"
    _check_memory([config], command, trials, key, workers, workers_key=workers_key)
    total = planned_trials(build_model(config), trials)
    search = None
    if jointly is None:
        with _progress("optimizing", total, _shows_progress(as_json)) as advance:
            result, tiers = optimize_config(config, trials, seed, workers, advance, key)
    else:
        joint_key, values = parse_jointly(jointly)
        with _progress("optimizing", total * len(values), _shows_progress(as_json)) as advance:
            result, tiers, search = optimize_jointly(config, joint_key, values, trials, seed,
                                                     workers, advance, key, "--jointly")
    name = _config_name(config, config_path)
    data = result.to_dict()
    if tiers is not None:
        data["two_tier"] = tiers.to_dict()
    if search is not None:
        data["jointly"] = search.to_dict()
    if out is not None:
        from relplan.output.report import write_optimize_outputs

        write_outputs(out, lambda folder: write_optimize_outputs(result, data, folder, name))
    if as_json:
        typer.echo(to_json(data))
        return
    from relplan.cli.render import render_joint_search, render_optimum

    render_optimum(result, tiers, name, trials)
    if search is not None:
        render_joint_search(search)


@app.command("sweep")
@reports_errors
def sweep_command(
    study_path: Annotated[
        Path, typer.Argument(help="Study file (see studies/).", metavar="STUDY", show_default=False)
    ],
    trials: Annotated[
        int | None,
        quiet_option(metavar=TRIALS, min=1, help="Trials per point [default: the study's trials]."),
    ] = None,
    seed: Annotated[
        int | None,
        quiet_option(
            metavar=SEED,
            min=0,
            help="Seed shared by every point [default: the study's seed].",
        ),
    ] = None,
    interval: IntervalOption = None,
    overrides: SetOption = None,
    workers: PointWorkersOption = None,
    dask: DaskOption = None,
    out: Annotated[
        Path | None, out_option("results.parquet, figures and reports here [default: "
                                "out/<study name>]")
    ] = None,
    fresh: FreshOption = False,
    yes: YesOption = False,
    as_json: JsonOption = False,
) -> None:
    """Run a declarative study; write results.parquet, figures, report.md and report.html.

    --set and --interval apply to every point, after the study's own set; a key the study
    varies, or that one of its scenarios sets, cannot be overridden (exit 2). The number
    of points is told at once with a rough memory and time estimate; more than 100,000
    need --yes. Each finished point is stored at once in the output folder
    (points.sqlite); a rerun reuses them (--fresh ignores them). The folder's files are
    replaced together at the end: a Ctrl-C leaves the previous run or this one.
    """
    from relplan.analysis.provenance import study_provenance
    from relplan.config.study import load_study
    from relplan.output.files import check_output_dir, to_json
    from relplan.output.study_report import write_study_outputs
    from relplan.runs.resources import point_workers, running_points, store_in
    from relplan.runs.sweep import answer_sentence, run_study
    from relplan.sim.model import build_model

    workers_key = "--workers" if workers is not None else "simulation.workers"
    items = command_overrides(overrides, interval)
    sources = {"job.checkpoint.interval": "--interval"} if interval is not None else {}
    study = load_study(study_path, items, seed, validate_points=False, sources=sources)
    directory = out if out is not None else Path("out") / study.spec.name
    check_output_dir(directory)
    per_point = trials or study.spec.trials
    key = "--trials" if trials is not None else "study.trials"
    count = study.spec.point_count()
    try:  # the estimate's representative point: the base with the study's own set
        base = study.config(list(study.spec.set))
    except ConfigError:  # valid only with each point's own keys: the first point
        base = study.config(study.points()[0][2])
    workers = point_workers(workers, base)
    announce_points(build_model(base), count, per_point, workers, yes)
    points = study.points()
    labelled = study.labelled_configs()
    configs = [config for _, config in labelled]
    _print_grouped_warnings(labelled)
    if dask is None or dask == "local":
        _check_memory(configs, "sweep", per_point, key, min(workers, len(points)),
                      workers_key=workers_key)
    with running_points(workers, dask, len(points), store_in(directory), fresh) as (pool, store):
        with points_progress(study.spec.name, len(points), per_point,
                             _shows_progress(as_json)) as advance:  # fmt: skip
            results = run_study(study, per_point, progress=advance, store=store, pool=pool)
        note_reused(store, len(points), "points")
    written = write_outputs(directory, lambda folder: write_study_outputs(study, results, folder,
                                                                          per_point))
    answer = answer_sentence(study, results, per_point)
    records = json.loads(results.to_json(orient="records"))
    if as_json:
        typer.echo(
            to_json(
                {
                    "study": study.spec.name,
                    "answer": answer,
                    "files": [str(p) for p in written],
                    "results": records,
                    "provenance": study_provenance(study, results, per_point),
                }
            )
        )
        return
    from relplan.cli.render import render_sweep

    render_sweep(records, list(study.spec.metrics),
                 f"{study.spec.name}: {study.spec.question}", answer)  # fmt: skip


def _print_grouped_warnings(labelled: list[tuple[str, RelplanConfig]]) -> None:
    """Give the warnings of several configs, one per key
    (:func:`relplan.runs.preflight.warn_configs`)."""
    from relplan.runs.preflight import warn_configs

    warn_configs(labelled)


@app.command("compare")
@reports_errors
def compare_command(
    config_paths: Annotated[
        list[Path], typer.Argument(help="One or more configs.", metavar="CONFIG...")
    ],
    variant: Annotated[
        list[str] | None,
        quiet_option(
            metavar="VARIANT",
            help='A variant of the first config: "LABEL: KEY=VALUE; KEY=VALUE" (repeatable).',
        ),
    ] = None,
    trials: TrialsOption = None,
    seed: SeedOption = None,
    interval: IntervalOption = None,
    overrides: SetOption = None,
    workers: PointWorkersOption = None,
    dask: DaskOption = None,
    as_json: JsonOption = False,
    out: Annotated[Path | None, out_option("comparison.csv and comparison.json here")] = None,
    fresh: FreshOption = False,
) -> None:
    """Compare scenarios on common failure streams: goodput, GPU-hours, cost and net value.

    Scenarios are the configs given and the variants of the first; the first is the
    reference. --set and --interval apply to every scenario, before its variant. With a
    budget table in the first config, each scenario is also priced (its hardware charge
    for the job and the value of the GPU-hours it loses) and its net value against the
    reference and break-even GPU-hour value are shown. With --out, each scenario is
    stored the moment it finishes (points.sqlite), and a rerun reuses them (--fresh
    ignores them).
    """
    from relplan.config.fleet_config import is_fleet_file
    from relplan.output.files import check_output_dir, to_json
    from relplan.runs.compare import (
        ScenarioSpec,
        compare_scenarios,
        load_scenarios,
        parse_variant,
        scenario_name,
    )
    from relplan.runs.resources import point_workers, running_points, store_in

    if config_paths and is_fleet_file(config_paths[0]):
        from relplan.cli.fleet_command import compare_fleets_command

        compare_fleets_command(config_paths, variant or [], trials, seed, workers,
                               list(overrides or []), as_json, out,
                               {"--dask": dask, "--fresh": fresh, "--interval": interval})
        return
    workers_key = "--workers" if workers is not None else "simulation.workers"
    items = command_overrides(overrides, interval)
    scenarios = [ScenarioSpec(path, tuple(items)) for path in config_paths]
    scenarios += [parse_variant(text, config_paths[0], items) for text in variant or []]
    configs = load_scenarios(scenarios)
    names = [scenario_name(spec, config) for spec, config in zip(scenarios, configs, strict=True)]
    # a variant's label names its rows: two of one name cannot be told apart (the same
    # config given twice keeps its name, as before)
    labels = names[len(config_paths):]
    repeated = sorted({label for label in labels if names.count(label) > 1})
    if repeated:
        raise ConfigError("--variant", f"two scenarios are named {repeated[0]!r}: give each "
                                       "variant its own label")
    _print_grouped_warnings([(f"scenario {name}", config)
                             for name, config in zip(names, configs, strict=True)])
    if out is not None:
        check_output_dir(out)
    trials, seed, _, key = _settings(configs[0], trials, seed, workers)
    workers = point_workers(workers, configs[0])
    if dask is None or dask == "local":
        _check_memory(configs, "compare", trials, key, min(workers, len(configs)),
                      workers_key=workers_key)
    with running_points(workers, dask, len(configs), store_in(out), fresh) as (pool, store):
        with points_progress("comparing", len(configs), trials,
                             _shows_progress(as_json)) as advance:  # fmt: skip
            data = compare_scenarios(scenarios, trials, seed, progress=advance,
                                     configs=configs, store=store, pool=pool)
        note_reused(store, len(configs), "scenarios")
    if out is not None:
        from relplan.output.files import write_comparison_files

        write_outputs(out, lambda folder: write_comparison_files(data, folder))
    if as_json:
        typer.echo(to_json(data))
        return
    from relplan.cli.render import render_comparison

    render_comparison(data, priced="net_value" in data["scenarios"][0])


app.command("fit")(reports_errors(fit_command))
app.command("analyze")(reports_errors(analyze_command))
app.command("replay")(reports_errors(replay_command))


# relplan published: relplan against published figures. Its old name, "validation", read
# too much like "validate" (which checks a config); it stays as a hidden alias.
from relplan.cli.published_command import published_command  # noqa: E402

app.command("published")(reports_errors(published_command))
app.command("validation", hidden=True)(reports_errors(published_command))

# relplan plan: the best portfolio of redundancy options under a budget
from relplan.cli.plan_command import plan_command  # noqa: E402

app.command("plan")(reports_errors(plan_command))

# relplan warmup: compile the engine ahead of the first run
from relplan.cli.warmup_command import warmup_command  # noqa: E402

app.command("warmup")(reports_errors(warmup_command))

# relplan advise: a live run's checkpoint interval from its own save times and failures
from relplan.cli.advise_command import advise_command  # noqa: E402

app.command("advise")(reports_errors(advise_command))
