"""How the walk's functions are compiled: the helpers that borrow the trials' arrays, and
the phases inlined into the walk (see :mod:`relplan.sim.timeline`)."""

from __future__ import annotations

import numba

array_helper = numba.njit(cache=True, nogil=True, error_model="numpy", _nrt=False)
"""Compile a helper of the walk that takes the trials' arrays and allocates none.

Numba counts references to the arrays a function takes (an atomic add at its entry and
another at its exit, for each array argument, wherever neither can be proven useless);
in the walk's helpers that kept the state's arrays' counts busy at every failure, about
40% of the walk's time (and the two threads of a walk fought over the same counts).
Compiled without numba's runtime (``_nrt=False``), a helper borrows its arrays for the
call: no count changes, and LLVM can still inline it. Such a helper can neither allocate
nor call one that does."""

inlined_array_helper = numba.njit(cache=True, nogil=True, error_model="numpy", _nrt=False,
                                   inline="always")
"""An :data:`array_helper` small enough to be inlined into the helpers that call it
(a call would copy each array's descriptor onto the stack)."""

walk_phase = numba.njit(cache=True, inline="always")
"""Compile a phase of the walk (:mod:`relplan.sim.walk`): inlined into the walk by numba
before typing, so it costs no call, and its branches on a feature (the ``has_*``
arguments, constants of the walk) are pruned there, as if written in the walk. Phases
take and return the trial's values as named tuples of scalars
(:mod:`relplan.sim.walk.values`); the walk is compiled without reference counting, so
the records of arrays they take cost nothing either."""
