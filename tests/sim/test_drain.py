"""Draining a degraded server: ``job.drain = "never" | "at-checkpoint"
| "now"`` swaps a server running degraded for a free spare.

Hand-worked cases use the one-tier job W = 10, tau = 3, delta = 0.5, R = 1 (hours):
failure-free it computes [0, 3), writes [3, 3.5), ... and ends at 11.5; a degraded mode
at slowdown 2 (compute at half speed, writes at full speed, off the fabric).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
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


def _found_later(drain: str, detect: float) -> SimulationModel:
    """The leg lost found ``detect`` hours of running after it fails, and a crash mode
    (mode 1, no repair to wait for)."""
    model = make_model(work=10.0, interval=3.0, write=0.5, restart=1.0, spares=1, modes=[
        {"units": 1, "lifetime": NEVER, "impact": "degraded", "slowdown": (2.0,),
         "uses_spares": True, "detect": detect},
        {"units": 1, "lifetime": NEVER}])  # fmt: skip
    return replace(model, modes=(replace(model.modes[0], drain=drain), model.modes[1]))


def test_drain_now_waits_for_the_detection_by_hand() -> None:
    """Lost at 1.0, found 1 h of running later, at 2.0: meanwhile half speed (0.5 h of
    work in the hour). Drained then: the 2 h since the start (1.5 h of work, 0.5 h of its
    slowing) are rework, restart [2, 3), then 11.5 h: 14.5 h (13.5 h when the drain came
    at the failure itself)."""
    outcomes = walk_trial(_found_later("now", 1.0), [1.0], [0], [20.0])
    b = _buckets(outcomes)
    assert outcomes.wall_hours[0] == pytest.approx(14.5)
    assert (b["degraded"], b["restart"], b["rework"]) == pytest.approx((0.0, 1.0, 2.0))
    assert outcomes.drains[0] == 1


def test_drain_at_checkpoint_waits_for_the_detection_by_hand() -> None:
    """Found 5 h of running after it is lost at 1.0, at 6.0: checkpoint 1 (5.5, its last
    2 h of compute at half speed) has passed, so the swap waits for checkpoint 2: 3 h of
    compute at half speed end at 11.5, the write at 12.0. Restart [12, 13), the last 4 h
    (a segment, its write and the last hour): 17.5 h, 5 h of them degraded."""
    outcomes = walk_trial(_found_later("at-checkpoint", 5.0), [1.0], [0], [20.0])
    b = _buckets(outcomes)
    assert outcomes.wall_hours[0] == pytest.approx(17.5)
    assert (b["degraded"], b["restart"], b["rework"]) == pytest.approx((5.0, 1.0, 0.0))
    assert outcomes.drains[0] == 1 and outcomes.interruptions_by_mode.sum() == 0


def test_a_crash_before_the_detection_does_not_drain_by_hand() -> None:
    """Lost at 1.0, found at 6.0 (exposure); a crash at 2.0 restarts the job [2, 3) with
    the server still degraded (not found yet: no drain). Found at 6.0 after 3 h at half
    speed, it is drained at once: 3 h more of rework, restart [6, 7), 11.5 h: 18.5 h."""
    outcomes = walk_trial(_found_later("now", 5.0), [1.0, 2.0], [0, 1], [20.0, 0.0])
    b = _buckets(outcomes)
    assert outcomes.wall_hours[0] == pytest.approx(18.5)
    assert (b["rework"], b["restart"], b["degraded"]) == pytest.approx((5.0, 2.0, 0.0))
    assert outcomes.drains[0] == 1
    assert outcomes.interruptions_by_mode[0].tolist() == [0, 1]
    # found at 1.5, its swap waiting for checkpoint 1: the crash at 2.0 swaps it there
    found = walk_trial(_found_later("at-checkpoint", 0.5), [1.0, 2.0], [0, 1], [20.0, 0.0])
    assert found.drains[0] == 1
    assert found.wall_hours[0] == pytest.approx(2.0 + 1.0 + 11.5)


def test_a_repair_before_the_detection_leaves_nothing_to_drain() -> None:
    """Lost at 1.0 with a 0.5-h repair, found an hour later: back at 1.5, nothing drains;
    the half hour at half speed adds 0.25 h."""
    outcomes = walk_trial(_found_later("now", 1.0), [1.0], [0], [0.5])
    assert outcomes.drains[0] == 0
    assert outcomes.wall_hours[0] == pytest.approx(11.75)


def test_drains_per_trial_follow_the_legs_lost_not_the_jobs_slowdowns() -> None:
    """Monte Carlo on small.toml, dual-ToR: server legs lost (links and optics, degraded)
    are drained once found; a job-wide slowdown counted per job (unit = "job", one a
    day) is not a server: never drained. Each drain is a leg lost that found a free
    spare when found: no more than the legs lost, and nothing like the slowdowns' count."""
    config = load_config("configs/small.toml", [
        "network.dual_tor=true", 'job.drain="now"',
        'failures.link={lifetime={dist="exponential", mtbf="20y"}, '
        'repair={dist="fixed", mean="12h"}, detect="1h"}',
        'failures.throttle={unit="job", impact="degraded", slowdown=1.1, '
        'lifetime={dist="exponential", mtbf="1d"}, repair={dist="fixed", mean="2h"}}'])
    model = build_model(config)
    drains = {mode.name: mode.drain for mode in model.modes}
    assert drains["throttle"] == "never" and drains["link.fabric"] == "never"
    assert drains["link"] == drains["optic"] == "now"
    outcomes = simulate(model, 400, seed=2)
    names = [mode.name for mode in model.modes]
    legs = outcomes.failures_by_mode[:, [names.index("link"), names.index("optic")]].sum(axis=1)
    assert outcomes.drains.sum() > 0
    assert np.all(outcomes.drains <= legs)
    assert outcomes.failures_by_mode[:, names.index("throttle")].mean() > 20


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
            mode.unit in ("nic", "link", "optic"))
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
