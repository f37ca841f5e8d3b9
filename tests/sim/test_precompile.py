"""What a run calls compiled (relplan.sim.precompile): every compiled call of a real run and
of its trace is one of the model's targets, with the same argument types, so compiling the
targets ahead leaves nothing for the run to compile."""

from __future__ import annotations

import numpy as np
import pytest

from relplan.config.loading import load_config
from relplan.sim import engine, timeline
from relplan.sim.compile_cache import signature_of
from relplan.sim.compiled import WalkFeatures
from relplan.sim.model import build_model
from relplan.sim.precompile import run_targets
from relplan.sim.trace import trace_trial
from tests.conftest import CONFIGS

SMALL = CONFIGS / "small.toml"


def _spy_calls(monkeypatch: pytest.MonkeyPatch) -> list[tuple[object, tuple]]:
    """Record (dispatcher, argument types) of each compiled call a run makes from Python."""
    calls: list[tuple[object, tuple]] = []
    real_walk = timeline.start_walk

    def start_walk(job, modes, window, streams, state, trace):
        dispatcher = timeline.walk_kernel(WalkFeatures.of(job, modes, state, trace))
        args = (np.zeros(1, dtype=np.int64), window.active_trials.size, 1, job, modes,
                window, streams, state, trace, timeline.CANCEL)  # as start_walk calls it
        calls.append((dispatcher, signature_of(dispatcher, args)))
        return real_walk(job, modes, window, streams, state, trace)

    monkeypatch.setattr(timeline, "start_walk", start_walk)
    for name in ("segments_time", "completed_segments", "slowed_job_hours"):
        dispatcher = getattr(timeline, name)

        def spy(*args, _dispatcher=dispatcher):
            calls.append((_dispatcher, signature_of(_dispatcher, args)))
            return _dispatcher(*args)

        monkeypatch.setattr(timeline, name, spy)
    return calls


@pytest.mark.parametrize("overrides", [
    [],
    pytest.param(["job.horizon=20d", "job.spare_pool=4", "job.spare_pool_swap=20min",
                  "failures.hbm.impact=corruption"],
                 marks=pytest.mark.slow),  # compiles a walk of its own (about 20 s)
])  # fmt: skip
def test_every_compiled_call_of_a_run_and_its_trace_is_a_target(
    overrides: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    model = build_model(load_config(SMALL, overrides))
    targets = {(id(target.dispatcher), target.signature) for target in run_targets(model)}
    for spied in (False, True):  # compiled first: the walk reads the helpers as globals
        calls = _spy_calls(monkeypatch) if spied else []
        engine.simulate(model, 30, seed=1)
        trace_trial(model, seed=1, trial=3, trials=30)
    called = {(id(dispatcher), signature) for dispatcher, signature in calls}
    kinds = {getattr(dispatcher, "py_func", dispatcher).__name__ for dispatcher, _ in calls}
    # the run and its trace did call each kind: the walk, traced and not, and the others
    assert {"walk_trial_slots", "segments_time", "completed_segments",
            "slowed_job_hours"} <= kinds  # fmt: skip
    assert len({id(dispatcher) for dispatcher, signature in calls if len(signature) == 10}) == 2
    assert called <= targets, called - targets


def test_the_walks_are_of_the_models_features_with_and_without_the_trace() -> None:
    model = build_model(load_config(SMALL, ["job.horizon=20d"]))
    walks = [target for target in run_targets(model) if target.features is not None]
    assert [target.kind for target in walks] == ["walk", "traced walk"]
    plain, traced = (target.features for target in walks)
    assert plain.horizon and not plain.trace
    assert traced == plain._replace(trace=True)
    assert all(target.dispatcher is timeline.walk_kernel(target.features) for target in walks)


def test_a_plain_python_function_has_nothing_to_compile() -> None:
    """With NUMBA_DISABLE_JIT the functions are plain Python: nothing is announced, nothing
    compiles, and the check says so rather than failing."""
    from relplan.sim.compile_cache import is_compiled
    from relplan.sim.precompile import CompileTarget

    def plain(x: int) -> int:
        return x

    assert signature_of(plain, (1,)) is None
    assert is_compiled(plain, None)
    target = CompileTarget("trace segments", "plain", None, plain, None)
    assert target.is_compiled()
    target.compile()  # does nothing


def test_a_numba_function_not_compiled_for_new_types_would_compile() -> None:
    """The check can say no: argument types never compiled, here or on disk."""
    import numpy as np

    from relplan.sim import rng
    from relplan.sim.compile_cache import is_compiled

    rng_state = np.ones((1, 4), dtype=np.uint64)
    rng.uniform(rng_state, 0)
    assert is_compiled(rng.uniform, signature_of(rng.uniform, (rng_state, 0)))
    fortran = np.asfortranarray(np.ones((3, 4), dtype=np.uint64))  # another array layout
    assert not is_compiled(rng.uniform, signature_of(rng.uniform, (fortran, 0)))
