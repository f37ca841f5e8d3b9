"""Failures while the job is down (``job.idle_failures``)."""

from __future__ import annotations

import numpy as np

from relplan.sim.compiled import DEGRADED, TRANSIENT, CompiledModes
from relplan.sim.rng import duration_from_uniform, exponential, uniform
from relplan.sim.walk.jit import array_helper
from relplan.sim.walk.spares import _spare_wait


@array_helper
def _idle_failures(
    trial: int, down_wall: float, down_hours: float, modes: CompiledModes,
    rng_state: np.ndarray, failures_by_mode: np.ndarray, degradation_end: np.ndarray,
    degradation_row: np.ndarray, degradation_noticed: np.ndarray,
    degradation_count: np.ndarray,
    degradations_by_row: np.ndarray, overflow: np.ndarray, spare_return_hours: np.ndarray,
    spares_away: np.ndarray, spare_domain_return_hours: np.ndarray,
    spare_domains_away: np.ndarray, spares_used: np.ndarray, events_walked: np.ndarray,
    max_events: int, cancel: np.ndarray,
) -> float:  # fmt: skip
    """Failures of the on-the-fly modes while the job is down (``job.idle_failures``), from
    ``down_wall`` for ``down_hours``; returns the extra hours the job then waits.

    Each failure counts as a step of the trial (``events_walked``): once the trial has
    walked more than ``max_events`` steps, or ``cancel`` is set, it returns at once (the
    walk then stops the trial), so a wait that never ends (each wait longer than the
    hardware's time between failures) cannot hang the walk.

    The job's hardware fails at its usual rate while idle. A unit that fails is found at
    the restart and needs its own replacement (a spare, or its repair, which starts then);
    the restart waits for the last of them, and failures during that wait are found at
    the next attempt. A degraded mode's unit starts its wall-clock repair at once (found
    at the restart: one that drains may be drained then). Modes
    that strike only a running job (fail-slow units, corruptions, modes counted per job:
    not :attr:`CompiledModes.fails_idle`) are thinned out of the on-the-fly stream: a
    draw of one is passed over, so the others fail at their own rates.
    """
    rate = modes.exponential_rate_per_hour
    columns = modes.exponential_modes.size
    extra = 0.0
    t = exponential(rng_state, trial) / rate
    while True:
        restart_wall = down_wall + down_hours + extra
        need = 0.0
        while t < down_hours + extra:
            events_walked[trial] += 1
            if events_walked[trial] > max_events or cancel[0]:
                return extra
            pick = uniform(rng_state, trial) * columns
            column = min(int(pick), columns - 1)
            mode = modes.exponential_modes[column]
            if pick - column >= modes.exponential_probability[column]:
                mode = modes.exponential_alias[column]
            if not modes.fails_idle[mode]:  # thinned out: it strikes only a running job
                t += exponential(rng_state, trial) / rate
                continue
            repair = duration_from_uniform(
                modes.repair_kind[mode], modes.repair_scale_hours[mode],
                modes.repair_shape[mode], uniform(rng_state, trial),
            ) + modes.repair_burn_in_hours[mode]  # fmt: skip
            failures_by_mode[trial, mode] += 1
            impact = modes.impact[mode]
            if impact == DEGRADED:
                k = degradation_count[trial]
                if k >= degradation_end.shape[1]:
                    overflow[0] = True
                else:
                    degradation_end[trial, k] = down_wall + t + repair
                    degradation_row[trial, k] = mode
                    if degradation_noticed.shape[1] > 0:  # found at the restart
                        degradation_noticed[trial, k] = -np.inf
                    degradation_count[trial] = k + 1
                    degradations_by_row[trial, mode] += 1
            elif impact != TRANSIENT:
                wait = repair
                if modes.self_healing[mode]:
                    wait = max(0.0, down_wall + t + repair - restart_wall)
                elif modes.uses_spares[mode]:
                    wait = _spare_wait(trial, modes.spares_needed[mode], modes.spare_domain[mode],
                                       spare_return_hours, spares_away,
                                       spare_domain_return_hours, spare_domains_away,
                                       spares_used, restart_wall, repair)  # fmt: skip
                need = max(need, wait)
            t += exponential(rng_state, trial) / rate
        if need <= 0.0:
            return extra
        extra += need
