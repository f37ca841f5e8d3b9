"""A redundancy plan's files: plan.json, portfolios.csv, its figures and its report.

Every file is written atomically (:mod:`relplan.output.files`). ``plan.json`` holds
what ``relplan plan --json`` prints (:func:`plan_document`), ``answer`` and ``files``
included.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from relplan.analysis.provenance import provenance_line
from relplan.output.files import to_json, write_provenance, write_text_atomic
from relplan.output.plan_plots import attribution_figure, frontier_figure, tornado_figure
from relplan.output.plan_text import (
    MONEY_SHOWN,
    currency_of,
    decision_text,
    input_words,
    lead_rows,
    objective_label,
    objective_text,
    portfolio_name,
    runner_up_text,
)
from relplan.output.plots import provenance_footer, save_figure
from relplan.output.report import write_report
from relplan.units import HOURS_PER_YEAR, format_money

PORTFOLIO_COLUMNS: tuple[str, ...] = (
    "options", "hardware_cost", "objective", "ci95_low", "ci95_high", "gain", "goodput",
    "goodput_ci95_low", "goodput_ci95_high", "wall_hours", "gpu_hours_lost", "step_time_s",
    "work_hours", "hardware_charge", "extra_hardware_charge", "lost_value", "net_value",
    "wall_hours_p95", "job_gpus", "gpu_hours", "gpu_hours_saved",
)  # fmt: skip
"""The columns of ``portfolios.csv``, one row per portfolio evaluated."""


def _seconds(value: float | None) -> str:
    """A step time in seconds to three decimals, or "-"."""
    return "-" if value is None else f"{value:.3f}"


def _hours(value: float | None) -> str:
    """Hours to one decimal, or "-"."""
    return "-" if value is None else f"{value:,.1f}"

def plan_answer(result: dict[str, Any]) -> str:
    """The plan's answer in one sentence.

    Examples
    --------
    >>> print(plan_answer({"objective": "net_value", "budget": None, "uncertainty": {},
    ...              "assumptions": {"currency": "$"},
    ...              "best": {"options": ["a"], "hardware_cost": 1e6, "objective": 2e6,
    ...                       "gain": 2e6, "goodput": 0.9, "wall_hours": 100.0}}))
    Buy a for $1M of hardware: net value $2M against the base (goodput 0.900, 100.0 h of
    wall time).
    >>> print(plan_answer({"objective": "goodput", "budget": None, "uncertainty": {},
    ...              "best": {"options": ["fewer spares"], "hardware_cost": -2e6,
    ...                       "objective": 0.91, "gain": 0.01}}))
    Buy fewer spares saving 2M of hardware: goodput 0.9100, 0.0100 better than the base.
    """
    best = result["best"]
    currency = currency_of(result)
    what = " + ".join(best["options"]) if best["options"] else "nothing more than the base"
    within = (f" (within the spend limit of {format_money(result['budget'], currency)})"
              if result["budget"] else "")  # fmt: skip
    cost = best["hardware_cost"]
    paid = (f"for {format_money(cost, currency)} of hardware" if cost >= 0 else
            f"saving {format_money(-cost, currency)} of hardware")  # fmt: skip
    sentence = f"Buy {what} {paid}{within}: "
    if result["objective"] == "net_value":
        sentence += f"net value {objective_text(result, best['objective'])} against the base"
    else:
        label = objective_label(result).split(" (")[0].lower()
        sentence += (f"{label} {objective_text(result, best['objective'])}, "
                     f"{objective_text(result, best['gain'])} better than the base")
    if best.get("goodput") is not None and result["objective"] == "goodput":
        sentence += f" ({best['wall_hours']:,.1f} h of wall time)"
    elif best.get("goodput") is not None:
        sentence += (f" (goodput {best['goodput']:.3f}, {best['wall_hours']:,.1f} h of "
                     "wall time)")  # fmt: skip
    uncertainty = result["uncertainty"]
    if uncertainty:
        sentence += (f"; it stays the best in {uncertainty['p_best_stays_best']:.0%} of "
                     f"{uncertainty['samples']} draws of the uncertain inputs and beats the "
                     f"base in {uncertainty['p_gain_positive']:.0%}")  # fmt: skip
    rival = runner_up_text(result)
    return sentence + "." + (f" {rival[0].upper()}{rival[1:]}." if rival else "")


def plan_document(result: dict[str, Any], answer: str, files: list[Path]) -> dict[str, Any]:
    """What ``plan --json`` prints and ``plan.json`` holds: the result, its answer and
    the files written."""
    return {**result, "answer": answer, "files": [str(path) for path in files]}


def portfolio_rows(result: dict[str, Any]) -> list[dict[str, Any]]:
    """The rows of ``portfolios.csv`` (:data:`PORTFOLIO_COLUMNS`)."""
    rows = []
    for p in result["portfolios"]:
        row = {"options": " + ".join(p["options"]) or "base",
               "ci95_low": p["ci95"][0], "ci95_high": p["ci95"][1],
               "goodput_ci95_low": p["goodput_ci95"][0],
               "goodput_ci95_high": p["goodput_ci95"][1]}  # fmt: skip
        rows.append({column: row.get(column, p.get(column)) for column in PORTFOLIO_COLUMNS})
    return rows


def _assumptions_text(result: dict[str, Any]) -> str:
    assumptions = result.get("assumptions") or {}
    currency = currency_of(result)
    if assumptions.get("gpu_hour_value") is None:
        return ("The base config has no [budget]: hardware costs are the options' own "
                "prices only, and no figure is in money.")
    prices = ", ".join(f"{name} {format_money(price, currency)}"
                       for name, price in (assumptions.get("prices") or {}).items()) or "none"
    options = ", ".join(f"{name} {format_money(price, currency)}"
                        for name, price in assumptions["option_prices"].items()) or "none"
    years = assumptions["amortization_hours"] / HOURS_PER_YEAR
    return (f"Currency: {currency}. A lost GPU-hour is worth "
            f"{currency}{assumptions['gpu_hour_value']:,.2f} (gpu_hour_value). Hardware is "
            f"amortized over {years:.3g} years: a portfolio is charged its price times its "
            f"wall time over that (amortization). Unit prices (budget.prices): {prices}. "
            f"Options' own prices beyond the hardware the inventory shows: {options}. The "
            f"job holds {assumptions['job_gpus']:,} GPUs. Net value = value of the GPU-hours "
            "saved against the base at gpu_hour_value (the base's wall hours x GPUs less "
            "the portfolio's: fewer failures, a faster healthy step and fewer GPUs all "
            "count), minus the extra hardware price charged for the portfolio's wall time; "
            "the shorter wall time of a better design is credited once, through the "
            "GPU-hours it saves. A fabric whose switches lack ports is priced with the "
            "switches that would supply them (ceil(S x needed / available) - S more of the "
            "tier's S switches, at the tier's price).")


def _uncertainty_text(result: dict[str, Any]) -> str:
    uncertainty = result["uncertainty"]
    trials = result["trials"]
    text = (f"Every figure is a mean over {trials} trials with a 95% confidence interval "
            "(the frontier's error bars); portfolios are paired on common failure "
            "streams, so differences between them are tighter than each interval.")
    rival = runner_up_text(result)
    if not uncertainty:
        return (text + " No uncertain inputs were given: the answer holds at the base's "
                "values." + (f" At those values {rival}." if rival else ""))  # fmt: skip
    winners = "; ".join(f"{portfolio_name(w['options'])} {w['share']:.0%}"
                        for w in uncertainty.get("winners", []))  # fmt: skip
    text += (f" Drawn {uncertainty['samples']} times over the uncertain inputs (Latin "
             f"hypercube), the recommended portfolio stays the best affordable one of "
             f"{uncertainty.get('rivals', 'the frontier')} rivals (the frontier, the "
             f"runner-up and every portfolio one option away from the best) in "
             f"{uncertainty['p_best_stays_best']:.0%} of draws and beats the base "
             f"in {uncertainty['p_gain_positive']:.0%}"
             + (f"; the best of each draw: {winners}" if winners else "") + ".")
    if rival:
        text += f" {rival[0].upper()}{rival[1:]}."
    leads = lead_rows(result)
    if leads:
        rows = "; ".join(
            f"{input_words(row['input'], row['low'], row['high'])}: lead "
            f"{objective_text(result, row['lead_low'])} to "
            f"{objective_text(result, row['lead_high'])} (the best "
            f"{objective_text(result, row['objective_low'])} to "
            f"{objective_text(result, row['objective_high'])}, P95 wall "
            f"{row['wall_hours_p95_low']:,.1f} to {row['wall_hours_p95_high']:,.1f} h; the "
            f"runner-up {objective_text(result, row['runner_up_low'])} to "
            f"{objective_text(result, row['runner_up_high'])}, P95 wall "
            f"{row['runner_up_wall_hours_p95_low']:,.1f} to "
            f"{row['runner_up_wall_hours_p95_high']:,.1f} h)"
            for row in leads)  # fmt: skip
        return (f"{text} What decides it: the tornado ranks each input by how much its "
                "ends (the others at midpoints) move the recommended portfolio's lead "
                f"over the runner-up, the decision rather than the best's own value; "
                f"{decision_text(result)}. Per input, low end to high: {rows}.")
    rows = "; ".join(f"{input_words(row['input'], row['low'], row['high'])}: "
                     f"{objective_text(result, row['objective_low'])} to "
                     f"{objective_text(result, row['objective_high'])}"
                     for row in uncertainty["tornado"])  # fmt: skip
    return (f"{text} Its objective with each input at its low and high end (the others "
            f"at midpoints): {rows}.")


def write_plan_outputs(result: dict[str, Any], directory: Path, answer: str | None = None,
                       named_in: Path | None = None) -> list[Path]:  # fmt: skip
    """Write a plan's result into ``directory``.

    Parameters
    ----------
    result : dict
        From :func:`relplan.runs.planner.run_plan`.
    directory : Path
        The output folder (created if missing).
    answer : str, optional
        Its one-sentence answer (default: :func:`plan_answer`).
    named_in : Path, optional
        The folder the files end up in, as ``plan.json`` names them (default:
        ``directory``; the command line writes into a staging folder first).

    Returns
    -------
    list of Path
        ``portfolios.csv``, the figures (PNG and SVG), ``report.md``, ``report.html``,
        ``plan.json`` (:func:`plan_document`: it lists every file) and
        ``provenance.json``.
    """
    import pandas as pd

    answer = answer if answer is not None else plan_answer(result)
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    table = pd.DataFrame(portfolio_rows(result), columns=list(PORTFOLIO_COLUMNS))
    csv_path = directory / "portfolios.csv"
    write_text_atomic(csv_path, table.to_csv(index=False))
    written.append(csv_path)
    figures = [("frontier", frontier_figure(result)),
               ("attribution", attribution_figure(result))]  # fmt: skip
    if result["uncertainty"]:
        figures.append(("tornado", tornado_figure(result)))
    pngs = []
    for name, figure in figures:
        if result.get("provenance"):
            figure = provenance_footer(figure, provenance_line(result["provenance"]))
        paths = save_figure(figure, directory / name, dpi=110)
        pngs.append(paths[0])
        written += paths
    currency = currency_of(result)
    money = result["objective"] in MONEY_SHOWN

    def net(value: float | None) -> str:
        return "-" if value is None else format_money(value, currency)

    frontier = pd.DataFrame([{
        "options": " + ".join(p["options"]) or "base",
        "hardware cost": format_money(p["hardware_cost"], currency),
        "goodput": f"{p['goodput']:.4f}",
        "wall h": f"{p['wall_hours']:,.1f}",
        "wall P95 h": _hours(p.get("wall_hours_p95")),
        "failure-free h": _hours(p.get("work_hours")),
        "step s": _seconds(p.get("step_time_s")),
        "GPU-h lost": format_money(p["gpu_hours_lost"]),
        "hardware charge": net(p["hardware_charge"]),
        "value lost": net(p["lost_value"]),
        "objective [95% CI]": f"{objective_text(result, p['objective'])} "
                              f"[{objective_text(result, p['ci95'][0])}, "
                              f"{objective_text(result, p['ci95'][1])}]",
    } for p in result["frontier"]])  # fmt: skip
    marginal = result["best"].get("marginal", {})
    attribution = pd.DataFrame([{"option": label, "Shapley value": objective_text(result, value),
                                 "removing it costs": objective_text(result, marginal[label])}
                                for label, value in result["attribution"].items()]
                               or [{"option": "(nothing bought)", "Shapley value": "0",
                                    "removing it costs": "0"}])  # fmt: skip
    step = result["best"].get("step_time_s")
    base = result.get("base") or {}
    base_words = (f" The base runs at goodput {base['goodput']:.4f}, {base['wall_hours']:,.1f} h "
                  f"of wall time on average (P95 {_hours(base.get('wall_hours_p95'))} h)."
                  if base.get("goodput") is not None else "")  # fmt: skip
    best_p95 = result["best"].get("wall_hours_p95")
    sections = [
        ("Setup", f"{result['evaluated']} of {result['portfolio_count']} portfolios evaluated "
                  f"({result['search']} search), {result['trials']} trials each on common "
                  f"failure streams (seed {result['seed']}); objective "
                  f"{result['objective']} ({objective_label(result)})"
                  + (f"; healthy step time of the best portfolio {step:.3g} s" if step else "")
                  + "." + base_words
                  + (f" The best portfolio's P95 wall time is {best_p95:,.1f} h."
                     if best_p95 is not None else "")),
        ("Assumptions", _assumptions_text(result)),
        ("How to read what each option is worth",
         "An option's Shapley value is its share of the best portfolio's gain, averaged "
         "over every order of buying the options (the shares add up to the gain); "
         "'removing it costs' is what the best portfolio loses without that option, the "
         "others kept: the figure to quote when asking whether to drop it."),
        ("Uncertainty", _uncertainty_text(result)),
    ]
    if money and result["best"].get("goodput") is not None:
        base = next((p for p in result["portfolios"] if not p["options"]), None)
        if base is not None and base["goodput"] < 0.5:
            sections.append(("Note", f"The base runs at goodput {base['goodput']:.3f}: "
                                     "most of its time is lost, which is why the money "
                                     "figures are large."))
    tables = [("Pareto frontier", frontier),
              ("What each option of the best portfolio is worth", attribution)]
    report = write_report(directory, f"Redundancy plan: {result['plan']}",
                          result["question"] or "Which portfolio of options is best?",
                          answer, sections, tables, pngs,
                          result.get("provenance"), result.get("source"))  # fmt: skip
    written += list(report)
    json_path = directory / "plan.json"
    provenance_path = directory / "provenance.json"
    files = [*written, json_path] + ([provenance_path] if result.get("provenance") else [])
    final = named_in if named_in is not None else directory
    files = [final / path.relative_to(directory) for path in files]
    write_text_atomic(json_path, to_json(plan_document(result, answer, files)) + "\n")
    written.append(json_path)
    if result.get("provenance"):
        written.append(write_provenance(directory, result["provenance"], written))
    return written
