"""ShuffleChannels-1: dim ``axis`` read as [group, C / group] and transposed to [C / group, group]
(the data viewed as [prod(dims before), group, C / group, prod(dims after)])."""

from __future__ import annotations

import math

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_index import normalize_axis


@register_op("ShuffleChannels", since=1)
class ShuffleChannels(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.axis, self.group = int(self.attr("axis")), int(self.attr("group"))

    def _run(self, x: np.ndarray) -> tuple[np.ndarray, ...]:
        if x.ndim == 0:
            raise self.fail("data is a scalar; ShuffleChannels needs rank >= 1.")
        axis = normalize_axis(self.axis, x.ndim, "attribute axis")
        c = x.shape[axis]
        if self.group < 1 or c % self.group:
            raise self.fail(f"channel dim {axis} of size {c} does not split into group={self.group} groups.")
        view = x.reshape(math.prod(x.shape[:axis]), self.group, c // self.group, math.prod(x.shape[axis + 1:]))
        return (view.transpose(0, 2, 1, 3).reshape(x.shape),)
