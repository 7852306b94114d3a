"""RegionYolo-1. The channels of each region (``num`` regions with ``do_softmax``, ``len(mask)``
without) are ``[x, y, coords - 2 more box values, confidence, classes...]``: x, y and the confidence
go through a sigmoid, the other box values are copied, and the class scores get a softmax over the
classes at each position (``do_softmax``) or a sigmoid each. The output is then flattened from
``axis`` to ``end_axis`` (``do_softmax``) or kept NCHW. Computed in float32 for f16/bf16/f32 and in
float64 for f64."""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_types import compute_float_dtype, store, to_compute


def sigmoid(x: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-x))


@register_op("RegionYolo", since=1)
class RegionYolo(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        a = node.attrs
        self.coords, self.classes, self.softmax = a["coords"], a["classes"], a["do_softmax"]
        self.regions = a["num"] if self.softmax else len(a["mask"])

    def _run(self, x: np.ndarray) -> tuple[np.ndarray, ...]:
        n, c, h, w = x.shape
        per = self.coords + self.classes + 1
        if c != self.regions * per:
            raise self.fail(f"data has {c} channels; {self.regions} regions of coords + classes + 1 = {per} "
                            f"channels need {self.regions * per}.")
        et = self.in_types[0]
        v = to_compute(x, et).astype(compute_float_dtype(et)).reshape(n, self.regions, per, h, w)
        out = v.copy()
        out[:, :, :2] = sigmoid(v[:, :, :2])
        out[:, :, self.coords] = sigmoid(v[:, :, self.coords])
        scores = v[:, :, self.coords + 1:]
        if self.softmax:
            e = np.exp(scores - scores.max(axis=2, keepdims=True))
            out[:, :, self.coords + 1:] = e / e.sum(axis=2, keepdims=True)
        else:
            out[:, :, self.coords + 1:] = sigmoid(scores)
        shape = self.node.output(0).get_partial_shape()
        target = shape.to_shape() if shape.is_static else self._flat_shape(x.shape)
        return (store(out.reshape(target), et),)

    def _flat_shape(self, shape: tuple[int, ...]) -> tuple[int, ...]:
        if not self.softmax:
            return shape
        first, last = self.node.attrs["axis"] % 4, self.node.attrs["end_axis"] % 4
        return (*shape[:first], int(np.prod(shape[first:last + 1])), *shape[last + 1:])
