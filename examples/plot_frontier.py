"""
A plan: the redundancy frontier
===============================

The shipped redundancy plan of the seed MoE cluster
(``studies/redundancy-plan-seed-moe.toml``: dual-ToR, a fast checkpoint tier, faster
restarts, more spines, fewer or more spares, within $50M), 100 trials per portfolio:
each portfolio's hardware cost against its net value, the frontier numbered, the best
marked. ``relplan plan --out`` writes it as ``frontier.png``.
"""

from pathlib import Path

import relplan

# the shipped configs and studies, from the repository root or from examples/
REPO = next(p for p in (Path.cwd(), *Path.cwd().parents) if (p / "configs").is_dir())

plan = relplan.plan(REPO / "studies" / "redundancy-plan-seed-moe.toml", trials=100, workers=1)
print(plan.summary()["answer"])

figure = plan.plot("frontier")
