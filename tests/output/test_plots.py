"""Figures: pure functions of hand-made data, checked through their artists."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from matplotlib import _pylab_helpers
from matplotlib.axes import Axes
from matplotlib.collections import PolyCollection
from matplotlib.colors import to_hex
from matplotlib.container import ErrorbarContainer
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from relplan.output import plots
from relplan.vocab import BUCKETS

REPO = Path(__file__).resolve().parents[2]

# --------------------------------------------------------------------------- data


@pytest.fixture
def trials() -> pd.DataFrame:
    """Lost hours 1..100 (P50 = 50.5, P95 = 95.05) on a 512-GPU job."""
    lost = np.arange(1.0, 101.0)
    return pd.DataFrame(
        {
            "trial": np.arange(100),
            "wall_hours": 720.0 + lost,
            "lost_hours": lost,
            "gpu_hours_lost": lost * 512,
        }
    )


@pytest.fixture
def trace() -> pd.DataFrame:
    """A 13-hour trial: checkpoints every 2 h of work, one failure at 6.5 h, a repair wait."""
    rows = [
        (0.0, 2.0, "useful"),
        (2.0, 2.1, "checkpoint"),
        (2.1, 4.1, "useful"),
        (4.1, 4.2, "checkpoint"),
        (4.2, 6.5, "rework"),
        (6.5, 6.6, "detect"),
        (6.6, 8.6, "waiting"),
        (8.6, 9.0, "restart"),
        (9.0, 11.0, "useful"),
        (11.0, 11.1, "checkpoint"),
        (11.1, 12.9, "useful"),
        (12.9, 13.0, "stall"),
    ]
    return pd.DataFrame(rows, columns=["start_hours", "end_hours", "bucket"])


@pytest.fixture
def failures() -> pd.DataFrame:
    return pd.DataFrame({"time_hours": [6.5, 12.9], "mode": ["gpu", "optic"]})


@pytest.fixture
def curve() -> pd.DataFrame:
    interval = np.array([0.1, 0.25, 0.5, 1.0, 2.0, 4.0])
    goodput = np.array([0.80, 0.88, 0.92, 0.93, 0.91, 0.86])
    return pd.DataFrame(
        {
            "interval_hours": interval,
            "goodput_mean": goodput,
            "goodput_ci95_low": goodput - 0.01,
            "goodput_ci95_high": goodput + 0.01,
            "wall_p95_hours": 720.0 / goodput,
        }
    )


@pytest.fixture
def sweep() -> pd.DataFrame:
    rows = []
    for restart in ("5min", "30min"):
        for gpus in (1024, 4096, 16384, 100_000):
            goodput = 1.0 - gpus / (4e5 if restart == "5min" else 2e5)
            rows.append(
                {
                    "job_gpus": gpus,
                    "restart": restart,
                    "goodput": goodput,
                    "goodput_ci95_low": goodput - 0.01,
                    "goodput_ci95_high": goodput + 0.01,
                    "lost_hours": 720.0 * (1.0 / goodput - 1.0),
                }
            )
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- helpers


def _main_axes(figure: Figure) -> Axes:
    return figure.axes[0]


def _vline_x(axes: Axes, label_start: str) -> float:
    """x of the vertical line whose legend label starts with ``label_start``."""
    lines = [line for line in axes.get_lines() if line.get_label().startswith(label_start)]
    assert len(lines) == 1, [line.get_label() for line in axes.get_lines()]
    xdata = np.asarray(lines[0].get_xdata(), dtype=float)
    assert xdata[0] == xdata[-1]
    return float(xdata[0])


def _legend_texts(axes: Axes) -> list[str]:
    legend = axes.get_legend()
    assert legend is not None
    return [text.get_text() for text in legend.get_texts()]


def _bucket_collections(axes: Axes) -> list[PolyCollection]:
    return [
        collection
        for collection in axes.collections
        if isinstance(collection, PolyCollection)
        and str(collection.get_gid()).startswith("bucket-")
    ]


# --------------------------------------------------------------------------- palette


def test_every_bucket_has_its_own_colour() -> None:
    assert set(plots.BUCKET_COLORS) == set(BUCKETS)
    assert len({to_hex(color) for color in plots.BUCKET_COLORS.values()}) == len(BUCKETS)
    assert plots.LOST_BUCKETS == tuple(bucket for bucket in BUCKETS if bucket != "useful")


def test_figures_do_not_touch_pyplot_state(trials: pd.DataFrame) -> None:
    before = _pylab_helpers.Gcf.get_num_fig_managers()
    plots.lost_hours_histogram(trials, "small")
    plots.lost_hours_cdf(trials, "small")
    assert _pylab_helpers.Gcf.get_num_fig_managers() == before


@pytest.mark.slow
def test_importing_plots_does_not_import_pyplot() -> None:
    code = "import sys, relplan.output.plots; print('matplotlib.pyplot' in sys.modules)"
    environment = {**os.environ, "PYTHONPATH": str(REPO)}
    completed = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=environment,
        check=True,
    )
    assert completed.stdout.strip() == "False"


# --------------------------------------------------------------------------- histogram, CDF


def test_histogram_marks_mean_p50_p95(trials: pd.DataFrame) -> None:
    figure = plots.lost_hours_histogram(trials, "small-512")
    assert isinstance(figure, Figure)
    assert "small-512" in figure.get_suptitle()
    axes = _main_axes(figure)
    assert "hours" in axes.get_xlabel()
    assert "count" in axes.get_ylabel()
    assert _vline_x(axes, "mean") == pytest.approx(50.5)
    assert _vline_x(axes, "P50") == pytest.approx(50.5)
    assert _vline_x(axes, "P95") == pytest.approx(95.05)
    # Every trial lands in exactly one bin.
    heights = [patch.get_height() for patch in axes.patches]
    assert sum(heights) == 100
    # GPU-hours shown on a secondary axis, with the job's 512 GPUs.
    assert len(axes.child_axes) == 1
    assert "GPU-hours" in axes.child_axes[0].get_xlabel()
    assert "512" in axes.child_axes[0].get_xlabel()


def test_histogram_of_identical_values_draws_one_bin() -> None:
    figure = plots.lost_hours_histogram(pd.DataFrame({"lost_hours": [3.0, 3.0, 3.0]}), "flat")
    axes = _main_axes(figure)
    assert [patch.get_height() for patch in axes.patches] == [3]
    assert axes.child_axes == []  # no gpu_hours_lost column, no GPU-hours axis


def test_histogram_needs_lost_hours() -> None:
    with pytest.raises(ValueError, match="lost_hours"):
        plots.lost_hours_histogram(pd.DataFrame({"wall_hours": [1.0]}), "small")


def test_cdf_is_a_distribution_with_percentiles(trials: pd.DataFrame) -> None:
    figure = plots.lost_hours_cdf(trials, "small-512")
    assert isinstance(figure, Figure)
    assert "small-512" in figure.get_suptitle()
    axes = _main_axes(figure)
    assert "hours" in axes.get_xlabel()
    assert "%" in axes.get_ylabel()
    step = next(line for line in axes.get_lines() if line.get_label().startswith("empirical"))
    y = np.asarray(step.get_ydata(), dtype=float)
    assert y[0] == 0.0
    assert y[-1] == pytest.approx(1.0)
    assert np.all(np.diff(y) >= 0)
    assert _vline_x(axes, "P50") == pytest.approx(50.5)
    assert _vline_x(axes, "P95") == pytest.approx(95.05)
    # P95 in GPU-hours: 95.05 h x 512 GPUs.
    assert any("48,666 GPU-h" in text for text in _legend_texts(axes))
    assert len(axes.child_axes) == 1


def test_cdf_without_gpu_hours_has_no_second_axis(trials: pd.DataFrame) -> None:
    figure = plots.lost_hours_cdf(trials.drop(columns="gpu_hours_lost"), "small")
    axes = _main_axes(figure)
    assert axes.child_axes == []
    assert not any("GPU-h" in text for text in _legend_texts(axes))


# --------------------------------------------------------------------------- buckets


def test_single_breakdown_stacks_the_inputs() -> None:
    breakdown = {
        "rework": 10.0,
        "checkpoint": 12.0,
        "detect": 0.5,
        "restart": 3.0,
        "waiting": 0.0,
        "degraded": 0.0,
        "stall": 0.25,
    }
    figure = plots.lost_hours_by_bucket(breakdown, "small")
    assert isinstance(figure, Figure)
    assert "small" in figure.get_suptitle()
    axes = _main_axes(figure)
    assert "hours" in axes.get_ylabel()
    segments = {patch.get_gid(): patch for patch in axes.patches}
    drawn = ["rework", "checkpoint", "detect", "restart", "stall"]
    assert list(segments) == [f"bucket-{bucket}" for bucket in drawn]
    bottom = 0.0
    for bucket in drawn:
        patch = segments[f"bucket-{bucket}"]
        assert patch.get_height() == pytest.approx(breakdown[bucket])
        assert patch.get_y() == pytest.approx(bottom)
        assert to_hex(patch.get_facecolor()) == to_hex(plots.BUCKET_COLORS[bucket])
        bottom += breakdown[bucket]
    legend = " ".join(_legend_texts(axes))
    assert "waiting" not in legend
    assert "degraded" not in legend
    assert "rework" in legend


def test_breakdown_frame_gives_one_bar_per_row() -> None:
    frame = pd.DataFrame(
        {
            "label": ["30min", "1h", "2h"],
            "rework_hours": [2.0, 4.0, 8.0],  # the trials_frame spelling is accepted
            "checkpoint": [8.0, 4.0, 2.0],
            "restart": [1.0, 1.0, 1.0],
            "waiting": [0.0, 0.0, 0.0],
        }
    )
    figure = plots.lost_hours_by_bucket(frame, "sweep-interval")
    axes = _main_axes(figure)
    assert [tick.get_text() for tick in axes.get_xticklabels()] == ["30min", "1h", "2h"]
    for bucket, column in (
        ("rework", "rework_hours"),
        ("checkpoint", "checkpoint"),
        ("restart", "restart"),
    ):
        patches = [patch for patch in axes.patches if patch.get_gid() == f"bucket-{bucket}"]
        assert [patch.get_height() for patch in patches] == pytest.approx(frame[column].tolist())
    tops = {}
    for patch in axes.patches:
        center = round(patch.get_x() + patch.get_width() / 2)
        tops[center] = max(tops.get(center, 0.0), patch.get_y() + patch.get_height())
    assert [tops[index] for index in range(3)] == pytest.approx([11.0, 9.0, 11.0])
    assert not any(patch.get_gid() == "bucket-waiting" for patch in axes.patches)
    assert _legend_texts(axes) == ["restart", "checkpoint", "rework"]


def test_breakdown_rejects_unknown_bucket() -> None:
    with pytest.raises(ValueError, match="reworkk"):
        plots.lost_hours_by_bucket({"reworkk": 1.0}, "small")


# --------------------------------------------------------------------------- interruptions


def test_interruptions_sorted_with_shares() -> None:
    by_class = {"optic": 1.0, "gpu": 6.0, "host": 3.0}
    figure = plots.interruptions_by_class(by_class, "seed-moe-10k")
    assert isinstance(figure, Figure)
    assert "seed-moe-10k" in figure.get_suptitle()
    axes = _main_axes(figure)
    assert "count" in axes.get_xlabel()
    bars = sorted(axes.patches, key=lambda patch: -patch.get_y())  # top first
    assert [bar.get_width() for bar in bars] == [6.0, 3.0, 1.0]
    ticks = zip(axes.get_yticks(), axes.get_yticklabels(), strict=True)
    top_down = [label.get_text() for _, label in sorted(ticks, key=lambda tick: -tick[0])]
    assert top_down == ["gpu", "host", "optic"]
    annotations = [text.get_text() for text in axes.texts]
    assert "6 (60.0%)" in annotations
    assert "3 (30.0%)" in annotations
    assert "1 (10.0%)" in annotations


def test_interruptions_need_a_mode() -> None:
    with pytest.raises(ValueError, match="by_class"):
        plots.interruptions_by_class({}, "small")


# --------------------------------------------------------------------------- timeline


def test_timeline_one_collection_per_bucket(trace: pd.DataFrame, failures: pd.DataFrame) -> None:
    figure = plots.trial_timeline(trace, failures, "small", work_hours=7.8)
    assert isinstance(figure, Figure)
    assert "small" in figure.get_suptitle()
    lane, progress = figure.axes[:2]
    collections = _bucket_collections(lane)
    assert len(collections) == trace["bucket"].nunique() == 7
    for collection in collections:
        bucket = collection.get_gid().removeprefix("bucket-")
        assert len(collection.get_paths()) == int((trace["bucket"] == bucket).sum())
        assert to_hex(collection.get_facecolor()[0]) == to_hex(plots.BUCKET_COLORS[bucket])
    assert "hours" in progress.get_xlabel()
    assert "hours" in progress.get_ylabel()


def test_timeline_marks_failures_and_checkpoints(
    trace: pd.DataFrame, failures: pd.DataFrame
) -> None:
    figure = plots.trial_timeline(trace, failures, "small", work_hours=7.8)
    lane = figure.axes[0]
    markers = next(line for line in lane.get_lines() if line.get_gid() == "failures")
    assert np.asarray(markers.get_xdata(), dtype=float).tolist() == [6.5, 12.9]
    assert {"gpu", "optic"} <= {text.get_text() for text in lane.texts}
    ticks = next(line for line in lane.get_lines() if line.get_gid() == "checkpoints")
    assert np.asarray(ticks.get_xdata(), dtype=float).tolist() == pytest.approx([2.0, 4.1, 11.0])


def test_timeline_progress_is_flat_while_time_is_lost(
    trace: pd.DataFrame, failures: pd.DataFrame
) -> None:
    figure = plots.trial_timeline(trace, failures, "small", work_hours=7.8)
    progress = figure.axes[1]
    line = next(line for line in progress.get_lines() if line.get_gid() == "progress")
    wall = np.asarray(line.get_xdata(), dtype=float)
    done = np.asarray(line.get_ydata(), dtype=float)
    assert done[-1] == pytest.approx(7.8)  # 2 + 2 + 2 + 1.8 hours of useful work
    # From the start of rework (4.2 h) to the end of the restart (9.0 h) no work is done.
    during_loss = (wall >= 4.2) & (wall <= 9.0)
    assert np.ptp(done[during_loss]) == pytest.approx(0.0)
    assert np.all(np.diff(done) >= 0)


def test_timeline_without_failures(trace: pd.DataFrame) -> None:
    no_failures = pd.DataFrame({"time_hours": pd.Series(dtype=float), "mode": pd.Series(dtype=str)})
    figure = plots.trial_timeline(trace, no_failures, "small", work_hours=7.8)
    lane = figure.axes[0]
    assert not any(line.get_gid() == "failures" for line in lane.get_lines())
    assert len(_bucket_collections(lane)) == 7


def test_timeline_draws_thousands_of_intervals_with_one_artist_per_bucket() -> None:
    count = 5000
    buckets = np.where(np.arange(count) % 2 == 0, "useful", "checkpoint")
    durations = np.where(buckets == "useful", 1.0, 0.05)
    end = np.cumsum(durations)
    trace = pd.DataFrame({"start_hours": end - durations, "end_hours": end, "bucket": buckets})
    failures = pd.DataFrame({"time_hours": [10.0], "mode": ["gpu"]})
    figure = plots.trial_timeline(trace, failures, "big", work_hours=2500.0)
    lane = figure.axes[0]
    assert len(_bucket_collections(lane)) == 2
    assert len(lane.patches) == 0


def test_timeline_rejects_unknown_bucket(trace: pd.DataFrame, failures: pd.DataFrame) -> None:
    bad = trace.assign(bucket=trace["bucket"].replace({"stall": "coffee"}))
    with pytest.raises(ValueError, match="coffee"):
        plots.trial_timeline(bad, failures, "small", work_hours=7.8)


# --------------------------------------------------------------------------- goodput curve


def test_goodput_curve_band_optima_and_twin_axis(curve: pd.DataFrame) -> None:
    figure = plots.goodput_vs_interval(
        curve,
        "small",
        young_hours=0.9,
        daly_hours=0.85,
        mc_optimal_hours=1.0,
        mc_optimal_ci95=(0.7, 1.4),
        p95_optimal_hours=0.8,
        p95_optimal_ci95=(0.6, 1.1),
    )
    assert isinstance(figure, Figure)
    assert "small" in figure.get_suptitle()
    axes = _main_axes(figure)
    assert "%" in axes.get_ylabel()
    bands = [c for c in axes.collections if isinstance(c, PolyCollection)]
    assert [band.get_gid() for band in bands] == ["goodput-ci95"]
    vertices = bands[0].get_paths()[0].vertices
    assert vertices[:, 1].min() == pytest.approx(0.79)
    assert vertices[:, 1].max() == pytest.approx(0.94)
    assert axes.get_xscale() == "log"  # 0.1 h to 4 h spans 40x
    # The optima sit in their own strip, one row each, with distinct markers: optima a
    # few minutes apart no longer hide each other.
    strip = next(a for a in figure.axes if a.get_gid() == "optima")
    assert "hours" in strip.get_xlabel()
    points = {line.get_gid(): line for line in strip.get_lines()
              if str(line.get_gid()).startswith("optimum-")}
    assert len(points) == 4
    xs = {gid: float(line.get_xdata()[0]) for gid, line in points.items()}
    rows = {gid: float(line.get_ydata()[0]) for gid, line in points.items()}
    assert xs["optimum-Young (1974)"] == pytest.approx(0.9)
    assert xs["optimum-Daly (2006)"] == pytest.approx(0.85)
    assert xs["optimum-MC optimum, mean goodput"] == pytest.approx(1.0)
    assert xs["optimum-MC optimum, P95 wall time"] == pytest.approx(0.8)  # marked
    assert len(set(rows.values())) == 4
    assert len({line.get_marker() for line in points.values()}) == 4
    assert len({to_hex(line.get_color()) for line in points.values()}) == 4
    # the CIs of the two Monte Carlo optima are drawn as error bars in their rows
    bars = [c for c in strip.containers if isinstance(c, ErrorbarContainer)]
    spans = sorted(tuple(np.round(c.lines[2][0].get_segments()[0][:, 0], 6)) for c in bars)
    assert spans == [(0.6, 1.1), (0.7, 1.4)]
    # the MC optimum is starred on the goodput curve, the P95 optimum on the wall curve
    star = next(line for line in axes.get_lines() if line.get_gid() == "mc-optimum-on-curve")
    assert float(star.get_ydata()[0]) == pytest.approx(0.93)
    twin = next(a for a in figure.axes if a.get_gid() == "wall-p95")
    assert "hours" in twin.get_ylabel()
    assert any(line.get_gid() == "wall-p95" for line in twin.get_lines())
    assert any(line.get_gid() == "p95-optimum-on-curve" for line in twin.get_lines())


def test_goodput_curve_linear_and_optional_parts(curve: pd.DataFrame) -> None:
    narrow = curve[curve["interval_hours"].between(0.5, 4.0)].drop(columns="wall_p95_hours")
    figure = plots.goodput_vs_interval(narrow, "small")
    axes = _main_axes(figure)
    assert axes.get_xscale() == "linear"  # 8x range
    assert "hours" in axes.get_xlabel()
    assert len(figure.axes) == 1
    assert not any(
        line.get_label().startswith(("Young", "Daly", "MC")) for line in axes.get_lines()
    )


def test_goodput_curve_needs_ci_columns(curve: pd.DataFrame) -> None:
    with pytest.raises(ValueError, match="goodput_ci95_high"):
        plots.goodput_vs_interval(curve.drop(columns="goodput_ci95_high"), "small")


# --------------------------------------------------------------------------- sweeps


def test_sweep_panels_lines_bands_and_log_x(sweep: pd.DataFrame) -> None:
    figure = plots.sweep_curves(
        sweep, "job_gpus", ["goodput", "lost_hours"], "scale", hue="restart"
    )
    assert isinstance(figure, Figure)
    assert "scale" in figure.get_suptitle()
    visible = [axes for axes in figure.axes if axes.get_visible()]
    assert len(visible) == 2
    goodput_axes, lost_axes = visible
    assert "fraction" in goodput_axes.get_ylabel()
    assert "hours" in lost_axes.get_ylabel()
    assert "count" in lost_axes.get_xlabel()
    for axes in visible:
        assert axes.get_xscale() == "log"  # 1,024 to 100,000 GPUs
        lines = [line for line in axes.get_lines() if isinstance(line, Line2D)]
        assert sorted(line.get_label() for line in lines) == ["30min", "5min"]
        for line in lines:
            assert np.asarray(line.get_xdata(), dtype=float).tolist() == [
                1024,
                4096,
                16384,
                100_000,
            ]
    bands = [c for c in goodput_axes.collections if isinstance(c, PolyCollection)]
    assert len(bands) == 2
    assert not [c for c in lost_axes.collections if isinstance(c, PolyCollection)]


def test_sweep_grid_labels_bottom_panels_and_hides_spares(sweep: pd.DataFrame) -> None:
    one = sweep[sweep["restart"] == "5min"].assign(
        interruptions=[1.0, 2.0, 3.0, 4.0], spares_used=[0.0, 1.0, 1.0, 2.0]
    )
    metrics = ["goodput", "lost_hours", "interruptions", "spares_used", "wall_hours_p95"]
    one = one.assign(wall_hours_p95=[800.0, 810.0, 820.0, 900.0])
    figure = plots.sweep_curves(one, "job_gpus", metrics, "scale", labels={"job_gpus": "GPUs (n)"})
    visible = [axes for axes in figure.axes if axes.get_visible()]
    assert len(visible) == len(metrics)
    assert len(figure.axes) == 6  # 3 x 2 grid, one hidden
    labelled = [axes.get_xlabel() for axes in visible]
    # The lowest panel of each column carries the x label.
    assert labelled[3] == "GPUs (n)"
    assert labelled[4] == "GPUs (n)"
    assert labelled[0] == ""
    assert "hours" in visible[4].get_ylabel()


def test_sweep_single_point_gets_error_bars(sweep: pd.DataFrame) -> None:
    single = sweep[(sweep["job_gpus"] == 1024) & (sweep["restart"] == "5min")]
    figure = plots.sweep_curves(single, "job_gpus", ["goodput"], "one-point")
    axes = _main_axes(figure)
    (container,) = [c for c in axes.containers if isinstance(c, ErrorbarContainer)]
    _, _, (bar_lines,) = container.lines
    (segment,) = bar_lines.get_segments()
    goodput = float(single["goodput"].iloc[0])
    assert segment[:, 1].tolist() == pytest.approx([goodput - 0.01, goodput + 0.01])
    assert axes.get_xscale() == "linear"


def test_sweep_needs_the_columns(sweep: pd.DataFrame) -> None:
    with pytest.raises(ValueError, match="missing"):
        plots.sweep_curves(sweep, "job_gpus", ["goodput_p95"], "scale")
    with pytest.raises(ValueError, match="metrics"):
        plots.sweep_curves(sweep, "job_gpus", [], "scale")


# --------------------------------------------------------------------------- files


def test_save_figure_writes_valid_png_and_svg(tmp_path: Path, trials: pd.DataFrame) -> None:
    figure = plots.lost_hours_histogram(trials, "small")
    target = tmp_path / "figures" / "lost.hours"  # a dot in the name is not a suffix
    written = plots.save_figure(figure, target)
    assert written == [
        tmp_path / "figures" / "lost.hours.png",
        tmp_path / "figures" / "lost.hours.svg",
    ]
    png, svg = written
    assert png.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    assert png.stat().st_size > 1000
    svg_text = svg.read_text(encoding="utf-8")
    assert svg_text.startswith("<?xml") or "<svg" in svg_text
    assert "<svg" in svg_text
    assert "small" in svg_text  # the title is in the vector output
    assert sorted(path.name for path in (tmp_path / "figures").iterdir()) == [
        "lost.hours.png",
        "lost.hours.svg",
    ]


def test_save_figure_svg_is_reproducible(tmp_path: Path, trials: pd.DataFrame) -> None:
    figure = plots.lost_hours_cdf(trials, "small")
    (first,) = plots.save_figure(figure, tmp_path / "a", formats=("svg",))
    (second,) = plots.save_figure(figure, tmp_path / "b", formats=(".SVG",))
    assert second.name == "b.svg"
    assert first.read_bytes() == second.read_bytes()


def test_save_figure_rejects_unknown_format_and_writes_nothing(
    tmp_path: Path, trials: pd.DataFrame
) -> None:
    figure = plots.lost_hours_histogram(trials, "small")
    with pytest.raises(ValueError, match="bmpx"):
        plots.save_figure(figure, tmp_path / "lost", formats=("png", "bmpx"))
    assert list(tmp_path.iterdir()) == []


def test_save_figure_leaves_no_temporary_file_when_rendering_fails(
    tmp_path: Path, trials: pd.DataFrame, monkeypatch: pytest.MonkeyPatch
) -> None:
    figure = plots.lost_hours_histogram(trials, "small")

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("disk full")

    monkeypatch.setattr(figure, "savefig", broken)
    with pytest.raises(RuntimeError, match="disk full"):
        plots.save_figure(figure, tmp_path / "lost")
    assert list(tmp_path.iterdir()) == []
