"""Case strategies of the activation ops (OpenVINO's op-spec folder "activation"): Relu-1,
Sigmoid-1, Exp-1, Gelu-2/7, Clamp-1, HSwish-4, HSigmoid-5, SoftPlus-4, SoftSign-9, Mish-4, Swish-4,
Elu-1, Selu-1, HardSigmoid-1, PRelu-1, Identity-16, Softmax-1/8 and LogSoftmax-5.

Relu takes floats and signed integers in [-100, 100]; Exp, Sigmoid and Gelu floating-point inputs
only (OpenVINO CPU rounds integer results where the spec is silent). Clamp: integer inputs get a
fractional min only when negative and a fractional max only when positive (the spec rounds min up
and max down; OpenVINO CPU truncates both toward zero).

The other activations take float types only (the spec's "arbitrary floating-point type"), except
Identity (any type). Values stay where the functions are well conditioned (|x| <= 8, less for
f16) so the float64 oracle and a float32 device agree within the default tolerance. Scalar
parameters (Swish beta, Elu alpha, Selu alpha/lambda, HardSigmoid alpha/beta, PRelu slope) are
drawn as f16-exact values and given as Constants or Parameters.

Softmax-1 takes an axis in [0, rank) (rank 1..4), Softmax-8 in [-rank, rank) (rank 0..4), on f32
and f16 data; LogSoftmax likewise.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import numpy as np
from hypothesis import strategies as st

from ovconform import opset
from ovconform.ir import Node, Type
from ovconform.opcases import OpCase, register_case
from ovconform.opcases import _stimulus_recipes as SR
from ovconform.opcases import stimulus as S
from ovconform.opcases._draw import (
    _FLOAT_NOTE,
    FLOATS,
    SIGNED,
    CaseBuilder,
    Draw,
    Gen1,
    Shape,
    _range,
    draw_seed,
    draw_shape,
    unary_case,
)
from ovconform.opcases.depth import Depth

UNARY: dict[str, tuple[tuple[Type, ...], Gen1, str]] = {
    "Relu": ((*FLOATS, *SIGNED), _range(-100, 100), ""),
    "Exp": (FLOATS, _range(-6, 6, (-4, 4)), _FLOAT_NOTE),
    "Sigmoid": (FLOATS, _range(-8, 8), _FLOAT_NOTE),
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


def _coef(draw: Draw[Any], low: float, high: float) -> float:
    """A coefficient exactly representable in f16 (so every float type holds the same value)."""
    return float(np.float16(draw(st.floats(low, high, allow_nan=False, width=16))))


def _scalar(draw: Draw[Any], b: CaseBuilder, name: str, value: float, et: Type, shape: Shape = (),
            constant: bool | None = None) -> Node:
    """A Constant (or, unless ``constant`` is given, maybe a Parameter) of ``shape`` filled with ``value``."""
    arr = np.full(shape, value, dtype=et.to_dtype())
    return b.input(name, arr, draw(st.booleans()) if constant is None else constant)


_CONST_NOTE = "{} are Constants: OpenVINO CPU refuses to compile them as Parameters."


_UNARY: dict[tuple[str, int], tuple[Callable[..., Node], float, float, str]] = {
    ("HSwish", 4): (opset.hswish, -8.0, 8.0, ""),
    ("HSigmoid", 5): (opset.hsigmoid, -8.0, 8.0, ""),
    ("SoftPlus", 4): (opset.softplus, -8.0, 8.0,
                      "|x| <= 8: below every type's threshold where the spec switches to the identity."),
    ("SoftSign", 9): (opset.softsign, -8.0, 8.0, ""),
    ("Mish", 4): (opset.mish, -6.0, 6.0, ""),
}


def _unary_case(op: str, version: int, builder: Callable[..., Node], lo: float, hi: float, note: str) -> None:
    def build(draw: Draw[Any]) -> OpCase:
        et = draw(st.sampled_from(FLOATS))
        b = CaseBuilder(draw_seed(draw))
        x = b.param("x", b.uniform(draw_shape(draw), et, lo, hi))
        return b.finish(op, version, builder(x), note)

    build.__name__ = f"case_{op}_{version}"
    register_case(op, version)(build)


for (_op, _v), (_fn, _lo, _hi, _note) in _UNARY.items():
    _unary_case(_op, _v, _fn, _lo, _hi, _note)


@register_case("Swish", 4)
def _swish(draw: Draw[Any]) -> OpCase:
    et = draw(st.sampled_from(FLOATS))
    b = CaseBuilder(draw_seed(draw))
    x = b.param("x", b.uniform(draw_shape(draw), et, -8, 8))
    if draw(st.booleans()):
        return b.finish("Swish", 4, opset.swish(x), "beta omitted (1).")
    beta = _scalar(draw, b, "beta", _coef(draw, -2.0, 3.0), et)
    return b.finish("Swish", 4, opset.swish(x, beta))


@register_case("Elu", 1)
def _elu(draw: Draw[Any]) -> OpCase:
    et = draw(st.sampled_from(FLOATS))
    b = CaseBuilder(draw_seed(draw))
    x = b.param("x", b.uniform(draw_shape(draw), et, -6, 6))
    return b.finish("Elu", 1, opset.elu(x, _coef(draw, 0.0, 3.0)))


@register_case("Selu", 1)
def _selu(draw: Draw[Any]) -> OpCase:
    et = draw(st.sampled_from(FLOATS))
    b = CaseBuilder(draw_seed(draw))
    x = b.param("x", b.uniform(draw_shape(draw), et, -6, 6))
    shape: Shape = draw(st.sampled_from(((1,), (), (1, 1))))
    alpha = _scalar(draw, b, "alpha", _coef(draw, 0.5, 2.0), et, shape, constant=True)
    lam = _scalar(draw, b, "lambda", _coef(draw, 0.5, 2.0), et, shape, constant=True)
    return b.finish("Selu", 1, opset.selu(x, alpha, lam), _CONST_NOTE.format("alpha and lambda"))


@register_case("HardSigmoid", 1)
def _hard_sigmoid(draw: Draw[Any]) -> OpCase:
    et = draw(st.sampled_from(FLOATS))
    b = CaseBuilder(draw_seed(draw))
    x = b.param("x", b.uniform(draw_shape(draw), et, -8, 8))
    alpha = _scalar(draw, b, "alpha", _zero_or(draw, _nonzero_coef(draw, 0.0625, 1.0)), et, constant=True)
    beta = _scalar(draw, b, "beta", _zero_or(draw, _nonzero_coef(draw, 0.0625, 1.5)), et, constant=True)
    return b.finish("HardSigmoid", 1, opset.hard_sigmoid(x, alpha, beta), _HARD_SIGMOID_NOTE)


_HARD_SIGMOID_NOTE = (_CONST_NOTE.format("alpha and beta") + " alpha or beta is 0 in about one case in eight "
                      "(OpenVINO CPU replaces a zero alpha by 0.2 and a zero beta by 0.5: a recorded deviation).")


def _zero_or(draw: Draw[Any], value: float) -> float:
    """0.0 in about one draw in eight, else ``value``."""
    return 0.0 if draw(st.integers(0, 7)) == 0 else value


def _nonzero_coef(draw: Draw[Any], low: float, high: float) -> float:
    """An f16-exact coefficient with ``low <= |c| <= high`` and a random sign."""
    return _coef(draw, low, high) * draw(st.sampled_from((-1.0, 1.0)))


def _slope_shape(draw: Draw[Any], data: Shape) -> Shape:
    """Per channel (1-D of data's dim 1), a single element, or a numpy-broadcastable suffix."""
    kind = draw(st.sampled_from(("channel", "one", "suffix")))
    if kind == "channel" and len(data) >= 2:
        return (data[1],)
    if kind == "one":
        return (1,)
    rank = draw(st.integers(1, len(data)))
    suffix = data[len(data) - rank:]
    return tuple(1 if draw(st.booleans()) else d for d in suffix)


@register_case("PRelu", 1)
def _prelu(draw: Draw[Any]) -> OpCase:
    et = draw(st.sampled_from(FLOATS))
    data = draw_shape(draw, min_rank=1)  # the spec's slope has rank >= 1: no rank-0 data
    slope_shape = _slope_shape(draw, data)
    b = CaseBuilder(draw_seed(draw))
    x = b.param("x", b.uniform(data, et, -10, 10))
    slope = b.input("slope", b.uniform(slope_shape, et, -2, 2), draw(st.booleans()))
    return b.finish("PRelu", 1, opset.prelu(x, slope))


@register_case("Identity", 16)
def _identity(draw: Draw[Any]) -> OpCase:
    et = draw(st.sampled_from((*FLOATS, Type.i32, Type.i64, Type.u8, Type.boolean)))
    b = CaseBuilder(draw_seed(draw))
    x = b.param("x", b.uniform(draw_shape(draw), et, -100, 100))
    return b.finish("Identity", 16, opset.identity(x))


def _softmax(version: int) -> None:
    def build(draw: Draw[Any]) -> OpCase:
        et = draw(st.sampled_from(FLOATS))
        shape = draw_shape(draw, min_rank=1 if version == 1 else 0)
        rank = len(shape)
        low = 0 if version == 1 else -max(rank, 1)
        axis = draw(st.integers(low, max(rank, 1) - 1))
        b = CaseBuilder(draw_seed(draw))
        data = b.param("data", b.uniform(shape, et, -6, 6))
        return b.finish("Softmax", version, opset.softmax(data, axis, version=version))

    build.__name__ = f"case_Softmax_{version}"
    register_case("Softmax", version)(build)


_softmax(1)
_softmax(8)


@register_case("LogSoftmax", 5)
def case_log_softmax(draw: Draw[Any]) -> OpCase:
    et = draw(st.sampled_from(FLOATS))
    shape = draw_shape(draw, min_rank=1)
    rank = len(shape)
    axis = draw(st.integers(-rank, rank - 1))
    b = CaseBuilder(draw_seed(draw))
    data = b.param("data", b.uniform(shape, et, -6, 6))
    return b.finish("LogSoftmax", 5, opset.log_softmax(data, axis))

# -- stimulus cases (issue #20: sizes, values, element types, dynamic shapes; see ovconform.opcases.stimulus)

SR.register_unary({
    ("Relu", 1): {"types": S.NUMERIC, "gen": SR.uniform_gen(-50, 50, (-50, 50)), "specials": SR.EXACT_SPECIALS,
                  "boundary": (True, True)},
    ("Sigmoid", 1): {"types": S.FLOATS, "gen": SR.uniform_gen(-12, 12), "specials": SR.ALL_SPECIALS},
    ("Exp", 1): {"types": S.FLOATS, "gen": SR.uniform_gen(-10, 10), "specials": SR.ALL_SPECIALS},
    ("Gelu", 2): {"types": S.FLOATS, "gen": SR.uniform_gen(-5, 5), "specials": SR.NO_INF},
    ("Gelu", 7): {"types": S.FLOATS, "gen": SR.uniform_gen(-5, 5), "specials": SR.NO_INF,
                  "make": lambda b, x: opset.gelu(x, "tanh")},
    ("Swish", 4): {"types": S.FLOATS, "gen": SR.uniform_gen(-6, 6), "specials": SR.NO_INF},
    ("Mish", 4): {"types": S.FLOATS, "gen": SR.uniform_gen(-6, 6), "specials": SR.NO_INF},
    ("HSwish", 4): {"types": S.FLOATS, "gen": SR.uniform_gen(-6, 6), "specials": SR.NO_INF},
    ("HSigmoid", 5): {"types": S.FLOATS, "gen": SR.uniform_gen(-6, 6), "specials": SR.ALL_SPECIALS},
    ("SoftPlus", 4): {"types": S.FLOATS, "gen": SR.uniform_gen(-15, 15), "specials": SR.ALL_SPECIALS},
    ("SoftSign", 9): {"types": S.FLOATS, "gen": SR.uniform_gen(-10, 10), "specials": SR.NO_INF},
    ("Elu", 1): {"types": S.FLOATS, "gen": SR.uniform_gen(-6, 6), "specials": SR.ALL_SPECIALS,
                 "make": lambda b, x: opset.elu(x, 0.7)},
    ("Selu", 1): {"types": S.FLOATS, "gen": SR.uniform_gen(-6, 6), "specials": SR.ALL_SPECIALS,
                  "make": SR.const_make("Selu", 1, 1.6732632, 1.0507009)},
    ("HardSigmoid", 1): {"types": S.FLOATS, "gen": SR.uniform_gen(-6, 6), "specials": SR.ALL_SPECIALS,
                         "make": SR.const_make("HardSigmoid", 1, 0.2, 0.5)},
    ("Clamp", 1): {"types": S.NUMERIC, "gen": SR.uniform_gen(-40, 40, (-40, 40)), "specials": SR.EXACT_SPECIALS,
                   "boundary": (True, True), "make": lambda b, x: opset.clamp(x, -20.0, 30.0)},
    # arithmetic
})


def _stim_softmax(op: str, version: int, label: str, shape: tuple[int, ...], axis: int, et: Type = Type.f32, *,
             kind: str = "ordinary", sizes: tuple[tuple[int, ...], ...] = ()) -> Any:
    def build(shape: tuple[int, ...] = shape) -> OpCase:
        b = S.StimulusBuilder(S.seed_of(op, version, label))
        values = b.rng.uniform(-5, 5, shape)
        note = "logits in [-5, 5]."
        if kind == "large-magnitude":
            centre, spread = (100.0, 80.0) if et != Type.f16 else (8.0, 10.0)
            values = centre + b.rng.uniform(-spread, spread, shape)
            note = (f"logits {centre:g} ± {spread:g}: exp overflows {et.name} above "
                    f"{'88.7' if et != Type.f16 else '11.1'} unless the maximum is subtracted first (softmax "
                    "does not change when a constant is added to a row).")
        elif kind == "masked":
            rows = values.reshape(-1, shape[axis]) if axis in (-1, len(shape) - 1) else None
            assert rows is not None
            mask = b.rng.random(rows.shape) < 0.3
            mask[:, 0] = False  # never a whole row
            rows[mask] = -np.inf
            note = "-inf logits (masks) get probability 0; never a whole row."
        elif kind == "special":
            rows = values.reshape(-1, shape[-1])
            rows[b.rng.choice(rows.shape[0], size=2, replace=False), shape[-1] // 2] = np.nan
            note = "NaN in two rows: the whole row is NaN."
        node = (opset.softmax(b.param("data", S.cast(values, et), et), axis, version=version) if op == "Softmax"
                else opset.log_softmax(b.param("data", S.cast(values, et), et), axis))
        return b.finish(op, version, node, note)

    if sizes:
        return lambda: S.dynamic_case([build(s) for s in sizes], note=f"dynamic mode: shapes {list(sizes)}")
    return build


def _stimulus_softmax(op: str, version: int) -> None:
    def recipe() -> Iterable[S.Stimulus]:
        for n in S.REMAINDERS:
            yield S.Stimulus(op, version, f"axis{n}", "remainder", "ordinary", Type.f32,
                           _stim_softmax(op, version, f"axis{n}", (5, n), 1), S.remainder_depth(n))
        yield S.Stimulus(op, version, "outer129", "remainder", "ordinary", Type.f32,
                       _stim_softmax(op, version, "outer129", (129, 5), 0))
        yield S.Stimulus(op, version, "long4096", "large", "long-reduction", Type.f32,
                       _stim_softmax(op, version, "long4096", (17, S.LONG_REDUCTION), 1))
        for et in (Type.f32, Type.f16, Type.bf16):
            yield S.Stimulus(op, version, f"logits-{et.name}", "remainder", "large-magnitude", et,
                           _stim_softmax(op, version, f"logits-{et.name}", (9, 65), 1, et, kind="large-magnitude"),
                           Depth.STANDARD if et != Type.bf16 else Depth.EXHAUSTIVE)
        yield S.Stimulus(op, version, "masked-f32", "remainder", "special", Type.f32,
                       _stim_softmax(op, version, "masked-f32", (9, 65), 1, kind="masked"))
        yield S.Stimulus(op, version, "nan-f32", "remainder", "special", Type.f32,
                       _stim_softmax(op, version, "nan-f32", (9, 65), 1, kind="special"))
        for et in (Type.f16, Type.bf16, Type.f64):
            yield S.Stimulus(op, version, f"{et.name}-axis65", "remainder", "ordinary", et,
                           _stim_softmax(op, version, f"{et.name}-axis65", (5, 65), 1, et),
                           Depth.STANDARD if et != Type.f64 else Depth.EXHAUSTIVE)
        yield S.Stimulus(op, version, "dynamic", "remainder", "ordinary", Type.f32,
                       _stim_softmax(op, version, "dynamic", (1, 7), 1, sizes=((1, 7), (3, 65), (5, 129))),
                       dynamic=True)

    S.register_stimuli(op, version)(recipe)


_stimulus_softmax("Softmax", 1)
_stimulus_softmax("Softmax", 8)
_stimulus_softmax("LogSoftmax", 5)


def _stim_prelu(label: str, shape: tuple[int, ...], slope_len: int, et: Type = Type.f32, kind: str = "ordinary",
                shapes: tuple[tuple[int, ...], ...] = ()) -> Any:
    """PRelu with a Constant 1-D slope of the channel dimension's size (axis 1, the spec's channel
    broadcast; for rank 2 also numpy's)."""
    def build(shape: tuple[int, ...] = shape) -> OpCase:
        b = S.StimulusBuilder(S.seed_of("PRelu", 1, label))
        slope = S.cast(np.random.default_rng(S.seed_of("PRelu", 1, label + "/slope")).uniform(-2, 2, slope_len), et)
        if kind == "special":
            x = S.with_specials(b.rng, b.rng.uniform(-10, 10, shape), et, ("nan", "inf", "-inf", "-0"))
        else:
            x = S.cast(b.rng.uniform(-10, 10, shape), et) if et.is_real() else b.uniform(shape, et, -10, 10)
        return b.finish("PRelu", 1, opset.prelu(b.param("x", x, et), b.const(slope, et)), "slope per channel.")

    if shapes:
        return lambda: S.dynamic_case([build(s) for s in shapes], note=f"dynamic mode: shapes {list(shapes)}")
    return build


@S.register_stimuli("PRelu", 1)
def _stimulus_prelu() -> Iterable[S.Stimulus]:
    op, f32 = "PRelu", Type.f32
    for n in S.REMAINDERS:
        yield S.Stimulus(op, 1, f"c{n}", "remainder", "ordinary", f32, _stim_prelu(f"c{n}", (3, n), n),
                         S.remainder_depth(n))
    yield S.Stimulus(op, 1, "large", "large", "ordinary", f32, _stim_prelu("large", (2, 32771), 32771))
    yield S.Stimulus(op, 1, "special-f32", "remainder", "special", f32,
                     _stim_prelu("special-f32", (4, 33), 33, kind="special"))
    for et in (Type.f16, Type.bf16, Type.f64):  # ovconform's PRelu takes floating-point data
        depth = Depth.STANDARD if et in (Type.f16, Type.bf16) else Depth.EXHAUSTIVE
        yield S.Stimulus(op, 1, f"{et.name}-c65", "remainder", "ordinary", et,
                         _stim_prelu(f"{et.name}-c65", (3, 65), 65, et), depth)
    yield S.Stimulus(op, 1, "dynamic", "remainder", "ordinary", f32,
                     _stim_prelu("dynamic", (1, 17), 17, shapes=((1, 17), (3, 17), (9, 17))), dynamic=True)
