"""CumSum-3: cumulative sum along the scalar ``axis`` input (0 when absent; negative counts from
the end). ``exclusive`` leaves out the element itself (the first sum is 0); ``reverse`` sums from
the end. Floats sum in float64 and round once; integers sum in int64/uint64 and wrap to the type.
"""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_index import int_list, normalize_axis
from reference_plugin.ops._common_types import accumulate_dtype, store, to_compute


def cumsum(x: np.ndarray, axis: int, exclusive: bool, reverse: bool, acc: np.dtype) -> np.ndarray:
    """The cumulative sums of ``x`` (already in a computable dtype) accumulated in ``acc``."""
    values = (np.flip(x, axis) if reverse else x).astype(acc)
    sums = np.cumsum(values, axis=axis, dtype=acc)
    if exclusive and values.shape[axis]:
        head = np.zeros_like(np.take(sums, [0], axis=axis))
        sums = np.concatenate([head, np.take(sums, np.arange(values.shape[axis] - 1), axis=axis)], axis=axis)
    return np.flip(sums, axis) if reverse else sums


@register_op("CumSum", since=3)
class CumSum(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.exclusive: bool = self.attr("exclusive")
        self.reverse: bool = self.attr("reverse")
        const = self.const_input(1)
        self.axis = int_list(const)[0] if const is not None else None

    def _run(self, x: np.ndarray, *axis: np.ndarray) -> tuple[np.ndarray, ...]:
        if x.ndim == 0:
            raise self.fail("data is a scalar; CumSum needs data of rank >= 1.")
        given = self.axis if self.axis is not None else (int_list(axis[0])[0] if axis else 0)
        ax = normalize_axis(given, x.ndim, "axis")
        t = self.in_types[0]
        out = cumsum(to_compute(x, t), ax, self.exclusive, self.reverse, accumulate_dtype(t))
        return (store(out, self.out_types[0]),)
