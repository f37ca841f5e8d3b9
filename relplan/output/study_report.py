"""A study's files: results.parquet, its figures, report.md, report.html, provenance.json.

Reads the results of :func:`relplan.runs.sweep.run_study` and writes them, each file
atomically; it computes nothing the results do not already hold.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from matplotlib.figure import Figure

from relplan.analysis.provenance import provenance_line, study_provenance
from relplan.config.study import Study, StudySpec
from relplan.output import plots
from relplan.output.files import write_parquet, write_provenance
from relplan.output.report import metric_heading, metric_rows_table, write_report
from relplan.runs.sweep import answer_sentence
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


def results_tables(study: Study, results: pd.DataFrame) -> list[tuple[str, pd.DataFrame]]:
    """The report's tables: each point's healthy step time and failure-free hours, then
    one per metric, one row per point (mean, 95% CI, P50 and the bad tail: P5 where
    higher is better, P95 for costs), in the metric's unit and precision; with a
    ``[budget]``, the money against the first point last.

    Parameters
    ----------
    study : Study
        The study (its metrics, in order).
    results : pandas.DataFrame
        From :func:`relplan.runs.sweep.run_study`.

    Returns
    -------
    list of (heading, pandas.DataFrame)
        The heading names the metric, its unit and its bad tail.
    """
    tables = []
    for metric in study.spec.metrics:
        rows = []
        for _, row in results.iterrows():
            stats = {key.removeprefix(f"{metric}_"): row[key] for key in row.index
                     if key.startswith(f"{metric}_")}  # fmt: skip
            stats["mean"] = row[metric]
            rows.append((str(row["label"]), metric, stats))
        tables.append((metric_heading(metric), metric_rows_table(rows).rename(
            columns={"label": "point"})))  # fmt: skip
    if "step_time_s" in results.columns:
        speed = pd.DataFrame({
            "point": results["label"].astype(str),
            "healthy step (s)": ["-" if pd.isna(v) else round(float(v), 3)
                                 for v in results["step_time_s"]],
            "failure-free hours": [round(float(v), 1) for v in results["work_hours"]],
        })  # fmt: skip
        if "job_gpus" in results.columns:
            speed["GPUs"] = [int(v) for v in results["job_gpus"]]
            if study.is_fleet:  # a fleet's jobs end apart: their GPU-hours summed
                speed["GPU-hours (summed over the jobs)"] = [
                    f"{float(v):,.0f}" for v in results["gpu_hours"]]
            else:
                speed["GPU-hours (mean wall x GPUs)"] = [
                    f"{float(w) * int(g):,.0f}"
                    for w, g in zip(results["wall_hours"], results["job_gpus"], strict=True)
                ]
        tables.insert(0, ("Healthy step time and failure-free hours of each point", speed))
    if "net_value" in results.columns:
        tables.append(("Money against the first point (at its [budget])", _money(results)))
    return tables


def _money(results: pd.DataFrame) -> pd.DataFrame:
    """Each point's GPU-hours, what it saves against the first (at the price paid, where a
    point runs on spot capacity), its extra hardware charge and its net value."""
    money = pd.DataFrame({
        "point": results["label"].astype(str),
        "GPU-hours": [f"{float(v):,.0f}" for v in results["gpu_hours"]],
        "GPU-hours saved": [f"{float(v):,.0f}" for v in results["gpu_hours_saved"]],
    })  # fmt: skip
    if "paid_gpu_hours_saved" in results.columns:  # as saved where neither side is spot
        paid = results["paid_gpu_hours_saved"].fillna(results["gpu_hours_saved"])
        money["paid GPU-hours saved"] = [f"{float(v):,.0f}" for v in paid]
    money["extra hardware charge"] = [f"{float(v):,.0f}"
                                      for v in results["extra_hardware_charge"]]  # fmt: skip
    money["net value"] = [f"{float(v):,.0f}" for v in results["net_value"]]
    return money


def _series(frame: pd.DataFrame, spec: StudySpec, x: str) -> str | None:
    """The column whose values split a study's sweep figure into lines: the study's
    ``hue``; or, in a grid of more axes than ``x`` (and the hue), the values of the
    others together, in a column of ``frame`` named after them (``crews, preempt``,
    values such as ``2, never``). None: one line."""
    others = [key for key in spec.axes if key != x] if spec.combine == "grid" else []
    if not others or others == [spec.hue]:
        return spec.hue
    column = ", ".join(key.split(".")[-1] for key in others)
    frame[column] = [", ".join(str(row[key]) for key in others) for _, row in frame.iterrows()]
    return column


def write_study_outputs(
    study: Study, results: pd.DataFrame, directory: Path, trials: int | None = None
) -> list[Path]:
    """Write results.parquet, the figures, report.md, report.html and provenance.json.

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
    record = study_provenance(study, results, trials)
    line = provenance_line(record)
    directory.mkdir(parents=True, exist_ok=True)
    parquet = directory / "results.parquet"
    write_parquet(results, parquet, record)
    written = [parquet]
    figures: list[Path] = []

    def save(figure: Figure, stem: str) -> None:
        paths = plots.save_figure(plots.provenance_footer(figure, line), directory / stem)
        figures.extend(p for p in paths if p.suffix == ".png")
        written.extend(paths)

    metrics = list(spec.metrics)
    for metric in dict.fromkeys([spec.objective, "goodput"]):
        if metric in metrics or metric == spec.objective:
            save(plots.metric_by_point(results, metric, spec.name, reference=spec.reference),
                 f"{metric.replace('_', '-')}-ci-by-point")  # fmt: skip
    x = spec.x or (next(iter(spec.axes)) if spec.axes else None)
    frame = results.copy()
    if x is not None and x in frame:
        numeric = _numeric(frame[x])
        if numeric is not None:
            frame[x] = numeric
        labels = {x: f"{x} (hours)"} if numeric is not None and not pd.api.types.is_numeric_dtype(
            results[x]) else None  # fmt: skip
        hue = _series(frame, spec, x)
        save(plots.sweep_curves(frame, x, metrics, spec.name, hue=hue, labels=labels),
             "sweep")  # fmt: skip
    buckets = [c for c in frame.columns if c.endswith("_hours_mean")]
    breakdown = frame[["label", *buckets]].rename(
        columns={c: c.removesuffix("_hours_mean") for c in buckets}
    )
    save(plots.lost_hours_by_bucket(breakdown, spec.name, reference=spec.reference),
         "lost-hours-by-point")  # fmt: skip
    layout = f"{spec.combine} of {', '.join(spec.axes)}" if spec.axes else "named scenarios"
    sections = [
        ("Setup", f"Base config {spec.base}; {len(results)} points ({layout}); {trials} "
                  f"trials per point, seed {spec.seed}, the same failure streams at every "
                  "point. Each table gives the mean with its 95% confidence interval, the "
                  "median (P50) and the bad tail: P5 where higher is better (goodput), P95 "
                  "for costs (hours): 1 run in 20 is worse."),
    ]
    if spec.notes:
        sections.append(("Notes", spec.notes))
    written += list(write_report(directory, spec.name, spec.question,
                                 answer_sentence(study, results, trials), sections,
                                 results_tables(study, results), figures, record,
                                 str(study.path)))  # fmt: skip
    written.append(write_provenance(directory, record, written))
    return written
