"""The per-trial job timeline, compiled with numba: the engine's hot loop.

A trial walks its failures in order of *exposure* (hours of hardware in use). Between
two things that happen (a failure, the end of a degradation, the end of a restart, the
end of the job) it advances in closed form over checkpoint segments, so its cost is
O(failures), not O(checkpoints).

The job runs segments of ``segment_hours`` (tau) of compute each followed by a blocking
write: ``fast_write_hours`` normally, ``durable_write_hours`` on every
``durable_every``-th checkpoint (one tier: ``durable_every = 1``); see
:class:`relplan.sim.compiled.CompiledJob`. Progress is counted in *job-time*: hours at
full speed. While degraded at slowdown ``s``, the job computes at ``1 / s`` job-hours per
hour; it writes checkpoints at that pace too if storage shares the compute fabric
(``storage_on_fabric``), else at full speed. A stretch of ``n`` whole segments at ``s``
takes ``n (s tau + delta)`` hours (the durable writes counted in with two tiers), so the
progress a stretch reaches, and the time to the end of the job, come in closed form
(:func:`progress_after`). The extra time goes to the ``degraded`` bucket.

Impacts of a failure:

- FATAL: everything since the last surviving checkpoint becomes ``rework``: the compute
  and writes, and the extra time of slowed running and the stalls in them (moved from
  ``degraded`` and ``stall``); detection, then a spare or a wait for the repair (idle: no
  exposure), then a restart (exposure: may fail again). To know what to move in O(1),
  each trial holds the degraded and stall hours of the segment they were spent in, and
  those of completed segments after its last durable checkpoint
  (:class:`relplan.sim.compiled.HeldHours`); they are settled only when more come in or
  a failure strikes (:func:`_hold_hours`), so running at full speed costs nothing more.
- DEGRADED: the job runs on, slowed, until the unit's repair ends (wall clock); a
  failure beyond the mode's survivable count (every spine lost) is FATAL instead.
- TRANSIENT: the network stalls for the mode's stall time (exposure): the job makes no
  progress, and a restart under way pauses; then the job optionally runs slowed for a
  while (soft degradation, such as PFC congestion). Stalls that overlap count their
  union: one that starts during another adds only what reaches beyond it.
- ELASTIC: the job drops the failed data-parallel replica instead of rolling back: it
  stalls for detection plus reconfiguration (as a transient stall does), then runs on
  with fewer replicas (slowdown ``DP / (DP - k)``) until a spare, or the repaired unit,
  rejoins.

Failures come from two sources, merged in time: exponential modes drawn on the fly
from each trial's own xoshiro256** stream (a Poisson superposition: per event a gap from
the ziggurat, a uniform for the mode and one for the repair), and pre-drawn, sorted
window events of non-exponential modes.

Compilation. The trials are walked by the function :func:`walk_kernel` returns for the
features a model uses (:class:`relplan.sim.compiled.WalkFeatures`): a trace, a calendar
window, maintenance, fail-slow units, corruption, drains, stops that wait for a
checkpoint, failures while down, a second tier of spares, degradations. They are
constants of the walk (values it closes over), so numba prunes the branches of the
features that are off before it types the walk: a config compiles and runs only what it
uses, and numba caches each set of features on disk apart (its cache key holds the
closed-over values). A plain serial function, it runs without the GIL (with numpy's
error model: a division by zero gives inf, as in a numba parallel loop);
:func:`walk_trials` spreads the trials over the cores with Python threads, which take
them a short run at a time from one atomic counter (:mod:`relplan.sim.claims`): a thread
on a slower core takes fewer, so the threads end together. As the body of a ``prange``
loop it compiled about 10 s slower (numba's parallel passes), for no gain
in speed.

The walk in phases. The walk itself is the loop over a trial's steps; what a step does
is in named phases, one concern per module of :mod:`relplan.sim.walk`:
:mod:`~relplan.sim.walk.arrival` (the next event from the two sources, the calendar
window, planned and delayed events, the failure drawn), :mod:`~relplan.sim.walk.checkpoint`
(a run's progress over its segments, what a stop keeps: the checkpoint a planned stop
waited for, rework, the rollback to a retained checkpoint),
:mod:`~relplan.sim.walk.recovery` (the job down: detection, a spare or a repair,
failures meanwhile, drains, the restart), :mod:`~relplan.sim.walk.degradation` (degraded,
slow, elastic and transient failures, the ends of degradations) and
:mod:`~relplan.sim.walk.accounting` (a trial's entries read and written back, the hours
booked when a phase or the calendar window ends). A phase is inlined into the walk by
numba before typing (:data:`relplan.sim.walk.jit.walk_phase`), so it costs no call, and
it takes the walk's features as arguments: numba prunes their branches after inlining,
with the walk's constants, so each feature set still compiles only what it uses. It
takes and returns the trial's values as immutable named tuples of scalars
(:mod:`relplan.sim.walk.values`: its clocks, its booked hours, the step's next event and
what happened at it), which LLVM keeps in registers. The walk is compiled without
numba's reference counting (it allocates nothing), so the records of arrays the phases
take cost no count updates: before, the stop of a job was kept in the walk because as a
function of its own, with reference counts, it cost about a microsecond per failure.
The helpers that take the trials' arrays (the spares away, the slowdown, trace rows,
failures while down) are compiled without it too (:data:`relplan.sim.walk.jit.array_helper`),
and LLVM inlines the small ones. Numba keys the cache of the walk on this file alone and
the values the walk closes over: :func:`walk_source_key`, a hash of the phases' sources,
is one of them, so a change of a phase compiles the walk again. Inlining the phases
costs compile time: numba copies each phase's IR, and each phase's copy of a record it
takes, each read of a field loading the whole record, cost LLVM most of the walk's
compile until the walk's compiler (:class:`relplan.sim.walk.jit.WalkCompiler`) read each
field once, at the walk's entry; see the Performance page for the measurements.

Cost per event. While a trial is walked its own entries (phase, clocks, progress,
checkpoints, bucket hours) are local values, written back when it stops (a trial not
walked yet starts from the initial values without reading them, and one that finished
writes back only what the outcomes read), and a restart
that ends before anything else happens is booked in its failure's step (the fast path:
one step per failure instead of two). What is left per failure is the random draws
(three uniforms, a logarithm, the alias pick), the crash's bookkeeping and the spares
away (a sorted list: O(1) when the repair ends after those under way).

Planned and delayed events join the failures: maintenance windows on a wall-clock
schedule, the detection of a fail-slow unit, of a corruption or of a degraded server that
drains, and the checkpoint a planned stop waits for (see
:class:`relplan.sim.compiled.TrialState`).
"""


from __future__ import annotations

import functools
import hashlib
import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import numba
import numpy as np

from relplan.sim import claims, compiled, rng, walk
from relplan.sim.claims import claim, claim_run
from relplan.sim.compiled import CORRUPTION, FINISHED, RESTARTING, SLOW, WalkFeatures
from relplan.sim.walk.accounting import end_at_horizon, end_phase, start_trial, store_trial
from relplan.sim.walk.arrival import draw_failure, next_event, planned_event
from relplan.sim.walk.checkpoint import (
    advance_run,
    note_corruption,
    rework_run,
    roll_back,
    stop_job,
)
from relplan.sim.walk.degradation import end_degradation, keep_running, strike_slow
from relplan.sim.walk.degraded_units import _current_slowdown
from relplan.sim.walk.jit import WalkCompiler
from relplan.sim.walk.recovery import (
    book_downtime,
    replacement,
    restart_first,
    wait_while_down,
)
from relplan.sim.walk.segments import completed_segments as completed_segments
from relplan.sim.walk.segments import segments_time as segments_time
from relplan.sim.walk.segments import slowed_job_hours as slowed_job_hours
from relplan.sim.walk.spares import _free_spares as _free_spares
from relplan.sim.walk.spares import _replacement_wait as _replacement_wait
from relplan.sim.walk.values import NEXT_STEP, NO_STOP_KIND, STOP_AT_CHECKPOINT, Sources

WALK_THREADS = max(1, numba.config.NUMBA_NUM_THREADS)
"""Threads a walk spreads its trials over: numba's thread count (every core, unless
``NUMBA_NUM_THREADS`` says otherwise)."""

MIN_TRIALS_PER_THREAD = 64
"""Fewest trials worth handing to another thread (light trials: a few microseconds)..."""

MIN_WINDOW_EVENTS_PER_THREAD = 1_024
"""...or fewest pre-drawn failures: trials that hold many (a large fleet with lemons, a
few hundred trials a block) are worth a thread each."""



def _walk_sources() -> list[Path]:
    """The source files of the compiled walk: this module, its phases and what they call."""
    return [Path(__file__), *sorted(Path(walk.__file__).parent.glob("*.py")),
            *(Path(module.__file__) for module in (claims, compiled, rng))]  # fmt: skip


@functools.cache
def walk_source_key() -> int:
    """A hash of the walk's sources (:func:`_walk_sources`), a value the walk closes over.

    Numba keys its cache of a function on that function's own file (and the values it
    closes over): a change of a phase in another module would leave a stale walk in the
    cache. With this key among the closed-over values, it does not.

    Returns
    -------
    int
        Non-negative, below 2**62.

    Examples
    --------
    >>> 0 <= walk_source_key() < 2**62
    True
    """
    digest = hashlib.sha256()
    for path in _walk_sources():
        try:
            digest.update(path.read_bytes())
        except OSError:  # no source (a frozen install): numba cannot cache it either
            digest.update(path.name.encode())
    return int.from_bytes(digest.digest()[:8], "little") >> 2


@functools.cache
def walk_kernel(features: WalkFeatures) -> numba.core.registry.CPUDispatcher:
    """The walk of trials compiled for one set of features.

    Each feature is a constant of the walk: numba prunes the branches of the features
    that are off before it types the walk, so their code is neither compiled nor run.
    Each set of features compiles once, on first use, and is cached on disk apart
    (numba keys its cache on the values the walk closes over).

    Parameters
    ----------
    features : WalkFeatures
        The features the walk needs (:meth:`relplan.sim.compiled.WalkFeatures.of`).

    Returns
    -------
    numba dispatcher
        ``walk(next_slot, stop_slot, run_trials, job, modes, window, streams, state,
        trace, cancel)``: it walks trials ``window.active_trials[next_slot[0]:stop_slot]``,
        taking them from the shared counter ``next_slot`` with the other threads that
        call it at once
        (its own docstring says how).

        If a trial is ``trace.trial``, every interval is written to ``trace.rows`` as a row
        ``[wall_start, wall_end, code, a, b, c]``: RUN (a, b = job-time at its ends since
        the restart, c = checkpoints committed at the restart), RESTART, DETECT and WAIT
        (a = mode), FAILURE (a point; a = mode, b = impact), STALL (a = mode, b = job-time
        since the restart at which the job stalled, -1 during a restart; c = checkpoints
        committed at the restart), FINISH and ROLLBACK (a fast tier lost: a = the durable
        checkpoint, b = the one rolled back from). A stall row covers only the time it adds
        to the stalls in progress.

    Examples
    --------
    >>> features = WalkFeatures(*[False] * len(WalkFeatures._fields))
    >>> walk_kernel(features) is walk_kernel(features)
    True
    """
    has_trace = bool(features.trace)
    has_horizon = bool(features.horizon)
    has_maintenance = bool(features.maintenance)
    has_fail_slow = bool(features.fail_slow)
    has_corruption = bool(features.corruption)
    has_drain = bool(features.drain)
    has_planned_stops = bool(features.planned_stops)
    has_idle_failures = bool(features.idle_failures)
    has_spare_pool = bool(features.spare_pool)
    has_degradations = bool(features.degradations)
    has_random_restarts = bool(features.random_restarts)
    has_preemption = bool(features.preemption)
    has_random_saves = bool(features.random_saves)
    has_detection = bool(features.detection)
    has_fleet_preemption = bool(features.fleet_preemption)
    source_key = walk_source_key()

    @numba.njit(cache=True, nogil=True, error_model="numpy", _nrt=False,
                pipeline_class=WalkCompiler)
    def walk_trial_slots(
        next_slot: np.ndarray, stop_slot: int, run_trials: int, job: compiled.CompiledJob,
        modes: compiled.CompiledModes, window: compiled.EventWindow,
        streams: compiled.TrialStreams, state: compiled.TrialState,
        trace: compiled.TraceBuffer, cancel: np.ndarray,
    ) -> None:  # fmt: skip
        """Walk trials ``window.active_trials[next_slot[0]:stop_slot]``, ``run_trials`` at
        a time taken from the counter ``next_slot`` (shared by the threads: each trial is
        walked once), until each one's job ends, its exposure reaches
        ``window.horizon_hours`` or its wall clock ``window.wall_limit_hours`` (a fleet),
        updating their entries of ``state`` and ``streams``.

        Each trial takes its failures from its events in ``window`` and from its on-the-fly
        stream (modes ``modes.exponential_modes``); it touches no other trial's entries.

        Parameters
        ----------
        next_slot : numpy.ndarray of int64
            One entry, shared by the threads: the next slot of ``window.active_trials``
            not yet taken (advanced atomically, see :func:`relplan.sim.claims.claim`).
        stop_slot, run_trials : int
            The end of the slots to walk; trials a thread takes at a time (claim_run).
        job, modes, window, streams, state : CompiledJob, ..., TrialState
            The job, its modes, the window's trials, events and horizon; the trials'
            random streams and state, updated in place.
        trace : TraceBuffer
            Where to write the timeline of ``trace.trial`` (-1: none).
        cancel : numpy.ndarray of bool
            One flag, read at every step: once set (Ctrl-C), every trial stops where it is.
        """
        if source_key < 0:  # never (numba prunes it): puts the key in the closure
            return
        offsets = window.offsets
        max_events = job.max_events_per_trial
        traced = trace.trial
        # the slots this thread has taken: [slot, taken_to), a run at a time (claims.py)
        slot = 0
        taken_to = 0
        while True:
            if slot >= taken_to:
                slot = claim(next_slot, run_trials)
                if slot >= stop_slot:
                    break
                taken_to = min(slot + run_trials, stop_slot)
            trial = window.active_trials[slot]
            end = offsets[slot + 1]
            steps = state.events_walked[trial]
            clock, booked, held, sources, slowdown = start_trial(
                has_degradations, has_drain, has_random_saves, trial, steps == 0,
                offsets[slot], job, modes, streams, state)  # fmt: skip
            while True:
                steps += 1
                if steps > max_events:
                    state.too_many_events[0] = True
                    break
                if cancel[0]:
                    break
                nxt = next_event(has_maintenance, has_planned_stops, has_fail_slow,
                                 has_corruption, has_drain, has_degradations, has_random_saves,
                                 has_fleet_preemption, trial, clock, held, slowdown, sources,
                                 end, job, window, state)  # fmt: skip
                if nxt.x_next > window.horizon_hours or nxt.x_next == np.inf:
                    break
                if nxt.x_next + clock.idle > window.wall_limit_hours[0]:  # a fleet: others
                    state.next_wall_hours[trial] = nxt.x_next + clock.idle  # go first
                    steps -= steps > 1  # paused before its next event: no step taken
                    break
                clock, booked, held = advance_run(has_trace, has_degradations, trial, clock,
                                                  booked, held, nxt, slowdown, job, trace)
                if has_horizon and nxt.x_horizon <= nxt.x_next and nxt.x_horizon < nxt.x_phase:
                    clock, booked = end_at_horizon(has_trace, has_random_saves, trial, clock,
                                                   booked, nxt, job, state, trace)  # fmt: skip
                    break
                if nxt.x_phase <= nxt.x_next:
                    clock, booked = end_phase(has_trace, trial, clock, booked, nxt, job, trace)
                    if clock.phase == FINISHED:
                        break
                    continue
                if nxt.x_special <= nxt.x_next:
                    action, event, clock, booked, sources = planned_event(
                        has_trace, has_planned_stops, has_maintenance, has_fail_slow,
                        has_drain, has_random_saves, has_fleet_preemption, trial, clock,
                        booked, nxt, sources, job, modes, state, trace)  # fmt: skip
                    if action == NEXT_STEP:
                        continue
                elif nxt.x_deg <= nxt.e_fail:
                    slowdown = end_degradation(has_drain, has_fail_slow, trial,
                                               nxt.first_deg, job, modes, state)  # fmt: skip
                    continue
                else:
                    event, sources = draw_failure(has_trace, has_detection, has_fail_slow,
                                                  trial, clock, nxt, sources, modes, window,
                                                  state, trace, job)  # fmt: skip
                    if has_fail_slow and event.impact == SLOW:
                        slowdown = strike_slow(trial, event, slowdown, clock.idle, modes,
                                               state)  # fmt: skip
                        continue
                    if has_corruption and event.impact == CORRUPTION:
                        sources = note_corruption(trial, clock, nxt, event, sources, job, modes,
                                                  state)  # fmt: skip
                        continue
                if event.stop != NO_STOP_KIND:
                    clock, booked, held = stop_job(has_trace, has_planned_stops, trial, clock,
                                                   booked, held, nxt, event, job, state,
                                                   trace)  # fmt: skip
                    if event.stop != STOP_AT_CHECKPOINT and clock.phase != RESTARTING:
                        clock, booked, held = rework_run(has_random_saves, trial, clock, booked,
                                                         held, nxt, event, job, state)
                    clock, booked, held, words = roll_back(
                        has_trace, has_corruption, has_random_saves, trial, clock, booked,
                        held, event, sources.words, job, modes, state, trace)  # fmt: skip
                    detect, planned, wait = replacement(
                        has_fail_slow, has_maintenance, has_spare_pool, has_fleet_preemption,
                        trial, clock, event, job, modes, state)  # fmt: skip
                    wait, steps, words = wait_while_down(
                        has_idle_failures, has_drain, trial, clock, event, detect, planned,
                        wait, steps, words, job, modes, streams, state, cancel,
                    )  # fmt: skip
                    clock, booked, words = book_downtime(
                        has_trace, has_maintenance, has_random_restarts, has_fleet_preemption,
                        trial, clock, booked, event, detect, planned, wait, words, job, state,
                        trace)  # fmt: skip
                    sources = Sources(words, sources.next_exponential_hours, sources.pointer)
                    if clock.phase == FINISHED:
                        break
                    # (without degradations none is ever in progress: slowdown stays 1)
                    if has_degradations and state.degradation_count[trial] > 0:
                        slowdown = _current_slowdown(trial, state.degradations_by_row,
                                                     modes.slowdown_table)  # fmt: skip
                    elif has_degradations:
                        slowdown = 1.0
                    if clock.phase == RESTARTING and not (has_trace and trial == traced):
                        clock, booked, steps = restart_first(
                            has_maintenance, has_fail_slow, has_drain, has_corruption,
                            has_degradations, trial, clock, booked, sources, end, steps, job,
                            window, state, cancel,
                        )  # fmt: skip
                    continue
                # degraded, transient and elastic failures: the job keeps its progress
                if has_degradations:  # without, nothing gets here
                    clock, booked, held, slowdown = keep_running(
                        has_trace, has_drain, has_preemption, trial, clock, booked, held, nxt,
                        event, slowdown, job, modes, state, trace,
                    )  # fmt: skip
            store_trial(trial, clock, booked, held, sources, steps, streams, state)
            slot += 1

    return walk_trial_slots


def walk_trials(job: compiled.CompiledJob, modes: compiled.CompiledModes,
                window: compiled.EventWindow, streams: compiled.TrialStreams,
                state: compiled.TrialState, trace: compiled.TraceBuffer) -> None:  # fmt: skip
    """Walk each trial of ``window.active_trials`` until its job ends or its exposure
    reaches ``window.horizon_hours``, on every core, with the walk compiled for the features
    they use (see :func:`walk_kernel`): :func:`start_walk`, then :func:`finish_walk`.

    Parameters
    ----------
    job, modes : CompiledJob, CompiledModes
        The job's numbers and the failure modes.
    window : EventWindow
        The trials to walk, their pre-drawn failures and the horizon.
    streams, state : TrialStreams, TrialState
        The trials' random streams and the block's trials, updated in place.
    trace : TraceBuffer
        Where to write the timeline of one trial (``trace.trial = -1``: none).

    Raises
    ------
    KeyboardInterrupt
        On Ctrl-C, or when another thread has cancelled the walks (:func:`cancel_walks`).
    """
    finish_walk(start_walk(job, modes, window, streams, state, trace))


def start_walk(
    job: compiled.CompiledJob,
    modes: compiled.CompiledModes,
    window: compiled.EventWindow,
    streams: compiled.TrialStreams,
    state: compiled.TrialState,
    trace: compiled.TraceBuffer,
) -> list[Future[None]]:
    """Start walking the trials of a window on the walk's threads, and return at once.

    A pool of threads (:data:`WALK_THREADS` of them, fewer for a window with little to
    walk: :data:`MIN_TRIALS_PER_THREAD`, :data:`MIN_WINDOW_EVENTS_PER_THREAD`) walks
    them while the calling thread goes on (it may prepare the next block) and then waits
    in :func:`finish_walk`, where Ctrl-C reaches it at once. It returns once every thread
    has started, so that the calling thread's Python work does not hold the GIL that the
    threads need to start the compiled walk. Each thread takes the trials
    a run at a time from one shared counter (:mod:`relplan.sim.claims`), so a thread on
    a slower core takes fewer and the threads end together. The compiled walk runs
    without the GIL, and each trial touches only its own entries, so the results do not
    depend on which thread walks which trial.

    Parameters
    ----------
    job, modes, window, streams, state, trace
        As for :func:`walk_trials`; none may change until the walk is finished.

    Returns
    -------
    list of Future
        One per thread: pass them to :func:`finish_walk`.
    """
    trials = window.active_trials.size
    worth = max(trials // MIN_TRIALS_PER_THREAD,
                window.event_mode.size // MIN_WINDOW_EVENTS_PER_THREAD)  # fmt: skip
    threads = max(1, min(WALK_THREADS, trials, worth))
    next_slot = np.zeros(1, dtype=np.int64)
    walk = walk_kernel(WalkFeatures.of(job, modes, state, trace))
    started = threading.Semaphore(0)
    pending = [
        _walk_pool().submit(_walk_share, walk, started, next_slot, trials,
                            claim_run(trials, threads), job, modes, window, streams, state,
                            trace, CANCEL)
        for _ in range(threads)
    ]  # fmt: skip
    # Wait (without the GIL) until every thread is about to walk: a thread needs the GIL
    # to call the compiled walk, and a calling thread that went on to Python work at once
    # would hold it, for up to the interpreter's switch interval (5 ms), while the walk
    # waited (measured: 0.7 ms of a 2 ms walk of a block of `small`).
    try:
        for _ in pending:
            started.acquire()
    except BaseException:  # Ctrl-C meanwhile: stop the threads, then pass it on
        cancel_walks()
        for share in pending:
            share.exception()
        raise
    return pending


def _walk_share(walk: Callable[..., None], started: threading.Semaphore, *args: object) -> None:
    """One thread's share of a walk (see :func:`start_walk`): say it has started, then walk
    (the compiled walk lets the GIL go once it runs)."""
    started.release()
    walk(*args)


def finish_walk(pending: list[Future[None]]) -> None:
    """Wait for a walk that :func:`start_walk` started.

    Parameters
    ----------
    pending : list of Future
        What :func:`start_walk` returned.

    Raises
    ------
    KeyboardInterrupt
        On Ctrl-C while waiting (every walk under way stops at its next step, see
        :func:`cancel_walks`), or when another thread has cancelled the walks.
    """
    try:
        for share in pending:
            share.result()
    except KeyboardInterrupt:
        cancel_walks()
        for share in pending:
            share.result()
        raise
    if CANCEL[0]:
        raise KeyboardInterrupt


CANCEL = np.zeros(1, dtype=np.bool_)
"""Set to stop every walk in the process at its next step (see :func:`cancel_walks`)."""


def empty_walk_call(args: tuple) -> tuple:
    """The arguments of a call of the walk that walks no trial, from those of
    :func:`walk_trials`: their types are those of every call a run makes (to tell, or
    compile, the walk's signature without walking).

    Parameters
    ----------
    args : tuple
        ``(job, modes, window, streams, state, trace)``.

    Returns
    -------
    tuple
        ``(next_slot, 0, 1, job, modes, window, streams, state, trace, CANCEL)``, with
        ``next_slot`` a fresh counter at 0.

    Examples
    --------
    >>> empty_walk_call(("job",))[1:4]
    (0, 1, 'job')
    """
    return (np.zeros(1, dtype=np.int64), 0, 1, *args, CANCEL)


def cancel_walks() -> None:
    """Stop every walk under way at its next step; they raise KeyboardInterrupt."""
    CANCEL[0] = True


def allow_walks() -> None:
    """Clear :data:`CANCEL` before a new run."""
    CANCEL[0] = False


_pool: ThreadPoolExecutor | None = None


def _walk_pool() -> ThreadPoolExecutor:
    """The threads that walk the shares of a window's trials."""
    global _pool
    if _pool is None:
        _pool = ThreadPoolExecutor(WALK_THREADS, thread_name_prefix="relplan-walk")
    return _pool


def _forget_pool() -> None:
    """In a forked child the pool's threads are gone: start a new pool when needed."""
    global _pool
    _pool = None


os.register_at_fork(after_in_child=_forget_pool)
