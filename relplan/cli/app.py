"""The ``relplan`` command line (typer): parse, call the library, render.

Every command takes a TOML config and repeatable ``--set KEY=VALUE`` overrides. A bad
config or argument prints one message naming the key and exits with code 2.
"""

from __future__ import annotations

import functools
import json
import math
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from relplan.analysis.optimize import optimize_interval, optimize_tiers
from relplan.analysis.results import SimulationResult
from relplan.analysis.sweep import answer_sentence, run_study
from relplan.cluster.budget import net_value, scenario_cost
from relplan.cluster.topology import Inventory, check_port_budget
from relplan.comm.baseline import baseline_report
from relplan.config.loading import load_config
from relplan.config.schema import RelplanConfig
from relplan.config.study import load_study
from relplan.errors import ConfigError, InfeasibleJobError
from relplan.output import plots
from relplan.output.files import to_json, write_atomic, write_result_files, write_text_atomic
from relplan.output.report import write_simulation_figures
from relplan.output.study_report import write_study_outputs
from relplan.sim.engine import simulate
from relplan.sim.model import SimulationModel, build_model, cluster_mtbf
from relplan.units import UnitError, format_duration, parse_duration_hours
from relplan.vocab import BUCKETS

app = typer.Typer(
    name="relplan",
    help="Monte Carlo reliability and checkpoint planner for large AI training clusters.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)

# Outside a terminal (piped, captured), tables get room instead of rich's default 80.
console = Console(width=None if sys.stdout.isatty() else 160)
error_console = Console(stderr=True)

ConfigArgument = Annotated[
    Path,
    typer.Argument(help="TOML config file (see configs/).", show_default=False, metavar="CONFIG"),
]
SetOption = Annotated[
    list[str] | None,
    typer.Option(
        "--set",
        help="Override a config key, e.g. --set job.checkpoint.interval=30min (repeatable).",
        show_default=False,
    ),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print one JSON object on stdout.")]

Command = TypeVar("Command", bound=Callable[..., Any])


def _fail(key: str, message: str) -> typer.Exit:
    error_console.print(f"[bold red]error:[/] {key}: {message}", highlight=False, soft_wrap=True)
    return typer.Exit(code=2)


def reports_errors(command: Command) -> Command:
    """Turn the library's input errors into one message and exit code 2."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except ConfigError as error:
            raise _fail(error.key, error.message) from None
        except InfeasibleJobError as error:
            raise _fail("job", str(error)) from None

    return wrapper  # type: ignore[return-value]


def _load(config_path: Path, overrides: list[str] | None) -> RelplanConfig:
    return load_config(config_path, overrides or [])


def _config_name(config: RelplanConfig, config_path: Path) -> str:
    return config.name or config_path.stem


@app.command("validate")
@reports_errors
def validate_command(config_path: ConfigArgument, overrides: SetOption = None) -> None:
    """Check a config: schema, units and consistency. Exit 0 when it is valid."""
    config = _load(config_path, overrides)
    model = build_model(config)
    console.print(
        f"[green]ok[/]: {config_path} is valid: {config.job.gpus} GPUs on "
        f"{model.inventory.job_servers} servers, {len(model.modes)} failure modes, "
        f"job MTTI {_hours(model.job_mtti_hours)}",
        highlight=False,
    )


_SHORT_KIND = {"exponential": "exp", "weibull": "Weibull", "lognormal": "logn", "fixed": "fixed"}


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


def _impact_text(mode: dict[str, Any]) -> str:
    if mode["impact"] in ("degraded", "elastic"):
        return f"{mode['impact']} +{100 * (mode['slowdown'] - 1):.2g}% step time"
    if mode["impact"] == "transient":
        return f"stall {format_duration(mode['stall_hours'])}"
    return mode["impact"]


def _hours(hours: float) -> str:
    return "never" if hours == float("inf") else format_duration(hours)


def inventory_data(config: RelplanConfig) -> dict[str, Any]:
    """The inventory of a config as a JSON-ready dict (counts, rates, job MTTI).

    Parameters
    ----------
    config : RelplanConfig
        A validated config.

    Returns
    -------
    dict
        ``components`` (cluster and job units per class), ``failure_modes`` (per mode:
        unit, units in the job, mean life in hours, failures per hour of the job's use,
        share of failures, impact, slowdown of one unrepaired failure, stall),
        ``job_mtti_hours`` (fatal modes only), ``job_servers``, ``spare_servers``,
        ``topology`` (the fabric's facts), ``port_budget`` (per switch tier: switches,
        ports down, up, needed and available per switch, fits, shortfall) and
        ``port_problems`` (one line per tier that does not fit).
    """
    model = build_model(config)
    inventory = model.inventory
    total_rate = sum(mode.job_rate_per_hour for mode in model.modes)
    return {
        "components": {
            c.component: {"cluster_units": c.cluster_units, "job_units": c.job_units}
            for c in inventory.components
        },
        "failure_modes": {
            mode.name: {
                "unit": mode.unit,
                "job_units": mode.job_units,
                "lifetime": mode.lifetime.kind,
                "mean_life_hours": mode.lifetime.mean_hours,
                "mean_repair_hours": mode.repair.mean_hours,
                "detect_hours": mode.detect_hours,
                "uses_spares": mode.uses_spares,
                "job_failures_per_hour": mode.job_rate_per_hour,
                "share": mode.job_rate_per_hour / total_rate if total_rate else 0.0,
                "impact": mode.impact,
                "slowdown": mode.slowdown_by_count[0],
                "stall_hours": mode.stall_hours,
            }
            for mode in model.modes
        },
        "job_servers": inventory.job_servers,
        "spare_servers": inventory.spare_servers,
        "servers_per_leaf": inventory.servers_per_leaf,
        "job_mtti_hours": _finite(model.job_mtti_hours),
        "topology": _topology_facts(inventory),
        "port_budget": [
            {
                "tier": row.tier,
                "switches": row.switches,
                "down_ports": row.down_ports,
                "up_ports": row.up_ports,
                "ports_needed": row.ports_needed,
                "ports_available": row.ports_available,
                "fits": row.fits,
                "shortfall": row.shortfall,
            }
            for row in inventory.port_budget
        ],
        "port_problems": check_port_budget(inventory),
    }


def _topology_facts(inventory: Inventory) -> dict[str, Any]:
    return {
        "topology": inventory.topology,
        "nics_per_server": inventory.nics_per_server,
        "servers_per_leaf": inventory.servers_per_leaf,
        "leaves_per_server": inventory.leaves_per_server,
        "rails": inventory.rails,
        "job_leaves": inventory.job_leaves,
        "job_pods": inventory.job_pods,
        "uplinks_per_leaf": inventory.uplinks_per_leaf,
        "uplink_bundles_per_leaf": inventory.uplink_bundles_per_leaf,
        "spines": inventory.spines,
        "spines_per_leaf": inventory.spines_per_leaf,
        "ecmp_width": inventory.ecmp_width,
        "server_lacp_members": inventory.server_lacp_members,
        "server_lacp_min_links": inventory.server_lacp_min_links,
        "fabric_lacp_members": inventory.fabric_lacp_members,
        "fabric_lacp_min_links": inventory.fabric_lacp_min_links,
        "dual_tor": inventory.dual_tor,
        "oversubscription": inventory.oversubscription,
        "link_speed_bytes_per_s": inventory.link_speed_bytes_per_s,
    }


@app.command("inventory")
@reports_errors
def inventory_command(
    config_path: ConfigArgument, overrides: SetOption = None, as_json: JsonOption = False
) -> None:
    """Show component counts, the fabric and its port budget, per-class failure rates and MTTI."""
    config = _load(config_path, overrides)
    data = inventory_data(config)
    if as_json:
        typer.echo(to_json(data))
        return
    components = Table(title=f"Inventory of {_config_name(config, config_path)}")
    for column in ("class", "cluster units", "job units"):
        components.add_column(column, justify="left" if column == "class" else "right")
    for name, counts in data["components"].items():
        components.add_row(name, f"{counts['cluster_units']:,}", f"{counts['job_units']:,}")
    console.print(components)
    facts = data["topology"]
    fabric = Table(title=f"Fabric: {facts['topology']}", show_header=False)
    fabric.add_column("fact")
    fabric.add_column("value", justify="right")
    for fact, value in facts.items():
        if fact == "topology":
            continue
        if fact == "link_speed_bytes_per_s":
            fact, value = "link speed", f"{8 * value / 1e9:g} Gbps"
        elif fact == "oversubscription":
            value = f"{value:.3g}:1"
        elif isinstance(value, bool):
            value = "yes" if value else "no"
        fabric.add_row(fact.replace("_", " "), str(value))
    console.print(fabric)
    budget = Table(title="Port budget per switch")
    for column in ("tier", "switches", "down", "up", "needed", "available", "fits", "short by"):
        budget.add_column(column, justify="left" if column == "tier" else "right")
    for row in data["port_budget"]:
        budget.add_row(
            row["tier"],
            f"{row['switches']:,}",
            str(row["down_ports"]),
            str(row["up_ports"]),
            str(row["ports_needed"]),
            str(row["ports_available"]),
            "yes" if row["fits"] else "[bold red]no[/]",
            str(row["shortfall"]),
        )
    console.print(budget)
    for problem in data["port_problems"]:
        console.print(f"[bold red]does not fit:[/] {problem}", highlight=False)
    modes = Table(title="Failure modes touching the job")
    for column in (
        "mode",
        "unit",
        "job units",
        "mean life",
        "job failures / day",
        "share",
        "repair",
        "spares",
        "impact",
    ):
        modes.add_column(column, justify="left" if column in ("mode", "unit") else "right")
    for name, mode in data["failure_modes"].items():
        modes.add_row(
            name,
            mode["unit"],
            f"{mode['job_units']:,}",
            f"{_SHORT_KIND[mode['lifetime']]} {format_duration(mode['mean_life_hours'])}",
            f"{24 * mode['job_failures_per_hour']:.3g}",
            f"{100 * mode['share']:.1f}%",
            format_duration(mode["mean_repair_hours"]),
            "yes" if mode["uses_spares"] else "no",
            _impact_text(mode),
        )
    console.print(modes)
    mtti = data["job_mtti_hours"]
    console.print(
        f"Job: {data['job_servers']:,} servers (+{data['spare_servers']} spare), "
        f"mean time to interruption [bold]{_hours(mtti if mtti else float('inf'))}[/]",
        highlight=False,
    )


def _run_with_progress(model: SimulationModel, trials: int, seed: int, workers: int, show: bool):
    if not show:
        return simulate(model, trials, seed, workers)
    with Progress(
        TextColumn("simulating"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=error_console,
        transient=True,
    ) as progress:
        task = progress.add_task("trials", total=trials)
        return simulate(model, trials, seed, workers, progress=lambda n: progress.advance(task, n))


def _render_summary(result: SimulationResult, title: str) -> None:
    summary = result.summary()
    table = Table(title=title)
    for column in ("metric", "mean", "95% CI", "P50", "P95", "P99"):
        table.add_column(column, justify="left" if column == "metric" else "right")
    rows = (
        ("wall hours", "wall_hours", "{:,.1f}"),
        ("goodput", "goodput", "{:.4f}"),
        ("lost hours", "lost_hours", "{:,.1f}"),
        ("GPU-hours lost", "gpu_hours_lost", "{:,.0f}"),
        ("interruptions", "interruptions", "{:,.2f}"),
        ("spares used", "spares_used", "{:,.2f}"),
        ("hours degraded", "degraded_hours", "{:,.2f}"),
        ("hours stalled", "stall_hours", "{:,.3f}"),
    )
    for label, key, fmt in rows:
        stats = summary[key]
        low, high = stats["ci95"]
        table.add_row(
            label,
            fmt.format(stats["mean"]),
            f"{fmt.format(low)} – {fmt.format(high)}",
            fmt.format(stats["p50"]),
            fmt.format(stats["p95"]),
            fmt.format(stats["p99"]),
        )
    console.print(table)

    lost_mean = summary["lost_hours"]["mean"]
    buckets = Table(title="Lost hours by bucket (mean per run)")
    for column in ("bucket", "hours", "share of lost"):
        buckets.add_column(column, justify="left" if column == "bucket" else "right")
    for bucket in BUCKETS[1:]:
        hours = summary["lost_hours_breakdown"][bucket]
        share = hours / lost_mean if lost_mean > 0 else 0.0
        buckets.add_row(bucket, f"{hours:,.2f}", f"{100 * share:.1f}%")
    console.print(buckets)

    by_class = summary["failures_by_class"]
    total = sum(entry["mean"] for entry in by_class.values())
    classes = Table(title="Failures by mode (mean per run)")
    for column in ("mode", "impact", "failures", "share"):
        classes.add_column(column, justify="left" if column in ("mode", "impact") else "right")
    for mode, entry in sorted(by_class.items(), key=lambda item: -item[1]["mean"]):
        classes.add_row(
            mode, entry["impact"], f"{entry['mean']:,.2f}",
            f"{100 * entry['mean'] / total:.1f}%" if total else "-",
        )  # fmt: skip
    console.print(classes)


@app.command("simulate")
@reports_errors
def simulate_command(
    config_path: ConfigArgument,
    trials: Annotated[
        int | None, typer.Option(min=1, help="Monte Carlo trials [default: from the config].")
    ] = None,
    seed: Annotated[
        int | None, typer.Option(min=0, help="Seed of every random number [default: config].")
    ] = None,
    interval: Annotated[
        str | None,
        typer.Option(help="Checkpoint interval, e.g. 45min (overrides job.checkpoint.interval)."),
    ] = None,
    overrides: SetOption = None,
    workers: Annotated[
        int | None, typer.Option(min=1, help="Threads running blocks of trials at once.")
    ] = None,
    as_json: JsonOption = False,
    out: Annotated[
        Path | None,
        typer.Option(help="Write trials.parquet, summary.csv and summary.json to this folder."),
    ] = None,
) -> None:
    """Simulate a training job many times; report wall time, goodput and lost hours."""
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
    model = build_model(config)
    trials = trials if trials is not None else config.simulation.trials
    seed = seed if seed is not None else config.simulation.seed
    workers = workers if workers is not None else config.simulation.workers
    show_progress = not as_json and error_console.is_terminal
    outcomes = _run_with_progress(model, trials, seed, workers, show_progress)
    result = SimulationResult(model, outcomes, seed, _config_name(config, config_path))
    if out is not None:
        written = write_result_files(result, out)
        written += write_simulation_figures(result, out)
        if not as_json:
            error_console.print(f"wrote {', '.join(str(p) for p in written)}", highlight=False)
    baseline = _step_baseline(config)
    if as_json:
        data = result.summary()
        if baseline is not None:
            data["baseline"] = baseline
        typer.echo(to_json(data))
        return
    job = model.job
    if baseline is not None:
        console.print(
            f"Baseline step: {_seconds(baseline['step_time_s'])} (compute "
            f"{_seconds(baseline['compute_time_s'])} + exposed communication "
            f"{_seconds(baseline['exposed_communication_s'])}); degraded time below is the "
            "extra time of steps slowed by lost capacity",
            highlight=False,
        )
    _render_summary(
        result,
        f"{result.config_name}: {trials:,} trials, seed {seed}, "
        f"interval {format_duration(job.interval_hours)}, write "
        f"{format_duration(job.write_hours)}, job MTTI {_hours(model.job_mtti_hours)}",
    )


def _seconds(value: float) -> str:
    if value == 0:
        return "0"
    if value < 1e-3:
        return f"{value * 1e6:.3g} us"
    if value < 1.0:
        return f"{value * 1e3:.3g} ms"
    return f"{value:.3g} s"


def _bytes(value: float) -> str:
    for unit, size in (("PB", 1e15), ("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if abs(value) >= size:
            return f"{value / size:.3g} {unit}"
    return f"{value:.3g} B"


def _step_baseline(config: RelplanConfig) -> dict[str, float] | None:
    """The step-time part of the baseline, for ``simulate`` (None without a workload)."""
    if config.workload is None:
        return None
    base = baseline_report(config)["baseline"]
    keys = ("compute_time_s", "exposed_communication_s", "step_time_s",
            "step_time_rtt_low_s", "step_time_rtt_high_s")
    return {key: base[key] for key in keys}


@app.command("baseline")
@reports_errors
def baseline_command(
    config_path: ConfigArgument, overrides: SetOption = None, as_json: JsonOption = False
) -> None:
    """Show the job's communication baseline: per parallelism dimension and per step."""
    config = _load(config_path, overrides)
    if config.workload is None:
        raise ConfigError("workload", "the baseline needs a [workload] section (see README)")
    model = build_model(config)
    report = baseline_report(config)
    report["cluster_mtbf_hours"] = cluster_mtbf(config, model)
    report["job_mtti_hours"] = _finite(model.job_mtti_hours)
    report["degraded_slowdowns"] = {
        mode.name: list(mode.slowdown_by_count[:4])
        for mode in model.modes
        if mode.impact in ("degraded", "elastic")
    }
    if as_json:
        typer.echo(to_json(report))
        return
    base = report["baseline"]
    table = Table(title=f"Communication baseline of {_config_name(config, config_path)} per step")
    columns = ("dimension", "collective", "path", "ranks", "volume / GPU", "time",
               "latency share", "needed", "available", "exposed")
    for column in columns:
        table.add_column(column, justify="left" if column in columns[:3] else "right")
    for name, entry in base["dimensions"].items():
        if entry["volume_per_step_bytes"] == 0:
            continue
        table.add_row(
            name, entry["collective"], entry["path"], f"{entry['group_ranks']:,}",
            _bytes(entry["volume_per_step_bytes"]), _seconds(entry["time_s"]),
            f"{100 * entry['latency_share']:.1f}%",
            f"{_bytes(entry['bandwidth_needed_bytes_per_s'])}/s",
            f"{_bytes(entry['bandwidth_available_bytes_per_s'])}/s",
            _seconds(entry["exposed_s"]),
        )  # fmt: skip
    console.print(table)
    console.print(
        f"Step: compute {_seconds(base['compute_time_s'])} + exposed communication "
        f"{_seconds(base['exposed_communication_s'])} = [bold]{_seconds(base['step_time_s'])}"
        f"[/]; at RTT {_seconds(base['rtt_low_s'])}: {_seconds(base['step_time_rtt_low_s'])}, "
        f"at {_seconds(base['rtt_high_s'])}: {_seconds(base['step_time_rtt_high_s'])}",
        highlight=False,
    )
    gradients = report["gradients"]
    console.print(
        f"Gradients: {_bytes(gradients['bytes_per_gpu'])} per GPU, "
        f"{_bytes(gradients['bytes_per_step_all_gpus'])} per step over the job; pure data "
        f"parallel would need {_bytes(gradients['dp_bandwidth_per_gpu_bytes_per_s'])}/s = "
        f"{gradients['dp_bandwidth_per_gpu_bits_per_s'] / 1e12:.3g} Tbps per GPU",
        highlight=False,
    )
    if "moe" in report:
        moe = report["moe"]
        console.print(
            f"MoE: All-to-All {_bytes(moe['all_to_all_bytes_per_step'])} per step; dense "
            f"gradients {_bytes(moe['dp_gradient_bytes_per_step'])}, "
            f"{_bytes(moe['dp_gradient_bytes_per_group'])} per DP group "
            f"({moe['expert_data_parallel']} replicas); average "
            f"{_bytes(moe['average_bandwidth_per_gpu_bytes_per_s'])}/s per GPU, peak "
            f"{_bytes(moe['peak_bandwidth_per_gpu_bytes_per_s'])}/s, provision "
            f"{_bytes(moe['provisioned_bandwidth_per_gpu_bytes_per_s'])}/s",
            highlight=False,
        )
    mtti = report["job_mtti_hours"]
    console.print(f"Job MTTI: {_hours(mtti if mtti else math.inf)}", highlight=False)
    for mode, steps in report["degraded_slowdowns"].items():
        console.print(f"Degraded by {mode}: step time x{steps[0]:.4g}", highlight=False)


@app.command("optimize")
@reports_errors
def optimize_command(
    config_path: ConfigArgument,
    trials: Annotated[
        int | None, typer.Option(min=2, help="Trials per interval [default: from the config].")
    ] = None,
    seed: Annotated[int | None, typer.Option(min=0, help="Seed shared by every interval.")] = None,
    overrides: SetOption = None,
    workers: Annotated[int | None, typer.Option(min=1, help="Threads.")] = None,
    as_json: JsonOption = False,
    out: Annotated[
        Path | None,
        typer.Option(help="Write optimize.json, curve.csv and goodput-vs-interval plots here."),
    ] = None,
) -> None:
    """Find the checkpoint interval: Young, Daly and the Monte Carlo optimum with its CI."""
    config = _load(config_path, overrides)
    model = build_model(config)
    trials = trials if trials is not None else config.simulation.trials
    seed = seed if seed is not None else config.simulation.seed
    workers = workers if workers is not None else config.simulation.workers
    if not math.isfinite(model.job_mtti_hours):
        raise ConfigError("failures", "no failure mode interrupts the job: nothing to optimise")
    result = optimize_interval(model, trials, seed, workers=workers)
    tiers = None
    if model.job.fast_interval_hours is not None:
        tiers = optimize_tiers(model, trials, seed, workers=workers)
    name = _config_name(config, config_path)
    data = result.to_dict()
    if tiers is not None:
        data["two_tier"] = tiers.to_dict()
    if out is not None:
        write_text_atomic(out / "optimize.json", to_json(data) + "\n")
        write_atomic(out / "curve.csv", lambda tmp: result.curve.to_csv(tmp, index=False))
        figure = plots.goodput_vs_interval(
            result.curve, name, young_hours=result.young_hours, daly_hours=result.daly_hours,
            mc_optimal_hours=result.mc_optimal_hours, mc_optimal_ci95=result.mc_optimal_ci95,
        )  # fmt: skip
        plots.save_figure(figure, out / "goodput-vs-interval")
    if as_json:
        typer.echo(to_json(data))
        return
    table = Table(title=f"Checkpoint interval for {name} ({trials:,} trials per interval, "
                        f"job MTTI {_hours(result.mtti_hours)})")
    for column in ("method", "interval", "95% CI", "mean goodput"):
        table.add_column(column, justify="left" if column == "method" else "right")
    rows = (
        ("Young (1974)", result.young_hours, None, "young"),
        ("Daly (2006)", result.daly_hours, None, "daly"),
        ("Monte Carlo, mean goodput", result.mc_optimal_hours, result.mc_optimal_ci95, "mc"),
        ("Monte Carlo, P95 wall time", result.p95_optimal_hours, result.p95_optimal_ci95, "p95"),
    )
    for label, hours, ci, key in rows:
        table.add_row(
            label, format_duration(hours),
            f"{format_duration(ci[0])} – {format_duration(ci[1])}" if ci else "",
            f"{result.goodput_at[key]:.4f}",
        )  # fmt: skip
    console.print(table)
    if tiers is not None:
        console.print(
            f"Two tiers: fast checkpoint every [bold]{format_duration(tiers.fast_interval_hours)}"
            f"[/] (95% range {format_duration(tiers.fast_interval_ci95[0])} – "
            f"{format_duration(tiers.fast_interval_ci95[1])}), one in {tiers.durable_every} "
            f"durable (every {format_duration(tiers.durable_interval_hours)}, range "
            f"{format_duration(tiers.durable_interval_ci95[0])} – "
            f"{format_duration(tiers.durable_interval_ci95[1])}): goodput {tiers.goodput:.4f}",
            highlight=False,
        )
    if out is not None:
        error_console.print(f"wrote {out}/optimize.json, curve.csv, goodput-vs-interval.png/svg")


@app.command("sweep")
@reports_errors
def sweep_command(
    study_path: Annotated[Path, typer.Argument(help="Study file (see studies/).",
                                               metavar="STUDY", show_default=False)],
    trials: Annotated[int | None, typer.Option(min=1, help="Trials per point.")] = None,
    workers: Annotated[int, typer.Option(min=1, help="Local threads running points.")] = 1,
    dask: Annotated[
        str | None,
        typer.Option(help='Run points on Dask: "local" or a scheduler address.'),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option(help="Output folder [default: out/<study name>]."),
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Run a declarative study; write results.parquet, figures, report.md and report.html."""
    study = load_study(study_path)
    points = len(study.points())
    show = not as_json and error_console.is_terminal
    if show:
        with Progress(TextColumn(f"{study.spec.name}"), BarColumn(), MofNCompleteColumn(),
                      TimeElapsedColumn(), console=error_console, transient=True) as bar:
            task = bar.add_task("points", total=points)
            results = run_study(study, trials, workers, dask,
                                progress=lambda n: bar.advance(task, n))
    else:
        results = run_study(study, trials, workers, dask)
    directory = out if out is not None else Path("out") / study.spec.name
    per_point = trials or study.spec.trials
    written = write_study_outputs(study, results, directory, per_point)
    answer = answer_sentence(study, results, per_point)
    if as_json:
        typer.echo(to_json({"study": study.spec.name, "answer": answer,
                            "files": [str(p) for p in written],
                            "results": json.loads(results.to_json(orient="records"))}))
        return
    table = Table(title=f"{study.spec.name}: {study.spec.question}")
    metrics = list(study.spec.metrics)
    for column in ("point", *metrics):
        table.add_column(column, justify="left" if column == "point" else "right")
    for _, row in results.iterrows():
        table.add_row(str(row["label"]), *(f"{row[m]:.4g}" for m in metrics))
    console.print(table)
    console.print(f"[bold]Answer:[/] {answer}", highlight=False)
    error_console.print(f"wrote {directory}/report.md, report.html, results.parquet, figures")


def _parse_variant(text: str) -> tuple[str, list[str]]:
    label, sep, rest = text.partition(":")
    items = [item.strip() for item in rest.split(";") if item.strip()]
    if not sep or not label.strip() or not items:
        raise ConfigError("--variant", f"{text!r} is not 'LABEL: KEY=VALUE[; KEY=VALUE]...'")
    return label.strip(), items


@app.command("compare")
@reports_errors
def compare_command(
    config_paths: Annotated[list[Path], typer.Argument(help="One or more configs.",
                                                       metavar="CONFIG...")],
    variant: Annotated[
        list[str] | None,
        typer.Option(help='A variant of the first config: "LABEL: KEY=VALUE; KEY=VALUE" '
                          "(repeatable)."),
    ] = None,
    trials: Annotated[int, typer.Option(min=1, help="Trials per scenario.")] = 1000,
    seed: Annotated[int, typer.Option(min=0, help="Seed shared by every scenario.")] = 0,
    overrides: SetOption = None,
    as_json: JsonOption = False,
) -> None:
    """Compare scenarios on common failure streams: goodput, GPU-hours, cost and net value.

    Scenarios are the configs given and the variants of the first; the first is the
    reference. With a [budget] in the first config, each scenario is also priced (its
    hardware charge for the job and the value of the GPU-hours it loses) and its net value
    against the reference and break-even GPU-hour value are shown.
    """
    scenarios = [(None, path, list(overrides or [])) for path in config_paths]
    for text in variant or []:
        label, items = _parse_variant(text)
        scenarios.append((label, config_paths[0], [*(overrides or []), *items]))
    if len(scenarios) < 2:
        raise ConfigError("CONFIG", "compare needs two configs, or a config and a --variant")
    budget = _load(config_paths[0], overrides).budget
    rows, costs = [], []
    for label, path, items in scenarios:
        config = _load(path, items)
        model = build_model(config)
        result = SimulationResult(model, simulate(model, trials, seed), seed,
                                  label or _config_name(config, path))
        summary = result.summary()
        row = {
            "scenario": result.config_name,
            "goodput": summary["goodput"]["mean"],
            "goodput_ci95": summary["goodput"]["ci95"],
            "wall_hours_p50": summary["wall_hours"]["p50"],
            "wall_hours_p95": summary["wall_hours"]["p95"],
            "lost_hours": summary["lost_hours"]["mean"],
            "gpu_hours_lost": summary["gpu_hours_lost"]["mean"],
            "interruptions": summary["interruptions"]["mean"],
        }
        if budget is not None:
            cost = scenario_cost(config, model.inventory, budget, summary["wall_hours"]["mean"],
                                 summary["gpu_hours_lost"]["mean"])
            costs.append(cost)
            row.update({"hardware_price": cost.hardware_price,
                        "hardware_charge": cost.hardware_charge,
                        "lost_value": cost.lost_value, "total_cost": cost.total})
        rows.append(row)
    for index, row in enumerate(rows):
        row["gpu_hours_saved_vs_first"] = rows[0]["gpu_hours_lost"] - row["gpu_hours_lost"]
        if budget is not None:
            row.update(net_value(costs[0], costs[index], budget.gpu_hour_value))
    if as_json:
        typer.echo(to_json({"trials": trials, "seed": seed, "scenarios": rows}))
        return
    table = Table(title=f"Comparison on common failure streams ({trials:,} trials, seed {seed})")
    columns = ["scenario", "goodput", "95% CI", "wall P50 h", "wall P95 h", "GPU-h lost",
               "GPU-h saved"]
    if budget is not None:
        columns += ["hardware charge", "lost value", "net value", "break-even $/GPU-h"]
    for column in columns:
        table.add_column(column, justify="left" if column == "scenario" else "right")
    for row in rows:
        low, high = row["goodput_ci95"]
        cells = [
            row["scenario"], f"{row['goodput']:.4f}", f"{low:.4f} – {high:.4f}",
            f"{row['wall_hours_p50']:,.1f}", f"{row['wall_hours_p95']:,.1f}",
            f"{row['gpu_hours_lost']:,.0f}", f"{row['gpu_hours_saved_vs_first']:,.0f}",
        ]  # fmt: skip
        if budget is not None:
            even = row["break_even_gpu_hour_value"]
            cells += [f"{row['hardware_charge']:,.0f}", f"{row['lost_value']:,.0f}",
                      f"{row['net_value']:,.0f}", "-" if even is None else f"{even:,.2f}"]
        table.add_row(*cells)
    console.print(table)
