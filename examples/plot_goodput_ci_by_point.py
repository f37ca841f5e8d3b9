"""
A study: goodput per point
==========================

The shipped study of recovery strategies (``studies/recovery-strategies.toml``: restart
on a hot spare, wait for the repair, elastic continue, and the failure-free bound as a
dashed reference), 200 trials per point on common failure streams: each point's mean
goodput with its 95% CI. ``relplan sweep`` writes it as ``goodput-ci-by-point.png``.
"""

from pathlib import Path

import relplan

# the shipped configs and studies, from the repository root or from examples/
REPO = next(p for p in (Path.cwd(), *Path.cwd().parents) if (p / "configs").is_dir())

study = relplan.run_study(REPO / "studies" / "recovery-strategies.toml", trials=200, workers=1)
print(study.summary()["answer"])

figure = study.plot("goodput")
