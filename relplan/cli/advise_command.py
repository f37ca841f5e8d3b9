"""``relplan advise``: the checkpoint interval of a live run, from its measured save times
and failures (:class:`relplan.advice.IntervalAdvisor`), with NVRx-style section timeouts
and a Slurm ``--signal`` lead. Heavy libraries are imported when the command runs."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from relplan.cli.common import ConfigArgument, JsonOption, SetOption, quiet_option
from relplan.errors import ConfigError


def advise_command(
    config_path: ConfigArgument,
    save_times: Annotated[Path | None, quiet_option(
        "--save-times", metavar="FILE",
        help="Measured blocking save times: one number of seconds a line, or a CSV with a "
             "seconds column (default: the config's checkpoint write).")] = None,
    failures: Annotated[Path | None, quiet_option(
        "--failures", metavar="FILE",
        help="The run's failures: an incident log (CSV or JSON lines with a time column, "
             "or sacct --parsable2 output), one failure a record; needs --hours.")] = None,
    hours: Annotated[float | None, quiet_option(
        "--hours", metavar="HOURS",
        help="Hours the run ran over the failures given (its exposure).")] = None,
    step_seconds: Annotated[float | None, quiet_option(
        "--step-seconds", metavar="SECONDS",
        help="The measured step time (default: the config's modelled step).")] = None,
    category_map: Annotated[Path | None, quiet_option(
        "--map", metavar="FILE",
        help="CSV with columns category and mode: a category mapped to - is no failure "
             "(COMPLETED, CANCELLED and TIMEOUT never are).")] = None,
    prior_failures: Annotated[float, typer.Option(
        "--prior-failures", metavar="N",
        help="The weight of the config's MTTI, in failures.")] = 2.0,
    overrides: SetOption = None,
    as_json: JsonOption = False,
) -> None:
    """The checkpoint interval for a live run: in steps and seconds, from its own save
    times and failures.

    The config gives the prior: its job's MTTI, checkpoint write, restart and step time.
    Every record of the failures log is a failure but those that end an allocation
    without one (COMPLETED, CANCELLED, TIMEOUT) and those --map drops. The failures seen
    over --hours update the failure rate (a Gamma-Poisson posterior,
    the config's MTTI weighing --prior-failures failures); the save times measured replace
    the config's write. The interval is Daly's optimum for them. Beside it: NVRx-style
    section timeouts (the longest duration seen times 5) and the lead of a Slurm
    --signal (a step and two of the longest saves).
    """
    from relplan.advice import IntervalAdvisor, read_save_seconds
    from relplan.calibrate.event_log import NOT_FAILURES, read_category_map, read_records
    from relplan.cli.common import command_overrides
    from relplan.config.loading import load_config
    from relplan.output.files import to_json
    from relplan.sim.model import build_model

    config = load_config(config_path, command_overrides(overrides))
    model = build_model(config)
    step = step_seconds if step_seconds is not None else (
        model.step_hours * 3600.0 if model.step_hours else None)
    if step is None:
        raise ConfigError("--step-seconds", "the config models no step time ([workload]): "
                                            "give the run's measured step time")  # fmt: skip
    if failures is not None and hours is None:
        raise ConfigError("--hours", "give the hours the run ran over the failures of "
                                     f"{failures}")  # fmt: skip
    if hours is not None and not hours > 0:
        raise ConfigError("--hours", f"must be more than 0, not {hours:g}")
    advisor = IntervalAdvisor(step, model.job_mtti_hours, model.job.write_hours * 3600.0,
                              prior_failures, model.job.restart_hours * 3600.0, clock=None)
    for seconds in read_save_seconds(save_times) if save_times is not None else []:
        advisor.on_save(seconds)
    if failures is not None:
        dropped = set(NOT_FAILURES)
        if category_map is not None:
            dropped |= {category for category, mode in read_category_map(category_map).items()
                        if mode == "-"}  # fmt: skip
        advisor.on_failure(sum(record.text("category") not in dropped
                               for record in read_records(failures, "--failures", ["time"])))
    if hours is not None:
        advisor.on_hours(hours)
    advice = advisor.advice()
    if as_json:
        typer.echo(to_json(advice.to_dict()))
        return
    render_advice(advice.to_dict(), config_path.stem)


def render_advice(advice: dict[str, Any], name: str) -> None:
    """Print the advice: the interval, what it rests on, the timeouts and the signal."""
    from relplan.cli.render import console, print_table
    from relplan.units import format_duration

    low, high = advice["mtti_ci90_hours"]
    console.print(
        f"{name}: checkpoint every [bold]{advice['interval_steps']:,} steps[/] "
        f"({format_duration(advice['interval_seconds'] / 3600.0)} of compute)\n"
        f"MTTI {format_duration(advice['mtti_hours'])} (90% credible "
        f"{format_duration(low)} – {format_duration(high)}) from "
        f"{advice['failures']:g} failures in {advice['hours_run']:,.1f} h; save "
        f"{advice['save_seconds']:.1f} s; step {advice['step_seconds']:.2f} s",
        highlight=False)  # fmt: skip
    timeouts = advice["section_timeouts_seconds"]
    print_table("NVRx-style section timeouts (the longest seen x 5)", ("section", "timeout"),
                [[section, format_duration(seconds / 3600.0)]
                 for section, seconds in timeouts.items()])  # fmt: skip
    console.print(f"Slurm: sbatch --signal=B:USR1@{advice['slurm_signal_seconds']}",
                  highlight=False)
