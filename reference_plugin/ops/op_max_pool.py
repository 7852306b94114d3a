"""MaxPool-1, MaxPool-8 (dilations, indices output, ``axis``) and MaxPool-14 (``ceil_torch``).

Padding takes the type's lowest finite value and never wins a tie: the index is that of the first
real input element (in window order) equal to the window's maximum, even when that maximum is the
type's lowest value (OpenVINO CPU reports 0 there — a recorded deviation). A window lying wholly
in the padding (possible with ceil rounding) yields the lowest value and index 0; NaN propagates
(a NaN is the maximum of its window).

Values are the plain fold over each window in row-major order (``acc = np.maximum(acc, w[i])``),
tap by tap over output-sized strided slices of the padded input (:func:`window_max`), with or
without the indices output: a tie between ``+0`` and ``-0`` gives the later one, several NaNs
the first one. (REFERENCE's programs fold separably, axis by axis, bit for bit the same:
:mod:`reference_plugin.fast.pooling`.)

Indices (v8/v14) are flattened over the whole input (``b*C*S + c*S + spatial``, S the spatial
size) and then taken modulo the size of the input dims from ``axis`` on, so ``axis=0`` keeps
the full flat index, ``axis=2`` (NCHW) the spatial index.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_index import normalize_axis
from reference_plugin.ops._common_types import from_compute, lowest, to_compute
from reference_plugin.ops._common_window import Plan, WindowSpec, window_spec


def window_max(x: np.ndarray, spec: WindowSpec, plan: Plan, pad_value: float | int) -> np.ndarray:
    """The maximum of every window of ``x`` ``(N, C, *spatial)`` padded with ``pad_value``: the fold
    ``acc = w[0]``, ``acc = np.maximum(acc, w[i])`` over the window's taps in row-major order,
    each tap an output-sized strided slice of the padded input."""
    padded = spec.padded(x, plan, pad_value)
    taps = [padded[(slice(None), slice(None), *picks)] for picks in spec.taps(plan)]
    acc = taps[0].copy()
    for tap in taps[1:]:
        np.maximum(acc, tap, out=acc)
    return acc


def max_pool_indices(x: np.ndarray, spec: WindowSpec, pad_value: float | int, values: np.ndarray) -> np.ndarray:
    """The flat input index of the maximum ``values`` of every window of ``x`` ``(N, C, *spatial)``.

    For each kernel offset (tap), an output-sized strided slice of the padded input is compared
    with the maxima; ``best`` keeps the lowest tap whose element is real (not padding) and equals
    the window's maximum (or both are NaN), with branch-free small-integer arithmetic, and the
    index is the window's base position plus that tap's offset. A window with no such tap
    (wholly padding, or a maximum that only the padding reaches: real values all ``-inf``) takes
    the index of its first tap when that is real, else 0.
    """
    n_batch, channels, *spatial = x.shape
    plan = spec.plan(spatial)
    n_sp = len(spatial)
    padded = spec.padded(x, plan, pad_value)
    nan_values = np.isnan(values) if values.dtype.kind == "f" else None
    if nan_values is not None and not nan_values.any():
        nan_values = None
    taps = spec.taps(plan)
    k = len(taps)
    base, delta, real = _tap_geometry(spec, plan, spatial)
    code_t = np.uint8 if k < 255 else np.int64
    best = np.full(values.shape, k, code_t)  # k: no tap yet
    code = np.empty(values.shape, code_t)
    hit = np.empty(values.shape, bool)
    for tap, picks in enumerate(taps):
        np.equal(padded[(slice(None), slice(None), *picks)], values, out=hit)
        if nan_values is not None:
            hit |= np.isnan(padded[(slice(None), slice(None), *picks)]) & nan_values
        if not real[tap].all():
            hit &= real[tap]
        np.multiply(hit, code_t(k - tap), out=code)  # hit ? k - tap : 0
        np.subtract(code_t(k), code, out=code)  # hit ? tap : k
        np.minimum(best, code, out=best)
    found = base + np.take(np.append(delta, 0), best)
    missed = best == k
    if missed.any():
        fallback = np.where(real[0], base + delta[0], 0)
        np.copyto(found, np.broadcast_to(fallback, found.shape), where=missed)
    size = math.prod(spatial)
    offset = (np.arange(n_batch)[:, None] * channels + np.arange(channels)[None, :]) * size
    return found + offset.reshape(n_batch, channels, *([1] * n_sp))


def _tap_geometry(spec: WindowSpec, plan: Plan, spatial: Sequence[int]
                  ) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    """Where the taps read, as flat spatial indices of the input: ``base`` ``(1, 1, *out)`` is the
    index of (possibly padded) position ``out * stride - pads_begin``, ``delta[tap]`` the offset of
    each tap from it, and ``real[tap]`` ``(1, 1, *out)`` whether the tap reads inside the input."""
    n_sp = len(spatial)
    base = np.zeros((1, 1, *([1] * n_sp)), np.int64)
    starts: list[np.ndarray] = []
    stride = 1
    strides = [0] * n_sp
    for axis in range(n_sp - 1, -1, -1):
        start = np.arange(plan.out[axis], dtype=np.int64) * spec.strides[axis] - plan.pads_begin[axis]
        shape = [1] * (2 + n_sp)
        shape[2 + axis] = plan.out[axis]
        starts.insert(0, start.reshape(shape))
        base = base + start.reshape(shape) * stride
        strides[axis] = stride
        stride *= spatial[axis]
    delta, real = [], []
    for offsets in np.ndindex(*spec.kernel):
        delta.append(sum(o * d * st for o, d, st in zip(offsets, spec.dilations, strides, strict=True)))
        inside = np.ones((1, 1, *([1] * n_sp)), bool)
        for axis, o in enumerate(offsets):
            coord = starts[axis] + o * spec.dilations[axis]
            inside = inside & (coord >= 0) & (coord < spatial[axis])
        real.append(inside)
    return base, np.array(delta, np.int64), real


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

    def window_max(self, data: np.ndarray, plan: Plan) -> np.ndarray:
        """The window maxima of ``data`` (in the compute dtype): :func:`window_max`."""
        return window_max(data, self.spec, plan, self.pad_value)

    def _values(self, x: np.ndarray) -> np.ndarray:
        """The window maxima alone."""
        self._check_rank(x)
        data = to_compute(x, self.t)
        return from_compute(self.window_max(data, self.spec.plan(data.shape[2:])), self.out_t)

    def _pool(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        self._check_rank(x)
        data = to_compute(x, self.t)
        values = self.window_max(data, self.spec.plan(data.shape[2:]))
        return from_compute(values, self.out_t), max_pool_indices(data, self.spec, self.pad_value, values)

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
