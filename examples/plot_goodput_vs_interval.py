"""
Goodput against the checkpoint interval
=======================================

The shipped 512-GPU config (``configs/small.toml``) at 32 checkpoint intervals, every
interval on the same failure streams (common random numbers), 200 trials each: the mean
goodput with its 95% band, the P95 wall time on the right axis, and under it one row per
optimum (Young's, Daly's, the Monte Carlo optimum of the mean goodput and of the P95 wall
time, each with its CI). The same figure as the tutorial's
``relplan optimize configs/small.toml --trials 200 --seed 1 --out DIR``
(``goodput-vs-interval.png``).
"""

from pathlib import Path

import relplan

# the shipped configs and studies, from the repository root or from examples/
REPO = next(p for p in (Path.cwd(), *Path.cwd().parents) if (p / "configs").is_dir())

optimum = relplan.optimize_interval(REPO / "configs" / "small.toml", trials=200, seed=1)
print(f"Young {optimum.young_hours:.2f} h, Daly {optimum.daly_hours:.2f} h, "
      f"Monte Carlo {optimum.mc_optimal_hours:.2f} h")
figure = optimum.plot("goodput-vs-interval")
