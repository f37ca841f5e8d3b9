"""relplan: a Monte Carlo reliability and checkpoint planner for large AI training clusters.

The public Python API (:mod:`relplan.api`), imported on first use so that ``import
relplan`` stays light. Every command of the command line is a function:

- :func:`load_config` and :func:`loads_config` read and validate a config (a file, or
  TOML text); :class:`RelplanConfig` is the validated, immutable value
  (``with_overrides``, ``to_toml``);
- :func:`check` (``relplan validate``), :func:`inventory`, :func:`baseline`,
  :func:`catalog`;
- :func:`simulate`, :func:`optimize_interval`, :func:`compare`, :func:`run_study`
  (``relplan sweep``), :func:`plan`;
- :func:`fit` and :func:`analyze` calibrate failure rates from data; :func:`replay`
  replays a real failure history against a checkpoint policy;
- :func:`warmup` compiles the engine ahead of the first run.

Each returns its command's result (:class:`SimulateResult`, :class:`CompareResult`,
:class:`FitResult`, ...), a frozen dataclass with typed attributes and the interface of
:class:`Result`: ``summary()`` (the ``--json`` object), ``to_frame()``,
``plot(kind=None, ax=None)``, ``write(directory)``; it pickles. Errors are
:class:`RelplanError` (a wrong argument: a :class:`ConfigError` naming it); suspicious
settings are given as :class:`RelplanWarning` (a :class:`UserWarning`).

Examples
--------
>>> import relplan
>>> result = relplan.simulate("configs/small.toml", trials=100, seed=0)
>>> result.summary()["trials"]
100
"""

from __future__ import annotations

from typing import Any

from relplan.version import __version__

_API = (
    "analyze", "baseline", "catalog", "check", "compare", "compare_fleets", "fit",
    "inventory", "load_config", "load_fleet", "loads_config", "optimize_interval", "plan",
    "replay", "run_study", "simulate", "simulate_fleet", "warmup",
)  # fmt: skip
_RESULTS = (
    "AnalyzeResult", "BaselineResult", "CatalogResult", "CheckResult", "CompareResult",
    "Estimate", "FitResult", "Fleet", "FleetComparisonResult", "FleetResult",
    "InventoryResult", "OptimizeResult", "PlanResult", "PointStore", "ReplayResult",
    "Result", "RunArguments", "SimulateResult", "StudyResult", "WarmupResult",
)  # fmt: skip
_ERRORS = ("ConfigError", "InfeasibleJobError", "RelplanError", "RelplanWarning")

__all__ = ["RelplanConfig", "__version__", *_API, *_RESULTS, *_ERRORS]


def __getattr__(name: str) -> Any:
    """Load the API on first use (PEP 562): ``relplan --help`` pays for none of it."""
    if name in _API or name in _RESULTS:
        from relplan import api

        return getattr(api, name)
    if name == "RelplanConfig":
        from relplan.config.schema import RelplanConfig

        return RelplanConfig
    if name in _ERRORS:
        from relplan import errors

        return getattr(errors, name)
    raise AttributeError(f"module 'relplan' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
