"""Parameter-1: a model input. The evaluator binds its value through :meth:`Parameter.bind`."""

from __future__ import annotations

from typing import Any

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun


@register_op("Parameter", since=1)
class Parameter(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.shape = node.get_output_partial_shape(0)
        self.static: tuple[int, ...] | None = tuple(self.shape.to_shape()) if self.shape.is_static else None
        self.dtype = self.out_dtypes[0]

    def bind(self, value: Any) -> np.ndarray:
        """Check ``value`` against the declared element type and partial shape and return it.

        Non-array values (lists, scalars) are converted to the declared dtype; arrays must
        already have it (bf16 is stored as uint16).

        :raises InferError: naming the parameter, the bad dtype or shape and what is allowed.
        """
        arr = value if isinstance(value, np.ndarray) else np.asarray(value, dtype=self.dtype)
        if arr.dtype != self.dtype:
            raise self.fail(f"input has dtype {arr.dtype}; the parameter expects {self.out_types[0]} ({self.dtype}).")
        if arr.shape != self.static and not self.shape.fits(arr.shape):
            raise self.fail(f"input has shape {list(arr.shape)}; the parameter expects {self.shape}.")
        return arr

    def _run(self) -> tuple[np.ndarray, ...]:
        raise self.fail("a Parameter has no value until the evaluator binds one (Parameter.bind).")
