"""Speed differences are never silent: compare, sweep and plan warn, on the command line
and through Python's ``warnings``, when their scenarios' healthy step times differ while
the work is in hours (then every scenario trains the same hours, whatever its step)."""

from __future__ import annotations

import warnings

import pytest
from typer.testing import CliRunner

import relplan
from relplan.cli.app import app
from relplan.config.loading import load_config
from relplan.config.plan import load_plan
from relplan.config.study import load_study
from relplan.errors import RelplanWarning
from relplan.runs.plan_checks import fit_plan_to_fabric
from relplan.runs.preflight import speed_warning
from tests.conftest import CONFIGS

runner = CliRunner()
SMALL = CONFIGS / "small.toml"
SLOWER = "workload.step_compute=1.25s"
"""A step 25% slower than small.toml's 1 s (its AllReduce hides behind the compute)."""
MESSAGE = r"job\.work: the healthy step time differs between them \(1\.000 s at .* to 1\.250 s"


def test_the_warning_names_the_fastest_and_slowest_step_and_only_work_in_hours() -> None:
    in_hours = load_config(SMALL, ["job.work=2d"])
    slower = load_config(SMALL, ["job.work=2d", SLOWER])
    labelled = [("scenario a", in_hours), ("scenario b", slower)]
    warning = speed_warning(labelled, [1.0 / 3600, 1.25 / 3600])
    assert warning is not None and warning.key == "job.work"
    assert "1.000 s at scenario a to 1.250 s at scenario b, +25.00%" in warning.message
    # the same step, or work in steps: nothing to say
    assert speed_warning(labelled, [1.0 / 3600, 1.0 / 3600]) is None
    in_steps = [("scenario a", load_config(SMALL)), ("scenario b", load_config(SMALL, [SLOWER]))]
    assert speed_warning(in_steps, [1.0 / 3600, 1.25 / 3600]) is None


def test_compare_warns_on_the_command_line_and_in_python() -> None:
    result = runner.invoke(app, ["compare", str(SMALL), "--set", "job.work=2d", "--variant",
                                 f"slower: {SLOWER}", "--trials", "2", "--workers", "1"])
    assert result.exit_code == 0, result.output
    assert "warning: job.work: the healthy step time differs between them (1.000 s at " \
           "scenario small to 1.250 s at scenario slower" in " ".join(result.stderr.split())
    with pytest.warns(RelplanWarning, match=MESSAGE):
        relplan.compare([str(SMALL)], {"slower": [SLOWER]}, trials=2, workers=1,
                        overrides=["job.work=2d"])
    # the shipped config counts steps: the slower step is counted, and nothing is said
    quiet = runner.invoke(app, ["compare", str(SMALL), "--variant", f"slower: {SLOWER}",
                                "--trials", "2", "--workers", "1"])
    assert quiet.exit_code == 0 and "job.work" not in quiet.stderr


def _study(tmp_path, work: str):
    path = tmp_path / "speed.toml"
    path.write_text(f'[study]\nname = "speed"\nquestion = "Is a slower step counted?"\n'
                    f'base = "{SMALL}"\ntrials = 2\nseed = 0\n'
                    f'set = ["{work}"]\n[[study.scenarios]]\nlabel = "1 s"\n'
                    f'[[study.scenarios]]\nlabel = "1.25 s"\nset = ["{SLOWER}"]\n')
    return path


def test_sweep_warns_on_the_command_line_and_in_python(tmp_path) -> None:
    path = _study(tmp_path, "job.work=2d")
    result = runner.invoke(app, ["sweep", str(path), "--workers", "1", "--out",
                                 str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    assert "warning: job.work: the healthy step time differs" in result.stderr
    assert "1.250 s at study point 1.25 s" in " ".join(result.stderr.split())
    with pytest.warns(RelplanWarning, match=MESSAGE):
        relplan.run_study(load_study(path), workers=1)
    quiet = runner.invoke(app, ["sweep", str(_study(tmp_path, "job.steps=172800")),
                                "--workers", "1", "--out", str(tmp_path / "quiet")])
    assert quiet.exit_code == 0 and "job.work" not in quiet.stderr


def _plan(tmp_path, work: str):
    path = tmp_path / "speed-plan.toml"
    path.write_text(f'[plan]\nbase = "{SMALL}"\nset = ["{work}"]\ntrials = 2\n'
                    f'[[plan.options]]\nlabel = "slower kernels"\nset = ["{SLOWER}"]\n')
    return path


def test_plan_warns_on_the_command_line_and_in_python(tmp_path) -> None:
    path = _plan(tmp_path, "job.work=2d")
    result = runner.invoke(app, ["plan", str(path), "--workers", "1"])
    assert result.exit_code == 0, result.output
    assert "warning: job.work: the healthy step time differs" in result.stderr
    assert "1.250 s at plan option slower kernels" in " ".join(result.stderr.split())
    with pytest.warns(RelplanWarning, match=MESSAGE):
        fit_plan_to_fabric(load_plan(path))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit_plan_to_fabric(load_plan(_plan(tmp_path, "job.steps=172800")))
    assert not [w for w in caught if "job.work" in str(w.message)]
