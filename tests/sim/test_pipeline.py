"""One worker prepares the next block while one is walked (engine._pipelined_blocks): the
numbers are those of the blocks simulated one by one, a block that overflows its room for
degradations is simulated again alone, and closing the run stops its walk."""

from __future__ import annotations

import numpy as np
import pytest

from relplan.config.loading import load_config
from relplan.sim import distributions, engine, timeline
from relplan.sim.compiled import compile_model
from relplan.sim.model import SimulationModel, build_model
from tests.conftest import CONFIGS, make_model

OUTPUTS = ("wall_hours", "bucket_hours", "restart_init_hours", "failures_by_mode",
           "interruptions_by_mode", "spares_used", "maintenances", "unit_stats")  # fmt: skip


def _one_by_one(model: SimulationModel, trials: int, seed: int) -> engine.TrialOutcomes:
    sizes = engine.block_sizes(trials, engine.block_trials(model))
    return engine.concatenate_outcomes(
        [engine.simulate_block(model, size, engine.block_seed(seed, index))
         for index, size in enumerate(sizes)]
    )  # fmt: skip


def _assert_same(left: engine.TrialOutcomes, right: engine.TrialOutcomes) -> None:
    for name in OUTPUTS:
        assert np.array_equal(np.asarray(getattr(left, name)),
                              np.asarray(getattr(right, name))), name  # fmt: skip


@pytest.mark.parametrize(("config", "overrides"), [
    ("small.toml", []),
    # windows of pre-drawn failures (Weibull lifetimes, lemons): several walks a block
    ("small.toml", ['failures.gpu.lifetime={ dist = "weibull", shape = 0.8, mtbf = "12y" }',
                    'failures.host.lemons={ share = "5%", factor = 8 }']),
])  # fmt: skip
def test_a_pipelined_run_is_its_blocks_one_by_one(
    config: str, overrides: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(engine, "BLOCK_TRIALS", 100)
    model = build_model(load_config(CONFIGS / config, overrides))
    progress: list[int] = []
    piped = engine.simulate(model, 350, 4, progress=progress.append)
    assert progress == [100, 100, 100, 50]
    _assert_same(piped, _one_by_one(model, 350, 4))


def test_a_later_block_that_overflows_is_walked_again_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A degraded mode failing every 2 h with 500 h repairs keeps about 250 degradations
    at once, beyond the first room: each block is walked again with more, as alone."""
    monkeypatch.setattr(engine, "BLOCK_TRIALS", 20)
    model = make_model(work=200.0, interval=2.0, write=0.05, restart=0.1, modes=[
        {"units": 1, "lifetime": distributions.exponential(2.0),
         "repair": distributions.fixed(500.0), "impact": "degraded",
         "slowdown": (1.001,)}])  # fmt: skip
    piped = engine.simulate(model, 50, seed=1)
    ample = engine.concatenate_outcomes([
        engine._simulate_block_with_slots(model, size, engine.block_seed(1, index), 4096, 1.2,
                                          compile_model(model), None)
        for index, size in enumerate(engine.block_sizes(50, 20))
    ])  # fmt: skip
    assert np.array_equal(piped.wall_hours, ample.wall_hours)


def test_closing_a_run_stops_its_walk_and_the_next_run_is_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(engine, "BLOCK_TRIALS", 200)
    model = build_model(load_config(CONFIGS / "small.toml"))
    sizes = engine.block_sizes(1_000, 200)
    timeline.allow_walks()
    blocks = engine._pipelined_blocks(model, sizes, 3, compile_model(model), None)
    first = next(blocks)  # the second block is being walked now
    assert first.trials == 200
    blocks.close()
    assert timeline.CANCEL[0]  # the walk under way was told to stop, and waited for
    _assert_same(engine.simulate(model, 1_000, 3), _one_by_one(model, 1_000, 3))


def test_start_walk_returns_once_its_threads_have_started(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A thread needs the GIL to start the compiled walk: a caller that went on to Python
    work at once (preparing the next block) could hold it while the walk waited, so
    start_walk returns only once every thread has started."""
    import threading
    import time

    model = build_model(load_config(CONFIGS / "small.toml"))
    request = next(engine._block_walks(model, 2_000, engine.block_seed(1, 0),
                                       engine.degradation_slots(model), engine.WINDOW_FACTOR,
                                       compile_model(model), None))  # fmt: skip
    started: list[float] = []
    real_share = timeline._walk_share

    def late_share(walk: object, signal: threading.Semaphore, *args: object) -> None:
        time.sleep(0.2)  # a thread slow to start
        started.append(time.perf_counter())
        real_share(walk, signal, *args)

    monkeypatch.setattr(timeline, "_walk_share", late_share)
    monkeypatch.setattr(timeline, "WALK_THREADS", 2)
    pending = timeline.start_walk(*engine._walk_arguments(*request))
    returned = time.perf_counter()
    timeline.finish_walk(pending)
    assert len(started) == 2 and max(started) <= returned
    assert np.all(request[1].events_walked > 0)
