"""relplan: a Monte Carlo reliability and checkpoint planner for large AI training clusters.

The public Python API, imported on first use so that ``import relplan`` stays light:

- :func:`load_config` reads and validates a TOML config;
- :func:`simulate` runs the Monte Carlo study of a job;
- :func:`optimize_interval` finds its checkpoint interval;
- :func:`run_study` runs a declarative study.

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

__all__ = ["__version__", "load_config", "optimize_interval", "run_study", "simulate"]

_API = ("load_config", "optimize_interval", "run_study", "simulate")


def __getattr__(name: str) -> Any:
    """Load the API on first use (PEP 562): ``relplan --help`` pays for none of it."""
    if name in _API:
        from relplan import api

        return getattr(api, name)
    raise AttributeError(f"module 'relplan' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
