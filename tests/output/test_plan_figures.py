"""The plan's figures: frontier numbers that never overlap, money with its symbol, the
tornado's inputs in words."""

from __future__ import annotations

import itertools

import pytest

from relplan.output.plan_plots import frontier_figure, spread_labels, tornado_figure
from relplan.output.plan_text import input_words


def _frontier_result(points: list[tuple[float, float]]) -> dict:
    frontier = [{"options": [f"option {i}"], "hardware_cost": c, "objective": o,
                 "ci95": [o - 1.0, o + 1.0], "goodput": 0.9, "wall_hours": 10.0}
                for i, (c, o) in enumerate(points)]  # fmt: skip
    return {"plan": "p", "objective": "net_value", "budget": 5e6,
            "assumptions": {"currency": "$"}, "portfolios": frontier, "frontier": frontier,
            "best": frontier[-1]}


def test_frontier_numbers_never_overlap_however_close_the_points() -> None:
    """Ten frontier points, five of them nearly on top of each other at each end (as in
    the shipped plan, where spares dominate): the numbers' boxes, as drawn, are apart."""
    points = [(0.0, 0.0), (1e4, 1e5), (2e4, 2e5), (3e4, 3e5), (4e4, 4e5),
              (4e6, 3.9e8), (4.05e6, 3.93e8), (4.1e6, 3.95e8), (4.2e6, 3.96e8), (4.3e6, 4e8)]
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    figure = frontier_figure(_frontier_result(points))
    canvas = FigureCanvasAgg(figure)
    canvas.draw()
    renderer = canvas.get_renderer()
    axes = figure.axes[0]
    numbers = [t for t in axes.texts if t.get_text().isdigit()]
    assert sorted(int(t.get_text()) for t in numbers) == list(range(1, 11))
    from matplotlib.text import Text

    boxes = [Text.get_window_extent(t, renderer) for t in numbers]  # the text, not its line
    for a, b in itertools.combinations(boxes, 2):
        assert not a.overlaps(b)


def test_money_in_figures_carries_the_currency_symbol_as_text() -> None:
    figure = frontier_figure(_frontier_result([(0.0, 0.0), (1e6, 2e6)]))
    figure.draw_without_rendering()
    axes = figure.axes[0]
    ticks = [label.get_text() for label in axes.get_xticklabels()]
    assert any(text.startswith(("\\$", "-\\$")) for text in ticks)  # escaped: not math
    assert "($)" in axes.get_ylabel().replace("\\", "")


def test_spread_labels_keeps_the_spacing_and_the_order() -> None:
    targets = [5.0, 5.1, 5.2, 40.0, 41.0, 100.0]
    placed = spread_labels(targets, 10.0)
    ordered = sorted(placed)
    assert all(b - a >= 10.0 - 1e-9 for a, b in itertools.pairwise(ordered))
    assert sorted(range(6), key=lambda i: placed[i]) == sorted(range(6), key=lambda i: targets[i])
    assert placed[5] == 100.0  # far from the others: untouched


def test_tornado_inputs_are_named_in_words_with_their_units() -> None:
    assert input_words("failures.gpu.repair.mean", "24h", "120h") == (
        "GPU repair time (mean), 24h to 120h")
    assert input_words("failures.leaf.lifetime.afr", "2%", "10%") == (
        "leaf annual failure rate, 2% to 10%")
    result = {"plan": "p", "objective": "net_value", "assumptions": {"currency": "€"},
              "uncertainty": {"tornado": [
                  {"input": "failures.gpu.lifetime.mtbf", "low": "3y", "high": "8y",
                   "objective_low": 2e6, "objective_high": 1e6, "swing": 1e6}]}}
    figure = tornado_figure(result)
    labels = [t.get_text() for t in figure.axes[0].get_yticklabels()]
    assert labels == ["GPU mean time between failures, 3y to 8y"]
    ends = sorted(t.get_text() for t in figure.axes[0].texts)
    assert ends == ["3y: €2M", "8y: €1M"]


@pytest.mark.parametrize("objective", ["goodput", "wall_hours", "cost_per_useful_gpu_hour",
                                       "goodput_per_dollar", "gpu_hours_lost",
                                       "p95_wall_hours"])  # fmt: skip
def test_every_objective_draws(objective) -> None:
    result = _frontier_result([(0.0, 0.5), (1e6, 0.6)])
    result["objective"] = objective
    assert frontier_figure(result).axes[0].get_ylabel()
