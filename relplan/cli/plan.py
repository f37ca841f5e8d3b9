"""``relplan plan``: the best portfolio of redundancy options under a budget.

Thin: parse, call :func:`relplan.analysis.plan.run_plan`, render an 80-column frontier
table, print JSON, or write the plan's files. Like the rest of :mod:`relplan.cli`, no
heavy library is imported at module level.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from relplan.cli.common import (
    DIR,
    SEED,
    TRIALS,
    DaskOption,
    FreshOption,
    JsonOption,
    PointWorkersOption,
    points_progress,
)

if TYPE_CHECKING:
    from rich.console import Console


def render_plan(result: dict[str, Any], answer: str, console: Console | None = None) -> None:
    """Print the frontier, the attribution and the answer (80 columns).

    Parameters
    ----------
    result : dict
        From :func:`relplan.analysis.plan.run_plan`.
    answer : str
        Its one-sentence answer.
    console : rich.console.Console, optional
        Where to print (default: relplan's console).
    """

    from relplan.cli import render
    from relplan.output.plan_text import MONEY_SHOWN
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
    table.add_column("objective [95% CI]", justify="right", no_wrap=True)
    best = result["best"]
    for point in result["frontier"]:
        mark = " *" if point["options"] == best["options"] else ""
        table.add_row(" + ".join(point["options"]) + mark if point["options"] else "base" + mark,
                      money(point["hardware_cost"]), f"{point['goodput']:.4f}",
                      f"{shown(point['objective'])} [{shown(point['ci95'][0])}, "
                      f"{shown(point['ci95'][1])}]")  # fmt: skip
    out.print(table)
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
    workers: PointWorkersOption = None,
    dask: DaskOption = None,
    out: Annotated[
        Path | None,
        typer.Option(metavar=DIR, help="Write plan.json, portfolios.csv, figures and reports."),
    ] = None,
    fresh: FreshOption = False,
    as_json: JsonOption = False,
) -> None:
    """Find the best portfolio of redundancy options within a budget.

    Every portfolio runs on the same failure streams. Prints the Pareto frontier of
    hardware cost against the objective, the best portfolio within the budget, each
    option's Shapley value inside it, and how often it stays best when the uncertain
    inputs are drawn. With --out, each portfolio is stored the moment it finishes
    (points.sqlite), and a rerun reuses them (--fresh ignores them).
    """
    from contextlib import ExitStack

    from relplan.analysis.executor import (
        PointPool,
        configured_workers,
        dask_client,
        default_workers,
    )
    from relplan.analysis.plan import plan_settings, run_plan
    from relplan.analysis.store import STORE_NAME, PointStore
    from relplan.cli.render import error_console
    from relplan.config.plan import load_plan
    from relplan.output.files import check_output_dir, to_json
    from relplan.output.plan_report import plan_answer, plan_document, write_plan_outputs

    plan = load_plan(plan_path)
    trials, seed = plan_settings(plan, trials, seed, "--trials")
    if out is not None:
        check_output_dir(out)
    workers = default_workers(workers if workers is not None else configured_workers(plan.base))
    with ExitStack() as stack:
        client = (stack.enter_context(dask_client(dask, workers=workers))
                  if dask is not None else None)  # fmt: skip
        # the workers start before the progress bar's thread and the store's connection:
        # forked from this process, with no other thread and no SQLite handle
        pool = stack.enter_context(PointPool(workers, client)).start()
        store = None
        if out is not None:
            store = stack.enter_context(PointStore(out / STORE_NAME, fresh))
        # how many portfolio runs the search needs is known only as it goes
        advance = stack.enter_context(points_progress(
            "planning", None, trials,
            not as_json and error_console.is_terminal))  # fmt: skip
        result = run_plan(plan, trials, seed, progress=advance, store=store, pool=pool)
    if store is not None and store.reused:
        error_console.print(f"reused {store.reused} portfolio runs finished before "
                            f"({out / STORE_NAME}; --fresh ignores them)", highlight=False,
                            markup=False)  # fmt: skip
    result["source"] = str(plan_path)
    answer = plan_answer(result)
    written = write_plan_outputs(result, out, answer) if out is not None else []
    if as_json:
        typer.echo(to_json(plan_document(result, answer, written)))
        return
    render_plan(result, answer)
    if written:
        error_console.print(f"wrote {', '.join(str(p) for p in written if p.suffix != '.svg')}",
                            highlight=False, markup=False)  # fmt: skip
