"""Incident logs against configs: rates recovered within exact Poisson CIs, a wrong config
flagged, a planted lemon found, the job's MTTI and goodput, and the recalibrated config."""

from __future__ import annotations

import tomllib
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from relplan.calibrate.incidents import (
    IncidentLog,
    incident_log,
    incident_report,
    poisson_rate_ci,
    read_incident_log,
    recalibrated_config_text,
    toml_document,
)
from relplan.config.loading import load_config, parse_config
from relplan.errors import ConfigError
from relplan.units import HOURS_PER_YEAR
from tests.conftest import CONFIGS, REPO, assert_config_error

START = datetime(2024, 1, 1, tzinfo=UTC)
WINDOW_HOURS = 365 * 24.0
GPU_MTBF_HOURS = 5 * HOURS_PER_YEAR
HOST_MTBF_HOURS = 10 * HOURS_PER_YEAR

CONFIG_TOML = """\
name = "calibration"            # 1,024 GPUs on 128 servers

[cluster]
servers = 128
gpus_per_server = 8

[failures.gpu]
lifetime = { dist = "exponential", mtbf = "5y" }   # the truth of the synthetic log
repair = { dist = "fixed", mean = "4h" }

[failures.host]
lifetime = { dist = "exponential", mtbf = "10y" }
repair = { dist = "fixed", mean = "8h" }

[failures.leaf]
lifetime = { dist = "exponential", afr = "5%" }
impact = "degraded"
slowdown = 1.1

[job]
gpus = 1024
work = "30d"

[job.checkpoint]
interval = "1h"
write = "2min"
"""


def write_config(tmp_path: Path, text: str = CONFIG_TOML, name: str = "cfg.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def synthetic_log(seed: int, lemon_failures: int = 0) -> IncidentLog:
    """A year of Poisson failures at the config's rates on random units, plus a lemon GPU."""
    rng = np.random.default_rng(seed)
    times: list[datetime] = []
    categories: list[str] = []
    units: list[str] = []
    downtimes: list[float] = []
    for category, count_units, mtbf in (
        ("gpu", 1024, GPU_MTBF_HOURS),
        ("host", 128, HOST_MTBF_HOURS),
    ):
        count = rng.poisson(count_units * WINDOW_HOURS / mtbf)
        for offset in rng.uniform(0.0, WINDOW_HOURS, count):
            times.append(START + timedelta(hours=float(offset)))
            categories.append(category)
            units.append(f"{category}-{rng.integers(count_units)}")
            downtimes.append(0.5)
    for offset in rng.uniform(0.0, WINDOW_HOURS, lemon_failures):
        times.append(START + timedelta(hours=float(offset)))
        categories.append("gpu")
        units.append("gpu-lemon")
        downtimes.append(0.5)
    return incident_log(times, categories, units, downtimes)


def full_year(log: IncidentLog, config_text: str = CONFIG_TOML) -> dict:
    return incident_report(
        log, parse_config(tomllib.loads(config_text)), START, START + timedelta(hours=WINDOW_HOURS)
    )


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_known_rates_are_recovered_within_their_cis(seed: int) -> None:
    report = full_year(synthetic_log(seed))
    assert report["window"]["hours"] == WINDOW_HOURS
    for category, mtbf in (("gpu", GPU_MTBF_HOURS), ("host", HOST_MTBF_HOURS)):
        entry = report["categories"][category]
        low, high = entry["rate_per_unit_hour_ci95"]
        assert low <= 1.0 / mtbf <= high
        mtbf_low, mtbf_high = entry["mtbf_hours_ci95"]
        assert mtbf_low <= mtbf <= mtbf_high
        assert entry["mtbf_hours"] == pytest.approx(entry["units"] * WINDOW_HOURS / entry["count"])
        assert entry["rate_per_unit_year"] == pytest.approx(
            entry["rate_per_unit_hour"] * HOURS_PER_YEAR
        )
        assert entry["config_mtbf_hours"] == pytest.approx(mtbf)
        assert entry["config_rate_inside_ci"] is True
        assert entry["ratio_to_config"] == pytest.approx(mtbf / entry["mtbf_hours"])


def test_a_config_three_times_off_is_flagged() -> None:
    log = synthetic_log(1)
    optimistic = CONFIG_TOML.replace('mtbf = "5y"', 'mtbf = "15y"')
    pessimistic = CONFIG_TOML.replace('mtbf = "10y"', 'mtbf = "3.333y"')
    for text, category, ratio in ((optimistic, "gpu", 3.0), (pessimistic, "host", 1 / 3)):
        entry = full_year(log, text)["categories"][category]
        assert entry["config_rate_inside_ci"] is False
        assert entry["ratio_to_config"] == pytest.approx(ratio, rel=0.35)
    assert full_year(log)["categories"]["gpu"]["config_rate_inside_ci"] is True


def test_a_planted_lemon_is_a_repeat_offender_and_normal_units_are_not() -> None:
    clean = full_year(synthetic_log(5))
    assert clean["repeat_offenders"] == []
    report = full_year(synthetic_log(5, lemon_failures=6))
    (lemon,) = report["repeat_offenders"]
    assert (lemon["unit"], lemon["category"], lemon["failures"]) == ("gpu-lemon", "gpu", 6)
    expected = report["categories"]["gpu"]["count"] / 1024
    assert lemon["expected"] == pytest.approx(expected)
    assert lemon["p_value"] == pytest.approx(stats.poisson.sf(5, expected))
    assert lemon["p_value"] < 1e-6
    assert lemon["p_value_bonferroni"] == pytest.approx(lemon["p_value"] * 1024)


def test_job_mtti_counts_fatal_modes_only_and_goodput_sums_clipped_downtimes() -> None:
    times = [
        "2024-01-01T00:00Z",
        "2024-01-02T00:00Z",
        "2024-01-03T00:00Z",
        "2024-01-04T00:00Z",
        "2024-01-05T00:00Z",
    ]
    categories = ["gpu", "host", "leaf", "gpu", "gpu"]
    log = incident_log(times, categories, downtime_hours=[1.0, 2.0, None, 0.5, 0.5])
    report = incident_report(log, parse_config(tomllib.loads(CONFIG_TOML)))
    job = report["job"]
    assert report["window"]["hours"] == 96.0  # first to last event
    assert report["categories"]["leaf"]["impact"] == "degraded"
    assert job["interruptions"] == 4  # the leaf is degraded, not fatal
    assert job["mtti_hours"] == 24.0
    assert job["interruptions_per_day"] == 1.0
    # the last failure's 0.5 h falls after the window's end (its last event): clipped
    assert job["goodput"] == pytest.approx(1.0 - 3.5 / 96.0)
    assert job["downtime_sum_hours"] == pytest.approx(3.5)
    assert job["downtime_events"] == 4
    without = incident_report(
        incident_log(times, categories), parse_config(tomllib.loads(CONFIG_TOML))
    )
    assert without["job"]["goodput"] is None


def test_rows_at_the_same_time_are_one_interruption() -> None:
    # one incident logged as three rows (two GPUs and their host at 06:00), a lone GPU
    # failure, a GPU and a degraded leaf together, over four days: 3 interruptions, not 5
    times = ["2024-01-01T00:00Z", "2024-01-02T06:00Z", "2024-01-02T06:00Z",
             "2024-01-02T06:00Z", "2024-01-03T12:00Z", "2024-01-05T00:00Z",
             "2024-01-05T00:00Z"]  # fmt: skip
    categories = ["gpu", "gpu", "gpu", "host", "gpu", "gpu", "leaf"]
    units = ["g1", "g2", "g3", "h1", "g4", "g5", "l1"]
    report = incident_report(incident_log(times, categories, units),
                             parse_config(tomllib.loads(CONFIG_TOML)))  # fmt: skip
    job = report["job"]
    assert report["window"]["hours"] == 96.0
    assert job["interruptions"] == 4  # 00:00 on day 1, 06:00 day 2, 12:00 day 3, day 5
    assert job["interruption_rows"] == 6  # row by row: every gpu and host row
    assert job["coincident_rows"] == 2  # the second GPU and the host at 06:00
    assert job["mtti_hours"] == 24.0
    assert job["interruptions_per_day"] == 1.0
    # each component still counts towards its mode's rate
    assert report["categories"]["gpu"]["count"] == 5 and report["categories"]["host"]["count"] == 1
    low, high = poisson_rate_ci(4, 96.0)
    assert job["mtti_hours_ci95"] == pytest.approx([1 / high, 1 / low])


def test_a_split_mode_at_the_time_of_a_fatal_row_adds_nothing() -> None:
    config = load_config(CONFIGS / "small.toml")
    # an optic (half its units fatal) alone: half an interruption; with a GPU at the
    # same time: one; two optics together: 1 - (1/2)^2
    alone = incident_log(["2024-01-01", "2024-03-01"], ["optic", "gpu"])
    together = incident_log(["2024-01-01", "2024-03-01", "2024-03-01"], ["gpu", "optic", "gpu"])
    pair = incident_log(["2024-01-01", "2024-03-01", "2024-03-01"], ["gpu", "optic", "optic"],
                        ["g1", "o1", "o2"])  # two optics, not one row twice  # fmt: skip
    assert incident_report(alone, config)["job"]["interruptions"] == 1.5
    assert incident_report(together, config)["job"]["interruptions"] == 2.0
    assert incident_report(pair, config)["job"]["interruptions"] == 1.75


def test_a_split_link_mode_counts_its_server_and_fabric_units_and_their_fatal_share() -> None:
    config = load_config(CONFIGS / "small.toml")
    log = incident_log(["2024-01-01", "2024-03-01"], ["optic", "optic"])
    report = incident_report(log, config)
    assert report["categories"]["optic"]["units"] == 2048  # 1,024 server + 1,024 fabric
    assert report["categories"]["optic"]["impact"] == "fatal/degraded"
    assert report["job"]["interruptions"] == 1.0  # half the optics are fatal


def test_the_window_options_bound_the_counts() -> None:
    times = ["2024-01-01", "2024-01-10", "2024-01-20", "2024-02-01"]
    log = incident_log(times, ["gpu"] * 4)
    config = parse_config(tomllib.loads(CONFIG_TOML))
    report = incident_report(log, config, "2024-01-05", "2024-01-25")
    assert report["window"]["hours"] == 20 * 24.0
    assert report["window"]["events"] == 2
    assert report["window"]["events_outside"] == 2
    assert report["categories"]["gpu"]["count"] == 2
    assert report["window"]["start"] == "2024-01-05T00:00:00+00:00"
    with pytest.raises(ConfigError) as error:
        incident_report(log, config, "2024-02-01", "2024-01-01")
    assert error.value.key == "--end"
    with pytest.raises(ConfigError) as error:
        incident_report(log, config, "yesterday")
    assert error.value.key == "--start"


def test_unknown_categories_are_named() -> None:
    log = incident_log(["2024-01-01", "2024-01-02", "2024-01-03"], ["gpu", "psu", "cosmic"])
    assert_config_error(incident_report, log, parse_config(tomllib.loads(CONFIG_TOML)),
                        key="category", words="cosmic, psu")


def test_exact_poisson_interval_has_its_defining_tail_probabilities() -> None:
    for count in (1, 4, 30):
        low, high = poisson_rate_ci(count, 10.0)
        assert stats.poisson.sf(count - 1, low * 10.0) == pytest.approx(0.025)
        assert stats.poisson.cdf(count, high * 10.0) == pytest.approx(0.025)
    assert poisson_rate_ci(0, 10.0)[0] == 0.0
    assert stats.poisson.cdf(0, poisson_rate_ci(0, 10.0)[1] * 10.0) == pytest.approx(0.025)


def test_exact_poisson_interval_covers_at_least_95_percent() -> None:
    # Exact (Garwood) intervals are conservative: coverage at least 95% whatever the mean.
    rng = np.random.default_rng(8)
    for mean in (0.7, 5.0, 40.0):
        counts = rng.poisson(mean, 2000)
        covered = [
            low <= mean <= high
            for low, high in (poisson_rate_ci(int(count), 1.0) for count in counts)
        ]
        assert 0.94 <= np.mean(covered) <= 1.0


def test_reads_the_shipped_log_and_finds_its_lemon() -> None:
    log = read_incident_log(REPO / "tests" / "data" / "incidents.csv")
    report = incident_report(log, load_config(CONFIGS / "small.toml"), "2024-01-01", "2025-01-01")
    assert [row["unit"] for row in report["repeat_offenders"]] == ["gpu-0137"]
    assert all(entry["config_rate_inside_ci"] for entry in report["categories"].values())


@pytest.mark.parametrize(
    ("text", "key", "words"),
    [
        ("when,category\n2024-01-01,gpu\n", "time", "missing column"),
        ("time,category\nsoon,gpu\n", "time", "line 2"),
        ("time,category\n2024-01-01,\n", "category", "empty"),
        ("time,category,downtime_hours\n2024-01-01,gpu,-1\n", "downtime_hours", ">= 0"),
        ("time,category,downtime_hours\n2024-01-01,gpu,long\n", "downtime_hours", "number"),
    ],
)
def test_bad_logs_name_the_column(tmp_path: Path, text: str, key: str, words: str) -> None:
    path = tmp_path / "log.csv"
    path.write_text(text)
    assert_config_error(read_incident_log, path, key=key, words=words)


def test_recalibrated_config_replaces_measured_lifetimes_and_keeps_the_rest() -> None:
    report = full_year(synthetic_log(6))
    text = recalibrated_config_text(CONFIG_TOML, report, "log.csv")
    config = parse_config(tomllib.loads(text))
    for category in ("gpu", "host"):
        lifetime = config.failures[category].lifetime
        assert lifetime.dist == "exponential"
        assert lifetime.mean_hours == pytest.approx(
            report["categories"][category]["mtbf_hours"], rel=1e-5
        )
    document, original = tomllib.loads(text), tomllib.loads(CONFIG_TOML)
    for category in ("gpu", "host"):
        document["failures"][category]["lifetime"] = original["failures"][category]["lifetime"]
    assert document == original  # everything else kept, the unmeasured leaf too
    assert "# 1,024 GPUs on 128 servers" in text  # edited in place: comments kept
    assert '# was: lifetime = { dist = "exponential", mtbf = "5y" }' in text


def test_recalibration_rewrites_a_config_whose_lifetime_is_a_table() -> None:
    layout = (
        CONFIG_TOML.replace(
            'lifetime = { dist = "exponential", mtbf = "5y" }   # the truth of the synthetic log\n',
            "",
        )
        + '\n[failures.gpu.lifetime]\ndist = "exponential"\nmtbf = "5y"\n'
    )
    assert tomllib.loads(layout) == tomllib.loads(
        CONFIG_TOML
    )  # the same config, laid out otherwise
    report = full_year(synthetic_log(7), layout)
    text = recalibrated_config_text(layout, report)
    config = parse_config(tomllib.loads(text))
    assert config.failures["gpu"].lifetime.mean_hours == pytest.approx(
        report["categories"]["gpu"]["mtbf_hours"], rel=1e-5
    )
    assert config.failures["leaf"].slowdown == 1.1
    assert "comments are not kept" in text


def test_toml_document_round_trips_a_shipped_config() -> None:
    for path in sorted(CONFIGS.glob("*.toml")):
        document = tomllib.loads(path.read_text())
        assert tomllib.loads(toml_document(document)) == document, path.name
