"""A job's spare pool as a finite-source machine-repair queue: the share of wall time a
job waits for a repair, against Erlang's loss formula.

One job of ``m`` servers with ``s`` spares, each server failing at rate ``lambda``
(exponential), each failed one repaired in a time of mean ``1 / mu`` with no limit on
repairs at once, detection, restart and writes free, and no failure while the job waits:
the servers in repair are a birth-death process on ``0 .. s + 1`` with birth rate
``m lambda`` up to ``s`` and death rate ``n mu``, a truncated Poisson distribution.
The job waits in state ``s + 1``, so the share of its wall time spent waiting is Erlang
B(s + 1, m lambda / mu), whatever the repair's distribution (M/G/c/c).

With ``c`` repair crews (``[repair] crews``) the death rate is ``min(n, c) mu``: the
machine-repair model of a finite source (exponential repairs, first come, first served),
and the share of time waiting is its probability of state ``s + 1``.

The scenario is 12-gpu-goodput-mtbi's baseline (``scenarios/01-baseline.json``): 128
nodes, 4 spares, node MTBF 3,000 h of which 70% of faults take the node down, repairs
of 48 h on average; that tool reports 1.2% of the time waiting for nodes, Erlang B gives
1.21%.
"""

from __future__ import annotations

import numpy as np
import pytest

from relplan.config.loading import parse_config
from relplan.sim.closed_forms import erlang_loss
from relplan.sim.engine import simulate
from relplan.sim.model import build_model
from relplan.vocab import BUCKETS
from tests.conftest import assert_validate_refuses, z_score

NODES, REPAIR_HOURS = 128, 48.0
NODE_DOWN_MTBF_HOURS = 3000.0 / 0.7  # 70% of a node's faults take it down


def _job(spares: int, repair: dict, work: str = "4000h", crews: int | None = None) -> object:
    return parse_config({
        "cluster": {"servers": NODES + spares, "gpus_per_server": 8},
        "job": {"gpus": NODES * 8, "work": work, "restart": "0s", "spares": spares,
                "checkpoint": {"interval": "1h", "write": "0s"}},
        "failures": {"host": {
            "lifetime": {"dist": "exponential", "mtbf": f"{NODE_DOWN_MTBF_HOURS}h"},
            "repair": repair, "detect": "0s"}},
        **({"repair": {"crews": crews}} if crews is not None else {}),
    })  # fmt: skip


@pytest.mark.parametrize("spares", [0, 1, 4])
@pytest.mark.parametrize("repair", [
    {"dist": "exponential", "mean": f"{REPAIR_HOURS}h"},
    {"dist": "lognormal", "mean": f"{REPAIR_HOURS}h", "sigma": 1.0},
])  # fmt: skip
def test_the_share_of_time_waiting_for_spares_is_erlangs_loss(spares: int, repair: dict) -> None:
    outcomes = simulate(build_model(_job(spares, repair)), 400, 3)
    waiting = outcomes.bucket_hours[:, BUCKETS.index("waiting")] / outcomes.wall_hours
    offered = NODES / NODE_DOWN_MTBF_HOURS * REPAIR_HOURS
    # each trial starts with every spare home: a transient of a few repair times in
    # 4,000 h and more, well inside the standard error here
    assert abs(z_score(waiting, erlang_loss(spares + 1, offered))) < 4
    if spares == 4:
        assert erlang_loss(spares + 1, offered) == pytest.approx(0.0121, abs=5e-5)


def _waiting_with_crews(spares: int, crews: int) -> float:
    """The machine-repair model's probability that all ``spares`` and one more server are
    in repair with ``crews`` crews: a birth-death chain, by hand."""
    failure_rate, repair_rate = NODES / NODE_DOWN_MTBF_HOURS, 1.0 / REPAIR_HOURS
    weights = [1.0]
    for n in range(1, spares + 2):
        weights.append(weights[-1] * failure_rate / (min(n, crews) * repair_rate))
    return weights[-1] / sum(weights)


EXPONENTIAL_REPAIR = {"dist": "exponential", "mean": f"{REPAIR_HOURS}h"}


@pytest.mark.parametrize(("spares", "crews"), [(4, 1), (4, 2), (1, 1)])
def test_repairs_that_wait_for_a_crew_are_the_machine_repair_queue(spares: int,
                                                                   crews: int) -> None:
    # 20,000 h of work: every trial starts with its spares home and its crews idle, a
    # transient of a few hundred hours that biases the share low by well under 4 SE
    config = _job(spares, EXPONENTIAL_REPAIR, "20000h", crews)
    outcomes = simulate(build_model(config), 400, 4)
    waiting = outcomes.bucket_hours[:, BUCKETS.index("waiting")] / outcomes.wall_hours
    assert abs(z_score(waiting, _waiting_with_crews(spares, crews))) < 4
    # the crews bind: the job waits measurably more than with a crew for every repair
    unlimited = erlang_loss(spares + 1, NODES / NODE_DOWN_MTBF_HOURS * REPAIR_HOURS)
    assert z_score(waiting, unlimited) > 4


def test_crews_that_are_never_all_busy_change_no_number() -> None:
    # at most spares + 1 servers are ever in repair: that many crews never queue one
    plain = simulate(build_model(_job(4, EXPONENTIAL_REPAIR)), 200, 5)
    crews = simulate(build_model(_job(4, EXPONENTIAL_REPAIR, crews=5)), 200, 5)
    assert np.array_equal(plain.wall_hours, crews.wall_hours)
    assert np.array_equal(plain.bucket_hours, crews.bucket_hours)


@pytest.mark.parametrize(("keys", "key"), [
    (["repair.crews=0"], "repair.crews"),
    (["repair.crews=2", "job.idle_failures=true"], "repair.crews"),
])  # fmt: skip
def test_bad_crews_name_their_key(keys: list[str], key: str) -> None:
    assert_validate_refuses(keys, key)
