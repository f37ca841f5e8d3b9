"""The JSON contracts page (docs/reference/json.md) names exactly the top-level keys each
command prints with --json (keys a run adds only with some features are named in prose)."""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from relplan.cli.app import app
from tests.conftest import CONFIGS, REPO

PAGE = (REPO / "docs" / "reference" / "json.md").read_text()
SMALL = str(CONFIGS / "small.toml")
DATA = REPO / "tests" / "data"

COMMANDS = {
    "simulate": ["simulate", SMALL, "--trials", "20"],
    "optimize": ["optimize", SMALL, "--trials", "4"],
    "compare": ["compare", SMALL, "--variant", "a: job.spares=0", "--trials", "4",
                "--workers", "1"],
    "sweep": ["sweep", str(REPO / "studies" / "recovery-strategies.toml"), "--trials", "4",
              "--workers", "1"],
    "inventory": ["inventory", SMALL],
    "baseline": ["baseline", str(CONFIGS / "seed-moe-10k.toml")],
    "catalog": ["catalog"],
    "fit": ["fit", str(DATA / "lifetimes.csv")],
    "analyze": ["analyze", str(DATA / "incidents.csv"), "--config", SMALL],
    "replay": ["replay", str(DATA / "incidents.csv"), "--config", SMALL, "--start",
               "2024-01-01", "--end", "2025-01-01", "--samples", "5"],
    "warmup": ["warmup", SMALL],
    "advise": ["advise", SMALL, "--failures", str(DATA / "sacct.txt"), "--hours", "456"],
}  # fmt: skip


def documented_keys(command: str) -> set[str]:
    """The keys the page gives a command: the first cells of its own table, or its row of a
    shared table (before any parenthesis)."""
    section = re.search(rf"^## [^\n]*\b{command}\b[^\n]*\n(.*?)(?=^## |\Z)", PAGE,
                        flags=re.MULTILINE | re.DOTALL).group(1)  # fmt: skip
    row = re.search(rf"^\| {command} \| (.*?) \|$", section, flags=re.MULTILINE)
    if row:
        cell = re.sub(r"\(.*?\)", "", row.group(1))
        return set(re.findall(r"`([a-z0-9_]+)`", cell))
    keys: set[str] = set()
    for line in section.splitlines():
        if line.startswith("| `"):
            keys |= set(re.findall(r"`([a-z0-9_]+)`", line.split(" | ")[0]))
    return keys


def feature_keys(command: str) -> set[str]:
    """The keys the page names in prose, added by a run only with some features (its
    paragraph "With some features a run adds keys: ...")."""
    section = re.search(rf"^## [^\n]*\b{command}\b[^\n]*\n(.*?)(?=^## |\Z)", PAGE,
                        flags=re.MULTILINE | re.DOTALL).group(1)  # fmt: skip
    prose = re.search(r"^With some features a run adds keys:(.*?)(?:\n\n|\Z)", section,
                      flags=re.MULTILINE | re.DOTALL)  # fmt: skip
    return set(re.findall(r"`([a-z0-9_]+)`", prose.group(1))) if prose else set()


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_the_page_names_every_key_the_command_prints(command: str) -> None:
    """Every key of the command's table is printed, and every key printed is in the
    table or named in prose as one some features add (small.toml's [workload] adds
    ``baseline`` to simulate)."""
    result = CliRunner().invoke(app, [*COMMANDS[command], "--json"])
    assert result.exit_code == 0, result.output
    printed = set(json.loads(result.stdout))
    assert documented_keys(command) <= printed
    assert printed - documented_keys(command) <= feature_keys(command)
