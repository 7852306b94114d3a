"""Case strategies for ReduceMin-1, ReduceProd-1, ReduceL1-4, ReduceL2-4, ReduceLogicalAnd-1,
ReduceLogicalOr-1, LogSoftmax-5 and the bitwise ops (BitwiseAnd/Or/Xor/Not-13,
BitwiseLeftShift/RightShift-15).

Reductions follow :mod:`ovconform.opcases._reduce`: data of rank 1..4, a non-empty set of unique
axes (some negative) as an i32/i64 Constant (scalar for one axis), sometimes a Parameter with
``keep_dims``; the same OpenVINO CPU corners are left out (empty axes, rank-0 data, repeated
axes, zero-size dims); ReduceLogicalAnd/Or take Constant axes only (CPU cannot compile a
Parameter there). ReduceProd keeps products in range (floats in [0.9, 1.1] over dims of at
most 3; integers in [-1, 1]); ReduceL2 runs on floats only (the rounding of an integer square
root is unspecified).

Bitwise binaries broadcast with numpy rules over boolean and integer data; i64 values stay in
the i32 range (CPU computes i64 as i32). Shift counts stay in ``[0, bits)`` (the spec leaves
others undefined), and signed left shifts never overflow (undefined in the spec).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from hypothesis import strategies as st

from ovconform import opset
from ovconform.ir import Node, Type
from ovconform.opcases import OpCase, register_case
from ovconform.opcases._draw import FLOATS, CaseBuilder, Draw, draw_broadcast_shapes, draw_seed, draw_shape
from ovconform.opcases._reduce import NOTE as REDUCE_NOTE
from ovconform.opcases._reduce import draw_axes

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


def _reduce(op: str) -> None:
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
        return b.finish(op, version, builder(data, axes_node, keep_dims), REDUCE_NOTE)

    build.__name__ = f"case_{op}"
    register_case(op, version)(build)


for _op in REDUCTIONS:
    _reduce(_op)


@register_case("LogSoftmax", 5)
def case_log_softmax(draw: Draw[Any]) -> OpCase:
    et = draw(st.sampled_from(FLOATS))
    shape = draw_shape(draw, min_rank=1)
    rank = len(shape)
    axis = draw(st.integers(-rank, rank - 1))
    b = CaseBuilder(draw_seed(draw))
    data = b.param("data", b.uniform(shape, et, -6, 6))
    return b.finish("LogSoftmax", 5, opset.log_softmax(data, axis))


# -- bitwise -----------------------------------------------------------------------------------

LOGIC_TYPES = (Type.boolean, *INTS)
LOGIC = {"BitwiseAnd": opset.bitwise_and, "BitwiseOr": opset.bitwise_or, "BitwiseXor": opset.bitwise_xor}
I64_NOTE = "i64 values stay in the i32 range (OpenVINO CPU computes i64 as i32)."


def _values(b: CaseBuilder, shape: tuple[int, ...], et: Type) -> np.ndarray:
    if et == Type.i64:
        return b.uniform(shape, et, -2**31, 2**31 - 1)
    return b.uniform(shape, et, -2**63, 2**63 - 1)  # clipped to the type's range


def _logic(op: str) -> None:
    def build(draw: Draw[Any]) -> OpCase:
        et = draw(st.sampled_from(LOGIC_TYPES))
        sa, sb = draw_broadcast_shapes(draw)
        b = CaseBuilder(draw_seed(draw))
        left = b.param("a", _values(b, sa, et))
        right = b.param("b", _values(b, sb, et))
        return b.finish(op, 13, LOGIC[op](left, right), I64_NOTE)

    build.__name__ = f"case_{op}"
    register_case(op, 13)(build)


for _op in LOGIC:
    _logic(_op)


@register_case("BitwiseNot", 13)
def case_bitwise_not(draw: Draw[Any]) -> OpCase:
    et = draw(st.sampled_from(LOGIC_TYPES))
    shape = draw_shape(draw)
    b = CaseBuilder(draw_seed(draw))
    data = b.param("data", _values(b, shape, et))
    return b.finish("BitwiseNot", 13, opset.bitwise_not(data), I64_NOTE)


SHIFT_NOTE = ("shift counts are in [0, bits) and signed left shifts do not overflow (both undefined in the "
              "spec); " + I64_NOTE)


def _shift_operands(b: CaseBuilder, sa: tuple[int, ...], sb: tuple[int, ...], et: Type,
                    left: bool) -> tuple[np.ndarray, np.ndarray]:
    bits = 32 if et == Type.i64 else et.bitwidth
    if left and et.is_signed():  # |a| < 2**4 and count <= bits - 5: no overflow
        return b.uniform(sa, et, -15, 15), b.uniform(sb, et, 0, bits - 5)
    return _values(b, sa, et), b.uniform(sb, et, 0, bits - 1)


def _shift(op: str, left: bool) -> None:
    builder = opset.bitwise_left_shift if left else opset.bitwise_right_shift

    def build(draw: Draw[Any]) -> OpCase:
        et = draw(st.sampled_from(INTS))
        sa, sb = draw_broadcast_shapes(draw)
        b = CaseBuilder(draw_seed(draw))
        av, bv = _shift_operands(b, sa, sb, et, left)
        return b.finish(op, 15, builder(b.param("a", av), b.param("b", bv)), SHIFT_NOTE)

    build.__name__ = f"case_{op}"
    register_case(op, 15)(build)


_shift("BitwiseLeftShift", left=True)
_shift("BitwiseRightShift", left=False)
