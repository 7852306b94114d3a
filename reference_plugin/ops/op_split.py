"""Split-1: ``num_splits`` equal parts along the scalar ``axis`` input."""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_index import int_list, normalize_axis


@register_op("Split", since=1)
class Split(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.num_splits: int = self.attr("num_splits")
        const = self.const_input(1)
        self.axis = int_list(const)[0] if const is not None else None

    def _run(self, x: np.ndarray, axis: np.ndarray) -> tuple[np.ndarray, ...]:
        ax = normalize_axis(self.axis if self.axis is not None else int_list(axis)[0], x.ndim)
        if x.shape[ax] % self.num_splits:
            raise self.fail(f"dim {ax} of input shape {list(x.shape)} does not divide into "
                            f"num_splits={self.num_splits} equal parts.")
        return tuple(np.split(x, self.num_splits, axis=ax))
