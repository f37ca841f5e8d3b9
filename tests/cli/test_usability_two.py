"""Usability, round two: nothing silent, nothing stuck, nothing mixed. Each finding of the
round reproduced as a test."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from relplan.cli.app import app
from relplan.errors import ConfigError
from tests.conftest import CONFIGS, REPO

runner = CliRunner()
SMALL = str(CONFIGS / "small.toml")
STRATEGIES = str(REPO / "studies" / "recovery-strategies.toml")
PLAN = str(REPO / "studies" / "redundancy-plan-seed-moe.toml")


def _error_names(result, option: str) -> bool:
    """Exit 2, no traceback, and the first error line blames ``option`` (asserted; True)."""
    assert result.exit_code == 2, (result.exit_code, result.output)
    assert "Traceback" not in result.output
    text = result.stderr
    if "Invalid value for" in text:  # the option parser's own message
        assert f"Invalid value for '{option}'" in text or f"Invalid value for {option}" in text
    else:
        errors = [line for line in text.splitlines() if line.startswith("error:")]
        assert len(errors) == 1 and errors[0].startswith(f"error: {option}:"), text
    return True


# --------------------------------------------------------------- 1. --set never lost


def test_sweep_refuses_a_set_key_that_a_scenario_sets() -> None:
    result = runner.invoke(app, ["sweep", STRATEGIES, "--set", "job.spares=2", "--trials", "2"])
    _error_names(result, "job.spares")
    # the option, and where else the key is set: the three scenarios that set job.spares
    assert "given by --set" in result.stderr
    for label in ("restart on a hot spare", "wait for the repair", "elastic continue"):
        assert repr(label) in result.stderr
    assert "failure-free" not in result.stderr


def _study(tmp_path: Path, body: str, name: str = "s", file: str = "study.toml") -> Path:
    """A study file over the small config: its ``[study]`` header, then ``body``."""
    study = tmp_path / file
    study.write_text(f"""[study]
name = "{name}"
question = "q?"
base = "{CONFIGS / 'small.toml'}"
""" + body)
    return study


def test_sweep_blames_interval_when_a_scenario_sets_the_interval(tmp_path) -> None:
    study = _study(tmp_path, """\
[[study.scenarios]]
label = "a"
set = ['job.checkpoint.interval="30min"']
[[study.scenarios]]
label = "b"
""")
    result = runner.invoke(app, ["sweep", str(study), "--interval", "45min", "--trials", "2"])
    _error_names(result, "job.checkpoint.interval")
    assert "given by --interval" in result.stderr and "'a'" in result.stderr


def test_sweep_accepts_a_set_key_no_scenario_sets(tmp_path) -> None:
    from relplan.config.study import load_study

    study = load_study(STRATEGIES, ["job.work=5d"])
    assert all(config.job.work == pytest.approx(120.0) for config in study.configs())


@pytest.mark.parametrize(("item", "where"), [
    ("job.spares=3", "option 'spares'"),  # an option's levels set it
    ("failures.leaf.lifetime.afr=5%", "uncertain input"),  # drawn per sample
])  # fmt: skip
def test_plan_refuses_a_set_key_that_an_option_or_input_sets(item, where) -> None:
    result = runner.invoke(app, ["plan", PLAN, "--set", item, "--trials", "2"])
    _error_names(result, item.partition("=")[0])
    assert "given by --set" in result.stderr and where in result.stderr


def test_plan_applies_a_set_key_to_every_portfolio() -> None:
    from relplan.config.plan import load_plan

    plan = load_plan(PLAN, ["job.work=10d"])
    assert plan.base.job.work == pytest.approx(240.0)
    bought = tuple(0 for _ in plan.options)
    assert plan.config(bought).job.work == pytest.approx(240.0)


# --------------------------------------------------------------- 2. --dask handshake


def _serve(greeting: bytes | None) -> tuple[socket.socket, str]:
    """A TCP server on 127.0.0.1 that sends ``greeting`` on each connection (None:
    says nothing) and keeps the connection open."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    held: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                connection, _ = server.accept()
            except OSError:
                return
            held.append(connection)
            if greeting is not None:
                connection.sendall(greeting)

    threading.Thread(target=accept, daemon=True).start()
    return server, f"tcp://127.0.0.1:{server.getsockname()[1]}"


@pytest.mark.slow
@pytest.mark.parametrize("greeting", [b"SSH-2.0-OpenSSH_9.6\r\n", None, b"HTTP/1.1 400\r\n\r\n"])
def test_dask_at_a_server_that_is_not_dask_is_one_line_within_the_timeout(greeting) -> None:
    from relplan.runs.executor import DASK_CONNECT_SECONDS, check_dask_scheduler

    server, address = _serve(greeting)
    try:
        started = time.monotonic()
        with pytest.raises(ConfigError) as error:
            check_dask_scheduler(address)
        elapsed = time.monotonic() - started
    finally:
        server.close()
    assert error.value.key == "--dask"
    assert "\n" not in error.value.message
    assert elapsed < DASK_CONNECT_SECONDS + 2.0  # the timeout, not 10 minutes
    if greeting is None:
        assert "said nothing" in error.value.message
    else:
        assert "not a Dask scheduler" in error.value.message


def test_dask_handshake_check_passes_a_real_scheduler() -> None:
    from distributed import LocalCluster

    from relplan.runs.executor import check_dask_scheduler

    with LocalCluster(n_workers=0, processes=False, protocol="tcp://",
                      dashboard_address=None) as cluster:  # fmt: skip
        check_dask_scheduler(cluster.scheduler_address)  # no error


def test_sweep_with_dask_at_an_ssh_server_exits_2_in_one_line(tmp_path) -> None:
    server, address = _serve(b"SSH-2.0-OpenSSH_9.6\r\n")
    try:
        result = runner.invoke(app, ["sweep", STRATEGIES, "--trials", "2", "--dask", address,
                                     "--out", str(tmp_path / "out")])  # fmt: skip
    finally:
        server.close()
    _error_names(result, "--dask")
    assert len(result.stderr.strip().splitlines()) == 2  # the count line, then the error


# --------------------------------------------------------------- 3. one run per folder


def _files(directory: Path) -> dict[str, str]:
    return {p.relative_to(directory).as_posix(): p.read_text()
            for p in sorted(directory.rglob("*")) if p.is_file()}  # fmt: skip


def _run_writing(texts: dict[str, str], fail_after: int | None = None):
    from relplan.output.files import write_text_atomic

    def write(folder: Path) -> list[Path]:
        written = []
        for number, (name, text) in enumerate(texts.items()):
            if fail_after is not None and number == fail_after:
                raise KeyboardInterrupt
            write_text_atomic(folder / name, text)
            written.append(folder / name)
        return written

    return write


@pytest.mark.parametrize("fail_after", [0, 1, 2, 3])
def test_an_interrupted_run_leaves_the_previous_run_whole(tmp_path, fail_after) -> None:
    from relplan.output.files import write_run

    out = tmp_path / "out"
    old = {"summary.json": "seed 1", "report.md": "seed 1", "figures/a.png": "seed 1"}
    write_run(out, _run_writing(old))
    before = _files(out)
    new = {"summary.json": "seed 2", "report.md": "seed 2", "figures/a.png": "seed 2",
           "provenance.json": "seed 2"}  # fmt: skip
    with pytest.raises(KeyboardInterrupt):
        write_run(out, _run_writing(new, fail_after=fail_after))
    assert _files(out) == before  # the old run, whole, and no staging folder left
    assert [p.name for p in out.iterdir() if p.name.startswith(".relplan-staging")] == []


def test_a_new_run_replaces_the_old_one_whole_and_removes_its_stale_files(tmp_path) -> None:
    from relplan.output.files import RUN_MANIFEST, write_run

    out = tmp_path / "out"
    write_run(out, _run_writing({"a.txt": "1", "b.txt": "1", "figures/c.png": "1"}))
    (out / "points.sqlite").write_text("kept")  # not a file of a run
    written = write_run(out, _run_writing({"a.txt": "2"}))
    assert written == [out / "a.txt"]
    files = _files(out)
    assert files.pop(RUN_MANIFEST)
    assert files == {"a.txt": "2", "points.sqlite": "kept"}


def test_ctrl_c_during_the_swap_waits_for_its_end(tmp_path, monkeypatch) -> None:
    """A SIGINT that arrives while the files are being replaced is held back until the
    new run is complete, then raised."""
    import os

    from relplan.output import files

    out = tmp_path / "out"
    files.write_run(out, _run_writing({"a.txt": "1", "b.txt": "1"}))
    real_replace = os.replace
    calls = []

    def replace_then_interrupt(source, target):
        real_replace(source, target)
        if ".relplan-staging-" in str(target):  # a file written into the staging folder
            return
        calls.append(target)
        if len(calls) == 1:  # the swap: between the first file and the second
            os.kill(os.getpid(), signal.SIGINT)

    previous = signal.signal(signal.SIGINT, signal.default_int_handler)  # as python starts
    monkeypatch.setattr(files.os, "replace", replace_then_interrupt)
    try:
        with pytest.raises(KeyboardInterrupt):
            files.write_run(out, _run_writing({"a.txt": "2", "b.txt": "2"}))
    finally:
        signal.signal(signal.SIGINT, previous)
    assert len(calls) == 3  # the swap went on to its end: two files and the manifest
    assert {k: v for k, v in _files(out).items() if k.endswith(".txt")} == {"a.txt": "2",
                                                                          "b.txt": "2"}


@pytest.mark.slow
def test_simulate_interrupted_while_writing_keeps_the_previous_run(tmp_path,
                                                                   monkeypatch) -> None:
    """The reported case: Ctrl-C while simulate --out writes into an existing folder."""
    out = tmp_path / "out"
    first = runner.invoke(app, ["simulate", SMALL, "--trials", "20", "--seed", "1",
                                "--out", str(out)])  # fmt: skip
    assert first.exit_code == 0, first.output
    before = {name: (out / name).read_bytes() for name in ("summary.json", "provenance.json",
                                                           "report.md")}  # fmt: skip
    import relplan.output.report as report

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(report, "write_simulation_report", interrupted)  # after the data
    second = runner.invoke(app, ["simulate", SMALL, "--trials", "20", "--seed", "2",
                                 "--out", str(out)])  # fmt: skip
    assert second.exit_code == 130
    assert {name: (out / name).read_bytes() for name in before} == before


@pytest.mark.slow
def test_a_folder_where_a_file_goes_is_exit_2_and_the_old_run_stays(tmp_path) -> None:
    out = tmp_path / "out"
    first = runner.invoke(app, ["simulate", SMALL, "--trials", "20", "--out", str(out)])
    assert first.exit_code == 0, first.output
    (out / "report.html").unlink()
    (out / "report.html").mkdir()
    summary = (out / "summary.json").read_bytes()
    result = runner.invoke(app, ["simulate", SMALL, "--trials", "20", "--seed", "9",
                                 "--out", str(out)])  # fmt: skip
    _error_names(result, "--out")
    assert "report.html" in result.stderr and "folder" in result.stderr
    assert (out / "summary.json").read_bytes() == summary


@pytest.mark.slow
def test_sweep_output_folder_is_one_run_and_still_resumes(tmp_path) -> None:
    out = tmp_path / "out"
    args = ["sweep", STRATEGIES, "--trials", "5", "--workers", "1", "--out", str(out)]
    first = runner.invoke(app, args)
    assert first.exit_code == 0, first.output
    assert (out / "points.sqlite").exists() and (out / ".relplan-run.json").exists()
    again = runner.invoke(app, args)
    assert again.exit_code == 0, again.output
    assert "reused 4 of 4 points" in again.stderr


# --------------------------------------------------------------- 4. count before the work


def _grid_study(tmp_path: Path, side: int) -> Path:
    return _study(tmp_path, f"""\
trials = 10
[study.axes]
"job.checkpoint.interval" = {{ start = 10, stop = {10 + side - 1}, num = {side}, unit = "min" }}
"job.restart" = {{ start = 1, stop = {side}, num = {side}, unit = "min" }}
""", name="big", file="big.toml")


def test_a_million_point_study_is_counted_at_once_and_needs_yes(tmp_path) -> None:
    study = _grid_study(tmp_path, 1000)
    started = time.monotonic()
    result = runner.invoke(app, ["sweep", str(study), "--out", str(tmp_path / "out")])
    elapsed = time.monotonic() - started
    _error_names(result, "--yes")
    first = result.stderr.splitlines()[0]
    assert first.startswith("1,000,000 points x 10 trials: about ")
    assert "of memory and" in first
    assert elapsed < 30  # before any point is made (it took 4 minutes)


@pytest.mark.slow
def test_a_small_study_runs_without_yes_and_says_its_count(tmp_path) -> None:
    study = _grid_study(tmp_path, 2)
    result = runner.invoke(app, ["sweep", str(study), "--trials", "2", "--workers", "1",
                                 "--out", str(tmp_path / "out")])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines()[0].startswith("4 points x 2 trials: about ")


def test_a_study_whose_base_is_valid_only_with_its_points_keys_is_counted(tmp_path) -> None:
    """The estimate's representative point is the base with the study's own set, or,
    when only each point's keys make it valid, the first point."""
    study = _study(tmp_path, """\
set = ['job.recovery="elastic"']
[[study.scenarios]]
label = "a"
set = ['job.elastic={ data_parallel = 64, reconfigure = "2min", rejoin = "5min" }']
""", name="el", file="elastic.toml")
    from relplan.config.study import load_study

    loaded = load_study(study, validate_points=False)
    with pytest.raises(ConfigError):  # the base with the study's own set alone
        loaded.config(list(loaded.spec.set))
    result = runner.invoke(app, ["sweep", str(study), "--trials", "2", "--workers", "1",
                                 "--out", str(tmp_path / "out")])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert result.stderr.startswith("1 point x 2 trials: about ")


def test_the_count_of_a_study_is_its_grid_plus_its_scenarios() -> None:
    from relplan.config.study import load_study

    study = load_study(STRATEGIES, validate_points=False)
    assert study.spec.point_count() == len(study.points()) == 4


def test_a_plan_counts_its_portfolios_first_and_needs_yes(tmp_path) -> None:
    options = "".join(f'''
[[plan.options]]
label = "restart {minutes} min"
set = ["job.restart={minutes}min"]
''' for minutes in range(1, 18))  # 17 options: 2^17 = 131,072 portfolios
    plan = tmp_path / "plan.toml"
    plan.write_text(f"""[plan]
base = "{CONFIGS / 'seed-moe-10k.toml'}"
exhaustive_limit = 200000
trials = 10
{options}""")
    result = runner.invoke(app, ["plan", str(plan)])
    _error_names(result, "--yes")
    assert result.stderr.splitlines()[0].startswith("131,072 portfolios x 10 trials: about ")


# --------------------------------------------------------------- 5. the right culprit

BAD_OUT = "BAD_OUT"  # replaced by a file's path


@pytest.mark.parametrize(("args", "option"), [
    (["simulate", SMALL, "--trials", "0"], "--trials"),
    (["simulate", SMALL, "--trials", str(10**13)], "--trials"),
    (["simulate", SMALL, "--seed", "-1"], "--seed"),
    (["simulate", SMALL, "--interval", "5 parsecs"], "--interval"),
    (["simulate", SMALL, "--horizon", "-3d"], "--horizon"),
    (["simulate", SMALL, "--workers", "0"], "--workers"),
    (["simulate", SMALL, "--set", "job.spares=-1"], "job.spares"),
    (["simulate", SMALL, "--out", BAD_OUT], "--out"),
    (["simulate", SMALL, "--out", ""], "--out"),
    (["simulate", "/dev/null"], "CONFIG"),
    (["optimize", SMALL, "--trials", "0"], "--trials"),
    (["optimize", SMALL, "--seed", "-1"], "--seed"),
    (["optimize", SMALL, "--horizon", "soon"], "--horizon"),
    (["optimize", SMALL, "--workers", "0"], "--workers"),
    (["optimize", SMALL, "--set", "job.gpus=0"], "job.gpus"),
    (["optimize", SMALL, "--out", BAD_OUT], "--out"),
    (["optimize", SMALL, "--out", ""], "--out"),
    (["sweep", SMALL], "STUDY"),
    (["sweep", STRATEGIES, "--trials", "0"], "--trials"),
    (["sweep", STRATEGIES, "--seed", "-1"], "--seed"),
    (["sweep", STRATEGIES, "--interval", "0min"], "--interval"),
    (["sweep", STRATEGIES, "--set", "job.spares=2"], "job.spares"),
    (["sweep", STRATEGIES, "--workers", "0"], "--workers"),
    (["sweep", STRATEGIES, "--dask", "nonsense"], "--dask"),
    (["sweep", STRATEGIES, "--out", BAD_OUT], "--out"),
    (["sweep", STRATEGIES, "--out", ""], "--out"),
    (["compare", SMALL, "--variant", "no colon here"], "--variant"),
    (["compare", SMALL, "--variant", "a: job.spares=1", "--variant", "a: job.spares=2"],
     "--variant"),
    (["compare", SMALL, SMALL, "--trials", "0"], "--trials"),
    (["compare", SMALL, SMALL, "--seed", "-1"], "--seed"),
    (["compare", SMALL, SMALL, "--interval", "forever"], "--interval"),
    (["compare", SMALL, SMALL, "--workers", "0"], "--workers"),
    (["compare", SMALL, "--variant", "b: job.spares=1", "--dask", "nonsense"], "--dask"),
    (["compare", SMALL, "--variant", "b: job.spares=1", "--out", BAD_OUT], "--out"),
    (["compare", SMALL, "--variant", "b: job.spares=1", "--out", ""], "--out"),
    (["plan", SMALL], "PLAN"),
    (["plan", STRATEGIES], "PLAN"),
    (["plan", PLAN, "--trials", "0"], "--trials"),
    (["plan", PLAN, "--seed", "-1"], "--seed"),
    (["plan", PLAN, "--workers", "0"], "--workers"),
    (["plan", PLAN, "--set", "job.spares=3"], "job.spares"),
    (["plan", PLAN, "--out", BAD_OUT], "--out"),
    (["plan", PLAN, "--out", ""], "--out"),
    (["validate", "/dev/null"], "CONFIG"),
    (["validate", SMALL, "--set", "job.checkpoint.interval=1h", "--interval", "2h"],
     "job.checkpoint.interval"),
    (["simulate", SMALL, "--set", "job.horizon=3d", "--horizon", "2d"], "job.horizon"),
    (["sweep", STRATEGIES, "--set", "job.checkpoint.interval=1h", "--interval", "2h"],
     "job.checkpoint.interval"),
    (["validation", "--out", ""], "--out"),
    (["validation", "--out", BAD_OUT], "--out"),
    (["validate", SMALL, "--interval", "-1h"], "--interval"),
    (["validate", SMALL, "--set", "job.spares=many"], "job.spares"),
    (["inventory", SMALL, "--set", "cluster.gpus_per_server=0"], "cluster.gpus_per_server"),
    (["baseline", SMALL, "--set", "job.gpus=-8"], "job.gpus"),
])  # fmt: skip
def test_each_bad_value_is_blamed_on_its_own_option(args, option, tmp_path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    args = [str(blocker) if arg == BAD_OUT else arg for arg in args]
    assert _error_names(runner.invoke(app, args), option)


def test_workers_whose_blocks_do_not_fit_are_blamed_on_workers(monkeypatch) -> None:
    """5M trials of the small config fit in 3 GB with one block in flight (about 0.9 GB);
    1,000 workers would hold all 5M trials in flight at once (about 6 GB). A short run
    holds only its own trials, whatever the workers: 10 trials on 10^6 workers run."""
    import relplan.runs.memory as memory

    monkeypatch.setattr(memory, "available_memory", lambda: 3e9)
    refused = runner.invoke(app, ["simulate", SMALL, "--trials", "5000000", "--workers",
                                  "1000", "--json"])  # fmt: skip
    _error_names(refused, "--workers")
    assert "workers fit" in refused.stderr
    short = runner.invoke(app, ["simulate", SMALL, "--trials", "10", "--workers", str(10**6),
                                "--json"])  # fmt: skip
    assert short.exit_code == 0, short.output


def test_the_wrong_file_kind_says_what_it_is(tmp_path) -> None:
    sweep = runner.invoke(app, ["sweep", SMALL])
    assert "is a config" in sweep.stderr and "budget" not in sweep.stderr
    plan = runner.invoke(app, ["plan", STRATEGIES])
    assert "is a study" in plan.stderr
    empty = runner.invoke(app, ["validate", "/dev/null"])
    assert "no such file" not in empty.stderr and "empty" in empty.stderr


# --------------------------------------------------------------- 6. accepted silently


def test_out_empty_writes_nothing_in_the_current_folder(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["simulate", SMALL, "--trials", "5", "--out", ""])
    _error_names(result, "--out")
    assert list(tmp_path.iterdir()) == []


def test_duplicate_scenario_labels_in_a_study_are_refused(tmp_path) -> None:
    study = _study(tmp_path, """\
[[study.scenarios]]
label = "a"
[[study.scenarios]]
label = "a"
set = ["job.spares=1"]
""")
    result = runner.invoke(app, ["sweep", str(study)])
    assert result.exit_code == 2 and "'a' is used twice" in result.stderr


# --------------------------------------------------------------- 7. quiet worker shutdown


def test_an_interrupted_pool_has_no_executor_thread_left() -> None:
    """The executor's manager thread is joined when the pool is interrupted, so that the
    interpreter's exit hook never writes to the pipe that thread is closing (the
    "Exception ignored ... Bad file descriptor" after "interrupted")."""
    from relplan.runs.executor import PointPool

    pool = PointPool(2).start()
    processes = pool._processes
    future = processes.submit(time.sleep, 30)
    time.sleep(0.5)
    manager = processes._executor_manager_thread
    assert manager is not None and manager.is_alive()
    pool.close(interrupted=True)
    assert not manager.is_alive()
    assert future.cancelled() or future.done()


# --------------------------------------------------------------- 8. provenance, --strict


@pytest.mark.slow
def test_compare_out_writes_provenance(tmp_path) -> None:
    out = tmp_path / "out"
    result = runner.invoke(app, ["compare", SMALL, "--variant", "spares: job.spares=1",
                                 "--trials", "10", "--seed", "3", "--out", str(out)])  # fmt: skip
    assert result.exit_code == 0, result.output
    record = json.loads((out / "provenance.json").read_text())
    assert record["seed"] == 3 and record["trials"] == 10 and len(record["config_sha256"]) == 64
    assert record["files"] == ["comparison.csv", "comparison.json"]
    other = runner.invoke(app, ["compare", SMALL, "--variant", "spares: job.spares=2",
                                "--trials", "10", "--seed", "3", "--out", str(out)])  # fmt: skip
    assert other.exit_code == 0, other.output
    changed = json.loads((out / "provenance.json").read_text())
    assert changed["config_sha256"] != record["config_sha256"]  # another scenario


def test_validate_strict_prints_no_ok_when_it_fails() -> None:
    result = runner.invoke(app, ["validate", SMALL, "--strict",
                                 "--set", "job.checkpoint.write=2h"])  # fmt: skip
    assert result.exit_code == 1
    assert "ok" not in result.stdout
    assert "warning: job.checkpoint.write" in result.stderr
    assert "error: --strict" in result.stderr


# --------------------------------------------------------------- 9. figures and tables


def test_sweep_table_shows_names_with_units_in_80_columns(tmp_path) -> None:
    from rich.console import Console

    from relplan.cli import render

    records = [{"label": "restart on a hot spare", "goodput": 0.97781, "wall_hours": 122.7,
                "lost_hours": 2.735, "degraded_hours": 0.0047, "goodput_p5": 0.9649}]
    narrow = Console(width=80, record=True)
    previous, render.console = render.console, narrow
    try:
        render.render_sweep(records, ["goodput", "wall_hours", "lost_hours", "degraded_hours"],
                            "recovery-strategies: which?", "answer.")  # fmt: skip
    finally:
        render.console = previous
    text = narrow.export_text()
    assert max(len(line) for line in text.splitlines()) <= 80
    for raw in ("wall_hours", "lost_hours", "degraded_hours"):
        assert raw not in text
    flat = " ".join(text.split())
    for word in ("wall", "lost", "degraded", "(h)", "goodput", "P5"):
        assert word in flat
    assert "122.7" in text and "0.9778" in text


def test_the_timeline_legend_counts_degraded_time_apart_from_useful() -> None:
    from relplan.output.plots import trial_timeline
    from relplan.sim import distributions
    from relplan.sim.engine import simulate
    from relplan.sim.trace import trace_trial
    from relplan.vocab import BUCKETS
    from tests.conftest import make_model

    degraded = {"units": 20, "lifetime": distributions.exponential(50.0), "impact": "degraded",
                "slowdown": (2.0,), "repair": distributions.fixed(10.0)}  # fmt: skip
    model = make_model(work=100.0, interval=2.0, write=0.1, restart=0.3, modes=[degraded])
    outcomes = simulate(model, 4, seed=2)
    buckets = dict(zip(BUCKETS, outcomes.bucket_hours[0], strict=True))
    assert buckets["degraded"] > 1.0
    intervals, failures = trace_trial(model, seed=2, trial=0, trials=4)
    figure = trial_timeline(intervals, failures, "demo", work_hours=100.0)
    labels = [text.get_text() for axes in figure.axes if axes.get_legend()
              for text in axes.get_legend().get_texts()]  # fmt: skip
    assert f"useful ({buckets['useful']:,.1f} h)" in labels  # the work, 100 h, not more
    assert f"degraded ({buckets['degraded']:,.1f} h)" in labels
    assert "useful work done (100.0 h)" in labels


# --------------------------------------------------------------- 10. SIGINT tests


@pytest.mark.slow
def test_the_sigint_tests_pass_when_started_with_sigint_ignored() -> None:
    """As under ``nohup ... &``: the test run inherits SIGINT ignored; the tests that send
    SIGINT set the child's handler themselves."""
    process = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
         str(REPO / "tests" / "cli" / "test_interrupt_startup.py"),
         str(REPO / "tests" / "cli" / "test_interrupt.py"),
         str(REPO / "tests" / "runs" / "test_executor.py") + "::"
         "test_ctrl_c_stops_a_sweep_on_processes_with_exit_130_and_no_worker_left"],
        capture_output=True, text=True, timeout=300, cwd=REPO,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
    )  # fmt: skip
    assert process.returncode == 0, process.stdout + process.stderr
    assert "4 passed" in process.stdout  # startup, simulation, sweep to parent and group
