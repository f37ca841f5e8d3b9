"""The benchmark (benchmarks/): its converter, agreement with SimPy, start-up and output.

Sections follow the benchmark's modules (cases, throughput, scaling, startup, report,
run). Timings are never asserted here: they belong to the benchmark's output only.
"""

from __future__ import annotations

import ast
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import relplan.sim.compiled
import relplan.sim.engine
import relplan.sim.timeline
import relplan.units
import relplan.vocab
from benchmarks import (
    cases,
    features,
    levels,
    one_walk,
    report,
    scaling,
    startup,
    throughput,
)
from benchmarks import simpy_reference as reference
from relplan.config.loading import load_config
from relplan.sim.engine import simulate
from relplan.sim.model import build_model

# each runs a benchmark or the whole quick benchmark (about 35 s on two idle cores)
pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[1]  # on sys.path: benchmarks/ is a package in it
RUN_SCRIPT = REPO / "benchmarks" / "run.py"
BENCHMARK_MODULES = sorted(
    path.stem for path in (REPO / "benchmarks").glob("*.py") if path.stem != "__init__"
)

REQUIRED_CASE_KEYS = (
    "trials_per_second",
    "events_per_second",
    "speedup_per_trial",
    "peak_memory_bytes",
    "floor_seconds",
    "floor_multiple",
    "seconds_one_thread",
    "floor_multiple_one_thread",
    "speedup_per_trial_one_thread",
)


def z_difference(a: np.ndarray, b: np.ndarray) -> float:
    """Difference of two sample means in combined standard errors."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    combined = math.hypot(a.std(ddof=1) / math.sqrt(a.size), b.std(ddof=1) / math.sqrt(b.size))
    return float((a.mean() - b.mean()) / combined)


# --------------------------------------------------------------------------- cases


def test_overrides_replace_lognormal_repair_by_exponential_of_same_mean():
    original = build_model(load_config(cases.CONFIGS / "small.toml"))
    assert any(mode.repair.kind == "lognormal" for mode in original.modes)
    model = cases.comparable_model("small")
    assert len(model.modes) == len(original.modes)
    for before, after in zip(original.modes, model.modes, strict=True):
        assert after.name == before.name
        assert after.repair.kind in ("fixed", "exponential")
        assert after.repair.mean_hours == pytest.approx(before.repair.mean_hours, rel=1e-12)
        if before.repair.kind != "lognormal":
            assert after.repair == before.repair
        assert after.lifetime == before.lifetime
        assert getattr(after, "impact", "fatal") == "fatal"
    assert cases.reference_overrides(model) == []


def test_overrides_make_every_failure_fatal():
    original = build_model(load_config(cases.CONFIGS / "seed-moe-10k.toml"))
    model = cases.comparable_model("seed-moe-10k")
    assert [m.name for m in model.modes] == [m.name for m in original.modes]
    assert all(getattr(mode, "impact", "fatal") == "fatal" for mode in model.modes)
    for mode in original.modes:
        if getattr(mode, "impact", "fatal") != "fatal":
            key = mode.name.split(".")[0]
            assert f'failures.{key}.impact="fatal"' in cases.reference_overrides(original)


def test_reference_case_matches_the_model():
    model = cases.comparable_model("llama3-16k")
    case = cases.reference_case_from_model(model)
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
    assert reference.job_mtbf_hours(case) == pytest.approx(model.job_mtti_hours, rel=1e-12)


def test_converter_refuses_what_simpy_cannot_draw():
    lognormal_repair = build_model(load_config(cases.CONFIGS / "small.toml"))
    with pytest.raises(ValueError, match="host"):
        cases.reference_case_from_model(lognormal_repair)
    weibull = cases.comparable_model(
        "small", ['failures.gpu.lifetime={ dist = "weibull", shape = 0.7, mtbf = "10y" }']
    )
    with pytest.raises(ValueError, match="exponential lifetimes"):
        cases.reference_case_from_model(weibull)
    fixed_repairs = build_model(
        load_config(
            cases.CONFIGS / "small.toml",
            ['failures.host.repair={ dist = "fixed", mean = "24h" }'],
        )
    )
    if any(getattr(mode, "impact", "fatal") != "fatal" for mode in fixed_repairs.modes):
        with pytest.raises(ValueError, match="fatal failures only"):
            cases.reference_case_from_model(fixed_repairs)


def test_the_plain_exponential_case_is_one_crash_mode_and_no_feature():
    model = cases.comparable_model("plain-exponential")
    assert cases.config_path("plain-exponential").parent == cases.BENCHMARK_CONFIGS
    assert [(mode.lifetime.kind, mode.impact, mode.uses_spares) for mode in model.modes] == [
        ("exponential", "fatal", False)]
    assert one_walk.run_targets(model)[0].features == one_walk.WalkFeatures(
        *[False] * len(one_walk.WalkFeatures._fields))
    assert cases.reference_overrides(model) == []  # SimPy runs it as it is


# --------------------------------------------------------------------------- throughput


AGREEMENT_CASES = {
    # name: (config, overrides, relplan trials, SimPy trials)
    "plain-exponential": ("plain-exponential", [], 4_000, 300),
    "small": ("small", [], 4_000, 500),
    "llama3-16k reduced": ("llama3-16k", ["job.work=5d"], 2_000, 200),
}


@pytest.mark.parametrize("name", sorted(AGREEMENT_CASES))
def test_relplan_agrees_with_simpy_reference(name):
    config, overrides, relplan_trials, simpy_trials = AGREEMENT_CASES[name]
    model = cases.comparable_model(config, overrides)
    case = cases.reference_case_from_model(model)
    outcomes = simulate(model, relplan_trials, seed=11)
    simpy = reference.simulate_reference(case, trials=simpy_trials, seed=12)

    relplan_interruptions = outcomes.interruptions_by_mode.sum(axis=1)
    assert simpy["interruptions"].mean() > 1.0  # the case does exercise failures
    z_wall = z_difference(outcomes.wall_hours, simpy["wall_hours"])
    z_interruptions = z_difference(relplan_interruptions, simpy["interruptions"])
    assert abs(z_wall) <= 4.0, f"wall hours differ by {z_wall:+.2f} standard errors"
    assert abs(z_interruptions) <= 4.0, (
        f"interruptions differ by {z_interruptions:+.2f} standard errors"
    )
    # The benchmark's own comparison says the same.
    verdict = throughput.agreement(outcomes, simpy)
    assert verdict["agree"]
    assert verdict["wall_hours"]["z"] == pytest.approx(z_wall)


def test_one_walk_thread_walks_on_one_thread_within_its_block():
    threads = relplan.sim.timeline.WALK_THREADS
    with throughput.one_walk_thread():
        assert relplan.sim.timeline.WALK_THREADS == 1
    assert relplan.sim.timeline.WALK_THREADS == threads


def test_agreement_flags_a_difference():
    same = np.linspace(100.0, 110.0, 50)
    verdict = throughput.compare_means(same + 5.0, same)
    assert not verdict["agree"] and verdict["z"] > 4.0
    assert throughput.compare_means(same, same)["agree"]


def test_reference_buckets_are_relplans_first_buckets():
    # The reference is self-contained (no relplan imports), so it keeps its own list:
    # it must stay relplan's, in relplan's order.
    assert reference.BUCKETS == relplan.vocab.BUCKETS[: len(reference.BUCKETS)]


def test_supported_repairs_are_read_off_the_reference():
    assert set(cases.SUPPORTED_REPAIRS) == {"fixed", "exponential"}
    with pytest.raises(ValueError, match="repair_dist"):
        reference.FailureClass("x", 1, 1.0, 1.0, 0.0, False, repair_dist="lognormal")


# --------------------------------------------------------------------------- scaling


def test_cluster_overrides_size_the_servers():
    spares = 4
    model = cases.comparable_model("small", scaling.cluster_overrides(100_000, spares, "1d"))
    assert model.job.gpus == 100_000
    units = {mode.name: mode.job_units for mode in model.modes}
    assert units["gpu"] == 100_000
    assert units["host"] == 12_500  # ceil(100,000 / 8) servers in the job's footprint
    assert model.job.spares == spares


def test_constants_come_from_relplan_not_copies():
    # Identity, not equality: a copy (say BLOCK_TRIALS = 10_000 typed again) is another
    # object and fails; so does any other value.
    assert scaling.BLOCK_TRIALS is relplan.sim.engine.BLOCK_TRIALS
    assert scaling.HOURS_PER_YEAR is relplan.units.HOURS_PER_YEAR
    shared = {
        "BLOCK_TRIALS": relplan.sim.engine.BLOCK_TRIALS,
        "HOURS_PER_YEAR": relplan.units.HOURS_PER_YEAR,
        "BUCKETS": relplan.vocab.BUCKETS,
    }
    for module in (cases, features, levels, report, scaling, startup, throughput):
        for name, value in shared.items():
            if hasattr(module, name):
                assert getattr(module, name) is value, f"{module.__name__}.{name} is a copy"


def test_weibull_override_keeps_the_gpu_mtbf():
    gpu = next(m for m in cases.comparable_model("llama3-16k").modes if m.name == "gpu")
    text = scaling.years_text(gpu.lifetime.mean_hours)
    assert text.endswith("y")
    years = float(text[:-1])
    assert years * relplan.units.HOURS_PER_YEAR == pytest.approx(gpu.lifetime.mean_hours)


def test_scaling_study_and_plot(tmp_path):
    study = scaling.scaling_study(levels.LEVELS["tiny"], seed=3)
    for series in scaling.SCALING_SERIES:
        assert study[series], series
        for point in study[series]:
            assert point["events"] > 0 and point["seconds"] > 0
    fixed = study["cluster_fixed_events"]
    assert fixed[0]["units"] < fixed[-1]["units"]
    assert fixed[-1]["events_per_trial"] == pytest.approx(50.0, rel=0.1)
    written = scaling.plot_scaling(study, tmp_path / "scaling")
    assert {path.suffix for path in written} == {".png", ".svg"}
    assert all(path.stat().st_size > 0 for path in written)


def test_peak_rss_of_a_cli_run():
    rss, summary = scaling.peak_rss_of_cli(
        [str(REPO / "configs" / "small.toml"), "--trials", "20", "--seed", "1"]
    )
    assert rss > 0
    assert summary["trials"] == 20


# --------------------------------------------------------------------------- startup


def test_ratio_verdict():
    assert startup.ratio_verdict(3.0, 2.0, 2.0) == {"ratio": 1.5, "target_ratio": 2.0, "met": True}
    assert startup.ratio_verdict(5.0, 2.0, 2.0)["met"] is False
    assert startup.ratio_verdict(5.0, 2.0, None)["met"] is None


def test_an_optional_command_the_cli_lacks_is_not_available():
    missing = startup.StartupCommand(
        "missing", "relplan --no-such-option", ("--no-such-option",), "pass", 2.0,
        optional=True,
    )  # fmt: skip
    timed = startup.time_command(missing, repeats=2)
    assert timed["available"] is False
    assert timed["seconds"] is None and timed["ratio"] is None and timed["met"] is None
    assert "--no-such-option" in timed["note"]
    assert timed["runs"] == []  # it stops at the first failure


def test_a_required_command_that_fails_stops_the_study():
    failing = startup.StartupCommand(
        "missing", "relplan --no-such-option", ("--no-such-option",), "pass", 2.0
    )
    with pytest.raises(startup.StartupError, match="relplan --no-such-option"):
        startup.time_command(failing, repeats=1)


def test_startup_runs_relplan_through_this_interpreter():
    argv = startup.relplan_argv("--help")
    assert argv == [sys.executable, "-m", "relplan", "--help"]
    assert startup.LAUNCHER == "sys.executable -m relplan"


# --------------------------------------------------------------------------- run


REQUIRED_COMMAND_KEYS = (
    "command", "argv", "available", "seconds", "runs", "reference", "reference_argv",
    "reference_seconds", "reference_runs", "ratio", "target_ratio", "met",
)  # fmt: skip
REQUIRED_COLD_KEYS = (
    "command", "argv", "numba_cache", "seconds", "runs", "cache_files", "target_seconds",
    "target_cores", "met", "warm_seconds", "compile_seconds",
)  # fmt: skip


QUICK_FEATURE_VARIANTS = ("plain", "degradations")
"""The feature variants of the quick run: walks the rest of the tests compile anyway."""
REQUIRED_FEATURE_KEYS = (
    "trials_per_second", "seconds_per_trial", "events_per_trial", "ns_per_event",
    "floor_seconds", "floor_multiple", "per_trial_vs_plain", "per_event_vs_plain",
    "first_call_seconds",
)  # fmt: skip


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    """``python benchmarks/run.py --quick --tiny --json out --markdown out.md``, run once."""
    folder = tmp_path_factory.mktemp("quick")
    out, tables = folder / "out.json", folder / "out.md"
    done = subprocess.run(
        [sys.executable, str(RUN_SCRIPT), "--quick", "--tiny", "--json", str(out),
         "--markdown", str(tables), "--feature-variants", *QUICK_FEATURE_VARIANTS],
        cwd=REPO, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:] + done.stdout[-3000:]
    return done, json.loads(out.read_text()), tables.read_text()


def test_quick_run_writes_json_with_every_figure(quick_run):
    done, result, _ = quick_run
    assert result["level"] == "tiny"
    assert set(result["cases"]) == set(cases.CASES)
    for name, case in result["cases"].items():
        for key in REQUIRED_CASE_KEYS:
            assert key in case, f"{name}: no {key}"
            assert case[key] is not None and case[key] > 0, f"{name}: {key} = {case[key]}"
        assert case["agreement"]["agree"], name
        assert case["simpy"]["trials"] >= 1
        assert case["floor_variates"] == 3 * case["events"] + case["trials"]
        assert case["floor_multiple"] == pytest.approx(case["seconds"] / case["floor_seconds"])
        assert case["floor_multiple_one_thread"] == pytest.approx(
            case["seconds_one_thread"] / case["floor_seconds_one_thread"])
        assert case["floor_multiple_median_paired"] > 0
        assert case["walk_threads"] == relplan.sim.timeline.WALK_THREADS
    assert result["first_call_seconds"] > 0
    assert result["machine"]["nproc"] >= 1
    assert "scaling" not in result and "memory" not in result  # off with --quick
    assert "Agreement" in done.stdout  # the rich table


def test_quick_run_has_the_startup_section(quick_run):
    done, result, _ = quick_run
    section = result["startup"]
    tiny = levels.LEVELS["tiny"]
    assert section["launcher"] == startup.LAUNCHER
    assert section["repeats"] == tiny.startup_repeats
    assert list(section["commands"]) == [command.key for command in startup.COMMANDS]
    for command in startup.COMMANDS:
        timed = section["commands"][command.key]
        for key in REQUIRED_COMMAND_KEYS:
            assert key in timed, f"{command.key}: no {key}"
        assert timed["command"] == command.shown
        assert timed["target_ratio"] == command.target_ratio
        if not timed["available"]:
            assert command.optional, f"{command.key} did not run: {timed.get('note')}"
            assert timed["seconds"] is None and timed["ratio"] is None
            assert timed["note"]
            continue
        assert len(timed["runs"]) == len(timed["reference_runs"]) == tiny.startup_repeats
        assert timed["seconds"] > 0 and timed["reference_seconds"] > 0
        assert timed["seconds"] == min(timed["runs"])
        assert timed["reference_seconds"] == min(timed["reference_runs"])
        assert timed["ratio"] == pytest.approx(timed["seconds"] / timed["reference_seconds"])
        if command.target_ratio is None:
            assert timed["met"] is None
        else:
            assert timed["met"] == (timed["ratio"] <= command.target_ratio)
    for key in ("help", "simulate"):
        assert section["commands"][key]["available"], key
        assert section["commands"][key]["target_ratio"] is not None

    cold = section["cold"]
    for key in REQUIRED_COLD_KEYS:
        assert key in cold, f"cold: no {key}"
    assert len(cold["runs"]) == tiny.cold_runs == 1  # --quick runs it once
    assert cold["seconds"] > 0 and cold["seconds"] == min(cold["runs"])
    assert all(count > 0 for count in cold["cache_files"])  # numba used the fresh folder
    assert cold["target_seconds"] == startup.COLD_TARGET_SECONDS
    assert cold["met"] == (cold["seconds"] < cold["target_seconds"])
    assert cold["warm_seconds"] == section["commands"]["simulate"]["seconds"]
    assert cold["compile_seconds"] == pytest.approx(cold["seconds"] - cold["warm_seconds"])
    assert "cold_compile" not in result  # one cold measurement, in the start-up section
    assert "Start-up" in done.stdout  # the rich table


def test_quick_run_writes_markdown_tables(quick_run):
    _, result, tables = quick_run
    for name in result["cases"]:
        assert f"| {name} |" in tables
    assert "`relplan --help`" in tables
    assert f"`{startup.SIMULATE_SHOWN}` (empty numba cache)" in tables
    assert tables == report.markdown(result)


def test_quick_run_has_the_feature_section(quick_run):
    done, result, tables = quick_run
    section = result["features"]
    assert list(section["variants"]) == list(QUICK_FEATURE_VARIANTS)
    assert section["trials"] == levels.LEVELS["tiny"].feature_trials
    assert section["repeats"] == levels.LEVELS["tiny"].feature_repeats
    assert section["seconds"] > 0
    assert section["config"] == "configs/small.toml"
    assert section["plain_overrides"] == cases.shipped_overrides("small")
    for name, row in section["variants"].items():
        for key in REQUIRED_FEATURE_KEYS:
            assert row[key] is not None and math.isfinite(row[key]) and row[key] > 0, (name, key)
        assert row["seconds_per_trial"] == pytest.approx(row["seconds"] / row["trials"])
        assert row["events_per_trial"] == pytest.approx(row["events"] / row["trials"])
        assert row["cold_compile_seconds"] is None  # --feature-compile not given
    plain, degraded = section["variants"]["plain"], section["variants"]["degradations"]
    assert plain["features"] == [] and degraded["features"] == ["degradations"]
    assert plain["per_trial_vs_plain"] == 1.0
    assert degraded["per_trial_vs_plain"] == pytest.approx(
        degraded["seconds_per_trial"] / plain["seconds_per_trial"])
    assert plain["speedup_per_trial_vs_simpy"] == result["cases"]["small"]["speedup_per_trial"]
    assert degraded["speedup_per_trial_vs_simpy"] is None  # SimPy runs no feature
    assert "Walk per feature set" in done.stdout
    assert "| degradations | degradations |" in tables and "| n/a |" in tables


def test_each_feature_variant_turns_on_its_feature_and_no_other():
    plain = features.walk_features(features.variant_model(features.PLAIN))
    assert plain == []  # the benchmark's small case: every flag off
    comes_with = {"maintenance": {"planned_stops"}, "drain": {"planned_stops", "degradations"},
                  "fail_slow": {"planned_stops", "degradations"},
                  "preemption": {"degradations"}}  # fmt: skip
    every = set()
    for name in features.FEATURE_VARIANTS:
        if name in (features.PLAIN, features.EVERY_FEATURE):
            continue
        on = set(features.walk_features(features.variant_model(name)))
        assert on == {name} | comes_with.get(name, set()), name
        every |= on
    assert set(features.walk_features(features.variant_model(features.EVERY_FEATURE))) == every
    # fleet_preemption is a fleet's walk's alone (relplan.sim.fleet_walk: no single-job
    # config turns it on); tests/runs/test_fleet_sharing.py walks it
    assert every == set(relplan.sim.compiled.WalkFeatures._fields) - {"trace",
                                                                      "fleet_preemption"}


def test_the_compile_child_times_a_walk():
    model = features.variant_model(features.PLAIN)
    simulate(model, 5, seed=1)  # the plain walk is in numba's cache on disk now
    timed = features.cold_compile_seconds(features.PLAIN, fresh_cache=False)
    assert timed["cached_before"] is True
    assert 0 <= timed["seconds"] < timed["process_seconds"]


def test_compare_walks_sets_a_walk_against_another_on_the_same_trials():
    model = features.variant_model("horizon")
    horizon = one_walk.run_targets(model)[0].features
    # the horizon walk against the same walk with degradations too: same numbers
    wider = horizon._replace(degradations=True)
    original = one_walk.WalkFeatures.__dict__["of"]
    row = one_walk.compare_walks(model, seed=5, repeats=1, reference=wider, trials=300)
    assert row["features"] == ["horizon"]
    assert row["trials"] == 300
    assert row["same_numbers"]
    assert row["per_trial_vs_reference"] == pytest.approx(
        row["seconds_per_trial"] / row["reference_seconds_per_trial"])
    assert row["no_slower"] == (
        row["per_trial_vs_reference_median"] <= 1.0 + one_walk.NO_SLOWER_TOLERANCE)
    assert one_walk.WalkFeatures.__dict__["of"] is original  # the patch is gone after the call
    plain = one_walk.run_with_walk(model, 50, 5, None)
    assert not one_walk.same_numbers(plain, one_walk.run_with_walk(model, 50, 6, None))


def test_one_walk_rows_mark_the_richest_and_a_slower_walk():
    section = {
        "reference": "every feature",
        "richest": "b",
        "configs": {
            "a": {"features": [], "trials": 1000, "seconds_per_trial": 2e-6,
                  "reference_seconds_per_trial": 4e-6, "per_trial_vs_reference": 0.5,
                  "no_slower": True, "same_numbers": True},
            "b": {"features": ["spare_pool"], "trials": 20, "seconds_per_trial": 3e-3,
                  "reference_seconds_per_trial": 2e-3, "per_trial_vs_reference": 1.5,
                  "per_trial_vs_reference_median": 1.4, "no_slower": False,
                  "same_numbers": True},
        },
    }  # fmt: skip
    rows = report.one_walk_rows(section)
    assert rows[0] == ("a", "none", "1,000", "2.00", "4.00", "0.50x", "yes", "yes")
    assert rows[1] == ("b (richest)", "spare_pool", "20", "3,000.00", "2,000.00", "1.40x (1.50x)",
                       "no", "yes")  # fmt: skip
    assert "| b (richest) | spare_pool |" in report.markdown({"one_walk": section})


def test_plain_turns_numpy_and_infinities_into_json():
    plain = report.to_plain({"a": np.float64(1.5), "b": (np.int64(2), math.inf), 3: math.nan})
    assert plain == {"a": 1.5, "b": [2, None], "3": None}
    assert type(plain["a"]) is float and type(plain["b"][0]) is int
    json.dumps(plain, allow_nan=False)


def test_benchmark_modules_import_one_another_without_cycles():
    imports: dict[str, set[str]] = {}
    for name in BENCHMARK_MODULES:
        tree = ast.parse((REPO / "benchmarks" / f"{name}.py").read_text())
        found = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module == "benchmarks":
                found |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("benchmarks."):
                found.add(node.module.split(".")[1])
            elif isinstance(node, ast.Import):
                found |= {
                    alias.name.split(".")[1]
                    for alias in node.names
                    if alias.name.startswith("benchmarks.")
                }
        imports[name] = found & set(BENCHMARK_MODULES)
    assert imports["run"] >= {"cases", "features", "throughput", "scaling", "startup", "report"}
    assert "run" not in set().union(*(imports[name] for name in imports if name != "run"))

    def visit(name: str, path: tuple[str, ...]) -> None:
        assert name not in path, f"import cycle: {' -> '.join((*path, name))}"
        for imported in imports[name]:
            visit(imported, (*path, name))

    for name in imports:
        visit(name, ())
