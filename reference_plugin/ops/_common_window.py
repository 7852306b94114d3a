"""Sliding-window plumbing shared by Convolution, GroupConvolution, MaxPool and AvgPool.

:class:`WindowSpec` holds a node's window attributes (read once at kernel construction) and,
for a concrete spatial input shape, gives the pads, the output sizes, the padded input, and
either a strided view of every window, ``(N, C, *out, *kernel)`` (``sliding_window_view``: no copy and
no Python loop over output positions), or the per-kernel-offset ``taps``: for each offset, the
output-sized strided slice of the padded input that the offset reads (Convolution sums over
them, MaxPool folds over them). Plans and taps are cached per spec and input shape.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ovconform.errors import InferError
from ovconform.opset._window import resolve_pads


@dataclass(frozen=True)
class Plan:
    """Where the windows lie for one concrete spatial input shape."""

    pads_begin: tuple[int, ...]
    pads_end: tuple[int, ...]
    out: tuple[int, ...]
    #: Padding actually added at the end: pads_end, or more when ceil rounding needs it.
    extra_end: tuple[int, ...]


@dataclass(frozen=True)
class WindowSpec:
    """Window attributes of one node: kernel, strides, dilations, pads, auto_pad, rounding."""

    kernel: tuple[int, ...]
    strides: tuple[int, ...]
    dilations: tuple[int, ...]
    pads_begin: tuple[int, ...]
    pads_end: tuple[int, ...]
    auto_pad: str
    rounding: str = "floor"

    @property
    def dilated(self) -> tuple[int, ...]:
        return tuple((k - 1) * d + 1 for k, d in zip(self.kernel, self.dilations, strict=True))

    def plan(self, spatial: Sequence[int]) -> Plan:
        """Pads and output sizes for an input of spatial sizes ``spatial`` (cached per shape)."""
        return _plan(self, tuple(spatial))

    def _make_plan(self, spatial: tuple[int, ...]) -> Plan:
        if len(spatial) != len(self.kernel):
            raise InferError(f"the input has {len(spatial)} spatial dim(s) {list(spatial)}; the window has "
                             f"{len(self.kernel)} (kernel {list(self.kernel)}).")
        pb, pe = resolve_pads(spatial, self.kernel, self.strides, self.dilations, self.auto_pad,
                              self.pads_begin, self.pads_end)
        out, extra = [], []
        for i, size in enumerate(spatial):
            o = self._out_size(size, pb[i], pe[i], self.dilated[i], self.strides[i], i)
            out.append(o)
            extra.append(max(pe[i], (o - 1) * self.strides[i] + self.dilated[i] - size - pb[i]))
        return Plan(tuple(pb), tuple(pe), tuple(out), tuple(extra))

    def _out_size(self, size: int, pb: int, pe: int, dk: int, stride: int, axis: int) -> int:
        if self.auto_pad in ("same_upper", "same_lower"):
            return -(-size // stride)
        if size + pb + pe < dk:
            raise InferError(f"the kernel after dilation ({dk}) is larger than the padded input "
                             f"({size + pb + pe}) on spatial axis {axis}.")
        span = size + pb + pe - dk
        out = (-(-span // stride) if self.rounding != "floor" else span // stride) + 1
        if self.rounding == "ceil_torch" and out > 1 and (out - 1) * stride >= size + pb:
            out -= 1
        return out

    def padded(self, x: np.ndarray, plan: Plan, pad_value: float | int) -> np.ndarray:
        """``x`` ``(N, C, *spatial)`` with ``pad_value`` around its spatial dims as ``plan`` says
        (``pads_begin`` before, ``extra_end`` after); ``x`` itself when there is no padding."""
        widths = [(b, e) for b, e in zip(plan.pads_begin, plan.extra_end, strict=True)]
        if not any(b or e for b, e in widths):
            return x
        if any(b < 0 or e < 0 for b, e in widths):  # np.pad names the bad width
            return np.pad(x, [(0, 0), (0, 0), *widths], constant_values=pad_value)
        out = np.full((*x.shape[:2], *(s + b + e for s, (b, e) in zip(x.shape[2:], widths, strict=True))),
                      pad_value, dtype=x.dtype)
        out[(slice(None), slice(None), *(slice(b, b + s) for s, (b, _) in zip(x.shape[2:], widths, strict=True)))] = x
        return out

    def taps(self, plan: Plan) -> tuple[tuple[slice, ...], ...]:
        """Per kernel offset, in row-major order over the kernel: the spatial slices of the padded
        input that put, at every output position, the element that offset of its window reads.
        (Cached per plan.)"""
        return _taps(self, plan)

    def windows(self, x: np.ndarray, plan: Plan, pad_value: float | int) -> np.ndarray:
        """A ``(N, C, *out, *kernel)`` view of the windows of ``x`` padded with ``pad_value``."""
        n = len(self.kernel)
        padded = self.padded(x, plan, pad_value)
        view = sliding_window_view(padded, self.dilated, axis=tuple(range(2, 2 + n)))
        picks: tuple[slice, ...] = (slice(None), slice(None))
        picks += tuple(slice(0, (o - 1) * s + 1, s) for o, s in zip(plan.out, self.strides, strict=True))
        picks += tuple(slice(None, None, d) for d in self.dilations)
        return view[picks]

    def has_padding(self, plan: Plan) -> bool:
        return any(plan.pads_begin) or any(plan.pads_end)


@functools.lru_cache(maxsize=512)
def _plan(spec: WindowSpec, spatial: tuple[int, ...]) -> Plan:
    return spec._make_plan(spatial)


@functools.lru_cache(maxsize=512)
def _taps(spec: WindowSpec, plan: Plan) -> tuple[tuple[slice, ...], ...]:
    return tuple(tuple(slice(k * d, k * d + (o - 1) * s + 1, s)
                       for k, d, o, s in zip(offsets, spec.dilations, plan.out, spec.strides, strict=True))
                 for offsets in np.ndindex(*spec.kernel))


def window_spec(attrs: Mapping[str, Any], kernel: Sequence[int], rounding: str = "floor") -> WindowSpec:
    """A WindowSpec from a node's attributes (missing or empty dilations and pads default)."""
    n = len(kernel)

    def ints(name: str, default: int) -> tuple[int, ...]:
        values = list(attrs.get(name) or [])
        return tuple(int(v) for v in values) if values else (default,) * n

    return WindowSpec(tuple(int(k) for k in kernel), ints("strides", 1), ints("dilations", 1),
                      ints("pads_begin", 0), ints("pads_end", 0), str(attrs.get("auto_pad", "explicit")), rounding)
