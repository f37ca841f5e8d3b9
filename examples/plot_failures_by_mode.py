"""
Failures by mode
================

Per failure mode, the failures of the shipped seed MoE job (10,240 GPUs, 30 days of
work, ``configs/seed-moe-10k.toml``) that stopped it, in red, and those it survived
(ran degraded, stalled), in the colour of their bucket: the mean per run over 300 trials.
``relplan simulate configs/seed-moe-10k.toml --out DIR`` writes the same figure
(``failures-by-mode.png``).
"""

from pathlib import Path

import relplan

# the shipped configs and studies, from the repository root or from examples/
REPO = next(p for p in (Path.cwd(), *Path.cwd().parents) if (p / "configs").is_dir())

result = relplan.simulate(REPO / "configs" / "seed-moe-10k.toml", trials=300, seed=0)
print(result)

figure = result.plot("failures-by-mode")
