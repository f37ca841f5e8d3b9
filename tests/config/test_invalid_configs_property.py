"""Random invalid configs always exit 2 with one line naming the key.

Each example draws a valid config (``tests/strategies.py``) and breaks it once: a value of
the wrong TOML type; a negative, zero, NaN, infinite or too large number; a duration
without a unit or with a bad one ("5 parsecs"); a bad lifetime table (unknown family,
missing or extra parameters, a shape or sigma whose mean overflows); an unknown key; a
missing required key; or keys that contradict each other. ``relplan validate`` and
``relplan simulate --trials 2`` must both exit with code 2 and print exactly one line,
``error: KEY: message``, naming the broken key (the table it sits in, or a key inside a
table that was replaced), on stderr, and no traceback.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from relplan.cli.app import app
from relplan.config.toml_text import toml_document
from tests.conftest import MINIMAL_RAW
from tests.strategies import set_key, valid_configs

runner = CliRunner()
NAN, INF = float("nan"), float("inf")

WRONG_TYPES = [True, [], {}, [1, 2], {"a": 1}]
BAD_DURATIONS = [
    "-5h", "5 parsecs", "5", 5, 5.5, "", "h", "5m", "nanh", "infh", "1e10y", "1e400h",
    NAN, INF, -INF, *WRONG_TYPES,
]  # fmt: skip
BAD_COUNTS = [-1, -(10**30), 2.5, 8.0, "8", "many", NAN, INF, *WRONG_TYPES]
BAD_FRACTIONS = [1.5, -0.1, "150%", "5 parsecs", "abc", NAN, INF, -INF, *WRONG_TYPES]
BAD_BOOLEANS = ["yes", "true", 1, 0, 1.0, [], {}]
BAD_CHOICES = ["torus", "", 5, True, [], {}]
BAD_LIFETIMES = [
    {"dist": "weibull", "mtbf": "5y"},
    {"dist": "lognormal", "mtbf": "5y"},
    {"dist": "exponential", "mtbf": "5y", "shape": 2.0},
    {"dist": "exponential"},
    {"dist": "exponential", "mtbf": "5y", "afr": 0.1},
    {"dist": "exponential", "afr": 1.5},
    {"dist": "exponential", "afr": 0},
    {"dist": "exponential", "afr": "5 parsecs"},
    {"dist": "weibull", "shape": 0, "mtbf": "5y"},
    {"dist": "weibull", "shape": -1.0, "mtbf": "5y"},
    {"dist": "weibull", "shape": 1e-300, "mtbf": "5y"},
    {"dist": "weibull", "shape": 1e-3, "scale": "5y"},
    {"dist": "weibull", "shape": INF, "mtbf": "5y"},
    {"dist": "weibull", "shape": True, "mtbf": "5y"},
    {"dist": "weibull", "shape": "0.7", "mtbf": "5y"},
    {"dist": "lognormal", "sigma": 50.0, "mtbf": "5y"},
    {"dist": "lognormal", "sigma": NAN, "median": "5y"},
    {"dist": "lognormal", "sigma": 1.0, "median": "-5y"},
    {"dist": "fixed", "mtbf": "5y"},
    {"mtbf": "5y"},
    {"dist": "gamma", "mtbf": "5y"},
    {"dist": "exponential", "mtbf": "1e10y"},
    "5y", 5, [],
]  # fmt: skip


def _mode(raw: dict[str, Any], draw: st.DrawFn) -> str:
    return draw(st.sampled_from(sorted(raw["failures"])))


@st.composite
def invalid_configs(draw: st.DrawFn) -> tuple[dict[str, Any], str]:
    """A valid config broken once, and the key its error must name."""
    raw = draw(valid_configs())
    mode = _mode(raw, draw)
    kind = draw(
        st.sampled_from(
            ["duration", "count", "fraction", "boolean", "choice", "lifetime", "unknown",
             "missing", "consistency"]
        )
    )  # fmt: skip
    if kind == "duration":
        key = draw(st.sampled_from([
            "job.work", "job.checkpoint.interval", "job.restart", "job.checkpoint.write",
            f"failures.{mode}.detect", f"failures.{mode}.lifetime.mtbf",
        ]))  # fmt: skip
        values = BAD_DURATIONS + (
            ["0h", "0s"] if key in ("job.work", "job.checkpoint.interval") else []
        )
        return set_key(raw, key, draw(st.sampled_from(values))), key
    if kind == "count":
        key = draw(st.sampled_from([
            "cluster.servers", "cluster.gpus_per_server", "cluster.servers_per_rack",
            "job.gpus", "job.spares", "network.spines", "network.servers_per_leaf",
            "network.uplinks_per_leaf", "network.server_lacp.members",
            "network.fabric_lacp.min_links", "simulation.trials", "simulation.seed",
            f"failures.{mode}.retire_after",
        ]))  # fmt: skip
        values = BAD_COUNTS + ([] if key in ("job.spares", "simulation.seed") else [0])
        return set_key(raw, key, draw(st.sampled_from(values))), key
    if kind == "fraction":
        key = draw(st.sampled_from([
            "network.comm_share", "network.pfc_pause_share",
            "job.checkpoint.blocking_fraction", f"failures.{mode}.repair_success",
        ]))  # fmt: skip
        return set_key(raw, key, draw(st.sampled_from(BAD_FRACTIONS))), key
    if kind == "boolean":
        key = draw(st.sampled_from(["network.dual_tor", f"failures.{mode}.spares"]))
        return set_key(raw, key, draw(st.sampled_from(BAD_BOOLEANS))), key
    if kind == "choice":
        key = draw(st.sampled_from([
            "network.topology", "job.recovery", f"failures.{mode}.lifetime.dist",
            f"failures.{mode}.impact", f"failures.{mode}.start", "network.load_balancing",
            f"failures.{mode}.unit",
        ]))  # fmt: skip
        return set_key(raw, key, draw(st.sampled_from(BAD_CHOICES))), key
    if kind == "lifetime":
        table = draw(st.sampled_from(["lifetime", "repair"]))
        key = f"failures.{mode}.{table}"
        return set_key(raw, key, copy.deepcopy(draw(st.sampled_from(BAD_LIFETIMES)))), key
    if kind == "unknown":
        tables = ["", "cluster", "job", "job.checkpoint", f"failures.{mode}",
                  f"failures.{mode}.lifetime", "network", "network.server_lacp"]  # fmt: skip
        table = draw(st.sampled_from(tables))
        name = draw(st.sampled_from(["colour", "servers_", "MTBF", "gpus per server"]))
        key = f"{table}.{name}" if table else name
        document = copy.deepcopy(raw)
        target = document
        for part in filter(None, table.split(".")):
            target = target[part]
        target[name] = "blue"
        return document, key
    if kind == "missing":
        key = draw(st.sampled_from([
            "cluster", "cluster.servers", "job", "job.gpus", "job.work", "job.checkpoint",
            "job.checkpoint.interval", f"failures.{mode}.lifetime",
            f"failures.{mode}.lifetime.dist",
        ]))  # fmt: skip
        document = copy.deepcopy(raw)
        *parents, last = key.split(".")
        target = document
        for part in parents:
            target = target[part]
        del target[last]
        return document, key
    servers = raw["cluster"]["servers"]
    broken = draw(st.sampled_from([
        ("job.gpus", servers * raw["cluster"]["gpus_per_server"] + 1),
        ("job.gpus", 10**30),
        ("job.spares", servers),
        ("network.server_lacp.min_links", 3),
        ("job.checkpoint.fast.interval", "7s"),
        ("job.recovery", "elastic"),
        ("failures.hbm.lifetime", {"dist": "exponential", "mtbf": "5y"}),
    ]))  # fmt: skip
    key, value = broken
    document = set_key(raw, key, value)
    if key == "job.checkpoint.fast.interval":
        document["job"]["checkpoint"]["interval"] = "1h"
    if key == "job.recovery":
        document["job"].pop("elastic", None)
        return document, "job.elastic"
    if key == "job.checkpoint.fast.interval" and "write" not in document["job"]["checkpoint"].get(
        "fast", {}
    ):
        document["job"]["checkpoint"]["fast"]["write"] = "1s"
    if key.startswith("failures.hbm"):
        return document, "failures.hbm.unit"
    return document, key


@pytest.mark.slow  # a process per drawn config (about 35 s under load)
@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(case=invalid_configs())
def test_an_invalid_config_exits_2_with_one_line_naming_the_key(tmp_path: Path, case) -> None:
    document, key = case
    path = tmp_path / "broken.toml"
    path.write_text(toml_document(document), encoding="utf-8")
    for command in (["validate", str(path)], ["simulate", str(path), "--trials", "2"]):
        result = runner.invoke(app, command)
        assert result.exit_code == 2, (command, result.output)
        assert result.exception is None or isinstance(result.exception, SystemExit)
        assert "Traceback" not in result.output
        assert result.stdout == ""
        lines = result.stderr.splitlines()
        assert len(lines) == 1, result.stderr
        assert lines[0].startswith("error: "), lines
        named = lines[0].removeprefix("error: ").split(": ", 1)[0]
        # the key itself, the table it sits in, or a key inside a replaced table
        inside = f"{key}.".startswith(f"{named}.") or named.startswith(f"{key}.")
        assert named == key or inside, (key, lines[0])


@pytest.mark.parametrize(
    ("key", "value", "words"),
    [
        ("failures.gpu.lifetime", {"dist": "weibull", "shape": 1e-300, "mtbf": "5y"},
         "Gamma(1 + 1/shape) overflows"),
        ("failures.gpu.lifetime", {"dist": "lognormal", "sigma": 50.0, "mtbf": "5y"},
         "less than or equal to 10"),
        ("job.checkpoint.interval", "1e-300s", "checkpoints (at most 1e+12)"),
        ("job.checkpoint.write", "1e300y", "at most 1e9 years"),
        ("job.checkpoint", {"interval": "1h", "size": "1e300PB", "bandwidth": "1Gbps"},
         "too large to be a size"),
        ("job.checkpoint", {"interval": "1h", "size": "1TB", "bandwidth": "1e-300Gbps"},
         "more than 1e9 years"),
        ("network.comm_share", [], "not a fraction"),
        ("failures.gpu.lifetime", {"dist": "weibull", "shape": INF, "mtbf": "5y"},
         "finite number"),
        ("failures.gpu.slowdown", INF, "finite number"),
        ("network.spines", True, "valid integer (got True)"),
        ("network.dual_tor", "yes", "valid boolean (got 'yes')"),
    ],
)  # fmt: skip
def test_the_crashes_and_silent_acceptances_found_stay_fixed(
    tmp_path: Path, key: str, value: Any, words: str
) -> None:
    """What the property found: tracebacks (OverflowError, a numba typing error, a
    TypeError), a hang on an infinite write, and wrong types or infinities accepted."""
    path = tmp_path / "broken.toml"
    path.write_text(toml_document(set_key(MINIMAL_RAW, key, value)), encoding="utf-8")
    result = runner.invoke(app, ["simulate", str(path), "--trials", "2"])
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: {key}") and words in result.stderr, result.stderr
    assert len(result.stderr.splitlines()) == 1
