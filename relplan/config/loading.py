"""Reading a config: a TOML file or text, ``--set KEY=VALUE`` overrides, validation.

Validation is :meth:`RelplanConfig.from_document
<relplan.config.schema.RelplanConfig.from_document>`: the schema's checks of each key, then
the checks between keys (:mod:`relplan.config.checks`), every mistake one
:class:`~relplan.errors.ConfigError` naming the dotted key at fault.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from relplan.config.overriding import apply_overrides, config_error
from relplan.config.schema import RelplanConfig
from relplan.errors import ConfigError

__all__ = [
    "SHIPPED_CONFIGS",
    "SHIPPED_STUDIES",
    "apply_overrides",
    "config_error",
    "load_config",
    "loads_config",
    "parse_config",
    "read_toml",
]

SHIPPED_CONFIGS = Path(__file__).resolve().parents[2] / "configs"
"""The configs shipped with relplan (``configs/*.toml`` of its source tree)."""

SHIPPED_STUDIES = Path(__file__).resolve().parents[2] / "studies"
"""The studies and plans shipped with relplan (``studies/*.toml``); their bases are
shipped configs."""


def parse_config(raw: dict[str, Any], overrides: list[str] | None = None) -> RelplanConfig:
    """Validate a raw config mapping, after applying ``--set`` overrides.

    Parameters
    ----------
    raw : dict
        A parsed TOML document (not modified).
    overrides : list of str, optional
        ``KEY=VALUE`` items with dotted keys, applied before validation.

    Returns
    -------
    RelplanConfig
        The validated, immutable config.

    Raises
    ------
    ConfigError
        Naming the first wrong key; the message lists any others.

    Examples
    --------
    >>> document = {"cluster": {"servers": 4},
    ...             "job": {"gpus": 8, "work": "1d", "checkpoint": {"interval": "1h"}}}
    >>> parse_config(document, ["job.gpus=16"]).job.gpus
    16
    """
    return RelplanConfig.from_document(apply_overrides(raw, list(overrides or [])))


def loads_config(text: str, overrides: list[str] | None = None) -> RelplanConfig:
    """Read, override and validate a config from TOML text (the inverse of
    :meth:`~relplan.config.schema.RelplanConfig.to_toml`).

    Parameters and return as :func:`parse_config`, with ``text`` (str), a config's TOML
    text, in place of ``raw``.

    Raises
    ------
    ConfigError
        If the text is not TOML (named ``CONFIG``), or any key is unknown or wrong.

    Examples
    --------
    >>> config = load_config("configs/small.toml")
    >>> loads_config(config.to_toml()) == config
    True
    """
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError("CONFIG", f"not valid TOML: {error}") from None
    return parse_config(document, overrides)


def load_config(path: str | Path, overrides: list[str] | None = None) -> RelplanConfig:
    """Read, override and validate a TOML config file.

    Parameters and return as :func:`parse_config`, with ``path`` (str or Path), the TOML
    file, in place of ``raw``.

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
