"""A resumable, kill-safe store of finished points (sweep points, plan portfolios).

Each finished point is written at once, in its own SQLite transaction, into
``points.sqlite`` in the output folder, keyed by a digest of what fixes its numbers: the
resolved config's digest, the seed, the trial count, what kind of point it is and the
version of the engine's numbers (:data:`relplan.version.NUMBERS_VERSION`, so a point an
older engine stored is computed again, never mixed with new ones). A
rerun with the same folder reuses every finished point and computes only the others; a
run killed at any moment (even by SIGKILL) loses no committed point and leaves the store
readable, because SQLite commits atomically through its journal (WAL mode). Why SQLite
rather than one Parquet file per point with atomic renames: one file to hand on, atomic
multi-row commits, readers never see a half-written point, no directory of thousands of
small files, and it is in Python's standard library.

Examples
--------
>>> import tempfile, pathlib
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> with PointStore(folder / "points.sqlite") as store:
...     key = point_key("ab" * 32, seed=0, trials=10, kind="sweep")
...     store.put(key, {"goodput": 0.9})
...     store.get(key)
{'goodput': 0.9}
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path
from types import TracebackType
from typing import Any

from relplan.version import NUMBERS_VERSION

STORE_NAME = "points.sqlite"
"""The store's file name in an output folder."""


def point_key(config_sha256: str, seed: int, trials: int, kind: str) -> str:
    """The key of a point: a SHA-256 of its config digest, seed, trials and kind, and of
    :data:`relplan.version.NUMBERS_VERSION`.

    Examples
    --------
    >>> point_key("0" * 64, 1, 100, "sweep") == point_key("0" * 64, 1, 100, "sweep")
    True
    >>> point_key("0" * 64, 1, 100, "sweep") == point_key("0" * 64, 2, 100, "sweep")
    False
    """
    text = json.dumps([config_sha256, int(seed), int(trials), kind, NUMBERS_VERSION])
    return hashlib.sha256(text.encode()).hexdigest()


class PointStore:
    """The finished points of one output folder (see the module docstring).

    Parameters
    ----------
    path : Path
        The SQLite file (created if missing).
    fresh : bool
        Ignore (delete) the points already stored.
    """

    def __init__(self, path: Path, fresh: bool = False) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if fresh:
            for suffix in ("", "-wal", "-shm"):
                Path(f"{self.path}{suffix}").unlink(missing_ok=True)
        self._connection = sqlite3.connect(self.path, isolation_level=None,
                                           check_same_thread=False)  # fmt: skip
        self._connection.execute("PRAGMA journal_mode=WAL")
        self._connection.execute("PRAGMA synchronous=FULL")
        self._connection.execute(
            "CREATE TABLE IF NOT EXISTS points (key TEXT PRIMARY KEY, kind TEXT, "
            "label TEXT, payload TEXT NOT NULL)"
        )
        self._reused: set[str] = set()
        self._written: set[str] = set()

    def get(self, key: str) -> Any | None:
        """The stored payload of ``key`` (JSON-decoded), or None."""
        row = self._connection.execute("SELECT payload FROM points WHERE key = ?",
                                       (key,)).fetchone()  # fmt: skip
        if row is None:
            return None
        if key not in self._written:
            self._reused.add(key)
        return json.loads(row[0])

    @property
    def reused(self) -> int:
        """Distinct points found by :meth:`get` that were finished before the store was
        opened (not those this run stored itself)."""
        return len(self._reused)

    def put(self, key: str, payload: Any, kind: str = "", label: str = "") -> None:
        """Store a finished point at once, in its own transaction."""
        self._connection.execute(
            "INSERT OR REPLACE INTO points (key, kind, label, payload) VALUES (?, ?, ?, ?)",
            (key, kind, label, json.dumps(payload)),
        )
        self._written.add(key)

    def __len__(self) -> int:
        return int(self._connection.execute("SELECT COUNT(*) FROM points").fetchone()[0])

    def close(self) -> None:
        """Close the database (every point is already committed)."""
        self._connection.close()

    def __enter__(self) -> PointStore:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:  # fmt: skip
        self.close()
