"""Usability findings, each reproduced: fail before the work, no traceback, readable files."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from typer.testing import CliRunner

from relplan.cli.app import app
from tests.conftest import CONFIGS, REPO

runner = CliRunner()
SMALL = str(CONFIGS / "small.toml")


@pytest.mark.parametrize("command", [["simulate", SMALL, "--trials", "5"],
                                     ["optimize", SMALL, "--trials", "5"]])
@pytest.mark.parametrize("where", ["file", "under-file"])
def test_a_bad_out_is_refused_before_the_work(command, where, tmp_path, monkeypatch) -> None:
    blocker = tmp_path / "blocker"
    blocker.write_text("x")
    out = blocker if where == "file" else blocker / "results"
    ran = []
    import relplan.runs.scenarios as scenarios

    monkeypatch.setattr(scenarios, "simulate", lambda *a, **k: ran.append(1))
    result = runner.invoke(app, [*command, "--out", str(out)])
    assert result.exit_code == 2
    assert result.stderr.startswith("error: --out:")
    assert "Traceback" not in result.output and not ran


def test_sweep_checks_its_output_folder_first(tmp_path) -> None:
    blocker = tmp_path / "blocker"
    blocker.write_text("x")
    study = REPO / "studies" / "recovery-strategies.toml"
    result = runner.invoke(app, ["sweep", str(study), "--trials", "5", "--out", str(blocker)])
    assert result.exit_code == 2 and "--out" in result.stderr


def test_an_unwritable_folder_is_refused(tmp_path, monkeypatch) -> None:
    from relplan.errors import ConfigError
    from relplan.output.files import check_output_dir

    monkeypatch.setattr(os, "access", lambda path, mode: False)  # root may write anywhere
    with pytest.raises(ConfigError, match="not writable") as error:
        check_output_dir(tmp_path / "results")
    assert error.value.key == "--out"


@pytest.mark.slow
def test_output_files_honour_the_umask(tmp_path) -> None:
    previous = os.umask(0o022)
    try:
        result = runner.invoke(app, ["simulate", SMALL, "--trials", "5", "--out", str(tmp_path)])
    finally:
        os.umask(previous)
    assert result.exit_code == 0, result.output
    files = [p for p in Path(tmp_path).iterdir() if p.is_file()]
    assert files
    for path in files:
        assert stat.S_IMODE(path.stat().st_mode) == 0o644, path


@pytest.mark.parametrize("override", ["job.work=1e400h", "failures.gpu.lifetime.mtbf=1e400h"])
def test_an_overflowing_duration_is_a_clear_error(override) -> None:
    result = runner.invoke(app, ["simulate", SMALL, "--set", override])
    assert result.exit_code == 2
    assert "too large" in result.stderr and "Traceback" not in result.output


def test_ctrl_c_stops_with_one_line_and_exit_130(monkeypatch) -> None:
    import relplan.runs.scenarios as scenarios

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(scenarios, "simulate", interrupted)
    result = runner.invoke(app, ["simulate", SMALL, "--trials", "5"])
    assert result.exit_code == 130
    assert result.stderr.strip() == "interrupted"


@pytest.mark.parametrize(("override", "key", "words"), [
    ("job.restart=-5min", "job.restart", "(got '-5min')"),  # as typed, not -0.0833 h
    ("job.spares=true", "job.spares", "valid integer"),  # a bool is not a count
    ("job.gpus=513", "job.gpus", "do not fill whole 8-GPU servers"),  # not the spares' fault
])
def test_messages_name_the_real_culprit_as_typed(override, key, words) -> None:
    result = runner.invoke(app, ["simulate", SMALL, "--set", override])
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: {key}:") and words in result.stderr


def test_a_folder_given_as_config_says_so(tmp_path) -> None:
    result = runner.invoke(app, ["simulate", str(tmp_path)])
    assert result.exit_code == 2
    assert "is a folder, not a TOML file" in result.stderr
