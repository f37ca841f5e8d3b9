"""Files written whole or not at all, and a simulation's result files.

Every file goes to a temporary file beside its destination and is renamed into place, so an
interrupted run never leaves a half-written result.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from relplan.analysis.results import SimulationResult
from relplan.errors import ConfigError


def to_json(data: Any) -> str:
    """Serialise a summary deterministically (sorted keys are not used: order is meaningful)."""
    return json.dumps(data, indent=2, allow_nan=False)


def write_atomic(path: Path, write: Callable[[Path], None]) -> None:
    """Write a file whole or not at all: into a temporary file beside it, then rename.

    Parameters
    ----------
    path : Path
        The file to produce.
    write : callable
        Called with a temporary path in the same directory; must write the content there.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(handle)
    temporary_path = Path(temporary)
    try:
        write(temporary_path)
        # mkstemp makes the file private (0600); a result is a file like any other
        os.chmod(temporary_path, 0o666 & ~_current_umask())
        os.replace(temporary_path, path)
    except BaseException:
        temporary_path.unlink(missing_ok=True)
        raise


def _current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def check_output_dir(directory: Path, key: str = "--out") -> None:
    """Refuse, before any work, an output folder that cannot be written.

    Parameters
    ----------
    directory : Path
        The folder results will go to (created if missing).
    key : str
        The argument the error names.

    Raises
    ------
    ConfigError
        If the path is a file, lies under a file, or is a folder this process cannot
        write to.

    Examples
    --------
    >>> check_output_dir(Path("README.md"))
    Traceback (most recent call last):
    ...
    relplan.errors.ConfigError: --out: README.md is a file, not a folder
    """
    for parent in (directory, *directory.parents):
        if parent.exists():
            if not parent.is_dir():
                what = "is a file" if parent == directory else f"lies under a file ({parent})"
                raise ConfigError(key, f"{directory} {what}, not a folder")
            if not os.access(parent, os.W_OK | os.X_OK):
                raise ConfigError(key, f"{directory}: {parent} is not writable")
            return


def write_text_atomic(path: Path, text: str) -> None:
    """Write a text file atomically (see :func:`write_atomic`)."""
    write_atomic(path, lambda temporary: temporary.write_text(text, encoding="utf-8"))


def write_result_files(result: SimulationResult, directory: Path) -> list[Path]:
    """Write ``trials.parquet``, ``summary.csv`` and ``summary.json``, each atomically.

    Parameters
    ----------
    result : SimulationResult
        What to write.
    directory : Path
        Output directory (created if missing).

    Returns
    -------
    list of Path
        The files written.
    """
    trials_path = directory / "trials.parquet"
    csv_path = directory / "summary.csv"
    json_path = directory / "summary.json"
    frame = result.trials_frame()
    write_atomic(trials_path, lambda temporary: frame.to_parquet(temporary, index=False))
    summary_frame = result.summary_frame()
    write_atomic(csv_path, lambda temporary: summary_frame.to_csv(temporary, index=False))
    write_text_atomic(json_path, to_json(result.summary()) + "\n")
    return [trials_path, csv_path, json_path]


def write_comparison_files(data: dict[str, Any], directory: Path) -> list[Path]:
    """Write a comparison as ``comparison.csv`` (one row per scenario) and ``comparison.json``.

    Parameters
    ----------
    data : dict
        From :func:`relplan.analysis.compare.compare_scenarios`.
    directory : Path
        Output directory (created if missing).

    Returns
    -------
    list of Path
        The files written, each atomically.
    """
    import pandas as pd

    rows = []
    for row in data["scenarios"]:
        flat = {key: value for key, value in row.items() if key != "goodput_ci95"}
        flat["goodput_ci95_low"], flat["goodput_ci95_high"] = row["goodput_ci95"]
        rows.append({"trials": data["trials"], "seed": data["seed"], **flat})
    frame = pd.DataFrame(rows)
    csv_path = directory / "comparison.csv"
    json_path = directory / "comparison.json"
    write_atomic(csv_path, lambda temporary: frame.to_csv(temporary, index=False))
    write_text_atomic(json_path, to_json(data) + "\n")
    return [csv_path, json_path]
