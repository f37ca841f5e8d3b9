"""How much memory a run needs, estimated before it starts, and a check that it fits.

A run keeps a few numbers per trial (the wall time, the hours in each bucket, the failures
and interruptions of each mode, the spares used) and, while it runs, works through blocks
of :data:`~relplan.sim.engine.BLOCK_TRIALS` trials with their events pre-drawn in windows.
What it needs at its peak is therefore a cost per trial times the trials, plus the
blocks in flight (each of at most ``BLOCK_TRIALS`` trials: a short run's are small).
The per-trial cost counts 8-byte numbers:

* ``K = 2 + buckets + 2 x modes + 4 x tracked`` numbers kept per trial (``tracked``: the
  modes whose units have a history, with their four per-unit counts); joining the blocks
  into one array holds them twice (``2 K``);
* the per-trial table (``F = 7 + buckets + modes`` columns, and ``2 + 4 x tracked`` more
  with tracked modes) for summaries (``K + F``;
  a sweep's points also copy it for their statistics: ``K + 2 F``); writing
  ``trials.parquet`` holds the table about four times over (its columns, the DataFrame,
  the Arrow table and its encoding): ``K + 4 F``;
* ``optimize`` keeps the wall time of every interval it tries (up to
  :data:`OPTIMIZE_RUNS`; :data:`TIER_RUNS` with a fast tier) and its bootstrap copies
  them a few times (:data:`OPTIMIZE_COPIES`);
* ``compare`` holds two scenarios' results at once and a summary table: ``3 K + F``,
  and ``2 K + F`` more per scenario in flight beyond the first (``--workers``).

A block in flight holds its trials' full state (the spare-server heap, the slots of
concurrent degradations, the random streams) and its window of pre-drawn failures
(about :data:`BYTES_PER_EVENT` bytes an event). The estimate is an upper bound of what
was measured on the shipped configs (within a factor of 2), not a promise: the
Python interpreter and the libraries take a few hundred MB more, counted as
:data:`BASE_BYTES`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from relplan.errors import ConfigError
from relplan.sim.engine import BLOCK_TRIALS, degradation_slots, first_window_hours
from relplan.sim.model import SimulationModel
from relplan.units import format_bytes
from relplan.vocab import BUCKETS, UNIT_STATS

NUMBER_BYTES = 8
"""Bytes of one per-trial number (float64 or int64)."""

BYTES_PER_EVENT = 12 * NUMBER_BYTES
"""Bytes of one pre-drawn failure in a window: its trial, time, mode and repair, their
concatenation, the sort order and the sorted copies."""

BASE_BYTES = 400 * 2**20
"""Memory of the interpreter and the libraries a run imports (numpy, numba, pandas,
pyarrow, matplotlib), bytes."""

OPTIMIZE_RUNS = 52
"""Intervals ``optimize`` simulates at most: a coarse grid of 15, 12 around its best
point, the closed forms and optima (5), and up to 4 extensions of 5 past an edge of the
grid (``tests/analysis/test_optimize.py`` checks this against
:mod:`relplan.analysis.optimize`)."""

TIER_RUNS = 81
"""Pairs of (fast interval, durable cadence) ``optimize`` simulates with a fast tier."""

OPTIMIZE_COPIES = 5
"""Copies ``optimize`` holds of its (trials x intervals) wall times: the times, the
goodput, a bootstrap resample, and the percentiles' sorted copies."""

WINDOW_FACTOR = 1.2
"""The first window of pre-drawn failures as a multiple of the expected exposure (the
engine's default ``window_factor``)."""


@dataclass(frozen=True)
class MemoryEstimate:
    """What a run needs at its peak: ``per_trial`` bytes a trial, ``fixed`` bytes, and
    ``block_per_trial`` bytes for each trial of the blocks in flight (a block holds at
    most :data:`~relplan.sim.engine.BLOCK_TRIALS` trials: a short run's blocks are small).

    Attributes
    ----------
    per_trial : float
        Bytes per trial, at the peak of the run.
    fixed : float
        Bytes that do not grow with the trials: the interpreter with its libraries.
    block_per_trial : float
        Bytes per trial of the blocks in flight (their state and failure windows), for
        up to ``BLOCK_TRIALS`` trials.
    """

    per_trial: float
    fixed: float
    block_per_trial: float = 0.0

    def bytes(self, trials: int) -> float:
        """Bytes needed for ``trials`` trials."""
        return (self.fixed + self.per_trial * trials
                + self.block_per_trial * min(trials, BLOCK_TRIALS))  # fmt: skip

    def trials_that_fit(self, available: float) -> int:
        """The most trials that fit in ``available`` bytes (0 when none do)."""
        if self.bytes(BLOCK_TRIALS) > available:  # within the first block
            fit = (available - self.fixed) / (self.per_trial + self.block_per_trial)
            fit = min(fit, BLOCK_TRIALS)
        else:
            fit = (available - self.fixed - self.block_per_trial * BLOCK_TRIALS) / self.per_trial
        return max(0, math.floor(fit)) if math.isfinite(fit) else 0


def _tracked_modes(model: SimulationModel) -> int:
    """Modes whose units have a history (per-unit counts kept per trial)."""
    return sum(mode.history is not None for mode in model.modes)


def kept_numbers(model: SimulationModel) -> int:
    """Numbers kept per trial by the engine: wall time, spares used, the restart's start-up,
    maintenance windows, a corruption flag, buckets, two per mode, and the per-unit counts
    of each mode whose units have a history."""
    return 5 + len(BUCKETS) + 2 * len(model.modes) + len(UNIT_STATS) * _tracked_modes(model)


def table_columns(model: SimulationModel) -> int:
    """Columns of the per-trial table (:meth:`SimulationResult.trials_frame`)."""
    tracked = _tracked_modes(model)
    per_unit = 2 + len(UNIT_STATS) * tracked if tracked else 0
    return 13 + len(BUCKETS) + len(model.modes) + per_unit


def block_bytes(model: SimulationModel) -> float:
    """Bytes of one block of trials in flight: the trials' state and its failure window.

    Examples
    --------
    >>> from relplan.config.loading import load_config
    >>> from relplan.sim.model import build_model
    >>> 1e6 < block_bytes(build_model(load_config("configs/small.toml"))) < 1e9
    True
    """
    modes = len(model.modes)
    state = (25 + len(BUCKETS) + 5 * modes + model.job.spares + model.job.spare_domains
             + model.job.spare_pool
             + 2 * degradation_slots(model) + 5)  # fmt: skip
    window_rate = sum(m.job_rate_per_hour for m in model.modes
                      if m.lifetime.kind != "exponential" or m.history is not None)  # fmt: skip
    try:
        events = WINDOW_FACTOR * first_window_hours(model) * window_rate
    except OverflowError:
        events = math.inf
    return BLOCK_TRIALS * (NUMBER_BYTES * state + BYTES_PER_EVENT * events)


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
        Whether ``trials.parquet`` is written (``simulate --out``).

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
    >>> estimate.per_trial  # 2 x (5 + 9 buckets + 2 x 8 modes) numbers of 8 bytes
    480.0
    """
    kept = max(kept_numbers(m) for m in models)
    columns = max(table_columns(m) for m in models)
    if command == "simulate":
        numbers = kept + max(kept, (4 if write_trials else 1) * columns)
    elif command in ("optimize", "tiers"):
        runs = OPTIMIZE_RUNS + (TIER_RUNS if command == "tiers" else 0)
        numbers = 2 * kept + OPTIMIZE_COPIES * runs
    elif command == "compare":
        numbers = (2 * workers + 1) * kept + workers * columns
    elif command == "sweep":
        numbers = workers * (kept + max(kept, 2 * columns + 2))
    else:
        raise ValueError(f"unknown command {command!r}")
    blocks = workers * max(block_bytes(m) for m in models)
    return MemoryEstimate(per_trial=float(NUMBER_BYTES * numbers), fixed=BASE_BYTES,
                          block_per_trial=blocks / BLOCK_TRIALS)  # fmt: skip


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
    advice = (f"at most {fit:,} trials fit" if fit >= 1
              else "not even one block of trials fits")  # fmt: skip
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
    trials : int
        Trials of the run (per interval, scenario or point).
    workers : int
        Workers asked for.
    key : str
        The argument or key the error names (``--workers``, ``simulation.workers``).
    available : float, optional
        Bytes available (default: :func:`available_memory`).

    Raises
    ------
    ConfigError
        If ``workers`` workers need more than is available.

    Examples
    --------
    >>> from relplan.config.loading import load_config
    >>> from relplan.sim.model import build_model
    >>> model = build_model(load_config("configs/small.toml"))
    >>> check_workers_memory([model], "simulate", 10, 10_000, "--workers", available=2e9)
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
