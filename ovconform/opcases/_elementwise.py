"""Case strategies for the elementwise ops: binary arithmetic, comparison and logical ops with
numpy broadcasting (and ``auto_broadcast="none"`` on equal shapes), unary math, Select, Clamp, Gelu.

Value ranges keep every case inside the op's domain and away from overflow: no division by zero,
Log/Sqrt/Power on valid bases, unsigned values that never go negative.

Corners kept out because OpenVINO CPU treats them differently from the spec (each op's note says
which): integer Divide with operands of different signs (CPU truncates, the spec floors when
``m_pythondiv``), integer inputs to Exp/Log/Sqrt/Sigmoid/Tanh/Erf/Gelu (CPU rounds, the spec does
not say), unsigned Negative (CPU refuses to compile), Abs of the most negative i8 (CPU saturates),
fractional Clamp bounds where truncation and ceil/floor differ (CPU truncates), u8 wrap-around
(CPU saturates), i64 values beyond the i32 range (CPU computes i64 as i32),
``auto_broadcast="pdpd"`` (OpenVINO's reading of pdpd differs from a plain suffix match), and
``auto_broadcast="none"`` with a Constant operand (CPU fails to compile it when the Constant
has only size-1 dims, e.g. rank 0; so "none" cases use two Parameters).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from hypothesis import strategies as st

from ovconform import opset
from ovconform.ir import Type, make_node
from ovconform.opcases import OpCase, register_case
from ovconform.opcases._draw import (
    FLOATS,
    CaseBuilder,
    Draw,
    Gen1,
    draw_broadcast_shapes,
    draw_seed,
    draw_shape,
    unary_case,
)

Gen2 = Callable[[CaseBuilder, tuple[int, ...], tuple[int, ...], Type], tuple[np.ndarray, np.ndarray]]

SIGNED = (Type.i32, Type.i64, Type.i8)
NUMERIC = (*FLOATS, *SIGNED, Type.u8)


def _both(low: float, high: float, small: tuple[float, float] | None = None) -> Gen2:
    """Both operands in ``[low, high]``; 8-bit types in ``small`` (so results do not overflow)."""
    def gen(b: CaseBuilder, sa: tuple[int, ...], sb: tuple[int, ...], et: Type) -> tuple[np.ndarray, np.ndarray]:
        lo, hi = small if (small and et.bitwidth == 8) else (low, high)
        return b.uniform(sa, et, lo, hi), b.uniform(sb, et, lo, hi)

    return gen


def _sub(b: CaseBuilder, sa: tuple[int, ...], sb: tuple[int, ...], et: Type) -> tuple[np.ndarray, np.ndarray]:
    if et == Type.u8:  # every a >= every b: no wrap-around
        return b.uniform(sa, et, 50, 100), b.uniform(sb, et, 0, 50)
    return b.uniform(sa, et, -50, 50), b.uniform(sb, et, -50, 50)


def _div(b: CaseBuilder, sa: tuple[int, ...], sb: tuple[int, ...], et: Type) -> tuple[np.ndarray, np.ndarray]:
    if et.is_real():
        return b.uniform(sa, et, -10, 10), b.nonzero(sb, et, 0.5, 4)
    return b.uniform(sa, et, 0, 100), b.uniform(sb, et, 1, 9)  # same signs: floor == truncation


def _mod(b: CaseBuilder, sa: tuple[int, ...], sb: tuple[int, ...], et: Type) -> tuple[np.ndarray, np.ndarray]:
    if et.is_real():
        return b.uniform(sa, et, -10, 10), b.nonzero(sb, et, 0.5, 4)
    return b.uniform(sa, et, -50, 50), b.nonzero(sb, et, 1, 9)


def _pow(b: CaseBuilder, sa: tuple[int, ...], sb: tuple[int, ...], et: Type) -> tuple[np.ndarray, np.ndarray]:
    if et.is_real():
        return b.uniform(sa, et, 0.1, 3), b.uniform(sb, et, -2, 2)
    return b.uniform(sa, et, -4, 4), b.uniform(sb, et, 0, 3)


def _compare_values(b: CaseBuilder, sa: tuple[int, ...], sb: tuple[int, ...],
                    et: Type) -> tuple[np.ndarray, np.ndarray]:
    """Whole numbers from a small set (also for floats), so equal pairs are common."""
    lo = -3 if et.is_signed() else 0
    return b.integers(sa, et, lo, lo + 6), b.integers(sb, et, lo, lo + 6)


_NO_OVERFLOW = "values are small enough that results never overflow (CPU saturates 8-bit types)."

# op -> (types, value generator, note)
BINARY: dict[str, tuple[tuple[Type, ...], Gen2, str]] = {
    "Add": (NUMERIC, _both(-100, 100, (-60, 60)), _NO_OVERFLOW),
    "Subtract": (NUMERIC, _sub, "u8 minuends exceed subtrahends: CPU saturates on wrap-around."),
    "Multiply": (NUMERIC, _both(-11, 11), _NO_OVERFLOW),
    "Divide": ((*FLOATS, Type.i32, Type.i64, Type.u8), _div,
               "integer operands are non-negative: CPU truncates where m_pythondiv floors."),
    "Power": ((*FLOATS, Type.i32, Type.i64), _pow, "float bases are positive; integer exponents are 0..3."),
    "Maximum": (NUMERIC, _both(-100, 100), ""),
    "Minimum": (NUMERIC, _both(-100, 100), ""),
    "SquaredDifference": ((*FLOATS, Type.i32, Type.i64), _both(-50, 50), ""),
    "FloorMod": ((*FLOATS, Type.i32, Type.i64, Type.u8), _mod, "divisors are never zero."),
    "Mod": ((*FLOATS, Type.i32, Type.i64, Type.u8), _mod, "divisors are never zero."),
    "Equal": ((*NUMERIC, Type.boolean), _compare_values, ""),
    "NotEqual": ((*NUMERIC, Type.boolean), _compare_values, ""),
    "Less": (NUMERIC, _compare_values, ""),
    "LessEqual": (NUMERIC, _compare_values, ""),
    "Greater": (NUMERIC, _compare_values, ""),
    "GreaterEqual": (NUMERIC, _compare_values, ""),
    "LogicalAnd": ((Type.boolean,), _both(0, 1), ""),
    "LogicalOr": ((Type.boolean,), _both(0, 1), ""),
    "LogicalXor": ((Type.boolean,), _both(0, 1), ""),
}


def _draw_pair_shapes(draw: Draw[Any], mode: str) -> list[tuple[int, ...]]:
    if mode == "none":
        shape = draw_shape(draw)
        return [shape, shape]
    return draw_broadcast_shapes(draw, 2)


def _binary_case(op: str, types: tuple[Type, ...], gen: Gen2, note: str) -> None:
    def build(draw: Draw[Any]) -> OpCase:
        et = draw(st.sampled_from(types))
        mode = draw(st.sampled_from(("numpy", "numpy", "numpy", "none")))
        sa, sb = _draw_pair_shapes(draw, mode)
        # OpenVINO CPU fails to compile auto_broadcast="none" with a Constant of only size-1 dims
        rhs_constant = mode == "numpy" and draw(st.booleans()) and draw(st.booleans())
        b = CaseBuilder(draw_seed(draw))
        a_val, b_val = gen(b, sa, sb, et)
        x, y = b.param("x", a_val), b.input("y", b_val, rhs_constant)
        if op == "Divide":
            node = opset.divide(x, y, mode, draw(st.booleans()))
        else:
            node = make_node(op, 1, [x.output(0), y.output(0)], {"auto_broadcast": mode})
        return b.finish(op, 1, node, note)

    build.__name__ = f"case_{op}"
    register_case(op, 1)(build)


for _op, (_types, _gen, _note) in BINARY.items():
    _binary_case(_op, _types, _gen, _note)


def _range(low: float, high: float, f16: tuple[float, float] | None = None) -> Gen1:
    def gen(b: CaseBuilder, shape: tuple[int, ...], et: Type) -> np.ndarray:
        lo, hi = f16 if (f16 and et == Type.f16) else (low, high)
        return b.uniform(shape, et, lo, hi)

    return gen


_FLOAT_NOTE = "floating-point inputs only: OpenVINO CPU rounds integer results where the spec is silent."

# op -> (types, value generator, note)
UNARY: dict[str, tuple[tuple[Type, ...], Gen1, str]] = {
    "Abs": ((*FLOATS, *SIGNED), _range(-100, 100), "i8 never holds -128: CPU saturates Abs(-128)."),
    "Negative": ((*FLOATS, *SIGNED), _range(-100, 100), "signed types only: CPU refuses unsigned Negative."),
    "Relu": ((*FLOATS, *SIGNED), _range(-100, 100), ""),
    "Exp": (FLOATS, _range(-6, 6, (-4, 4)), _FLOAT_NOTE),
    "Log": (FLOATS, _range(0.05, 20), "inputs are positive. " + _FLOAT_NOTE),
    "Sqrt": (FLOATS, _range(0, 20), "inputs are non-negative. " + _FLOAT_NOTE),
    "Sigmoid": (FLOATS, _range(-8, 8), _FLOAT_NOTE),
    "Tanh": (FLOATS, _range(-4, 4), _FLOAT_NOTE),
    "Erf": (FLOATS, _range(-3, 3), _FLOAT_NOTE),
    "LogicalNot": ((Type.boolean,), _range(0, 1), ""),
}


for _op, (_types, _gen1, _note) in UNARY.items():
    unary_case(_op, 1, _types, _gen1, _note)
unary_case("Gelu", 2, FLOATS, _range(-4, 4), _FLOAT_NOTE)
unary_case("Gelu", 7, FLOATS, _range(-4, 4), _FLOAT_NOTE,
            lambda draw: {"approximation_mode": draw(st.sampled_from(("ERF", "TANH")))})


@register_case("Clamp", 1)
def _clamp(draw: Draw[Any]) -> OpCase:
    et = draw(st.sampled_from((*FLOATS, *SIGNED)))
    shape = draw_shape(draw)
    bound = st.floats(-60, 60, allow_nan=False, width=16)
    lo, hi = sorted((draw(bound), draw(bound)))
    if not et.is_real():  # keep fractions only where rounding toward zero (CPU) == ceil/floor (spec)
        lo = float(np.ceil(lo)) if lo > 0 else lo
        hi = float(np.floor(hi)) if hi < 0 else hi
        hi = max(hi, float(np.ceil(lo)))  # at least one integer inside [lo, hi]
    b = CaseBuilder(draw_seed(draw))
    x = b.param("x", b.uniform(shape, et, -100, 100))
    return b.finish("Clamp", 1, opset.clamp(x, lo, hi), _CLAMP_NOTE)


_CLAMP_NOTE = ("integer inputs: the spec rounds min up and max down; OpenVINO CPU truncates both toward "
               "zero, so a fractional min is only negative and a fractional max only positive.")


@register_case("Select", 1)
def _select(draw: Draw[Any]) -> OpCase:
    et = draw(st.sampled_from((*NUMERIC, Type.boolean)))
    mode = draw(st.sampled_from(("numpy", "numpy", "numpy", "none")))
    if mode == "none":
        shape = draw_shape(draw)
        shapes = [shape, shape, shape]
    else:
        shapes = draw_broadcast_shapes(draw, 3)
    b = CaseBuilder(draw_seed(draw))
    cond = b.param("cond", b.uniform(shapes[0], Type.boolean, 0, 1))
    then = b.param("then", b.uniform(shapes[1], et, -100, 100))
    other = b.param("else", b.uniform(shapes[2], et, -100, 100))
    return b.finish("Select", 1, opset.select(cond, then, other, mode))
