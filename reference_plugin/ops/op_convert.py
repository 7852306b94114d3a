"""Convert-1: elementwise conversion to ``destination_type``.

Rules (see ``_common_types.convert_array``): float → integer truncates toward zero, and values
out of the destination's range wrap modulo 2**N after truncation (NaN → 0; the spec leaves
them undefined); integer → integer wraps as in C++; any → boolean is ``x != 0`` (NaN → True);
boolean → number is 0/1; → f16/bf16 rounds to nearest even, overflowing to ±inf.
"""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_types import convert_array


@register_op("Convert", since=1)
class Convert(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.src, self.dst = self.in_types[0], self.out_types[0]

    def _run(self, x: np.ndarray) -> tuple[np.ndarray, ...]:
        return (convert_array(x, self.src, self.dst),)
