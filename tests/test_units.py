"""Durations, fractions, sizes and bandwidths with units."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from relplan.units import (
    HOURS_PER_YEAR,
    UnitError,
    format_duration,
    parse_bandwidth_bytes_per_s,
    parse_duration_hours,
    parse_fraction,
    parse_size_bytes,
)


@pytest.mark.parametrize(
    ("text", "hours"),
    [
        ("90s", 90 / 3600),
        ("30min", 0.5),
        ("2h", 2.0),
        ("54d", 54 * 24.0),
        ("5y", 5 * 8766.0),
        ("1.5 h", 1.5),
        ("1e3s", 1000 / 3600),
        ("2w", 336.0),
        ("10us", 1e-5 / 3600),
    ],
)
def test_durations_convert_to_hours(text: str, hours: float) -> None:
    assert parse_duration_hours(text) == pytest.approx(hours, rel=1e-12)


@pytest.mark.parametrize("bad", ["5", 5, 2.0, "5 parsecs", "h", "", "5m", True])
def test_bad_durations_are_refused(bad: object) -> None:
    with pytest.raises(UnitError):
        parse_duration_hours(bad)  # type: ignore[arg-type]


def test_year_is_julian() -> None:
    assert HOURS_PER_YEAR == 365.25 * 24


@pytest.mark.parametrize(("text", "value"), [("5%", 0.05), (0.05, 0.05), ("0.2", 0.2)])
def test_fractions(text: object, value: float) -> None:
    assert parse_fraction(text) == pytest.approx(value)  # type: ignore[arg-type]


def test_sizes_and_bandwidths() -> None:
    assert parse_size_bytes("4GB") == 4e9
    assert parse_size_bytes("1GiB") == 2**30
    assert parse_bandwidth_bytes_per_s("400Gbps") == 50e9
    assert parse_bandwidth_bytes_per_s("50GB/s") == 50e9
    with pytest.raises(UnitError):
        parse_size_bytes("4 parsecs")


@given(st.floats(min_value=1e-3, max_value=1e6, allow_nan=False))
def test_format_duration_round_trips(hours: float) -> None:
    text = format_duration(hours).replace(" ", "")
    assert parse_duration_hours(text) == pytest.approx(hours, rel=5e-3)
