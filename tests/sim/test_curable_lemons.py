"""Curable lemons (AIReSim's model): a successful repair makes a lemon a
normal unit, a failed one leaves it a lemon with no early refail."""

from __future__ import annotations

import math

import numpy as np
import pytest

from relplan.config.loading import load_config
from relplan.sim import distributions
from relplan.sim.cohorts import unit_failure_counts
from relplan.sim.model import UnitHistory, build_model


def _expected_failures(hours: float, mtbf: float, factor: float, success: float) -> float:
    """One unit that starts a lemon (rate f / m) and turns normal (rate 1 / m) at each
    failure with probability p: P(still a lemon at t) = exp(-p f t / m), so the expected
    failures in [0, H] are H / m + (f - 1) / (p f) (1 - exp(-p f H / m))."""
    return hours / mtbf + (factor - 1.0) / (success * factor) * -math.expm1(
        -success * factor * hours / mtbf)


@pytest.mark.parametrize("success", [1.0, 0.5, 0.2])
def test_curable_lemon_failures_match_the_closed_form(success: float) -> None:
    mtbf, factor, hours, units, trials = 100.0, 6.0, 150.0, 50, 400
    history = UnitHistory(lemon_share=1.0, lemon_factor=factor, repair_success=success,
                          lemons_curable=True)  # fmt: skip
    counts = unit_failure_counts(units, distributions.exponential(mtbf), history, hours,
                                 trials, np.random.default_rng(1), windows=3)  # fmt: skip
    per_unit = counts.failures / units
    exact = _expected_failures(hours, mtbf, factor, success)
    error = per_unit.std(ddof=1) / math.sqrt(trials)
    assert abs(per_unit.mean() - exact) < 4 * error


def test_a_failed_repair_of_a_curable_lemon_has_no_refail() -> None:
    """repair_success = 0: a lemon stays a lemon and fails at f / m, no faster (a refail
    of 1 h would make it fail about every hour)."""
    history = UnitHistory(lemon_share=1.0, lemon_factor=4.0, repair_success=1e-9,
                          lemons_curable=True)  # fmt: skip
    counts = unit_failure_counts(20, distributions.exponential(100.0), history, 200.0, 300,
                                 np.random.default_rng(2))  # fmt: skip
    per_unit = counts.failures / 20
    exact = 200.0 * 4.0 / 100.0
    assert abs(per_unit.mean() - exact) < 4 * per_unit.std(ddof=1) / math.sqrt(300)


def test_curable_key() -> None:
    config = load_config("configs/small.toml", [
        'failures.gpu.lemons={share="10%", factor=5, curable=true}',
        'failures.gpu.repair_success="70%"'])  # fmt: skip
    history = next(m.history for m in build_model(config).modes if m.name == "gpu")
    assert history.lemons_curable and history.repair_success == pytest.approx(0.7)
    assert history.refail_hours_per_failure() == 0.0
