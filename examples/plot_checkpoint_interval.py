"""
Choosing a checkpoint interval
==============================

Search the checkpoint interval of the shipped 512-GPU config on common random numbers and
compare the Monte Carlo optimum with Young's and Daly's formulas.
"""

from pathlib import Path

import matplotlib.pyplot as plt

import relplan

# the shipped configs, from the repository root or from examples/
CONFIGS = next(p for p in (Path.cwd(), *Path.cwd().parents) if (p / "configs").is_dir()) / "configs"

optimum = relplan.optimize_interval(CONFIGS / "small.toml", trials=200, seed=0)
print(f"Young {optimum.young_hours:.2f} h, Daly {optimum.daly_hours:.2f} h, "
      f"Monte Carlo {optimum.mc_optimal_hours:.2f} h")

curve = optimum.to_frame()
fig, ax = plt.subplots(figsize=(6, 3.5))
ax.fill_between(curve["interval_hours"], curve["goodput_ci95_low"], curve["goodput_ci95_high"],
                alpha=0.3, color="#4477aa", label="95% CI")
ax.plot(curve["interval_hours"], curve["goodput_mean"], color="#4477aa", label="mean goodput")
for hours, name, style in [(optimum.young_hours, "Young", ":"), (optimum.daly_hours, "Daly", "--"),
                           (optimum.mc_optimal_hours, "Monte Carlo", "-")]:
    ax.axvline(hours, color="0.3", linestyle=style, label=f"{name} {hours:.2f} h")
ax.set_xscale("log")
ax.set_xlabel("checkpoint interval (hours)")
ax.set_ylabel("goodput")
ax.legend(fontsize=8)
fig.tight_layout()
