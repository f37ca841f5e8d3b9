"""Figure sets and written reports (Markdown, self-contained HTML) built from results.

Everything here reads finished results and writes files, each atomically; nothing
here computes a number the results do not already hold, except the figures' own
summaries.
"""

from __future__ import annotations

import base64
import html
from pathlib import Path

import numpy as np
import pandas as pd

from relplan.analysis.optimize import IntervalOptimum
from relplan.analysis.results import SimulationResult
from relplan.output import plots
from relplan.output.files import to_json, write_atomic, write_text_atomic
from relplan.sim.trace import trace_trial


def median_trial(result: SimulationResult) -> int:
    """Index of the trial whose wall time is the median: a representative sample trial."""
    walls = result.outcomes.wall_hours
    return int(np.argsort(walls)[walls.size // 2])


def write_simulation_figures(result: SimulationResult, directory: Path) -> list[Path]:
    """Write the figures of one simulation (PNG and SVG), each file atomically.

    Figures: lost-hours histogram and CDF, lost hours by bucket, failures by mode, and
    the timeline of the median trial.

    Parameters
    ----------
    result : SimulationResult
        The simulation.
    directory : Path
        Output directory.

    Returns
    -------
    list of Path
        The files written.
    """
    name = result.config_name
    trials = result.trials_frame()
    summary = result.summary()
    failures = {mode: entry["mean"] for mode, entry in summary["failures_by_class"].items()}
    figures = {
        "lost-hours-histogram": plots.lost_hours_histogram(trials, name),
        "lost-hours-cdf": plots.lost_hours_cdf(trials, name),
        "lost-hours-by-bucket": plots.lost_hours_by_bucket(summary["lost_hours_breakdown"], name),
    }
    if failures and sum(failures.values()) > 0:
        figures["failures-by-mode"] = plots.interruptions_by_class(failures, name)
    sample = median_trial(result)
    intervals, failure_times = trace_trial(result.model, result.seed, sample, result.trials)
    figures["timeline-median-trial"] = plots.trial_timeline(
        intervals, failure_times, f"{name}, trial {sample} (median wall time)",
        result.model.job.work_hours,
    )
    written: list[Path] = []
    for stem, figure in figures.items():
        written += plots.save_figure(figure, directory / stem)
    return written


def markdown_table(frame: pd.DataFrame, digits: int = 4) -> str:
    """A DataFrame as a GitHub-flavoured Markdown table (numbers to ``digits`` significant)."""

    def cell(value: object) -> str:
        if isinstance(value, float | np.floating):
            return f"{value:.{digits}g}"
        return str(value)

    header = "| " + " | ".join(str(c) for c in frame.columns) + " |"
    rule = "|" + "|".join("---" for _ in frame.columns) + "|"
    rows = ["| " + " | ".join(cell(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join([header, rule, *rows])


def write_report(
    directory: Path,
    title: str,
    question: str,
    answer: str,
    sections: list[tuple[str, str]],
    table: pd.DataFrame,
    figures: list[Path],
) -> tuple[Path, Path]:
    """Write ``report.md`` and a self-contained ``report.html`` (figures embedded).

    Parameters
    ----------
    directory : Path
        Output directory; the figures must be in it.
    title, question, answer : str
        The report's title, the question the study answers, and its one-sentence answer.
    sections : list of (heading, Markdown text)
        Extra paragraphs (setup, caveats).
    table : pandas.DataFrame
        The results table.
    figures : list of Path
        PNG figures to show, in order.

    Returns
    -------
    tuple of Path
        The Markdown and HTML files.
    """
    parts = [f"# {title}", "", f"**Question.** {question}", "", f"**Answer.** {answer}", ""]
    for heading, text in sections:
        parts += [f"## {heading}", "", text, ""]
    parts += ["## Results", "", markdown_table(table), "", "## Figures", ""]
    for figure in figures:
        parts += [f"![{figure.stem}]({figure.name})", ""]
    markdown_path = directory / "report.md"
    write_text_atomic(markdown_path, "\n".join(parts))

    body = [f"<h1>{html.escape(title)}</h1>",
            f"<p><b>Question.</b> {html.escape(question)}</p>",
            f"<p><b>Answer.</b> {html.escape(answer)}</p>"]
    for heading, text in sections:
        body += [f"<h2>{html.escape(heading)}</h2>", f"<p>{html.escape(text)}</p>"]
    body += ["<h2>Results</h2>", table.to_html(index=False, float_format=lambda v: f"{v:.4g}",
                                               border=0, classes="results")]
    body.append("<h2>Figures</h2>")
    for figure in figures:
        encoded = base64.b64encode(figure.read_bytes()).decode("ascii")
        body.append(f'<figure><img alt="{html.escape(figure.stem)}" '
                    f'src="data:image/png;base64,{encoded}"></figure>')
    style = (
        "body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;color:#222}"
        "table.results{border-collapse:collapse;font-size:0.9em}"
        "table.results td,table.results th{padding:4px 8px;border-bottom:1px solid #ddd;"
        "text-align:right}img{max-width:100%}"
    )
    document = (
        f"<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>{html.escape(title)}"
        f"</title><style>{style}</style></head><body>{''.join(body)}</body></html>\n"
    )
    html_path = directory / "report.html"
    write_text_atomic(html_path, document)
    return markdown_path, html_path


def write_optimize_outputs(
    result: IntervalOptimum, data: dict, directory: Path, config_name: str
) -> list[Path]:
    """Write ``optimize.json``, ``curve.csv`` and the goodput-vs-interval plot (PNG, SVG).

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
    write_text_atomic(json_path, to_json(data) + "\n")
    write_atomic(csv_path, lambda tmp: result.curve.to_csv(tmp, index=False))
    figure = plots.goodput_vs_interval(
        result.curve, config_name, young_hours=result.young_hours, daly_hours=result.daly_hours,
        mc_optimal_hours=result.mc_optimal_hours, mc_optimal_ci95=result.mc_optimal_ci95,
    )  # fmt: skip
    return [json_path, csv_path, *plots.save_figure(figure, directory / "goodput-vs-interval")]
