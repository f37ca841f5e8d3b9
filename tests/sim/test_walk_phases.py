"""The walk stays split into phases: no function of it grows past :data:`MOST_LINES`."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

from relplan.sim import timeline, walk
from relplan.sim.walk import accounting, arrival, checkpoint, degradation, recovery

MOST_LINES = 150
"""The most lines a function of the walk may span (its docstring counted, the functions
defined inside it not)."""

WALK_MODULES = [*sorted(Path(walk.__file__).parent.glob("*.py")), Path(timeline.__file__)]


def own_lines(function: ast.FunctionDef) -> int:
    """Lines ``function`` spans, from its first decorator, less those of the functions
    defined inside it."""
    first = min([function.lineno, *(d.lineno for d in function.decorator_list)])
    nested = sum(
        node.end_lineno - min([node.lineno, *(d.lineno for d in node.decorator_list)]) + 1
        for node in ast.walk(function)
        if node is not function and isinstance(node, ast.FunctionDef)
    )
    return function.end_lineno - first + 1 - nested


def functions(path: Path) -> list[tuple[str, int]]:
    """Every function of a module, nested ones too, with its own lines."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [(f"{path.name}:{node.name}", own_lines(node))
            for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)]  # fmt: skip


@pytest.mark.parametrize("path", WALK_MODULES, ids=lambda path: path.name)
def test_no_function_of_the_walk_is_long(path: Path) -> None:
    too_long = [(name, lines) for name, lines in functions(path) if lines > MOST_LINES]
    assert not too_long, f"split these, at most {MOST_LINES} lines each: {too_long}"


def test_the_count_sees_a_long_function() -> None:
    body = "\n".join(f"    x{k} = {k}" for k in range(MOST_LINES))
    tree = ast.parse(f"@decorated\ndef long():\n{body}\n    def inner():\n        pass\n")
    assert own_lines(tree.body[0]) == MOST_LINES + 2  # the decorator and the def line


def test_the_walk_is_built_from_the_phases() -> None:
    """The walk calls a phase of each concern, and each phase is inlined (numba, before
    typing: its feature branches pruned with the walk's constants)."""
    source = inspect.getsource(timeline.walk_kernel.__wrapped__)
    phases = {
        arrival: ("next_event", "planned_event", "draw_failure"),
        checkpoint: ("advance_run", "stop_job", "note_corruption"),
        degradation: ("end_degradation", "strike_slow", "keep_running"),
        recovery: ("replacement", "wait_while_down", "book_downtime", "restart_first"),
        accounting: ("start_trial", "store_trial", "end_phase", "end_at_horizon"),
    }
    for module, names in phases.items():
        for name in names:
            assert f"{name}(" in source, name
            phase = getattr(module, name)
            assert phase.targetoptions.get("inline") == "always", name
