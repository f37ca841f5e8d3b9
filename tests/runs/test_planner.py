"""The redundancy planner: frontier, budget choice, Shapley attribution, search quality,
uncertainty, and the ``relplan plan`` command."""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest
from typer.testing import CliRunner

from relplan.cli.app import app
from relplan.config.plan import load_plan
from relplan.errors import ConfigError
from relplan.runs import planner
from relplan.runs.plan_checks import fit_plan_to_fabric
from relplan.runs.planner import (
    Evaluation,
    PlanRun,
    all_portfolios,
    best_within,
    local_search,
    pareto_frontier,
    run_plan,
    shapley_values,
)
from tests.conftest import CONFIGS, REPO, assert_config_error

runner = CliRunner()

PLAN = """\
[plan]
base = "{base}"
budget = {budget}
objective = "net_value"
trials = {trials}
[[plan.options]]
label = "A"
set = ["job.restart=7min"]
price = 100.0
[[plan.options]]
label = "B"
set = ["job.checkpoint.write=30s"]
price = 200.0
[[plan.options]]
label = "C"
set = ["job.restart=5min"]
price = 400.0
"""


def _plan_file(tmp_path, budget: float = 350.0, trials: int = 20, extra: str = ""):
    path = tmp_path / "plan.toml"
    path.write_text(PLAN.format(base=CONFIGS / "small.toml", budget=budget, trials=trials) + extra)
    return path


SAVED = {0: 3.0, 1: 2.0, 2: 5.0}
"""GPU-hours saved per trial by each option of the hand-checked plan, alone."""
BOTH_AB = 1.0
"""Extra saving when A and B are bought together (an interaction)."""


def _mocked(monkeypatch) -> None:
    """Replace the simulations: every trial runs 1 h of wall time on 100 - savings GPUs
    (so it spends 100 - savings GPU-hours) and loses 100 - savings GPU-hours, and the
    inventory price is the base's (the options' costs are their own prices)."""

    def per_trial(self, portfolio, extra):
        bought = {i for i, level in enumerate(portfolio) if level >= 0}
        saved = sum(SAVED[i] for i in bought) + (BOTH_AB if {0, 1} <= bought else 0.0)
        lost = np.full(self.trials, 100.0 - saved) + np.linspace(-1, 1, self.trials)
        return {"wall": np.ones(self.trials), "lost": lost, "gpus": int(100 - saved),
                "goodput": np.full(self.trials, 0.5 + 0.01 * saved), "price": 0.0,
                "step_time_s": None, "switches": {}}

    monkeypatch.setattr(PlanRun, "_per_trial", per_trial)
    monkeypatch.setattr(PlanRun, "prefetch", lambda self, pairs: None)  # nothing to run


def test_hand_checked_plan_frontier_budget_choice_and_shapley(tmp_path, monkeypatch) -> None:
    """Costs 100, 200, 400; savings 3, 2, 5 GPU-hours and 1 more for A with B; a GPU-hour
    is worth 2.5 in small.toml, and the charge of 1 wall hour over 4 years is tiny.
    Within 350: A+B (cost 300, saves 6 = 15.0 value) beats C alone (over budget) and A
    (7.5). Shapley inside A+B: A = 3 + 1/2, B = 2 + 1/2, adding up to 6 GPU-hours."""
    _mocked(monkeypatch)
    plan = load_plan(_plan_file(tmp_path))
    result = run_plan(plan)
    value = plan.base.budget.gpu_hour_value
    charge = 1.0 / plan.base.budget.amortization
    assert result["search"] == "exhaustive" and result["evaluated"] == 8
    best = result["best"]
    assert best["options"] == ["A", "B"]
    assert best["hardware_cost"] == pytest.approx(300.0)
    assert best["objective"] == pytest.approx(6 * value - 300 * charge)
    attribution = result["attribution"]
    assert attribution["A"] == pytest.approx(3.5 * value - 100 * charge)
    assert attribution["B"] == pytest.approx(2.5 * value - 200 * charge)
    assert sum(attribution.values()) == pytest.approx(best["gain"])
    # the frontier: base (0), A (100: 3), A+B (300: 6), A+C (500: 8), A+B+C (700: 11);
    # B (200: 2), C (400: 5) and B+C (600: 7) are each beaten by a cheaper portfolio
    frontier = [(tuple(p["options"]), p["hardware_cost"]) for p in result["frontier"]]
    assert frontier == [((), 0.0), (("A",), 100.0), (("A", "B"), 300.0),
                        (("A", "C"), 500.0), (("A", "B", "C"), 700.0)]
    for point in result["frontier"]:  # paired on common streams: the noise cancels
        assert point["ci95"] == pytest.approx([point["objective"]] * 2)
    # a larger budget buys everything
    assert run_plan(load_plan(_plan_file(tmp_path, budget=1e6)))["best"]["options"] == [
        "A", "B", "C"]


def test_pareto_frontier_and_budget_choice_by_hand() -> None:
    e = [Evaluation((i,), [str(i)], c, o, (o, o), o)
         for i, (c, o) in enumerate([(0, 0), (1, 5), (2, 4), (3, 9), (3, 8)])]
    assert [x.portfolio for x in pareto_frontier(e, "max")] == [(0,), (1,), (3,)]
    assert best_within(e, 2.5, "max").portfolio == (1,)
    assert best_within(e, None, "max").portfolio == (3,)
    # less is better: the frontier climbs down
    m = [Evaluation((i,), [], c, o, (o, o), -o) for i, (c, o) in
         enumerate([(0, 10), (1, 12), (2, 7), (3, 7)])]  # fmt: skip
    assert [x.portfolio for x in pareto_frontier(m, "min")] == [(0,), (2,)]
    assert best_within(m, None, "min").portfolio == (2,)  # the cheaper of a tie


def test_shapley_values_add_up_and_match_a_permutation_average() -> None:
    rng = np.random.default_rng(3)
    weights = rng.normal(size=5)
    pairs = rng.normal(size=(5, 5))

    def value(coalition: frozenset[int]) -> float:
        members = sorted(coalition)
        return float(sum(weights[i] for i in members)
                     + sum(pairs[i, j] for i, j in itertools.combinations(members, 2)))

    shapley = shapley_values(list(range(5)), value)
    assert sum(shapley.values()) == pytest.approx(value(frozenset(range(5))))
    # the definition: the marginal value averaged over all 120 orders
    average = dict.fromkeys(range(5), 0.0)
    for order in itertools.permutations(range(5)):
        seen: frozenset[int] = frozenset()
        for player in order:
            average[player] += (value(seen | {player}) - value(seen)) / math.factorial(5)
            seen = seen | {player}
    assert shapley == pytest.approx(average)


def _random_plan(rng: np.random.Generator, levels: list[int]):
    """A random plan: gains and costs per level, pairwise interactions, a budget; its
    evaluate function caches into the returned dict."""
    n = len(levels)
    gains = [rng.uniform(0, 10, size=count) for count in levels]
    costs = [rng.uniform(1, 10, size=count) for count in levels]
    pairs = rng.normal(0, 1.5, size=(n, n))
    budget = float(rng.uniform(10, 30))
    cache: dict = {}

    def evaluate(portfolio):
        if portfolio not in cache:
            bought = [i for i, level in enumerate(portfolio) if level >= 0]
            gain = sum(gains[i][portfolio[i]] for i in bought) + sum(
                pairs[i, j] for i, j in itertools.combinations(bought, 2))
            cost = sum(costs[i][portfolio[i]] for i in bought)
            cache[portfolio] = Evaluation(portfolio, [], cost, gain, (gain, gain), gain)
        return cache[portfolio]

    return evaluate, cache, budget


def test_local_search_finds_the_exhaustive_best_on_random_plans() -> None:
    """The local search against the exhaustive answer, on 60 random plans of 6 options
    (one with 2 levels) with pairwise interactions and a budget: it must find the
    exhaustive best in at least 90% of them, and within 2% of it on average (the README
    quotes the rates measured on larger plans)."""
    rng = np.random.default_rng(0)
    levels = [1, 1, 2, 1, 1, 1]
    hits, gaps = 0, []
    for _ in range(60):
        evaluate, cache, budget = _random_plan(rng, levels)
        exhaustive = best_within([evaluate(p) for p in all_portfolios(levels)], budget, "max")
        cache.clear()
        local_search(levels, evaluate, budget, "max")
        found = best_within(list(cache.values()), budget, "max")
        assert found.hardware_cost <= budget
        assert len(cache) < len(all_portfolios(levels))
        hits += found.portfolio == exhaustive.portfolio
        gaps.append((exhaustive.gain - found.gain) / max(abs(exhaustive.gain), 1e-9))
    assert hits >= 54
    assert float(np.mean(gaps)) < 0.02


def test_a_plan_with_many_portfolios_uses_the_local_search(tmp_path, monkeypatch) -> None:
    _mocked(monkeypatch)
    path = _plan_file(tmp_path)
    text = path.read_text().replace("trials = 20\n", "trials = 20\nexhaustive_limit = 4\n")
    path.write_text(text)
    result = run_plan(load_plan(path))
    assert result["search"] == "local"
    assert result["best"]["options"] == ["A", "B"]


def test_uncertainty_draws_and_tornado(tmp_path) -> None:
    """Real simulations of small.toml: the GPU MTBF drawn from 2 to 10 years. Restarts are
    worth more when failures are frequent: the tornado shows the objective of the
    recommended portfolio falling as the MTBF grows."""
    extra = ('[plan.uncertainty]\nsamples = 4\n'
             '"failures.gpu.lifetime.mtbf" = { low = "2y", high = "10y" }\n')  # fmt: skip
    result = run_plan(load_plan(_plan_file(tmp_path, budget=1e6, trials=40, extra=extra)))
    uncertainty = result["uncertainty"]
    assert uncertainty["samples"] == 4
    assert 0.0 <= uncertainty["p_best_stays_best"] <= 1.0
    assert 0.0 <= uncertainty["p_gain_positive"] <= 1.0
    (row,) = uncertainty["tornado"]
    assert row["input"] == "failures.gpu.lifetime.mtbf"
    assert row["objective_low"] > row["objective_high"] > 0
    assert row["swing"] == pytest.approx(row["objective_low"] - row["objective_high"])


@pytest.mark.parametrize(("extra", "key"), [
    ('[[plan.options]]\nlabel = "D"\nset = ["job.restart=-5min"]\n', "job.restart"),
    ('[[plan.options]]\nlabel = "A"\nset = ["job.spares=1"]\n', "plan.options"),
    ('[[plan.options]]\nlabel = "E"\n', "plan.options.3"),
    ('[plan.uncertainty]\n"job.restart" = { low = "5min", high = "1h" }\n',
     "plan.uncertainty.job.restart"),
])  # fmt: skip
def test_a_bad_plan_is_one_clear_error_naming_the_key(tmp_path, extra, key) -> None:
    path = _plan_file(tmp_path, extra=extra)
    with pytest.raises(ConfigError) as caught:
        load_plan(path)
    assert caught.value.key.startswith(key)
    result = runner.invoke(app, ["plan", str(path)])
    assert result.exit_code == 2
    assert key.split(".")[0] in result.stderr and "Traceback" not in result.output


def test_plan_command_json_contract_and_files(tmp_path) -> None:
    out = tmp_path / "out"
    result = runner.invoke(app, ["plan", str(_plan_file(tmp_path, budget=1e6)), "--trials",
                                 "30", "--json", "--out", str(out)])  # fmt: skip
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    figures = set(planner.PORTFOLIO_FIGURES)
    for point in data["frontier"]:
        assert set(point) == {"options", "hardware_cost", "objective", "ci95"} | figures
        assert point["work_hours"] == pytest.approx(30 * 24)  # small.toml: job.work = "30d"
    assert set(data["best"]) == {"options", "hardware_cost", "objective", "gain",
                                 "marginal"} | figures
    assert sum(data["attribution"].values()) == pytest.approx(data["best"]["gain"])
    costs = [p["hardware_cost"] for p in data["frontier"]]
    assert costs == sorted(costs)
    for name in ("plan.json", "portfolios.csv", "frontier.png", "attribution.png",
                 "report.md", "report.html", "provenance.json"):
        assert (out / name).stat().st_size > 0, name
    assert json.loads((out / "plan.json").read_text()) == data  # answer and files too
    assert set(data["files"]) == {str(path) for path in out.iterdir()  # not the store and
                                  if path.name != "points.sqlite"  # the run's manifest
                                  and not path.name.startswith(".")}
    # every portfolio explains itself; the report states its assumptions
    import pandas as pd

    from relplan.output.plan_report import PORTFOLIO_COLUMNS

    table = pd.read_csv(out / "portfolios.csv")
    assert tuple(table.columns) == PORTFOLIO_COLUMNS and len(table) == data["evaluated"]
    for point in data["portfolios"]:
        low, high = point["goodput_ci95"]
        assert 0 < low <= point["goodput"] <= high <= 1
        # small.toml: 30 days of work on 512 GPUs; goodput is work over wall per trial
        assert point["gpu_hours_lost"] == pytest.approx((point["wall_hours"] - 720) * 512)
        assert point["goodput"] * point["wall_hours"] >= 720  # the mean of 1/x >= 1/mean
        assert point["lost_value"] == pytest.approx(point["gpu_hours_lost"] * 2.5)
    assert set(data["best"]["marginal"]) == set(data["attribution"])
    assert data["assumptions"]["gpu_hour_value"] == 2.5
    assert data["assumptions"]["option_prices"] == {"A": 100.0, "B": 200.0, "C": 400.0}
    report = (out / "report.md").read_text()
    for words in ("## Assumptions", "## Uncertainty", "gpu_hour_value", "removing it costs",
                  "$2.50", "amortized over 4 years"):
        assert words in report, words
    provenance = json.loads((out / "provenance.json").read_text())
    assert provenance["config_sha256"] == data["provenance"]["config_sha256"]
    assert provenance["trials"] == 30
    assert data["provenance"]["config_sha256"][:12] in (out / "report.html").read_text()


def test_the_shipped_plan_loads() -> None:
    plan = load_plan(REPO / "studies" / "redundancy-plan-seed-moe.toml")
    assert [o.label for o in plan.options] == ["dual-ToR", "fast tier", "restart",
                                               "spines +25%", "spares"]  # fmt: skip
    # a base an operator would run: 5% hot spares, so spares are not the whole answer
    assert plan.base.job.spares == 64
    assert math.prod(len(o.level_overrides()) + 1 for o in plan.options) == 108
    assert 'job.drain="at-checkpoint"' in plan.options[0].level_overrides()[1]
    assert planner.PLAN_OBJECTIVES[plan.spec.objective] == "max"


def test_sweep_on_a_plan_file_points_to_relplan_plan() -> None:
    result = runner.invoke(app, ["sweep", str(REPO / "studies" / "redundancy-plan-seed-moe.toml")])
    assert result.exit_code == 2
    assert "relplan plan" in result.stderr


@pytest.mark.slow
def test_a_plan_rerun_reuses_its_stored_portfolios(tmp_path) -> None:
    """With --out, every portfolio run is stored at once; a rerun computes none again and
    gives the same answer; --fresh computes them all again."""
    plan = _plan_file(tmp_path, budget=1e6)
    out = tmp_path / "out"
    first = runner.invoke(app, ["plan", str(plan), "--trials", "20", "--json", "--out", str(out)])
    again = runner.invoke(app, ["plan", str(plan), "--trials", "20", "--json", "--out", str(out)])
    assert first.exit_code == again.exit_code == 0, again.output
    assert "reused" not in first.stderr
    # A+C resolves to C's config (C's restart wins), B+C to A+B+C: 6 distinct runs
    assert "reused 6 portfolio runs" in again.stderr
    keys = ("frontier", "best", "attribution")
    assert {k: json.loads(again.stdout)[k] for k in keys} == {
        k: json.loads(first.stdout)[k] for k in keys}
    fresh = runner.invoke(app, ["plan", str(plan), "--trials", "20", "--json", "--out",
                                str(out), "--fresh"])  # fmt: skip
    assert fresh.exit_code == 0 and "reused" not in fresh.stderr


def test_a_plan_on_a_dask_cluster_of_two_workers_gives_the_local_numbers(tmp_path) -> None:
    """Every portfolio run on a Dask LocalCluster of two workers: the same frontier, best
    portfolio and attribution as the local run (common seeds, the same code)."""
    from dask.distributed import Client, LocalCluster

    plan = load_plan(_plan_file(tmp_path, budget=1e6))
    local = run_plan(plan, trials=25)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                      dashboard_address=None) as cluster, Client(cluster) as client:  # fmt: skip
        on_dask = run_plan(plan, trials=25, client=client)
    for key in ("frontier", "best", "attribution", "portfolios"):
        assert on_dask[key] == local[key], key


def test_a_bad_dask_address_is_refused_before_the_work(tmp_path) -> None:
    result = runner.invoke(app, ["plan", str(_plan_file(tmp_path)), "--dask", "nonsense"])
    assert result.exit_code == 2
    # the count of portfolios comes first, then the one error
    assert result.stderr.strip().splitlines()[-1].startswith("error: --dask:")


def test_compare_and_plan_give_the_same_net_value_to_the_cent(tmp_path) -> None:
    """One definition of net value: the same portfolio (spares 4 -> 0, which changes the
    hardware the job holds, and a faster restart), the same seed and trials, run by
    ``compare`` and by ``plan``: the same net value, extra charge and GPU-hours lost to
    the cent."""
    from relplan.runs.compare import ScenarioSpec, compare_scenarios

    overrides = ["job.spares=0", "job.restart=3min"]
    path = tmp_path / "one.toml"
    path.write_text(f'[plan]\nbase = "{CONFIGS / "small.toml"}"\ntrials = 24\nseed = 5\n'
                    f'[[plan.options]]\nlabel = "X"\nset = {json.dumps(overrides)}\n')
    plan = run_plan(load_plan(path), workers=1)
    (bought,) = [p for p in plan["portfolios"] if p["options"] == ["X"]]
    compared = compare_scenarios([ScenarioSpec(CONFIGS / "small.toml"),
                                  ScenarioSpec(CONFIGS / "small.toml", tuple(overrides), "X")],
                                 trials=24, seed=5, workers=1)["scenarios"][1]  # fmt: skip
    assert compared["hardware_price"] != 0  # fewer spares: a cheaper portfolio
    assert abs(bought["net_value"] - compared["net_value"]) < 0.005
    assert abs(bought["objective"] - compared["net_value"]) < 0.005
    assert abs(bought["extra_hardware_charge"] - compared["extra_hardware_charge"]) < 0.005
    assert abs(bought["gpu_hours_lost"] - compared["gpu_hours_lost"]) < 0.005
    assert abs(bought["hardware_charge"] - compared["hardware_charge"]) < 0.005
    assert bought["goodput"] == pytest.approx(compared["goodput"], abs=1e-12)


def test_trials_below_two_are_refused_naming_the_key(tmp_path) -> None:
    path = _plan_file(tmp_path)
    result = runner.invoke(app, ["plan", str(path), "--trials", "1"])
    assert result.exit_code == 2 and "--trials" in result.stderr
    assert "Traceback" not in result.output
    with pytest.raises(ConfigError) as caught:
        load_plan(_plan_file(tmp_path, trials=1))
    assert caught.value.key == "plan.trials"
    # no trials in the plan: the base config's [simulation] gives them
    text = _plan_file(tmp_path).read_text().replace("trials = 20\n", "")
    path.write_text(text)
    plan = load_plan(path)
    assert planner.plan_settings(plan) == (plan.base.simulation.trials, plan.base.simulation.seed)
    with pytest.raises(ConfigError) as caught:
        planner.plan_settings(plan, trials=1, trials_key="--trials")
    assert caught.value.key == "--trials"
    optimize = runner.invoke(app, ["optimize", str(CONFIGS / "small.toml"), "--trials", "1"])
    assert optimize.exit_code == 2 and "--trials" in optimize.stderr


def _objective_plan(tmp_path, objective: str, budget: float = 350.0):
    path = _plan_file(tmp_path, budget=budget)
    path.write_text(path.read_text().replace('objective = "net_value"',
                                             f'objective = "{objective}"'))
    return load_plan(path)


def test_each_objective_by_hand(tmp_path, monkeypatch) -> None:
    """The mocked plan (wall 1 h, goodput 0.5 + 0.01 x GPU-hours saved, option prices
    100, 200, 400, spend limit 350), each objective worked out by hand."""
    _mocked(monkeypatch)
    result = run_plan(_objective_plan(tmp_path, "goodput"))
    assert result["best"]["options"] == ["A", "B"]  # saves 6: goodput 0.56
    assert result["best"]["objective"] == pytest.approx(0.56)
    assert result["best"]["gain"] == pytest.approx(0.06)
    assert result["best"]["marginal"] == pytest.approx({"A": 0.04, "B": 0.03})
    # A alone: 0.03 per 100; B: 0.02 per 200; A+B: 0.06 per 300
    per_dollar = run_plan(_objective_plan(tmp_path, "goodput_per_dollar"))
    assert per_dollar["best"]["options"] == ["A"]
    assert per_dollar["best"]["objective"] == pytest.approx(0.03 / 100)
    # the hardware charge per useful GPU-hour: price x wall / amortization over wall x
    # goodput x GPUs (A alone: 97 GPUs); the base's inventory is priced 0 here, so the
    # base is cheapest
    plan = _objective_plan(tmp_path, "cost_per_useful_gpu_hour")
    cost = run_plan(plan)
    (alone,) = [p for p in cost["portfolios"] if p["options"] == ["A"]]
    amortization = plan.base.budget.amortization
    assert alone["objective"] == pytest.approx(100.0 / amortization / (0.53 * 97))
    assert cost["best"]["options"] == []
    wall = run_plan(_objective_plan(tmp_path, "wall_hours"))
    assert wall["best"]["objective"] == pytest.approx(1.0)
    assert wall["best"]["options"] == []  # every wall time ties: the cheapest


def test_goodput_per_dollar_refuses_an_option_that_costs_nothing(tmp_path, monkeypatch) -> None:
    _mocked(monkeypatch)
    plan = _objective_plan(tmp_path, "goodput_per_dollar", budget=1e6)
    path = plan.path
    path.write_text(path.read_text().replace("price = 100.0", "price = 0.0"))
    assert_config_error(run_plan, load_plan(path), key="plan.objective",
                        words="A costs no extra hardware")


def _base_without_budget(tmp_path):
    text = (CONFIGS / "small.toml").read_text()
    start = text.index("[budget]")
    end = text.index("[simulation]")
    base = tmp_path / "nobudget.toml"
    base.write_text(text[:start] + text[end:])
    return base


@pytest.mark.parametrize(("change", "key"), [
    (('objective = "net_value"', 'objective = "best_value"'), "plan.objective"),
    (("budget = 350.0", "budget = 50.0"), "plan.budget"),
    (("", ""), "budget"),
])  # fmt: skip
def test_bad_objective_budget_and_unaffordable_options_exit_2(tmp_path, change, key) -> None:
    path = _plan_file(tmp_path)
    text = path.read_text().replace(*change)
    if key == "budget":  # a money objective on a base without [budget]
        text = text.replace(str(CONFIGS / "small.toml"), str(_base_without_budget(tmp_path)))
    path.write_text(text)
    result = runner.invoke(app, ["plan", str(path)])
    assert result.exit_code == 2, result.output
    assert key in result.stderr and "Traceback" not in result.output
    if key == "plan.objective":
        assert "goodput_per_dollar" in result.stderr  # the list of objectives
    if key == "budget":
        assert "[budget]" in result.stderr


def test_a_plan_without_money_runs_on_a_base_without_budget(tmp_path, monkeypatch) -> None:
    _mocked(monkeypatch)
    path = _plan_file(tmp_path)
    path.write_text(path.read_text().replace('objective = "net_value"', 'objective = "goodput"')
                    .replace(str(CONFIGS / "small.toml"), str(_base_without_budget(tmp_path))))
    result = run_plan(load_plan(path))
    assert result["best"]["options"] == ["A", "B"]  # the option prices still count
    assert result["best"]["net_value"] is None and result["assumptions"]["currency"] is None


def test_the_uncertain_draws_test_the_best_against_its_one_option_rivals(tmp_path) -> None:
    """A+B best of three on/off options: its rivals are the frontier and A+B with one
    option flipped (B, A, A+B+C), so a cheaper best is also tested against keeping what
    it drops."""
    plan = load_plan(_plan_file(tmp_path))
    rivals = planner.rival_portfolios(plan, (0, 0, -1), [(-1, -1, -1), (0, -1, -1)])
    assert rivals == [(-1, -1, -1), (0, -1, -1), (0, 0, -1), (-1, 0, -1), (0, 0, 0)]


def test_the_terminal_table_shows_each_portfolios_speed_only_when_it_differs() -> None:
    """80 columns: the step and failure-free hours are columns when the portfolios of the
    frontier differ in them, else one line under the table."""
    from rich.console import Console

    from relplan.cli.plan_command import render_plan

    def result(steps: list[float]) -> dict:
        frontier = [{"options": [f"option {i}"], "hardware_cost": 1e3 * i, "objective": 1e4,
                     "ci95": [9e3, 1.1e4], "goodput": 0.9, "step_time_s": step,
                     "work_hours": 720.0} for i, step in enumerate(steps)]  # fmt: skip
        return {"plan": "p", "objective": "net_value", "assumptions": {"currency": "$"},
                "frontier": frontier, "best": {**frontier[-1], "marginal": {}},
                "attribution": {}}

    for steps, columns in (([5.0, 5.0], False), ([5.0, 6.0], True)):
        console = Console(width=80, record=True)
        render_plan(result(steps), "an answer", console)
        text = console.export_text()
        assert ("step s" in text) == columns
        assert ("every portfolio of the frontier: healthy step 5.000 s" in text) != columns
        assert max(len(line) for line in text.splitlines()) <= 80


def _years(extra: tuple[str, ...], key: str, nominal: float) -> float:
    """The years an uncertain draw gives ``key`` (``nominal`` when it does not draw it)."""
    for item in extra:
        name, _, value = item.partition("=")
        if name == key:
            return float(value.strip('"').rstrip("y"))
    return nominal


def test_the_plan_names_its_runner_up_and_ranks_the_tornado_by_the_decision(
        tmp_path, monkeypatch) -> None:  # fmt: skip
    """A hand-checked plan (prices 100, 200, 400, limit 350, 1 GPU-hour = 2.5 in
    small.toml) whose runs are replaced: on 100 GPUs, each portfolio spends 100 - saved
    GPU-hours, with A saving 3 + (host MTBF - 10 years), B 2 + 1.5 x (GPU MTBF - 6 years),
    1 more for A with B, C 5. At the midpoints (GPU 6y, host 20y) A+B saves 16 and A 13:
    A+B is best, A the runner-up. A+B beats A by B's saving + 1, so A wins the draws
    with a GPU MTBF below 4 years: one of 4 Latin-hypercube draws (one per quarter of
    2-10y). The host MTBF moves A+B's own net value most (6 to 26 GPU-hours, 20 x 2.5)
    but A's with it, so the decision not at all; the GPU MTBF moves A+B by 12 and its
    lead over A from -3 to +9 GPU-hours: it decides, and ranks first."""
    gpu, host = "failures.gpu.lifetime.mtbf", "failures.host.lifetime.mtbf"

    def saved_by(portfolio, extra) -> float:
        a, b, c = (level >= 0 for level in portfolio)
        save_a = 3.0 + (_years(extra, host, 20.0) - 10.0)
        save_b = 2.0 + 1.5 * (_years(extra, gpu, 6.0) - 6.0)
        return a * save_a + b * save_b + (a and b) * 1.0 + c * 5.0

    def per_trial(self, portfolio, extra):
        saved = saved_by(portfolio, extra)
        return {"wall": np.full(self.trials, (100.0 - saved) / 100.0),
                "lost": np.full(self.trials, 100.0 - saved), "gpus": 100,
                "goodput": np.full(self.trials, 0.5 + 0.01 * saved), "price": 0.0,
                "step_time_s": None, "switches": {}}

    monkeypatch.setattr(PlanRun, "_per_trial", per_trial)
    monkeypatch.setattr(PlanRun, "prefetch", lambda self, pairs: None)
    extra = (f'[plan.uncertainty]\nsamples = 4\n"{gpu}" = {{ low = "2y", high = "10y" }}\n'
             f'"{host}" = {{ low = "10y", high = "30y" }}\n')
    plan = load_plan(_plan_file(tmp_path, extra=extra))
    value, amortization = plan.base.budget.gpu_hour_value, plan.base.budget.amortization

    def net(saved: float, cost: float) -> float:  # the net value against the base
        return saved * value - cost * (100.0 - saved) / 100.0 / amortization

    result = run_plan(plan)
    assert result["best"]["options"] == ["A", "B"]
    assert result["base"]["options"] == [] and result["base_goodput"] == pytest.approx(0.5)
    for portfolio in result["portfolios"]:  # every trial alike: P95 = the wall time
        assert portfolio["wall_hours_p95"] == pytest.approx(portfolio["wall_hours"])
    rival = result["runner_up"]
    assert rival["options"] == ["A"] and rival["chosen_by"] == "uncertain draws"
    assert rival["lead"] == pytest.approx(net(16.0, 300.0) - net(13.0, 100.0))
    uncertainty = result["uncertainty"]
    assert uncertainty["runner_up"] == ["A"]
    assert uncertainty["p_best_stays_best"] == pytest.approx(0.75)
    assert uncertainty["p_runner_up_beats_best"] == pytest.approx(0.25)
    assert rival["p_beats_best"] == pytest.approx(0.25)
    assert [w["share"] for w in uncertainty["winners"]] == pytest.approx([0.75, 0.25])
    first, second = uncertainty["tornado"]
    assert first["input"] == gpu and second["input"] == host
    # GPU MTBF 2y: B saves -4, so A+B 3 + 10 - 4 + 1 = 10; at 10y B saves 8: 22
    assert first["lead_low"] == pytest.approx(net(10.0, 300.0) - net(13.0, 100.0))
    assert first["lead_high"] == pytest.approx(net(22.0, 300.0) - net(13.0, 100.0))
    assert first["lead_low"] < 0 < first["lead_high"] and first["flips"]
    assert first["runner_up_low"] == pytest.approx(net(13.0, 100.0))
    # host MTBF: A+B 6 to 26, A 3 to 23: the same lead at both ends (but the charges)
    assert second["objective_low"] == pytest.approx(net(6.0, 300.0))
    assert second["objective_high"] == pytest.approx(net(26.0, 300.0))
    assert second["swing"] > first["swing"]  # the best's own value: the host ranks first
    assert second["lead_swing"] < 0.01 * first["lead_swing"] and not second["flips"]
    answer = planner_answer(result)
    assert "The runner-up is A" in answer and "25% of 4 draws" in answer


def planner_answer(result: dict) -> str:
    from relplan.output.plan_report import plan_answer

    return plan_answer(result)


def _llama_plan(tmp_path, options: str, budget: str = "", objective: str = "goodput"):
    """A plan on the Llama 3 fabric (64 spines of 576 ports, full with one leaf per
    server) with the given options; ``budget`` appended to its base config."""
    base = tmp_path / "llama.toml"
    base.write_text((CONFIGS / "llama3-16k.toml").read_text() + budget)
    path = tmp_path / "ports.toml"
    path.write_text(f'[plan]\nbase = "{base}"\nobjective = "{objective}"\ntrials = 4\n'
                    + options)
    return path


DUAL_TOR = '[[plan.options]]\nlabel = "dual-ToR"\nset = ["network.dual_tor=true"]\n'
RESTART = '[[plan.options]]\nlabel = "restart"\nset = ["job.restart=5min"]\n'


def test_a_plan_whose_only_option_needs_ports_nobody_prices_exits_2(tmp_path) -> None:
    """Dual-ToR doubles Llama 3's 384 leaves: 768 uplinks per 576-port spine, short by
    192; the base has no [budget] to price the spines it needs. Its only option is left
    out, so nothing is left to plan: exit 2 naming the option and the ports short."""
    path = _llama_plan(tmp_path, DUAL_TOR)
    result = runner.invoke(app, ["plan", str(path)])
    assert result.exit_code == 2, result.output
    assert "plan.options" in result.stderr and "dual-ToR" in result.stderr
    assert "short by 192" in result.stderr and "Traceback" not in result.output
    with pytest.raises(ConfigError) as caught:
        run_plan(load_plan(path), workers=1)
    assert caught.value.key == "plan.options"


def test_an_option_that_needs_unpriced_ports_is_left_out_with_a_warning(tmp_path) -> None:
    from relplan.errors import RelplanWarning

    plan = load_plan(_llama_plan(tmp_path, DUAL_TOR + RESTART))
    with pytest.warns(RelplanWarning, match="plan option dual-ToR is left out: spine: needs "
                                            "768 ports .* short by 192"):
        fitted = fit_plan_to_fabric(plan)
    assert [option.label for option in fitted.options] == ["restart"]


def test_an_option_that_needs_ports_is_priced_with_the_spines_they_need(tmp_path) -> None:
    """With a spine price of 1,000, dual-ToR on the Llama 3 fabric is priced with
    ceil(64 x 768 / 576) - 64 = 22 more spines: 22,000 more than the base (no other
    class is priced), and the warning says so."""
    from relplan.errors import RelplanWarning

    budget = '\n[budget]\ngpu_hour_value = 2.0\nprices = { spine = 1000 }\n'
    plan = load_plan(_llama_plan(tmp_path, DUAL_TOR + RESTART, budget))
    with pytest.warns(RelplanWarning, match=r"dual-ToR is priced with 22 more spine "
                                            r"switches \(\$22k\)"):
        fitted = fit_plan_to_fabric(plan)
    assert fitted is plan
    from relplan.cluster.budget import hardware_price as price
    from relplan.cluster.topology import build_inventory

    dual, base = plan.config((0, -1)), plan.base
    assert (price(dual, build_inventory(dual), base.budget)
            - price(base, build_inventory(base), base.budget)) == pytest.approx(22_000.0)
