"""Case strategies of the reduction ops (OpenVINO's op-spec folder "reduction"): ReduceSum-1,
ReduceMean-1, ReduceMax-1, ReduceMin-1, ReduceProd-1, ReduceL1-4, ReduceL2-4, ReduceLogicalAnd-1
and ReduceLogicalOr-1.

Data of rank 1..4; axes are a non-empty subset of the axes in any order, each possibly
negative, as an i32/i64 1-D Constant, or a scalar Constant when there is one axis. With
``keep_dims`` the axes are sometimes a Parameter (OpenVINO CPU cannot compile the dynamic-rank
output a Parameter gives without ``keep_dims``); ReduceLogicalAnd/Or take Constant axes only (CPU
cannot compile a Parameter there).

Left out because OpenVINO CPU fails on them: empty axes (the spec reduces nothing; CPU fails to
compile, or reduces everything), rank-0 data, repeated axes. Also left out: zero-size dims (the
max of nothing is unspecified) and integer ReduceMean (the rounding of the mean is unspecified).
ReduceProd keeps products in range (floats in [0.9, 1.1] over dims of at most 3; integers in
[-1, 1]); ReduceL2 runs on floats only (the rounding of an integer square root is unspecified).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from hypothesis import strategies as st

from ovconform import opset
from ovconform.ir import Node, Type
from ovconform.opcases import OpCase, register_case
from ovconform.opcases._draw import FLOATS, CaseBuilder, Draw, draw_axes, draw_seed, draw_shape

TYPES = {
    "ReduceSum": (*FLOATS, Type.i32, Type.i64),
    "ReduceMean": FLOATS,
    "ReduceMax": (*FLOATS, Type.i32, Type.i64, Type.i8, Type.u8),
}
BUILDERS = {"ReduceSum": opset.reduce_sum, "ReduceMean": opset.reduce_mean, "ReduceMax": opset.reduce_max}
NOTE = "axes are unique and non-empty; data has rank >= 1 and no zero-size dims (see the module doc)."


def _reduce(op: str) -> None:
    def build(draw: Draw[Any]) -> OpCase:
        et = draw(st.sampled_from(TYPES[op]))
        shape = draw_shape(draw, min_rank=1)
        axes = draw_axes(draw, len(shape))
        keep_dims = draw(st.booleans())
        axes_type = draw(st.sampled_from((Type.i32, Type.i64)))
        scalar = len(axes) == 1 and draw(st.booleans())
        axes_param = keep_dims and draw(st.integers(0, 5)) == 0
        b = CaseBuilder(draw_seed(draw))
        low, high = (-2, 2) if et.is_real() else (-20, 20)
        data = b.param("data", b.uniform(shape, et, low, high))
        axes_arr = np.array(axes[0] if scalar else axes, dtype=axes_type.to_dtype())
        axes_node = b.input("axes", axes_arr, not axes_param)
        return b.finish(op, 1, BUILDERS[op](data, axes_node, keep_dims), NOTE)

    build.__name__ = f"case_{op}"
    register_case(op, 1)(build)


for _op in TYPES:
    _reduce(_op)


INTS = (Type.i32, Type.i64, Type.i8, Type.u8)

# op -> (version, builder, element types, value range per kind (float, int), max side)
REDUCTIONS: dict[str, tuple[int, Callable[..., Node], tuple[Type, ...], tuple[float, float], tuple[int, int], int]] = {
    "ReduceMin": (1, opset.reduce_min, (*FLOATS, *INTS), (-2, 2), (-20, 20), 5),
    "ReduceProd": (1, opset.reduce_prod, (*FLOATS, Type.i32, Type.i64), (0.9, 1.1), (-1, 1), 3),
    "ReduceL1": (4, opset.reduce_l1, (*FLOATS, Type.i32, Type.i64), (-2, 2), (-20, 20), 5),
    "ReduceL2": (4, opset.reduce_l2, FLOATS, (-2, 2), (0, 0), 5),
    "ReduceLogicalAnd": (1, opset.reduce_logical_and, (Type.boolean,), (0, 1), (0, 1), 5),
    "ReduceLogicalOr": (1, opset.reduce_logical_or, (Type.boolean,), (0, 1), (0, 1), 5),
}

#: OpenVINO CPU cannot compile these with the axes as a Parameter ("Second tensor is not constant").
CONST_AXES_ONLY = frozenset({"ReduceLogicalAnd", "ReduceLogicalOr"})


def _reduce_more(op: str) -> None:
    version, builder, types, float_range, int_range, max_side = REDUCTIONS[op]

    def build(draw: Draw[Any]) -> OpCase:
        et = draw(st.sampled_from(types))
        shape = draw_shape(draw, min_rank=1, max_side=max_side)
        axes = draw_axes(draw, len(shape))
        keep_dims = draw(st.booleans())
        axes_type = draw(st.sampled_from((Type.i32, Type.i64)))
        scalar = len(axes) == 1 and draw(st.booleans())
        axes_param = op not in CONST_AXES_ONLY and keep_dims and draw(st.integers(0, 5)) == 0
        b = CaseBuilder(draw_seed(draw))
        low, high = float_range if et.is_real() else int_range
        data = b.param("data", b.uniform(shape, et, low, high))
        axes_arr = np.array(axes[0] if scalar else axes, dtype=axes_type.to_dtype())
        axes_node = b.input("axes", axes_arr, not axes_param)
        return b.finish(op, version, builder(data, axes_node, keep_dims), NOTE)

    build.__name__ = f"case_{op}"
    register_case(op, version)(build)


for _op in REDUCTIONS:
    _reduce_more(_op)
