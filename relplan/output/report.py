"""Figure sets and written reports (Markdown, self-contained HTML) built from results.

Everything here reads finished results and writes files, each atomically; nothing
here computes a number the results do not already hold, except the figures' own
summaries.
"""

from __future__ import annotations

import base64
import html
import re
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pandas as pd

from relplan.analysis.optimize import IntervalOptimum
from relplan.analysis.provenance import provenance_line, provenance_record
from relplan.analysis.results import SimulationResult
from relplan.output import plots
from relplan.output.files import (
    to_json,
    write_atomic,
    write_provenance,
    write_result_files,
    write_text_atomic,
)
from relplan.sim.trace import trace_trial
from relplan.vocab import HIGHER_IS_BETTER, METRIC_LABELS, METRICS, TAIL_PERCENTILES


def median_trial(result: SimulationResult) -> int:
    """Index of the trial whose goodput is the median: a representative sample trial (the
    median wall time, or over a calendar window the median work done)."""
    goodput = result.column("goodput")
    return int(np.argsort(-goodput, kind="stable")[goodput.size // 2])


def failure_table(summary: dict) -> dict[str, dict[str, float | str]]:
    """Per failure mode: its impact, mean failures and mean interruptions per trial.

    Parameters
    ----------
    summary : dict
        A simulation summary (:meth:`SimulationResult.summary`), with
        ``failures_by_class`` and ``interruptions_by_class``.

    Returns
    -------
    dict
        ``{mode: {"impact": str, "failures": float, "interruptions": float}}``, counts per
        trial; the input of :func:`relplan.output.plots.failures_by_mode`.

    Examples
    --------
    >>> failure_table({"failures_by_class": {"spine": {"impact": "degraded", "mean": 2.0}},
    ...                "interruptions_by_class": {"spine": 0.5}})
    {'spine': {'impact': 'degraded', 'failures': 2.0, 'interruptions': 0.5}}
    """
    stopped = summary["interruptions_by_class"]
    return {
        mode: {"impact": entry["impact"], "failures": float(entry["mean"]),
               "interruptions": float(stopped.get(mode, 0.0))}
        for mode, entry in summary["failures_by_class"].items()
    }  # fmt: skip


def write_simulation_figures(
    result: SimulationResult,
    directory: Path,
    formats: tuple[str, ...] = ("png", "svg"),
    dpi: float = 150,
) -> list[Path]:
    """Write the figures of one simulation (PNG and SVG), each file atomically.

    Figures: lost-hours histogram and CDF, lost hours by bucket, failures by mode, and
    the timeline of the median trial; each with a provenance line.

    Parameters
    ----------
    result : SimulationResult
        The simulation.
    directory : Path
        Output directory.
    formats : tuple of str, default ("png", "svg")
        File formats (see :func:`relplan.output.plots.save_figure`).
    dpi : float, default 150
        Resolution of raster formats, dots per inch.

    Returns
    -------
    list of Path
        The files written.
    """
    name = result.config_name
    job = result.model.job
    trials = pd.DataFrame({"lost_hours": result.column("lost_hours")})  # what the plots use
    summary = result.summary()
    failures = failure_table(summary)
    figures = {
        "lost-hours-histogram": plots.lost_hours_histogram(trials, name),
        "lost-hours-cdf": plots.lost_hours_cdf(trials, name),
        "lost-hours-by-bucket": plots.lost_hours_by_bucket(summary["lost_hours_breakdown"], name),
    }
    if any(entry["failures"] > 0 for entry in failures.values()):
        figures["failures-by-mode"] = plots.failures_by_mode(failures, name)
    sample = median_trial(result)
    intervals, failure_times = trace_trial(result.model, result.seed, sample, result.trials)
    figures["timeline-median-trial"] = plots.trial_timeline(
        intervals, failure_times, f"{name}, trial {sample} (median goodput)",
        job.work_hours if job.horizon_hours is None else None,
    )
    line = provenance_line(result.provenance)
    written: list[Path] = []
    for stem, figure in figures.items():
        written += plots.save_figure(plots.provenance_footer(figure, line), directory / stem,
                                     formats, dpi)  # fmt: skip
    return written


def write_simulation_outputs(
    result: SimulationResult, directory: Path, source: str | None = None
) -> list[Path]:
    """Write everything ``simulate --out`` writes, each file atomically.

    ``trials.parquet``, ``summary.csv``, ``summary.json``, the figures (PNG, SVG),
    ``report.md`` and a self-contained ``report.html``, and ``provenance.json`` (the
    relplan version, config digest, seed and trials, and the files they cover).

    Parameters
    ----------
    result : SimulationResult
        The simulation.
    directory : Path
        Output directory (created if missing).
    source : str, optional
        The config file, named in the report's footer.

    Returns
    -------
    list of Path
        The files written.
    """
    written = write_result_files(result, directory)
    written += write_simulation_figures(result, directory)
    written += write_simulation_report(result, directory, source)
    written.append(write_provenance(directory, result.provenance, written))
    return written


def write_simulation_report(
    result: SimulationResult, directory: Path, source: str | None = None
) -> list[Path]:
    """Write ``report.md`` and ``report.html`` of one simulation (its figures must exist).

    Parameters
    ----------
    result : SimulationResult
        The simulation.
    directory : Path
        Output directory holding the figures of :func:`write_simulation_figures`.
    source : str, optional
        The config file, named in the footer.

    Returns
    -------
    list of Path
        The Markdown and HTML files.
    """
    summary = result.summary()
    job = result.model.job
    goodput = summary["goodput"]
    low, high = goodput["ci95"]
    wall = summary["wall_hours"]
    answer = (
        f"mean goodput {format_metric('goodput', goodput['mean'])} (95% CI "
        f"{format_metric('goodput', low)} to {format_metric('goodput', high)}); in 1 run "
        f"in 20 it is below {format_metric('goodput', goodput['p5'])} (P5). The job takes "
        f"{format_metric('wall_hours', wall['mean'])} h of wall time on average and more "
        f"than {format_metric('wall_hours', wall['p95'])} h in 1 run in 20 (P95), for "
        f"{format_metric('wall_hours', job.work_hours)} h of work."
    )
    work = f"{format_metric('wall_hours', job.work_hours)} h of work"
    if job.horizon_hours is not None:  # a calendar window: the work done varies
        done = summary["work_done_hours"]
        answer = (
            f"mean goodput {format_metric('goodput', goodput['mean'])} (95% CI "
            f"{format_metric('goodput', low)} to {format_metric('goodput', high)}) over a "
            f"{format_metric('wall_hours', job.horizon_hours)}-h window; in 1 run in 20 it "
            f"is below {format_metric('goodput', goodput['p5'])} (P5). The window gets "
            f"{format_metric('work_done_hours', done['mean'])} h of work done on average, "
            f"less than {format_metric('work_done_hours', done['p5'])} h in 1 run in 20."
        )
        work = f"a {format_metric('wall_hours', job.horizon_hours)}-h calendar window"
    if job.step_overhead > 0.0:
        work += (f" with the recovery stack's tax of {job.step_overhead:.1%} a step "
                 f"({format_metric('wall_hours', job.compute_hours)} h of compute)")
    buckets = pd.DataFrame(
        {"bucket": list(summary["lost_hours_breakdown"]),
         "mean per run (h)": [f"{v:,.2f}" for v in summary["lost_hours_breakdown"].values()]}
    )  # fmt: skip
    failures = failure_table(summary)
    modes = pd.DataFrame(
        {"mode": list(failures),
         "impact": [e["impact"] for e in failures.values()],
         "failures per run (count)": [f"{e['failures']:,.2f}" for e in failures.values()],
         "interruptions per run (count)": [f"{e['interruptions']:,.2f}"
                                           for e in failures.values()]}
    )  # fmt: skip
    setup = (
        f"{result.trials:,} trials, seed {result.seed}; {job.gpus:,} GPUs, "
        f"{work}, checkpoint every "
        f"{job.interval_hours:.3g} h (write {job.write_hours * 60:.3g} min), restart "
        f"{job.restart_hours * 60:.3g} min, job MTTI {result.model.job_mtti_hours:,.3g} h."
    )
    tables = [("Metrics per run", simulation_table(summary)),
              ("Lost hours by bucket", buckets), ("Failures by mode", modes)]  # fmt: skip
    units = summary.get("unit_failures_by_class")
    if units:  # modes whose units have a history: lemons, imperfect repair, retirement
        tables.append(("Failures per unit (modes with lemons or imperfect repair)",
                       unit_failure_frame(units)))  # fmt: skip
    order = ["lost-hours-by-bucket", "failures-by-mode", "lost-hours-cdf",
             "lost-hours-histogram", "timeline-median-trial"]  # fmt: skip
    figures = [directory / f"{stem}.png" for stem in order
               if (directory / f"{stem}.png").exists()]  # fmt: skip
    return list(write_report(
        directory, f"Simulation of {result.config_name}",
        "What goodput and wall time will this job get, and where do the lost hours go?",
        answer[0].upper() + answer[1:], [("Setup", setup)], tables,
        figures, result.provenance, source,
    ))  # fmt: skip


def unit_failure_frame(units: dict[str, dict]) -> pd.DataFrame:
    """The per-unit failures of a summary's ``unit_failures_by_class``, one row per mode.

    Parameters
    ----------
    units : dict
        Per mode, :func:`relplan.analysis.results.unit_failure_summary`.

    Returns
    -------
    pandas.DataFrame
        Means per run (counts) and the share of runs with a repeat offender.
    """
    return pd.DataFrame({
        "mode": list(units),
        "failures per run": [f"{e['failures']:,.2f}" for e in units.values()],
        "units failed": [f"{e['units_failed']:,.2f}" for e in units.values()],
        "repeat units (failed twice or more)": [f"{e['repeat_units']:,.2f}"
                                                for e in units.values()],
        "most failures of one unit": [f"{e['max_failures_per_unit']:,.2f}"
                                      for e in units.values()],
        "units retired": [f"{e['retired_units']:,.2f}" for e in units.values()],
        "runs with a repeat unit": [f"{100 * e['trials_with_repeat_units']:.1f}%"
                                    for e in units.values()],
    })  # fmt: skip


def metric_heading(metric: str, tail: bool = True) -> str:
    """A metric's name with its unit (and, with ``tail``, which tail is the bad one).

    Examples
    --------
    >>> metric_heading("goodput")
    'goodput (fraction of wall time; higher is better, bad tail P5)'
    >>> metric_heading("lost_hours", tail=False)
    'lost time (h)'
    """
    label, unit, _ = METRIC_LABELS.get(metric, (metric.replace("_", " "), "", "{:.4g}"))
    if not tail:
        return f"{label} ({unit})" if unit else label
    better = "higher" if metric in HIGHER_IS_BETTER else "lower"
    unit_text = f"{unit}; " if unit else ""
    return f"{label} ({unit_text}{better} is better, bad tail P{TAIL_PERCENTILES.get(metric, 95)})"


def format_metric(metric: str, value: float) -> str:
    """A value of a metric in the one precision every report uses for it (no unit).

    Examples
    --------
    >>> format_metric("goodput", 0.98276), format_metric("gpu_hours_lost", 8863.8)
    ('0.9828', '8,864')
    """
    _, _, fmt = METRIC_LABELS.get(metric, ("", "", "{:.4g}"))
    return fmt.format(float(value))


def metric_rows_table(rows: list[tuple[str, str, dict]]) -> pd.DataFrame:
    """A table of statistics: one row per (label, metric, stats), CIs on one line.

    Parameters
    ----------
    rows : list of (label, metric, stats)
        ``stats`` holds ``mean``, ``ci95`` ([low, high]) or ``ci95_low``/``ci95_high``,
        ``p50`` and the bad-tail percentile (``p5`` for goodput, ``p95`` otherwise).

    Returns
    -------
    pandas.DataFrame
        Columns ``label``, ``mean``, ``95% CI``, ``P50``, ``bad tail``, as text in the
        metric's precision; ``bad tail`` reads e.g. ``P5 0.9712``.
    """
    records = []
    for label, metric, stats in rows:
        low, high = stats["ci95"] if "ci95" in stats else (stats["ci95_low"], stats["ci95_high"])
        tail = TAIL_PERCENTILES.get(metric, 95)
        records.append({
            "label": label,
            "mean": format_metric(metric, stats["mean"]),
            "95% CI": f"{format_metric(metric, low)} – {format_metric(metric, high)}",
            "P50": format_metric(metric, stats["p50"]) if "p50" in stats else "",
            "bad tail": f"P{tail} {format_metric(metric, stats[f'p{tail}'])}"
            if f"p{tail}" in stats else "",
        })  # fmt: skip
    return pd.DataFrame(records, columns=["label", "mean", "95% CI", "P50", "bad tail"])


def simulation_table(summary: dict) -> pd.DataFrame:
    """The summary of one simulation as a report table: one row per metric, with units.

    Examples
    --------
    >>> stats = {"mean": 0.9, "ci95": [0.89, 0.91], "p5": 0.8, "p50": 0.9, "p95": 0.95}
    >>> simulation_table({"goodput": stats}).iloc[0].tolist()
    ['goodput (fraction of wall time)', '0.9000', '0.8900 – 0.9100', '0.9000', 'P5 0.8000']
    """
    rows = [(metric_heading(m, tail=False), m, summary[m]) for m in METRICS if m in summary]
    return metric_rows_table(rows).rename(columns={"label": "metric (unit)"})


def markdown_table(frame: pd.DataFrame, digits: int = 4) -> str:
    """A DataFrame as a GitHub-flavoured Markdown table (numbers to ``digits`` significant).

    Examples
    --------
    >>> print(markdown_table(pd.DataFrame({"a": ["x"], "b": [1.23456]})))
    | a | b |
    |:---|---:|
    | x | 1.235 |
    """

    def cell(value: object) -> str:
        if isinstance(value, float | np.floating):
            return f"{value:.{digits}g}"
        return str(value).replace("|", "\\|")

    header = "| " + " | ".join(str(c) for c in frame.columns) + " |"
    numeric = [i > 0 and _numeric_column(frame[c]) for i, c in enumerate(frame.columns)]
    rule = "|" + "|".join("---:" if n else ":---" for n in numeric) + "|"
    rows = ["| " + " | ".join(cell(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join([header, rule, *rows])


_NUMBER = re.compile(r"(P\d+ )?[-+]?[\d.,]+(e[-+]?\d+)?( – [-+]?[\d.,]+(e[-+]?\d+)?)?")


def _html_prose(text: str) -> str:
    r"""A section's text as HTML: paragraphs split by blank lines, and ``- `` items (with
    their indented continuation lines) as a list.

    Examples
    --------
    >>> _html_prose("Two stacks:\n\n- fast: a\n  tier\n- slow")
    '<p>Two stacks:</p><ul><li>fast: a tier</li><li>slow</li></ul>'
    """
    blocks: list[str] = []
    for block in text.strip().split("\n\n"):
        lines = [line.strip() for line in block.splitlines() if line.strip()]
        if lines and lines[0].startswith("- "):
            items: list[str] = []
            for line in lines:
                if line.startswith("- "):
                    items.append(line[2:])
                else:
                    items[-1] += " " + line
            blocks.append("<ul>" + "".join(f"<li>{html.escape(i)}</li>" for i in items)
                          + "</ul>")  # fmt: skip
        elif lines:
            blocks.append(f"<p>{html.escape(' '.join(lines))}</p>")
    return "".join(blocks)


def _numeric_column(values: pd.Series) -> bool:
    """Whether every cell reads as a number (or a range, or ``P5 0.97``): right-align it."""
    return all(isinstance(v, int | float | np.number) or bool(_NUMBER.fullmatch(str(v)))
               for v in values)  # fmt: skip


def _html_table(frame: pd.DataFrame) -> str:
    numeric = [i > 0 and _numeric_column(frame[c]) for i, c in enumerate(frame.columns)]
    head = "".join(f'<th class="{"num" if n else "text"}">{html.escape(str(c))}</th>'
                   for c, n in zip(frame.columns, numeric, strict=True))  # fmt: skip
    body = []
    for row in frame.itertuples(index=False):
        cells = [f'<th scope="row">{html.escape(str(row[0]))}</th>']
        cells += [f'<td class="{"num" if n else "text"}">{html.escape(str(v))}</td>'
                  for v, n in zip(row[1:], numeric[1:], strict=True)]  # fmt: skip
        body.append(f"<tr>{''.join(cells)}</tr>")
    return (f'<table class="results"><thead><tr>{head}</tr></thead>'
            f"<tbody>{''.join(body)}</tbody></table>")  # fmt: skip


_STYLE = (
    "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;max-width:1100px;"
    "margin:2em auto;padding:0 1em;color:#222;line-height:1.45}"
    "h1{font-size:1.6em}h2{font-size:1.25em;margin-top:1.6em}h3{font-size:1.05em}"
    "table.results{border-collapse:collapse;font-size:0.92em;margin:0.5em 0 1.2em}"
    "table.results th,table.results td{padding:4px 10px;border-bottom:1px solid #ddd;"
    "white-space:nowrap}"
    "table.results thead th{text-align:left;border-bottom:2px solid #999;vertical-align:bottom}"
    "table.results tbody th{text-align:left;font-weight:normal}"
    "table.results td.text{text-align:left}"
    "table.results .num{text-align:right;font-variant-numeric:tabular-nums}"
    "figure{margin:1em 0}img{max-width:100%;height:auto}"
    "figcaption{color:#555;font-size:0.9em}"
    "footer{margin-top:2.5em;padding-top:0.8em;border-top:1px solid #ccc;color:#555;"
    "font-size:0.85em}footer code{font-size:0.95em}"
)


def write_report(
    directory: Path,
    title: str,
    question: str,
    answer: str,
    sections: list[tuple[str, str]],
    tables: list[tuple[str, pd.DataFrame]],
    figures: list[Path],
    provenance: dict | None = None,
    source: str | None = None,
) -> tuple[Path, Path]:
    """Write ``report.md`` and a self-contained ``report.html`` (figures embedded).

    Parameters
    ----------
    directory : Path
        Output directory; the figures must be in it.
    title, question, answer : str
        The report's title, the question it answers, and its one-sentence answer.
    sections : list of (heading, text)
        Extra paragraphs (setup, notes).
    tables : list of (heading, pandas.DataFrame)
        The results tables, cells already formatted (:func:`metric_rows_table`); the first
        column holds the labels (left-aligned), the others numbers (one line each).
    figures : list of Path
        PNG figures to show, in order.
    provenance : dict, optional
        The record (:func:`relplan.analysis.provenance.provenance_record`), shown in a
        footer with the date the report was written.
    source : str, optional
        The config or study file the report came from, named in the footer.

    Returns
    -------
    tuple of Path
        The Markdown and HTML files.
    """
    written_at = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    footer = [f"written {written_at}"]
    if source:
        footer.append(f"from {source}")
    if provenance:
        footer.append(f"relplan {provenance['relplan_version']}")
        footer.append(f"config sha256 {provenance['config_sha256']}")
        footer.append(f"seed {provenance['seed']}")
        footer.append(f"{int(provenance['trials']):,} trials")

    parts = [f"# {title}", "", f"**Question.** {question}", "", f"**Answer.** {answer}", ""]
    for heading, text in sections:
        parts += [f"## {heading}", "", text, ""]
    parts += ["## Results", ""]
    for heading, table in tables:
        parts += [f"### {heading}", "", markdown_table(table), ""]
    parts += ["## Figures", ""]
    for figure in figures:
        parts += [f"![{figure.stem}]({figure.name})", ""]
    parts += ["---", "", "Provenance: " + " · ".join(footer), ""]
    markdown_path = directory / "report.md"
    write_text_atomic(markdown_path, "\n".join(parts))

    body = [f"<h1>{html.escape(title)}</h1>",
            f"<p><b>Question.</b> {html.escape(question)}</p>",
            f"<p><b>Answer.</b> {html.escape(answer)}</p>"]
    for heading, text in sections:
        body += [f"<h2>{html.escape(heading)}</h2>", _html_prose(text)]
    body.append("<h2>Results</h2>")
    for heading, table in tables:
        body += [f"<h3>{html.escape(heading)}</h3>", _html_table(table)]
    body.append("<h2>Figures</h2>")
    for figure in figures:
        encoded = base64.b64encode(figure.read_bytes()).decode("ascii")
        name = html.escape(figure.stem)
        body.append(f'<figure><img alt="{name}" src="data:image/png;base64,{encoded}">'
                    f"<figcaption>{name}</figcaption></figure>")  # fmt: skip
    body.append('<footer id="provenance">Provenance: '
                + " · ".join(html.escape(item) for item in footer) + "</footer>")
    document = (
        f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head>"
        f"<body>{''.join(body)}</body></html>\n"
    )
    html_path = directory / "report.html"
    write_text_atomic(html_path, document)
    return markdown_path, html_path


def write_optimize_outputs(
    result: IntervalOptimum, data: dict, directory: Path, config_name: str
) -> list[Path]:
    """Write ``optimize.json``, ``curve.csv``, the goodput-vs-interval plot (PNG, SVG) and
    ``provenance.json``; optimize.json and the plot name the provenance too.

    Parameters
    ----------
    result : IntervalOptimum
        The interval study.
    data : dict
        Its JSON form (with ``two_tier`` when there is one), written as optimize.json.
    directory : Path
        Output directory.
    config_name : str
        The config's name, for the figure's title.

    Returns
    -------
    list of Path
        Every file written, each atomically.
    """
    json_path, csv_path = directory / "optimize.json", directory / "curve.csv"
    record = provenance_record(result.config_sha256, result.seed, result.trials)
    write_text_atomic(json_path, to_json({**data, "provenance": record}) + "\n")
    write_atomic(csv_path, lambda tmp: result.curve.to_csv(tmp, index=False))
    figure = plots.goodput_vs_interval(
        result.curve, config_name, young_hours=result.young_hours, daly_hours=result.daly_hours,
        mc_optimal_hours=result.mc_optimal_hours, mc_optimal_ci95=result.mc_optimal_ci95,
        p95_optimal_hours=result.p95_optimal_hours, p95_optimal_ci95=result.p95_optimal_ci95,
    )  # fmt: skip
    plots.provenance_footer(figure, provenance_line(record))
    written = [json_path, csv_path, *plots.save_figure(figure, directory / "goodput-vs-interval")]
    return [*written, write_provenance(directory, record, written)]
