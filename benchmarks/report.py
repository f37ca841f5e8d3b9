"""The benchmark's report, rendered: rich tables on the terminal, JSON, Markdown tables.

Every function here is a pure function of the report (the plain dictionary
:func:`benchmarks.run.run` returns); nothing is measured.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.one_walk import NO_SLOWER_TOLERANCE
from benchmarks.scaling import SCALING_SERIES


def to_plain(value: Any) -> Any:
    """A JSON-ready copy: numpy scalars to Python numbers, inf and nan to None.

    Examples
    --------
    >>> to_plain({"a": np.float64(1.5), "b": [float("inf")]})
    {'a': 1.5, 'b': [None]}
    """
    if isinstance(value, dict):
        return {str(key): to_plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [to_plain(item) for item in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def write_json(report: dict[str, Any], path: str | Path) -> Path:
    """Write the report as indented JSON, creating the folder; returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(to_plain(report), indent=2) + "\n")
    return path


def mib_text(value: float | None) -> str:
    """Bytes as MiB with one decimal, ``-`` for None."""
    return "-" if value is None else f"{value / 2**20:.1f} MiB"


def ratio_text(median: float | None, shortest: float, digits: int = 1) -> str:
    """A ratio of paired timings: the median of the rounds' ratios, then the shortest
    against the shortest in brackets (only the latter for a report without the median).

    Examples
    --------
    >>> ratio_text(2.87, 4.03), ratio_text(None, 0.91, 2)
    ('2.9x (4.0x)', '0.91x')
    """
    if median is None:
        return f"{shortest:.{digits}f}x"
    return f"{median:.{digits}f}x ({shortest:.{digits}f}x)"


def floor_multiple_text(case: dict[str, Any], suffix: str = "") -> str:
    """A case's multiple of the random-number floor (:func:`ratio_text`; ``suffix``:
    ``"_one_thread"`` or "").

    Examples
    --------
    >>> floor_multiple_text({"floor_multiple": 4.03, "floor_multiple_median_paired": 2.87})
    '2.9x (4.0x)'
    """
    return ratio_text(case.get(f"floor_multiple{suffix}_median_paired"),
                      case[f"floor_multiple{suffix}"])  # fmt: skip


def rate_text(value: float) -> str:
    """A rate: no decimals from 100 on, one below."""
    return f"{value:,.0f}" if value >= 100 else f"{value:,.1f}"


def seconds_text(value: float | None, digits: int = 2) -> str:
    """Seconds with ``digits`` decimals, ``n/a`` for None."""
    return "n/a" if value is None else f"{value:.{digits}f} s"


def verdict_text(met: bool | None) -> str:
    """``yes``, ``no`` or ``-`` (no target or not measured)."""
    return "-" if met is None else "yes" if met else "no"


def startup_rows(startup: dict[str, Any]) -> list[tuple[str, ...]]:
    """The start-up section as table rows (text cells), warm commands then the cold run.

    Parameters
    ----------
    startup : dict
        The report's ``startup`` section (:func:`benchmarks.startup.startup_study`).

    Returns
    -------
    list of tuple of str
        ``(command, seconds, reference, reference seconds, ratio, target, met)`` each.
    """
    rows = []
    for timed in startup["commands"].values():
        ratio, target = timed["ratio"], timed["target_ratio"]
        rows.append(
            (
                timed["command"],
                seconds_text(timed["seconds"]),
                timed["reference"],
                seconds_text(timed["reference_seconds"]),
                "n/a" if ratio is None else f"{ratio:.2f}x",
                "-" if target is None else f"<= {target:g}x",
                verdict_text(timed["met"]) if timed["available"] else f"n/a ({timed['note']})",
            )
        )
    cold = startup["cold"]
    rows.append(
        (
            f"{cold['command']} (empty numba cache)",
            seconds_text(cold["seconds"], 1),
            "the same, numba cache warm",
            seconds_text(cold["warm_seconds"]),
            "-",
            f"< {cold['target_seconds']:g} s on {cold['target_cores']} cores",
            verdict_text(cold["met"]),
        )
    )
    return rows


def feature_rows(features: dict[str, Any]) -> list[tuple[str, ...]]:
    """The walk per feature set as table rows (text cells), the plain walk first.

    Parameters
    ----------
    features : dict
        The report's ``features`` section (:func:`benchmarks.features.feature_study`).

    Returns
    -------
    list of tuple of str
        ``(variant, features on, trials/s, events/trial, ns/event, x floor, per trial vs
        plain, per event vs plain, cold compile, vs SimPy)`` each.
    """
    rows = []
    for name, row in features["variants"].items():
        on = ", ".join(row["features"]) or "none"
        per_event = row["per_event_vs_plain"]
        speedup = row["speedup_per_trial_vs_simpy"]
        simpy = (f"{speedup:,.0f}x" if speedup is not None
                 else "see small" if not row["features"] else "n/a")  # fmt: skip
        rows.append(
            (
                name,
                on,
                rate_text(row["trials_per_second"]),
                f"{row['events_per_trial']:.2f}",
                f"{row['ns_per_event']:.0f}" if row["ns_per_event"] else "-",
                f"{row['floor_multiple']:.1f}x",
                f"{row['per_trial_vs_plain']:.2f}x",
                "-" if per_event is None else f"{per_event:.2f}x",
                seconds_text(row["cold_compile_seconds"], 1)
                if row["cold_compile_seconds"] is not None else "not run",
                simpy,
            )
        )
    return rows


FEATURE_COLUMNS: tuple[str, ...] = (
    "variant", "features on", "trials/s", "events\nper trial", "ns per\nevent", "x floor",
    "per trial\nvs plain", "per event\nvs plain", "cold\ncompile", "vs SimPy\nper trial",
)  # fmt: skip
"""Columns of the feature table (:func:`feature_rows`)."""


def feature_title(features: dict[str, Any]) -> str:
    """What the feature table shows, in one line."""
    return (f"Walk per feature set: {features['config']} made plain, each feature turned on "
            f"({features['trials']:,} trials, 1 worker, best of {features['repeats']}; "
            f"events = {features['events']}; vs SimPy: {features['simpy_note']})")


def one_walk_rows(one_walk: dict[str, Any]) -> list[tuple[str, ...]]:
    """Each shipped config's walk against the one walk with every feature, as table rows.

    Parameters
    ----------
    one_walk : dict
        The report's ``one_walk`` section (:func:`benchmarks.one_walk.one_walk_study`).

    Returns
    -------
    list of tuple of str
        ``(config, features on, trials, own walk us/trial, one walk us/trial, own / one
        walk, no slower, same numbers)`` each; the richest config's name is marked.
    """
    rows = []
    for name, row in one_walk["configs"].items():
        rows.append((
            f"{name} (richest)" if name == one_walk["richest"] else name,
            ", ".join(row["features"]) or "none",
            f"{row['trials']:,}",
            f"{1e6 * row['seconds_per_trial']:,.2f}",
            f"{1e6 * row['reference_seconds_per_trial']:,.2f}",
            ratio_text(row["per_trial_vs_reference_median"] if "per_trial_vs_reference_median"
                       in row else None, row["per_trial_vs_reference"], 2),
            verdict_text(row["no_slower"]),
            "yes" if row["same_numbers"] else "NO",
        ))  # fmt: skip
    return rows


ONE_WALK_COLUMNS: tuple[str, ...] = (
    "config", "features on", "trials", "own walk\nus/trial", "one walk\nus/trial",
    "own / one: median of rounds (shortest)", f"no slower ({NO_SLOWER_TOLERANCE:.0%})",
    "same\nnumbers",
)  # fmt: skip
"""Columns of the one-walk table (:func:`one_walk_rows`)."""


STARTUP_COLUMNS: tuple[str, ...] = (
    "command", "seconds", "reference", "reference\nseconds", "ratio", "target", "met",
)  # fmt: skip
"""Columns of the start-up table (:func:`startup_rows`)."""


def render(report: dict[str, Any]) -> None:
    """Print the report as rich tables.

    Parameters
    ----------
    report : dict
        A report of :func:`benchmarks.run.run`; the sections it lacks are skipped.
    """
    from rich.console import Console
    from rich.table import Table

    console = Console(width=max(Console().width, 160))
    info = report["machine"]
    console.print(
        f"[bold]relplan vs SimPy[/bold] on {info['cpu_model']} ({info['nproc']} cores), "
        f"Python {info['python']}, numpy {info['numpy']}, numba {info['numba']}, "
        f"simpy {info['simpy']}"
    )
    console.print(
        f"first-call time (this process, numba cache as found): "
        f"{report['first_call_seconds']:.3f} s; excluded from the timings (a cold first "
        "run is in the start-up table)"
    )

    cases = report.get("cases") or {}
    if cases:
        table = Table(
            title="Performance (relplan: 1 worker, its walk on every core, after warm-up; "
            "1 thread: the walk on one thread, as the floor and SimPy run; events = "
            "interruptions)"
        )
        for column in (
            "case", "trials\nrelplan/SimPy", "relplan\ntrials/s", "relplan\nevents/s",
            "relplan\nns/event", "SimPy\ntrials/s", "SimPy\nevents/s", "speedup\nper trial",
            "speedup\n1 thread", "peak mem\nrelplan", "peak mem\nSimPy", "floor\n(s)",
            "relplan\nx floor\n(shortest)", "x floor\n1 thread\n(shortest)",
        ):  # fmt: skip
            table.add_column(column, justify="right" if column != "case" else "left")
        for name, case in cases.items():
            simpy_case = case["simpy"]
            table.add_row(
                name,
                f"{case['trials']:,}/{simpy_case['trials']:,}",
                rate_text(case["trials_per_second"]),
                rate_text(case["events_per_second"]),
                f"{case['ns_per_event']:.0f}" if case["ns_per_event"] else "-",
                rate_text(simpy_case["trials_per_second"]),
                rate_text(simpy_case["events_per_second"]),
                f"{case['speedup_per_trial']:,.0f}x",
                f"{case['speedup_per_trial_one_thread']:,.0f}x",
                mib_text(case["peak_memory_bytes"]),
                f"{mib_text(simpy_case['peak_memory_bytes'])} "
                f"({simpy_case['peak_memory_trials']} tr)",
                f"{case['floor_seconds']:.4f}",
                floor_multiple_text(case),
                floor_multiple_text(case, "_one_thread"),
            )
        console.print(table)

        sigmas = next(iter(cases.values()))["agreement"]["sigmas"]
        table = Table(title=f"Agreement (|z| <= {sigmas:g} combined standard errors)")
        for column in (
            "case", "wall h relplan", "wall h SimPy", "z", "interruptions relplan",
            "interruptions SimPy", "z", "agree",
        ):  # fmt: skip
            table.add_column(column, justify="right" if column != "case" else "left")
        for name, case in cases.items():
            wall = case["agreement"]["wall_hours"]
            interruptions = case["agreement"]["interruptions"]
            table.add_row(
                name,
                f"{wall['relplan_mean']:.2f} ± {wall['relplan_sem']:.2f}",
                f"{wall['simpy_mean']:.2f} ± {wall['simpy_sem']:.2f}",
                f"{wall['z']:+.2f}",
                f"{interruptions['relplan_mean']:.2f} ± {interruptions['relplan_sem']:.2f}",
                f"{interruptions['simpy_mean']:.2f} ± {interruptions['simpy_sem']:.2f}",
                f"{interruptions['z']:+.2f}",
                "yes" if case["agreement"]["agree"] else "[red]NO[/red]",
            )
        console.print(table)

    features = report.get("features")
    if features:
        table = Table(title=feature_title(features))
        for index, column in enumerate(FEATURE_COLUMNS):
            table.add_column(column, justify="left" if index < 2 else "right")
        for row in feature_rows(features):
            table.add_row(*row)
        console.print(table)
        if features["compile_method"]:
            console.print(f"cold compile: {features['compile_method']}")

    one_walk = report.get("one_walk")
    if one_walk:
        table = Table(title="Shipped configs as shipped: the walk of their features against "
                            f"{one_walk['reference']} (1 worker, best of each)")
        for index, column in enumerate(ONE_WALK_COLUMNS):
            table.add_column(column, justify="left" if index < 2 else "right")
        for row in one_walk_rows(one_walk):
            table.add_row(*row)
        console.print(table)

    startup = report.get("startup")
    if startup:
        table = Table(
            title=f"Start-up (fresh processes via {startup['launcher']}; best of "
            f"{startup['repeats']}, cold: best of {len(startup['cold']['runs'])})"
        )
        for column in STARTUP_COLUMNS:
            text = column in ("command", "reference")
            table.add_column(column, justify="left" if text else "right")
        for row in startup_rows(startup):
            table.add_row(*row)
        console.print(table)
        cold = startup["cold"]
        if cold["compile_seconds"] is not None:
            console.print(
                f"cold minus warm (numba compile and cache write): {cold['compile_seconds']:.1f} s"
            )

    scaling = report.get("scaling")
    if scaling:
        table = Table(title=f"Scaling on {scaling['config']} ({scaling['note']})")
        for column in (
            "series", "GPUs", "units", "spares", "work h", "trials", "events/trial", "events",
            "seconds", "us/trial", "ns/event", "x floor",
        ):  # fmt: skip
            table.add_column(column, justify="right" if column != "series" else "left")
        for series in SCALING_SERIES:
            for point in scaling[series]:
                table.add_row(
                    series,
                    f"{point['gpus']:,}",
                    f"{point['units']:,}",
                    f"{point['spares']:,}",
                    f"{point['work_hours']:,.0f}",
                    f"{point['trials']:,}",
                    f"{point['events_per_trial']:,.1f}",
                    f"{point['events']:,}",
                    f"{point['seconds']:.3f}",
                    f"{1e6 * point['seconds_per_trial']:,.1f}",
                    f"{point['ns_per_event']:.0f}" if point["ns_per_event"] else "-",
                    f"{point['seconds'] / point['floor_seconds']:.1f}",
                )
        console.print(table)
        fit = scaling["fit"]
        console.print(
            f"fit over {', '.join(scaling['fit_series'])}: "
            f"{fit['per_trial_ns']:.0f} ns per trial + "
            f"{fit['per_event_ns']:.1f} ns per event (max relative residual "
            f"{fit['max_relative_residual']:.0%}); adding a units x trials term gives it "
            f"{fit['per_unit_trial_ns_if_added']:.2g} ns per unit-trial"
        )

    memory = report.get("memory")
    if memory:
        table = Table(title=f"Peak RSS of `{memory['command']}` ({memory['method']})")
        for column in (
            "run", "units", "trials", "units x trials", "events/trial", "events",
            "peak RSS", "extra RSS", "extra B/trial", "extra B/event",
            "extra B per event\nof a block",
        ):  # fmt: skip
            table.add_column(column, justify="right" if column != "run" else "left")

        def number(value: float | None, digits: int = 0) -> str:
            return "-" if value is None else f"{value:,.{digits}f}"

        for run in memory["runs"]:
            table.add_row(
                run["label"],
                f"{run['units']:,}",
                f"{run['trials']:,}",
                f"{run['units_x_trials']:.2e}",
                f"{run['events_per_trial']:.1f}",
                f"{run['events']:,.0f}",
                mib_text(run["peak_rss_bytes"]),
                mib_text(run["extra_rss_bytes"]),
                number(run["extra_bytes_per_trial"]),
                number(run["extra_bytes_per_event"], 2),
                number(run["extra_bytes_per_block_event"], 1),
            )
        console.print(table)


def markdown_table(
    header: tuple[str, ...], rows: list[tuple[str, ...]], text_columns: tuple[int, ...] = (0,)
) -> str:
    """A Markdown table: the text columns left-aligned, the others (numbers) right-aligned.

    Parameters
    ----------
    header : tuple of str
        Column titles (a line break becomes a space).
    rows : list of tuple of str
        The cells.
    text_columns : tuple of int
        Indexes of the left-aligned columns.

    Returns
    -------
    str
        The table, one line per row, no trailing newline.
    """
    alignments = ("---" if index in text_columns else "--:" for index in range(len(header)))
    lines = [
        "| " + " | ".join(cell.replace("\n", " ") for cell in header) + " |",
        "|" + "|".join(alignments) + "|",
    ]
    lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def command_as_code(cell: str) -> str:
    """A cell's leading command as Markdown code: ``relplan --help`` in backquotes.

    Examples
    --------
    >>> command_as_code("relplan simulate x.toml (empty numba cache)")
    '`relplan simulate x.toml` (empty numba cache)'
    >>> command_as_code('python -c "import numpy, typer"')
    '`python -c "import numpy, typer"`'
    >>> command_as_code("1.20 s")
    '1.20 s'
    """
    if not cell.startswith(("relplan ", "python ")):
        return cell
    command, bracket, rest = cell.partition(" (")
    return f"`{command}`{bracket}{rest}"


def markdown(report: dict[str, Any]) -> str:
    """The per-case, feature and start-up tables of a report as Markdown (for RESULTS.md).

    Parameters
    ----------
    report : dict
        A report of :func:`benchmarks.run.run`.

    Returns
    -------
    str
        A Markdown table per section the report has.
    """
    parts = []
    cases = report.get("cases") or {}
    if cases:
        header = (
            "case", "trials relplan / SimPy", "relplan trials/s", "relplan events/s",
            "ns per event", "SimPy trials/s", "speedup per trial", "speedup 1 thread",
            "floor (s)", "x floor: median of rounds (shortest)",
            "x floor 1 thread: median of rounds (shortest)",
        )  # fmt: skip
        rows = [
            (
                name,
                f"{case['trials']:,} / {case['simpy']['trials']:,}",
                f"{case['trials_per_second']:,.0f}",
                f"{case['events_per_second'] / 1e6:.1f} M",
                f"{case['ns_per_event']:.0f}" if case["ns_per_event"] else "-",
                rate_text(case["simpy"]["trials_per_second"]),
                f"{case['speedup_per_trial']:,.0f}x",
                f"{case['speedup_per_trial_one_thread']:,.0f}x",
                f"{case['floor_seconds']:.4f}",
                floor_multiple_text(case),
                floor_multiple_text(case, "_one_thread"),
            )
            for name, case in cases.items()
        ]
        parts.append(markdown_table(header, rows))
    features = report.get("features")
    if features:
        parts.append(markdown_table(FEATURE_COLUMNS, feature_rows(features),
                                    text_columns=(0, 1)))  # fmt: skip
    one_walk = report.get("one_walk")
    if one_walk:
        parts.append(markdown_table(ONE_WALK_COLUMNS, one_walk_rows(one_walk),
                                    text_columns=(0, 1, 6, 7)))  # fmt: skip
    startup = report.get("startup")
    if startup:
        rows = [tuple(map(command_as_code, row)) for row in startup_rows(startup)]
        parts.append(markdown_table(STARTUP_COLUMNS, rows, text_columns=(0, 2, 5, 6)))
    if report.get("memory_trials"):
        from benchmarks.memory import memory_markdown

        parts.append(memory_markdown(report["memory_trials"]))
    return "\n\n".join(parts) + "\n"
