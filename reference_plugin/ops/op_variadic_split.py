"""VariadicSplit-1: parts of ``split_lengths`` sizes along ``axis``; one length may be -1 (the rest)."""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_index import int_list, normalize_axis


@register_op("VariadicSplit", since=1)
class VariadicSplit(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        axis, lengths = self.const_input(1), self.const_input(2)
        self.axis = int_list(axis)[0] if axis is not None else None
        self.lengths = int_list(lengths) if lengths is not None else None

    def _run(self, x: np.ndarray, axis: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, ...]:
        ax = normalize_axis(self.axis if self.axis is not None else int_list(axis)[0], x.ndim)
        sizes = list(self.lengths if self.lengths is not None else int_list(lengths))
        dim = x.shape[ax]
        known = sum(v for v in sizes if v != -1)
        if any(v < -1 for v in sizes) or sizes.count(-1) > 1 or (-1 not in sizes and known != dim) or known > dim:
            raise self.fail(f"split_lengths {sizes} do not split dim {ax} (size {dim}) of input shape "
                            f"{list(x.shape)}: they must be >= 0, with at most one -1, and add up to {dim}.")
        if -1 in sizes:
            sizes[sizes.index(-1)] = dim - known
        return tuple(np.split(x, np.cumsum(sizes)[:-1].tolist(), axis=ax))
