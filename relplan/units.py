"""Parsing of quantities with units: durations, sizes, bandwidths and fractions.

Inside relplan every duration is a float in hours, every size in bytes and every
bandwidth in bytes per second. Configs and command lines always carry a unit
("90s", "30min", "2h", "54d", "5y"), so a bare number is rejected where a
duration is expected: a silent unit mistake is worse than an error.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable

HOURS_PER_YEAR = 8766.0
"""Hours in a Julian year (365.25 days), the convention of AFR and MTBF tables."""

SECONDS_PER_HOUR = 3600.0
"""Seconds in an hour."""

MAX_DURATION_HOURS = 1e9 * HOURS_PER_YEAR
"""The longest duration relplan reads (a billion years): enough for an MTBF meaning
"never", short enough that sums of durations stay far from overflowing."""

_DURATION_HOURS: dict[str, float] = {
    "ns": 1e-9 / 3600.0,
    "us": 1e-6 / 3600.0,
    "µs": 1e-6 / 3600.0,
    "ms": 1e-3 / 3600.0,
    "s": 1.0 / 3600.0,
    "sec": 1.0 / 3600.0,
    "secs": 1.0 / 3600.0,
    "second": 1.0 / 3600.0,
    "seconds": 1.0 / 3600.0,
    "min": 1.0 / 60.0,
    "mins": 1.0 / 60.0,
    "minute": 1.0 / 60.0,
    "minutes": 1.0 / 60.0,
    "h": 1.0,
    "hr": 1.0,
    "hrs": 1.0,
    "hour": 1.0,
    "hours": 1.0,
    "d": 24.0,
    "day": 24.0,
    "days": 24.0,
    "w": 168.0,
    "wk": 168.0,
    "week": 168.0,
    "weeks": 168.0,
    "y": HOURS_PER_YEAR,
    "yr": HOURS_PER_YEAR,
    "yrs": HOURS_PER_YEAR,
    "year": HOURS_PER_YEAR,
    "years": HOURS_PER_YEAR,
}

_SIZE_BYTES: dict[str, float] = {
    "b": 1.0,
    "kb": 1e3,
    "mb": 1e6,
    "gb": 1e9,
    "tb": 1e12,
    "pb": 1e15,
    "kib": 2.0**10,
    "mib": 2.0**20,
    "gib": 2.0**30,
    "tib": 2.0**40,
}

_BANDWIDTH_BYTES_PER_S: dict[str, float] = {
    "b/s": 1.0,
    "kb/s": 1e3,
    "mb/s": 1e6,
    "gb/s": 1e9,
    "tb/s": 1e12,
    "bps": 1.0 / 8.0,
    "kbps": 1e3 / 8.0,
    "mbps": 1e6 / 8.0,
    "gbps": 1e9 / 8.0,
    "tbps": 1e12 / 8.0,
    "g": 1e9 / 8.0,
}

_QUANTITY = re.compile(r"^\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*([^\d\s].*?)?\s*$")


class UnitError(ValueError):
    """A quantity that cannot be read: no unit, an unknown unit or not a number."""


class Quantity(float):
    """A number in relplan's unit (hours, bytes, bytes per second) read from a text with
    its own unit, which it keeps: ``"12.749y"`` is 111757.734 hours and writes back as
    ``"12.749y"``.

    It is the float it holds for every purpose (arithmetic, comparison, hashing, JSON,
    NumPy, numba): two quantities of equal value are equal whatever their texts, and the
    result of arithmetic on one is a plain float. Only the writers of config text
    (:meth:`relplan.config.schema.RelplanConfig.to_toml`) read :attr:`text`.

    Parameters
    ----------
    value : float
        The number, in relplan's unit.
    text : str
        The text it was read from; it must read back to ``value``.

    Examples
    --------
    >>> mtbf = Quantity(parse_duration_hours("12.749y"), "12.749y")
    >>> mtbf, mtbf.text, mtbf == 111757.73400000001, mtbf * 2 == 2 * float(mtbf)
    (111757.73400000001, '12.749y', True, True)
    """

    __slots__ = ("text",)
    text: str

    def __new__(cls, value: float, text: str) -> Quantity:
        quantity = super().__new__(cls, value)
        quantity.text = text
        return quantity

    def __reduce__(self) -> tuple[type[Quantity], tuple[float, str]]:
        return type(self), (float(self), self.text)


def _split(text: str) -> tuple[float, str]:
    match = _QUANTITY.match(text)
    if match is None:
        raise UnitError(f"{text!r} is not a number with a unit")
    number = float(match.group(1))
    if not math.isfinite(number):
        raise UnitError(f"{text!r} is too large to be a number")
    return number, (match.group(2) or "")


def parse_duration_hours(value: str | float | int) -> float:
    """Read a duration with a unit and return it in hours.

    Parameters
    ----------
    value : str
        A number followed by a unit: ``ns us ms s min h d w y`` and their long
        forms ("90s", "30min", "2h", "54d", "5y"). A year is 365.25 days.
        A bare number is refused, because its unit would be a guess.

    Returns
    -------
    float
        The duration in hours.

    Raises
    ------
    UnitError
        If the text has no unit, an unknown unit, or is not a number.

    Examples
    --------
    >>> parse_duration_hours("90min"), parse_duration_hours("2d")
    (1.5, 48.0)
    """
    if isinstance(value, bool) or not isinstance(value, str):
        raise UnitError(
            f'{value!r} has no unit: write a duration such as "90s", "30min", "2h", "54d" or "5y"'
        )
    number, unit = _split(value)
    if unit == "":
        raise UnitError(
            f'{value!r} has no unit: write a duration such as "90s", "30min", "2h", "54d" or "5y"'
        )
    if unit == "m":
        raise UnitError(f"{value!r}: 'm' is ambiguous, write 'min' for minutes")
    factor = _DURATION_HOURS.get(unit.lower() if unit != "µs" else unit)
    if factor is None:
        known = "ns, us, ms, s, min, h, d, w, y"
        raise UnitError(f"{value!r}: unknown duration unit {unit!r} (known: {known})")
    if not abs(number * factor) <= MAX_DURATION_HOURS:
        raise UnitError(f"{value!r} is too long to be a duration (at most 1e9 years)")
    return number * factor


def parse_fraction(value: str | float | int) -> float:
    """Read a fraction given as a number (0.05) or a percentage ("5%").

    Parameters
    ----------
    value : str or float
        The fraction, as a plain number or a string ending in ``%``.

    Returns
    -------
    float
        The fraction as a plain number (``"5%"`` gives 0.05).

    Examples
    --------
    >>> parse_fraction("5%"), parse_fraction(0.25)
    (0.05, 0.25)
    """
    if isinstance(value, bool):
        raise UnitError(f"{value!r} is not a fraction")
    if isinstance(value, int | float):
        return float(value)
    if not isinstance(value, str):
        raise UnitError(f'{value!r} is not a fraction: write a number or a percentage ("5%")')
    number, unit = _split(value)
    if unit == "":
        return number
    if unit == "%":
        return number / 100.0
    raise UnitError(f'{value!r}: a fraction is a plain number or a percentage such as "5%"')


def _times_unit(
    value: object,
    factors: dict[str, float],
    unit_of: Callable[[str], str],
    unit_name: str,
    known: str,
    too_large: str,
    example: str = "",
) -> float:
    """A quantity with a unit (a size, a count, a bandwidth) times its unit's factor.

    ``value`` must be a string (one without a unit is refused, naming ``example``); its
    unit, as ``unit_of`` spells it, a key of ``factors`` (an error names ``unit_name`` and
    the ``known`` units); and the product finite (else the error says ``too_large``).
    """
    if not isinstance(value, str):
        raise UnitError(f'{value!r} has no unit: write a {unit_name.split()[0]} such as '
                        f'"{example}"')  # fmt: skip
    number, unit = _split(value)
    factor = factors.get(unit_of(unit))
    if factor is None:
        raise UnitError(f"{value!r}: unknown {unit_name} {unit!r} (known: {known})")
    if not math.isfinite(number * factor):
        raise UnitError(f"{value!r} is {too_large}")
    return number * factor


def parse_size_bytes(value: str | float | int) -> float:
    """Read a size with a unit ("4GB", "700 GiB") and return bytes.

    Parameters
    ----------
    value : str
        A number followed by B, KB, MB, GB, TB, PB (powers of 1000) or
        KiB, MiB, GiB, TiB (powers of 1024).

    Returns
    -------
    float
        The size in bytes.

    Examples
    --------
    >>> parse_size_bytes("4GB")
    4000000000.0
    """
    return _times_unit(value, _SIZE_BYTES, str.lower, "size unit", "B, KB, MB, GB, TB, GiB",
                       "too large to be a size", example="4GB")  # fmt: skip


_COUNT_FACTOR = {"": 1.0, "k": 1e3, "m": 1e6, "b": 1e9, "g": 1e9, "t": 1e12}


def parse_count(value: str | float | int) -> float:
    """Read a large count, a plain number or one with a decimal suffix ("15T", "2M").

    Parameters
    ----------
    value : str or number
        A number, or a number followed by K (1e3), M (1e6), B or G (1e9) or T (1e12).

    Returns
    -------
    float
        The count.

    Examples
    --------
    >>> parse_count("15T"), parse_count(2e6)
    (15000000000000.0, 2000000.0)
    """
    if isinstance(value, bool):
        raise UnitError(f"{value!r} is not a count")
    if not isinstance(value, str):
        return float(value)
    return _times_unit(value, _COUNT_FACTOR, str.lower, "count suffix", "K, M, B, T", "too large")


def parse_bandwidth_bytes_per_s(value: str | float | int) -> float:
    """Read a bandwidth ("400Gbps", "50GB/s") and return bytes per second.

    Parameters
    ----------
    value : str
        A number followed by a bit rate (bps, Kbps, Mbps, Gbps, Tbps) or a byte
        rate (B/s, KB/s, MB/s, GB/s, TB/s).

    Returns
    -------
    float
        The bandwidth in bytes per second.

    Examples
    --------
    >>> parse_bandwidth_bytes_per_s("400Gbps")
    50000000000.0
    """
    return _times_unit(value, _BANDWIDTH_BYTES_PER_S, _bandwidth_unit, "bandwidth unit",
                       "Gbps, GB/s, ...", "too large to be a bandwidth",
                       example="400Gbps")  # fmt: skip


def _bandwidth_unit(unit: str) -> str:
    """A bandwidth unit as :data:`_BANDWIDTH_BYTES_PER_S` spells it: lower case, no space."""
    return unit.lower().replace(" ", "")


def format_duration(hours: float) -> str:
    """Format a duration in hours with the unit that reads best.

    Parameters
    ----------
    hours : float
        Duration, hours.

    Returns
    -------
    str
        For example ``"30 s"``, ``"12.5 min"``, ``"3.10 h"``, ``"54.0 d"``, ``"5.00 y"``;
        ``"never"`` for an infinite time.

    Examples
    --------
    >>> format_duration(0.5), format_duration(30.0), format_duration(float("inf"))
    ('30 min', '30 h', 'never')
    """
    magnitude = abs(hours)
    if math.isinf(magnitude):
        return "never"
    if magnitude < 1.0 / 60.0:
        return f"{hours * 3600.0:.3g} s"
    if magnitude < 1.0:
        return f"{hours * 60.0:.3g} min"
    if magnitude < 48.0:
        return f"{hours:.3g} h"
    if magnitude < 2.0 * HOURS_PER_YEAR:
        return f"{hours / 24.0:.3g} d"
    return f"{hours / HOURS_PER_YEAR:.3g} y"
BITS_PER_BYTE = 8.0


def format_seconds(seconds: float) -> str:
    """Format a short time in seconds as s, ms or us, three significant digits.

    Examples
    --------
    >>> format_seconds(2.5e-5), format_seconds(0.0123), format_seconds(3.5)
    ('25 us', '12.3 ms', '3.5 s')
    """
    if seconds == 0:
        return "0"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.3g} us"
    if seconds < 1.0:
        return f"{seconds * 1e3:.3g} ms"
    return f"{seconds:.3g} s"


def format_bytes(size_bytes: float) -> str:
    """Format a size in bytes with a decimal unit (KB ... PB), three significant digits.

    Examples
    --------
    >>> format_bytes(4e9), format_bytes(3.5e15), format_bytes(512)
    ('4 GB', '3.5 PB', '512 B')
    """
    for unit, size in (("PB", 1e15), ("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if abs(size_bytes) >= size:
            return f"{size_bytes / size:.3g} {unit}"
    return f"{size_bytes:.3g} B"


def format_money(amount: float, currency: str = "") -> str:
    """Format a currency amount in a few characters: three significant digits and k, M
    or G, after the currency's symbol when one is given.

    Examples
    --------
    >>> format_money(1.25e6), format_money(-3.5e4), format_money(900)
    ('1.25M', '-35k', '900')
    >>> format_money(-2.05e6, "$")
    '-$2.05M'
    """
    sign, size_text = ("-" if amount < 0 else ""), abs(amount)
    for unit, size in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if size_text >= size:
            return f"{sign}{currency}{size_text / size:.3g}{unit}"
    return f"{sign}{currency}{size_text:.3g}"
