"""
Distribution of the hours lost
==============================

The distribution (CDF) of the hours a run of the shipped seed MoE job
(``configs/seed-moe-10k.toml``, 300 trials) loses, with the GPU-hours they cost on the
top axis: how bad the bad runs are. ``relplan simulate --out`` writes it as
``lost-hours-cdf.png``.
"""

from pathlib import Path

import relplan

# the shipped configs and studies, from the repository root or from examples/
REPO = next(p for p in (Path.cwd(), *Path.cwd().parents) if (p / "configs").is_dir())

result = relplan.simulate(REPO / "configs" / "seed-moe-10k.toml", trials=300, seed=0)
print(result)

lost = result.summary()["lost_hours"]
print(f"lost hours: P50 {lost['p50']:.1f}, P95 {lost['p95']:.1f}")
figure = result.plot("lost-hours-cdf")
