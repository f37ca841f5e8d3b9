"""Properties of the simulation over random valid configs.

Each example draws a config from the schema (``tests/strategies.py``: cluster and job
size, checkpoint interval and write, restart, spares, failure modes with exponential,
Weibull and lognormal lifetimes, spines, LACP members, dual-ToR, elastic recovery, a fast
tier, a ``[workload]`` or none) and checks what the README's model promises:

- goodput = work / wall lies in (0, 1];
- every wall hour lands in one bucket (``relplan.vocab.BUCKETS``): the buckets sum to the
  wall time, ``useful`` is the work, so the lost buckets sum to wall - work;
- more failures never raise the mean goodput when every rate is scaled up on the same
  seed, and never shorten a run on a common stream of fatal failures;
- a spare server more never lowers the mean goodput on the same seed, and never lengthens
  a run on a common stream of fatal failures.

The per-stream forms hold for fatal failures only, and that is the model, not a bug: a
degraded unit's repair goes on in wall-clock time, also while the job is down, but
failures come on the exposure clock. A crash whose wait lets a degradation end sooner on
the exposure clock can put the job *ahead* at a later failure, on the other side of a
checkpoint; so can the wait a spare would have saved. The two hand-worked streams at the
end show it (a 6 h difference each). Averaged over streams, more failures and fewer
spares still cost, which the tests of means check with every impact.

Exact per-stream comparisons feed one list of failures (exposure time, mode, repair) to
:func:`relplan.sim.engine.walk_trial` for both configs, as
``tests/cluster/test_redundancy_property.py`` does; comparisons of means run
:func:`relplan.api.simulate` on the same seed and allow 4 standard errors of the paired
difference.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from relplan import api
from relplan.config.loading import parse_config
from relplan.sim import distributions
from relplan.sim.engine import walk_trial
from relplan.sim.model import SimulationModel, build_model
from relplan.vocab import BUCKETS
from tests.conftest import make_model
from tests.strategies import scale_rates, set_key, valid_configs

TRIALS = 24
SEED = 7
TOLERANCE = 1e-9
"""Relative float tolerance of sums of hours."""


def _simulate(raw: dict[str, Any], trials: int = TRIALS):
    return api.simulate(parse_config(raw), trials=trials, seed=SEED)


@st.composite
def failure_streams(draw: st.DrawFn, max_size: int = 30) -> list[tuple[float, float, float]]:
    """A list of failures: (gap before it in exposure hours, mode draw, repair hours).

    The mode draw is a fraction in [0, 1) mapped onto a model's fatal modes, so one
    stream serves models whose mode lists differ.
    """
    return draw(
        st.lists(
            st.tuples(st.floats(0.0, 30.0), st.floats(0.0, 0.999), st.floats(0.0, 12.0)),
            max_size=max_size,
        )
    )


def _fatal(model: SimulationModel) -> list[int]:
    """Indices of the model's fatal modes."""
    return [index for index, mode in enumerate(model.modes) if mode.impact == "fatal"]


def _on(model: SimulationModel, stream: list[tuple[float, float, float]]):
    """The stream as walk_trial's arguments for ``model``: times, fatal mode indices, repairs."""
    fatal = _fatal(model)
    times = np.cumsum([gap for gap, _, _ in stream]).tolist()
    modes = [fatal[math.floor(pick * len(fatal))] for _, pick, _ in stream]
    return times, modes, [repair for _, _, repair in stream]


def _wall(model: SimulationModel, times: list[float], modes: list[int], repairs: list[float]):
    return float(walk_trial(model, times, modes, repairs).wall_hours[0])


@pytest.mark.slow
@settings(max_examples=100, deadline=None)
@given(raw=valid_configs())
def test_goodput_is_a_share_and_the_buckets_hold_every_wall_hour(raw) -> None:
    """README, The model, Buckets: every wall-clock hour of a trial goes to one bucket;
    lost hours = wall - useful = the sum of the others; goodput = work / wall."""
    result = _simulate(raw)
    outcomes, work = result.simulation.outcomes, result.model.job.work_hours
    wall, buckets = outcomes.wall_hours, outcomes.bucket_hours
    goodput = result.to_frame()["goodput"].to_numpy()
    assert np.all(goodput > 0) and np.all(goodput <= 1 + TOLERANCE)
    assert np.all(buckets >= -TOLERANCE * wall[:, None])
    np.testing.assert_allclose(buckets.sum(axis=1), wall, rtol=TOLERANCE)
    np.testing.assert_allclose(buckets[:, BUCKETS.index("useful")], work, rtol=TOLERANCE)
    lost = np.delete(buckets, BUCKETS.index("useful"), axis=1).sum(axis=1)
    np.testing.assert_allclose(lost, wall - work, rtol=TOLERANCE, atol=TOLERANCE * work)
    summary = result.summary()
    assert math.isclose(
        sum(summary["lost_hours_breakdown"].values()),
        summary["lost_hours"]["mean"],
        rel_tol=TOLERANCE,
        abs_tol=TOLERANCE * work,
    )


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(raw=valid_configs(), stream=failure_streams(), extra=failure_streams(max_size=5))
def test_more_failures_never_shorten_a_run_on_a_common_stream(raw, stream, extra) -> None:
    """The same fatal failures plus some more never finish the job sooner (whatever the
    spares, fast tier and recovery)."""
    model = build_model(parse_config(raw))
    if not _fatal(model):
        return
    base = _on(model, stream)
    # the extra failures at their own times, merged into the stream in time order
    extra_times = np.cumsum([gap for gap, _, _ in extra]).tolist()
    merged = sorted(
        [*zip(*base, strict=True),
         *zip(extra_times, _on(model, extra)[1], [r for _, _, r in extra], strict=True)],
        key=lambda failure: failure[0],
    )  # fmt: skip
    more = [list(column) for column in zip(*merged, strict=True)] if merged else [[], [], []]
    assert _wall(model, *more) >= _wall(model, *base) * (1 - TOLERANCE)


@pytest.mark.slow
@settings(max_examples=50, deadline=None)
@given(raw=valid_configs(), factor=st.floats(1.5, 4.0))
def test_more_failures_never_raise_the_mean_goodput(raw, factor) -> None:
    """Every rate scaled up, same seed: the mean goodput does not rise beyond 4 standard
    errors of the paired difference. (Not per trial: scaling rates compresses a trial's
    failure times, which moves them along the checkpoint sawtooth.)"""
    base = _simulate(raw).to_frame()["goodput"].to_numpy()
    worse = _simulate(scale_rates(raw, factor)).to_frame()["goodput"].to_numpy()
    difference = worse - base
    error = difference.std(ddof=1) / math.sqrt(difference.size)
    assert difference.mean() <= 4 * error + TOLERANCE


def _with_spares(raw: dict[str, Any], spares: int) -> dict[str, Any]:
    """``raw`` with ``spares`` spare servers, on a cluster with room for one more."""
    room = set_key(raw, "cluster.servers", raw["cluster"]["servers"] + 1)
    return set_key(room, "job.spares", spares)


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(raw=valid_configs(), stream=failure_streams())
def test_a_spare_more_never_lengthens_a_run_on_a_common_stream(raw, stream) -> None:
    """Spares k + 1 against k on the same fatal failures: never a longer run."""
    spares = raw["job"]["spares"]
    fewer = build_model(parse_config(_with_spares(raw, spares)))
    more = build_model(parse_config(_with_spares(raw, spares + 1)))
    if not _fatal(fewer):
        return
    times, modes, repairs = _on(fewer, stream)
    assert _wall(more, times, modes, repairs) <= _wall(fewer, times, modes, repairs) * (
        1 + TOLERANCE
    )


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(raw=valid_configs())
def test_a_spare_more_never_lowers_the_mean_goodput(raw) -> None:
    """Spares k + 1 against k on the same seed: the mean goodput does not fall beyond 4
    standard errors of the paired difference."""
    spares = raw["job"]["spares"]
    fewer = _simulate(_with_spares(raw, spares)).to_frame()["goodput"].to_numpy()
    more = _simulate(_with_spares(raw, spares + 1)).to_frame()["goodput"].to_numpy()
    difference = more - fewer
    error = difference.std(ddof=1) / math.sqrt(difference.size)
    assert difference.mean() >= -4 * error - TOLERANCE


def _degraded_then_fatal(spares: int) -> SimulationModel:
    """50 h of work, 10 h intervals, free writes and restarts; a degraded mode that halves
    the pace and a fatal mode a spare can stand in for."""
    modes = [
        {"units": 1, "lifetime": distributions.exponential(1e9), "impact": "degraded",
         "slowdown": (2.0,)},
        {"units": 1, "lifetime": distributions.exponential(1e9), "uses_spares": True},
    ]  # fmt: skip
    return make_model(work=50.0, interval=10.0, write=0.0, restart=0.0, modes=modes,
                      spares=spares)  # fmt: skip


def test_a_spare_more_can_lengthen_one_stream_while_a_degradation_is_repaired() -> None:
    """Why the per-stream spare property is stated for fatal failures only.

    A degradation at exposure 0 lasts 10 wall hours; a crash at exposure 1 (0.5 h of work
    done) needs a 4 h repair; another crash at exposure 13.6 needs none. Without a spare
    the job waits 4 h, so the degradation ends at exposure 6: 2.5 h of work by then, and
    10.1 h at exposure 13.6, just past the checkpoint at 10 h; it finishes at exposure
    53.6, wall 57.6 h. With a spare it does not wait, the degradation ends at exposure 10
    (4.5 h of work), it has 8.1 h at exposure 13.6, loses all of it and ends at 63.6 h.
    """
    stream = ([0.0, 1.0, 13.6], [0, 1, 1], [10.0, 4.0, 0.0])
    assert _wall(_degraded_then_fatal(0), *stream) == pytest.approx(57.6)
    assert _wall(_degraded_then_fatal(1), *stream) == pytest.approx(63.6)


def test_a_failure_more_can_shorten_one_stream_while_a_degradation_is_repaired() -> None:
    """Why the per-stream failure property is stated for fatal failures only.

    The same job without spares. Stream: the degradation at exposure 0 (10 wall hours)
    and a crash at 13.6 with no repair: at 13.6 the job has done 5 + 3.6 = 8.6 h, rolls
    back to 0 and ends at 63.6 h. Add a crash at exposure 1 with a 4 h repair: the wait
    ends the degradation at exposure 6, the job is at 10.1 h at 13.6, keeps its
    checkpoint and ends at 57.6 h.
    """
    base = ([0.0, 13.6], [0, 1], [10.0, 0.0])
    more = ([0.0, 1.0, 13.6], [0, 1, 1], [10.0, 4.0, 0.0])
    assert _wall(_degraded_then_fatal(0), *base) == pytest.approx(63.6)
    assert _wall(_degraded_then_fatal(0), *more) == pytest.approx(57.6)
