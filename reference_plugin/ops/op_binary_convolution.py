"""BinaryConvolution-1, mode xnor-popcount: data [N, C_IN, H, W] holding 0 or 1, filters
[C_OUT, C_IN, KH, KW] of u1, Convolution's strides, dilations, pads and auto_pad.

Each tap compares a data bit with a filter bit: equal (XNOR = 1) counts +1, different -1, so
``out = 2 * popcount(XNOR) - B`` (B the taps per output: C_IN * KH * KW), which is the convolution of
``2x - 1`` with ``2w - 1``. A tap in the padding reads ``pad_value``. As OpenVINO's reference code,
a tap counts +1 where the value *equals* the bit (so a data or pad value that is neither 0 nor 1
matches neither bit and counts -1). Exact in float64; output of the data's element type.
"""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_types import store, to_compute
from reference_plugin.ops._common_window import window_spec


@register_op("BinaryConvolution", since=1)
class BinaryConvolution(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.attrs = dict(node.attrs)
        if self.attrs.get("mode") != "xnor-popcount":
            raise self.fail(f"attribute mode={self.attrs.get('mode')!r} is not allowed; allowed: 'xnor-popcount'.")
        self.pad_value = float(self.attrs["pad_value"])

    def _run(self, x: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, ...]:
        if x.ndim != 4 or w.ndim != 4 or x.shape[1] != w.shape[1]:
            raise self.fail(f"data shape {list(x.shape)} and filters shape {list(w.shape)} must be [N, C, H, W] and "
                            "[C_OUT, C, KH, KW].")
        data = to_compute(x, self.in_types[0]).astype(np.float64)
        bits = np.asarray(w).astype(np.float64)  # (C_OUT, C, KH, KW), 0 or 1
        spec = window_spec(self.attrs, w.shape[2:])
        plan = spec.plan(data.shape[2:])
        n_batch = data.shape[0]
        out = np.zeros((n_batch, bits.shape[0], int(np.prod(plan.out))), np.float64)
        for bit, taps in ((1.0, bits), (0.0, 1.0 - bits)):
            # over the taps whose filter bit is `bit`: +1 where the value equals it, -1 elsewhere
            signs = spec.padded(np.where(data == bit, 1.0, -1.0), plan, 1.0 if self.pad_value == bit else -1.0)
            for offsets, picks in zip(np.ndindex(*spec.kernel), spec.taps(plan), strict=True):
                reads = signs[(slice(None), slice(None), *picks)].reshape(n_batch, data.shape[1], -1)
                out += np.matmul(taps[(slice(None), slice(None), *offsets)], reads)  # (O, C) @ (N, C, P)
        return (store(out.reshape(n_batch, bits.shape[0], *plan.out), self.out_types[0]),)
