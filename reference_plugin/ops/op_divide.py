"""Divide-1: elementwise ``a / b``.

Floats: IEEE division (x / 0 gives ±inf or NaN). Integers: ``m_pythondiv`` true floors the
quotient (Python ``//``), false truncates it toward zero (C ``/``); a zero divisor raises
InferError, as OpenVINO's reference does.
"""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._common_binary import BinaryOp
from reference_plugin.ops._common_intdiv import check_nonzero_divisor, trunc_divide


@register_op("Divide", since=1)
class Divide(BinaryOp):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.python_div: bool = self.attr("m_pythondiv")
        self.integral = self.t.is_integral_number()

    def compute(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        if not self.integral:
            return np.true_divide(x, y)
        check_nonzero_divisor(y)
        return np.floor_divide(x, y) if self.python_div else trunc_divide(x, y)
