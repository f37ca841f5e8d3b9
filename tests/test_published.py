"""The validation suite (``relplan published``): every case against its published figure.

The whole suite runs once (fixed seed, about 20 s); each test reads the cases it checks.
"""

from __future__ import annotations

import dataclasses
import io
import json
import math
import re
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from relplan import published
from relplan.cli.app import app
from relplan.cli.published_command import render_validation
from relplan.published import (
    ABOVE,
    EXPLAINED,
    FAIL,
    GAP,
    INSIDE,
    NEGATIVE,
    PASS,
    WITHIN,
    ValidationReport,
    run_validation,
    verdict,
)
from tests.conftest import REPO

# the whole validation suite runs once for the module (about 20 s)
pytestmark = pytest.mark.slow

runner = CliRunner()


@pytest.fixture(scope="module")
def report() -> ValidationReport:
    return run_validation()


@pytest.fixture(scope="module")
def cases(report: ValidationReport) -> dict[str, published.ValidationCase]:
    return {case.case: case for case in report.cases}


def test_the_promised_cases_are_all_there(cases) -> None:
    assert set(cases) >= {
        "daly-24h", "daly-6h", "daly-15min", "daly-wall",
        "rsc1-16k", "rsc1-131k", "rsc1-1k", "rsc2-rate",
        "llama3-per-day", "llama3-gpu", "llama3-ettr", "seed-4.38h",
        "byterobust-10min", "byterobust-implied", "hlat-automated", "hlat-manual",
    }  # fmt: skip
    published = {name: case.published for name, case in cases.items()}
    assert (published["daly-24h"], published["daly-6h"], published["daly-15min"]) == (
        117.0, 57.0, 9.1)  # fmt: skip
    assert published["daly-wall"] == 547.9
    assert (published["rsc1-16k"], published["rsc1-131k"], published["rsc1-1k"]) == (
        1.8, 0.23, 7.9)  # fmt: skip
    assert published["llama3-per-day"] == pytest.approx(7.76, abs=0.005)
    assert published["seed-4.38h"] == 4.38
    assert (published["hlat-automated"], published["hlat-manual"]) == (98.81, 77.83)


def test_every_case_passes_within_its_tolerance_or_is_explained(report) -> None:
    for case in report.cases:
        assert case.status in (PASS, EXPLAINED), case
        if case.check == WITHIN:
            assert abs(case.relplan - case.published) <= case.tolerance, case
        if case.check == ABOVE:
            assert case.ci95[0] > case.published, case
        if case.check == INSIDE:
            assert case.published <= case.relplan <= case.published_high, case
        if case.status == EXPLAINED:
            assert case.check in (NEGATIVE, GAP) and len(case.note) > 80, case
        assert case.source and case.note
    assert report.ok


def test_tolerances_are_those_of_the_confidence_intervals(report) -> None:
    """A Monte Carlo tolerance is about four standard errors: at least the 95% CI's half
    width, at most its width plus the published figure's own uncertainty."""
    for case in report.cases:
        low, high = case.ci95
        if case.check in (WITHIN, GAP) and high > low:
            assert case.tolerance >= (high - low) / 2, case
            assert low <= case.relplan <= high, case


def test_the_negative_control_is_the_node_only_prediction(cases) -> None:
    """RSC-1's rate alone gives 24 / (128 x 0.0065) = 28.8 h at 1,024 GPUs, not 7.9 h."""
    control = cases["rsc1-1k"]
    assert control.check == NEGATIVE and control.status == EXPLAINED
    assert control.ci95[0] <= 24 / (128 * 0.0065) <= control.ci95[1]
    assert "job-level" in control.note


def test_mttf_scales_inversely_with_job_size(cases) -> None:
    """From 16,384 to 131,072 GPUs the MTTF falls 8-fold (independent node failures)."""
    ratio = cases["rsc1-16k"].relplan / cases["rsc1-131k"].relplan
    assert ratio == pytest.approx(8.0, rel=0.05)


def test_llama3_reaches_its_effective_training_time(cases) -> None:
    ettr = cases["llama3-ettr"]
    assert ettr.ci95[0] > 90.0
    assert cases["llama3-days"].ci95[0] <= 54.0 + cases["llama3-days"].tolerance
    shares = [case.published for name, case in cases.items() if name.startswith("llama3-")
              and case.unit == "%" and name != "llama3-ettr"]  # fmt: skip
    assert sum(shares) == pytest.approx(100.0)  # the six categories cover the 419


def test_byterobust_needs_a_faster_restart_than_its_unoptimised_cycle(cases) -> None:
    slow, implied = cases["byterobust-10min"], cases["byterobust-implied"]
    assert slow.check == GAP and slow.ci95[1] < 97.0  # 10 min is too slow for 97%
    assert 2.5 < implied.relplan < 10.0
    mean, sem, _ = published._byterobust_ettr(implied.relplan / 60.0, 60)
    assert abs(mean - 97.0) < 4 * sem + 0.05  # the closed form's restart, simulated


def test_hlat_differs_by_its_restart_only(cases) -> None:
    """Uptime = exp(-R / M): the two runs' restarts are in the ratio of the logs."""
    automated = -published.HLAT_MTTF * math.log(0.9881)
    manual = -published.HLAT_MTTF * math.log(0.7783)
    assert f"{automated * 60:.1f} min" in cases["hlat-automated"].note
    assert f"{manual:.2f} h" in cases["hlat-manual"].note
    assert f"{manual / automated:.1f}x" in cases["hlat-manual"].note


@pytest.mark.parametrize(
    ("check", "published", "value", "ci95", "tolerance", "expected"),
    [
        (WITHIN, 117.0, 117.3, (116.3, 118.5), 2.6, PASS),
        (WITHIN, 117.0, 120.0, (119.0, 121.0), 2.6, FAIL),
        (ABOVE, 90.0, 92.0, (91.9, 92.1), 0.0, PASS),
        (ABOVE, 90.0, 90.2, (89.9, 90.5), 0.0, FAIL),
        (NEGATIVE, 7.9, 28.8, (27.7, 29.8), 2.2, EXPLAINED),
        (NEGATIVE, 7.9, 8.0, (7.5, 8.5), 2.2, FAIL),
        (GAP, 97.0, 93.8, (93.7, 93.9), 0.6, EXPLAINED),
        (GAP, 97.0, 96.9, (96.8, 97.0), 0.6, PASS),
    ],
)
def test_verdicts_can_fail(check, published, value, ci95, tolerance, expected) -> None:
    assert verdict(check, published, value, ci95, tolerance) == expected


def test_inside_checks_the_range() -> None:
    assert verdict(INSIDE, 2.5, 4.5, (4.5, 4.5), 0.0, 10.0) == PASS
    assert verdict(INSIDE, 2.5, 11.0, (11.0, 11.0), 0.0, 10.0) == FAIL


# --- the command -------------------------------------------------------------------------


@pytest.fixture
def cached(report, monkeypatch) -> ValidationReport:
    """The command runs the suite already run (the CLI only renders it)."""
    monkeypatch.setattr(published, "run_validation", lambda groups=None: report)
    return report


def test_command_json(cached) -> None:
    result = runner.invoke(app, ["published", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert set(data) == {"seed", "trials", "passed", "explained", "failed", "cases"}
    assert data["failed"] == 0 and data["passed"] + data["explained"] == len(cached.cases)
    first = data["cases"][0]
    assert set(first) >= {"case", "figure", "published", "relplan", "ci95", "tolerance",
                          "check", "status", "source", "cite", "note"}  # fmt: skip


def test_command_table_fits_80_columns(cached) -> None:
    console = Console(width=80, record=True, file=io.StringIO())
    render_validation(cached.to_dict(), [case.cells() for case in cached.cases], console)
    text = console.export_text()
    assert all(len(line) <= 80 for line in text.splitlines())
    for case in cached.cases:
        assert case.case in text  # no row is cut or wrapped away
    assert f"{len(cached.cases) - 2} pass, 2 explained, 0 fail" in text


def test_command_writes_csv_json_and_markdown(cached, tmp_path: Path) -> None:
    out = tmp_path / "validation"
    result = runner.invoke(app, ["published", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in out.iterdir()) == [  # written as one run, with its manifest
        ".relplan-run.json", "validation.csv", "validation.json", "validation.md"]  # fmt: skip
    assert (out / "validation.md").read_text() == cached.to_markdown()
    assert json.loads((out / "validation.json").read_text()) == cached.to_dict()
    lines = (out / "validation.csv").read_text().splitlines()
    assert lines[0].startswith("case,figure,unit,published,relplan")
    assert len(lines) == len(cached.cases) + 1


def test_command_refuses_an_unwritable_out_before_running(tmp_path: Path, monkeypatch) -> None:
    def never(groups=None):
        raise AssertionError("the suite ran before --out was checked")

    monkeypatch.setattr(published, "run_validation", never)
    a_file = tmp_path / "file"
    a_file.write_text("x")
    result = runner.invoke(app, ["published", "--out", str(a_file)])
    assert result.exit_code == 2
    assert result.output.strip().startswith("error: --out:")
    assert "Traceback" not in result.output


def test_command_exits_1_when_a_case_fails(cached, monkeypatch) -> None:
    failing = dataclasses.replace(cached.cases[0], status=FAIL)
    broken = ValidationReport((failing, *cached.cases[1:]), cached.seed, cached.settings)
    monkeypatch.setattr(published, "run_validation", lambda groups=None: broken)
    result = runner.invoke(app, ["validation"])
    assert result.exit_code == 1
    assert "1 fail" in result.output


def test_readme_shows_the_table_relplan_validation_generates(report) -> None:
    """The Validation page's table has every case, with the verdict relplan gives."""
    section = (REPO / "docs" / "explanation" / "validation.md").read_text()
    rows = re.findall(r"^\| ([a-z0-9.-]+) \|.*\| (pass|fail|explained) \|[^|]*\|$", section,
                      flags=re.MULTILINE)  # fmt: skip
    assert rows == [(case.case, case.status) for case in report.cases]
    table = report.to_markdown().split("\n\n")[0]
    assert table in section  # the figures too: regenerate with relplan published --out


def test_every_case_says_what_kind_of_evidence_it_is(cases) -> None:
    """Calibrations are the figures an input was set from; consistency checks measure
    relplan's model back against its own inputs; the rest predict from published inputs."""
    assert {case.kind for case in cases.values()} <= set(published.KINDS)
    calibrations = {name for name, case in cases.items() if case.kind == "calibration"}
    assert {"llama3-per-day", "llama3-days", "hlat-automated", "hlat-manual"} <= calibrations
    assert all(cases[name].kind == "calibration" for name in cases if name.startswith(
        "llama3-") and name not in ("llama3-ettr",))
    assert cases["byterobust-implied"].kind == "consistency"
    assert cases["rsc2-rate"].kind == "consistency"
    assert cases["llama3-ettr"].kind == "prediction"
    assert cases["daly-24h"].kind == "prediction" and not cases["daly-24h"].assumed


def test_cases_resting_on_an_assumed_input_show_it_at_other_values(cases) -> None:
    """Llama 3's ETTR rests on an assumed 10-min restart: at 5 min it is higher, at 20
    min lower, and at 20 min below the published 90% (the row would fail)."""
    ettr = cases["llama3-ettr"]
    assert any("restart 10 min" in text for text in ettr.assumed)
    (five, at_five), (twenty, at_twenty) = ettr.sensitivity
    assert five == "restart 5 min" and twenty == "restart 20 min"
    assert at_five > ettr.relplan > at_twenty
    assert at_twenty < 90.0 < ettr.relplan
    # ByteRobust's ETTR falls as its assumed fail-stop cycle grows
    byterobust = cases["byterobust-10min"]
    values = [byterobust.relplan] + [figure for _, figure in byterobust.sensitivity]
    assert values == sorted(values, reverse=True)
    data = ettr.to_dict()
    assert data["sensitivity"][0] == {"input": "restart 5 min", "relplan": at_five}
