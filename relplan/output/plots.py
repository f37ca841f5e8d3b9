"""Matplotlib figures of simulation results, as pure functions of data.

Every figure function takes plain data (pandas DataFrames, dicts, arrays) and returns a
:class:`matplotlib.figure.Figure`: a new one, or, for the charts of one axes (the lost
hours' histogram, CDF and buckets, interruptions by class, failures by mode, a metric by
point, goodput against the interval), the figure of the ``ax=`` given, drawn on that axes
(:func:`axes_for`), so that a notebook can place them in its own grid. Nothing here
touches the engine or pyplot's global state: figures are built with the object API
(``Figure()``), so they are never registered with a GUI backend and never leak;
:func:`save_figure` renders them with the Agg (PNG) or vector (SVG, PDF) canvases and
writes each file atomically.

Times are in hours throughout, as everywhere in relplan. Wall-clock buckets are named and
coloured the same way in every figure (:data:`BUCKET_COLORS`).
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import matplotlib as mpl
import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Patch
from matplotlib.ticker import FuncFormatter, PercentFormatter

from relplan.output.figure_style import (
    LABEL_SIZE,
    PALETTE,
    SMALL_SIZE,
    axes_for,
    figure_title,
    log_x_axis,
    new_figure,
    plain_number,
    style_axes,
    wrap_label,
)
from relplan.output.files import write_atomic
from relplan.vocab import BUCKETS, METRIC_LABELS, TAIL_PERCENTILES

__all__ = [
    "BUCKET_COLORS",
    "FAILURE_COLOR",
    "IMPACT_COLORS",
    "INTERRUPTION_COLOR",
    "LOST_BUCKETS",
    "PALETTE",
    "failures_by_mode",
    "goodput_vs_interval",
    "interruptions_by_class",
    "lost_hours_by_bucket",
    "lost_hours_cdf",
    "lost_hours_histogram",
    "metric_by_point",
    "provenance_footer",
    "save_figure",
    "sweep_curves",
    "trial_timeline",
]

BUCKET_COLORS: dict[str, str] = {
    "useful": "#009E73",
    "rework": "#D55E00",
    "checkpoint": "#0072B2",
    "detect": "#E69F00",
    "restart": "#CC79A7",
    "waiting": "#7F7F7F",
    "degraded": "#C9B000",
    "stall": "#56B4E9",
    "maintenance": "#999933",
    "overhead": "#332288",
}
"""One colour per wall-clock bucket, the same in every figure."""

FAILURE_COLOR = "#C00000"
"""Colour of failure markers."""

INTERRUPTION_COLOR = FAILURE_COLOR
"""Colour of failures that stopped the job (interruptions), in every figure."""

IMPACT_COLORS: dict[str, str] = {
    "fatal": INTERRUPTION_COLOR,
    "degraded": BUCKET_COLORS["degraded"],
    "transient": BUCKET_COLORS["stall"],
    "elastic": "#7FC97F",
    "slow": "#AA4499",
    "corruption": "#882255",
    "preemption": "#DDAA33",
}
"""Colour of a failure by what it did: stopped the job (red), slowed it (the degraded
bucket's colour), stalled it (the stall bucket's colour), or was absorbed elastically."""

_SURVIVED_LABELS: dict[str, str] = {
    "degraded": "survived: ran degraded",
    "transient": "survived: stalled (transient)",
    "elastic": "survived: elastic continue",
    "slow": "fail-slow: ran slowed, then evicted",
    "corruption": "corruption: rolled back when found",
    "preemption": "preemption: saved on its notice",
}

LOST_BUCKETS: tuple[str, ...] = tuple(bucket for bucket in BUCKETS if bucket != "useful")
"""The buckets whose hours are lost (wall - useful), in engine order."""

_MAX_FAILURE_LABELS = 40
_MAX_TIMELINE_INTERVALS = 600
_TIMELINE_BINS = 120
_TIMELINE_PROGRESS_POINTS = 2000
_LOG_SPAN = 10.0
_INVISIBLE_SHARE = 0.005

_AXIS_LABELS: dict[str, str] = {
    "wall_hours": "Wall-clock time (hours)",
    "wall_p95_hours": "P95 wall-clock time (hours)",
    "goodput": "Goodput, ETTR (fraction of wall time)",
    "goodput_mean": "Mean goodput, ETTR (fraction of wall time)",
    "lost_hours": "Lost time per trial (hours)",
    "gpu_hours_lost": "GPU-hours lost per trial (GPU-hours)",
    "interruptions": "Interruptions per trial (count)",
    "spares_used": "Spares used per trial (count)",
    "interval_hours": "Checkpoint interval (hours)",
    "servers": "Servers (count)",
    "gpus": "GPUs (count)",
    "job_gpus": "Job GPUs (count)",
    "cluster_gpus": "Cluster GPUs (count)",
    "spares": "Spare servers (count)",
    "restart_hours": "Restart time (hours)",
    "checkpoint_write_hours": "Checkpoint write time (hours)",
    "job_mtti_hours": "Job mean time to interruption (hours)",
    "net_value": "Net value (currency)",
}


# --------------------------------------------------------------------------- helpers


def _require_columns(frame: pd.DataFrame, columns: Iterable[str], argument: str) -> None:
    missing = [column for column in columns if column not in frame.columns]
    if missing:
        raise ValueError(
            f"{argument}: missing column(s) {', '.join(map(repr, missing))} "
            f"(has {', '.join(map(repr, frame.columns))})"
        )


def _finite_values(values: Any, argument: str) -> np.ndarray:
    data = np.asarray(values, dtype=float)
    data = data[np.isfinite(data)]
    if data.size == 0:
        raise ValueError(f"{argument}: no finite values to plot")
    return data


def _spans_decades(values: np.ndarray) -> bool:
    """True when positive values span more than a factor of ten (use a log axis)."""
    positive = values[np.isfinite(values) & (values > 0)]
    if positive.size < 2 or positive.size < np.isfinite(values).sum():
        return False
    return bool(positive.max() / positive.min() > _LOG_SPAN)


def _axis_label(name: str, labels: Mapping[str, str] | None = None) -> str:
    """Axis label with units for a column name: explicit, known, or inferred from a suffix."""
    if labels and name in labels:
        return labels[name]
    if name in _AXIS_LABELS:
        return _AXIS_LABELS[name]
    text = name.replace("_", " ")
    if name.endswith("_gpu_hours") or name.startswith("gpu_hours"):
        return f"{text} (GPU-hours)"
    if name.endswith("_hours"):
        return f"{name.removesuffix('_hours').replace('_', ' ')} (hours)"
    if name.startswith("interruptions") or name.endswith("_count"):
        return f"{text} (count)"
    if name.startswith("goodput"):
        return f"{text} (fraction of wall time)"
    return text


def _gpus_per_lost_hour(trials: pd.DataFrame) -> float | None:
    """Job GPUs implied by ``gpu_hours_lost / lost_hours`` (None if it cannot be read)."""
    if "gpu_hours_lost" not in trials.columns:
        return None
    lost = trials["lost_hours"].to_numpy(dtype=float)
    gpu = trials["gpu_hours_lost"].to_numpy(dtype=float)
    usable = np.isfinite(lost) & np.isfinite(gpu) & (lost > 0)
    if not usable.any():
        return None
    ratio = float(np.median(gpu[usable] / lost[usable]))
    return ratio if ratio > 0 else None


def _add_gpu_hours_axis(axes: Axes, gpus: float) -> None:
    secondary = axes.secondary_xaxis(
        "top", functions=(lambda hours: hours * gpus, lambda gpu_hours: gpu_hours / gpus)
    )
    secondary.set_xlabel(
        f"GPU-hours lost per trial (GPU-hours, × {gpus:,.0f} GPUs)", fontsize=LABEL_SIZE
    )
    secondary.xaxis.set_major_formatter(FuncFormatter(plain_number))
    secondary.tick_params(labelsize=SMALL_SIZE + 0.5)


def _format_hours(hours: float) -> str:
    if hours != 0 and abs(hours) < 0.1:
        return f"{hours * 60:.3g} min"
    return f"{hours:,.3g} h" if abs(hours) < 1000 else f"{hours:,.0f} h"


# --------------------------------------------------------------------------- figures


def lost_hours_histogram(
    trials: pd.DataFrame, config_name: str, ax: Axes | None = None
) -> Figure:
    """Histogram of the hours lost per trial, with the mean, P50 and P95 marked.

    Parameters
    ----------
    trials : pandas.DataFrame
        One row per trial with column ``lost_hours`` (wall-clock hours minus useful work
        hours, as in :meth:`relplan.analysis.results.SimulationResult.trials_frame`). When
        ``gpu_hours_lost`` is present too, a second x-axis shows GPU-hours.
    config_name : str
        Name of the config, shown in the title.
    ax : matplotlib.axes.Axes, optional
        Draw on these axes, in their figure (which is returned); by default a new figure.

    Returns
    -------
    matplotlib.figure.Figure
        The figure: x in hours lost per trial, y in trials.
    """
    _require_columns(trials, ["lost_hours"], "trials")
    lost = _finite_values(trials["lost_hours"], "trials.lost_hours")
    figure, axes = axes_for(ax, 7.5, 4.5)

    if np.ptp(lost) > 0:
        edges = np.histogram_bin_edges(lost, bins="auto")
        if edges.size > 61:
            edges = np.linspace(lost.min(), lost.max(), 61)
    else:
        edges = np.array([lost[0] - 0.5, lost[0] + 0.5])
    axes.hist(
        lost,
        bins=edges,
        color=PALETTE[0],
        alpha=0.75,
        edgecolor="white",
        linewidth=0.5,
        label=f"{lost.size:,} trials",
    )
    mean = float(lost.mean())
    p50, p95 = (float(value) for value in np.percentile(lost, [50, 95]))
    for value, name, color, style in (
        (mean, "mean", PALETTE[6], "-"),
        (p50, "P50", PALETTE[2], "--"),
        (p95, "P95", PALETTE[1], "-."),
    ):
        axes.axvline(
            value,
            color=color,
            linestyle=style,
            linewidth=1.8,
            label=f"{name} {_format_hours(value)}",
        )

    axes.set_xlabel("Lost time per trial (hours)", fontsize=LABEL_SIZE)
    axes.set_ylabel("Trials (count)", fontsize=LABEL_SIZE)
    gpus = _gpus_per_lost_hour(trials)
    if gpus is not None:
        _add_gpu_hours_axis(axes, gpus)
    axes.legend(fontsize=SMALL_SIZE, framealpha=0.9)
    style_axes(axes)
    figure_title(figure, "Hours lost per trial", config_name)
    return figure


def lost_hours_cdf(
    trials: pd.DataFrame, config_name: str, ax: Axes | None = None
) -> Figure:
    """Empirical CDF of the hours lost per trial, with P50 and P95 marked.

    Parameters as :func:`lost_hours_histogram` (the second x-axis, for
    ``gpu_hours_lost``, on top).

    Returns
    -------
    matplotlib.figure.Figure
        The figure: x in hours lost per trial, y the fraction of trials losing at most x.
    """
    _require_columns(trials, ["lost_hours"], "trials")
    lost = np.sort(_finite_values(trials["lost_hours"], "trials.lost_hours"))
    cumulative = np.arange(1, lost.size + 1) / lost.size
    figure, axes = axes_for(ax, 7.5, 4.5)
    axes.step(
        np.concatenate([[lost[0]], lost]),
        np.concatenate([[0.0], cumulative]),
        where="post",
        color=PALETTE[0],
        linewidth=1.8,
        label=f"empirical CDF ({lost.size:,} trials)",
    )
    gpus = _gpus_per_lost_hour(trials)
    for quantile, name, color, style in (
        (0.50, "P50", PALETTE[2], "--"),
        (0.95, "P95", PALETTE[1], "-."),
    ):
        value = float(np.percentile(lost, 100 * quantile))
        text = f"{name} {_format_hours(value)}"
        if gpus is not None:
            text += f" = {value * gpus:,.0f} GPU-h"
        axes.axvline(value, color=color, linestyle=style, linewidth=1.5, label=text)
        axes.axhline(quantile, color=color, linestyle=":", linewidth=0.9, alpha=0.8)

    axes.set_ylim(0.0, 1.02)
    axes.yaxis.set_major_formatter(PercentFormatter(xmax=1.0))
    axes.set_xlabel("Lost time per trial (hours)", fontsize=LABEL_SIZE)
    axes.set_ylabel("Trials losing at most x (cumulative %)", fontsize=LABEL_SIZE)
    if gpus is not None:
        _add_gpu_hours_axis(axes, gpus)
    axes.legend(loc="lower right", fontsize=SMALL_SIZE, framealpha=0.9)
    style_axes(axes)
    figure_title(figure, "Distribution of hours lost per trial", config_name)
    return figure


def _breakdown_frame(breakdown: Mapping[str, float] | pd.DataFrame) -> pd.DataFrame:
    """Normalise a breakdown to a frame: column ``label`` + one column per lost bucket."""
    if isinstance(breakdown, pd.DataFrame):
        frame = breakdown.copy()
        if "label" not in frame.columns:
            frame.insert(0, "label", [str(index) for index in frame.index])
        frame = frame.rename(
            columns={
                f"{bucket}_hours": bucket
                for bucket in BUCKETS
                if f"{bucket}_hours" in frame.columns
            }
        )
    else:
        unknown = sorted(
            key
            for key in breakdown
            if key not in BUCKETS and key.removesuffix("_hours") not in BUCKETS
        )
        if unknown:
            raise ValueError(
                f"breakdown: unknown bucket(s) {', '.join(map(repr, unknown))} "
                f"(known: {', '.join(LOST_BUCKETS)})"
            )
        row = {key.removesuffix("_hours"): float(value) for key, value in breakdown.items()}
        frame = pd.DataFrame([{"label": "mean per trial", **row}])
    present = [bucket for bucket in LOST_BUCKETS if bucket in frame.columns]
    if not present:
        raise ValueError(
            f"breakdown: no bucket columns (expected some of {', '.join(LOST_BUCKETS)})"
        )
    frame = frame[["label", *present]].copy()
    frame[present] = frame[present].astype(float).fillna(0.0)
    if len(frame) == 0:
        raise ValueError("breakdown: no rows to plot")
    return frame


def lost_hours_by_bucket(
    breakdown: Mapping[str, float] | pd.DataFrame,
    config_name: str,
    reference: str | None = None,
    ax: Axes | None = None,
) -> Figure:
    """Stacked bar of the mean hours lost per trial in each wall-clock bucket.

    Parameters
    ----------
    breakdown : dict of str to float, or pandas.DataFrame
        Either one breakdown, ``{bucket: mean hours per trial}`` (the ``lost_hours_breakdown``
        of :meth:`relplan.analysis.results.SimulationResult.summary`), drawn as one bar; or a frame
        with one row per scenario or interval: column ``label`` (bar name) and one column
        per bucket (``rework``, ``checkpoint``, ``detect``, ``restart``, ``waiting``,
        ``degraded``, ``stall``; ``<bucket>_hours`` is accepted too), in hours, drawn as
        bars side by side. Missing buckets count as zero; ``useful`` is ignored.
    config_name : str
        Name of the config, shown in the title.
    reference : str, optional
        Label of a row that is a bound, not a candidate (such as failure-free running):
        drawn as a dashed line across the bars, not as a bar.
    ax : matplotlib.axes.Axes, optional
        Draw on these axes, in their figure (which is returned); by default a new figure.

    Returns
    -------
    matplotlib.figure.Figure
        The figure: one stacked bar per row, y in mean hours lost per trial. Buckets that
        are zero in every row are not drawn and not in the legend; buckets too small to
        see (under 0.5% of the tallest bar everywhere) are named in one legend note.
        Bar labels wrap between words, never inside a number.

    Examples
    --------
    >>> figure = lost_hours_by_bucket({"rework": 10.0, "checkpoint": 5.0}, "demo")
    >>> [patch.get_gid() for patch in figure.axes[0].patches]
    ['bucket-rework', 'bucket-checkpoint']
    """
    frame = _breakdown_frame(breakdown)
    bound = None
    if reference is not None and (frame["label"].astype(str) == reference).any():
        is_bound = frame["label"].astype(str) == reference
        bound = frame[is_bound].iloc[0]
        frame = frame[~is_bound].reset_index(drop=True)
        if len(frame) == 0:
            raise ValueError("breakdown: no rows to plot besides the reference")
    present = [bucket for bucket in LOST_BUCKETS if bucket in frame.columns]
    tallest = max(float(frame[present].sum(axis=1).max()), 0.0)
    buckets = [bucket for bucket in present if (frame[bucket] != 0).any()]
    tiny = [bucket for bucket in buckets
            if len(frame) > 1 and float(frame[bucket].abs().max()) < _INVISIBLE_SHARE * tallest]
    labels = [str(label) for label in frame["label"]]
    positions = np.arange(len(frame), dtype=float)
    width = 0.6 if len(frame) > 1 else 0.45
    figure, axes = axes_for(ax, max(5.5, 3.2 + 1.25 * len(frame)) if len(frame) > 1 else 5.5, 4.8)

    bottom = np.zeros(len(frame))
    for bucket in buckets:
        heights = frame[bucket].to_numpy(dtype=float)
        axes.bar(
            positions,
            heights,
            width=width,
            bottom=bottom,
            color=BUCKET_COLORS[bucket],
            edgecolor="white",
            linewidth=0.6,
            label=(("_" if bucket in tiny else "") + bucket) if len(frame) > 1
            else f"{bucket} {_format_hours(float(heights[0]))}",
            gid=f"bucket-{bucket}",
        )
        bottom = bottom + heights
    for position, total in zip(positions, bottom, strict=True):
        axes.annotate(
            _format_hours(float(total)),
            (position, total),
            xytext=(0, 3),
            textcoords="offset points",
            ha="center",
            va="bottom",
            fontsize=SMALL_SIZE,
        )
    # long names wrap between words (and after commas), never inside a number
    wrapped = [wrap_label(label, 13) for label in labels]
    axes.set_xticks(
        positions,
        wrapped,
        rotation=0 if len(frame) <= 12 else 30,
        ha="center" if len(frame) <= 12 else "right",
        fontsize=SMALL_SIZE,
    )
    axes.set_xlim(-0.75, len(frame) - 0.25)
    top = max(float(bottom.max()), 0.0 if bound is None else float(bound[present].sum()))
    axes.set_ylim(0, max(top, 1e-9) * 1.12)
    axes.set_ylabel("Mean lost time per trial (hours)", fontsize=LABEL_SIZE)
    if len(frame) > 1:
        axes.set_xlabel("Scenario", fontsize=LABEL_SIZE)
    if bound is not None:
        total = float(bound[present].sum())
        axes.axhline(total, color=PALETTE[6], linestyle="--", linewidth=1.2, gid="reference",
                     label=textwrap.fill(f"{reference}: {_format_hours(total)} (the "
                                         "reference, not a candidate)", 24))
    if buckets:
        handles, names = axes.get_legend_handles_labels()
        if tiny:
            handles.append(Patch(facecolor="none", edgecolor="none"))
            names.append(textwrap.fill(f"too small to see: {', '.join(tiny)}", 24))
        # Reverse so the legend reads top-down like the stack.
        axes.legend(
            handles[::-1],
            names[::-1],
            loc="upper left",
            bbox_to_anchor=(1.01, 1.0),
            fontsize=SMALL_SIZE,
            title="bucket",
            title_fontsize=SMALL_SIZE,
            frameon=False,
        )
    style_axes(axes)
    axes.grid(False, axis="x")
    figure_title(figure, "Where the lost hours go", config_name)
    return figure


def _label_mode_bars(
    axes: Axes, positions: np.ndarray, modes: Sequence[str], ends: Sequence[float],
    texts: Sequence[str], longest: float, headroom: float, xlabel: str,
) -> None:
    """Write each failure mode's text at the end of its horizontal bar (``ends``, in the
    bars' unit), name the modes on the y axis and give the x axis ``headroom`` times the
    ``longest`` bar (a factor, room for the texts)."""
    for position, end, text in zip(positions, ends, texts, strict=True):
        axes.annotate(text, (end, position), xytext=(4, 0), textcoords="offset points",
                      va="center", fontsize=SMALL_SIZE)  # fmt: skip
    axes.set_yticks(positions, modes)
    axes.set_xlim(0, max(longest, 1e-9) * headroom)
    axes.set_xlabel(xlabel, fontsize=LABEL_SIZE)
    axes.set_ylabel("Failure mode", fontsize=LABEL_SIZE)


def interruptions_by_class(
    by_class: Mapping[str, float], config_name: str, ax: Axes | None = None
) -> Figure:
    """Horizontal bars of the mean interruptions per trial by failure mode, with shares.

    Parameters
    ----------
    by_class : dict of str to float
        Mean interruptions per trial for each failure mode (the ``interruptions_by_class``
        of :meth:`relplan.analysis.results.SimulationResult.summary`), in counts per trial.
    config_name, ax : str, matplotlib.axes.Axes (optional)
        As :func:`lost_hours_histogram`.

    Returns
    -------
    matplotlib.figure.Figure
        The figure: one bar per mode, largest on top, each labelled with its mean and its
        share of all interruptions in percent.
    """
    if not by_class:
        raise ValueError("by_class: no failure modes to plot")
    items = sorted(
        ((str(mode), float(count)) for mode, count in by_class.items()),
        key=lambda item: (-item[1], item[0]),
    )
    modes = [mode for mode, _ in items]
    counts = np.array([count for _, count in items])
    total = float(counts.sum())
    figure, axes = axes_for(ax, 7.5, max(2.6, 1.4 + 0.38 * len(modes)))
    positions = np.arange(len(modes))[::-1]  # largest on top
    colors = [PALETTE[index % len(PALETTE)] for index in range(len(modes))]
    axes.barh(positions, counts, height=0.65, color=colors, gid="interruptions")
    texts = [f"{count:.3g} ({100.0 * count / total if total > 0 else 0.0:.1f}%)"
             for count in counts]
    _label_mode_bars(axes, positions, modes, counts, texts, float(counts.max()), 1.25,
                     "Mean interruptions per trial (count)")  # fmt: skip
    style_axes(axes)
    axes.grid(False, axis="y")
    figure_title(figure, f"Interruptions by failure mode (total {total:.3g} per trial)",
                 config_name)
    return figure


def failures_by_mode(
    by_mode: Mapping[str, Mapping[str, Any]], config_name: str, ax: Axes | None = None
) -> Figure:
    """Stacked bars of the mean failures per trial by mode: those that stopped the job
    (interruptions) and those it survived (degraded, stalled, elastic), distinctly.

    Parameters
    ----------
    by_mode : dict of str to dict
        Per failure mode: ``impact`` (fatal, degraded, transient or elastic),
        ``failures`` (mean failures per trial, count) and ``interruptions`` (mean
        failures per trial that stopped the job, count; at most ``failures``). Built
        from a summary's ``failures_by_class`` and ``interruptions_by_class`` by
        :func:`relplan.output.report.failure_table`.
    config_name, ax : str, matplotlib.axes.Axes (optional)
        As :func:`lost_hours_histogram`.

    Returns
    -------
    matplotlib.figure.Figure
        One bar per mode, most failures on top: the red part stopped the job, the rest
        is coloured by what the failure did instead (:data:`IMPACT_COLORS`). The title
        states the mean interruptions per trial (the ``interruptions`` of the summary
        table) and the mean failures survived.

    Examples
    --------
    >>> figure = failures_by_mode(
    ...     {"gpu": {"impact": "fatal", "failures": 5.0, "interruptions": 5.0},
    ...      "spine": {"impact": "degraded", "failures": 2.0, "interruptions": 0.5}}, "demo")
    >>> figure.get_suptitle()
    'Failures by mode: 5.50 interruptions + 1.50 survived per trial — demo'
    """
    if not by_mode:
        raise ValueError("by_mode: no failure modes to plot")
    rows = []
    for mode, entry in by_mode.items():
        failures = float(entry["failures"])
        stopped = min(float(entry.get("interruptions", 0.0)), failures)
        impact = str(entry["impact"])
        if impact not in IMPACT_COLORS:
            raise ValueError(
                f"by_mode.{mode}.impact: unknown impact {impact!r} "
                f"(known: {', '.join(IMPACT_COLORS)})"
            )
        rows.append((str(mode), impact, failures, stopped, failures - stopped))
    rows.sort(key=lambda row: (-row[2], row[0]))
    modes = [row[0] for row in rows]
    stopped = np.array([row[3] for row in rows])
    survived = np.array([row[4] for row in rows])
    total_stopped, total_survived = float(stopped.sum()), float(survived.sum())
    figure, axes = axes_for(ax, 8.0, max(2.8, 1.6 + 0.38 * len(modes)))
    positions = np.arange(len(modes))[::-1]  # most failures on top
    axes.barh(
        positions,
        stopped,
        height=0.65,
        color=INTERRUPTION_COLOR,
        label=f"stopped the job (interruption): {total_stopped:,.2f}",
        gid="interruptions",
    )
    for impact, label in _SURVIVED_LABELS.items():
        heights = np.array([row[4] if row[1] == impact else 0.0 for row in rows])
        if not (heights > 0).any():
            continue
        axes.barh(
            positions,
            heights,
            left=stopped,
            height=0.65,
            color=IMPACT_COLORS[impact],
            label=f"{label}: {float(heights.sum()):,.2f}",
            gid=f"survived-{impact}",
        )
    totals = stopped + survived
    texts = [f"{row[2]:,.3g}" + (f" ({row[3]:,.3g} stopped the job)"
                                 if row[3] > 0 and row[4] > 0 else "") for row in rows]
    _label_mode_bars(axes, positions, modes, [row[2] for row in rows], texts,
                     float(totals.max()), 1.35, "Mean failures per trial (count)")  # fmt: skip
    axes.legend(loc="lower right", fontsize=SMALL_SIZE, framealpha=0.9, title="what it did",
                title_fontsize=SMALL_SIZE)  # fmt: skip
    style_axes(axes)
    axes.grid(False, axis="y")
    figure_title(
        figure,
        f"Failures by mode: {total_stopped:,.2f} interruptions + {total_survived:,.2f} "
        "survived per trial",
        config_name,
    )
    return figure


def metric_by_point(
    results: pd.DataFrame,
    metric: str,
    config_name: str,
    reference: str | None = None,
    labels: Mapping[str, str] | None = None,
    ax: Axes | None = None,
) -> Figure:
    """One metric per study point: its mean with the 95% CI, and its bad tail.

    Parameters
    ----------
    results : pandas.DataFrame
        One row per point: ``label``, ``<metric>`` (the mean), ``<metric>_ci95_low`` and
        ``<metric>_ci95_high``; optionally ``<metric>_p5`` or ``<metric>_p95`` (the bad
        tail: P5 where higher is better, :data:`relplan.vocab.HIGHER_IS_BETTER`, P95
        otherwise), drawn as a hollow marker.
    metric : str
        The metric (e.g. ``goodput``, a fraction of wall time; ``lost_hours``, hours).
    config_name : str
        Name of the study, shown in the title.
    reference : str, optional
        Label of a reference point (a bound such as failure-free running): drawn as a
        dashed line, not as a candidate.
    labels : mapping of str to str, optional
        Axis label by metric name, overriding the built-in ones.
    ax : matplotlib.axes.Axes, optional
        Draw on these axes, in their figure (which is returned); by default a new figure.

    Returns
    -------
    matplotlib.figure.Figure
        One row per point (first on top), x the metric in its unit.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"label": ["a", "b"], "goodput": [0.9, 0.95],
    ...                       "goodput_ci95_low": [0.89, 0.94],
    ...                       "goodput_ci95_high": [0.91, 0.96]})
    >>> len(metric_by_point(frame, "goodput", "demo").axes)
    1
    """
    low, high = f"{metric}_ci95_low", f"{metric}_ci95_high"
    _require_columns(results, ["label", metric, low, high], "results")
    frame = results
    bound = None
    if reference is not None and (results["label"] == reference).any():
        bound = results[results["label"] == reference].iloc[0]
        frame = results[results["label"] != reference]
    if len(frame) == 0:
        raise ValueError("results: no points to plot")
    tail = TAIL_PERCENTILES.get(metric, 95)
    tail_column = f"{metric}_p{tail}"
    fmt = METRIC_LABELS[metric][2] if metric in METRIC_LABELS else "{:,.4g}"
    figure, axes = axes_for(ax, 8.5, max(2.8, 1.5 + 0.6 * len(frame)))
    positions = np.arange(len(frame))[::-1]
    means = frame[metric].to_numpy(dtype=float)
    axes.errorbar(
        means,
        positions,
        xerr=[means - frame[low].to_numpy(dtype=float), frame[high].to_numpy(dtype=float) - means],
        fmt="o",
        color=PALETTE[0],
        ecolor=PALETTE[0],
        elinewidth=2.0,
        capsize=4,
        markersize=6,
        label="mean with 95% CI",
        gid=f"{metric}-ci95",
    )
    if tail_column in frame.columns:
        axes.plot(
            frame[tail_column].to_numpy(dtype=float),
            positions,
            linestyle="none",
            marker="D",
            markersize=6,
            markerfacecolor="none",
            markeredgecolor=PALETTE[1],
            label=f"P{tail}, the bad tail\n(1 trial in 20 is worse)",
            gid=f"{metric}-p{tail}",
        )
    if bound is not None:
        axes.axvline(
            float(bound[metric]),
            color=PALETTE[6],
            linestyle="--",
            linewidth=1.2,
            label=textwrap.fill(f"{reference}: {fmt.format(float(bound[metric]))} (reference)", 30),
            gid="reference",
        )
    ticks = [
        f"{wrap_label(str(label), 28)}\n{fmt.format(mean)} "
        f"[{fmt.format(lo)}, {fmt.format(hi)}]"
        for label, mean, lo, hi in zip(frame["label"], means, frame[low], frame[high], strict=True)
    ]
    axes.set_yticks(positions, ticks)
    axes.set_ylim(-0.7, len(frame) - 0.3)
    axes.set_xlabel(_axis_label(metric, labels), fontsize=LABEL_SIZE)
    axes.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=SMALL_SIZE, frameon=False)
    style_axes(axes)
    axes.grid(False, axis="y")
    name = METRIC_LABELS[metric][0] if metric in METRIC_LABELS else metric.replace("_", " ")
    figure_title(figure, f"Mean {name} by point, with 95% CI", config_name)
    return figure


def provenance_footer(figure: Figure, text: str) -> Figure:
    """Stamp a small provenance line (version, config digest, seed, trials) on a figure,
    so a figure pasted into a slide can be traced back to the run that made it.

    Parameters
    ----------
    figure : matplotlib.figure.Figure
        The figure; changed in place.
    text : str
        The line, e.g. from :func:`relplan.analysis.provenance.provenance_line`.

    Returns
    -------
    matplotlib.figure.Figure
        The same figure.
    """
    margin = 0.16 / figure.get_figheight()  # inches kept free for the line, as a fraction
    engine = figure.get_layout_engine()
    if engine is not None and hasattr(engine, "set"):
        engine.set(rect=(0.0, margin, 1.0, 1.0 - margin))
    figure.text(0.995, 0.003, text, ha="right", va="bottom", fontsize=6.5, color="#777777",
                gid="provenance")  # fmt: skip
    return figure


def trial_timeline(
    trace: pd.DataFrame,
    failures: pd.DataFrame,
    config_name: str,
    work_hours: float | None,
) -> Figure:
    """Timeline of one trial: wall-clock buckets, checkpoints, failures and work progress.

    A trial with few failures and intervals is drawn interval by interval. A busy one
    (more than 40 failures or 600 intervals, such as the ~500 failures of a 10k-GPU month)
    is aggregated into at most 120 bins of wall time so that it stays readable and its SVG
    small: the share of each bin in each bucket, the failures per bin by impact, and the
    progress of useful work.

    Parameters
    ----------
    trace : pandas.DataFrame
        Contiguous intervals covering the trial's wall time, one row each: ``start_hours``
        and ``end_hours`` (wall-clock hours from the job's start) and ``bucket`` (one of
        ``useful``, ``rework``, ``checkpoint``, ``detect``, ``restart``, ``waiting``,
        ``degraded``, ``stall``).
    failures : pandas.DataFrame
        Failures that hit the job, one row each: ``time_hours`` (wall-clock hours) and
        ``mode`` (failure mode name), optionally ``impact`` (fatal, degraded, transient,
        elastic). May be empty.
    config_name : str
        Name of the config, shown in the title.
    work_hours : float or None
        Useful work the job needs, hours (the target line of the progress panel); None
        over a calendar window, which has no target.

    Returns
    -------
    matplotlib.figure.Figure
        Panels sharing the wall-clock x-axis (hours). Detailed: the bucket lane (one
        ``broken_barh`` collection per bucket present, checkpoints as ticks, failures as
        red markers with their mode) and the cumulative useful work (hours). Aggregated:
        the bucket shares per bin (one filled area per bucket), the failures per bin (one
        step line per impact) and the cumulative useful work.

    Examples
    --------
    >>> import pandas as pd
    >>> trace = pd.DataFrame({"start_hours": [0.0, 2.0], "end_hours": [2.0, 2.1],
    ...                       "bucket": ["useful", "checkpoint"]})
    >>> failures = pd.DataFrame({"time_hours": [], "mode": []})
    >>> len(trial_timeline(trace, failures, "demo", work_hours=2.0).axes)
    2
    """
    _require_columns(trace, ["start_hours", "end_hours", "bucket"], "trace")
    _require_columns(failures, ["time_hours", "mode"], "failures")
    if len(trace) == 0:
        raise ValueError("trace: no intervals to plot")
    unknown = sorted(set(trace["bucket"].astype(str)) - set(BUCKETS))
    if unknown:
        raise ValueError(
            f"trace.bucket: unknown bucket(s) {', '.join(map(repr, unknown))} "
            f"(known: {', '.join(BUCKETS)})"
        )
    ordered = trace.sort_values("start_hours", kind="stable")
    start = ordered["start_hours"].to_numpy(dtype=float)
    end = ordered["end_hours"].to_numpy(dtype=float)
    bucket = ordered["bucket"].astype(str).to_numpy()
    duration = end - start
    if (duration < 0).any():
        raise ValueError("trace: end_hours must not be before start_hours")
    failure_times = failures["time_hours"].to_numpy(dtype=float)
    failure_modes = failures["mode"].astype(str).to_numpy()
    aggregate = failure_times.size > _MAX_FAILURE_LABELS or len(ordered) > _MAX_TIMELINE_INTERVALS
    if aggregate:
        figure = new_figure(11.0, 7.0)
        lane, counts_axes, progress = figure.subplots(
            3, 1, sharex=True, gridspec_kw={"height_ratios": [1.3, 0.9, 2.0]}
        )
        _timeline_binned(lane, counts_axes, start, end, bucket, failures)
    else:
        figure = new_figure(11.0, 6.0)
        lane, progress = figure.subplots(
            2, 1, sharex=True, gridspec_kw={"height_ratios": [1.0, 2.2]}
        )
        _timeline_lane(lane, progress, start, duration, bucket, failure_times, failure_modes)
    _timeline_progress(progress, start, end, bucket, work_hours, failure_times.size, aggregate)
    figure_title(figure, "One sample trial", config_name)
    return figure


def _timeline_lane(
    lane: Axes,
    progress: Axes,
    start: np.ndarray,
    duration: np.ndarray,
    bucket: np.ndarray,
    failure_times: np.ndarray,
    failure_modes: np.ndarray,
) -> None:
    """The detailed lane: every interval, checkpoint tick and failure of the trial."""
    lane_bottom, lane_height = 0.0, 1.0
    for name in BUCKETS:
        mask = bucket == name
        if not mask.any():
            continue
        lane.broken_barh(
            np.column_stack([start[mask], duration[mask]]),
            (lane_bottom, lane_height),
            facecolors=BUCKET_COLORS[name],
            edgecolors="none",
            label=f"{name} ({duration[mask].sum():,.1f} h)",
            gid=f"bucket-{name}",
        )
    checkpoints = start[bucket == "checkpoint"]
    if checkpoints.size:
        lane.plot(
            checkpoints,
            np.full(checkpoints.size, lane_bottom - 0.12),
            linestyle="none",
            marker="|",
            markersize=6,
            markeredgewidth=0.8,
            color=BUCKET_COLORS["checkpoint"],
            label=f"checkpoint written ({checkpoints.size:,})",
            gid="checkpoints",
        )
    marker_y = lane_bottom + lane_height + 0.15
    if failure_times.size:
        counts = pd.Series(failure_modes).value_counts()
        summary = ", ".join(f"{mode} ×{count}" for mode, count in counts.head(4).items())
        if len(counts) > 4:
            summary += f", {len(counts) - 4} more modes"
        lane.plot(
            failure_times,
            np.full(failure_times.size, marker_y),
            linestyle="none",
            marker="v",
            markersize=7,
            color=FAILURE_COLOR,
            label=f"failure ({summary})",
            gid="failures",
        )
        for time, mode in zip(failure_times, failure_modes, strict=True):
            lane.annotate(
                mode,
                (time, marker_y),
                xytext=(0, 6),
                textcoords="offset points",
                rotation=45,
                ha="left",
                va="bottom",
                fontsize=SMALL_SIZE - 1,
                color=FAILURE_COLOR,
            )
        progress.vlines(
            failure_times,
            0,
            1,
            transform=progress.get_xaxis_transform(),
            colors=FAILURE_COLOR,
            linewidth=0.7,
            alpha=0.35,
            gid="failure-lines",
        )
    lane.set_ylim(lane_bottom - 0.35, marker_y + (1.6 if failure_times.size else 0.4))
    lane.set_yticks([])
    lane.set_ylabel("Bucket\n(wall time)", fontsize=LABEL_SIZE)
    lane.legend(loc="upper left", bbox_to_anchor=(1.01, 1.15), fontsize=SMALL_SIZE,
                frameon=False)  # fmt: skip
    lane.set_title("Wall-clock time by bucket", fontsize=LABEL_SIZE, loc="left")
    style_axes(lane)
    lane.grid(False, axis="y")
    lane.spines["left"].set_visible(False)


def _cumulative_at(times: np.ndarray, start: np.ndarray, end: np.ndarray,
                   weight: np.ndarray) -> np.ndarray:  # fmt: skip
    """Hours of the weighted intervals elapsed by each time (exact, piecewise linear)."""
    knots = np.column_stack([start, end]).ravel()
    done = np.concatenate([[0.0], np.cumsum((end - start) * weight)])
    values = np.column_stack([done[:-1], done[1:]]).ravel()
    return np.interp(times, knots, values)


def _bin_edges(wall_start: float, wall_end: float) -> np.ndarray:
    """At most :data:`_TIMELINE_BINS` bins of a round width (1, 2 or 5 x 10^k hours)."""
    span = max(wall_end - wall_start, 1e-9)
    raw = span / _TIMELINE_BINS
    power = 10.0 ** np.floor(np.log10(raw))
    width = next(step * power for step in (1.0, 2.0, 5.0, 10.0) if step * power >= raw)
    count = int(np.ceil(span / width - 1e-9))
    return wall_start + width * np.arange(count + 1)


def _timeline_binned(
    lane: Axes,
    counts_axes: Axes,
    start: np.ndarray,
    end: np.ndarray,
    bucket: np.ndarray,
    failures: pd.DataFrame,
) -> None:
    """The aggregated panels: bucket shares per bin and failures per bin by impact."""
    edges = _bin_edges(float(start.min()), float(end.max()))
    width = float(edges[1] - edges[0])
    # the last bin may reach past the trial's end: shares of the time it covers
    covered = np.diff(np.minimum(edges, float(end.max())))
    covered = np.where(covered > 0, covered, width)
    steps_x = np.repeat(edges, 2)[1:-1]
    bottom = np.zeros(edges.size - 1)
    for name in BUCKETS:
        mask = bucket == name
        if not mask.any():
            continue
        hours = np.diff(_cumulative_at(edges, start, end, mask.astype(float)))
        top = bottom + hours / covered
        lane.fill_between(
            steps_x,
            np.repeat(bottom, 2),
            np.repeat(top, 2),
            color=BUCKET_COLORS[name],
            linewidth=0,
            label=f"{name} ({hours.sum():,.1f} h)",
            gid=f"bucket-{name}",
        )
        bottom = top
    lane.set_ylim(0, 1)
    lane.yaxis.set_major_formatter(PercentFormatter(xmax=1.0, decimals=0))
    lane.set_ylabel("Share of\nwall time", fontsize=LABEL_SIZE)
    lane.set_title(
        f"Wall-clock time by bucket, per {_format_hours(width)} of wall time", fontsize=LABEL_SIZE,
        loc="left",
    )  # fmt: skip
    lane.legend(loc="upper left", bbox_to_anchor=(1.01, 1.05), fontsize=SMALL_SIZE,
                frameon=False)  # fmt: skip
    style_axes(lane)

    times = failures["time_hours"].to_numpy(dtype=float)
    impacts = (failures["impact"].astype(str).to_numpy() if "impact" in failures.columns
               else np.full(times.size, "fatal"))  # fmt: skip
    highest = 0.0
    for impact in IMPACT_COLORS:
        mask = impacts == impact
        if not mask.any():
            continue
        counts, _ = np.histogram(times[mask], bins=edges)
        highest = max(highest, float(counts.max()))
        label = "stopped the job" if impact == "fatal" else _SURVIVED_LABELS[impact]
        counts_axes.stairs(counts, edges, color=IMPACT_COLORS[impact], linewidth=1.4,
                           label=f"{label} ({int(mask.sum()):,})", gid=f"failures-{impact}")
    modes = pd.Series(failures["mode"].astype(str)).value_counts()
    summary = ", ".join(f"{mode} ×{count}" for mode, count in modes.head(4).items())
    if len(modes) > 4:
        summary += f", {len(modes) - 4} more modes"
    counts_axes.set_ylim(0, max(highest, 1.0) * 1.15)
    counts_axes.set_ylabel(f"Failures per\n{_format_hours(width)}", fontsize=LABEL_SIZE)
    counts_axes.set_title(f"Failures: {times.size:,} ({summary})" if times.size else
                          "No failures", fontsize=LABEL_SIZE, loc="left")  # fmt: skip
    if times.size:
        counts_axes.legend(loc="upper left", bbox_to_anchor=(1.01, 1.05), fontsize=SMALL_SIZE,
                           frameon=False)  # fmt: skip
    style_axes(counts_axes)


def _timeline_progress(
    progress: Axes,
    start: np.ndarray,
    end: np.ndarray,
    bucket: np.ndarray,
    work_hours: float | None,
    failure_count: int,
    aggregate: bool,
) -> None:
    """Cumulative useful work against wall time, flat while time is lost."""
    wall_start, wall_end = float(start.min()), float(end.max())
    useful = (bucket == "useful").astype(float)
    if aggregate:
        # at most a few thousand points, at the intervals' own corners where there are few
        times = np.linspace(wall_start, wall_end, _TIMELINE_PROGRESS_POINTS)
        done = _cumulative_at(times, start, end, useful)
    else:
        times = np.concatenate([[start[0]], end])
        done = np.concatenate([[0.0], np.cumsum(np.where(useful > 0, end - start, 0.0))])
    progress.plot(
        times,
        done,
        color=BUCKET_COLORS["useful"],
        linewidth=1.8,
        label=f"useful work done ({done[-1]:,.1f} h)",
        gid="progress",
    )
    # over a calendar window (no work to reach) the ideal runs to the window's end
    ideal_end = wall_start + (work_hours if work_hours is not None else wall_end - wall_start)
    progress.plot(
        [wall_start, ideal_end],
        [0.0, ideal_end - wall_start],
        color=PALETTE[7],
        linestyle="--",
        linewidth=1.0,
        label="no failures (goodput 1)",
    )
    if work_hours is not None:
        progress.axhline(
            work_hours,
            color=PALETTE[6],
            linestyle=":",
            linewidth=1.0,
            label=f"work needed ({work_hours:,.1f} h)",
        )
    if failure_count and not aggregate:
        progress.plot([], [], color=FAILURE_COLOR, linewidth=0.7, alpha=0.6, label="failure")
    goodput = done[-1] / (wall_end - wall_start) if wall_end > wall_start else float("nan")
    progress.set_title(
        f"Useful work against wall time: {wall_end - wall_start:,.1f} h wall, "
        f"goodput {goodput:.1%}",
        fontsize=LABEL_SIZE,
        loc="left",
    )
    progress.set_xlim(wall_start, max(wall_end, ideal_end) * 1.01)
    progress.set_ylim(0, max(ideal_end - wall_start, done[-1]) * 1.05)
    progress.set_xlabel("Wall-clock time (hours)", fontsize=LABEL_SIZE)
    progress.set_ylabel("Useful work done (hours)", fontsize=LABEL_SIZE)
    progress.xaxis.set_major_formatter(FuncFormatter(plain_number))
    progress.yaxis.set_major_formatter(FuncFormatter(plain_number))
    progress.legend(
        loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=SMALL_SIZE, frameon=False
    )
    style_axes(progress)


def _mark_on_curve(
    axes: Axes, hours: float, interval: np.ndarray, values: np.ndarray, name: str,
    **style: Any,
) -> None:
    """Mark an optimum (``hours``, hours) on a curve over ``interval``, labelled with its name
    and its value; ``style`` is the marker's (``marker``, ``markersize``, ``color``, ``gid``)."""
    axes.plot([hours], [float(np.interp(hours, interval, values))], linestyle="none",
              markeredgecolor="white", label=f"{name} {_format_hours(hours)}", **style)


def _curve_with_optimum(
    axes: Axes, interval: np.ndarray, values: np.ndarray, line: Mapping[str, Any],
    optimum: float | None, name: str, mark: Mapping[str, Any],
) -> None:
    """Draw a curve over ``interval`` and, when there is one, its optimum on it.

    Parameters
    ----------
    axes : matplotlib.axes.Axes
        The axes to draw on.
    interval, values : numpy.ndarray
        The curve: checkpoint intervals (hours) and the values at them.
    line : mapping of str to object
        The curve's style (``Axes.plot`` keywords, ``label`` and ``gid`` among them).
    optimum : float, optional
        The optimal interval, hours; None: nothing is marked.
    name, mark : str, mapping of str to object
        The optimum's name and marker style, as :func:`_mark_on_curve` takes them.
    """
    axes.plot(interval, values, **line)
    if optimum is not None:
        _mark_on_curve(axes, float(optimum), interval, values, name, **mark)


def goodput_vs_interval(
    curve: pd.DataFrame,
    config_name: str,
    young_hours: float | None = None,
    daly_hours: float | None = None,
    mc_optimal_hours: float | None = None,
    mc_optimal_ci95: Sequence[float] | None = None,
    p95_optimal_hours: float | None = None,
    p95_optimal_ci95: Sequence[float] | None = None,
    ax: Axes | None = None,
) -> Figure:
    """Mean goodput against the checkpoint interval, with its 95% CI and the optima marked.

    The optima sit in a strip under the curve, one row each with its own marker and
    colour (and its CI where it has one), so that optima a few minutes apart never hide
    each other; the Monte Carlo optimum is also starred on the goodput curve and the P95
    optimum on the P95 wall-time curve.

    Parameters
    ----------
    curve : pandas.DataFrame
        One row per interval tried: ``interval_hours`` (hours of useful work between
        checkpoints), ``goodput_mean`` (fraction of wall time), ``goodput_ci95_low`` and
        ``goodput_ci95_high`` (its 95% confidence interval, fraction). Optional
        ``wall_p95_hours`` (P95 wall-clock hours) is drawn on a second y-axis.
    config_name : str
        Name of the config, shown in the title.
    young_hours, daly_hours : float, optional
        Young's and Daly's closed-form optimal intervals, hours.
    mc_optimal_hours : float, optional
        The Monte Carlo optimal interval (highest mean goodput), hours.
    mc_optimal_ci95 : sequence of two floats, optional
        95% confidence interval of the Monte Carlo optimum, hours.
    p95_optimal_hours : float, optional
        The interval minimising the P95 wall time, hours.
    p95_optimal_ci95 : sequence of two floats, optional
        Its 95% confidence interval, hours.
    ax : matplotlib.axes.Axes, optional
        Draw on these axes, in their figure (which is returned); by default a new figure.

    Returns
    -------
    matplotlib.figure.Figure
        The figure: x the checkpoint interval in hours (log scale when the range spans
        more than 10x), y goodput in percent of wall time; with any optimum given, a strip
        of the optima under it.

    Examples
    --------
    >>> import pandas as pd
    >>> curve = pd.DataFrame({"interval_hours": [0.5, 1.0, 2.0],
    ...                       "goodput_mean": [0.90, 0.92, 0.91],
    ...                       "goodput_ci95_low": [0.89, 0.91, 0.90],
    ...                       "goodput_ci95_high": [0.91, 0.93, 0.92]})
    >>> figure = goodput_vs_interval(curve, "demo", young_hours=1.1, daly_hours=1.05,
    ...                              mc_optimal_hours=1.0)
    >>> [axes.get_gid() for axes in figure.axes]
    ['goodput', 'optima']
    """
    _require_columns(
        curve, ["interval_hours", "goodput_mean", "goodput_ci95_low", "goodput_ci95_high"], "curve"
    )
    if len(curve) == 0:
        raise ValueError("curve: no rows to plot")
    ordered = curve.sort_values("interval_hours")
    interval = ordered["interval_hours"].to_numpy(dtype=float)
    goodput = ordered["goodput_mean"].to_numpy(dtype=float)
    optima = [
        (name, value, ci, marker, color)
        for name, value, ci, marker, color in (
            ("Young (1974)", young_hours, None, "^", PALETTE[4]),
            ("Daly (2006)", daly_hours, None, "s", PALETTE[3]),
            ("MC optimum, mean goodput", mc_optimal_hours, mc_optimal_ci95, "*", PALETTE[1]),
            ("MC optimum, P95 wall time", p95_optimal_hours, p95_optimal_ci95, "D", PALETTE[6]),
        )
        if value is not None
    ]
    if ax is not None:  # the caller's axes: the optima are marked on the curve alone
        figure, axes, strip = ax.figure, ax, None
    elif optima:
        figure = new_figure(9.0, 5.0 + (0.32 * len(optima) + 0.8 if optima else 0.0))
        axes, strip = figure.subplots(
            2, 1, sharex=True,
            gridspec_kw={"height_ratios": [4.6, 0.42 * len(optima) + 0.5]},
        )  # fmt: skip
    else:
        figure, axes = axes_for(None, 9.0, 5.0)
        strip = None
    axes.set_gid("goodput")
    axes.fill_between(
        interval,
        ordered["goodput_ci95_low"].to_numpy(dtype=float),
        ordered["goodput_ci95_high"].to_numpy(dtype=float),
        color=PALETTE[0],
        alpha=0.2,
        linewidth=0,
        label="95% CI of the mean",
        gid="goodput-ci95",
    )
    _curve_with_optimum(
        axes, interval, goodput,
        {"color": PALETTE[0], "marker": "o", "markersize": 3.5, "linewidth": 1.8,
         "label": "mean goodput (Monte Carlo)", "gid": "goodput-mean"},
        mc_optimal_hours, "MC optimum",
        {"marker": "*", "markersize": 14, "color": PALETTE[1], "gid": "mc-optimum-on-curve"},
    )  # fmt: skip

    marks = [float(value) for _, value, _, _, _ in optima]
    marks += [float(v) for _, _, ci, _, _ in optima if ci is not None for v in ci]
    shown = np.concatenate([interval, np.asarray(marks, dtype=float)])
    if _spans_decades(shown):
        log_x_axis(axes, shown)
    axes.yaxis.set_major_formatter(PercentFormatter(xmax=1.0))
    axes.set_ylabel("Goodput, ETTR (% of wall time)", fontsize=LABEL_SIZE)
    handles, names = axes.get_legend_handles_labels()
    has_wall = "wall_p95_hours" in ordered.columns
    if has_wall:
        twin = axes.twinx()
        twin.set_gid("wall-p95")
        walls = ordered["wall_p95_hours"].to_numpy(dtype=float)
        _curve_with_optimum(
            twin, interval, walls,
            {"color": PALETTE[7], "linestyle": "--", "marker": "s", "markersize": 3,
             "linewidth": 1.2, "label": "P95 wall time (right axis)", "gid": "wall-p95"},
            p95_optimal_hours, "P95 optimum",
            {"marker": "D", "markersize": 8, "color": PALETTE[6], "gid": "p95-optimum-on-curve"},
        )  # fmt: skip
        twin.set_ylabel("P95 wall-clock time (hours)", fontsize=LABEL_SIZE, color="#555555")
        twin.tick_params(labelsize=SMALL_SIZE + 0.5, colors="#555555")
        twin.spines["top"].set_visible(False)
        twin_handles, twin_names = twin.get_legend_handles_labels()
        handles, names = handles + twin_handles, names + twin_names
    axes.legend(
        handles,
        names,
        loc="upper left",
        bbox_to_anchor=(1.13 if has_wall else 1.01, 1.0),
        fontsize=SMALL_SIZE,
        frameon=False,
    )
    style_axes(axes)
    if has_wall:
        axes.spines["right"].set_visible(True)
    bottom = axes
    if strip is not None:
        strip.set_gid("optima")
        rows = np.arange(len(optima))[::-1]
        for row, (name, value, ci, marker, color) in zip(rows, optima, strict=True):
            value = float(value)
            text = f"{name}: {_format_hours(value)}"
            if ci is not None:
                low, high = (float(v) for v in ci)
                strip.errorbar([value], [row], xerr=[[value - low], [high - value]], fmt="none",
                               ecolor=color, elinewidth=2.2, capsize=3,
                               gid=f"ci95-of-{name}")  # fmt: skip
                text += f" (95% CI {_format_hours(low)} to {_format_hours(high)})"
            strip.plot([value], [row], linestyle="none", marker=marker,
                       markersize=12 if marker == "*" else 7, color=color,
                       markeredgecolor="white", label=text, gid=f"optimum-{name}")  # fmt: skip
            strip.annotate(text.split(": ", 1)[1], (high if ci is not None else value, row),
                           xytext=(8, 0), textcoords="offset points", va="center",
                           fontsize=SMALL_SIZE, color=color)  # fmt: skip
            axes.axvline(value, color=color, linestyle=":", linewidth=0.9, alpha=0.7)
        strip.set_yticks(rows, [name for name, *_ in optima])
        strip.set_ylim(-0.6, len(optima) - 0.4)
        strip.set_title("Optimal interval by method", fontsize=LABEL_SIZE, loc="left")
        style_axes(strip)
        strip.grid(False, axis="y")
        strip.tick_params(axis="y", labelsize=SMALL_SIZE)
        bottom = strip
    bottom.set_xlabel(
        "Checkpoint interval (hours of work between checkpoints)", fontsize=LABEL_SIZE
    )
    figure_title(figure, "Goodput against checkpoint interval", config_name)
    return figure


def sweep_curves(
    results: pd.DataFrame,
    x: str,
    metrics: list[str],
    config_name: str,
    hue: str | None = None,
    labels: Mapping[str, str] | None = None,
) -> Figure:
    """Metrics of a sweep against one swept parameter, one panel per metric.

    Parameters
    ----------
    results : pandas.DataFrame
        One row per sweep point: column ``x`` (the swept parameter), one column per
        metric, optionally ``<metric>_ci95_low`` and ``<metric>_ci95_high`` (drawn as a
        band) and the ``hue`` column (one line per value).
    x : str
        Column on the x-axis (log scale when its positive range spans more than 10x,
        e.g. cluster sizes from 1k to 100k GPUs).
    metrics : list of str
        Columns to plot, one panel each.
    config_name : str
        Name of the config or study, shown in the title.
    hue : str, optional
        Column whose values split the rows into separate lines.
    labels : mapping of str to str, optional
        Axis labels (with units) by column name, overriding the built-in ones. Without
        one, units are inferred from the name (``*_hours`` in hours, ``goodput`` as a
        fraction of wall time, ``interruptions*`` as counts).

    Returns
    -------
    matplotlib.figure.Figure
        The figure, with one panel per metric sharing the x-axis.
    """
    if not metrics:
        raise ValueError("metrics: name at least one column to plot")
    _require_columns(results, [x, *metrics, *([hue] if hue else [])], "results")
    if len(results) == 0:
        raise ValueError("results: no rows to plot")
    columns = 1 if len(metrics) <= 3 else 2
    rows = -(-len(metrics) // columns)
    figure = new_figure(6.5 * columns + (1.6 if hue else 0.0), 2.9 * rows + 0.6)
    grid = np.atleast_1d(figure.subplots(rows, columns, sharex=True, squeeze=False).ravel())
    groups: list[tuple[Any, pd.DataFrame]] = (
        list(results.groupby(hue, sort=True)) if hue else [(None, results)]
    )
    x_values = results[x].to_numpy(dtype=float)
    log_x = _spans_decades(x_values)
    for axes, metric in zip(grid, metrics, strict=False):
        low, high = f"{metric}_ci95_low", f"{metric}_ci95_high"
        has_ci = low in results.columns and high in results.columns
        for index, (value, group) in enumerate(groups):
            ordered = group.sort_values(x)
            color = PALETTE[index % len(PALETTE)]
            xs = ordered[x].to_numpy(dtype=float)
            ys = ordered[metric].to_numpy(dtype=float)
            name = str(value) if hue else metric
            axes.plot(xs, ys, color=color, marker="o", markersize=3.5, linewidth=1.6, label=name)
            if has_ci and xs.size < 2:
                # A band needs two points; one point gets an error bar.
                axes.errorbar(
                    xs,
                    ys,
                    yerr=[
                        ys - ordered[low].to_numpy(dtype=float),
                        ordered[high].to_numpy(dtype=float) - ys,
                    ],
                    fmt="none",
                    ecolor=color,
                    capsize=3,
                    gid=f"{metric}-ci95",
                )
            elif has_ci:
                axes.fill_between(
                    xs,
                    ordered[low].to_numpy(dtype=float),
                    ordered[high].to_numpy(dtype=float),
                    color=color,
                    alpha=0.18,
                    linewidth=0,
                    gid=f"{metric}-ci95",
                )
        if log_x:
            log_x_axis(axes, x_values)
        axes.set_ylabel(_axis_label(metric, labels), fontsize=LABEL_SIZE)
        axes.yaxis.set_major_formatter(FuncFormatter(plain_number))
        style_axes(axes)
    for axes in grid[len(metrics) :]:
        axes.set_visible(False)
    for index, axes in enumerate(grid[: len(metrics)]):
        if index + columns >= len(metrics):  # lowest visible panel of its column
            axes.set_xlabel(_axis_label(x, labels), fontsize=LABEL_SIZE)
            axes.tick_params(labelbottom=True)
    if hue:
        grid[0].legend(
            loc="upper left",
            bbox_to_anchor=(1.01, 1.0),
            fontsize=SMALL_SIZE,
            frameon=False,
            title=hue,
            title_fontsize=SMALL_SIZE,
        )
    figure_title(figure, f"Sweep over {x}", config_name)
    return figure


# --------------------------------------------------------------------------- files


def save_figure(
    figure: Figure,
    path_without_suffix: str | Path,
    formats: Sequence[str] = ("png", "svg"),
    dpi: float = 150,
) -> list[Path]:
    """Write a figure in each format, each file atomically (temporary file, then rename).

    Parameters
    ----------
    figure : matplotlib.figure.Figure
        The figure to render.
    path_without_suffix : str or Path
        Output path without its suffix; ``.<format>`` is appended (``out/cdf`` gives
        ``out/cdf.png`` and ``out/cdf.svg``). Missing directories are created.
    formats : sequence of str, default ("png", "svg")
        File formats, as matplotlib names them (``png``, ``svg``, ``pdf``, ...).
    dpi : float, default 150
        Resolution of raster formats, dots per inch.

    Returns
    -------
    list of Path
        The files written, in the order of ``formats``.

    Raises
    ------
    ValueError
        If no format is given or one is not supported; nothing is written then.
    """
    base = Path(path_without_suffix)
    names = [str(fmt).lower().lstrip(".") for fmt in formats]
    if not names:
        raise ValueError("formats: give at least one file format")
    supported = figure.canvas.get_supported_filetypes()
    unsupported = [fmt for fmt in names if fmt not in supported]
    if unsupported:
        raise ValueError(
            f"formats: unsupported {', '.join(map(repr, unsupported))} "
            f"(supported: {', '.join(sorted(supported))})"
        )
    written: list[Path] = []
    for fmt in names:
        target = base.with_name(f"{base.name}.{fmt}")
        # No creation date in vector formats, so the same figure gives the same bytes.
        metadata: dict[str, Any] | None = (
            {"Date": None} if fmt == "svg" else {"CreationDate": None} if fmt == "pdf" else None
        )

        def render(
            temporary: Path, fmt: str = fmt, metadata: dict[str, Any] | None = metadata
        ) -> None:
            # A fixed salt makes SVG element ids stable; the context restores rcParams.
            with mpl.rc_context({"svg.hashsalt": "relplan"}):
                figure.savefig(temporary, format=fmt, dpi=dpi, metadata=metadata)

        write_atomic(target, render)
        written.append(target)
    return written
