"""The notice of the engine's first compile on an empty numba cache: one line, with the
seconds it took, when stderr is not a terminal; a live count of seconds on a terminal."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from relplan.sim import distributions
from relplan.sim.compile_notice import compiling_notice
from relplan.sim.compiled import EventWindow, TraceBuffer, TrialState, TrialStreams, compile_model
from relplan.sim.engine import walk_is_compiled, walk_trial
from relplan.sim.rng import seed_states
from tests.conftest import REPO, make_model

NOTICE = "relplan: compiling the engine for first use"


def _simulate(config: Path, cache: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
    env.pop("NUMBA_DISABLE_JIT", None)
    return subprocess.run(
        [sys.executable, "-m", "relplan", "simulate", str(config), "--trials", "20", "--json"],
        capture_output=True, text=True, env=env, cwd=REPO, check=True, timeout=300,
    )  # fmt: skip


@pytest.mark.slow  # compiles the walk from an empty cache (about 40 s)
def test_first_run_on_an_empty_cache_says_it_compiles_and_the_next_does_not(
    minimal_config_file: Path, tmp_path: Path
) -> None:
    cache = tmp_path / "numba-cache"
    cache.mkdir()
    cold = _simulate(minimal_config_file, cache)
    assert cold.stderr.count(NOTICE) == 1  # not a terminal: one final line, no live count
    assert re.search(NOTICE + r" \(cached afterwards\): done in \d+ s\n", cold.stderr)
    assert "\r" not in cold.stderr
    assert any(cache.rglob("*.nbi"))
    warm = _simulate(minimal_config_file, cache)
    assert NOTICE not in warm.stderr
    assert warm.stdout == cold.stdout


def test_a_walk_is_compiled_for_what_ran_and_not_for_new_argument_types() -> None:
    """What this process ran needs no notice again; new argument types would compile."""
    model = make_model(work=10.0, interval=3.0, write=0.5, restart=1.0,
                       modes=[{"units": 1, "lifetime": distributions.exponential(1e9)}])
    walk_trial(model, [5.0], [0], [2.0])
    compiled = compile_model(model, on_the_fly=False)
    window = EventWindow(np.zeros(1, dtype=np.int64), np.array([0, 0], dtype=np.int64),
                         np.zeros(0), np.zeros(0, dtype=np.int64), np.zeros(0), np.inf)
    streams = TrialStreams(seed_states(np.uint64(0), 1), np.full(1, np.inf))
    state = TrialState.at_start(1, len(model.modes), model.job.spares)
    args = (compiled.job, compiled.modes, window, streams, state, TraceBuffer.off())
    assert walk_is_compiled(args)
    # argument types never compiled, here or in the cache on disk: it would compile
    single_precision = window._replace(event_exposure_hours=np.zeros(0, dtype=np.float32))
    assert not walk_is_compiled((*args[:2], single_precision, *args[3:]))



class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_on_a_terminal_the_notice_counts_the_seconds_until_the_compile_is_done() -> None:
    terminal = _Terminal()
    with compiling_notice(terminal, tick_seconds=0.05):
        time.sleep(0.3)
    text = terminal.getvalue()
    counts = text.split("\r")
    assert len(counts) >= 4  # the first line, some counts, the final line
    assert all(part.startswith(NOTICE) for part in counts)
    assert counts[-1].endswith("done in 0 s\n")
    assert text.count("\n") == 1


class _UnderProgressBar(_Terminal):
    """What rich puts in place of stderr while a progress bar is live (a FileProxy)."""

    rich_proxied_file = None


def test_under_a_progress_bar_the_notice_is_a_line_at_the_start_and_one_at_the_end() -> None:
    stream = _UnderProgressBar()
    with compiling_notice(stream, tick_seconds=0.05):
        time.sleep(0.2)
    assert "\r" not in stream.getvalue()
    lines = stream.getvalue().splitlines()
    done = f"{NOTICE} (cached afterwards): done in 0 s"
    assert lines == [f"{NOTICE} (cached afterwards)...", done]
    assert len(done) + 2 <= 80  # 80 columns even at "done in 999 s"
