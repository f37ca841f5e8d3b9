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
  where downtimes are given, its goodput ``1 - downtime / window``, the downtime being the
  union of the rows' ``[time, time + downtime]`` (merged where they overlap, clipped to
  the window); downtimes adding up to more than the window are refused;
- repeat offenders: units with more failures than the category's Poisson rate allows
  (``P(X >= k)`` with ``X ~ Poisson(count / units)``, flagged below 0.01 after a
  Bonferroni correction over the category's units). The log's ids may name servers
  (``ids = "server"``): a server is then expected to fail as often as all of its units of
  the category together, and link and optic categories count server links only unless
  the log marks rows ``side = fabric``;
- the config recalibrated to the log: each category's lifetime replaced by an exponential
  with the measured MTBF.

Rows repeating an earlier row exactly are dropped (and counted); a category map renames
the log's own categories onto the config's modes, many to one (:func:`map_categories`).

The default window starts and ends on an event, which overstates every rate by about
``2 / events`` (the gaps before the first and after the last event are cut off); give the
period the log covers (``start``, ``end``) for exact figures.
"""

from __future__ import annotations

import copy
import math
import re
import tomllib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from scipy import stats

from relplan.calibrate.event_log import (
    DROP_MODE,
    check_category_map,
    hours_value,
    parse_time,
    read_records,
)
from relplan.calibrate.lifetimes import duration_text
from relplan.config.loading import parse_config
from relplan.config.schema import RelplanConfig
from relplan.config.toml_text import toml_document
from relplan.errors import ConfigError
from relplan.sim.model import build_model
from relplan.stats.summary import finite_or_none
from relplan.units import HOURS_PER_YEAR, format_duration
from relplan.vocab import LINK_SIDES, LOG_ID_CLASSES, LOG_ID_KINDS, SERVER_CLASSES

__all__ = [
    "IncidentLog",
    "drop_duplicates",
    "incident_log",
    "incident_report",
    "map_categories",
    "merged_downtime_hours",
    "parse_time",
    "poisson_rate_ci",
    "prepare_log",
    "read_incident_log",
    "recalibrated_config_text",
]

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
    sides : tuple of (str or None)
        For a link or optic failure, which side it was on, where given: ``server`` (a
        server's link) or ``fabric`` (a link between switches). Empty: none given.
    """

    times: tuple[datetime, ...]
    categories: tuple[str, ...]
    units: tuple[str | None, ...]
    downtime_hours: tuple[float | None, ...]
    sides: tuple[str | None, ...] = ()

    def side_of(self, row: int) -> str | None:
        """The side of row ``row`` (0-based), None where not given."""
        return self.sides[row] if self.sides else None


def _side(value: Any, where: str) -> str | None:
    text = _optional_text(value)
    if text is not None and text not in LINK_SIDES:
        raise ConfigError("side", f"{where}: must be server or fabric (got {text!r})")
    return text


def _optional_text(value: str | None) -> str | None:
    if value is None or not str(value).strip():
        return None
    return str(value).strip()


def incident_log(
    times: Sequence[str | datetime],
    categories: Sequence[str],
    units: Sequence[str | None] | None = None,
    downtime_hours: Sequence[str | float | None] | None = None,
    sides: Sequence[str | None] | None = None,
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
    sides : sequence of str or None, optional
        For link and optic failures, ``server`` or ``fabric`` (None where unknown).

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
    side_values = list(sides) if sides is not None else []
    for column, values in (
        ("category", categories),
        ("unit", units),
        ("downtime_hours", downtime_hours),
        *((("side", side_values),) if sides is not None else ()),
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
            hours_value(hours, "downtime_hours", f"row {row}")
            for row, hours in enumerate(downtime_hours, start=1)
        ),
        sides=tuple(_side(side, f"row {row}") for row, side in enumerate(side_values, start=1)),
    )


def read_incident_log(path: str | Path) -> IncidentLog:
    """Read an incident log: ``time``, ``category`` and optionally ``unit``, ``downtime_hours``.

    Parameters
    ----------
    path : str or Path
        A CSV file with a header row, or JSON lines (one object a line, with those keys);
        other columns are ignored.

    Returns
    -------
    IncidentLog
        Its rows, checked as :func:`incident_log` checks them.

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
    times: list[datetime] = []
    categories: list[str] = []
    units: list[str | None] = []
    downtimes: list[float | None] = []
    sides: list[str | None] = []
    for record in read_records(path, "LOG", ("time", "category")):
        try:
            times.append(parse_time(record.text("time") or "", "time"))
        except ConfigError as error:
            raise ConfigError("time", f"{record.where}: {error.message}") from None
        category = record.text("category")
        if category is None:
            raise ConfigError("category", f"{record.where}: is empty")
        categories.append(category)
        units.append(record.text("unit"))
        downtimes.append(hours_value(record.values.get("downtime_hours"), "downtime_hours",
                                     record.where))  # fmt: skip
        sides.append(_side(record.values.get("side"), record.where))
    return IncidentLog(
        tuple(times),
        tuple(categories),
        tuple(units),
        tuple(downtimes),
        tuple(sides) if any(side is not None for side in sides) else (),
    )


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


def map_categories(log: IncidentLog, mapping: dict[str, str], modes: Sequence[str]) -> tuple[
    IncidentLog, int
]:
    """Rename a log's own categories to the config's failure modes (``--map FILE``).

    Parameters
    ----------
    log : IncidentLog
        The log, with its own category names.
    mapping : dict of str to str
        The log's category to a failure mode (many to one; ``-`` drops the category's rows).
    modes : sequence of str
        The config's failure modes.

    Returns
    -------
    (IncidentLog, int)
        The log with modes for categories, and the rows dropped.

    Raises
    ------
    ConfigError
        ``--map`` naming a mode the config lacks, or a category of the log the map does
        not name.

    Examples
    --------
    >>> log = incident_log(["2024-01-01", "2024-01-02", "2024-01-03"], ["XID 79", "PSU", "Fan"])
    >>> mapped, dropped = map_categories(log, {"XID 79": "gpu", "PSU": "host", "Fan": "-"},
    ...                                  ["gpu", "host"])
    >>> mapped.categories, dropped
    (('gpu', 'host'), 1)
    """
    check_category_map(mapping, modes)
    unmapped = sorted(set(log.categories) - set(mapping))
    if unmapped:
        raise ConfigError(
            "--map",
            f"does not name these categories of the log: {', '.join(unmapped[:10])}"
            + (f" and {len(unmapped) - 10} more" if len(unmapped) > 10 else "")
            + f" (map them to a mode, or to '{DROP_MODE}' to drop them)",
        )
    keep = [mapping[category] != DROP_MODE for category in log.categories]

    def kept(values: tuple[Any, ...]) -> tuple[Any, ...]:
        return tuple(value for value, flag in zip(values, keep, strict=True) if flag)

    mapped = IncidentLog(
        times=kept(log.times),
        categories=tuple(mapping[category] for category in kept(log.categories)),
        units=kept(log.units),
        downtime_hours=kept(log.downtime_hours),
        sides=kept(log.sides) if log.sides else (),
    )
    return mapped, len(keep) - sum(keep)


def drop_duplicates(log: IncidentLog) -> tuple[IncidentLog, int]:
    """Drop rows identical to an earlier row (time, category, unit and downtime).

    Examples
    --------
    >>> log = incident_log(["2024-01-01", "2024-01-01", "2024-01-02"], ["gpu"] * 3, ["a"] * 3)
    >>> deduplicated, dropped = drop_duplicates(log)
    >>> len(deduplicated.times), dropped
    (2, 1)
    """
    seen: set[tuple[Any, ...]] = set()
    rows = []
    sides = log.sides or (None,) * len(log.times)
    for row in zip(log.times, log.categories, log.units, log.downtime_hours, sides,
                   strict=True):  # fmt: skip
        if row not in seen:
            seen.add(row)
            rows.append(row)
    if len(rows) == len(log.times):
        return log, 0
    columns = [tuple(column) for column in zip(*rows, strict=True)] if rows else [()] * 5
    deduplicated = IncidentLog(*columns[:4], sides=columns[4] if log.sides else ())
    return deduplicated, len(log.times) - len(rows)


def prepare_log(
    log: IncidentLog, config: RelplanConfig, category_map: dict[str, str] | None = None
) -> tuple[IncidentLog, int, int]:
    """A log made ready to measure against a config: its categories mapped onto the
    config's modes (``category_map``), every category checked to be a mode, duplicated
    rows dropped.

    Parameters
    ----------
    log : IncidentLog
        As read by :func:`read_incident_log`.
    config : RelplanConfig
        Its ``[failures]`` tables name the modes.
    category_map : dict of str to str, optional
        The log's own categories onto the config's modes (see :func:`map_categories`).

    Returns
    -------
    tuple of (IncidentLog, int, int)
        The log, the rows the map dropped, the duplicated rows dropped.

    Raises
    ------
    ConfigError
        Naming ``category`` when a category is not a mode of the config.

    Examples
    --------
    >>> from relplan.config.loading import load_config
    >>> log = incident_log(["2024-01-01", "2024-01-01"], ["gpu", "gpu"], ["a", "a"])
    >>> _, mapped, duplicates = prepare_log(log, load_config("configs/small.toml"))
    >>> mapped, duplicates
    (0, 1)
    """
    mapped_dropped = 0
    if category_map is not None:
        log, mapped_dropped = map_categories(log, category_map, list(config.failures))
    unknown = sorted(set(log.categories) - set(config.failures))
    if unknown:
        raise ConfigError(
            "category",
            f"not failure modes of the config: {', '.join(unknown)} "
            f"(its modes: {', '.join(config.failures)}; --map FILE maps a log's own "
            "categories onto them)",
        )
    log, duplicates = drop_duplicates(log)
    return log, mapped_dropped, duplicates


def _servers_in_job(config: RelplanConfig) -> int:
    return build_model(config).inventory.job_servers


def _category_units(
    config: RelplanConfig, ids: str, fabric_logged: frozenset[str] = frozenset()
) -> dict[str, dict[str, Any]]:
    """Per failure mode of the config: job units, fatal units, impacts, units per log id.

    With ``ids = "server"`` a link or optic mode counts its server part only (the log's
    server ids cannot name a fabric link), unless the log marks some of its rows
    ``side = fabric`` (the modes in ``fabric_logged``). ``units_per_id`` is how many of
    the mode's server units one id of the log names (None: the mode's failures cannot
    be put on an id).
    """
    if config.job.recovery == "failure-free":
        raise ConfigError(
            "job.recovery", "a failure-free config has no failure modes to measure a log against"
        )
    model = build_model(config)
    servers = model.inventory.job_servers
    categories: dict[str, dict[str, Any]] = {}
    for name in config.failures:
        unit = config.failure_unit(name)
        parts = [mode for mode in model.modes if mode.name in (name, f"{name}.fabric")]
        server_units = sum(mode.job_units for mode in parts if mode.name == name)
        if ids == "server" and name not in fabric_logged:
            parts = [mode for mode in parts if mode.name == name]
        impacts = list(dict.fromkeys(mode.impact for mode in parts))
        units = sum(mode.job_units for mode in parts)
        if ids == "auto" or (ids != "server" and unit in LOG_ID_CLASSES[ids]):
            per_id: float | None = 1.0
        elif ids == "server" and (unit in SERVER_CLASSES or unit in ("link", "optic")):
            per_id = server_units / servers if servers else None
        else:
            per_id = None
        categories[name] = {
            "unit": unit,
            "units": units,
            "fatal_units": sum(mode.job_units for mode in parts if mode.is_fatal),
            "impact": "/".join(impacts),
            "units_per_id": per_id,
        }
    return categories


def _repeat_offenders(
    log: IncidentLog,
    in_window: list[bool],
    categories: dict[str, dict[str, Any]],
    id_count: int | None,
) -> list[dict[str, Any]]:
    """Ids failing more often than their category's Poisson rate allows, most extreme first.

    Each id's count is tested against ``Poisson(count / units x units_per_id)``: the sum
    of the rates of the category's units the id names (one unit, or a server's units of
    the category). The Bonferroni factor is the ids the category's units make up in the
    job (or the ids the log names, if more): an id without failures is a hypothesis too
    (with p = 1), so counting only the ids seen would let a chance triple through.
    """
    per_id = Counter(
        (category, unit)
        for row, (category, unit, inside) in enumerate(
            zip(log.categories, log.units, in_window, strict=True)
        )
        if inside
        and unit is not None
        and categories[category]["units_per_id"] is not None
        and not (id_count is not None and log.side_of(row) == "fabric")
    )
    seen = Counter(category for category, _ in per_id)
    offenders = []
    for (category, unit), failures in per_id.items():
        entry = categories[category]
        units_per_id = entry["units_per_id"]
        ids_in_job = id_count if id_count is not None else entry["units"]
        expected = entry["count"] / entry["units"] * units_per_id
        p_value = float(stats.poisson.sf(failures - 1, expected))
        adjusted = min(1.0, p_value * max(ids_in_job, seen[category]))
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


def merged_downtime_hours(
    log: IncidentLog, in_window: list[bool], window_start: datetime, window_end: datetime
) -> tuple[float, float, int]:
    """The job's downtime over a window: each row's downtime from its time, merged where
    they overlap and clipped to the window.

    Returns
    -------
    (float, float, int)
        The merged downtime, the plain sum of the (clipped) downtimes, and the rows with
        a downtime, hours.

    Raises
    ------
    ConfigError
        ``downtime_hours`` naming the row of a downtime longer than the window, or when
        the downtimes add up to more than the window (per-unit repair times given as the
        job's downtime, most likely).

    Examples
    --------
    >>> from datetime import datetime, UTC
    >>> log = incident_log(["2024-01-01T00:00Z", "2024-01-01T01:00Z", "2024-01-02T23:00Z"],
    ...                    ["gpu"] * 3, downtime_hours=[2.0, 2.0, 5.0])
    >>> merged_downtime_hours(log, [True] * 3, datetime(2024, 1, 1, tzinfo=UTC),
    ...                       datetime(2024, 1, 3, tzinfo=UTC))
    (4.0, 5.0, 3)
    """
    window_hours = (window_end - window_start).total_seconds() / 3600.0
    spans = []
    rows = 0
    for row, (time, hours, inside) in enumerate(
        zip(log.times, log.downtime_hours, in_window, strict=True), start=1
    ):
        if not inside or hours is None:
            continue
        rows += 1
        if hours > window_hours:
            raise ConfigError(
                "downtime_hours",
                f"row {row}: {hours:g} h is longer than the whole window ({window_hours:g} h); "
                "a downtime is the job's time down from that failure",
            )
        begin = (time - window_start).total_seconds() / 3600.0
        spans.append((begin, min(begin + hours, window_hours)))
    total = sum(end - begin for begin, end in spans)
    if total > window_hours:
        raise ConfigError(
            "downtime_hours",
            f"the downtimes add up to {total:,.1f} h, more than the window's "
            f"{window_hours:,.1f} h: they cannot be the job's downtime (per-unit repair "
            "times, perhaps? give the job's time down, or leave the column out)",
        )
    merged = 0.0
    reach = -math.inf
    for begin, end in sorted(spans):
        if end <= reach:
            continue
        merged += end - max(begin, reach)
        reach = end
    return merged, total, rows


def _interruptions(
    log: IncidentLog, in_window: list[bool], modes: dict[str, dict[str, Any]]
) -> tuple[float, int]:
    """The job's interruptions in a log: each distinct time with a failure of a fatal mode
    is one, however many rows it has (the components of one incident).

    A row of a mode whose parts differ interrupts with its fatal parts' share of units,
    ``p``; the rows of one time interrupt unless none of them does, ``1 - prod(1 - p)``.

    Returns
    -------
    (float, int)
        The interruptions, and the rows of fatal modes at the time of an earlier one.

    Examples
    --------
    Two rows at 10:00 (one incident), one at 12:00, and a row of a mode fatal for half
    its units at 12:00 too: 1 + (1 - 0 x 0.5) = 2 interruptions, 2 rows merged.

    >>> log = incident_log(["2024-01-01T10:00Z", "2024-01-01T10:00Z", "2024-01-01T12:00Z",
    ...                     "2024-01-01T12:00Z"], ["gpu", "host", "gpu", "optic"])
    >>> modes = {"gpu": {"units": 8, "fatal_units": 8}, "host": {"units": 1, "fatal_units": 1},
    ...          "optic": {"units": 4, "fatal_units": 2}}
    >>> _interruptions(log, [True] * 4, modes)
    (2.0, 2)
    """
    spared: dict[datetime, float] = {}
    coincident = 0
    for time, category, inside in zip(log.times, log.categories, in_window, strict=True):
        mode = modes.get(category)
        if not inside or mode is None or not mode["units"] or not mode["fatal_units"]:
            continue
        share = mode["fatal_units"] / mode["units"]
        if time in spared:
            coincident += 1
        spared[time] = spared.get(time, 1.0) * (1.0 - share)
    return float(sum(1.0 - value for value in spared.values())), coincident


def incident_report(
    log: IncidentLog,
    config: RelplanConfig,
    start: str | datetime | None = None,
    end: str | datetime | None = None,
    ids: str = "auto",
    category_map: dict[str, str] | None = None,
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
    ids : {"auto", "server", "gpu", "nic", "link", "switch"}
        What the log's unit ids name: ``auto``, a unit of the row's own mode; ``server``,
        the server the failed part is in (the repeat-offender test then expects the sum
        of the rates of the server's units of the mode, and a link or optic mode counts
        its server links only); the others, a unit of those classes (rows of other
        classes are left out of the repeat-offender test).
    category_map : dict of str to str, optional
        The log's own categories onto the config's modes (see :func:`map_categories`).

    Returns
    -------
    dict
        JSON-ready: ``window`` (``start``, ``end``, ``hours``, ``events`` counted,
        ``events_outside``); ``ids``; ``duplicates_dropped``; ``mapped_dropped`` (rows
        the map drops); ``warnings``; ``categories``, per failure mode of the config with
        units in the job: ``count``, ``units``, ``impact``, ``rate_per_unit_hour`` and
        ``rate_per_unit_year`` with their ``_ci95`` (exact Poisson), ``mtbf_hours`` and
        ``mtbf_hours_ci95`` (per unit), ``config_mtbf_hours``, ``ratio_to_config``
        (measured rate / config rate), ``config_rate_inside_ci``; ``job``:
        ``interruptions`` (failures of fatal modes, rows at the same time counted once; a
        mode whose parts differ counts its fatal parts' share of units),
        ``interruption_rows`` (the same counted row by row), ``coincident_rows`` (rows of
        fatal modes at the time of an earlier one), ``mtti_hours`` with ``mtti_hours_ci95``,
        ``config_mtti_hours``, ``interruptions_per_day``, ``downtime_hours`` (merged
        where downtimes overlap, clipped to the window), ``downtime_sum_hours`` and
        ``goodput`` (None without downtimes; never negative); ``repeat_offenders``:
        ``unit``, ``category``, ``failures``, ``expected``, ``p_value`` and
        ``p_value_bonferroni`` (below 0.01), smallest first. Infinite values (an MTBF
        without failures) are None.

    Raises
    ------
    ConfigError
        ``category`` naming categories that are not failure modes of the config, or
        modes with no unit in the job; ``--start`` / ``--end`` for a bad window; ``LOG``
        for a window with no event; ``--ids`` for an unknown kind; ``--map`` for a bad
        map; ``downtime_hours`` for downtimes longer than the window.

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
    if ids not in LOG_ID_KINDS:
        raise ConfigError("--ids", f"must be one of {', '.join(LOG_ID_KINDS)} (got {ids!r})")
    log, mapped_dropped, duplicates = prepare_log(log, config, category_map)
    warnings = []
    if duplicates:
        warnings.append(
            f"{duplicates:,} duplicated rows dropped (the same time, category, unit and "
            "downtime as an earlier row)"
        )
    window_start, window_end = _window(log, start, end)
    window_hours = (window_end - window_start).total_seconds() / 3600.0
    in_window = [window_start <= time <= window_end for time in log.times]
    if log.times and not any(in_window):
        raise ConfigError(
            "LOG",
            f"no event between {window_start.isoformat()} and {window_end.isoformat()} "
            f"(the log runs from {min(log.times).isoformat()} to {max(log.times).isoformat()})",
        )
    counts = Counter(
        category for category, inside in zip(log.categories, in_window, strict=True) if inside
    )
    fabric_logged = frozenset(
        category
        for row, category in enumerate(log.categories)
        if log.side_of(row) == "fabric"
    )
    modes = _category_units(config, ids, fabric_logged)
    missing = sorted(name for name in counts if modes[name]["units"] == 0)
    if missing:
        raise ConfigError("category", f"no units in the job's footprint for: {', '.join(missing)}")

    categories: dict[str, dict[str, Any]] = {}
    interruption_rows = 0.0
    for name, mode in modes.items():
        if mode["units"] == 0:
            continue
        count = counts.get(name, 0)
        exposure = mode["units"] * window_hours
        rate = count / exposure
        low, high = poisson_rate_ci(count, exposure)
        config_mtbf = config.failures[name].lifetime.mean_hours
        config_rate = 1.0 / config_mtbf
        interruption_rows += count * mode["fatal_units"] / mode["units"]
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
    untestable = sorted(
        name
        for name in categories
        if counts.get(name) and modes[name]["units_per_id"] is None
    )
    if untestable and any(unit is not None for unit in log.units):
        warnings.append(
            f"repeat offenders not tested for {', '.join(untestable)}: with --ids {ids} a "
            "unit id does not name their units"
        )

    interruptions, coincident = _interruptions(log, in_window, modes)
    interruptions_low, interruptions_high = poisson_rate_ci(interruptions, window_hours)
    downtime, downtime_sum, downtime_rows = merged_downtime_hours(
        log, in_window, window_start, window_end
    )
    job = {
        "interruptions": interruptions,
        "interruption_rows": interruption_rows,
        "coincident_rows": coincident,
        "mtti_hours": finite_or_none(window_hours / interruptions if interruptions else math.inf),
        "mtti_hours_ci95": [
            1.0 / interruptions_high,
            finite_or_none(_reciprocal(interruptions_low)),
        ],
        "config_mtti_hours": finite_or_none(build_model(config).job_mtti_hours),
        "interruptions_per_day": interruptions / window_hours * 24.0,
        "downtime_hours": downtime if downtime_rows else None,
        "downtime_sum_hours": downtime_sum if downtime_rows else None,
        "downtime_events": downtime_rows,
        "goodput": max(0.0, 1.0 - downtime / window_hours) if downtime_rows else None,
    }
    id_count = _servers_in_job(config) if ids == "server" else None
    return {
        "window": {
            "start": window_start.isoformat(),
            "end": window_end.isoformat(),
            "hours": window_hours,
            "events": sum(in_window),
            "events_outside": len(in_window) - sum(in_window),
        },
        "ids": ids,
        "duplicates_dropped": duplicates,
        "mapped_dropped": mapped_dropped,
        "warnings": warnings,
        "categories": categories,
        "job": job,
        "repeat_offenders": _repeat_offenders(
            log,
            in_window,
            {
                name: {
                    "count": entry["count"],
                    "units": entry["units"],
                    "units_per_id": modes[name]["units_per_id"],
                }
                for name, entry in categories.items()
            },
            id_count,
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
