"""The walk compiled per feature set: the features follow the model, each set is a walk of
its own, and leaving a feature's code out changes no number."""

from __future__ import annotations

import numpy as np
import pytest

from relplan.config.loading import load_config
from relplan.sim import timeline
from relplan.sim.compiled import TraceBuffer, TrialState, WalkFeatures, compile_model
from relplan.sim.engine import simulate
from relplan.sim.model import build_model
from relplan.vocab import BUCKETS
from tests.conftest import REPO

SMALL = REPO / "configs" / "small.toml"


def _features(overrides: list[str], trace: TraceBuffer | None = None) -> WalkFeatures:
    model = build_model(load_config(SMALL, overrides))
    compiled = compile_model(model)
    state = TrialState.at_start(1, len(model.modes), model.job.spares,
                                n_spare_pool=model.job.spare_pool)  # fmt: skip
    return WalkFeatures.of(compiled.job, compiled.modes, state,
                           TraceBuffer.off() if trace is None else trace)  # fmt: skip


def test_a_plain_config_turns_on_only_what_it_uses() -> None:
    # small.toml: crashes, and a spine failure that ECMP routes around (degraded)
    assert _features([]) == WalkFeatures(
        trace=False, horizon=False, maintenance=False, fail_slow=False, corruption=False,
        drain=False, planned_stops=False, idle_failures=False, spare_pool=False,
        degradations=True, random_restarts=False, preemption=False, random_saves=False,
        detection=False,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("overrides", "on"),
    [
        (["job.horizon=20d"], {"horizon"}),
        (["maintenance.every=7d", "maintenance.duration=4h"], {"maintenance", "planned_stops"}),
        (["failures.host.impact=slow"], {"fail_slow", "planned_stops"}),
        (["failures.hbm.impact=corruption"], {"corruption"}),
        (["job.idle_failures=true"], {"idle_failures"}),
        (["job.spare_pool=10", "job.spare_pool_swap=20min"], {"spare_pool"}),
        (['job.restart={ init = "10min", success = "90%" }'], {"random_restarts"}),
        (['job.restart={ init = "10min", black_hole = "1%" }'], {"random_restarts"}),
        (['job.restart={ init = "10min", load = ["5min", "7min"] }'], {"random_restarts"}),
        (['preemption={ every = "100h" }'], {"preemption"}),
        (['job.checkpoint.fail="1%"'], {"random_saves"}),
        (['job.checkpoint.write=["1min", "2min"]'], {"random_saves"}),
        (['job.checkpoint.fast={ interval = "15min", write = "5s", hang = "1%" }'],
         {"random_saves"}),
        (['failures.gpu.recall="90%"'], {"detection"}),
    ],
)
def test_each_feature_a_config_uses_is_on(overrides: list[str], on: set[str]) -> None:
    plain = _features([])._asdict()
    features = _features(overrides)._asdict()
    assert {name for name, value in features.items() if value != plain[name]} == on


def test_a_trace_turns_on_the_trace_feature() -> None:
    assert _features([], TraceBuffer.for_trial(0, np.zeros((10, 6)))).trace


def test_each_feature_set_has_a_walk_of_its_own() -> None:
    none = WalkFeatures(*[False] * len(WalkFeatures._fields))
    horizon = none._replace(horizon=True)
    assert timeline.walk_kernel(none) is timeline.walk_kernel(none)
    assert timeline.walk_kernel(none) is not timeline.walk_kernel(horizon)


@pytest.mark.slow  # compiles the walk with every feature (about 30 s)
def test_the_walk_of_a_models_features_gives_the_numbers_of_the_walk_with_all_of_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    overrides = ["maintenance.every=5d", "maintenance.duration=2h", "job.horizon=25d",
                 "failures.hbm.impact=corruption"]  # fmt: skip
    model = build_model(load_config(SMALL, overrides))
    pruned = simulate(model, 400, seed=3)
    every = WalkFeatures(*[True] * len(WalkFeatures._fields))
    monkeypatch.setattr(WalkFeatures, "of", classmethod(lambda cls, *args: every))
    full = simulate(model, 400, seed=3)
    assert np.array_equal(pruned.wall_hours, full.wall_hours)
    assert np.array_equal(pruned.bucket_hours, full.bucket_hours)
    assert np.array_equal(pruned.interruptions_by_mode, full.interruptions_by_mode)
    assert pruned.interruptions_by_mode.sum() > 0  # failures happened: the walks had work
    assert pruned.bucket_hours[:, BUCKETS.index("maintenance")].sum() > 0.0  # and windows
