"""The figures of field data draw what their data say: the Kaplan-Meier steps of the
sample (computed here by hand) with a tick at each censored unit, each family's survival
curve, the observed rates against the config's, and the replayed goodput with its best."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from relplan.calibrate.lifetimes import fit_lifetimes, lifetime_sample
from relplan.output.calibration_plots import fitted_survival, observed_rates, replayed_goodput
from relplan.units import HOURS_PER_YEAR

HOURS = np.array([1.0, 2.0, 2.0, 3.0, 4.0, 6.0, 7.0, 9.0])
FAILED = np.array([True, False, True, True, False, True, False, True])


def _hand_kaplan_meier(times: list[float]) -> list[float]:
    """S(t) by hand: the product, over the failure times up to t, of the share of those
    at risk that survive (a unit censored at a failure time is still at risk)."""
    values = []
    for t in times:
        survival = 1.0
        for s in sorted(set(HOURS[FAILED])):
            if s <= t:
                survival *= 1.0 - ((HOURS == s) & FAILED).sum() / (HOURS >= s).sum()
        values.append(float(survival))
    return values


def test_the_survival_figure_draws_the_kaplan_meier_steps_and_censoring_ticks() -> None:
    report = fit_lifetimes(lifetime_sample(HOURS, FAILED))
    figure = Figure()
    axes = figure.add_subplot()
    fitted_survival({"": report}, "demo", ax=axes)
    steps, ticks, *families = axes.get_lines()
    failure_times = sorted(set(HOURS[FAILED]))
    assert list(steps.get_xdata()[1:-1]) == failure_times
    assert list(steps.get_ydata()[:-1]) == [1.0, *_hand_kaplan_meier(failure_times)]
    censored = sorted(HOURS[~FAILED])
    assert list(ticks.get_xdata()) == censored
    assert list(ticks.get_ydata()) == _hand_kaplan_meier(censored)
    assert len(families) == len(report.fits) == 3
    for line, fit in zip(families, report.fits.values(), strict=True):
        grid = line.get_xdata()
        assert np.allclose(line.get_ydata(), 1.0 - fit.distribution.cdf(grid))
    legend = [text.get_text() for text in axes.get_legend().get_texts()]
    assert sum("chosen" in text for text in legend) == 1
    assert legend[-1].startswith("censored")


def test_a_grouped_fit_draws_each_groups_steps_and_chosen_family() -> None:
    one = fit_lifetimes(lifetime_sample(HOURS, FAILED))
    other = fit_lifetimes(lifetime_sample(HOURS * 3.0, np.ones(HOURS.size, dtype=bool)))
    axes = fitted_survival({"a": one, "b": other}, "demo").axes[0]
    labels = [line.get_label() for line in axes.get_lines()]
    assert labels.count("a: Kaplan-Meier (8 units)") == 1
    assert f"b: {other.best}" in labels and f"a: {one.best}" in labels
    legend = [text.get_text() for text in axes.get_legend().get_texts()]
    assert legend[-1] == "censored: left still working"  # group a has censored units
    alone = fitted_survival({"b": other}, "demo").axes[0].get_legend().get_texts()
    assert not any("censored" in text.get_text() for text in alone)  # b has none


def test_observed_rates_sit_at_their_values_and_the_configs_at_its_mtbf() -> None:
    categories = {
        "gpu": {"count": 4, "rate_per_unit_year": 0.08, "rate_per_unit_year_ci95": [0.02, 0.2],
                "config_mtbf_hours": 87660.0},
        "nic": {"count": 0, "rate_per_unit_year": 0.0,
                "rate_per_unit_year_ci95": [0.0, 0.005], "config_mtbf_hours": None},
    }
    axes = observed_rates(categories, "demo").axes[0]
    config = [line for line in axes.get_lines() if line.get_marker() == "D"]
    assert len(config) == 1 and config[0].get_xdata()[0] == HOURS_PER_YEAR / 87660.0
    bound = [line for line in axes.get_lines() if line.get_marker() == "<"]
    assert len(bound) == 1 and bound[0].get_xdata()[0] == 0.005
    assert axes.get_xscale() == "log"
    labels = [tick.get_text() for tick in axes.get_yticklabels()]
    assert labels == ["gpu (4 failures)", "nic (0 failures)"]


def test_the_replayed_goodput_is_sorted_and_stars_the_best() -> None:
    intervals = [{"interval_hours": hours, "goodput": {"mean": mean, "ci95": [mean - 0.01,
                                                                             mean + 0.01]}}
                 for hours, mean in ((4.0, 0.95), (0.25, 0.90), (1.0, 0.97))]  # fmt: skip
    axes = replayed_goodput(intervals, "demo").axes[0]
    mean_line = next(line for line in axes.get_lines() if line.get_marker() == "o")
    assert list(mean_line.get_xdata()) == [0.25, 1.0, 4.0]
    assert list(mean_line.get_ydata()) == [0.90, 0.97, 0.95]
    star = next(line for line in axes.get_lines() if line.get_marker() == "*")
    assert (star.get_xdata()[0], star.get_ydata()[0]) == (1.0, 0.97)
    assert [tick.get_text() for tick in axes.get_xticklabels()] == ["0.25", "1", "4"]
