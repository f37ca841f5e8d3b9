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

__all__ = ["gpu_hours_lost_by_job"]


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
