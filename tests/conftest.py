"""Shared fixtures: the minimal config of the design's first example, and model builders."""

from __future__ import annotations

import copy
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import settings

from relplan.config.loading import parse_config
from relplan.errors import ConfigError
from relplan.sim import distributions
from relplan.sim.model import FailureMode, JobSpec, SimulationModel, build_model

# Property tests draw their examples from a fixed seed, so a run is repeatable and CI
# cannot turn red by chance; HYPOTHESIS_PROFILE=explore draws new examples each run.
settings.register_profile("fixed", derandomize=True, print_blob=True)
settings.register_profile("explore", derandomize=False, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "fixed"))

REPO = Path(__file__).resolve().parent.parent
CONFIGS = REPO / "configs"
SHIPPED_STUDIES = sorted(path for path in (REPO / "studies").glob("*.toml")
                         if "[study]" in path.read_text())  # fmt: skip
"""The shipped studies (``relplan sweep``); the plans beside them run with ``relplan plan``."""
DOC_PAGES = sorted(path for path in (REPO / "docs").rglob("*.md")
                   if not (path.parent / "provenance.json").exists()
                   and "_build" not in path.parts)  # fmt: skip
"""The documentation's hand-written pages (generated study reports left out)."""


def doc_outputs() -> Any:
    """``scripts/make_doc_outputs.py`` as a module: the commands the tutorial and the
    how-to pages show with their output, and how they are run and compared."""
    import importlib.util
    import sys

    name = "make_doc_outputs"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, REPO / "scripts" / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # before it runs: its dataclasses look their module up
        spec.loader.exec_module(module)
    return sys.modules[name]


def docs_text() -> str:
    """The README and every documentation page, one text (what the docs promise)."""
    return "\n".join(path.read_text() for path in [REPO / "README.md", *DOC_PAGES])


MINUTE = 1 / 60
"""One minute, in hours."""

MINIMAL_TOML = """\
[cluster]
servers = 128
gpus_per_server = 8

[failures.gpu]
lifetime = { dist = "exponential", mtbf = "5y" }
repair = { dist = "fixed", mean = "4h" }
detect = "30s"          # from the failure until the job notices it

[job]
gpus = 1024
work = "30d"
restart = "20min"
spares = 0

[job.checkpoint]
interval = "1h"
write = "2min"
"""

MINIMAL_RAW: dict[str, Any] = {
    "cluster": {"servers": 128, "gpus_per_server": 8},
    "failures": {
        "gpu": {
            "lifetime": {"dist": "exponential", "mtbf": "5y"},
            "repair": {"dist": "fixed", "mean": "4h"},
            "detect": "30s",
        }
    },
    "job": {
        "gpus": 1024,
        "work": "30d",
        "restart": "20min",
        "spares": 0,
        "checkpoint": {"interval": "1h", "write": "2min"},
    },
}


@pytest.fixture
def minimal_raw() -> dict[str, Any]:
    """The minimal config as a mutable mapping."""
    return copy.deepcopy(MINIMAL_RAW)


def assert_config_error(call: Callable[..., object], *args: Any, key: str, words: str,
                        **kwargs: Any) -> None:
    """``call(*args, **kwargs)`` raises a ConfigError that names ``key`` and whose message
    says ``words``."""
    with pytest.raises(ConfigError) as caught:
        call(*args, **kwargs)
    assert caught.value.key == key, caught.value
    assert words in caught.value.message


def assert_refused(
    raw: dict[str, Any], overrides: list[str] | None = None, *, key: str, words: str
) -> None:
    """``parse_config`` refuses ``raw`` (with ``overrides``), naming ``key``, saying ``words``."""
    assert_config_error(parse_config, raw, overrides, key=key, words=words)


def assert_validate_refuses(settings: list[str], key: str,
                            config: str = "configs/small.toml") -> None:  # fmt: skip
    """``relplan validate CONFIG --set ...`` exits 2 with one error naming ``key``, and no
    traceback (run from the repository root)."""
    from typer.testing import CliRunner

    from relplan.cli.app import app

    args = ["validate", str(REPO / config)]
    for setting in settings:
        args += ["--set", setting]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2, result.output
    assert key in result.output and "Traceback" not in result.output


def trial_timeline_hours(model: SimulationModel, outcomes: Any, trial: int, seed: int,
                         trials: int, buckets: tuple[str, ...]) -> dict[str, float]:  # fmt: skip
    """The hours per bucket of one trial's timeline (:func:`relplan.sim.trace.trace_trial`)
    after checking that each of ``buckets`` is the engine's for that trial."""
    from relplan.sim.trace import trace_trial
    from relplan.vocab import BUCKETS

    intervals, _ = trace_trial(model, seed=seed, trial=trial, trials=trials)
    hours = (intervals.end_hours - intervals.start_hours).groupby(intervals.bucket).sum()
    for bucket in buckets:
        assert hours.get(bucket, 0.0) == pytest.approx(
            outcomes.bucket_hours[trial, BUCKETS.index(bucket)], rel=1e-9, abs=1e-9), bucket
    return {bucket: float(hours.get(bucket, 0.0)) for bucket in BUCKETS}


@pytest.fixture
def minimal_config_file(tmp_path: Path) -> Path:
    """The minimal config written as TOML, exactly as first specified."""
    path = tmp_path / "minimal.toml"
    path.write_text(MINIMAL_TOML)
    return path


def make_model(
    *,
    work: float,
    interval: float,
    write: float,
    restart: float,
    modes: list[dict[str, Any]],
    spares: int = 0,
    gpus: int = 8,
) -> SimulationModel:
    """A model built directly from numbers (hours), bypassing the config layer.

    Each mode dict takes ``units``, ``lifetime`` (a Distribution), and optionally
    ``repair`` (a Distribution), ``detect``, ``uses_spares``, ``start``, ``name``,
    ``impact``, ``slowdown`` (by count), ``stall``, ``soft_slowdown``, ``soft_hours``,
    ``loses_fast``, ``survivable``, ``history`` (a UnitHistory).
    """
    built = []
    for index, mode in enumerate(modes):
        built.append(
            FailureMode(
                name=mode.get("name", f"mode{index}"),
                unit="gpu",
                job_units=mode["units"],
                lifetime=mode["lifetime"],
                repair=mode.get("repair", distributions.fixed(0.0)),
                detect_hours=mode.get("detect", 0.0),
                uses_spares=mode.get("uses_spares", False),
                start=mode.get("start", "equilibrium"),
                impact=mode.get("impact", "fatal"),
                slowdown_by_count=tuple(mode.get("slowdown", (1.0,))),
                stall_hours=mode.get("stall", 0.0),
                soft_slowdown=mode.get("soft_slowdown", 1.0),
                soft_hours=mode.get("soft_hours", 0.0),
                loses_fast_checkpoint=mode.get("loses_fast", False),
                survivable_count=mode.get("survivable"),
                history=mode.get("history"),
            )
        )
    return SimulationModel(
        job=JobSpec(gpus, work, interval, write, restart, spares),
        modes=tuple(built),
        inventory=None,
    )


def z_score(samples: np.ndarray, exact: float) -> float:
    """(mean - exact) in standard errors of the mean."""
    standard_error = samples.std(ddof=1) / np.sqrt(samples.size)
    return float((samples.mean() - exact) / standard_error)


@pytest.fixture
def minimal_model(minimal_raw: dict[str, Any]) -> SimulationModel:
    """The minimal config's simulation model."""
    return build_model(parse_config(minimal_raw))
