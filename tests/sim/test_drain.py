"""Draining a degraded server: ``job.drain = "never" | "at-checkpoint"
| "now"`` swaps a server running degraded for a free spare.

Hand-worked cases use the one-tier job W = 10, tau = 3, delta = 0.5, R = 1 (hours):
failure-free it computes [0, 3), writes [3, 3.5), ... and ends at 11.5; a degraded mode
at slowdown 2 (compute at half speed, writes at full speed, off the fabric).
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from relplan.config.loading import load_config
from relplan.errors import ConfigError
from relplan.sim import distributions
from relplan.sim.engine import simulate, walk_trial
from relplan.sim.model import SimulationModel, build_model
from relplan.vocab import BUCKETS
from tests.conftest import make_model

NEVER = distributions.exponential(1e9)


def _model(drain: str, spares: int = 1) -> SimulationModel:
    model = make_model(work=10.0, interval=3.0, write=0.5, restart=1.0, spares=spares, modes=[
        {"units": 1, "lifetime": NEVER, "impact": "degraded", "slowdown": (2.0,),
         "uses_spares": True}])  # fmt: skip
    return replace(model, modes=(replace(model.modes[0], drain=drain),))


def _buckets(outcomes) -> dict[str, float]:
    buckets = dict(zip(BUCKETS, outcomes.bucket_hours[0], strict=True))
    assert sum(buckets.values()) == pytest.approx(outcomes.wall_hours[0], rel=1e-12)
    return buckets


def test_drain_at_the_next_checkpoint_by_hand() -> None:
    """A leg lost at 1.0 (20 h repair): the job computes at half speed, so segment 1's
    last 2 h of compute take 4 h; checkpoint 1 ends at 5.5; the server is swapped there
    (restart [5.5, 6.5), no rework); then 8 h at full speed: 14.5 h."""
    outcomes = walk_trial(_model("at-checkpoint"), [1.0], [0], [20.0])
    b = _buckets(outcomes)
    assert outcomes.wall_hours[0] == pytest.approx(14.5)
    assert (b["degraded"], b["restart"], b["rework"]) == pytest.approx((2.0, 1.0, 0.0))
    assert outcomes.drains[0] == 1 and outcomes.spares_used[0] == 1
    assert outcomes.interruptions_by_mode.sum() == 0


def test_drain_now_by_hand() -> None:
    """At once: the 1 h since the start is rework, restart [1, 2), then 11.5 h: 13.5 h."""
    outcomes = walk_trial(_model("now"), [1.0], [0], [20.0])
    b = _buckets(outcomes)
    assert outcomes.wall_hours[0] == pytest.approx(13.5)
    assert (b["degraded"], b["restart"], b["rework"]) == pytest.approx((0.0, 1.0, 1.0))
    assert outcomes.drains[0] == 1


def test_never_drained_runs_slowed_until_the_repair_by_hand() -> None:
    """No drain: slowed from 1.0 until its repair ends at 21. The 9 h of compute left
    take 18 h at half speed and the three writes 1.5 h at full speed: the job ends at
    20.5, before the repair, with 9 h in the degraded bucket."""
    outcomes = walk_trial(_model("never"), [1.0], [0], [20.0])
    b = _buckets(outcomes)
    assert outcomes.wall_hours[0] == pytest.approx(20.5)
    assert b["degraded"] == pytest.approx(9.0)
    assert outcomes.drains[0] == 0


def test_no_free_spare_no_drain() -> None:
    """Without a spare the server runs on degraded, as with no drain, and no stop."""
    for drain in ("at-checkpoint", "now"):
        outcomes = walk_trial(_model(drain, spares=0), [1.0], [0], [20.0])
        assert outcomes.wall_hours[0] == pytest.approx(20.5)
        assert outcomes.drains[0] == 0 and _buckets(outcomes)["restart"] == 0.0


def test_drained_spare_comes_back_after_the_repair() -> None:
    """One spare: drained at 5.5 for a repair ending at 21; a second leg lost at 7.0
    finds no free spare (the first is away until 21): it runs on degraded."""
    outcomes = walk_trial(_model("at-checkpoint"), [1.0, 7.0 - 1.0], [0, 0], [20.0, 20.0])
    assert outcomes.drains[0] == 1 and outcomes.spares_used[0] == 1


def test_drain_pays_when_repairs_are_long() -> None:
    """Monte Carlo: legs lost every 20 h of use with 100 h repairs; a drain to a spare at
    the next checkpoint beats running slowed, and drains are reported per trial."""
    model = make_model(work=200.0, interval=2.0, write=0.05, restart=0.1, spares=4, modes=[
        {"units": 1, "lifetime": distributions.exponential(20.0), "impact": "degraded",
         "slowdown": (1.5,), "repair": distributions.fixed(100.0), "uses_spares": True}])
    never = simulate(model, 400, seed=3)
    drained_model = replace(model, modes=(replace(model.modes[0], drain="at-checkpoint"),))
    drained = simulate(drained_model, 400, seed=3)
    assert drained.wall_hours.mean() < never.wall_hours.mean() - 10.0
    assert drained.drains.mean() > 5 and never.drains.sum() == 0


def test_drain_keys() -> None:
    config = load_config("configs/small.toml", ["network.dual_tor=true", 'job.drain="now"'])
    model = build_model(config)
    drains = {mode.name: mode.drain for mode in model.modes}
    degraded = {mode.name for mode in model.modes if mode.impact == "degraded"}
    assert degraded
    for mode in model.modes:
        server_side = mode.impact == "degraded" and not mode.name.endswith(".fabric") and (
            mode.unit not in ("spine", "core", "leaf"))
        assert drains[mode.name] == ("now" if server_side else "never"), mode.name
    assert build_model(load_config("configs/small.toml")).job is not None
    assert all(m.drain == "never" for m in build_model(load_config("configs/small.toml")).modes)
    for key, value in (("job.drain", '"sometimes"'), ("failures.gpu.drain", '"later"')):
        with pytest.raises(ConfigError) as error:
            load_config("configs/small.toml", [f"{key}={value}"])
        assert error.value.key == key


def test_keeps_fast_tier_per_mode() -> None:
    """failures.X.keeps_fast_tier overrides the default by unit (a server's part loses a
    fast tier held in its memory, anything else keeps it)."""
    fast = 'job.checkpoint.fast={interval="15min", write="10s", survives="none"}'

    def loses(*overrides: str) -> dict[str, bool]:
        model = build_model(load_config("configs/small.toml", [fast, *overrides]))
        return {mode.name: mode.loses_fast_checkpoint for mode in model.modes}

    default = loses()
    assert default["gpu"] and default["host"] and not default["leaf"]
    changed = loses("failures.gpu.keeps_fast_tier=true", "failures.leaf.keeps_fast_tier=false")
    assert not changed["gpu"] and changed["leaf"] and changed["host"]
