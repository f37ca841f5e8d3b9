"""The benchmark's cases: the shipped configs, as models the SimPy reference runs exactly.

The SimPy reference (:mod:`benchmarks.simpy_reference`) knows fatal failures only, with
exponential lifetimes and fixed or exponential repairs. :func:`comparable_model` turns a
shipped config into such a model with ``--set`` overrides (:func:`reference_overrides`),
and :func:`reference_case_from_model` builds the reference's case of the same job.
"""

from __future__ import annotations

import math
import typing
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from benchmarks import simpy_reference as reference
from relplan.config.loading import SHIPPED_CONFIGS, load_config
from relplan.sim.engine import expected_exposure_hours
from relplan.sim.model import SimulationModel, build_model

REPO = Path(__file__).resolve().parents[1]
"""The repository holding the benchmark."""
CONFIGS = SHIPPED_CONFIGS
"""The shipped configs."""
BENCHMARK_CONFIGS = REPO / "benchmarks" / "configs"
"""Configs of the benchmark's own cases (``plain-exponential``)."""
CASES: tuple[str, ...] = ("plain-exponential", "small", "seed-moe-10k", "llama3-16k")
"""Configs the benchmark compares relplan and SimPy on: the plain exponential case (one
failure mode, no feature: the engine's own cost per trial) and three shipped configs."""
SUPPORTED_REPAIRS: tuple[str, ...] = typing.get_args(
    typing.get_type_hints(reference.FailureClass)["repair_dist"]
)
"""Repair distributions the SimPy reference can draw (read off its ``FailureClass``)."""


def config_path(config: str | Path) -> Path:
    """The file of a config: a path as given, or a config by name: a shipped one
    (``"small"``), else one of the benchmark's own (``"plain-exponential"``).

    Examples
    --------
    >>> config_path("small").relative_to(REPO).as_posix()
    'configs/small.toml'
    >>> config_path("plain-exponential").relative_to(REPO).as_posix()
    'benchmarks/configs/plain-exponential.toml'
    """
    path = Path(config)
    if path.suffix:
        return path
    shipped = CONFIGS / f"{config}.toml"
    return shipped if shipped.exists() else BENCHMARK_CONFIGS / f"{config}.toml"


def config_shown(name: str) -> str:
    """A config's path from the repository's root, as the reports show it.

    Examples
    --------
    >>> config_shown("small")
    'configs/small.toml'
    """
    return config_path(name).relative_to(REPO).as_posix()


def hours_text(hours: float) -> str:
    """A duration for a ``--set`` value, exact and without an exponent: ``"33.05...h"``.

    Examples
    --------
    >>> hours_text(33.5)
    '33.5h'
    """
    return np.format_float_positional(hours, trim="-") + "h"


def config_key(mode_name: str) -> str:
    """The ``[failures]`` key of a mode (a link or optic mode's fabric part is ``NAME.fabric``).

    Examples
    --------
    >>> config_key("optic.fabric")
    'optic'
    """
    return mode_name.split(".", 1)[0]


def reference_overrides(model: SimulationModel) -> list[str]:
    """``--set`` items that turn a model into one the SimPy reference runs exactly.

    The reference knows fatal failures only, with fixed or exponential repairs. So:

    - a repair that is neither fixed nor exponential (a lognormal or Weibull host
      repair) becomes an exponential repair of the same mean;
    - a mode whose failures do not stop the job (``impact`` degraded, transient or
      elastic: a spine or fabric optic under ECMP) is made ``fatal``.

    Parameters
    ----------
    model : SimulationModel
        The model built from the config as it is.

    Returns
    -------
    list of str
        Items such as ``failures.host.repair={ dist = "exponential", mean = "33.05h" }``
        or ``failures.spine.impact="fatal"``; empty when nothing needs changing.
    """
    items: list[str] = []
    for mode in model.modes:
        key = config_key(mode.name)
        if mode.repair.kind not in SUPPORTED_REPAIRS:
            item = (
                f'failures.{key}.repair={{ dist = "exponential", '
                f'mean = "{hours_text(mode.repair.mean_hours)}" }}'
            )
            if item not in items:
                items.append(item)
        if not mode.is_fatal:
            item = f'failures.{key}.impact="fatal"'
            if item not in items:
                items.append(item)
    return items


def shipped_overrides(name: str) -> list[str]:
    """The :func:`reference_overrides` of a shipped config as it is.

    Parameters
    ----------
    name : str
        A shipped config (``"small"``).

    Returns
    -------
    list of str
        What :func:`comparable_model` changes in it.
    """
    return reference_overrides(build_model(load_config(config_path(name))))


def comparable_model(config: str | Path, overrides: Sequence[str] = ()) -> SimulationModel:
    """A relplan model of a config that the SimPy reference can run exactly.

    Parameters
    ----------
    config : str or Path
        A TOML config, or the name of a shipped one (``"small"``).
    overrides : sequence of str
        ``--set`` items applied first.

    Returns
    -------
    SimulationModel
        The config's model with every failure fatal and every repair fixed or exponential
        (an exponential of the same mean replaces any other; see
        :func:`reference_overrides`).
    """
    path = config_path(config)
    model = build_model(load_config(path, list(overrides)))
    extra = reference_overrides(model)
    if extra:
        model = build_model(load_config(path, [*overrides, *extra]))
    return model


def reference_case_from_model(model: SimulationModel) -> reference.ReferenceCase:
    """The SimPy reference case of a relplan model: the same job and failure modes.

    Parameters
    ----------
    model : SimulationModel
        Every lifetime exponential; every repair fixed or exponential (see
        :func:`comparable_model`).

    Returns
    -------
    simpy_reference.ReferenceCase
        One failure class per mode, in mode order (so interruption columns line up),
        with the mode's job units, mean life (hours of exposure), repair, detection
        and use of spares.

    Raises
    ------
    ValueError
        If the model has what the reference does not: a lifetime that is not
        exponential, a repair neither fixed nor exponential, a failure that is not fatal,
        a fast checkpoint tier.
    """
    if model.job.fast_interval_hours is not None:
        raise ValueError("the SimPy reference has one checkpoint tier; this job has two")
    classes = []
    for mode in model.modes:
        if not mode.is_fatal:
            raise ValueError(
                f"{mode.name}: the SimPy reference knows fatal failures only, got "
                f"{mode.impact}; build the model with comparable_model()"
            )
        if mode.loses_fast_checkpoint:
            raise ValueError(f"{mode.name}: the SimPy reference has no fast checkpoint tier")
        if mode.lifetime.kind != "exponential":
            raise ValueError(
                f"{mode.name}: the SimPy reference needs exponential lifetimes, "
                f"got {mode.lifetime.kind}"
            )
        if mode.repair.kind not in SUPPORTED_REPAIRS:
            raise ValueError(
                f"{mode.name}: the SimPy reference draws fixed or exponential repairs, got "
                f"{mode.repair.kind}; build the model with comparable_model()"
            )
        classes.append(
            reference.FailureClass(
                name=mode.name,
                units=mode.job_units,
                mtbf_hours=mode.lifetime.mean_hours,
                repair_hours=mode.repair.mean_hours,
                detect_hours=mode.detect_hours,
                uses_spares=mode.uses_spares,
                repair_dist=mode.repair.kind,
            )
        )
    job = model.job
    return reference.ReferenceCase(
        work_hours=job.work_hours,
        interval_hours=job.interval_hours,
        write_hours=job.write_hours,
        restart_hours=job.restart_hours,
        spares=job.spares,
        failure_classes=tuple(classes),
    )


def expected_events_per_trial(model: SimulationModel) -> float:
    """Expected interruptions per trial: the engine's expected exposure over the job MTTI.

    Parameters
    ----------
    model : SimulationModel
        Any model; its long-run job failure rate is what counts.

    Returns
    -------
    float
        :func:`relplan.sim.engine.expected_exposure_hours` (Daly's expected time with no
        downtime) over the job's mean time to interruption; 0 if nothing fails.
    """
    mtti = model.job_mtti_hours
    if math.isinf(mtti):
        return 0.0
    return expected_exposure_hours(model) / mtti
