"""Case strategies for Convert-1 and ConvertLike-1 (Parameter, Constant and Result are in every case).

Values always fit the destination type, and floats converted to integers have a fractional part
below 0.4 in magnitude: the spec leaves out-of-range conversions undefined, and OpenVINO CPU
truncates toward zero where the spec only says the value "may be rounded".
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st

from ovconform import opset
from ovconform.ir import Type
from ovconform.opcases import OpCase, register_case
from ovconform.opcases._draw import CaseBuilder, Draw, draw_seed, draw_shape, type_limits

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
