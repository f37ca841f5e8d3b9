"""
Hours lost per run
==================

A histogram of the hours each run of the shipped seed MoE job
(``configs/seed-moe-10k.toml``, 300 trials) loses. ``relplan simulate --out`` writes it
as ``lost-hours-histogram.png``; the numbers are the ``lost_hours`` column of
``result.to_frame()``, one row per trial.
"""

from pathlib import Path

import relplan

# the shipped configs and studies, from the repository root or from examples/
REPO = next(p for p in (Path.cwd(), *Path.cwd().parents) if (p / "configs").is_dir())

result = relplan.simulate(REPO / "configs" / "seed-moe-10k.toml", trials=300, seed=0)
print(result)

trials = result.to_frame()
print(trials["lost_hours"].describe().round(1))
figure = result.plot("lost-hours-histogram")
