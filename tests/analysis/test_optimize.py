"""Young, Daly and the closed-form expected wall time, against Daly's published numbers."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
from scipy import optimize

from relplan.analysis.optimize import optimize_interval, optimize_tiers, parabola_vertex
from relplan.sim import distributions
from relplan.sim.closed_forms import (
    checkpoint_count,
    daly_interval,
    effective_write_hours,
    exact_interval,
    expected_wall_hours,
    segment_wall_hours,
    young_interval,
)
from relplan.sim.engine import simulate
from tests.conftest import MINUTE, make_model


def test_young_is_sqrt_two_delta_m() -> None:
    assert young_interval(5 * MINUTE, 24.0) / MINUTE == pytest.approx(120.0)
    assert young_interval(0.5, 1.0) == pytest.approx(1.0)


def test_daly_long_write_branch() -> None:
    assert daly_interval(5.0, 2.0) == 2.0


@pytest.mark.parametrize(("write", "mtbf"), [(5 * MINUTE, 24.0), (5 * MINUTE, 6.0), (0.1, 1.0)])
def test_lambert_interval_minimises_the_cost_per_unit_of_work(write: float, mtbf: float) -> None:
    def cost(tau: float) -> float:
        return segment_wall_hours(tau + write, mtbf, 0.0) / tau

    numeric = optimize.minimize_scalar(
        cost, bounds=(1e-4, 10 * mtbf), method="bounded", options={"xatol": 1e-10}
    ).x
    assert exact_interval(write, mtbf) == pytest.approx(numeric, rel=1e-5)




def test_no_failures_means_work_plus_checkpoints() -> None:
    assert checkpoint_count(10.0, 3.0) == 3
    assert checkpoint_count(9.0, 3.0) == 2
    assert checkpoint_count(2.0, 3.0) == 0
    assert expected_wall_hours(10.0, 3.0, 0.5, math.inf, 1.0) == pytest.approx(11.5)
    # with a huge MTBF the closed form tends to the failure-free time
    assert expected_wall_hours(10.0, 3.0, 0.5, 1e12, 1.0, 5.0) == pytest.approx(11.5, rel=1e-9)


# -- the Monte Carlo optimiser ------------------------------------------------------------


def _closed_form_optimum(grid, work, write, mtbf, restart, downtime) -> float:
    """The interval minimising the whole job's closed-form expected time, numerically.

    The whole-job form is a sawtooth in tau (a checkpoint's cost appears or vanishes each
    time W / tau crosses an integer), so it is smoothed exactly as the Monte Carlo curve
    is: the vertex of the same parabola fit, on the same grid.
    """
    goodput = np.array([work / expected_wall_hours(work, t, write, mtbf, restart, downtime)
                        for t in grid])
    return parabola_vertex(np.log(grid), goodput, int(np.argmax(goodput)))


@pytest.mark.parametrize(
    ("units", "mean_life", "write", "restart", "detect"),
    [(100, 1000.0, 0.1, 0.2, 0.05), (50, 2000.0, 0.05, 0.5, 0.0)],
)
def test_mc_optimum_ci_contains_the_closed_form_optimum(units, mean_life, write, restart, detect):
    model = make_model(work=500.0, interval=1.0, write=write, restart=restart,
                       modes=[{"units": units, "lifetime": distributions.exponential(mean_life),
                               "detect": detect}])
    result = optimize_interval(model, trials=2000, seed=11)
    mtbf = mean_life / units
    grid = np.asarray(result.curve.interval_hours)
    best = _closed_form_optimum(grid, 500.0, write, mtbf, restart, detect)
    low, high = result.mc_optimal_ci95
    assert low <= best <= high
    assert high / low < 1.5  # the CI is informative
    # Daly's formula is within 1% of the closed form's optimum when delta << M
    assert write / mtbf < 0.02
    assert daly_interval(write, mtbf) == pytest.approx(best, rel=0.01)
    smooth = optimize.minimize_scalar(
        lambda tau: segment_wall_hours(tau + write, mtbf, restart, detect) / tau,
        bounds=(1e-3, 10 * mtbf), method="bounded", options={"xatol": 1e-9},
    ).x
    assert daly_interval(write, mtbf) == pytest.approx(smooth, rel=0.01)
    assert set(result.to_dict()) >= {
        "young_hours", "daly_hours", "mc_optimal_hours", "mc_optimal_ci95",
        "goodput_at_optimal", "p95_optimal_hours", "curve",
    }


def test_mc_optimum_with_failing_restarts_and_a_tax_contains_the_closed_form_optimum():
    # failed attempts are failure-free downtime ((1 - p) / p start-ups of `init` per
    # interruption) and the tax stretches the work: Daly's whole-job form over the taxed
    # compute with that downtime
    model = make_model(work=400.0, interval=1.0, write=0.1, restart=0.2,
                       modes=[{"units": 100, "lifetime": distributions.exponential(1000.0),
                               "detect": 0.05}])  # fmt: skip
    job = replace(model.job, restart_init_hours=0.2, restart_success=0.5,
                  restart_max_attempts=10**6, step_overhead=0.25)  # fmt: skip
    result = optimize_interval(replace(model, job=job), trials=2000, seed=11)
    grid = np.asarray(result.curve.interval_hours)
    best = _closed_form_optimum(grid, 500.0, 0.1, 10.0, 0.2, 0.05 + 0.2)
    low, high = result.mc_optimal_ci95
    # within the CI's width of it (the parabola fit leans about 0.5% long whatever the
    # restarts: the same holds with p = 1 and no tax)
    assert abs(result.mc_optimal_hours - best) < high - low
    assert high / low < 1.5


def test_common_random_numbers_cut_the_noise_between_neighbouring_intervals() -> None:
    model = make_model(work=300.0, interval=1.0, write=0.1, restart=0.5,
                       modes=[{"units": 100, "lifetime": distributions.exponential(1000.0),
                               "repair": distributions.fixed(2.0)}])
    a = simulate(model.with_interval(1.30), 2000, seed=1).wall_hours
    b_same = simulate(model.with_interval(1.35), 2000, seed=1).wall_hours
    b_other = simulate(model.with_interval(1.35), 2000, seed=2).wall_hours
    paired = np.std(b_same - a)
    independent = np.std(b_other - a)
    assert paired < 0.25 * independent


def test_two_tier_optimiser_prefers_a_cheap_surviving_fast_tier() -> None:
    from dataclasses import replace

    single = make_model(work=300.0, interval=1.0, write=0.2, restart=0.2,
                        modes=[{"units": 100, "lifetime": distributions.exponential(1000.0)}])
    two_tier = replace(single, job=replace(single.job, fast_interval_hours=0.5,
                                           fast_write_hours=0.002))
    tiers = optimize_tiers(two_tier, trials=300, seed=3)
    assert tiers.durable_every > 1
    assert tiers.goodput == pytest.approx(tiers.grid.goodput_mean.max())
    low, high = tiers.fast_interval_ci95
    assert low <= tiers.fast_interval_hours <= high
    one_tier = optimize_interval(single, trials=300, seed=3)
    assert tiers.goodput > max(one_tier.curve.goodput_mean)
    with pytest.raises(ValueError, match="no fast checkpoint tier"):
        optimize_tiers(single, trials=10, seed=0)




@pytest.mark.slow
def test_a_short_optimum_far_below_the_work_is_bracketed_and_found() -> None:
    """Exact optimum ~ sqrt(2 delta M) = 0.02 h for a job of 2000 h: a ten-thousandth of
    the work is 0.2 h, ten times too long (the old grid's floor). The grid now brackets
    Young, Daly and the exact optimum from both sides and the CI (not zero-width)
    contains the closed-form optimum of the whole job on the same grid."""
    write, mtbf, restart = 0.0002, 1.0, 0.05
    model = make_model(work=2000.0, interval=1.0, write=write, restart=restart,
                       modes=[{"units": 10, "lifetime": distributions.exponential(10 * mtbf),
                               "detect": 0.0}])
    result = optimize_interval(model, trials=300, seed=4)
    grid = np.asarray(result.curve.interval_hours)
    closed = (result.young_hours, result.daly_hours, result.exact_hours)
    assert max(closed) < 1e-4 * 2000.0  # below the old floor
    assert grid.min() < min(closed) and grid.max() > max(closed)
    low, high = result.mc_optimal_ci95
    assert high > low
    best = _closed_form_optimum(grid, 2000.0, write, mtbf, restart, 0.0)
    assert low <= best <= high


def test_the_grid_extends_past_an_edge_that_holds_the_best() -> None:
    """A fake goodput curve peaking at 10 h, from a grid of 1-3 h: the grid extends up
    until the peak is inside; a curve rising for ever warns."""
    from relplan.analysis.optimize import _extend_to_an_inner_best

    def fake(peak: float | None):
        results: dict[float, np.ndarray] = {}

        def run(interval: float, counted: bool = True) -> np.ndarray:
            value = interval if peak is None else -(math.log(interval / peak) ** 2)
            results[interval] = np.full(4, value)
            return results[interval]

        for interval in (1.0, 2.0, 3.0):
            run(interval)
        return results, run

    results, run = fake(10.0)
    best = _extend_to_an_inner_best(results, run, span=2.0, ceiling=1e6)
    assert max(results) > best > 3.0
    assert best == pytest.approx(10.0, rel=0.2)
    results, run = fake(0.05)  # below the grid: extends down
    assert _extend_to_an_inner_best(results, run, span=3.0, ceiling=1e6) < 0.1
    results, run = fake(None)
    from relplan.errors import RelplanWarning

    with pytest.warns(RelplanWarning, match="edge of its grid"):
        _extend_to_an_inner_best(results, run, span=2.0, ceiling=1e6)
    results, run = fake(None)  # rising up to the work: no checkpoint is best, no warning
    assert _extend_to_an_inner_best(results, run, span=2.0, ceiling=3.0) == 3.0


@pytest.mark.slow
def test_llama3_optimum_lands_by_young_with_a_real_ci() -> None:
    """configs/llama3-16k.toml: Young's interval is 4.19 min (2.8 s write, 3.09 h MTTI);
    the Monte Carlo optimum used to sit at a floor of 7.16 min with a zero-width CI."""
    from relplan.config.loading import load_config
    from relplan.sim.model import build_model
    from tests.conftest import CONFIGS

    model = build_model(load_config(CONFIGS / "llama3-16k.toml"))
    result = optimize_interval(model, trials=200, seed=0, bootstrap=100)
    assert result.young_hours * 60 == pytest.approx(4.19, abs=0.01)
    assert result.mc_optimal_hours < 1.15 * result.young_hours
    low, high = result.mc_optimal_ci95
    assert high > low and low < result.young_hours * 1.15


def test_the_memory_estimate_counts_every_interval_optimize_may_run() -> None:
    from relplan.analysis import optimize as optimiser
    from relplan.runs import memory

    most = (optimiser.COARSE_POINTS + optimiser.REFINE_POINTS + 5
            + optimiser.EDGE_EXTENSIONS * optimiser.EXTENSION_POINTS)
    assert memory.OPTIMIZE_RUNS == most


def test_mc_optimum_under_a_drawn_write_contains_the_effective_write_optimum() -> None:
    # a lognormal write drawn at each save (mean 0.74 h, sigma 2): Daly's whole-job form
    # with the effective write -M ln E[e^{-W/M}] (0.50 h) is the optimum the Monte Carlo
    # finds; Young's and Daly's use the mean write
    write = distributions.lognormal(2.0, 0.1)
    model = make_model(work=500.0, interval=1.0, write=write.mean_hours, restart=0.2,
                       modes=[{"units": 100, "lifetime": distributions.exponential(1000.0),
                               "detect": 0.05}])  # fmt: skip
    model = replace(model, job=replace(model.job, write_draw=write))
    result = optimize_interval(model, trials=2000, seed=11)
    effective = effective_write_hours(write, 10.0)
    assert result.effective_write_hours == pytest.approx(effective)
    assert result.drawn_write_optimal_hours == pytest.approx(exact_interval(effective, 10.0))
    assert result.young_hours == pytest.approx(young_interval(write.mean_hours, 10.0))
    grid = np.asarray(result.curve.interval_hours)
    best = _closed_form_optimum(grid, 500.0, effective, 10.0, 0.2, 0.05)
    low, high = result.mc_optimal_ci95
    # within the CI's width of it (as with failing restarts: the parabola fit leans a
    # little long), and nearer it than to the optimum with the mean write
    assert abs(result.mc_optimal_hours - best) < high - low
    with_mean = _closed_form_optimum(grid, 500.0, write.mean_hours, 10.0, 0.2, 0.05)
    assert abs(result.mc_optimal_hours - best) < abs(result.mc_optimal_hours - with_mean)
    assert {"effective_write_hours", "drawn_write_optimal_hours"} <= set(result.to_dict())
    assert "drawn" in result.goodput_at


def test_the_interval_and_a_probe_cadence_are_optimised_together() -> None:
    # a probe of 6 min finding 90% of the host failures that show 12 h ahead: every 6 h
    # it finds them all (at a 1.7% tax), every 48 h a quarter (0.2%). The best pair is
    # the value whose Monte Carlo optimum has the highest goodput; the interval at each
    # is that value's own optimum
    import relplan

    probe = ['failures.host.latent="12h"',
             'health.probe={ every = "24h", duration = "6min", coverage = { host = 0.9 } }']
    values = ["6h", "48h"]
    result = relplan.optimize_interval("configs/small.toml", trials=60, seed=3,
                                       overrides=probe,
                                       jointly=("health.probe.every", values))  # fmt: skip
    joint = result.summary()["jointly"]
    assert [p["value"] for p in joint["points"]] == values
    goodput = [p["goodput_at_optimal"] for p in joint["points"]]
    assert joint["best_value"] == values[int(np.argmax(goodput))]
    alone = relplan.optimize_interval(
        "configs/small.toml", trials=60, seed=3,
        overrides=[*probe, f'health.probe.every="{joint["best_value"]}"'])
    assert result.mc_optimal_hours == alone.mc_optimal_hours  # the same streams
    assert result.joint.to_frame().shape == (2, 5)


def test_jointly_needs_two_values_and_a_known_key() -> None:
    from typer.testing import CliRunner

    from relplan.cli.app import app

    for given, named in (("job.restart=5min", "--jointly"),
                         ("job.nonsense=1,2", "job.nonsense")):  # fmt: skip
        result = CliRunner().invoke(app, ["optimize", "configs/small.toml", "--trials", "5",
                                          "--jointly", given])  # fmt: skip
        assert result.exit_code == 2, result.output
        assert named in result.output and "Traceback" not in result.output
