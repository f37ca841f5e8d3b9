"""A config written back as TOML (``to_toml``) keeps each duration, size and bandwidth in
the text it was given ("12.749y" stays "12.749y", not "111757.73400000001h") and reads
back to an equal config."""

from __future__ import annotations

import pickle
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

from relplan.config.loading import load_config, loads_config
from relplan.config.reference import NAME, config_tables
from relplan.units import Quantity, parse_duration_hours
from tests.conftest import CONFIGS, REPO

SHIPPED = [*sorted(CONFIGS.glob("*.toml")), REPO / "tests" / "data" / "infinitehbd" / "config.toml"]
QUANTITIES = {"duration", "size", "bandwidth"}


def _kinds() -> dict[str, str]:
    """The reference's type of every dotted key (shared tables at each of their paths)."""
    kinds = {}
    for table in config_tables():
        for path in table.paths if table.shared else [""]:
            for entry in table.keys:
                kinds[f"{path}.{entry.key}" if path else entry.key] = entry.kind
    return kinds


KINDS = _kinds()


def given_quantities(document: dict[str, Any], path: str = "") -> dict[str, str]:
    """Every duration, size and bandwidth a parsed TOML document gives, by dotted path, as
    the text it gives."""
    found = {}
    for key, value in document.items():
        dotted = f"{path}.{key}" if path else key
        if isinstance(value, dict):
            found |= given_quantities(value, dotted)
            continue
        schema_key = re.sub(r"^failures\.[^.]+\.", f"failures.{NAME}.", dotted)
        if set(KINDS.get(schema_key, "").split(" or ")) & QUANTITIES and value != "auto":
            found[dotted] = value
    return found


def _at(document: dict[str, Any], dotted: str) -> Any:
    for part in dotted.split("."):
        document = document[part]
    return document


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.stem)
def test_every_quantity_of_a_shipped_config_keeps_its_text(path: Path) -> None:
    config = load_config(path)
    given = given_quantities(tomllib.loads(path.read_text()))
    assert given, "the config gives durations"
    text = config.to_toml()
    written = tomllib.loads(text)
    for dotted, value in given.items():
        assert _at(written, dotted) == value.strip(), dotted
    back = loads_config(text)
    assert back == config
    assert back.to_toml() == text  # and again: the text is stable


def test_the_shipped_configs_give_many_quantities_and_keep_12_749_years() -> None:
    given = {}
    for path in SHIPPED:
        given |= {f"{path.stem}:{k}": v for k, v in
                  given_quantities(tomllib.loads(path.read_text())).items()}  # fmt: skip
    assert len(given) > 100
    assert {"duration", "size", "bandwidth"} <= {
        KINDS[re.sub(r"^failures\.[^.]+\.", f"failures.{NAME}.", k.split(":")[1])]
        .split(" or ")[0] for k in given}  # fmt: skip
    small = load_config(CONFIGS / "small.toml")
    assert 'mtbf = "12.749y"' in small.to_toml()
    assert "111757" not in small.to_toml()
    assert small.failures["gpu"].lifetime.mtbf == pytest.approx(12.749 * 8766.0, rel=1e-15)


def test_a_quantity_is_its_number_whatever_its_text() -> None:
    hour, minutes = (load_config(CONFIGS / "small.toml", [f"job.checkpoint.interval={text}"])
                     for text in ("1h", "60min"))  # fmt: skip
    assert hour == minutes  # equal configs
    assert hash(hour.job.checkpoint) == hash(minutes.job.checkpoint)  # and equal hashes
    assert hour.job.checkpoint.interval.text == "1h"
    assert minutes.to_document()["job"]["checkpoint"]["interval"] == "60min"
    interval = minutes.job.checkpoint.interval
    assert isinstance(interval, Quantity) and interval == 1.0
    assert type(interval * 2) is float  # arithmetic gives plain numbers


def test_an_override_keeps_its_text_and_a_number_is_written_in_hours() -> None:
    config = load_config(CONFIGS / "small.toml").with_overrides(["job.restart=90s"])
    assert config.to_document()["job"]["restart"] == "90s"
    assert config.job.restart == parse_duration_hours("90s")
    copied = config.model_copy(update={"job": config.job.model_copy(update={"restart": 0.25})})
    assert copied.to_document()["job"]["restart"] == "0.25h"  # given as hours, in hours
    assert loads_config(copied.to_toml()) == copied


def test_a_pickled_config_keeps_its_texts() -> None:
    config = load_config(CONFIGS / "seed-moe-10k.toml")
    copy = pickle.loads(pickle.dumps(config))
    assert copy == config and copy.to_toml() == config.to_toml()
