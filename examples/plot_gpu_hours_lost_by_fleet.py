"""
GPU-hours lost by fleet
=======================

Two fleets of the same thirteen jobs compared on common failure streams: each job with
spares of its own (``configs/fleets/fleet-mix.toml``), and the same 56 spares in one
pool with 8 repair crews for every repair (``configs/fleets/fleet-pool.toml``). The bars
are the mean GPU-hours lost a run over 100 trials, the diamonds their P95: the crews
bind, and the pooled fleet's bad tail is twice as long. ``relplan compare
configs/fleets/fleet-mix.toml configs/fleets/fleet-pool.toml`` compares them in a table.
"""

from pathlib import Path

import relplan

# the shipped configs and studies, from the repository root or from examples/
REPO = next(p for p in (Path.cwd(), *Path.cwd().parents) if (p / "configs").is_dir())

fleets = REPO / "configs" / "fleets"
result = relplan.compare_fleets([fleets / "fleet-mix.toml", fleets / "fleet-pool.toml"],
                                trials=100, seed=0)
print(result)

figure = result.plot("gpu-hours-lost-by-fleet")
