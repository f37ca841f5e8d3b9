"""
Where the lost hours go
=======================

The mean hours a run of the shipped seed MoE job (``configs/seed-moe-10k.toml``, 300
trials) loses, bucket by bucket: rework, checkpoint writes, detection, restarts, waiting,
running degraded, stalls. ``relplan simulate --out`` writes it as
``lost-hours-by-bucket.png``; the table of the same numbers is
``result.summary()["lost_hours_breakdown"]``.
"""

from pathlib import Path

import relplan

# the shipped configs and studies, from the repository root or from examples/
REPO = next(p for p in (Path.cwd(), *Path.cwd().parents) if (p / "configs").is_dir())

result = relplan.simulate(REPO / "configs" / "seed-moe-10k.toml", trials=300, seed=0)
print(result)

for bucket, hours in result.summary()["lost_hours_breakdown"].items():
    print(f"{bucket:12} {hours:8.1f} h")
figure = result.plot("lost-hours-by-bucket")
