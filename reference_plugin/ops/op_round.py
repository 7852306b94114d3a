"""Round-5: elementwise round to the nearest integer; attribute ``mode`` settles halves.

``half_to_even`` rounds 2.5 to 2 and -0.5 to -0; ``half_away_from_zero`` rounds 2.5 to 3 and
-2.5 to -3. Integer inputs pass through unchanged; NaN and ±inf stay as they are. Halves are
detected exactly (``x - trunc(x)`` is exact in binary floating point), so 0.49999997 rounds to 0
in either mode.
"""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._common_unary import UnaryOp


@register_op("Round", since=5)
class Round(UnaryOp):
    transcendental = False

    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.mode = str(self.attr("mode"))
        if self.mode not in ("half_to_even", "half_away_from_zero"):
            raise ValueError(f"attribute mode={self.mode!r} is not allowed; allowed: "
                             "'half_to_even', 'half_away_from_zero'.")

    def compute(self, x: np.ndarray) -> np.ndarray:
        if x.dtype.kind in "iu":
            return x
        if self.mode == "half_to_even":
            return np.rint(x)
        whole = np.trunc(x)
        frac = x - whole
        step = np.where(np.abs(frac) >= 0.5, np.sign(x), np.zeros((), x.dtype))
        return whole + step.astype(x.dtype, copy=False)
