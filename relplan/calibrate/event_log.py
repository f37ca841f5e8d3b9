"""Event logs read from disk: CSV or JSON lines, times in ISO 8601, categories mapped to modes.

The readers every log-taking command shares (``relplan fit --events``, ``relplan analyze``,
``relplan replay``): a file of records, one per row, each a mapping from column to value,
with the place it came from (``line 7 of log.csv``) so that a bad value can be named.

- **CSV** with a header row, or **JSON lines** (one JSON object per line; a file ending in
  ``.jsonl`` or ``.ndjson``, or whose first character is ``{``).
- **Slurm accounting**: what ``sacct --parsable2`` prints (``|``-separated, a header
  starting ``JobID|``), read as one record per job allocation that ended
  (:data:`SACCT_COLUMNS`): its end as ``time``, its state as ``category`` (``NODE_FAIL``,
  ``PREEMPTED``, ``BOOT_FAIL``, ...; a category map names the modes), its node as
  ``unit`` (one node only); job steps and jobs still running are left out.
- **Times** are ISO 8601 (``2024-03-01T12:30:00Z``, ``2024-03-01 12:30+02:00``,
  ``2024-03-01``); one without an offset is taken as UTC.
- **Category maps** (``--map FILE``): a CSV with columns ``category`` (the log's own name)
  and ``mode`` (a failure mode of the config), many to one; a ``mode`` of ``-`` drops the
  log's rows of that category.
- **Event times per unit into lifetimes** (:func:`events_to_lifetimes`): the times between
  one unit's failures, the first from the window's start and the last, censored, to its end.
"""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from relplan.calibrate.lifetimes import LifetimeSample, lifetime_sample
from relplan.errors import ConfigError

DROP_MODE = "-"
"""The ``mode`` that drops a category's rows in a category map."""

SACCT_FIELDS = ("JobID", "State", "End")
"""The fields a ``sacct --parsable2`` file needs (``--format=JobID,State,End,NodeList``
at least; ``NodeList`` gives the unit)."""

SACCT_COLUMNS = {"time": "End", "category": "State", "unit": "NodeList", "job": "JobID"}
"""What each column of a record read from ``sacct --parsable2`` comes from: the end of
the allocation (the failure's time), its state's first word (``CANCELLED by 0`` is
``CANCELLED``), its node when it ran on one (a job on several does not say which node
failed: no unit) and its job id."""

SACCT_NOT_ENDED = frozenset({"Unknown", "None", ""})
"""``End`` values of a job that has not ended (left out)."""

NOT_FAILURES = frozenset({"COMPLETED", "CANCELLED", "TIMEOUT"})
"""Categories (``sacct`` states) that end an allocation without a failure: the job done,
cancelled by its user, or out of its time limit. ``relplan advise`` counts every other
record of a log as a failure (a ``--map`` drops more)."""


@dataclass(frozen=True)
class Record:
    """One row of a log: its values by column and where it came from.

    Attributes
    ----------
    where : str
        ``line N of FILE``, for error messages.
    values : dict of str to object
        The row's values by column (strings from a CSV; JSON values from JSON lines).
    """

    where: str
    values: dict[str, Any]

    def text(self, column: str) -> str | None:
        """The value of ``column`` as stripped text, None where missing or empty."""
        value = self.values.get(column)
        if value is None:
            return None
        text = str(value).strip()
        return text or None


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


def _first_line(file: Path) -> str:
    with file.open(encoding="utf-8-sig") as handle:
        for line in handle:
            if line.strip():
                return line.strip()
    return ""


def _read_sacct(file: Path, key: str) -> list[Record]:
    """The records of a ``sacct --parsable2`` file (see :data:`SACCT_COLUMNS`)."""
    with file.open(encoding="utf-8-sig") as handle:
        lines = [(number, line.rstrip("\n")) for number, line in enumerate(handle, start=1)
                 if line.strip()]  # fmt: skip
    header = [field.strip() for field in lines[0][1].split("|")]
    missing = [field for field in SACCT_FIELDS if field not in header]
    if missing:
        raise ConfigError(key, f"line {lines[0][0]} of {file}: a sacct --parsable2 file "
                               f"needs the fields {', '.join(SACCT_FIELDS)} (missing "
                               f"{', '.join(missing)}; it has {', '.join(header)})")  # fmt: skip
    records = []
    for number, line in lines[1:]:
        cells = line.split("|")
        where = f"line {number} of {file}"
        if len(cells) != len(header):
            raise ConfigError(key, f"{where}: {len(cells)} fields, the header has "
                                   f"{len(header)} ({', '.join(header)})")  # fmt: skip
        row = dict(zip(header, (cell.strip() for cell in cells), strict=True))
        if "." in row["JobID"] or row["End"] in SACCT_NOT_ENDED:
            continue  # a job step (its allocation's row counts), or a job still running
        values = {column: row.get(field, "") for column, field in SACCT_COLUMNS.items()}
        values["category"] = (values["category"].split() or [""])[0]
        if any(mark in values["unit"] for mark in "[,"):  # several nodes: which one
            values["unit"] = ""  # failed, sacct does not say
        records.append(Record(where, values))
    return records


def _is_json_lines(file: Path) -> bool:
    if file.suffix.lower() in (".jsonl", ".ndjson"):
        return True
    with file.open(encoding="utf-8-sig") as handle:
        for line in handle:
            if line.strip():
                return line.lstrip().startswith("{")
    return False


def read_records(path: str | Path, key: str, required: Sequence[str]) -> list[Record]:
    """Read a log file (CSV with a header, JSON lines, or ``sacct --parsable2``) into
    records.

    Parameters
    ----------
    path : str or Path
        The file.
    key : str
        What an error about the file names (``LOG``, ``CSV``, ``--map``).
    required : sequence of str
        Columns every record must have (a CSV's header must name them; a JSON object
        must hold them).

    Returns
    -------
    list of Record
        One per row, in file order.

    Raises
    ------
    ConfigError
        Naming ``key`` when the file is missing, unreadable or not valid JSON; naming a
        required column when it is missing (with the line, for JSON lines).

    Examples
    --------
    >>> records = read_records("tests/data/incidents.csv", "LOG", ["time", "category"])
    >>> records[0].where, records[0].text("category")
    ('line 2 of tests/data/incidents.csv', 'optic')
    """
    file = Path(path)
    if file.is_dir():
        raise ConfigError(key, f"{file} is a folder, not a file")
    if not file.is_file():
        raise ConfigError(key, f"no such file: {file}")
    records: list[Record] = []
    try:
        if _first_line(file).startswith("JobID|"):
            records = _read_sacct(file, key)
            for column in required:
                if column not in SACCT_COLUMNS:
                    raise ConfigError(column, f"{file} is a sacct file, whose records "
                                              f"hold {', '.join(SACCT_COLUMNS)}")  # fmt: skip
            return records
        if _is_json_lines(file):
            with file.open(encoding="utf-8-sig") as handle:
                for number, line in enumerate(handle, start=1):
                    if not line.strip():
                        continue
                    where = f"line {number} of {file}"
                    try:
                        values = json.loads(line)
                    except json.JSONDecodeError as error:
                        raise ConfigError(key, f"{where}: not JSON ({error.msg})") from None
                    if not isinstance(values, dict):
                        raise ConfigError(key, f"{where}: not a JSON object")
                    for column in required:
                        if column not in values:
                            raise ConfigError(column, f"{where}: missing")
                    records.append(Record(where, values))
            return records
        with file.open(newline="", encoding="utf-8-sig") as handle:
            reader = csv.DictReader(handle)
            columns = [name.strip() for name in reader.fieldnames or []]
            for column in required:
                if column not in columns:
                    raise ConfigError(
                        column,
                        f"missing column in {file} (columns: {', '.join(columns) or 'none'})",
                    )
            reader.fieldnames = columns
            for row in reader:
                records.append(Record(f"line {reader.line_num} of {file}", dict(row)))
    except UnicodeDecodeError:
        raise ConfigError(key, f"{file} is not UTF-8 text") from None
    return records


def read_category_map(path: str | Path) -> dict[str, str]:
    """Read a category map: a CSV (or JSON lines) with columns ``category`` and ``mode``.

    Parameters
    ----------
    path : str or Path
        The file. Many categories may map onto one mode; ``mode = -`` drops a category.

    Returns
    -------
    dict of str to str
        The log's category to the config's mode (or ``-``).

    Raises
    ------
    ConfigError
        ``--map`` naming the line of an empty value or of a category mapped twice.

    Examples
    --------
    >>> read_category_map("tests/data/infinitehbd/category_map.csv")["GPU"]
    'gpu'
    """
    mapping: dict[str, str] = {}
    for record in read_records(path, "--map", ("category", "mode")):
        category, mode = record.text("category"), record.text("mode")
        if category is None or mode is None:
            raise ConfigError("--map", f"{record.where}: category and mode must both be given")
        if category in mapping and mapping[category] != mode:
            raise ConfigError(
                "--map",
                f"{record.where}: {category!r} is mapped twice ({mapping[category]!r}, {mode!r})",
            )
        mapping[category] = mode
    if not mapping:
        raise ConfigError("--map", f"{path} maps nothing: it has no rows")
    return mapping


def check_category_map(mapping: dict[str, str], modes: Sequence[str]) -> None:
    """Refuse a category map naming a mode the config lacks.

    Parameters
    ----------
    mapping : dict of str to str
        From :func:`read_category_map`.
    modes : sequence of str
        The config's failure modes.

    Raises
    ------
    ConfigError
        ``--map`` naming the category and the mode.

    Examples
    --------
    >>> check_category_map({"XID 79": "gpu", "PSU": "-"}, ["gpu", "host"])
    """
    for category, mode in mapping.items():
        if mode != DROP_MODE and mode not in modes:
            raise ConfigError(
                "--map",
                f"maps {category!r} onto {mode!r}, which is not a failure mode of the config "
                f"(its modes: {', '.join(modes)}; '-' drops a category)",
            )


@dataclass(frozen=True)
class EventLifetimes:
    """Times between failures built from event records, with what went into them.

    Attributes
    ----------
    sample : LifetimeSample
        The times between failures (failed) and the last gap of each unit (censored).
    units : int
        Units observed over the window.
    events : int
        Failures counted (after merging simultaneous records).
    merged : int
        Records dropped as simultaneous with another of the same unit.
    outside : int
        Records outside the window, not counted.
    window_hours : float
        The window's length, hours.
    """

    sample: LifetimeSample
    units: int
    events: int
    merged: int
    outside: int
    window_hours: float


def events_to_lifetimes(
    unit_ids: Sequence[str],
    times: Sequence[datetime],
    start: datetime,
    end: datetime,
    units: int | None = None,
    unit_list: Sequence[str] | None = None,
) -> EventLifetimes:
    """Build censored times between failures from event times per unit.

    Each unit is watched from ``start`` to ``end``: its first lifetime runs from ``start``
    to its first failure, the next ones from failure to failure, and its last, from its
    last failure (or ``start``) to ``end``, is right-censored. Records of one unit at the
    same time are one failure. A unit's age at ``start`` is unknown, so its first gap
    counts from ``start``: exact for an exponential lifetime, an approximation for the
    others.

    Parameters
    ----------
    unit_ids : sequence of str
        The unit of each record.
    times : sequence of datetime
        The time of each record (UTC).
    start, end : datetime
        The window every unit was watched over.
    units : int, optional
        How many units were watched; those without a record are censored at the whole
        window. At least the number of distinct units in the window.
    unit_list : sequence of str, optional
        The units watched (instead of ``units``); a record naming another unit is an error.

    Returns
    -------
    EventLifetimes
        The sample and its counts.

    Raises
    ------
    ConfigError
        ``--end`` for an empty window, ``--start`` for a window without records,
        ``--units`` for too few units, ``--unit-list`` for a unit not in the list,
        ``--units`` when neither is given.

    Examples
    --------
    >>> from datetime import datetime, UTC
    >>> day = lambda d: datetime(2024, 1, d, tzinfo=UTC)
    >>> built = events_to_lifetimes(["a", "a", "a", "b"], [day(3), day(6), day(3), day(4)],
    ...                             day(1), day(11), units=3)
    >>> built.sample.hours.tolist()
    [48.0, 72.0, 120.0, 72.0, 168.0, 240.0]
    >>> built.sample.failed.tolist(), built.events, built.merged
    ([True, True, False, True, False, False], 3, 1)
    """
    if end <= start:
        raise ConfigError("--end", f"{end.isoformat()} is not after --start {start.isoformat()}")
    if (units is None) == (unit_list is None):
        raise ConfigError("--units", "give the number of units watched or --unit-list, one of them")
    window_hours = (end - start).total_seconds() / 3600.0
    per_unit: dict[str, set[float]] = {}
    records = 0
    outside = 0
    listed = set(unit_list) if unit_list is not None else None
    for unit, time in zip(unit_ids, times, strict=True):
        if listed is not None and unit not in listed:
            raise ConfigError("--unit-list", f"unit {unit!r} of the log is not in the list")
        if not start <= time <= end:
            outside += 1
            continue
        records += 1
        per_unit.setdefault(unit, set()).add((time - start).total_seconds() / 3600.0)
    if records == 0:
        raise ConfigError(
            "--start",
            f"no record between {start.isoformat()} and {end.isoformat()} "
            f"({outside} records outside)",
        )
    watched = len(listed) if listed is not None else int(units)  # type: ignore[arg-type]
    if watched < len(per_unit):
        raise ConfigError(
            "--units", f"{watched} units watched, but the log names {len(per_unit)} in the window"
        )
    hours: list[float] = []
    failed: list[bool] = []
    for failure_hours in per_unit.values():
        previous = 0.0
        for moment in sorted(failure_hours):
            if moment > 0.0:  # a failure at the start itself has no gap before it
                hours.append(moment - previous)
                failed.append(True)
            previous = moment
        hours.append(window_hours - previous)
        failed.append(False)
    quiet = watched - len(per_unit)
    hours.extend([window_hours] * quiet)
    failed.extend([False] * quiet)
    events = sum(failed)
    kept = np.array(hours) > 0
    kept |= np.array(failed)
    sample = lifetime_sample(np.array(hours)[kept], np.array(failed)[kept])
    return EventLifetimes(
        sample=sample,
        units=watched,
        events=events,
        merged=records - sum(len(values) for values in per_unit.values()),
        outside=outside,
        window_hours=window_hours,
    )


def read_unit_list(path: str | Path) -> list[str]:
    """Read a unit list: one unit id a line (blank lines and ``#`` comments skipped).

    Parameters
    ----------
    path : str or Path
        The file.

    Returns
    -------
    list of str
        The ids, in file order.

    Raises
    ------
    ConfigError
        ``--unit-list`` when the file is missing, empty or names a unit twice.

    Examples
    --------
    >>> import tempfile, os
    >>> with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as handle:
    ...     _ = handle.write("gpu-1\\ngpu-2\\n# spare\\n")
    >>> read_unit_list(handle.name)
    ['gpu-1', 'gpu-2']
    >>> os.remove(handle.name)
    """
    file = Path(path)
    if not file.is_file():
        raise ConfigError("--unit-list", f"no such file: {file}")
    ids: list[str] = []
    for line in file.read_text(encoding="utf-8-sig").splitlines():
        text = line.split("#", 1)[0].strip()
        if text:
            ids.append(text)
    if not ids:
        raise ConfigError("--unit-list", f"{file} names no unit")
    if len(set(ids)) != len(ids):
        twice = sorted({unit for unit in ids if ids.count(unit) > 1})
        raise ConfigError("--unit-list", f"names units twice: {', '.join(twice[:5])}")
    return ids


def hours_value(value: Any, column: str, where: str) -> float | None:
    """A duration in hours from a log cell: None where empty, else a finite number >= 0.

    Examples
    --------
    >>> hours_value("1.5", "downtime_hours", "line 2"), hours_value("", "downtime_hours", "x")
    (1.5, None)
    """
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    try:
        hours = float(value)
    except (TypeError, ValueError):
        raise ConfigError(column, f"{where}: {value!r} is not a number") from None
    if not math.isfinite(hours) or hours < 0:
        raise ConfigError(column, f"{where}: must be a finite number >= 0 (got {value!r})")
    return hours


def read_event_lifetimes(
    path: str | Path,
    start: str | None,
    end: str | None,
    units: int | None = None,
    unit_list: str | Path | None = None,
) -> tuple[LifetimeSample, dict[str, Any]]:
    """The censored lifetimes an event log (``unit,time`` records) gives, and its counts.

    Parameters
    ----------
    path : str or Path
        CSV or JSON lines with ``unit`` and ``time`` (ISO 8601) per failure record.
    start, end : str
        The window every unit was watched over (ISO 8601); both are needed.
    units : int, optional
        How many units were watched (those never in the log never failed).
    unit_list : str or Path, optional
        A file listing the watched units, one a line (instead of ``units``).

    Returns
    -------
    tuple of (LifetimeSample, dict)
        The times between failures (the last of each unit censored at ``end``) and the
        counts: ``units``, ``events``, ``merged`` (simultaneous records), ``outside`` (out
        of the window), ``window_hours``.
    """

    for option, value in (("--start", start), ("--end", end)):
        if value is None:
            raise ConfigError(option, "--events needs the window every unit was watched over")
    window_start, window_end = parse_time(start, "--start"), parse_time(end, "--end")
    ids: list[str] = []
    times = []
    for record in read_records(path, "CSV", ("unit", "time")):
        unit = record.text("unit")
        if unit is None:
            raise ConfigError("unit", f"{record.where}: is empty")
        try:
            times.append(parse_time(record.text("time") or "", "time"))
        except ConfigError as error:
            raise ConfigError("time", f"{record.where}: {error.message}") from None
        ids.append(unit)
    listed = read_unit_list(unit_list) if unit_list is not None else None
    built = events_to_lifetimes(ids, times, window_start, window_end, units, listed)
    counts = {
        "units": built.units,
        "events": built.events,
        "merged": built.merged,
        "outside": built.outside,
        "window_hours": built.window_hours,
    }
    return built.sample, counts
