"""Where points run: local processes give exactly the numbers of one
worker in this process, the progress reaches every point, and an interrupted or killed
run leaves no worker process behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time

import pandas as pd
import psutil
import pytest

from relplan.config.loading import load_config
from relplan.config.plan import load_plan
from relplan.config.study import load_study
from relplan.runs.compare import ScenarioSpec, compare_scenarios
from relplan.runs.executor import (
    PointPool,
    available_cores,
    configured_workers,
    default_workers,
    engine_threads,
)
from relplan.runs.planner import run_plan
from relplan.runs.sweep import run_study
from tests.conftest import CONFIGS, REPO
from tests.runs.test_planner import _plan_file

STUDY = REPO / "studies" / "recovery-strategies.toml"


def _counter() -> tuple[dict[str, int], object]:
    seen = {"trials": 0, "points": 0}

    def progress(trials: int, points: int) -> None:
        seen["trials"] += trials
        seen["points"] += points

    return seen, progress


def test_defaults_use_every_core_split_between_the_workers() -> None:
    cores = available_cores()
    assert default_workers(None) == cores and default_workers(3) == 3
    assert engine_threads(1) == cores
    assert engine_threads(cores) == 1 and engine_threads(4 * cores) == 1
    assert engine_threads(2) * 2 <= max(cores, 2)
    assert configured_workers(load_config(CONFIGS / "small.toml")) is None
    assert configured_workers(load_config(CONFIGS / "small.toml",
                                          ["simulation.workers=3"])) == 3  # fmt: skip


def test_a_pool_runs_module_functions_here_and_in_processes() -> None:
    tasks = [(2, 10), (3, 3), (7, 2)]
    with PointPool(1) as here, PointPool(2) as there:
        assert sorted(here.run(pow, tasks)) == sorted(there.run(pow, tasks)) == [
            (0, 1024), (1, 27), (2, 49)]


def test_a_sweep_on_processes_equals_one_worker_and_counts_every_point() -> None:
    """The same frame, to the last bit, from one worker in this process and from two
    processes; both progress counts reach every point and every trial."""
    study = load_study(STUDY)
    points = len(study.points())
    one_seen, one_progress = _counter()
    one = run_study(study, trials=40, workers=1, progress=one_progress)
    two_seen, two_progress = _counter()
    two = run_study(study, trials=40, workers=2, progress=two_progress)
    pd.testing.assert_frame_equal(one, two, check_exact=True)
    assert one_seen == two_seen == {"trials": points * 40, "points": points}


def test_compare_on_processes_equals_one_worker() -> None:
    scenarios = [ScenarioSpec(CONFIGS / "small.toml"),
                 ScenarioSpec(CONFIGS / "small.toml", ("job.spares=0",), "no spares")]
    seen, progress = _counter()
    one = compare_scenarios(scenarios, trials=60, seed=3, workers=1)
    two = compare_scenarios(scenarios, trials=60, seed=3, workers=2, progress=progress)
    assert one == two
    assert seen == {"trials": 120, "points": 2}


@pytest.mark.parametrize("search", ["exhaustive", "local"])
def test_a_plan_on_processes_equals_one_worker(tmp_path, search) -> None:
    """Every batch of portfolio runs (the search's, the Shapley coalitions', the
    uncertainty draws') on two processes gives the answer of one worker, exactly; the
    progress counts one point per distinct run."""
    extra = ('[plan.uncertainty]\nsamples = 2\n'
             '"failures.gpu.lifetime.mtbf" = { low = "2y", high = "10y" }\n')  # fmt: skip
    path = _plan_file(tmp_path, budget=350.0, trials=20, extra=extra)
    if search == "local":
        path.write_text(path.read_text().replace("trials = 20\n",
                                                 "trials = 20\nexhaustive_limit = 4\n"))
    plan = load_plan(path)
    one_seen, one_progress = _counter()
    one = run_plan(plan, workers=1, progress=one_progress)
    two_seen, two_progress = _counter()
    two = run_plan(plan, workers=2, progress=two_progress)
    assert one["search"] == search
    for key in ("frontier", "best", "attribution", "portfolios", "uncertainty", "evaluated"):
        assert two[key] == one[key], key
    assert one_seen == two_seen
    assert one_seen["points"] >= one["evaluated"] - 2  # A+C is C, B+C is A+B+C
    assert one_seen["trials"] == 20 * one_seen["points"]


def _workers_of(process: subprocess.Popen) -> list[psutil.Process]:
    """The worker processes of a run: its children forked from it, or those of its fork
    server."""
    deadline = time.monotonic() + 120  # a hang guard, not a speed check
    while time.monotonic() < deadline:
        workers = []
        for child in psutil.Process(process.pid).children():
            try:
                command = " ".join(child.cmdline())
                if "forkserver" in command:
                    workers += child.children()
                elif "resource_tracker" not in command:
                    workers.append(child)
            except psutil.Error:  # a helper that has just exited
                continue
        if len(workers) >= 2:
            return workers
        assert process.poll() is None, process.communicate()
        time.sleep(0.1)
    pytest.fail("the run started no worker processes")


def _gone(processes: list[psutil.Process]) -> bool:
    _, alive = psutil.wait_procs(processes, timeout=30)  # a hang guard
    return not alive


def _long_sweep(tmp_path) -> subprocess.Popen:
    """A sweep of 4 points of 1,000,000 trials (about 10 s) on two worker processes, in its
    own session
    (so that a signal can reach its whole process group, as Ctrl-C in a terminal does).
    The child gets SIGINT's default disposition itself (Python then installs its
    KeyboardInterrupt handler), whatever this test run inherited (``nohup ... &``
    starts it with SIGINT ignored)."""
    return subprocess.Popen(
        [sys.executable, "-m", "relplan", "sweep", str(STUDY), "--trials", "1000000",
         "--workers", "2", "--out", str(tmp_path / "out")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize("to", ["parent", "group"])
def test_ctrl_c_stops_a_sweep_on_processes_with_exit_130_and_no_worker_left(tmp_path,
                                                                            to) -> None:
    """SIGINT to the parent alone, or to every process of the run (the terminal's
    Ctrl-C): one line, exit 130, no traceback from any process, no worker left."""
    process = _long_sweep(tmp_path)
    workers = _workers_of(process)
    time.sleep(1.0)
    if to == "group":
        os.killpg(process.pid, signal.SIGINT)
    else:
        process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=120)  # a hang guard, not a speed check
    assert process.returncode == 130, stderr
    assert "Traceback" not in stderr and "Exception ignored" not in stderr
    assert stderr.strip().splitlines()[-1] == "interrupted"
    assert _gone(workers)


@pytest.mark.slow
def test_the_workers_of_a_killed_sweep_exit(tmp_path) -> None:
    process = _long_sweep(tmp_path)
    workers = _workers_of(process)
    process.send_signal(signal.SIGKILL)
    process.wait()
    assert _gone(workers)


@pytest.mark.slow  # starts worker pools in fresh interpreters (about 30 s)
def test_workers_fork_from_a_lone_process_else_from_the_fork_server() -> None:
    """Alone, this process forks its workers (they start with what it has computed);
    with another thread running it takes them from the fork server instead, and the
    numbers are the same."""
    from relplan.runs import executor

    run_study(load_study(STUDY), trials=5, workers=1)  # the engine's walk threads are idle
    if executor._alone():  # other tests may have left threads behind (Dask's)
        with PointPool(2) as pool:
            assert {parent for _, parent in pool.run(os.getppid, [(), ()])} == {os.getpid()}
    study = load_study(STUDY)
    alone = run_study(study, trials=30, workers=2)
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        with PointPool(2) as pool:
            parents = {parent for _, parent in pool.run(os.getppid, [(), ()])}
            assert os.getpid() not in parents  # the fork server's children
        served = run_study(study, trials=30, workers=2)
    finally:
        stop.set()
        other.join()
    pd.testing.assert_frame_equal(alone, served, check_exact=True)
