"""MaxPool-1, MaxPool-8 (dilations, indices output, ``axis``) and MaxPool-14 (``ceil_torch``).

Padding takes the type's lowest finite value and never wins a tie: the index is that of the first
real input element (in window order) equal to the window's maximum, even when that maximum is the
type's lowest value (OpenVINO CPU reports 0 there — a recorded deviation). A window lying wholly
in the padding (possible with ceil rounding) yields the lowest value and index 0; NaN propagates
(a NaN is the maximum of its window).

Indices (v8/v14) are flattened over the whole input (``b*C*S + c*S + spatial``, S the spatial
size) and then taken modulo the size of the input dims from ``axis`` on, so ``axis=0`` keeps
the full flat index, ``axis=2`` (NCHW) the spatial index.
"""

from __future__ import annotations

import math

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_index import normalize_axis
from reference_plugin.ops._common_types import from_compute, lowest, to_compute
from reference_plugin.ops._common_window import WindowSpec, window_spec


def max_pool(x: np.ndarray, spec: WindowSpec, pad_value: float | int) -> tuple[np.ndarray, np.ndarray]:
    """(values, flat input indices) of every window of ``x`` ``(N, C, *spatial)``."""
    n_batch, channels, *spatial = x.shape
    plan = spec.plan(spatial)
    n_sp = len(spatial)
    k = math.prod(spec.kernel)
    win = spec.windows(x, plan, pad_value)
    win = win.reshape(*win.shape[:2 + n_sp], k)
    values = np.max(win, axis=-1)
    where = np.arange(math.prod(spatial), dtype=np.int64).reshape(1, 1, *spatial)
    where_win = spec.windows(where, plan, -1)
    where_win = where_win.reshape(*where_win.shape[:2 + n_sp], k)
    # the index is the first REAL input element equal to the maximum: padding loses every tie
    hit = win == values[..., None]
    if win.dtype.kind == "f":
        hit |= np.isnan(win) & np.isnan(values)[..., None]
    hit &= where_win >= 0
    best = np.argmax(hit, axis=-1)[..., None]
    spatial_index = np.take_along_axis(np.broadcast_to(where_win, (n_batch, channels, *where_win.shape[2:])),
                                       best, axis=-1)[..., 0]
    spatial_index = np.maximum(spatial_index, 0)  # a padding winner reports index 0
    size = math.prod(spatial)
    offset = (np.arange(n_batch)[:, None] * channels + np.arange(channels)[None, :]) * size
    return values, spatial_index + offset.reshape(n_batch, channels, *([1] * n_sp))


@register_op("MaxPool", since=1)
class MaxPool1(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.t, self.out_t = self.in_types[0], self.out_types[0]
        self.spec = window_spec(node.attrs, self.attr("kernel"), str(self.attr("rounding_type")).lower())
        self.pad_value = lowest(self.t)
        self.axis: int = node.attrs.get("axis", 0)
        #: Whether anything reads the indices output (v8/v14); when nothing does, it is not computed.
        self.need_indices = node.get_output_size() > 1 and bool(node.output(1).get_target_inputs())

    def _check_rank(self, x: np.ndarray) -> None:
        if x.ndim != len(self.spec.kernel) + 2:
            raise self.fail(f"data shape {list(x.shape)} must be [N, C] plus {len(self.spec.kernel)} spatial "
                            f"dim(s) (kernel {list(self.spec.kernel)}).")

    def _values(self, x: np.ndarray) -> np.ndarray:
        """The window maxima alone: one np.maximum pass per kernel offset (no window copies)."""
        self._check_rank(x)
        data = to_compute(x, self.t)
        return from_compute(self.spec.reduce(data, self.spec.plan(data.shape[2:]), self.pad_value, np.maximum),
                            self.out_t)

    def _pool(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        self._check_rank(x)
        values, index = max_pool(to_compute(x, self.t), self.spec, self.pad_value)
        return from_compute(values, self.out_t), index

    def _run(self, x: np.ndarray) -> tuple[np.ndarray, ...]:
        return (self._values(x),)


@register_op("MaxPool", since=8)
class MaxPool8(MaxPool1):
    """MaxPool-8: adds dilations and the indices output."""

    def _run(self, x: np.ndarray) -> tuple[np.ndarray, ...]:
        axis = normalize_axis(self.axis, x.ndim, "attribute 'axis'")
        if not self.need_indices:  # the output exists (zeros) but nothing reads it
            values = self._values(x)
            return values, np.zeros(values.shape, self.out_dtypes[1])
        values, index = self._pool(x)
        if axis:
            index = index % math.prod(x.shape[axis:])
        return values, index.astype(self.out_dtypes[1])


@register_op("MaxPool", since=14)
class MaxPool14(MaxPool8):
    """MaxPool-14: adds rounding_type ``ceil_torch``."""
