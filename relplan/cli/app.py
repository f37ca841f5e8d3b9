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

from relplan import __version__
from relplan.cli.calibration import analyze_command, fit_command
from relplan.cli.common import (
    DIR,
    SEED,
    TRIALS,
    WORKERS,
    ConfigArgument,
    JsonOption,
    SetOption,
    reports_errors,
)
from relplan.errors import ConfigError
from relplan.units import UnitError, parse_duration_hours

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


def _load(config_path: Path, overrides: list[str] | None) -> RelplanConfig:
    from relplan.config.loading import load_config

    return load_config(config_path, overrides or [])


def _config_name(config: RelplanConfig, config_path: Path) -> str:
    return config.name or config_path.stem


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

    with Progress(TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=error_console, transient=True) as bar:  # fmt: skip
        task = bar.add_task(label, total=total)
        yield lambda n: bar.advance(task, n)


def _wrote(paths: list[Path]) -> None:
    from relplan.cli.render import error_console

    error_console.print(f"wrote {', '.join(str(p) for p in paths)}", highlight=False)


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
    strict: Annotated[
        bool,
        typer.Option(
            "--strict",
            help="Exit 1 when a warning is given (a design that does not fit its switches).",
        ),
    ] = False,
) -> None:
    """Check a config: schema, units and consistency. Exit 0 when it is valid.

    A design that does not fit its switches' ports is valid (relplan counts it all the same)
    but gets a warning on stderr naming the tier and the shortfall; with --strict that is
    an error (exit 1).
    """
    from relplan.cli.render import console, error_console
    from relplan.cluster.topology import check_port_budget
    from relplan.sim.model import build_model
    from relplan.units import format_duration

    config = _load(config_path, overrides)
    model = build_model(config)
    problems = check_port_budget(model.inventory)
    for problem in problems:
        error_console.print(f"[bold yellow]warning:[/] port budget: {problem}", highlight=False,
                            soft_wrap=True)  # fmt: skip
    console.print(
        f"[green]ok[/]: {config_path} is valid: {config.job.gpus} GPUs on "
        f"{model.inventory.job_servers} servers, {len(model.modes)} failure modes, "
        f"job MTTI {format_duration(model.job_mtti_hours)}",
        highlight=False,
    )
    if strict and problems:
        raise typer.Exit(code=1)


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
    from relplan.analysis.inventory import inventory_report
    from relplan.cli.render import render_inventory

    _report(config_path, overrides, as_json, inventory_report, render_inventory)


@app.command("simulate")
@reports_errors
def simulate_command(
    config_path: ConfigArgument,
    trials: Annotated[
        int | None,
        typer.Option(metavar=TRIALS, min=1, help="Monte Carlo trials [default: from the config]."),
    ] = None,
    seed: Annotated[
        int | None,
        typer.Option(metavar=SEED, min=0, help="Seed of every random number [default: config]."),
    ] = None,
    interval: Annotated[
        str | None,
        typer.Option(
            metavar="DURATION",
            help="Checkpoint interval, e.g. 45min (overrides job.checkpoint.interval).",
        ),
    ] = None,
    overrides: SetOption = None,
    workers: Annotated[
        int | None,
        typer.Option(metavar=WORKERS, min=1, help="Threads running blocks of trials at once."),
    ] = None,
    as_json: JsonOption = False,
    out: Annotated[
        Path | None,
        typer.Option(
            metavar=DIR,
            help="Write trials.parquet, summary.csv, summary.json, figures, report.md, "
            "report.html and provenance.json to this folder.",
        ),
    ] = None,
) -> None:
    """Simulate a training job many times; report wall time, goodput and lost hours."""
    from relplan.analysis.baseline import step_baseline
    from relplan.analysis.scenarios import run_scenario
    from relplan.cli.render import error_console
    from relplan.output.files import to_json

    items = list(overrides or [])
    if interval is not None:
        try:
            hours = parse_duration_hours(interval)
        except UnitError as error:
            raise ConfigError("--interval", str(error)) from None
        if hours <= 0:
            raise ConfigError("--interval", f"must be greater than 0 (got {interval!r})")
        items.append(f"job.checkpoint.interval={json.dumps(interval)}")
    config = _load(config_path, items)
    if out is not None:
        from relplan.output.files import check_output_dir

        check_output_dir(out)
    trials = trials if trials is not None else config.simulation.trials
    seed = seed if seed is not None else config.simulation.seed
    workers = workers if workers is not None else config.simulation.workers
    with _progress("simulating", trials, not as_json and error_console.is_terminal) as advance:
        result = run_scenario(config, trials, seed, _config_name(config, config_path), workers,
                              advance)  # fmt: skip
    if out is not None:
        from relplan.output.report import write_simulation_outputs

        written = write_simulation_outputs(result, out, str(config_path))
        if not as_json:
            _wrote(written)
    baseline = step_baseline(config)
    if as_json:
        data = result.summary()
        if baseline is not None:
            data["baseline"] = baseline
        typer.echo(to_json(data))
        return
    from relplan.cli.render import render_simulation, render_step_baseline
    from relplan.units import format_duration

    if baseline is not None:
        render_step_baseline(baseline)
    job = result.model.job
    render_simulation(
        result.summary(),
        f"{result.config_name}: {trials:,} trials, seed {seed}, "
        f"interval {format_duration(job.interval_hours)}, write "
        f"{format_duration(job.write_hours)}, job MTTI "
        f"{format_duration(result.model.job_mtti_hours)}",
    )


@app.command("baseline")
@reports_errors
def baseline_command(
    config_path: ConfigArgument, overrides: SetOption = None, as_json: JsonOption = False
) -> None:
    """Show the job's communication baseline: per parallelism dimension and per step."""
    from relplan.analysis.baseline import job_baseline
    from relplan.cli.render import render_baseline

    _report(config_path, overrides, as_json, job_baseline, render_baseline)


@app.command("optimize")
@reports_errors
def optimize_command(
    config_path: ConfigArgument,
    trials: Annotated[
        int | None,
        typer.Option(metavar=TRIALS, min=2, help="Trials per interval [default: from the config]."),
    ] = None,
    seed: Annotated[
        int | None, typer.Option(metavar=SEED, min=0, help="Seed shared by every interval.")
    ] = None,
    overrides: SetOption = None,
    workers: Annotated[int | None, typer.Option(metavar=WORKERS, min=1, help="Threads.")] = None,
    as_json: JsonOption = False,
    out: Annotated[
        Path | None,
        typer.Option(
            metavar=DIR, help="Write optimize.json, curve.csv and goodput-vs-interval plots here."
        ),
    ] = None,
) -> None:
    """Find the checkpoint interval: Young, Daly and the Monte Carlo optimum with its CI."""
    from relplan.analysis.optimize import optimize_config
    from relplan.output.files import to_json

    config = _load(config_path, overrides)
    if out is not None:
        from relplan.output.files import check_output_dir

        check_output_dir(out)
    trials = trials if trials is not None else config.simulation.trials
    seed = seed if seed is not None else config.simulation.seed
    workers = workers if workers is not None else config.simulation.workers
    result, tiers = optimize_config(config, trials, seed, workers)
    name = _config_name(config, config_path)
    data = result.to_dict()
    if tiers is not None:
        data["two_tier"] = tiers.to_dict()
    if out is not None:
        from relplan.output.report import write_optimize_outputs

        written = write_optimize_outputs(result, data, out, name)
    if as_json:
        typer.echo(to_json(data))
        return
    from relplan.cli.render import render_optimum

    render_optimum(result, tiers, name, trials)
    if out is not None:
        _wrote(written)


@app.command("sweep")
@reports_errors
def sweep_command(
    study_path: Annotated[
        Path, typer.Argument(help="Study file (see studies/).", metavar="STUDY", show_default=False)
    ],
    trials: Annotated[
        int | None, typer.Option(metavar=TRIALS, min=1, help="Trials per point.")
    ] = None,
    workers: Annotated[
        int, typer.Option(metavar=WORKERS, min=1, help="Local threads running points.")
    ] = 1,
    dask: Annotated[
        str | None,
        typer.Option(metavar="ADDRESS", help='Run points on Dask: "local" or a scheduler address.'),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option(metavar=DIR, help="Output folder [default: out/<study name>]."),
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Run a declarative study; write results.parquet, figures, report.md and report.html."""
    from relplan.analysis.provenance import study_provenance
    from relplan.analysis.sweep import answer_sentence, run_study
    from relplan.cli.render import error_console
    from relplan.config.study import load_study
    from relplan.output.files import check_output_dir, to_json
    from relplan.output.study_report import write_study_outputs

    study = load_study(study_path)
    directory = out if out is not None else Path("out") / study.spec.name
    check_output_dir(directory)
    show = not as_json and error_console.is_terminal
    with _progress(study.spec.name, len(study.points()), show) as advance:
        results = run_study(study, trials, workers, dask, progress=advance)
    per_point = trials or study.spec.trials
    written = write_study_outputs(study, results, directory, per_point)
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
    _wrote([directory / "report.md", directory / "report.html", directory / "results.parquet"])


@app.command("compare")
@reports_errors
def compare_command(
    config_paths: Annotated[
        list[Path], typer.Argument(help="One or more configs.", metavar="CONFIG...")
    ],
    variant: Annotated[
        list[str] | None,
        typer.Option(
            metavar="VARIANT",
            help='A variant of the first config: "LABEL: KEY=VALUE; KEY=VALUE" (repeatable).',
        ),
    ] = None,
    trials: Annotated[
        int | None,
        typer.Option(metavar=TRIALS, min=1, help="Trials per scenario [default: from the config]."),
    ] = None,
    seed: Annotated[
        int | None,
        typer.Option(metavar=SEED, min=0, help="Seed shared by every scenario [default: config]."),
    ] = None,
    overrides: SetOption = None,
    as_json: JsonOption = False,
) -> None:
    """Compare scenarios on common failure streams: goodput, GPU-hours, cost and net value.

    Scenarios are the configs given and the variants of the first; the first is the
    reference. With a budget table in the first config, each scenario is also priced (its
    hardware charge for the job and the value of the GPU-hours it loses) and its net value
    against the reference and break-even GPU-hour value are shown.
    """
    from relplan.analysis.compare import ScenarioSpec, compare_scenarios, parse_variant
    from relplan.output.files import to_json

    items = list(overrides or [])
    scenarios = [ScenarioSpec(path, tuple(items)) for path in config_paths]
    scenarios += [parse_variant(text, config_paths[0], items) for text in variant or []]
    data = compare_scenarios(scenarios, trials, seed)
    if as_json:
        typer.echo(to_json(data))
        return
    from relplan.cli.render import render_comparison

    render_comparison(data, priced="net_value" in data["scenarios"][0])


app.command("fit")(reports_errors(fit_command))
app.command("analyze")(reports_errors(analyze_command))
