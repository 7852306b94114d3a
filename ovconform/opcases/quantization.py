"""Case strategies of the quantization ops (OpenVINO's op-spec folder "quantization"):
FakeQuantize-1 and FakeConvert-13.

* FakeQuantize: the limits are Constants (OpenVINO CPU needs them constant); ``auto_broadcast`` is
  numpy (OpenVINO CPU fails to compile ``none`` and ``pdpd`` with non-scalar limits: its
  FakeQuantizeDecomposition pass rebuilds the node with scalar limits and rejects it, "Argument
  shapes are inconsistent"; unit tests cover those modes on REFERENCE); ``input_low < input_high``
  (the spec's formula divides by their difference), and no value lies within 2% of a level step of
  a rounding boundary (``x`` where the quantized level flips: the choice there depends on the
  precision of the division, which the spec does not fix). Boundary values are moved into their
  level.
* FakeConvert: data of rank 1..4 (f32 or f16; the kernel also takes bf16, not drawn here) with
  magnitudes spread over 2^-14 .. 2^12 (so both the subnormal range and the saturation of the
  8-bit types are reached); ``scale`` in [0.25, 4] and the optional ``shift`` in [-1, 1],
  Parameters of one shape: [1], per channel (``[1, C, 1, ...]``) or the data's shape. Both
  destination types. No NaN: the spec keeps it NaN, OpenVINO CPU turns it into the largest
  negative value.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st

from ovconform import opset
from ovconform.ir import Type
from ovconform.opcases import OpCase, register_case
from ovconform.opcases._draw import FLOATS, CaseBuilder, Draw, draw_seed, draw_shape


def _limit_shape(draw: Draw[Any], shape: tuple[int, ...]) -> tuple[int, ...]:
    """A limit shape that broadcasts into ``shape`` (numpy): scalar, per channel, or a partial suffix."""
    kind = draw(st.sampled_from(("scalar", "channel", "partial")))
    if kind == "scalar" or not shape:
        return ()
    if kind == "channel" and len(shape) >= 2:
        return (1, shape[1], *([1] * (len(shape) - 2)))
    rank = draw(st.integers(1, len(shape)))
    return tuple(d if draw(st.booleans()) else 1 for d in shape[len(shape) - rank:])


def _off_boundaries(x: np.ndarray, lo: np.ndarray, hi: np.ndarray, levels: int, et: Type) -> np.ndarray:
    """``x`` with every value near a level's rounding boundary moved into its level (then stored as et)."""
    dt = et.to_dtype()
    lo64, hi64 = lo.astype(np.float64), hi.astype(np.float64)
    for _ in range(3):
        u = (x.astype(np.float64) - lo64) / (hi64 - lo64) * (levels - 1)
        frac = u - np.floor(u)
        bad = (np.abs(frac - 0.5) < 0.02) & (u > 0) & (u < levels - 1)
        if not bad.any():
            return x
        moved = lo64 + (np.floor(u) + 0.25) / (levels - 1) * (hi64 - lo64)
        x = np.where(bad, moved, x).astype(dt)
    u = (x.astype(np.float64) - lo64) / (hi64 - lo64) * (levels - 1)
    bad = (np.abs(u - np.floor(u) - 0.5) < 0.02) & (u > 0) & (u < levels - 1)
    return np.where(bad, lo64, x).astype(dt)


@register_case("FakeQuantize", 1)
def case_fake_quantize(draw: Draw[Any]) -> OpCase:
    et = draw(st.sampled_from(FLOATS))
    rank = draw(st.integers(0, 4))
    shape = tuple(draw(st.integers(1, 4)) for _ in range(rank))
    shapes = [_limit_shape(draw, shape) for _ in range(4)]
    levels = draw(st.sampled_from((2, 3, 5, 16, 255, 256)))
    inverted = draw(st.integers(0, 3)) == 0  # output_low > output_high: the spec allows an inverted range
    b = CaseBuilder(draw_seed(draw))
    lo = b.uniform(shapes[0], et, -3, 0)
    hi_shape = np.broadcast_shapes(shapes[0], shapes[1])
    hi = (lo.astype(np.float64) + b.uniform(hi_shape, Type.f64, 0.5, 4)).astype(et.to_dtype())
    ol = b.uniform(shapes[2], et, -5, 5)
    step = b.uniform(np.broadcast_shapes(shapes[2], shapes[3]), Type.f64, 0.5, 5)
    oh = (ol.astype(np.float64) + (-step if inverted else step)).astype(et.to_dtype())
    x = b.uniform(shape, et, -4, 5)
    if x.size:
        lo_full, hi_full = np.broadcast_arrays(lo, hi)
        x = _off_boundaries(x, lo_full, hi_full, levels, et)
    data = b.param("x", x)
    node = opset.fake_quantize(data, b.const(lo), b.const(hi), b.const(ol), b.const(oh), levels)
    return b.finish("FakeQuantize", 1, node, "limits are Constants; no value sits on a rounding boundary.")


@register_case("FakeConvert", 13)
def case_fake_convert(draw: Draw[Any]) -> OpCase:
    et = draw(st.sampled_from(FLOATS))
    shape = draw_shape(draw, min_rank=1)
    kind = draw(st.sampled_from(("tensor", "channel", "full")))
    if kind == "tensor" or len(shape) < 2:
        side = (1,) if kind != "full" else shape
    else:
        side = (1, shape[1]) + (1,) * (len(shape) - 2) if kind == "channel" else shape
    b = CaseBuilder(draw_seed(draw))
    magnitude = b.uniform(shape, Type.f32, -1, 1) * np.exp2(b.rng.integers(-14, 13, shape))
    data = b.param("data", magnitude.astype(et.to_dtype()))
    scale = b.param("scale", b.uniform(side, et, 0.25, 4))
    shift = b.param("shift", b.uniform(side, et, -1, 1)) if draw(st.booleans()) else None
    dest = draw(st.sampled_from(("f8e4m3", "f8e5m2")))
    return b.finish("FakeConvert", 13, opset.fake_convert(data, scale, shift, dest))
