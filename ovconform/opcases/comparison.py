"""Case strategies of the comparison ops (OpenVINO's op-spec folder "comparison"): Equal, NotEqual,
Less, LessEqual, Greater, GreaterEqual and the float classifiers IsNaN-10, IsInf-10, IsFinite-10.

The binaries broadcast with numpy rules (and ``auto_broadcast="none"`` on equal shapes) and compare
whole numbers from a small set (also for floats), so equal pairs are common. The classifiers get
float arrays salted with NaN and ±inf.
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
from ovconform.opcases._draw import FLOATS, NUMERIC, CaseBuilder, Draw, Gen2, _binary_case, draw_seed, draw_shape


def _compare_values(b: CaseBuilder, sa: tuple[int, ...], sb: tuple[int, ...],
                    et: Type) -> tuple[np.ndarray, np.ndarray]:
    """Whole numbers from a small set (also for floats), so equal pairs are common."""
    lo = -3 if et.is_signed() else 0
    return b.integers(sa, et, lo, lo + 6), b.integers(sb, et, lo, lo + 6)


# op -> (types, value generator, note)
BINARY: dict[str, tuple[tuple[Type, ...], Gen2, str]] = {
    "Equal": ((*NUMERIC, Type.boolean), _compare_values, ""),
    "NotEqual": ((*NUMERIC, Type.boolean), _compare_values, ""),
    "Less": (NUMERIC, _compare_values, ""),
    "LessEqual": (NUMERIC, _compare_values, ""),
    "Greater": (NUMERIC, _compare_values, ""),
    "GreaterEqual": (NUMERIC, _compare_values, ""),
}


for _op, (_types, _gen, _note) in BINARY.items():
    _binary_case(_op, _types, _gen, _note)


def _salted(draw: Draw[Any], b: CaseBuilder, et: Type) -> np.ndarray:
    """Finite values with some NaN, +inf and -inf mixed in."""
    shape = draw_shape(draw, min_rank=1)
    values = b.uniform(shape, et, -100, 100)
    pick = b.rng.integers(0, 5, shape)
    values[pick == 1] = np.nan
    values[pick == 2] = np.inf
    values[pick == 3] = -np.inf
    return values


@register_case("IsNaN", 10)
def _is_nan(draw: Draw[Any]) -> OpCase:
    b = CaseBuilder(draw_seed(draw))
    x = b.param("x", _salted(draw, b, draw(st.sampled_from(FLOATS))))
    return b.finish("IsNaN", 10, opset.is_nan(x))


@register_case("IsFinite", 10)
def _is_finite(draw: Draw[Any]) -> OpCase:
    b = CaseBuilder(draw_seed(draw))
    x = b.param("x", _salted(draw, b, draw(st.sampled_from(FLOATS))))
    return b.finish("IsFinite", 10, opset.is_finite(x))


@register_case("IsInf", 10)
def _is_inf(draw: Draw[Any]) -> OpCase:
    b = CaseBuilder(draw_seed(draw))
    x = b.param("x", _salted(draw, b, draw(st.sampled_from(FLOATS))))
    attrs = {"detect_negative": draw(st.booleans()), "detect_positive": draw(st.booleans())}
    return b.finish("IsInf", 10, opset.is_inf(x, attrs))

# -- stimulus cases (issue #20: sizes, values, element types, dynamic shapes; see ovconform.opcases.stimulus)

SR.register_unary({
    ("IsNaN", 10): {"types": S.FLOATS, "gen": SR.uniform_gen(-10, 10), "specials": SR.ALL_SPECIALS},
    ("IsInf", 10): {"types": S.FLOATS, "gen": SR.uniform_gen(-10, 10), "specials": SR.ALL_SPECIALS},
    ("IsFinite", 10): {"types": S.FLOATS, "gen": SR.uniform_gen(-10, 10), "specials": SR.ALL_SPECIALS},
    # logical and bitwise
})


SR.register_binary({
    ("Equal", 1): {"types": (*S.NUMERIC, Type.boolean), "gen": SR.same_gen(SR.COMPARE), "specials": SR.EXACT_SPECIALS,
                   "boundary": (True, True)},
    ("NotEqual", 1): {"types": (*S.NUMERIC, Type.boolean), "gen": SR.same_gen(SR.COMPARE),
                      "specials": SR.EXACT_SPECIALS,
                      "boundary": (True, True)},
    ("Less", 1): {"types": S.NUMERIC, "gen": SR.same_gen(SR.COMPARE), "specials": SR.EXACT_SPECIALS,
                  "boundary": (True, True)},
    ("LessEqual", 1): {"types": S.NUMERIC, "gen": SR.same_gen(SR.COMPARE), "specials": SR.EXACT_SPECIALS,
                       "boundary": (True, True)},
    ("Greater", 1): {"types": S.NUMERIC, "gen": SR.same_gen(SR.COMPARE), "specials": SR.EXACT_SPECIALS,
                     "boundary": (True, True)},
    ("GreaterEqual", 1): {"types": S.NUMERIC, "gen": SR.same_gen(SR.COMPARE), "specials": SR.EXACT_SPECIALS,
                          "boundary": (True, True)},
})
