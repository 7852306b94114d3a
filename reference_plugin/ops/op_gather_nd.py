"""GatherND-5 and GatherND-8: gather the elements or slices of ``data`` addressed by the index
tuples in the last dim of ``indices``, the first ``batch_dims`` dims shared by both.

``out[b..., i..., :] = data[b..., indices[b..., i..., 0], ..., indices[b..., i..., k-1], :]``.
GatherND-8's output is ``indices.shape[:-1] + data.shape[batch_dims + k:]``; GatherND-5 folds the
batch dims into one (their product). Negative indices count from the end of their dim; an index
outside ``[-dim, dim)`` is an InferError.
"""

from __future__ import annotations

import math

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_index import wrap_indices


def gather_nd(data: np.ndarray, indices: np.ndarray, batch_dims: int) -> np.ndarray:
    """The gathered values, shape ``[prod(batch), prod(indices[b:-1])] + data[b + k:]``."""
    b, k = batch_dims, indices.shape[-1]
    batch = math.prod(data.shape[:b])
    d = data.reshape(batch, *data.shape[b:])
    idx = wrap_indices(indices, np.array(data.shape[b:b + k]), "index").reshape(batch, -1, k)
    rows = np.arange(batch)[:, None]
    return d[(rows, *(idx[..., j] for j in range(k)))]


@register_op("GatherND", since=5)
class GatherND5(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.batch_dims: int = node.attrs["batch_dims"]

    def _run(self, data: np.ndarray, indices: np.ndarray) -> tuple[np.ndarray, ...]:
        b = self.batch_dims
        if indices.ndim < 1 or not b < min(data.ndim, indices.ndim):
            raise self.fail(f"batch_dims={b} must be less than the ranks of data {list(data.shape)} and "
                            f"indices {list(indices.shape)}.")
        k = indices.shape[-1]
        if not 1 <= k <= data.ndim - b:
            raise self.fail(f"indices {list(indices.shape)} has a last dim of {k}; allowed [1, {data.ndim - b}].")
        if data.shape[:b] != indices.shape[:b]:
            raise self.fail(f"data {list(data.shape)} and indices {list(indices.shape)} differ in the first "
                            f"batch_dims={b} dims.")
        out = gather_nd(data, indices, b)
        return (out.reshape(self.out_shape(data, indices)),)

    def out_shape(self, data: np.ndarray, indices: np.ndarray) -> tuple[int, ...]:
        b, k = self.batch_dims, indices.shape[-1]
        lead = (math.prod(indices.shape[:b]),) if b else ()
        return (*lead, *indices.shape[b:-1], *data.shape[b + k:])


@register_op("GatherND", since=8)
class GatherND8(GatherND5):
    """GatherND-8: the batch dims stay separate in the output."""

    def out_shape(self, data: np.ndarray, indices: np.ndarray) -> tuple[int, ...]:
        return (*indices.shape[:-1], *data.shape[self.batch_dims + indices.shape[-1]:])
