"""relplan's look for matplotlib figures: one home for the palette, the font sizes, the
figure and axes every figure starts from, and the tick and label helpers the figures of
every domain share (:mod:`relplan.output.plots`, :mod:`relplan.output.plan_plots`,
:mod:`relplan.output.calibration_plots`, :mod:`relplan.output.config_plots`).

Figures are built with the object API (``Figure()``): never registered with pyplot, never
leaked.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

__all__ = [
    "GRID_ALPHA",
    "LABEL_SIZE",
    "PALETTE",
    "SMALL_SIZE",
    "TITLE_SIZE",
    "axes_for",
    "figure_title",
    "log_x_axis",
    "new_figure",
    "plain_number",
    "style_axes",
    "wrap_label",
]

TITLE_SIZE = 12
"""Font size of a figure's title, points."""

LABEL_SIZE = 10
"""Font size of axis labels, points."""

SMALL_SIZE = 8.5
"""Font size of legends, notes and tick labels (plus half a point), points."""

GRID_ALPHA = 0.3
"""Opacity of the grid drawn below the data."""

PALETTE: tuple[str, ...] = (
    "#0072B2",  # blue
    "#D55E00",  # vermillion
    "#009E73",  # bluish green
    "#CC79A7",  # reddish purple
    "#E69F00",  # orange
    "#56B4E9",  # sky blue
    "#000000",  # black
    "#999999",  # grey
)
"""Colour-blind-safe line palette (Okabe & Ito), used in this order for series."""


def new_figure(width: float, height: float) -> Figure:
    """A figure of ``width`` x ``height`` inches that belongs to no pyplot manager;
    constrained layout keeps it tight.

    Examples
    --------
    >>> new_figure(4.0, 3.0).get_size_inches().tolist()
    [4.0, 3.0]
    """
    return Figure(figsize=(width, height), layout="constrained")


def axes_for(ax: Axes | None, width: float, height: float) -> tuple[Figure, Axes]:
    """The axes a plot draws on: ``ax`` when given (in the caller's figure), else the one
    axes of a new ``width`` x ``height`` inch figure.

    Examples
    --------
    >>> figure, axes = axes_for(None, 4.0, 3.0)
    >>> axes_for(axes, 9.0, 9.0) == (figure, axes)
    True
    """
    if ax is not None:
        return ax.figure, ax
    figure = new_figure(width, height)
    return figure, figure.add_subplot()


def style_axes(axes: Axes) -> None:
    """relplan's look for one axes: a light grid below the data, no top or right spine."""
    axes.grid(True, which="major", alpha=GRID_ALPHA, linewidth=0.6)
    axes.set_axisbelow(True)
    axes.tick_params(labelsize=SMALL_SIZE + 0.5)
    for side in ("top", "right"):
        axes.spines[side].set_visible(False)


def label_bars(axes: Axes, bars: Any, texts: Sequence[str]) -> None:
    """A label just right of each horizontal bar (``bars`` as ``Axes.barh`` returns them).

    Examples
    --------
    >>> figure, axes = axes_for(None, 4.0, 3.0)
    >>> label_bars(axes, axes.barh([0, 1], [2.0, 3.0]), ["2 h", "3 h"])
    >>> [text.get_text() for text in axes.texts]
    ['2 h', '3 h']
    """
    for bar, text in zip(bars, texts, strict=True):
        axes.annotate(text, (bar.get_x() + bar.get_width(), bar.get_y() + bar.get_height() / 2),
                      xytext=(4, 0), textcoords="offset points", va="center", ha="left",
                      fontsize=SMALL_SIZE)  # fmt: skip


def figure_title(figure: Figure, what: str, config_name: str) -> None:
    """The figure's bold title: what it shows, then the config (or study) it shows it of.

    Examples
    --------
    >>> figure = new_figure(4.0, 3.0)
    >>> figure_title(figure, "Goodput", "small")
    >>> figure.get_suptitle()
    'Goodput — small'
    """
    figure.suptitle(f"{what} — {config_name}", fontsize=TITLE_SIZE, fontweight="bold")


def plain_number(value: float, _position: float | None = None) -> str:
    """Tick text without scientific notation: 0.25, 2, 10,000.

    Examples
    --------
    >>> plain_number(0.25), plain_number(10000.0), plain_number(0.0)
    ('0.25', '10,000', '0')
    """
    if value == 0 or not np.isfinite(value):
        return "0" if value == 0 else ""
    if abs(value) >= 1 and float(value).is_integer():
        return f"{value:,.0f}"
    return f"{value:.3g}"


def log_x_axis(axes: Axes, values: np.ndarray) -> None:
    """Log x-axis with plain tick labels (1, 2, 5 per decade when there are few decades)."""
    axes.set_xscale("log")
    positive = values[np.isfinite(values) & (values > 0)]
    decades = np.log10(positive.max() / positive.min()) if positive.size else 0.0
    subs = (1.0, 2.0, 5.0) if decades <= 3 else (1.0,)
    axes.xaxis.set_major_locator(LogLocator(base=10.0, subs=subs))
    axes.xaxis.set_major_formatter(FuncFormatter(plain_number))
    axes.xaxis.set_minor_formatter(NullFormatter())


def wrap_label(label: str, width: int) -> str:
    """Wrap a tick label between words, after ``", "``, never inside a word or number.

    Examples
    --------
    >>> print(wrap_label("gpus=1024, spares=6, servers=134", 12))
    gpus=1024,
    spares=6,
    servers=134
    """
    parts = [textwrap.fill(part, width=width, break_long_words=False, break_on_hyphens=False)
             for part in str(label).split(", ")]  # fmt: skip
    if len(parts) > 1 and len(str(label)) > width:
        return ",\n".join(parts)
    return textwrap.fill(str(label), width=width, break_long_words=False, break_on_hyphens=False)
