"""Files written whole or not at all, runs written whole or not at all, and a simulation's
result files.

Every file goes to a temporary file beside its destination and is renamed into place, so an
interrupted run never leaves a half-written result. A command's output folder is written as
one run (:func:`write_run`): its files go to a fresh staging folder first, then replace the
previous run's files together, so that a Ctrl-C at any point leaves the old run or the new
one, never a mix of both.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from relplan.analysis.provenance import comparison_provenance
from relplan.analysis.results import SimulationResult
from relplan.errors import ConfigError
from relplan.runs.memory import PARQUET_ROWS


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


RUN_MANIFEST = ".relplan-run.json"
"""The file of an output folder that lists the files of the run that wrote it (relative
paths under ``files``), so that the next run into the folder removes the ones it does not
write again."""

STAGING_PREFIX = ".relplan-staging-"
"""The name prefix of the folder, inside the output folder, where a run's files are
written before they replace the previous run's."""


@contextmanager
def _sigint_deferred() -> Iterator[None]:
    """Hold a Ctrl-C (SIGINT) back for the moment of a block, then raise it
    (KeyboardInterrupt) when the block is done; SIGINT stays ignored if it was."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received: list[int] = []
    previous = signal.getsignal(signal.SIGINT)
    if previous is signal.SIG_IGN:
        yield
        return
    signal.signal(signal.SIGINT, lambda number, frame: received.append(number))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if received:
        raise KeyboardInterrupt


def _previous_run(directory: Path) -> list[str]:
    """The files of the run that last wrote ``directory``: its manifest's list, else the
    ``files`` of a ``provenance.json`` written before manifests (and that file itself)."""
    for name, extra in ((RUN_MANIFEST, []), ("provenance.json", ["provenance.json"])):
        try:
            listed = json.loads((directory / name).read_text(encoding="utf-8"))["files"]
        except (OSError, ValueError, KeyError, TypeError):
            continue
        if isinstance(listed, list) and all(isinstance(item, str) for item in listed):
            return [*listed, *extra]
    return []


def _inside(directory: Path, relative: str) -> Path | None:
    """``directory / relative`` when that stays inside ``directory`` (a manifest is text
    anyone may edit: no file outside the folder is ever removed)."""
    path = directory / relative
    try:
        path.resolve().relative_to(directory.resolve())
    except ValueError:
        return None
    return path if relative and not Path(relative).is_absolute() else None


def write_run(directory: Path, write: Callable[[Path], list[Path]],
              key: str = "--out") -> list[Path]:  # fmt: skip
    """Write a command's output folder as one run: all its files, or none of them.

    ``write`` writes into a fresh staging folder inside ``directory``; when it has
    finished, its files replace those of the previous run together (Ctrl-C is held back
    for that moment, a few renames), the previous run's files that this run does not
    write are removed (those :data:`RUN_MANIFEST` lists), and the manifest names the
    new run's files. An error or a Ctrl-C before that leaves the previous run as it was
    and removes the staging folder. Files of the folder that no run wrote (such as a
    sweep's ``points.sqlite``) are left alone.

    Parameters
    ----------
    directory : Path
        The output folder (created if missing).
    write : callable
        Called with the staging folder; writes the run's files there and returns them.
    key : str
        The argument an error names.

    Returns
    -------
    list of Path
        The files written, at their places in ``directory``, in ``write``'s order.

    Raises
    ------
    ConfigError
        Naming ``key`` when a file's place in ``directory`` is taken by a folder (or a
        folder's by a file); nothing of the previous run is touched then.

    Examples
    --------
    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> def first_run(staging):
    ...     for name in ("a.txt", "b.txt"):
    ...         write_text_atomic(staging / name, "1")
    ...     return [staging / "a.txt", staging / "b.txt"]
    >>> def second_run(staging):
    ...     write_text_atomic(staging / "a.txt", "2")
    ...     return [staging / "a.txt"]
    >>> [p.name for p in write_run(folder, first_run)]
    ['a.txt', 'b.txt']
    >>> [p.name for p in write_run(folder, second_run)]
    ['a.txt']
    >>> sorted(p.name for p in folder.iterdir())  # b.txt of the first run is gone
    ['.relplan-run.json', 'a.txt']
    """
    directory.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=STAGING_PREFIX, dir=directory))
    try:
        staged = write(staging)
        relative = [path.relative_to(staging).as_posix() for path in staged]
        names = sorted({path.relative_to(staging).as_posix()
                        for path in staging.rglob("*") if not path.is_dir()})  # fmt: skip
        for name in names:
            target = directory / name
            for place in (target, *target.parents):
                if place == directory:
                    break
                if place == target and target.is_dir():
                    raise ConfigError(key, f"{target} is a folder where relplan writes a file: "
                                           "move it away or write to another folder")
                if place != target and place.exists() and not place.is_dir():
                    raise ConfigError(key, f"{place} is a file where relplan writes a folder: "
                                           "move it away or write to another folder")
        stale = [path for name in _previous_run(directory) if name not in names
                 and (path := _inside(directory, name)) is not None]  # fmt: skip
        manifest = to_json({"files": names}) + "\n"
        with _sigint_deferred():
            for name in names:
                target = directory / name
                target.parent.mkdir(parents=True, exist_ok=True)
                os.replace(staging / name, target)
            for path in stale:
                if path.is_file() or path.is_symlink():
                    path.unlink()
            write_text_atomic(directory / RUN_MANIFEST, manifest)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return [directory / name for name in relative]


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
    """Write a comparison as ``comparison.csv`` (one row per scenario) and
    ``comparison.json``, with their ``provenance.json`` sidecar
    (:func:`relplan.analysis.provenance.comparison_provenance`).

    Parameters
    ----------
    data : dict
        From :func:`relplan.runs.compare.compare_scenarios`.
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
    written = [csv_path, json_path]
    return [*written, write_provenance(directory, comparison_provenance(data), written)]
