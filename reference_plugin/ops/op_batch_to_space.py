"""BatchToSpace-2: [batch, D1..] -> [batch / prod(B), D1*B1 - crops_begin[1] - crops_end[1], ...]
by the spec's steps: reshape to [B1, .., B_{N-1}, batch', D1, ..], interleave every block with its
dim (transpose to [batch', D1, B1, D2, B2, ..]), merge the pairs and crop. ``block_shape[0]`` must
be 1 and the batch dim is not cropped (the spec's "expected" values)."""

from __future__ import annotations

import math

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._common_layout import IndexInputsOp


def check_blocks(shape: tuple[int, ...], block: list[int], begin: list[int], end: list[int],
                 names: tuple[str, str]) -> str | None:
    """Why the block inputs do not fit data of ``shape`` (None when they do)."""
    rank = len(shape)
    if rank < 2:
        return f"data of shape {list(shape)} has rank < 2."
    if not len(block) == len(begin) == len(end) == rank:
        return f"block_shape {block}, {names[0]} {begin} and {names[1]} {end} need {rank} values (the data rank)."
    if min(block) < 1 or block[0] != 1:
        return f"block_shape {block} must hold values >= 1 and start with 1."
    if min(begin + end) < 0 or begin[0] or end[0]:
        return f"{names[0]} {begin} and {names[1]} {end} must hold values >= 0 and start with 0."
    return None


@register_op("BatchToSpace", since=2)
class BatchToSpace(IndexInputsOp):
    INDEX_PORTS = (1, 2, 3)

    def _run(self, data: np.ndarray, block_shape: np.ndarray, crops_begin: np.ndarray,
             crops_end: np.ndarray) -> tuple[np.ndarray, ...]:
        block, begin, end = self.ints(1, block_shape), self.ints(2, crops_begin), self.ints(3, crops_end)
        problem = check_blocks(data.shape, block, begin, end, ("crops_begin", "crops_end"))
        if problem:
            raise self.fail(problem)
        n = data.ndim
        prod = math.prod(block[1:])
        if data.shape[0] % prod:
            raise self.fail(f"batch {data.shape[0]} does not divide by the product of block_shape {block}.")
        spatial = list(data.shape[1:])
        x = data.reshape([*block[1:], data.shape[0] // prod, *spatial])
        order = [n - 1] + [v for i in range(1, n) for v in (n - 1 + i, i - 1)]
        full = x.transpose(order).reshape([data.shape[0] // prod, *(d * b for d, b in zip(spatial, block[1:],
                                                                                             strict=True))])
        if any(b + e > d for b, e, d in zip(begin, end, full.shape, strict=True)):
            raise self.fail(f"crops_begin {begin} + crops_end {end} exceed the dims {list(full.shape)}.")
        index = tuple(slice(b, d - e) for b, e, d in zip(begin, end, full.shape, strict=True))
        return (np.ascontiguousarray(full[index]),)
