"""ReadValue-3 and ReadValue-6: the variable's value from the call's state, keyed by variable_id.

When the state holds no value for the variable: the initializing input (ReadValue-3 always has
one; ReadValue-6 may), else zeros of ``variable_shape`` (dynamic dims take their lower bound,
so a fully dynamic dim is 0). A stored value must have the variable's element type and a shape
its declared shape allows.
"""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun, RunContext


@register_op("ReadValue", since=3)
class ReadValue3(OpRun):
    needs_ctx = True

    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.variable_id: str = self.attr("variable_id")
        self.shape = node.attrs.get("variable_shape") or node.get_output_partial_shape(0)
        self.dtype = self.out_dtypes[0]

    def _run(self, *init: np.ndarray, ctx: RunContext) -> tuple[np.ndarray, ...]:
        stored = ctx.state.get(self.variable_id)
        if stored is not None:
            return (self._checked(stored),)
        if init:
            return (init[0],)
        return (self._zeros(),)

    def _checked(self, value: np.ndarray) -> np.ndarray:
        value = np.asarray(value)
        if value.dtype != self.dtype or not self.shape.fits(value.shape):
            raise self.fail(f"the state of variable {self.variable_id!r} holds {value.dtype} {list(value.shape)}; "
                            f"the variable is {self.out_types[0]} {self.shape}.")
        return value

    def _zeros(self) -> np.ndarray:
        if not self.shape.has_rank():
            raise self.fail(f"variable {self.variable_id!r} has no value, no initializer and a dynamic rank, "
                            "so no zero value can be made.")
        return np.zeros(self.shape.get_min_shape(), self.dtype)


@register_op("ReadValue", since=6)
class ReadValue6(ReadValue3):
    """ReadValue-6: ``variable_type``/``variable_shape`` attributes and an optional initializer."""
