"""Figures of a fleet's run: where its GPU-hours are lost, job by job."""

from __future__ import annotations

from typing import TYPE_CHECKING

from matplotlib.axes import Axes
from matplotlib.figure import Figure

from relplan.output.figure_style import (
    LABEL_SIZE,
    PALETTE,
    SMALL_SIZE,
    axes_for,
    figure_title,
    label_bars,
    plain_number,
    style_axes,
)

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["gpu_hours_lost_by_fleet", "gpu_hours_lost_by_job"]


def gpu_hours_lost_by_job(jobs: pd.DataFrame, name: str, ax: Axes | None = None) -> Figure:
    """The mean GPU-hours each job of a fleet loses, with its share of the fleet's.

    Parameters
    ----------
    jobs : pandas.DataFrame
        :meth:`relplan.analysis.fleet_outcome.FleetOutcome.jobs_frame`: one row per job
        (its name the index), with ``gpus``, ``gpu_hours_lost`` and
        ``share_of_gpu_hours_lost``.
    name : str
        The fleet's name, in the title.
    ax : matplotlib.axes.Axes, optional
        Draw on these axes, in their figure (which is returned); by default a new figure.

    Returns
    -------
    matplotlib.figure.Figure
        One bar per job, the fleet's order from the top.

    Examples
    --------
    >>> import pandas as pd
    >>> jobs = pd.DataFrame({"gpus": [8192, 64], "gpu_hours_lost": [9e5, 20.0],
    ...                      "share_of_gpu_hours_lost": [0.99998, 0.00002]},
    ...                     index=pd.Index(["big", "small"], name="job"))
    >>> gpu_hours_lost_by_job(jobs, "demo").axes[0].get_xlabel()
    'GPU-hours lost per run (mean)'
    """
    figure, axes = axes_for(ax, 8.0, max(2.8, 1.5 + 0.38 * len(jobs)))
    style_axes(axes)
    rows = list(range(len(jobs)))[::-1]
    lost = jobs["gpu_hours_lost"].to_numpy(dtype=float)
    bars = axes.barh(rows, lost, color=PALETTE[0], height=0.6)
    label_bars(axes, bars, [f"{share:.1%} ({hours:,.0f})" for share, hours
                            in zip(jobs["share_of_gpu_hours_lost"], lost, strict=True)])
    labels = [f"{job} ({int(gpus):,} GPUs)" for job, gpus in zip(jobs.index, jobs["gpus"],
                                                                  strict=True)]  # fmt: skip
    axes.set_yticks(rows, labels, fontsize=SMALL_SIZE)
    axes.set_xlim(0.0, max(float(lost.max()), 1.0) * 1.3)
    axes.xaxis.set_major_formatter(plain_number)
    axes.set_xlabel("GPU-hours lost per run (mean)", fontsize=LABEL_SIZE)
    axes.grid(False, axis="y")
    figure_title(figure, "GPU-hours lost by job (share of the fleet's)", name)
    return figure


def gpu_hours_lost_by_fleet(rows: list[dict], name: str, ax: Axes | None = None) -> Figure:
    """Fleets side by side: each one's mean GPU-hours lost a run, and its P95.

    Parameters
    ----------
    rows : list of dict
        :func:`relplan.runs.fleet_compare.compare_fleets`'s ``scenarios``: each with
        ``scenario``, ``gpu_hours_lost`` and ``gpu_hours_lost_p95``.
    name : str
        What the comparison is of, in the title.
    ax : matplotlib.axes.Axes, optional
        Draw on these axes, in their figure (which is returned); by default a new figure.

    Returns
    -------
    matplotlib.figure.Figure
        One bar per fleet (the first on top), its P95 a marker.

    Examples
    --------
    >>> rows = [{"scenario": "own spares", "gpu_hours_lost": 6e5, "gpu_hours_lost_p95": 7e5},
    ...         {"scenario": "pooled", "gpu_hours_lost": 8e5, "gpu_hours_lost_p95": 1.7e6}]
    >>> gpu_hours_lost_by_fleet(rows, "demo").axes[0].get_xlabel()
    'GPU-hours lost per run (bar: mean; diamond: P95)'
    """
    figure, axes = axes_for(ax, 8.0, max(2.8, 1.5 + 0.5 * len(rows)))
    style_axes(axes)
    places = list(range(len(rows)))[::-1]
    lost = [float(row["gpu_hours_lost"]) for row in rows]
    tail = [float(row["gpu_hours_lost_p95"]) for row in rows]
    bars = axes.barh(places, lost, color=PALETTE[0], height=0.6)
    axes.scatter(tail, places, marker="D", color=PALETTE[1], zorder=3, label="P95")
    for bar, value in zip(bars, lost, strict=True):  # inside the bar: the P95 is beyond
        axes.annotate(f"{value:,.0f}", (bar.get_width(), bar.get_y() + bar.get_height() / 2),
                      xytext=(-4, 0), textcoords="offset points", va="center", ha="right",
                      fontsize=SMALL_SIZE, color="white")  # fmt: skip
    axes.set_yticks(places, [str(row["scenario"]) for row in rows], fontsize=SMALL_SIZE)
    axes.set_xlim(0.0, max([*lost, *tail, 1.0]) * 1.25)
    axes.xaxis.set_major_formatter(plain_number)
    axes.set_xlabel("GPU-hours lost per run (bar: mean; diamond: P95)", fontsize=LABEL_SIZE)
    axes.grid(False, axis="y")
    figure_title(figure, "GPU-hours lost by fleet", name)
    return figure
