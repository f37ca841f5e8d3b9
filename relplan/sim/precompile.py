"""What a run of a model calls compiled, and whether numba's cache on disk holds it.

A run calls three kinds of compiled function (each compiled by numba on first use, for
its argument types, and cached on disk): the walk of trials for the model's features
(:func:`relplan.sim.timeline.walk_kernel`), the same walk writing a trial's timeline (the
reports and ``relplan timeline`` trace one trial), and the segment arithmetic that
expands a trace (:mod:`relplan.sim.trace`). The walk's own helpers (the random streams'
draws, a trial's first on-the-fly arrival among them, the segment arithmetic, the
spares) are compiled into it; the windows of pre-drawn failures and the units' cohorts
are drawn with numpy, not compiled.
:func:`run_targets` lists them for a model, each with the argument types a run passes;
:meth:`CompileTarget.compile` compiles one into numba's cache without running anything.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from relplan.sim import timeline
from relplan.sim.compile_cache import is_compiled, signature_of
from relplan.sim.compiled import TRACE_COLUMNS, TraceBuffer, WalkFeatures, compile_model
from relplan.sim.engine import degradation_slots, one_trial_block
from relplan.sim.model import SimulationModel
from relplan.vocab import COMPILED_KINDS

WALK, TRACED_WALK, TRACE_SEGMENTS = COMPILED_KINDS
"""The kinds of compiled function a run calls (:attr:`CompileTarget.kind`)."""


def feature_names(features: WalkFeatures) -> list[str]:
    """The features a walk has on (its trace apart), in :class:`WalkFeatures` order.

    Examples
    --------
    >>> none = WalkFeatures(*[False] * len(WalkFeatures._fields))
    >>> feature_names(none._replace(trace=True, horizon=True, degradations=True))
    ['horizon', 'degradations']
    """
    return [name for name, on in features._asdict().items() if on and name != "trace"]


@dataclass(frozen=True)
class CompileTarget:
    """One compiled function of a run, for the argument types the run passes it.

    Attributes
    ----------
    kind : str
        :data:`WALK`, :data:`TRACED_WALK` or :data:`TRACE_SEGMENTS`.
    function : str
        The Python name of the compiled function.
    features : WalkFeatures or None
        The walk's features (None for the other kinds).
    dispatcher : numba dispatcher
        The function.
    signature : tuple of numba types, or None
        Its argument types (None when numba's JIT is off: nothing to compile).
    """

    kind: str
    function: str
    features: WalkFeatures | None
    dispatcher: Any
    signature: tuple | None

    @property
    def key(self) -> tuple[int, tuple | None]:
        """Two targets of one key are one compilation (the same function and types)."""
        return id(self.dispatcher), self.signature

    def is_compiled(self) -> bool:
        """Whether a run would call it without compiling first (:func:`is_compiled`)."""
        return is_compiled(self.dispatcher, self.signature)

    def compile(self) -> None:
        """Compile it for its argument types (or load it from numba's cache), without
        running it; numba writes what it compiles to its cache on disk."""
        if self.signature is not None:
            self.dispatcher.compile(self.signature)


def walk_arguments(model: SimulationModel, traced: bool) -> tuple:
    """The arguments a run of ``model`` passes the walk, for a block of one trial that has
    no pre-drawn failures (their types are those of every block of the run).

    Parameters
    ----------
    model : SimulationModel
        The job and its failure modes.
    traced : bool
        Whether the walk writes the trial's timeline.

    Returns
    -------
    tuple
        ``(job, modes, window, streams, state, trace)``, the arguments of
        :func:`relplan.sim.timeline.walk_trials`.
    """
    compiled = compile_model(model)
    state, window, streams = one_trial_block(
        model, compiled, [], [], [], slots=degradation_slots(model)
    )
    trace = (TraceBuffer.for_trial(0, np.zeros((1, TRACE_COLUMNS))) if traced
             else TraceBuffer.off())  # fmt: skip
    return compiled.job, compiled.modes, window, streams, state, trace


def run_targets(model: SimulationModel) -> list[CompileTarget]:
    """Every compiled function a run of ``model`` calls, with its argument types.

    A run calls the walk of the model's features; its report traces one trial (the walk
    with the trace on, then the segment arithmetic of :mod:`relplan.sim.trace`).

    Parameters
    ----------
    model : SimulationModel
        The job and its failure modes.

    Returns
    -------
    list of CompileTarget
        The walk, the traced walk and the trace's segment functions.

    Examples
    --------
    >>> from relplan.config.loading import load_config
    >>> from relplan.sim.model import build_model
    >>> targets = run_targets(build_model(load_config("configs/small.toml")))
    >>> [target.kind for target in targets][:3]
    ['walk', 'traced walk', 'trace segments']
    """
    targets = []
    for kind, traced in ((WALK, False), (TRACED_WALK, True)):
        args = walk_arguments(model, traced)
        job, modes, _window, _streams, state, trace = args
        features = WalkFeatures.of(job, modes, state, trace)
        dispatcher = timeline.walk_kernel(features)
        signature = signature_of(dispatcher, timeline.empty_walk_call(args))
        targets.append(CompileTarget(kind, "walk_trial_slots", features, dispatcher,
                                     signature))  # fmt: skip
    job = args[0]
    calls = [
        # the trace's calls (relplan.sim.trace): a checkpoint, counts and job-time
        (TRACE_SEGMENTS, timeline.segments_time, (job, 0, 0)),
        (TRACE_SEGMENTS, timeline.completed_segments, (job, 0, 0.0, 0)),
        (TRACE_SEGMENTS, timeline.slowed_job_hours, (job, 0, 0.0, 0, 0)),
    ]
    for kind, dispatcher, args in calls:
        name = getattr(dispatcher, "py_func", dispatcher).__name__
        targets.append(CompileTarget(kind, name, None, dispatcher,
                                     signature_of(dispatcher, args)))  # fmt: skip
    return targets
