"""The phases of the walk of trials (:mod:`relplan.sim.timeline`), and their helpers.

The walk is the loop over a trial's steps; each step calls phases, one concern per
module: :mod:`.arrival` (what happens next), :mod:`.checkpoint` (progress over segments,
what a stop keeps), :mod:`.recovery` (the job down, its restart), :mod:`.degradation`
(failures the job runs on through) and :mod:`.accounting` (a trial's entries, hours
booked at the ends). Each phase is inlined into the walk by numba
(:data:`.jit.walk_phase`): it costs no call, and the features it branches on are pruned
with the walk's constants.

The phases share these parameters (hours unless said):

has_trace, has_horizon, has_maintenance, has_fail_slow, has_corruption, has_drain,
has_planned_stops, has_idle_failures, has_spare_pool, has_degradations,
has_random_restarts, has_preemption, has_random_saves : bool
    The walk's features (:class:`relplan.sim.compiled.WalkFeatures`): constants of the
    walk, so numba prunes the code of those that are off.
trial : int
    The trial walked (a row of the state).
clock : :class:`.values.TrialClock`
    Its phase and clocks.
booked : :class:`.values.BookedHours`
    Its hours booked to each bucket.
held : :class:`relplan.sim.compiled.HeldHours`
    Its hours a failure may still roll back.
sources : :class:`.values.Sources`
    Where its failures come from: its random stream, its next failure on the fly, its
    next pre-drawn event.
end : int
    The end of its pre-drawn events in the window.
steps : int
    Steps it has walked (each a failure or another event).
slowdown : float
    The step-time ratio of its degradations in progress (1: none).
nxt : :class:`.values.NextEvent`
    The step's next event, and what it was weighed against.
event : :class:`.values.Event`
    What happens at the step: a stop of the job, or a failure it runs on through.
job, modes, window, streams, state, trace
    The job's numbers, the failure modes, the window of pre-drawn events, the trials'
    random streams, the block's trials (updated in place) and the trace
    (:mod:`relplan.sim.compiled`).
cancel : numpy.ndarray of bool
    One flag: once set (Ctrl-C), the trial stops where it is.

A phase returns new values of the named tuples it changes (:mod:`.values`), and, where
the walk must go on otherwise, a code (``GO_ON``, ``NEXT_STEP``) or a phase (FINISHED).
"""
