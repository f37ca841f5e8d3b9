"""Figures and reports, and provenance.

Each test checks a reported finding on real or synthetic data: the failures chart
tells interruptions from survived failures, the timeline stays small at ~500 failures,
sweep bars keep their numbers whole and draw the bound as a bound, goodput's bad tail is
P5, reports carry units and a provenance footer, and every output names its provenance.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from matplotlib.colors import to_hex
from typer.testing import CliRunner

from relplan.analysis.provenance import PROVENANCE_KEYS, config_digest
from relplan.cli.app import app
from relplan.config.loading import load_config
from relplan.output import plots
from relplan.output.report import failure_table, metric_heading
from relplan.runs.scenarios import run_scenario
from relplan.vocab import HIGHER_IS_BETTER, TAIL_PERCENTILES
from tests.conftest import CONFIGS, REPO, SHIPPED_STUDIES

runner = CliRunner()


@pytest.fixture(scope="module")
def moe_summary() -> dict:
    """A real summary with fatal, degraded and transient modes (seed-moe-10k)."""
    config = load_config(CONFIGS / "seed-moe-10k.toml")
    return run_scenario(config, trials=20, seed=0, name="seed-moe-10k").summary()


@pytest.fixture(scope="module")
def simulate_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("simulate") / "out"
    result = runner.invoke(app, ["simulate", str(CONFIGS / "small.toml"), "--trials", "200",
                                 "--seed", "3", "--out", str(out)])  # fmt: skip
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture(scope="module")
def sweep_out(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    out = tmp_path_factory.mktemp("sweep") / "out"
    result = runner.invoke(app, ["sweep", str(REPO / "studies" / "recovery-strategies.toml"),
                                 "--trials", "40", "--out", str(out), "--json"])  # fmt: skip
    assert result.exit_code == 0, result.output
    return out, json.loads(result.stdout)


# --------------------------------------------------------------------------- failures by mode


def test_failures_chart_tells_interruptions_from_survived_failures(moe_summary: dict) -> None:
    table = failure_table(moe_summary)
    figure = plots.failures_by_mode(table, "seed-moe-10k")
    # The title quotes the interruptions of the summary table, not all failures.
    interruptions = moe_summary["interruptions"]["mean"]
    failures = sum(entry["mean"] for entry in moe_summary["failures_by_class"].values())
    assert failures > interruptions + 1  # the config has survivable failures
    title = figure.get_suptitle()
    assert f"{interruptions:,.2f} interruptions" in title
    assert f"{failures - interruptions:,.2f} survived" in title
    axes = figure.axes[0]
    by_gid: dict[str, list] = {}
    for patch in axes.patches:
        by_gid.setdefault(patch.get_gid(), []).append(patch)
    # one red bar segment per mode: its interruptions; the rest coloured by impact
    stopped = {round(p.get_y(), 6): p.get_width() for p in by_gid["interruptions"]}
    assert sum(stopped.values()) == pytest.approx(interruptions)
    for patch in by_gid["interruptions"]:
        assert to_hex(patch.get_facecolor()) == to_hex(plots.INTERRUPTION_COLOR)
    for impact in ("degraded", "transient"):
        segments = by_gid[f"survived-{impact}"]
        expected = sum(e["failures"] - e["interruptions"] for e in table.values()
                       if e["impact"] == impact)  # fmt: skip
        assert sum(p.get_width() for p in segments) == pytest.approx(expected)
        for patch in segments:
            assert to_hex(patch.get_facecolor()) == to_hex(plots.IMPACT_COLORS[impact])
            # a survived segment starts where the mode's interruptions end
            assert patch.get_x() == pytest.approx(stopped[round(patch.get_y(), 6)])
    legend = " ".join(text.get_text() for text in axes.get_legend().get_texts())
    assert "stopped the job" in legend and "ran degraded" in legend and "stalled" in legend


def test_failures_chart_rejects_an_unknown_impact() -> None:
    with pytest.raises(ValueError, match=r"gpu\.impact"):
        plots.failures_by_mode({"gpu": {"impact": "fatl", "failures": 1.0}}, "x")


# --------------------------------------------------------------------------- timeline


def _busy_trial(failures: int, seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A 950-hour trial with ``failures`` failures, each followed by rework, detect,
    restart and sometimes a wait, and hourly checkpoints in between."""
    rng = np.random.default_rng(seed)
    times = np.sort(rng.uniform(1.0, 940.0, failures))
    rows, clock, last = [], 0.0, 0.0
    for when in times:
        if when <= clock:
            continue
        while clock + 1.0 < when:  # useful hours and checkpoints up to the failure
            rows += [(clock, clock + 0.97, "useful"), (clock + 0.97, clock + 1.0, "checkpoint")]
            clock += 1.0
        rows.append((clock, when, "rework"))
        clock = when
        for bucket, length in (("detect", 0.01), ("restart", 0.25),
                               ("waiting", 2.0 if rng.random() < 0.1 else 0.0)):  # fmt: skip
            if length:
                rows.append((clock, clock + length, bucket))
                clock += length
        last = clock
    rows.append((last, last + 5.0, "useful"))
    trace = pd.DataFrame(rows, columns=["start_hours", "end_hours", "bucket"])
    impacts = rng.choice(["fatal", "transient", "degraded"], size=times.size, p=[0.5, 0.45, 0.05])
    failures_frame = pd.DataFrame({"time_hours": times, "mode": rng.choice(["gpu", "optic"],
                                   size=times.size), "impact": impacts})  # fmt: skip
    return trace, failures_frame


def _artists(figure) -> int:
    return sum(len(axes.get_children()) for axes in figure.axes)


@pytest.mark.parametrize("failures", [500, 2000])
def test_timeline_of_a_busy_trial_stays_small(failures: int, tmp_path: Path) -> None:
    trace, failure_frame = _busy_trial(failures)
    assert len(trace) > 1000
    figure = plots.trial_timeline(trace, failure_frame, "busy", work_hours=700.0)
    # Binned: a bounded number of artists whatever the number of failures, and no text
    # label or marker per failure.
    assert _artists(figure) < 150
    assert sum(len(axes.texts) for axes in figure.axes) == 0
    svg = plots.save_figure(figure, tmp_path / "timeline", formats=("svg",))[0]
    assert svg.stat().st_size < 300_000  # the barcode once reported was 1.7 MB
    # The binned shares add up to all of the wall time in each bin...
    lane = figure.axes[0]
    tops = [c for c in lane.collections if str(c.get_gid()).startswith("bucket-")]
    highest = tops[-1].get_paths()[0].vertices[:, 1].max()
    assert highest == pytest.approx(1.0)
    # ... and each bucket's hours in the legend are those of the trace.
    legend = [text.get_text() for text in lane.get_legend().get_texts()]
    for bucket, hours in (trace.assign(h=trace.end_hours - trace.start_hours)
                          .groupby("bucket")["h"].sum().items()):  # fmt: skip
        assert f"{bucket} ({hours:,.1f} h)" in legend
    # Failures per bin by impact: every failure counted once.
    counts = figure.axes[1]
    steps = [p for p in counts.patches if str(p.get_gid()).startswith("failures-")]
    assert sum(float(np.sum(p.get_data().values)) for p in steps) == len(failure_frame)


def test_timeline_artists_do_not_grow_with_failures() -> None:
    few = plots.trial_timeline(*_busy_trial(500), "busy", work_hours=700.0)
    many = plots.trial_timeline(*_busy_trial(2000, seed=1), "busy", work_hours=700.0)
    assert _artists(many) == _artists(few)


# --------------------------------------------------------------------------- sweep bars


def test_sweep_bars_keep_numbers_whole_and_draw_the_bound_as_a_bound() -> None:
    labels = [f"gpus={g}, spares={s}, servers={n}" for g, s, n in
              ((1024, 6, 134), (16384, 102, 2150), (100000, 625, 13125))]  # fmt: skip
    frame = pd.DataFrame({
        "label": [*labels, "failure-free upper bound"],
        "rework": [2.0, 40.0, 240.0, 0.0],
        "checkpoint": [3.0, 3.0, 3.0, 3.0],
        "stall": [0.01, 0.02, 0.03, 0.0],   # invisible next to 243 h
        "degraded": [0.0, 0.0, 0.0, 0.0],   # zero everywhere
    })  # fmt: skip
    figure = plots.lost_hours_by_bucket(frame, "scale", reference="failure-free upper bound")
    axes = figure.axes[0]
    ticks = [tick.get_text() for tick in axes.get_xticklabels()]
    assert len(ticks) == 3  # the bound is not a bar
    for label, tick in zip(labels, ticks, strict=True):
        numbers = re.findall(r"\d+", label)
        assert re.findall(r"\d+", tick) == numbers  # no number cut across lines
        assert tick.replace("\n", " ") == label
    bound = next(line for line in axes.get_lines() if line.get_gid() == "reference")
    assert float(bound.get_ydata()[0]) == pytest.approx(3.0)
    legend = [text.get_text().replace("\n", " ") for text in axes.get_legend().get_texts()]
    assert not any(text.startswith(("degraded", "stall")) for text in legend)
    assert any("too small to see" in text and "stall" in text for text in legend)
    assert any("not a candidate" in text for text in legend)
    assert {patch.get_gid() for patch in axes.patches} == {
        "bucket-rework", "bucket-checkpoint", "bucket-stall"}


# --------------------------------------------------------------------------- P5


def test_goodput_bad_tail_is_p5_everywhere_else_p95() -> None:
    # what is better higher (goodput, the work a calendar window got done) has its bad
    # tail at P5; every cost at P95
    assert HIGHER_IS_BETTER == ("goodput", "work_done_hours")
    assert TAIL_PERCENTILES["goodput"] == TAIL_PERCENTILES["work_done_hours"] == 5
    assert {TAIL_PERCENTILES[m] for m in TAIL_PERCENTILES if m not in HIGHER_IS_BETTER} == {95}
    assert "bad tail P5" in metric_heading("goodput")
    assert "bad tail P95" in metric_heading("wall_hours")


def test_simulate_table_shows_p5_in_bold_for_goodput() -> None:
    result = runner.invoke(app, ["simulate", str(CONFIGS / "small.toml"), "--trials", "100"])
    assert result.exit_code == 0, result.output
    header = next(line for line in result.output.splitlines() if "metric" in line)
    assert re.search(r"P5\s.*P50\s.*P95", header)
    assert "P5 of goodput" in result.output


@pytest.mark.slow  # runs a study with its report
def test_sweep_keeps_p95_and_adds_p5_and_reports_goodput_p5(sweep_out) -> None:
    out, _ = sweep_out
    results = pd.read_parquet(out / "results.parquet")
    for metric in ("goodput", "lost_hours"):
        assert {f"{metric}_p5", f"{metric}_p50", f"{metric}_p95"} <= set(results.columns)
    assert (results["goodput_p5"] <= results["goodput"]).all()
    report = (out / "report.md").read_text()
    goodput_section = report.split("### goodput")[1].split("###")[0]
    assert goodput_section.count("| P5 ") == len(results)
    lost_section = report.split("### lost time")[1].split("###")[0]
    assert lost_section.count("| P95 ") == len(results)


def test_compare_json_adds_goodput_p5() -> None:
    result = runner.invoke(app, ["compare", str(CONFIGS / "small.toml"), "--variant",
                                 "spares: job.spares=2", "--trials", "50", "--json"])  # fmt: skip
    assert result.exit_code == 0, result.output
    for row in json.loads(result.stdout)["scenarios"]:
        assert row["goodput_p5"] <= row["goodput"]
        assert set(PROVENANCE_KEYS) <= set(row["provenance"])


# --------------------------------------------------------------------------- reports


@pytest.mark.slow  # shares the study run above
def test_study_report_has_units_one_precision_hours_and_a_goodput_chart(sweep_out) -> None:
    out, data = sweep_out
    # the question asks for hours; so does the answer
    assert "fewest hours" in (out / "report.md").read_text()
    assert re.search(r"\d h \(95% CI \d+\.\d h to \d+\.\d h\)", data["answer"])
    page = (out / "report.html").read_text()
    # labels left-aligned, numbers right-aligned, nothing wraps (CIs stay on one line)
    assert "tbody th{text-align:left" in page and "white-space:nowrap" in page
    assert "td.text{text-align:left}" in page
    # units on every metric heading, never a raw key
    for heading in ("goodput (fraction of wall time", "wall time (h", "lost time (h"):
        assert heading in page
    assert "wall_hours" not in page.split("<footer")[0]
    # one precision per metric: goodput 4 decimals, hours 1 decimal
    goodput_table = page.split("goodput (fraction")[1].split("</table>")[0]
    cells = re.findall(r'<td class="num">([^<]+)</td>', goodput_table)
    assert cells and all(re.fullmatch(r"(P5 )?\d\.\d{4}( – \d\.\d{4})?", c) for c in cells)
    # a goodput chart with its CI, embedded
    assert 'alt="goodput-ci-by-point"' in page
    assert (out / "goodput-ci-by-point.png").stat().st_size > 5000


# --------------------------------------------------------------------------- provenance


def test_config_digest_follows_values_not_spelling(tmp_path: Path) -> None:
    text = (CONFIGS / "small.toml").read_text()
    respelled = tmp_path / "respelled.toml"
    respelled.write_text("# a comment that changes nothing\n" + text)
    base = config_digest(load_config(CONFIGS / "small.toml"))
    assert config_digest(load_config(respelled)) == base
    assert config_digest(load_config(CONFIGS / "small.toml", ["job.spares=3"])) != base


def _check_record(record: dict, seed: int, trials: int, digest: str | None = None) -> None:
    from relplan import __version__

    assert record["relplan_version"] == __version__
    assert re.fullmatch(r"[0-9a-f]{64}", record["config_sha256"])
    assert int(record["seed"]) == seed
    assert int(record["trials"]) == trials
    if digest is not None:
        assert record["config_sha256"] == digest


@pytest.mark.slow  # a simulation with every output file
def test_every_simulate_output_names_its_provenance(simulate_out: Path) -> None:
    digest = config_digest(load_config(CONFIGS / "small.toml"))
    summary = json.loads((simulate_out / "summary.json").read_text())
    _check_record(summary["provenance"], 3, 200, digest)
    metadata = pq.read_schema(simulate_out / "trials.parquet").metadata
    _check_record({k.decode(): v.decode() for k, v in metadata.items()
                   if k.decode() in PROVENANCE_KEYS}, 3, 200, digest)  # fmt: skip
    assert b"pandas" in metadata  # pandas' own metadata is kept
    sidecar = json.loads((simulate_out / "provenance.json").read_text())
    _check_record(sidecar, 3, 200, digest)
    assert {"summary.csv", "trials.parquet", "report.html"} <= set(sidecar["files"])
    for report in ("report.md", "report.html"):
        text = (simulate_out / report).read_text()
        assert digest in text and "seed 3" in text and "200 trials" in text
        assert "relplan 0." in text
    page = (simulate_out / "report.html").read_text()
    assert '<footer id="provenance">' in page


@pytest.mark.slow
def test_figures_carry_a_provenance_line(simulate_out: Path) -> None:
    digest = config_digest(load_config(CONFIGS / "small.toml"))
    svg = (simulate_out / "failures-by-mode.svg").read_text()
    assert 'id="provenance"' in svg
    assert digest[:12] in svg


@pytest.mark.slow
def test_optimize_and_study_outputs_name_their_provenance(tmp_path: Path, sweep_out) -> None:
    out = tmp_path / "opt"
    result = runner.invoke(app, ["optimize", str(CONFIGS / "small.toml"), "--trials", "30",
                                 "--seed", "2", "--out", str(out), "--json"])  # fmt: skip
    assert result.exit_code == 0, result.output
    digest = config_digest(load_config(CONFIGS / "small.toml"))
    _check_record(json.loads(result.stdout)["provenance"], 2, 30, digest)
    _check_record(json.loads((out / "optimize.json").read_text())["provenance"], 2, 30, digest)
    _check_record(json.loads((out / "provenance.json").read_text()), 2, 30, digest)

    study_dir, data = sweep_out
    sidecar = json.loads((study_dir / "provenance.json").read_text())
    _check_record(sidecar, 0, 40)
    assert data["provenance"] == {k: sidecar[k] for k in PROVENANCE_KEYS}
    metadata = pq.read_schema(study_dir / "results.parquet").metadata
    assert metadata[b"config_sha256"].decode() == sidecar["config_sha256"]
    results = pd.read_parquet(study_dir / "results.parquet")
    assert results["config_sha256"].str.fullmatch(r"[0-9a-f]{64}").all()
    assert results["config_sha256"].nunique() == len(results)  # each point its own config
    assert sidecar["config_sha256"] in (study_dir / "report.html").read_text()


# --------------------------------------------------------------------------- gallery


EXAMPLE_OF = {"sweep": "plot_sweep_curves"}
"""The gallery's example of a figure whose example is not named after its file."""


def test_the_gallery_has_one_example_script_per_figure_type(simulate_out: Path,
                                                             sweep_out) -> None:  # fmt: skip
    study_dir, _ = sweep_out
    written = {p.stem for p in [*simulate_out.glob("*.png"), *study_dir.glob("*.png")]}
    assert {"failures-by-mode", "timeline-median-trial", "goodput-ci-by-point"} <= written
    # lost-hours-ci-by-point is goodput-ci-by-point's figure for another metric; optimize
    # --out, a study with one axis, plan --out and a fleet's simulate --out draw the others
    written = written - {"lost-hours-ci-by-point"} | {
        "goodput-vs-interval", "sweep", "frontier", "attribution", "tornado",
        "gpu-hours-lost-by-job", "gpu-hours-lost-by-fleet", "spare-pool"}  # fleets' ones
    examples = {path.stem for path in (REPO / "examples").glob("plot_*.py")}
    assert examples == {EXAMPLE_OF.get(stem, "plot_" + stem.replace("-", "_"))
                        for stem in written}  # fmt: skip
    for name in examples:  # each small and seeded, its figure in a variable the build saves
        text = (REPO / "examples" / f"{name}.py").read_text()
        assert re.search(r"trials=\d+", text) and "figure = " in text, name


def test_every_committed_figure_of_the_docs_is_shown(tmp_path: Path) -> None:
    shown = (REPO / "README.md").read_text() + "".join(
        path.read_text() for path in (REPO / "docs").rglob("*.md"))
    images = sorted((REPO / "docs" / "gallery").glob("*.png"))
    assert [p.name for p in images] == ["timeline-median-trial.png"]  # the README's
    for image in images:
        assert f"gallery/{image.name}" in shown, image
        assert 5_000 < image.stat().st_size < 200_000, image  # a small PNG


@pytest.mark.parametrize("study_path", SHIPPED_STUDIES,
                         ids=lambda p: p.stem)  # fmt: skip
def test_a_study_that_asks_for_hours_answers_in_hours(study_path: Path) -> None:
    from relplan.config.study import load_study
    from relplan.vocab import METRIC_LABELS

    spec = load_study(study_path).spec
    unit = METRIC_LABELS[spec.objective][1]
    if re.search(r"\bhours\b", spec.question) and "goodput" not in spec.question:
        assert unit == "h", f"{spec.name} asks for hours but answers in {unit}"
    if "goodput" in spec.question:
        assert spec.objective == "goodput"
