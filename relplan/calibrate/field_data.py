"""Fitting a file of field data: one sample, groups of it, or failure records turned into
censored times between failures (``relplan fit`` and :func:`relplan.fit`).

The one place that decides which reader and which fit a file gets, so the command line and
the Python API give the same object.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from relplan.calibrate.event_log import read_event_lifetimes
from relplan.calibrate.fit_checks import RenewalWindow
from relplan.calibrate.lifetimes import (
    CONFIG_KEYS,
    FitReport,
    fit_groups,
    fit_lifetimes,
    read_lifetime_csv,
    read_lifetime_groups,
)
from relplan.errors import ConfigError

__all__ = ["FileFit", "fit_file"]


@dataclass(frozen=True)
class FileFit:
    """The fits of one file.

    Attributes
    ----------
    reports : dict of str to FitReport
        One report per group (the key ``""`` when the file is one sample).
    data : dict
        The ``relplan fit --json`` object.
    warnings : list of str
        What the fits and the reading warn about, each naming its group.
    grouped : bool
        Whether the file was split by a column.
    """

    reports: dict[str, FitReport]
    data: dict[str, Any]
    warnings: list[str]
    grouped: bool


def fit_file(path: str | Path, *, family: str | None = None, as_key: str = "lifetime",
             group: str | None = None, events: bool = False, start: str | None = None,
             end: str | None = None, units: int | None = None,
             unit_list: str | Path | None = None,
             keys: dict[str, str] | None = None) -> FileFit:  # fmt: skip
    """Fit exponential, Weibull and lognormal lifetimes to a file of field data.

    Parameters
    ----------
    path : str or Path
        Times in service, hours, with failure flags (``hours``, ``failed``); with
        ``events``, failure records ``unit,time`` (ISO 8601).
    family, as_key, group, events, start, end, units, unit_list
        As :func:`relplan.fit` takes them (the public face of this function).
    keys : dict of str to str, optional
        The names to blame for a bad argument (the command line's options), by parameter.

    Returns
    -------
    FileFit
        The reports, the ``--json`` object and the warnings.

    Examples
    --------
    >>> fitted = fit_file("tests/data/lifetimes.csv")
    >>> fitted.data["best"] in fitted.data["fits"], fitted.grouped
    (True, False)
    """
    name = {"as_key": "as_key", "group": "group", "start": "start", "end": "end",
            "units": "units", "unit_list": "unit_list", **(keys or {})}  # fmt: skip
    if as_key not in CONFIG_KEYS:
        raise ConfigError(name["as_key"],
                          f"must be one of {', '.join(CONFIG_KEYS)} (got {as_key!r})")  # fmt: skip
    if not events:
        for key, value in (("start", start), ("end", end), ("units", units),
                           ("unit_list", unit_list)):  # fmt: skip
            if value is not None:
                raise ConfigError(name[key], "only with event records (--events)")
    elif group is not None:
        raise ConfigError(name["group"], "not with event records: fit each group's apart")
    warnings: list[str] = []
    if events:
        sample, counts = read_event_lifetimes(path, start, end, units, unit_list)
        window = RenewalWindow(counts["units"], counts["window_hours"])
        reports = {"": fit_lifetimes(sample, as_key, family, window)}
        data: dict[str, Any] = {**reports[""].to_dict(), "events": counts}
    elif group is not None:
        samples, skipped = read_lifetime_groups(path, group)
        warnings += [f"group {key}: not fitted: {why}" for key, why in skipped.items()]
        reports = fit_groups(samples, as_key, family)
        data = {"group": group,
                "groups": {key: report.to_dict() for key, report in reports.items()},
                "skipped": skipped}  # fmt: skip
    else:
        reports = {"": fit_lifetimes(read_lifetime_csv(path), as_key, family)}
        data = reports[""].to_dict()
    warnings += [f"{'group ' + key + ': ' if key else ''}{warning}"
                 for key, report in reports.items() for warning in report.warnings]  # fmt: skip
    return FileFit(reports, data, warnings, group is not None)
