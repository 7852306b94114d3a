"""Constant-1 (IR ``Const``): returns the node's read-only data."""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun


@register_op("Constant", since=1)
class Constant(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        if node.data is None:
            raise self.fail("the Constant has no data.")
        data = np.asarray(node.data)
        if data.dtype != self.out_dtypes[0]:
            raise self.fail(f"data dtype {data.dtype} does not store element type {self.out_types[0]}.")
        self.value = data

    def _run(self) -> tuple[np.ndarray, ...]:
        return (self.value,)
