"""Checks of the SimPy reference model (benchmarks/simpy_reference.py) against Daly 2006."""

from __future__ import annotations

import importlib.util
import math
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

_PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "simpy_reference.py"
_spec = importlib.util.spec_from_file_location("simpy_reference", _PATH)
ref = importlib.util.module_from_spec(_spec)
sys.modules["simpy_reference"] = ref  # dataclasses resolve their module through sys.modules
_spec.loader.exec_module(ref)

FailureClass = ref.FailureClass
ReferenceCase = ref.ReferenceCase

# Restart comparable to the job MTBF: failures during restarts matter (e^{R/M} = e^{0.5}).
RESTART_HEAVY = ReferenceCase(
    work_hours=20.0,
    interval_hours=1.0,
    write_hours=0.1,
    restart_hours=1.0,
    failure_classes=(
        FailureClass("gpu", units=1000, mtbf_hours=2000.0, repair_hours=0.0, detect_hours=0.1),
    ),
)
# No spares, fixed repair: every failure waits exactly the repair.
FIXED_REPAIR_NO_SPARES = ReferenceCase(
    work_hours=60.0,
    interval_hours=2.0,
    write_hours=0.2,
    restart_hours=0.3,
    spares=0,
    failure_classes=(
        FailureClass(
            "host",
            units=500,
            mtbf_hours=2500.0,
            repair_hours=3.0,
            detect_hours=0.2,
            uses_spares=True,
        ),
    ),
)
# Two classes: spare-backed hosts (ample pool, exponential repair) and links without spares.
TWO_CLASSES = ReferenceCase(
    work_hours=50.0,
    interval_hours=1.5,
    write_hours=0.15,
    restart_hours=0.4,
    spares=10_000,
    failure_classes=(
        FailureClass(
            "host",
            units=400,
            mtbf_hours=1600.0,
            repair_hours=24.0,
            detect_hours=0.05,
            uses_spares=True,
            repair_dist="exponential",
        ),
        FailureClass(
            "link",
            units=300,
            mtbf_hours=1800.0,
            repair_hours=1.5,
            detect_hours=0.5,
            uses_spares=False,
        ),
    ),
)
# A pool of one spare with long repairs: it often runs dry, so jobs wait.
SCARCE_SPARES = ReferenceCase(
    work_hours=40.0,
    interval_hours=2.0,
    write_hours=0.1,
    restart_hours=0.2,
    spares=1,
    failure_classes=(
        FailureClass(
            "host",
            units=100,
            mtbf_hours=300.0,
            repair_hours=10.0,
            detect_hours=0.1,
            uses_spares=True,
        ),
    ),
)

SCARCE_SPARES_EXPONENTIAL = replace(
    SCARCE_SPARES,
    failure_classes=(replace(SCARCE_SPARES.failure_classes[0], repair_dist="exponential"),),
)

DALY_CASES = {
    "restart_heavy": (RESTART_HEAVY, 2000),
    "fixed_repair_no_spares": (FIXED_REPAIR_NO_SPARES, 2000),
    "two_classes": (TWO_CLASSES, 1500),
}
BUCKET_SUM_CASES = {
    "restart_heavy": RESTART_HEAVY,
    "fixed_repair_no_spares": FIXED_REPAIR_NO_SPARES,
    "two_classes": TWO_CLASSES,
    "scarce_spares": SCARCE_SPARES,
    "scarce_spares_exponential": SCARCE_SPARES_EXPONENTIAL,
}


@pytest.fixture(scope="module")
def results():
    cache = {}

    def run(case, trials, seed=12345):
        key = (case, trials, seed)
        if key not in cache:
            cache[key] = ref.simulate_reference(case, trials=trials, seed=seed)
        return cache[key]

    return run


def standard_error(values):
    return np.std(values, ddof=1) / math.sqrt(len(values))


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(DALY_CASES))
def test_mean_wall_matches_daly(name, results):
    case, trials = DALY_CASES[name]
    out = results(case, trials)
    expected = ref.case_expected_wall_hours(case)
    mean = out["wall_hours"].mean()
    se = standard_error(out["wall_hours"])
    assert abs(mean - expected) < 4 * se, (mean, expected, se)
    # the cases are meant to have tens of failures per trial
    assert out["interruptions"].mean() > 10


def test_restart_failures_matter(results):
    """Without failures during restarts the closed form would be clearly off."""
    case, trials = DALY_CASES["restart_heavy"]
    out = results(case, trials)
    m = ref.job_mtbf_hours(case)
    no_restart_failures = ref.daly_expected_wall_hours(
        case.work_hours,
        case.interval_hours,
        case.write_hours,
        0.0,
        m,
        ref.mean_downtime_hours(case) + case.restart_hours,
    )
    se = standard_error(out["wall_hours"])
    assert out["wall_hours"].mean() - no_restart_failures > 8 * se


@pytest.mark.parametrize("name", sorted(BUCKET_SUM_CASES))
def test_buckets_sum_to_wall(name, results):
    case = BUCKET_SUM_CASES[name]
    out = results(case, 200, seed=7)
    total = sum(out[bucket] for bucket in ref.BUCKETS)
    np.testing.assert_allclose(total, out["wall_hours"], rtol=1e-12, atol=1e-9)
    np.testing.assert_allclose(out["useful"], case.work_hours, rtol=1e-12)
    np.testing.assert_array_equal(out["interruptions"], out["interruptions_by_class"].sum(axis=1))
    for bucket in ref.BUCKETS:
        assert np.all(out[bucket] >= 0.0)


def test_failure_free_run():
    case = ReferenceCase(
        work_hours=10.5,
        interval_hours=2.0,
        write_hours=0.25,
        restart_hours=1.0,
        failure_classes=(FailureClass("gpu", units=1, mtbf_hours=1e12, repair_hours=1.0),),
    )
    out = ref.simulate_reference(case, trials=3, seed=0)
    assert case.checkpoints_per_run == 5  # ceil(10.5 / 2) - 1
    np.testing.assert_allclose(out["wall_hours"], 10.5 + 5 * 0.25)
    np.testing.assert_allclose(out["checkpoint"], 5 * 0.25)
    assert np.all(out["interruptions"] == 0)
    assert ref.daly_expected_wall_hours(10.5, 2.0, 0.25, 1.0, math.inf, 0.0) == 10.5 + 1.25


def test_ample_spares_never_wait(results):
    out = results(*DALY_CASES["two_classes"])
    hosts, links = out["interruptions_by_class"].T
    np.testing.assert_array_equal(out["spares_used"], hosts)
    # only the links (no spares, fixed repair) wait
    np.testing.assert_allclose(out["waiting"], 1.5 * links, rtol=1e-9, atol=1e-9)
    host_only = ReferenceCase(
        work_hours=30.0,
        interval_hours=1.0,
        write_hours=0.1,
        restart_hours=0.2,
        spares=10_000,
        failure_classes=(TWO_CLASSES.failure_classes[0],),
    )
    out = ref.simulate_reference(host_only, trials=100, seed=3)
    assert out["interruptions"].sum() > 0
    assert np.all(out["waiting"] == 0.0)
    np.testing.assert_array_equal(out["spares_used"], out["interruptions"])


def test_no_spares_fixed_repair_waits_the_repair(results):
    out = results(*DALY_CASES["fixed_repair_no_spares"])
    np.testing.assert_allclose(out["waiting"], 3.0 * out["interruptions"], rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(out["detect"], 0.2 * out["interruptions"], rtol=1e-9, atol=1e-9)
    assert np.all(out["spares_used"] == 0)


def test_scarce_spares_partial_waits(results):
    """With one spare and fixed repairs, the spare in repair is always back before the
    failed unit's own repair ends: every failure gets a spare, some after a partial wait."""
    out = results(SCARCE_SPARES, 200, seed=7)
    repair = SCARCE_SPARES.failure_classes[0].repair_hours
    np.testing.assert_array_equal(out["spares_used"], out["interruptions"])
    assert np.all(out["waiting"] < repair * out["interruptions"])
    assert out["waiting"].sum() > 0.0


def test_scarce_spares_exponential_repair(results):
    """With random repairs a failure sometimes gets its own unit back first."""
    out = results(SCARCE_SPARES_EXPONENTIAL, 200, seed=7)
    assert np.all(out["spares_used"] <= out["interruptions"])
    assert 0 < out["spares_used"].sum() < out["interruptions"].sum()
    assert out["waiting"].sum() > 0.0


def test_idle_hardware_does_not_age():
    """Failures follow exposed time only: E[N] = E[exposed] / M (Wald), despite long downs."""
    case = ReferenceCase(
        work_hours=30.0,
        interval_hours=1.0,
        write_hours=0.1,
        restart_hours=0.3,
        failure_classes=(
            FailureClass("host", units=100, mtbf_hours=200.0, repair_hours=20.0, detect_hours=5.0),
        ),
    )
    out = ref.simulate_reference(case, trials=400, seed=11)
    exposed = out["useful"] + out["rework"] + out["checkpoint"] + out["restart"]
    residual = out["interruptions"] - exposed / ref.job_mtbf_hours(case)
    assert abs(residual.mean()) < 4 * standard_error(residual)
    # had the hardware aged while down (25 h per failure), there would be far more failures
    assert out["interruptions"].mean() < 0.5 * out["wall_hours"].mean() / ref.job_mtbf_hours(case)
