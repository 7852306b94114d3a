"""SpaceToBatch-2: [batch, D1..] -> [batch * prod(B), (D1 + P1) / B1, ...] by the spec's steps:
zero-pad the spatial dims by pads_begin/pads_end, reshape to [batch, D1'/B1, B1, D2'/B2, B2, ..],
transpose to [B1, .., B_{N-1}, batch, D1'/B1, ..] and merge the leading dims into the batch.
``block_shape[0]`` must be 1 and the batch dim is not padded (the spec's "expected" values)."""

from __future__ import annotations

import math

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._common_layout import IndexInputsOp
from reference_plugin.ops.op_batch_to_space import check_blocks


@register_op("SpaceToBatch", since=2)
class SpaceToBatch(IndexInputsOp):
    INDEX_PORTS = (1, 2, 3)

    def _run(self, data: np.ndarray, block_shape: np.ndarray, pads_begin: np.ndarray,
             pads_end: np.ndarray) -> tuple[np.ndarray, ...]:
        block, begin, end = self.ints(1, block_shape), self.ints(2, pads_begin), self.ints(3, pads_end)
        problem = check_blocks(data.shape, block, begin, end, ("pads_begin", "pads_end"))
        if problem:
            raise self.fail(problem)
        x = np.pad(data, list(zip(begin, end, strict=True)))
        if any(d % b for d, b in zip(x.shape, block, strict=True)):
            raise self.fail(f"padded dims {list(x.shape)} must divide by block_shape {block}.")
        n = data.ndim
        split = x.reshape([x.shape[0], *[v for d, b in zip(x.shape[1:], block[1:], strict=True) for v in (d // b, b)]])
        order = [2 * i for i in range(1, n)] + [0] + [2 * i - 1 for i in range(1, n)]
        out_shape = [x.shape[0] * math.prod(block), *(d // b for d, b in zip(x.shape[1:], block[1:], strict=True))]
        return (split.transpose(order).reshape(out_shape),)
