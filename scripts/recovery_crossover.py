"""Which recovery stack wins as the job grows and fails more often: the crossover map of
``studies/recovery-stacks.toml``, in time to train and in money.

Each cell runs the three stacks of the study (live migration, checkpoint-restart,
replica drop with its fitted 120% tax, and the same stack at 5%, torchft's tax on a
fast all-reduce) on the Clockwork job (``configs/llama4-scout-64.toml``) scaled to
``gpus`` GPUs, with each GPU failing at ``per_gpu`` times the benchmark's rate, on
common failure streams. Live migration keeps 2 spare nodes per 64 GPUs (3%); the other
stacks run on the job's nodes. Money is GPU-hours of the job and its spares at
``PRICE`` dollars a GPU-hour. Run from the repository root::

    python scripts/recovery_crossover.py        # writes docs/recovery-crossover/crossover.*
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from relplan.api import simulate  # noqa: E402
from relplan.errors import InfeasibleJobError  # noqa: E402

CONFIG = ROOT / "configs" / "llama4-scout-64.toml"
OUT = ROOT / "docs" / "recovery-crossover"
PRICE = 2.5
"""Dollars a GPU-hour (an H200 rented by the hour, an assumption)."""
GPUS = (64, 1024, 16384)
RATES = (1 / 500, 1 / 50, 1 / 5, 1.0)
"""The failure rate per GPU, as a share of the benchmark's (one a GPU every 64 h, 137 a
GPU-year: a 32,000-GPU cluster's rate on 64 GPUs); 1/500 is about Llama 3's fleet (419
interruptions in 54 days on 16,384 GPUs: 0.17 a GPU-year)."""
MOST_PER_HOUR = 20.0
"""Cells whose job fails more often than this an hour are left out (a 15-min restart
never gets through)."""
TRIALS = 300

STACKS: dict[str, list[str]] = {
    "live migration": ['job.recovery="live-migration"',
                       'job.live_migration={ swap = "1min" }'],
    "checkpoint-restart": [],
    "replica drop, 120% tax": ['job.recovery="replica-drop"', 'job.step_overhead="120%"',
                               'job.replica_drop={ replicas = 4, reconfigure = "30s", '
                               'rejoin = "5min" }', 'job.checkpoint.interval="1694s"'],
    "replica drop, 5% tax": ['job.recovery="replica-drop"', 'job.step_overhead="5%"',
                             'job.replica_drop={ replicas = 4, reconfigure = "30s", '
                             'rejoin = "5min" }', 'job.checkpoint.interval="809s"'],
}
"""Each stack's overrides (the study's, with torchft's tax also at 5%)."""

SHORT = {"live migration": "migration", "checkpoint-restart": "restart",
         "replica drop, 120% tax": "drop 120%", "replica drop, 5% tax": "drop 5%"}
"""Each stack's name in the table's narrow columns (wall hours)."""


def _cell(gpus: int, share: float) -> dict[str, tuple[float, float]]:
    """Mean wall hours and dollars of each stack at one size and failure rate."""
    servers = gpus // 8
    spare_nodes = max(2, round(servers * 2 / 8))
    size = [f"job.gpus={gpus}", f"cluster.servers={servers + spare_nodes}",
            f'failures.gpu.lifetime.mtbf="{64 / share:g}h"']
    cell = {}
    for name, items in STACKS.items():
        spares = [f"job.spares={spare_nodes}"] if name == "live migration" else []
        try:
            result = simulate(CONFIG, trials=TRIALS, seed=0, overrides=[*size, *spares, *items])
            hours = result.wall_hours.mean
        except InfeasibleJobError:  # it would practically never finish
            hours = float("inf")
        paid_gpus = gpus + (8 * spare_nodes if spares else 0)
        cell[name] = (hours, hours * paid_gpus * PRICE)
    return cell


def main() -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cells = {(g, r): _cell(g, r) for g in GPUS for r in RATES
             if g * r / 64 <= MOST_PER_HOUR}  # fmt: skip
    names = list(STACKS)
    lines = ["| GPUs | failures a GPU-year | " + " | ".join(SHORT[n] for n in names) + " |",
             "|" + "---|" * (len(names) + 2)]  # the winners are the figure's
    for (gpus, share), cell in cells.items():
        per_year = 8766 * share / 64
        lines.append(f"| {gpus:,} | {per_year:.3g} | "
                     + " | ".join(f"{cell[n][0]:,.1f}" if cell[n][0] < float("inf")
                                  else "never" for n in names) + " |")
    OUT.mkdir(parents=True, exist_ok=True)
    table = OUT / "crossover.md"
    staged = OUT / "crossover.tmp.md"  # written whole, then renamed
    staged.write_text("\n".join(lines) + "\n")
    staged.replace(table)
    plt.rcParams.update({"font.size": 12})
    figure, axes = plt.subplots(1, 2, figsize=(10, 4.6), constrained_layout=True)
    colours = dict(zip(names, ("#1b7837", "#2166ac", "#b2182b", "#e08214"), strict=True))
    for ax, index, what in ((axes[0], 0, "fastest"), (axes[1], 1, "cheapest")):
        for (gpus, share), cell in cells.items():
            best = min(names, key=lambda n: cell[n][index])
            ax.scatter(8766 * share / 64, gpus, s=260, color=colours[best], marker="s")
        ax.set_xscale("log")
        ax.set_yscale("log", base=2)
        ax.set_yticks(GPUS, [f"{g:,}" for g in GPUS])
        ax.minorticks_off()
        ax.set_xlabel("failures a GPU-year")
        ax.set_ylabel("GPUs")
        ax.set_title(f"{what} stack to 3,000 steps")
    handles = [plt.Line2D([], [], marker="s", linestyle="", color=colours[n], label=n)
               for n in names]
    figure.legend(handles=handles, loc="outside lower center", ncol=2)
    temporary = OUT / "crossover.tmp.png"
    figure.savefig(temporary, dpi=110)
    temporary.replace(OUT / "crossover.png")
    print(table.read_text())
    print(f"wrote {OUT / 'crossover.png'} and {table}: {len(cells)} cells")


if __name__ == "__main__":
    main()
