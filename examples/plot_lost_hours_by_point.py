"""
A study: where the lost hours go, per point
===========================================

The shipped study of recovery strategies (``studies/recovery-strategies.toml``, 200
trials per point): each point's mean lost hours, bucket by bucket. ``relplan sweep``
writes it as ``lost-hours-by-point.png``.
"""

from pathlib import Path

import relplan
from relplan.output.plots import lost_hours_by_bucket

# the shipped configs and studies, from the repository root or from examples/
REPO = next(p for p in (Path.cwd(), *Path.cwd().parents) if (p / "configs").is_dir())

study = relplan.run_study(REPO / "studies" / "recovery-strategies.toml", trials=200, workers=1)
print(study.summary()["answer"])

points = study.to_frame()
hours = points[["label", *[c for c in points.columns if c.endswith("_hours_mean")]]]
hours = hours.rename(columns=lambda column: column.removesuffix("_hours_mean"))
spec = study.study.spec
figure = lost_hours_by_bucket(hours, spec.name, reference=spec.reference)
