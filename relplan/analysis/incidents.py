"""An incident log measured against a config: ``relplan analyze``.

The log has one row per failure: its ``time`` (ISO 8601), its ``category`` (a failure mode
of the config, a key of ``[failures]``), optionally the ``unit`` that failed (an id) and the
job's ``downtime_hours``. Over a window (by default from the first to the last event) each
category's failures are a Poisson count on an exposure of ``units x window`` unit-hours,
where the units are the mode's units in the job's footprint (a link or optic mode's server
and fabric parts together). From that:

- each category's rate per unit with an exact (Garwood) Poisson 95% interval, its MTBF per
  unit, and whether the config's rate (1 / its lifetime's mean) lies inside the interval;
- the job's measured mean time to interruption (window / failures of fatal modes) and,
  where downtimes are given, its goodput ``1 - sum(downtime) / window``;
- repeat offenders: units with more failures than the category's Poisson rate allows
  (``P(X >= k)`` with ``X ~ Poisson(count / units)``, flagged below 0.01 after a
  Bonferroni correction over the category's units);
- the config recalibrated to the log: each category's lifetime replaced by an exponential
  with the measured MTBF.

The default window starts and ends on an event, which overstates every rate by about
``2 / events`` (the gaps before the first and after the last event are cut off); give the
period the log covers (``start``, ``end``) for exact figures.
"""

from __future__ import annotations

import copy
import csv
import math
import re
import tomllib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from scipy import stats

from relplan.analysis.fit import duration_text
from relplan.analysis.results import finite_or_none
from relplan.config.loading import parse_config
from relplan.config.schema import RelplanConfig
from relplan.config.toml_text import toml_document
from relplan.errors import ConfigError
from relplan.sim.model import build_model
from relplan.units import HOURS_PER_YEAR, format_duration

REPEAT_OFFENDER_ALPHA = 0.01
"""Family-wise significance level of the repeat-offender test (after Bonferroni)."""


@dataclass(frozen=True)
class IncidentLog:
    """Failures, one per row, in the order given.

    Attributes
    ----------
    times : tuple of datetime
        When each failure happened, in UTC (a time without an offset is taken as UTC).
    categories : tuple of str
        The failure mode of each (a key of the config's ``[failures]``).
    units : tuple of (str or None)
        The id of the unit that failed, where given.
    downtime_hours : tuple of (float or None)
        The job's downtime from each failure, hours, where given.
    """

    times: tuple[datetime, ...]
    categories: tuple[str, ...]
    units: tuple[str | None, ...]
    downtime_hours: tuple[float | None, ...]


def parse_time(text: str | datetime, key: str) -> datetime:
    """Read an ISO 8601 time; one without an offset is taken as UTC.

    Parameters
    ----------
    text : str or datetime
        For example ``"2024-03-01T12:30:00Z"``, ``"2024-03-01 12:30+02:00"`` or ``"2024-03-01"``.
    key : str
        What an error names (the column or the option).

    Returns
    -------
    datetime
        The time, in UTC.

    Raises
    ------
    ConfigError
        Naming ``key`` when the text is not an ISO 8601 time.

    Examples
    --------
    >>> parse_time("2024-03-01T12:30:00+02:00", "time").isoformat()
    '2024-03-01T10:30:00+00:00'
    """
    if isinstance(text, datetime):
        moment = text
    else:
        try:
            moment = datetime.fromisoformat(str(text).strip())
        except ValueError:
            raise ConfigError(
                key, f"{text!r} is not an ISO 8601 time (such as 2024-03-01T12:30:00Z)"
            ) from None
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


def _optional_text(value: str | None) -> str | None:
    if value is None or not str(value).strip():
        return None
    return str(value).strip()


def _optional_hours(value: str | float | None, where: str) -> float | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    try:
        hours = float(value)
    except ValueError:
        raise ConfigError("downtime_hours", f"{where}: {value!r} is not a number") from None
    if not math.isfinite(hours) or hours < 0:
        raise ConfigError(
            "downtime_hours", f"{where}: must be a finite number >= 0 (got {value!r})"
        )
    return hours


def incident_log(
    times: Sequence[str | datetime],
    categories: Sequence[str],
    units: Sequence[str | None] | None = None,
    downtime_hours: Sequence[str | float | None] | None = None,
) -> IncidentLog:
    """Check and pack failures into an :class:`IncidentLog`.

    Parameters
    ----------
    times : sequence of str or datetime
        When each failure happened (ISO 8601).
    categories : sequence of str
        Its failure mode (a key of the config's ``[failures]``).
    units : sequence of str or None, optional
        The id of the unit that failed (None or empty where unknown).
    downtime_hours : sequence of float or None, optional
        The job's downtime from each failure, hours (None or empty where unknown).

    Returns
    -------
    IncidentLog
        The checked log.

    Raises
    ------
    ConfigError
        Naming the column of a value that cannot be read.

    Examples
    --------
    >>> log = incident_log(["2024-01-01T00:00Z", "2024-01-02T06:00Z"], ["gpu", "host"])
    >>> len(log.times), log.units
    (2, (None, None))
    """
    count = len(times)
    units = list(units) if units is not None else [None] * count
    downtime_hours = list(downtime_hours) if downtime_hours is not None else [None] * count
    for column, values in (
        ("category", categories),
        ("unit", units),
        ("downtime_hours", downtime_hours),
    ):
        if len(values) != count:
            raise ConfigError(column, f"{len(values)} values for {count} times")
    parsed_categories = []
    for row, category in enumerate(categories, start=1):
        name = _optional_text(category)
        if name is None:
            raise ConfigError("category", f"row {row}: is empty")
        parsed_categories.append(name)
    return IncidentLog(
        times=tuple(parse_time(time, "time") for time in times),
        categories=tuple(parsed_categories),
        units=tuple(_optional_text(unit) for unit in units),
        downtime_hours=tuple(
            _optional_hours(hours, f"row {row}")
            for row, hours in enumerate(downtime_hours, start=1)
        ),
    )


def read_incident_log(path: str | Path) -> IncidentLog:
    """Read an incident log CSV: ``time``, ``category`` and optionally ``unit``, ``downtime_hours``.

    Parameters
    ----------
    path : str or Path
        The CSV file, with a header row; other columns are ignored.

    Returns
    -------
    IncidentLog
        The checked log.

    Raises
    ------
    ConfigError
        ``LOG`` when the file is missing or unreadable; the column's name when it is
        missing or a value cannot be read (with its line).

    Examples
    --------
    >>> log = read_incident_log("tests/data/incidents.csv")
    >>> log.categories[0], log.times[0].year
    ('optic', 2024)
    """
    file = Path(path)
    if file.is_dir():
        raise ConfigError("LOG", f"{file} is a folder, not a CSV file")
    if not file.is_file():
        raise ConfigError("LOG", f"no such file: {file}")
    times: list[datetime] = []
    categories: list[str] = []
    units: list[str | None] = []
    downtimes: list[float | None] = []
    try:
        with file.open(newline="", encoding="utf-8-sig") as handle:
            reader = csv.DictReader(handle)
            columns = [name.strip() for name in reader.fieldnames or []]
            for column in ("time", "category"):
                if column not in columns:
                    raise ConfigError(
                        column,
                        f"missing column in {file} (columns: {', '.join(columns) or 'none'})",
                    )
            reader.fieldnames = columns
            for row in reader:
                where = f"line {reader.line_num} of {file}"
                text = row.get("time") or ""
                try:
                    times.append(parse_time(text, "time"))
                except ConfigError as error:
                    raise ConfigError("time", f"{where}: {error.message}") from None
                category = _optional_text(row.get("category"))
                if category is None:
                    raise ConfigError("category", f"{where}: is empty")
                categories.append(category)
                units.append(_optional_text(row.get("unit")))
                downtimes.append(_optional_hours(row.get("downtime_hours"), where))
    except UnicodeDecodeError:
        raise ConfigError("LOG", f"{file} is not UTF-8 text") from None
    return IncidentLog(tuple(times), tuple(categories), tuple(units), tuple(downtimes))


def poisson_rate_ci(count: int, exposure: float) -> tuple[float, float]:
    """Exact (Garwood) 95% confidence interval of a Poisson rate.

    Parameters
    ----------
    count : int
        Events observed.
    exposure : float
        Exposure they were observed over (unit-hours, say).

    Returns
    -------
    (float, float)
        ``(G(0.025; count) / exposure, G(0.975; count + 1) / exposure)`` with ``G`` the
        quantile of a unit-scale gamma (chi-square / 2); the lower bound is 0 for no event.

    Examples
    --------
    >>> [round(bound, 3) for bound in poisson_rate_ci(10, 1.0)]
    [4.795, 18.39]
    >>> poisson_rate_ci(0, 2.0)[0], round(poisson_rate_ci(0, 2.0)[1], 3)
    (0.0, 1.844)
    """
    low = float(stats.gamma.ppf(0.025, count)) if count > 0 else 0.0
    high = float(stats.gamma.ppf(0.975, count + 1))
    return low / exposure, high / exposure


def _reciprocal(value: float) -> float:
    return 1.0 / value if value > 0 else math.inf


def _window(
    log: IncidentLog, start: str | datetime | None, end: str | datetime | None
) -> tuple[datetime, datetime]:
    if not log.times and (start is None or end is None):
        raise ConfigError(
            "LOG", "has no incidents: give --start and --end to measure a window without failures"
        )
    window_start = parse_time(start, "--start") if start is not None else min(log.times)
    window_end = parse_time(end, "--end") if end is not None else max(log.times)
    if window_end <= window_start:
        key = "--end" if end is not None else ("--start" if start is not None else "time")
        raise ConfigError(
            key, f"the window from {window_start.isoformat()} to {window_end.isoformat()} is empty"
        )
    return window_start, window_end


def _category_units(config: RelplanConfig) -> dict[str, dict[str, Any]]:
    """Per failure mode of the config: job units (parts summed), fatal units, impacts."""
    if config.job.recovery == "failure-free":
        raise ConfigError(
            "job.recovery", "a failure-free config has no failure modes to measure a log against"
        )
    model = build_model(config)
    categories: dict[str, dict[str, Any]] = {}
    for name in config.failures:
        parts = [mode for mode in model.modes if mode.name in (name, f"{name}.fabric")]
        impacts = list(dict.fromkeys(mode.impact for mode in parts))
        categories[name] = {
            "units": sum(mode.job_units for mode in parts),
            "fatal_units": sum(mode.job_units for mode in parts if mode.is_fatal),
            "impact": "/".join(impacts),
        }
    return categories


def _repeat_offenders(
    log: IncidentLog, in_window: list[bool], categories: dict[str, dict[str, Any]]
) -> list[dict[str, Any]]:
    """Units failing more often than their category's Poisson rate allows, most extreme first.

    Each unit's count is tested against ``Poisson(count / units)``; the Bonferroni factor is
    the category's units in the job (or the units the log names, if more): a unit without
    failures is a hypothesis too (with p = 1), so counting only the units seen would let a
    chance triple through.
    """
    per_unit = Counter(
        (category, unit)
        for category, unit, inside in zip(log.categories, log.units, in_window, strict=True)
        if inside and unit is not None
    )
    seen = Counter(category for category, _ in per_unit)
    offenders = []
    for (category, unit), failures in per_unit.items():
        units = categories[category]["units"]
        expected = categories[category]["count"] / units
        p_value = float(stats.poisson.sf(failures - 1, expected))
        adjusted = min(1.0, p_value * max(units, seen[category]))
        if adjusted < REPEAT_OFFENDER_ALPHA:
            offenders.append(
                {
                    "unit": unit,
                    "category": category,
                    "failures": failures,
                    "expected": expected,
                    "p_value": p_value,
                    "p_value_bonferroni": adjusted,
                }
            )
    return sorted(offenders, key=lambda row: (row["p_value"], row["category"], row["unit"]))


def incident_report(
    log: IncidentLog,
    config: RelplanConfig,
    start: str | datetime | None = None,
    end: str | datetime | None = None,
) -> dict[str, Any]:
    """Measure an incident log's failure rates against a config's.

    Parameters
    ----------
    log : IncidentLog
        The failures (see :func:`read_incident_log`).
    config : RelplanConfig
        The config whose failure modes and job footprint the log is measured against.
    start, end : str or datetime, optional
        The window (ISO 8601); by default the first and the last event. Events outside
        it are not counted.

    Returns
    -------
    dict
        JSON-ready: ``window`` (``start``, ``end``, ``hours``, ``events`` counted,
        ``events_outside``); ``categories``, per failure mode of the config with units in
        the job: ``count``, ``units``, ``impact``, ``rate_per_unit_hour`` and
        ``rate_per_unit_year`` with their ``_ci95`` (exact Poisson), ``mtbf_hours`` and
        ``mtbf_hours_ci95`` (per unit), ``config_mtbf_hours``, ``ratio_to_config``
        (measured rate / config rate), ``config_rate_inside_ci``; ``job``:
        ``interruptions`` (failures of fatal modes; a mode whose parts differ counts its
        fatal parts' share of units), ``mtti_hours`` with ``mtti_hours_ci95``,
        ``config_mtti_hours``, ``interruptions_per_day``, ``downtime_hours`` and
        ``goodput`` (None without downtimes); ``repeat_offenders``: ``unit``,
        ``category``, ``failures``, ``expected``, ``p_value`` and ``p_value_bonferroni``
        (times the category's units; below 0.01), smallest first. Infinite values (an
        MTBF without failures) are None.

    Raises
    ------
    ConfigError
        ``category`` naming categories that are not failure modes of the config, or
        modes with no unit in the job; ``--start`` / ``--end`` for a bad window.

    Examples
    --------
    >>> from relplan.config.loading import load_config
    >>> log = incident_log(["2024-01-01", "2024-01-11", "2024-01-31"], ["gpu"] * 3)
    >>> report = incident_report(log, load_config("configs/small.toml"))
    >>> report["window"]["hours"], report["categories"]["gpu"]["count"]
    (720.0, 3)
    >>> round(report["categories"]["gpu"]["mtbf_hours"])  # 512 GPUs x 720 h / 3
    122880
    >>> report["categories"]["gpu"]["config_rate_inside_ci"]
    True
    """
    unknown = sorted(set(log.categories) - set(config.failures))
    if unknown:
        raise ConfigError(
            "category",
            f"not failure modes of the config: {', '.join(unknown)} "
            f"(its modes: {', '.join(config.failures)})",
        )
    window_start, window_end = _window(log, start, end)
    window_hours = (window_end - window_start).total_seconds() / 3600.0
    in_window = [window_start <= time <= window_end for time in log.times]
    counts = Counter(
        category for category, inside in zip(log.categories, in_window, strict=True) if inside
    )
    modes = _category_units(config)
    missing = sorted(name for name in counts if modes[name]["units"] == 0)
    if missing:
        raise ConfigError("category", f"no units in the job's footprint for: {', '.join(missing)}")

    categories: dict[str, dict[str, Any]] = {}
    interruptions = 0.0
    for name, mode in modes.items():
        if mode["units"] == 0:
            continue
        count = counts.get(name, 0)
        exposure = mode["units"] * window_hours
        rate = count / exposure
        low, high = poisson_rate_ci(count, exposure)
        config_mtbf = config.failures[name].lifetime.mean_hours
        config_rate = 1.0 / config_mtbf
        interruptions += count * mode["fatal_units"] / mode["units"]
        categories[name] = {
            "count": count,
            "units": mode["units"],
            "impact": mode["impact"],
            "rate_per_unit_hour": rate,
            "rate_per_unit_hour_ci95": [low, high],
            "rate_per_unit_year": rate * HOURS_PER_YEAR,
            "rate_per_unit_year_ci95": [low * HOURS_PER_YEAR, high * HOURS_PER_YEAR],
            "mtbf_hours": finite_or_none(_reciprocal(rate)),
            "mtbf_hours_ci95": [1.0 / high, finite_or_none(_reciprocal(low))],
            "config_mtbf_hours": config_mtbf,
            "ratio_to_config": rate / config_rate,
            "config_rate_inside_ci": bool(low <= config_rate <= high),
        }

    interruptions_low, interruptions_high = poisson_rate_ci(interruptions, window_hours)
    downtimes = [
        hours
        for hours, inside in zip(log.downtime_hours, in_window, strict=True)
        if inside and hours is not None
    ]
    total_downtime = sum(downtimes)
    job = {
        "interruptions": interruptions,
        "mtti_hours": finite_or_none(window_hours / interruptions if interruptions else math.inf),
        "mtti_hours_ci95": [
            1.0 / interruptions_high,
            finite_or_none(_reciprocal(interruptions_low)),
        ],
        "config_mtti_hours": finite_or_none(build_model(config).job_mtti_hours),
        "interruptions_per_day": interruptions / window_hours * 24.0,
        "downtime_hours": total_downtime if downtimes else None,
        "downtime_events": len(downtimes),
        "goodput": 1.0 - total_downtime / window_hours if downtimes else None,
    }
    return {
        "window": {
            "start": window_start.isoformat(),
            "end": window_end.isoformat(),
            "hours": window_hours,
            "events": sum(in_window),
            "events_outside": len(in_window) - sum(in_window),
        },
        "categories": categories,
        "job": job,
        "repeat_offenders": _repeat_offenders(
            log,
            in_window,
            {
                name: {"count": entry["count"], "units": entry["units"]}
                for name, entry in categories.items()
            },
        ),
    }


# -- the config recalibrated to the log ---------------------------------------------------------

_TABLE_HEADER = re.compile(r"^\s*\[(?!\[)(.+?)\]\s*(?:#.*)?$")
_ANY_HEADER = re.compile(r"^\s*\[")
_LIFETIME_LINE = re.compile(r"^(\s*)(?:lifetime|\"lifetime\"|'lifetime')\s*=")


def _table_path(line: str) -> tuple[str, ...] | None:
    """The key path of a ``[table]`` header line (quotes and spaces resolved), else None."""
    match = _TABLE_HEADER.match(line)
    if match is None:
        return None
    try:
        table: dict[str, Any] = tomllib.loads(f"[{match.group(1)}]\n")
    except tomllib.TOMLDecodeError:
        return None
    path: list[str] = []
    while table:
        ((key, table),) = table.items()
        path.append(key)
    return tuple(path)


def _edit_lifetime_lines(text: str, new_lines: dict[str, list[str]]) -> str | None:
    """Replace each ``[failures.NAME]`` table's ``lifetime = ...`` line, keeping all else.

    None when a table or its lifetime line is not where a line edit can reach it (an inline
    ``failures`` table, a ``[failures.NAME.lifetime]`` table, dotted keys).
    """
    lines = text.splitlines(keepends=True)
    replacements: dict[int, list[str]] = {}
    for name, replacement in new_lines.items():
        headers = [i for i, line in enumerate(lines) if _table_path(line) == ("failures", name)]
        if len(headers) != 1:
            return None
        found = None
        for index in range(headers[0] + 1, len(lines)):
            if _ANY_HEADER.match(lines[index]):
                break
            if _LIFETIME_LINE.match(lines[index]):
                found = index
                break
        if found is None:
            return None
        indent = _LIFETIME_LINE.match(lines[found]).group(1)
        old = lines[found].rstrip("\r\n")
        replacements[found] = [f"{indent}{line}\n" for line in replacement[:-1]]
        replacements[found] += [f"{indent}# was: {old.strip()}\n", f"{indent}{replacement[-1]}\n"]
    edited = []
    for index, line in enumerate(lines):
        if index in replacements:
            edited.extend(replacements[index])
        else:
            edited.append(line if line.endswith("\n") else line + "\n")
    return "".join(edited)


def recalibrated_config_text(
    config_text: str, report: dict[str, Any], log_name: str = "the incident log"
) -> str:
    """A config's TOML with each measured category's lifetime from an incident report.

    Every category with at least one failure gets ``lifetime = { dist = "exponential",
    mtbf = ... }`` with its measured MTBF per unit; the rest of the config is kept. The
    ``lifetime`` lines are edited in place (the old one kept as a comment) when each
    ``[failures.NAME]`` table has one; otherwise the whole document is written anew,
    without its comments. The result is checked by validating it as a config.

    Parameters
    ----------
    config_text : str
        The config file's TOML text (the one the report was measured against).
    report : dict
        From :func:`incident_report`.
    log_name : str
        How the header comment names the log.

    Returns
    -------
    str
        The recalibrated config's TOML text.

    Raises
    ------
    ConfigError
        If the config text is not a valid config.

    Examples
    --------
    >>> from pathlib import Path
    >>> from relplan.config.loading import load_config
    >>> log = incident_log(["2024-01-01", "2024-01-11", "2024-01-31"], ["gpu"] * 3)
    >>> report = incident_report(log, load_config("configs/small.toml"))
    >>> text = recalibrated_config_text(Path("configs/small.toml").read_text(), report)
    >>> tomllib.loads(text)["failures"]["gpu"]["lifetime"]
    {'dist': 'exponential', 'mtbf': '122880h'}
    """
    document = tomllib.loads(config_text)
    window = report["window"]
    measured = {name: entry for name, entry in report["categories"].items() if entry["count"] > 0}
    expected = copy.deepcopy(document)
    new_lines: dict[str, list[str]] = {}
    for name, entry in measured.items():
        mtbf = duration_text(entry["mtbf_hours"])
        low, high = entry["mtbf_hours_ci95"]
        high_text = format_duration(high) if high is not None else "never"
        new_lines[name] = [
            f"# measured: {entry['count']} failures on {entry['units']:,} units in "
            f"{format_duration(window['hours'])}, MTBF {format_duration(entry['mtbf_hours'])} "
            f"per unit (95% CI {format_duration(low)} to {high_text})",
            f'lifetime = {{ dist = "exponential", mtbf = "{mtbf}" }}',
        ]
        expected["failures"][name]["lifetime"] = {"dist": "exponential", "mtbf": mtbf}
    kept = [name for name in report["categories"] if name not in measured]
    header = [
        f"# Recalibrated to {log_name}",
        f"# over {window['start']} to {window['end']}: every failure mode with failures in it",
        "# has an exponential lifetime with the measured MTBF per unit"
        + (f"; kept (no failures): {', '.join(kept)}." if kept else "."),
    ]
    edited = _edit_lifetime_lines(config_text, new_lines)
    if edited is None or tomllib.loads(edited) != expected:
        header.append("# (written from the parsed config: the original's comments are not kept)")
        edited = toml_document(expected)
    text = "\n".join(header) + "\n" + edited
    recalibrated = parse_config(tomllib.loads(text))
    for name, entry in measured.items():
        mean = recalibrated.failures[name].lifetime.mean_hours
        if not math.isclose(mean, entry["mtbf_hours"], rel_tol=1e-4):
            raise AssertionError(
                f"failures.{name}: wrote an MTBF of {mean} h, not {entry['mtbf_hours']} h"
            )
    return text
