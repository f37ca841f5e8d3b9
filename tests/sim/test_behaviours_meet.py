"""Behaviours where they meet: corruption lineage across crashes, corruptions
in the final weights, maintenance overlapping downtime, no failures during recovery, and
runs that must end (or be refused) rather than hang.

Where no closed form exists, the expected numbers come from an independent plain-Python
event loop of the same model written here (:func:`_reference_trial`).
"""

from __future__ import annotations

import itertools
import math
import random
from dataclasses import replace

import numpy as np
import pytest

from relplan.config.loading import load_config
from relplan.errors import ConfigError, InfeasibleJobError
from relplan.sim import distributions
from relplan.sim.compiled import compile_model
from relplan.sim.engine import check_feasible, simulate, walk_trial
from relplan.sim.model import SimulationModel, build_model
from relplan.vocab import BUCKETS
from tests.conftest import make_model

NEVER = distributions.exponential(1e9)


def _buckets(outcomes, trial: int = 0) -> dict[str, float]:
    buckets = dict(zip(BUCKETS, outcomes.bucket_hours[trial], strict=True))
    assert sum(buckets.values()) == pytest.approx(outcomes.wall_hours[trial], rel=1e-12)
    return buckets


# -- an independent reference: crashes and late-found corruptions, one tier --------------


def _reference_trial(rng: random.Random, work: float, tau: float, delta: float,
                     restart: float, crash_mtbf: float, corruption_mtbf: float,
                     detect: float) -> tuple[float, bool]:  # fmt: skip
    """Wall hours and whether the final weights hold a corruption, for a job with
    exponential crashes (found at once, no wait) and corruptions found ``detect`` hours
    of running later; a rollback to a checkpoint written before a pending corruption
    discards it; a second corruption while one is pending goes with it."""
    m = max(0, math.ceil(work / tau * (1 - 1e-12)) - 1)
    last = work - m * tau
    cycle = tau + delta
    t = 0.0
    committed = 0
    run_start = 0.0  # when the current run started computing (after its restart)
    pending: tuple[float, int] | None = None  # (found at, last checkpoint before it)
    next_crash = rng.expovariate(1 / crash_mtbf)
    next_corruption = rng.expovariate(1 / corruption_mtbf)
    while True:
        finish = run_start + (m - committed) * cycle + last
        found = pending[0] if pending is not None else math.inf
        t_next = min(next_crash, next_corruption, found, finish)
        if t_next == finish:
            return finish, pending is not None
        t = t_next
        running = t >= run_start
        done = min(int((t - run_start) // cycle), m - committed) if running else 0
        if t == next_corruption:
            next_corruption = t + rng.expovariate(1 / corruption_mtbf)
            if pending is None:
                pending = (t + detect, committed + done)
            continue
        committed += done
        if t == found:
            committed = min(committed, pending[1])
            pending = None
        else:
            next_crash = t + rng.expovariate(1 / crash_mtbf)
        if pending is not None and pending[1] >= committed:
            pending = None  # lineage: the corrupted work is rolled back
        run_start = t + restart


def _crash_and_corruption_model(work: float, tau: float, delta: float, restart: float,
                                crash_mtbf: float, corruption_mtbf: float,
                                detect: float) -> SimulationModel:  # fmt: skip
    model = make_model(work=work, interval=tau, write=delta, restart=restart, modes=[
        {"units": 1, "lifetime": distributions.exponential(crash_mtbf)},
        {"units": 1, "lifetime": distributions.exponential(corruption_mtbf),
         "impact": "corruption", "detect": detect},
    ])  # fmt: skip
    return model


def _mean_and_error(values: np.ndarray) -> tuple[float, float]:
    return float(values.mean()), float(values.std(ddof=1) / math.sqrt(values.size))


def test_a_crash_past_a_pending_corruption_discards_it_by_hand() -> None:
    """W = 10, tau = 3, delta = 0.5, R = 1. A corruption at 4.0 (after checkpoint 1 at
    3.5) is found 3.5 h later; a crash at 5.0 rolls back to checkpoint 1, written before
    it: the corruption is gone, never found. Then restart [5, 6), and from checkpoint 1
    two segments of 3.5 h and the last hour: 14 h, with 1.5 h of rework and no second
    rollback."""
    model = make_model(work=10.0, interval=3.0, write=0.5, restart=1.0, modes=[
        {"units": 1, "lifetime": NEVER},
        {"units": 1, "lifetime": NEVER, "impact": "corruption", "detect": 3.5},
    ])  # fmt: skip
    outcomes = walk_trial(model, [4.0, 5.0], [1, 0], [0.0, 0.0])
    b = _buckets(outcomes)
    assert outcomes.wall_hours[0] == pytest.approx(14.0)
    assert b["rework"] == pytest.approx(1.5)
    assert outcomes.interruptions_by_mode[0].tolist() == [1, 0]
    assert not outcomes.corrupted_final[0]


def test_a_crash_after_the_next_checkpoint_keeps_the_corruption_by_hand() -> None:
    """The same corruption at 4.0 and no crash: checkpoint 2 (7.0) holds it; it is found
    3.5 h of running later, at 7.5, and rolls back to checkpoint 1 (3.5)."""
    model = make_model(work=10.0, interval=3.0, write=0.5, restart=1.0, modes=[
        {"units": 1, "lifetime": NEVER},
        {"units": 1, "lifetime": NEVER, "impact": "corruption", "detect": 3.5},
    ])  # fmt: skip
    outcomes = walk_trial(model, [4.0], [1], [0.0])
    # found at 7.5: back to checkpoint 1 (3.5): 4 h rework; restart [7.5, 8.5); then
    # 8 h of work and writes: 16.5
    assert outcomes.wall_hours[0] == pytest.approx(16.5)
    assert _buckets(outcomes)["rework"] == pytest.approx(4.0)
    assert outcomes.interruptions_by_mode[0].tolist() == [0, 1]


def test_corruption_lineage_matches_an_independent_reference() -> None:
    """Crashes every 3 h, a corruption every 50 h found 10 h later, interval 4 h, 60 h
    of work (the reported probe): the mean wall time and the share of runs ending with
    corrupted weights agree with a plain event loop within 4 standard errors."""
    args = dict(work=60.0, tau=4.0, delta=0.1, restart=0.1, crash_mtbf=3.0,
                corruption_mtbf=50.0, detect=10.0)  # fmt: skip
    outcomes = simulate(_crash_and_corruption_model(**args), 4000, seed=11)
    rng = random.Random(7)
    walls, corrupted = zip(*(_reference_trial(rng, **args) for _ in range(4000)), strict=True)
    walls = np.array(walls)
    mean, error = _mean_and_error(outcomes.wall_hours)
    ref_mean, ref_error = _mean_and_error(walls)
    assert abs(mean - ref_mean) < 4 * math.hypot(error, ref_error)
    share, ref_share = outcomes.corrupted_final.mean(), np.mean(corrupted)
    share_error = math.sqrt(ref_share * (1 - ref_share) * 2 / 4000)
    assert abs(share - ref_share) < 4 * share_error


def test_p_corrupted_final_counts_corruptions_not_found_yet() -> None:
    """No crashes, a corruption every 400 h found 24 h later, a 100 h job with short
    checkpoints: a corruption in the last 24 h of running is still in the final weights.
    Found ones before that roll back and are redone; the reference loop says how often
    the run ends corrupted (about 6%: not 0)."""
    args = dict(work=100.0, tau=1.0, delta=0.01, restart=0.05, crash_mtbf=1e9,
                corruption_mtbf=400.0, detect=24.0)  # fmt: skip
    outcomes = simulate(_crash_and_corruption_model(**args), 4000, seed=3)
    rng = random.Random(5)
    corrupted = np.array([_reference_trial(rng, **args)[1] for _ in range(4000)])
    p = corrupted.mean()
    assert p > 0.03
    error = math.sqrt(p * (1 - p) * 2 / 4000)
    assert abs(outcomes.corrupted_final.mean() - p) < 4 * error


# -- maintenance overlapping downtime -----------------------------------------------------


def test_a_window_during_a_wait_runs_alongside_it_by_hand() -> None:
    """W = 10, tau = 3, delta = 0.5, R = 1; windows every 20 h for 2 h. A crash at 5.0
    waits 16 h for its repair [5, 21): the window of 20 runs [20, 22) alongside it and
    adds 1 h; restart [22, 23); 8 h more from checkpoint 1: 31 h."""
    model = make_model(work=10.0, interval=3.0, write=0.5, restart=1.0, modes=[
        {"units": 1, "lifetime": NEVER}])
    model = replace(model, job=replace(model.job, maintenance_every_hours=20.0,
                                       maintenance_hours=2.0))  # fmt: skip
    outcomes = walk_trial(model, [5.0], [0], [16.0])
    b = _buckets(outcomes)
    assert outcomes.wall_hours[0] == pytest.approx(31.0)
    assert outcomes.maintenances[0] == 1
    assert (b["waiting"], b["maintenance"], b["restart"]) == pytest.approx((16.0, 1.0, 1.0))


def test_a_pending_window_is_served_by_a_crash_by_hand() -> None:
    """Windows every 4 h for 2 h, checkpoint first. The window of 4 waits for checkpoint
    2 (7.0); a crash at 5.0 stops the job first: the window is served [5, 7), restart
    [7, 8). The window of 8 waits for checkpoint 2 (11.5): [11.5, 13.5), and the window
    of 12 runs alongside ([12, 14): 0.5 h more); restart [14, 15). The window of 16
    waits for checkpoint 3 (18.5): [18.5, 20.5), with the window of 20 ([20, 22): 1.5 h
    more); restart [22, 23), the last hour: 24 h, five windows, 8 h of them."""
    model = make_model(work=10.0, interval=3.0, write=0.5, restart=1.0, modes=[
        {"units": 1, "lifetime": NEVER}])
    model = replace(model, job=replace(model.job, maintenance_every_hours=4.0,
                                       maintenance_hours=2.0))  # fmt: skip
    outcomes = walk_trial(model, [5.0], [0], [0.0])
    b = _buckets(outcomes)
    assert outcomes.maintenances[0] == 5
    assert b["maintenance"] == pytest.approx(2.0 + 2.5 + 3.5)
    assert b["rework"] == pytest.approx(1.5)
    assert outcomes.wall_hours[0] == pytest.approx(24.0)


def test_the_maintenance_count_is_the_readmes_with_long_waits() -> None:
    """The README's statement: the count is floor(wall / every), one fewer when the last
    window falls in the last segment. With crashes, no spares and 30 h repairs, windows
    fall during the waits as well."""
    model = make_model(work=300.0, interval=2.0, write=0.05, restart=0.2, modes=[
        {"units": 1, "lifetime": distributions.exponential(40.0),
         "repair": distributions.fixed(30.0)}])  # fmt: skip
    model = replace(model, job=replace(model.job, maintenance_every_hours=24.0,
                                       maintenance_hours=3.0))  # fmt: skip
    outcomes = simulate(model, 400, seed=9)
    expected = np.floor(outcomes.wall_hours / 24.0)
    assert np.all((outcomes.maintenances == expected) | (outcomes.maintenances == expected - 1))


def _horizon_window_model(every: float, duration: float, horizon: float) -> SimulationModel:
    """W = 100 h (more than the calendar window holds), tau = 3, delta = 0.5, R = 1;
    windows every ``every`` hours for ``duration``; the calendar ends at ``horizon``."""
    model = make_model(work=100.0, interval=3.0, write=0.5, restart=1.0, modes=[
        {"units": 1, "lifetime": NEVER}])
    return replace(model, job=replace(model.job, maintenance_every_hours=every,
                                      maintenance_hours=duration, horizon_hours=horizon))


def test_a_window_at_the_calendar_end_is_not_counted_by_hand() -> None:
    """A crash at 40 waits 9 h for its repair (no spare); the calendar ends at 48, where
    the first window would start: it never comes. 11 checkpoints done (38.5 h): 33 h of
    work, 5.5 h of writes, 1.5 h of rework, and the wait [40, 48): 8 h."""
    outcomes = walk_trial(_horizon_window_model(48.0, 2.0, 48.0), [40.0], [0], [9.0])
    b = _buckets(outcomes)
    assert outcomes.wall_hours[0] == pytest.approx(48.0)
    assert outcomes.maintenances[0] == 0
    assert (b["useful"], b["checkpoint"], b["rework"]) == pytest.approx((33.0, 5.5, 1.5))
    assert (b["waiting"], b["maintenance"]) == pytest.approx((8.0, 0.0))


def test_a_window_reaching_past_the_calendar_end_books_nothing_before_it_by_hand() -> None:
    """The window of 46 [46, 50) falls in the wait [40, 49) and would reach 1 h beyond it:
    that hour comes last, after the calendar's end at 48, so the wait keeps [40, 48) and
    no maintenance is booked (an hour of it used to be, in [47, 48)); the window started
    before the end: it counts. With the end at 49.5 half of its reach is left, and the
    sample trial's timeline shows it after the wait, [49, 49.5)."""
    outcomes = walk_trial(_horizon_window_model(46.0, 4.0, 48.0), [40.0], [0], [9.0])
    b = _buckets(outcomes)
    assert outcomes.maintenances[0] == 1
    assert (b["waiting"], b["maintenance"]) == pytest.approx((8.0, 0.0))
    from relplan.sim.compiled import TRACE_COLUMNS, TRACE_MAINTENANCE, TRACE_WAIT, TraceBuffer

    rows = np.full((100, TRACE_COLUMNS), -1.0)
    later = walk_trial(_horizon_window_model(46.0, 4.0, 49.5), [40.0], [0], [9.0],
                       TraceBuffer.for_trial(0, rows))  # fmt: skip
    b = _buckets(later)
    assert later.wall_hours[0] == pytest.approx(49.5)
    assert (b["waiting"], b["maintenance"]) == pytest.approx((9.0, 0.5))
    spans = {code: rows[rows[:, 2] == code][:, :2].tolist()
             for code in (TRACE_WAIT, TRACE_MAINTENANCE)}  # fmt: skip
    assert spans[TRACE_WAIT] == [[40.0, 49.0]]
    assert [span for span in spans[TRACE_MAINTENANCE] if span[1] > span[0]] == [[49.0, 49.5]]


def test_windows_count_only_before_the_calendar_end() -> None:
    """A 14-day calendar, weekly 4-h windows, crashes waiting a day for their repairs (no
    spares): only the window of day 7 starts before the end, whatever the waits; one used
    to count the window of day 14 as well when a wait spanned it (275 of 2,000 trials)."""
    config = load_config("configs/small.toml", [
        'job.horizon="14d"', "job.spares=0",
        'failures.gpu.repair={dist="fixed", mean="24h"}',
        'failures.gpu.lifetime={dist="exponential", mtbf="1y"}',
        'maintenance={every="7d", duration="4h"}'])  # fmt: skip
    outcomes = simulate(build_model(config), 1000, seed=1)
    assert np.all(outcomes.maintenances == 1)
    assert outcomes.bucket_hours[:, BUCKETS.index("maintenance")].max() <= 4.0 + 1e-9
    assert np.allclose(outcomes.wall_hours, 14 * 24.0)


# -- a faster restart never hurts ------------------------------------------------------------


@pytest.mark.slow  # compiles the walk of the benchmarks' config with every feature
@pytest.mark.parametrize("retention", [[], ['failures.hbm.detect="4h"', "job.checkpoint.keep=5"]],
                         ids=["as benchmarked", "corruptions found 4 h later, 5 kept"])
def test_a_faster_restart_never_hurts_with_every_feature(retention: list[str]) -> None:
    """The benchmarks' config with every feature (benchmarks/features.py: a calendar
    window, maintenance, fail-slow hosts, corruptions, drains, idle failures, a spare
    pool, degradations), restarts of 5, 10 and 20 min on the same trials (common random
    numbers): each faster restart does at least as much work within the window, within 4
    standard errors of the paired difference. With corruptions found 4 h of running
    later, 5 retained checkpoints 1 h 1 min apart reach back 4.07 h: no warning, and none
    is lost. (Keeping 4, which reach back 3.05 h and are now warned about, loses about
    93% of them, and there a faster restart, which writes more checkpoints before a
    corruption is found, could do less.)"""
    from benchmarks.features import EVERY_FEATURE, FEATURE_CONFIG, variant_overrides
    from relplan.config.checks import config_warnings

    path = f"configs/{FEATURE_CONFIG}.toml"
    overrides = [*variant_overrides(EVERY_FEATURE), *retention]
    config = load_config(path, overrides)
    assert "job.checkpoint.keep" not in {w.key for w in config_warnings(config, 130.0)}
    useful = []
    for restart in ("5min", "10min", "20min"):
        model = build_model(load_config(path, [*overrides, f'job.restart="{restart}"']))
        outcomes = simulate(model, 2000, seed=5)
        assert np.allclose(outcomes.wall_hours, 30 * 24.0)  # the window: work done counts
        useful.append(outcomes.bucket_hours[:, BUCKETS.index("useful")])
    for faster, slower in itertools.pairwise(useful):
        gain = faster - slower
        assert gain.mean() > -4 * gain.std(ddof=1) / math.sqrt(gain.size)


# -- no failures during recovery -------------------------------------------------------------


def test_without_failures_during_recovery_the_restart_is_safe() -> None:
    """Daly's closed form with a restart that no failure interrupts: each failure costs
    M (e^{s/M} - 1) per segment plus R, i.e. the wall time is (M + R)(e^{s/M} - 1) per
    segment of s = tau + delta (the restart as a failure-free downtime)."""
    mtbf, tau, delta, restart, work = 5.0, 1.0, 0.1, 1.0, 50.0
    model = make_model(work=work, interval=tau, write=delta, restart=restart, modes=[
        {"units": 1, "lifetime": distributions.exponential(mtbf)}])
    safe = replace(model, job=replace(model.job, failures_during_recovery=False))
    outcomes = simulate(safe, 4000, seed=2)
    m = math.ceil(work / tau) - 1
    last = work - m * tau
    exact = (mtbf + restart) * (m * math.expm1((tau + delta) / mtbf) + math.expm1(last / mtbf))
    mean, error = _mean_and_error(outcomes.wall_hours)
    assert abs(mean - exact) < 4 * error
    b = outcomes.bucket_hours[:, BUCKETS.index("restart")]
    interruptions = outcomes.interruptions_by_mode.sum(axis=1)
    assert np.allclose(b, interruptions * restart)
    # by default a failure may strike during a restart: longer
    assert simulate(model, 4000, seed=2).wall_hours.mean() > mean + 4 * error


def test_failures_during_recovery_key() -> None:
    assert build_model(load_config("configs/small.toml")).job.failures_during_recovery
    config = load_config("configs/small.toml", ["job.failures_during_recovery=false"])
    assert not build_model(config).job.failures_during_recovery
    with pytest.raises(ConfigError) as error:
        load_config("configs/small.toml", ["job.failures_during_recovery=false",
                                           "job.idle_failures=true"])  # fmt: skip
    assert error.value.key == "job.idle_failures"


# -- runs that end, or are refused ------------------------------------------------------------


@pytest.mark.parametrize(("table", "key"), [
    ('maintenance={every="0.5s", duration="0s"}', "maintenance.every"),
    ('maintenance={every="1h", duration="0.5s"}', "maintenance.duration"),
])  # fmt: skip
def test_maintenance_shorter_than_a_second_is_refused(table: str, key: str) -> None:
    with pytest.raises(ConfigError) as error:
        load_config("configs/small.toml", [table])
    assert error.value.key == key


def test_long_repairs_with_no_spares_are_refused_naming_the_keys() -> None:
    """A 1e6 h repair and no spares: each interruption waits a million hours; the guard
    counts the waits and refuses, naming job.spares and the mode's repair."""
    config = load_config("configs/small.toml", ["job.spares=0", "failures.gpu.repair.mean=1e6h"])
    with pytest.raises(InfeasibleJobError, match=r"job\.spares.*failures\.gpu\.repair"):
        check_feasible(build_model(config))


def test_idle_failures_whose_waits_never_end_are_refused() -> None:
    """Waits longer than the hardware's time between failures, with idle failures: each
    wait brings another, the geometric series diverges."""
    model = make_model(work=100.0, interval=2.0, write=0.05, restart=0.1, modes=[
        {"units": 1, "lifetime": distributions.exponential(5.0),
         "repair": distributions.fixed(500.0)}])  # fmt: skip
    with pytest.raises(InfeasibleJobError, match=r"job\.idle_failures"):
        check_feasible(replace(model, job=replace(model.job, idle_failures=True)))


def test_a_runaway_idle_wait_stops_at_the_step_bound() -> None:
    """Past the guard (called directly), the walk itself stops a trial whose idle
    failures never end at the step bound, with an error, instead of hanging."""
    from relplan.sim.engine import simulate_block

    model = make_model(work=100.0, interval=2.0, write=0.05, restart=0.1, modes=[
        {"units": 1, "lifetime": distributions.exponential(5.0),
         "repair": distributions.fixed(500.0)}])  # fmt: skip
    model = replace(model, job=replace(model.job, idle_failures=True))
    with pytest.raises(InfeasibleJobError, match=r"failures and repairs"):
        simulate_block(model, 4, np.random.SeedSequence(0))


def test_many_concurrent_degradations_grow_the_room_instead_of_crashing() -> None:
    """A degraded mode failing every 2 h with 500 h repairs keeps about 250 degradations
    at once, far beyond the first room: the block is walked again with more, and the
    result is the same as with ample room from the start."""
    from relplan.sim import engine

    model = make_model(work=200.0, interval=2.0, write=0.05, restart=0.1, modes=[
        {"units": 1, "lifetime": distributions.exponential(2.0),
         "repair": distributions.fixed(500.0), "impact": "degraded",
         "slowdown": (1.001,)}])  # fmt: skip
    assert engine.degradation_slots(model) < 250 * 4
    grown = simulate(model, 50, seed=1)
    ample = engine._simulate_block_with_slots(model, 50, engine.block_seed(1, 0), 4096,
                                              1.2, compile_model(model), None)  # fmt: skip
    assert np.array_equal(grown.wall_hours, ample.wall_hours)


def test_cancelling_stops_a_walk_stuck_in_idle_failures_within_a_second(monkeypatch) -> None:
    """A runaway idle wait with no step bound (lifted here on purpose) still stops within
    a second of a cancel (what Ctrl-C sets): the idle-failure loop checks it."""
    import threading
    import time

    from relplan.sim import engine, timeline
    from relplan.sim.compiled import compile_model

    model = make_model(work=100.0, interval=2.0, write=0.05, restart=0.1, modes=[
        {"units": 1, "lifetime": distributions.exponential(5.0),
         "repair": distributions.fixed(500.0)}])  # fmt: skip
    model = replace(model, job=replace(model.job, idle_failures=True))
    compiled = compile_model(model)
    unbounded = replace(compiled, job=compiled.job._replace(max_events_per_trial=2**62))
    monkeypatch.setattr(engine, "compile_model", lambda *args: unbounded)
    timeline.allow_walks()
    timer = threading.Timer(0.5, timeline.cancel_walks)
    timer.start()
    started = time.monotonic()
    try:
        with pytest.raises(KeyboardInterrupt):
            engine.simulate_block(model, 2, np.random.SeedSequence(0))
    finally:
        timer.cancel()
        timeline.allow_walks()
    assert time.monotonic() - started < 1.5


# -- a second tier of spares -----------------------------------------------------------------


def test_a_second_spare_tier_swaps_after_its_delay_by_hand() -> None:
    """No warm spare, one in the pool with a 30-min swap. A crash at 5.0 (20 h repair)
    takes the pool's spare after 0.5 h; restart [5.5, 6.5). A crash 1 h into the run
    (exposure 7.0, wall 7.5) finds the pool's spare away until 25.5: it waits for its
    own repair [7.5, 27.5); restart [27.5, 28.5); 8 h from checkpoint 1: 36.5 h."""
    model = make_model(work=10.0, interval=3.0, write=0.5, restart=1.0, modes=[
        {"units": 1, "lifetime": NEVER, "uses_spares": True}])
    model = replace(model, job=replace(model.job, spare_pool=1, spare_pool_swap_hours=0.5))
    outcomes = walk_trial(model, [5.0, 7.0], [0, 0], [20.0, 20.0])
    b = _buckets(outcomes)
    assert outcomes.wall_hours[0] == pytest.approx(36.5)
    assert (b["waiting"], b["rework"]) == pytest.approx((20.5, 2.5))
    assert outcomes.spares_used[0] == 1
    # a warm spare first: swapped at once, the pool untouched
    warm = replace(model, job=replace(model.job, spares=1))
    assert _buckets(walk_trial(warm, [5.0], [0], [20.0]))["waiting"] == 0.0


def test_spare_pool_keys() -> None:
    job = build_model(load_config("configs/small.toml", [
        "job.spare_pool=200", 'job.spare_pool_swap="20min"'])).job  # fmt: skip
    assert (job.spare_pool, job.spare_pool_swap_hours) == (200, pytest.approx(1 / 3))
    with pytest.raises(ConfigError) as error:
        load_config("configs/small.toml", ["job.spare_pool=-1"])
    assert error.value.key == "job.spare_pool"


# -- retirement out of the fleet ----------------------------------------------------------------


def _removing_model(spares: int, retire_after: int = 1) -> SimulationModel:
    from relplan.sim.model import UnitHistory

    model = make_model(work=10.0, interval=3.0, write=0.5, restart=1.0, spares=spares, modes=[
        {"units": 1, "lifetime": NEVER, "uses_spares": True,
         "history": UnitHistory(retire_after=retire_after, retire_removes=True)}])
    return model


def test_a_removed_unit_takes_a_spare_for_good_by_hand() -> None:
    """One spare; every failure retires its unit out of the fleet. A crash at 5.0 takes
    the spare for good (no wait; restart [5, 6)); a crash 1 h into the run (7.0) finds
    none: the job stalls there, with checkpoint 1's 3 h of work done."""
    outcomes = walk_trial(_removing_model(1), [5.0, 7.0], [0, 0], [0.5, 0.5],
                          removes=[True, True])  # fmt: skip
    b = _buckets(outcomes)
    assert outcomes.depleted[0] and outcomes.wall_hours[0] == pytest.approx(7.0)
    assert (b["useful"], b["rework"], b["waiting"]) == pytest.approx((3.0, 2.5, 0.0))
    assert outcomes.spares_used[0] == 1
    # the same failures without removal: both swapped (the first spare back at 5.5)
    kept = walk_trial(_removing_model(1), [5.0, 7.0], [0, 0], [0.5, 0.5])
    assert not kept.depleted[0] and kept.wall_hours[0] == pytest.approx(16.0)


def test_the_share_of_runs_that_run_dry_is_poisson() -> None:
    """Every failure removes its unit; k spares; no rework to speak of (checkpoints every
    0.001 h, free) and no restart: a run stalls when it sees more than k failures in its
    W hours of work, P = P(Poisson(W / MTBF) > k)."""
    from relplan.sim.model import UnitHistory

    work, mtbf, spares, trials = 100.0, 50.0, 2, 4000
    model = make_model(work=work, interval=0.001, write=0.0, restart=0.0, spares=spares,
                       modes=[{"units": 1, "lifetime": distributions.exponential(mtbf),
                               "uses_spares": True,
                               "history": UnitHistory(retire_after=1, retire_removes=True)}])
    outcomes = simulate(model, trials, seed=6)
    mean = work / mtbf
    exact = 1.0 - sum(math.exp(-mean) * mean**k / math.factorial(k) for k in range(spares + 1))
    error = math.sqrt(exact * (1 - exact) / trials)
    assert abs(outcomes.depleted.mean() - exact) < 4 * error


def test_retire_remove_key() -> None:
    config = load_config("configs/small.toml", ["failures.gpu.retire_after=2",
                                                'failures.gpu.retire="remove"'])  # fmt: skip
    history = next(m.history for m in build_model(config).modes if m.name == "gpu")
    assert history.retire_removes and history.retire_after == 2
    with pytest.raises(ConfigError) as error:
        load_config("configs/small.toml", ['failures.gpu.retire="remove"'])
    assert error.value.key == "failures.gpu.retire"
