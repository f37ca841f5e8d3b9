"""Failure behaviours of real fleets: fail-slow units, late-found corruption
with checkpoint retention, failures while the job is down, and planned maintenance.

The hand-worked cases use the one-tier job of ``test_engine_semantics``: W = 10, tau = 3,
delta = 0.5, R = 1 (hours): failure-free it computes [0,3), writes [3,3.5), ... and ends
at 11.5. Times are on the exposure clock, the wall clock until the first time down.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from relplan.analysis.results import SimulationResult
from relplan.config.loading import load_config
from relplan.errors import ConfigError
from relplan.sim import distributions
from relplan.sim.compiled import TRACE_COLUMNS, TraceBuffer
from relplan.sim.engine import TrialOutcomes, simulate, walk_trial
from relplan.sim.model import SimulationModel, build_model
from relplan.sim.trace import _expand
from relplan.vocab import BUCKETS
from tests.conftest import make_model

NEVER = distributions.exponential(1e9)
ONE_TIER = {"work": 10.0, "interval": 3.0, "write": 0.5, "restart": 1.0}


def _buckets(outcomes: TrialOutcomes) -> dict[str, float]:
    buckets = dict(zip(BUCKETS, outcomes.bucket_hours[0], strict=True))
    assert sum(buckets.values()) == pytest.approx(outcomes.wall_hours[0], rel=1e-12)
    assert min(buckets.values()) >= -1e-12
    return buckets


def _model(*modes: dict, **job_fields: object) -> SimulationModel:
    model = make_model(**ONE_TIER, modes=[{"units": 1, "lifetime": NEVER, **m} for m in modes])
    return replace(model, job=replace(model.job, **job_fields))


def _with(model: SimulationModel, index: int = 0, **fields: object) -> SimulationModel:
    modes = list(model.modes)
    modes[index] = replace(modes[index], **fields)
    return replace(model, modes=tuple(modes))


def _traced(model: SimulationModel, times: list[float], repairs: list[float]) -> TrialOutcomes:
    """Walk a hand-fed trial of mode 0 and check that its drawn timeline holds its buckets."""
    rows = np.full((1000, TRACE_COLUMNS), -1.0)
    outcomes = walk_trial(model, times, [0] * len(times), repairs,
                          TraceBuffer.for_trial(0, rows))  # fmt: skip
    intervals, _ = _expand(model, rows[rows[:, 2] >= 0])
    lengths = (intervals.end_hours - intervals.start_hours).groupby(intervals.bucket).sum()
    b = _buckets(outcomes)
    for bucket in ("rework", "detect", "waiting", "restart", "stall", "maintenance",
                   "degraded"):
        assert lengths.get(bucket, 0.0) == pytest.approx(b[bucket], abs=1e-9), bucket
    # a slowed stretch that survives shows its extra time as degraded, apart from the
    # work and writes it slowed
    kept = lengths.get("useful", 0.0) + lengths.get("checkpoint", 0.0)
    assert kept == pytest.approx(b["useful"] + b["checkpoint"], abs=1e-9)
    return outcomes


def _ratio_and_error(numerator: np.ndarray, denominator: np.ndarray) -> tuple[float, float]:
    """sum(x) / sum(n) over trials, with its standard error (delta method)."""
    ratio = numerator.sum() / denominator.sum()
    residual = numerator - ratio * denominator
    return float(ratio), float(math.sqrt((residual**2).sum()) / denominator.sum())


# -- 1. fail-slow units ------------------------------------------------------------------


def _slow(**fields: object) -> dict:
    return {"impact": "slow", "slowdown": (2.0,), "detect": 1.0, **fields}


def test_a_fail_slow_unit_evicted_at_once_by_hand() -> None:
    # Slow (x2) from 4.0, detected at 5.0: progress 3.5 -> 4.5, 0.5 h of it extra. The
    # eviction restarts from checkpoint 1 (3.5): the 1.5 h since are rework, slowed time
    # included; restart [5, 6), then 3.5 + 3.5 + 1 h of work: the job ends at 14.
    outcomes = _traced(_model(_slow()), [4.0], [0.0])
    b = _buckets(outcomes)
    assert outcomes.wall_hours[0] == pytest.approx(14.0)
    assert (b["rework"], b["degraded"], b["restart"]) == pytest.approx((1.5, 0.0, 1.0))
    assert outcomes.interruptions_by_mode[0, 0] == 1


def test_a_fail_slow_unit_evicted_at_the_next_checkpoint_by_hand() -> None:
    # Detected at 5.0 (progress 4.5), the job runs on slowed to checkpoint 2: 2 h of
    # compute at x2 (to 9.0), then the 0.5-h write at full speed (storage off the fabric):
    # evicted at 9.5 with nothing lost; restart [9.5, 10.5), then 3.5 + 1: ends at 15.
    # Degraded: (1 - 1/2)(detect + 2 x 2.0) = 2.5 h, the closed form's terms.
    outcomes = _traced(_with(_model(_slow()), evict_at_checkpoint=True), [4.0], [0.0])
    b = _buckets(outcomes)
    assert outcomes.wall_hours[0] == pytest.approx(15.0)
    assert (b["rework"], b["degraded"], b["restart"]) == pytest.approx((0.0, 2.5, 1.0))
    assert outcomes.interruptions_by_mode[0, 0] == 1


def test_fail_slow_degraded_hours_per_failure_match_the_closed_form() -> None:
    """evict = "at-checkpoint": (1 - 1/s)(detect + s tau / 2) degraded hours per failure."""
    s, detect, tau = 1.5, 0.5, 2.0
    model = make_model(work=4000.0, interval=tau, write=0.0, restart=0.0, modes=[
        {"units": 1, "lifetime": distributions.exponential(400.0), "impact": "slow",
         "slowdown": (s,), "detect": detect}])  # fmt: skip
    model = _with(model, evict_at_checkpoint=True)
    outcomes = simulate(model, 400, seed=1)
    degraded = outcomes.bucket_hours[:, BUCKETS.index("degraded")]
    ratio, error = _ratio_and_error(degraded, outcomes.failures_by_mode[:, 0].astype(float))
    exact = (1 - 1 / s) * (detect + s * tau / 2)
    # a failure while another unit waits for its eviction goes with it (about 0.5% of
    # them here), a little below the closed form: the tolerance allows 1%
    assert abs(ratio - exact) < 4 * error + 0.01 * exact
    assert np.all(outcomes.interruptions_by_mode[:, 0] <= outcomes.failures_by_mode[:, 0])


def test_fail_slow_defaults_and_keys() -> None:
    config = load_config("configs/small.toml", [
        'failures.straggler={unit="gpu", impact="slow", evict="at-checkpoint", '
        'lifetime={dist="exponential", mtbf="100y"}}'])  # fmt: skip
    slow = next(m for m in build_model(config).modes if m.name == "straggler")
    assert slow.impact == "slow" and slow.evict_at_checkpoint
    assert slow.slowdown_by_count == (1.25,) and slow.detect_hours == 1.0
    with pytest.raises(ConfigError) as error:
        load_config("configs/small.toml", ['failures.gpu.evict="later"'])
    assert error.value.key == "failures.gpu.evict"


# -- 3. late-found corruption --------------------------------------------------------------


def _corruption(**fields: object) -> dict:
    return {"impact": "corruption", "detect": 3.5, **fields}


def test_a_corruption_found_late_rolls_back_before_it_by_hand() -> None:
    # Corrupted at 4.0 (after checkpoint 1), found at 7.5 (checkpoint 2 at 7.0 is
    # poisoned): back to checkpoint 1, so 7.5 - 3.5 = 4 h are rework; restart [7.5, 8.5),
    # then 8 h of work: the job ends at 16.5.
    outcomes = _traced(_model(_corruption()), [4.0], [0.0])
    b = _buckets(outcomes)
    assert outcomes.wall_hours[0] == pytest.approx(16.5)
    assert (b["rework"], b["useful"], b["checkpoint"]) == pytest.approx((4.0, 10.0, 1.5))
    assert outcomes.interruptions_by_mode[0, 0] == 1 and not outcomes.corrupted_final[0]


def test_retention_decides_how_far_a_corruption_rolls_back_by_hand() -> None:
    # keep = 1 keeps only checkpoint 2: checkpoint 1 is gone, so the job starts over:
    # 7.5 h of rework, ending at 7.5 + 1 + 11.5 = 20; archiving every checkpoint keeps it.
    kept_one = _traced(_model(_corruption(), keep_checkpoints=1), [4.0], [0.0])
    assert _buckets(kept_one)["rework"] == pytest.approx(7.5)
    assert kept_one.wall_hours[0] == pytest.approx(20.0)
    archived = walk_trial(_model(_corruption(), keep_checkpoints=1, archive_every=1),
                          [4.0], [0], [0.0])  # fmt: skip
    assert _buckets(archived)["rework"] == pytest.approx(4.0)


def test_rework_per_corruption_is_detect_plus_half_a_segment() -> None:
    """With enough retention, a corruption costs what was written since the checkpoint
    before it (half a segment on average) plus the detection delay; too few retained
    checkpoints cost more."""
    tau, delta, detect = 2.0, 0.1, 3.0
    model = make_model(work=200.0, interval=tau, write=delta, restart=0.0, modes=[
        {"units": 1, "lifetime": distributions.exponential(100.0), "impact": "corruption",
         "detect": detect}])  # fmt: skip
    outcomes = simulate(model, 3000, seed=2)
    rework = outcomes.bucket_hours[:, BUCKETS.index("rework")]
    found = outcomes.interruptions_by_mode[:, 0].astype(float)
    ratio, error = _ratio_and_error(rework, found)
    assert abs(ratio - (detect + (tau + delta) / 2)) < 4 * error
    # keeping one checkpoint loses the one before the corruption: back to the start
    short = simulate(replace(model, job=replace(model.job, keep_checkpoints=1)), 3000, seed=2)
    short_ratio, short_error = _ratio_and_error(
        short.bucket_hours[:, BUCKETS.index("rework")],
        short.interruptions_by_mode[:, 0].astype(float),
    )  # fmt: skip
    assert short_ratio > ratio + 4 * (error + short_error)


def test_retention_reaches_back_exactly_keep_minus_one_cycles_by_hand() -> None:
    """keep = 2 durable checkpoints a cycle (3.5 h of running) apart reach back 3.5 h:
    the warning's bound (keep - 1) x (interval + write). A corruption at 6.95, during the
    write of checkpoint 2 (so checkpoint 2 holds it), needs checkpoint 1.

    Found 3.5 h later (10.45, before checkpoint 3 at 10.5 completes): checkpoints 2 and
    1 are retained, back to 1 (3.5): 6.95 h of rework, restart [10.45, 11.45), 8 h more:
    19.45 h. Found 3.6 h later (10.55): checkpoint 3 is written, 1 is gone: back to the
    start, 10.55 h of rework, restart, the whole 11.5 h: 23.05 h."""
    at_bound = walk_trial(_model(_corruption(detect=3.5), keep_checkpoints=2),
                          [6.95], [0], [0.0])  # fmt: skip
    assert at_bound.wall_hours[0] == pytest.approx(19.45)
    assert _buckets(at_bound)["rework"] == pytest.approx(6.95)
    past_bound = walk_trial(_model(_corruption(detect=3.6), keep_checkpoints=2),
                            [6.95], [0], [0.0])  # fmt: skip
    assert past_bound.wall_hours[0] == pytest.approx(23.05)
    assert _buckets(past_bound)["rework"] == pytest.approx(10.55)
    # the config check draws the same line (see tests/config/test_checkpoint_warnings.py)
    from relplan.config.checks import _retention_warnings

    config = load_config("configs/small.toml", ['job.checkpoint.interval="3h"',
                                                'job.checkpoint.write="30min"'])  # fmt: skip
    assert _retention_warnings(config, keep=2, detect=3.5) == []
    assert _retention_warnings(config, keep=2, detect=3.6)


def test_corruption_never_found_reaches_the_final_weights() -> None:
    """detect_probability = 0: P(a corruption in the run) = 1 - exp(-work / mtbf)."""
    model = make_model(work=100.0, interval=10.0, write=0.0, restart=0.0, modes=[
        {"units": 1, "lifetime": distributions.exponential(200.0), "impact": "corruption"}])
    model = _with(model, detect_probability=0.0)
    outcomes = simulate(model, 4000, seed=3)
    result = SimulationResult(model, outcomes, 3, "sdc").summary()
    exact = 1 - math.exp(-100.0 / 200.0)
    error = math.sqrt(exact * (1 - exact) / 4000)
    assert abs(result["p_corrupted_final"] - exact) < 4 * error
    assert np.allclose(outcomes.wall_hours, 100.0)  # nothing found, nothing lost


# -- 4. failures while the job is down ---------------------------------------------------------


def test_idle_failures_lengthen_a_run_with_long_waits() -> None:
    """No spares and 2-day repairs: with job.idle_failures the hardware also fails while
    the job waits, and those failures need repairs of their own."""
    model = make_model(work=500.0, interval=2.0, write=0.05, restart=0.1, modes=[
        {"units": 64, "lifetime": distributions.exponential(64 * 50.0),
         "repair": distributions.fixed(48.0)}])  # fmt: skip
    calm = simulate(model, 1000, seed=4)
    idle = simulate(replace(model, job=replace(model.job, idle_failures=True)), 1000, seed=4)
    difference = idle.wall_hours.mean() - calm.wall_hours.mean()
    error = math.sqrt(idle.wall_hours.var(ddof=1) / 1000 + calm.wall_hours.var(ddof=1) / 1000)
    assert difference > 4 * error
    # a 48-h wait finds a failed unit at the restart with q = 1 - exp(-48 / 50), which
    # waits 48 h more for its repair, and so on: 48 q / (1 - q) more per wait
    q = 1 - math.exp(-48.0 / 50.0)
    waits = calm.failures_by_mode[:, 0].mean()
    assert difference == pytest.approx(waits * 48.0 * q / (1 - q), rel=0.25)
    assert idle.failures_by_mode.sum() > calm.failures_by_mode.sum()


def _running_only_modes() -> list[dict]:
    """A crash per job (a software fault, 5 h to a fix), a fail-slow unit and a corruption,
    each waiting 20 h for its repair when it stops the job (no spares)."""
    return [
        {"lifetime": distributions.exponential(50.0), "repair": distributions.fixed(5.0)},
        {"lifetime": distributions.exponential(200.0), "repair": distributions.fixed(20.0),
         "impact": "slow", "slowdown": (1.5,), "detect": 1.0},
        {"lifetime": distributions.exponential(200.0), "repair": distributions.fixed(20.0),
         "impact": "corruption", "detect": 2.0},
    ]  # fmt: skip


def _idle_model(with_gpu: bool) -> SimulationModel:
    modes = _running_only_modes()
    if with_gpu:
        modes = [{"lifetime": distributions.exponential(100.0), "detect": 0.5,
                  "repair": distributions.fixed(20.0)}, *modes]  # fmt: skip
    model = make_model(work=200.0, interval=1.0, write=0.01, restart=0.1,
                       modes=[{"units": 1, **mode} for mode in modes])  # fmt: skip
    job_mode = len(modes) - 3
    model = _with(model, job_mode, unit="job")
    return replace(model, job=replace(model.job, idle_failures=True))


def test_only_hardware_fails_while_the_job_is_down() -> None:
    """With job.idle_failures only the GPU mode (1 unit, MTBF 100 h, 20-h repairs, no
    spares) fails while the job is down; the crash per job, the fail-slow unit and the
    corruption strike only a running job.

    An interruption of mode m is down d_m (its detection: 0.5 h for the GPU crash, none
    for an eviction or a corruption found) plus its wait r_m. A GPU failure in that time
    (probability 1 - exp(-d_m / 100)) is found at the restart and waits 20 h, during which
    another strikes with q = 1 - exp(-20 / 100), and so on: it adds 20 / (1 - q) =
    20 e^0.2 h. By Wald's identity the waiting per trial is sum_m N_m (r_m + (1 -
    exp(-(d_m + r_m) / 100)) 20 e^0.2) for the N_m interruptions of each mode: the mean
    of the difference is 0 within 4 standard errors. Were the other modes to fail idle
    (at 7 times the GPU's rate), each wait would bring far more."""
    model = _idle_model(with_gpu=True)
    outcomes = simulate(model, 4000, seed=12)
    down = np.array([0.5 + 20.0, 0.0 + 5.0, 0.0 + 20.0, 0.0 + 20.0])
    repair = np.array([20.0, 5.0, 20.0, 20.0])
    extra = 20.0 * math.exp(20.0 / 100.0)
    per_stop = repair + (1.0 - np.exp(-down / 100.0)) * extra
    expected = outcomes.interruptions_by_mode @ per_stop
    residual = outcomes.bucket_hours[:, BUCKETS.index("waiting")] - expected
    error = residual.std(ddof=1) / math.sqrt(residual.size)
    assert abs(residual.mean()) < 4 * error
    assert outcomes.interruptions_by_mode[:, 1:].sum(axis=0).min() > 1000  # they stopped it
    # the failures while down are the GPU's alone: the others count only where they stopped
    # the job or (fail-slow, corruption) struck it running
    assert outcomes.failures_by_mode[:, 0].sum() > outcomes.interruptions_by_mode[:, 0].sum()
    assert np.array_equal(outcomes.failures_by_mode[:, 1], outcomes.interruptions_by_mode[:, 1])


def test_idle_failures_do_nothing_without_a_mode_that_fails_idle() -> None:
    """Only modes that strike a running job: idle failures have nothing to draw, so the
    walk leaves them out and the numbers are those without them."""
    from relplan.sim.compiled import TrialState, WalkFeatures, compile_model

    model = _idle_model(with_gpu=False)
    compiled = compile_model(model)
    state = TrialState.at_start(1, len(model.modes), 0)
    assert not WalkFeatures.of(compiled.job, compiled.modes, state, TraceBuffer.off()).idle_failures
    idle = simulate(model, 500, seed=2)
    calm = simulate(replace(model, job=replace(model.job, idle_failures=False)), 500, seed=2)
    assert np.array_equal(idle.wall_hours, calm.wall_hours)
    assert np.array_equal(idle.failures_by_mode, calm.failures_by_mode)


def test_the_feasibility_guard_counts_only_modes_that_fail_idle() -> None:
    """The expected downtime's geometric series (relplan.sim.engine) leaves out a mode
    counted per job: one crash per job every 5 h with a 500-h fix gives waits of 500 h,
    not an endless series."""
    from relplan.sim.engine import expected_downtime_hours

    model = make_model(work=100.0, interval=2.0, write=0.05, restart=0.1, modes=[
        {"units": 1, "lifetime": distributions.exponential(5.0),
         "repair": distributions.fixed(500.0)}])  # fmt: skip
    model = replace(_with(model, unit="job"), job=replace(model.job, idle_failures=True))
    assert expected_downtime_hours(model) == (500.0, "mode0")
    hardware = _with(model, unit="gpu")
    assert expected_downtime_hours(hardware)[0] == math.inf


def test_idle_failures_are_off_by_default() -> None:
    assert build_model(load_config("configs/small.toml")).job.idle_failures is False
    assert build_model(load_config("configs/small.toml",
                                   ["job.idle_failures=true"])).job.idle_failures  # fmt: skip


# -- 5. planned maintenance -----------------------------------------------------------------


def test_maintenance_windows_checkpoint_first_by_hand() -> None:
    # Every 5 h for 2 h. At 5 the job runs on to checkpoint 2 (7.0), stops, 2 h of
    # maintenance [7, 9), restart [9, 10); the window of 10 waits for checkpoint 3
    # (13.5 wall): [13.5, 15.5); the window of 15 falls in it and runs alongside, [15,
    # 17): 1.5 h more; restart [17, 18); the last segment ends at 19, before the window
    # of 20.
    outcomes = _traced(_model({}, maintenance_every_hours=5.0, maintenance_hours=2.0), [], [])
    b = _buckets(outcomes)
    assert outcomes.wall_hours[0] == pytest.approx(19.0)
    assert outcomes.maintenances[0] == 3
    assert (b["maintenance"], b["restart"], b["rework"]) == pytest.approx((5.5, 2.0, 0.0))
    assert outcomes.interruptions_by_mode.sum() == 0


def test_maintenance_without_a_checkpoint_first_by_hand() -> None:
    # Every 10 h for 1 h, stopping at once: at 10 the job is 3 h into segment 3 (from
    # checkpoint 2 at 7.0): 3 h of rework, [10, 11) maintenance, [11, 12) restart, then
    # 3.5 + 1 h of work end the job at 16.5, before the next window (20).
    model = _model({}, maintenance_every_hours=10.0, maintenance_hours=1.0,
                   maintenance_checkpoint_first=False)  # fmt: skip
    b = _buckets(outcomes := _traced(model, [], []))
    assert outcomes.wall_hours[0] == pytest.approx(16.5)
    assert outcomes.maintenances[0] == 1
    assert (b["rework"], b["maintenance"], b["restart"]) == pytest.approx((3.0, 1.0, 1.0))


def test_the_maintenance_count_is_wall_over_every() -> None:
    model = make_model(work=400.0, interval=2.0, write=0.05, restart=0.2, modes=[
        {"units": 1, "lifetime": distributions.exponential(30.0)}])
    model = replace(model, job=replace(model.job, maintenance_every_hours=48.0,
                                       maintenance_hours=2.0))  # fmt: skip
    outcomes = simulate(model, 300, seed=5)
    expected = np.floor(outcomes.wall_hours / 48.0)
    # a window falling in the last segment (no checkpoint left) is not taken
    assert np.all((outcomes.maintenances == expected) | (outcomes.maintenances == expected - 1))
    assert outcomes.maintenances.mean() == pytest.approx((outcomes.wall_hours / 48.0).mean(),
                                                         abs=0.6)  # fmt: skip
    # counted apart from the unexpected interruptions
    assert outcomes.interruptions_by_mode.sum() == outcomes.failures_by_mode.sum()


def test_maintenance_keys() -> None:
    config = load_config("configs/small.toml", ['maintenance={every="7d", duration="2h"}'])
    job = build_model(config).job
    assert (job.maintenance_every_hours, job.maintenance_hours) == (168.0, 2.0)
    assert job.maintenance_checkpoint_first
    with pytest.raises(ConfigError) as error:
        load_config("configs/small.toml", ['maintenance={every="0h", duration="2h"}'])
    assert error.value.key == "maintenance.every"
