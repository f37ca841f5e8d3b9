"""The redundancy planner: the best portfolio of options under a budget, what each option
in it is worth, and how sure the answer is.

Every portfolio (a level of each option, or none) runs on the same failure streams as the
base (common random numbers), so differences between portfolios are paired trial by
trial and their confidence intervals are tight. A portfolio's hardware cost is the price
of the hardware its job holds beyond the base's (inventory difference at the base's
``[budget]`` prices, as in ``compare``) plus the options' own prices.

The objective is one of :data:`relplan.config.plan.PLAN_OBJECTIVES`:

- ``net_value`` (more is better): the value of the GPU-hours saved against the base
  minus the extra hardware charge (the cost spread over ``amortization``, charged for
  the job's wall time), per trial then averaged;
- ``gpu_hours_lost`` (less is better): mean GPU-hours lost;
- ``p95_wall_hours`` (less is better): the 95th percentile of the wall time, with a
  distribution-free confidence interval from order statistics.

The search is exhaustive up to ``plan.exhaustive_limit`` portfolios; beyond, a local
search (greedy steps from the base, then single-option moves until none improves, from
several starting points) whose quality ``tests/analysis/test_plan.py`` measures against
the exhaustive answer on smaller cases. Each option's worth inside the best portfolio is
its Shapley value: its marginal gain averaged over every order of buying the portfolio's
options; the values add up to the portfolio's gain over the base.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from relplan.analysis.executor import (
    PointPool,
    Progress,
    block_progress,
    configured_workers,
    default_workers,
)
from relplan.analysis.provenance import config_digest, provenance_record
from relplan.analysis.results import Z_95
from relplan.analysis.scenarios import run_scenario
from relplan.analysis.store import PointStore, point_key
from relplan.cluster.budget import hardware_price
from relplan.config.loading import parse_config
from relplan.config.plan import PLAN_OBJECTIVES, Plan, Portfolio
from relplan.config.schema import BudgetConfig


@dataclass(frozen=True)
class Evaluation:
    """One portfolio, evaluated.

    Attributes
    ----------
    portfolio : tuple of int
        Per option the level bought, or -1.
    options : list of str
        The names of the levels bought.
    hardware_cost : float
        Extra hardware price against the base, currency.
    objective : float
        The objective's value (``net_value`` is 0 for the base).
    ci95 : tuple of float
        Its 95% confidence interval.
    gain : float
        How much better than the base (positive: better), in the objective's unit.
    step_time_s : float or None
        The portfolio's healthy step time, seconds (None without a step time).
    work_hours : float or None
        Its failure-free hours (with work in steps or tokens: steps x its step time).
    """

    portfolio: Portfolio
    options: list[str]
    hardware_cost: float
    objective: float
    ci95: tuple[float, float]
    gain: float
    step_time_s: float | None = None
    work_hours: float | None = None

    def as_dict(self) -> dict[str, Any]:
        """The JSON form: ``options``, ``hardware_cost``, ``objective``, ``ci95``, ``gain``,
        ``step_time_s``, ``work_hours``."""
        return {"options": list(self.options), "hardware_cost": self.hardware_cost,
                "objective": self.objective, "ci95": list(self.ci95), "gain": self.gain,
                "step_time_s": self.step_time_s, "work_hours": self.work_hours}


def better(sense: str, a: float, b: float) -> bool:
    """Whether objective value ``a`` beats ``b`` under ``sense`` ("max" or "min")."""
    return a > b if sense == "max" else a < b


def pareto_frontier(evaluations: Iterable[Evaluation], sense: str) -> list[Evaluation]:
    """The portfolios no other beats on both hardware cost and objective, by cost.

    Examples
    --------
    >>> e = lambda c, o: Evaluation((), [], c, o, (o, o), o)
    >>> [x.hardware_cost for x in pareto_frontier([e(0, 0), e(1, 5), e(2, 4), e(3, 9)],
    ...                                           "max")]
    [0, 1, 3]
    """
    ordered = sorted(evaluations, key=lambda e: (e.hardware_cost,
                                                 -e.objective if sense == "max" else e.objective))
    frontier: list[Evaluation] = []
    for evaluation in ordered:
        if not frontier or better(sense, evaluation.objective, frontier[-1].objective):
            frontier.append(evaluation)
    return frontier


def best_within(evaluations: Iterable[Evaluation], budget: float | None,
                sense: str) -> Evaluation:  # fmt: skip
    """The best objective among portfolios costing at most ``budget`` (the cheaper on a tie).

    Examples
    --------
    >>> e = lambda c, o: Evaluation((), [], c, o, (o, o), o)
    >>> best_within([e(0, 0), e(1, 5), e(3, 9)], 2.0, "max").hardware_cost
    1
    """
    affordable = [e for e in evaluations if budget is None or e.hardware_cost <= budget + 1e-9]
    best = affordable[0]
    for evaluation in affordable[1:]:
        if better(sense, evaluation.objective, best.objective) or (
            evaluation.objective == best.objective
            and evaluation.hardware_cost < best.hardware_cost
        ):
            best = evaluation
    return best


def shapley_values(
    players: list[int], value: Callable[[frozenset[int]], float]
) -> dict[int, float]:
    """Exact Shapley values of a cooperative game: each player's marginal value averaged
    over every order in which the coalition forms.

    Parameters
    ----------
    players : list of int
        The players (up to about 12: the cost is ``2^n`` evaluations of ``value``).
    value : callable
        The value of a coalition (a frozenset of players); ``value(frozenset())`` is the
        baseline.

    Returns
    -------
    dict
        Player -> Shapley value; they add up to ``value(all) - value(none)``.

    Examples
    --------
    >>> v = lambda s: 3.0 * (0 in s) + 1.0 * (1 in s) + 2.0 * (0 in s and 1 in s)
    >>> shapley_values([0, 1], v)
    {0: 4.0, 1: 2.0}
    """
    n = len(players)
    cache: dict[frozenset[int], float] = {}

    def worth(coalition: frozenset[int]) -> float:
        if coalition not in cache:
            cache[coalition] = value(coalition)
        return cache[coalition]

    result = {}
    for player in players:
        others = [p for p in players if p != player]
        total = 0.0
        for size in range(n):
            weight = math.factorial(size) * math.factorial(n - size - 1) / math.factorial(n)
            for coalition in itertools.combinations(others, size):
                before = frozenset(coalition)
                total += weight * (worth(before | {player}) - worth(before))
        result[player] = total
    return result


def all_portfolios(levels: list[int]) -> list[Portfolio]:
    """Every portfolio of options with ``levels[i]`` levels each (-1: none)."""
    return list(itertools.product(*[range(-1, count) for count in levels]))


def local_search(levels: list[int], evaluate: Callable[[Portfolio], Evaluation],
                 budget: float | None, sense: str, starts: int = 3,
                 prefetch: Callable[[list[Portfolio]], None] | None = None) -> None:  # fmt: skip
    """Hill-climb over portfolios from the base and from a few greedy starts.

    A move sets one option, or two, to another level (or none); the climb takes the best
    move within the budget while one improves the objective. ``evaluate`` caches, so the
    portfolios seen are the ones evaluated. Each step's candidates (every neighbour of
    the current portfolio) are handed to ``prefetch`` first, which may run them at once
    (:meth:`PlanRun.prefetch`); the climb itself does not change.
    """
    fetch = prefetch if prefetch is not None else (lambda portfolios: None)

    def changes(portfolio: Portfolio) -> list[Portfolio]:
        moves = []
        for index, count in enumerate(levels):
            for level in range(-1, count):
                if level != portfolio[index]:
                    moves.append((*portfolio[:index], level, *portfolio[index + 1:]))
        return moves

    def neighbours(portfolio: Portfolio) -> list[Portfolio]:
        """One option changed, or two at once (a swap under a tight budget)."""
        ones = changes(portfolio)
        twos = {two for one in ones for two in changes(one)
                if sum(a != b for a, b in zip(two, portfolio, strict=True)) == 2}
        return ones + sorted(twos)

    def affordable(evaluation: Evaluation) -> bool:
        return budget is None or evaluation.hardware_cost <= budget + 1e-9

    base = tuple(-1 for _ in levels)
    fetch([base, *changes(base)])
    singles = sorted((evaluate(p) for p in changes(base)),
                     key=lambda e: -e.gain)  # fmt: skip
    seeds = [base, *[e.portfolio for e in singles if affordable(e)][: max(0, starts - 1)]]
    for current in seeds:
        here = evaluate(current)
        while True:
            around = neighbours(current)
            fetch(around)
            candidates = [evaluate(p) for p in around]
            candidates = [c for c in candidates if affordable(c)]
            best = max(candidates, key=lambda c: c.gain, default=None)
            if best is None or best.gain <= here.gain + 1e-12:
                break
            current, here = best.portfolio, best


@dataclass
class PlanRun:
    """The evaluations of a plan, cached by portfolio (and uncertain draw)."""

    plan: Plan
    trials: int
    seed: int
    pool: PointPool = field(default_factory=PointPool)
    progress: Progress | None = None
    store: PointStore | None = None
    cache: dict[tuple[Portfolio, tuple[str, ...]], Evaluation] = field(default_factory=dict)
    _base: dict[tuple[str, ...], tuple[np.ndarray, np.ndarray, float]] = field(
        default_factory=dict
    )
    _arrays: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def sense(self) -> str:
        """"max" or "min" for the plan's objective."""
        return PLAN_OBJECTIVES[self.plan.spec.objective]

    def key(self, portfolio: Portfolio, extra: tuple[str, ...] = ()) -> str:
        """The store key of a portfolio's run (its resolved config, seed and trials)."""
        config = self.plan.config(portfolio, extra)
        return point_key(config_digest(config), self.seed, self.trials, "plan")

    def finished(self, portfolio: Portfolio, arrays: dict[str, Any],
                 extra: tuple[str, ...] = ()) -> None:  # fmt: skip
        """Keep a portfolio's run, and store it."""
        key = self.key(portfolio, extra)
        self._arrays[key] = arrays
        if self.store is not None:
            self.store.put(key, arrays, "plan", "; ".join(self.plan.names(portfolio)) or "base")

    def prefetch(self, pairs: Iterable[tuple[Portfolio, tuple[str, ...]]]) -> None:
        """Run at once, on :attr:`pool`, the ``(portfolio, extra)`` pairs (a portfolio
        under an uncertain draw, ``()`` for none) not held or stored yet, keeping and
        storing each as it finishes; with the base under each draw, which every
        evaluation compares with.

        :meth:`evaluate` then finds them held: the numbers are those of running them one
        by one (each run depends on its config, seed and trials only).
        """
        pairs = list(pairs)
        pairs += [(self.plan.empty(), extra) for extra in dict.fromkeys(e for _, e in pairs)]
        todo: dict[str, tuple[Portfolio, tuple[str, ...]]] = {}
        for portfolio, extra in pairs:
            key = self.key(portfolio, extra)
            if key in todo or key in self._arrays:
                continue
            if self.store is None or self.store.get(key) is None:
                todo[key] = (portfolio, extra)
        self._run(list(todo.values()))

    def _run(self, pairs: list[tuple[Portfolio, tuple[str, ...]]]) -> None:
        """Run portfolios under uncertain draws on :attr:`pool`; keep and store each."""
        budget = self.plan.base.budget
        assert budget is not None  # load_plan checks it
        blocks = block_progress(self.progress) if self.pool.local else None
        tasks = [(self.plan.base_document, self.plan.overrides(portfolio, extra), budget,
                  self.trials, self.seed, blocks) for portfolio, extra in pairs]  # fmt: skip
        for index, arrays in self.pool.run(portfolio_run, tasks):
            portfolio, extra = pairs[index]
            self.finished(portfolio, arrays, extra)
            if self.progress is not None:
                self.progress(0 if self.pool.local else self.trials, 1)

    def _per_trial(self, portfolio: Portfolio, extra: tuple[str, ...]):
        """Per-trial wall hours and GPU-hours lost, and the hardware price, of a portfolio
        (from what is held or stored when it is there; stored the moment it is computed)."""
        key = self.key(portfolio, extra)
        arrays = self._arrays.get(key)
        if arrays is None and self.store is not None:
            arrays = self.store.get(key)
        if arrays is None:
            self._run([(portfolio, extra)])
            arrays = self._arrays[key]
        return np.array(arrays["wall"]), np.array(arrays["lost"]), float(arrays["price"])

    def _speed(self, portfolio: Portfolio, extra: tuple[str, ...]) -> dict[str, Any]:
        """The portfolio's healthy step time and failure-free hours, from what is held or
        stored (None when not known)."""
        key = self.key(portfolio, extra)
        arrays = self._arrays.get(key)
        if arrays is None and self.store is not None:
            arrays = self.store.get(key)
        arrays = arrays or {}
        return {"step_time_s": arrays.get("step_time_s"), "work_hours": arrays.get("work_hours")}

    def evaluate(self, portfolio: Portfolio, extra: tuple[str, ...] = ()) -> Evaluation:
        """The portfolio's evaluation (under the uncertain draw ``extra``), cached."""
        key = (portfolio, extra)
        if key in self.cache:
            return self.cache[key]
        if extra not in self._base:
            self._base[extra] = self._per_trial(self.plan.empty(), extra)
        base_wall, base_lost, base_price = self._base[extra]
        if portfolio == self.plan.empty():
            wall, lost, price = base_wall, base_lost, base_price
        else:
            wall, lost, price = self._per_trial(portfolio, extra)
        cost = price - base_price + self.plan.extra_price(portfolio)
        evaluation = replace(
            _evaluate(self.plan, portfolio, cost, wall, lost, base_wall, base_lost),
            **self._speed(portfolio, extra),
        )
        self.cache[key] = evaluation
        return evaluation


def portfolio_run(document: dict[str, Any], overrides: list[str], budget: BudgetConfig,
                  trials: int, seed: int,
                  progress: Callable[[int], None] | None = None) -> dict[str, Any]:  # fmt: skip
    """Simulate one portfolio: per-trial wall hours and GPU-hours lost, and the price of
    the hardware its job holds (runs here, in a worker process or on Dask).

    Returns
    -------
    dict
        ``wall`` and ``lost`` (lists, one entry per trial), ``price`` (currency),
        ``step_time_s`` (the healthy step, seconds, or None) and ``work_hours`` (the
        failure-free hours).
    """
    config = parse_config(document, overrides)
    result = run_scenario(config, trials, seed, "plan", progress=progress)
    job = result.model.job
    wall = result.outcomes.wall_hours
    lost = (wall - job.work_hours) * job.gpus
    price = hardware_price(config, result.model.inventory, budget)
    step_hours = result.model.step_hours
    return {"wall": wall.tolist(), "lost": lost.tolist(), "price": float(price),
            "step_time_s": step_hours * 3600.0 if step_hours is not None else None,
            "work_hours": float(job.work_hours)}


def _evaluate(plan: Plan, portfolio: Portfolio, cost: float, wall: np.ndarray,
              lost: np.ndarray, base_wall: np.ndarray,
              base_lost: np.ndarray) -> Evaluation:  # fmt: skip
    objective = plan.spec.objective
    budget = plan.base.budget
    assert budget is not None
    if objective == "net_value":
        per_trial = (base_lost - lost) * budget.gpu_hour_value - cost * wall / budget.amortization
        value, ci = _mean_ci(per_trial)
        gain = value
    elif objective == "gpu_hours_lost":
        value, ci = _mean_ci(lost)
        gain = float(np.mean(base_lost - lost))
    else:
        value, ci = _quantile_ci(wall, 0.95)
        gain = float(np.quantile(base_wall, 0.95)) - value
    return Evaluation(portfolio, plan.names(portfolio), float(cost), value, ci, gain)


def _mean_ci(values: np.ndarray) -> tuple[float, tuple[float, float]]:
    mean = float(np.mean(values))
    sem = float(np.std(values, ddof=1)) / math.sqrt(values.size) if values.size > 1 else 0.0
    return mean, (mean - Z_95 * sem, mean + Z_95 * sem)


def _quantile_ci(values: np.ndarray, q: float) -> tuple[float, tuple[float, float]]:
    """The ``q`` quantile with a distribution-free 95% CI from order statistics."""
    from scipy import stats

    ordered = np.sort(values)
    n = ordered.size
    low = int(stats.binom.ppf(0.025, n, q))
    high = int(stats.binom.ppf(0.975, n, q))
    value = float(np.quantile(values, q))
    return value, (float(ordered[max(low - 1, 0)]), float(ordered[min(high, n - 1)]))


def run_plan(plan: Plan, trials: int | None = None, seed: int | None = None,
             workers: int | None = None, progress: Progress | None = None,
             store: PointStore | None = None, client: Any = None,
             pool: PointPool | None = None) -> dict[str, Any]:  # fmt: skip
    """Search a plan's portfolios, pick the best within its budget, attribute its gain and
    test the recommendation against the uncertain inputs.

    Parameters
    ----------
    plan : Plan
        From :func:`relplan.config.plan.load_plan`.
    trials, seed : int, optional
        Monte Carlo settings (default: the plan's).
    workers : int, optional
        Portfolio runs at once on local processes (1: one after another in this
        process); by default the base config's ``simulation.workers`` when it sets it,
        else every core (see :mod:`relplan.analysis.executor`). Changes no number.
    progress : callable, optional
        Called with ``(trials, points)`` newly finished (see
        :data:`relplan.analysis.executor.Progress`); a point is a portfolio run.
    store : PointStore, optional
        Finished portfolios: reused when found, each stored, by this process, the moment
        it is computed.
    client : distributed.Client, optional
        Run the portfolios on this Dask cluster (see
        :func:`relplan.analysis.executor.dask_client`); the numbers do not change.
    pool : PointPool, optional
        Where the portfolios run, already made (see
        :meth:`relplan.analysis.executor.PointPool.start`); used instead of ``workers``
        and ``client``.

    Notes
    -----
    The runs go to the pool in batches, each run at once: every portfolio of an
    exhaustive search; the base and its single moves, then each step's neighbours, of
    the local search; the coalitions of the Shapley values; every draw of the
    uncertainty report.

    Returns
    -------
    dict
        ``plan``, ``objective``, ``sense``, ``budget``, ``trials``, ``seed``, ``search``
        (``exhaustive`` or ``local``), ``evaluated`` (portfolios run), ``portfolios``
        (every evaluated one), ``frontier`` (a list of ``{options, hardware_cost,
        objective, ci95}`` by cost), ``best`` (``{options, hardware_cost, objective,
        gain}``), ``attribution`` (label -> Shapley value, adding up to the best's gain)
        ``uncertainty`` (see :func:`uncertainty_report`; empty without uncertain
        inputs) and ``provenance`` (:func:`plan_provenance`).
    """
    if pool is not None:
        return _run_plan(plan, trials, seed, pool, progress, store)
    if workers is None:
        workers = default_workers(configured_workers(plan.base))
    with PointPool(workers, client) as made:
        return _run_plan(plan, trials, seed, made, progress, store)


def _run_plan(plan: Plan, trials: int | None, seed: int | None, pool: PointPool,
              progress: Progress | None, store: PointStore | None) -> dict[str, Any]:  # fmt: skip
    spec = plan.spec
    run = PlanRun(plan, trials or spec.trials, spec.seed if seed is None else seed, pool,
                  progress, store)  # fmt: skip
    levels = [len(option.level_overrides()) for option in plan.options]
    total = math.prod(count + 1 for count in levels)
    if total <= spec.exhaustive_limit:
        search = "exhaustive"
        run.prefetch((portfolio, ()) for portfolio in all_portfolios(levels))
        for portfolio in all_portfolios(levels):
            run.evaluate(portfolio)
    else:
        search = "local"
        local_search(levels, run.evaluate, spec.budget, run.sense,
                     prefetch=lambda portfolios: run.prefetch((p, ()) for p in portfolios))
    evaluated = [e for (p, extra), e in run.cache.items() if not extra]
    frontier = pareto_frontier(evaluated, run.sense)
    best = best_within(evaluated, spec.budget, run.sense)
    bought = [i for i, level in enumerate(best.portfolio) if level >= 0]

    def coalition_gain(coalition: frozenset[int]) -> float:
        portfolio = tuple(best.portfolio[i] if i in coalition else -1
                          for i in range(len(levels)))  # fmt: skip
        return run.evaluate(portfolio).gain

    run.prefetch((tuple(level if i in coalition else -1
                        for i, level in enumerate(best.portfolio)), ())
                 for size in range(len(bought) + 1)
                 for coalition in itertools.combinations(bought, size))  # fmt: skip
    shapley = shapley_values(bought, coalition_gain)
    attribution = {plan.options[i].level_names()[best.portfolio[i]]: value
                   for i, value in shapley.items()}  # fmt: skip
    result: dict[str, Any] = {
        "plan": spec.name or plan.path.stem,
        "question": spec.question,
        "objective": spec.objective,
        "sense": run.sense,
        "budget": spec.budget,
        "trials": run.trials,
        "seed": run.seed,
        "search": search,
        "portfolio_count": total,
        "evaluated": len(evaluated),
        "portfolios": [e.as_dict() for e in sorted(evaluated, key=lambda e: e.hardware_cost)],
        "frontier": [{k: v for k, v in e.as_dict().items() if k != "gain"} for e in frontier],
        "best": {k: v for k, v in best.as_dict().items() if k != "ci95"},
        "attribution": attribution,
        "uncertainty": uncertainty_report(run, frontier, best),
        "provenance": plan_provenance(plan, run.trials, run.seed),
    }
    return result


def plan_provenance(plan: Plan, trials: int, seed: int) -> dict[str, Any]:
    """The provenance record of a plan's outputs: its ``config_sha256`` digests the plan's
    specification, its uncertain inputs and the resolved base config together.

    Examples
    --------
    >>> from relplan.config.plan import load_plan
    >>> record = plan_provenance(load_plan("studies/redundancy-plan-seed-moe.toml"), 10, 0)
    >>> sorted(record)
    ['config_sha256', 'relplan_version', 'seed', 'trials']
    """
    digest = config_digest({"plan": plan.spec.model_dump(mode="json"),
                            "uncertainty": plan.uncertainty.model_dump(mode="json"),
                            "base": config_digest(plan.base)})  # fmt: skip
    return provenance_record(digest, seed, trials)


def uncertainty_report(run: PlanRun, frontier: list[Evaluation],
                       best: Evaluation) -> dict[str, Any]:  # fmt: skip
    """Re-evaluate the frontier under Latin-hypercube draws of the uncertain inputs.

    Returns
    -------
    dict
        Empty without uncertain inputs; else ``samples``, ``p_best_stays_best`` (share of
        draws in which the recommended portfolio is still the best affordable one of the
        frontier), ``p_gain_positive`` (share in which it still beats the base), and
        ``tornado``: per input, the recommended portfolio's objective at the input's low
        and high ends (the others at their midpoints) and the swing, largest first.
    """
    inputs = run.plan.uncertainty.inputs
    if not inputs:
        return {}
    from scipy.stats import qmc

    keys = list(inputs)
    samples = run.plan.uncertainty.samples
    draws = qmc.LatinHypercube(d=len(keys), seed=run.seed).random(samples)
    extras = [tuple(f"{k}={inputs[k].value_at(float(u))}" for k, u in zip(keys, draw,
                                                                          strict=True))
              for draw in draws]  # fmt: skip
    ends = []
    for key in keys:
        middle = tuple(f"{k}={inputs[k].value_at(0.5)}" for k in keys if k != key)
        ends.append(((*middle, f"{key}={inputs[key].value_at(0.0)}"),
                     (*middle, f"{key}={inputs[key].value_at(1.0)}")))  # fmt: skip
    portfolios = [*dict.fromkeys([e.portfolio for e in frontier] + [best.portfolio])]
    run.prefetch([*((p, extra) for extra in extras for p in portfolios),
                  *((best.portfolio, end) for pair in ends for end in pair)])  # fmt: skip
    stays, positive = 0, 0
    for extra in extras:
        evaluations = [run.evaluate(e.portfolio, extra) for e in frontier]
        chosen = best_within(evaluations, run.plan.spec.budget, run.sense)
        stays += chosen.portfolio == best.portfolio
        positive += run.evaluate(best.portfolio, extra).gain > 0
    tornado = []
    for key, (low_end, high_end) in zip(keys, ends, strict=True):
        low = run.evaluate(best.portfolio, low_end)
        high = run.evaluate(best.portfolio, high_end)
        tornado.append({"input": key, "low": str(inputs[key].low),
                        "high": str(inputs[key].high), "objective_low": low.objective,
                        "objective_high": high.objective,
                        "swing": abs(high.objective - low.objective)})  # fmt: skip
    tornado.sort(key=lambda row: -row["swing"])
    return {"samples": samples, "p_best_stays_best": stays / samples,
            "p_gain_positive": positive / samples, "tornado": tornado}
