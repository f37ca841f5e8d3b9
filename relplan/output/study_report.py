"""A study's files: results.parquet, its figures, report.md and report.html.

Reads the results of :func:`relplan.analysis.sweep.run_study` and writes them, each file
atomically; it computes nothing the results do not already hold.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from relplan.analysis.sweep import answer_sentence
from relplan.config.study import Study
from relplan.output import plots
from relplan.output.files import write_atomic
from relplan.output.report import write_report
from relplan.units import UnitError, parse_duration_hours


def _numeric(values: pd.Series) -> pd.Series | None:
    """Axis values as numbers (durations in hours) for plotting, if they all are."""

    try:
        return pd.to_numeric(values)
    except (ValueError, TypeError):
        pass
    try:
        return values.map(parse_duration_hours)
    except (UnitError, TypeError):
        return None


def results_table(study: Study, results: pd.DataFrame) -> pd.DataFrame:
    """The report's table: per point, each metric as mean [95% CI] and its P95."""
    table = pd.DataFrame({"point": results["label"]})
    for metric in study.spec.metrics:
        table[metric] = [
            f"{m:.4g} [{lo:.4g}, {hi:.4g}]"
            for m, lo, hi in zip(results[metric], results[f"{metric}_ci95_low"],
                                 results[f"{metric}_ci95_high"], strict=True)
        ]
        table[f"{metric} P95"] = results[f"{metric}_p95"]
    return table


def write_study_outputs(
    study: Study, results: pd.DataFrame, directory: Path, trials: int | None = None
) -> list[Path]:
    """Write results.parquet, the figures, report.md and a self-contained report.html.

    Parameters
    ----------
    study : Study
        The study.
    results : pandas.DataFrame
        From :func:`run_study`.
    directory : Path
        Output directory.
    trials : int, optional
        Trials per point the results were run with (default: the study's).

    Returns
    -------
    list of Path
        Every file written.
    """
    spec = study.spec
    trials = trials or spec.trials
    directory.mkdir(parents=True, exist_ok=True)
    parquet = directory / "results.parquet"
    write_atomic(parquet, lambda tmp: results.to_parquet(tmp, index=False))
    written = [parquet]
    figures: list[Path] = []
    x = spec.x or (next(iter(spec.axes)) if spec.axes else None)
    frame = results.copy()
    if x is not None and x in frame:
        numeric = _numeric(frame[x])
        if numeric is not None:
            frame[x] = numeric
        figure = plots.sweep_curves(frame, x, list(spec.metrics), spec.name, hue=spec.hue)
        figures += [p for p in plots.save_figure(figure, directory / "sweep") if p.suffix == ".png"]
    buckets = [c for c in frame.columns if c.endswith("_hours_mean")]
    breakdown = frame[["label", *buckets]].rename(
        columns={c: c.removesuffix("_hours_mean") for c in buckets}
    )
    figure = plots.lost_hours_by_bucket(breakdown, spec.name)
    figures += [p for p in plots.save_figure(figure, directory / "lost-hours-by-point")
                if p.suffix == ".png"]
    written += [p.with_suffix(s) for p in figures for s in (".png", ".svg")]
    table = results_table(study, results)
    layout = f"{spec.combine} of {', '.join(spec.axes)}" if spec.axes else "named scenarios"
    sections = [
        ("Setup", f"Base config {spec.base}; {len(results)} points ({layout}); {trials} "
                  f"trials per point, seed {spec.seed}, the same failure streams at every "
                  "point."),
    ]
    if spec.notes:
        sections.append(("Notes", spec.notes))
    written += list(write_report(directory, spec.name, spec.question,
                                 answer_sentence(study, results, trials), sections, table,
                                 figures))
    return written
