"""Checks before the work, warnings, one consistent CLI."""

from __future__ import annotations

import json
import re
from contextlib import contextmanager
from pathlib import Path

import pytest
from typer.testing import CliRunner

import relplan.runs.scenarios as scenarios
from relplan.cli import app as app_module
from relplan.cli.app import app
from tests.conftest import CONFIGS, REPO, docs_text

runner = CliRunner()
SMALL = str(CONFIGS / "small.toml")
STUDY = str(REPO / "studies" / "recovery-strategies.toml")
HUGE = "1000000000000"


@pytest.fixture
def no_work(monkeypatch) -> list[int]:
    """Record any simulation that starts (none should, when input is refused)."""
    ran: list[int] = []

    def refuse(*args, **kwargs):
        ran.append(1)
        raise AssertionError("the work started")

    monkeypatch.setattr(scenarios, "simulate", refuse)
    import relplan.analysis.optimize as optimize

    monkeypatch.setattr(optimize, "simulate", refuse)
    return ran


def _clean_error(result, key: str) -> bool:
    """Whether ``result`` is one clean error naming ``key`` (exit 2, one line, no traceback)."""
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    if lines and COUNT_LINE.match(lines[0]):  # sweep and plan count their points first
        lines = lines[1:]
    assert len(lines) == 1 and lines[0].startswith(f"error: {key}:"), result.stderr
    assert "Traceback" not in result.output
    return True


COUNT_LINE = re.compile(
    r"^[\d,]+ (points|portfolios) x [\d,]+ trials: about .* \(rough estimate\)$")
"""The line that ``sweep`` and ``plan`` print before anything else: their count."""


# -- item 3: tracebacks become exit 2, checked before the work ---------------------------


def test_a_study_with_an_empty_axis_names_the_axis(tmp_path, no_work) -> None:
    study = tmp_path / "empty.toml"
    study.write_text(f'[study]\nname = "empty"\nquestion = "q?"\nbase = "{SMALL}"\n'
                     '[study.axes]\n"job.checkpoint.interval" = []\n')  # fmt: skip
    result = runner.invoke(app, ["sweep", str(study), "--out", str(tmp_path / "out")])
    assert _clean_error(result, "study.axes.job.checkpoint.interval")
    assert not no_work


@pytest.mark.parametrize("address", ["nonsense", "tcp://127.0.0.1:1"])
def test_a_bad_dask_address_is_refused_before_the_work(address, tmp_path, monkeypatch,
                                                        no_work) -> None:  # fmt: skip
    import relplan.runs.executor as executor

    monkeypatch.setattr(executor, "DASK_CONNECT_SECONDS", 1)
    result = runner.invoke(app, ["sweep", STUDY, "--trials", "5", "--dask", address,
                                 "--out", str(tmp_path)])  # fmt: skip
    assert _clean_error(result, "--dask")
    assert address in result.stderr
    if address.startswith("tcp"):  # nothing listens there
        assert "Connection refused" in result.stderr
    assert not no_work and not list(tmp_path.iterdir())


@pytest.mark.parametrize(
    "command",
    [
        ["simulate", SMALL],
        ["optimize", SMALL],
        ["compare", SMALL, "--variant", "no spares: job.spares=0"],
        ["sweep", STUDY],
    ],
)
def test_a_run_too_big_for_memory_is_refused_saying_what_fits(command, tmp_path,
                                                               no_work) -> None:  # fmt: skip
    result = runner.invoke(app, [*command, "--trials", HUGE, "--out", str(tmp_path / "o")])
    assert _clean_error(result, "--trials")
    assert "of memory but" in result.stderr and "trials fit" in result.stderr
    assert not no_work and not (tmp_path / "o").exists()


def test_the_trials_that_fit_do_fit() -> None:
    from relplan.config.loading import load_config
    from relplan.errors import ConfigError
    from relplan.runs.memory import check_memory, estimate_memory
    from relplan.sim.model import build_model

    model = build_model(load_config(SMALL))
    available = 2e9
    for command in ("simulate", "optimize", "tiers", "compare", "sweep"):
        estimate = estimate_memory([model, model], command, workers=2)
        fit = estimate.trials_that_fit(available)
        assert fit > 0
        check_memory(estimate, fit, "--trials", available)
        with pytest.raises(ConfigError, match=f"at most {fit:,} trials fit"):
            check_memory(estimate, fit + 1, "--trials", available)


def test_the_trials_in_the_config_are_named_when_they_do_not_fit(no_work) -> None:
    result = runner.invoke(app, ["simulate", SMALL, "--set", f"simulation.trials={HUGE}"])
    assert _clean_error(result, "simulation.trials")


def _peak_and_estimate(config: Path, trials: int, overrides: tuple[str, ...] = (),
                       out: Path | None = None) -> tuple[int, float]:  # fmt: skip
    """Peak RSS of one ``relplan simulate`` in a fresh process, and the estimate of it."""
    from benchmarks.scaling import peak_rss_of_cli
    from relplan.config.loading import load_config
    from relplan.runs.memory import estimate_memory
    from relplan.sim.model import build_model

    arguments = [str(config), "--trials", str(trials), "--workers", "1"]
    for item in overrides:
        arguments += ["--set", item]
    if out is not None:
        arguments += ["--out", str(out)]
    peak, _ = peak_rss_of_cli(arguments)
    model = build_model(load_config(config, list(overrides)))
    estimate = estimate_memory([model], "simulate", workers=1, write_trials=out is not None)
    return peak, estimate.bytes(trials)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("config", "trials"),
    [("small", 1_000_000), ("seed-dense-175b", 20_000), ("seed-moe-10k", 20_000),
     ("llama3-16k", 20_000), ("airesim-default", 100)],
)  # fmt: skip
def test_the_memory_estimate_is_within_2x_of_the_measured_peak(config, trials) -> None:
    """The whole process's peak RSS (getrusage of a fresh child), not a per-trial share."""
    peak, estimated = _peak_and_estimate(REPO / "configs" / f"{config}.toml", trials)
    assert peak / 2 <= estimated <= 2 * peak


@pytest.mark.slow
def test_the_memory_estimate_is_within_2x_for_a_lemon_fleet_of_4096_servers() -> None:
    """An AIReSim-sized fleet: its trials hold thousands of pre-drawn failures each, so its
    blocks are small (200 trials); 400 trials are two of them."""
    from benchmarks.memory import AIRESIM_OVERRIDES

    peak, estimated = _peak_and_estimate(Path(SMALL), 400, AIRESIM_OVERRIDES)
    assert peak / 2 <= estimated <= 2 * peak


@pytest.mark.slow
def test_the_memory_estimate_is_within_2x_when_trials_parquet_is_written(tmp_path) -> None:
    peak, estimated = _peak_and_estimate(Path(SMALL), 300_000, out=tmp_path / "out")
    assert (tmp_path / "out" / "trials.parquet").exists()
    assert peak / 2 <= estimated <= 2 * peak


# -- item 4: warnings on stderr for legal but suspicious input --------------------------

WRITE_TOO_LONG = "job.checkpoint.write=2h"
FAILS_TOO_OFTEN = 'failures.gpu.lifetime={ dist = "exponential", mtbf = "10d" }'


@pytest.mark.parametrize(
    ("override", "key"),
    [(WRITE_TOO_LONG, "job.checkpoint.write"), (FAILS_TOO_OFTEN, "failures")],
)
@pytest.mark.parametrize(
    "command",
    [
        ["validate", SMALL],
        ["inventory", SMALL],
        ["simulate", SMALL, "--trials", "5"],
        ["optimize", SMALL, "--trials", "3"],
        ["compare", SMALL, "--variant", "no spares: job.spares=0", "--trials", "5"],
    ],
)
def test_suspicious_input_gets_one_warning_line(command, override, key) -> None:
    result = runner.invoke(app, [*command, "--set", override])
    assert result.exit_code == 0, result.output
    lines = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert len(lines) == 1, result.stderr  # compare: one line for both scenarios
    assert lines[0].startswith(f"warning: {key}: ")


@pytest.mark.slow
def test_a_sweep_warns_once_per_key(tmp_path) -> None:
    result = runner.invoke(app, ["sweep", STUDY, "--trials", "5", "--set", WRITE_TOO_LONG,
                                 "--out", str(tmp_path)])  # fmt: skip
    assert result.exit_code == 0, result.output
    lines = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert len(lines) == 1
    assert lines[0].startswith("warning: job.checkpoint.write: ") and "3 more)" in lines[0]


def test_an_infinite_mtbf_is_an_error_naming_the_key() -> None:
    result = runner.invoke(app, ["simulate", SMALL, "--set",
                                 'failures.gpu.lifetime={ dist = "exponential", mtbf = "1e400h" }'])
    assert _clean_error(result, "failures.gpu.lifetime.mtbf")


@pytest.mark.parametrize("config", sorted(CONFIGS.glob("*.toml")), ids=lambda p: p.stem)
def test_shipped_configs_warn_only_about_their_port_budget(config) -> None:
    result = runner.invoke(app, ["validate", str(config)])
    assert result.exit_code == 0
    for line in result.stderr.splitlines():
        assert line.startswith("warning: port budget: "), line


def test_validate_strict_fails_on_any_warning() -> None:
    result = runner.invoke(app, ["validate", SMALL, "--strict", "--set", WRITE_TOO_LONG])
    assert result.exit_code == 1


# -- item 7: one consistent CLI ---------------------------------------------------------

SHARED = {
    "simulate": ("--trials", "--seed", "--set", "--workers", "--out", "--json", "--interval"),
    "optimize": ("--trials", "--seed", "--set", "--workers", "--out", "--json"),
    "compare": ("--trials", "--seed", "--set", "--workers", "--out", "--json", "--interval",
                "--dask"),
    "sweep": ("--trials", "--seed", "--set", "--workers", "--out", "--json", "--interval",
              "--dask"),
}


@pytest.mark.parametrize("command", sorted(SHARED))
def test_the_shared_options_are_on_every_command(command) -> None:
    result = runner.invoke(app, [command, "--help"], env={"COLUMNS": "100"})
    assert result.exit_code == 0
    for option in SHARED[command]:
        assert option in result.stdout, option


@pytest.mark.slow
def test_sweep_takes_seed_and_set(monkeypatch, tmp_path) -> None:
    import relplan.runs.sweep as sweep

    seen = []
    real = sweep._run_point

    def spy(document, overrides, trials, seed, name, progress=None):
        seen.append((overrides, seed))
        return real(document, overrides, trials, seed, name, progress)

    monkeypatch.setattr(sweep, "_run_point", spy)  # seen only in this process: one worker
    result = runner.invoke(app, ["sweep", STUDY, "--trials", "5", "--workers", "1", "--seed",
                                 "9", "--set",
                                 "job.work=10d", "--interval", "2h", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert seen and all(seed == 9 for _, seed in seen)
    assert all({"job.work=10d", 'job.checkpoint.interval="2h"'} <= set(items)
               for items, _ in seen)  # fmt: skip


def test_sweep_refuses_to_override_an_axis(tmp_path, no_work) -> None:
    study = REPO / "studies" / "checkpoint-cadence-seed-moe.toml"
    result = runner.invoke(app, ["sweep", str(study), "--interval", "1h",
                                 "--out", str(tmp_path)])  # fmt: skip
    assert _clean_error(result, "job.checkpoint.interval")


def test_compare_writes_its_table(tmp_path) -> None:
    out = tmp_path / "cmp"
    result = runner.invoke(app, ["compare", SMALL, "--variant", "no spares: job.spares=0",
                                 "--trials", "20", "--workers", "2", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert (f"wrote 3 files to {out}: comparison.csv, comparison.json, provenance.json"
            in result.stderr)
    import pandas as pd

    table = pd.read_csv(out / "comparison.csv")
    assert list(table["scenario"]) == ["small", "no spares"]
    assert (table["trials"] == 20).all()
    data = json.loads((out / "comparison.json").read_text())
    assert data["scenarios"][1]["goodput"] == pytest.approx(table["goodput"][1])


@pytest.mark.slow
def test_compare_interval_applies_to_every_scenario() -> None:
    result = runner.invoke(app, ["compare", SMALL, "--variant", "no spares: job.spares=0",
                                 "--trials", "20", "--interval", "3h", "--json"])
    assert result.exit_code == 0, result.output
    plain = runner.invoke(app, ["compare", SMALL, "--variant", "no spares: job.spares=0",
                                "--trials", "20", "--json"])
    assert json.loads(result.stdout) != json.loads(plain.stdout)


def test_optimize_says_why_it_needs_two_trials(no_work) -> None:
    result = runner.invoke(app, ["optimize", SMALL, "--trials", "1"])
    assert _clean_error(result, "--trials")
    assert "at least 2" in result.stderr and "confidence intervals" in result.stderr
    result = runner.invoke(app, ["optimize", SMALL, "--set", "simulation.trials=1"])
    assert _clean_error(result, "simulation.trials")


@pytest.mark.slow
@pytest.mark.parametrize("command", ["simulate", "optimize"])
def test_the_wrote_line_is_the_same_everywhere(command, tmp_path) -> None:
    result = runner.invoke(app, [command, SMALL, "--trials", "5", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    wrote = [line for line in result.stderr.splitlines() if line.startswith("wrote ")]
    files = [path for path in tmp_path.iterdir() if path.name != ".relplan-run.json"]
    assert len(wrote) == 1 and wrote[0].startswith(f"wrote {len(files)} files to {tmp_path}: ")


@pytest.fixture
def progress_bars(monkeypatch) -> list[dict[str, int]]:
    """Record each progress bar: its total and the trials it was advanced by (and, for
    the commands that run points, the points and the points finished)."""
    bars: list[dict[str, int]] = []

    @contextmanager
    def fake(label, total, show):
        bar = {"total": total, "done": 0}
        bars.append(bar)

        def advance(n):
            bar["done"] += n

        yield advance

    @contextmanager
    def fake_points(label, points, trials_per_point, show):
        bar = {"total": points * trials_per_point, "done": 0, "points": points,
               "points_done": 0}  # fmt: skip
        bars.append(bar)

        def advance(trials, finished):
            bar["done"] += trials
            bar["points_done"] += finished

        yield advance

    monkeypatch.setattr(app_module, "_progress", fake)
    monkeypatch.setattr(app_module, "points_progress", fake_points)
    return bars


@pytest.mark.slow
@pytest.mark.parametrize(
    ("command", "total"),
    [
        (["simulate", SMALL, "--trials", "30"], 30),
        (["optimize", SMALL, "--trials", "3"], 32 * 3),
    ],
)
def test_progress_counts_trials(command, total, progress_bars, tmp_path) -> None:
    result = runner.invoke(app, [*command, "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert progress_bars == [{"total": total, "done": total}]


@pytest.mark.slow
@pytest.mark.parametrize("where", [["--workers", "1"], ["--workers", "2"],
                                   ["--dask", "local", "--workers", "2"]])  # fmt: skip
@pytest.mark.parametrize(
    ("command", "points"),
    [
        (["compare", SMALL, "--variant", "no spares: job.spares=0", "--trials", "30"], 2),
        (["sweep", STUDY, "--trials", "30"], 4),
    ],
)
def test_progress_counts_points_and_trials(command, points, where, progress_bars,
                                           tmp_path) -> None:  # fmt: skip
    """In this process, on local processes and on Dask, the bar reaches every point and
    every trial; a rerun counts the points it reuses."""
    result = runner.invoke(app, [*command, *where, "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    whole = {"total": points * 30, "done": points * 30, "points": points,
             "points_done": points}  # fmt: skip
    assert progress_bars == [whole]
    again = runner.invoke(app, [*command, *where, "--out", str(tmp_path)])
    assert again.exit_code == 0 and "reused" in again.stderr
    assert progress_bars == [whole, whole]


def test_workers_change_no_number_in_compare() -> None:
    args = ["compare", SMALL, "--variant", "no spares: job.spares=0", "--trials", "20000",
            "--json"]  # fmt: skip
    one = runner.invoke(app, [*args, "--workers", "1"])
    two = runner.invoke(app, [*args, "--workers", "2"])
    assert one.exit_code == two.exit_code == 0
    assert json.loads(one.stdout) == json.loads(two.stdout)


def test_readme_documents_the_shared_options() -> None:
    readme = docs_text()
    for option in ("--interval", "--workers", "comparison.csv", "trials fit", "--dask"):
        assert option in readme, option
    assert Path(REPO / "relplan" / "runs" / "memory.py").exists()


def test_analyze_prints_the_config_warnings(tmp_path) -> None:
    """analyze loads its --config itself: a suspicious setting (a checkpoint write longer
    than the interval) still gets its one warning line, and the analysis still runs."""
    config = tmp_path / "slow-writes.toml"
    config.write_text((CONFIGS / "small.toml").read_text().replace('write = "1min"',
                                                                    'write = "2h"'))
    assert 'write = "2h"' in config.read_text()
    result = runner.invoke(app, ["analyze", str(REPO / "tests" / "data" / "incidents.csv"),
                                 "--config", str(config), "--json"])  # fmt: skip
    assert result.exit_code == 0, result.output
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1 and "job.checkpoint.write" in warnings[0]
    assert json.loads(result.stdout)
