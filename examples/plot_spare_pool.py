"""
The shared pool of spares over a run
====================================

The thirteen jobs of ``configs/fleets/fleet-pool.toml`` draw on one pool of spares, cut
here to 24 servers, and take servers from jobs of lower priority when it runs dry
(``fleet.preempt = "lower-priority"``): the spares away in repair each day, the mean over
50 trials with its P5-P95 band, against the pool's size. Where the band reaches the
line, the pool is empty and a failed job waits, or takes a server. ``relplan simulate
configs/fleets/fleet-pool.toml --out DIR`` writes the same figure (``spare-pool.png``).
"""

from pathlib import Path

import relplan

# the shipped configs and studies, from the repository root or from examples/
REPO = next(p for p in (Path.cwd(), *Path.cwd().parents) if (p / "configs").is_dir())

result = relplan.simulate_fleet(REPO / "configs" / "fleets" / "fleet-pool.toml", trials=50,
                                seed=0, overrides=["fleet.spares=24",
                                                   "fleet.preempt=lower-priority"])
print(result)
print(result.summary()["fleet"]["pool"]["empty_share"])

figure = result.plot("spare-pool")
