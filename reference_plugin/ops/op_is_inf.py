"""IsInf-10: boolean ``x == -inf`` (when ``detect_negative``) or ``x == +inf`` (when ``detect_positive``)."""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_types import to_compute


@register_op("IsInf", since=10)
class IsInf(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.negative = bool(self.attr("detect_negative"))
        self.positive = bool(self.attr("detect_positive"))

    def _run(self, x: np.ndarray) -> tuple[np.ndarray, ...]:
        v = to_compute(x, self.in_types[0])
        neg = np.isneginf(v) if self.negative else np.zeros(v.shape, bool)
        pos = np.isposinf(v) if self.positive else np.zeros(v.shape, bool)
        return (neg | pos,)
