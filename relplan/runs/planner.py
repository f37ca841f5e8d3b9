"""The redundancy planner: the best portfolio of options under a budget, what each option
in it is worth, and how sure the answer is.

Every portfolio (a level of each option, or none) runs on the same failure streams as the
base (common random numbers), so differences between portfolios are paired trial by
trial and their confidence intervals are tight. A portfolio's hardware cost is the price
of the hardware its job holds beyond the base's (inventory difference at the base's
``[budget]`` prices, as in ``compare``) plus the options' own prices.

The objective is one of :data:`relplan.config.plan.PLAN_OBJECTIVES`:

- ``net_value`` (more is better): the value of the GPU-hours saved against the base
  (wall hours x GPUs, so a slower or faster healthy step and more or fewer GPUs count)
  minus the extra hardware charge, per trial then averaged; the one definition,
  :func:`relplan.cluster.budget.net_value_of`, shared with ``compare`` and ``sweep``;
- ``goodput`` (more is better): mean goodput;
- ``wall_hours`` (less is better): mean wall time;
- ``gpu_hours_lost`` (less is better): mean GPU-hours lost;
- ``p95_wall_hours`` (less is better): the 95th percentile of the wall time, with a
  distribution-free confidence interval from order statistics;
- ``cost_per_useful_gpu_hour`` (less is better): the hardware charge of the run (the
  portfolio's whole price spread over ``amortization``, charged for its wall time) per
  GPU-hour of useful work;
- ``goodput_per_dollar`` (more is better): goodput gained against the base per unit of
  extra hardware cost (the base scores 0; an option that costs nothing is refused).

Every portfolio carries the figures behind its objective whatever the objective
(:data:`PORTFOLIO_FIGURES`): goodput with its CI, mean and P95 wall hours, GPU-hours
lost and spent, healthy step time, and, with a ``[budget]``, the hardware charge, the
value lost and the net value.

A design whose switches lack ports (dual-ToR doubling the leaves under spines that were
full) is priced with the switches it would need
(:func:`relplan.cluster.budget.switches_for_ports`), as in ``compare``; when the base
config has no price for those switches (no ``[budget]``, or none for the tier), an
option level that needs them is left out, with a warning naming the port budget, and a
plan left with no option is refused
(:func:`relplan.runs.plan_checks.fit_plan_to_fabric`).

Beside the best portfolio the plan names its runner-up: the rival that wins most often
over the uncertain draws (without draws, or when none beats the best, the second best
within the budget), how often it beats the best, and a tornado ranked by the decision:
the best's lead over the runner-up with each uncertain input at its low and high end.

The search is exhaustive up to ``plan.exhaustive_limit`` portfolios; beyond, a local
search (greedy steps from the base, then single-option moves until none improves, from
several starting points) whose quality ``tests/runs/test_planner.py`` measures against
the exhaustive answer on smaller cases. Each option's worth inside the best portfolio is
its Shapley value: its marginal gain averaged over every order of buying the portfolio's
options; the values add up to the portfolio's gain over the base. Beside it, its
marginal value: what removing it from the best portfolio (keeping the others) costs.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from relplan.analysis.provenance import config_digest, provenance_record
from relplan.cluster.budget import (
    billing_factor,
    gpu_hours_saved,
    hardware_price,
    net_value_of,
    priced_cost,
    switches_for_ports,
)
from relplan.cluster.topology import build_inventory
from relplan.config.fleet_config import parse_fleet
from relplan.config.loading import parse_config
from relplan.config.plan import PLAN_OBJECTIVES, Plan, Portfolio
from relplan.config.schema import BudgetConfig
from relplan.errors import ConfigError
from relplan.runs.executor import (
    PointPool,
    Progress,
    block_progress,
    configured_workers,
    default_workers,
)
from relplan.runs.fleet import run_fleet
from relplan.runs.fleet_compare import fleet_digest, fleet_hardware_price
from relplan.runs.plan_checks import fit_plan_to_fabric
from relplan.runs.scenarios import run_scenario
from relplan.runs.store import PointStore, point_key
from relplan.stats.summary import mean_ci, quantile_ci
from relplan.units import format_money

MIN_TRIALS = 2
"""Trials per portfolio a plan needs: its confidence intervals come from the spread
between trials."""

PORTFOLIO_FIGURES: tuple[str, ...] = (
    "goodput", "goodput_ci95", "wall_hours", "wall_hours_p95", "gpu_hours_lost",
    "step_time_s", "work_hours", "job_gpus", "gpu_hours", "gpu_hours_saved",
    "switches_for_ports", "hardware_charge", "extra_hardware_charge", "lost_value",
    "net_value",
)  # fmt: skip
"""What every evaluated portfolio carries beside its objective: mean goodput and its 95%
CI, mean and 95th-percentile wall hours, mean GPU-hours lost, the healthy step time in
seconds (the simulation model's step; None without one), the failure-free hours (with
work in steps or tokens, steps times the design's own step), the job's GPUs, the mean
GPU-hours the run holds (wall x GPUs) and those saved against the base, the switches
added because the fabric lacks ports (tier -> count,
:func:`relplan.cluster.budget.switches_for_ports`), and with a ``[budget]`` the hardware
charge (the whole price, option prices and added switches included, spread over
``amortization`` and charged for the mean wall time), the extra charge against the
base, the value of the GPU-hours lost and the net value against the base (None without
a budget)."""

STORE_KIND = "plan3"
"""The store's kind for a portfolio run (``plan3``: the run holds its job's GPUs, which
net value needs, and the switches its ports need; ``plan2`` runs lack them)."""


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
    figures : dict
        The figures behind it (:data:`PORTFOLIO_FIGURES`).
    """

    portfolio: Portfolio
    options: list[str]
    hardware_cost: float
    objective: float
    ci95: tuple[float, float]
    gain: float
    figures: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """The JSON form: ``options``, ``hardware_cost``, ``objective``, ``ci95``,
        ``gain`` and the :data:`PORTFOLIO_FIGURES`."""
        return {"options": list(self.options), "hardware_cost": self.hardware_cost,
                "objective": self.objective, "ci95": list(self.ci95), "gain": self.gain,
                **self.figures}


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
    _base: dict[tuple[str, ...], dict[str, Any]] = field(default_factory=dict)
    _arrays: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def sense(self) -> str:
        """"max" or "min" for the plan's objective."""
        return PLAN_OBJECTIVES[self.plan.spec.objective]

    def key(self, portfolio: Portfolio, extra: tuple[str, ...] = ()) -> str:
        """The store key of a portfolio's run (its resolved config, or fleet, seed and
        trials)."""
        if self.plan.is_fleet:
            digest = fleet_digest(self.plan.fleet(portfolio, extra))
        else:
            digest = config_digest(self.plan.config(portfolio, extra))
        return point_key(digest, self.seed, self.trials, STORE_KIND)

    def finished(self, portfolio: Portfolio, arrays: dict[str, Any],
                 extra: tuple[str, ...] = ()) -> None:  # fmt: skip
        """Keep a portfolio's run, and store it."""
        key = self.key(portfolio, extra)
        self._arrays[key] = arrays
        if self.store is not None:
            self.store.put(key, arrays, STORE_KIND, "; ".join(self.plan.names(portfolio)) or "base")

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
        blocks = block_progress(self.progress) if self.pool.local else None
        tasks = [(self.plan.base_document, self.plan.overrides(portfolio, extra), budget,
                  self.trials, self.seed, blocks) for portfolio, extra in pairs]  # fmt: skip
        run = fleet_portfolio_run if self.plan.is_fleet else portfolio_run
        for index, arrays in self.pool.run(run, tasks):
            portfolio, extra = pairs[index]
            self.finished(portfolio, arrays, extra)
            if self.progress is not None:
                self.progress(0 if self.pool.local else self.trials, 1)

    def _per_trial(self, portfolio: Portfolio, extra: tuple[str, ...]) -> dict[str, Any]:
        """A portfolio's run (see :func:`portfolio_run`), from what is held or stored when
        it is there; stored the moment it is computed."""
        key = self.key(portfolio, extra)
        arrays = self._arrays.get(key)
        if arrays is None and self.store is not None:
            arrays = self.store.get(key)
        if arrays is None:
            self._run([(portfolio, extra)])
            arrays = self._arrays[key]
        return arrays

    def evaluate(self, portfolio: Portfolio, extra: tuple[str, ...] = ()) -> Evaluation:
        """The portfolio's evaluation (under the uncertain draw ``extra``), cached."""
        key = (portfolio, extra)
        if key in self.cache:
            return self.cache[key]
        if extra not in self._base:
            self._base[extra] = self._per_trial(self.plan.empty(), extra)
        base = self._base[extra]
        run = base if portfolio == self.plan.empty() else self._per_trial(portfolio, extra)
        evaluation = _evaluate(self.plan, portfolio, run, base)
        self.cache[key] = evaluation
        return evaluation


def portfolio_run(document: dict[str, Any], overrides: list[str], budget: BudgetConfig | None,
                  trials: int, seed: int,
                  progress: Callable[[int], None] | None = None) -> dict[str, Any]:  # fmt: skip
    """Simulate one portfolio: its per-trial figures, the price of the hardware its job
    holds and its healthy step time (runs here, in a worker process or on Dask).

    Returns
    -------
    dict
        ``wall``, ``lost`` (GPU-hours) and ``goodput`` (lists, one entry per trial, as
        :meth:`relplan.analysis.results.SimulationResult.trials_frame` has them),
        ``price`` (currency, the switches its ports need included; 0 without a budget),
        ``gpus`` (the job's GPUs), ``switches`` (tier -> switches added for the ports the
        fabric lacks), ``step_time_s`` (the design's healthy step, seconds; None without
        a step time) and ``work_hours`` (its failure-free hours: with work in steps or
        tokens, steps times its own step).
    """
    config = parse_config(document, overrides)
    result = run_scenario(config, trials, seed, "plan", progress=progress)
    table = result.trials_frame()
    inventory = result.model.inventory
    price = hardware_price(config, inventory, budget) if budget is not None else 0.0
    step_hours = result.model.step_hours
    run = {"wall": table["wall_hours"].tolist(), "lost": table["gpu_hours_lost"].tolist(),
           "goodput": table["goodput"].tolist(), "price": float(price),
           "gpus": int(config.job.gpus), "switches": switches_for_ports(inventory),
           "step_time_s": step_hours * 3600.0 if step_hours is not None else None,
           "work_hours": float(result.model.job.work_hours)}  # fmt: skip
    billing = billing_factor(config, budget) if budget is not None else 1.0
    if billing != 1.0:  # spot capacity: its GPU-hours cost less
        run["billing"] = billing
    return run


def fleet_portfolio_run(document: dict[str, Any], overrides: list[str],
                        budget: BudgetConfig | None, trials: int, seed: int,
                        progress: Callable[[int], None] | None = None,
                        ) -> dict[str, Any]:  # fmt: skip
    """:func:`portfolio_run` of a plan whose base is a fleet: the whole fleet run
    (:func:`relplan.runs.fleet.run_fleet`), its makespan as ``wall``, its GPU-hours lost
    and goodput, and its GPU-hours per trial (``gpu_hours``: wall hours x GPUs over its
    jobs, what net value compares); priced as ``compare`` prices fleets
    (:func:`relplan.runs.fleet_compare.fleet_hardware_price`), its ``gpus`` all its
    jobs', its ``work_hours`` their failure-free hours over its GPUs."""
    fleet = parse_fleet(document, overrides)
    outcome = run_fleet(fleet, trials, seed)
    columns = outcome.trials_frame()
    whole = fleet.as_one_job()
    price = fleet_hardware_price(fleet, budget) if budget is not None else 0.0
    if progress is not None:
        progress(trials)
    return {"wall": columns["makespan_hours"].tolist(),
            "lost": columns["gpu_hours_lost"].tolist(), "goodput": columns["goodput"].tolist(),
            "gpu_hours": columns["gpu_hours"].tolist(), "price": float(price),
            "gpus": fleet.gpus, "switches": switches_for_ports(build_inventory(whole)),
            "step_time_s": None,
            "work_hours": sum(outcome.results[job.name].model.job.work_hours * job.gpus
                              for job in fleet.jobs) / fleet.gpus}  # fmt: skip


def _objective_per_trial(objective: str, plan: Plan, run: dict[str, Any],
                         base: dict[str, Any], cost: float, price: float,
                         names: list[str]) -> np.ndarray:  # fmt: skip
    """The objective of each trial (``p95_wall_hours``: the wall time, whose 95th
    percentile is taken)."""
    budget = plan.base.budget
    if objective == "net_value":
        assert budget is not None  # load_plan checks it
        return net_value_of(_paid_gpu_hours_saved(base, run), cost, run["wall"], budget)
    if objective == "goodput":
        return run["goodput"]
    if objective in ("wall_hours", "p95_wall_hours"):
        return run["wall"]
    if objective == "gpu_hours_lost":
        return run["lost"]
    if objective == "cost_per_useful_gpu_hour":
        assert budget is not None
        useful_gpu_hours = (run["wall"] * run["goodput"] * run["gpus"] if "gpu_hours" not in run
                            else run["gpu_hours"] * run["goodput"])  # (a fleet's: summed)
        return price * run["wall"] / budget.amortization / useful_gpu_hours
    if objective == "goodput_per_dollar":
        if not names:
            return np.zeros_like(run["goodput"])
        if cost <= 0:
            raise ConfigError("plan.objective", f"goodput_per_dollar: {' + '.join(names)} "
                                                "costs no extra hardware; give the option a "
                                                "price, or choose another objective")
        return (run["goodput"] - base["goodput"]) / cost
    raise AssertionError(objective)  # the schema allows only PLAN_OBJECTIVES


def _paid_gpu_hours_saved(base: dict[str, Any], run: dict[str, Any]) -> Any:
    """GPU-hours a run saves against the base at the price paid for them (spot capacity's
    at its discount, :func:`relplan.cluster.budget.billing_factor`), per trial; a fleet's
    GPU-hours summed over its jobs."""
    if "gpu_hours" in run:
        return base["gpu_hours"] - run["gpu_hours"]
    return gpu_hours_saved(base["wall"], base["gpus"] * base["billing"], run["wall"],
                           run["gpus"] * run["billing"])  # fmt: skip


def _columns(stored: dict[str, Any]) -> dict[str, Any]:
    """A stored run's per-trial lists as arrays (a fleet's ``gpu_hours`` too), with its
    job's GPUs and the share of ``gpu_hour_value`` its GPU-hours cost."""
    columns = {name: np.asarray(stored[name], dtype=float)
               for name in ("wall", "lost", "goodput", "gpu_hours") if name in stored}
    return {**columns, "gpus": int(stored["gpus"]), "billing": float(stored.get("billing", 1.0))}


def _evaluate(plan: Plan, portfolio: Portfolio, stored: dict[str, Any],
              stored_base: dict[str, Any]) -> Evaluation:  # fmt: skip
    """A portfolio's objective, its gain over the base and the figures behind them."""
    run, base = _columns(stored), _columns(stored_base)
    objective = plan.spec.objective
    sense = PLAN_OBJECTIVES[objective]
    names = plan.names(portfolio)
    price = float(stored["price"]) + plan.extra_price(portfolio)
    base_price = float(stored_base["price"])
    cost = price - base_price
    per_trial = _objective_per_trial(objective, plan, run, base, cost, price, names)
    base_trial = _objective_per_trial(objective, plan, base, base, 0.0, base_price, [])
    if objective == "p95_wall_hours":
        value, ci = quantile_ci(per_trial, 0.95)
        base_value = float(np.quantile(base_trial, 0.95))
    else:
        value, _, ci = mean_ci(per_trial)
        base_value = float(np.mean(base_trial))
    gain = value - base_value if sense == "max" else base_value - value
    if objective == "net_value":
        gain = value  # the base's net value is 0 by definition
    goodput, _, goodput_ci = mean_ci(run["goodput"])
    wall_hours = float(np.mean(run["wall"]))
    gpu_hours_lost = float(np.mean(run["lost"]))
    if "gpu_hours" in run:  # a fleet's: summed over its jobs
        saved = float(np.mean(base["gpu_hours"] - run["gpu_hours"]))
    else:
        saved = float(np.mean(gpu_hours_saved(base["wall"], base["gpus"], run["wall"],
                                              run["gpus"])))  # fmt: skip
    figures: dict[str, Any] = {
        "goodput": goodput, "goodput_ci95": list(goodput_ci), "wall_hours": wall_hours,
        "wall_hours_p95": float(np.quantile(run["wall"], 0.95)),
        "gpu_hours_lost": gpu_hours_lost, "step_time_s": stored.get("step_time_s"),
        "work_hours": stored.get("work_hours"), "job_gpus": run["gpus"],
        "gpu_hours": wall_hours * run["gpus"] if "gpu_hours" not in run
        else float(np.mean(run["gpu_hours"])), "gpu_hours_saved": saved,
        "switches_for_ports": dict(stored.get("switches") or {}),
        "hardware_charge": None, "extra_hardware_charge": None, "lost_value": None,
        "net_value": None,
    }  # fmt: skip
    budget = plan.base.budget
    if budget is not None:
        money = priced_cost(price, budget, wall_hours, gpu_hours_lost, run["gpus"])
        figures.update({
            "hardware_charge": money.hardware_charge,
            "extra_hardware_charge": cost * wall_hours / budget.amortization,
            "lost_value": money.lost_value,
            "net_value": float(np.mean(net_value_of(
                _paid_gpu_hours_saved(base, run), cost, run["wall"], budget))),
        })  # fmt: skip
    return Evaluation(portfolio, names, float(cost), value, ci, gain, figures)


def run_plan(plan: Plan, trials: int | None = None, seed: int | None = None,
             workers: int | None = None, progress: Progress | None = None,
             store: PointStore | None = None, client: Any = None,
             pool: PointPool | None = None, fitted: bool = False) -> dict[str, Any]:  # fmt: skip
    """Search a plan's portfolios, pick the best within its budget, attribute its gain and
    test the recommendation against the uncertain inputs.

    Parameters
    ----------
    plan : Plan
        From :func:`relplan.config.plan.load_plan`.
    trials, seed : int, optional
        Monte Carlo settings (default: the plan's, else the base config's
        ``[simulation]``; at least :data:`MIN_TRIALS` trials).
    workers : int, optional
        Portfolio runs at once on local processes (1: one after another in this
        process); by default the base config's ``simulation.workers`` when it sets it,
        else every core (see :mod:`relplan.runs.executor`). Changes no number.
    progress : callable, optional
        Called with ``(trials, points)`` newly finished (see
        :data:`relplan.runs.executor.Progress`); a point is a portfolio run.
    store : PointStore, optional
        Finished portfolios: reused when found, each stored, by this process, the moment
        it is computed.
    client : distributed.Client, optional
        Run the portfolios on this Dask cluster (see
        :func:`relplan.runs.executor.dask_client`); the numbers do not change.
    pool : PointPool, optional
        Where the portfolios run, already made (see
        :meth:`relplan.runs.executor.PointPool.start`); used instead of ``workers``
        and ``client``.
    fitted : bool
        The plan has been through
        :func:`relplan.runs.plan_checks.fit_plan_to_fabric` already (its warnings
        given); else it is, first.

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
        (``exhaustive`` or ``local``), ``evaluated`` (portfolios run), ``assumptions``
        (:func:`plan_assumptions`), ``portfolios`` (every evaluated one: ``options``,
        ``hardware_cost``, ``objective``, ``ci95``, ``gain`` and the
        :data:`PORTFOLIO_FIGURES`), ``frontier`` (the same without ``gain``, by cost),
        ``base`` (the base portfolio, the same keys) and ``base_goodput``, ``best`` (the
        same without ``ci95``, plus ``marginal``: per option bought, what removing it
        from the best costs, in the objective's unit), ``runner_up`` (the portfolio
        keys, plus ``chosen_by``, ``lead`` and ``p_beats_best``; see
        :func:`uncertainty_report`; None when nothing else is affordable),
        ``attribution`` (label -> Shapley value, adding up to the best's gain),
        ``uncertainty`` (see :func:`uncertainty_report`; empty without uncertain inputs)
        and ``provenance`` (:func:`plan_provenance`).
    """
    if pool is not None:
        return _run_plan(plan, trials, seed, pool, progress, store, fitted)
    if workers is None:
        workers = default_workers(configured_workers(plan.base))
    with PointPool(workers, client) as made:
        return _run_plan(plan, trials, seed, made, progress, store, fitted)


def plan_settings(plan: Plan, trials: int | None = None, seed: int | None = None,
                  trials_key: str = "trials") -> tuple[int, int]:  # fmt: skip
    """The trials and seed a plan runs with: those given, else the plan's, else the base
    config's ``[simulation]``.

    Raises
    ------
    ConfigError
        With fewer than :data:`MIN_TRIALS` trials, naming ``trials_key`` (``--trials``
        on the command line) or the key they came from.

    Examples
    --------
    >>> from relplan.config.plan import load_plan
    >>> plan_settings(load_plan("studies/redundancy-plan-seed-moe.toml"), trials=30)
    (30, 0)
    """
    spec, simulation = plan.spec, plan.base.simulation
    if trials is not None:
        key = trials_key
    elif spec.trials is not None:
        trials, key = spec.trials, "plan.trials"
    else:
        trials, key = simulation.trials, "simulation.trials (the base config's)"
    if trials < MIN_TRIALS:
        raise ConfigError(key, f"a plan needs at least {MIN_TRIALS} trials per portfolio: its "
                               f"confidence intervals come from the spread between trials "
                               f"(got {trials})")  # fmt: skip
    if seed is None:
        seed = spec.seed if spec.seed is not None else simulation.seed
    return trials, seed


def check_options_affordable(plan: Plan) -> None:
    """Refuse, before any simulation, a plan whose every option costs more than its
    spend limit (the inventory difference at the base's prices plus the option's own
    price; no simulation is needed to price hardware).

    Raises
    ------
    ConfigError
        Naming ``plan.budget``.
    """
    limit = plan.spec.budget
    if limit is None:
        return
    budget = plan.base.budget

    def price(portfolio: Portfolio) -> float:
        if budget is None:
            return plan.extra_price(portfolio)
        config = plan.config(portfolio)
        return hardware_price(config, build_inventory(config), budget) + plan.extra_price(
            portfolio)

    base_price = price(plan.empty())
    cheapest = math.inf
    for index, option in enumerate(plan.options):
        for level in range(len(option.level_overrides())):
            portfolio = tuple(level if i == index else -1 for i in range(len(plan.options)))
            cheapest = min(cheapest, price(portfolio) - base_price)
    if cheapest > limit + 1e-9:
        raise ConfigError("plan.budget", f"every option costs more than the spend limit of "
                                         f"{format_money(limit)} (the cheapest: "
                                         f"{format_money(cheapest)}): nothing to choose")


def plan_assumptions(plan: Plan) -> dict[str, Any]:
    """The money assumptions a plan's figures rest on: ``currency``, ``gpu_hour_value``,
    ``amortization_hours``, ``prices`` (per component class) and ``option_prices`` (per
    level bought, its own price beyond the inventory), and ``job_gpus``; the money keys
    are None without a ``[budget]``.

    Examples
    --------
    >>> from relplan.config.plan import load_plan
    >>> plan_assumptions(load_plan("studies/redundancy-plan-seed-moe.toml"))["currency"]
    '$'
    """
    budget = plan.base.budget
    option_prices = {name: price for option in plan.options
                     for name, price in zip(option.level_names(), option.level_prices(),
                                            strict=True)}  # fmt: skip
    return {
        "currency": budget.currency if budget is not None else None,
        "gpu_hour_value": budget.gpu_hour_value if budget is not None else None,
        "amortization_hours": budget.amortization if budget is not None else None,
        "prices": dict(budget.prices) if budget is not None else None,
        "option_prices": option_prices,
        "job_gpus": plan.base.job.gpus,
    }


def _run_plan(plan: Plan, trials: int | None, seed: int | None, pool: PointPool,
              progress: Progress | None, store: PointStore | None,
              fitted: bool = False) -> dict[str, Any]:  # fmt: skip
    spec = plan.spec
    trials, seed = plan_settings(plan, trials, seed)
    if not fitted:
        plan = fit_plan_to_fabric(plan)
    check_options_affordable(plan)
    run = PlanRun(plan, trials, seed, pool, progress, store)
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

    def without(coalition: Iterable[int]) -> Portfolio:
        kept = set(coalition)
        return tuple(best.portfolio[i] if i in kept else -1 for i in range(len(levels)))

    def coalition_gain(coalition: frozenset[int]) -> float:
        return run.evaluate(without(coalition)).gain

    run.prefetch((without(coalition), ())
                 for size in range(len(bought) + 1)
                 for coalition in itertools.combinations(bought, size))  # fmt: skip
    shapley = shapley_values(bought, coalition_gain)
    attribution = {plan.options[i].level_names()[best.portfolio[i]]: value
                   for i, value in shapley.items()}  # fmt: skip
    marginal = {plan.options[i].level_names()[best.portfolio[i]]:
                best.gain - coalition_gain(frozenset(bought) - {i})
                for i in bought}  # fmt: skip
    base = run.evaluate(plan.empty())
    second = runner_up_within(evaluated, best, spec.budget, run.sense)
    uncertainty, rival = _uncertainty(run, frontier, best, second)
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
        "assumptions": plan_assumptions(plan),
        "portfolios": [e.as_dict() for e in sorted(evaluated, key=lambda e: e.hardware_cost)],
        "frontier": [{k: v for k, v in e.as_dict().items() if k != "gain"} for e in frontier],
        "base": base.as_dict(),
        "base_goodput": base.figures["goodput"],
        "best": {**{k: v for k, v in best.as_dict().items() if k != "ci95"},
                 "marginal": marginal},
        "runner_up": rival,
        "attribution": attribution,
        "uncertainty": uncertainty,
        "provenance": plan_provenance(plan, run.trials, run.seed),
    }
    return result


def lead_of(sense: str, best: float, rival: float) -> float:
    """How much better ``best`` is than ``rival`` under ``sense`` (negative: the rival
    wins), in the objective's unit.

    Examples
    --------
    >>> lead_of("max", 5.0, 3.0), lead_of("min", 5.0, 3.0)
    (2.0, -2.0)
    """
    return best - rival if sense == "max" else rival - best


def runner_up_within(evaluations: Iterable[Evaluation], best: Evaluation,
                     budget: float | None, sense: str) -> Evaluation | None:  # fmt: skip
    """The best portfolio within the budget other than ``best`` (None when none is left).

    Examples
    --------
    >>> e = lambda c, o: Evaluation((c,), [], c, o, (o, o), o)
    >>> plans = [e(0, 0), e(1, 5), e(3, 9)]
    >>> runner_up_within(plans, best_within(plans, 2.0, "max"), 2.0, "max").objective
    0
    """
    others = [e for e in evaluations if e.portfolio != best.portfolio
              and (budget is None or e.hardware_cost <= budget + 1e-9)]  # fmt: skip
    return best_within(others, None, sense) if others else None


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


def rival_portfolios(plan: Plan, best: Portfolio, frontier: list[Portfolio]) -> list[Portfolio]:
    """The portfolios the recommendation is tested against under uncertain draws: those
    of ``frontier`` (the frontier, and the runner-up), and every portfolio one option
    away from the best (an option dropped, added or at another level), so that a cheaper
    best is also tested against keeping what the base has.

    Examples
    --------
    >>> from relplan.config.plan import load_plan
    >>> plan = load_plan("studies/redundancy-plan-seed-moe.toml")
    >>> len(rival_portfolios(plan, plan.empty(), []))  # the base and its 8 single moves
    9
    """
    moves = [best]
    for index, option in enumerate(plan.options):
        for level in range(-1, len(option.level_overrides())):
            if level != best[index]:
                moves.append((*best[:index], level, *best[index + 1:]))
    return [*dict.fromkeys([*frontier, *moves])]


def uncertainty_report(run: PlanRun, frontier: list[Evaluation], best: Evaluation,
                       runner_up: Evaluation | None = None) -> dict[str, Any]:  # fmt: skip
    """Re-evaluate the frontier under Latin-hypercube draws of the uncertain inputs.

    Parameters
    ----------
    run : PlanRun
        The plan's evaluations.
    frontier : list of Evaluation
        Its Pareto frontier.
    best : Evaluation
        The recommended portfolio.
    runner_up : Evaluation, optional
        The second best within the budget (:func:`runner_up_within`), tested too.

    Returns
    -------
    dict
        Empty without uncertain inputs; else ``samples``, ``p_best_stays_best`` (share of
        draws in which the recommended portfolio is still the best affordable one among
        its rivals, :func:`rival_portfolios`), ``rivals`` (how many),
        ``p_gain_positive`` (share in which it still beats the base), ``winners`` (each
        portfolio that is the best affordable one in some draw: ``options`` and
        ``share`` of the draws, most first), ``runner_up`` (the options of the rival
        that wins most often, else the second best), ``p_runner_up_beats_best`` (share of
        draws in which it beats the recommended portfolio), and ``tornado``: per input,
        with the input at its low and high end (the others at their midpoints), the
        recommended portfolio's objective (``objective_low``, ``objective_high``,
        ``swing``) and 95th-percentile wall time (``wall_hours_p95_low``,
        ``wall_hours_p95_high``), the runner-up's (``runner_up_low``, ``runner_up_high``,
        ``runner_up_wall_hours_p95_low``, ``runner_up_wall_hours_p95_high``) and the
        recommended one's lead over it (``lead_low``, ``lead_high``: negative, the
        runner-up wins there; ``lead_swing``, ``flips``: whether the lead changes sign
        at an end), ranked by ``lead_swing``: the change in the decision, largest first.
    """
    return _uncertainty(run, frontier, best, runner_up)[0]


def _uncertainty(run: PlanRun, frontier: list[Evaluation], best: Evaluation,
                 second: Evaluation | None) -> tuple[dict[str, Any],
                                                     dict[str, Any] | None]:  # fmt: skip
    """:func:`uncertainty_report`, and the runner-up's figures (``runner_up`` of
    :func:`run_plan`)."""
    sense = run.sense
    inputs = run.plan.uncertainty.inputs

    def rival_figures(rival: Evaluation | None, chosen_by: str,
                      beats: float | None) -> dict[str, Any] | None:  # fmt: skip
        if rival is None:
            return None
        return {**rival.as_dict(), "chosen_by": chosen_by,
                "lead": lead_of(sense, best.objective, rival.objective),
                "p_beats_best": beats}  # fmt: skip

    if not inputs:
        return {}, rival_figures(second, "objective", None)
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
    rivals = rival_portfolios(run.plan, best.portfolio,
                              [e.portfolio for e in frontier]
                              + ([second.portfolio] if second is not None else []))
    run.prefetch([*((p, extra) for extra in extras for p in rivals),
                  *((best.portfolio, end) for pair in ends for end in pair)])  # fmt: skip
    stays, positive = 0, 0
    chosen: list[Portfolio] = []
    for extra in extras:
        evaluations = [run.evaluate(p, extra) for p in rivals]
        winner = best_within(evaluations, run.plan.spec.budget, sense)
        chosen.append(winner.portfolio)
        stays += winner.portfolio == best.portfolio
        positive += run.evaluate(best.portfolio, extra).gain > 0
    counts = {p: chosen.count(p) for p in dict.fromkeys(chosen)}
    winners = sorted(counts, key=lambda p: -counts[p])
    challengers = [p for p in winners if p != best.portfolio]
    runner_up, chosen_by = second, "objective"
    if challengers:  # the rival that wins most often; the better at the base's values
        top = max(counts[p] for p in challengers)
        tied = [run.evaluate(p) for p in challengers if counts[p] == top]
        runner_up = best_within(tied, None, sense)
        chosen_by = "uncertain draws"
    beats = None
    if runner_up is not None:
        beats = sum(better(sense, run.evaluate(runner_up.portfolio, extra).objective,
                           run.evaluate(best.portfolio, extra).objective)
                    for extra in extras) / samples  # fmt: skip
        run.prefetch([(runner_up.portfolio, end) for pair in ends for end in pair])
    tornado = []
    for key, (low_end, high_end) in zip(keys, ends, strict=True):
        low = run.evaluate(best.portfolio, low_end)
        high = run.evaluate(best.portfolio, high_end)
        row: dict[str, Any] = {"input": key, "low": str(inputs[key].low),
                               "high": str(inputs[key].high), "objective_low": low.objective,
                               "objective_high": high.objective,
                               "swing": abs(high.objective - low.objective),
                               "wall_hours_p95_low": low.figures["wall_hours_p95"],
                               "wall_hours_p95_high": high.figures["wall_hours_p95"],
                               "runner_up_low": None, "runner_up_high": None,
                               "runner_up_wall_hours_p95_low": None,
                               "runner_up_wall_hours_p95_high": None,
                               "lead_low": None, "lead_high": None, "lead_swing": 0.0,
                               "flips": False}  # fmt: skip
        if runner_up is not None:
            rival_low = run.evaluate(runner_up.portfolio, low_end)
            rival_high = run.evaluate(runner_up.portfolio, high_end)
            lead_low = lead_of(sense, low.objective, rival_low.objective)
            lead_high = lead_of(sense, high.objective, rival_high.objective)
            lead = lead_of(sense, best.objective, runner_up.objective)
            row.update({"runner_up_low": rival_low.objective,
                        "runner_up_high": rival_high.objective,
                        "runner_up_wall_hours_p95_low": rival_low.figures["wall_hours_p95"],
                        "runner_up_wall_hours_p95_high": rival_high.figures["wall_hours_p95"],
                        "lead_low": lead_low, "lead_high": lead_high,
                        "lead_swing": abs(lead_high - lead_low),
                        "flips": (lead_low < 0.0) != (lead < 0.0)
                        or (lead_high < 0.0) != (lead < 0.0)})  # fmt: skip
        tornado.append(row)
    tornado.sort(key=lambda row: (-row["lead_swing"], -row["swing"]))
    names = run.plan.names
    report = {"samples": samples, "p_best_stays_best": stays / samples, "rivals": len(rivals),
              "p_gain_positive": positive / samples,
              "winners": [{"options": names(p), "share": counts[p] / samples} for p in winners],
              "runner_up": names(runner_up.portfolio) if runner_up is not None else None,
              "p_runner_up_beats_best": beats, "tornado": tornado}  # fmt: skip
    return report, rival_figures(runner_up, chosen_by, beats)
