"""
A plan: what decides it
=======================

The uncertain inputs of the shipped redundancy plan (``studies/redundancy-plan-seed-moe.toml``:
the GPU's MTBF from 3 to 8 years, the leaf switches' failure rate from 2% to 10% a year),
100 trials per portfolio, ranked by how much each moves the decision: the best
portfolio's lead over the runner-up at the input's low and high end, with the line where
the runner-up starts to win. ``relplan plan --out`` writes it as ``tornado.png``.
"""

from pathlib import Path

import relplan
from relplan.output.plan_plots import tornado_figure

# the shipped configs and studies, from the repository root or from examples/
REPO = next(p for p in (Path.cwd(), *Path.cwd().parents) if (p / "configs").is_dir())

plan = relplan.plan(REPO / "studies" / "redundancy-plan-seed-moe.toml", trials=100, workers=1)
print(plan.summary()["answer"])

figure = tornado_figure(plan.summary())
