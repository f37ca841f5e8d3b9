"""
A plan: what each option is worth
=================================

The best portfolio of the shipped redundancy plan (``studies/redundancy-plan-seed-moe.toml``,
100 trials per portfolio), each option's Shapley value (its gain averaged over every
order of buying the options; the values add up to the portfolio's gain) beside what
removing it costs. ``relplan plan --out`` writes it as ``attribution.png``.
"""

from pathlib import Path

import relplan

# the shipped configs and studies, from the repository root or from examples/
REPO = next(p for p in (Path.cwd(), *Path.cwd().parents) if (p / "configs").is_dir())

plan = relplan.plan(REPO / "studies" / "redundancy-plan-seed-moe.toml", trials=100, workers=1)
print(plan.summary()["answer"])

figure = plan.plot("attribution")
