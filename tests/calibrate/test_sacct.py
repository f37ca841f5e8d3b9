"""Slurm accounting (``sacct --parsable2``) read as an incident log (issue 37): one record
per job allocation that ended, its state the category, on a small synthetic golden file."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from relplan.calibrate.event_log import read_records
from relplan.calibrate.incidents import read_incident_log
from relplan.cli.app import app
from relplan.errors import ConfigError
from tests.conftest import CONFIGS, REPO

SACCT = REPO / "tests" / "data" / "sacct.txt"


def test_each_ended_allocation_is_one_record_its_state_the_category() -> None:
    records = read_records(SACCT, "LOG", ("time", "category"))
    # steps (1001.batch, 1001.0) and the running job (End Unknown) are left out
    assert [r.values["job"] for r in records] == ["1001", "1002", "1003", "1004", "1005",
                                                  "1006"]  # fmt: skip
    log = read_incident_log(SACCT)
    assert log.categories == ("NODE_FAIL", "NODE_FAIL", "PREEMPTED", "CANCELLED",
                              "BOOT_FAIL", "NODE_FAIL")  # fmt: skip
    assert log.times[0].isoformat() == "2024-01-05T11:20:00+00:00"
    # a job on 64 nodes does not say which failed; a job on one does
    assert log.units == (None, None, None, None, "node017", None)


@pytest.mark.parametrize(("text", "says"), [
    ("JobID|State|Start\n1|NODE_FAIL|2024-01-01T00:00:00\n", "needs the fields JobID, State, End"),
    ("JobID|State|End\n1|NODE_FAIL\n", "line 2"),
])  # fmt: skip
def test_a_bad_sacct_file_names_the_fields_and_the_line(tmp_path, text: str, says: str) -> None:
    path = tmp_path / "bad.txt"
    path.write_text(text)
    with pytest.raises(ConfigError) as caught:
        read_incident_log(path)
    assert caught.value.key == "LOG" and says in caught.value.message


def test_analyze_measures_rates_from_sacct_with_a_category_map() -> None:
    result = CliRunner().invoke(app, [
        "analyze", str(SACCT), "--config", str(CONFIGS / "small.toml"), "--map",
        str(REPO / "tests" / "data" / "sacct-map.csv"), "--json"])  # fmt: skip
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    # 3 node failures and a boot failure map to host; the preemption and the
    # cancellation are dropped; no node is a repeat offender (no unit is named twice)
    assert report["categories"]["host"]["count"] == 4 and report["mapped_dropped"] == 2
    assert report["repeat_offenders"] == []
