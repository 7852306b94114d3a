"""maxpool-separable: MaxPool's window maxima folded axis by axis.

The formula (:func:`reference_plugin.ops.op_max_pool.window_max`) folds ``np.maximum`` over
each window's taps in row-major order, one pass over the output per tap (9 for 3x3). This route
folds separably: the last spatial axis first (one pass per kernel offset along it, over every
padded row), then each axis before it over the partial results, so overlapping windows share
the row folds (3x3 stride 1: 4 passes, not 9) and no window is copied.

Bound: bit for bit. The fold order of each window's elements is kept and ``np.maximum`` is
associative as numpy implements it, signed zeros (a tie returns the later operand) and NaNs
(the earlier NaN wins) included. Applies to every MaxPool (the indices output is unchanged).
"""

from __future__ import annotations

import numpy as np

from reference_plugin.fast import EXACT, kernel_route
from reference_plugin.ops._common_window import Plan, WindowSpec
from reference_plugin.ops.op_max_pool import MaxPool1, MaxPool8, MaxPool14

__all__ = ["SeparableMaxPool", "fold_separably"]


def fold_separably(x: np.ndarray, spec: WindowSpec, plan: Plan, pad_value: float | int,
                   ufunc: np.ufunc = np.maximum) -> np.ndarray:
    """``ufunc`` (np.maximum or np.minimum) folded over every window of ``x`` padded with
    ``pad_value``, axis by axis (see the module docstring); a new array."""
    if ufunc not in (np.maximum, np.minimum):
        raise ValueError(f"fold_separably folds np.maximum or np.minimum, not {ufunc!r}")
    n = len(spec.kernel)
    acc = spec.padded(x, plan, pad_value)
    # the rows no window reaches (floor rounding's remainder) are left out of the first folds
    acc = acc[(slice(None), slice(None), *(slice(0, (o - 1) * s + dk)
                                           for o, s, dk in zip(plan.out, spec.strides, spec.dilated, strict=True)))]
    for axis in reversed(range(n)):
        k, d, o, s = spec.kernel[axis], spec.dilations[axis], plan.out[axis], spec.strides[axis]
        parts = [(slice(None),) * (2 + axis) + (slice(j * d, j * d + (o - 1) * s + 1, s),) for j in range(k)]
        if k == 1:
            acc = acc[parts[0]]
            continue
        folded = ufunc(acc[parts[0]], acc[parts[1]])
        for pick in parts[2:]:
            ufunc(folded, acc[pick], out=folded)
        acc = folded
    return acc if acc.base is None and acc is not x else acc.copy()


@kernel_route("maxpool-separable", (MaxPool1, MaxPool8, MaxPool14), EXACT, "every MaxPool")
class SeparableMaxPool(MaxPool1):
    """MaxPool computing its window maxima with :func:`fold_separably`."""

    def window_max(self, data: np.ndarray, plan: Plan) -> np.ndarray:
        return fold_separably(data, self.spec, plan, self.pad_value)
