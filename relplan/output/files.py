"""Files written whole or not at all, and a simulation's result files.

Every file goes to a temporary file beside its destination and is renamed into place, so an
interrupted run never leaves a half-written result.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from relplan.analysis.memory import PARQUET_ROWS
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


def write_parquet(frame: Any, path: Path, provenance: dict[str, Any]) -> None:
    """Write a DataFrame as Parquet, atomically, with the provenance in its key-value metadata.

    Parameters
    ----------
    frame : pandas.DataFrame
        The table (its index is not written).
    path : Path
        The file.
    provenance : dict
        The record (:func:`relplan.analysis.provenance.provenance_record`): each key is
        stored as a schema metadata key (``relplan_version``, ``config_sha256``, ``seed``,
        ``trials``, values as text), beside pandas' own metadata.

    Examples
    --------
    >>> import pandas as pd, pyarrow.parquet as pq, tempfile
    >>> path = Path(tempfile.mkdtemp()) / "t.parquet"
    >>> write_parquet(pd.DataFrame({"x": [1.0]}), path, {"seed": 3})
    >>> pq.read_schema(path).metadata[b"seed"]
    b'3'
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pandas(frame, preserve_index=False)
    metadata = dict(table.schema.metadata or {})
    metadata.update({str(k).encode(): str(v).encode() for k, v in provenance.items()})
    table = table.replace_schema_metadata(metadata)
    write_atomic(path, lambda temporary: pq.write_table(table, temporary))


def write_parquet_chunks(chunks: Iterable[dict[str, Any]], path: Path,
                         provenance: dict[str, Any]) -> None:  # fmt: skip
    """Write a table given in pieces as Parquet, a piece (row group) at a time, atomically.

    Only one piece is held in memory at a time; the file is the same table as
    :func:`write_parquet` of the pieces joined (same columns, types and metadata).

    Parameters
    ----------
    chunks : iterable of dict
        Pieces of the table, in order: each maps every column name to an array (the same
        names and types in every piece; at least one piece).
    path : Path
        The file.
    provenance : dict
        The record, stored as in :func:`write_parquet`.

    Examples
    --------
    >>> import numpy as np, pyarrow.parquet as pq, tempfile
    >>> path = Path(tempfile.mkdtemp()) / "t.parquet"
    >>> write_parquet_chunks(({"x": np.arange(i, i + 2.0)} for i in (0, 2)), path, {"seed": 3})
    >>> pq.read_table(path)["x"].to_pylist(), pq.read_schema(path).metadata[b"seed"]
    ([0.0, 1.0, 2.0, 3.0], b'3')
    """
    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq

    def write(temporary: Path) -> None:
        writer = None
        try:
            for chunk in chunks:
                table = pa.Table.from_pandas(pd.DataFrame(chunk), preserve_index=False)
                if writer is None:
                    metadata = dict(table.schema.metadata or {})
                    metadata.update({str(k).encode(): str(v).encode()
                                     for k, v in provenance.items()})  # fmt: skip
                    schema = table.schema.with_metadata(metadata)
                    writer = pq.ParquetWriter(temporary, schema)
                writer.write_table(table.replace_schema_metadata(schema.metadata))
        finally:
            if writer is not None:
                writer.close()

    write_atomic(path, write)


def write_provenance(directory: Path, provenance: dict[str, Any], files: list[Path]) -> Path:
    """Write ``provenance.json`` beside the files it covers (the sidecar of CSV files).

    Parameters
    ----------
    directory : Path
        Output directory.
    provenance : dict
        The record (:func:`relplan.analysis.provenance.provenance_record`).
    files : list of Path
        The files of the run; their names are listed under ``files``.

    Returns
    -------
    Path
        The file written.
    """
    path = directory / "provenance.json"
    write_text_atomic(path, to_json({**provenance, "files": sorted(p.name for p in files)}) + "\n")
    return path


def write_result_files(result: SimulationResult, directory: Path) -> list[Path]:
    """Write ``trials.parquet``, ``summary.csv`` and ``summary.json``, each atomically.

    Each names its provenance (relplan version, config digest, seed, trials): the JSON
    under ``provenance``, the Parquet file in its key-value metadata; the CSV's is in the
    ``provenance.json`` sidecar that :func:`write_provenance` writes for the whole folder.

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
    write_parquet_chunks(result.trial_chunks(PARQUET_ROWS), trials_path, result.provenance)
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
