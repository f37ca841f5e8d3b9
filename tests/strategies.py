"""Hypothesis strategies over the config schema (``relplan/config/schema.py``).

:func:`valid_configs` draws raw TOML documents (plain dicts, as :func:`tomllib.loads`
gives them) that the schema and the consistency checks accept and that simulate in a
fraction of a second: the minimal config (``tests/conftest.py``) with its cluster
and job sizes, checkpoint interval and write (or size and bandwidth, asynchronous),
restart (one duration or its parts), spares, failure modes (exponential, Weibull and
lognormal lifetimes; fixed and exponential repairs; impacts auto, degraded or transient),
network redundancy (spines, LACP members, dual-ToR), recovery (checkpoint-restart, elastic
or in-process), a fast tier and a ``[workload]`` or none
varied. Every failure mode is given by its ``mtbf``, so scaling rates is dividing it.
"""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import strategies as st

from tests.conftest import MINIMAL_RAW

DIST_KEYS = ("mtbf", "mean", "afr", "scale", "shape", "median", "sigma")

# Per-unit MTBF ranges (years) and the units per server of each mode, chosen so that a
# job of 2-32 servers sees a few to a few dozen failures in a run of days: fast examples.
MODES: dict[str, dict[str, Any]] = {
    "gpu": {"years": (1.0, 8.0)},
    "host": {"years": (2.0, 15.0)},
    "nic": {"years": (2.0, 20.0)},
    "link": {"years": (5.0, 60.0)},
    "optic": {"years": (5.0, 60.0)},
    "leaf": {"years": (2.0, 30.0)},
    "spine": {"years": (2.0, 30.0)},
    "software": {"years": (0.005, 0.05), "unit": "job"},
}
WORKLOAD: dict[str, Any] = {
    "parameters": 7e9,
    "tokens_per_step": 1e6,
    "hidden_size": 4096,
    "layers": 32,
    "step_compute": "4s",
    "overlap": {"data": 0.5},
}


def _hours(value: float) -> str:
    return f"{value:.6g}h"


@st.composite
def lifetimes(draw: st.DrawFn, years: tuple[float, float]) -> dict[str, Any]:
    """A lifetime table: exponential, Weibull or lognormal with an ``mtbf``."""
    mtbf = _hours(draw(st.floats(*years)) * 8766.0)
    dist = draw(st.sampled_from(["exponential", "weibull", "lognormal"]))
    if dist == "weibull":
        return {"dist": dist, "shape": draw(st.floats(0.6, 2.0)), "mtbf": mtbf}
    if dist == "lognormal":
        return {"dist": dist, "sigma": draw(st.floats(0.3, 1.5)), "mtbf": mtbf}
    return {"dist": dist, "mtbf": mtbf}


@st.composite
def repairs(draw: st.DrawFn) -> dict[str, Any]:
    """A repair table: fixed (zero allowed) or exponential, up to 12 h."""
    mean = draw(st.floats(0.0, 12.0))
    if mean > 0.05 and draw(st.booleans()):
        return {"dist": "exponential", "mean": _hours(mean)}
    return {"dist": "fixed", "mean": _hours(mean)}


@st.composite
def failure_modes(draw: st.DrawFn) -> dict[str, Any]:
    """One to four ``[failures.NAME]`` tables: impacts from the redundancy (auto), or
    degraded with a slowdown, or transient with a stall and a slow spell."""
    names = draw(st.lists(st.sampled_from(sorted(MODES)), min_size=1, max_size=4, unique=True))
    modes: dict[str, Any] = {}
    for name in names:
        spec = MODES[name]
        mode: dict[str, Any] = {
            "lifetime": draw(lifetimes(spec["years"])),
            "repair": draw(repairs()),
            "detect": _hours(draw(st.floats(0.0, 0.1))),
        }
        if "unit" in spec:
            mode["unit"] = spec["unit"]
        if draw(st.booleans()):
            mode["start"] = "new"
        impact = draw(st.sampled_from(["auto", "auto", "degraded", "transient"]))
        if impact == "degraded":  # runs on slowed until repaired, whatever the redundancy
            mode["impact"] = "degraded"
            mode["slowdown"] = draw(st.floats(1.0, 3.0))
        elif impact == "transient":  # a flap: a short stall, perhaps a slow spell after it
            mode["impact"] = "transient"
            mode["stall"] = _hours(draw(st.floats(0.0, 0.005)))
            if draw(st.booleans()):
                mode["soft_slowdown"] = draw(st.floats(1.0, 2.0))
                mode["soft_duration"] = _hours(draw(st.floats(0.0, 1.0)))
        modes[name] = mode
    return modes


@st.composite
def valid_configs(draw: st.DrawFn, workload: bool | None = None) -> dict[str, Any]:
    """A raw config document that loads and simulates quickly.

    Parameters
    ----------
    workload : bool, optional
        Whether to add a ``[workload]``; drawn when None.
    """
    raw = copy.deepcopy(MINIMAL_RAW)
    gpus_per_server = draw(st.sampled_from([4, 8]))
    job_servers = draw(st.integers(2, 32))
    spares = draw(st.integers(0, 3))
    servers = job_servers + spares + draw(st.integers(0, 8))
    raw["cluster"] = {"servers": servers, "gpus_per_server": gpus_per_server}
    fast_per_durable = draw(st.integers(1, 4))
    fast_interval = draw(st.integers(2, 90))  # minutes: the durable interval is a multiple
    job: dict[str, Any] = {
        "gpus": job_servers * gpus_per_server,
        "work": _hours(draw(st.floats(24.0, 240.0))),
        "restart": _hours(draw(st.floats(0.0, 0.5))),
        "spares": spares,
        "checkpoint": {
            "interval": f"{fast_interval * fast_per_durable}min",
            "write": _hours(draw(st.floats(0.0, 0.1))),
        },
    }
    if draw(st.integers(0, 3)) == 0:  # the write from its size and the storage bandwidth
        del job["checkpoint"]["write"]
        job["checkpoint"]["size"] = f"{draw(st.floats(0.1, 20.0)):.4g}TB"
        job["checkpoint"]["bandwidth"] = f"{draw(st.floats(5.0, 2000.0)):.4g}GB/s"
        job["checkpoint"]["blocking_fraction"] = draw(st.floats(0.05, 1.0))
    if draw(st.integers(0, 4)) == 0:
        job["checkpoint"]["fast"] = {
            "interval": f"{fast_interval}min",
            "write": _hours(draw(st.floats(0.0, 0.01))),
            "survives": draw(st.sampled_from(["peer", "none"])),
        }
    recovery = draw(st.integers(0, 7))
    if recovery == 0:
        job["recovery"] = "elastic"
        job["elastic"] = {"data_parallel": job_servers}
    elif recovery == 1:  # per-step: a server's failure redoes one step
        job["recovery"] = "in-process"
        job["step"] = _hours(draw(st.floats(0.0005, 0.01)))
        job["in_process"] = {"data_parallel": job_servers,
                             "max_concurrent": draw(st.integers(1, 2))}  # fmt: skip
    if draw(st.integers(0, 3)) == 0:  # the restart from its parts
        job["restart"] = {
            "init": _hours(draw(st.floats(0.0, 0.3))),
            "init_scaling": draw(st.sampled_from(
                ["none", "log2", "linear", "quadratic", {"exponent": 0.5}])),
            "reference_gpus": draw(st.sampled_from([8, 64, 1024])),
            "load": _hours(draw(st.floats(0.0, 0.2))),
        }
    raw["job"] = job
    raw["failures"] = draw(failure_modes())

    server_members = draw(st.integers(1, 2))
    fabric_members = draw(st.integers(1, 3))
    servers_per_leaf = draw(st.sampled_from([1, 2, 4]))
    nic_links = servers_per_leaf * gpus_per_server * server_members
    raw["network"] = {
        "servers_per_leaf": servers_per_leaf,
        "uplinks_per_leaf": nic_links * fabric_members,  # 1:1 leaves
        "spines": draw(st.integers(1, 8)),
        "dual_tor": draw(st.booleans()),
        "server_lacp": {"members": server_members, "min_links": 1},
        "fabric_lacp": {"members": fabric_members, "min_links": 1},
        "load_balancing": draw(st.sampled_from(["ecmp", "adaptive"])),
    }
    if workload if workload is not None else draw(st.booleans()):
        raw["workload"] = copy.deepcopy(WORKLOAD)
        raw["workload"]["parallelism"] = {"tensor": gpus_per_server}
    return raw


def set_key(raw: dict[str, Any], dotted: str, value: Any) -> dict[str, Any]:
    """A copy of ``raw`` with the dotted key set (tables created as needed)."""
    document = copy.deepcopy(raw)
    *parents, last = dotted.split(".")
    table = document
    for part in parents:
        table = table.setdefault(part, {})
    table[last] = value
    return document


def scale_rates(raw: dict[str, Any], factor: float) -> dict[str, Any]:
    """A copy of ``raw`` whose every failure mode fails ``factor`` times as often."""
    document = copy.deepcopy(raw)
    for mode in document["failures"].values():
        hours = float(mode["lifetime"]["mtbf"].removesuffix("h"))
        mode["lifetime"]["mtbf"] = _hours(hours / factor)
    return document
