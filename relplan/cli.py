"""The ``relplan`` command line (typer): parse, call the library, render.

Every command takes a TOML config and repeatable ``--set KEY=VALUE`` overrides. A bad
config or argument prints one message naming the key and exits with code 2.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from relplan.config import ConfigError, RelplanConfig, load_config
from relplan.engine import BUCKETS, InfeasibleJobError, simulate
from relplan.model import SimulationModel, build_model
from relplan.results import SimulationResult, to_json, write_result_files
from relplan.topology import Inventory, build_inventory, check_port_budget
from relplan.units import UnitError, format_duration, parse_duration_hours

app = typer.Typer(
    name="relplan",
    help="Monte Carlo reliability and checkpoint planner for large AI training clusters.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)

console = Console()
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
        share of interruptions), ``job_mtti_hours``, ``job_servers``, ``spare_servers``,
        ``topology`` (the fabric's facts), ``port_budget`` (per switch tier: switches,
        ports down, up, needed and available per switch, fits, shortfall) and
        ``port_problems`` (one line per tier that does not fit).
    """
    inventory = build_inventory(config)
    model = build_model(config)
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
            }
            for mode in model.modes
        },
        "job_servers": inventory.job_servers,
        "spare_servers": inventory.spare_servers,
        "servers_per_leaf": inventory.servers_per_leaf,
        "job_mtti_hours": model.job_mtti_hours if total_rate else None,
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

    by_class = summary["interruptions_by_class"]
    total = sum(by_class.values())
    classes = Table(title="Interruptions by class (mean per run)")
    for column in ("class", "interruptions", "share"):
        classes.add_column(column, justify="left" if column == "class" else "right")
    for mode, count in sorted(by_class.items(), key=lambda item: -item[1]):
        classes.add_row(mode, f"{count:,.2f}", f"{100 * count / total:.1f}%" if total else "-")
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
        if not as_json:
            error_console.print(f"wrote {', '.join(str(p) for p in written)}", highlight=False)
    if as_json:
        typer.echo(to_json(result.summary()))
        return
    job = model.job
    _render_summary(
        result,
        f"{result.config_name}: {trials:,} trials, seed {seed}, "
        f"interval {format_duration(job.interval_hours)}, write "
        f"{format_duration(job.write_hours)}, job MTTI {_hours(model.job_mtti_hours)}",
    )
