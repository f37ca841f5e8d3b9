"""Figures of a redundancy plan: the frontier, the attribution and the tornado chart.

Pure functions of the dict :func:`relplan.runs.planner.run_plan` returns; each gives a
matplotlib Figure for :func:`relplan.output.plots.save_figure`.
"""

from __future__ import annotations

from typing import Any

from matplotlib.axes import Axes
from matplotlib.figure import Figure

from relplan.output.figure_style import axes_for, new_figure, style_axes
from relplan.output.plan_text import (
    MONEY_SHOWN,
    currency_of,
    input_words,
    objective_label,
    objective_text,
)
from relplan.units import format_money


def _name(options: list[str]) -> str:
    return " + ".join(options) if options else "base"


def _plain(text: str) -> str:
    """Text matplotlib shows as typed: a ``$`` (a currency) does not open math mode."""
    return text.replace("$", r"\$")


def spread_labels(targets: list[float], spacing: float) -> list[float]:
    """Positions for labels wanted at ``targets`` (points, on one axis) that keep at least
    ``spacing`` apart, each as near its target as that allows, in the targets' order.

    Examples
    --------
    >>> spread_labels([0.0, 1.0, 2.0, 50.0], 10.0)
    [-9.0, 1.0, 11.0, 50.0]
    """
    order = sorted(range(len(targets)), key=lambda i: targets[i])
    # clusters of labels too close: each cluster centred on its targets' mean
    clusters: list[list[int]] = []
    for index in order:
        clusters.append([index])
        while len(clusters) > 1:
            lower, upper = clusters[-2], clusters[-1]
            low_top = _cluster_start(lower, targets, spacing) + spacing * (len(lower) - 1)
            if _cluster_start(upper, targets, spacing) - low_top >= spacing - 1e-9:
                break
            clusters[-2:] = [lower + upper]
    placed = [0.0] * len(targets)
    for cluster in clusters:
        start = _cluster_start(cluster, targets, spacing)
        for rank, index in enumerate(cluster):
            placed[index] = start + rank * spacing
    return placed


def _cluster_start(cluster: list[int], targets: list[float], spacing: float) -> float:
    mean = sum(targets[i] for i in cluster) / len(cluster)
    return mean - spacing * (len(cluster) - 1) / 2.0


def frontier_figure(result: dict[str, Any], ax: Axes | None = None) -> Figure:
    """Hardware cost against the objective: every portfolio evaluated (grey), the Pareto
    frontier with its 95% CIs (blue), the budget (dashed) and the best portfolio (star).

    On a new figure the frontier's points are numbered and a key beside the chart names
    them; on the ``ax=`` given (in the caller's figure, which is returned) the chart
    alone is drawn, with its legend.

    Examples
    --------
    >>> result = {"plan": "p", "objective": "net_value", "budget": 2.0,
    ...           "portfolios": [{"options": [], "hardware_cost": 0.0, "objective": 0.0}],
    ...           "frontier": [{"options": [], "hardware_cost": 0.0, "objective": 0.0,
    ...                         "ci95": [0.0, 0.0]}],
    ...           "best": {"options": [], "hardware_cost": 0.0, "objective": 0.0}}
    >>> len(frontier_figure(result).axes)  # the chart and the frontier's key
    2
    """
    if ax is None:
        figure = new_figure(11.0, 5.0)
        axes, key = figure.subplots(1, 2, width_ratios=[3.0, 1.4])
    else:
        figure, axes, key = ax.figure, ax, None
    style_axes(axes)
    currency = currency_of(result)
    every = result["portfolios"]
    axes.scatter([p["hardware_cost"] for p in every], [p["objective"] for p in every],
                 s=14, color="#b0b0b0", label="portfolios evaluated", zorder=2)  # fmt: skip
    frontier = result["frontier"]
    costs = [p["hardware_cost"] for p in frontier]
    values = [p["objective"] for p in frontier]
    errors = [[v - p["ci95"][0] for v, p in zip(values, frontier, strict=True)],
              [p["ci95"][1] - v for v, p in zip(values, frontier, strict=True)]]  # fmt: skip
    axes.errorbar(costs, values, yerr=errors, color="#1f5fa8", marker="o", markersize=5,
                  linewidth=1.5, capsize=3, label="Pareto frontier (95% CI)",
                  zorder=3)  # fmt: skip
    best = result["best"]
    axes.scatter([best["hardware_cost"]], [best["objective"]], marker="*", s=260,
                 color="#d1495b", edgecolor="black", linewidth=0.6, zorder=4,
                 label=_plain(f"best: {_name(best['options'])}"))  # fmt: skip
    if result.get("budget") is not None:
        axes.axvline(result["budget"], color="#555555", linestyle="--", linewidth=1.0,
                     label=_plain(f"spend limit {format_money(result['budget'], currency)}"))
    axes.xaxis.set_major_formatter(lambda x, _pos: _plain(format_money(x, currency)))
    if result["objective"] in MONEY_SHOWN:
        axes.yaxis.set_major_formatter(lambda y, _pos: _plain(format_money(y, currency)))
    axes.set_xlabel(_plain(f"Hardware cost against the base ({currency or 'currency'})"))
    axes.set_ylabel(_plain(objective_label(result)))
    figure.suptitle(f"Redundancy portfolios — {result['plan']}", fontweight="bold")
    if key is None:
        axes.legend(fontsize=8, loc="best", framealpha=0.9)
        return figure
    lines = []
    for number, point in enumerate(frontier, start=1):
        goodput = point.get("goodput")
        lines.append(f"{number}  {_name(point['options'])}\n"
                     f"    {format_money(point['hardware_cost'], currency)}: "
                     f"{objective_text(result, point['objective'])}"
                     + (f", goodput {goodput:.3f}" if goodput is not None else ""))
    key.axis("off")
    key.set_title("The frontier, by cost", fontsize=9, loc="left")
    key.text(0.0, 1.0, _plain("\n".join(lines)), va="top", ha="left", fontsize=7.5,
             family="monospace", transform=key.transAxes, wrap=True)  # fmt: skip
    handles, names = axes.get_legend_handles_labels()
    key.legend(handles, names, fontsize=8, loc="lower left", frameon=False)
    _number_frontier(figure, axes, costs, values)
    return figure


LABEL_FONT_POINTS = 7.5
"""Font size of the frontier's numbers, points."""


def _number_frontier(figure: Figure, axes: Any, costs: list[float],
                     values: list[float]) -> None:  # fmt: skip
    """Number the frontier's points, each label at least a line apart from the others
    (moved up or down as little as that needs, with a leader line to its point)."""
    if not costs:
        return
    figure.draw_without_rendering()  # the layout, and so where each point lands
    to_points = 72.0 / figure.dpi
    pixels = axes.transData.transform(list(zip(costs, values, strict=True)))
    wanted = [float(y) * to_points - 8.0 for _, y in pixels]
    placed = spread_labels(wanted, LABEL_FONT_POINTS * 1.5)
    for number, ((x, y), (_, pixel_y), label_y) in enumerate(
            zip(zip(costs, values, strict=True), pixels, placed, strict=True), start=1):
        offset = label_y - float(pixel_y) * to_points
        note = axes.annotate(
            str(number), (x, y), textcoords="offset points", xytext=(9, offset),
            fontsize=LABEL_FONT_POINTS, color="#1f5fa8", fontweight="bold", va="center",
            ha="left", annotation_clip=False,
            arrowprops={"arrowstyle": "-", "color": "#1f5fa8", "linewidth": 0.5,
                        "shrinkA": 0, "shrinkB": 3},
        )  # fmt: skip
        note.set_in_layout(False)


def attribution_figure(result: dict[str, Any], ax: Axes | None = None) -> Figure:
    """Each option's Shapley value inside the best portfolio; the bars add up to its gain
    (on the ``ax=`` given, in the caller's figure, which is returned; else a new figure).

    Examples
    --------
    >>> figure = attribution_figure({"plan": "p", "objective": "net_value",
    ...                              "attribution": {"a": 2.0, "b": 1.0}})
    >>> figure.axes[0].get_title().endswith("gain: 3")
    True
    """
    figure, axes = axes_for(ax, 8.0, 1.2 + 0.45 * max(len(result["attribution"]), 1))
    style_axes(axes)
    items = sorted(result["attribution"].items(), key=lambda item: item[1])
    labels = [label for label, _ in items]
    values = [value for _, value in items]
    colors = ["#2e8b57" if v >= 0 else "#d1495b" for v in values]
    axes.barh(range(len(items)), values, color=colors, height=0.6)
    axes.set_yticks(range(len(items)), [_plain(label) for label in labels], fontsize=8)
    for index, value in enumerate(values):
        axes.annotate(_plain(objective_text(result, value)), (value, index),
                      textcoords="offset points",
                      xytext=(4 if value >= 0 else -4, 0), va="center",
                      ha="left" if value >= 0 else "right", fontsize=8)  # fmt: skip
    if result["objective"] in MONEY_SHOWN:
        axes.xaxis.set_major_formatter(
            lambda x, _pos: _plain(format_money(x, currency_of(result))))
    axes.set_xlabel(_plain(f"Shapley value ({objective_label(result)})"))
    axes.set_title(_plain("Adds up to the best portfolio's gain: "
                          f"{objective_text(result, sum(values))}"), fontsize=9)
    figure.suptitle(f"What each option is worth — {result['plan']}", fontweight="bold")
    return figure


def tornado_figure(result: dict[str, Any], ax: Axes | None = None) -> Figure:
    """What decides the plan: the recommended portfolio's lead over the runner-up at
    each uncertain input's low and high end (the others at their midpoints), the widest
    swing on top; left of zero the runner-up wins. Without a runner-up, the recommended
    portfolio's own objective at each end. On the ``ax=`` given (in the caller's figure,
    which is returned), else on a new figure.

    Examples
    --------
    >>> result = {"plan": "p", "objective": "net_value", "runner_up": {"options": ["b"]},
    ...           "uncertainty": {"tornado": [
    ...     {"input": "x", "low": "1", "high": "2", "objective_low": 1.0,
    ...      "objective_high": 3.0, "swing": 2.0, "lead_low": -1.0, "lead_high": 2.0,
    ...      "lead_swing": 3.0}]}}
    >>> len(tornado_figure(result).axes)
    1
    """
    rows = list(reversed(result["uncertainty"]["tornado"]))
    by_lead = bool(rows) and all(row.get("lead_low") is not None for row in rows)
    low_key, high_key = ("lead_low", "lead_high") if by_lead else ("objective_low",
                                                                    "objective_high")
    figure, axes = axes_for(ax, 8.0, 1.6 + 0.5 * max(len(rows), 1))
    style_axes(axes)
    for index, row in enumerate(rows):
        low, high = row[low_key], row[high_key]
        axes.barh(index, high - low, left=low, height=0.55,
                  color="#1f5fa8" if high >= low else "#d1495b")  # fmt: skip
        for text, value, other in ((row["low"], low, high), (row["high"], high, low)):
            left = value <= other
            axes.annotate(_plain(f"{text}: {objective_text(result, value)}"), (value, index),
                          textcoords="offset points",
                          xytext=(-4 if left else 4, 0), ha="right" if left else "left",
                          va="center", fontsize=7)  # fmt: skip
    axes.set_yticks(range(len(rows)),
                    [_plain(input_words(row["input"], row["low"], row["high"]))
                     for row in rows],
                    fontsize=8)  # fmt: skip
    if result["objective"] in MONEY_SHOWN:
        axes.xaxis.set_major_formatter(
            lambda x, _pos: _plain(format_money(x, currency_of(result))))
    ends = [value for row in rows for value in (row[low_key], row[high_key])]
    if by_lead:
        rival = _name((result.get("runner_up") or {}).get("options", []))
        axes.axvline(0.0, color="#555555", linewidth=1.0, linestyle="--")
        axes.set_xlabel(_plain(f"{objective_label(result)}: the best portfolio's lead over "
                               f"the runner-up,\n{rival}"), fontsize=8)
        axes.set_title("each input from low to high, the others at midpoints;\nleft of "
                       "the dashed line the runner-up wins; blue: the lead grows, red: "
                       "shrinks", fontsize=8)  # fmt: skip
        ends.append(0.0)
    else:
        axes.set_xlabel(_plain(objective_label(result) + " of the best portfolio"))
        # two lines: beside long input names, one line ran past the figure's right edge
        axes.set_title("each input from low to high, the others at midpoints;\nblue: the "
                       "objective rises with it, red: falls", fontsize=8)
    if ends:
        span = (max(ends) - min(ends)) or abs(max(ends)) or 1.0
        axes.set_xlim(min(ends) - 0.3 * span, max(ends) + 0.3 * span)
    figure.suptitle(f"Which input moves the decision most — {result['plan']}"
                    if by_lead else f"Which input moves the answer most — {result['plan']}",
                    fontweight="bold")  # fmt: skip
    return figure
