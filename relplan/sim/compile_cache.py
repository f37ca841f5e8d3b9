"""Whether numba's cache holds a compiled function for given argument types.

Numba compiles a function on its first call with new argument types, then keeps the
machine code in the process and, for ``cache=True`` functions, in its cache on disk
(keyed on the source, numba's version, the machine and the types). These two functions
tell, without compiling or loading anything, whether a call would compile first.
"""

from __future__ import annotations

import pickle
from typing import Any


def signature_of(dispatcher: Any, args: tuple) -> tuple | None:
    """The numba argument types of a call of ``dispatcher`` with ``args`` (None when it is
    not a numba dispatcher: with ``NUMBA_DISABLE_JIT`` set, a plain Python function).

    Examples
    --------
    >>> signature_of(len, ([1, 2],)) is None
    True
    """
    try:
        return tuple(dispatcher.typeof_pyval(arg) for arg in args)
    except AttributeError:
        return None


def is_compiled(dispatcher: Any, signature: tuple | None) -> bool:
    """Whether ``dispatcher`` can take arguments of these types without compiling.

    True if this process has compiled or loaded it for them already, or if numba's cache
    on disk holds a fresh entry for them (same source, numba version, machine and
    argument types). Also True when that cannot be told (JIT disabled, or a numba without
    this cache layout), so that nothing is announced or compiled wrongly.

    Parameters
    ----------
    dispatcher : numba dispatcher
        A function compiled with ``numba.njit(cache=True)``.
    signature : tuple of numba types, or None
        The argument types (:func:`signature_of`); None: nothing compiles.

    Returns
    -------
    bool
        False if the next call with these types compiles.

    Examples
    --------
    >>> import numpy as np
    >>> from relplan.sim import rng
    >>> state = np.ones((1, 4), dtype=np.uint64)
    >>> variate = rng.uniform(state, 0)
    >>> is_compiled(rng.uniform, signature_of(rng.uniform, (state, 0)))
    True
    """
    if signature is None:
        return True
    try:
        if signature in dispatcher.overloads:
            return True
        cache = dispatcher._cache
        key = cache._index_key(signature, dispatcher.targetctx.codegen())
        return key in cache._cache_file._load_index()
    except (AttributeError, OSError, pickle.UnpicklingError):
        return True
