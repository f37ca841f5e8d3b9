"""The progress bar of sweep, compare and plan: finished points and trials, in one line
of at most 80 columns."""

from __future__ import annotations

import io
import re

from rich.console import Console

import relplan.cli.render as render
from relplan.cli.common import points_progress


def _lines(monkeypatch, label: str, points: int | None, per_point: int,
           steps: list[tuple[int, int]]) -> list[str]:  # fmt: skip
    """Every distinct line the bar drew on an 80-column terminal."""
    screen = io.StringIO()
    monkeypatch.setattr(render, "error_console",
                        Console(file=screen, width=80, force_terminal=True))  # fmt: skip
    with points_progress(label, points, per_point, True) as advance:
        for trials, finished in steps:
            advance(trials, finished)
    plain = re.sub(r"\x1b\[[0-9;?]*[a-zA-Z]", "", screen.getvalue())
    return [line for line in plain.replace("\r", "\n").splitlines() if line.strip()]


def test_the_bar_counts_points_and_trials_within_80_columns(monkeypatch) -> None:
    lines = _lines(monkeypatch, "recovery-strategies-of-a-long-name", 120, 10_000,
                   [(10_000, 0), (0, 1), (590_000, 59), (600_000, 60)])  # fmt: skip
    assert lines, "the bar was drawn"
    assert all(len(line) <= 80 for line in lines), lines
    assert "points 120/120  trials 1,200,000/1,200,000" in lines[-1]
    assert lines[-1].startswith("recovery-st\u2026")


def test_a_plan_bar_counts_without_a_total(monkeypatch) -> None:
    lines = _lines(monkeypatch, "planning", None, 500, [(500, 1), (1000, 2)])
    assert "points 3  trials 1,500" in lines[-1]
    assert all(len(line) <= 80 for line in lines)


def test_no_bar_when_not_shown() -> None:
    with points_progress("x", 3, 10, False) as advance:
        assert advance is None
