"""``relplan validate``, ``simulate`` and ``compare`` of fleet configs (``[[jobs]]``): run
every job (:func:`relplan.runs.fleet.run_fleet`), print each and the fleet's totals, or
the fleets side by side (:func:`relplan.runs.fleet_compare.compare_fleets`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from relplan.errors import ConfigError


def _run_settings(fleet: Any, trials: int | None, seed: int | None, workers: int | None
                  ) -> tuple[int, int, int, tuple[str, str]]:  # fmt: skip
    """Trials, seed and workers: the options given, else the fleet's ``[simulation]``;
    and what names the trials and the workers in an error."""
    settings = fleet.jobs[0].config.simulation
    keys = ("--trials" if trials is not None else "simulation.trials",
            "--workers" if workers is not None else "simulation.workers")  # fmt: skip
    return (trials if trials is not None else settings.trials,
            seed if seed is not None else settings.seed,
            workers if workers is not None else settings.workers, keys)  # fmt: skip


def validate_fleet_command(config_path: Path, overrides: list[str], strict: bool) -> None:
    """Check a fleet config: each job as the config it is alone, and the fleet's fit; its
    warnings (one per key); with ``strict`` a warning is an error (exit 1)."""
    from relplan.cli.render import console, error_console
    from relplan.config.fleet_config import load_fleet
    from relplan.runs.preflight import warn_configs

    fleet = load_fleet(config_path, overrides)
    problems = warn_configs([(f"job {job.name}", job.config) for job in fleet.jobs],
                            same_work=False)  # fmt: skip
    if strict and problems:
        error_console.print(f"[bold red]error:[/] --strict: {config_path} is valid but has "
                            f"{len(problems)} warning{'s' if len(problems) > 1 else ''}",
                            highlight=False, soft_wrap=True)  # fmt: skip
        raise typer.Exit(code=1)
    shared = f", {fleet.spares} shared spares" if fleet.spares else ""
    crews = f", {fleet.crews} crews" if fleet.crews else ""
    console.print(f"[green]ok[/]: {config_path} is valid: a fleet of {len(fleet.jobs)} jobs "
                  f"on {fleet.gpus:,} GPUs{shared}{crews}", highlight=False)  # fmt: skip


def simulate_fleet_command(config_path: Path, trials: int | None, seed: int | None,
                           workers: int | None, overrides: list[str] | None,
                           as_json: bool, out: Path | None,
                           per_run_options: dict[str, Any]) -> None:  # fmt: skip
    """Simulate a fleet; ``per_run_options`` are the single-job options given (each of a
    fleet's jobs has its own: refused)."""
    from relplan.cli.notes import write_outputs
    from relplan.config.fleet_config import load_fleet
    from relplan.output.files import check_output_dir, to_json
    from relplan.output.fleet_report import write_fleet_outputs
    from relplan.runs.fleet import check_fleet_run, run_fleet

    for option, value in per_run_options.items():
        if value is not None:
            raise ConfigError(option, "a fleet's jobs each have their own: use --set "
                                      "jobs.NAME.KEY=VALUE")  # fmt: skip
    fleet = load_fleet(config_path, overrides or [])
    if out is not None:
        check_output_dir(out)
    trials, seed, workers, keys = _run_settings(fleet, trials, seed, workers)
    check_fleet_run(fleet, trials, keys[0], workers, keys[1])
    outcome = run_fleet(fleet, trials, seed, workers)
    name = fleet.name or config_path.stem
    if out is not None:
        write_outputs(out, lambda folder: write_fleet_outputs(outcome, folder, name))
    if as_json:
        typer.echo(to_json(outcome.summary()))
        return
    render_fleet(outcome.summary(), f"{name}: {trials:,} trials, seed {seed}")


def render_fleet(summary: dict[str, Any], title: str) -> None:
    """Print a fleet's summary
    (:meth:`relplan.analysis.fleet_outcome.FleetOutcome.summary`): a row per job, the
    fleet's totals, and who loses the GPU-hours."""
    from relplan.cli.render import console, print_table
    from relplan.units import format_duration

    fleet = summary["fleet"]
    lost_total = fleet["gpu_hours_lost"]["mean"]
    rows = []
    for name, job in summary["jobs"].items():
        lost = job["gpu_hours_lost"]["mean"]
        rows.append([name, f"{job['job_gpus']:,}", str(job["priority"]),
                     f"{job['goodput']['mean']:.4f}",
                     format_duration(job["wall_hours"]["mean"]), f"{lost:,.0f}",
                     f"{lost / lost_total:.1%}" if lost_total > 0 else "0.0%"])  # fmt: skip
    print_table(title, ("job", "GPUs", "priority", "goodput", "wall time", "GPU-h lost",
                        "share"), rows)  # fmt: skip
    goodput, lost = fleet["goodput"], fleet["gpu_hours_lost"]
    shared = [f"{fleet[key]:,} {word}" for key, word in (("spares", "spares"),
                                                          ("crews", "crews")) if fleet[key]]
    if shared:
        console.print(f"Shared by the jobs: {' and '.join(shared)}", highlight=False)
    console.print(
        f"Fleet: {fleet['jobs']} jobs on {fleet['gpus']:,} GPUs; goodput "
        f"{goodput['mean']:.4f} (95% CI {goodput['ci95'][0]:.4f} – {goodput['ci95'][1]:.4f})\n"
        f"GPU-hours lost a run: {lost['mean']:,.0f} (P95 {lost['p95']:,.0f})", highlight=False,
    )  # fmt: skip
    for line in _shared_lines(fleet, summary["jobs"]):
        console.print(line, highlight=False)
    sizes = [[f"{row['min_gpus']:,}", f"{row['share_of_jobs']:.1%}",
              f"{row['share_of_gpu_hours']:.1%}", f"{row['share_of_gpu_hours_lost']:.1%}"]
             for row in fleet["lost_share_by_size"]]  # fmt: skip
    print_table("Who loses the GPU-hours: jobs of at least N GPUs",
                ("N GPUs", "of jobs", "of GPU-hours", "of GPU-hours lost"), sizes)


def _shared_lines(fleet: dict[str, Any], jobs: dict[str, Any]) -> list[str]:
    """What the jobs shared, a line each: the pool's occupancy, the waits for a crew,
    the servers taken from jobs of lower priority (and the jobs they were most taken
    from)."""
    from relplan.units import format_duration

    lines = []
    if fleet["pool"] is not None:
        pool = fleet["pool"]
        lines.append(f"Pool: {pool['mean_away']:.1f} of {pool['spares']:,} spares away in "
                     f"repair on average; none free {pool['empty_share']:.1%} of the time")
    if fleet["repair_queue"] is not None:
        queue = fleet["repair_queue"]
        lines.append(f"Repairs: {queue['repairs']['mean']:,.0f} a run; one waits "
                     f"{format_duration(queue['mean_wait_hours'])} for a crew on average")
    if fleet["preempt"] != "never":
        taken = sorted(((job["servers_taken"]["mean"], name) for name, job in jobs.items()
                        if job["servers_taken"]["mean"] > 0), reverse=True)  # fmt: skip
        most = ", ".join(f"{name} {mean:.2f}" for mean, name in taken[:3])
        lines.append(f"Servers taken from jobs of lower priority: "
                     f"{fleet['servers_taken']['mean']:.1f} a run" + (
                         f" (most from {most})" if most else ""))
    return lines


def compare_fleets_command(config_paths: list[Path], variants: list[str],
                           trials: int | None, seed: int | None, workers: int | None,
                           overrides: list[str], as_json: bool, out: Path | None,
                           refused: dict[str, Any]) -> None:  # fmt: skip
    """Compare fleet configs and variants of the first; ``refused`` are the options a
    fleet comparison does not take yet (``--dask``, ``--fresh``, ``--interval``)."""
    from relplan.cli.notes import write_outputs
    from relplan.config.fleet_config import is_fleet_file, load_fleet
    from relplan.output.files import check_output_dir, to_json, write_comparison_files
    from relplan.runs.compare import parse_variant
    from relplan.runs.fleet import check_fleet_run
    from relplan.runs.fleet_compare import compare_fleets

    for option, value in refused.items():
        if value:
            raise ConfigError(option, "not for fleets yet: a fleet comparison runs here")
    specs = [(path, tuple(overrides), None) for path in config_paths]
    specs += [(spec.config_path, spec.overrides, spec.label) for spec in
              (parse_variant(text, config_paths[0], overrides) for text in variants)]
    fleets = []
    for path, items, label in specs:
        if not is_fleet_file(path):
            raise ConfigError("CONFIG", f"{path} is not a fleet config ([[jobs]]): a fleet "
                                        "is compared with fleets")  # fmt: skip
        fleet = load_fleet(path, list(items))
        fleets.append((label or fleet.name or path.stem, fleet))
    if out is not None:
        check_output_dir(out)
    trials, seed, workers, keys = _run_settings(fleets[0][1], trials, seed, workers)
    for _, fleet in fleets:
        check_fleet_run(fleet, trials, keys[0], workers, keys[1])
    data = compare_fleets(fleets, trials, seed, workers)
    if out is not None:
        write_outputs(out, lambda folder: write_comparison_files(data, folder))
    if as_json:
        typer.echo(to_json(data))
        return
    render_fleet_comparison(data)


def render_fleet_comparison(data: dict[str, Any]) -> None:
    """Print fleets side by side (:func:`relplan.runs.fleet_compare.compare_fleets`)."""
    from relplan.cli.render import print_table

    priced = "net_value" in data["scenarios"][0]
    columns = ("scenario", "spares", "crews", "goodput", "95% CI", "GPU-h lost",
               "GPU-h lost P95", "makespan h", "GPU-h saved")  # fmt: skip
    if priced:
        columns += ("hardware charge", "net value", "break-even $/GPU-h")
    rows = []
    for row in data["scenarios"]:
        low, high = row["goodput_ci95"]
        cells = [row["scenario"], f"{row['spares']:,}", f"{row['crews']:,}",
                 f"{row['goodput']:.4f}", f"{low:.4f} – {high:.4f}",
                 f"{row['gpu_hours_lost']:,.0f}", f"{row['gpu_hours_lost_p95']:,.0f}",
                 f"{row['makespan_hours']:,.1f}", f"{row['gpu_hours_saved_vs_first']:,.0f}"]
        if priced:
            even = row["break_even_gpu_hour_value"]
            cells += [f"{row['hardware_charge']:,.0f}", f"{row['net_value']:,.0f}",
                      "-" if even is None else f"{even:,.2f}"]
        rows.append(cells)
    print_table(f"Fleets on common failure streams ({data['trials']:,} trials, seed "
                f"{data['seed']}; spares and crews shared, 0: none)", columns, rows)
