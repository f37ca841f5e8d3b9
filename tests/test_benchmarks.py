"""The benchmark (benchmarks/run.py): its converter, agreement with SimPy, and its output.

Timings are never asserted here: they belong to the benchmark's output only.
"""

from __future__ import annotations

import importlib.util
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from relplan.sim.engine import simulate

REPO = Path(__file__).resolve().parents[1]
_PATH = REPO / "benchmarks" / "run.py"
_spec = importlib.util.spec_from_file_location("relplan_benchmark_run", _PATH)
bench = importlib.util.module_from_spec(_spec)
sys.modules["relplan_benchmark_run"] = bench
_spec.loader.exec_module(bench)

REQUIRED_CASE_KEYS = (
    "trials_per_second",
    "events_per_second",
    "speedup_per_trial",
    "peak_memory_bytes",
    "floor_seconds",
    "floor_multiple",
)


def z_difference(a: np.ndarray, b: np.ndarray) -> float:
    """Difference of two sample means in combined standard errors."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    combined = math.hypot(a.std(ddof=1) / math.sqrt(a.size), b.std(ddof=1) / math.sqrt(b.size))
    return float((a.mean() - b.mean()) / combined)


# --------------------------------------------------------------------------- converter


def test_overrides_replace_lognormal_repair_by_exponential_of_same_mean():
    original = bench.build_model(bench.load_config(bench.CONFIGS / "small.toml"))
    assert any(mode.repair.kind == "lognormal" for mode in original.modes)
    model = bench.comparable_model("small")
    assert len(model.modes) == len(original.modes)
    for before, after in zip(original.modes, model.modes, strict=True):
        assert after.name == before.name
        assert after.repair.kind in ("fixed", "exponential")
        assert after.repair.mean_hours == pytest.approx(before.repair.mean_hours, rel=1e-12)
        if before.repair.kind != "lognormal":
            assert after.repair == before.repair
        assert after.lifetime == before.lifetime
        assert getattr(after, "impact", "fatal") == "fatal"
    assert bench.reference_overrides(model) == []


def test_overrides_make_every_failure_fatal():
    original = bench.build_model(bench.load_config(bench.CONFIGS / "seed-moe-10k.toml"))
    model = bench.comparable_model("seed-moe-10k")
    assert [m.name for m in model.modes] == [m.name for m in original.modes]
    assert all(getattr(mode, "impact", "fatal") == "fatal" for mode in model.modes)
    for mode in original.modes:
        if getattr(mode, "impact", "fatal") != "fatal":
            key = mode.name.split(".")[0]
            assert f'failures.{key}.impact="fatal"' in bench.reference_overrides(original)


def test_reference_case_matches_the_model():
    model = bench.comparable_model("llama3-16k")
    case = bench.reference_case_from_model(model)
    job = model.job
    assert (case.work_hours, case.interval_hours, case.write_hours, case.restart_hours) == (
        job.work_hours,
        job.interval_hours,
        job.write_hours,
        job.restart_hours,
    )
    assert case.spares == job.spares
    assert [c.name for c in case.failure_classes] == [m.name for m in model.modes]
    for failure_class, mode in zip(case.failure_classes, model.modes, strict=True):
        assert failure_class.units == mode.job_units
        assert failure_class.mtbf_hours == mode.lifetime.mean_hours
        assert failure_class.repair_hours == mode.repair.mean_hours
        assert failure_class.repair_dist == mode.repair.kind
        assert failure_class.detect_hours == mode.detect_hours
        assert failure_class.uses_spares == mode.uses_spares
    assert bench.ref.job_mtbf_hours(case) == pytest.approx(model.job_mtti_hours, rel=1e-12)


def test_converter_refuses_what_simpy_cannot_draw():
    lognormal_repair = bench.build_model(bench.load_config(bench.CONFIGS / "small.toml"))
    with pytest.raises(ValueError, match="host"):
        bench.reference_case_from_model(lognormal_repair)
    weibull = bench.comparable_model(
        "small", ['failures.gpu.lifetime={ dist = "weibull", shape = 0.7, mtbf = "10y" }']
    )
    with pytest.raises(ValueError, match="exponential lifetimes"):
        bench.reference_case_from_model(weibull)
    fixed_repairs = bench.build_model(
        bench.load_config(
            bench.CONFIGS / "small.toml",
            ['failures.host.repair={ dist = "fixed", mean = "24h" }'],
        )
    )
    if any(getattr(mode, "impact", "fatal") != "fatal" for mode in fixed_repairs.modes):
        with pytest.raises(ValueError, match="fatal failures only"):
            bench.reference_case_from_model(fixed_repairs)


def test_cluster_overrides_size_the_servers():
    spares = 4
    model = bench.comparable_model("small", bench.cluster_overrides(100_000, spares, "1d"))
    assert model.job.gpus == 100_000
    units = {mode.name: mode.job_units for mode in model.modes}
    assert units["gpu"] == 100_000
    assert units["host"] == 12_500  # ceil(100,000 / 8) servers in the job's footprint
    assert model.job.spares == spares


# --------------------------------------------------------------------------- agreement


AGREEMENT_CASES = {
    # name: (config, overrides, relplan trials, SimPy trials)
    "small": ("small", [], 4_000, 500),
    "llama3-16k reduced": ("llama3-16k", ["job.work=5d"], 2_000, 200),
}


@pytest.mark.parametrize("name", sorted(AGREEMENT_CASES))
def test_relplan_agrees_with_simpy_reference(name):
    config, overrides, relplan_trials, simpy_trials = AGREEMENT_CASES[name]
    model = bench.comparable_model(config, overrides)
    case = bench.reference_case_from_model(model)
    outcomes = simulate(model, relplan_trials, seed=11)
    reference = bench.ref.simulate_reference(case, trials=simpy_trials, seed=12)

    relplan_interruptions = outcomes.interruptions_by_mode.sum(axis=1)
    assert reference["interruptions"].mean() > 1.0  # the case does exercise failures
    z_wall = z_difference(outcomes.wall_hours, reference["wall_hours"])
    z_interruptions = z_difference(relplan_interruptions, reference["interruptions"])
    assert abs(z_wall) <= 4.0, f"wall hours differ by {z_wall:+.2f} standard errors"
    assert abs(z_interruptions) <= 4.0, (
        f"interruptions differ by {z_interruptions:+.2f} standard errors"
    )
    # The benchmark's own comparison says the same.
    verdict = bench.agreement(outcomes, reference)
    assert verdict["agree"]
    assert verdict["wall_hours"]["z"] == pytest.approx(z_wall)


def test_agreement_flags_a_difference():
    same = np.linspace(100.0, 110.0, 50)
    verdict = bench.compare_means(same + 5.0, same)
    assert not verdict["agree"] and verdict["z"] > 4.0
    assert bench.compare_means(same, same)["agree"]


# --------------------------------------------------------------------------- output


def test_quick_run_writes_json_with_every_figure(tmp_path):
    out = tmp_path / "out.json"
    done = subprocess.run(
        [sys.executable, str(_PATH), "--quick", "--tiny", "--json", str(out)],
        cwd=REPO, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:] + done.stdout[-3000:]
    report = json.loads(out.read_text())
    assert set(report["cases"]) == set(bench.CASES)
    for name, case in report["cases"].items():
        for key in REQUIRED_CASE_KEYS:
            assert key in case, f"{name}: no {key}"
            assert case[key] is not None and case[key] > 0, f"{name}: {key} = {case[key]}"
        assert case["agreement"]["agree"], name
        assert case["simpy"]["trials"] >= 1
        assert case["floor_variates"] == 3 * case["events"] + case["trials"]
    assert report["first_call_seconds"] > 0
    assert report["machine"]["nproc"] >= 1
    assert "Agreement" in done.stdout  # the rich table


def test_scaling_study_and_plot(tmp_path):
    scaling = bench.scaling_study(bench.LEVELS["tiny"], seed=3)
    for series in bench.SCALING_SERIES:
        assert scaling[series], series
        for point in scaling[series]:
            assert point["events"] > 0 and point["seconds"] > 0
    fixed = scaling["cluster_fixed_events"]
    assert fixed[0]["units"] < fixed[-1]["units"]
    assert fixed[-1]["events_per_trial"] == pytest.approx(50.0, rel=0.1)
    written = bench.plot_scaling(scaling, tmp_path / "scaling")
    assert {path.suffix for path in written} == {".png", ".svg"}
    assert all(path.stat().st_size > 0 for path in written)


def test_peak_rss_of_a_cli_run():
    rss, summary = bench.peak_rss_of_cli(
        [str(REPO / "configs" / "small.toml"), "--trials", "20", "--seed", "1"]
    )
    assert rss > 0
    assert summary["trials"] == 20
