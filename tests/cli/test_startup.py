"""The command line starts lean: no heavy library is imported before a command needs it."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from importlib.metadata import version

import pytest
from typer.testing import CliRunner

import relplan
from relplan.cli.app import app
from tests.conftest import REPO

HEAVY = ("numba", "matplotlib", "pandas", "scipy", "dask", "pyarrow", "numpy", "pydantic")


def _loaded_after(statement: str) -> list[str]:
    probe = (
        f"import sys, json; {statement}; "
        f"print('LOADED', json.dumps([m for m in {HEAVY!r} if m in sys.modules]))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          cwd=REPO, check=True)  # fmt: skip
    last = done.stdout.strip().splitlines()[-1]
    assert last.startswith("LOADED ")
    return json.loads(last.removeprefix("LOADED "))


@pytest.mark.parametrize("module", ["relplan", "relplan.cli", "relplan.cli.app"])
def test_importing_the_cli_loads_no_heavy_library(module: str) -> None:
    assert _loaded_after(f"import {module}") == []


def test_help_loads_no_heavy_library() -> None:
    statement = (
        "from relplan.cli.app import app\n"
        "try:\n    app(['--help'], prog_name='relplan')\nexcept SystemExit:\n    pass"
    )
    assert _loaded_after(f"exec({statement!r})") == []


@pytest.mark.slow
def test_a_command_loads_its_libraries_when_it_runs() -> None:
    # The probe is able to see an import: a command that simulates does load numba.
    statement = (
        "from relplan.cli.app import app\n"
        "try:\n    app(['validate', 'configs/small.toml'], prog_name='relplan')\n"
        "except SystemExit:\n    pass"
    )
    assert "pydantic" in _loaded_after(f"exec({statement!r})")


def test_ruff_bans_heavy_imports_at_module_level_in_the_cli() -> None:
    settings = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["ruff"]["lint"]
    assert "TID253" in settings["select"]
    banned = set(settings["flake8-tidy-imports"]["banned-module-level-imports"])
    assert set(HEAVY) <= banned


def test_version_option_prints_the_package_version() -> None:
    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.output.strip() == f"relplan {relplan.__version__}"
    assert version("relplan") == relplan.__version__
