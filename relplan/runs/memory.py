"""How much memory a run needs, estimated before it starts, and a check that it fits.

A run keeps a few numbers per trial, compactly (:func:`relplan.sim.engine.collect_outcomes`):
the wall time, the hours in each bucket and the restart's start-up as float64, a corruption
flag and a depletion flag, and counts (failures and interruptions of each mode, spares,
maintenance windows, drains, the per-unit counts of modes whose units have a history) in
the smallest integer type that holds them. Summaries make their per-trial columns one at a
time (a column, the one it is made from and the sorted copy of a percentile) and
``trials.parquet`` is written :data:`PARQUET_ROWS` trials at a time, so the peak is

* the kept bytes per trial times the trials, plus a few float64 columns made while
  summarising (:data:`SUMMARY_COLUMNS`);
* ``optimize`` also keeps the goodput of every interval it tries (up to
  :data:`OPTIMIZE_RUNS`; :data:`TIER_RUNS` with a fast tier) and its bootstrap copies them
  a few times (:data:`OPTIMIZE_COPIES`);
* ``compare`` holds a result per scenario in flight and the one it compares them with;
  ``sweep`` a result per point in flight;

plus what does not grow with the trials: the blocks in flight (their trials' state and
their window of pre-drawn failures, :data:`BYTES_PER_EVENT` bytes an event; a block holds
at most about :data:`~relplan.sim.engine.BLOCK_EVENTS` events, whatever the model), the
pieces of ``trials.parquet`` being written, and the interpreter with its libraries
(:data:`BASE_BYTES`). The constants were measured on the shipped configs and a 4,096-server
fleet with lemons (peak RSS, ``benchmarks/memory.py``): the estimate is meant to be within
a factor of 2 of the peak, not a promise.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from relplan.errors import ConfigError
from relplan.sim.compiled import MAX_EVENTS_PER_TRIAL
from relplan.sim.engine import (
    BLOCKS_IN_FLIGHT_PER_WORKER,
    block_trials,
    degradation_slots,
    expected_exposure_hours,
    window_events_per_trial,
)
from relplan.sim.model import SimulationModel
from relplan.units import format_bytes
from relplan.vocab import BUCKETS, UNIT_STATS

NUMBER_BYTES = 8
"""Bytes of one float64 or int64 number."""

BYTES_PER_EVENT = 168
"""Bytes of one pre-drawn failure of a block in flight: its trial, time, mode, repair and
ordinal as drawn, joined and sorted, the sort order, and the followed unit it comes from
(measured: about 165 bytes an event on a 4,096-server fleet with lemons)."""

BASE_BYTES = 200 * 2**20
"""Memory of the interpreter and the libraries a run imports (numpy, numba and the compiled
engine, pandas, pyarrow), bytes; measured at about 190 MB for a few trials."""

FIGURE_BYTES = 150 * 2**20
"""What ``simulate --out`` adds for its figures and report (matplotlib), bytes."""

SUMMARY_COLUMNS = 3
"""Float64 columns a summary holds at once beside the kept ones: a metric, the column it
is made from and the sorted copy of a percentile."""

PARQUET_COPIES = 4
"""Copies of a piece of ``trials.parquet`` held while it is written: its columns, the
DataFrame, the Arrow table and its encoding."""

PARQUET_ROWS = 100_000
"""Trials per piece (row group) of ``trials.parquet``, which is written a piece at a time."""

OPTIMIZE_RUNS = 52
"""Intervals ``optimize`` simulates at most: a coarse grid of 15, 12 around its best
point, the closed forms and optima (5), and up to 4 extensions of 5 past an edge of the
grid (``tests/analysis/test_optimize.py`` checks this against
:mod:`relplan.analysis.optimize`)."""

TIER_RUNS = 81
"""Pairs of (fast interval, durable cadence) ``optimize`` simulates with a fast tier."""

OPTIMIZE_COPIES = 5
"""Copies ``optimize`` holds of its (trials x intervals) goodput: the values, a bootstrap
resample, and the percentiles' sorted copies."""


@dataclass(frozen=True)
class MemoryEstimate:
    """What a run needs at its peak: ``fixed`` bytes, ``per_trial`` bytes a trial, and
    ``in_flight_per_trial`` bytes for each trial in flight (at most ``in_flight_trials``:
    the blocks under way; a run of fewer trials has only those in flight).

    Attributes
    ----------
    per_trial : float
        Bytes kept per trial, at the peak of the run.
    fixed : float
        Bytes that do not grow with the trials: the interpreter with its libraries, and
        the pieces of the files being written.
    in_flight_per_trial : float
        Bytes of one trial of a block under way: its state and its pre-drawn failures.
    in_flight_trials : int
        Trials under way at once: the blocks each worker holds
        (:data:`relplan.sim.engine.BLOCKS_IN_FLIGHT_PER_WORKER`) times the workers times
        the trials of a block.

    Examples
    --------
    >>> estimate = MemoryEstimate(per_trial=100.0, fixed=1e6, in_flight_per_trial=1e4,
    ...                           in_flight_trials=50)
    >>> estimate.bytes(10), estimate.bytes(1000)  # 10 trials in flight, then 50
    (1101000.0, 1600000.0)
    >>> estimate.trials_that_fit(1101000.0), estimate.trials_that_fit(1600000.0)
    (10, 1000)
    """

    per_trial: float
    fixed: float
    in_flight_per_trial: float = 0.0
    in_flight_trials: int = 0

    def bytes(self, trials: int) -> float:
        """Bytes needed for ``trials`` trials."""
        in_flight = self.in_flight_per_trial * min(trials, self.in_flight_trials)
        return self.fixed + in_flight + self.per_trial * trials

    def trials_that_fit(self, available: float) -> int:
        """The most trials that fit in ``available`` bytes (0 when none do)."""
        room = available - self.fixed
        full = self.in_flight_per_trial * self.in_flight_trials
        if room >= full + self.per_trial * self.in_flight_trials:  # beyond the blocks
            fit = (room - full) / self.per_trial if self.per_trial > 0 else math.inf
        else:  # fewer trials than the blocks in flight hold
            fit = room / (self.per_trial + self.in_flight_per_trial)
        if math.isnan(fit) or fit == math.inf:
            return 0 if math.isnan(fit) else 2**63 - 1
        return max(0, math.floor(fit))


def _tracked_modes(model: SimulationModel) -> int:
    """Modes whose units have a history (per-unit counts kept per trial)."""
    return sum(mode.history is not None for mode in model.modes)


def count_bytes(model: SimulationModel) -> int:
    """Bytes of one kept count: the smallest integer type that holds three times the
    failures a trial expects, and some (what :func:`relplan.sim.engine.narrow_counts`
    will most likely pick).

    Examples
    --------
    >>> from relplan.config.loading import load_config
    >>> from relplan.sim.model import build_model
    >>> count_bytes(build_model(load_config("configs/small.toml")))
    1
    """
    try:
        failures = expected_exposure_hours(model) * sum(m.job_rate_per_hour for m in model.modes)
    except OverflowError:
        failures = math.inf
    likely = 3 * min(failures, MAX_EVENTS_PER_TRIAL) + 10
    return next(size for size, top in ((1, 127), (2, 32_767), (4, 2**31 - 1), (8, math.inf))
                if likely <= top)  # fmt: skip


def kept_counts(model: SimulationModel) -> int:
    """Counts kept per trial: spares used, maintenance windows, drains, two per mode, the
    per-unit counts of each mode whose units have a history, and where a run uses them,
    restart attempts and requeues (restarts that draw) and saves that hung."""
    job = model.job
    return (3 + 2 * len(model.modes) + len(UNIT_STATS) * _tracked_modes(model)
            + 2 * job.restarts_draw + (job.save_hang > 0.0))  # fmt: skip


def kept_bytes(model: SimulationModel) -> int:
    """Bytes kept per trial by the engine: the wall time, the buckets and the restart's
    start-up (float64), two flags (corrupted, depleted; a third, job failed, where
    restarts draw), and the counts (:func:`count_bytes` each)."""
    flags = 2 + model.job.restarts_draw
    return NUMBER_BYTES * (2 + len(BUCKETS)) + flags + count_bytes(model) * kept_counts(model)


def table_columns(model: SimulationModel) -> int:
    """Columns of the per-trial table (:meth:`SimulationResult.trials_frame`)."""
    tracked = _tracked_modes(model)
    per_unit = 2 + len(UNIT_STATS) * tracked if tracked else 0
    return 13 + len(BUCKETS) + len(model.modes) + per_unit


def in_flight_bytes_per_trial(model: SimulationModel) -> float:
    """Bytes of one trial of a block under way: its state, its window of pre-drawn failures
    and its outcomes before they are kept compactly.

    Examples
    --------
    >>> from relplan.config.loading import load_config
    >>> from relplan.sim.model import build_model
    >>> 100 < in_flight_bytes_per_trial(build_model(load_config("configs/small.toml"))) < 1e4
    True
    """
    modes = len(model.modes)
    job = model.job
    # a degradation's end and row, and when it is found where a mode drains
    per_degradation = 3 if any(mode.drain != "never" for mode in model.modes) else 2
    trial_state = (25 + len(BUCKETS) + 5 * modes + job.spares + job.spare_domains
                   + job.spare_pool + per_degradation * degradation_slots(model) + 5
                   + 4 + 3 * job.restarts_draw + 4 * job.saves_random
                   + 6 * job.saves_walked)  # fmt: skip
    outcomes = 2 * modes + len(UNIT_STATS) * _tracked_modes(model)  # before they are kept
    state = trial_state + outcomes
    return NUMBER_BYTES * state + BYTES_PER_EVENT * window_events_per_trial(model)


def block_bytes(model: SimulationModel) -> float:
    """Bytes of one full block of trials in flight (:func:`in_flight_bytes_per_trial` times
    :func:`relplan.sim.engine.block_trials`)."""
    return block_trials(model) * in_flight_bytes_per_trial(model)


def estimate_memory(
    models: list[SimulationModel],
    command: str,
    workers: int = 1,
    write_trials: bool = False,
) -> MemoryEstimate:
    """Estimate the memory of a run before it starts.

    Parameters
    ----------
    models : list of SimulationModel
        The models the run simulates: one for ``simulate`` and ``optimize``, each
        scenario for ``compare``, each point for ``sweep``.
    command : {"simulate", "optimize", "tiers", "compare", "sweep"}
        What the run does with them (``tiers``: ``optimize`` of a job with a fast tier).
    workers : int
        Blocks (``sweep`` and ``compare``: points) in flight at once.
    write_trials : bool
        Whether ``trials.parquet``, the figures and the report are written
        (``simulate --out``).

    Returns
    -------
    MemoryEstimate
        Bytes per trial and fixed bytes.

    Examples
    --------
    >>> from relplan.config.loading import load_config
    >>> from relplan.sim.model import build_model
    >>> model = build_model(load_config("configs/small.toml"))
    >>> estimate = estimate_memory([model], "simulate")
    >>> estimate.per_trial  # 12 float64, 2 flags, 19 one-byte counts; 3 float64 columns
    141.0
    """
    kept = max(kept_bytes(m) for m in models)
    summary = NUMBER_BYTES * SUMMARY_COLUMNS
    fixed = BASE_BYTES
    if command == "simulate":
        per_trial = kept + summary
        if write_trials:
            columns = max(table_columns(m) for m in models)
            fixed += FIGURE_BYTES + PARQUET_COPIES * PARQUET_ROWS * NUMBER_BYTES * columns
    elif command in ("optimize", "tiers"):
        runs = OPTIMIZE_RUNS + (TIER_RUNS if command == "tiers" else 0)
        per_trial = kept + summary + NUMBER_BYTES * OPTIMIZE_COPIES * runs
    elif command == "compare":
        per_trial = (workers + 1) * kept + workers * summary
    elif command == "sweep":
        per_trial = workers * (kept + summary)
    else:
        raise ValueError(f"unknown command {command!r}")
    heaviest = max(models, key=block_bytes)
    return MemoryEstimate(
        per_trial=float(per_trial),
        fixed=float(fixed),
        in_flight_per_trial=in_flight_bytes_per_trial(heaviest),
        in_flight_trials=BLOCKS_IN_FLIGHT_PER_WORKER * workers * block_trials(heaviest),
    )


def available_memory() -> float:
    """Bytes of memory this machine can give a new run now (psutil's ``available``)."""
    import psutil

    return float(psutil.virtual_memory().available)


def check_memory(estimate: MemoryEstimate, trials: int, key: str,
                 available: float | None = None) -> None:  # fmt: skip
    """Refuse a run that cannot fit in the available memory, saying how many trials fit.

    Parameters
    ----------
    estimate : MemoryEstimate
        From :func:`estimate_memory`.
    trials : int
        Trials of the run (per interval, scenario or point).
    key : str
        The argument or key the error names (``--trials``, ``simulation.trials``).
    available : float, optional
        Bytes available (default: :func:`available_memory`).

    Raises
    ------
    ConfigError
        If the run needs more than is available.

    Examples
    --------
    >>> check_memory(MemoryEstimate(per_trial=1000.0, fixed=0.0), 10**12, "--trials", 1e9)
    Traceback (most recent call last):
    ...
    relplan.errors.ConfigError: --trials: 1,000,000,000,000 trials need about 1 PB of memory
    but 1 GB is available; at most 1,000,000 trials fit
    """
    available = available_memory() if available is None else available
    needed = estimate.bytes(trials)
    if needed <= available:
        return
    fit = estimate.trials_that_fit(available)
    advice = f"at most {fit:,} trials fit" if fit >= 1 else "not even one trial fits"
    raise ConfigError(
        key,
        f"{trials:,} trials need about {format_bytes(needed)} of memory but "
        f"{format_bytes(available)} is available; {advice}",
    )


def check_workers_memory(models: list[SimulationModel], command: str, trials: int,
                         workers: int, key: str, write_trials: bool = False,
                         available: float | None = None) -> None:  # fmt: skip
    """Refuse workers whose blocks (points) in flight cannot fit in the available memory,
    saying how many fit; the error names the workers, not the trials.

    Call it after :func:`check_memory` of one worker has passed (the trials fit).

    Parameters
    ----------
    models, command, write_trials
        As for :func:`estimate_memory`.
    trials, available
        As for :func:`check_memory` (bytes).
    workers : int
        Workers asked for.
    key : str
        The argument or key the error names (``--workers``, ``simulation.workers``).

    Raises
    ------
    ConfigError
        If ``workers`` workers need more than is available.

    Examples
    --------
    >>> from relplan.config.loading import load_config
    >>> from relplan.sim.model import build_model
    >>> model = build_model(load_config("configs/small.toml"))
    >>> check_workers_memory([model], "sweep", 100_000, 10_000, "--workers", available=2e9)
    Traceback (most recent call last):
    ...
    relplan.errors.ConfigError: --workers: 10,000 workers need about ... workers fit
    """
    available = available_memory() if available is None else available

    def needed(count: int) -> float:
        return estimate_memory(models, command, count, write_trials).bytes(trials)

    if needed(workers) <= available:
        return
    low, high = 0, workers  # needed(low) fits (or low is 0), needed(high) does not
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (middle, high) if needed(middle) <= available else (low, middle)
    raise ConfigError(
        key,
        f"{workers:,} workers need about {format_bytes(needed(workers))} of memory but "
        f"{format_bytes(available)} is available; at most {max(low, 1):,} workers fit",
    )
