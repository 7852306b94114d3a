"""Concat-1: join the inputs along ``axis`` (negative counts from the end)."""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_index import normalize_axis


@register_op("Concat", since=1)
class Concat(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.axis: int = self.attr("axis")

    def _run(self, *xs: np.ndarray) -> tuple[np.ndarray, ...]:
        axis = normalize_axis(self.axis, xs[0].ndim, "attribute 'axis'")
        shapes = [list(x.shape) for x in xs]
        if any(len(s) != len(shapes[0]) or s[:axis] + s[axis + 1:] != shapes[0][:axis] + shapes[0][axis + 1:]
               for s in shapes):
            raise self.fail(f"input shapes {shapes} differ outside the concat axis {self.axis}.")
        return (np.concatenate(xs, axis=axis),)
