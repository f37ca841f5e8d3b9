"""
GPU-hours lost by job
=====================

A fleet of thirteen jobs on one H100 cluster (``configs/fleets/fleet-mix.toml``: one
8,192-GPU pretraining job, four 1,024-GPU fine-tuning jobs and eight 64-GPU
experiments, each on its own servers and spares): the mean GPU-hours each job loses a
run over 100 trials, with its share of the fleet's. The one large job takes almost all
of them. ``relplan simulate configs/fleets/fleet-mix.toml --out DIR`` writes the same
figure (``gpu-hours-lost-by-job.png``).
"""

from pathlib import Path

import relplan

# the shipped configs and studies, from the repository root or from examples/
REPO = next(p for p in (Path.cwd(), *Path.cwd().parents) if (p / "configs").is_dir())

result = relplan.simulate_fleet(REPO / "configs" / "fleets" / "fleet-mix.toml", trials=100,
                                seed=0)
print(result)

figure = result.plot("gpu-hours-lost-by-job")
