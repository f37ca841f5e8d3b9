"""Words and numbers of a redundancy plan: objective labels, values with the currency's
symbol, uncertain inputs named in words. Pure string functions of the dict
:func:`relplan.analysis.plan.run_plan` returns, shared by the terminal table, the
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
