"""The records the compiled walk reads and writes, and the model packed into them.

Numba takes a :class:`typing.NamedTuple` as an argument of a compiled function and
reads its fields as cheaply as loose arguments, so the walk gets a handful of named
records instead of dozens of positional arrays:

- :class:`CompiledJob` and :class:`CompiledModes`: the model, built once per model by
  :func:`compile_model` and shared by the engine, the timeline and the trace;
- :class:`EventWindow`: one window of pre-drawn failures of the non-exponential modes;
- :class:`TrialStreams`: each trial's random stream and its next on-the-fly failure;
- :class:`TrialState`: where each trial stands, updated in place by the walk;
- :class:`HeldHours`: the slowed extra time and stalls a failure may still roll back,
  kept by the walk as a local value while it walks a trial;
- :class:`TraceBuffer`: the timeline of one trial, written row by row;
- :class:`WalkFeatures`: the features a walk uses, each compiled into it only if used.

Every array indexed by trial is indexed by the trial's place in its block. Durations
are in hours; the *exposure clock* counts hours of hardware in use, the *wall clock*
all hours, and *job-time* hours of work at full speed (see :mod:`relplan.sim.engine`).
"""

from __future__ import annotations

import functools
import math
import sys
import threading
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from relplan.sim.closed_forms import checkpoint_count
from relplan.sim.distributions import Distribution
from relplan.sim.model import SimulationModel
from relplan.sim.rng import DURATION_MEASURED, duration_code
from relplan.vocab import BUCKETS, DRAIN_POLICIES, IMPACTS

FATAL, DEGRADED, TRANSIENT, ELASTIC, SLOW, CORRUPTION, PREEMPTION = range(len(IMPACTS))
"""Impact codes of a failure mode (:attr:`CompiledModes.impact`), in the order of
:data:`relplan.vocab.IMPACTS`."""

IMPACT_CODES = {name: code for code, name in enumerate(IMPACTS)}
"""The impact code of each impact name."""

NO_STOP, STOP_MAINTENANCE, STOP_EVICTION, STOP_DRAIN = 0, 1, 2, 4
"""Planned stops a trial may have pending at its next checkpoint
(:attr:`TrialState.pending_stop`, bit flags)."""

DRAIN_NEVER, DRAIN_AT_CHECKPOINT, DRAIN_NOW = range(len(DRAIN_POLICIES))
"""Drain codes of a mode (:attr:`CompiledModes.drain`), in the order of
:data:`relplan.vocab.DRAIN_POLICIES`."""

RUNNING, RESTARTING, FINISHED = 0, 1, 2
"""Phase codes of a trial (:attr:`TrialState.phase`)."""

NO_LIMIT = 2**62
""":attr:`CompiledModes.survivable_count` of a mode with no limit."""

MAX_EVENTS_PER_TRIAL = 100_000
"""Most steps (failures, ends of degradations, restarts) one trial may walk: about 200
times what a 16k-GPU, 54-day Llama 3 run sees. A model expected to need more is refused
before the work; a trial that reaches it stops the run with an error."""

MAX_DEGRADATIONS = 256
"""Default room for concurrent degradations per trial (the engine sizes it per model);
more sets the overflow flag."""

TRACE_RUN, TRACE_RESTART, TRACE_DETECT, TRACE_WAIT, TRACE_FAILURE, TRACE_STALL = range(6)
TRACE_FINISH, TRACE_ROLLBACK, TRACE_MAINTENANCE, TRACE_STOP = 6, 7, 8, 9
"""Row codes of a trace (:attr:`TraceBuffer.rows`)."""

TRACE_COLUMNS = 6
"""Columns of a trace row: ``[wall_start, wall_end, code, a, b, c]``."""


class CompiledJob(NamedTuple):
    """The job's numbers for compiled code.

    The job runs ``total_segments`` segments: all but the last are ``segment_hours``
    of compute followed by a blocking checkpoint write; the last has
    ``last_segment_work_hours`` of compute and no write. A degradation slows the
    compute, and the writes too if ``storage_on_fabric``.

    Attributes
    ----------
    work_hours : float
        Compute to run at full speed, hours: the useful work with the recovery stack's
        per-step tax (:attr:`relplan.sim.model.JobSpec.compute_hours`).
    segment_hours : float
        Compute between two consecutive checkpoints of any tier (tau; the fast
        interval with two tiers), hours.
    fast_write_hours : float
        Blocking write of a checkpoint that is not durable, hours (the durable write
        with one tier).
    durable_write_hours : float
        Blocking write of a durable checkpoint, hours.
    restart_hours : float
        Re-initialisation and checkpoint load after a fatal failure, from the durable
        store, hours.
    fast_restart_hours : float
        A restart that reads a fast-tier checkpoint, hours.
    restart_init_hours : float
        The start-up part of a restart, before its checkpoint load, hours.
    persist_hours : float
        Job-time after a durable checkpoint's blocking write until it is durable (its
        background persist), hours; 0 for synchronous writes.
    horizon_hours : float
        Wall time at which every trial stops (inf: when its work is done), hours.
    idle_failures : bool
        Whether the hardware fails while the job is down (the on-the-fly modes).
    keep_checkpoints : int
        Durable checkpoints retained (0: all).
    archive_every : int
        Every how many durable checkpoints one is kept forever (0: none).
    maintenance_every_hours : float
        Planned maintenance every so many wall-clock hours (inf: none).
    maintenance_hours : float
        Length of a maintenance window, hours.
    maintenance_checkpoint_first : bool
        Whether the job runs on to its next durable checkpoint before maintenance.
    last_segment_work_hours : float
        Compute of the last segment, which ends the job without a write, hours.
    durable_every : int
        Every how many checkpoints one is durable (1 with one tier).
    total_segments : int
        Segments of the job: its checkpoints plus the last segment.
    storage_on_fabric : bool
        Whether checkpoint writes share the compute fabric (a degraded job writes at
        its slowed pace); if not, a write takes its normal time.
    failures_during_recovery : bool
        Whether failures strike during restarts; if not, a restart is booked like a
        downtime, off the exposure clock.
    drains : bool
        Whether any mode drains its degraded servers (:attr:`CompiledModes.drain`).
    spare_pool_swap_hours : float
        Time to bring in a spare of the second tier when no spare of the first is free,
        hours.
    max_events_per_trial : int
        Steps a trial may walk before the run stops (:data:`MAX_EVENTS_PER_TRIAL`).
    restart_success : float
        The chance that one restart attempt succeeds.
    restart_max_attempts : int
        Attempts within the job's allocation before a requeue.
    restart_max_requeues : int
        Requeues before the job fails for good.
    requeue_delay_hours : float
        The wait for a requeued job, hours.
    black_hole : float
        The chance that a failure's retries land on the same faulty server.
    preempt_save_probability : float
        The chance that a preemption's notice gives a just-in-time save (0 when a step
        and the blocking write do not fit in it).
    preempt_save_hours : float
        The blocking write of that save, hours.
    durable_save_fail, fast_save_fail : float
        The chance that a durable (fast) save is lost.
    fast_corrupt : float
        The chance that a fast checkpoint a restart reads is unusable.
    save_hang : float
        The chance that a durable save hangs.
    save_timeout_hours : float
        How long a hung save holds the job, hours.
    load_kind : int
        How a restart's durable load is drawn: -1 not at all (``restart_hours``), a
        :func:`relplan.sim.rng.duration_code` family, or :data:`DURATION_MEASURED` (evenly
        from ``load_samples``).
    load_scale_hours, load_shape : float
        The family's scale and shape (:func:`relplan.sim.rng.duration_from_uniform`).
    load_samples : numpy.ndarray of float
        Measured loads, hours (empty unless ``load_kind`` is :data:`DURATION_MEASURED`).
    write_kind, write_scale_hours, write_shape, write_samples
        The blocking write of a durable checkpoint drawn at each save, as for the load
        (-1: not drawn). A drawn write is not in the segments' arithmetic
        (``durable_write_hours`` is then :data:`DRAWN_WRITE_HOURS`, its commit): the save
        holds the job for the rest, from the end of its segment's compute
        (:mod:`relplan.sim.walk.saves`).
    fast_write_kind, fast_write_scale_hours, fast_write_shape, fast_write_samples
        The same for a fast checkpoint.
    fast_save_hang : float
        The chance that a fast save hangs.
    walks_saves : bool
        Whether the walk stops at each save (a drawn write, or fast saves that may hang:
        :func:`relplan.sim.walk.saves.start_save`).
    fast_load_kind, fast_load_scale_hours, fast_load_shape, fast_load_samples
        A fast checkpoint's load drawn at each restart from the fast tier, as for the
        durable load (-1: ``fast_restart_hours`` every time).
    burn_in_hours : float
        A burn-in before the job (``[health.burn_in]``): the job waits for it, ``waiting``
        hours at the start of each trial.
    repair_crews : int
        Repairs under way at once (0: no limit; :attr:`TrialState.crew_free_hours`).
    fleet_index : int
        The job's column in a fleet's shared arrays (:attr:`TrialState.fleet_taken_at_hours`;
        -1: a job on its own).
    takes_servers : bool
        Whether the job, waiting for a replacement, takes a server from a job of lower
        priority of its fleet instead (``[fleet] preempt = "lower-priority"``).
    fleet_priorities : numpy.ndarray of int64
        Each fleet job's ``priority``, by fleet index (empty: a job on its own).
    fleet_victims : numpy.ndarray of int64
        The fleet's jobs in the order a server is taken from them: lowest priority first,
        then by name.
    """

    work_hours: float
    segment_hours: float
    fast_write_hours: float
    durable_write_hours: float
    restart_hours: float
    fast_restart_hours: float
    restart_init_hours: float
    persist_hours: float
    horizon_hours: float
    idle_failures: bool
    keep_checkpoints: int
    archive_every: int
    maintenance_every_hours: float
    maintenance_hours: float
    maintenance_checkpoint_first: bool
    last_segment_work_hours: float
    durable_every: int
    total_segments: int
    storage_on_fabric: bool
    failures_during_recovery: bool = True
    drains: bool = False
    spare_pool_swap_hours: float = 0.0
    max_events_per_trial: int = MAX_EVENTS_PER_TRIAL
    restart_success: float = 1.0
    restart_max_attempts: int = 3
    restart_max_requeues: int = 2
    requeue_delay_hours: float = 0.0
    black_hole: float = 0.0
    preempt_save_probability: float = 0.0
    preempt_save_hours: float = 0.0
    durable_save_fail: float = 0.0
    fast_save_fail: float = 0.0
    fast_corrupt: float = 0.0
    save_hang: float = 0.0
    save_timeout_hours: float = 0.0
    load_kind: int = -1
    load_scale_hours: float = 0.0
    load_shape: float = 0.0
    load_samples: np.ndarray = np.zeros(0)
    write_kind: int = -1
    write_scale_hours: float = 0.0
    write_shape: float = 0.0
    write_samples: np.ndarray = np.zeros(0)
    fast_write_kind: int = -1
    fast_write_scale_hours: float = 0.0
    fast_write_shape: float = 0.0
    fast_write_samples: np.ndarray = np.zeros(0)
    fast_save_hang: float = 0.0
    walks_saves: bool = False
    fast_load_kind: int = -1
    fast_load_scale_hours: float = 0.0
    fast_load_shape: float = 0.0
    fast_load_samples: np.ndarray = np.zeros(0)
    burn_in_hours: float = 0.0
    repair_crews: int = 0
    fleet_index: int = -1
    takes_servers: bool = False
    fleet_priorities: np.ndarray = np.zeros(0, dtype=np.int64)
    fleet_victims: np.ndarray = np.zeros(0, dtype=np.int64)


class CompiledModes(NamedTuple):
    """The failure modes for compiled code: one entry per mode unless said otherwise.

    Attributes
    ----------
    impact : numpy.ndarray of int64
        Impact code: :data:`FATAL`, :data:`DEGRADED`, :data:`TRANSIENT` or :data:`ELASTIC`.
    detect_hours : numpy.ndarray of float
        Time from a failure until the job notices it, hours.
    uses_spares : numpy.ndarray of bool
        Whether a spare can stand in for a failed unit.
    spares_needed : numpy.ndarray of int64
        Servers a swap replaces: 1, or those of a rack or a scale-up domain. Modes
        without ``spare_domain`` take that many loose spare servers at once.
    spare_domain : numpy.ndarray of bool
        Whether a swap takes one whole spare domain from the domain pool instead.
    loses_fast_checkpoint : numpy.ndarray of bool
        Whether a failure destroys the fast checkpoint tier.
    self_healing : numpy.ndarray of bool
        Whether a unit comes back by itself its repair time after the failure.
    stall_hours : numpy.ndarray of float
        Stall of a transient failure (failover) or an elastic one (detection and
        reconfiguration), hours.
    soft_hours : numpy.ndarray of float
        Soft slowdown after a transient stall, or the rejoin of an elastic replica, hours.
    survivable_count : numpy.ndarray of int64
        Unrepaired failures of a degraded (or elastic) mode the job runs through; one
        more is fatal (:data:`NO_LIMIT` where there is none).
    rework_hours : numpy.ndarray of float
        Job-time an elastic failure throws away (the step an in-process recovery redoes),
        hours.
    needs_spare : numpy.ndarray of bool
        Whether an elastic failure needs a free hot spare (live migration): with none it
        is fatal.
    evict_at_checkpoint : numpy.ndarray of bool
        For a slow mode: evict at the next checkpoint rather than at once.
    detect_probability : numpy.ndarray of float
        For a corruption mode: the chance that it is found.
    recall, late_detect_hours : numpy.ndarray of float
        The share of a mode's failures its detector catches (``detect_hours`` after
        them), and when the others are found, hours.
    episode_kind, episode_scale_hours, episode_shape : numpy.ndarray
        For a slow mode: the family (-1: none, an episode lasts until evicted), scale and
        shape of an episode's length (:func:`relplan.sim.rng.duration_from_uniform`).
    tolerate_hours : numpy.ndarray of float
        For a slow mode with the ladder: hours a slow unit is tolerated past its
        detection before it is evicted (0: evicted once detected).
    reroute_after_hours : numpy.ndarray of float
        For a slow mode with the ladder's middle rung: hours past its detection a slow
        unit is re-routed (inf: never): a stall of ``stall_hours``, then its soft row of
        :attr:`slowdown_table` (the re-routed slowdown) instead of its own.
    drain : numpy.ndarray of int64
        For a degraded mode that slows one server: :data:`DRAIN_NEVER`,
        :data:`DRAIN_AT_CHECKPOINT` or :data:`DRAIN_NOW`.
    fails_idle : numpy.ndarray of bool
        Whether the mode's units fail while the job is down (``job.idle_failures``; see
        :attr:`relplan.sim.model.FailureMode.fails_while_down`).
    slowdown_table : numpy.ndarray of float
        Shape (2 x modes, depth): row ``m`` is the step-time ratio with ``k`` concurrent
        degradations of mode ``m`` (column ``k``; the last column holds for more), row
        ``modes + m`` that of the soft phase after a transient failure of mode ``m``.
    repair_kind : numpy.ndarray of int64
        Family of the repair time (see :func:`relplan.sim.rng.duration_code`).
    repair_scale_hours : numpy.ndarray of float
        Fixed value, exponential mean, Weibull scale or lognormal median of the
        repair time, hours.
    repair_shape : numpy.ndarray of float
        Weibull shape or lognormal sigma of the repair time.
    repair_burn_in_hours : numpy.ndarray of float
        Hours added to each repair: the burn-in of a unit back from it
        (``[health.burn_in] returning``; 0: none).
    exponential_rate_per_hour : float
        Total failure rate of the modes drawn on the fly (exponential lifetimes), per
        hour of exposure; 0 if there are none.
    exponential_modes : numpy.ndarray of int64
        The modes drawn on the fly: column ``k`` of their Walker alias table holds mode
        ``exponential_modes[k]``...
    exponential_probability : numpy.ndarray of float
        ...with probability ``exponential_probability[k]``...
    exponential_alias : numpy.ndarray of int64
        ...and mode ``exponential_alias[k]`` otherwise (see :func:`alias_table`).
    """

    impact: np.ndarray
    detect_hours: np.ndarray
    uses_spares: np.ndarray
    spares_needed: np.ndarray
    spare_domain: np.ndarray
    loses_fast_checkpoint: np.ndarray
    self_healing: np.ndarray
    stall_hours: np.ndarray
    soft_hours: np.ndarray
    survivable_count: np.ndarray
    rework_hours: np.ndarray
    needs_spare: np.ndarray
    evict_at_checkpoint: np.ndarray
    detect_probability: np.ndarray
    recall: np.ndarray
    late_detect_hours: np.ndarray
    episode_kind: np.ndarray
    episode_scale_hours: np.ndarray
    episode_shape: np.ndarray
    tolerate_hours: np.ndarray
    reroute_after_hours: np.ndarray
    drain: np.ndarray
    fails_idle: np.ndarray
    slowdown_table: np.ndarray
    repair_kind: np.ndarray
    repair_scale_hours: np.ndarray
    repair_shape: np.ndarray
    repair_burn_in_hours: np.ndarray
    exponential_rate_per_hour: float
    exponential_modes: np.ndarray
    exponential_probability: np.ndarray
    exponential_alias: np.ndarray


class EventWindow(NamedTuple):
    """Pre-drawn failures of the non-exponential modes up to a horizon, for the walk.

    Attributes
    ----------
    active_trials : numpy.ndarray of int64
        Block indices of the trials to walk (still running).
    offsets : numpy.ndarray of int64
        Length ``active_trials.size + 1``: the events of ``active_trials[i]`` are
        ``offsets[i]`` to ``offsets[i + 1]`` (exclusive) of the event arrays.
    event_exposure_hours : numpy.ndarray of float
        When each failure happens on its trial's exposure clock, hours; increasing
        within a trial.
    event_mode : numpy.ndarray of int64
        The failure mode of each event.
    event_repair_hours : numpy.ndarray of float
        Repair time of the failed unit (or length of the degradation), hours.
    horizon_hours : float
        Exposure up to which the window holds every failure: a trial stops there.
    event_removes : numpy.ndarray of bool
        Whether each failure retires its unit out of the fleet (``retire = "remove"``):
        it is never repaired, and a spare that replaces it never returns (empty, the
        default: none does).
    wall_limit_hours : numpy.ndarray of float
        One entry: the wall time a trial stops before (a fleet's job pauses for the other
        jobs' events: :mod:`relplan.sim.fleet_walk`; inf, the default: none).
    """

    active_trials: np.ndarray
    offsets: np.ndarray
    event_exposure_hours: np.ndarray
    event_mode: np.ndarray
    event_repair_hours: np.ndarray
    horizon_hours: float
    event_removes: np.ndarray = np.zeros(0, dtype=np.bool_)  # never written
    wall_limit_hours: np.ndarray = np.full(1, np.inf)  # written only in a fleet's own


class TrialStreams(NamedTuple):
    """Each trial's own random stream, for the failures drawn on the fly.

    Attributes
    ----------
    rng_state : numpy.ndarray of uint64
        Shape (trials, 4): xoshiro256** states (see :mod:`relplan.sim.rng`), where a
        walk leaves each trial's stream for the next window.
    next_exponential_hours : numpy.ndarray of float
        Exposure time of each trial's next on-the-fly failure, hours (inf: none).
    key : numpy.uint64
        The block's stream key (:func:`relplan.sim.rng.stream_key`): the walk seeds a
        trial's stream from it and the trial's row (:func:`relplan.sim.rng.trial_words`)
        and draws its first failure when it first walks it, and reads the two arrays
        only for a trial it walked before, so a block's entries need no initial values.
    """

    rng_state: np.ndarray
    next_exponential_hours: np.ndarray
    key: np.uint64 = np.uint64(0)


class TrialState(NamedTuple):
    """Where each trial of a block stands: one entry (row) per trial, updated in place.

    Attributes
    ----------
    phase : numpy.ndarray of int8
        :data:`RUNNING`, :data:`RESTARTING` or :data:`FINISHED`.
    exposure_hours : numpy.ndarray of float
        How far the trial has walked on the exposure clock, hours.
    phase_start_hours : numpy.ndarray of float
        Exposure time from which the current phase is timed, hours: while running, the
        start of the running stretch since the last change of speed, or the end of the
        stall in progress; while restarting, when the restart last went on (or goes on
        again after the stall in progress).
    run_progress_hours : numpy.ndarray of float
        Job-time run since the last restart (or the start) up to ``phase_start_hours``.
    restart_done_hours : numpy.ndarray of float
        Restart done up to ``phase_start_hours`` in the restart in progress, hours (a
        stall pauses a restart).
    restart_hours : numpy.ndarray of float
        Length of the restart in progress (from the durable store or the fast tier), hours.
    restart_init_hours : numpy.ndarray of float
        Of the ``restart`` bucket, the hours spent in start-up (the rest is checkpoint
        load).
    committed_checkpoints : numpy.ndarray of int64
        Checkpoints written so far that still hold.
    durable_checkpoint : numpy.ndarray of int64
        Number of the last durable checkpoint at the last fatal failure.
    rollback_segment, rollback_degraded_hours, rollback_stall_hours : numpy.ndarray
    fast_tier_durable, fast_tier_degraded_hours, fast_tier_stall_hours : numpy.ndarray
        The fields of each trial's :class:`HeldHours` (int64 for the checkpoint
        numbers, float for the hours) between two windows.
    idle_hours : numpy.ndarray of float
        Detection and waiting so far (wall clock off the exposure clock), hours.
    wall_hours : numpy.ndarray of float
        Wall-clock time to finish the job, hours (set when it finishes).
    bucket_hours : numpy.ndarray of float
        Shape (trials, len(BUCKETS)): wall hours in each bucket.
    failures_by_mode : numpy.ndarray of int64
        Shape (trials, modes): failures that reached the job.
    interruptions_by_mode : numpy.ndarray of int64
        Shape (trials, modes): failures that stopped the job (fatal ones, and degraded
        ones beyond their mode's survivable count).
    spare_return_hours : numpy.ndarray of float
        Shape (trials, spares): the wall-clock times at which the spares away in repair
        come back, in ascending order (the first ``spares_away`` entries).
    spares_away : numpy.ndarray of int64
        Spares away in repair (the list's length).
    spare_domain_return_hours : numpy.ndarray of float
        Shape (trials, spare domains): the same list for the pool of whole spare
        domains (the first ``spare_domains_away`` entries).
    spare_domains_away : numpy.ndarray of int64
        Spare domains away in repair (that list's length).
    spares_used : numpy.ndarray of int64
        Spare servers swapped in (a rack's worth or a spare domain counts its servers).
    spare_pool_return_hours : numpy.ndarray of float
        Shape (trials, spare pool): the same list for the second tier of spares
        (the first ``spare_pool_away`` entries).
    spare_pool_away : numpy.ndarray of int64
        Spares of the second tier away (that list's length).
    degradation_end_hours : numpy.ndarray of float
        Shape (trials, slots): wall-clock end of each degradation in progress.
    degradation_row : numpy.ndarray of int64
        Shape (trials, slots): row of :attr:`CompiledModes.slowdown_table` of each
        degradation in progress.
    degradation_noticed_hours : numpy.ndarray of float
        Shape (trials, slots) for a model whose modes drain (:attr:`CompiledJob.drains`),
        else (trials, 0): for each degradation in progress of a mode that drains, the
        exposure at which its server is found degraded (its failure plus the mode's
        ``detect``), from which a drain may swap it; ``-inf`` once found and its drain
        policy applied. Not read for other degradations.
    degradation_count : numpy.ndarray of int64
        Degradations in progress (the used slots).
    degradations_by_row : numpy.ndarray of int64
        Shape (trials, 2 x modes): degradations in progress per slowdown-table row.
    overflow : numpy.ndarray of bool
        One flag: set if a trial ran out of degradation slots.
    next_maintenance_hours : numpy.ndarray of float
        Wall-clock time of each trial's next scheduled maintenance, hours (inf: none).
    maintenances : numpy.ndarray of int64
        Maintenance windows each trial went through.
    pending_stop : numpy.ndarray of int64
        Planned stops waiting for the next checkpoint: :data:`STOP_MAINTENANCE`,
        :data:`STOP_EVICTION` and :data:`STOP_DRAIN` bit flags.
    drain_at_hours : numpy.ndarray of float
        Exposure at which the next degraded server that drains is found (inf: none
        pending; the earliest of :attr:`degradation_noticed_hours` still ahead).
    evict_at_hours : numpy.ndarray of float
        Exposure at which a fail-slow unit is detected, or the ladder's next rung comes
        (inf: none pending).
    reroute_pending : numpy.ndarray of bool
        Whether that rung re-routes the unit (the ladder's middle rung) rather than
        evicting it.
    evict_mode : numpy.ndarray of int64
        The fail-slow mode to evict.
    evict_repair_hours : numpy.ndarray of float
        Repair time of the fail-slow unit to evict, hours.
    next_wall_hours : numpy.ndarray of float
        Wall time of a trial's next event when it paused for a fleet's other jobs.
    crew_free_hours : numpy.ndarray of float
        Shape (trials, crews): wall time at which each repair crew is free (none without
        ``[repair]``).
    crew_wait_hours : numpy.ndarray of float
        Hours each trial's repairs waited for a crew, in all (none without ``[repair]``).
    crew_repairs : numpy.ndarray of int64
        Repairs each trial gave a crew (none without ``[repair]``).
    fleet_running_from_hours : numpy.ndarray of float
        Shape (trials, fleet jobs), shared by a fleet's jobs that may take servers from
        each other: wall time from which each job runs (inf: down, or over), a server of
        which a job of higher priority may take (none for a job on its own).
    fleet_taken_at_hours : numpy.ndarray of float
        The same shape: wall time at which a job of higher priority takes a server of each
        job (inf: none).
    fleet_taken_wait_hours : numpy.ndarray of float
        The same shape: hours the job then waits for a server to replace it.
    fleet_wall_limit_hours : numpy.ndarray of float
        One entry, the job's :attr:`EventWindow.wall_limit_hours` itself: a job that takes
        a server lowers it to pause, so that its victim stops in wall-clock order.
    servers_taken : numpy.ndarray of int64
        Times a job of higher priority took a server of each trial's job (none for a job
        on its own).
    corruption_found_hours : numpy.ndarray of float
        Exposure at which a pending corruption is found (inf: none).
    corruption_checkpoint : numpy.ndarray of int64
        The last checkpoint written before the pending corruption.
    corruption_mode : numpy.ndarray of int64
        The corruption mode pending.
    corruption_repair_hours : numpy.ndarray of float
        Repair time of the unit that corrupted, hours.
    undetected_checkpoint : numpy.ndarray of int64
        The last checkpoint before the earliest corruption never to be found (-1: none):
        if it is still there when the job ends, the corruption reached the final weights.
    drains : numpy.ndarray of int64
        Servers running degraded that each trial swapped for a spare.
    depleted : numpy.ndarray of bool
        Whether the trial stalled for good: a unit removed from the fleet found no spare
        left to replace it (``retire = "remove"``).
    restart_attempts : numpy.ndarray of int64
        Restart attempts each trial made, those that failed included (zeroed at the
        start; counted only where restarts draw: attempts that may fail, a drawn load).
    requeues : numpy.ndarray of int64
        Times each trial's job was requeued after its attempts ran out.
    job_failed : numpy.ndarray of bool
        Whether the trial's job failed for good: every attempt of every requeue failed.
    verified_checkpoint, verified_durable : numpy.ndarray of int64
        The newest checkpoint (durable checkpoint) a restart found good, where saves may
        be lost: the floor of the next walk back (0, the start, at first).
    hang_checkpoint : numpy.ndarray of int64
        The checkpoint whose durable save hangs next, where saves may hang (drawn at the
        start of each run).
    save_hangs : numpy.ndarray of int64
        Saves that hung, per trial.
    next_save : numpy.ndarray of int64
        The next checkpoint whose write is drawn, where writes are drawn
        (:attr:`CompiledJob.write_kind` or ``fast_write_kind``).
    writing_checkpoint : numpy.ndarray of int64
        The checkpoint whose drawn write was the last to start (0: none since the run
        began, or settled): uncommitted while its hold lasts.
    write_held_hours, write_end_hours : numpy.ndarray of float
        That write's hold, hours, and the exposure at which it ends.
    fast_tier_write_hours : numpy.ndarray of float
        The drawn writes of the fast checkpoints committed since
        ``fast_tier_write_durable``, hours: rework if the fast tier is lost.
    fast_tier_write_durable : numpy.ndarray of int64
        The durable checkpoint they follow.
    events_walked : numpy.ndarray of int64
        Steps each trial has walked so far.
    too_many_events : numpy.ndarray of bool
        One flag: set if a trial reached :attr:`CompiledJob.max_events_per_trial` (it
        stops there, unfinished).
    """

    phase: np.ndarray
    exposure_hours: np.ndarray
    phase_start_hours: np.ndarray
    run_progress_hours: np.ndarray
    restart_done_hours: np.ndarray
    restart_hours: np.ndarray
    restart_init_hours: np.ndarray
    committed_checkpoints: np.ndarray
    durable_checkpoint: np.ndarray
    rollback_segment: np.ndarray
    rollback_degraded_hours: np.ndarray
    rollback_stall_hours: np.ndarray
    fast_tier_durable: np.ndarray
    fast_tier_degraded_hours: np.ndarray
    fast_tier_stall_hours: np.ndarray
    idle_hours: np.ndarray
    wall_hours: np.ndarray
    bucket_hours: np.ndarray
    failures_by_mode: np.ndarray
    interruptions_by_mode: np.ndarray
    spare_return_hours: np.ndarray
    spares_away: np.ndarray
    spare_domain_return_hours: np.ndarray
    spare_domains_away: np.ndarray
    spares_used: np.ndarray
    spare_pool_return_hours: np.ndarray
    spare_pool_away: np.ndarray
    degradation_end_hours: np.ndarray
    degradation_row: np.ndarray
    degradation_noticed_hours: np.ndarray
    degradation_count: np.ndarray
    degradations_by_row: np.ndarray
    overflow: np.ndarray
    next_maintenance_hours: np.ndarray
    maintenances: np.ndarray
    pending_stop: np.ndarray
    drain_at_hours: np.ndarray
    evict_at_hours: np.ndarray
    evict_mode: np.ndarray
    reroute_pending: np.ndarray
    evict_repair_hours: np.ndarray
    crew_free_hours: np.ndarray
    crew_wait_hours: np.ndarray
    crew_repairs: np.ndarray
    fleet_running_from_hours: np.ndarray
    fleet_taken_at_hours: np.ndarray
    fleet_taken_wait_hours: np.ndarray
    fleet_wall_limit_hours: np.ndarray
    servers_taken: np.ndarray
    next_wall_hours: np.ndarray
    corruption_found_hours: np.ndarray
    corruption_checkpoint: np.ndarray
    corruption_mode: np.ndarray
    corruption_repair_hours: np.ndarray
    undetected_checkpoint: np.ndarray
    drains: np.ndarray
    depleted: np.ndarray
    restart_attempts: np.ndarray
    requeues: np.ndarray
    job_failed: np.ndarray
    verified_checkpoint: np.ndarray
    verified_durable: np.ndarray
    hang_checkpoint: np.ndarray
    save_hangs: np.ndarray
    next_save: np.ndarray
    writing_checkpoint: np.ndarray
    write_held_hours: np.ndarray
    write_end_hours: np.ndarray
    fast_tier_write_hours: np.ndarray
    fast_tier_write_durable: np.ndarray
    events_walked: np.ndarray
    too_many_events: np.ndarray

    @classmethod
    def at_start(
        cls, n_trials: int, n_modes: int, n_spares: int,
        degradation_slots: int = MAX_DEGRADATIONS, n_spare_domains: int = 0,
        n_spare_pool: int = 0, drains: bool = False, restarts_draw: bool = False,
        saves_random: bool = False, saves_walked: bool = False, repair_crews: int = 0,
        fleet_jobs: int = 0,
    ) -> TrialState:  # fmt: skip
        """The state of ``n_trials`` trials not walked yet.

        Only :attr:`events_walked` (0: not walked yet) and the two flags are set: the
        walk sets every other entry of a trial the first time it walks it, where it
        touches them anyway (:func:`relplan.sim.timeline.walk_kernel`), so a block's
        state is not written twice. The arrays hold whatever their memory held until
        then; every trial of a block is walked in its first window.

        Parameters
        ----------
        n_trials : int
            Trials in the block.
        n_modes : int
            Failure modes of the model.
        n_spares : int
            Spare servers in the pool.
        degradation_slots : int
            Room for concurrent degradations per trial.
        n_spare_domains : int
            Whole spare domains in their pool.
        n_spare_pool : int
            Spare servers of the second tier.
        drains : bool
            Whether a mode drains its degraded servers (:attr:`CompiledJob.drains`):
            room for when each degradation is found.
        restarts_draw, saves_random : bool
            Whether restarts draw (:attr:`WalkFeatures.random_restarts`) and saves may
            fail (:attr:`WalkFeatures.random_saves`): room for their per-trial counts,
            which a walk without the feature never touches (empty otherwise).
        repair_crews : int
            Repair crews (0: no limit, and no room for when each is free).
        fleet_jobs : int
            Jobs of a fleet that may take servers from each other (0: none; room for
            the shared arrays, which the fleet's walk replaces with its own).

        Examples
        --------
        >>> state = TrialState.at_start(3, n_modes=2, n_spares=1)
        >>> state.events_walked.tolist(), state.failures_by_mode.shape
        ([0, 0, 0], (3, 2))
        """
        n = n_trials
        # One allocation per type, carved into the arrays: one block of memory instead
        # of dozens of small ones, each of which the allocator would hand back to the
        # system when freed and fault in again for the next block.
        hours = _carved(np.float64, {
            "exposure_hours": (n,), "phase_start_hours": (n,), "run_progress_hours": (n,),
            "restart_done_hours": (n,), "restart_hours": (n,), "restart_init_hours": (n,),
            "rollback_degraded_hours": (n,), "rollback_stall_hours": (n,),
            "fast_tier_degraded_hours": (n,), "fast_tier_stall_hours": (n,),
            "idle_hours": (n,), "wall_hours": (n,), "bucket_hours": (n, len(BUCKETS)),
            "next_maintenance_hours": (n,),
            "evict_at_hours": (n,), "evict_repair_hours": (n,),
            "corruption_found_hours": (n,), "corruption_repair_hours": (n,),
            "spare_return_hours": (n, n_spares),
            "spare_domain_return_hours": (n, n_spare_domains),
            "spare_pool_return_hours": (n, n_spare_pool),
            "degradation_end_hours": (n, degradation_slots),
            "degradation_noticed_hours": (n, degradation_slots if drains else 0),
            "drain_at_hours": (n,), "crew_free_hours": (n, repair_crews),
            "next_wall_hours": (n,),
        }, zeroed=False)  # fmt: skip
        counts = _carved(np.int64, {
            "committed_checkpoints": (n,), "durable_checkpoint": (n,),
            "rollback_segment": (n,), "fast_tier_durable": (n,),
            "failures_by_mode": (n, n_modes), "interruptions_by_mode": (n, n_modes),
            "spares_away": (n,), "spare_domains_away": (n,), "spares_used": (n,),
            "spare_pool_away": (n,), "degradation_count": (n,),
            "degradations_by_row": (n, 2 * n_modes),
            "maintenances": (n,), "pending_stop": (n,), "evict_mode": (n,),
            "corruption_checkpoint": (n,), "corruption_mode": (n,),
            "undetected_checkpoint": (n,), "drains": (n,),
            "degradation_row": (n, degradation_slots),
        }, zeroed=False)  # fmt: skip
        flags = _carved(np.bool_, {"depleted": (n,), "reroute_pending": (n,)}, zeroed=False)
        drawn = n if restarts_draw else 0  # a feature's counts: none without it
        saving = n if saves_random else 0
        walked = _carved(np.int64, {"events_walked": (n,), "restart_attempts": (drawn,),
                                    "requeues": (drawn,), "verified_checkpoint": (saving,),
                                    "verified_durable": (saving,), "hang_checkpoint": (saving,),
                                    "save_hangs": (saving,)})  # fmt: skip
        failed = _carved(np.bool_, {"job_failed": (drawn,)})
        writes = n if saves_walked else 0
        crewed = n if repair_crews > 0 else 0  # and a fleet's: none without them
        held_writes = _carved(np.float64, {
            "write_held_hours": (writes,), "write_end_hours": (writes,),
            "fast_tier_write_hours": (writes,), "crew_wait_hours": (crewed,),
            "fleet_running_from_hours": (n, fleet_jobs), "fleet_taken_at_hours": (n, fleet_jobs),
            "fleet_taken_wait_hours": (n, fleet_jobs), "fleet_wall_limit_hours": (1,),
        })  # fmt: skip
        write_marks = _carved(np.int64, {"next_save": (writes,), "writing_checkpoint": (writes,),
                                         "fast_tier_write_durable": (writes,),
                                         "crew_repairs": (crewed,),
                                         "servers_taken": (n if fleet_jobs else 0,)})
        return cls(phase=np.empty(n, dtype=np.int8), **hours, **counts, **flags, **walked,
                   **failed, **held_writes, **write_marks,
                   overflow=np.zeros(1, dtype=np.bool_),
                   too_many_events=np.zeros(1, dtype=np.bool_))  # fmt: skip


_REUSED_BUFFERS: dict[tuple[str, bool], list[np.ndarray]] = {}
"""Blocks of memory that earlier blocks' states were carved from, kept for the next ones
(see :func:`_reused_buffer`), by dtype and whether zeroed: those of the size asked for
last."""
_REUSED_BUFFERS_LOCK = threading.Lock()
REUSED_BUFFERS_PER_KIND = 8
"""Buffers of one dtype, zeroed or not, kept at most (blocks in flight take one each)."""
REUSED_BUFFER_MAX_BYTES = 64 * 2**20
"""Larger buffers are not kept: a state that large is rare, and its zeroing is cheap
next to its walk."""


def _reused_buffer(dtype: type, size: int, zeroed: bool) -> np.ndarray:
    """A 1-d buffer of ``size`` items, zeroed or not: one an earlier block let go, if any.

    A buffer is free again once nothing but this cache refers to it (every array carved
    from it is gone: its state and the outcomes that viewed it were dropped). Zeroing a
    buffer already in memory is a fast fill, where a fresh allocation of a few megabytes
    is handed back to the system when freed and faults in again page by page (glibc's
    trimming), about as slow as a block's Python work. Only the buffers of the size
    asked for last are kept: a run of another size lets the others go.
    """
    if size * np.dtype(dtype).itemsize > REUSED_BUFFER_MAX_BYTES:
        return np.zeros(size, dtype=dtype) if zeroed else np.empty(size, dtype=dtype)
    key = (np.dtype(dtype).str, zeroed)
    with _REUSED_BUFFERS_LOCK:
        kept = _REUSED_BUFFERS.get(key, [])
        if kept and kept[0].size != size:
            kept = []
        _REUSED_BUFFERS[key] = kept
        for buffer in kept:
            if sys.getrefcount(buffer) == 3:  # the list, the loop variable, the call
                if zeroed:
                    buffer.fill(0)
                return buffer
        buffer = np.zeros(size, dtype=dtype) if zeroed else np.empty(size, dtype=dtype)
        if len(kept) < REUSED_BUFFERS_PER_KIND:
            kept.append(buffer)
        return buffer


def _carved(dtype: type, shapes: dict[str, tuple[int, ...]],
            zeroed: bool = True) -> dict[str, np.ndarray]:  # fmt: skip
    """C-contiguous arrays of the given shapes, zeroed or not, carved one after the other
    out of one buffer (each an ordinary array to numba: aligned, C-contiguous)."""
    sizes = [math.prod(shape) for shape in shapes.values()]
    flat = _reused_buffer(dtype, sum(sizes), zeroed)
    arrays = {}
    start = 0
    for (name, shape), size in zip(shapes.items(), sizes, strict=True):
        arrays[name] = flat[start : start + size].reshape(shape)
        start += size
    return arrays


class HeldHours(NamedTuple):
    """The slowed extra time and the stalls of one trial that a failure may still roll
    back: they stay in the ``degraded`` and ``stall`` buckets until a failure moves them
    to ``rework``.

    Segments are numbered by the checkpoint that ends them (segment ``k`` ends with
    checkpoint ``k``). The hours of the segment in progress are held in ``segment``; once
    it has completed they are settled into the fast tier's hours, lazily: when hours of
    a later segment come in, or at the next fatal failure (see
    :mod:`relplan.sim.timeline`).

    Attributes
    ----------
    segment : int
        The segment of the run in progress that holds ``degraded_hours`` and
        ``stall_hours`` (0: none). While it is the segment in progress, a fatal failure
        rolls them back.
    degraded_hours : float
        Extra time of slowed running in it, hours.
    stall_hours : float
        Stalls while running in it, hours.
    fast_tier_durable : int
        The durable checkpoint after which lie the completed segments that hold the
        fast tier's hours: losing the fast tier rolls them back if this is still the
        last durable checkpoint; otherwise a later durable checkpoint keeps them safe.
    fast_tier_degraded_hours : float
        Extra time of slowed running in those segments, hours.
    fast_tier_stall_hours : float
        Stalls in those segments, hours.
    """

    segment: int
    degraded_hours: float
    stall_hours: float
    fast_tier_durable: int
    fast_tier_degraded_hours: float
    fast_tier_stall_hours: float


class TraceBuffer(NamedTuple):
    """Where the walk writes the timeline of one trial of the block.

    Attributes
    ----------
    rows : numpy.ndarray of float
        Shape (rows, :data:`TRACE_COLUMNS`): one row ``[wall_start, wall_end, code, a,
        b, c]`` per interval, in order (see :func:`relplan.sim.timeline.walk_trials`).
    row_count : numpy.ndarray of int64
        One entry: rows produced so far (more than fit are counted, not written).
    trial : int
        Block index of the trial to trace (-1: none).
    """

    rows: np.ndarray
    row_count: np.ndarray
    trial: int

    @classmethod
    def for_trial(cls, trial: int, rows: np.ndarray) -> TraceBuffer:
        """A buffer that traces block trial ``trial`` into ``rows`` (filled in place)."""
        return cls(rows=rows, row_count=np.zeros(1, dtype=np.int64), trial=int(trial))

    @classmethod
    def off(cls) -> TraceBuffer:
        """A buffer that traces no trial."""
        return cls.for_trial(-1, np.zeros((0, TRACE_COLUMNS)))

    def written_rows(self) -> np.ndarray:
        """The rows written so far."""
        return self.rows[: min(int(self.row_count[0]), self.rows.shape[0])]


class WalkFeatures(NamedTuple):
    """The features a walk uses: the walk is compiled once per set of them, the code of
    each feature that is off left out (see :func:`relplan.sim.timeline.walk_kernel`).

    Each one is True whenever its code may change a trial; a feature on that a model
    does not use only costs compile time and speed, never changes a number.

    Attributes
    ----------
    trace : bool
        A trial's timeline is written (:attr:`TraceBuffer.trial` >= 0).
    horizon : bool
        The job has a calendar window (:attr:`CompiledJob.horizon_hours` finite).
    maintenance : bool
        Planned maintenance windows (:attr:`CompiledJob.maintenance_every_hours` finite).
    fail_slow : bool
        A mode of impact SLOW (fail-slow units, evicted once detected).
    corruption : bool
        A mode of impact CORRUPTION (silent corruption, found later or never).
    drain : bool
        A mode drains its degraded servers (:attr:`CompiledJob.drains`).
    planned_stops : bool
        A stop may wait for a checkpoint (maintenance, fail-slow evictions, drains).
    idle_failures : bool
        Failures while the job is down (:attr:`CompiledJob.idle_failures`), with a mode
        drawn on the fly that fails while idle (:attr:`CompiledModes.fails_idle`).
    spare_pool : bool
        A second tier of spares (:attr:`TrialState.spare_pool_return_hours` has columns).
    degradations : bool
        A mode that slows or stalls the job instead of stopping it (DEGRADED,
        TRANSIENT, ELASTIC or SLOW).
    random_restarts : bool
        A restart draws random numbers: an attempt may fail
        (:attr:`CompiledJob.restart_success` below 1 or a :attr:`CompiledJob.black_hole`),
        or a load is drawn (:attr:`CompiledJob.load_kind` or ``fast_load_kind`` at
        least 0).
    preemption : bool
        A mode of impact PREEMPTION (``[preemption]``; it comes with ``degradations``:
        a saved preemption pauses the job with its progress kept).
    random_saves : bool
        A save may be lost or hang, or take a drawn time, or a fast checkpoint be
        unusable (:attr:`CompiledJob.durable_save_fail`, ``fast_save_fail``,
        ``fast_corrupt``, ``save_hang``, ``walks_saves``).
    detection : bool
        A mode's detector misses some failures (:attr:`CompiledModes.recall` below 1):
        each failure of it draws when it is found.
    fleet_preemption : bool
        The job is one of a fleet's whose jobs take servers from those of lower priority
        (:attr:`TrialState.fleet_taken_at_hours` has columns).

    Examples
    --------
    >>> WalkFeatures._fields[:3]
    ('trace', 'horizon', 'maintenance')
    """

    trace: bool
    horizon: bool
    maintenance: bool
    fail_slow: bool
    corruption: bool
    drain: bool
    planned_stops: bool
    idle_failures: bool
    spare_pool: bool
    degradations: bool
    random_restarts: bool
    preemption: bool
    random_saves: bool
    detection: bool = False
    fleet_preemption: bool = False

    @classmethod
    def of(cls, job: CompiledJob, modes: CompiledModes, state: TrialState,
           trace: TraceBuffer) -> WalkFeatures:
        """The features a walk of ``state``'s trials of this job and modes uses.

        Parameters
        ----------
        job : CompiledJob
            The job's numbers.
        modes : CompiledModes
            The failure modes.
        state : TrialState
            The block's trials (for the tiers of spares).
        trace : TraceBuffer
            Where a trial's timeline goes, if one does.

        Returns
        -------
        WalkFeatures
            The features on.
        """
        impacts = set(np.asarray(modes.impact).tolist())
        maintenance = bool(np.isfinite(job.maintenance_every_hours))
        fail_slow = SLOW in impacts
        drain = bool(job.drains)
        return cls(
            trace=int(trace.trial) >= 0,
            horizon=bool(np.isfinite(job.horizon_hours)),
            maintenance=maintenance,
            fail_slow=fail_slow,
            corruption=CORRUPTION in impacts,
            drain=drain,
            planned_stops=maintenance or fail_slow or drain,
            idle_failures=bool(job.idle_failures) and modes.exponential_rate_per_hour > 0.0
            and bool(np.any(np.asarray(modes.fails_idle)[modes.exponential_modes])),
            spare_pool=state.spare_pool_return_hours.shape[1] > 0,
            degradations=bool(impacts - {FATAL, CORRUPTION}),
            random_restarts=job.restart_success < 1.0 or job.black_hole > 0.0
            or job.load_kind >= 0 or job.fast_load_kind >= 0,
            preemption=PREEMPTION in impacts,
            random_saves=job.durable_save_fail > 0.0 or job.fast_save_fail > 0.0
            or job.fast_corrupt > 0.0 or job.save_hang > 0.0 or job.walks_saves,
            detection=bool(np.any(np.asarray(modes.recall) < 1.0)),
            fleet_preemption=state.fleet_taken_at_hours.shape[1] > 0,
        )


@dataclass(frozen=True)
class CompiledModel:
    """A model packed for compiled code (see :func:`compile_model`).

    Attributes
    ----------
    job : CompiledJob
        The job's numbers.
    modes : CompiledModes
        The failure modes.
    window_modes : tuple of int
        Indices of the modes whose failures are pre-drawn in windows (all but those
        drawn on the fly); for the Python side only.
    """

    job: CompiledJob
    modes: CompiledModes
    window_modes: tuple[int, ...]


DRAWN_WRITE_HOURS = 1e-9
"""The job-time of a drawn write in the segments' arithmetic, hours (3.6 us): the write's
commit, after its hold (the rest of the write, drawn at its start)."""


def _drawn_fields(prefix: str, drawn: Distribution | tuple[float, ...] | None
                  ) -> dict[str, object]:  # fmt: skip
    """The :class:`CompiledJob` fields ``{prefix}_kind``, ``_scale_hours``, ``_shape`` and
    ``_samples`` of a duration drawn each time (a restart's load, a save's write; none:
    not drawn)."""
    if drawn is None:
        return {f"{prefix}_samples": np.zeros(0)}
    if isinstance(drawn, tuple):
        return {f"{prefix}_kind": DURATION_MEASURED,
                f"{prefix}_samples": np.array(drawn, dtype=float)}
    return {f"{prefix}_kind": duration_code(drawn.kind),
            f"{prefix}_scale_hours": float(drawn.scale_hours),
            f"{prefix}_shape": float(drawn.shape), f"{prefix}_samples": np.zeros(0)}


@functools.lru_cache(maxsize=32)
def compile_model(model: SimulationModel, on_the_fly: bool = True) -> CompiledModel:
    """Pack a model for the compiled walk (cached: built once per model).

    Parameters
    ----------
    model : SimulationModel
        The job and its failure modes.
    on_the_fly : bool
        Draw the exponential modes inside the walk (those without a unit history);
        False leaves every mode to the pre-drawn windows.

    Returns
    -------
    CompiledModel
        The job, the modes, and the modes drawn in windows.
    """
    job, modes = model.job, model.modes
    segment = job.segment_hours
    compute = job.compute_hours  # the work with the recovery stack's per-step tax
    checkpoints = checkpoint_count(compute, segment)
    two_tier = job.fast_interval_hours is not None
    # with one tier every checkpoint is durable: drawn as the durable write
    fast_write_draw = job.fast_write_draw if two_tier else job.write_draw
    compiled_job = CompiledJob(
        work_hours=float(compute),
        segment_hours=float(segment),
        fast_write_hours=float(DRAWN_WRITE_HOURS if fast_write_draw is not None
                               else job.fast_write_hours if two_tier else job.write_hours),
        durable_write_hours=float(DRAWN_WRITE_HOURS if job.write_draw is not None
                                  else job.write_hours),
        restart_hours=float(job.restart_hours),
        fast_restart_hours=float(
            job.restart_hours if job.fast_restart_hours is None else job.fast_restart_hours
        ),
        restart_init_hours=float(job.restart_init_hours),
        persist_hours=float(job.persist_hours),
        horizon_hours=float(np.inf if job.horizon_hours is None else job.horizon_hours),
        idle_failures=bool(job.idle_failures),
        keep_checkpoints=int(job.keep_checkpoints or 0),
        archive_every=int(job.archive_every or 0),
        maintenance_every_hours=float(job.maintenance_every_hours or np.inf),
        maintenance_hours=float(job.maintenance_hours),
        maintenance_checkpoint_first=bool(job.maintenance_checkpoint_first),
        last_segment_work_hours=float(compute - checkpoints * segment),
        durable_every=int(job.durable_every),
        total_segments=int(checkpoints + 1),
        storage_on_fabric=bool(job.storage_on_fabric),
        failures_during_recovery=bool(job.failures_during_recovery),
        drains=any(m.drain != "never" for m in modes),
        spare_pool_swap_hours=float(job.spare_pool_swap_hours),
        restart_success=float(job.restart_success),
        restart_max_attempts=int(job.restart_max_attempts),
        restart_max_requeues=int(job.restart_max_requeues),
        requeue_delay_hours=float(job.requeue_delay_hours),
        black_hole=float(job.black_hole),
        preempt_save_probability=float(job.preempt_save_probability),
        preempt_save_hours=float(job.preempt_save_hours),
        durable_save_fail=float(job.durable_save_fail),
        fast_save_fail=float(job.fast_save_fail),
        fast_corrupt=float(job.fast_corrupt),
        save_hang=float(job.save_hang),
        save_timeout_hours=float(job.save_timeout_hours),
        **_drawn_fields("load", job.restart_load),
        **_drawn_fields("write", job.write_draw),
        **_drawn_fields("fast_write", fast_write_draw),
        fast_save_hang=float(job.fast_save_hang),
        walks_saves=bool(job.saves_walked),
        **_drawn_fields("fast_load", job.fast_load),
        burn_in_hours=float(job.burn_in_hours),
        repair_crews=int(job.repair_crews),
    )
    depth = 1 + max([len(m.slowdown_by_count) for m in modes] + [1])
    table = np.ones((2 * len(modes), depth))
    for index, mode in enumerate(modes):
        steps = list(mode.slowdown_by_count)
        table[index, 1:] = [steps[min(k, len(steps) - 1)] for k in range(depth - 1)]
        table[len(modes) + index, 1:] = mode.soft_slowdown
    # a mode whose units have a history is drawn unit by unit, in windows
    exponential = [
        i for i, m in enumerate(modes)
        if on_the_fly and m.lifetime.kind == "exponential" and m.history is None
    ]  # fmt: skip
    rates = np.array([modes[i].job_rate_per_hour for i in exponential])
    probability, alias = alias_table(rates, exponential)
    compiled_modes = CompiledModes(
        impact=np.array([IMPACT_CODES[m.impact] for m in modes], dtype=np.int64),
        detect_hours=np.array([m.detect_hours for m in modes], dtype=float),
        uses_spares=np.array([m.uses_spares for m in modes], dtype=np.bool_),
        spares_needed=np.array([m.spares_needed for m in modes], dtype=np.int64),
        spare_domain=np.array([m.spare_domain for m in modes], dtype=np.bool_),
        loses_fast_checkpoint=np.array([m.loses_fast_checkpoint for m in modes],
                                       dtype=np.bool_),
        self_healing=np.array([m.self_healing for m in modes], dtype=np.bool_),
        stall_hours=np.array([m.stall_hours for m in modes], dtype=float),
        soft_hours=np.array([m.soft_hours for m in modes], dtype=float),
        survivable_count=np.array(
            [NO_LIMIT if m.survivable_count is None else m.survivable_count for m in modes],
            dtype=np.int64,
        ),
        rework_hours=np.array([m.rework_hours for m in modes], dtype=float),
        needs_spare=np.array([m.needs_spare for m in modes], dtype=np.bool_),
        evict_at_checkpoint=np.array([m.evict_at_checkpoint for m in modes], dtype=np.bool_),
        detect_probability=np.array([m.detect_probability for m in modes], dtype=float),
        recall=np.array([m.recall for m in modes], dtype=float),
        late_detect_hours=np.array([m.late_detect_hours for m in modes], dtype=float),
        episode_kind=np.array([-1 if m.episode is None else duration_code(m.episode.kind)
                               for m in modes], dtype=np.int64),
        episode_scale_hours=np.array([0.0 if m.episode is None else m.episode.scale_hours
                                      for m in modes], dtype=float),
        episode_shape=np.array([0.0 if m.episode is None else m.episode.shape
                                for m in modes], dtype=float),
        tolerate_hours=np.array([m.tolerate_hours for m in modes], dtype=float),
        reroute_after_hours=np.array([m.reroute_after_hours for m in modes], dtype=float),
        drain=np.array([DRAIN_POLICIES.index(m.drain) for m in modes], dtype=np.int64),
        fails_idle=np.array([m.fails_while_down for m in modes], dtype=np.bool_),
        slowdown_table=table,
        repair_kind=np.array([duration_code(m.repair.kind) for m in modes], dtype=np.int64),
        repair_scale_hours=np.array([m.repair.scale_hours for m in modes], dtype=float),
        repair_shape=np.array([m.repair.shape for m in modes], dtype=float),
        repair_burn_in_hours=np.array([m.return_burn_in_hours for m in modes], dtype=float),
        exponential_rate_per_hour=float(rates.sum()),
        exponential_modes=np.array(exponential, dtype=np.int64),
        exponential_probability=probability,
        exponential_alias=alias,
    )  # fmt: skip
    return CompiledModel(
        job=compiled_job,
        modes=compiled_modes,
        window_modes=tuple(i for i in range(len(modes)) if i not in exponential),
    )


def alias_table(weights: np.ndarray, labels: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """Walker's alias table (Vose's construction) for drawing ``labels`` by ``weights``.

    Column ``k`` holds ``labels[k]`` with probability ``probability[k]`` and
    ``alias[k]`` otherwise; a uniform ``u`` picks column ``floor(u K)`` and compares its
    fraction with ``probability``.

    Parameters
    ----------
    weights : numpy.ndarray of float
        Relative weight of each label (any unit, such as failures per hour).
    labels : list of int
        The labels to draw.

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
