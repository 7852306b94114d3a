"""Assign-3 and Assign-6: write the input into the variable (keyed by variable_id).

The write lands in the call context's ``updates``; the evaluator commits it to the state after
the whole call succeeded, so every ReadValue of the call sees the state as it was at the start.
The stored array is a copy: it never aliases a model input or another value. The output is
the input.
"""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun, RunContext


@register_op("Assign", since=3)
class Assign3(OpRun):
    needs_ctx = True

    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.variable_id: str = self.attr("variable_id")

    def _run(self, x: np.ndarray, *, ctx: RunContext) -> tuple[np.ndarray, ...]:
        ctx.updates[self.variable_id] = np.array(x, copy=True)
        return (x,) if self.out_dtypes else ()


@register_op("Assign", since=6)
class Assign6(Assign3):
    """Assign-6: as Assign-3."""
