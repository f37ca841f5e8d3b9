"""Figures of field data against relplan's rates: the lifetimes fitted (``relplan fit``),
a log's rates against a config's (``relplan analyze``) and a log's history replayed
against checkpoint intervals (``relplan replay``).

Pure functions of the commands' data (fit reports, the ``--json`` objects' entries), each
drawing on the ``ax=`` given or on a new figure (:func:`relplan.output.figure_style.axes_for`).
Times are in hours, rates per unit-year.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import NullLocator

from relplan.calibrate.lifetimes import FitReport
from relplan.output.figure_style import (
    LABEL_SIZE,
    PALETTE,
    SMALL_SIZE,
    axes_for,
    figure_title,
    log_x_axis,
    style_axes,
)
from relplan.stats.summary import finite_or_none
from relplan.stats.survival import kaplan_meier
from relplan.units import HOURS_PER_YEAR

__all__ = ["fitted_survival", "observed_rates", "replayed_goodput"]

CURVE_POINTS = 400
"""Points along each fitted survival curve."""

MAX_TICKED_INTERVALS = 12
"""Intervals replayed up to which each gets its own tick on a log axis."""

KM_COLOR = "#000000"
"""Colour of the Kaplan-Meier estimate of a single sample (its families take the palette)."""


def _km_steps(hours: np.ndarray, failed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The Kaplan-Meier estimate as steps from (0, 1): the times and the survival from
    each time on."""
    times, survival = kaplan_meier(hours, failed)
    return np.concatenate([[0.0], times]), np.concatenate([[1.0], survival])


def _survival_at(step_times: np.ndarray, step_survival: np.ndarray,
                 hours: np.ndarray) -> np.ndarray:  # fmt: skip
    """The steps' survival at each time (right-continuous: a failure at ``t`` counts)."""
    return step_survival[np.searchsorted(step_times, hours, side="right") - 1]


def _draw_sample(axes: Axes, report: FitReport, color: str, label: str) -> None:
    """One sample's Kaplan-Meier steps, and a tick where each censored unit left it."""
    sample = report.sample
    failed = np.asarray(sample.failed, dtype=bool)
    hours = np.asarray(sample.hours, dtype=float)
    step_times, step_survival = _km_steps(hours, failed)
    ends = np.append(step_times, hours.max())
    axes.step(ends, np.append(step_survival, step_survival[-1]), where="post", color=color,
              linewidth=1.8, label=label, zorder=3)  # fmt: skip
    censored = np.sort(hours[~failed])
    if censored.size:
        axes.plot(censored, _survival_at(step_times, step_survival, censored), linestyle="none",
                  marker="|", markersize=6, markeredgewidth=0.8, color=color, alpha=0.7,
                  zorder=4)  # fmt: skip


def _family_label(report: FitReport, family: str) -> str:
    marks = []
    if family == report.best:
        marks.append("chosen")
    if not report.passes_gof(family):
        marks.append("fails the KM check")
    mark = f", {', '.join(marks)}" if marks else ""
    return f"{family} (AIC {report.fits[family].aic:,.1f}{mark})"


def fitted_survival(reports: Mapping[str, FitReport], name: str,
                    ax: Axes | None = None) -> Figure:  # fmt: skip
    """The fraction of units still working against time in service: the Kaplan-Meier
    estimate of the data (steps, a tick where each censored unit left), and each fitted
    family's survival curve.

    One sample (``reports`` keyed ``""``) draws every family, the chosen one solid, the
    others dashed; a file split into groups draws each group's Kaplan-Meier steps and its
    chosen family, one colour per group.

    Parameters
    ----------
    reports : mapping of str to FitReport
        The fits (see :func:`relplan.calibrate.field_data.fit_file`): one per group, or
        ``{"": report}`` for one sample.
    name : str
        What was fitted (the file's name), in the title.
    ax : matplotlib.axes.Axes, optional
        Draw on these axes, in their figure (which is returned); by default a new figure.

    Returns
    -------
    matplotlib.figure.Figure
        x the hours in service (or the repair hours, for a fit as ``repair``), y the
        surviving fraction.

    Examples
    --------
    >>> import numpy as np
    >>> from relplan.calibrate.lifetimes import fit_lifetimes, lifetime_sample
    >>> rng = np.random.default_rng(0)
    >>> report = fit_lifetimes(lifetime_sample(rng.exponential(100.0, 50), np.ones(50)))
    >>> figure = fitted_survival({"": report}, "demo")
    >>> len(figure.axes[0].get_legend().get_texts())  # Kaplan-Meier and three families
    4
    """
    first = next(iter(reports.values()))
    figure, axes = axes_for(ax, 8.0, 5.0)
    style_axes(axes)
    longest = max(float(np.max(report.sample.hours)) for report in reports.values())
    grid = np.linspace(0.0, longest, CURVE_POINTS)
    single = list(reports) == [""]
    repair = first.key == "repair"
    for index, (group, report) in enumerate(reports.items()):
        color = KM_COLOR if single else PALETTE[index % len(PALETTE)]
        sample = report.sample
        ended = "repairs ended" if repair else "failures"
        _draw_sample(axes, report, color,
                     f"Kaplan-Meier, {sample.n:,} units, {sample.failures:,} {ended}" if single
                     else f"{group}: Kaplan-Meier ({sample.n:,} units)")  # fmt: skip
        families = list(report.fits) if single else [report.best]
        for number, family in enumerate(families):
            best = family == report.best
            axes.plot(grid, report.fits[family].distribution.sf(grid),
                      color=PALETTE[number % len(PALETTE)] if single else color,
                      linestyle="-" if best and single else "--",
                      linewidth=2.0 if best else 1.3, zorder=2,
                      label=_family_label(report, family) if single
                      else f"{group}: {family}")  # fmt: skip
    axes.set_ylim(0.0, 1.02)
    axes.set_xlim(0.0, longest)
    axes.set_xlabel("Repair time (hours)" if repair else "Time in service (hours)",
                    fontsize=LABEL_SIZE)  # fmt: skip
    axes.set_ylabel("Still " + ("in repair" if repair else "working") + " (fraction of units)",
                    fontsize=LABEL_SIZE)  # fmt: skip
    handles, labels = axes.get_legend_handles_labels()
    if any(report.sample.censored for report in reports.values()):
        handles.append(Line2D([], [], color="#555555", marker="|", linestyle="none",
                              markersize=7))  # fmt: skip
        labels.append("censored: left still " + ("in repair" if repair else "working"))
    axes.legend(handles, labels, fontsize=SMALL_SIZE, loc="lower left", framealpha=0.9)
    figure_title(figure, "Repair times fitted" if repair else "Lifetimes fitted", name)
    return figure


def _rate_bounds(entry: Mapping[str, Any]) -> tuple[float, float]:
    low, high = entry["rate_per_unit_year_ci95"]
    return float(low), float(high)


def observed_rates(categories: Mapping[str, Mapping[str, Any]], name: str,
                   ax: Axes | None = None) -> Figure:  # fmt: skip
    """Each category's failure rate measured from a log, with its 95% CI, against the
    config's rate for the same mode.

    Parameters
    ----------
    categories : mapping of str to dict
        ``relplan analyze --json``'s ``categories``: per category ``count``,
        ``rate_per_unit_year`` and ``rate_per_unit_year_ci95`` (failures per unit-year)
        and ``config_mtbf_hours`` (the config's MTBF per unit, hours; None for a category
        the config has no mode of).
    name : str
        The log against the config, in the title.
    ax : matplotlib.axes.Axes, optional
        Draw on these axes, in their figure (which is returned); by default a new figure.

    Returns
    -------
    matplotlib.figure.Figure
        One row per category (first on top), x the rate per unit-year (a log axis when
        the rates span more than a decade). A category with no failure shows its upper
        bound only.

    Examples
    --------
    >>> figure = observed_rates({"gpu": {"count": 4, "rate_per_unit_year": 0.08,
    ...     "rate_per_unit_year_ci95": [0.02, 0.2], "config_mtbf_hours": 87660.0}}, "demo")
    >>> figure.axes[0].get_xlabel()
    'Failures per unit-year (rate)'
    """
    rows = list(categories.items())
    figure, axes = axes_for(ax, 8.0, max(2.8, 1.5 + 0.45 * len(rows)))
    style_axes(axes)
    positions = np.arange(len(rows))[::-1]
    shown: list[float] = []
    bounds: list[tuple[float, float]] = []
    for y, (_, entry) in zip(positions, rows, strict=True):
        low, high = _rate_bounds(entry)
        rate = float(entry["rate_per_unit_year"])
        if entry["count"] > 0:
            axes.errorbar([rate], [y], xerr=[[rate - low], [high - rate]], fmt="o",
                          color=PALETTE[0], capsize=3, markersize=5, zorder=3)  # fmt: skip
            shown += [low, rate, high]
        else:  # no failure: only the upper bound is known
            axes.plot([high], [y], marker="<", color=PALETTE[0], markersize=7,
                      linestyle="none", zorder=3)  # fmt: skip
            shown.append(high)
            bounds.append((y, high))
        given = entry.get("config_mtbf_hours")
        mtbf = finite_or_none(given) if given is not None else None
        if mtbf:
            config_rate = HOURS_PER_YEAR / mtbf
            axes.plot([config_rate], [y], marker="D", markerfacecolor="none", markersize=7,
                      markeredgewidth=1.5, color=PALETTE[1], linestyle="none", zorder=4)
            shown.append(config_rate)
    values = np.array([value for value in shown if value > 0])
    if values.size and values.max() / values.min() > 10.0:
        log_x_axis(axes, values)
    left = axes.get_xlim()[0]
    for y, high in bounds:  # from the axis to the bound: anywhere below it
        axes.plot([left, high], [y, y], linestyle=":", color=PALETTE[0], linewidth=1.2)
    axes.set_xlim(left=left)
    axes.set_yticks(positions, [f"{category} ({entry['count']:,} failures)"
                                for category, entry in rows], fontsize=SMALL_SIZE)  # fmt: skip
    axes.set_xlabel("Failures per unit-year (rate)", fontsize=LABEL_SIZE)
    axes.grid(False, axis="y")
    axes.legend([Line2D([], [], color=PALETTE[0], marker="o", linestyle="-"),
                 Line2D([], [], color=PALETTE[0], marker="<", linestyle="none"),
                 Line2D([], [], color=PALETTE[1], marker="D", markerfacecolor="none",
                        linestyle="none")],
                ["observed, 95% CI", "no failure: the upper bound", "the config's rate"],
                fontsize=SMALL_SIZE, loc="best", framealpha=0.9)  # fmt: skip
    figure_title(figure, "Observed failure rates against the config's", name)
    return figure


def replayed_goodput(intervals: Sequence[Mapping[str, Any]], name: str,
                     ax: Axes | None = None) -> Figure:  # fmt: skip
    """Goodput over a replayed failure history against the checkpoint interval: the mean
    over job start times with its 95% CI over resampled histories, the best starred.

    Parameters
    ----------
    intervals : sequence of dict
        ``relplan replay --json``'s ``intervals``: per interval ``interval_hours`` and
        ``goodput`` (``mean`` and ``ci95``, fractions of the window).
    name, ax : str, matplotlib.axes.Axes (optional)
        As :func:`observed_rates`.

    Returns
    -------
    matplotlib.figure.Figure
        x the interval (hours; a log axis when the intervals span more than a decade), y
        the goodput.

    Examples
    --------
    >>> figure = replayed_goodput([
    ...     {"interval_hours": 0.5, "goodput": {"mean": 0.95, "ci95": [0.94, 0.96]}},
    ...     {"interval_hours": 2.0, "goodput": {"mean": 0.97, "ci95": [0.96, 0.98]}}], "demo")
    >>> figure.axes[0].get_xlabel()
    'Checkpoint interval (hours)'
    """
    hours = np.array([float(entry["interval_hours"]) for entry in intervals])
    means = np.array([float(entry["goodput"]["mean"]) for entry in intervals])
    lows = np.array([float(entry["goodput"]["ci95"][0]) for entry in intervals])
    highs = np.array([float(entry["goodput"]["ci95"][1]) for entry in intervals])
    order = np.argsort(hours)
    hours, means, lows, highs = hours[order], means[order], lows[order], highs[order]
    figure, axes = axes_for(ax, 8.0, 4.8)
    style_axes(axes)
    axes.fill_between(hours, lows, highs, color=PALETTE[0], alpha=0.18, linewidth=0,
                      label="95% CI (histories resampled)")  # fmt: skip
    axes.plot(hours, means, color=PALETTE[0], marker="o", markersize=5, linewidth=1.6,
              label="mean over job start times")
    best = int(np.argmax(means))
    axes.plot([hours[best]], [means[best]], marker="*", markersize=16, color=PALETTE[1],
              markeredgecolor="black", markeredgewidth=0.6, linestyle="none", zorder=5,
              label=f"best: {hours[best]:g} h, goodput {means[best]:.4f}")  # fmt: skip
    if hours.size > 1 and hours.min() > 0 and hours.max() / hours.min() > 10.0:
        log_x_axis(axes, hours)
        if hours.size <= MAX_TICKED_INTERVALS:  # a tick at each interval replayed
            axes.set_xticks(hours, [f"{value:g}" for value in hours])
            axes.xaxis.set_minor_locator(NullLocator())
    axes.set_xlabel("Checkpoint interval (hours)", fontsize=LABEL_SIZE)
    axes.set_ylabel("Goodput (fraction of the window)", fontsize=LABEL_SIZE)
    axes.legend(fontsize=SMALL_SIZE, loc="best", framealpha=0.9)
    figure_title(figure, "Goodput of the replayed history", name)
    return figure
