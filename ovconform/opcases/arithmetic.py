"""Case strategies of the arithmetic ops (OpenVINO's op-spec folder "arithmetic"): the binaries
Add, Subtract, Multiply, Divide, Power, Maximum, Minimum, SquaredDifference, FloorMod, Mod; the
unary Abs, Negative, Log, Sqrt, Tanh, Erf, the trigonometric and hyperbolic functions and their
inverses, Floor, Ceiling, Sign and Round-5; CumSum-3, SegmentMax-16 and ErfInv-17 (inside
(-1, 1), or only the spec's special inputs).

Binaries broadcast with numpy rules (and ``auto_broadcast="none"`` on equal shapes). Value ranges
keep every case inside the op's domain and away from overflow: no division by zero, Log/Sqrt/Power
on valid bases, unsigned values that never go negative. The transcendental ops stay where the
function is well conditioned: Tan away from ±π/2, Asin/Acos/Atanh inside (-1, 1) away from the
ends, Acosh from 1.5 up (near 1 its slope is unbounded), Sinh/Cosh small enough not to overflow
f16. Floor, Ceiling, Sign and Round draw whole numbers and exact halves next to uniform values, so
ties and zeros (Sign, Round's ``mode``) occur in most cases.

Corners kept out because OpenVINO CPU treats them differently from the spec (each op's note says
which): integer Divide with operands of different signs (CPU truncates, the spec floors when
``m_pythondiv``), integer inputs to Exp/Log/Sqrt/Tanh/Erf and the transcendental ops (CPU rounds,
the spec does not say), unsigned Negative (CPU refuses to compile), Abs of the most negative i8
(CPU saturates), u8 wrap-around (CPU saturates), i64 values beyond the i32 range (CPU computes i64
as i32), ``auto_broadcast="pdpd"`` (OpenVINO's reading of pdpd differs from a plain suffix match),
and ``auto_broadcast="none"`` with a Constant operand (CPU fails to compile it when the Constant
has only size-1 dims, e.g. rank 0; so "none" cases use two Parameters).

CumSum always gets its axis input: the one-input form (axis 0 by default, as the spec allows) is
built and evaluated by REFERENCE, but OpenVINO 2026.4 cannot read it ("index '1' out of range").
SegmentMax: ``num_segments``, when given, is a Constant of at least ``max(segment_ids) + 1``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
from hypothesis import strategies as st

from ovconform import opset
from ovconform.ir import Type
from ovconform.opcases import OpCase, register_case
from ovconform.opcases import _stimulus_recipes as SR
from ovconform.opcases import stimulus as S
from ovconform.opcases._draw import (
    _FLOAT_NOTE,
    AXES_TYPES,
    FLOATS,
    NUMERIC,
    SIGNED,
    CaseBuilder,
    Draw,
    Gen1,
    Gen2,
    _binary_case,
    _both,
    _range,
    draw_seed,
    draw_shape,
    unary_case,
)
from ovconform.opcases._draw_index import INDEX_TYPES, draw_type, values
from ovconform.opcases.depth import Depth
from ovconform.opset._arithmetic import ROUND_MODES, UNARY_VERSIONS


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
}


for _op, (_types, _gen2, _note) in BINARY.items():
    _binary_case(_op, _types, _gen2, _note)


# op -> (types, value generator, note)
UNARY: dict[str, tuple[tuple[Type, ...], Gen1, str]] = {
    "Abs": ((*FLOATS, *SIGNED), _range(-100, 100), "i8 never holds -128: CPU saturates Abs(-128)."),
    "Negative": ((*FLOATS, *SIGNED), _range(-100, 100), "signed types only: CPU refuses unsigned Negative."),
    "Log": (FLOATS, _range(0.05, 20), "inputs are positive. " + _FLOAT_NOTE),
    "Sqrt": (FLOATS, _range(0, 20), "inputs are non-negative. " + _FLOAT_NOTE),
    "Tanh": (FLOATS, _range(-4, 4), _FLOAT_NOTE),
    "Erf": (FLOATS, _range(-3, 3), _FLOAT_NOTE),
}


for _op, (_types, _gen1, _note) in UNARY.items():
    unary_case(_op, 1, _types, _gen1, _note)


def _uniform_in(low: float, high: float) -> Gen1:
    def gen(b: CaseBuilder, shape: tuple[int, ...], et: Type) -> np.ndarray:
        return b.uniform(shape, et, low, high)

    return gen


def _with_ties(b: CaseBuilder, shape: tuple[int, ...], et: Type) -> np.ndarray:
    """Integers: values in [-50, 50]. Floats: a mix of uniform values in [-10, 10], whole
    numbers and exact halves (k / 2 for k in [-20, 20]), including zeros."""
    if not et.is_real():
        return b.uniform(shape, et, -50, 50)
    uniform = b.uniform(shape, Type.f64, -10, 10)
    halves = b.rng.integers(-20, 21, shape) / 2.0
    pick = b.rng.random(shape) < 0.5
    return np.where(pick, halves, uniform).astype(et.to_dtype())


# op -> (types, value generator, note)
UNARY_MATH: dict[str, tuple[tuple[Type, ...], Gen1, str]] = {
    "Sin": (FLOATS, _uniform_in(-6, 6), _FLOAT_NOTE),
    "Cos": (FLOATS, _uniform_in(-6, 6), _FLOAT_NOTE),
    "Tan": (FLOATS, _uniform_in(-1.4, 1.4), "inputs stay inside (-1.4, 1.4), away from the poles. " + _FLOAT_NOTE),
    "Asin": (FLOATS, _uniform_in(-0.95, 0.95), "inputs inside the domain, away from ±1. " + _FLOAT_NOTE),
    "Acos": (FLOATS, _uniform_in(-0.95, 0.95), "inputs inside the domain, away from ±1. " + _FLOAT_NOTE),
    "Atan": (FLOATS, _uniform_in(-10, 10), _FLOAT_NOTE),
    "Sinh": (FLOATS, _uniform_in(-5, 5), _FLOAT_NOTE),
    "Cosh": (FLOATS, _uniform_in(-5, 5), _FLOAT_NOTE),
    "Asinh": (FLOATS, _uniform_in(-10, 10), _FLOAT_NOTE),
    "Acosh": (FLOATS, _uniform_in(1.5, 10), "inputs from 1.5 up (acosh is ill-conditioned near 1). " + _FLOAT_NOTE),
    "Atanh": (FLOATS, _uniform_in(-0.9, 0.9), "inputs inside the domain, away from ±1. " + _FLOAT_NOTE),
    "Floor": ((*FLOATS, *SIGNED), _with_ties, ""),
    "Ceiling": ((*FLOATS, *SIGNED), _with_ties, ""),
    "Sign": ((*FLOATS, *SIGNED), _with_ties, ""),
}


for _op, (_types, _gen, _note) in UNARY_MATH.items():
    unary_case(_op, UNARY_VERSIONS[_op], _types, _gen, _note)


@register_case("Round", 5)
def _round(draw: Draw[Any]) -> OpCase:
    et = draw(st.sampled_from((*FLOATS, *SIGNED)))
    shape = draw_shape(draw)
    mode = draw(st.sampled_from(ROUND_MODES))
    b = CaseBuilder(draw_seed(draw))
    x = b.param("x", _with_ties(b, shape, et))
    return b.finish("Round", 5, opset.round(x, mode))


CUMSUM_TYPES = (*FLOATS, Type.i32, Type.i64)


@register_case("CumSum", 3)
def case_cumsum(draw: Draw[Any]) -> OpCase:
    et = draw(st.sampled_from(CUMSUM_TYPES))
    shape = draw_shape(draw, min_rank=1, max_rank=4)
    rank = len(shape)
    exclusive, reverse = draw(st.booleans()), draw(st.booleans())
    b = CaseBuilder(draw_seed(draw))
    data = b.param("data", b.uniform(shape, et, -3, 3) if et.is_real() else b.integers(shape, et, -20, 20))
    axis_t = draw(st.sampled_from(AXES_TYPES))
    axis = b.input("axis", np.array(draw(st.integers(-rank, rank - 1)), axis_t.to_dtype()), draw(st.booleans()))
    return b.finish("CumSum", 3, opset.cumsum(data, axis, exclusive, reverse))


@register_case("SegmentMax", 16)
def case_segment_max(draw: Draw[Any]) -> OpCase:
    shape = draw_shape(draw, min_rank=1, max_side=5)
    et = draw_type(draw, (Type.f32, Type.f16, Type.i32, Type.i64, Type.u8, Type.i8))
    b = CaseBuilder(draw_seed(draw))
    ids = np.sort(b.rng.integers(0, draw(st.integers(1, 6)), shape[0]))
    if draw(st.booleans()):
        ids = ids - ids[0]  # the first segment is used
    with_num = draw(st.booleans())
    num = int(ids[-1]) + 1 + draw(st.integers(0, 2))
    id_type = draw(st.sampled_from(INDEX_TYPES))
    segment_ids = b.input("segment_ids", ids.astype(id_type.to_dtype()), as_constant=draw(st.booleans()))
    num_node = b.const(np.array(num, id_type.to_dtype())) if with_num else None
    node = opset.segment_max(b.param("data", values(b, tuple(shape), et)), segment_ids, num_node,
                             draw(st.sampled_from(("zero", "lowest"))))
    return b.finish("SegmentMax", 16, node, "num_segments, when given, is a Constant of at least max(segment_ids) + 1.")

# -- ErfInv-17 ------------------------------------------------------------------------------------------------

#: The spec's special inputs of ErfInv: 0 (either sign), ±1 (±inf out), |x| > 1 and ±inf (NaN out), NaN.
ERFINV_SPECIALS = (0.0, -0.0, 1.0, -1.0, 1.5, -3.0, np.inf, -np.inf, np.nan)


@register_case("ErfInv", 17)
def case_erfinv(draw: Draw[Any]) -> OpCase:
    """Two kinds of case: values inside (-1, 1) (mostly near the middle, some within 1e-3 of ±1, where
    the slope grows like exp(y²)), or only the spec's special inputs."""
    et = draw(st.sampled_from(FLOATS))
    shape = draw_shape(draw)
    b = CaseBuilder(draw_seed(draw))
    if draw(st.integers(0, 2)) == 0:
        x = b.rng.choice(np.array(ERFINV_SPECIALS), size=shape).astype(et.to_dtype())
        note = "the spec's special inputs only: 0, ±1, |x| > 1, ±inf, NaN."
    else:
        mid = b.rng.uniform(-0.99, 0.99, shape)
        tail = np.copysign(1.0 - b.rng.uniform(1e-3, 1e-2, shape), b.rng.uniform(-1, 1, shape))
        x = np.where(b.rng.random(shape) < 0.2, tail, mid).astype(et.to_dtype())
        x = np.clip(x, -np.nextafter(et.to_dtype().type(1), et.to_dtype().type(0)),  # inside (-1, 1) after rounding
                    np.nextafter(et.to_dtype().type(1), et.to_dtype().type(0)))
        note = "values inside (-1, 1); OpenVINO CPU's ErfInv is an approximation (a recorded deviation)."
    return b.finish("ErfInv", 17, opset.erfinv(b.param("x", np.asarray(x, et.to_dtype()))), note)


# -- stimulus cases (issue #20: sizes, values, element types, dynamic shapes; see ovconform.opcases.stimulus)

SR.register_unary({
    ("Abs", 1): {"types": S.NUMERIC, "gen": SR.uniform_gen(-50, 50, (-50, 50)), "specials": SR.EXACT_SPECIALS,
                 "boundary": (False, True)},
    ("Negative", 1): {"types": SR.SIGNED_NUMERIC, "gen": SR.uniform_gen(-50, 50, (-50, 50)),
                      "specials": SR.EXACT_SPECIALS,
                      "boundary": (False, True)},
    ("Sign", 1): {"types": SR.SIGNED_NUMERIC, "gen": SR.uniform_gen(-5, 5, (-5, 5)), "specials": SR.EXACT_SPECIALS,
                  "boundary": (True, True)},
    ("Floor", 1): {"types": S.FLOATS, "gen": SR.uniform_gen(-50, 50), "specials": SR.EXACT_SPECIALS},
    ("Ceiling", 1): {"types": S.FLOATS, "gen": SR.uniform_gen(-50, 50), "specials": SR.EXACT_SPECIALS},
    ("Round", 5): {"types": S.FLOATS, "gen": SR.halves(-50, 50), "specials": SR.EXACT_SPECIALS,
                   "make": lambda b, x: opset.round(x, "half_to_even")},
    ("Sqrt", 1): {"types": S.FLOATS, "gen": SR.uniform_gen(0, 100), "specials": ("nan", "inf", "-0", "sub")},
    ("Log", 1): {"types": S.FLOATS, "gen": SR.uniform_gen(0.01, 100), "specials": ("nan", "inf", "-0", "sub")},
    ("Erf", 1): {"types": S.FLOATS, "gen": SR.uniform_gen(-3, 3), "specials": SR.ALL_SPECIALS},
    ("ErfInv", 17): {"types": S.FLOATS, "gen": SR.uniform_gen(-1, 1), "specials": SR.ALL_SPECIALS},
    ("Tanh", 1): {"types": S.FLOATS, "gen": SR.uniform_gen(-6, 6), "specials": SR.ALL_SPECIALS},
    ("Sin", 1): {"types": S.FLOATS, "gen": SR.uniform_gen(-6, 6), "specials": SR.NO_INF},
    ("Cos", 1): {"types": S.FLOATS, "gen": SR.uniform_gen(-6, 6), "specials": SR.NO_INF},
    ("Tan", 1): {"types": S.FLOATS, "gen": SR.uniform_gen(-1.4, 1.4), "specials": SR.NO_INF},
    ("Asin", 1): {"types": S.FLOATS, "gen": SR.uniform_gen(-1, 1), "specials": SR.NO_INF},
    ("Acos", 1): {"types": S.FLOATS, "gen": SR.uniform_gen(-1, 1), "specials": SR.NO_INF},
    ("Atan", 1): {"types": S.FLOATS, "gen": SR.uniform_gen(-20, 20), "specials": SR.ALL_SPECIALS},
    ("Sinh", 1): {"types": S.FLOATS, "gen": SR.uniform_gen(-10, 10), "specials": SR.ALL_SPECIALS},
    ("Cosh", 1): {"types": S.FLOATS, "gen": SR.uniform_gen(-10, 10), "specials": SR.ALL_SPECIALS},
    ("Asinh", 4): {"types": S.FLOATS, "gen": SR.uniform_gen(-20, 20), "specials": SR.ALL_SPECIALS},
    ("Acosh", 4): {"types": S.FLOATS, "gen": SR.uniform_gen(1, 20), "specials": ("nan", "inf")},
    ("Atanh", 4): {"types": S.FLOATS, "gen": SR.uniform_gen(-0.95, 0.95), "specials": SR.NO_INF},
})


def _stim_power(b: S.StimulusBuilder, sa: tuple[int, ...], sb: tuple[int, ...],
                et: Type) -> tuple[np.ndarray, np.ndarray]:
    """Positive float bases, exponents in [-2, 2]; integer bases in [-4, 4] (unsigned [0, 4]) with
    exponents 0..3, so the result stays in every type."""
    if et.is_real():
        return b.uniform(sa, et, 0.1, 3), b.uniform(sb, et, -2, 2)
    return b.uniform(sa, et, -4 if et.is_signed() else 0, 4), b.uniform(sb, et, 0, 3)


#: The binary ops' stimulus (``SR.register_binary``); ``_stimulus_geometry`` draws its rank-5 broadcasts with
#: the same value generators.
BINARY_STIMULI: dict[tuple[str, int], dict[str, Any]] = {
    ("Power", 1): {"types": S.NUMERIC, "gen": _stim_power},
    ("Add", 1): {"types": S.NUMERIC, "gen": SR.bounded(-100, 100, SR.NARROW_ADD), "specials": SR.ALL_SPECIALS},
    ("Subtract", 1): {"types": S.NUMERIC, "gen": SR.subtract_gen, "specials": SR.ALL_SPECIALS},
    ("Multiply", 1): {"types": S.NUMERIC, "gen": SR.bounded(-11, 11, SR.NARROW_MUL), "specials": SR.ALL_SPECIALS},
    ("Divide", 1): {"types": S.NUMERIC, "gen": SR.divide_gen, "specials": SR.ALL_SPECIALS,
                    "special_rhs": ("nan", "inf", "-inf"),
                    "boundary": (True, True), "boundary_gen": SR.divide_boundary,
                    "make": lambda b, x, y: opset.divide(x, y, "numpy", True)},
    ("FloorMod", 1): {"types": S.NUMERIC, "gen": SR.divide_gen, "specials": ("nan", "-0"), "special_rhs": ("nan",),
                      "boundary": (True, True), "boundary_gen": SR.divide_boundary},
    ("Mod", 1): {"types": S.NUMERIC, "gen": SR.divide_gen, "specials": ("nan", "-0"), "special_rhs": ("nan",),
                 "boundary": (True, True), "boundary_gen": SR.divide_boundary},
    ("Maximum", 1): {"types": S.NUMERIC, "gen": SR.bounded(-100, 100, {}), "specials": SR.EXACT_SPECIALS,
                     "boundary": (True, True)},
    ("Minimum", 1): {"types": S.NUMERIC, "gen": SR.bounded(-100, 100, {}), "specials": SR.EXACT_SPECIALS,
                     "boundary": (True, True)},
    ("SquaredDifference", 1): {"types": S.FLOATS, "gen": SR.bounded(-50, 50, {}), "specials": ("nan", "-0", "sub")},
}
SR.register_binary(BINARY_STIMULI)


def _stim_cumsum(label: str, shape: tuple[int, ...], et: Type = Type.f32, *, exclusive: bool = False,
            reverse: bool = False, sizes: tuple[tuple[int, ...], ...] = ()) -> Any:
    def build(shape: tuple[int, ...] = shape) -> OpCase:
        b = S.StimulusBuilder(S.seed_of("CumSum", 3, label))
        x = b.param("data", SR.small_values(b.rng, shape, et, 3), et)
        node = opset.cumsum(x, b.const(np.array(1, np.int64)), exclusive, reverse)
        return b.finish("CumSum", 3, node, "values in [-1, 1]; integers in [-3, 3]; judged against Σ|terms|.")

    if sizes:
        return lambda: S.dynamic_case([build(s) for s in sizes], note=f"dynamic mode: shapes {list(sizes)}")
    return build


@S.register_stimuli("CumSum", 3)
def _stimulus_cumsum() -> Iterable[S.Stimulus]:
    op = "CumSum"
    for n in S.REMAINDERS:
        yield S.Stimulus(op, 3, f"n{n}", "remainder", "ordinary", Type.f32, _stim_cumsum(f"n{n}", (5, n)),
                         S.remainder_depth(n))
    yield S.Stimulus(op, 3, "rev-excl-n129", "remainder", "ordinary", Type.f32,
                   _stim_cumsum("rev-excl-n129", (5, 129), exclusive=True, reverse=True))
    yield S.Stimulus(op, 3, "long4096", "large", "long-reduction", Type.f32,
                     _stim_cumsum("long4096", (17, S.LONG_REDUCTION)))
    for et in (Type.f16, Type.bf16, Type.i32, Type.f64, Type.i64):
        depth = Depth.STANDARD if et in (Type.f16, Type.i32) else Depth.EXHAUSTIVE
        yield S.Stimulus(op, 3, f"{et.name}-n65", "remainder", "ordinary", et,
                         _stim_cumsum(f"{et.name}-n65", (5, 65), et),
                       depth)
    yield S.Stimulus(op, 3, "dynamic", "remainder", "ordinary", Type.f32,
                   _stim_cumsum("dynamic", (1, 7), sizes=((1, 7), (3, 65), (5, 129))), dynamic=True)
