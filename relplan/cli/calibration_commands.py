"""``relplan fit`` and ``relplan analyze``: calibrate failure models from your own data.

``fit`` fits lifetime distributions to times in service with right-censoring; ``analyze``
measures an incident log's failure rates against a config's and can write the config
recalibrated to it. Both print a table that fits 80 columns, or one JSON object with
``--json``.

Like the rest of :mod:`relplan.cli`, this module imports no heavy library at module level:
each command imports the library it needs when it runs. The commands raise
:class:`~relplan.errors.ConfigError` on bad input; the app registers them wrapped in
:func:`relplan.cli.common.reports_errors`, which prints one line naming the key and exits
with code 2.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from relplan.cli.common import JsonOption, print_warnings, quiet_option
from relplan.errors import ConfigError
from relplan.units import HOURS_PER_YEAR, format_duration

if TYPE_CHECKING:
    from rich.console import Console

    from relplan.calibrate.incidents import IncidentLog
    from relplan.config.schema import RelplanConfig

LogArgument = Annotated[
    Path,
    typer.Argument(
        help="Incident log, CSV or JSON lines: time (ISO 8601), category (a failure mode "
        "of the config, or the log's own with --map), optionally unit and downtime_hours.",
        metavar="LOG",
        show_default=False,
    ),
]
"""LOG: the incident log that analyze measures and replay replays."""

CategoryMapOption = Annotated[
    Path | None,
    quiet_option(
        "--map",
        metavar="FILE",
        help="CSV with columns category (the log's) and mode (the config's), many to "
        "one; mode - drops a category.",
    ),
]
"""--map: the log's own categories onto the config's modes (analyze, replay)."""


def log_config_option(help: str) -> Any:
    """The ``--config CFG`` option of a command that reads an incident log against a
    config (analyze, replay); ``help`` says what of the config it uses."""
    return quiet_option("--config", metavar="CFG", help=help)


WriteConfigOption = Annotated[
    Path | None,
    quiet_option(
        "--write-config",
        metavar="OUT",
        help="Write the calibrated config (TOML) to this file.",
    ),
]

_HOURS_PER_UNIT = {"s": 1.0 / 3600.0, "min": 1.0 / 60.0, "h": 1.0, "d": 24.0, "y": HOURS_PER_YEAR}


def _number(value: float) -> str:
    """Three significant digits, without an exponent below a million."""
    return f"{value:.3g}" if abs(value) < 1000 or abs(value) >= 1e6 else f"{value:,.0f}"


def _duration(hours: float) -> str:
    """:func:`format_duration`, with thousands of years written out ("1,480 y")."""
    text = format_duration(hours)
    if "e+" not in text:
        return text
    unit = text.split()[-1]
    return f"{_number(hours / _HOURS_PER_UNIT[unit])} {unit}"


def _with_ci(value: float | None, low: float | None, high: float | None, hours: bool) -> str:
    """``value [low, high]``; durations share the unit :func:`format_duration` picks.

    An infinite value (a mean life without failures) shows its lower bound: ``> low``.
    """
    if value is None:
        return f"> {_duration(low)}" if hours and low is not None else "none"
    if not hours:
        return f"{_number(value)} [{_number(low)}, {_number(high)}]"
    text = _duration(value)
    factor = _HOURS_PER_UNIT.get(text.split()[-1], 1.0)

    def bound(hours_value: float | None) -> str:
        return "inf" if hours_value is None else _number(hours_value / factor)

    return f"{text} [{bound(low)}, {bound(high)}]"


def _check_write_config(path: Path | None) -> None:
    """Refuse, before any work, a --write-config path that cannot be written."""
    if path is None:
        return
    from relplan.output.files import check_output_dir

    if path.is_dir():
        raise ConfigError("--write-config", f"{path} is a folder, not a file")
    check_output_dir(path.parent, "--write-config")


def _write_config(path: Path, text: str) -> None:
    from relplan.output.files import write_text_atomic

    try:
        write_text_atomic(path, text)
    except OSError as error:
        raise ConfigError("--write-config", f"cannot write {path}: {error.strerror}") from None


def _read_log(
    log_path: Path, config_path: Path, category_map: Path | None
) -> tuple[IncidentLog, RelplanConfig, dict[str, str] | None]:
    """What analyze and replay read: the config (its warnings given), the category map
    (None without ``--map``) and the incident log, in that order."""
    from relplan.calibrate.event_log import read_category_map
    from relplan.calibrate.incidents import read_incident_log
    from relplan.config.loading import parse_config, read_toml
    from relplan.runs.preflight import warn_config

    config = parse_config(read_toml(config_path, "--config"))
    warn_config(config)
    mapping = read_category_map(category_map) if category_map is not None else None
    return read_incident_log(log_path), config, mapping


def _wrote(path: Path) -> None:
    from relplan.cli.render import error_console

    error_console.print(f"wrote {path}", highlight=False, markup=False)


def render_fit(data: dict[str, Any], console: Console | None = None) -> None:
    """Print a ``relplan fit`` report (the ``--json`` object) as a table of 80 columns.

    With ``--group`` the object holds ``groups``: one report each, printed one after another.
    """
    from rich.text import Text

    from relplan.cli import render

    out = console if console is not None else render.console
    if "groups" in data:
        for name, report in data["groups"].items():
            out.print(f"Group {name}:", highlight=False, markup=False)
            render_fit(report, out)
            out.print()
        return
    what = "times between failures" if "events" in data else "units"
    gof = data["gof"]
    table = render.compact_table(
        f"Lifetime fits: {data['n']:,} {what}, {data['failures']:,} failed, "
        f"{data['censored']:,} censored",
        caption="95% CIs: Wald on the log scale; ΔAIC: AIC - the smallest AIC;\n"
        "KM dist: max |Kaplan-Meier CDF - fitted CDF|; ! above the bound "
        f"{gof['bound']:.3f},\nthe larger of the curve's 95% bootstrap noise "
        f"({gof['noise_bound']:.3f}) and 0.2 x\nits fraction failed by the last "
        f"observation ({gof['km_end_cdf']:.3f})",
    )
    for index, column in enumerate(
        ("family", "parameters [95% CI]", "ΔAIC", "KM dist", "mean life [95% CI]")
    ):
        table.add_column(column, justify="left" if index < 2 else "right")
    best_aic = data["fits"][data["aic_best"]]["aic"]
    for family, fit in data["fits"].items():
        params, ci95 = fit["params"], fit["ci95"]
        lines = []
        for name, value in params.items():
            label = name.removesuffix("_hours")
            lines.append(f"{label} " + _with_ci(value, *ci95[name], hours=name.endswith("_hours")))
        marks = (" *" if family == data["best"] else "") + ("" if fit["gof"]["passes"] else " !")
        table.add_row(
            Text(family + marks),
            Text("\n".join(lines)),
            f"{fit['aic'] - best_aic:.1f}",
            f"{fit['gof']['km_distance']:.3f}",
            Text(_with_ci(fit["mean_hours"], *fit["mean_ci95"], hours=True)),
        )
    out.print(table)
    out.print(
        f"Exposure estimate (total time / failures): {_duration(data['exposure_mean_hours'])}; "
        f"longest observation: {_duration(data['longest_hours'])}.",
        highlight=False,
        markup=False,
    )
    counts = data.get("events")
    check = data["count_check"]
    if check["quantity"] == "repair hours":
        expected = ", ".join(f"{family} {fit['count_check']['expected_hours']:,.0f} h "
                             f"({fit['count_check']['ratio']:.2f}x)"
                             for family, fit in data["fits"].items())  # fmt: skip
        line = (f"Hours of repair, each repair drawn from the line: "
                f"{check['observed_hours']:,.0f} h observed; expected: {expected}.")  # fmt: skip
    else:
        over = (f"the log's window ({counts['units']:,} units x "
                f"{_duration(counts['window_hours'])}, in equilibrium)" if counts is not None
                else "the data's own follow-up (units new at entry)")  # fmt: skip
        expected = ", ".join(f"{family} {fit['count_check']['expected_failures']:,.0f} "
                             f"({fit['count_check']['ratio']:.2f}x)"
                             for family, fit in data["fits"].items())  # fmt: skip
        line = (f"Failures over {over}: {check['observed_failures']:,} observed; "
                f"expected: {expected}.")  # fmt: skip
    out.print(textwrap.fill(line, 79), highlight=False, markup=False)
    chosen = {
        "asked": f"* asked for: {data['best']}.",
        "aic": f"* best by AIC: {data['best']}, which passes the fit check.",
        "aic among passing": f"* best: {data['best']}, the smallest AIC of the families that "
        "pass the fit check.",
        "aic, none passing": f"* best by AIC: {data['best']}; no family passes the fit check.",
    }[data["chosen_by"]]
    out.print(f"{chosen}\nIn a [failures.NAME] table:", highlight=False, markup=False)
    out.print(data["config"].rstrip("\n"), highlight=False, markup=False, soft_wrap=True)
    for note in data.get("notes", []):
        out.print(textwrap.fill(f"note: {note}", 79, subsequent_indent="  "),
                  highlight=False, markup=False)  # fmt: skip


def _config_text(reports: dict[str, Any], grouped: bool) -> str:
    """The --write-config text: one line, or one [failures.GROUP] table per group."""
    from relplan.config.toml_text import toml_key

    if not grouped:
        return reports[""].config
    return "\n".join(
        f"[failures.{toml_key(name)}]\n{report.config}" for name, report in reports.items()
    )


def fit_command(
    csv_path: Annotated[
        Path,
        typer.Argument(
            help="CSV with columns hours (time in service) and failed (1 failed then, "
            "0 still running then: right-censored); with --events, records unit,time.",
            metavar="CSV",
            show_default=False,
        ),
    ],
    as_json: JsonOption = False,
    write_config: WriteConfigOption = None,
    group: Annotated[
        str | None,
        quiet_option(
            "--group",
            metavar="COLUMN",
            help="Fit each group apart: the groups are the values of this column.",
        ),
    ] = None,
    events: Annotated[
        bool,
        typer.Option(
            "--events",
            help="The CSV holds failure records, unit and time (ISO 8601): build the "
            "censored times between failures from them (needs --start, --end and "
            "--units or --unit-list).",
        ),
    ] = False,
    start: Annotated[
        str | None,
        quiet_option(metavar="TIME", help="With --events: when watching began, ISO 8601."),
    ] = None,
    end: Annotated[
        str | None,
        quiet_option(metavar="TIME", help="With --events: when watching ended, ISO 8601."),
    ] = None,
    units: Annotated[
        int | None,
        quiet_option(
            "--units",
            metavar="N",
            min=1,
            help="With --events: units watched (those without a record are "
            "censored at the whole window).",
        ),
    ] = None,
    unit_list: Annotated[
        Path | None,
        quiet_option(
            "--unit-list",
            metavar="FILE",
            help="With --events: the units watched, one id a line.",
        ),
    ] = None,
    as_key: Annotated[
        str,
        typer.Option("--as", metavar="KEY",
                     help="What --write-config writes: a lifetime or a repair line."),
    ] = "lifetime",
    family: Annotated[
        str | None,
        quiet_option(
            "--family",
            metavar="NAME",
            help="Write this family (exponential, weibull or lognormal) "
            "[default: the best].",
        ),
    ] = None,
    force: Annotated[
        bool,
        typer.Option("--force",
                     help="With --write-config: write the fit even where its failures "
                     "over the data's own exposure are more than 2x off the observed."),
    ] = False,
) -> None:
    """Fit exponential, Weibull and lognormal lifetimes to censored data; pick the best.

    Each family is fitted by maximum likelihood with right-censoring and reported with its
    parameters and mean life (95% CIs), AIC, and the distance between the Kaplan-Meier
    estimate and the fitted CDF; a family passes the fit check when that distance is at
    most the larger of the curve's own 95% bootstrap noise and 0.2 x its fraction failed.
    The best is the smallest AIC among the families that pass. Each line is then simulated
    over the data's own exposure (units new at entry over the data's follow-up; with
    --events, renewals over the window in equilibrium) and its failures set against the
    observed: past 20% a warning; past 2x --write-config refuses it unless --force.
    --write-config writes it (or the --family asked for) as a TOML line, lifetime = {
    dist = ..., ... } (or repair = with --as repair).
    """
    from relplan.calibrate.field_data import fit_file
    from relplan.output.files import to_json

    if force and write_config is None:
        raise ConfigError("--force", "only with --write-config: it writes a line the failure "
                          "count refuses")  # fmt: skip
    _check_write_config(write_config)
    fitted = fit_file(csv_path, family=family, as_key=as_key, group=group, events=events,
                      start=start, end=end, units=units, unit_list=unit_list,
                      keys={"as_key": "--as", "group": "--group", "start": "--start",
                            "end": "--end", "units": "--units",
                            "unit_list": "--unit-list"})  # fmt: skip
    print_warnings(fitted.warnings)
    reports, data = fitted.reports, fitted.data
    counts = data.get("events")
    if write_config is not None:
        refused = {name: report for name, report in reports.items() if report.write_refused}
        if refused and not force:
            name, report = next(iter(refused.items()))
            where = f"group {name!r}: " if name else ""
            raise ConfigError(
                "--write-config",
                f"{where}refused: {report.refusal()}; --force writes it anyway",
            )
        _write_config(write_config, _config_text(reports, group is not None))
    if as_json:
        typer.echo(to_json(data))
    else:
        if counts is not None:
            from relplan.cli.render import error_console

            error_console.print(
                f"{counts['events']:,} failures of {counts['units']:,} units over "
                f"{_duration(counts['window_hours'])}; {counts['merged']:,} simultaneous "
                f"records merged, {counts['outside']:,} outside the window.",
                highlight=False,
                markup=False,
            )
        render_fit(data)
    if write_config is not None and not as_json:
        _wrote(write_config)


def render_incidents(data: dict[str, Any], title: str, console: Console | None = None) -> None:
    """Print a ``relplan analyze`` report (the ``--json`` object) in 80 columns."""
    from rich.text import Text

    from relplan.cli import render

    out = console if console is not None else render.console
    window = data["window"]
    start, end = window["start"][:10], window["end"][:10]
    table = render.compact_table(
        f"{title}: {start} to {end} ({_duration(window['hours'])})",
        caption="ratio: measured rate / config rate; in CI: the config's rate is inside the "
        "measured exact Poisson 95% CI",
    )
    for index, column in enumerate(
        ("mode", "events", "units", "MTBF per unit [95% CI]", "config", "ratio", "in CI")
    ):
        table.add_column(column, justify="left" if index == 0 else "right")
    for name, entry in data["categories"].items():
        table.add_row(
            Text(name),
            f"{entry['count']:,}",
            f"{entry['units']:,}",
            Text(_with_ci(entry["mtbf_hours"], *entry["mtbf_hours_ci95"], hours=True)),
            _duration(entry["config_mtbf_hours"]),
            f"{entry['ratio_to_config']:.2f}",
            "yes" if entry["config_rate_inside_ci"] else Text("NO", style="bold red"),
        )
    out.print(table)
    if window["events_outside"]:
        out.print(
            f"{window['events_outside']:,} events outside the window are not counted.",
            highlight=False,
        )
    job = data["job"]
    mtti = job["mtti_hours"]
    mtti_text = _with_ci(mtti, *job["mtti_hours_ci95"], hours=True) if mtti is not None else "never"
    config_mtti = job["config_mtti_hours"]
    config_mtti_text = _duration(config_mtti) if config_mtti is not None else "never"
    merged = job.get("coincident_rows", 0)
    out.print(
        f"Job: {job['interruptions']:.4g} interruptions (fatal modes), "
        f"{job['interruptions_per_day']:.3g} a day;\n"
        f"MTTI {mtti_text} (config {config_mtti_text})."
        + (f"\n{merged:,} rows at the time of an earlier one: one incident, one interruption."
           if merged else ""),
        highlight=False,
        markup=False,
    )
    if job["goodput"] is not None:
        out.print(
            f"Goodput {job['goodput']:.4f}: {_duration(job['downtime_hours'])} down "
            f"over {job['downtime_events']:,} failures with a downtime.",
            highlight=False,
        )
    offenders = data["repeat_offenders"]
    if not offenders:
        out.print("Repeat offenders: none (Bonferroni-corrected p < 0.01).", highlight=False)
        return
    lemons = render.compact_table("Repeat offenders (Bonferroni-corrected p < 0.01)")
    for index, column in enumerate(
        ("unit", "mode", "failures", "expected", "p-value", "corrected")
    ):
        lemons.add_column(column, justify="left" if index < 2 else "right")
    for row in offenders:
        lemons.add_row(
            Text(row["unit"]),
            Text(row["category"]),
            str(row["failures"]),
            f"{row['expected']:.3g}",
            f"{row['p_value']:.2g}",
            f"{row['p_value_bonferroni']:.2g}",
        )
    out.print(lemons)


def analyze_command(
    log_path: LogArgument,
    config_path: Annotated[
        Path,
        log_config_option("The config whose failure modes and job the log is measured against."),
    ],
    start: Annotated[
        str | None,
        quiet_option(
            metavar="TIME",
            help="Start of the window, ISO 8601 [default: the first event].",
        ),
    ] = None,
    end: Annotated[
        str | None,
        quiet_option(metavar="TIME", help="End of the window, ISO 8601 [default: the last event]."),
    ] = None,
    as_json: JsonOption = False,
    write_config: WriteConfigOption = None,
    ids: Annotated[
        str,
        typer.Option(
            "--ids",
            metavar="KIND",
            help="What the log's unit ids name: auto (a unit of the row's own mode), "
            "server, gpu, nic, link or switch.",
        ),
    ] = "auto",
    category_map: CategoryMapOption = None,
) -> None:
    """Measure an incident log's failure rates against a config's; find repeat offenders.

    Per failure mode: failures, the rate and MTBF per unit (units from the config's job)
    with exact Poisson 95% CIs, the ratio to the config's rate and whether the config's
    rate is inside the CI. For the job: the measured MTTI, interruptions a day (rows at
    the same time, the components of one incident, are one interruption) and, with
    downtimes (merged where they overlap, clipped to the window), goodput. Units (or, with
    --ids server, servers) failing more often than their mode's rate allows are listed with
    p-values. Duplicated rows are dropped with a warning. The log is CSV or JSON lines.
    --write-config writes the config with each measured mode's lifetime replaced by an
    exponential with the measured MTBF.
    """
    from relplan.calibrate.incidents import incident_report, recalibrated_config_text
    from relplan.output.files import to_json
    from relplan.vocab import LOG_ID_KINDS

    if ids not in LOG_ID_KINDS:
        raise ConfigError("--ids", f"must be one of {', '.join(LOG_ID_KINDS)} (got {ids!r})")
    _check_write_config(write_config)
    log, config, mapping = _read_log(log_path, config_path, category_map)
    report = incident_report(log, config, start, end, ids, mapping)
    print_warnings(f"LOG: {warning}" for warning in report["warnings"])
    if write_config is not None:
        text = recalibrated_config_text(
            config_path.read_text(encoding="utf-8"), report, str(log_path)
        )
        _write_config(write_config, text)
    if as_json:
        typer.echo(to_json(report))
    else:
        render_incidents(report, f"{log_path.name} against {config.name or config_path.stem}")
    if write_config is not None and not as_json:
        _wrote(write_config)


def render_replay(data: dict[str, Any], title: str, console: Console | None = None) -> None:
    """Print a ``relplan replay`` report (the ``--json`` object) in 80 columns."""
    from rich import box
    from rich.table import Table
    from rich.text import Text

    from relplan.cli import render
    from relplan.vocab import BUCKETS

    out = console if console is not None else render.console
    window, log, policy = data["window"], data["log"], data["policy"]
    table = Table(
        title=f"{title}: {window['start'][:10]} to {window['end'][:10]} "
        f"({_duration(window['hours'])}), {log['events']:,} failures",
        caption=f"mean over {policy['samples']:,} job start times [95% CI over "
        f"{policy['samples']:,} histories\nresampled in blocks of "
        f"{_duration(data['bootstrap']['block_hours'])} (circular block bootstrap)]",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        show_edge=False,
        padding=(0, 1, 0, 0),
    )
    for index, column in enumerate(("interval", "goodput", "lost hours", "interruptions")):
        table.add_column(column, justify="left" if index == 0 else "right")
    for interval in data["intervals"]:
        goodput, lost = interval["goodput"], interval["lost_hours"]
        stops = interval["interruptions"]
        table.add_row(
            Text(_duration(interval["interval_hours"])),
            Text(f"{goodput['mean']:.4f} [{goodput['ci95'][0]:.4f}, {goodput['ci95'][1]:.4f}]"),
            Text(f"{lost['mean']:,.1f} [{lost['ci95'][0]:,.1f}, {lost['ci95'][1]:,.1f}]"),
            Text(f"{stops['mean']:.4g} [{stops['ci95'][0]:.4g}, {stops['ci95'][1]:.4g}]"),
        )
    out.print(table)
    buckets = [
        bucket
        for bucket in BUCKETS
        if bucket != "useful"
        and any(interval["bucket_hours"][bucket] > 0 for interval in data["intervals"])
    ]
    if buckets:
        lost_table = Table(
            title="Hours lost per bucket (means over the start times)",
            box=box.SIMPLE_HEAD,
            pad_edge=False,
            show_edge=False,
            padding=(0, 1, 0, 0),
        )
        for index, column in enumerate(("interval", *buckets)):
            lost_table.add_column(column, justify="left" if index == 0 else "right")
        for interval in data["intervals"]:
            lost_table.add_row(
                Text(_duration(interval["interval_hours"])),
                *(f"{interval['bucket_hours'][bucket]:,.1f}" for bucket in buckets),
            )
        out.print(lost_table)
    out.print(
        f"Checkpoint write {_duration(policy['write_hours'])}, restart "
        f"{_duration(policy['restart_hours'])}; replayed: "
        + (", ".join(f"{count:,} {impact}" for impact, count in log["replayed"].items())
           or "none"),
        highlight=False,
        markup=False,
    )


def replay_command(
    log_path: LogArgument,
    config_path: Annotated[
        Path,
        log_config_option(
            "The config whose failure modes, checkpoint and restart the history is "
            "replayed against."
        ),
    ],
    start: Annotated[
        str,
        quiet_option(metavar="TIME", help="Start of the window, ISO 8601."),
    ],
    end: Annotated[
        str,
        quiet_option(metavar="TIME", help="End of the window, ISO 8601."),
    ],
    intervals: Annotated[
        list[str] | None,
        quiet_option(
            "--interval",
            metavar="DUR",
            help="A checkpoint interval to replay (repeat for more) [default: the config's].",
        ),
    ] = None,
    samples: Annotated[
        int,
        typer.Option("--samples", metavar="N",
                     help="Job start times drawn, and histories the block bootstrap makes."),
    ] = 1000,
    seed: Annotated[
        int | None,
        quiet_option(
            "--seed",
            metavar="SEED",
            help="Seed of the draw [default: the config's simulation.seed].",
        ),
    ] = None,
    category_map: CategoryMapOption = None,
    as_json: JsonOption = False,
) -> None:
    """Replay a log's real failures against the config's checkpoint and restart policy.

    The job runs through the window and checkpoints every interval; each failure of a
    fatal mode loses the work since the last checkpoint, then costs the mode's detection,
    the wait the log's downtime adds, and the config's restart; a transient mode's failure
    stalls the job. For each interval: goodput, lost hours per bucket and interruptions,
    as the mean over job start times drawn across the window (the history wrapped
    around), with a 95% interval over histories made of blocks of the log's own (a
    circular block bootstrap, the block length by Politis and White's rule), so that it
    holds how many failures came and when, not only where the checkpoints fell.
    """
    from relplan.calibrate.replay import replay_log
    from relplan.output.files import to_json
    from relplan.units import UnitError, parse_duration_hours

    intervals_hours = None
    if intervals:
        intervals_hours = []
        for text in intervals:
            try:
                intervals_hours.append(parse_duration_hours(text))
            except UnitError as error:
                raise ConfigError("--interval", str(error)) from None
    log, config, mapping = _read_log(log_path, config_path, category_map)
    report = replay_log(
        log,
        config,
        start,
        end,
        intervals_hours,
        samples=samples,
        seed=seed,
        category_map=mapping,
    )
    print_warnings(f"LOG: {warning}" for warning in report.warnings)
    data = report.to_dict()
    if as_json:
        typer.echo(to_json(data))
    else:
        render_replay(data, f"{log_path.name} against {config.name or config_path.stem}")
