"""
Where a run's hours go
======================

Simulate the shipped 512-GPU config and plot the distribution of hours lost per run and
where they go. The same numbers as ``relplan simulate configs/small.toml``.
"""

from pathlib import Path

import matplotlib.pyplot as plt

import relplan

# the shipped configs, from the repository root or from examples/
CONFIGS = next(p for p in (Path.cwd(), *Path.cwd().parents) if (p / "configs").is_dir()) / "configs"

result = relplan.simulate(CONFIGS / "small.toml", trials=500, seed=1)
goodput = result.summary()["goodput"]
print(f"goodput {goodput['mean']:.4f} (95% CI {goodput['ci95'][0]:.4f} - {goodput['ci95'][1]:.4f})")

trials = result.to_frame()
fig, ax = plt.subplots(figsize=(6, 3.5))
ax.hist(trials["lost_hours"], bins=40, color="#4477aa")
ax.set_xlabel("hours lost per run")
ax.set_ylabel("runs")
ax.set_title("configs/small.toml, 500 runs")
fig.tight_layout()
