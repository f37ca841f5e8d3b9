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
        os.replace(temporary_path, path)
    except BaseException:
        temporary_path.unlink(missing_ok=True)
        raise


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
