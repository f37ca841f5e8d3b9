"""``relplan replay``: a real history replayed against a checkpoint policy. Hand-built
histories whose buckets are known exactly, the mean over start times against its closed
form, the block bootstrap's interval covering a Poisson process's goodput at its stated
rate, the batch replay equal to the one-history replay, and the bad inputs, each refused
naming the key."""

from __future__ import annotations

import math
import tomllib
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from relplan.calibrate.incidents import incident_log
from relplan.calibrate.replay import (
    ReplayFailure,
    ReplayPolicy,
    bootstrap_histories,
    replay_batch,
    replay_failures,
    replay_history,
    replay_log,
    shifted_batch,
)
from relplan.config.loading import parse_config
from relplan.errors import ConfigError
from relplan.vocab import BUCKETS

POLICY = ReplayPolicy(interval_hours=1.0, write_hours=0.1, restart_hours=0.5)
CRASH = {"impact": "fatal", "detect_hours": 0.1}

CONFIG = parse_config(tomllib.loads("""\
name = "replay"

[cluster]
servers = 16
gpus_per_server = 8

[failures.gpu]
lifetime = { dist = "exponential", mtbf = "5y" }
repair = { dist = "fixed", mean = "4h" }
detect = "6min"

[failures.flap]
unit = "link"
lifetime = { dist = "exponential", mtbf = "50y" }
impact = "transient"
stall = "9s"              # under the transport's retry window: a stall

[failures.leaf]
lifetime = { dist = "exponential", afr = "5%" }
impact = "degraded"
slowdown = 1.1

[job]
gpus = 128
work = "30d"
restart = "30min"

[job.checkpoint]
interval = "1h"
write = "6min"

[simulation]
seed = 3
"""))
START = datetime(2024, 1, 1, tzinfo=UTC)


def at(hours: float) -> str:
    return (START + timedelta(hours=hours)).isoformat()


def buckets_of(failures: list[ReplayFailure], window: float = 20.0) -> dict[str, float]:
    outcome = replay_history(failures, window, POLICY)
    assert sum(outcome.bucket_hours.values()) == pytest.approx(window)
    return {name: hours for name, hours in outcome.bucket_hours.items() if hours}


def test_one_crash_loses_the_work_since_the_checkpoint_then_detect_and_restart() -> None:
    # segments of 1 h work + 0.1 h write; at 5.3 h: 4 segments done (4.4 h), 0.9 h of work
    # lost; down 0.1 + 0.5 h; from 5.9 h to 20 h: 12 segments (13.2 h) and 0.9 h of work
    got = buckets_of([ReplayFailure(5.3, **CRASH)])
    assert got == pytest.approx({"useful": 4.0 + 12.9, "checkpoint": 0.4 + 1.2, "rework": 0.9,
                                 "detect": 0.1, "restart": 0.5})  # fmt: skip


def test_a_crash_during_a_write_loses_the_segment_and_the_partial_write() -> None:
    got = buckets_of([ReplayFailure(1.05, **CRASH)])
    assert got["rework"] == pytest.approx(1.05)


def test_a_crash_during_the_restart_starts_it_again_and_one_during_detection_is_absorbed() -> None:
    # first crash at 5.3: detect to 5.4, restart to 5.9; the second at 5.8 restarts it
    restarted = replay_history([ReplayFailure(5.3, **CRASH), ReplayFailure(5.8, **CRASH)], 20.0,
                               POLICY)  # fmt: skip
    assert restarted.interruptions == 2
    assert restarted.bucket_hours["restart"] == pytest.approx(0.4 + 0.5)
    assert restarted.bucket_hours["detect"] == pytest.approx(0.2)
    assert restarted.bucket_hours["rework"] == pytest.approx(0.9)
    absorbed = replay_history([ReplayFailure(5.3, **CRASH), ReplayFailure(5.35, **CRASH)], 20.0,
                              POLICY)  # fmt: skip
    assert (absorbed.interruptions, absorbed.absorbed) == (1, 1)
    assert absorbed.bucket_hours["restart"] == pytest.approx(0.5)


def test_waiting_and_stalls_and_an_outage_past_the_end() -> None:
    got = buckets_of([
        ReplayFailure(2.2, "fatal", detect_hours=0.1, waiting_hours=1.4),
        ReplayFailure(10.0, "transient", stall_hours=0.05),
        ReplayFailure(19.8, **CRASH),  # detect 19.8-19.9, restart cut at 20
    ])  # fmt: skip
    assert got["waiting"] == pytest.approx(1.4)
    assert got["stall"] == pytest.approx(0.05)
    assert got["detect"] == pytest.approx(0.2)
    assert got["restart"] == pytest.approx(0.5 + 0.1)


def test_buckets_always_fill_the_window() -> None:
    rng = np.random.default_rng(4)
    for _ in range(50):
        offsets = np.sort(rng.uniform(0.0, 50.0, rng.integers(1, 30)))
        failures = [ReplayFailure(float(offset), rng.choice(["fatal", "transient"]),
                                  detect_hours=0.2, waiting_hours=float(rng.exponential(0.5)),
                                  stall_hours=0.1) for offset in offsets]  # fmt: skip
        outcome = replay_history(failures, 50.0, POLICY)
        assert sum(outcome.bucket_hours.values()) == pytest.approx(50.0)
        assert min(outcome.bucket_hours.values()) >= -1e-9


def test_the_bootstrap_mean_of_one_crash_matches_its_closed_form() -> None:
    # writes of no time, no detection: over uniform start times the crash falls uniformly
    # in a segment (rework uniform on [0, 1), mean 1/2) and the 0.5 h restart is cut off
    # when it falls within 0.5 h of the end: E[restart] = R - R^2 / (2 W)
    window, restart, samples = 100.0, 0.5, 4000
    result = replay_failures([ReplayFailure(37.0, "fatal")], window,
                             ReplayPolicy(1.0, 0.0, restart), samples=samples, seed=11)  # fmt: skip
    exact_lost = 0.5 + restart - restart**2 / (2 * window)
    standard_error = (1 / 12) ** 0.5 / samples**0.5  # the rework's spread dominates
    assert abs(result["lost_hours"]["mean"] - exact_lost) < 4 * standard_error
    assert result["goodput"]["mean"] == pytest.approx(1 - result["lost_hours"]["mean"] / window)
    # where the checkpoints fall: rework from 0 to 1 h on top of the restart
    low, high = result["lost_hours"]["phase_ci95"]
    assert low == pytest.approx(restart, abs=0.05) and high == pytest.approx(1.5, abs=0.05)
    # over histories: a third of them (blocks of a tenth of the window, each missing the
    # crash with 0.9: 0.9^10) hold no crash and lose nothing; others hold two or three
    low, high = result["lost_hours"]["ci95"]
    assert low == 0.0 and high > 2.0
    assert set(result["bucket_hours"]) == set(BUCKETS)


def poisson_goodput(rate: float, policy: ReplayPolicy) -> float:
    """The goodput of crashes at ``rate`` a hour (no detection, no waiting), by renewal
    reward: a cycle runs an exponential time ``X`` and keeps ``tau floor(X / (tau +
    delta))`` of work, then restarts until a restart of ``R`` goes through, ``(e^(rate R)
    - 1) / rate`` on average; so ``rate tau q / ((1 - q) e^(rate R))``, ``q = e^(-rate
    (tau + delta))``."""
    q = math.exp(-rate * (policy.interval_hours + policy.write_hours))
    return rate * policy.interval_hours * q / ((1.0 - q) * math.exp(rate * policy.restart_hours))


def test_the_history_interval_covers_a_poisson_goodput_at_its_stated_rate() -> None:
    # 200 logs of a Poisson process (a crash every 20 h, 2,000 h: about 100 crashes);
    # the 95% interval of each log's 250 bootstrap histories should hold the process's
    # goodput 95% of the time, within three binomial standard errors. (The window's end
    # adds at most half an interval of work, 0.0003 of goodput, to each log.)
    rate, window, logs = 1 / 20, 2000.0, 200
    policy = ReplayPolicy(1.0, 0.1, 0.5)
    truth = poisson_goodput(rate, policy)
    rng = np.random.default_rng(2024)
    covered = 0
    for log in range(logs):
        offsets = np.sort(rng.uniform(0.0, window, rng.poisson(rate * window)))
        failures = [ReplayFailure(float(offset), "fatal") for offset in offsets]
        _, histories = bootstrap_histories(failures, window, 250, seed=log)
        low, high = np.percentile(replay_batch(histories, window, policy).goodput, [2.5, 97.5])
        covered += low <= truth <= high
    tolerance = 3 * math.sqrt(0.95 * 0.05 / logs)
    assert abs(covered / logs - 0.95) < tolerance


def test_the_history_interval_is_wider_than_the_checkpoint_phase_one() -> None:
    rng = np.random.default_rng(5)
    window = 1500.0
    failures = [ReplayFailure(float(offset), "fatal", detect_hours=0.1)
                for offset in np.sort(rng.uniform(0.0, window, 75))]  # fmt: skip
    result = replay_failures(failures, window, POLICY, samples=400, seed=1)
    for measure in ("goodput", "lost_hours"):
        low, high = result[measure]["ci95"]
        phase_low, phase_high = result[measure]["phase_ci95"]
        assert high - low > 5 * (phase_high - phase_low)
        assert low <= result[measure]["mean"] <= high
    # the interruptions do not depend on the phase at all; over histories they vary
    phase_low, phase_high = result["interruptions"]["phase_ci95"]
    low, high = result["interruptions"]["ci95"]
    assert phase_low == phase_high == 75 and low < 75 < high


def test_the_batch_replay_is_the_one_history_replay_number_for_number() -> None:
    rng = np.random.default_rng(9)
    for _ in range(40):
        window = float(rng.uniform(20.0, 200.0))
        offsets = np.sort(rng.uniform(0.0, window, rng.integers(1, 30)))
        offsets[-1] = offsets[0]  # two simultaneous records
        offsets.sort()
        failures = [ReplayFailure(float(offset), str(rng.choice(["fatal", "transient"])),
                                  detect_hours=0.2, waiting_hours=float(rng.exponential(0.3)),
                                  stall_hours=0.1) for offset in offsets]  # fmt: skip
        starts = rng.uniform(0.0, window, 4)
        batch = replay_batch(shifted_batch(failures, window, starts), window, POLICY)
        for row, start in enumerate(starts):
            moved = sorted((ReplayFailure((failure.offset_hours - start) % window,
                                          failure.impact, failure.detect_hours,
                                          failure.waiting_hours, failure.stall_hours)
                            for failure in failures),
                           key=lambda failure: failure.offset_hours)  # fmt: skip
            one = replay_history(moved, window, POLICY)
            assert {bucket: batch.bucket_hours[bucket][row] for bucket in BUCKETS} == (
                one.bucket_hours
            )
            assert (batch.interruptions[row], batch.absorbed[row]) == (one.interruptions,
                                                                       one.absorbed)  # fmt: skip


def test_replay_log_takes_impacts_detection_restart_and_waiting_from_the_config() -> None:
    log = incident_log([at(5.3), at(10.0), at(12.0)], ["gpu", "flap", "leaf"],
                       downtime_hours=[2.0, None, None])  # fmt: skip
    report = replay_log(log, CONFIG, START, START + timedelta(hours=20), samples=10)
    assert report.log["replayed"] == {"fatal": 1, "transient": 1}
    assert report.log["not_replayed"] == {"leaf": 1}
    assert report.policy["restart_hours"] == pytest.approx(0.5)
    (interval,) = report.intervals
    assert interval["interval_hours"] == 1.0
    # from the window's start: the gpu crash at 5.3 h loses 0.9 h of work, then 0.1 h
    # detection, the log's 2 h downtime less detection and restart (1.4 h waiting), the
    # 0.5 h restart; back at 7.3 h. The flap at 10 h stalls 9 s (s). Writes: 4 before the
    # crash; 11 full ones after it (the last ends at 19.4 + s), the 12th not begun by 20 h
    stall = 9 / 3600
    useful = 4.0 + (20.0 - 7.3 - stall - 11 * 0.1)
    assert interval["lost_hours"]["at_window_start"] == pytest.approx(20.0 - useful)
    outcome = replay_history(
        [ReplayFailure(5.3, "fatal", 0.1, 1.4), ReplayFailure(10.0, "transient",
                                                            stall_hours=stall)],
        20.0, POLICY)  # fmt: skip
    assert outcome.bucket_hours["waiting"] == pytest.approx(1.4)
    assert outcome.bucket_hours["stall"] == pytest.approx(stall)
    assert any("not replayed" in warning for warning in report.warnings)


def test_several_intervals_are_replayed_on_the_same_start_times() -> None:
    log = incident_log([at(float(hour)) for hour in (3.3, 40.7, 77.1)], ["gpu"] * 3)
    report = replay_log(log, CONFIG, START, START + timedelta(hours=100),
                        intervals_hours=[0.5, 1.0, 4.0], samples=300)  # fmt: skip
    rework = [interval["bucket_hours"]["rework"] for interval in report.intervals]
    writes = [interval["bucket_hours"]["checkpoint"] for interval in report.intervals]
    assert rework[0] < rework[1] < rework[2]  # about 3 x tau / 2 each
    assert writes[0] > writes[1] > writes[2]
    assert report.policy["seed"] == 3  # the config's simulation.seed


@pytest.mark.parametrize(
    ("kwargs", "key"),
    [
        ({"end": START}, "--end"),
        ({"start": "last tuesday"}, "--start"),
        ({"start": START + timedelta(hours=30), "end": START + timedelta(hours=40)}, "LOG"),
        ({"intervals_hours": [0.0]}, "--interval"),
        ({"samples": 0}, "--samples"),
        ({"category_map": {"gpu": "gpus", "flap": "flap"}}, "--map"),
    ],
)
def test_bad_replay_inputs_name_the_key(kwargs: dict, key: str) -> None:
    log = incident_log([at(1.0), at(2.0)], ["gpu", "flap"])
    arguments = {"start": START, "end": START + timedelta(hours=20), **kwargs}
    with pytest.raises(ConfigError) as caught:
        replay_log(log, CONFIG, arguments.pop("start"), arguments.pop("end"), **arguments)
    assert caught.value.key == key


def test_an_unknown_category_is_named() -> None:
    log = incident_log([at(1.0)], ["XID 79"])
    with pytest.raises(ConfigError, match="XID 79") as caught:
        replay_log(log, CONFIG, START, START + timedelta(hours=20))
    assert caught.value.key == "category"
