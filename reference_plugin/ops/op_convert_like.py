"""ConvertLike-1: Convert input 0 to the element type of input 1 (same rules as Convert-1)."""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_types import convert_array


@register_op("ConvertLike", since=1)
class ConvertLike(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.src, self.dst = self.in_types[0], self.in_types[1]

    def _run(self, x: np.ndarray, like: np.ndarray) -> tuple[np.ndarray, ...]:
        return (convert_array(x, self.src, self.dst),)
