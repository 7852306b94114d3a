"""Select-1: elementwise ``cond ? then : else`` with autobroadcast (numpy, none or pdpd).

pdpd: ``else`` broadcasts onto ``then``, then ``cond`` onto that shape.
"""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_binary import broadcast_result_shape


@register_op("Select", since=1)
class Select(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.mode: str = self.attr("auto_broadcast")

    def _run(self, cond: np.ndarray, then: np.ndarray, other: np.ndarray) -> tuple[np.ndarray, ...]:
        if self.mode == "pdpd":
            shape = broadcast_result_shape("pdpd", (then.shape, other.shape))
            broadcast_result_shape("pdpd", (shape, cond.shape))
        else:
            broadcast_result_shape(self.mode, (cond.shape, then.shape, other.shape))
        return (np.where(cond, then, other),)
