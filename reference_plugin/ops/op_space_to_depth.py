"""SpaceToDepth-1: [N, C, D1..DK] -> [N, C * bs^K, D1/bs, ..., DK/bs], the new depth gathered as
[bs, ..., bs, C] (blocks_first) or [C, bs, ..., bs] (depth_first), by the spec's
reshape-transpose-reshape."""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun


def space_to_depth(x: np.ndarray, bs: int, blocks_first: bool) -> np.ndarray:
    n, c, spatial = x.shape[0], x.shape[1], list(x.shape[2:])
    k = len(spatial)
    split = x.reshape([n, c, *[v for d in spatial for v in (d // bs, bs)]])
    blocks = [3 + 2 * i for i in range(k)]
    cells = [2 + 2 * i for i in range(k)]
    order = [0, *blocks, 1, *cells] if blocks_first else [0, 1, *blocks, *cells]
    return split.transpose(order).reshape([n, c * bs ** k, *(d // bs for d in spatial)])


@register_op("SpaceToDepth", since=1)
class SpaceToDepth(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.bs, self.blocks_first = int(self.attr("block_size")), self.attr("mode") == "blocks_first"

    def _run(self, x: np.ndarray) -> tuple[np.ndarray, ...]:
        if x.ndim < 3 or self.bs < 1 or any(d % self.bs for d in x.shape[2:]):
            raise self.fail(f"data of shape {list(x.shape)} cannot split its spatial dims into blocks of "
                            f"block_size={self.bs} (rank >= 3 and spatial dims divisible by block_size needed).")
        return (space_to_depth(x, self.bs, self.blocks_first),)
