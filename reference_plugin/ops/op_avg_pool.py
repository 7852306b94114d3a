"""AvgPool-1, AvgPool-14 (``ceil_torch``) and AvgPool-16 (``dilations``).

The divisor of a window, as OpenVINO's reference: with ``exclude-pad`` the number of input
elements in it; without ``exclude-pad`` the full kernel size when any pad is non-zero, else the
number of input elements in it (so ceil rounding's overhang never counts). A window with no
elements gives 0. Floats accumulate in float64; integer results round half to even.
"""

from __future__ import annotations

import math

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_types import float_to_int, from_compute, to_compute
from reference_plugin.ops._common_window import window_spec


@register_op("AvgPool", since=1)
class AvgPool1(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.t, self.out_t = self.in_types[0], self.out_types[0]
        self.spec = window_spec(node.attrs, self.attr("kernel"), str(self.attr("rounding_type")).lower())
        self.exclude_pad: bool = self.attr("exclude-pad")

    def _run(self, x: np.ndarray) -> tuple[np.ndarray, ...]:
        n_sp = len(self.spec.kernel)
        if x.ndim != n_sp + 2:
            raise self.fail(f"data shape {list(x.shape)} must be [N, C] plus {n_sp} spatial dim(s) "
                            f"(kernel {list(self.spec.kernel)}).")
        plan = self.spec.plan(x.shape[2:])
        kernel_axes = tuple(range(-n_sp, 0))
        total = self.spec.windows(to_compute(x, self.t).astype(np.float64), plan, 0).sum(axis=kernel_axes)
        if not self.exclude_pad and self.spec.has_padding(plan):
            count = np.full(plan.out, float(math.prod(self.spec.kernel)))
        else:
            ones = np.ones((1, 1, *x.shape[2:]))
            count = self.spec.windows(ones, plan, 0).sum(axis=kernel_axes)[0, 0]
        mean = np.where(count > 0, total / np.where(count > 0, count, 1), 0.0)
        if self.out_t.is_integral_number():
            return (float_to_int(np.rint(mean), self.out_t.to_dtype()),)
        return (from_compute(mean, self.out_t),)


@register_op("AvgPool", since=14)
class AvgPool14(AvgPool1):
    """AvgPool-14: adds rounding_type ``ceil_torch``."""


@register_op("AvgPool", since=16)
class AvgPool16(AvgPool1):
    """AvgPool-16: adds ``dilations`` (empty: all ones)."""
