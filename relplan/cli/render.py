"""Terminal rendering of relplan's results: rich tables and one-line summaries.

Pure presentation: every function takes data the library computed (a JSON-ready dict or a
result object) and prints it; none computes a number of its own.
"""

from __future__ import annotations

import math
import sys
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from relplan.units import format_bytes, format_duration, format_seconds
from relplan.vocab import (
    BUCKETS,
    HIGHER_IS_BETTER,
    METRIC_LABELS,
    TAIL_PERCENTILES,
    UNITLESS_METRIC_UNITS,
)

# Outside a terminal (piped, captured), tables get room instead of rich's default 80.
console = Console(width=None if sys.stdout.isatty() else 160)
error_console = Console(stderr=True)

def compact_table(title: str, **options: Any) -> Table:
    """A table in the compact style of the reports (fits, incidents, published figures,
    plans): a rule under the header, no outer edge, one space between columns.

    Parameters
    ----------
    title : str
        Shown above the table.
    **options
        Further :class:`rich.table.Table` options (``caption``, ``min_width``, ...).

    Examples
    --------
    >>> compact_table("fits", caption="95% CIs").show_edge
    False
    """
    from rich import box

    return Table(title=title, box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False,
                 padding=(0, 1, 0, 0), **options)  # fmt: skip


SHORT_KIND = {"exponential": "exp", "weibull": "Weibull", "lognormal": "logn", "fixed": "fixed"}
"""Short names of the distribution families for narrow table cells."""


def impact_text(mode: dict[str, Any]) -> str:
    """What a failure mode does, in a few words (from an inventory report's mode entry)."""
    if mode.get("needs_spare"):  # live migration
        return f"migrated to a spare: stall {format_duration(mode['stall_hours'])}"
    if mode["impact"] in ("degraded", "elastic"):
        return f"{mode['impact']} +{100 * (mode['slowdown'] - 1):.2g}% step time"
    if mode["impact"] == "transient":
        return f"stall {format_duration(mode['stall_hours'])}"
    return mode["impact"]


BORDER_CELLS = 3
"""Characters a column adds to a boxed rich table besides its content: a border and
one space of padding on each side (plus one border for the whole table)."""


PROSE_WIDTH = 24
"""Width of a column of prose before it wraps (at spaces), characters."""


def _cell_width(cell: str, wraps: bool, widest: int = PROSE_WIDTH) -> int:
    """Room a cell needs: all of it, or (where it may wrap at spaces) its longest word,
    and up to ``widest`` characters."""
    text = Text.from_markup(cell).plain
    if wraps:
        return min(len(text), max([widest, *(len(word) for word in text.split())]))
    return len(text)


def column_groups(widths: list[int], keys: int, room: int) -> list[list[int]]:
    """Split columns into groups that fit ``room`` characters, each led by the key columns.

    Parameters
    ----------
    widths : list of int
        Room each column needs (its content; borders are added here).
    keys : int
        Leading columns repeated in every group (the row labels).
    room : int
        Characters available (the terminal width).

    Returns
    -------
    list of list of int
        Column indices of each group; one group when the whole table fits, an empty
        list when not even the keys and one column fit.

    Examples
    --------
    >>> column_groups([10, 20, 20, 15], keys=1, room=80)
    [[0, 1, 2, 3]]
    >>> column_groups([10, 30, 30, 30], keys=1, room=80)
    [[0, 1, 2], [0, 3]]
    """

    def width(group: list[int]) -> int:
        return 1 + sum(widths[i] + BORDER_CELLS for i in group)

    everything = list(range(len(widths)))
    if width(everything) <= room:
        return [everything]
    key_columns, groups = everything[:keys], []
    group = list(key_columns)
    for index in everything[keys:]:
        if width([*group, index]) > room and len(group) > keys:
            groups.append(group)
            group = list(key_columns)
        group.append(index)
        if width(group) > room:
            return []
    groups.append(group)
    return groups


def print_table(title: str, columns: tuple[str, ...], rows: list[list[str]], left: int = 1,
                keys: int = 1, wrap: tuple[str, ...] = (), show_header: bool = True,
                target: Console | None = None) -> None:  # fmt: skip
    """Print a table that fits the terminal: whole, split, or stacked; never a cut cell.

    The table is printed whole when it fits. Otherwise its columns are split into
    several tables that fit, each repeating the first ``keys`` columns; when not even
    that fits, each row is printed as a block of ``column: value`` lines. Headers wrap
    at spaces; cells wrap only in the ``wrap`` columns, and only at spaces, so a number
    is always printed whole.

    Parameters
    ----------
    title : str
        The table's title.
    columns : tuple of str
        Column headers.
    rows : list of list of str
        The cells (rich markup allowed).
    left : int
        Leading columns aligned left; the others (numbers) align right.
    keys : int
        Leading columns repeated when the table is split.
    wrap : tuple of str
        Columns of prose whose cells may wrap at spaces.
    show_header : bool
        Whether to show the headers.
    target : Console, optional
        Where to print (default: :data:`console`).
    """
    out = target if target is not None else console

    def widths(header_widest: int) -> list[int]:
        return [
            max([_cell_width(column, True, header_widest) if show_header else 0]
                + [_cell_width(row[i], column in wrap) for row in rows])
            for i, column in enumerate(columns)
        ]  # fmt: skip

    natural, narrow = widths(PROSE_WIDTH), widths(0)  # headers whole, or wrapped at spaces
    groups = column_groups(natural, keys, out.width)
    if len(groups) != 1:
        groups = column_groups(narrow, keys, out.width)
    if not groups:
        out.print(title, highlight=False, markup=False)
        for row in rows:
            for column, cell in zip(columns, row, strict=True):
                out.print(f"  {column}: {cell}", highlight=False)
            out.print("")
        return
    for number, group in enumerate(groups, start=1):
        part = f" ({number}/{len(groups)})" if len(groups) > 1 else ""
        table = Table(title=f"{title}{part}", show_header=show_header)
        fits = 1 + sum(natural[i] + BORDER_CELLS for i in group) <= out.width
        width = natural if fits else narrow
        for i in group:
            # exactly its width: headers wrap at spaces, numbers fit whole
            table.add_column(columns[i], justify="left" if i < left else "right",
                             min_width=width[i], max_width=width[i])  # fmt: skip
        for row in rows:
            table.add_row(*(row[i] for i in group))
        out.print(table)


def _spares_text(mode: dict[str, Any]) -> str:
    """What a swap of a failed unit of ``mode`` takes: ``no``, ``yes`` (one spare server),
    ``18 servers`` (a rack's worth at once) or ``a domain`` (a whole spare domain)."""
    if not mode["uses_spares"]:
        return "no"
    if mode["spare_domain"]:
        return "a domain"
    return "yes" if mode["spares_needed"] == 1 else f"{mode['spares_needed']} servers"


def render_inventory(data: dict[str, Any], name: str) -> None:
    """Print an inventory report (see
    :func:`relplan.analysis.inventory_report.inventory_report`)."""
    print_table(f"Inventory of {name}", ("class", "cluster units", "job units"),
                [[component, f"{counts['cluster_units']:,}", f"{counts['job_units']:,}"]
                 for component, counts in data["components"].items()])  # fmt: skip
    facts = data["topology"]
    fabric = []
    for fact, value in facts.items():
        if fact == "topology":
            continue
        if fact == "link_speed_bytes_per_s":
            fact, value = "link speed", f"{8 * value / 1e9:g} Gbps"
        elif fact == "oversubscription":
            value = f"{value:.3g}:1"
        elif isinstance(value, bool):
            value = "yes" if value else "no"
        fabric.append([fact.replace("_", " "), str(value)])
    print_table(f"Fabric: {facts['topology']}", ("fact", "value"), fabric, show_header=False)
    budget = []
    for row in data["port_budget"]:
        budget.append([
            row["tier"],
            f"{row['switches']:,}",
            str(row["down_ports"]),
            str(row["up_ports"]),
            str(row["ports_needed"]),
            str(row["ports_available"]),
            "yes" if row["fits"] else "[bold red]no[/]",
            str(row["shortfall"]),
        ])
    print_table("Port budget per switch", ("tier", "switches", "down", "up", "needed",
                                           "available", "fits", "short by"), budget)
    for problem in data["port_problems"]:
        console.print(f"[bold red]does not fit:[/] {problem}", highlight=False)
    modes = []
    for mode_name, mode in data["failure_modes"].items():
        modes.append([
            mode_name,
            mode["unit"],
            f"{mode['job_units']:,}",
            f"{SHORT_KIND[mode['lifetime']]} {format_duration(mode['mean_life_hours'])}",
            f"{24 * mode['job_failures_per_hour']:.3g}",
            f"{100 * mode['share']:.1f}%",
            format_duration(mode["mean_repair_hours"]),
            _spares_text(mode),
            impact_text(mode),
        ])
    print_table("Failure modes touching the job", ("mode", "unit", "job units", "mean life",
                "job failures / day", "share", "repair", "spares", "impact"), modes,
                left=2, wrap=("impact",))  # fmt: skip
    mtti = data["job_mtti_hours"]
    console.print(
        f"Job: {data['job_servers']:,} servers (+{data['spare_servers']} spare), "
        f"mean time to interruption [bold]{format_duration(mtti if mtti else math.inf)}[/]",
        highlight=False,
    )


SUMMARY_ROWS: tuple[tuple[str, str, str], ...] = (
    ("wall hours", "wall_hours", "{:,.1f}"),
    ("goodput", "goodput", "{:.4f}"),
    ("lost hours", "lost_hours", "{:,.1f}"),
    ("GPU-hours lost", "gpu_hours_lost", "{:,.0f}"),
    ("interruptions", "interruptions", "{:,.2f}"),
    ("spares used", "spares_used", "{:,.2f}"),
    ("hours degraded", "degraded_hours", "{:,.2f}"),
    ("hours stalled", "stall_hours", "{:,.3f}"),
)
"""Label, summary key and number format of each row of the simulation summary table."""


def render_simulation(summary: dict[str, Any], title: str) -> None:
    """Print a simulation summary (see :meth:`SimulationResult.summary`): metrics with CIs
    and percentiles, lost hours by bucket, and failures by mode."""
    rows = []
    for label, key, fmt in SUMMARY_ROWS:
        if key == "wall_hours" and summary.get("horizon_hours") is not None:
            label, key = "work done (h)", "work_done_hours"  # every run lasts the window
        stats = summary[key]
        low, high = stats["ci95"]
        tail = f"p{TAIL_PERCENTILES.get(key, 95)}"
        rows.append([
            label,
            fmt.format(stats["mean"]),
            f"{fmt.format(low)} – {fmt.format(high)}",
            *(f"[bold]{fmt.format(stats[p])}[/]" if p == tail else fmt.format(stats[p])
              for p in ("p5", "p50", "p95", "p99")),
        ])  # fmt: skip
    print_table(title, ("metric", "mean", "95% CI", "P5", "P50", "P95", "P99"), rows)
    console.print("bad tail in bold: P5 of goodput (higher is better), P95 of costs",
                  style="dim", highlight=False)  # fmt: skip

    lost_mean = summary["lost_hours"]["mean"]
    buckets = []
    for bucket in BUCKETS[1:]:
        hours = summary["lost_hours_breakdown"][bucket]
        share = hours / lost_mean if lost_mean > 0 else 0.0
        buckets.append([bucket, f"{hours:,.2f}", f"{100 * share:.1f}%"])
    print_table("Lost hours by bucket (mean per run)", ("bucket", "hours", "share of lost"),
                buckets)  # fmt: skip
    if "save_hangs" in summary:  # job.checkpoint.hang
        console.print(f"Saves that hung: {summary['save_hangs']:,.2f} a run", highlight=False)
    if "liveput_gpus" in summary:  # [preemption]
        console.print(
            f"Preemptions: {summary['preemptions']:,.2f} a run; liveput "
            f"{summary['liveput_gpus']:,.0f} GPUs of useful work", highlight=False,
        )  # fmt: skip
    if "p_job_failed" in summary:  # restarts that may fail (job.restart.success)
        console.print(
            f"Restarts: {summary['restart_attempts']:,.2f} attempts, "
            f"{summary['requeues']:,.2f} requeues a run; the job failed in "
            f"{summary['p_job_failed']:.1%} of runs", highlight=False,
        )  # fmt: skip

    by_class = summary["failures_by_class"]
    total = sum(entry["mean"] for entry in by_class.values())
    classes = [
        [mode, entry["impact"], f"{entry['mean']:,.2f}",
         f"{100 * entry['mean'] / total:.1f}%" if total else "-"]
        for mode, entry in sorted(by_class.items(), key=lambda item: -item[1]["mean"])
    ]  # fmt: skip
    print_table("Failures by mode (mean per run)", ("mode", "impact", "failures", "share"),
                classes, left=2)  # fmt: skip

    units = summary.get("unit_failures_by_class")
    if units:  # modes whose units have a history: lemons, imperfect repair, retirement
        rows = [
            [mode, f"{entry['failures']:,.2f}", f"{entry['units_failed']:,.2f}",
             f"{entry['repeat_units']:,.2f}", f"{entry['max_failures_per_unit']:,.2f}",
             f"{entry['retired_units']:,.2f}", f"{100 * entry['trials_with_repeat_units']:.1f}%"]
            for mode, entry in units.items()
        ]  # fmt: skip
        print_table("Failures per unit (mean per run)",
                    ("mode", "failures", "units failed", "repeat units", "most per unit",
                     "retired", "runs with repeats"), rows)  # fmt: skip


def _bubble(baseline: dict[str, Any]) -> str:
    """`` + pipeline bubble X`` when the step has one, else nothing."""
    bubble = baseline.get("pipeline_bubble_s") or 0.0
    return f" + pipeline bubble {format_seconds(bubble)}" if bubble > 0 else ""


def render_failure_free_work(work_hours: float, step_hours: float | None,
                             compute_hours: float | None = None) -> None:  # fmt: skip
    """Print the job's failure-free hours, the steps they hold at its healthy step, and
    the compute the recovery stack's per-step tax makes of them (``compute_hours``,
    :attr:`relplan.sim.model.JobSpec.compute_hours`) when it is more."""
    steps = ""
    if step_hours:
        steps = (f" ({work_hours / step_hours:,.0f} steps of "
                 f"{format_seconds(step_hours * 3600.0)})")  # fmt: skip
    console.print(f"Work: {work_hours:,.1f} h failure-free at this design's healthy speed"
                  f"{steps}", highlight=False)  # fmt: skip
    if compute_hours is not None and compute_hours > work_hours:
        console.print(f"  + the recovery stack's tax of {compute_hours / work_hours - 1:.1%} "
                      f"a step: {compute_hours:,.1f} h of compute (the overhead bucket)",
                      highlight=False)  # fmt: skip


def render_step_baseline(baseline: dict[str, float]) -> None:
    """Print the one-line step baseline ``simulate`` shows before its summary."""
    console.print(
        f"Baseline step: {format_seconds(baseline['step_time_s'])} (compute "
        f"{format_seconds(baseline['compute_time_s'])}{_bubble(baseline)} + exposed communication "
        f"{format_seconds(baseline['exposed_communication_s'])}); degraded time below is the "
        "extra time of steps slowed by lost capacity",
        highlight=False,
    )


def render_baseline(report: dict[str, Any], name: str) -> None:
    """Print a baseline report (see :func:`relplan.analysis.baseline_report.job_baseline`)."""
    base = report["baseline"]
    rows = []
    for dimension, entry in base["dimensions"].items():
        if entry["volume_per_step_bytes"] == 0:
            continue
        rows.append([
            dimension, entry["collective"], entry["path"], f"{entry['group_ranks']:,}",
            format_bytes(entry["volume_per_step_bytes"]), format_seconds(entry["time_s"]),
            f"{100 * entry['latency_share']:.1f}%",
            f"{format_bytes(entry['bandwidth_needed_bytes_per_s'])}/s",
            f"{format_bytes(entry['bandwidth_available_bytes_per_s'])}/s",
            format_seconds(entry["exposed_s"]),
        ])  # fmt: skip
    print_table(f"Communication baseline of {name} per step",
                ("dimension", "collective", "path", "ranks", "volume / GPU", "time",
                 "latency share", "needed", "available", "exposed"), rows, left=3)
    console.print(
        f"Step: compute {format_seconds(base['compute_time_s'])}{_bubble(base)} + exposed "
        "communication "
        f"{format_seconds(base['exposed_communication_s'])} = "
        f"[bold]{format_seconds(base['step_time_s'])}[/]; at RTT "
        f"{format_seconds(base['rtt_low_s'])}: {format_seconds(base['step_time_rtt_low_s'])}, "
        f"at {format_seconds(base['rtt_high_s'])}: {format_seconds(base['step_time_rtt_high_s'])}",
        highlight=False,
    )
    gradients = report["gradients"]
    console.print(
        f"Gradients: {format_bytes(gradients['bytes_per_gpu'])} per GPU, "
        f"{format_bytes(gradients['bytes_per_step_all_gpus'])} per step over the job; pure "
        f"data parallel would need {format_bytes(gradients['dp_bandwidth_per_gpu_bytes_per_s'])}"
        f"/s = {gradients['dp_bandwidth_per_gpu_bits_per_s'] / 1e12:.3g} Tbps per GPU",
        highlight=False,
    )
    if "moe" in report:
        moe = report["moe"]
        console.print(
            f"MoE: All-to-All {format_bytes(moe['all_to_all_bytes_per_step'])} per step; dense "
            f"gradients {format_bytes(moe['dp_gradient_bytes_per_step'])}, "
            f"{format_bytes(moe['dp_gradient_bytes_per_group'])} per DP group "
            f"({moe['expert_data_parallel']} replicas); average "
            f"{format_bytes(moe['average_bandwidth_per_gpu_bytes_per_s'])}/s per GPU, peak "
            f"{format_bytes(moe['peak_bandwidth_per_gpu_bytes_per_s'])}/s, provision "
            f"{format_bytes(moe['provisioned_bandwidth_per_gpu_bytes_per_s'])}/s",
            highlight=False,
        )
    mtti = report["job_mtti_hours"]
    console.print(f"Job MTTI: {format_duration(mtti if mtti else math.inf)}", highlight=False)
    for mode, steps in report["degraded_slowdowns"].items():
        console.print(f"Degraded by {mode}: step time x{steps[0]:.4g}", highlight=False)


def render_optimum(result: Any, tiers: Any, name: str, trials: int) -> None:
    """Print an :class:`~relplan.analysis.optimize.IntervalOptimum` and, with two tiers, its
    :class:`~relplan.analysis.optimize.TierOptimum`."""
    title = (f"Checkpoint interval for {name} ({trials:,} trials per interval, "
             f"job MTTI {format_duration(result.mtti_hours)})")  # fmt: skip
    methods = (
        ("Young (1974)", result.young_hours, None, "young"),
        ("Daly (2006)", result.daly_hours, None, "daly"),
        ("Monte Carlo, mean goodput", result.mc_optimal_hours, result.mc_optimal_ci95, "mc"),
        ("Monte Carlo, P95 wall time", result.p95_optimal_hours, result.p95_optimal_ci95, "p95"),
    )
    if result.drawn_write_optimal_hours is not None:  # beside Young's with the mean write
        methods = (*methods[:2], (
            f"Daly, drawn write ({format_duration(result.effective_write_hours)})",
            result.drawn_write_optimal_hours, None, "drawn"), *methods[2:])
    rows = [
        [label, format_duration(hours),
         f"{format_duration(ci[0])} – {format_duration(ci[1])}" if ci else "",
         f"{result.goodput_at[key]:.4f}"]
        for label, hours, ci, key in methods
    ]  # fmt: skip
    print_table(title, ("method", "interval", "95% CI", "mean goodput"), rows)
    if tiers is not None:
        console.print(
            f"Two tiers: fast checkpoint every [bold]{format_duration(tiers.fast_interval_hours)}"
            f"[/] (95% range {format_duration(tiers.fast_interval_ci95[0])} – "
            f"{format_duration(tiers.fast_interval_ci95[1])}), one in {tiers.durable_every} "
            f"durable (every {format_duration(tiers.durable_interval_hours)}, range "
            f"{format_duration(tiers.durable_interval_ci95[0])} – "
            f"{format_duration(tiers.durable_interval_ci95[1])}): goodput {tiers.goodput:.4f}",
            highlight=False,
        )


def render_joint_search(search: Any) -> None:
    """Print a :class:`~relplan.analysis.optimize.JointSearch`: the optimal interval at
    each value of the second key, the best pair marked."""
    rows = [
        [("* " if index == search.best else "") + value, format_duration(hours),
         f"{format_duration(ci[0])} – {format_duration(ci[1])}", f"{goodput:.4f}"]
        for index, (value, hours, ci, goodput) in enumerate(zip(
            search.values, search.mc_optimal_hours, search.mc_optimal_ci95,
            search.goodput_at_optimal, strict=True))
    ]  # fmt: skip
    print_table(f"The interval at each {search.key} (* the best pair)",
                (search.key, "optimal interval", "95% CI", "mean goodput"), rows)


def metric_header(metric: str, suffix: str = "") -> str:
    """A metric's column heading: its name in prose, ``suffix``, and its unit in brackets
    when it has one (hours, GPU-hours), from :data:`relplan.vocab.METRIC_LABELS`.

    Examples
    --------
    >>> metric_header("lost_hours"), metric_header("goodput", " P5")
    ('lost time (h)', 'goodput P5')
    """
    name, unit, _ = METRIC_LABELS[metric]
    return f"{name}{suffix} ({unit})" if unit not in UNITLESS_METRIC_UNITS else f"{name}{suffix}"


def metric_cell(metric: str, value: float) -> str:
    """A metric's value in the number format every report uses for it.

    Examples
    --------
    >>> metric_cell("wall_hours", 1234.56), metric_cell("goodput", 0.91234)
    ('1,234.6', '0.9123')
    """
    return METRIC_LABELS[metric][2].format(value)


def render_sweep(rows: list[dict[str, Any]], metrics: list[str], title: str, answer: str) -> None:
    """Print a sweep's points (one row per point: ``label``, its healthy step time and
    failure-free hours, each metric's mean, and the bad tail of goodput, its P5, when
    goodput is among them)."""
    tails = [m for m in metrics if m in HIGHER_IS_BETTER and rows and f"{m}_p5" in rows[0]]

    def speed(row: dict[str, Any]) -> list[str]:
        step, work = row.get("step_time_s"), row.get("work_hours")
        return ["-" if step is None or step != step else f"{step:.3f}",
                "-" if work is None else f"{work:,.1f}"]  # fmt: skip

    print_table(title, ("point", "step (s)", "failure-free (h)",
                        *(metric_header(m) for m in metrics),
                        *(metric_header(m, " P5") for m in tails)),
                [[str(row["label"]), *speed(row), *(metric_cell(m, row[m]) for m in metrics),
                  *(metric_cell(m, row[f"{m}_p5"]) for m in tails)] for row in rows],
                wrap=("point",))  # fmt: skip
    console.print(f"[bold]Answer:[/] {answer}", highlight=False)


def render_comparison(data: dict[str, Any], priced: bool) -> None:
    """Print a comparison (see :func:`relplan.runs.compare.compare_scenarios`)."""
    columns = ("scenario", "step s", "failure-free h", "goodput", "95% CI", "goodput P5",
               "wall P50 h", "wall P95 h", "GPU-h lost", "GPU-h saved")  # fmt: skip
    if priced:
        columns += ("hardware charge", "lost value", "net value", "break-even $/GPU-h")
    rows = []
    for row in data["scenarios"]:
        low, high = row["goodput_ci95"]
        step, work = row.get("step_time_s"), row.get("work_hours")
        cells = [
            row["scenario"], "-" if step is None else f"{step:.3f}",
            "-" if work is None else f"{work:,.1f}",
            f"{row['goodput']:.4f}", f"{low:.4f} – {high:.4f}",
            f"{row['goodput_p5']:.4f}", f"{row['wall_hours_p50']:,.1f}",
            f"{row['wall_hours_p95']:,.1f}",
            f"{row['gpu_hours_lost']:,.0f}", f"{row['gpu_hours_saved_vs_first']:,.0f}",
        ]  # fmt: skip
        if priced:
            even = row["break_even_gpu_hour_value"]
            cells += [f"{row['hardware_charge']:,.0f}", f"{row['lost_value']:,.0f}",
                      f"{row['net_value']:,.0f}", "-" if even is None else f"{even:,.2f}"]
        rows.append(cells)
    print_table(f"Comparison on common failure streams ({data['trials']:,} trials, "
                f"seed {data['seed']})", columns, rows)


def render_catalog(entries: list[dict[str, Any]]) -> None:
    """Print the failure-model catalogue: a table, then each entry's source and note."""
    rows = [
        [
            entry["component"],
            f"{entry['mode']}{' *' if entry['default'] else ''} [{number}]",
            f"{entry['rate_per_year']:.3g}",
            format_duration(entry["mtbf_hours"]),
            entry["repair"],
            entry["detect"],
            entry["rate_basis"],
            str(entry["year"]),
        ]
        for number, entry in enumerate(entries, start=1)
    ]
    print_table("Failure models (* = in the default set)", ("class", "mode", "per year", "MTBF",
                "repair", "detect", "rate", "year"), rows, left=2, keys=2,
                wrap=("repair", "detect", "rate"))  # fmt: skip
    for number, entry in enumerate(entries, start=1):
        note = f" Note: {entry['note']}." if entry["note"] else ""
        console.print(
            f"[{number}] {entry['source']}. Fleet: {entry['fleet']}. Repair "
            f"{entry['repair_basis']}, detection {entry['detect_basis']}.{note}",
            highlight=False, markup=False,
        )
