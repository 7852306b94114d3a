"""Transpose-1: permute dims by ``input_order`` (empty: reverse them)."""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_index import int_list


@register_op("Transpose", since=1)
class Transpose(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        const = self.const_input(1)
        self.order = int_list(const) if const is not None else None

    def _run(self, x: np.ndarray, order: np.ndarray) -> tuple[np.ndarray, ...]:
        perm = self.order if self.order is not None else int_list(order)
        if not perm:
            return (np.transpose(x),)
        if sorted(perm) != list(range(x.ndim)):
            raise self.fail(f"input_order {perm} is not a permutation of 0..{x.ndim - 1} "
                            f"(input shape {list(x.shape)}).")
        return (np.transpose(x, perm),)
