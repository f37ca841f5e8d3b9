"""Reading a config: TOML, ``--set KEY=VALUE`` overrides, validation, and errors naming the key.

pydantic's errors become one :class:`~relplan.errors.ConfigError` naming the dotted key at
fault; the checks between keys (:mod:`relplan.config.checks`) run after the schema's.
"""

from __future__ import annotations

import copy
import tomllib
from pathlib import Path
from typing import Any

from pydantic import (
    ValidationError,
)

from relplan.config.checks import check_consistency
from relplan.config.schema import RelplanConfig
from relplan.errors import ConfigError


def _raw_value(document: dict[str, Any] | None, loc: tuple[Any, ...]) -> Any:
    """The value at ``loc`` as the user wrote it (before units were converted), or None."""
    value: Any = document
    for part in loc:
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return value


UNION_TAGS = frozenset({"parts", "duration"})
"""Tags pydantic puts in an error's location after ``job.restart`` for the form it took (a
table of parts, or one duration): not keys, so left out of the key an error names."""


def _describe(
    error: Any, root: tuple[str, ...], document: dict[str, Any] | None = None
) -> tuple[str, str]:
    raw = tuple(error["loc"])
    loc = tuple(part for k, part in enumerate(raw)
                if not (part in UNION_TAGS and k > 0 and raw[k - 1] == "restart"))
    error = {**error, "loc": loc}
    key = ".".join(str(part) for part in (*root, *loc)) or "(config)"
    kind = error["type"]
    message = error["msg"]
    if kind == "extra_forbidden":
        message = "unknown key"
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
    error: ValidationError, root: tuple[str, ...] = (), document: dict[str, Any] | None = None
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

    Returns
    -------
    ConfigError
        Naming the first wrong dotted key; its message lists any others.
    """
    problems = [_describe(e, root, document) for e in error.errors()]
    key, message = problems[0]
    for other_key, other_message in problems[1:]:
        message += f"; {other_key}: {other_message}"
    return ConfigError(key, message)


def _parse_override_value(text: str) -> Any:
    """A ``--set`` value: a TOML value when it parses as one, else the plain string."""
    try:
        return tomllib.loads(f"value = {text}")["value"]
    except tomllib.TOMLDecodeError:
        return text


EXCLUSIVE_OVERRIDES = {"job.work": "job.horizon", "job.horizon": "job.work"}
"""Keys of which a config holds exactly one: ``--set`` of one drops the other, so that
``--set job.horizon=28d`` turns a job of fixed work into a calendar window."""


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
        table[parts[-1]] = _parse_override_value(text.strip())
        rival = EXCLUSIVE_OVERRIDES.get(key)
        if rival is not None:  # setting one of two exclusive keys drops the other
            rival_table, _, rival_key = rival.rpartition(".")
            document.get(rival_table, {}).pop(rival_key, None)
    return document


def parse_config(raw: dict[str, Any], overrides: list[str] | None = None) -> RelplanConfig:
    """Validate a raw config mapping, after applying ``--set`` overrides.

    Raises
    ------
    ConfigError
        Naming the first wrong key; the message lists any others.
    """
    document = apply_overrides(raw, list(overrides or []))
    try:
        config = RelplanConfig.model_validate(document)
    except ValidationError as error:
        raise config_error(error, document=document) from None
    config._source_document = document
    check_consistency(config)
    return config


def load_config(path: str | Path, overrides: list[str] | None = None) -> RelplanConfig:
    """Read, override and validate a TOML config file.

    Parameters
    ----------
    path : str or Path
        The TOML file.
    overrides : list of str, optional
        ``KEY=VALUE`` items with dotted keys, applied before validation.

    Returns
    -------
    RelplanConfig
        The validated, immutable config.

    Raises
    ------
    ConfigError
        If the file is missing or malformed, or any key is unknown or wrong.

    Examples
    --------
    >>> config = load_config("configs/small.toml", ["job.spares=2"])
    >>> config.job.gpus, config.job.spares
    (512, 2)
    """
    return parse_config(read_toml(path, "CONFIG"), overrides)


def config_hint(document: dict[str, Any]) -> str:
    """What to say of a document given where a study or plan was expected: when its
    tables are a config's, that it is one and where a config goes (else nothing).

    Examples
    --------
    >>> config_hint({"cluster": {}, "job": {}})
    ': it is a config: run it with relplan simulate, or name it as the base of a study'
    """
    tables = set(document)
    if tables and tables <= set(RelplanConfig.model_fields):
        return ": it is a config: run it with relplan simulate, or name it as the base of a study"
    return ""


def read_toml(path: str | Path, key: str) -> dict[str, Any]:
    """Read a TOML file; a missing, unreadable or malformed file is a :class:`ConfigError`.

    Parameters
    ----------
    path : str or Path
        The file.
    key : str
        What the error names (the argument, such as ``CONFIG``, or a key).

    Returns
    -------
    dict
        The parsed document.
    """
    file = Path(path)
    if file.is_dir():
        raise ConfigError(key, f"{file} is a folder, not a TOML file")
    if not file.exists():
        raise ConfigError(key, f"no such file: {file}")
    try:
        text = file.read_text(encoding="utf-8")  # a pipe (<(...)) is read like a file
        if not text.strip():
            kind = "file" if file.is_file() else "special file (not a regular file)"
            raise ConfigError(key, f"{file} is an empty {kind}: it holds no TOML")
        return tomllib.loads(text)
    except OSError as error:
        raise ConfigError(key, f"{file} cannot be read: {error.strerror or error}") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(key, f"{file} is not valid TOML: {error}") from None
    except UnicodeDecodeError:
        raise ConfigError(key, f"{file} is not UTF-8 text") from None
