"""Eye-9: a ``num_rows`` x ``num_columns`` matrix of zeros with ones on the diagonal
``diagonal_index`` (0 the main one, positive above, negative below; a diagonal outside the matrix
gives all zeros), repeated over ``batch_shape`` when given, of ``output_type``."""

from __future__ import annotations

import math

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_index import int_list
from reference_plugin.ops._common_norm import MAX_OUTPUT_ELEMENTS, scalar
from reference_plugin.ops._common_types import from_compute


@register_op("Eye", since=9)
class Eye(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.out_t = self.out_types[0]

    def _run(self, rows: np.ndarray, cols: np.ndarray, diagonal: np.ndarray,
             *batch_shape: np.ndarray) -> tuple[np.ndarray, ...]:
        r, c, k = int(scalar(rows)), int(scalar(cols)), int(scalar(diagonal))
        batch = int_list(batch_shape[0]) if batch_shape else []
        if r < 0 or c < 0:
            raise self.fail(f"num_rows {r} and num_columns {c} must be >= 0.")
        if any(b < 0 for b in batch):
            raise self.fail(f"batch_shape {batch} has a negative dim.")
        shape = (*batch, r, c)
        if math.prod(shape) > MAX_OUTPUT_ELEMENTS:
            raise self.fail(f"output shape {list(shape)} has more than {MAX_OUTPUT_ELEMENTS} elements.")
        matrix = from_compute(np.eye(r, c, k, dtype=np.float32), self.out_t)
        return (np.ascontiguousarray(np.broadcast_to(matrix, shape)),)
