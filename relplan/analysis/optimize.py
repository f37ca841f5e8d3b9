"""The Monte Carlo checkpoint-interval optimisers, beside the closed forms they are checked on.

:func:`optimize_interval` runs the job over a log grid of intervals on common random
numbers (the same failure streams at every interval), refines around the best point,
locates the optimum by a parabola in log interval with a paired bootstrap CI, and
reports it next to Young's, Daly's and the exact (Lambert W) closed forms of
:mod:`relplan.sim.closed_forms`. :func:`optimize_tiers` does the same for the pair of a
fast tier's interval and the durable cadence.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from relplan.analysis.provenance import config_digest, provenance_record
from relplan.analysis.results import work_done_hours
from relplan.config.schema import RelplanConfig
from relplan.errors import ConfigError, RelplanWarning
from relplan.sim.closed_forms import (
    daly_interval,
    effective_write_hours,
    exact_interval,
    young_interval,
)
from relplan.sim.engine import simulate
from relplan.sim.model import SimulationModel, build_model
from relplan.stats.summary import Z_95


@dataclass(frozen=True)
class IntervalOptimum:
    """The checkpoint interval study of one job: closed forms and the Monte Carlo optimum.

    Attributes
    ----------
    mtti_hours : float
        The job's mean time to interruption used by the closed forms, hours.
    young_hours, daly_hours, exact_hours : float
        Young's, Daly's and the exact (Lambert W) optimum of Daly's cost, hours.
    mc_optimal_hours : float
        Interval maximising the mean goodput over the common-random-number curve, hours.
    mc_optimal_ci95 : tuple of float
        Bootstrap 95% interval of ``mc_optimal_hours`` (trials resampled), hours.
    p95_optimal_hours : float
        Interval minimising the 95th percentile of wall time, hours.
    p95_optimal_ci95 : tuple of float
        Its bootstrap 95% interval, hours.
    goodput_at : dict of str to float
        Mean goodput at ``young``, ``daly``, ``exact``, ``mc`` and ``p95``.
    curve : pandas.DataFrame
        One row per interval: ``interval_hours``, ``goodput_mean``, ``goodput_ci95_low``,
        ``goodput_ci95_high``, ``wall_mean_hours``, ``wall_p95_hours``, ``lost_mean_hours``.
    trials, seed : int
        The Monte Carlo settings.
    config_sha256 : str
        Digest of the validated config (:func:`relplan.analysis.provenance.config_digest`);
        empty for a model built by hand.
    effective_write_hours : float or None
        Where the durable write is drawn at each save (``job.checkpoint.write`` as a
        distribution or measured durations): the fixed write of the same expected time,
        ``-M ln E[e^{-W/M}]`` (:func:`relplan.sim.closed_forms.effective_write_hours`),
        hours; the closed forms above use the mean write. None otherwise.
    drawn_write_optimal_hours : float or None
        The exact optimum of Daly's cost with that write (``goodput_at["drawn"]``): the
        closed-form optimum under the drawn write, beside Young's with the mean, hours.
    """

    mtti_hours: float
    young_hours: float
    daly_hours: float
    exact_hours: float
    mc_optimal_hours: float
    mc_optimal_ci95: tuple[float, float]
    p95_optimal_hours: float
    p95_optimal_ci95: tuple[float, float]
    goodput_at: dict[str, float]
    curve: pd.DataFrame
    trials: int
    seed: int
    config_sha256: str = ""
    effective_write_hours: float | None = None
    drawn_write_optimal_hours: float | None = None

    def __repr__(self) -> str:
        """One line (the curve is in :meth:`to_frame`)."""
        return (f"IntervalOptimum(mc_optimal_hours={self.mc_optimal_hours:.4g}, young_hours="
                f"{self.young_hours:.4g}, daly_hours={self.daly_hours:.4g}, "
                f"trials={self.trials:,}, seed={self.seed})")

    def summary(self) -> dict[str, object]:
        """The JSON-ready summary (see :meth:`to_dict`)."""
        return self.to_dict()

    def to_frame(self) -> pd.DataFrame:
        """The goodput-against-interval curve: one row per interval tried."""
        return self.curve

    def to_dict(self) -> dict[str, object]:
        """JSON-ready form: the keys of the ``optimize --json`` contract (README) and more."""
        return {
            "trials": self.trials,
            "seed": self.seed,
            "job_mtti_hours": self.mtti_hours,
            "young_hours": self.young_hours,
            "daly_hours": self.daly_hours,
            "exact_hours": self.exact_hours,
            "mc_optimal_hours": self.mc_optimal_hours,
            "mc_optimal_ci95": list(self.mc_optimal_ci95),
            "goodput_at_optimal": self.goodput_at["mc"],
            "goodput_at": dict(self.goodput_at),
            "p95_optimal_hours": self.p95_optimal_hours,
            "p95_optimal_ci95": list(self.p95_optimal_ci95),
            **({} if self.effective_write_hours is None else {
                "effective_write_hours": self.effective_write_hours,
                "drawn_write_optimal_hours": self.drawn_write_optimal_hours,
            }),
            "curve": self.curve.to_dict(orient="list"),
            "provenance": provenance_record(self.config_sha256, self.seed, self.trials),
        }


FIT_HALF_WIDTH = 0.3
"""Half-width, in log interval, of the window a parabola is fitted to around the best point."""

COARSE_POINTS = 15
"""Intervals of the coarse log grid of :func:`optimize_interval`."""

REFINE_POINTS = 12
"""Intervals :func:`optimize_interval` adds around the coarse grid's best point."""

DURABLE_EVERY: tuple[int, ...] = (1, 2, 3, 4, 6, 8, 12, 16, 24)
"""Durable cadences (one checkpoint in ``n`` durable) :func:`optimize_tiers` tries."""

MIN_TRIALS = 2
"""Trials per interval ``optimize`` needs: its confidence intervals come from the spread
between trials."""


def parabola_vertex(log_x: np.ndarray, y: np.ndarray, best: int) -> float:
    """Vertex of a least-squares parabola (in log x) over a window around the best point.

    Parameters
    ----------
    log_x : numpy.ndarray
        Log of the intervals (sorted).
    y : numpy.ndarray
        The values to maximise at those intervals.
    best : int
        Index of the best value.

    Returns
    -------
    float
        The interval at the vertex, hours, kept within the fitted window.

    A window wider than the grid step smooths both the Monte Carlo noise and the
    sawtooth of the whole-job cost (a checkpoint appears or vanishes each time
    W / tau crosses an integer).
    """
    near = np.abs(log_x - log_x[best]) <= FIT_HALF_WIDTH
    if near.sum() < 3:
        near = np.zeros_like(near)
        near[np.argsort(np.abs(log_x - log_x[best]))[:3]] = True
    xs, ys = log_x[near], y[near]
    a, b, _ = np.polyfit(xs - log_x[best], ys, 2)
    if a >= 0:
        return float(np.exp(log_x[best]))
    return float(np.exp(log_x[best] + np.clip(-b / (2 * a), xs.min() - log_x[best],
                                               xs.max() - log_x[best])))


def _optimum_and_ci(
    intervals: np.ndarray, values: np.ndarray, statistic, maximise: bool,
    bootstrap: int, rng: np.random.Generator,
) -> tuple[float, tuple[float, float]]:  # fmt: skip
    """Optimum of ``statistic`` over the interval grid, with a paired bootstrap CI."""
    log_x = np.log(intervals)
    sign = 1.0 if maximise else -1.0

    def locate(rows: np.ndarray) -> float:
        curve = sign * statistic(rows)
        return parabola_vertex(log_x, curve, int(np.argmax(curve)))

    estimate = locate(values)
    n = values.shape[0]
    replicates = [locate(values[rng.integers(0, n, n)]) for _ in range(bootstrap)]
    low, high = np.percentile(replicates, [2.5, 97.5])
    return estimate, (float(low), float(high))


MIN_INTERVAL_HOURS = 1e-6
"""The shortest interval :func:`optimize_interval` tries (3.6 ms): a guard against a
zero interval, far below any optimum (the grid is set by the closed forms, not by it)."""

MAX_COST_RATIO = 4.0
"""How far up :func:`optimize_interval` searches: to the interval whose closed-form wall
time per unit of work is this many times the optimum's (goodput a quarter of the
best's). Beyond, no optimum can lie, and trials walk so many failures (a segment of
several MTTIs restarts e^k times) that they would cost more than the rest of the grid."""


def interval_cost_limit(write: float, mtti: float, optimum: float, ceiling: float) -> float:
    """The longest interval whose expected wall time per unit of work is at most
    :data:`MAX_COST_RATIO` times the optimum's (Daly's segment cost, ``M (e^{(tau +
    delta)/M} - 1) / tau``; the restart and downtime factors cancel in the ratio).

    Examples
    --------
    >>> limit = interval_cost_limit(5 / 60, 0.25, 0.152, 500.0)  # Daly's M = 15 min case
    >>> 0.5 < limit < 1.0
    True
    >>> interval_cost_limit(0.0, 10.0, 5.0, 1.0)  # the work comes first
    1.0
    """
    from scipy.optimize import brentq

    def cost(interval: float) -> float:
        with np.errstate(over="ignore"):
            return float(mtti * np.expm1((interval + write) / mtti) / interval)

    target = MAX_COST_RATIO * cost(optimum)
    if cost(ceiling) <= target:
        return ceiling
    log_limit = brentq(lambda x: cost(math.exp(x)) - target, math.log(optimum),
                       math.log(ceiling), xtol=1e-6)  # fmt: skip
    return float(math.exp(log_limit))


EDGE_EXTENSIONS = 4
"""How many times :func:`optimize_interval` extends its grid by ``span`` past an edge
that holds the best point, before it warns."""

EXTENSION_POINTS = 5
"""Intervals each extension of the grid adds."""


def _extend_to_an_inner_best(results: dict[float, np.ndarray], run: Callable[..., np.ndarray],
                             span: float, ceiling: float) -> float:  # fmt: skip
    """Extend the grid past whichever edge holds the best mean goodput (by ``span``, up to
    :data:`EDGE_EXTENSIONS` times; never past the work, ``ceiling``) and return the best
    interval; warns when the best is still on an edge other than the work."""
    for _ in range(EDGE_EXTENSIONS + 1):
        grid = np.array(sorted(results))
        means = np.array([results[x].mean() for x in grid])
        index = int(np.argmax(means))
        best = float(grid[index])
        if 0 < index < grid.size - 1 or grid.size < 3:
            return best
        if index == grid.size - 1 and grid[-1] >= ceiling * (1 - 1e-9):
            return best  # the best is no checkpoint at all: the work is the edge
        edge = grid[0] if index == 0 else grid[-1]
        far = edge / span if index == 0 else min(edge * span, ceiling)
        for interval in np.geomspace(far, edge, EXTENSION_POINTS + 1)[:-1]:
            run(float(interval), counted=False)
    warnings.warn(RelplanWarning(
        "job.checkpoint.interval", f"the best interval optimize found, {best:.4g} h, is still "
        f"on the edge of its grid after {EDGE_EXTENSIONS} extensions: the optimum may lie "
        "beyond it"), stacklevel=3)  # fmt: skip
    return best


def grid_resolution_ci(grid: np.ndarray, estimate: float,
                       ci: tuple[float, float]) -> tuple[float, float]:  # fmt: skip
    """A confidence interval no narrower than the grid's resolution at the estimate (half
    the step to each neighbour): the optimum is not known more finely than the grid.

    Examples
    --------
    >>> grid_resolution_ci(np.array([1.0, 2.0, 4.0]), 2.0, (2.0, 2.0))
    (1.5, 3.0)
    """
    position = int(np.searchsorted(grid, estimate))
    below = grid[max(position - 1, 0)]
    above = grid[min(position + (grid[min(position, grid.size - 1)] <= estimate), grid.size - 1)]
    low = min(ci[0], estimate - (estimate - below) / 2.0) if below < estimate else ci[0]
    high = max(ci[1], estimate + (above - estimate) / 2.0) if above > estimate else ci[1]
    return float(low), float(high)


def _mean_with_ci(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Column means of a (trials, points) array and their normal 95% CI bounds."""
    mean = values.mean(axis=0)
    half_width = Z_95 * values.std(axis=0, ddof=1) / math.sqrt(values.shape[0])
    return mean, mean - half_width, mean + half_width


def optimize_interval(
    model: SimulationModel,
    trials: int,
    seed: int,
    points: int = COARSE_POINTS,
    span: float = 6.0,
    refine_points: int = REFINE_POINTS,
    bootstrap: int = 300,
    workers: int = 1,
    progress: Callable[[int], None] | None = None,
) -> IntervalOptimum:
    """Find the checkpoint interval that maximises goodput, by Monte Carlo with common numbers.

    Every interval is simulated with the same seed, so every interval sees the same
    failure stream on the exposure clock: differences between neighbouring intervals
    are not blurred by independent noise. A log grid from the smallest of Young's,
    Daly's and the exact interval over ``span`` to the largest times ``span`` (never past
    the work) brackets all three from both sides; when its best point sits on an edge,
    the grid extends past that edge (:data:`EDGE_EXTENSIONS` times at most, then a
    warning). It is refined around its best point; the optimum is the vertex of a
    least-squares parabola (in log interval) over a window of +-0.3 in log interval
    around the best point, and its 95% interval comes from resampling trials (the same
    resample for every interval), never narrower than the grid's resolution there.

    Parameters
    ----------
    model : SimulationModel
        The job; its own interval is ignored.
    trials : int
        Trials per interval.
    seed : int
        Seed shared by every interval.
    points : int
        Points of the coarse log grid.
    span : float
        The grid covers ``[min(closed forms) / span, max(closed forms) * span]``, clipped
        to the work and to :func:`interval_cost_limit` above.
    refine_points : int
        Points added around the coarse optimum, over the parabola's fitting window.
    bootstrap : int
        Bootstrap replicates for the confidence intervals.
    workers : int
        Threads for the simulations (does not change any number).
    progress : callable, optional
        Called with the trials done, ``points + refine_points + 5`` times ``trials`` in
        all (an interval met twice is simulated once but counted each time).

    Returns
    -------
    IntervalOptimum
        Closed forms, Monte Carlo optima with CIs, and the curve.
    """

    job = model.job
    mtti = model.job_mtti_hours
    write = job.write_hours
    if not math.isfinite(mtti):
        raise ValueError("the job never fails: there is no interval to optimise")
    ceiling = job.compute_hours  # no interval longer than the job's whole compute
    young = young_interval(write, mtti) if write > 0 else ceiling
    daly = daly_interval(write, mtti) if write > 0 else ceiling
    exact = exact_interval(write, mtti) if write > 0 else ceiling
    # a drawn durable write: the optimum with its effective write (one tier only: with
    # two, the tier optimiser has its own grid)
    effective = drawn = None
    if job.write_draw is not None and job.fast_interval_hours is None:
        effective = effective_write_hours(job.write_draw, mtti)
        drawn = exact_interval(effective, mtti) if effective > 0 else ceiling
    closed_forms = (young, daly, exact) if drawn is None else (young, daly, exact, drawn)
    # the grid brackets every closed form from both sides: no floor tied to the work;
    # above, no further than MAX_INTERVAL_MTTI interruptions' worth (or the work)
    upper = max(interval_cost_limit(write, mtti, exact, ceiling), max(closed_forms) * 1.05)
    upper = min(upper, ceiling)
    floor = min(min(closed_forms) / span, upper)
    top = min(max(closed_forms) * span, upper)

    # per-trial goodput at each interval; the wall times are ``work / goodput`` (over a
    # calendar window: the time a window's worth of work takes at that goodput)
    results: dict[float, np.ndarray] = {}

    def run(interval: float, counted: bool = True) -> np.ndarray:
        interval = float(min(max(interval, MIN_INTERVAL_HOURS), ceiling))
        for known in results:  # one simulation per distinct interval
            if abs(known - interval) <= 1e-9 * interval:
                if counted and progress is not None:
                    progress(trials)
                return results[known]
        outcome = simulate(model.with_interval(interval), trials, seed, workers,
                           progress=progress if counted else None)  # fmt: skip
        results[interval] = work_done_hours(job, outcome) / outcome.wall_hours
        return results[interval]

    for interval in np.geomspace(floor, top, points):
        run(interval)
    best = _extend_to_an_inner_best(results, run, span, upper)
    spread = math.exp(FIT_HALF_WIDTH + 0.05)
    for interval in np.geomspace(best / spread, best * spread, refine_points):
        run(interval)
    for interval in closed_forms:
        run(interval)

    grid = np.array(sorted(results))
    goodput = np.column_stack([results[x] for x in grid])
    walls = job.work_hours / goodput
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(2**31,)))
    mc_best, mc_ci = _optimum_and_ci(
        grid, goodput, lambda rows: rows.mean(axis=0), True, bootstrap, rng
    )
    p95_best, p95_ci = _optimum_and_ci(
        grid, walls, lambda rows: np.percentile(rows, 95, axis=0), False, bootstrap, rng
    )
    mc_ci, p95_ci = grid_resolution_ci(grid, mc_best, mc_ci), grid_resolution_ci(
        grid, p95_best, p95_ci)
    mean, low, high = _mean_with_ci(goodput)
    curve = pd.DataFrame(
        {
            "interval_hours": grid,
            "goodput_mean": mean,
            "goodput_ci95_low": low,
            "goodput_ci95_high": high,
            "wall_mean_hours": walls.mean(axis=0),
            "wall_p95_hours": np.percentile(walls, 95, axis=0),
            "lost_mean_hours": walls.mean(axis=0) - job.work_hours,
        }
    )
    goodput_at = {
        name: float(np.mean(run(interval, counted=name in ("mc", "p95"))))
        for name, interval in (("young", young), ("daly", daly), ("exact", exact),
                               ("mc", mc_best), ("p95", p95_best))
    }  # fmt: skip
    if drawn is not None:
        goodput_at["drawn"] = float(np.mean(run(drawn, counted=False)))
    return IntervalOptimum(
        mtti_hours=mtti,
        young_hours=young,
        daly_hours=daly,
        exact_hours=exact,
        mc_optimal_hours=mc_best,
        mc_optimal_ci95=mc_ci,
        p95_optimal_hours=p95_best,
        p95_optimal_ci95=p95_ci,
        goodput_at=goodput_at,
        curve=curve,
        trials=trials,
        seed=seed,
        effective_write_hours=effective,
        drawn_write_optimal_hours=drawn,
    )


@dataclass(frozen=True)
class TierOptimum:
    """The best fast-tier interval and durable cadence of a two-tier job.

    Attributes
    ----------
    fast_interval_hours : float
        Compute between fast checkpoints at the optimum, hours.
    durable_every : int
        One checkpoint in this many is durable.
    durable_interval_hours : float
        ``fast_interval_hours * durable_every``, hours.
    goodput : float
        Mean goodput at the optimum.
    fast_interval_ci95, durable_interval_ci95 : tuple of float
        Bootstrap 95% ranges of the optimum's two intervals (trials resampled), hours.
    grid : pandas.DataFrame
        One row per (fast interval, durable cadence): ``fast_interval_hours``,
        ``durable_every``, ``durable_interval_hours``, ``goodput_mean``,
        ``goodput_ci95_low``, ``goodput_ci95_high``, ``wall_p95_hours``.
    """

    fast_interval_hours: float
    durable_every: int
    durable_interval_hours: float
    goodput: float
    fast_interval_ci95: tuple[float, float]
    durable_interval_ci95: tuple[float, float]
    grid: pd.DataFrame

    def to_dict(self) -> dict[str, object]:
        """JSON-ready form."""
        return {
            "fast_interval_hours": self.fast_interval_hours,
            "durable_every": self.durable_every,
            "durable_interval_hours": self.durable_interval_hours,
            "goodput": self.goodput,
            "fast_interval_ci95": list(self.fast_interval_ci95),
            "durable_interval_ci95": list(self.durable_interval_ci95),
            "grid": self.grid.to_dict(orient="list"),
        }


def tier_pairs(
    model: SimulationModel,
    fast_points: int = 9,
    durable_every: tuple[int, ...] = DURABLE_EVERY,
) -> list[tuple[float, int]]:
    """The (fast interval, durable cadence) pairs :func:`optimize_tiers` simulates.

    A log grid of fast intervals from a quarter to four times Young's interval for the
    fast write, crossed with the cadences, keeping the pairs whose durable interval fits
    in the work.
    """
    job = model.job
    mtti = model.job_mtti_hours
    centre = young_interval(job.fast_write_hours, mtti) if job.fast_write_hours > 0 else (
        job.segment_hours
    )
    fast_grid = np.geomspace(centre / 4.0, min(centre * 4.0, job.compute_hours), fast_points)
    return [(float(fast), every) for fast in fast_grid for every in durable_every
            if fast * every <= job.compute_hours]  # fmt: skip


def planned_trials(model: SimulationModel, trials: int) -> int:
    """Trials :func:`optimize_config` counts on its ``progress`` for ``model``.

    Examples
    --------
    >>> from relplan.config.loading import load_config
    >>> planned_trials(build_model(load_config("configs/small.toml")), 100)
    3200
    """
    runs = COARSE_POINTS + REFINE_POINTS + 5
    if model.job.fast_interval_hours is not None:
        runs += len(tier_pairs(model))
    return runs * trials


def optimize_tiers(
    model: SimulationModel,
    trials: int,
    seed: int,
    fast_points: int = 9,
    durable_every: tuple[int, ...] = DURABLE_EVERY,
    bootstrap: int = 300,
    workers: int = 1,
    progress: Callable[[int], None] | None = None,
) -> TierOptimum:
    """Optimise both intervals of a two-tier job on common random numbers.

    A log grid of fast intervals around Young's interval for the fast write (from a
    quarter to four times it) is crossed with durable cadences (one checkpoint in ``n``
    durable); every pair runs with the same seed. The optimum is the pair with the
    highest mean goodput; its 95% ranges come from resampling trials (the same resample
    for every pair) and taking the best pair of each resample.

    Parameters
    ----------
    model : SimulationModel
        A job with a fast tier (``job.fast_interval_hours`` set).
    trials : int
        Trials per pair.
    seed : int
        Seed shared by every pair.
    fast_points : int
        Points of the fast-interval grid.
    durable_every : tuple of int
        Durable cadences tried.
    bootstrap : int
        Bootstrap replicates.
    workers : int
        Threads for the simulations (does not change any number).
    progress : callable, optional
        Called with the trials of each finished block.

    Returns
    -------
    TierOptimum
        The best pair, its ranges and the whole grid.
    """

    job = model.job
    if job.fast_interval_hours is None:
        raise ValueError("the job has no fast checkpoint tier")
    mtti = model.job_mtti_hours
    if not math.isfinite(mtti):
        raise ValueError("the job never fails: there is no interval to optimise")
    pairs, walls = tier_pairs(model, fast_points, durable_every), []
    for fast, every in pairs:
        outcome = simulate(model.with_tiers(fast, every), trials, seed, workers,
                           progress=progress)  # fmt: skip
        walls.append(job.work_hours * outcome.wall_hours / work_done_hours(job, outcome))
    goodput = job.work_hours / np.column_stack(walls)
    means = goodput.mean(axis=0)
    best = int(np.argmax(means))
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(2**31 + 1,)))
    picks = [int(np.argmax(goodput[rng.integers(0, trials, trials)].mean(axis=0)))
             for _ in range(bootstrap)]
    fast_picks = [pairs[k][0] for k in picks]
    durable_picks = [pairs[k][0] * pairs[k][1] for k in picks]
    _, low, high = _mean_with_ci(goodput)
    grid = pd.DataFrame(
        {
            "fast_interval_hours": [p[0] for p in pairs],
            "durable_every": [p[1] for p in pairs],
            "durable_interval_hours": [p[0] * p[1] for p in pairs],
            "goodput_mean": means,
            "goodput_ci95_low": low,
            "goodput_ci95_high": high,
            "wall_p95_hours": np.percentile(np.column_stack(walls), 95, axis=0),
        }
    )
    fast, every = pairs[best]
    return TierOptimum(
        fast_interval_hours=fast,
        durable_every=every,
        durable_interval_hours=fast * every,
        goodput=float(means[best]),
        fast_interval_ci95=tuple(float(v) for v in np.percentile(fast_picks, [2.5, 97.5])),
        durable_interval_ci95=tuple(float(v) for v in np.percentile(durable_picks, [2.5, 97.5])),
        grid=grid,
    )


def optimize_config(
    config: RelplanConfig,
    trials: int,
    seed: int,
    workers: int = 1,
    progress: Callable[[int], None] | None = None,
    trials_key: str = "simulation.trials",
) -> tuple[IntervalOptimum, TierOptimum | None]:
    """Optimise a config's checkpoint interval, and its two tiers when it has a fast tier.

    Parameters
    ----------
    config : RelplanConfig
        A validated config.
    trials : int
        Trials per interval (at least 2, for the bootstrap).
    seed : int
        Seed shared by every interval (common random numbers).
    workers : int
        Threads; changes no number.
    progress : callable, optional
        Called with the trials done; :func:`planned_trials` in all.
    trials_key : str
        What an error about ``trials`` names (``--trials`` on the command line).

    Returns
    -------
    tuple
        The :class:`IntervalOptimum`, and the :class:`TierOptimum` (None without
        ``job.checkpoint.fast``).

    Raises
    ------
    ConfigError
        When no failure mode interrupts the job (there is nothing to optimise), or with
        fewer than :data:`MIN_TRIALS` trials.
    """
    if trials < MIN_TRIALS:
        raise ConfigError(trials_key, f"optimize needs at least {MIN_TRIALS} trials per "
                                      f"interval: its confidence intervals come from the spread "
                                      f"between trials (got {trials})")  # fmt: skip
    model = build_model(config)
    if not math.isfinite(model.job_mtti_hours):
        raise ConfigError("failures", "no failure mode interrupts the job: nothing to optimise")
    result = replace(optimize_interval(model, trials, seed, workers=workers, progress=progress),
                     config_sha256=config_digest(config))
    tiers = None
    if model.job.fast_interval_hours is not None:
        tiers = optimize_tiers(model, trials, seed, workers=workers, progress=progress)
    return result, tiers


@dataclass(frozen=True)
class JointSearch:
    """The checkpoint interval optimised at each value of a second key
    (``relplan optimize --jointly KEY=V1,V2,...``: a probe's cadence, a spare count), on
    common random numbers: the best pair is the value whose Monte Carlo optimum has the
    highest mean goodput.

    Attributes
    ----------
    key : str
        The dotted config key.
    values : tuple of str
        Its values, as given.
    mc_optimal_hours : tuple of float
        The Monte Carlo optimal interval at each value, hours.
    mc_optimal_ci95 : tuple of tuple of float
        Its bootstrap 95% interval at each value, hours.
    goodput_at_optimal : tuple of float
        The mean goodput at that interval, at each value.
    best : int
        The index of the best value.
    """

    key: str
    values: tuple[str, ...]
    mc_optimal_hours: tuple[float, ...]
    mc_optimal_ci95: tuple[tuple[float, float], ...]
    goodput_at_optimal: tuple[float, ...]
    best: int

    def to_dict(self) -> dict[str, object]:
        """JSON-ready form (the ``jointly`` entry of ``optimize --json``)."""
        return {
            "key": self.key,
            "best_value": self.values[self.best],
            "points": [
                {"value": value, "mc_optimal_hours": hours, "mc_optimal_ci95": list(ci),
                 "goodput_at_optimal": goodput}
                for value, hours, ci, goodput in zip(
                    self.values, self.mc_optimal_hours, self.mc_optimal_ci95,
                    self.goodput_at_optimal, strict=True)
            ],
        }  # fmt: skip

    def to_frame(self) -> pd.DataFrame:
        """One row per value: the optimal interval, its CI and the goodput there."""
        return pd.DataFrame({
            self.key: list(self.values),
            "mc_optimal_hours": list(self.mc_optimal_hours),
            "ci95_low_hours": [ci[0] for ci in self.mc_optimal_ci95],
            "ci95_high_hours": [ci[1] for ci in self.mc_optimal_ci95],
            "goodput_at_optimal": list(self.goodput_at_optimal),
        })  # fmt: skip


def optimize_jointly(
    config: RelplanConfig,
    key: str,
    values: list[str],
    trials: int,
    seed: int,
    workers: int = 1,
    progress: Callable[[int], None] | None = None,
    trials_key: str = "simulation.trials",
    jointly_key: str = "jointly",
) -> tuple[IntervalOptimum, TierOptimum | None, JointSearch]:
    """Optimise the checkpoint interval at each value of ``key`` and keep the best pair.

    Parameters
    ----------
    config : RelplanConfig
        A validated config.
    key : str
        The dotted key to vary with the interval (``health.probe.every``).
    values : list of str
        At least two of its values, in a config's units (``"6h"``).
    trials, seed, workers, progress, trials_key
        As for :func:`optimize_config` (progress: :func:`planned_trials` per value).
    jointly_key : str
        What an error about the values names (``--jointly`` on the command line).

    Returns
    -------
    tuple
        The best value's :class:`IntervalOptimum` and :class:`TierOptimum` (or None),
        and the :class:`JointSearch` over every value.

    Raises
    ------
    ConfigError
        Naming ``jointly_key`` with fewer than two values, or ``key`` with a value the
        schema refuses.

    Examples
    --------
    >>> from relplan.config.loading import load_config
    >>> config = load_config("configs/small.toml")
    >>> _, _, search = optimize_jointly(config, "job.restart", ["5min", "20min"], 30, 0)
    >>> search.values[search.best]
    '5min'
    """
    if len(values) < 2:
        raise ConfigError(jointly_key, f"give at least two values of {key} (got {values})")
    found = [optimize_config(config.with_overrides({key: value}), trials, seed, workers,
                             progress, trials_key) for value in values]  # fmt: skip
    goodput = [optimum.goodput_at["mc"] for optimum, _ in found]
    best = int(np.argmax(goodput))
    search = JointSearch(
        key=key, values=tuple(values),
        mc_optimal_hours=tuple(optimum.mc_optimal_hours for optimum, _ in found),
        mc_optimal_ci95=tuple(optimum.mc_optimal_ci95 for optimum, _ in found),
        goodput_at_optimal=tuple(goodput), best=best,
    )  # fmt: skip
    return found[best][0], found[best][1], search
