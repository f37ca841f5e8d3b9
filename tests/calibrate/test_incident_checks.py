"""``relplan analyze`` checks its input: downtimes merged and clipped (goodput never
negative; downtimes longer than the window refused), duplicated rows dropped and counted,
server ids tested against a server's expectation, category maps, JSON lines."""

from __future__ import annotations

import json
import tomllib
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from scipy import stats

from relplan.calibrate.event_log import read_category_map
from relplan.calibrate.incidents import incident_log, incident_report, read_incident_log
from relplan.config.loading import load_config, parse_config
from relplan.errors import ConfigError
from tests.calibrate.test_incidents import CONFIG_TOML
from tests.conftest import CONFIGS, REPO

CONFIG = parse_config(tomllib.loads(CONFIG_TOML))  # 1,024 GPUs on 128 servers
START = datetime(2024, 1, 1, tzinfo=UTC)
END = START + timedelta(hours=100)


def at(hours: float) -> str:
    return (START + timedelta(hours=hours)).isoformat()


def test_overlapping_downtimes_merge_and_the_tail_is_clipped() -> None:
    # [10, 14] and [12, 13] merge to 4 h; [20, 21]; [98, 103] is clipped to 2 h
    log = incident_log([at(10), at(12), at(20), at(98)], ["gpu"] * 4,
                       downtime_hours=[4.0, 1.0, 1.0, 5.0])  # fmt: skip
    job = incident_report(log, CONFIG, START, END)["job"]
    assert job["downtime_hours"] == pytest.approx(7.0)
    assert job["downtime_sum_hours"] == pytest.approx(8.0)
    assert job["goodput"] == pytest.approx(1.0 - 7.0 / 100.0)


def test_downtimes_longer_than_the_window_are_refused_with_the_reason() -> None:
    one_absurd = incident_log([at(10)], ["gpu"], downtime_hours=[1e6])
    with pytest.raises(ConfigError, match=r"row 1.*longer than the whole window") as caught:
        incident_report(one_absurd, CONFIG, START, END)
    assert caught.value.key == "downtime_hours"
    # per-server repair times given as the job's downtime: 30 x 5 h in a 100 h window
    repairs = incident_log([at(float(hour)) for hour in range(30)], ["gpu"] * 30,
                           downtime_hours=[5.0] * 30)  # fmt: skip
    with pytest.raises(ConfigError, match=r"add up to 150\.0 h, more than"):
        incident_report(repairs, CONFIG, START, END)


def test_goodput_is_never_negative_when_downtimes_nearly_fill_the_window() -> None:
    log = incident_log([at(0), at(50)], ["gpu"] * 2, downtime_hours=[50.0, 50.0])
    job = incident_report(log, CONFIG, START, END)["job"]
    assert job["goodput"] == 0.0


def test_duplicated_rows_are_dropped_and_counted() -> None:
    times = [at(1), at(1), at(1), at(5)]
    log = incident_log(times, ["gpu"] * 4, ["g1", "g1", "g1", "g2"])
    report = incident_report(log, CONFIG, START, END)
    assert report["duplicates_dropped"] == 2
    assert report["categories"]["gpu"]["count"] == 2
    assert "2 duplicated rows dropped" in report["warnings"][0]
    assert report["repeat_offenders"] == []  # g1's three copies are one failure


def test_server_ids_are_tested_against_the_sum_of_the_servers_gpu_rates() -> None:
    # 64 GPU failures over the window, 6 on server s0: with GPU ids the expectation per id
    # is 64 / 1024, with server ids 8 x that (8 GPUs a server), Bonferroni over 128 servers
    times = [at(float(index)) for index in range(64)]
    units = ["s0"] * 6 + [f"s{index}" for index in range(1, 59)]
    log = incident_log(times, ["gpu"] * 64, units)
    as_gpus = incident_report(log, CONFIG, START, END, ids="auto")["repeat_offenders"]
    as_servers = incident_report(log, CONFIG, START, END, ids="server")["repeat_offenders"]
    expected_server = 64 / 1024 * 8
    p_server = float(stats.poisson.sf(5, expected_server))
    assert p_server * 128 < 0.01  # the test below can fail
    (row,) = as_servers
    assert row["expected"] == pytest.approx(expected_server)
    assert row["p_value"] == pytest.approx(p_server)
    assert row["p_value_bonferroni"] == pytest.approx(p_server * 128)
    assert as_gpus[0]["expected"] == pytest.approx(64 / 1024)
    # two of four failures on one id: an offender as a GPU, not as a server
    pair = incident_log(times[:4], ["gpu"] * 4, ["s0", "s0", "s1", "s2"])
    assert stats.poisson.sf(1, 4 / 1024) * 1024 < 0.01 < stats.poisson.sf(1, 4 / 128) * 128
    assert incident_report(pair, CONFIG, START, END, ids="auto")["repeat_offenders"]
    assert not incident_report(pair, CONFIG, START, END, ids="server")["repeat_offenders"]


def test_server_ids_count_link_events_against_server_links_only() -> None:
    config = load_config(CONFIGS / "small.toml")
    log = incident_log([at(1), at(2)], ["optic", "optic"], ["s1", "s2"])
    both = incident_report(log, config, START, END, ids="auto")["categories"]["optic"]["units"]
    server = incident_report(log, config, START, END, ids="server")["categories"]["optic"]
    # small.toml: 64 servers of 8 NICs on optical server links, 2 optics a link
    assert server["units"] == 64 * 8 * 2
    assert both > server["units"]


def test_ids_of_another_class_leave_a_mode_out_of_the_offender_test() -> None:
    log = incident_log([at(1), at(2), at(3)], ["host"] * 3, ["h1", "h1", "h1"])
    report = incident_report(log, CONFIG, START, END, ids="gpu")
    assert report["repeat_offenders"] == []
    assert "not tested for host" in report["warnings"][0]
    assert incident_report(log, CONFIG, START, END, ids="auto")["repeat_offenders"]


def test_a_category_map_renames_many_to_one_and_drops() -> None:
    log = incident_log([at(1), at(2), at(3), at(4)], ["XID 79", "DBE", "PSU", "Test"])
    mapping = {"XID 79": "gpu", "DBE": "gpu", "PSU": "host", "Test": "-"}
    report = incident_report(log, CONFIG, START, END, category_map=mapping)
    assert report["categories"]["gpu"]["count"] == 2
    assert report["categories"]["host"]["count"] == 1
    assert report["mapped_dropped"] == 1


@pytest.mark.parametrize(
    ("mapping", "words"),
    [
        ({"XID 79": "gpus"}, "'gpus', which is not a failure mode"),
        ({"PSU": "host"}, "does not name these categories of the log: XID 79"),
    ],
)
def test_a_bad_map_is_refused_naming_the_mode_or_category(mapping: dict, words: str) -> None:
    log = incident_log([at(1), at(2)], ["XID 79", "PSU"])
    with pytest.raises(ConfigError, match=words) as caught:
        incident_report(log, CONFIG, START, END, category_map=mapping)
    assert caught.value.key == "--map"


def test_a_map_file_names_the_line_of_a_category_mapped_twice(tmp_path: Path) -> None:
    path = tmp_path / "map.csv"
    path.write_text("category,mode\nPSU,host\nPSU,gpu\n")
    with pytest.raises(ConfigError, match=r"line 3 .*mapped twice"):
        read_category_map(path)
    assert read_category_map(REPO / "tests" / "data" / "infinitehbd" / "category_map.csv")[
        "Power Supply"
    ] == "host"


def test_json_lines_read_as_csv_does(tmp_path: Path) -> None:
    csv_log = read_incident_log(REPO / "tests" / "data" / "incidents.csv")
    path = tmp_path / "incidents.jsonl"
    with path.open("w") as handle:
        for time, category, unit, downtime in zip(
            csv_log.times, csv_log.categories, csv_log.units, csv_log.downtime_hours, strict=True
        ):
            row = {"time": time.isoformat(), "category": category, "unit": unit,
                   "downtime_hours": downtime}  # fmt: skip
            handle.write(json.dumps(row) + "\n")
    assert read_incident_log(path) == csv_log


@pytest.mark.parametrize(
    ("line", "key", "words"),
    [
        ('{"time": "yesterday", "category": "gpu"}', "time", "line 1 of"),
        ('{"category": "gpu"}', "time", "line 1 of .*missing"),
        ('{"time": "2024-01-01", "category": "gpu", "downtime_hours": -2}', "downtime_hours",
         ">= 0"),
        ('["2024-01-01", "gpu"]', "LOG", "not a JSON object"),
    ],
)
def test_bad_json_lines_name_the_line_and_key(tmp_path: Path, line: str, key: str,
                                              words: str) -> None:  # fmt: skip
    path = tmp_path / "log.jsonl"
    path.write_text(line + "\n")
    with pytest.raises(ConfigError, match=words) as caught:
        read_incident_log(path)
    assert caught.value.key == key


def test_a_window_without_events_is_refused() -> None:
    log = incident_log([at(1)], ["gpu"])
    with pytest.raises(ConfigError, match="no event between") as caught:
        incident_report(log, CONFIG, START + timedelta(hours=10), END)
    assert caught.value.key == "LOG"


def test_an_unknown_id_kind_is_refused() -> None:
    with pytest.raises(ConfigError) as caught:
        incident_report(incident_log([at(1)], ["gpu"]), CONFIG, START, END, ids="rack")
    assert caught.value.key == "--ids"


def test_a_log_that_marks_fabric_links_counts_them_with_server_ids() -> None:
    config = load_config(CONFIGS / "small.toml")
    unmarked = incident_log([at(1), at(2)], ["optic", "optic"], ["s1", "s2"])
    marked = incident_log([at(1), at(2)], ["optic", "optic"], ["s1", "leaf-3"],
                          sides=["server", "fabric"])  # fmt: skip
    auto = incident_report(unmarked, config, START, END)["categories"]["optic"]["units"]
    server_only = incident_report(unmarked, config, START, END, ids="server")
    both = incident_report(marked, config, START, END, ids="server")
    assert server_only["categories"]["optic"]["units"] == 64 * 8 * 2
    assert both["categories"]["optic"]["units"] == auto  # server and fabric optics
    # the fabric row names a switch, not a server: left out of the offender test
    tripled = incident_log([at(1), at(2), at(3)], ["optic"] * 3, ["x", "x", "x"],
                           sides=["fabric"] * 3)  # fmt: skip
    assert incident_report(tripled, config, START, END, ids="server")["repeat_offenders"] == []
    assert incident_report(tripled, config, START, END, ids="auto")["repeat_offenders"]


def test_a_bad_side_names_the_row() -> None:
    with pytest.raises(ConfigError, match="row 2") as caught:
        incident_log([at(1), at(2)], ["optic"] * 2, sides=["server", "spine"])
    assert caught.value.key == "side"
