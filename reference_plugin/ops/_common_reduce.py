"""The ReduceOp base shared by ReduceSum, ReduceMean and ReduceMax (axes input, keep_dims)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_index import int_list, normalize_axes
from reference_plugin.ops._common_types import to_compute

if TYPE_CHECKING:
    from ovconform.ir import Node


class ReduceOp(OpRun):
    """Reduce input 0 over the ``axes`` input (empty axes: the input is returned unchanged).

    Subclasses implement ``reduce(x, axes, keepdims)`` on the compute-dtype array (float32 for
    f16/bf16) with a non-empty, normalized axes tuple.
    """

    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.keep_dims: bool = self.attr("keep_dims")
        self.t, self.out_t = self.in_types[0], self.out_types[0]
        const = self.const_input(1)
        self.axes = int_list(const) if const is not None else None

    def _run(self, x: np.ndarray, axes: np.ndarray) -> tuple[np.ndarray, ...]:
        values = self.axes if self.axes is not None else int_list(axes)
        if not values:
            return (x,)
        if x.ndim == 0:  # a scalar's only "axis" (0 or -1) reduces one element: the value itself
            normalize_axes(values, 0, "reduction axes", unique=False)
            return (x,)
        norm = tuple(sorted(set(normalize_axes(values, x.ndim, "reduction axes", unique=False))))
        return (self.reduce(to_compute(x, self.t), norm, self.keep_dims),)

    def reduce(self, x: np.ndarray, axes: tuple[int, ...], keepdims: bool) -> np.ndarray:
        raise NotImplementedError(f"{type(self).__name__} does not implement reduce")
