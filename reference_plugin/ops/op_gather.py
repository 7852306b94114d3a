"""Gather-1, Gather-7 (``batch_dims``) and Gather-8 (negative indices).

Output: ``data[:axis] + indices[batch_dims:] + data[axis + 1:]``, the first ``batch_dims`` dims
shared by data and indices. A negative index counts from the end of the axis (Gather-8's rule,
also applied to versions 1 and 7 where the spec leaves negative indices undefined); an index
still out of range gives zeros, as Gather-8 specifies.
"""

from __future__ import annotations

import math

import numpy as np

from ovconform.errors import InferError
from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_index import int_list, normalize_axis


def gather(data: np.ndarray, indices: np.ndarray, axis: int, batch_dims: int) -> np.ndarray:
    """The Gather result for a normalized ``axis`` and a non-negative ``batch_dims``."""
    if batch_dims > axis or batch_dims > indices.ndim:
        raise InferError(f"batch_dims={batch_dims} must not exceed axis={axis} or the indices rank {indices.ndim}.")
    if data.shape[:batch_dims] != indices.shape[:batch_dims]:
        raise InferError(f"data shape {list(data.shape)} and indices shape {list(indices.shape)} differ in "
                         f"the first batch_dims={batch_dims} dims.")
    n = data.shape[axis]
    idx = indices.astype(np.int64)
    idx = np.where(idx < 0, idx + n, idx)
    valid = (idx >= 0) & (idx < n)
    idx = np.where(valid, idx, 0)
    batch = math.prod(data.shape[:batch_dims])
    pre = math.prod(data.shape[batch_dims:axis])
    post = math.prod(data.shape[axis + 1:])
    count = math.prod(indices.shape[batch_dims:])
    d = data.reshape(batch, pre, n, post)
    i, m = idx.reshape(batch, count), valid.reshape(batch, count)
    if n == 0:
        out = np.zeros((batch, pre, count, post), data.dtype)
    else:
        out = d[np.arange(batch)[:, None, None], np.arange(pre)[None, :, None], i[:, None, :]]
        out = np.where(m[:, None, :, None], out, np.zeros((), data.dtype))
    shape = data.shape[:axis] + indices.shape[batch_dims:] + data.shape[axis + 1:]
    return out.reshape(shape)


@register_op("Gather", since=1)
class Gather1(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.batch_dims: int = node.attrs.get("batch_dims", 0)
        const = self.const_input(2)
        self.axis = int_list(const)[0] if const is not None else None

    def _run(self, data: np.ndarray, indices: np.ndarray, axis: np.ndarray) -> tuple[np.ndarray, ...]:
        ax = normalize_axis(self.axis if self.axis is not None else int_list(axis)[0], data.ndim)
        bd = self.batch_dims + indices.ndim if self.batch_dims < 0 else self.batch_dims
        if bd < 0:
            raise self.fail(f"batch_dims={self.batch_dims} is out of range for indices of rank {indices.ndim}.")
        return (gather(data, indices, ax, bd),)


@register_op("Gather", since=7)
class Gather7(Gather1):
    """Gather-7: adds ``batch_dims`` (negative counts from the indices rank)."""


@register_op("Gather", since=8)
class Gather8(Gather1):
    """Gather-8: negative indices count from the end; out-of-range indices give zeros."""
