"""ShapeOf-1 (i64) and ShapeOf-3 (``output_type`` i32 or i64): the input's shape as a 1D tensor."""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun


@register_op("ShapeOf", since=1)
class ShapeOf1(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.dtype = self.out_dtypes[0]

    def _run(self, x: np.ndarray) -> tuple[np.ndarray, ...]:
        if self.dtype == np.int32 and any(d > np.iinfo(np.int32).max for d in x.shape):
            raise self.fail(f"input shape {list(x.shape)} does not fit the i32 output type.")
        return (np.array(x.shape, dtype=self.dtype),)


@register_op("ShapeOf", since=3)
class ShapeOf3(ShapeOf1):
    """ShapeOf-3: as ShapeOf-1 with the declared ``output_type``."""
