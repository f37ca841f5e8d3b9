"""Rows of the timeline of the traced trial."""

from __future__ import annotations

from relplan.sim.compiled import TraceBuffer
from relplan.sim.walk.jit import array_helper


@array_helper
def _emit(trace: TraceBuffer, start: float, end: float, code: int,
          a: float, b: float, c: float) -> None:  # fmt: skip
    """Append the row ``[start, end, code, a, b, c]`` to ``trace`` (count it if full)."""
    row = trace.row_count[0]
    if row < trace.rows.shape[0]:
        trace.rows[row, 0] = start
        trace.rows[row, 1] = end
        trace.rows[row, 2] = code
        trace.rows[row, 3] = a
        trace.rows[row, 4] = b
        trace.rows[row, 5] = c
    trace.row_count[0] = row + 1
