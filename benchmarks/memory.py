"""Peak memory against trials, and the memory estimate against it.

:func:`memory_against_trials` runs ``relplan simulate CONFIG --trials N --json`` in fresh
processes on every shipped config (``airesim-default`` among them: AIReSim's own scenario,
4,096 servers for 256 days with curable bad servers) and an AIReSim-sized fleet with GPU
lemons and imperfect repair (:data:`AIRESIM_OVERRIDES`), takes each run's peak RSS
(:func:`benchmarks.scaling.peak_rss_of_cli`) and sets the estimate relplan checks before
a run (:func:`relplan.runs.memory.estimate_memory`) against it.
:func:`memory_markdown` renders the table that ``benchmarks/RESULTS.md`` and the docs'
Performance page quote; ``python -m benchmarks.memory --json PATH`` runs it all (about 8
minutes on 2 loaded cores) and ``--render PATH`` prints the table of a result again.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from benchmarks.cases import config_path
from benchmarks.scaling import peak_rss_of_cli
from relplan.config.loading import load_config
from relplan.runs.memory import estimate_memory
from relplan.sim.engine import block_trials
from relplan.sim.model import build_model

AIRESIM_OVERRIDES: tuple[str, ...] = (
    "cluster.servers=4160",
    "job.gpus=32768",
    "job.spares=64",
    'job.work="256d"',
    'failures.gpu.lemons={ share = "15%", factor = 5 }',
    'failures.gpu.repair_success="70%"',
    'failures.gpu.refail={ dist = "fixed", mean = "1h" }',
)
"""``--set`` items making ``configs/small.toml`` an AIReSim-sized fleet: 4,096 servers of
8 GPUs (and 64 spares) for 256 days of work, 15% of GPUs failing 5x as often and 30% of
repairs returning the board still faulty (AIReSim, arXiv 2603.07041: its cohort and
false repair success)."""

CASES: tuple[tuple[str, str, tuple[str, ...], tuple[int, ...]], ...] = (
    ("small", "small", (), (1_000, 1_000_000, 5_000_000)),
    ("seed-dense-175b", "seed-dense-175b", (), (1_000, 100_000)),
    ("seed-moe-10k", "seed-moe-10k", (), (1_000, 100_000)),
    ("llama3-16k", "llama3-16k", (), (1_000, 100_000)),
    ("airesim-default", "airesim-default", (), (20, 1_000, 10_000)),
    ("AIReSim-sized lemon fleet", "small", AIRESIM_OVERRIDES, (20, 1_000, 10_000)),
)
"""(label, shipped config, overrides, trial counts) of each run."""

QUICK_CASES: tuple[tuple[str, str, tuple[str, ...], tuple[int, ...]], ...] = tuple(
    (label, config, overrides, trials[:2]) for label, config, overrides, trials in CASES
)
"""The same cases at their two smallest trial counts."""


def memory_against_trials(cases=CASES, seed: int = 0) -> dict[str, Any]:
    """Peak RSS of ``relplan simulate --json`` at several trial counts, and the estimate.

    Parameters
    ----------
    cases : sequence of (str, str, tuple of str, tuple of int)
        (label, shipped config, ``--set`` items, trial counts); default :data:`CASES`.
    seed : int
        Seed of every run.

    Returns
    -------
    dict
        ``command``, ``method`` and ``runs``: per run its label, trials, trials per block,
        seconds, ``peak_rss_bytes``, ``estimate_bytes`` and ``estimate_over_peak``.
    """
    runs = []
    for label, config, overrides, counts in cases:
        path = config_path(config)
        model = build_model(load_config(path, list(overrides)))
        estimate = estimate_memory([model], "simulate", workers=1)
        for trials in counts:
            arguments = [str(path), "--trials", str(trials), "--seed", str(seed),
                         "--workers", "1"]  # fmt: skip
            for item in overrides:
                arguments += ["--set", item]
            started = time.perf_counter()
            peak, _ = peak_rss_of_cli(arguments)
            estimated = estimate.bytes(trials)
            runs.append({
                "label": label,
                "config": config,
                "overrides": list(overrides),
                "trials": trials,
                "block_trials": block_trials(model),
                "seconds": time.perf_counter() - started,
                "peak_rss_bytes": peak,
                "estimate_bytes": estimated,
                "estimate_over_peak": estimated / peak,
            })  # fmt: skip
    return {
        "command": "python -m relplan simulate CONFIG --trials N --seed 0 --workers 1 --json "
        "[--set ...]",
        "method": "getrusage(RUSAGE_CHILDREN).ru_maxrss of a wrapper whose only child is the "
        "run (kernel peak RSS, the whole process); estimate = "
        "relplan.runs.memory.estimate_memory(model, 'simulate').bytes(N)",
        "runs": runs,
    }


def _mib(value: float) -> str:
    return f"{value / 2**20:,.0f} MiB"


def memory_markdown(study: dict[str, Any]) -> str:
    """The table of a :func:`memory_against_trials` result, as Markdown.

    Examples
    --------
    >>> print(memory_markdown({"runs": [{"label": "small", "trials": 1000, "block_trials":
    ...     10000, "seconds": 2.0, "peak_rss_bytes": 2**28, "estimate_bytes": 2**29,
    ...     "estimate_over_peak": 2.0}]}))
    | run | trials | trials per block | peak RSS | estimate | estimate / peak |
    |---|--:|--:|--:|--:|--:|
    | small | 1,000 | 10,000 | 256 MiB | 512 MiB | 2.00 |
    """
    lines = [
        "| run | trials | trials per block | peak RSS | estimate | estimate / peak |",
        "|---|--:|--:|--:|--:|--:|",
    ]
    for run in study["runs"]:
        lines.append(
            f"| {run['label']} | {run['trials']:,} | {run['block_trials']:,} | "
            f"{_mib(run['peak_rss_bytes'])} | {_mib(run['estimate_bytes'])} | "
            f"{run['estimate_over_peak']:.2f} |"
        )
    return "\n".join(lines)


def main() -> None:
    """Run the study; print its table; write its JSON with ``--json PATH``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, help="write the result here")
    parser.add_argument("--quick", action="store_true", help="the two smallest counts only")
    parser.add_argument("--render", type=Path, help="print the table of a result written before")
    arguments = parser.parse_args()
    if arguments.render:
        print(memory_markdown(json.loads(arguments.render.read_text())))
        return
    study = memory_against_trials(QUICK_CASES if arguments.quick else CASES)
    if arguments.json:
        arguments.json.write_text(json.dumps(study, indent=2) + "\n")
    print(memory_markdown(study))


if __name__ == "__main__":
    main()
