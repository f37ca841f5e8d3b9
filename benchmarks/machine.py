"""Where the numbers were measured: the machine, the software and the relplan tree."""

from __future__ import annotations

import os
import platform
import subprocess
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.measure import RELPLAN_ROOT


def usable_cores() -> int:
    """Cores this process may run on (its CPU affinity), at least 1."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def machine() -> dict[str, Any]:
    """The machine and software a report was measured on.

    Returns
    -------
    dict
        ``nproc`` (usable cores), ``cpu_count``, ``cpu_model``, ``platform``, the versions
        of Python, numpy, numba and simpy, ``relplan`` (see :func:`relplan_source`) and
        the load average when called.
    """
    import numba
    import simpy

    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "nproc": usable_cores(),
        "cpu_count": os.cpu_count(),
        "cpu_model": cpu,
        "platform": platform.platform(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "numba": numba.__version__,
        "simpy": simpy.__version__,
        "relplan": relplan_source(),
        "load_average": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
    }


def relplan_source() -> dict[str, Any]:
    """Which relplan was measured.

    Returns
    -------
    dict
        ``path`` (the folder holding the package), ``commit`` (git HEAD, or None outside
        a repository) and ``dirty`` (whether ``relplan/`` has uncommitted changes).
    """
    source: dict[str, Any] = {"path": str(RELPLAN_ROOT), "commit": None, "dirty": None}
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=RELPLAN_ROOT, capture_output=True, text=True
        )
        if commit.returncode == 0:
            source["commit"] = commit.stdout.strip()
            status = subprocess.run(
                ["git", "status", "--porcelain", "--", "relplan"],
                cwd=RELPLAN_ROOT, capture_output=True, text=True,
            )  # fmt: skip
            source["dirty"] = bool(status.stdout.strip())
    except OSError:
        pass
    return source
