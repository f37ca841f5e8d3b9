"""Figures of a fleet's run: where its GPU-hours are lost, job by job, and how full its
shared pool of spares runs over the wall clock."""

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

__all__ = ["gpu_hours_lost_by_fleet", "gpu_hours_lost_by_job", "spare_pool_over_time"]


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


def spare_pool_over_time(pool: pd.DataFrame, spares: int, name: str,
                         ax: Axes | None = None) -> Figure:  # fmt: skip
    """The shared pool's spares away in repair over the wall clock: the mean over the
    trials still running, with their P5-P95 band, against the pool's size.

    Parameters
    ----------
    pool : pandas.DataFrame
        :meth:`relplan.analysis.fleet_outcome.FleetOutcome.pool_frame`: one row per bin,
        with ``start_hours``, ``away_mean``, ``away_p5`` and ``away_p95``.
    spares : int
        The pool's spare servers (``[fleet] spares``): a line, where none is left free.
    name : str
        The fleet's name, in the title.
    ax : matplotlib.axes.Axes, optional
        Draw on these axes, in their figure (which is returned); by default a new figure.

    Returns
    -------
    matplotlib.figure.Figure
        Spares away against days since the start.

    Examples
    --------
    >>> import pandas as pd
    >>> pool = pd.DataFrame({"start_hours": [0.0, 24.0, 48.0], "away_mean": [1.0, 2.5, 3.0],
    ...                      "away_p5": [0.0, 1.0, 2.0], "away_p95": [2.0, 4.0, 4.0]})
    >>> spare_pool_over_time(pool, 4, "demo").axes[0].get_ylabel()
    'spares away in repair'
    """
    figure, axes = axes_for(ax, 8.0, 4.2)
    style_axes(axes)
    days = pool["start_hours"].to_numpy(dtype=float) / 24.0
    axes.fill_between(days, pool["away_p5"], pool["away_p95"], step="post", alpha=0.25,
                      color=PALETTE[0], linewidth=0, label="P5-P95 of the trials")
    axes.step(days, pool["away_mean"], where="post", color=PALETTE[0], label="mean")
    axes.axhline(spares, color=PALETTE[1], linestyle="--",
                 label=f"the pool: {spares:,} spares (none free above)")  # fmt: skip
    axes.set_ylim(0.0, spares * 1.3 + 0.5)  # room for the legend above the line
    axes.set_xlim(0.0, max(float(days[-1]) if len(days) else 1.0, 1.0))
    axes.set_xlabel("days since the start", fontsize=LABEL_SIZE)
    axes.set_ylabel("spares away in repair", fontsize=LABEL_SIZE)
    axes.legend(fontsize=SMALL_SIZE, loc="upper center", ncol=3, frameon=False)
    figure_title(figure, "The shared pool of spares over the run", name)
    return figure
