"""Command names a reader cannot confuse: ``validate`` checks a config, ``published``
checks relplan against published figures (``validation``, its old name, still works)."""

from __future__ import annotations

from typer.testing import CliRunner

from relplan.cli.app import app


def test_published_is_listed_and_validation_is_a_hidden_alias() -> None:
    listing = CliRunner().invoke(app, ["--help"])
    assert listing.exit_code == 0
    commands = listing.output.split("Commands:")[1].split()
    assert "published" in commands and "validate" in commands
    assert "validation" not in commands
    for name in ("published", "validation"):
        shown = CliRunner().invoke(app, [name, "--help"])
        assert shown.exit_code == 0, shown.output
        assert "published figures" in shown.output
