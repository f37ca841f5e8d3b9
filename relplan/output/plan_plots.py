"""Figures of a redundancy plan: the frontier, the attribution and the tornado chart.

Pure functions of the dict :func:`relplan.analysis.plan.run_plan` returns; each gives a
matplotlib Figure for :func:`relplan.output.plots.save_figure`.
"""

from __future__ import annotations

from typing import Any

from matplotlib.figure import Figure

from relplan.output.plots import new_figure, style_axes
from relplan.units import format_money

OBJECTIVE_LABELS = {
    "net_value": "Net value against the base (currency)",
    "gpu_hours_lost": "GPU-hours lost (mean)",
    "p95_wall_hours": "Wall time, 95th percentile (hours)",
}
"""The axis label of each plan objective."""


def _name(options: list[str]) -> str:
    return " + ".join(options) if options else "base"


def frontier_figure(result: dict[str, Any]) -> Figure:
    """Hardware cost against the objective: every portfolio evaluated (grey), the Pareto
    frontier with its 95% CIs (blue), the budget (dashed) and the best portfolio (star).

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
    figure = new_figure(11.0, 5.0)
    axes, key = figure.subplots(1, 2, width_ratios=[3.0, 1.4])
    style_axes(axes)
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
                 label=f"best: {_name(best['options'])}")  # fmt: skip
    if result.get("budget") is not None:
        axes.axvline(result["budget"], color="#555555", linestyle="--", linewidth=1.0,
                     label=f"budget {format_money(result['budget'])}")  # fmt: skip
    lines = []
    for number, point in enumerate(frontier, start=1):
        axes.annotate(str(number), (point["hardware_cost"], point["objective"]),
                      textcoords="offset points", xytext=(5, -11), fontsize=7,
                      color="#1f5fa8", fontweight="bold")  # fmt: skip
        lines.append(f"{number}  {_name(point['options'])}\n"
                     f"    {format_money(point['hardware_cost'])}: "
                     f"{format_money(point['objective'])}")
    key.axis("off")
    key.set_title("The frontier, by cost", fontsize=9, loc="left")
    key.text(0.0, 1.0, "\n".join(lines), va="top", ha="left", fontsize=7.5,
             family="monospace", transform=key.transAxes, wrap=True)  # fmt: skip
    axes.xaxis.set_major_formatter(lambda x, _pos: format_money(x))
    axes.yaxis.set_major_formatter(lambda y, _pos: format_money(y))
    axes.set_xlabel("Hardware cost against the base (currency)")
    axes.set_ylabel(OBJECTIVE_LABELS[result["objective"]])
    axes.legend(fontsize=8, loc="best")
    figure.suptitle(f"Redundancy portfolios — {result['plan']}", fontweight="bold")
    return figure


def attribution_figure(result: dict[str, Any]) -> Figure:
    """Each option's Shapley value inside the best portfolio; the bars add up to its gain.

    Examples
    --------
    >>> figure = attribution_figure({"plan": "p", "objective": "net_value",
    ...                              "attribution": {"a": 2.0, "b": 1.0}})
    >>> figure.axes[0].get_title().endswith("gain: 3")
    True
    """
    figure = new_figure(8.0, 1.2 + 0.45 * max(len(result["attribution"]), 1))
    axes = figure.add_subplot()
    style_axes(axes)
    items = sorted(result["attribution"].items(), key=lambda item: item[1])
    labels = [label for label, _ in items]
    values = [value for _, value in items]
    colors = ["#2e8b57" if v >= 0 else "#d1495b" for v in values]
    axes.barh(range(len(items)), values, color=colors, height=0.6)
    axes.set_yticks(range(len(items)), labels, fontsize=8)
    for index, value in enumerate(values):
        axes.annotate(format_money(value), (value, index), textcoords="offset points",
                      xytext=(4 if value >= 0 else -4, 0), va="center",
                      ha="left" if value >= 0 else "right", fontsize=8)  # fmt: skip
    axes.xaxis.set_major_formatter(lambda x, _pos: format_money(x))
    axes.set_xlabel(f"Shapley value ({OBJECTIVE_LABELS[result['objective']].split(' (')[0]})")
    axes.set_title(f"Adds up to the best portfolio's gain: {format_money(sum(values))}", fontsize=9)
    figure.suptitle(f"What each option is worth — {result['plan']}", fontweight="bold")
    return figure


def tornado_figure(result: dict[str, Any]) -> Figure:
    """The recommended portfolio's objective at each uncertain input's low and high end
    (the others at their midpoints), the widest swing on top.

    Examples
    --------
    >>> result = {"plan": "p", "objective": "net_value", "uncertainty": {"tornado": [
    ...     {"input": "x", "low": "1", "high": "2", "objective_low": 1.0,
    ...      "objective_high": 3.0, "swing": 2.0}]}}
    >>> len(tornado_figure(result).axes)
    1
    """
    rows = list(reversed(result["uncertainty"]["tornado"]))
    figure = new_figure(8.0, 1.4 + 0.5 * max(len(rows), 1))
    axes = figure.add_subplot()
    style_axes(axes)
    for index, row in enumerate(rows):
        low, high = row["objective_low"], row["objective_high"]
        axes.barh(index, high - low, left=low, height=0.55,
                  color="#1f5fa8" if high >= low else "#d1495b")  # fmt: skip
        for text, value, other in ((row["low"], low, high), (row["high"], high, low)):
            left = value <= other
            axes.annotate(str(text), (value, index), textcoords="offset points",
                          xytext=(-4 if left else 4, 0), ha="right" if left else "left",
                          va="center", fontsize=7)  # fmt: skip
    axes.set_yticks(range(len(rows)), [row["input"] for row in rows], fontsize=8)
    axes.xaxis.set_major_formatter(lambda x, _pos: format_money(x))
    axes.set_xlabel(OBJECTIVE_LABELS[result["objective"]] + " of the best portfolio")
    axes.set_title("each input from low to high, the others at midpoints; blue: the "
                   "objective rises with it, red: falls", fontsize=8)
    ends = [value for row in rows for value in (row["objective_low"], row["objective_high"])]
    if ends:
        span = (max(ends) - min(ends)) or abs(max(ends)) or 1.0
        axes.set_xlim(min(ends) - 0.12 * span, max(ends) + 0.12 * span)
    figure.suptitle(f"Which input moves the answer most — {result['plan']}",
                    fontweight="bold")  # fmt: skip
    return figure
