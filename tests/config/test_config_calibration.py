"""The shipped configs' calibration: rates written as rates, spares for
parts a technician swaps, seed-dense-175b's modes, and a source for every number."""

from __future__ import annotations

import re
import tomllib

import pytest

from relplan.config.loading import load_config
from relplan.sim.model import build_model
from tests.conftest import CONFIGS

SHIPPED = sorted(CONFIGS.glob("*.toml"))
AFR_MODES = {"leaf", "spine", "optic"}
"""Modes whose sources give an annual failure probability (Gill et al.'s share of switches
failing in a year, the vendors' optic AFR); every other rate is a count over an exposure."""
NUMBER_KEYS = ("lifetime", "repair", "detect", "work", "restart", "spares", "interval",
               "write", "size", "bandwidth", "blocking_fraction")  # fmt: skip


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.stem)
def test_afr_only_where_the_source_gives_a_probability(path) -> None:
    failures = tomllib.loads(path.read_text()).get("failures", {})
    typed_as_afr = {name for name, mode in failures.items() if "afr" in mode["lifetime"]}
    assert typed_as_afr <= AFR_MODES, typed_as_afr


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.stem)
def test_every_number_says_where_it_comes_from(path) -> None:
    """Every failure, job and checkpoint setting carries a comment (a source, a derivation
    or [A] for an assumption)."""
    section = ""
    for line in path.read_text().splitlines():
        if line.startswith("["):
            section = line
        key = re.match(r"^(\w+) *=", line)
        if key and key.group(1) in NUMBER_KEYS and section.startswith(("[failures", "[job")):
            assert "#" in line, f"{path.name} {section}: {line}"


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.stem)
def test_swapped_parts_restart_the_job_on_a_spare(path) -> None:
    """A server's optic, link or leaf fails: the job restarts on a spare server while the
    part is swapped (small's 4 spares are one leaf's worth: its leaves wait)."""
    config = load_config(path)
    for name in config.failures:
        unit = config.failure_unit(name)
        if unit in ("optic", "link") and config.failures[name].impact != "transient":
            assert config.uses_spares(name), name
        if unit == "leaf" and path.stem != "small":
            assert config.uses_spares(name), name
    model = build_model(config)
    for mode in model.modes:
        if mode.unit in ("optic", "link", "leaf") and mode.is_fatal and path.stem != "small":
            assert mode.uses_spares and config.job.spares > 0


def test_seed_dense_shares_the_moe_modes() -> None:
    dense = tomllib.loads((CONFIGS / "seed-dense-175b.toml").read_text())["failures"]
    moe = tomllib.loads((CONFIGS / "seed-moe-10k.toml").read_text())["failures"]
    assert set(dense) == set(moe) - {"link_flap"}
    for name in ("host", "nic", "optic", "link", "leaf", "spine"):
        assert dense[name] == moe[name], name


def test_llama3_rates_reproduce_its_table() -> None:
    """419 interruptions in 54 days: every fatal mode together gives 3.09 h; the 35 network
    events are the server links' and the leaves'."""
    model = build_model(load_config(CONFIGS / "llama3-16k.toml"))
    assert model.job_mtti_hours == pytest.approx(54 * 24 / 419, rel=0.002)
    network = sum(m.job_rate_per_hour for m in model.modes
                  if m.is_fatal and m.unit in ("link", "optic", "leaf", "spine"))  # fmt: skip
    assert network * 54 * 24 == pytest.approx(35, rel=0.002)
    assert {m.name: m.impact for m in model.modes}["spine"] == "degraded"
