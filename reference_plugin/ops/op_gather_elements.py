"""GatherElements-6: ``out[i_0, ..., i_axis, ...] = data[i_0, ..., indices[i_0, ..., i_axis, ...], ...]``.

The output has the shape of ``indices``; data and indices share every dim except ``axis``
(indices may be longer or shorter there). Negative indices count from the end of the axis; an
index outside ``[-dim, dim)`` is an InferError.
"""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_index import normalize_axis, wrap_indices


@register_op("GatherElements", since=6)
class GatherElements6(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.axis: int = node.attrs["axis"]

    def _run(self, data: np.ndarray, indices: np.ndarray) -> tuple[np.ndarray, ...]:
        if data.ndim == 0 or indices.ndim != data.ndim:
            raise self.fail(f"data {list(data.shape)} and indices {list(indices.shape)} must have one rank >= 1.")
        axis = normalize_axis(self.axis, data.ndim)
        for i, (d, n) in enumerate(zip(data.shape, indices.shape, strict=True)):
            if i != axis and d != n:
                raise self.fail(f"data {list(data.shape)} and indices {list(indices.shape)} differ in dim {i}, "
                                f"which is not the axis {self.axis}.")
        idx = wrap_indices(indices, data.shape[axis], "index")
        return (np.take_along_axis(data, idx, axis=axis),)
