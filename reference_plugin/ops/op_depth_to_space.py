"""DepthToSpace-1: [N, C, D1..DK] -> [N, C / bs^K, D1*bs, ..., DK*bs], the depth split as
[bs, ..., bs, C'] (blocks_first) or [C', bs, ..., bs] (depth_first), by the spec's
reshape-transpose-reshape."""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun


def depth_to_space(x: np.ndarray, bs: int, blocks_first: bool) -> np.ndarray:
    n, c, spatial = x.shape[0], x.shape[1], list(x.shape[2:])
    k = len(spatial)
    new_c = c // bs ** k
    if blocks_first:
        split = x.reshape([n, *[bs] * k, new_c, *spatial])
        order = [0, k + 1] + [v for i in range(k) for v in (k + 2 + i, 1 + i)]
    else:
        split = x.reshape([n, new_c, *[bs] * k, *spatial])
        order = [0, 1] + [v for i in range(k) for v in (k + 2 + i, 2 + i)]
    return split.transpose(order).reshape([n, new_c, *(d * bs for d in spatial)])


@register_op("DepthToSpace", since=1)
class DepthToSpace(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.bs, self.blocks_first = int(self.attr("block_size")), self.attr("mode") == "blocks_first"

    def _run(self, x: np.ndarray) -> tuple[np.ndarray, ...]:
        if x.ndim < 3 or self.bs < 1 or x.shape[1] % self.bs ** (x.ndim - 2):
            raise self.fail(f"data of shape {list(x.shape)} cannot move its depth into blocks of "
                            f"block_size={self.bs} (rank >= 3 and depth divisible by block_size^K needed).")
        return (depth_to_space(x, self.bs, self.blocks_first),)
