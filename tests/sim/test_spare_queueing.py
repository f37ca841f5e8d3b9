"""A job's spare pool as a finite-source machine-repair queue: the share of wall time a
job waits for a repair, against Erlang's loss formula.

One job of ``m`` servers with ``s`` spares, each server failing at rate ``lambda``
(exponential), each failed one repaired in a time of mean ``1 / mu`` with no limit on
repairs at once, detection, restart and writes free, and no failure while the job waits:
the servers in repair are a birth-death process on ``0 .. s + 1`` with birth rate
``m lambda`` up to ``s`` and death rate ``n mu``, a truncated Poisson distribution.
The job waits in state ``s + 1``, so the share of its wall time spent waiting is Erlang
B(s + 1, m lambda / mu), whatever the repair's distribution (M/G/c/c).

The scenario is 12-gpu-goodput-mtbi's baseline (``scenarios/01-baseline.json``): 128
nodes, 4 spares, node MTBF 3,000 h of which 70% of faults take the node down, repairs
of 48 h on average; that tool reports 1.2% of the time waiting for nodes, Erlang B gives
1.21%.
"""

from __future__ import annotations

import pytest

from relplan.config.loading import parse_config
from relplan.sim.closed_forms import erlang_loss
from relplan.sim.engine import simulate
from relplan.sim.model import build_model
from relplan.vocab import BUCKETS
from tests.conftest import z_score

NODES, REPAIR_HOURS = 128, 48.0
NODE_DOWN_MTBF_HOURS = 3000.0 / 0.7  # 70% of a node's faults take it down


def _job(spares: int, repair: dict) -> object:
    return parse_config({
        "cluster": {"servers": NODES + spares, "gpus_per_server": 8},
        "job": {"gpus": NODES * 8, "work": "4000h", "restart": "0s", "spares": spares,
                "checkpoint": {"interval": "1h", "write": "0s"}},
        "failures": {"host": {
            "lifetime": {"dist": "exponential", "mtbf": f"{NODE_DOWN_MTBF_HOURS}h"},
            "repair": repair, "detect": "0s"}},
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
