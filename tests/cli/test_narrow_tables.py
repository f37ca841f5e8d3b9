"""In an 80-column terminal every table fits, and no cell is cut."""

from __future__ import annotations

import pytest
from rich.console import Console
from typer.testing import CliRunner

import relplan.cli.render as render
from relplan.cli.app import app
from tests.conftest import CONFIGS

runner = CliRunner()
SHIPPED = sorted(CONFIGS.glob("*.toml"))
WIDTH = 80


PROSE = {"impact", "point", "repair", "detect", "rate", "features", "configs"}
"""Headers of the columns of prose, whose cells may wrap at spaces."""


@pytest.fixture
def narrow(monkeypatch) -> tuple[Console, list[str]]:
    """An 80-column console for the tables, and every cell they were given (plain text)."""
    from rich.table import Table
    from rich.text import Text

    screen = Console(width=WIDTH, record=True, color_system=None, force_terminal=False)
    monkeypatch.setattr(render, "console", screen)
    cells: list[str] = []
    real = Table.add_row

    def spy(table, *row, **kwargs):
        for column, cell in zip(table.columns, row, strict=False):
            if str(column.header) not in PROSE and isinstance(cell, str):
                cells.append(Text.from_markup(cell).plain)
        return real(table, *row, **kwargs)

    monkeypatch.setattr(Table, "add_row", spy)
    return screen, cells


def _check(screen: Console, cells: list[str]) -> None:
    text = screen.export_text()
    assert cells, "no table was printed"
    for line in text.splitlines():
        assert len(line) <= WIDTH, line
    assert "…" not in text and "..." not in text
    for cell in cells:  # each cell whole, on one line
        assert cell in text, cell


@pytest.mark.parametrize("config", SHIPPED, ids=lambda p: p.stem)
def test_inventory_fits_80_columns(config, narrow) -> None:
    result = runner.invoke(app, ["inventory", str(config)])
    assert result.exit_code == 0, result.output
    _check(*narrow)


@pytest.mark.parametrize("config", [c for c in SHIPPED if "[workload]" in c.read_text()],
                         ids=lambda p: p.stem)  # fmt: skip
def test_baseline_fits_80_columns(config, narrow) -> None:
    result = runner.invoke(app, ["baseline", str(config)])
    assert result.exit_code == 0, result.output
    _check(*narrow)


@pytest.mark.slow  # a comparison of every shipped config
@pytest.mark.parametrize("config", SHIPPED, ids=lambda p: p.stem)
def test_compare_fits_80_columns(config, narrow) -> None:
    """Priced (small.toml has a budget) or not, with a long scenario name and big numbers."""
    result = runner.invoke(app, ["compare", str(config), "--trials", "20", "--variant",
                                 "without any spare servers: job.spares=0"])  # fmt: skip
    assert result.exit_code == 0, result.output
    _check(*narrow)


@pytest.mark.parametrize("command", [["simulate", "--trials", "20"],
                                     ["optimize", "--trials", "3"]])
def test_simulate_and_optimize_fit_80_columns(command, narrow) -> None:
    result = runner.invoke(app, [command[0], str(CONFIGS / "llama3-16k.toml"), *command[1:]])
    assert result.exit_code == 0, result.output
    _check(*narrow)


def test_catalog_fits_80_columns(narrow) -> None:
    assert runner.invoke(app, ["catalog"]).exit_code == 0
    _check(*narrow)


def test_a_table_too_wide_for_any_split_is_stacked() -> None:
    screen = Console(width=30, record=True, color_system=None)
    render.print_table("t", ("name", "value"), [["a" * 20, "1,234,567,890"]], target=screen)
    text = screen.export_text()
    assert "name: " + "a" * 20 in text and "value: 1,234,567,890" in text


def test_warmup_fits_80_columns(narrow) -> None:
    result = runner.invoke(app, ["warmup", str(CONFIGS / "small.toml"),
                                 str(CONFIGS / "llama3-16k.toml")])  # fmt: skip
    assert result.exit_code == 0, result.output
    _check(*narrow)
