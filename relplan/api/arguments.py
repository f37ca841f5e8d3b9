"""The arguments the API functions share, checked once, before any work.

:class:`RunArguments` is the one check: a wrong argument is one
:class:`~relplan.errors.ConfigError` naming it (``trials``, ``seed``, ``workers``,
``samples``, ``dask``, ``store``, ``fresh``, ``overrides``) and saying what it must be, as
the command line's options are checked. ``trials="100"``, ``trials=0``, ``seed=-1``,
``workers=0`` and ``trials=True`` are refused; an integer of numpy's is a whole number.
"""

from __future__ import annotations

import numbers
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from relplan.errors import ConfigError
from relplan.runs.store import STORE_NAME, PointStore

__all__ = ["RunArguments", "whole_number"]


def whole_number(name: str, value: Any, least: int) -> int | None:
    """``value`` as an int when it is a whole number of at least ``least`` (None stays
    None: the config's value).

    Parameters
    ----------
    name : str
        The argument, named by the error.
    value : object
        What was given: an int (numpy's too), or None.
    least : int
        The smallest value allowed.

    Returns
    -------
    int or None

    Raises
    ------
    ConfigError
        Naming ``name``, for a bool, a str, a float or any other type, or a number below
        ``least``.

    Examples
    --------
    >>> whole_number("trials", 100, 1), whole_number("trials", None, 1)
    (100, None)
    >>> whole_number("trials", "100", 1)
    Traceback (most recent call last):
    ...
    relplan.errors.ConfigError: trials: must be a whole number of at least 1, not a str ('100')
    """
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ConfigError(name, f"must be a whole number of at least {least}, not a "
                                f"{type(value).__name__} ({value!r})")  # fmt: skip
    if value < least:
        raise ConfigError(name, f"must be at least {least} (got {int(value)})")
    return int(value)


def _dask(value: Any) -> Any:
    if value is None:
        return None
    if isinstance(value, str):
        if not value.strip():
            raise ConfigError("dask", 'give "local" or a scheduler address such as '
                                      "tcp://10.0.0.1:8786 (got an empty string)")  # fmt: skip
        return value
    from distributed import Client

    if isinstance(value, Client):
        return value
    raise ConfigError("dask", f'must be "local", a scheduler address or a distributed.Client, '
                              f"not a {type(value).__name__}")  # fmt: skip


def _store(value: Any) -> Path | PointStore | None:
    if value is None or isinstance(value, PointStore):
        return value
    if isinstance(value, str | os.PathLike):
        path = Path(value)
        return path / STORE_NAME if path.is_dir() or not path.suffix else path
    raise ConfigError("store", "must be a folder (its points.sqlite), the store's file or a "
                               f"PointStore, not a {type(value).__name__}")  # fmt: skip


def _overrides(value: Any) -> list[str] | dict[str, Any] | None:
    if value is None:
        return None
    if isinstance(value, Mapping):
        bad = next((key for key in value if not isinstance(key, str)), None)
        if bad is not None:
            raise ConfigError("overrides", f"a dict's keys are dotted config keys (strings), "
                                           f"not {bad!r}")  # fmt: skip
        return dict(value)
    if isinstance(value, str):
        raise ConfigError("overrides", f"give a list of KEY=VALUE items ([{value!r}]) or a "
                                       "dict of keys to values, not one string")  # fmt: skip
    if isinstance(value, list | tuple):
        bad = next((item for item in value if not isinstance(item, str)), None)
        if bad is not None:
            raise ConfigError("overrides", f"each item is a KEY=VALUE string, not {bad!r}")
        return list(value)
    raise ConfigError("overrides", "give a list of KEY=VALUE items or a dict of keys to "
                                   f"values, not a {type(value).__name__}")  # fmt: skip


@dataclass(frozen=True)
class RunArguments:
    """The run arguments of one API call, checked (see the module).

    Each is None (or False) when not given: the config's value, or nothing.

    Attributes
    ----------
    trials : int, optional
        Trials (per interval, scenario, point or portfolio), at least 1.
    seed : int, optional
        The seed, at least 0.
    workers : int, optional
        Threads or points at once, at least 1.
    samples : int, optional
        Job start times a replay draws, at least 1.
    dask : str or distributed.Client, optional
        ``"local"``, a scheduler address (checked when the run connects), or a client
        already connected.
    store : Path or PointStore, optional
        The store of finished points: its file. Given as a folder (a path without a
        suffix, or an existing folder), the folder's
        :data:`~relplan.runs.store.STORE_NAME`, as ``--out`` keeps it; given as a file
        (``runs.sqlite``), that file; or a store already open.
    fresh : bool
        Ignore the points stored before (only with a store given as a path).
    overrides : list of str or dict, optional
        ``KEY=VALUE`` items, or dotted keys to values.

    Raises
    ------
    ConfigError
        Naming the first argument that is wrong.

    Examples
    --------
    >>> RunArguments(trials=100, seed=0).trials
    100
    >>> RunArguments(workers=0)
    Traceback (most recent call last):
    ...
    relplan.errors.ConfigError: workers: must be at least 1 (got 0)
    """

    trials: int | None = None
    seed: int | None = None
    workers: int | None = None
    samples: int | None = None
    dask: Any = None
    store: Path | PointStore | None = None
    fresh: bool = False
    overrides: list[str] | dict[str, Any] | None = None

    def __post_init__(self) -> None:
        checked = {
            "trials": whole_number("trials", self.trials, 1),
            "seed": whole_number("seed", self.seed, 0),
            "workers": whole_number("workers", self.workers, 1),
            "samples": whole_number("samples", self.samples, 1),
            "dask": _dask(self.dask),
            "store": _store(self.store),
            "overrides": _overrides(self.overrides),
        }
        if not isinstance(self.fresh, bool):
            raise ConfigError("fresh", f"must be True or False, not {self.fresh!r}")
        if self.fresh and not isinstance(checked["store"], Path):
            raise ConfigError("fresh", "ignores the points of a store given as a path; "
                                       "without one (or with a PointStore, opened fresh "
                                       "or not by its maker) it has nothing to do")
        for name, value in checked.items():
            object.__setattr__(self, name, value)
