"""Benchmark relplan: its engine against a SimPy reference model, its scaling, its start-up.

One command (from the repository root)::

    python benchmarks/run.py [--quick] [--tiny] [--scaling | --no-scaling]
        [--startup | --no-startup] [--features | --no-features]
        [--feature-variants NAME ...] [--feature-compile] [--one-walk | --no-one-walk]
        [--json PATH]
        [--markdown PATH] [--plot PREFIX] [--seed N] [--cases NAME ...] [--memory-trials]

``--quick`` cuts the trial counts and repeats (about a minute); ``--tiny`` cuts them
further (for the tests); ``--cases`` picks cases; ``--seed`` the seed. The run (see
:func:`run`), each part in its own module:

- relplan vs the SimPy reference vs the random-number floor on the shipped cases, and
  whether the two models agree (:mod:`benchmarks.throughput`, on the models of
  :mod:`benchmarks.cases`);
- the walk per feature set: ``configs/small.toml`` made plain, then each feature turned
  on, per trial against the random-number floor and the plain walk
  (:mod:`benchmarks.features`; on by default, off with ``--no-features``;
  ``--feature-variants`` picks variants, ``--feature-compile`` also times each variant's
  cold compile, about 3 minutes more);
- each shipped config, as shipped, with the walk of its features against the one walk
  with every feature (the engine before the walk was compiled per feature set), and
  whether the richest config is no slower (:mod:`benchmarks.one_walk`; on at the full
  level, else with ``--one-walk``);
- start-up: fresh ``relplan`` processes, warm and with an empty numba cache, against bare
  imports of numpy, typer and numba (:mod:`benchmarks.startup`; on by default, off with
  ``--no-startup``);
- the scaling study and peak RSS (:mod:`benchmarks.scaling`; on by default, off with
  ``--quick`` unless ``--scaling`` is given); ``--plot PREFIX`` draws PREFIX.png and
  PREFIX.svg;
- peak RSS against trials on every shipped config and an AIReSim-sized lemon fleet, with
  relplan's memory estimate beside it (:mod:`benchmarks.memory`; off by default, on with
  ``--memory-trials``; also ``python -m benchmarks.memory`` alone).

The report is printed as tables (:mod:`benchmarks.report`) and written as JSON
(``--json``, else printed) and as Markdown tables (``--markdown``). Timings are printed,
never asserted: the exit status is 1 only if the two models disagree on a case.
"""

from __future__ import annotations

import sys
from pathlib import Path

if __package__ in (None, ""):
    # Run as a script: import this folder as the package ``benchmarks`` from the
    # repository root, rather than its modules as top-level ones.
    _here = Path(__file__).resolve().parent
    if sys.path and Path(sys.path[0] or ".").resolve() == _here:
        sys.path[0] = str(_here.parent)
    else:
        sys.path.insert(0, str(_here.parent))

import argparse
import json
import os
import time
from collections.abc import Sequence
from typing import Any

from benchmarks.cases import CASES, comparable_model
from benchmarks.features import FEATURE_VARIANTS, feature_study
from benchmarks.levels import LEVELS, Level
from benchmarks.machine import machine
from benchmarks.memory import CASES as MEMORY_CASES
from benchmarks.memory import QUICK_CASES as QUICK_MEMORY_CASES
from benchmarks.memory import memory_against_trials
from benchmarks.one_walk import one_walk_study
from benchmarks.report import markdown, render, to_plain, write_json
from benchmarks.scaling import memory_study, plot_scaling, scaling_study
from benchmarks.startup import startup_study
from benchmarks.throughput import benchmark_case, first_call_seconds
from relplan.sim.engine import simulate


def run(
    level: str | Level = "full",
    scaling: bool | None = None,
    seed: int = 2026,
    cases: Sequence[str] = CASES,
    startup: bool = True,
    memory_trials: bool = False,
    features: bool = True,
    feature_variants: Sequence[str] = tuple(FEATURE_VARIANTS),
    feature_compile: bool = False,
    one_walk: bool | None = None,
) -> dict[str, Any]:
    """Run the benchmark and return the report (plain numbers, JSON-ready).

    Parameters
    ----------
    level : {"full", "quick", "tiny"} or Level
        Trial counts and repeats (see :data:`benchmarks.levels.LEVELS`).
    scaling : bool, optional
        Run the scaling and memory study; default: only at the full level.
    seed : int
        Seed of every simulation.
    cases : sequence of str
        Names of the shipped configs to compare.
    startup : bool
        Run the start-up study.
    memory_trials : bool
        Run the study of peak memory against trials (:mod:`benchmarks.memory`; its two
        smallest trial counts at levels below full).
    features : bool
        Run the walk per feature set (:func:`benchmarks.features.feature_study`).
    feature_variants : sequence of str
        Its variants (the plain one always runs).
    feature_compile : bool
        Also time each variant's cold compile in a fresh process.
    one_walk : bool, optional
        Set each shipped config's walk against the one walk with every feature
        (:func:`benchmarks.one_walk.one_walk_study`); default: only at the full level.

    Returns
    -------
    dict
        ``level``, ``seed``, ``machine``, ``first_call_seconds``, ``cases`` (by name), and
        ``features``, ``one_walk``, ``startup``, ``scaling``, ``memory`` and
        ``memory_trials`` when run.
    """
    level = LEVELS[level] if isinstance(level, str) else level
    first = first_call_seconds(seed)  # must be this process's first simulate call
    simulate(comparable_model("small"), 10, seed)  # warm
    where = machine()
    report: dict[str, Any] = {
        "level": level.name,
        "seed": seed,
        "machine": where,
        "first_call_seconds": first,
        "cases": {
            name: benchmark_case(name, level.cases[name], seed, level.repeats, where["nproc"])
            for name in cases
        },
    }
    if features:
        small = report["cases"].get("small")
        report["features"] = feature_study(
            level.feature_trials, seed, level.feature_repeats, feature_variants,
            feature_compile,
            simpy_speedup_per_trial=small["speedup_per_trial"] if small else None,
        )  # fmt: skip
    if one_walk if one_walk is not None else level.name == "full":
        report["one_walk"] = one_walk_study(seed, level.repeats)
    if startup:
        report["startup"] = startup_study(level)
    if scaling if scaling is not None else level.name == "full":
        report["scaling"] = scaling_study(level, seed)
        report["memory"] = memory_study(level, seed)
    if memory_trials:
        report["memory_trials"] = memory_against_trials(
            MEMORY_CASES if level.name == "full" else QUICK_MEMORY_CASES
        )
    return to_plain(report)


def parse_arguments(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line's options (see the module's docstring)."""
    parser = argparse.ArgumentParser(
        description="Benchmark relplan's engine against the SimPy reference model, its "
        "scaling and its start-up."
    )
    parser.add_argument("--quick", action="store_true", help="few trials (about a minute)")
    parser.add_argument(
        "--tiny", action="store_true", help="very few trials (for the tests; implies --quick)"
    )
    parser.add_argument(
        "--scaling",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="run the scaling and memory study (default: on, off with --quick)",
    )
    parser.add_argument(
        "--startup",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="time the start-up of fresh relplan processes (default: on)",
    )
    parser.add_argument(
        "--features",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="run the walk per feature set on configs/small.toml (default: on)",
    )
    parser.add_argument(
        "--feature-variants", nargs="+", choices=list(FEATURE_VARIANTS),
        default=list(FEATURE_VARIANTS), metavar="NAME",
        help=f"variants of the feature section (default: all: {', '.join(FEATURE_VARIANTS)})",
    )  # fmt: skip
    parser.add_argument(
        "--feature-compile",
        action="store_true",
        help="also time each variant's walk compiling on an empty numba cache, in a fresh "
        "process (about 3 minutes on 2 cores; off by default)",
    )
    parser.add_argument(
        "--one-walk",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="set each shipped config's walk against the one walk with every feature "
        "(default: on, off with --quick; its first run compiles that walk, about 30 s)",
    )
    parser.add_argument(
        "--memory-trials",
        action="store_true",
        help="measure peak RSS against trials on every shipped config and an AIReSim-sized "
        "fleet, with the memory estimate beside it (about 8 minutes; off by default)",
    )
    parser.add_argument("--json", metavar="PATH", help="write the report as JSON here")
    parser.add_argument(
        "--markdown", metavar="PATH", help="write the per-case and start-up tables as Markdown"
    )
    parser.add_argument("--plot", metavar="PREFIX", help="write PREFIX.png and PREFIX.svg")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument(
        "--cases", nargs="+", choices=CASES, default=list(CASES), help="cases to run"
    )
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark from the command line.

    Parameters
    ----------
    argv : sequence of str, optional
        The arguments (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        0, or 1 if relplan and the SimPy reference disagree on a case.
    """
    args = parse_arguments(argv)
    scaling = True if args.plot and args.scaling is None else args.scaling

    started = time.perf_counter()
    level = "tiny" if args.tiny else "quick" if args.quick else "full"
    report = run(
        level=level, scaling=scaling, seed=args.seed, cases=args.cases, startup=args.startup,
        memory_trials=args.memory_trials, features=args.features, one_walk=args.one_walk,
        feature_variants=args.feature_variants, feature_compile=args.feature_compile,
    )  # fmt: skip
    report["total_seconds"] = time.perf_counter() - started
    if hasattr(os, "getloadavg"):
        report["load_average_at_end"] = list(os.getloadavg())
    render(report)
    if args.plot and "scaling" in report:
        for path in plot_scaling(report["scaling"], args.plot):
            print(f"wrote {path}")
    if args.markdown:
        path = Path(args.markdown)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(markdown(report))
        print(f"wrote {path}")
    if args.json:
        print(f"wrote {write_json(report, args.json)}")
    else:
        print(json.dumps(report, indent=2))
    print(f"total {report['total_seconds']:.1f} s")
    agree = all(case["agreement"]["agree"] for case in report["cases"].values())
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main())
