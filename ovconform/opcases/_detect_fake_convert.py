"""Case strategy of FakeConvert-13.

Data of rank 1..4 (f32 or f16; the kernel also takes bf16, not drawn here) with magnitudes spread
over 2^-14 .. 2^12 (so both the subnormal range and the saturation of the 8-bit types are
reached); ``scale`` in [0.25, 4] and the optional ``shift`` in [-1, 1], Parameters of one shape:
[1], per channel (``[1, C, 1, ...]``) or the data's shape. Both destination types. No NaN: the
spec keeps it NaN, OpenVINO CPU turns it into the largest negative value.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st

from ovconform import opset
from ovconform.ir import Type
from ovconform.opcases import OpCase, register_case
from ovconform.opcases._draw import FLOATS, CaseBuilder, Draw, draw_seed, draw_shape


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

