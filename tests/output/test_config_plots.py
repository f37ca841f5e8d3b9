"""The figures of a config draw what their data say: bar lengths are the shares, units,
seconds and hours given, a switch tier short of ports is named in red, and nothing is
drawn for a class with no unit."""

from __future__ import annotations

import numpy as np

from relplan.output import config_plots


def _widths(axes) -> list[float]:
    return [float(patch.get_width()) for patch in axes.patches]


def test_the_failure_share_bars_are_the_shares_largest_on_top() -> None:
    modes = {"gpu": {"share": 0.6, "job_units": 512, "impact": "fatal",
                     "job_failures_per_hour": 0.006},
             "link_flap": {"share": 0.4, "job_units": 1024, "impact": "transient",
                           "job_failures_per_hour": 0.004}}  # fmt: skip
    axes = config_plots.interruption_share(modes, "demo").axes[0]
    assert _widths(axes) == [0.4, 0.6]  # bottom to top
    assert axes.get_yticklabels()[1].get_text() == "gpu (512 units, fatal)"
    assert any("one every 6.94 d" in text.get_text() for text in axes.texts)


def test_classes_with_no_unit_are_left_out_of_the_units() -> None:
    components = {"gpu": {"job_units": 512, "cluster_units": 544},
                  "leaf": {"job_units": 16, "cluster_units": 17},
                  "core": {"job_units": 0, "cluster_units": 0}}  # fmt: skip
    axes = config_plots.units_by_class(components, "demo").axes[0]
    assert sorted(_widths(axes)) == [16.0, 17.0, 512.0, 544.0]
    assert [tick.get_text() for tick in axes.get_yticklabels()] == ["gpu", "leaf"]
    assert axes.get_xscale() == "log"


def test_the_step_bars_are_each_dimensions_time_and_its_exposed_part() -> None:
    baseline = {"dimensions": {"data": {"time_s": 0.3, "exposed_s": 0.1},
                               "tensor": {"time_s": 0.0, "exposed_s": 0.0}},
                "compute_time_s": 1.0, "pipeline_bubble_s": 0.2, "step_time_s": 1.3}
    axes = config_plots.step_time_by_dimension(baseline, "demo").axes[0]
    widths = _widths(axes)
    assert widths == [1.0, 0.2, 0.3, 1.0, 0.2, 0.1]  # whole bars, then the exposed parts
    assert [tick.get_text() for tick in axes.get_yticklabels()][-1] == "data communication"


def test_a_tier_short_of_ports_is_named_in_red() -> None:
    tiers = [{"tier": "leaf", "switches": 17, "down_ports": 32, "up_ports": 40,
              "ports_available": 64},
             {"tier": "spine", "switches": 32, "down_ports": 17, "up_ports": 0,
              "ports_available": 64}]  # fmt: skip
    axes = config_plots.port_budget(tiers, "demo").axes[0]
    assert _widths(axes) == [32.0, 17.0, 40.0, 0.0]
    leaf, spine = axes.get_yticklabels()
    assert leaf.get_text().endswith("short by 8") and leaf.get_color() == "#C00000"
    assert spine.get_color() != "#C00000"
    assert list(axes.collections[0].get_offsets()[:, 0]) == [64.0, 64.0]


def test_the_catalog_bars_are_the_mtbf_hours_on_a_log_axis() -> None:
    entries = [{"component": "gpu", "mode": "gpu", "mtbf_hours": 1e5, "default": True,
                "year": 2024},
               {"component": "host", "mode": "node", "mtbf_hours": 3.7e3, "default": False,
                "year": 2025}]  # fmt: skip
    axes = config_plots.catalog_mtbf(entries).axes[0]
    assert _widths(axes) == [1e5, 3.7e3]
    assert axes.get_xscale() == "log"
    assert [tick.get_text() for tick in axes.get_yticklabels()] == ["gpu (2024)",
                                                                    "host: node (2025)"]


def test_the_compile_bars_are_the_seconds_and_cached_ones_are_marked() -> None:
    functions = [{"kind": "walk", "function": "walk_trial_slots", "features": ["spares"],
                  "compiled_now": True, "seconds": 14.5},
                 {"kind": "trace segments", "function": "segments_time", "features": [],
                  "compiled_now": False, "seconds": None}]  # fmt: skip
    figure = config_plots.compile_seconds(functions)
    axes = figure.axes[0]
    assert np.allclose(_widths(axes), [14.5, 0.0])
    assert [text.get_text() for text in axes.texts] == ["14.5 s", "compiled already"]
    assert "1 of 2 functions" in figure.get_suptitle()
