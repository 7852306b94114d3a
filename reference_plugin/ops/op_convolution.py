"""Convolution-1: data ``[N, C_IN, *spatial]``, filters ``[C_OUT, C_IN, *kernel]`` (1 to 3 spatial
dims), zero padding by ``pads_begin``/``pads_end`` or ``auto_pad``, with strides and dilations.
The sum of :mod:`reference_plugin.ops._common_conv`: floats in :func:`compute_float_dtype` (sgemm
for f32/f16/bf16, dgemm for f64), integers accumulated in int64, then wrapped.
"""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_conv import convolve
from reference_plugin.ops._common_types import accumulate_dtype, compute_float_dtype, store, to_compute
from reference_plugin.ops._common_window import WindowSpec, window_spec


@register_op("Convolution", since=1)
class Convolution(OpRun):
    #: Dims of the filters before the kernel dims (GroupConvolution has one more: GROUPS).
    filter_lead = 2

    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.t, self.out_t = self.in_types[0], self.out_types[0]
        self.acc = compute_float_dtype(self.t) if self.t.is_real() else accumulate_dtype(self.t)
        self.attrs = dict(node.attrs)
        const = self.const_input(1)
        self.filters = (self._grouped(to_compute(const, self.t).astype(self.acc, copy=False))  # f32: no copy
                        if const is not None else None)
        self.spec = window_spec(self.attrs, self.filters.shape[3:]) if self.filters is not None else None

    def _grouped(self, w: np.ndarray) -> np.ndarray:
        """Filters as ``(G, Og, Cg, *kernel)``."""
        return w[None]

    def _run(self, x: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, ...]:
        if x.ndim != w.ndim - self.filter_lead + 2 or x.ndim not in (3, 4, 5):
            raise self.fail(f"data shape {list(x.shape)} and filters shape {list(w.shape)} do not match "
                            "([N, C, 1-3 spatial dims] and a kernel of as many dims).")
        if self.filters is not None and self.spec is not None:
            filters, spec = self.filters, self.spec
        else:
            filters = self._grouped(to_compute(w, self.t).astype(self.acc))
            spec = window_spec(self.attrs, filters.shape[3:])
        out = self.convolve(to_compute(x, self.t).astype(self.acc, copy=False), filters, spec)
        return (store(out, self.out_t),)

    def convolve(self, x: np.ndarray, filters: np.ndarray, spec: WindowSpec) -> np.ndarray:
        """The grouped convolution of ``x`` and ``filters`` in the accumulation dtype."""
        return convolve(x, filters, spec)
