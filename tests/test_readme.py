"""The README's and the documentation pages' examples run as written, so they never drift
from the code."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

from relplan.cli.app import app
from tests.conftest import MINIMAL_TOML, REPO, doc_outputs, docs_text

README = (REPO / "README.md").read_text()
DOCS = docs_text()
SHOWN = {command.command for page in doc_outputs().PAGES
         for command in doc_outputs().shown_commands(page)}  # fmt: skip
"""The commands shown with their output, which tests/test_doc_outputs.py runs."""
EXAMPLES = [example for example in dict.fromkeys(re.findall(r"^\$ relplan (.+)$", DOCS,
                                                            flags=re.MULTILINE))
            if example not in SHOWN]  # fmt: skip
ERRORS = re.findall(r"^error: (.+)$", DOCS, flags=re.MULTILINE)


def test_readme_has_examples() -> None:
    assert len(re.findall(r"^\$ relplan (.+)$", README, flags=re.MULTILINE)) >= 5
    assert len(README.splitlines()) <= 300  # short: the docs hold the rest
    assert "pip install -e . && relplan simulate configs/small.toml" in README
    assert 'pip install -e ".[test]" && python -m pytest' in README


@pytest.mark.slow  # every README command, a plan and a 16k-GPU run among them
@pytest.mark.parametrize("example", EXAMPLES)
def test_readme_example_runs(example: str, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(REPO)
    args = [arg.replace("out/", f"{tmp_path}/") for arg in shlex.split(example)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize(
    ("override", "message"),
    zip(["failures.gpu.lifetime.mtbf=-5y", "job.gpus=4096"], ERRORS, strict=True),
)
def test_readme_error_examples_are_real(override: str, message: str, tmp_path: Path) -> None:
    config = tmp_path / "minimal.toml"
    config.write_text(MINIMAL_TOML)
    result = CliRunner().invoke(app, ["simulate", str(config), "--set", override])
    assert result.exit_code == 2
    assert result.output.strip() == f"error: {message}"


PYTHON_EXAMPLES = re.findall(r"^```python\n(.*?)^```", README, flags=re.MULTILINE | re.DOTALL)


def test_readme_has_a_use_from_python_section() -> None:
    assert "## Use from Python" in README
    assert PYTHON_EXAMPLES


@pytest.mark.parametrize("code", PYTHON_EXAMPLES)
def test_readme_python_example_runs(code: str, monkeypatch, capsys) -> None:
    monkeypatch.chdir(REPO)
    namespace: dict[str, object] = {}
    exec(compile(code, "README.md", "exec"), namespace)
    printed = capsys.readouterr().out
    assert printed.strip(), "the example prints its results"
    assert len(namespace["trials"]) == 500  # the example's own trial count
