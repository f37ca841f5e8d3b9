"""How the walk's functions are compiled: the helpers that borrow the trials' arrays, the
phases inlined into the walk, and the walk's own compiler (:class:`WalkCompiler`), which
reads the fields of its records once (see :mod:`relplan.sim.timeline`)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import numba
from numba.core import ir
from numba.core.compiler import CompilerBase, DefaultPassBuilder
from numba.core.compiler_machinery import FunctionPass, register_pass
from numba.core.untyped_passes import FindLiterallyCalls

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
the records of arrays they take cost nothing either, and its compiler
(:class:`WalkCompiler`) reads each field of those records once, at the walk's entry."""


@register_pass(mutates_CFG=False, analysis_only=False)
class BindRecordFields(FunctionPass):
    """A pass of numba's compiler: read each field of the walk's records once, at its
    entry, as the walk did by hand before its split into phases.

    Numba inlines each phase with a copy of its own of each record it takes (``state``,
    ``modes``, ...: a variable in memory, as the walk's own record is, since they are
    used across the loop's blocks), and each read of a field, ``state.spares_away``,
    loads the whole record (the state's is some 350 words) to take one field out. In the
    plain walk that made 16 copies of the state and the modes and 120 loads of a whole
    state, which LLVM's SROA and correlated value propagation split up again: most of
    the walk's compile. The records are immutable named tuples and the walk never binds
    its arguments again, so ``record.field``, read anywhere through any copy, is the
    value it has at the entry. After the phases are inlined and their feature branches
    pruned, this pass reads each field read once, in the entry block, in place of every
    read, and drops the copies no longer used: the records are then used in the entry
    block alone, and numba keeps them in registers (fields the loop uses are variables of
    their own, as they were before the split). The compiled code computes the same.
    """

    _name = "relplan_bind_record_fields"

    def __init__(self) -> None:
        FunctionPass.__init__(self)

    def run_pass(self, state: Any) -> bool:
        """Read the fields of the :data:`RECORD_ARGUMENTS` at the walk's entry.

        Parameters
        ----------
        state : numba.core.compiler.StateDict
            The compile's state; its ``func_ir`` is changed in place.

        Returns
        -------
        bool
            Whether the IR changed.
        """
        blocks = state.func_ir.blocks
        entry = blocks[min(blocks)]
        assigns = [s for b in blocks.values() for s in b.body if isinstance(s, ir.Assign)]
        definitions = Counter(s.target.name for s in assigns)
        root = {s.target.name: s.target for s in entry.body
                if isinstance(s, ir.Assign) and isinstance(s.value, ir.Arg)
                and s.value.name in RECORD_ARGUMENTS and definitions[s.target.name] == 1}
        copies = [s for s in assigns
                  if isinstance(s.value, ir.Var) and definitions[s.target.name] == 1]
        grown = True
        while grown:  # copies of copies
            grown = False
            for s in copies:
                if s.value.name in root and s.target.name not in root:
                    root[s.target.name] = root[s.value.name]
                    grown = True
        bound: dict[tuple[str, str], ir.Var] = {}
        reads = []
        for s in assigns:
            value = s.value
            if isinstance(value, ir.Expr) and value.op == "getattr" and value.value.name in root:
                record = root[value.value.name]
                key = (record.name, value.attr)
                if key not in bound:
                    bound[key] = entry.scope.redefine(f"{record.name}__{value.attr}", s.loc)
                    reads.append(ir.Assign(ir.Expr.getattr(record, value.attr, s.loc),
                                           bound[key], s.loc))
                s.value = bound[key]
        if not reads:
            return False
        at = max(k for k, s in enumerate(entry.body)
                 if isinstance(s, ir.Assign) and isinstance(s.value, ir.Arg)) + 1
        entry.body[at:at] = reads
        used = {v.name for b in blocks.values() for s in b.body
                if not (isinstance(s, ir.Assign) and isinstance(s.value, ir.Var))
                for v in s.list_vars()}
        used |= {s.value.name for s in assigns if isinstance(s.value, ir.Var)}
        for block in blocks.values():
            block.body = [s for s in block.body if not (
                isinstance(s, ir.Assign) and isinstance(s.value, ir.Var)
                and s.value.name in root and s.target.name in root
                and s.target.name not in used and s.target is not root[s.target.name])]
        return True


RECORD_ARGUMENTS = frozenset({"job", "modes", "window", "streams", "state", "trace"})
"""The walk's arguments that are records (named tuples) read by :class:`BindRecordFields`."""


class WalkCompiler(CompilerBase):
    """Numba's compiler of the walk (``pipeline_class``): its nopython pipeline, with
    :class:`BindRecordFields` after the phases are inlined and pruned."""

    def define_pipelines(self) -> list:
        """Numba's nopython pipeline, :class:`BindRecordFields` after the inlining passes.

        Returns
        -------
        list of numba.core.compiler_machinery.PassManager
            The one pipeline.
        """
        pipeline = DefaultPassBuilder.define_nopython_pipeline(self.state)
        pipeline.add_pass_after(BindRecordFields, FindLiterallyCalls)
        pipeline.finalize()
        return [pipeline]
