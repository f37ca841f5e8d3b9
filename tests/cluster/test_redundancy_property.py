"""On the same failure stream, more redundancy never lowers goodput (a property over designs).

Each example draws a random design (servers per leaf, spines, LACP members, dual-ToR, a
workload or none) and a random stream of failures of the modes every design shares, then
walks the stream through the design and through the same design with more redundancy: a
spine more, a fabric LACP member more, a server LACP member more, or dual-ToR. The wall
time of the more redundant design is never longer.

Where redundancy turns a crash into degraded running (server links and leaves), the
comparison is made without hot spares: a crash then waits for the repair, while the
degraded job keeps running. With hot spares and fast restarts, running degraded for a
long repair can cost more than restarting elsewhere, and relplan has no drain policy (see
the README's validity envelope).
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from relplan.config.loading import parse_config
from relplan.sim.engine import walk_trial
from relplan.sim.model import SimulationModel, build_model
from tests.conftest import MINIMAL_RAW

FAILURES: dict[str, Any] = {
    "gpu": {"lifetime": {"dist": "exponential", "mtbf": "5y"},
            "repair": {"dist": "fixed", "mean": "4h"}},
    "link": {"lifetime": {"dist": "exponential", "mtbf": "50y"},
             "repair": {"dist": "fixed", "mean": "4h"}},
    "leaf": {"lifetime": {"dist": "exponential", "mtbf": "20y"},
             "repair": {"dist": "fixed", "mean": "8h"}},
    "spine": {"lifetime": {"dist": "exponential", "mtbf": "10y"},
              "repair": {"dist": "fixed", "mean": "8h"}},
}
WORKLOAD = {"parameters": 70e9, "tokens_per_step": 4e6, "hidden_size": 8192, "layers": 80,
            "step_compute": "6s", "overlap": {"data": 0.3},
            "parallelism": {"tensor": 8, "pipeline": 4}}
MORE = ("spines", "fabric_members", "server_members", "dual_tor")


def _design(servers_per_leaf: int, spines: int, fabric_members: int, server_members: int,
            dual_tor: bool, workload: bool, adaptive: bool) -> dict[str, Any]:
    raw = copy.deepcopy(MINIMAL_RAW)
    raw["job"]["gpus"] = 256
    raw["failures"] = copy.deepcopy(FAILURES)
    uplinks = servers_per_leaf * 8 * server_members  # 1:1 leaves
    raw["network"] = {
        "servers_per_leaf": servers_per_leaf,
        "uplinks_per_leaf": uplinks * fabric_members,
        "spines": spines,
        "fabric_lacp": {"members": fabric_members, "min_links": 1},
        "server_lacp": {"members": server_members, "min_links": 1},
        "dual_tor": dual_tor,
        "load_balancing": "adaptive" if adaptive else "ecmp",
    }
    if workload:
        raw["workload"] = copy.deepcopy(WORKLOAD)
    return raw


def _more_redundant(raw: dict[str, Any], what: str) -> dict[str, Any]:
    more = copy.deepcopy(raw)
    network = more["network"]
    if what == "spines":
        network["spines"] += 1
    elif what == "fabric_members":
        members = network["fabric_lacp"]["members"]
        network["uplinks_per_leaf"] = network["uplinks_per_leaf"] // members * (members + 1)
        network["fabric_lacp"]["members"] = members + 1
    elif what == "server_members":
        # the leaf stays 1:1: its uplinks grow with the server links
        members = network["server_lacp"]["members"]
        network["uplinks_per_leaf"] = network["uplinks_per_leaf"] // members * (members + 1)
        network["server_lacp"]["members"] = members + 1
    else:
        network["dual_tor"] = True
    return more


def _wall(model: SimulationModel, stream: list[tuple[float, str, float]]) -> float:
    index = {mode.name: i for i, mode in enumerate(model.modes)}
    events = [(t, index[name], repair) for t, name, repair in stream if name in index]
    times = [t for t, _, _ in events]
    outcome = walk_trial(model, times, [m for _, m, _ in events], [r for _, _, r in events])
    return float(outcome.wall_hours[0])


@pytest.mark.slow  # a property test of many walks (about 12 s)
@settings(max_examples=300, deadline=None)
@given(
    servers_per_leaf=st.sampled_from([2, 4]),
    spines=st.integers(min_value=2, max_value=8),
    fabric_members=st.integers(min_value=1, max_value=3),
    server_members=st.integers(min_value=1, max_value=2),
    dual_tor=st.booleans(),
    workload=st.booleans(),
    what=st.sampled_from(MORE),
    gaps=st.lists(st.floats(min_value=0.05, max_value=60.0), min_size=1, max_size=25),
    names=st.lists(st.sampled_from(["gpu", "link", "link.fabric", "leaf", "spine"]),
                   min_size=25, max_size=25),
    repairs=st.lists(st.floats(min_value=0.0, max_value=24.0), min_size=25, max_size=25),
)
def test_more_redundancy_never_lowers_goodput_on_the_same_stream(
    servers_per_leaf, spines, fabric_members, server_members, dual_tor, workload, what,
    gaps, names, repairs,
) -> None:  # fmt: skip
    # Adaptive routing where the comparison adds paths: under static ECMP hashing, more
    # but thinner paths can collide more for a few large flows (a real effect).
    adaptive = what in ("spines", "fabric_members", "server_members")
    raw = _design(servers_per_leaf, spines, fabric_members, server_members, dual_tor,
                  workload, adaptive)  # fmt: skip
    less = build_model(parse_config(raw))
    more = build_model(parse_config(_more_redundant(raw, what)))
    times = np.cumsum(gaps)
    stream = list(zip(times.tolist(), names, repairs, strict=False))
    assert _wall(more, stream) <= _wall(less, stream) * (1 + 1e-9)


def test_the_comparison_sees_redundancy_pay() -> None:
    """A hand-picked stream: a leaf dies 10 h in and takes 8 h to replace. Single-homed, the
    job waits for it; dual-homed, it runs on at half a NIC per server: strictly faster."""
    raw = _design(4, 4, 1, 1, False, True, True)
    less = build_model(parse_config(raw))
    more = build_model(parse_config(_more_redundant(raw, "dual_tor")))
    stream = [(10.0, "leaf", 8.0)]
    assert _wall(more, stream) < _wall(less, stream) - 7.0
    spine_stream = [(10.0, "spine", 8.0), (11.0, "spine", 8.0)]
    fewer = build_model(parse_config(_design(4, 2, 1, 1, False, True, True)))
    extra = build_model(parse_config(_design(4, 3, 1, 1, False, True, True)))
    assert _wall(extra, spine_stream) <= _wall(fewer, spine_stream)
