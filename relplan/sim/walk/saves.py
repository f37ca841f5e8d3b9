"""Saves that may be lost or hang, and fast checkpoints that may be unusable: the
checkpoint a restart finds good (``job.checkpoint.fail``, ``job.checkpoint.fast.fail`` and
``corrupt``), and the durable save that hangs next (``job.checkpoint.hang``).

Whether a save held is drawn when a restart needs it, once: a restart walks back from
its target over the saves not yet known good, each held with its tier's probability,
and the first that held (or the newest known good, at worst the start) becomes the
target and is known good from then on. Every checkpoint after the target is rewritten
by the run that follows, so no draw is ever reused. The save that hangs is drawn at the
start of each run: the run's durable saves before it are geometric.
"""

from __future__ import annotations

import math

from relplan.sim.compiled import CompiledJob, TrialState
from relplan.sim.rng import uniform_from_words
from relplan.sim.walk.jit import walk_phase


@walk_phase
def good_checkpoint(
    trial: int, target: int, durable: int, lost_fast_tier: bool, words: tuple,
    job: CompiledJob, state: TrialState,
) -> tuple[int, tuple]:  # fmt: skip
    """The checkpoint a restart aimed at ``target`` finds good.

    A fast checkpoint is unusable with probability ``fast_corrupt``: the restart falls
    back to the durable tier (``durable``). Then, from the target back, each save not yet
    known good held with probability ``1 - fail`` of its tier (a durable boundary every
    ``durable_every`` checkpoints, the fast tier between); over the durable tier only
    when the fast tier is lost or unusable.

    Parameters
    ----------
    target : int
        The checkpoint the restart aims at (committed checkpoints counted from the start).
    durable : int
        The newest durable checkpoint.
    lost_fast_tier : bool
        Whether the stop took the fast tier (the target is then ``durable``).
    words : tuple
        The trial's random stream.

    Returns
    -------
    (int, tuple)
        The checkpoint found good, and the stream.

    Other Parameters
    ----------------
    trial, job, state
        As for every phase (:mod:`relplan.sim.walk`).
    """
    every = job.durable_every
    durable_only = lost_fast_tier or every == 1
    if not durable_only and target > durable and job.fast_corrupt > 0.0:
        u, words = uniform_from_words(words)
        if u < job.fast_corrupt:  # the fast checkpoint is unusable: the durable tier
            target = durable
            durable_only = True
    floor = state.verified_durable[trial] if durable_only else state.verified_checkpoint[trial]
    floor = min(floor, target)  # a corruption found goes further back: taken as good
    while target > floor:
        fail = job.durable_save_fail if target % every == 0 else job.fast_save_fail
        if fail <= 0.0:
            break
        u, words = uniform_from_words(words)
        if u >= fail:  # this save held
            break
        target -= every if durable_only else 1
    target = max(target, floor)  # the newest known good, at worst
    state.verified_checkpoint[trial] = target
    if target % every == 0:
        state.verified_durable[trial] = target
    return target, words


@walk_phase
def next_hang(start: int, words: tuple, job: CompiledJob) -> tuple[int, tuple]:
    """The checkpoint whose durable save hangs first in a run from checkpoint ``start``:
    the first durable one after it, then as many durable ones on as the saves that held
    before, ``floor(log(u) / log(1 - hang))`` (one uniform).

    Parameters
    ----------
    start : int
        The checkpoint the run starts from.
    words : tuple
        The trial's random stream.

    Returns
    -------
    (int, tuple)
        The checkpoint (counted from the start of the job), and the stream.

    Other Parameters
    ----------------
    job
        As for every phase (:mod:`relplan.sim.walk`).
    """
    every = job.durable_every
    u, words = uniform_from_words(words)
    held = math.floor(math.log(u) / math.log1p(-job.save_hang))
    first = (start // every + 1) * every
    return first + min(held, job.total_segments) * every, words
