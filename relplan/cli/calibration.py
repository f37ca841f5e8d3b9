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

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from relplan.cli.common import JsonOption
from relplan.errors import ConfigError
from relplan.units import HOURS_PER_YEAR, format_duration

if TYPE_CHECKING:
    from rich.console import Console

WriteConfigOption = Annotated[
    Path | None,
    typer.Option(
        "--write-config",
        metavar="OUT",
        help="Write the calibrated config (TOML) to this file.",
        show_default=False,
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


def _wrote(path: Path) -> None:
    from relplan.cli.render import error_console

    error_console.print(f"wrote {path}", highlight=False, markup=False)


def render_fit(data: dict[str, Any], console: Console | None = None) -> None:
    """Print a ``relplan fit`` report (the ``--json`` object) as a table of 80 columns."""
    from rich.text import Text

    from relplan.cli import render

    out = console if console is not None else render.console
    table = render.compact_table(
        f"Lifetime fits: {data['n']:,} units, {data['failures']:,} failed, "
        f"{data['censored']:,} censored",
        caption="95% CIs: Wald on the log scale; ΔAIC: AIC - the best's AIC;\n"
        "KM dist: max |Kaplan-Meier CDF - fitted CDF|",
    )
    for index, column in enumerate(
        ("family", "parameters [95% CI]", "ΔAIC", "KM dist", "mean life [95% CI]")
    ):
        table.add_column(column, justify="left" if index < 2 else "right")
    best_aic = data["fits"][data["best"]]["aic"]
    for family, fit in data["fits"].items():
        params, ci95 = fit["params"], fit["ci95"]
        lines = []
        for name, value in params.items():
            label = name.removesuffix("_hours")
            lines.append(f"{label} " + _with_ci(value, *ci95[name], hours=name.endswith("_hours")))
        table.add_row(
            Text(family + (" *" if family == data["best"] else "")),
            Text("\n".join(lines)),
            f"{fit['aic'] - best_aic:.1f}",
            f"{fit['gof']['km_distance']:.3f}",
            Text(_with_ci(fit["mean_hours"], *fit["mean_ci95"], hours=True)),
        )
    out.print(table)
    out.print(
        f"* best by AIC: {data['best']}. In a [failures.NAME] table:", highlight=False, markup=False
    )
    out.print(data["config"].rstrip("\n"), highlight=False, markup=False, soft_wrap=True)


def fit_command(
    csv_path: Annotated[
        Path,
        typer.Argument(
            help="CSV with columns hours (time in service) and failed (1 failed then, "
            "0 still running then: right-censored).",
            metavar="CSV",
            show_default=False,
        ),
    ],
    as_json: JsonOption = False,
    write_config: WriteConfigOption = None,
) -> None:
    """Fit exponential, Weibull and lognormal lifetimes to censored data; pick one by AIC.

    Each family is fitted by maximum likelihood with right-censoring and reported with its
    parameters and mean life (95% CIs), log-likelihood, AIC and the distance between the
    Kaplan-Meier estimate and the fitted CDF. --write-config writes the best fit as a
    TOML line, lifetime = { dist = ..., ... }, for a [failures.NAME] table.
    """
    from relplan.analysis.fit import fit_lifetimes, read_lifetime_csv
    from relplan.output.files import to_json

    _check_write_config(write_config)
    report = fit_lifetimes(read_lifetime_csv(csv_path))
    data = report.to_dict()
    if write_config is not None:
        _write_config(write_config, report.config)
    if as_json:
        typer.echo(to_json(data))
    else:
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
    out.print(
        f"Job: {job['interruptions']:.4g} interruptions (fatal modes), "
        f"{job['interruptions_per_day']:.3g} a day;\n"
        f"MTTI {mtti_text} (config {config_mtti_text}).",
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
    log_path: Annotated[
        Path,
        typer.Argument(
            help="Incident log CSV: time (ISO 8601), category (a failure mode of the "
            "config), optionally unit (an id) and downtime_hours.",
            metavar="LOG",
            show_default=False,
        ),
    ],
    config_path: Annotated[
        Path,
        typer.Option(
            "--config",
            metavar="CFG",
            help="The config whose failure modes and job the log is measured against.",
            show_default=False,
        ),
    ],
    start: Annotated[
        str | None,
        typer.Option(
            metavar="TIME",
            help="Start of the window, ISO 8601 [default: the first event].",
            show_default=False,
        ),
    ] = None,
    end: Annotated[
        str | None,
        typer.Option(
            metavar="TIME",
            help="End of the window, ISO 8601 [default: the last event].",
            show_default=False,
        ),
    ] = None,
    as_json: JsonOption = False,
    write_config: WriteConfigOption = None,
) -> None:
    """Measure an incident log's failure rates against a config's; find repeat offenders.

    Per failure mode: failures, the rate and MTBF per unit (units from the config's job)
    with exact Poisson 95% CIs, the ratio to the config's rate and whether the config's
    rate is inside the CI. For the job: the measured MTTI, interruptions a day and, with
    downtimes, goodput. Units failing more often than their mode's rate allows are listed
    with p-values. --write-config writes the config with each measured mode's lifetime
    replaced by an exponential with the measured MTBF.
    """
    from relplan.analysis.incidents import (
        incident_report,
        read_incident_log,
        recalibrated_config_text,
    )
    from relplan.analysis.preflight import warn_config
    from relplan.config.loading import parse_config, read_toml
    from relplan.output.files import to_json

    _check_write_config(write_config)
    config = parse_config(read_toml(config_path, "--config"))
    warn_config(config)
    report = incident_report(read_incident_log(log_path), config, start, end)
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
