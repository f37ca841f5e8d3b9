"""The simulation model packed into arrays for the compiled walk, built once per model."""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from relplan.sim import timeline
from relplan.sim.closed_forms import checkpoint_count
from relplan.sim.model import SimulationModel
from relplan.sim.rng import duration_code


@dataclass(frozen=True)
class _CompiledModel:
    """The model packed into arrays for :func:`relplan.sim.timeline.walk_trials`."""

    job: np.ndarray
    impact: np.ndarray
    detect: np.ndarray
    uses_spares: np.ndarray
    loses_fast: np.ndarray
    self_healing: np.ndarray
    stall: np.ndarray
    soft_hours: np.ndarray
    slowdown_table: np.ndarray
    repair: np.ndarray
    exp_total_rate: float
    exp_probability: np.ndarray
    exp_modes: np.ndarray
    exp_alias: np.ndarray
    window_modes: tuple[int, ...]


_IMPACT_CODES = {"fatal": timeline.FATAL, "degraded": timeline.DEGRADED,
                 "transient": timeline.TRANSIENT, "elastic": timeline.ELASTIC}


@functools.lru_cache(maxsize=32)
def _compile(model: SimulationModel, on_the_fly: bool = True) -> _CompiledModel:
    job, modes = model.job, model.modes
    segment = job.segment_hours
    checkpoints = checkpoint_count(job.work_hours, segment)
    two_tier = job.fast_interval_hours is not None
    packed_job = np.array(
        [
            job.work_hours,
            segment,
            job.fast_write_hours if two_tier else job.write_hours,
            job.write_hours,
            job.restart_hours,
            job.work_hours - checkpoints * segment,
            float(job.durable_every),
            checkpoints + 1.0,
        ]
    )
    depth = 1 + max([len(m.slowdown_by_count) for m in modes] + [1])
    table = np.ones((2 * len(modes), depth))
    for index, mode in enumerate(modes):
        steps = list(mode.slowdown_by_count)
        table[index, 1:] = [steps[min(k, len(steps) - 1)] for k in range(depth - 1)]
        table[len(modes) + index, 1:] = mode.soft_slowdown
    exponential = [
        i for i, m in enumerate(modes) if on_the_fly and m.lifetime.kind == "exponential"
    ]
    rates = np.array([modes[i].job_rate_per_hour for i in exponential])
    probability, alias = alias_table(rates, exponential)
    return _CompiledModel(
        job=packed_job,
        impact=np.array([_IMPACT_CODES[m.impact] for m in modes], dtype=np.int64),
        detect=np.array([m.detect_hours for m in modes], dtype=float),
        uses_spares=np.array([m.uses_spares for m in modes], dtype=np.bool_),
        loses_fast=np.array([m.loses_fast_checkpoint for m in modes], dtype=np.bool_),
        self_healing=np.array([m.self_healing for m in modes], dtype=np.bool_),
        stall=np.array([m.stall_hours for m in modes], dtype=float),
        soft_hours=np.array([m.soft_hours for m in modes], dtype=float),
        slowdown_table=table,
        repair=np.array(
            [[duration_code(m.repair.kind), m.repair.scale_hours, m.repair.shape] for m in modes],
            dtype=float,
        ).reshape(len(modes), 3),
        exp_total_rate=float(rates.sum()),
        exp_probability=probability,
        exp_modes=np.array(exponential, dtype=np.int64),
        exp_alias=alias,
        window_modes=tuple(i for i in range(len(modes)) if i not in exponential),
    )


def alias_table(weights: np.ndarray, labels: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """Walker's alias table (Vose's construction) for drawing ``labels`` by ``weights``.

    Column ``k`` holds ``labels[k]`` with probability ``probability[k]`` and
    ``alias[k]`` otherwise; a uniform ``u`` picks column ``floor(u K)`` and compares its
    fraction with ``probability``.

    Returns
    -------
    probability : numpy.ndarray of float
    alias : numpy.ndarray of int64
        Labels (not column indices).
    """
    count = len(labels)
    probability = np.ones(count)
    alias = np.array(labels, dtype=np.int64)
    if count == 0 or weights.sum() <= 0:
        return probability, alias
    scaled = weights * count / weights.sum()
    small = [k for k in range(count) if scaled[k] < 1.0]
    large = [k for k in range(count) if scaled[k] >= 1.0]
    while small and large:
        low, high = small.pop(), large.pop()
        probability[low] = scaled[low]
        alias[low] = labels[high]
        scaled[high] -= 1.0 - scaled[low]
        (small if scaled[high] < 1.0 else large).append(high)
    for k in small + large:
        probability[k] = 1.0
    return probability, alias
