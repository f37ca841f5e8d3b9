"""Marks for the doctests collected outside ``tests/``: the package's docstring examples
(``relplan/``) and the documentation pages' examples (``docs/``)."""

from __future__ import annotations

import pytest

SLOW_DOCTESTS = frozenset({
    "from-your-logs.md",                          # replays a year of a real log
    "relplan.api.plan",                           # a redundancy plan
    "relplan.api.run_results.PlanResult",         # a redundancy plan
    "relplan.published.daly_cases",     # Daly's validation cases
})  # fmt: skip
"""Doctests of a second or more, left out of the quick loop (``pytest -m "not slow"``)."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark the slow doctests ``slow``, as the slow tests under ``tests/`` are."""
    for item in items:
        if item.name in SLOW_DOCTESTS:
            item.add_marker(pytest.mark.slow)
