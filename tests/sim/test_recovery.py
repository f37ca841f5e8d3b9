"""Recovery realism: restarts built from their parts, asynchronous checkpoints
that are durable only after their persist, per-step (in-process) recovery, and goodput
over a calendar window.

The hand-worked cases use the one-tier job of ``test_engine_semantics``: W = 10, tau = 3,
delta = 0.5, R = 1 (hours), so failure-free it computes [0,3), writes [3,3.5), ... and ends
at 11.5. Times are on the exposure clock, which is the wall clock until the first
detection or wait.
"""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from relplan.analysis.optimize import optimize_interval
from relplan.analysis.results import SimulationResult
from relplan.config.derived import init_scale, restart_parts
from relplan.config.loading import load_config, loads_config, parse_config, read_toml
from relplan.errors import ConfigError
from relplan.sim import distributions
from relplan.sim.closed_forms import segment_wall_hours
from relplan.sim.compiled import TRACE_COLUMNS, TraceBuffer
from relplan.sim.engine import TrialOutcomes, simulate, walk_trial
from relplan.sim.model import SimulationModel, build_model
from relplan.sim.trace import _expand
from relplan.vocab import BUCKETS, ML_GOODPUT_BADPUT
from tests.conftest import MINUTE, make_model

NEVER = distributions.exponential(1e9)
ONE_TIER = {"work": 10.0, "interval": 3.0, "write": 0.5, "restart": 1.0}


def _buckets(outcomes: TrialOutcomes) -> dict[str, float]:
    buckets = dict(zip(BUCKETS, outcomes.bucket_hours[0], strict=True))
    assert sum(buckets.values()) == pytest.approx(outcomes.wall_hours[0], rel=1e-12)
    return buckets


def _model(*modes: dict, **job_fields: object) -> SimulationModel:
    model = make_model(**ONE_TIER, modes=[{"units": 1, "lifetime": NEVER, **m} for m in modes])
    return replace(model, job=replace(model.job, **job_fields))


# -- 1. a restart built from its parts -------------------------------------------------


def test_restart_parts_add_up_by_hand() -> None:
    # Llama 3: 16,384 GPUs, a 5.67 TB checkpoint read back at 2 TB/s from the store, or
    # each GPU's 346 MB shard at 25 GB/s from a peer; a 2-min start-up measured at 1,024
    # GPUs grows as log2: 2 x 14 / 10 = 2.8 min.
    config = load_config("configs/llama3-16k.toml", [
        'job.restart={init="2min", init_scaling="log2", load="auto"}',
        'job.checkpoint.fast={interval="5min", write="1s", peer_bandwidth="25GB/s"}',
    ])  # fmt: skip
    parts = restart_parts(config)
    assert parts.init_hours == pytest.approx(2.8 * MINUTE)
    assert parts.durable_load_hours * 3600 == pytest.approx(5.67e12 / 2e12)
    assert parts.fast_load_hours * 3600 == pytest.approx(5.67e12 / 16384 / 25e9)
    assert parts.durable_hours == pytest.approx(parts.init_hours + parts.durable_load_hours)
    job = build_model(config).job
    assert job.restart_hours == pytest.approx(parts.durable_hours)
    assert job.fast_restart_hours == pytest.approx(parts.fast_hours)
    assert job.restart_init_hours == pytest.approx(parts.init_hours)
    # the scalings, and a single duration (all of it start-up)
    assert init_scale("none", 16384, 1024) == 1.0
    assert init_scale("linear", 4096, 1024) == 4.0
    single = restart_parts(load_config("configs/llama3-16k.toml"))
    assert (single.init_hours, single.durable_load_hours) == (pytest.approx(10 * MINUTE), 0.0)
    # a separate read bandwidth; a fixed load
    read = restart_parts(load_config("configs/llama3-16k.toml", [
        'job.restart={init="1min", load="auto"}', 'job.checkpoint.read_bandwidth="4TB/s"']))
    assert read.durable_load_hours * 3600 == pytest.approx(5.67e12 / 4e12)
    fixed = restart_parts(load_config("configs/small.toml",
                                      ['job.restart={init="1min", load="30s"}']))  # fmt: skip
    assert fixed.durable_hours == pytest.approx(1.5 * MINUTE)

@pytest.mark.parametrize(("scaling", "factor"), [
    ('"quadratic"', 16.0 ** 2),  # 16,384 GPUs = 16 x the 1,024 measured: 256x
    ("{ exponent = 1.5 }", 16.0 ** 1.5),  # 64x
    ("{ exponent = 0 }", 1.0),
    ('"linear"', 16.0),
])
def test_a_start_up_that_grows_as_a_power_of_the_job(scaling: str, factor: float) -> None:
    # SPARe (arXiv 2603.00357): restart latency grows quadratically or worse with scale. A
    # 30-s start-up measured at 1,024 GPUs, on Llama 3's 16,384.
    config = load_config("configs/llama3-16k.toml", [
        f'job.restart={{init="30s", init_scaling={scaling}, load="1min"}}'])
    parts = restart_parts(config)
    assert parts.init_hours * 3600 == pytest.approx(30 * factor)
    job = build_model(config).job
    assert job.restart_hours * 3600 == pytest.approx(30 * factor + 60)
    assert job.restart_init_hours == pytest.approx(parts.init_hours)
    # the config's text round-trips: the power law stays a table
    again = loads_config(config.to_toml())
    assert again.job.restart.init_scaling == config.job.restart.init_scaling


@pytest.mark.parametrize(("scaling", "message"), [
    ("{ exponent = -1 }", "job.restart.init_scaling.exponent: input should be greater"),
    ('"cubic"', "job.restart.init_scaling: input should be 'none', 'log2', 'linear' or"),
    ("{ power = 2 }", "job.restart.init_scaling.power: unknown key"),
])
def test_a_bad_start_up_scaling_names_its_key(scaling: str, message: str) -> None:
    with pytest.raises(ConfigError) as error:
        load_config("configs/small.toml", [f'job.restart={{init="1min", init_scaling={scaling}}}'])
    assert message in str(error.value)


def test_restart_parts_in_the_restart_bucket_by_hand() -> None:
    # A fatal failure at 4.0 (checkpoint 1 at 3.5 holds): rework 0.5, then the restart of
    # 0.25 init + 0.75 load over [4, 5); a second failure at 4.1, 0.1 into the restart
    # (all of it init), starts it again over [4.1, 5.1). Work from checkpoint 1: 3.5 + 3.5
    # + 1 = 8, so the job ends at 13.1.
    model = _model({}, restart_init_hours=0.25)
    outcomes = walk_trial(model, [4.0, 4.1], [0, 0], [0.0, 0.0])
    b = _buckets(outcomes)
    assert outcomes.wall_hours[0] == pytest.approx(13.1)
    assert b["restart"] == pytest.approx(1.1)
    assert outcomes.restart_init_hours[0] == pytest.approx(0.1 + 0.25)
    result = SimulationResult(model, outcomes, 0, "hand")
    parts = result.summary()["restart_parts"]
    assert parts["init"] + parts["load"] == pytest.approx(b["restart"])
    assert parts["load"] == pytest.approx(0.75)
    badput = result.summary()["badput_ml_goodput"]
    assert badput["program_startup"] == pytest.approx(0.35)
    assert badput["unproductive_checkpoint_restore_time"] == pytest.approx(0.75)
    assert badput["wasted_progress_from_disruption"] == pytest.approx(b["rework"])
    assert sum(badput.values()) == pytest.approx(outcomes.wall_hours[0] - b["useful"])


def test_a_fast_tier_rollback_restarts_faster_than_a_durable_one() -> None:
    # Two tiers: fast checkpoints every 1 h (0.05 h writes), every third durable (0.5 h).
    # Checkpoints end at job-time 1.05, 2.1, 3.6 (durable), 4.65, ... A failure at 5.0
    # finds fast checkpoint 4 (4.65): mode 0 keeps the fast tier and restarts from it in
    # 0.1 h; mode 1 takes it and rolls back to 3 (3.6), restarting from the store in 1 h.
    model = _model({}, {"loses_fast": True}, fast_interval_hours=1.0, fast_write_hours=0.05,
                   fast_restart_hours=0.1)  # fmt: skip
    kept = walk_trial(model, [5.0], [0], [0.0])
    lost = walk_trial(model, [5.0], [1], [0.0])
    assert _buckets(kept)["restart"] == pytest.approx(0.1)
    assert _buckets(lost)["restart"] == pytest.approx(1.0)
    # failure-free the job ends at 11.8: kept redoes 5.0 - 4.65, lost 5.0 - 3.6
    assert kept.wall_hours[0] == pytest.approx(11.8 + 0.35 + 0.1)
    assert lost.wall_hours[0] == pytest.approx(11.8 + 1.4 + 1.0)


# -- 2. honest asynchronous checkpoints --------------------------------------------------


def test_an_asynchronous_checkpoint_lost_in_its_persist_window_by_hand() -> None:
    # Checkpoint 1 blocks over [3, 3.5), then persists for 1 h: durable at 4.5.
    # A failure at 4.0 finds it still persisting: the job rolls back to the start, so all
    # 4 h are rework, and the job ends at 4 + 1 (restart) + 11.5 = 16.5.
    model = _model({}, persist_hours=1.0)
    b = _buckets(early := walk_trial(model, [4.0], [0], [0.0]))
    assert early.wall_hours[0] == pytest.approx(16.5)
    assert b["rework"] == pytest.approx(4.0)
    assert b["useful"] == pytest.approx(10.0)
    # At 5.0 the persist is over: only 5.0 - 3.5 is lost, as with a synchronous write.
    late = walk_trial(model, [5.0], [0], [0.0])
    synchronous = walk_trial(_model({}), [5.0], [0], [0.0])
    assert late.wall_hours[0] == pytest.approx(synchronous.wall_hours[0])
    assert _buckets(late)["rework"] == pytest.approx(1.5)
    # Two checkpoints in (3.5 and 7.0), a failure at 7.5: checkpoint 2 is still persisting
    # (until 8.0), checkpoint 1 is durable: rework 7.5 - 3.5 = 4.
    assert _buckets(walk_trial(model, [7.5], [0], [0.0]))["rework"] == pytest.approx(4.0)


def test_persist_keys_and_the_fast_write_apart() -> None:
    # blocking_fraction < 1 persists a whole write after the blocking part; the fast
    # tier's write is its own (blocking_fraction no longer scales it)
    config = load_config("configs/small.toml", [
        "job.checkpoint.blocking_fraction=0.1",
        'job.checkpoint.fast={interval="30min", write="10s"}',
    ])  # fmt: skip
    job = build_model(config).job
    assert job.write_hours == pytest.approx(0.1 * MINUTE)
    assert job.persist_hours == pytest.approx(MINUTE)
    assert job.fast_write_hours == pytest.approx(10 / 3600)
    assert build_model(load_config("configs/small.toml")).job.persist_hours == 0.0


def test_asynchronous_checkpoints_cost_goodput_by_monte_carlo() -> None:
    # the same blocking write, made durable a persist later: more rework, never less
    exp = distributions.exponential(20.0)
    base = make_model(work=200.0, interval=2.0, write=0.05, restart=0.1,
                      modes=[{"units": 1, "lifetime": exp}])  # fmt: skip
    slow = replace(base, job=replace(base.job, persist_hours=1.0))
    rework = BUCKETS.index("rework")
    fast_rework = simulate(base, 2000, seed=3).bucket_hours[:, rework]
    slow_rework = simulate(slow, 2000, seed=3).bucket_hours[:, rework]
    # a failure within 1 h of a checkpoint (P = 1 - exp(-1/20) per segment's first hour)
    # loses a whole segment more: about 2.05 h x (failures in a checkpoint's first hour)
    difference = slow_rework - fast_rework
    error = difference.std(ddof=1) / math.sqrt(difference.size)
    assert difference.mean() > 4 * error


# -- 3. per-step recovery ------------------------------------------------------------------


def _in_process(**fields: object) -> dict:
    return {"impact": "elastic", "stall": 0.05, "slowdown": (1.5,), **fields}


def test_per_step_recovery_redoes_the_interrupted_step_by_hand() -> None:
    # An absorbed failure at 2.0: a 0.05 h stall (detection + reconfigure), then the step
    # in progress (0.01 h) is redone; a hot spare takes the replica's place at once.
    model = _model(_in_process(uses_spares=True), spares=1)
    model = replace(model, modes=(replace(model.modes[0], rework_hours=0.01),))
    outcomes = walk_trial(model, [2.0], [0], [5.0])
    b = _buckets(outcomes)
    assert outcomes.wall_hours[0] == pytest.approx(11.5 + 0.05 + 0.01)
    assert b["rework"] == pytest.approx(0.01)
    assert b["stall"] == pytest.approx(0.05)
    assert outcomes.interruptions_by_mode.sum() == 0
    # Right after checkpoint 1 (3.5 + 0.004), less than a step is lost: the checkpoint
    # ends a step.
    early = walk_trial(model, [3.504], [0], [5.0])
    assert _buckets(early)["rework"] == pytest.approx(0.004)


def test_per_step_recovery_falls_back_to_a_restart_beyond_max_concurrent() -> None:
    # Without spares, the first failure drops a replica until its repair (5 h) ends; a
    # second one meanwhile is more than max_concurrent = 1 can absorb: a restart.
    model = _model(_in_process(survivable=1))
    model = replace(model, modes=(replace(model.modes[0], rework_hours=0.01),))
    outcomes = walk_trial(model, [2.0, 4.0], [0, 0], [5.0, 5.0])
    assert outcomes.interruptions_by_mode[0, 0] == 1
    assert _buckets(outcomes)["restart"] == pytest.approx(1.0)


def test_per_step_recovery_loses_at_most_one_step_per_absorbed_failure() -> None:
    config = load_config("configs/small.toml", [
        'job.recovery="in-process"', 'job.step="20s"', "job.spares=4",
        'job.in_process={reconfigure="30s", max_concurrent=2}',
    ])  # fmt: skip
    model = build_model(config)
    absorbed = [i for i, m in enumerate(model.modes) if m.impact == "elastic"]
    assert absorbed and all(model.modes[i].rework_hours == pytest.approx(20 / 3600)
                            for i in absorbed)  # fmt: skip
    assert all(model.modes[i].survivable_count == 2 for i in absorbed)
    outcomes = simulate(model, 400, seed=5)
    rework = outcomes.bucket_hours[:, BUCKETS.index("rework")]
    absorbed_count = outcomes.failures_by_mode[:, absorbed].sum(axis=1) - (
        outcomes.interruptions_by_mode[:, absorbed].sum(axis=1))
    # a restart (a fatal mode, or one failure too many) adds rework of its own: take the
    # trials that had none
    calm = outcomes.interruptions_by_mode.sum(axis=1) == 0
    assert calm.any() and absorbed_count[calm].sum() > 0
    assert np.all(rework[calm] <= absorbed_count[calm] * 20 / 3600 + 1e-9)
    assert rework[calm].sum() > 0.5 * absorbed_count[calm].sum() * 20 / 3600


def test_in_process_without_a_step_is_one_clear_error() -> None:
    with pytest.raises(ConfigError) as error:  # AIReSim's config: no [workload], no job.step
        load_config("configs/airesim-default.toml", ['job.recovery="in-process"'])
    assert error.value.key == "job.step"


# -- 4. a calendar window ------------------------------------------------------------------


def test_horizon_goodput_agrees_with_daly_case_a() -> None:
    """Daly's case A: M = 24 h, tau = 116.7 min, delta = 5 min, R = 10 min: a long window's
    goodput agrees with 500 / 547.88 (the renewal-reward ratio of a checkpoint segment)."""
    tau, delta, restart = 116.7 * MINUTE, 5 * MINUTE, 10 * MINUTE
    model = make_model(work=500.0, interval=tau, write=delta, restart=restart,
                       modes=[{"units": 1, "lifetime": distributions.exponential(24.0)}])
    horizon = 40_000.0
    model = replace(model, job=replace(model.job, work_hours=horizon, horizon_hours=horizon))
    outcomes = simulate(model, 400, seed=11)
    assert np.allclose(outcomes.wall_hours, horizon)
    goodput = outcomes.bucket_hours[:, BUCKETS.index("useful")] / horizon
    exact = tau / segment_wall_hours(tau + delta, 24.0, restart)
    assert exact == pytest.approx(500 / 547.88, abs=2e-4)
    error = goodput.std(ddof=1) / math.sqrt(goodput.size)
    assert abs(goodput.mean() - exact) < 4 * error


def test_horizon_stops_every_bucket_at_the_window_by_hand() -> None:
    # A 6-h window: a failure at 4.0 (rework 0.5), detection 0.5 and a 2-h repair wait
    # bring the wall clock to 6.5 > 6: the window ends 1.5 h into the wait.
    model = _model({"detect": 0.5}, horizon_hours=6.0)
    b = _buckets(outcomes := walk_trial(model, [4.0], [0], [2.0]))
    assert outcomes.wall_hours[0] == 6.0
    assert (b["useful"], b["checkpoint"], b["rework"]) == pytest.approx((3.0, 0.5, 0.5))
    assert (b["detect"], b["waiting"]) == pytest.approx((0.5, 1.5))
    # No failure: 6 h = 3 + 0.5 of checkpoint 1, then 2.5 h of compute counted as done.
    b = _buckets(walk_trial(model, [], [], []))
    assert (b["useful"], b["checkpoint"]) == pytest.approx((5.5, 0.5))
    # Stopped inside a write: at 3.2 the job is 0.2 h into checkpoint 1's write.
    b = _buckets(walk_trial(_model({}, horizon_hours=3.2), [], [], []))
    assert (b["useful"], b["checkpoint"]) == pytest.approx((3.0, 0.2))
    # Stopped during the restart after a failure at 4.0 (restart [4, 5)): 0.6 h of it.
    b = _buckets(walk_trial(_model({}, horizon_hours=4.6), [4.0], [0], [0.0]))
    assert b["restart"] == pytest.approx(0.6)


def test_horizon_from_the_config_and_the_summary() -> None:
    config = load_config("configs/small.toml", ["job.horizon=14d"])
    assert config.job.work is None and config.job.horizon == 14 * 24
    model = build_model(config)
    result = SimulationResult(model, simulate(model, 200, seed=2), 2, "small")
    summary = result.summary()
    assert summary["horizon_hours"] == 14 * 24 and summary["work_hours"] is None
    frame = result.trials_frame()
    assert np.allclose(frame["goodput"], frame["work_done_hours"] / (14 * 24))
    assert summary["work_done_hours"]["mean"] < 14 * 24
    # --set of one of the two drops the other; a file with both is one clear error
    assert load_config("configs/small.toml", ["job.horizon=14d", "job.work=3d"]).job.work == 72
    document = read_toml("configs/small.toml", "CONFIG")
    document["job"]["horizon"] = "14d"
    with pytest.raises(ConfigError, match=r"exactly one of job\.work, job\.steps, job\.tokens "
                       r"and job\.horizon, not job\.steps and job\.horizon") as error:
        parse_config(document)
    assert error.value.key == "job.horizon"


def _per_step_model() -> SimulationModel:
    model = _model(_in_process(uses_spares=True), spares=1)
    return replace(model, modes=(replace(model.modes[0], rework_hours=0.01),))


@pytest.mark.parametrize(("model", "times", "repairs"), [
    (_per_step_model(), [2.0], [5.0]),
    (_model({"detect": 0.5}, horizon_hours=6.0), [4.0], [2.0]),
    (_model({}, horizon_hours=3.2), [], []),
    (_model({}, horizon_hours=4.6), [4.0], [0.0]),
    (_model({}, persist_hours=1.0), [7.5], [0.0]),
    (_model({}, restart_init_hours=0.25), [4.0, 4.1], [0.0, 0.0]),
])  # fmt: skip
def test_the_timeline_shows_the_buckets(model: SimulationModel, times: list[float],
                                        repairs: list[float]) -> None:  # fmt: skip
    """The drawn timeline of each hand-worked case holds the hours of its buckets."""
    rows = np.full((1000, TRACE_COLUMNS), -1.0)
    outcomes = walk_trial(model, times, [0] * len(times), repairs,
                          TraceBuffer.for_trial(0, rows))  # fmt: skip
    intervals, _ = _expand(model, rows[rows[:, 2] >= 0])
    lengths = (intervals.end_hours - intervals.start_hours).groupby(intervals.bucket).sum()
    for bucket, hours in _buckets(outcomes).items():
        assert lengths.get(bucket, 0.0) == pytest.approx(hours, abs=1e-9), bucket


def test_the_optimiser_works_over_a_window() -> None:
    """Over a calendar window the optimiser maximises goodput (work done / window): Daly's
    case of M = 24 h and delta = 5 min has its optimum near 117 min either way."""
    model = make_model(work=500.0, interval=1.0, write=5 * MINUTE, restart=10 * MINUTE,
                       modes=[{"units": 1, "lifetime": distributions.exponential(24.0)}])
    window = replace(model, job=replace(model.job, work_hours=5000.0, horizon_hours=5000.0))
    result = optimize_interval(window, trials=300, seed=4)
    low, high = result.mc_optimal_ci95
    assert low <= result.exact_hours <= high
    # the curve's goodput is the work done over the window at each interval
    at_daly = simulate(window.with_interval(result.daly_hours), 300, seed=4)
    done = at_daly.bucket_hours[:, BUCKETS.index("useful")]
    assert result.goodput_at["daly"] == pytest.approx(float(np.mean(done / 5000.0)))


@pytest.mark.slow
def test_simulate_horizon_on_the_command_line(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from relplan.cli.app import app

    output = CliRunner().invoke(app, ["simulate", "configs/small.toml", "--trials", "50",
                                      "--horizon", "7d", "--json",
                                      "--out", str(tmp_path / "window")])  # fmt: skip
    assert output.exit_code == 0, output.output
    report = (tmp_path / "window" / "report.md").read_text()
    assert "168.0-h calendar window" in report and "work done on average" in report
    assert (tmp_path / "window" / "timeline-median-trial.png").stat().st_size > 0
    summary = json.loads(output.stdout)
    assert summary["horizon_hours"] == 168 and summary["wall_hours"]["mean"] == 168
    assert summary["goodput"]["mean"] == pytest.approx(
        summary["work_done_hours"]["mean"] / 168)
    assert set(summary["badput_ml_goodput"]) == set(ML_GOODPUT_BADPUT)
    bad = CliRunner().invoke(app, ["simulate", "configs/small.toml", "--horizon", "week"])
    assert bad.exit_code == 2 and "--horizon" in bad.output
