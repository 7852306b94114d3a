"""ReverseSequence-1: for every index i along ``batch_axis``, the first ``seq_lengths[i]`` elements
along ``seq_axis`` are reversed; the rest stay.

The spec asks for lengths in ``[1, data_shape[seq_axis]]`` (of any numeric type, whole values).
A length of 0 reverses nothing, as 1 does; a negative, fractional or too large length is an
InferError naming it.
"""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_index import normalize_axis


@register_op("ReverseSequence", since=1)
class ReverseSequence(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.batch_axis, self.seq_axis = int(self.attr("batch_axis")), int(self.attr("seq_axis"))

    def _lengths(self, seq_lengths: np.ndarray, batch: int, size: int) -> np.ndarray:
        values = np.asarray(seq_lengths).reshape(-1)
        if values.size != batch:
            raise self.fail(f"seq_lengths has {values.size} value(s); data has {batch} along batch_axis.")
        wide = values.astype(np.float64)
        bad = values[(wide < 0) | (wide > size) | (wide != np.trunc(wide))]
        if bad.size:
            raise self.fail(f"seq_lengths value {bad[0]} is not allowed; lengths are whole numbers in [1, {size}].")
        return values.astype(np.int64)

    def _run(self, x: np.ndarray, seq_lengths: np.ndarray) -> tuple[np.ndarray, ...]:
        if x.ndim < 2:
            raise self.fail(f"data of shape {list(x.shape)} has rank < 2.")
        b = normalize_axis(self.batch_axis, x.ndim, "attribute batch_axis")
        s = normalize_axis(self.seq_axis, x.ndim, "attribute seq_axis")
        if b == s:
            raise self.fail(f"batch_axis and seq_axis are the same dim {b}.")
        lengths = self._lengths(seq_lengths, x.shape[b], x.shape[s])
        pos = np.arange(x.shape[s])
        index = np.where(pos[None, :] < lengths[:, None], lengths[:, None] - 1 - pos[None, :], pos[None, :])
        # index[i, j]: the source position along seq_axis of output position j for batch i
        shape = [1] * x.ndim
        shape[b], shape[s] = x.shape[b], x.shape[s]
        index = (index if b < s else index.T).reshape(shape)
        return (np.take_along_axis(x, np.broadcast_to(index, x.shape), axis=s),)
