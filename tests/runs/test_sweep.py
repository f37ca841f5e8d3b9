"""Declarative studies: every shipped study runs and reports; local and Dask agree."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from relplan.cli.app import app
from relplan.config.study import load_study
from relplan.runs.sweep import run_study
from tests.conftest import REPO, SHIPPED_STUDIES, assert_config_error

STUDIES = SHIPPED_STUDIES


def test_the_promised_studies_are_shipped() -> None:
    names = {p.stem for p in STUDIES}
    assert {"checkpoint-cadence-seed-moe", "cluster-size", "fast-tier-llama3",
            "recovery-strategies"} <= names


@pytest.mark.slow  # every shipped study with its report (20-60 s each)
@pytest.mark.parametrize("study_path", STUDIES, ids=[p.stem for p in STUDIES])
def test_every_shipped_study_runs_and_writes_its_report(study_path: Path, tmp_path: Path):
    # one point after another in this process (the pool of processes has its own tests):
    # no process to start and no walk to load again for each study
    result = CliRunner().invoke(app, ["sweep", str(study_path), "--trials", "20",
                                      "--out", str(tmp_path), "--json", "--workers", "1"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    study = load_study(study_path)
    results = pd.read_parquet(tmp_path / "results.parquet")
    assert len(results) == len(study.points())
    report = (tmp_path / "report.md").read_text()
    assert study.spec.question in report
    assert data["answer"] in report
    figures = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", report)
    assert figures, "the report shows figures"
    for figure in figures:
        assert (tmp_path / figure).stat().st_size > 1000
        assert (tmp_path / figure).with_suffix(".svg").exists()
    page = (tmp_path / "report.html").read_text()
    assert page.count("data:image/png;base64,") == len(figures)
    assert "<table" in page


@pytest.mark.slow  # a study three ways, one on Dask (about 40 s)
def test_points_share_failure_streams_and_dask_gives_the_same_numbers(tmp_path: Path):
    study = load_study(REPO / "studies" / "recovery-strategies.toml")
    local = run_study(study, trials=50)
    on_dask = run_study(study, trials=50, dask_address="local")
    threads = run_study(study, trials=50, workers=2)
    pd.testing.assert_frame_equal(local, on_dask)
    pd.testing.assert_frame_equal(local, threads)
    by_label = local.set_index("label")
    # same streams: the failure-free bound beats every strategy, waiting is worst
    assert by_label.loc["failure-free upper bound", "goodput"] >= by_label["goodput"].max()
    assert by_label["goodput"].idxmin() == "wait for the repair"


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "study.toml"
    path.write_text(text.replace("BASE", str(REPO / "configs" / "small.toml")))
    return path


@pytest.mark.parametrize(
    ("body", "key", "words"),
    [
        ('[study]\nname="x"\nquestion="q"\nbase="BASE"\ncolour=1\n[study.axes]\n"job.work"=["1d"]',
         "study.colour", "unknown key"),
        ('[study]\nname="x"\nquestion="q"\nbase="BASE"\nmetrics=["speed"]\n'
         '[study.axes]\n"job.work"=["1d"]', "study", "unknown metric"),
        ('[study]\nname="x"\nquestion="q"\nbase="BASE"\n[study.axes]\n"job.work"=["1d", "2"]',
         "job.work", "no unit"),
        ('[study]\nname="x"\nquestion="q"\nbase="nope.toml"\n[study.axes]\n"job.work"=["1d"]',
         "study.base", "no such file"),
        ('[study]\nname="x"\nquestion="q"\nbase="BASE"', "study", "needs 'axes' or 'scenarios'"),
    ],
)
def test_bad_studies_name_the_key(tmp_path: Path, body: str, key: str, words: str) -> None:
    assert_config_error(load_study, _write(tmp_path, body), key=key, words=words)
    result = CliRunner().invoke(app, ["sweep", str(_write(tmp_path, body))])
    assert result.exit_code == 2 and key in result.output


def test_range_axis(tmp_path: Path) -> None:
    study = load_study(_write(tmp_path, '[study]\nname="x"\nquestion="q"\nbase="BASE"\n'
                                        '[study.axes]\n"job.checkpoint.interval"={ start = 15, '
                                        'stop = 60, num = 4, unit = "min" }'))
    values = [values["job.checkpoint.interval"] for _, values, _ in study.points()]
    assert values == ["15min", "30min", "45min", "60min"]


def test_a_study_in_tokens_shows_each_points_step_and_failure_free_hours(tmp_path: Path):
    """Two points of the 175B job in 10,000 steps, failure-free: each point's row holds its
    own healthy step, its failure-free hours (10,000 x step) and its GPUs, and the report's
    first table shows them with the GPU-hours (mean wall x GPUs)."""
    from relplan.comm.work import healthy_step_hours
    from relplan.config.loading import load_config
    from relplan.output.study_report import results_tables

    base = REPO / "configs" / "seed-dense-175b.toml"
    path = tmp_path / "speed.toml"
    path.write_text(f"""
[study]
name = "speed"
question = "q"
base = "{base}"
trials = 3
set = ["job.steps=10000", 'job.recovery="failure-free"']
metrics = ["wall_hours"]
objective = "wall_hours"
goal = "min"

[[study.scenarios]]
label = "1:1"

[[study.scenarios]]
label = "4:1"
set = ["network.uplinks_per_leaf=16"]
""")
    study = load_study(path)
    results = run_study(study, workers=1)
    for label, extra in (("1:1", []), ("4:1", ["network.uplinks_per_leaf=16"])):
        step = healthy_step_hours(load_config(base, ["job.steps=10000", *extra]))
        row = results[results["label"] == label].iloc[0]
        assert row["step_time_s"] == pytest.approx(step * 3600)
        assert row["work_hours"] == pytest.approx(10_000 * step)
        assert row["job_gpus"] == 5000
    heading, table = results_tables(study, results)[0]
    assert "failure-free" in heading
    assert list(table["point"]) == ["1:1", "4:1"]
    slow = table[table["point"] == "4:1"].iloc[0]
    assert slow["failure-free hours"] == pytest.approx(
        round(float(results["work_hours"].iloc[1]), 1))
    wall = float(results["wall_hours"].iloc[1])
    assert slow["GPU-hours (mean wall x GPUs)"] == f"{wall * 5000:,.0f}"


def test_a_study_with_a_budget_prices_every_point_against_the_first(tmp_path: Path):
    """small.toml has a [budget]: each point gets the money columns against the first,
    the net value being the GPU-hours it saves (wall x GPUs) at gpu_hour_value minus its
    extra hardware charge, worked out here from the row's own figures. A slower step (in
    steps) and 4 fewer spare servers both count."""
    from relplan.cluster.budget import hardware_price
    from relplan.cluster.topology import build_inventory
    from relplan.config.loading import load_config
    from relplan.runs.sweep import MONEY_COLUMNS

    base = REPO / "configs" / "small.toml"
    path = tmp_path / "money.toml"
    path.write_text(f"""
[study]
name = "money"
question = "q"
base = "{base}"
trials = 4
set = ["job.steps=172800"]
metrics = ["wall_hours"]
objective = "wall_hours"
goal = "min"

[[study.scenarios]]
label = "shipped"

[[study.scenarios]]
label = "slower, no spares"
set = ["workload.step_compute=1.25s", "job.spares=0"]
""")
    results = run_study(load_study(path), workers=1)
    assert set(MONEY_COLUMNS) <= set(results.columns)
    config = load_config(base)
    budget, gpus = config.budget, config.job.gpus
    first, other = results.iloc[0], results.iloc[1]
    leaner = load_config(base, ["job.spares=0"])
    price = hardware_price(leaner, build_inventory(leaner), budget)
    assert other["hardware_price"] == pytest.approx(price)
    assert other["hardware_price"] < first["hardware_price"]
    saved = first["wall_hours"] * gpus - other["wall_hours"] * gpus
    extra = (other["hardware_price"] - first["hardware_price"]) * other["wall_hours"] / (
        budget.amortization)
    assert other["gpu_hours_saved_vs_first"] == pytest.approx(saved)
    assert saved < -0.2 * 48 * gpus  # the 25% slower step of 48 h of steps
    assert abs(other["net_value"] - (saved * budget.gpu_hour_value - extra)) < 0.005
    assert first["net_value"] == 0.0 and pd.isna(first["break_even_gpu_hour_value"])


def test_a_study_without_a_budget_has_no_money_columns(tmp_path: Path):
    from relplan.runs.sweep import MONEY_COLUMNS

    base = REPO / "configs" / "airesim-default.toml"  # no [budget]
    path = tmp_path / "plain.toml"
    path.write_text(f'[study]\nname = "plain"\nquestion = "q"\nbase = "{base}"\ntrials = 2\n'
                    'set = ["job.work=1d"]\n[study.axes]\n"job.spares" = [64, 32]\n')
    results = run_study(load_study(path), workers=1)
    assert not set(MONEY_COLUMNS) & set(results.columns)
