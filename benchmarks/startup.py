"""Start-up: wall time of fresh ``relplan`` processes, against bare imports of its libraries.

Every figure is the wall time of a fresh child process, started as ``sys.executable -m
relplan ...`` (:func:`benchmarks.measure.relplan_argv`: this interpreter, this tree's
relplan, whatever console script is installed), from start to exit, output captured:

- ``relplan --help`` against ``python -c "import numpy, typer"``;
- ``relplan --version`` against the same reference (no target; "n/a" if the CLI has no
  ``--version``);
- ``relplan simulate configs/small.toml --trials 20`` with numba's cache warm, against
  ``python -c "import numpy, typer, numba"``, and against the same imports plus one call
  of a function loaded from numba's cache (:mod:`benchmarks.numba_call`): what any
  program pays to run cached numba code, since loading it makes numba load its target's
  registries (no target: it shows what relplan adds to that);
- the same simulate command cold: ``NUMBA_CACHE_DIR`` set to a fresh, empty temporary
  folder, so the engine is compiled from scratch (this replaces the in-process "cold
  compile" figure of earlier reports: cold minus warm is the compile and cache write).

A command and its reference are timed alternately, ``repeats`` times each, and the
shortest time of each counts. Targets are reported, met or not; they never fail the run.
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.cases import config_path
from benchmarks.levels import Level
from benchmarks.measure import ProcessRun, relplan_argv, subprocess_env, timed_process

SIMULATE_CONFIG = "small"
"""The shipped config of the simulate start-up runs."""
SIMULATE_TRIALS = 20
"""Trials of the simulate start-up runs: few enough that start-up is what is timed."""
COLD_TARGET_SECONDS = 20.0
"""Target of the cold first run (empty numba cache), seconds."""
TARGET_CORES = 2
"""The targets are set for a machine with this many cores."""
LAUNCHER = "sys.executable -m relplan"
"""How every relplan child process is started (see :func:`benchmarks.measure.relplan_argv`)."""


@dataclass(frozen=True)
class StartupCommand:
    """A relplan command whose start-up is timed, and the reference it is set against.

    Attributes
    ----------
    key : str
        Its name in the report (``"help"``).
    shown : str
        The command as a user types it (``"relplan --help"``).
    arguments : tuple of str
        The CLI's arguments.
    reference_code : str
        Python source the reference process runs (``"import numpy, typer"``).
    target_ratio : float or None
        Largest acceptable ratio of the command's time to the reference's; None: no target.
    optional : bool
        Whether the CLI may lack the command (then it is reported as not available).
    """

    key: str
    shown: str
    arguments: tuple[str, ...]
    reference_code: str
    target_ratio: float | None
    optional: bool = False

    @property
    def shown_reference(self) -> str:
        """The reference as a user types it: ``python -c "import numpy, typer"``."""
        return f'python -c "{self.reference_code}"'


def simulate_arguments() -> tuple[str, ...]:
    """Arguments of the simulate start-up runs: ``simulate CONFIG --trials 20``."""
    return ("simulate", str(config_path(SIMULATE_CONFIG)), "--trials", str(SIMULATE_TRIALS))


SIMULATE_SHOWN = f"relplan simulate configs/{SIMULATE_CONFIG}.toml --trials {SIMULATE_TRIALS}"
COMMANDS: tuple[StartupCommand, ...] = (
    StartupCommand("help", "relplan --help", ("--help",), "import numpy, typer", 2.0),
    StartupCommand(
        "version", "relplan --version", ("--version",), "import numpy, typer", None, optional=True
    ),
    StartupCommand(
        "simulate", SIMULATE_SHOWN, simulate_arguments(), "import numpy, typer, numba", 2.5
    ),
    StartupCommand(
        "simulate_vs_cached_numba", SIMULATE_SHOWN, simulate_arguments(),
        "import numpy, typer; from benchmarks.numba_call import cached_call; cached_call(1.0)",
        None,
    ),
)
"""The commands timed warm, in the order they are reported."""


class StartupError(RuntimeError):
    """A relplan command the start-up study times did not run."""


def _checked(run: ProcessRun, shown: str) -> ProcessRun:
    """``run`` if it exited with 0; otherwise :class:`StartupError` with its stderr."""
    if run.returncode != 0:
        raise StartupError(f"{shown} exited with {run.returncode}:\n{run.stderr[-3000:]}")
    return run


def _failure_note(run: ProcessRun) -> str:
    """One line on why a command failed: its exit status and last line of output."""
    lines = (run.stderr or run.stdout).strip().splitlines()
    last = next((line.strip(" │╭╮╰╯─") for line in reversed(lines) if line.strip(" │╭╮╰╯─")), "")
    return f"exit status {run.returncode}: {last}" if last else f"exit status {run.returncode}"


def ratio_verdict(
    seconds: float, reference_seconds: float, target_ratio: float | None
) -> dict[str, Any]:
    """A command's time set against its reference's.

    Parameters
    ----------
    seconds : float
        The command's time.
    reference_seconds : float
        The reference's time.
    target_ratio : float or None
        Largest acceptable ratio; None: no target.

    Returns
    -------
    dict
        ``ratio`` (``seconds / reference_seconds``), ``target_ratio`` and ``met``
        (``ratio <= target_ratio``, None without a target).

    Examples
    --------
    >>> ratio_verdict(1.5, 0.5, 2.0)
    {'ratio': 3.0, 'target_ratio': 2.0, 'met': False}
    """
    ratio = seconds / reference_seconds
    met = None if target_ratio is None else bool(ratio <= target_ratio)
    return {"ratio": ratio, "target_ratio": target_ratio, "met": met}


def time_command(command: StartupCommand, repeats: int) -> dict[str, Any]:
    """Best-of-``repeats`` wall times of a command and of its reference, taken alternately.

    Parameters
    ----------
    command : StartupCommand
        What to time.
    repeats : int
        Runs of each (at least one).

    Returns
    -------
    dict
        ``command``, ``argv``, ``available``, ``seconds`` and ``runs``, ``reference``,
        ``reference_seconds`` and ``reference_runs``, and the :func:`ratio_verdict`. An
        optional command the CLI lacks has ``available`` False, None for every time and a
        ``note`` saying why.

    Raises
    ------
    StartupError
        If a command that is not optional fails.
    """
    argv = relplan_argv(*command.arguments)
    reference_argv = [sys.executable, "-c", command.reference_code]
    result: dict[str, Any] = {
        "command": command.shown,
        "argv": argv,
        "available": True,
        "reference": command.shown_reference,
        "reference_argv": reference_argv,
    }
    runs: list[float] = []
    reference_runs: list[float] = []
    for _ in range(max(1, repeats)):
        run = timed_process(argv)
        if run.returncode != 0 and command.optional:
            return {
                **result,
                "available": False,
                "note": _failure_note(run),
                "seconds": None,
                "runs": [],
                "reference_seconds": None,
                "reference_runs": [],
                "ratio": None,
                "target_ratio": command.target_ratio,
                "met": None,
            }
        runs.append(_checked(run, command.shown).seconds)
        reference_run = _checked(timed_process(reference_argv), command.shown_reference)
        reference_runs.append(reference_run.seconds)
    seconds, reference_seconds = min(runs), min(reference_runs)
    return {
        **result,
        "seconds": seconds,
        "runs": runs,
        "reference_seconds": reference_seconds,
        "reference_runs": reference_runs,
        **ratio_verdict(seconds, reference_seconds, command.target_ratio),
    }


def cold_first_run(runs: int, warm_seconds: float | None) -> dict[str, Any]:
    """The simulate command with an empty numba cache: every run compiles the engine.

    Each run gets its own fresh temporary ``NUMBA_CACHE_DIR``, so relplan's own cache
    is neither used nor touched.

    Parameters
    ----------
    runs : int
        Cold runs to time (at least one); the shortest counts.
    warm_seconds : float or None
        The same command's warm time, if measured: the difference is the compile.

    Returns
    -------
    dict
        ``command``, ``seconds`` (the shortest run), ``runs``, ``cache_files`` (files numba
        wrote to each fresh cache: none would mean the cache folder was not used),
        ``target_seconds``, ``target_cores``, ``met`` (``seconds < target_seconds``),
        ``warm_seconds`` and ``compile_seconds`` (cold minus warm).

    Raises
    ------
    StartupError
        If a run fails.
    """
    argv = relplan_argv(*simulate_arguments())
    times: list[float] = []
    cache_files: list[int] = []
    for _ in range(max(1, runs)):
        with tempfile.TemporaryDirectory(prefix="relplan-numba-cache-") as cache:
            run = timed_process(argv, env=subprocess_env(NUMBA_CACHE_DIR=cache))
            _checked(run, f"{SIMULATE_SHOWN} (empty numba cache)")
            times.append(run.seconds)
            cache_files.append(sum(1 for path in Path(cache).rglob("*") if path.is_file()))
    seconds = min(times)
    return {
        "command": SIMULATE_SHOWN,
        "argv": argv,
        "numba_cache": "NUMBA_CACHE_DIR = a fresh, empty temporary folder for each run",
        "seconds": seconds,
        "runs": times,
        "cache_files": cache_files,
        "target_seconds": COLD_TARGET_SECONDS,
        "target_cores": TARGET_CORES,
        "met": bool(seconds < COLD_TARGET_SECONDS),
        "warm_seconds": warm_seconds,
        "compile_seconds": seconds - warm_seconds if warm_seconds is not None else None,
    }


def startup_study(level: Level, commands: Sequence[StartupCommand] = COMMANDS) -> dict[str, Any]:
    """Start-up times of relplan's CLI: warm commands against references, and a cold run.

    One untimed simulate run and one untimed run of each reference come first, so numba's
    default cache holds the compiled engine and the references' cached function (as after
    any earlier run) and the files are in the page cache.

    Parameters
    ----------
    level : Level
        ``startup_repeats`` (runs of each warm command and reference) and ``cold_runs``.
    commands : sequence of StartupCommand
        The warm commands (default :data:`COMMANDS`).

    Returns
    -------
    dict
        ``launcher``, ``python``, ``method``, ``repeats``, ``load_average_before`` (1, 5
        and 15 minutes, before the first run), ``commands`` (by key, see
        :func:`time_command`) and ``cold`` (see :func:`cold_first_run`).

    Raises
    ------
    StartupError
        If a command that is not optional fails.
    """
    load_before = list(os.getloadavg()) if hasattr(os, "getloadavg") else None
    _checked(timed_process(relplan_argv(*simulate_arguments())), f"{SIMULATE_SHOWN} (warm-up)")
    for command in commands:
        reference_argv = [sys.executable, "-c", command.reference_code]
        _checked(timed_process(reference_argv), f"{command.shown_reference} (warm-up)")
    timed = {command.key: time_command(command, level.startup_repeats) for command in commands}
    warm = timed.get("simulate", {}).get("seconds")
    return {
        "launcher": LAUNCHER,
        "python": sys.executable,
        "method": (
            f"wall time (perf_counter) of a fresh child process, start to exit, output "
            f"captured; a command and its reference alternate, best of "
            f"{level.startup_repeats} each; one untimed simulate run first warms numba's "
            f"cache; targets are for a {TARGET_CORES}-core machine"
        ),
        "repeats": level.startup_repeats,
        "load_average_before": load_before,
        "commands": timed,
        "cold": cold_first_run(level.cold_runs, warm),
    }
