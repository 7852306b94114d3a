"""Einsum-7: numpy's einsum over the node's equation, in float64 for floats and int64/uint64 for
integers (which then wrap to the element type)."""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node
from ovconform.opset._einsum_eq import parse_equation
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_types import accumulate_dtype, store, to_compute


@register_op("Einsum", since=7)
class Einsum(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.equation = parse_equation(str(self.attr("equation"))).text()

    def _run(self, *inputs: np.ndarray) -> tuple[np.ndarray, ...]:
        t = self.in_types[0]
        acc = accumulate_dtype(t)
        arrays = [to_compute(a, t).astype(acc) for a in inputs]
        try:
            y = np.einsum(self.equation, *arrays, optimize=len(arrays) > 2)
        except ValueError as e:
            raise self.fail(f"equation {self.equation!r} does not fit input shapes "
                            f"{[list(a.shape) for a in inputs]}: {e}") from None
        return (store(np.asarray(y), self.out_types[0]),)
