"""The catalogue of default failure models: complete, sourced, and valid as config tables."""

from __future__ import annotations

import copy
import json

import pytest
from typer.testing import CliRunner

from relplan.cli.app import app
from relplan.config.catalog import ASSUMED, CATALOG, DEFAULTS, DERIVED, MEASURED
from relplan.config.loading import parse_config
from relplan.sim.model import build_model
from relplan.vocab import COMPONENT_CLASSES
from tests.conftest import MINIMAL_RAW


def test_every_component_class_has_a_default() -> None:
    assert set(DEFAULTS) == set(COMPONENT_CLASSES)


@pytest.mark.parametrize("entry", CATALOG, ids=[e.mode for e in CATALOG])
def test_each_entry_is_sourced_and_loads_as_a_failure_mode(entry) -> None:
    assert entry.source and entry.fleet and 2000 < entry.year <= 2026
    assert {entry.rate_basis, entry.repair_basis, entry.detect_basis} <= {MEASURED, DERIVED,
                                                                          ASSUMED}
    raw = copy.deepcopy(MINIMAL_RAW)
    raw["failures"] = {entry.mode: entry.failure_table()}
    if entry.component == "core":  # only a fat-tree has cores
        raw["network"] = {"topology": "fat-tree", "switch_ports": 16}
    config = parse_config(raw)
    mode = next(m for m in build_model(config).modes if m.name.split(".")[0] == entry.mode)
    assert mode.lifetime.mean_hours == pytest.approx(entry.mtbf_hours, rel=1e-5)


def test_rates_by_hand() -> None:
    """Llama 3: 190 GPU events over 16,384 GPUs x 54 days; Alibaba HPN: 0.057% of links a
    month; Meta RSC-1: 6.50 failures per 1,000 node-days."""
    by_mode = {entry.mode: entry for entry in CATALOG}
    assert by_mode["gpu"].rate_per_year == pytest.approx(190 / (16_384 * 54 / 365.25))
    assert by_mode["gpu"].mtbf_hours / 8766 == pytest.approx(12.75, abs=0.01)
    assert by_mode["link"].rate_per_year == pytest.approx(0.00684)
    assert by_mode["node"].rate_per_year == pytest.approx(6.5 / 1000 * 365.25)
    assert by_mode["leaf_2011"].default is False


def test_catalog_command_prints_every_entry() -> None:
    result = CliRunner().invoke(app, ["catalog", "--json"])
    assert result.exit_code == 0
    entries = json.loads(result.stdout)["entries"]
    assert [e["mode"] for e in entries] == [e.mode for e in CATALOG]
    assert all(e["mtbf_hours"] > 0 and e["source"] for e in entries)
    table = CliRunner().invoke(app, ["catalog"])
    assert table.exit_code == 0 and "Alibaba HPN" in table.stdout
