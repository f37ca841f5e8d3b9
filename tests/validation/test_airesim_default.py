"""relplan on AIReSim's default scenario (configs/airesim-default.toml) against AIReSim's
own published run of it (github.com/karthikp-ubc/airesim, docs/SIMULATION_REPORT.md:
30 replications, mean training time 9,865.97 h, 95% CI 9,853.42 to 9,878.52 h; 11,145.6
failures)."""

from __future__ import annotations

import math

from relplan.config.loading import load_config
from relplan.sim.engine import simulate
from relplan.sim.model import build_model
from relplan.vocab import BUCKETS

AIRESIM_MEAN_HOURS = 9865.97
AIRESIM_CI_HALF_WIDTH_HOURS = 12.55
AIRESIM_FAILURES = 11145.6

MODEL_GAP = 0.005
"""What the two models may differ by, as a share of the mean: relplan's 10-s checkpoint
interval loses 5 s per failure (about 15 h), AIReSim's 3-minute host selections (2.15 h)
are left out, and a lemon stays in its job slot in relplan while AIReSim's bad servers
circulate through its pools (0.4% more failures, 14 h more restarts)."""


def test_relplan_comes_within_half_a_percent_of_airesim() -> None:
    model = build_model(load_config("configs/airesim-default.toml"))
    outcomes = simulate(model, 40, seed=1)
    wall = outcomes.wall_hours
    error = wall.std(ddof=1) / math.sqrt(wall.size)
    tolerance = MODEL_GAP * AIRESIM_MEAN_HOURS + 4 * math.hypot(
        error, AIRESIM_CI_HALF_WIDTH_HOURS / 1.96)
    assert abs(wall.mean() - AIRESIM_MEAN_HOURS) < tolerance
    failures = outcomes.failures_by_mode.sum(axis=1).mean()
    assert abs(failures - AIRESIM_FAILURES) < MODEL_GAP * AIRESIM_FAILURES + 4 * math.sqrt(
        AIRESIM_FAILURES / wall.size)
    # no failure strikes a restart: each failure costs exactly one 20-minute restart
    restart = outcomes.bucket_hours[:, BUCKETS.index("restart")]
    assert abs(restart.mean() - outcomes.interruptions_by_mode.sum(axis=1).mean() / 3) < 1e-6
