"""Case strategies of Col2Im-15 and ExtractImagePatches-3.

Col2Im: the sizes are Constants and consistent with the number of blocks. ExtractImagePatches: at
least one output row and column.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st

from ovconform import opset
from ovconform.ir import Type
from ovconform.opcases import OpCase, register_case
from ovconform.opcases._draw import FLOATS, CaseBuilder, Draw, draw_seed
from ovconform.opcases._draw_index import INDEX_TYPES
from ovconform.opset._window import dilated


@register_case("Col2Im", 15)
def case_col2im(draw: Draw[Any]) -> OpCase:
    et = draw(st.sampled_from((*FLOATS, Type.i32)))
    kernel = [draw(st.integers(1, 3)) for _ in range(2)]
    strides, dil = [draw(st.integers(1, 2)) for _ in range(2)], [draw(st.integers(1, 2)) for _ in range(2)]
    pb, pe = [draw(st.integers(0, 1)) for _ in range(2)], [draw(st.integers(0, 1)) for _ in range(2)]
    size = [max(1, dilated(k, d) - a - c) + draw(st.integers(0, 4))
            for k, d, a, c in zip(kernel, dil, pb, pe, strict=True)]
    blocks = [(s + a + c - dilated(k, d)) // st_ + 1
              for s, a, c, k, d, st_ in zip(size, pb, pe, kernel, dil, strides, strict=True)]
    channels = draw(st.integers(1, 3))
    batched = draw(st.booleans())
    shape = ((draw(st.integers(1, 2)),) if batched else ()) + (channels * kernel[0] * kernel[1], blocks[0] * blocks[1])
    it = draw(st.sampled_from(INDEX_TYPES))
    b = CaseBuilder(draw_seed(draw))
    data = b.param("data", b.uniform(shape, et, -2, 2) if et.is_real() else b.uniform(shape, et, -5, 5))
    node = opset.col2im(data, b.const(np.array(size, it.to_dtype())), b.const(np.array(kernel, it.to_dtype())),
                        strides, dil, pb, pe)
    return b.finish("Col2Im", 15, node)


PATCH_TYPES = (Type.f32, Type.f16, Type.i32, Type.u8, Type.i8)


@register_case("ExtractImagePatches", 3)
def case_extract_image_patches(draw: Draw[Any]) -> OpCase:
    et = draw(st.sampled_from(PATCH_TYPES))
    pad = draw(st.sampled_from(("valid", "same_upper", "same_lower")))
    sizes = [draw(st.integers(1, 3)) for _ in range(2)]
    strides = [draw(st.integers(1, 3)) for _ in range(2)]
    rates = [draw(st.integers(1, 2)) for _ in range(2)]
    low = [r * (k - 1) + 1 if pad == "valid" else 1 for k, r in zip(sizes, rates, strict=True)]
    shape = (draw(st.integers(1, 2)), draw(st.integers(1, 3)), draw(st.integers(low[0], 7)),
             draw(st.integers(low[1], 7)))
    b = CaseBuilder(draw_seed(draw))
    data = b.param("data", b.uniform(shape, et, -50, 50))
    return b.finish("ExtractImagePatches", 3, opset.extract_image_patches(data, sizes, strides, rates, pad))
