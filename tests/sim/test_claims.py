"""The walk's threads take trials from one atomic counter (relplan.sim.claims); the state's
arrays are carved from reused buffers (relplan.sim.compiled). Neither may change a number."""

from __future__ import annotations

import threading

import numba
import numpy as np
import pytest

from relplan.config.loading import load_config
from relplan.sim import claims, engine, timeline
from relplan.sim.claims import claim, claim_run
from relplan.sim.compiled import TrialState
from relplan.sim.model import build_model
from tests.conftest import CONFIGS

OUTPUTS = ("wall_hours", "bucket_hours", "restart_init_hours", "failures_by_mode",
           "interruptions_by_mode", "spares_used", "corrupted_final")  # fmt: skip


@numba.njit(nogil=True)
def _take_all(counter: np.ndarray, taken: np.ndarray, stop: int, run: int) -> None:
    """Mark every slot this thread takes, a run at a time, until ``stop``."""
    while True:
        first = claim(counter, run)
        if first >= stop:
            return
        for slot in range(first, min(first + run, stop)):
            taken[slot] += 1


def test_claim_hands_out_consecutive_runs() -> None:
    counter = np.zeros(1, dtype=np.int64)
    assert [claim(counter, 5) for _ in range(3)] == [0, 5, 10]
    assert counter[0] == 15


def test_threads_take_every_slot_exactly_once() -> None:
    stop = 200_003
    counter = np.zeros(1, dtype=np.int64)
    taken = np.zeros(stop, dtype=np.int64)
    threads = [threading.Thread(target=_take_all, args=(counter, taken, stop, 1))
               for _ in range(4)]  # fmt: skip
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert np.all(taken == 1)


@pytest.mark.parametrize(("trials", "threads", "expected"),
                         [(10_000, 2, claims.CLAIM_TRIALS), (97, 2, 6), (1, 2, 1), (40, 1, 5)])
def test_claim_run_gives_each_thread_several_runs(trials: int, threads: int,
                                                  expected: int) -> None:  # fmt: skip
    run = claim_run(trials, threads)
    assert run == expected
    assert 1 <= run <= claims.CLAIM_TRIALS
    if trials >= claims.RUNS_PER_THREAD * threads:
        assert trials // run >= claims.RUNS_PER_THREAD * threads or run == claims.CLAIM_TRIALS


@pytest.mark.parametrize("config", ["small.toml", "airesim-default.toml"])
def test_threads_and_runs_do_not_change_the_numbers(
    config: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = build_model(load_config(CONFIGS / config))
    trials = 300 if config == "small.toml" else 40
    reference = engine.simulate(model, trials, 5)
    monkeypatch.setattr(timeline, "WALK_THREADS", 1)
    one_thread = engine.simulate(model, trials, 5)
    monkeypatch.setattr(timeline, "WALK_THREADS", 2)
    monkeypatch.setattr(timeline, "claim_run", lambda trials, threads: 1)
    single_trials = engine.simulate(model, trials, 5)
    for name in OUTPUTS:
        expected = np.asarray(getattr(reference, name))
        assert np.array_equal(np.asarray(getattr(one_thread, name)), expected), name
        assert np.array_equal(np.asarray(getattr(single_trials, name)), expected), name


def test_a_state_reuses_only_buffers_nothing_holds() -> None:
    first = TrialState.at_start(50, 3, 2, 4)
    first.wall_hours[:] = 1.5
    first.failures_by_mode[:] = 9
    held = TrialState.at_start(50, 3, 2, 4)
    assert not np.shares_memory(held.wall_hours, first.wall_hours)  # first still holds it
    buffer = id(first.wall_hours.base)
    del first
    again = TrialState.at_start(50, 3, 2, 4)
    assert id(again.wall_hours.base) == buffer  # let go, so taken again
    # not walked yet: the walk sets the rest when it first walks each trial
    assert not again.events_walked.any()
    assert not again.overflow.any() and not again.too_many_events.any()
    for array in again:
        assert array.flags.c_contiguous and array.flags.aligned
        assert numba.typeof(array).layout == "C"


UNWALKED = ("events_walked", "overflow", "too_many_events")
"""What TrialState.at_start sets; the walk sets every other entry of a fresh trial."""

FEATURES = {
    "as shipped": [],
    "horizon, maintenance, corruption, idle failures, spare pool": [
        "job.horizon=25d", "maintenance.every=5d", "maintenance.duration=2h",
        "failures.hbm.impact=corruption", "job.idle_failures=true", "job.spare_pool=10",
        "job.spare_pool_swap=20min"],
    "fail-slow, dual ToR, drains, fast tier": [
        "failures.host.impact=slow", "network.dual_tor=true", 'job.drain="at-checkpoint"',
        "network.storage_on_fabric=true",
        'job.checkpoint.fast={interval="15min", write="5s"}'],
    "retired units, maintenance first": [
        "job.failures_during_recovery=false", "job.spares=0", "job.horizon=14d",
        "maintenance.every=7d", "maintenance.duration=4h", "failures.gpu.retire_after=2"],
}  # fmt: skip


@pytest.mark.parametrize("overrides", FEATURES.values(), ids=FEATURES.keys())
def test_a_fresh_trial_reads_nothing_its_state_held(
    monkeypatch: pytest.MonkeyPatch, overrides: list[str]
) -> None:
    model = build_model(load_config(CONFIGS / "small.toml", overrides))
    expected = engine.simulate_block(model, 300, engine.block_seed(4, 0))
    at_start = TrialState.at_start.__func__

    def with_junk(cls: type[TrialState], *args: object, **kwargs: object) -> TrialState:
        """A state whose memory holds junk, as a reused buffer may, but what at_start sets."""
        state = at_start(cls, *args, **kwargs)
        for name, array in state._asdict().items():
            if name not in UNWALKED:
                array[...] = np.nan if array.dtype.kind == "f" else 77
        return state

    monkeypatch.setattr(TrialState, "at_start", classmethod(with_junk))
    walked = engine.simulate_block(model, 300, engine.block_seed(4, 0))
    for name in OUTPUTS:
        assert np.array_equal(np.asarray(getattr(walked, name)),
                              np.asarray(getattr(expected, name))), name  # fmt: skip


def test_outcomes_kept_across_blocks_are_not_overwritten() -> None:
    model = build_model(load_config(CONFIGS / "small.toml"))
    first = engine.simulate_block(model, 200, engine.block_seed(3, 0))
    kept = {name: np.array(getattr(first, name)) for name in OUTPUTS}
    for block in range(1, 4):  # later blocks while the first's outcomes are still held
        engine.simulate_block(model, 200, engine.block_seed(3, block))
    for name, values in kept.items():
        assert np.array_equal(np.asarray(getattr(first, name)), values), name
