"""
A study: metrics against the swept axis
=======================================

The shipped study of checkpoint cadence on the seed MoE job
(``studies/checkpoint-cadence-seed-moe.toml``: nine intervals from 5 minutes to 4 hours),
60 trials per point on common failure streams: each metric against the interval.
``relplan sweep`` draws these curves for a study with one axis (``sweep.png``).
"""

from pathlib import Path

import relplan
from relplan.output.plots import sweep_curves
from relplan.units import parse_duration_hours

# the shipped configs and studies, from the repository root or from examples/
REPO = next(p for p in (Path.cwd(), *Path.cwd().parents) if (p / "configs").is_dir())

study = relplan.run_study(REPO / "studies" / "checkpoint-cadence-seed-moe.toml", trials=60,
                          workers=1)
print(study.summary()["answer"])

points = study.to_frame().copy()
axis = "job.checkpoint.interval"
points[axis] = points[axis].map(parse_duration_hours)
spec = study.study.spec
figure = sweep_curves(points, axis, list(spec.metrics), spec.name,
                      labels={axis: "Checkpoint interval (hours)"})
