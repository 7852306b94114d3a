"""Case strategies for the unary math ops of ``ovconform.opset._trig``: trigonometric and
hyperbolic functions and their inverses (floating-point inputs), Floor, Ceiling, Sign and Round
(floating-point and signed integer inputs).

Value ranges keep every case inside the op's domain and where the function is well conditioned:
Tan stays away from ±π/2, Asin/Acos/Atanh inside (-1, 1) away from the ends, Acosh from 1.5 up
(near 1 its slope is unbounded), Sinh/Cosh small enough not to overflow f16. Floor, Ceiling,
Sign and Round draw whole numbers and exact halves next to uniform values, so ties and zeros
(Sign, Round's ``mode``) occur in most cases.

Corners kept out because OpenVINO CPU treats them differently from the spec (each op's note says
which): integer inputs to the transcendental ops (CPU rounds or truncates where the spec is
silent or says "rounded"), as in the elementwise cases.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st

from ovconform import opset
from ovconform.ir import Type
from ovconform.opcases import OpCase, register_case
from ovconform.opcases._draw import FLOATS, CaseBuilder, Draw, Gen1, draw_seed, draw_shape, unary_case
from ovconform.opset._arithmetic import ROUND_MODES, UNARY_VERSIONS

SIGNED = (Type.i32, Type.i64, Type.i8)
_FLOAT_NOTE = "floating-point inputs only: OpenVINO CPU rounds integer results where the spec is silent."


def _range(low: float, high: float) -> Gen1:
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
UNARY: dict[str, tuple[tuple[Type, ...], Gen1, str]] = {
    "Sin": (FLOATS, _range(-6, 6), _FLOAT_NOTE),
    "Cos": (FLOATS, _range(-6, 6), _FLOAT_NOTE),
    "Tan": (FLOATS, _range(-1.4, 1.4), "inputs stay inside (-1.4, 1.4), away from the poles. " + _FLOAT_NOTE),
    "Asin": (FLOATS, _range(-0.95, 0.95), "inputs inside the domain, away from ±1. " + _FLOAT_NOTE),
    "Acos": (FLOATS, _range(-0.95, 0.95), "inputs inside the domain, away from ±1. " + _FLOAT_NOTE),
    "Atan": (FLOATS, _range(-10, 10), _FLOAT_NOTE),
    "Sinh": (FLOATS, _range(-5, 5), _FLOAT_NOTE),
    "Cosh": (FLOATS, _range(-5, 5), _FLOAT_NOTE),
    "Asinh": (FLOATS, _range(-10, 10), _FLOAT_NOTE),
    "Acosh": (FLOATS, _range(1.5, 10), "inputs from 1.5 up (acosh is ill-conditioned near 1). " + _FLOAT_NOTE),
    "Atanh": (FLOATS, _range(-0.9, 0.9), "inputs inside the domain, away from ±1. " + _FLOAT_NOTE),
    "Floor": ((*FLOATS, *SIGNED), _with_ties, ""),
    "Ceiling": ((*FLOATS, *SIGNED), _with_ties, ""),
    "Sign": ((*FLOATS, *SIGNED), _with_ties, ""),
}


for _op, (_types, _gen, _note) in UNARY.items():
    unary_case(_op, UNARY_VERSIONS[_op], _types, _gen, _note)


@register_case("Round", 5)
def _round(draw: Draw[Any]) -> OpCase:
    et = draw(st.sampled_from((*FLOATS, *SIGNED)))
    shape = draw_shape(draw)
    mode = draw(st.sampled_from(ROUND_MODES))
    b = CaseBuilder(draw_seed(draw))
    x = b.param("x", _with_ties(b, shape, et))
    return b.finish("Round", 5, opset.round(x, mode))
