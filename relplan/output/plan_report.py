"""A redundancy plan's files: plan.json, portfolios.csv, its figures and its report.

Every file is written atomically (:mod:`relplan.output.files`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from relplan.analysis.provenance import provenance_line
from relplan.output.files import to_json, write_provenance, write_text_atomic
from relplan.output.plan_plots import (
    OBJECTIVE_LABELS,
    attribution_figure,
    frontier_figure,
    tornado_figure,
)
from relplan.output.plots import provenance_footer, save_figure
from relplan.output.report import write_report
from relplan.units import format_money


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
    >>> plan_answer({"objective": "net_value", "budget": None, "uncertainty": {},
    ...              "best": {"options": ["a"], "hardware_cost": 1e6, "objective": 2e6,
    ...                       "gain": 2e6}})
    'Buy a for 1M of hardware: net value 2M against the base.'
    """
    best = result["best"]
    what = " + ".join(best["options"]) if best["options"] else "nothing more than the base"
    within = f" (within the budget of {format_money(result['budget'])})" if result["budget"] else ""
    sentence = f"Buy {what} for {format_money(best['hardware_cost'])} of hardware{within}: "
    if result["objective"] == "net_value":
        sentence += f"net value {format_money(best['objective'])} against the base"
    else:
        label = OBJECTIVE_LABELS[result["objective"]].split(" (")[0].lower()
        sentence += (f"{label} {format_money(best['objective'])}, "
                     f"{format_money(best['gain'])} better than the base")  # fmt: skip
    uncertainty = result["uncertainty"]
    if uncertainty:
        sentence += (f"; it stays the best in {uncertainty['p_best_stays_best']:.0%} of "
                     f"{uncertainty['samples']} draws of the uncertain inputs and beats the "
                     f"base in {uncertainty['p_gain_positive']:.0%}")  # fmt: skip
    return sentence + "."


def write_plan_outputs(result: dict[str, Any], directory: Path) -> list[Path]:
    """Write a plan's result into ``directory``.

    Parameters
    ----------
    result : dict
        From :func:`relplan.analysis.plan.run_plan`.
    directory : Path
        The output folder (created if missing).

    Returns
    -------
    list of Path
        ``plan.json``, ``portfolios.csv``, the figures (PNG and SVG), ``report.md``,
        ``report.html`` and ``provenance.json``.
    """
    import pandas as pd

    directory.mkdir(parents=True, exist_ok=True)
    written = []
    json_path = directory / "plan.json"
    write_text_atomic(json_path, to_json(result) + "\n")
    written.append(json_path)
    rows = [{"options": " + ".join(p["options"]) or "base", "hardware_cost": p["hardware_cost"],
             "objective": p["objective"], "ci95_low": p["ci95"][0], "ci95_high": p["ci95"][1],
             "gain": p["gain"], "step_time_s": p.get("step_time_s"),
             "work_hours": p.get("work_hours")} for p in result["portfolios"]]  # fmt: skip
    table = pd.DataFrame(rows)
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
    frontier = pd.DataFrame([{
        "options": " + ".join(p["options"]) or "base",
        "hardware cost": format_money(p["hardware_cost"]),
        "objective": format_money(p["objective"]),
        "95% CI": f"[{format_money(p['ci95'][0])}, {format_money(p['ci95'][1])}]",
        "healthy step (s)": _seconds(p.get("step_time_s")),
        "failure-free hours": _hours(p.get("work_hours")),
    } for p in result["frontier"]])  # fmt: skip
    attribution = pd.DataFrame([{"option": label, "Shapley value": format_money(value)}
                                for label, value in result["attribution"].items()]
                               or [{"option": "(nothing bought)", "Shapley value": "0"}])
    sections = [
        ("Setup", f"{result['evaluated']} of {result['portfolio_count']} portfolios evaluated "
                  f"({result['search']} search), {result['trials']} trials each on common "
                  f"failure streams (seed {result['seed']}); objective "
                  f"{result['objective']}; each option's worth inside the best portfolio is "
                  "its Shapley value, and the values add up to the portfolio's gain."),
    ]
    tables = [("Pareto frontier", frontier),
              ("What each option of the best portfolio is worth", attribution)]
    report = write_report(directory, f"Redundancy plan: {result['plan']}",
                          result["question"] or "Which portfolio of options is best?",
                          plan_answer(result), sections, tables, pngs,
                          result.get("provenance"), result.get("source"))  # fmt: skip
    written += list(report)
    if result.get("provenance"):
        written.append(write_provenance(directory, result["provenance"], written))
    return written
