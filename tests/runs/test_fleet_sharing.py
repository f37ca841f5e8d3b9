"""What a fleet's jobs share, measured (issue 36): servers taken by jobs of higher
priority (``[fleet] preempt``), the shared pool's occupancy and the waits for a repair
crew, each against a continuous-time Markov chain solved by hand.

Two jobs of 16 servers, each server crashing every 2,000 h (exponential), repaired in
48 h on average (exponential), detection, restarts and writes free, over a calendar
window of 20,000 h: both jobs run the same wall time, and the shares of it are the
chain's stationary probabilities (each trial starts with the pool full: a transient of a
few repair times, well inside 4 SE).
"""

from __future__ import annotations

import numpy as np
import pytest
from typer.testing import CliRunner

from relplan.cli.app import app
from relplan.config.fleet_config import parse_fleet
from relplan.errors import ConfigError
from relplan.runs.fleet import run_fleet
from tests.conftest import REPO, z_score

NODES, NODE_MTBF, REPAIR, WINDOW = 16, 2000.0, 48.0, 20000.0  # servers, hours, hours, hours
JOB_RATE, REPAIR_RATE = NODES / NODE_MTBF, 1.0 / REPAIR


def _fleet(spares: int, crews: int | None = None, preempt: str = "never",
           priorities: tuple[int, int] = (1, 0)) -> dict:  # fmt: skip
    """Two jobs, ``high`` and ``low``, sharing ``spares`` spare servers."""
    job = {"gpus": NODES * 8, "horizon": f"{WINDOW}h", "restart": "0s",
           "checkpoint": {"interval": "1h", "write": "0s"}}
    document = {
        "cluster": {"servers": 2 * NODES + spares, "gpus_per_server": 8},
        "fleet": {"spares": spares, "preempt": preempt},
        "failures": {"host": {
            "lifetime": {"dist": "exponential", "mtbf": f"{NODE_MTBF}h"},
            "repair": {"dist": "exponential", "mean": f"{REPAIR}h"}, "detect": "0s"}},
        "jobs": [{"name": name, "priority": priority, **job}
                 for name, priority in zip(("high", "low"), priorities, strict=True)],
    }  # fmt: skip
    if crews is not None:
        document["repair"] = {"crews": crews}
    return document


def _stationary(states: list, rates) -> np.ndarray:
    """The stationary distribution of the chain on ``states`` whose moves out of a state
    are ``rates(state)``: (rate, next state) pairs."""
    index = {state: k for k, state in enumerate(states)}
    generator = np.zeros((len(states), len(states)))
    for state in states:
        for rate, target in rates(state):
            generator[index[state], index[target]] += rate
            generator[index[state], index[state]] -= rate
    system = np.vstack([generator.T, np.ones(len(states))])
    right = np.zeros(len(states) + 1)
    right[-1] = 1.0
    return np.linalg.lstsq(system, right, rcond=None)[0]


def _taking_chain(spares: int, preempt: bool) -> tuple[list, np.ndarray]:
    """Two jobs sharing ``spares``, a crew for every repair. The state is the spares away
    in repair and the jobs waiting, in the order they began to. A running job crashes at
    ``m lambda``: it takes a free spare if there is one; else, if it may, a server of
    the other job while that runs (which then waits in its place); else it waits.

    A job that waits claims the first back of the units in repair and its own (all
    ``spares`` of the pool are away): back at rate ``(spares + 1) mu``, the others later,
    so no spare comes back meanwhile. A job that begins to wait while the other does
    claims the first of its own unit and those later than the other's claim: its own at
    rate ``mu`` until the other's is back, then at ``(spares + 1) mu``."""
    queues = [(), ("high",), ("low",), ("high", "low"), ("low", "high")]
    states = [(away, ()) for away in range(spares)] + [(spares, queue) for queue in queues]
    claimed = (spares + 1) * REPAIR_RATE

    def rates(state):
        away, queue = state
        moves = []
        if not queue and away:
            moves.append((away * REPAIR_RATE, (away - 1, ())))
        if queue:
            moves.append((claimed, (away, queue[1:])))
        if len(queue) == 2:
            moves.append((REPAIR_RATE, (away, queue[:1])))
        for job in ("high", "low"):
            if job in queue:
                continue
            if away < spares:
                moves.append((JOB_RATE, (away + 1, ())))
            elif preempt and job == "high" and not queue:
                moves.append((JOB_RATE, (away, ("low",))))
            else:
                moves.append((JOB_RATE, (away, (*queue, job))))
        return moves

    return states, _stationary(states, rates)


def _share(states: list, stationary: np.ndarray, chosen) -> float:
    """The chain's share of time in the states ``chosen`` picks."""
    return float(sum(p for state, p in zip(states, stationary, strict=True) if chosen(state)))


def _waiting(result) -> np.ndarray:
    return result.column("waiting_hours") / result.column("wall_hours")


@pytest.mark.parametrize("spares", [0, 1])
def test_a_job_of_higher_priority_takes_servers_as_the_chain_says(spares: int) -> None:
    outcome = run_fleet(parse_fleet(_fleet(spares, preempt="lower-priority")), 300, 11)
    states, stationary = _taking_chain(spares, preempt=True)
    for job in ("high", "low"):
        exact = _share(states, stationary, lambda state, job=job: job in state[1])
        assert abs(z_score(_waiting(outcome.results[job]), exact)) < 4, job
    # the low job waits far more than with no taking, the high one far less
    plain_states, plain = _taking_chain(spares, preempt=False)
    high_plain = _share(plain_states, plain, lambda state: "high" in state[1])
    assert z_score(_waiting(outcome.results["high"]), high_plain) < -4
    taken = outcome.summary()["jobs"]["low"]["servers_taken"]["mean"]
    assert taken > 0 and outcome.summary()["jobs"]["high"]["servers_taken"]["mean"] == 0


def test_jobs_of_one_priority_or_no_policy_take_nothing() -> None:
    plain = run_fleet(parse_fleet(_fleet(1)), 60, 12)
    for document in (_fleet(1, preempt="lower-priority", priorities=(1, 1)),
                     _fleet(1, preempt="never")):  # fmt: skip
        outcome = run_fleet(parse_fleet(document), 60, 12)
        assert outcome.summary()["fleet"]["servers_taken"]["mean"] == 0
        for name, result in outcome.results.items():
            assert np.array_equal(result.column("goodput"), plain.results[name].column("goodput"))


def test_the_pools_occupancy_is_the_chains() -> None:
    # without taking, the chain above: the pool has u spares away
    outcome = run_fleet(parse_fleet(_fleet(2)), 300, 13)
    states, stationary = _taking_chain(2, preempt=False)
    time_at = outcome.shared.pool.time_at_hours
    shares = time_at / time_at.sum(axis=1, keepdims=True)
    for away in range(3):
        exact = _share(states, stationary, lambda state, away=away: state[0] == away)
        assert abs(z_score(shares[:, away], exact)) < 4, away
    assert np.allclose(time_at.sum(axis=1), WINDOW)  # every hour of the window, once
    pool = outcome.summary()["fleet"]["pool"]
    assert pool["empty_share"] == pytest.approx(shares[:, 2].mean(), rel=1e-9)
    frame = outcome.pool_frame()
    width = outcome.shared.pool.bin_hours  # days, or whole days for a long run
    assert width % 24 == 0 and frame["start_hours"].iloc[1] == width
    assert (frame["trials"] == 300).all() and frame["start_hours"].iloc[-1] < WINDOW
    # the bins' means, weighted by the hours of each, are the mean spares away
    assert np.average(frame["away_mean"], weights=np.minimum(
        width, WINDOW - frame["start_hours"])) == pytest.approx(pool["mean_away"], rel=1e-9)


def _crew_chain(spares: int, crews: int) -> tuple[float, float]:
    """Two jobs sharing ``spares`` and ``crews``: the units in repair ``n`` are a
    birth-death chain (as in test_fleet); the repairs waiting for a crew are ``n - c``
    beyond ``c``. Their mean count, and the repairs per hour."""
    births = [2 * JOB_RATE] * (spares + 1) + [JOB_RATE]
    weights = [1.0]
    for n in range(1, spares + 3):
        weights.append(weights[-1] * births[n - 1] / (min(n, crews) * REPAIR_RATE))
    probability = np.array(weights) / sum(weights)
    queued = sum(p * max(0, n - crews) for n, p in enumerate(probability))
    return queued, float(np.dot(probability[:-1], births))


def test_waits_for_a_crew_are_the_machine_repair_queues() -> None:
    outcome = run_fleet(parse_fleet(_fleet(1, crews=1)), 300, 14)
    queued, rate = _crew_chain(1, 1)
    waits = sum(outcome.shared.crew_wait_hours) / WINDOW  # repairs queued, on average
    assert abs(z_score(waits, queued)) < 4
    repairs = sum(outcome.shared.crew_repairs) / WINDOW
    assert abs(z_score(repairs, rate)) < 4
    queue = outcome.summary()["fleet"]["repair_queue"]
    assert queue["mean_wait_hours"] == pytest.approx(queued / rate, rel=0.1)


def test_a_bad_preempt_policy_names_its_key() -> None:
    with pytest.raises(ConfigError) as caught:
        parse_fleet(_fleet(1, preempt="sometimes"))
    assert caught.value.key == "fleet.preempt"
    result = CliRunner().invoke(app, ["validate", str(REPO / "configs" / "fleets" /
                                                     "fleet-pool.toml"),
                                      "--set", "fleet.preempt=always"])  # fmt: skip
    assert result.exit_code == 2 and "fleet.preempt" in result.output
    assert "Traceback" not in result.output
