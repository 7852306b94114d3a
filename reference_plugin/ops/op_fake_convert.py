"""FakeConvert-13: ``(convert(data * scale - shift) + shift) / scale`` through an 8-bit float.

Arithmetic is float32 (float64 has no FakeConvert). The converted value first becomes f16
(round to nearest even, as the spec's reference implementation does), then the nearest value of
the destination type, ties to even, subnormals included: f8e4m3 (3 mantissa bits, exponents
-6..8, smallest step 2^-9, largest 448) or f8e5m2 (2 mantissa bits, exponents -14..15, smallest
step 2^-16, largest 57344). Magnitudes above the largest value (and infinities) saturate to it;
NaN stays NaN.
"""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_types import store, to_compute

F32 = np.float32
#: destination type -> (mantissa bits, smallest normal exponent, largest finite value)
FORMATS = {"f8e4m3": (3, -6, 448.0), "f8e5m2": (2, -14, 57344.0)}


def round_to_f8(values: np.ndarray, destination: str) -> np.ndarray:
    """The nearest ``destination`` value of each (f16-representable) value, ties to even; saturating."""
    mbits, emin, largest = FORMATS[destination]
    x = values.astype(np.float64)
    _, exp = np.frexp(x)
    step = np.ldexp(1.0, np.maximum(exp - 1, emin) - mbits)
    rounded = np.round(x / step) * step
    rounded = np.where(np.isinf(x), np.sign(x) * largest, rounded)
    return np.clip(rounded, -largest, largest).astype(F32)  # NaN passes through clip


@register_op("FakeConvert", since=13)
class FakeConvert(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.destination: str = node.attrs["destination_type"]

    def _run(self, data: np.ndarray, scale: np.ndarray, shift: np.ndarray | None = None) -> tuple[np.ndarray, ...]:
        et = self.in_types[0]
        x = to_compute(data, et).astype(F32)
        s = to_compute(scale, et).astype(F32)
        o = to_compute(shift, et).astype(F32) if shift is not None else np.zeros_like(s)
        scaled = (x * s - o).astype(np.float16)
        converted = round_to_f8(scaled, self.destination)
        out = np.broadcast_to((converted + o) / s, x.shape)
        return (store(np.ascontiguousarray(out, dtype=F32), et),)
