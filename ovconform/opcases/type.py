"""Case strategies of the type ops (OpenVINO's op-spec folder "type"): Convert-1, ConvertLike-1 and
ConvertPromoteTypes-14.

Convert/ConvertLike values always fit the destination type, and floats converted to integers have
a fractional part below 0.4 in magnitude: the spec leaves out-of-range conversions undefined, and
OpenVINO CPU truncates toward zero where the spec only says the value "may be rounded".

ConvertPromoteTypes: type pairs whose promotion is valid under the drawn attributes (bf16 is left
out: ``CaseBuilder.param`` types a Parameter by its numpy dtype, and bf16 is stored as uint16);
values are small whole numbers (within [0, 100] when an unsigned type is involved), so every
conversion is exact.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st

from ovconform import opset
from ovconform.errors import ValidationError
from ovconform.ir import Type
from ovconform.opcases import OpCase, register_case
from ovconform.opcases._draw import CaseBuilder, Draw, draw_seed, draw_shape, type_limits
from ovconform.opset._type import promote_types

TYPES = (Type.f32, Type.f16, Type.i32, Type.i64, Type.i8, Type.u8, Type.boolean)
NOTE = "values fit the destination type; float-to-integer fractions stay below 0.4 (trunc == round)."


def _source_values(b: CaseBuilder, shape: tuple[int, ...], src: Type, dst: Type) -> np.ndarray:
    """Whole numbers inside both types' ranges (at most +-100); real sources get a fraction that
    points away from zero and stays below 0.4, so truncation and rounding agree."""
    if src == Type.boolean:
        return b.uniform(shape, src, 0, 1)
    bounds = [(-100, 100), type_limits(src)] + ([type_limits(dst)] if dst != Type.boolean else [])
    lo, hi = max(lo for lo, _ in bounds), min(hi for _, hi in bounds)
    whole = b.integers(shape, Type.i64, int(lo), int(hi)).astype(np.float64)
    if src.is_real():
        away = np.where(whole < 0, -1.0, 1.0)
        whole = whole + away * b.rng.uniform(0, 0.4, shape)
    return whole.astype(src.to_dtype())


def _draw_types(draw: Draw[Any]) -> tuple[Type, Type]:
    return draw(st.sampled_from(TYPES)), draw(st.sampled_from(TYPES))


@register_case("Convert", 1)
def _convert(draw: Draw[Any]) -> OpCase:
    src, dst = _draw_types(draw)
    shape = draw_shape(draw)
    b = CaseBuilder(draw_seed(draw))
    x = b.param("x", _source_values(b, shape, src, dst))
    return b.finish("Convert", 1, opset.convert(x, dst), NOTE)


@register_case("ConvertLike", 1)
def _convert_like(draw: Draw[Any]) -> OpCase:
    src, dst = _draw_types(draw)
    shape, like_shape = draw_shape(draw), draw_shape(draw, max_rank=2)
    b = CaseBuilder(draw_seed(draw))
    x = b.param("x", _source_values(b, shape, src, dst))
    like = b.param("like", b.integers(like_shape, dst, 0, 5))
    return b.finish("ConvertLike", 1, opset.convert_like(x, like), NOTE)


PROMOTE_TYPES = (Type.boolean, Type.f16, Type.f32, Type.f64, Type.i8, Type.i16, Type.i32, Type.i64, Type.u8,
                 Type.u16, Type.u32, Type.u64)
U64_TARGETS = (Type.f32, Type.f64, Type.f16, Type.i64, Type.i32)


def _small_values(b: CaseBuilder, shape: tuple[int, ...], et: Type, unsigned: bool) -> np.ndarray:
    if et == Type.boolean:
        return b.uniform(shape, et, 0, 1)
    low = 0 if unsigned or not et.is_signed() else -100
    return b.integers(shape, et, low, 100)


@register_case("ConvertPromoteTypes", 14)
def case_convert_promote_types(draw: Draw[Any]) -> OpCase:
    ta, tb = draw(st.sampled_from(PROMOTE_TYPES)), draw(st.sampled_from(PROMOTE_TYPES))
    sa, sb = (draw(st.sampled_from(((), (1,), (3,), (2, 3), (2, 1, 2)))) for _ in range(2))
    pytorch = draw(st.booleans())
    target = draw(st.sampled_from(U64_TARGETS))
    unsafe = draw(st.booleans())
    try:
        promote_types(ta, tb, sa == (), sb == (), unsafe, pytorch, target)
    except ValidationError:
        unsafe = True
        try:
            promote_types(ta, tb, sa == (), sb == (), unsafe, pytorch, target)
        except ValidationError:
            tb = ta
    unsigned = any(t.is_integral_number() and not t.is_signed() for t in (ta, tb, target))
    b = CaseBuilder(draw_seed(draw))
    left = b.param("a", _small_values(b, sa, ta, unsigned))
    right = b.param("b", _small_values(b, sb, tb, unsigned))
    node = opset.convert_promote_types(left, right, unsafe, pytorch, target)
    return b.finish("ConvertPromoteTypes", 14, node)
