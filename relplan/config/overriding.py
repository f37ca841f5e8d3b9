"""Config documents before validation: ``KEY=VALUE`` overrides, and pydantic's errors as
one :class:`~relplan.errors.ConfigError` naming the dotted key (with the nearest known key
when a key is unknown).

Below the schema on purpose: :meth:`~relplan.config.schema.RelplanConfig.with_overrides`
and :mod:`relplan.config.loading` both use it.
"""

from __future__ import annotations

import copy
import difflib
import tomllib
import types
import typing
from typing import Any

from pydantic import BaseModel, ValidationError

from relplan.config.toml_text import toml_value
from relplan.errors import ConfigError


def _raw_value(document: dict[str, Any] | None, loc: tuple[Any, ...]) -> Any:
    """The value at ``loc`` as the user wrote it (before units were converted), or None."""
    value: Any = document
    for part in loc:
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return value


UNION_TAGS: dict[str, frozenset[str]] = {
    "restart": frozenset({"parts", "duration"}),
    "init_scaling": frozenset({"power law", "name"}),
    "load": frozenset({"distribution", "measured", "duration"}),
    "write": frozenset({"distribution", "measured", "duration"}),
}
"""Tags pydantic puts in an error's location after a key that takes one of two forms, for
the form it took: ``job.restart`` (a table of parts, or one duration),
``job.restart.init_scaling`` (a power-law table, or a name), ``job.restart.load`` and
``job.checkpoint.write`` (``fast.write``): a distribution, measured durations, or one
duration. Not keys, so left out of the key an error names."""


def _models_in(annotation: Any) -> list[Any]:
    """The pydantic models and ``dict`` value types an annotation may hold."""
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _models_in(typing.get_args(annotation)[0])
    if origin in (typing.Union, types.UnionType):
        return [m for arg in typing.get_args(annotation) for m in _models_in(arg)]
    if origin is dict:
        return [("dict", typing.get_args(annotation)[1])]
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return []


def known_keys(model: type[BaseModel], path: tuple[Any, ...]) -> list[str]:
    """The keys a config table at ``path`` may hold.

    Parameters
    ----------
    model : type
        The pydantic model of the whole document (such as ``RelplanConfig``).
    path : tuple
        Keys from the top of the document to the table (a ``failures`` entry's name
        included).

    Returns
    -------
    list of str
        The table's field names; empty when ``path`` leads to no table.

    Examples
    --------
    >>> from relplan.config.schema import RelplanConfig
    >>> "spares" in known_keys(RelplanConfig, ("job",))
    True
    >>> "dist" in known_keys(RelplanConfig, ("failures", "gpu", "lifetime"))
    True
    """
    current: list[Any] = [model]
    for part in path:
        following: list[Any] = []
        for item in current:
            if isinstance(item, tuple):  # a dict: any name leads to its value type
                following.extend(_models_in(item[1]))
            elif part in item.model_fields:
                following.extend(_models_in(item.model_fields[part].annotation))
        current = following
    return sorted({name for item in current if not isinstance(item, tuple)
                   for name in item.model_fields})  # fmt: skip


def _describe(
    error: Any,
    root: tuple[str, ...],
    document: dict[str, Any] | None = None,
    model: type[BaseModel] | None = None,
) -> tuple[str, str]:
    raw = tuple(error["loc"])
    loc = tuple(part for k, part in enumerate(raw)
                if not (k > 0 and part in UNION_TAGS.get(raw[k - 1], ())))
    error = {**error, "loc": loc}
    key = ".".join(str(part) for part in (*root, *loc)) or "(config)"
    kind = error["type"]
    message = error["msg"]
    if kind == "extra_forbidden":
        message = "unknown key"
        known = known_keys(model, loc[:-1]) if model is not None and loc else []
        nearest = difflib.get_close_matches(str(loc[-1]), known, n=1, cutoff=0.6)
        if nearest:
            message += f"; did you mean {'.'.join(str(p) for p in (*root, *loc[:-1], nearest[0]))}?"
    elif kind == "missing":
        message = "is required but missing"
    elif message.startswith("Value error, "):
        message = message[len("Value error, ") :]
    elif kind in ("model_type", "model_attributes_type", "dict_type"):
        message = f"should be a table (got {error.get('input')!r})"
    else:
        # a bound, a type or a choice: say what was typed
        typed = _raw_value(document, tuple(error["loc"]))
        shown = typed if typed is not None else error.get("input")
        message = f"{message[0].lower()}{message[1:]} (got {shown!r})"
    return key, message


def config_error(
    error: ValidationError,
    root: tuple[str, ...] = (),
    document: dict[str, Any] | None = None,
    model: type[BaseModel] | None = None,
) -> ConfigError:
    """One :class:`~relplan.errors.ConfigError` for all that pydantic found wrong.

    Parameters
    ----------
    error : pydantic.ValidationError
        From validating a config or study table.
    root : tuple of str
        Keys above the validated table (``("study",)`` for a study file).
    document : dict, optional
        The validated document, so that a value is echoed as the user wrote it.
    model : type, optional
        The model validated, so that an unknown key gets the nearest known one
        ("did you mean ...?").

    Returns
    -------
    ConfigError
        Naming the first wrong dotted key; its message lists any others.
    """
    problems = [_describe(e, root, document, model) for e in error.errors()]
    key, message = problems[0]
    for other_key, other_message in problems[1:]:
        message += f"; {other_key}: {other_message}"
    return ConfigError(key, message)


def parse_override_value(text: str) -> Any:
    """A ``--set`` value: a TOML value when it parses as one, else the plain string."""
    try:
        return tomllib.loads(f"value = {text}")["value"]
    except tomllib.TOMLDecodeError:
        return text


_WORK_OVERRIDES = ("job.work", "job.steps", "job.tokens", "job.horizon")
EXCLUSIVE_OVERRIDES = {
    key: tuple(other for other in _WORK_OVERRIDES if other != key) for key in _WORK_OVERRIDES
}
"""Keys of which a config holds exactly one: ``--set`` of one drops the others, so that
``--set job.horizon=28d`` turns a job of fixed work into a calendar window and
``--set job.steps=100000`` one of fixed hours into one of fixed steps."""


def apply_overrides(raw: dict[str, Any], overrides: list[str]) -> dict[str, Any]:
    """Apply ``KEY=VALUE`` overrides with dotted keys to a raw config mapping.

    Parameters
    ----------
    raw : dict
        The parsed TOML document (not modified).
    overrides : list of str
        Items such as ``"job.checkpoint.interval=30min"`` or ``"cluster.servers=256"``.

    Returns
    -------
    dict
        A new mapping with the overrides applied.

    Raises
    ------
    ConfigError
        If an item has no ``=`` or its key runs through a value that is not a table.
    """
    document = copy.deepcopy(raw)
    for item in overrides:
        key, sep, text = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ConfigError("--set", f"{item!r} is not KEY=VALUE (for example job.work=30d)")
        parts = key.split(".")
        table = document
        for depth, part in enumerate(parts[:-1]):
            child = table.setdefault(part, {})
            if not isinstance(child, dict):
                raise ConfigError(".".join(parts[: depth + 1]), "is a value, not a table")
            table = child
        table[parts[-1]] = parse_override_value(text.strip())
        for rival in EXCLUSIVE_OVERRIDES.get(key, ()):  # one of exclusive keys drops the others
            rival_table, _, rival_key = rival.rpartition(".")
            document.get(rival_table, {}).pop(rival_key, None)
    return document


def override_items(items: list[str] | dict[str, Any]) -> list[str]:
    """``KEY=VALUE`` items from a list of them or a dict of dotted keys to values.

    Examples
    --------
    >>> override_items({"job.checkpoint.interval": "30min", "job.spares": 2})
    ['job.checkpoint.interval="30min"', 'job.spares=2']
    >>> override_items(["job.spares=2"])
    ['job.spares=2']
    """
    if isinstance(items, dict):
        return [f"{key}={toml_value(value)}" for key, value in items.items()]
    if isinstance(items, str):
        raise ConfigError("overrides", f"give a list of KEY=VALUE items, not a string ({items!r})")
    return list(items)
