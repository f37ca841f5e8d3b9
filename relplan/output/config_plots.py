"""Figures of what a config is, before any simulation: the job's interruptions by failure
mode and its units by class (``relplan inventory``), its step time by parallelism
dimension (``relplan baseline``), the port budget of each switch tier (``relplan
validate``), the default failure model of every class (``relplan catalog``), and what
compiling the engine for the configs took (``relplan warmup``).

Pure functions of the commands' data (their ``--json`` objects' entries), each drawing on
the ``ax=`` given or on a new figure (:func:`relplan.output.figure_style.axes_for`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Patch
from matplotlib.ticker import FuncFormatter, PercentFormatter

from relplan.output.figure_style import (
    LABEL_SIZE,
    PALETTE,
    SMALL_SIZE,
    TITLE_SIZE,
    axes_for,
    figure_title,
    label_bars,
    log_x_axis,
    plain_number,
    style_axes,
)
from relplan.output.plots import IMPACT_COLORS
from relplan.units import HOURS_PER_YEAR, format_duration

__all__ = [
    "catalog_mtbf",
    "compile_seconds",
    "interruption_share",
    "port_budget",
    "step_time_by_dimension",
    "units_by_class",
]


def _row_height(rows: int, least: float = 2.8, per_row: float = 0.42) -> float:
    """Inches of a chart of one bar row per item."""
    return max(least, 1.5 + per_row * rows)


def _legend_below(figure: Figure, axes: Axes, own: bool, handles: Sequence[Any],
                  labels: Sequence[str], columns: int) -> None:
    """The legend under the chart on a figure of its own (nothing hides behind it), or on
    the caller's axes where it fits best."""
    if own:
        figure.legend(handles, labels, loc="outside lower center", ncols=columns,
                      fontsize=SMALL_SIZE, frameon=False)  # fmt: skip
    else:
        axes.legend(handles, labels, loc="best", fontsize=SMALL_SIZE, framealpha=0.9)


def interruption_share(failure_modes: Mapping[str, Mapping[str, Any]], name: str,
                       ax: Axes | None = None) -> Figure:  # fmt: skip
    """Each failure mode's share of the job's failures per hour, coloured by what it does
    to the job, with its units in the job.

    Parameters
    ----------
    failure_modes : mapping of str to dict
        ``relplan inventory --json``'s ``failure_modes``: per mode ``share`` (of the
        job's failures per hour, a fraction), ``job_units``, ``impact`` and
        ``job_failures_per_hour``.
    name : str
        The config's name, in the title.
    ax : matplotlib.axes.Axes, optional
        Draw on these axes, in their figure (which is returned); by default a new figure.

    Returns
    -------
    matplotlib.figure.Figure
        One row per mode, largest on top.

    Examples
    --------
    >>> figure = interruption_share({"gpu": {"share": 0.7, "job_units": 512,
    ...     "impact": "fatal", "job_failures_per_hour": 0.004}}, "demo")
    >>> figure.axes[0].get_xlabel()
    "Share of the job's failures (percent of failures per hour)"
    """
    modes = sorted(failure_modes.items(), key=lambda item: item[1]["share"])
    figure, axes = axes_for(ax, 8.0, _row_height(len(modes)))
    style_axes(axes)
    shares = [float(entry["share"]) for _, entry in modes]
    colors = [IMPACT_COLORS.get(entry["impact"], PALETTE[7]) for _, entry in modes]
    bars = axes.barh(range(len(modes)), shares, color=colors, height=0.6)
    label_bars(axes, bars, [
        f"{share:.1%} (one every {format_duration(1.0 / entry['job_failures_per_hour'])})"
        if entry["job_failures_per_hour"] > 0 else f"{share:.1%}"
        for share, (_, entry) in zip(shares, modes, strict=True)])  # fmt: skip
    axes.set_yticks(range(len(modes)), [f"{mode} ({entry['job_units']:,} units, "
                                        f"{entry['impact']})" for mode, entry in modes],
                    fontsize=SMALL_SIZE)  # fmt: skip
    axes.set_xlim(0.0, max([*shares, 0.01]) * 1.7)
    axes.xaxis.set_major_formatter(PercentFormatter(1.0))
    axes.set_xlabel("Share of the job's failures (percent of failures per hour)",
                    fontsize=LABEL_SIZE)  # fmt: skip
    axes.grid(False, axis="y")
    figure_title(figure, "Where the job's failures come from", name)
    return figure


def units_by_class(components: Mapping[str, Mapping[str, Any]], name: str,
                   ax: Axes | None = None) -> Figure:  # fmt: skip
    """Units of each component class in the job's footprint and in the whole cluster.

    Parameters
    ----------
    components : mapping of str to dict
        ``relplan inventory --json``'s ``components``: per class ``job_units`` and
        ``cluster_units`` (counts). Classes with no unit are left out.
    name, ax : str, matplotlib.axes.Axes (optional)
        As :func:`interruption_share`.

    Returns
    -------
    matplotlib.figure.Figure
        One row pair per class, x the units (a log axis when they span more than a
        decade).

    Examples
    --------
    >>> figure = units_by_class({"gpu": {"job_units": 512, "cluster_units": 544},
    ...                          "core": {"job_units": 0, "cluster_units": 0}}, "demo")
    >>> [tick.get_text() for tick in figure.axes[0].get_yticklabels()]
    ['gpu']
    """
    rows = [(cls, entry) for cls, entry in components.items() if entry["cluster_units"] > 0]
    figure, axes = axes_for(ax, 8.0, _row_height(len(rows), per_row=0.5))
    style_axes(axes)
    positions = np.arange(len(rows))[::-1]
    job = np.array([entry["job_units"] for _, entry in rows], dtype=float)
    cluster = np.array([entry["cluster_units"] for _, entry in rows], dtype=float)
    bars = axes.barh(positions + 0.2, cluster, height=0.38, color=PALETTE[5],
                     label="in the cluster")  # fmt: skip
    label_bars(axes, bars, [f"{int(n):,}" for n in cluster])
    bars = axes.barh(positions - 0.2, job, height=0.38, color=PALETTE[0],
                     label="in the job's footprint")  # fmt: skip
    label_bars(axes, bars, [f"{int(n):,}" for n in job])
    values = np.concatenate([job, cluster])
    positive = values[values > 0]
    if positive.size and positive.max() / positive.min() > 10.0:
        log_x_axis(axes, positive)
        axes.set_xlim(positive.min() / 2.0, positive.max() * 6.0)
        axes.set_xlabel("Units (count, log scale)", fontsize=LABEL_SIZE)
    else:
        axes.set_xlim(0.0, max(values.max(initial=1.0), 1.0) * 1.25)
        axes.set_xlabel("Units (count)", fontsize=LABEL_SIZE)
    axes.set_yticks(positions, [cls for cls, _ in rows], fontsize=SMALL_SIZE + 0.5)
    axes.grid(False, axis="y")
    axes.legend(fontsize=SMALL_SIZE, loc="lower right", framealpha=0.9)
    figure_title(figure, "Units by component class", name)
    return figure


def step_time_by_dimension(baseline: Mapping[str, Any], name: str,
                           ax: Axes | None = None) -> Figure:  # fmt: skip
    """The healthy step's time per parallelism dimension: each dimension's communication
    and the part of it the compute does not hide, beside the compute and the pipeline
    bubble.

    Parameters
    ----------
    baseline : mapping
        ``relplan baseline --json``'s ``baseline``: ``dimensions`` (per dimension
        ``time_s`` and ``exposed_s``, seconds per step), ``compute_time_s``,
        ``pipeline_bubble_s`` and ``step_time_s`` (seconds).
    name, ax : str, matplotlib.axes.Axes (optional)
        As :func:`interruption_share`.

    Returns
    -------
    matplotlib.figure.Figure
        One row each: the compute, the bubble and every dimension with traffic; x
        seconds per step.

    Examples
    --------
    >>> figure = step_time_by_dimension({"dimensions": {"data": {"time_s": 0.3,
    ...     "exposed_s": 0.1}}, "compute_time_s": 1.0, "pipeline_bubble_s": 0.0,
    ...     "step_time_s": 1.1}, "demo")
    >>> figure.axes[0].get_xlabel()
    'Time per step (seconds)'
    """
    dimensions = [(dim, entry) for dim, entry in baseline["dimensions"].items()
                  if entry["time_s"] > 0]  # fmt: skip
    rows = ["compute", "pipeline bubble", *(f"{dim} communication" for dim, _ in dimensions)]
    totals = [baseline["compute_time_s"], baseline["pipeline_bubble_s"],
              *(entry["time_s"] for _, entry in dimensions)]  # fmt: skip
    exposed = [baseline["compute_time_s"], baseline["pipeline_bubble_s"],
               *(entry["exposed_s"] for _, entry in dimensions)]  # fmt: skip
    figure, axes = axes_for(ax, 8.0, _row_height(len(rows)))
    style_axes(axes)
    positions = np.arange(len(rows))[::-1]
    hidden_color, exposed_color = "#A6CEE3", PALETTE[1]
    whole = axes.barh(positions, totals, height=0.6, color=hidden_color)
    axes.barh(positions, exposed, height=0.6,
              color=[PALETTE[2], PALETTE[4], *[exposed_color] * len(dimensions)])  # fmt: skip
    label_bars(axes, whole, [f"{total:.3g} s" if index < 2 or done == total else
                              f"{total:.3g} s, {done:.3g} s of it exposed"
                              for index, (done, total)
                              in enumerate(zip(exposed, totals, strict=True))])  # fmt: skip
    _legend_below(figure, axes, ax is None,
                  [Patch(color=PALETTE[2]), Patch(color=PALETTE[4]), Patch(color=exposed_color),
                   Patch(color=hidden_color)],
                  ["compute", "pipeline bubble", "communication the compute does not hide",
                   "communication hidden under the compute"], 2)  # fmt: skip
    axes.set_yticks(positions, rows, fontsize=SMALL_SIZE + 0.5)
    axes.set_xlim(0.0, max([*totals, 1e-9]) * 1.5)
    axes.set_xlabel("Time per step (seconds)", fontsize=LABEL_SIZE)
    axes.grid(False, axis="y")
    figure_title(figure, f"Step time by parallelism dimension ({baseline['step_time_s']:.3g} s "
                 "per step)", name)  # fmt: skip
    return figure


def port_budget(tiers: Sequence[Mapping[str, Any]], name: str,
                ax: Axes | None = None) -> Figure:  # fmt: skip
    """The ports one switch of each tier needs (down to the tier below, up to the tier
    above) against the ports it has.

    Parameters
    ----------
    tiers : sequence of dict
        Per switch tier ``tier``, ``switches``, ``down_ports``, ``up_ports`` and
        ``ports_available`` (per switch; see
        :class:`relplan.cluster.topology.PortBudget`, ``relplan inventory --json``'s
        ``port_budget``).
    name, ax : str, matplotlib.axes.Axes (optional)
        As :func:`interruption_share`.

    Returns
    -------
    matplotlib.figure.Figure
        One row per tier; a tier short of ports is named in red.

    Examples
    --------
    >>> figure = port_budget([{"tier": "leaf", "switches": 17, "down_ports": 32,
    ...     "up_ports": 40, "ports_available": 64}], "demo")
    >>> figure.axes[0].get_yticklabels()[0].get_text()
    'leaf (17 switches)\\nshort by 8'
    """
    figure, axes = axes_for(ax, 8.0, _row_height(len(tiers), least=2.6, per_row=0.7))
    style_axes(axes)
    positions = np.arange(len(tiers))[::-1]
    down = np.array([row["down_ports"] for row in tiers], dtype=float)
    up = np.array([row["up_ports"] for row in tiers], dtype=float)
    available = np.array([row["ports_available"] for row in tiers], dtype=float)
    axes.barh(positions, down, height=0.5, color=PALETTE[0], label="needed: down")
    axes.barh(positions, up, left=down, height=0.5, color=PALETTE[5], label="needed: up")
    axes.scatter(available, positions, marker="|", s=900, linewidths=2.5, color="black",
                 zorder=4, label="available (the switch's ports)")  # fmt: skip
    labels = []
    for y, row, need, has in zip(positions, tiers, down + up, available, strict=True):
        short = need > has
        axes.annotate(f"needs {need:,.0f}, has {has:,.0f}", (max(need, has), y), xytext=(8, 0),
                      textcoords="offset points", va="center", fontsize=SMALL_SIZE,
                      color="#C00000" if short else "black")  # fmt: skip
        labels.append(f"{row['tier']} ({row['switches']:,} switches)"
                      + (f"\nshort by {need - has:,.0f}" if short else ""))
    axes.set_yticks(positions, labels, fontsize=SMALL_SIZE + 0.5)
    for tick, row in zip(axes.get_yticklabels(), tiers, strict=True):
        if row["down_ports"] + row["up_ports"] > row["ports_available"]:
            tick.set_color("#C00000")
    axes.set_xlim(0.0, max(float((down + up).max(initial=1.0)),
                           float(available.max(initial=1.0))) * 1.5)  # fmt: skip
    axes.set_ylim(positions.min(initial=0) - 0.8, positions.max(initial=0) + 0.8)
    axes.set_xlabel("Ports per switch (count)", fontsize=LABEL_SIZE)
    axes.grid(False, axis="y")
    _legend_below(figure, axes, ax is None, *axes.get_legend_handles_labels(), 3)
    figure_title(figure, "Port budget per switch tier", name)
    return figure


def catalog_mtbf(entries: Sequence[Mapping[str, Any]], ax: Axes | None = None) -> Figure:
    """The mean time between failures of one unit of each class in relplan's catalog,
    on a log axis; the entries a config gets by default in colour, the alternatives grey.

    Parameters
    ----------
    entries : sequence of dict
        ``relplan catalog --json``'s ``entries``: ``component``, ``mode``,
        ``mtbf_hours`` (per unit, hours), ``default`` and ``year``.
    ax : matplotlib.axes.Axes, optional
        Draw on these axes, in their figure (which is returned); by default a new figure.

    Returns
    -------
    matplotlib.figure.Figure
        One row per entry, in the catalog's order; x hours (bottom) and years (top).

    Examples
    --------
    >>> figure = catalog_mtbf([{"component": "gpu", "mode": "gpu", "mtbf_hours": 1e5,
    ...     "default": True, "year": 2024}])
    >>> figure.axes[0].get_xlabel()
    'MTBF of one unit (hours, log scale)'
    """
    figure, axes = axes_for(ax, 8.5, _row_height(len(entries), per_row=0.34))
    style_axes(axes)
    positions = np.arange(len(entries))[::-1]
    hours = np.array([float(entry["mtbf_hours"]) for entry in entries])
    colors = [PALETTE[0] if entry["default"] else PALETTE[7] for entry in entries]
    bars = axes.barh(positions, hours, height=0.62, color=colors)
    label_bars(axes, bars, [format_duration(value) for value in hours])
    low, high = hours.min() / 3.0, hours.max() * 12.0
    log_x_axis(axes, np.array([low, high]))
    axes.set_xlim(low, high)
    names = [entry["mode"] if entry["mode"] == entry["component"]
             else f"{entry['component']}: {entry['mode']}" for entry in entries]  # fmt: skip
    axes.set_yticks(positions, [f"{label} ({entry['year']})" for label, entry
                                in zip(names, entries, strict=True)],
                    fontsize=SMALL_SIZE)  # fmt: skip
    for tick, entry in zip(axes.get_yticklabels(), entries, strict=True):
        tick.set_color("black" if entry["default"] else "#666666")
    axes.set_xlabel("MTBF of one unit (hours, log scale)", fontsize=LABEL_SIZE)
    years = axes.secondary_xaxis("top", functions=(lambda h: h / HOURS_PER_YEAR,
                                                   lambda y: y * HOURS_PER_YEAR))  # fmt: skip
    years.set_xlabel("MTBF of one unit (years)", fontsize=LABEL_SIZE)
    years.xaxis.set_major_formatter(FuncFormatter(plain_number))
    years.tick_params(labelsize=SMALL_SIZE + 0.5)
    axes.grid(False, axis="y")
    axes.set_title("blue: a config's default; grey: an alternative", fontsize=SMALL_SIZE,
                   loc="left")  # fmt: skip
    figure.suptitle("Failure rates of relplan's catalog (source year)", fontsize=TITLE_SIZE,
                    fontweight="bold")  # fmt: skip
    return figure


def compile_seconds(functions: Sequence[Mapping[str, Any]],
                    ax: Axes | None = None) -> Figure:  # fmt: skip
    """The seconds each compiled function of the engine took to compile, by what it is
    and the features it was compiled for; those compiled already are marked.

    Parameters
    ----------
    functions : sequence of dict
        ``relplan warmup --json``'s ``functions``: ``kind``, ``function``, ``features``,
        ``compiled_now`` and ``seconds`` (None when compiled already).
    ax : matplotlib.axes.Axes, optional
        Draw on these axes, in their figure (which is returned); by default a new figure.

    Returns
    -------
    matplotlib.figure.Figure
        One row per function, x seconds.

    Examples
    --------
    >>> figure = compile_seconds([{"kind": "walk", "function": "walk_trial_slots",
    ...     "features": ["degradations"], "compiled_now": True, "seconds": 14.2}])
    >>> figure.axes[0].get_xlabel()
    'Compile time (seconds)'
    """
    figure, axes = axes_for(ax, 8.5, _row_height(len(functions), per_row=0.55))
    style_axes(axes)
    positions = np.arange(len(functions))[::-1]
    seconds = np.array([float(row["seconds"] or 0.0) for row in functions])
    bars = axes.barh(positions, seconds, height=0.6,
                     color=[PALETTE[1] if row["compiled_now"] else PALETTE[7]
                            for row in functions])  # fmt: skip
    label_bars(axes, bars, [f"{value:.1f} s" if row["compiled_now"] else "compiled already"
                             for value, row in zip(seconds, functions, strict=True)])
    axes.set_yticks(positions, [f"{row['kind']}: {row['function']}"
                                + (f"\n({', '.join(row['features'])})" if row["features"] else "")
                                for row in functions], fontsize=SMALL_SIZE)  # fmt: skip
    axes.set_xlim(0.0, max(float(seconds.max(initial=0.0)), 1.0) * 1.45)
    axes.set_xlabel("Compile time (seconds)", fontsize=LABEL_SIZE)
    axes.grid(False, axis="y")
    compiled = sum(bool(row["compiled_now"]) for row in functions)
    figure.suptitle(f"Compiling the engine: {float(seconds.sum()):.1f} s for {compiled} of "
                    f"{len(functions)} functions" if compiled else
                    f"The engine: all {len(functions)} functions compiled already",
                    fontsize=TITLE_SIZE, fontweight="bold")  # fmt: skip
    return figure
