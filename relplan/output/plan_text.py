"""Words and numbers of a redundancy plan: objective labels, values with the currency's
symbol, uncertain inputs named in words. Pure string functions of the dict
:func:`relplan.runs.planner.run_plan` returns, shared by the terminal table, the
report and the figures.
"""

from __future__ import annotations

from typing import Any

from relplan.units import format_money

OBJECTIVE_LABELS = {
    "net_value": "Net value against the base ({currency})",
    "goodput": "Goodput (mean, useful / wall time)",
    "wall_hours": "Wall time (mean, hours)",
    "gpu_hours_lost": "GPU-hours lost (mean)",
    "p95_wall_hours": "Wall time, 95th percentile (hours)",
    "cost_per_useful_gpu_hour": "Hardware charge per useful GPU-hour ({currency})",
    "goodput_per_dollar": "Goodput gained per {currency} of hardware",
}
"""The axis label of each plan objective (``{currency}``: the budget's symbol)."""

MONEY_SHOWN = frozenset({"net_value", "cost_per_useful_gpu_hour"})
"""Objectives shown as money, with the currency's symbol."""

INPUT_WORDS = {
    "lifetime.mtbf": "mean time between failures",
    "lifetime.afr": "annual failure rate",
    "repair.mean": "repair time (mean)",
    "repair.median": "repair time (median)",
    "detect": "time to detect",
    "restart": "restart time",
    "spares": "spare servers",
    "checkpoint.write": "checkpoint write time",
    "checkpoint.interval": "checkpoint interval",
    "gpu_hour_value": "value of a GPU-hour",
}
"""Words for the tails of uncertain-input keys (``failures.gpu.lifetime.mtbf``: GPU mean
time between failures)."""


ACRONYMS = frozenset({"gpu", "hbm", "sdc", "nic", "cpu", "psu", "ssd", "dimm"})
"""Failure-mode names written in capitals when an input is named in words."""


def currency_of(result: dict[str, Any]) -> str:
    """The currency symbol of a plan's result ("" without a budget)."""
    return (result.get("assumptions") or {}).get("currency") or ""


def objective_label(result: dict[str, Any]) -> str:
    """The objective's axis label, with the plan's currency symbol.

    Examples
    --------
    >>> objective_label({"objective": "net_value", "assumptions": {"currency": "€"}})
    'Net value against the base (€)'
    """
    return OBJECTIVE_LABELS[result["objective"]].format(currency=currency_of(result) or
                                                        "currency")


def objective_text(result: dict[str, Any], value: float) -> str:
    """An objective's value as shown in figures and tables (money with its symbol).

    Examples
    --------
    >>> objective_text({"objective": "net_value", "assumptions": {"currency": "$"}}, 2.05e6)
    '$2.05M'
    >>> objective_text({"objective": "goodput"}, 0.91234)
    '0.9123'
    """
    objective = result["objective"]
    if objective in MONEY_SHOWN:
        return format_money(value, currency_of(result))
    if objective == "goodput":
        return f"{value:.4f}"
    if objective == "goodput_per_dollar":
        return f"{value:.3g}/{currency_of(result) or 'unit'}"
    if objective in ("wall_hours", "p95_wall_hours"):
        return f"{value:,.1f} h"
    return f"{format_money(value)} GPU-h"


def input_words(key: str, low: str, high: str) -> str:
    """An uncertain input named in words, with its range and units.

    Examples
    --------
    >>> input_words("failures.gpu.lifetime.mtbf", "3y", "8y")
    'GPU mean time between failures, 3y to 8y'
    >>> input_words("job.restart", "5min", "20min")
    'restart time, 5min to 20min'
    """
    parts = key.split(".")
    subject = ""
    if parts[0] == "failures" and len(parts) > 2:
        subject = parts[1].replace("_", " ")
        subject = subject.upper() if subject in ACRONYMS else subject
        parts = parts[2:]
    elif parts[0] in ("job", "budget", "network", "cluster"):
        parts = parts[1:]
    tail = ".".join(parts)
    words = INPUT_WORDS.get(tail, tail.replace(".", " ").replace("_", " "))
    return f"{subject + ' ' if subject else ''}{words}, {low} to {high}"


def portfolio_name(options: list[str]) -> str:
    """A portfolio named by its options ("base" for none).

    Examples
    --------
    >>> portfolio_name(["fast tier", "spares: 2%"]), portfolio_name([])
    ('fast tier + spares: 2%', 'base')
    """
    return " + ".join(options) if options else "base"


def lead_rows(result: dict[str, Any]) -> list[dict[str, Any]]:
    """The tornado's rows that carry the best portfolio's lead over the runner-up."""
    tornado = (result.get("uncertainty") or {}).get("tornado") or []
    return [row for row in tornado if row.get("lead_low") is not None]


def runner_up_text(result: dict[str, Any]) -> str:
    """The runner-up in words: what it is, how far behind, how often it wins ("" when
    nothing else is affordable).

    Examples
    --------
    >>> print(runner_up_text({"objective": "net_value", "assumptions": {"currency": "$"},
    ...     "uncertainty": {"samples": 6},
    ...     "runner_up": {"options": ["a"], "objective": 3e6, "lead": 1e5,
    ...                   "p_beats_best": 1 / 3, "wall_hours_p95": 793.0}}))
    ... # doctest: +NORMALIZE_WHITESPACE
    the runner-up is a ($3M, $100k behind; P95 wall 793.0 h), which beats the
    recommendation in 33% of 6 draws of the uncertain inputs
    """
    rival = result.get("runner_up")
    if not rival:
        return ""
    p95 = rival.get("wall_hours_p95")
    text = (f"the runner-up is {portfolio_name(rival['options'])} "
            f"({objective_text(result, rival['objective'])}, "
            f"{objective_text(result, rival['lead'])} behind"
            + (f"; P95 wall {p95:,.1f} h" if p95 is not None else "") + ")")  # fmt: skip
    if rival.get("p_beats_best") is not None:
        samples = (result.get("uncertainty") or {}).get("samples")
        text += (f", which beats the recommendation in {rival['p_beats_best']:.0%} of "
                 f"{samples} draws of the uncertain inputs")  # fmt: skip
    return text


def decision_text(result: dict[str, Any]) -> str:
    """What decides the plan: the input whose ends move the best's lead over the
    runner-up most, and where (if anywhere) the runner-up wins ("" without one).

    Examples
    --------
    >>> row = {"input": "failures.gpu.lifetime.mtbf", "low": "3y", "high": "8y",
    ...        "lead_low": -3.56e6, "lead_high": 2.5e5, "objective_low": 2.26e6,
    ...        "runner_up_low": 5.81e6, "objective_high": 2.27e6, "runner_up_high": 2.0e6,
    ...        "flips": True}
    >>> print(decision_text({"objective": "net_value", "assumptions": {"currency": "$"},
    ...                      "uncertainty": {"tornado": [row]}}))
    ... # doctest: +NORMALIZE_WHITESPACE
    GPU mean time between failures, 3y to 8y decides it most: the lead over the
    runner-up is -$3.56M at 3y and $250k at 8y; at 3y the runner-up wins ($5.81M
    against $2.26M)
    """
    rows = lead_rows(result)
    if not rows:
        return ""
    row = rows[0]
    text = (f"{input_words(row['input'], row['low'], row['high'])} decides it most: the "
            f"lead over the runner-up is {objective_text(result, row['lead_low'])} at "
            f"{row['low']} and {objective_text(result, row['lead_high'])} at {row['high']}")
    for end in ("low", "high"):
        if row[f"lead_{end}"] < 0:
            text += (f"; at {row[end]} the runner-up wins "
                     f"({objective_text(result, row[f'runner_up_{end}'])} against "
                     f"{objective_text(result, row[f'objective_{end}'])})")  # fmt: skip
    return text
