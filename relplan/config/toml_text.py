"""Writing TOML: the one home of relplan's TOML writer (Python's ``tomllib`` only reads).

A config written back (:meth:`~relplan.config.schema.RelplanConfig.to_toml`), a ``--set``
value built from a Python value, a fitted lifetime line and a recalibrated config are all
written here, so that each reads back as what was written.
"""

from __future__ import annotations

import json
import math
import re
from datetime import datetime
from typing import Any

_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def toml_key(key: str) -> str:
    """A TOML key: bare when it can be, else quoted.

    Examples
    --------
    >>> toml_key("gpu"), toml_key("dual ToR")
    ('gpu', '"dual ToR"')
    """
    return key if _BARE_KEY.match(key) else json.dumps(key, ensure_ascii=False)


def toml_value(value: Any) -> str:
    """A TOML value: a string, number, boolean, date-time, array or inline table.

    Parameters
    ----------
    value : str, int, float, bool, datetime, list or dict
        NumPy scalars are written as the Python number they hold.

    Returns
    -------
    str
        TOML text that :func:`tomllib.loads` reads back as ``value``.

    Raises
    ------
    TypeError
        For a value TOML has no form for (None, an object).

    Examples
    --------
    >>> toml_value("30min"), toml_value(0.25), toml_value(True), toml_value([1, 2])
    ('"30min"', '0.25', 'true', '[1, 2]')
    >>> toml_value({"dist": "exponential", "mtbf": "5y"})
    '{ dist = "exponential", mtbf = "5y" }'
    """
    if hasattr(value, "item") and not isinstance(value, list | dict | str):
        value = value.item()  # a NumPy scalar
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, list | tuple):
        return "[" + ", ".join(toml_value(item) for item in value) + "]"
    if isinstance(value, dict):
        items = ", ".join(f"{toml_key(k)} = {toml_value(v)}" for k, v in value.items())
        return "{ " + items + " }" if items else "{}"
    raise TypeError(f"no TOML form for {value!r}")


def toml_document(document: dict[str, Any]) -> str:
    """Write a parsed TOML document back as TOML text (comments are not kept).

    Top-level tables get ``[headers]``; inside a table, a table that holds no table is
    written inline (``lifetime = { dist = ..., ... }``), one that does gets a header.

    Parameters
    ----------
    document : dict
        As :func:`tomllib.loads` returns it.

    Returns
    -------
    str
        TOML text that :func:`tomllib.loads` reads back as ``document``.

    Examples
    --------
    >>> import tomllib
    >>> text = toml_document({"name": "x", "failures": {"gpu": {"lifetime": {"dist": "fixed",
    ...                       "mean": "1h"}}}})
    >>> print(text.strip())
    name = "x"
    <BLANKLINE>
    [failures.gpu]
    lifetime = { dist = "fixed", mean = "1h" }
    >>> tomllib.loads(text)["failures"]["gpu"]["lifetime"]["mean"]
    '1h'
    """
    lines: list[str] = []

    def is_header_table(value: Any, depth: int) -> bool:
        if not isinstance(value, dict):
            return False
        return depth == 0 or any(isinstance(item, dict) for item in value.values())

    def write_table(path: tuple[str, ...], table: dict[str, Any]) -> None:
        depth = len(path)
        values = [(k, v) for k, v in table.items() if not is_header_table(v, depth)]
        tables = [(k, v) for k, v in table.items() if is_header_table(v, depth)]
        if path and (values or not tables):
            if lines:
                lines.append("")
            lines.append("[" + ".".join(toml_key(part) for part in path) + "]")
        lines.extend(f"{toml_key(key)} = {toml_value(value)}" for key, value in values)
        for key, value in tables:
            write_table((*path, key), value)

    write_table((), document)
    return "\n".join(lines) + "\n"
