"""Trials handed out to the threads of a walk as they ask: an atomic counter for compiled code.

The threads that walk a window's trials take them in small runs from one shared counter
(:func:`claim`), so a thread on a core that runs slower (a busy sibling, a throttled
virtual CPU) simply takes fewer runs, and every thread ends within one run of the others.
Each trial touches only its own entries, so which thread walks a trial never changes a
number.

numba has no atomic operations for the CPU; :func:`claim` is an LLVM ``atomicrmw add``
on one int64 entry of an array (sequentially consistent).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numba
import numpy as np
from numba.core import cgutils, types
from numba.extending import intrinsic

CLAIM_TRIALS = 64
"""Trials a thread of the walk takes at a time at most: a few microseconds of work each
on a light config, so the threads end close together, and 512 bytes of each of the
state's arrays, so two threads rarely write to the same cache line."""

RUNS_PER_THREAD = 8
"""Runs each thread takes of a window at least (fewer trials a run for a small window):
on a config whose trials are long (a large fleet, a few hundred trials a block), two
runs of 64 would leave one thread idle while the other walked the second."""


def claim_run(trials: int, threads: int) -> int:
    """Trials a thread takes at a time, when ``threads`` walk ``trials`` trials.

    Parameters
    ----------
    trials : int
        Trials of the window.
    threads : int
        Threads walking them.

    Returns
    -------
    int
        :data:`CLAIM_TRIALS`, or fewer so that each thread takes at least
        :data:`RUNS_PER_THREAD` runs; at least 1.

    Examples
    --------
    >>> claim_run(10_000, 2), claim_run(97, 2), claim_run(5, 2)
    (64, 6, 1)
    """
    return max(1, min(CLAIM_TRIALS, trials // (RUNS_PER_THREAD * max(1, threads))))


@intrinsic
def _fetch_add(
    typingctx: Any, counter: types.Type, amount: types.Type
) -> tuple[types.Type, Callable[..., Any]] | None:
    """Add ``amount`` to ``counter[0]`` atomically and return the value before."""
    if not (isinstance(counter, types.Array) and counter.dtype == types.int64
            and counter.ndim == 1 and isinstance(amount, types.Integer)):  # fmt: skip
        return None
    signature = types.int64(counter, amount)

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        array_type = sig.args[0]
        array = context.make_array(array_type)(context, builder, args[0])
        pointer = cgutils.get_item_pointer(context, builder, array_type, array,
                                           [context.get_constant(types.intp, 0)])  # fmt: skip
        value = context.cast(builder, args[1], sig.args[1], types.int64)
        return builder.atomic_rmw("add", pointer, value, "seq_cst")

    return signature, codegen


@numba.njit(cache=True, nogil=True, inline="always")
def claim(counter: np.ndarray, amount: int) -> int:
    """Take the next ``amount`` slots from a shared counter; return the first one.

    Parameters
    ----------
    counter : numpy.ndarray of int64
        One entry: the next slot not yet taken, shared by the threads.
    amount : int
        Slots to take.

    Returns
    -------
    int
        The first slot taken (the counter before the addition).

    Examples
    --------
    >>> counter = np.zeros(1, dtype=np.int64)
    >>> claim(counter, 64), claim(counter, 64), int(counter[0])
    (0, 64, 128)
    """
    return _fetch_add(counter, amount)
