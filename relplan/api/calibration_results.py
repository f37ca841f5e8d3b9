"""The results of the commands that read field data: ``fit`` (lifetimes fitted to
censored data), ``analyze`` (a log's rates against a config's) and ``replay`` (a log's
history against checkpoint intervals); see :mod:`relplan.api.result` for the interface
they share.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import pandas as pd

from relplan.api.result import ReportResult, Result, relayed

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from relplan.calibrate.lifetimes import FitReport
    from relplan.calibrate.replay import ReplayReport

__all__ = ["AnalyzeResult", "FitResult", "ReplayResult"]


@dataclass(frozen=True, repr=False, eq=False)
class FitResult(Result):
    """What ``relplan fit`` found (:func:`relplan.fit`): exponential, Weibull and
    lognormal fits to censored data, the family chosen and its config line.

    Attributes
    ----------
    source : str
        The data's file name.
    reports : dict of str to FitReport
        The fits: one per group (a file split by ``group``), or ``{"": report}``.
    document : dict
        The ``relplan fit --json`` object.
    group : str or None
        The column the file was split by.

    Examples
    --------
    >>> import relplan
    >>> result = relplan.fit("tests/data/lifetimes.csv")
    >>> result.best, result.config.startswith("lifetime")
    ('weibull', True)
    >>> result.plot_kinds
    ['survival']
    """

    command: ClassVar[str] = "fit"
    figures: ClassVar[tuple[str, ...]] = ("survival",)

    source: str
    reports: dict[str, FitReport]
    document: dict[str, Any]
    group: str | None = None

    @property
    def grouped(self) -> bool:
        """Whether the file was split into groups, each fitted apart."""
        return self.group is not None

    @property
    def best(self) -> str | dict[str, str]:
        """The family chosen (per group, for a grouped fit)."""
        if self.grouped:
            return {name: report.best for name, report in self.reports.items()}
        return self.reports[""].best

    @property
    def config(self) -> str | dict[str, str]:
        """The chosen fit as a config line (``lifetime = { ... }``), per group for a
        grouped fit."""
        if self.grouped:
            return {name: report.config for name, report in self.reports.items()}
        return self.reports[""].config

    def _headline(self) -> str:
        if self.grouped:
            return f"{len(self.reports)} groups of {self.group!r} fitted apart"
        report = self.reports[""]
        return (f"{report.best} chosen by {self.document.get('chosen_by', 'AIC')} "
                f"({report.sample.n} units, {report.sample.failures} failures)")

    def _summary(self) -> dict[str, Any]:
        return self.document

    def to_frame(self) -> pd.DataFrame:
        """One row per family (its parameters, CIs, likelihood, AIC, checks), indexed by
        the family; per group and family for a grouped fit."""
        if self.grouped:
            frames = {name: pd.DataFrame.from_dict(one["fits"], orient="index")
                      for name, one in self.document["groups"].items()}  # fmt: skip
            return pd.concat(frames, names=[self.group, "family"])
        return pd.DataFrame.from_dict(self.document["fits"], orient="index")

    def _draw(self, kind: str, ax: Axes | None) -> Figure:
        from relplan.output.calibration_plots import fitted_survival

        return fitted_survival(self.reports, self.source, ax=ax)


@dataclass(frozen=True, repr=False, eq=False)
class AnalyzeResult(ReportResult):
    """What ``relplan analyze`` found (:func:`relplan.analyze`): each category's failure
    rate measured from an incident log, with its CI, against the config's.

    Attributes
    ----------
    source : str
        The log's file name.
    config_name : str
        The config it was measured against.
    report : dict
        :func:`relplan.calibrate.incidents.incident_report`'s record (the ``--json``
        object).

    Examples
    --------
    >>> import relplan
    >>> result = relplan.analyze("tests/data/incidents.csv", "configs/small.toml",
    ...                          "2024-01-01", "2025-01-01")
    >>> result.counts["gpu"], round(result.window_hours)
    (40, 8784)
    """

    command: ClassVar[str] = "analyze"
    figures: ClassVar[tuple[str, ...]] = ("rates",)

    source: str
    config_name: str
    report: dict[str, Any]

    window_hours = relayed("report.window.hours", "float", "The window measured, hours.")

    @property
    def counts(self) -> dict[str, int]:
        """Failures per category in the window."""
        return {name: entry["count"] for name, entry in self.report["categories"].items()}

    @property
    def ratio_to_config(self) -> dict[str, float | None]:
        """Per category, the measured rate over the config's (None without a mode)."""
        return {name: entry.get("ratio_to_config")
                for name, entry in self.report["categories"].items()}  # fmt: skip

    def _headline(self) -> str:
        window = self.report.get("window", {})
        return (f"{self.source} against {self.config_name}, {str(window.get('start'))[:10]} "
                f"to {str(window.get('end'))[:10]}: {sum(self.counts.values()):,} failures in "
                f"{len(self.counts)} categories")

    def to_frame(self) -> pd.DataFrame:
        """One row per category: count, units, rates with CIs, MTBF, the config's MTBF
        and their ratio, indexed by the category."""
        return pd.DataFrame.from_dict(self.report["categories"], orient="index")

    def _draw(self, kind: str, ax: Axes | None) -> Figure:
        from relplan.output.calibration_plots import observed_rates

        return observed_rates(self.report["categories"],
                              f"{self.source} against {self.config_name}", ax=ax)  # fmt: skip


@dataclass(frozen=True, repr=False, eq=False)
class ReplayResult(Result):
    """What ``relplan replay`` found (:func:`relplan.replay`): a log's real failures
    replayed against a config's checkpoint policy at each interval.

    Attributes
    ----------
    source : str
        The log's file name.
    config_name : str
        The config whose policy and modes were replayed.
    replay : ReplayReport
        :func:`relplan.calibrate.replay.replay_log`'s record.

    Examples
    --------
    >>> import warnings
    >>> import relplan
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     result = relplan.replay("tests/data/incidents.csv", "configs/small.toml",
    ...                             "2024-01-01", "2025-01-01", intervals_hours=[0.5, 2.0],
    ...                             samples=20)
    >>> result.intervals_hours, result.best_interval_hours in result.intervals_hours
    ([0.5, 2.0], True)
    """

    command: ClassVar[str] = "replay"
    figures: ClassVar[tuple[str, ...]] = ("goodput-vs-interval",)

    source: str
    config_name: str
    replay: ReplayReport

    @property
    def intervals_hours(self) -> list[float]:
        """The checkpoint intervals replayed, hours."""
        return [entry["interval_hours"] for entry in self.replay.intervals]

    @property
    def goodput(self) -> dict[float, float]:
        """Mean goodput (over job start times) per interval, hours to a fraction."""
        return {entry["interval_hours"]: entry["goodput"]["mean"]
                for entry in self.replay.intervals}  # fmt: skip

    @property
    def best_interval_hours(self) -> float:
        """The interval of the highest mean goodput, hours."""
        goodput = self.goodput
        return max(goodput, key=goodput.__getitem__)

    def _headline(self) -> str:
        window = self.replay.window
        return (f"{self.source} replayed against {self.config_name}, {window['start'][:10]} "
                f"to {window['end'][:10]}: best interval {self.best_interval_hours:g} h")

    def _summary(self) -> dict[str, Any]:
        return self.replay.to_dict()

    def to_frame(self) -> pd.DataFrame:
        """One row per interval replayed: goodput, lost hours and interruptions (means),
        and the goodput's 95% CI."""
        rows = []
        for entry in self.replay.intervals:
            row = {"interval_hours": entry["interval_hours"]}
            for key in ("goodput", "lost_hours", "interruptions"):
                value = entry[key]
                row[key] = value["mean"] if isinstance(value, dict) else value
            row["goodput_ci95_low"], row["goodput_ci95_high"] = entry["goodput"]["ci95"]
            rows.append(row)
        return pd.DataFrame(rows)

    def _draw(self, kind: str, ax: Axes | None) -> Figure:
        from relplan.output.calibration_plots import replayed_goodput

        return replayed_goodput(self.replay.intervals,
                                f"{self.source} against {self.config_name}", ax=ax)  # fmt: skip
