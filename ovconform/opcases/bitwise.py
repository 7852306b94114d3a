"""Case strategies of the bitwise ops (OpenVINO's op-spec folder "bitwise"): BitwiseAnd/Or/Xor/Not-13
and BitwiseLeftShift/RightShift-15.

Bitwise binaries broadcast with numpy rules over boolean and integer data; i64 values stay in
the i32 range (CPU computes i64 as i32). Shift counts stay in ``[0, bits)`` (the spec leaves
others undefined), and signed left shifts never overflow (undefined in the spec).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st

from ovconform import opset
from ovconform.ir import Type
from ovconform.opcases import OpCase, register_case
from ovconform.opcases import _stimulus_recipes as SR
from ovconform.opcases import stimulus as S
from ovconform.opcases._draw import CaseBuilder, Draw, draw_broadcast_shapes, draw_seed, draw_shape
from ovconform.opcases.reduction import INTS

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

# -- stimulus cases (issue #20: sizes, values, element types, dynamic shapes; see ovconform.opcases.stimulus)

SR.register_unary({
    ("BitwiseNot", 13): {"types": (*S.INTEGERS, Type.boolean), "gen": SR.uniform_gen(-100, 100, (0, 100)),
                         "boundary": (True, True)},
})


SR.register_binary({
    ("BitwiseAnd", 13): {"types": (*S.INTEGERS, Type.boolean), "gen": SR.same_gen(SR.uniform_gen(0, 1, (-100, 100))),
                         "boundary": (True, True)},
    ("BitwiseOr", 13): {"types": (*S.INTEGERS, Type.boolean), "gen": SR.same_gen(SR.uniform_gen(0, 1, (-100, 100))),
                        "boundary": (True, True)},
    ("BitwiseXor", 13): {"types": (*S.INTEGERS, Type.boolean), "gen": SR.same_gen(SR.uniform_gen(0, 1, (-100, 100))),
                         "boundary": (True, True)},
})
