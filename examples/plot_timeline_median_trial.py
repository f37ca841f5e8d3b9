"""
Timeline of the median trial
============================

The trial of median goodput of the shipped seed MoE job (``configs/seed-moe-10k.toml``,
300 trials), replayed with its trace: with about 500 failures in a run, binned into at
most 120 bins of wall time, each bin's share per bucket, the failures per bin by what
they did, and the useful work done. ``relplan simulate --out`` writes it as
``timeline-median-trial.png``; the README shows this one
(``python scripts/make_readme_figure.py`` saves it to ``docs/gallery/``).
"""

from pathlib import Path

import relplan
from relplan.output.plots import trial_timeline
from relplan.output.report import median_trial
from relplan.sim.trace import trace_trial

# the shipped configs and studies, from the repository root or from examples/
REPO = next(p for p in (Path.cwd(), *Path.cwd().parents) if (p / "configs").is_dir())

result = relplan.simulate(REPO / "configs" / "seed-moe-10k.toml", trials=300, seed=0)
print(result)

simulation = result.simulation  # the engine's per-trial outcomes
trial = median_trial(simulation)
intervals, failure_times = trace_trial(simulation.model, simulation.seed, trial, simulation.trials)
figure = trial_timeline(intervals, failure_times, f"seed-moe-10k, trial {trial} (median goodput)",
                        simulation.model.job.work_hours)
