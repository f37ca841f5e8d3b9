"""The least a program pays to run compiled code from numba's cache: one cached function.

The start-up study (:mod:`benchmarks.startup`) sets ``relplan simulate`` against a process
that imports numpy, typer and numba and calls :func:`cached_call` once: loading any
function from numba's on-disk cache makes numba load its target's registries (its
lowering of numpy, which checks for scipy's BLAS), a fixed cost of every numba program
that bare ``import numba`` does not show.
"""

from __future__ import annotations

import numba


@numba.njit(cache=True)
def cached_call(value: float) -> float:
    """``value + 1``, compiled once and loaded from numba's cache afterwards.

    Examples
    --------
    >>> cached_call(1.0)
    2.0
    """
    return value + 1.0
