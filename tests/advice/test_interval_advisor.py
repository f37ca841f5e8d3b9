"""A live checkpoint interval (issue 37): the Gamma-Poisson posterior by hand, a stream of
synthetic saves and Poisson failures converging to Daly's interval of the true
parameters, the timeouts and the Slurm lead, and ``relplan advise``."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import numpy as np
import pytest
from scipy import stats
from typer.testing import CliRunner

from relplan.advice import IntervalAdvisor, read_save_seconds
from relplan.cli.app import app
from relplan.errors import ConfigError
from relplan.sim.closed_forms import daly_interval
from tests.conftest import REPO


def test_the_posterior_is_gamma_poisson_by_hand() -> None:
    # prior: 2 pseudo-failures over 2 x 10 h; seen: 3 failures in 15 h
    advisor = IntervalAdvisor(step_seconds=5.0, prior_mtti_hours=10.0, prior_save_seconds=30.0,
                              prior_failures=2.0, clock=None)  # fmt: skip
    advisor.on_hours(15.0)
    advisor.on_failure(3)
    advice = advisor.advice()
    assert advice.mtti_hours == pytest.approx((20.0 + 15.0) / (2.0 + 3.0))
    rate = stats.gamma(5.0, scale=1.0 / 35.0)
    assert advice.mtti_ci90_hours == pytest.approx((1 / rate.ppf(0.95), 1 / rate.ppf(0.05)))
    assert advice.interval_seconds == pytest.approx(daly_interval(30 / 3600, 7.0) * 3600)
    assert advice.interval_steps == round(advice.interval_seconds / 5.0)


def test_without_observations_the_advice_is_the_priors() -> None:
    advisor = IntervalAdvisor(10.0, prior_mtti_hours=4.0, prior_save_seconds=120.0,
                              restart_seconds=600.0, clock=None)  # fmt: skip
    advice = advisor.advice()
    assert advice.mtti_hours == 4.0 and advice.save_seconds == 120.0
    assert advice.interval_seconds == pytest.approx(daly_interval(120 / 3600, 4.0) * 3600)
    # NVRx-style: the longest seen times 5; the signal: a step and two saves, in minutes
    assert advice.section_timeouts_seconds == {"setup": 3000.0, "step": 50.0,
                                               "checkpointing": 600.0}
    assert advice.slurm_signal_seconds == 60 * math.ceil((10 + 2 * 120) / 60)


@pytest.mark.parametrize(("mtti_hours", "save_seconds"), [(3.0, 45.0), (20.0, 300.0)])
def test_a_stream_of_saves_and_failures_converges_to_dalys_interval(
    mtti_hours: float, save_seconds: float,
) -> None:  # fmt: skip
    # the prior is off by 4x both ways; 4,000 failures later the posterior's relative
    # spread is 1/sqrt(4002), and Daly's interval goes as about sqrt(M delta)
    rng = np.random.default_rng(11)
    advisor = IntervalAdvisor(step_seconds=2.0, prior_mtti_hours=mtti_hours * 4,
                              prior_save_seconds=save_seconds / 4, clock=None)  # fmt: skip
    for gap in rng.exponential(mtti_hours, 4000):
        advisor.on_hours(gap)
        advisor.on_failure()
        advisor.on_save(rng.lognormal(math.log(save_seconds) - 0.02, 0.2))
    advice = advisor.advice()
    spread = advice.mtti_hours / math.sqrt(advisor.prior_failures + advisor.failures)
    assert abs(advice.mtti_hours - mtti_hours) < 4 * spread
    true = daly_interval(save_seconds / 3600, mtti_hours) * 3600
    saves_se = 0.2 * save_seconds / math.sqrt(4000)  # the lognormal's mean, roughly
    # d tau / tau ~ (dM / M + d delta / delta) / 2: within 4 standard errors of each
    tolerance = true * 0.5 * 4 * (spread / mtti_hours + saves_se / save_seconds)
    assert abs(advice.interval_seconds - true) < tolerance
    assert advice.interval_steps == round(advice.interval_seconds / 2.0)


def test_the_advisor_imports_no_training_framework() -> None:
    code = ("import sys, relplan.advice; print(any(name in sys.modules for name in "
            "('torch', 'lightning', 'transformers', 'numba')))")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, cwd=REPO).stdout.strip() == "False"  # fmt: skip


@pytest.mark.parametrize(("given", "key"), [
    ({"step_seconds": 0}, "step_seconds"), ({"prior_mtti_hours": -1}, "prior_mtti_hours"),
    ({"prior_save_seconds": float("nan")}, "prior_save_seconds"),
    ({"restart_seconds": -5}, "restart_seconds"),
])  # fmt: skip
def test_bad_arguments_name_themselves(given: dict, key: str) -> None:
    arguments = {"step_seconds": 1.0, "prior_mtti_hours": 5.0, "prior_save_seconds": 10.0,
                 **given}  # fmt: skip
    with pytest.raises(ConfigError) as caught:
        IntervalAdvisor(**arguments)
    assert caught.value.key == key


def test_save_times_are_read_from_a_list_or_a_csv(tmp_path) -> None:
    plain = tmp_path / "saves.txt"
    plain.write_text("61\n\n59.5\n")
    assert read_save_seconds(plain) == [61.0, 59.5]
    bad = tmp_path / "bad.csv"
    bad.write_text("when,duration\n1,2\n")
    with pytest.raises(ConfigError, match="a CSV with a seconds column"):
        read_save_seconds(bad)


SMALL = str(REPO / "configs" / "small.toml")
SACCT = str(REPO / "tests" / "data" / "sacct.txt")


def test_advise_counts_the_logs_failures_and_prints_json(tmp_path) -> None:
    saves = tmp_path / "saves.csv"
    saves.write_text("step,seconds\n100,58\n200,62\n")
    runner = CliRunner()
    result = runner.invoke(app, ["advise", SMALL, "--save-times", str(saves), "--failures",
                                 SACCT, "--hours", "500", "--json"])  # fmt: skip
    assert result.exit_code == 0, result.output
    advice = json.loads(result.stdout)
    # sacct.txt: 3 NODE_FAIL, 1 BOOT_FAIL, 1 PREEMPTED; CANCELLED is no failure
    assert advice["failures"] == 5 and advice["save_seconds"] == 60.0
    mapped = runner.invoke(app, ["advise", SMALL, "--failures", SACCT, "--hours", "500",
                                 "--map", str(REPO / "tests" / "data" / "sacct-map.csv"),
                                 "--json"])  # fmt: skip
    assert json.loads(mapped.stdout)["failures"] == 4  # PREEMPTED mapped to -
    table = runner.invoke(app, ["advise", SMALL])
    assert table.exit_code == 0 and "checkpoint every" in table.output
    assert "sbatch --signal=B:USR1@" in table.output


@pytest.mark.parametrize(("args", "key"), [
    (["--failures", SACCT], "--hours"),
    (["--failures", SACCT, "--hours", "0"], "--hours"),
    (["--save-times", SACCT], "--save-times"),
])  # fmt: skip
def test_advise_refuses_bad_input_naming_the_option(args: list[str], key: str) -> None:
    result = CliRunner().invoke(app, ["advise", SMALL, *args])
    assert result.exit_code == 2 and key in result.output
    assert "Traceback" not in result.output


def test_what_the_advisor_saw_survives_a_restart() -> None:
    first = IntervalAdvisor(4.0, 6.0, 50.0, clock=None)
    first.on_hours(30.0)
    first.on_failure(2)
    first.on_save(55.0)
    first.on_step(5.0)
    again = IntervalAdvisor(4.0, 6.0, 50.0, clock=lambda: 1.5)  # 1.5 h into the new run
    again.load_state_dict(json.loads(json.dumps(first.state_dict())))
    again.on_failure()  # the crash that restarted it
    assert again.hours_run == pytest.approx(30.0)
    assert again.advice().mtti_hours == pytest.approx((2 * 6.0 + 30.0) / (2 + 3))
    assert again.advice().save_seconds == 55.0 and again.step_seconds == first.step_seconds
