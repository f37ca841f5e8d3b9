"""``relplan plan``: the best portfolio of redundancy options under a budget.

Thin: parse, call :func:`relplan.runs.planner.run_plan`, render an 80-column frontier
table, print JSON, or write the plan's files. Like the rest of :mod:`relplan.cli`, no
heavy library is imported at module level.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from relplan.cli.common import (
    SEED,
    TRIALS,
    DaskOption,
    FreshOption,
    JsonOption,
    PointWorkersOption,
    SetOption,
    YesOption,
    out_option,
    points_progress,
)
from relplan.cli.notes import (
    announce_points,
    note,
    note_reused,
    write_outputs,
)

if TYPE_CHECKING:
    from rich.console import Console


def render_plan(result: dict[str, Any], answer: str, console: Console | None = None) -> None:
    """Print the frontier, the attribution and the answer (80 columns).

    Parameters
    ----------
    result : dict
        From :func:`relplan.runs.planner.run_plan`.
    answer : str
        Its one-sentence answer.
    console : rich.console.Console, optional
        Where to print (default: relplan's console).
    """

    from relplan.cli import render
    from relplan.output.plan_text import MONEY_SHOWN, input_words, lead_rows
    from relplan.units import format_money

    out = console if console is not None else render.console
    currency = (result.get("assumptions") or {}).get("currency") or ""

    def money(amount: float) -> str:
        return format_money(amount, currency)

    def shown(value: float) -> str:
        return money(value) if result["objective"] in MONEY_SHOWN else f"{value:.4g}"

    table = render.compact_table(f"Pareto frontier: {result['plan']} ({result['objective']})")
    table.add_column("portfolio", justify="left", overflow="fold")
    table.add_column("cost", justify="right", no_wrap=True)
    table.add_column("goodput", justify="right", no_wrap=True)
    table.add_column("P95 h", justify="right", no_wrap=True)
    table.add_column("objective [95% CI]", justify="right", no_wrap=True)
    frontier = result["frontier"]

    def seconds(value: float | None) -> str:
        return "-" if value is None else f"{value:.3f}"

    def hours(value: float | None) -> str:
        return "-" if value is None else f"{value:,.1f}"

    # each portfolio's speed in columns when it differs between them, else in one line
    speeds = {(seconds(p.get("step_time_s")), hours(p.get("work_hours"))) for p in frontier}
    varies = len(speeds) > 1
    if varies:
        table.add_column("step s", justify="right", no_wrap=True)
        table.add_column("failure-free h", justify="right", no_wrap=True)
    best = result["best"]
    for point in frontier:
        mark = " *" if point["options"] == best["options"] else ""
        cells = [" + ".join(point["options"]) + mark if point["options"] else "base" + mark,
                 money(point["hardware_cost"]), f"{point['goodput']:.4f}",
                 hours(point.get("wall_hours_p95")),
                 f"{shown(point['objective'])} [{shown(point['ci95'][0])}, "
                 f"{shown(point['ci95'][1])}]"]  # fmt: skip
        if varies:
            cells += [seconds(point.get("step_time_s")), hours(point.get("work_hours"))]
        table.add_row(*cells)
    out.print(table)
    if speeds and not varies:
        ((step, work),) = speeds
        out.print(f"every portfolio of the frontier: healthy step {step} s, {work} "
                  "failure-free hours", highlight=False, markup=False)  # fmt: skip
    base = result.get("base")
    if base:
        out.print(f"base: goodput {base['goodput']:.4f}, wall {base['wall_hours']:,.1f} h "
                  f"(P95 {hours(base.get('wall_hours_p95'))} h)", highlight=False,
                  markup=False)  # fmt: skip
    if result["attribution"]:
        worth = render.compact_table("What each option of the best (*) is worth", min_width=60)
        worth.add_column("option", overflow="fold")
        worth.add_column("Shapley", justify="right", no_wrap=True)
        worth.add_column("removing it", justify="right", no_wrap=True)
        marginal = result["best"].get("marginal", {})
        for label, value in result["attribution"].items():
            worth.add_row(label, shown(value),
                          shown(marginal[label]) if label in marginal else "-")
        out.print(worth)
    leads = lead_rows(result)
    if leads:
        decides = render.compact_table("What decides it: the best's lead over the runner-up",
                                       min_width=60)  # fmt: skip
        decides.add_column("input (low to high)", overflow="fold")
        decides.add_column("lead at low", justify="right", no_wrap=True)
        decides.add_column("lead at high", justify="right", no_wrap=True)
        for row in leads:
            decides.add_row(input_words(row["input"], row["low"], row["high"]),
                            shown(row["lead_low"]), shown(row["lead_high"]))
        out.print(decides)
    out.print(answer, highlight=False, markup=False, soft_wrap=False)


def plan_command(
    plan_path: Annotated[
        Path, typer.Argument(help="Plan file (see studies/).", metavar="PLAN", show_default=False)
    ],
    trials: Annotated[
        int | None,
        typer.Option(metavar=TRIALS, min=1, help="Trials per portfolio, at least 2 "
                     "[default: the plan's, else the base config's]."),
    ] = None,
    seed: Annotated[
        int | None, typer.Option(metavar=SEED, min=0,
                                 help="Seed [default: the plan's, else the base config's].")
    ] = None,
    overrides: SetOption = None,
    workers: PointWorkersOption = None,
    dask: DaskOption = None,
    out: Annotated[
        Path | None, out_option("plan.json, portfolios.csv, figures and reports here")
    ] = None,
    fresh: FreshOption = False,
    yes: YesOption = False,
    as_json: JsonOption = False,
) -> None:
    """Find the best portfolio of redundancy options within a budget.

    Every portfolio runs on the same failure streams. Prints the Pareto frontier of
    hardware cost against the objective, the best portfolio within the budget, each
    option's Shapley value inside it, the base's goodput, the runner-up and how often it
    wins when the uncertain inputs are drawn, and which input moves the best's lead over
    it most. A fabric short of switch ports is priced with the switches it needs; without
    a price for them, the options that need them are left out (none left: exit 2). --set
    applies to every portfolio, after the plan's own set; a key an option or an uncertain
    input sets cannot be overridden (exit 2). The number of portfolios is told at once
    with a rough estimate; an exhaustive search of more than 100,000 needs --yes. With
    --out, each portfolio is stored the moment it finishes (points.sqlite), and a rerun
    reuses them (--fresh ignores them).
    """
    import math
    import warnings

    from relplan.cli.render import error_console
    from relplan.config.plan import load_plan
    from relplan.output.files import check_output_dir, to_json
    from relplan.output.plan_report import plan_answer, plan_document, write_plan_outputs
    from relplan.runs.plan_checks import fit_plan_to_fabric
    from relplan.runs.planner import plan_settings, run_plan
    from relplan.runs.resources import point_workers, running_points, store_in
    from relplan.sim.model import build_model

    plan = load_plan(plan_path, overrides or [])
    trials, seed = plan_settings(plan, trials, seed, "--trials")
    with warnings.catch_warnings(record=True) as fitting:  # told after the count
        warnings.simplefilter("always")
        plan = fit_plan_to_fabric(plan)  # the options the fabric refuses
    if out is not None:
        check_output_dir(out)
    per_portfolio = trials
    portfolios = math.prod(len(option.level_overrides()) + 1 for option in plan.options)
    workers = point_workers(workers, plan.base)
    if portfolios <= plan.spec.exhaustive_limit:
        announce_points(build_model(plan.base), portfolios, per_portfolio, workers, yes,
                        "portfolios")
    else:  # a local search runs a part of them, known only as it goes
        note(f"{portfolios:,} portfolios, more than plan.exhaustive_limit "
             f"({plan.spec.exhaustive_limit:,}): a local search runs a part of them")
    for warning in fitting:
        warnings.warn(warning.message, stacklevel=1)
    with running_points(workers, dask, None, store_in(out), fresh) as (pool, store):
        # how many portfolio runs the search needs is known only as it goes
        with points_progress("planning", None, per_portfolio,
                             not as_json and error_console.is_terminal) as advance:  # fmt: skip
            result = run_plan(plan, trials, seed, progress=advance, store=store, pool=pool,
                              fitted=True)
        note_reused(store, None, "portfolio runs")
    result["source"] = str(plan_path)
    answer = plan_answer(result)
    written = (write_outputs(out, lambda folder: write_plan_outputs(result, folder, answer,
                                                                    named_in=out))
               if out is not None else [])  # fmt: skip
    if as_json:
        typer.echo(to_json(plan_document(result, answer, written)))
        return
    render_plan(result, answer)
