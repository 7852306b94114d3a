"""Stimulus cases per op (see :mod:`ovconform.opcases.stimulus`).

Element types follow each op's spec ("Types" section): "any numeric type" is :data:`NUMERIC`,
"floating-point type" :data:`FLOATS`. Where a spec allows integers but does not say how an
integer result is rounded (Exp, Log, the trigonometric ops ...), the cases stay on
floating-point types; Sqrt and Tanh say "rounded (half up)", so they have integer cases.

Special values follow IEEE 754 arithmetic, and only where the result is defined:

* NaN propagates through max and min (Relu, Clamp, Maximum, Minimum, MaxPool, ReduceMax) as
  IEEE 754-2019 ``maximum``/``minimum`` specify and as the formulas ``max(0, x)``, ``max(a, b)``
  read; OpenVINO CPU returns the other operand instead (a recorded deviation: it drops NaN).
* Subnormal inputs are left out of the ops compared exactly (Relu, Abs, Floor, Maximum ...): a
  device may flush them to zero (denormals-are-zero), which the inexact classes tolerate.
* ±Inf is left out where the formula gives ``inf·0`` or ``inf/inf`` (Gelu, Swish, Mish, HSwish,
  SoftSign) though the function's limit is finite: the spec does not say which.
* Divisors are never 0 or subnormal (the spec leaves division by zero undefined); integer
  quotients include negative operands (floor division when ``m_pythondiv``), never INT_MIN / -1.
* Integer Add, Subtract and Multiply never overflow (the spec does not define it).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from ovconform import opset
from ovconform.ir import Node, Type, make_node
from ovconform.opcases import OpCase
from ovconform.opcases._stimulus_recipes import Gen, Gen2, binary, same_gen, unary, uniform_gen
from ovconform.opcases.depth import Depth
from ovconform.opcases.stimulus import (
    FLOATS,
    INTEGERS,
    LARGE_SPATIAL,
    LONG_REDUCTION,
    NUMERIC,
    REMAINDERS,
    SIGNED,
    Stimulus,
    StimulusBuilder,
    cast,
    dynamic_case,
    register_stimuli,
    remainder_depth,
    seed_of,
    with_boundaries,
    with_specials,
)

ALL_SPECIALS = ("nan", "inf", "-inf", "-0", "sub")
#: Exactly compared ops: no subnormals (a device may flush them to zero).
EXACT_SPECIALS = ("nan", "inf", "-inf", "-0")
NO_INF = ("nan", "-0", "sub")


# -- one input ------------------------------------------------------------------------------------------

def _halves(low: float, high: float) -> Gen:
    """Multiples of 0.5 (so half the values are exact ties for Round), integers for integer types."""
    def gen(b: StimulusBuilder, shape: tuple[int, ...], et: Type) -> np.ndarray:
        if not et.is_real():
            return b.uniform(shape, et, low, high)
        values = np.round(b.rng.uniform(low, high, shape) * 2) / 2
        return cast(values, et)

    return gen


def _const_make(op: str, version: int, *consts: float) -> Any:
    def make(b: StimulusBuilder, x: Node) -> Node:
        et = x.get_output_element_type(0)
        inputs = [x.output(0)] + [b.const(cast(np.array(c), et), et).output(0) for c in consts]
        return make_node(op, version, inputs, {})

    return make


_SIGNED_NUMERIC = (*FLOATS, *SIGNED)

UNARY: dict[tuple[str, int], dict[str, Any]] = {
    # activation
    ("Relu", 1): {"types": NUMERIC, "gen": uniform_gen(-50, 50, (-50, 50)), "specials": EXACT_SPECIALS,
                  "boundary": (True, True)},
    ("Sigmoid", 1): {"types": FLOATS, "gen": uniform_gen(-12, 12), "specials": ALL_SPECIALS},
    ("Exp", 1): {"types": FLOATS, "gen": uniform_gen(-10, 10), "specials": ALL_SPECIALS},
    ("Gelu", 2): {"types": FLOATS, "gen": uniform_gen(-5, 5), "specials": NO_INF},
    ("Gelu", 7): {"types": FLOATS, "gen": uniform_gen(-5, 5), "specials": NO_INF,
                  "make": lambda b, x: opset.gelu(x, "tanh")},
    ("Swish", 4): {"types": FLOATS, "gen": uniform_gen(-6, 6), "specials": NO_INF},
    ("Mish", 4): {"types": FLOATS, "gen": uniform_gen(-6, 6), "specials": NO_INF},
    ("HSwish", 4): {"types": FLOATS, "gen": uniform_gen(-6, 6), "specials": NO_INF},
    ("HSigmoid", 5): {"types": FLOATS, "gen": uniform_gen(-6, 6), "specials": ALL_SPECIALS},
    ("SoftPlus", 4): {"types": FLOATS, "gen": uniform_gen(-15, 15), "specials": ALL_SPECIALS},
    ("SoftSign", 9): {"types": FLOATS, "gen": uniform_gen(-10, 10), "specials": NO_INF},
    ("Elu", 1): {"types": FLOATS, "gen": uniform_gen(-6, 6), "specials": ALL_SPECIALS,
                 "make": lambda b, x: opset.elu(x, 0.7)},
    ("Selu", 1): {"types": FLOATS, "gen": uniform_gen(-6, 6), "specials": ALL_SPECIALS,
                  "make": _const_make("Selu", 1, 1.6732632, 1.0507009)},
    ("HardSigmoid", 1): {"types": FLOATS, "gen": uniform_gen(-6, 6), "specials": ALL_SPECIALS,
                         "make": _const_make("HardSigmoid", 1, 0.2, 0.5)},
    ("Clamp", 1): {"types": NUMERIC, "gen": uniform_gen(-40, 40, (-40, 40)), "specials": EXACT_SPECIALS,
                   "boundary": (True, True), "make": lambda b, x: opset.clamp(x, -20.0, 30.0)},
    # arithmetic
    ("Abs", 1): {"types": NUMERIC, "gen": uniform_gen(-50, 50, (-50, 50)), "specials": EXACT_SPECIALS,
                 "boundary": (False, True)},
    ("Negative", 1): {"types": _SIGNED_NUMERIC, "gen": uniform_gen(-50, 50, (-50, 50)), "specials": EXACT_SPECIALS,
                      "boundary": (False, True)},
    ("Sign", 1): {"types": _SIGNED_NUMERIC, "gen": uniform_gen(-5, 5, (-5, 5)), "specials": EXACT_SPECIALS,
                  "boundary": (True, True)},
    ("Floor", 1): {"types": FLOATS, "gen": uniform_gen(-50, 50), "specials": EXACT_SPECIALS},
    ("Ceiling", 1): {"types": FLOATS, "gen": uniform_gen(-50, 50), "specials": EXACT_SPECIALS},
    ("Round", 5): {"types": FLOATS, "gen": _halves(-50, 50), "specials": EXACT_SPECIALS,
                   "make": lambda b, x: opset.round(x, "half_to_even")},
    ("Sqrt", 1): {"types": FLOATS, "gen": uniform_gen(0, 100), "specials": ("nan", "inf", "-0", "sub")},
    ("Log", 1): {"types": FLOATS, "gen": uniform_gen(0.01, 100), "specials": ("nan", "inf", "-0", "sub")},
    ("Erf", 1): {"types": FLOATS, "gen": uniform_gen(-3, 3), "specials": ALL_SPECIALS},
    ("Tanh", 1): {"types": FLOATS, "gen": uniform_gen(-6, 6), "specials": ALL_SPECIALS},
    ("Sin", 1): {"types": FLOATS, "gen": uniform_gen(-6, 6), "specials": NO_INF},
    ("Cos", 1): {"types": FLOATS, "gen": uniform_gen(-6, 6), "specials": NO_INF},
    ("Tan", 1): {"types": FLOATS, "gen": uniform_gen(-1.4, 1.4), "specials": NO_INF},
    ("Asin", 1): {"types": FLOATS, "gen": uniform_gen(-1, 1), "specials": NO_INF},
    ("Acos", 1): {"types": FLOATS, "gen": uniform_gen(-1, 1), "specials": NO_INF},
    ("Atan", 1): {"types": FLOATS, "gen": uniform_gen(-20, 20), "specials": ALL_SPECIALS},
    ("Sinh", 1): {"types": FLOATS, "gen": uniform_gen(-10, 10), "specials": ALL_SPECIALS},
    ("Cosh", 1): {"types": FLOATS, "gen": uniform_gen(-10, 10), "specials": ALL_SPECIALS},
    ("Asinh", 4): {"types": FLOATS, "gen": uniform_gen(-20, 20), "specials": ALL_SPECIALS},
    ("Acosh", 4): {"types": FLOATS, "gen": uniform_gen(1, 20), "specials": ("nan", "inf")},
    ("Atanh", 4): {"types": FLOATS, "gen": uniform_gen(-0.95, 0.95), "specials": NO_INF},
    ("IsNaN", 10): {"types": FLOATS, "gen": uniform_gen(-10, 10), "specials": ALL_SPECIALS},
    ("IsInf", 10): {"types": FLOATS, "gen": uniform_gen(-10, 10), "specials": ALL_SPECIALS},
    ("IsFinite", 10): {"types": FLOATS, "gen": uniform_gen(-10, 10), "specials": ALL_SPECIALS},
    # logical and bitwise
    ("LogicalNot", 1): {"types": (Type.boolean,), "gen": uniform_gen(0, 1), "large": True},
    ("BitwiseNot", 13): {"types": (*INTEGERS, Type.boolean), "gen": uniform_gen(-100, 100, (0, 100)),
                         "boundary": (True, True)},
}

for (_op, _version), _spec in UNARY.items():
    unary(_op, _version, _spec["types"], _spec["gen"], make=_spec.get("make"), specials=_spec.get("specials", ()),
          boundary=_spec.get("boundary"), note=_spec.get("note", ""))


# -- two inputs -----------------------------------------------------------------------------------------

def _bounded(low: float, high: float, narrow: dict[int, tuple[int, int]]) -> Gen2:
    """Both operands in ``[low, high]``; integer types of a bit width in ``narrow`` in that range
    (so results stay inside the type)."""
    def gen(b: StimulusBuilder, sa: tuple[int, ...], sb: tuple[int, ...], et: Type) -> tuple[np.ndarray, np.ndarray]:
        lo, hi = (low, high)
        if not et.is_real():
            lo, hi = narrow.get(et.bitwidth, (int(low), int(high)))
            if not et.is_signed():
                lo = max(lo, 0)
        return b.uniform(sa, et, lo, hi), b.uniform(sb, et, lo, hi)

    return gen


def _subtract(b: StimulusBuilder, sa: tuple[int, ...], sb: tuple[int, ...], et: Type) -> tuple[np.ndarray, np.ndarray]:
    if not et.is_real() and not et.is_signed():  # every a >= every b: no wrap-around
        return b.uniform(sa, et, 50, 100), b.uniform(sb, et, 0, 50)
    return b.uniform(sa, et, -50, 50), b.uniform(sb, et, -50, 50)


def _nonzero(b: StimulusBuilder, shape: tuple[int, ...], et: Type, low: float, high: float) -> np.ndarray:
    magnitude = b.rng.uniform(low, high, shape)
    if not et.is_real():
        magnitude = np.floor(magnitude)
    sign = np.where(b.rng.random(shape) < 0.5, -1.0, 1.0) if (et.is_real() or et.is_signed()) else 1.0
    return cast(magnitude * sign, et)


def _divide(b: StimulusBuilder, sa: tuple[int, ...], sb: tuple[int, ...], et: Type) -> tuple[np.ndarray, np.ndarray]:
    """Dividends of both signs; divisors of both signs, never 0 (integers: |b| in 1..9)."""
    if et.is_real():
        return b.uniform(sa, et, -10, 10), _nonzero(b, sb, et, 0.5, 4)
    lo = -100 if et.is_signed() else 0
    return b.uniform(sa, et, lo, 100), _nonzero(b, sb, et, 1, 10)


def _divide_boundary(b: StimulusBuilder, sa: tuple[int, ...], sb: tuple[int, ...],
                     et: Type) -> tuple[np.ndarray, np.ndarray]:
    """Dividends with the type's minimum and maximum; divisors 2..9 of both signs (never -1 with
    INT_MIN, which overflows)."""
    a, _ = _divide(b, sa, sb, et)
    a = with_boundaries(b.rng, a, et)
    return a, _nonzero(b, sb, et, 2, 10)


_NARROW_ADD = {8: (-60, 60), 16: (-10000, 10000)}
_NARROW_MUL = {8: (-11, 11), 16: (-150, 150)}
_COMPARE = uniform_gen(-3, 3, (-3, 3))

BINARY: dict[tuple[str, int], dict[str, Any]] = {
    ("Add", 1): {"types": NUMERIC, "gen": _bounded(-100, 100, _NARROW_ADD), "specials": ALL_SPECIALS},
    ("Subtract", 1): {"types": NUMERIC, "gen": _subtract, "specials": ALL_SPECIALS},
    ("Multiply", 1): {"types": NUMERIC, "gen": _bounded(-11, 11, _NARROW_MUL), "specials": ALL_SPECIALS},
    ("Divide", 1): {"types": NUMERIC, "gen": _divide, "specials": ALL_SPECIALS, "special_rhs": ("nan", "inf", "-inf"),
                    "boundary": (True, True), "boundary_gen": _divide_boundary},
    ("FloorMod", 1): {"types": NUMERIC, "gen": _divide, "specials": ("nan", "-0"), "special_rhs": ("nan",),
                      "boundary": (True, True), "boundary_gen": _divide_boundary},
    ("Mod", 1): {"types": NUMERIC, "gen": _divide, "specials": ("nan", "-0"), "special_rhs": ("nan",),
                 "boundary": (True, True), "boundary_gen": _divide_boundary},
    ("Maximum", 1): {"types": NUMERIC, "gen": _bounded(-100, 100, {}), "specials": EXACT_SPECIALS,
                     "boundary": (True, True)},
    ("Minimum", 1): {"types": NUMERIC, "gen": _bounded(-100, 100, {}), "specials": EXACT_SPECIALS,
                     "boundary": (True, True)},
    ("SquaredDifference", 1): {"types": FLOATS, "gen": _bounded(-50, 50, {}), "specials": ("nan", "-0", "sub")},
    ("Equal", 1): {"types": (*NUMERIC, Type.boolean), "gen": same_gen(_COMPARE), "specials": EXACT_SPECIALS,
                   "boundary": (True, True)},
    ("NotEqual", 1): {"types": (*NUMERIC, Type.boolean), "gen": same_gen(_COMPARE), "specials": EXACT_SPECIALS,
                      "boundary": (True, True)},
    ("Less", 1): {"types": NUMERIC, "gen": same_gen(_COMPARE), "specials": EXACT_SPECIALS, "boundary": (True, True)},
    ("LessEqual", 1): {"types": NUMERIC, "gen": same_gen(_COMPARE), "specials": EXACT_SPECIALS,
                       "boundary": (True, True)},
    ("Greater", 1): {"types": NUMERIC, "gen": same_gen(_COMPARE), "specials": EXACT_SPECIALS,
                     "boundary": (True, True)},
    ("GreaterEqual", 1): {"types": NUMERIC, "gen": same_gen(_COMPARE), "specials": EXACT_SPECIALS,
                          "boundary": (True, True)},
    ("LogicalAnd", 1): {"types": (Type.boolean,), "gen": same_gen(uniform_gen(0, 1))},
    ("LogicalOr", 1): {"types": (Type.boolean,), "gen": same_gen(uniform_gen(0, 1))},
    ("LogicalXor", 1): {"types": (Type.boolean,), "gen": same_gen(uniform_gen(0, 1))},
    ("BitwiseAnd", 13): {"types": (*INTEGERS, Type.boolean), "gen": same_gen(uniform_gen(0, 1, (-100, 100))),
                         "boundary": (True, True)},
    ("BitwiseOr", 13): {"types": (*INTEGERS, Type.boolean), "gen": same_gen(uniform_gen(0, 1, (-100, 100))),
                        "boundary": (True, True)},
    ("BitwiseXor", 13): {"types": (*INTEGERS, Type.boolean), "gen": same_gen(uniform_gen(0, 1, (-100, 100))),
                         "boundary": (True, True)},
}

for (_op, _version), _spec in BINARY.items():
    _make = None
    if _op == "Divide":
        def _make(b: StimulusBuilder, x: Node, y: Node) -> Node:
            return opset.divide(x, y, "numpy", True)
    binary(_op, _version, _spec["types"], _spec["gen"], make=_make, specials=_spec.get("specials", ()),
           special_rhs=_spec.get("special_rhs"), boundary=_spec.get("boundary"),
           boundary_gen=_spec.get("boundary_gen"), note=_spec.get("note", ""))


# -- matrix: MatMul ---------------------------------------------------------------------------------------

def _mm_values(rng: np.random.Generator, shape: tuple[int, ...], et: Type) -> np.ndarray:
    """Uniform in [-1, 1] for floats; integers small enough that a K-long sum stays in the type."""
    if et.is_real():
        return cast(rng.uniform(-1, 1, shape), et)
    bound = {8: 1, 16: 3}.get(et.bitwidth, 20)
    low = -bound if et.is_signed() else 0
    return rng.integers(low, bound, shape, endpoint=True).astype(et.to_dtype())


def _matmul(label: str, m: int, k: int, n: int, et: Type = Type.f32, *, ta: bool = False, tb: bool = False,
            batch: tuple[int, ...] = (), kind: str = "ordinary", m_sizes: tuple[int, ...] = ()) -> Any:
    """A: a Parameter ``[*batch, M, K]`` (transposed when ``ta``); B: a Constant ``[K, N]`` (``tb``)
    from its own seed, so a dynamic case's shapes share it."""
    def build(m: int = m) -> OpCase:
        b = StimulusBuilder(seed_of("MatMul", 1, label))
        weights = np.random.default_rng(seed_of("MatMul", 1, label + "/B"))
        a_shape = (*batch, k, m) if ta else (*batch, m, k)
        b_shape = (n, k) if tb else (k, n)
        a = _mm_values(b.rng, a_shape, et)
        w = _mm_values(weights, b_shape, et)
        note = "values in [-1, 1]; integers small enough that no sum overflows."
        if kind == "cancellation":  # pairs of large opposite terms along K, plus a small remainder
            half = k // 2
            big = b.rng.uniform(100, 1000, (*a_shape[:-1], half)) * np.where(b.rng.random(half) < 0.5, -1, 1)
            a64 = np.concatenate([big, -big, b.rng.uniform(-1, 1, (*a_shape[:-1], k - 2 * half))], axis=-1)
            a = cast(a64 + b.rng.uniform(-1e-3, 1e-3, a64.shape), et)
            w64 = weights.uniform(-1, 1, (half, n))
            w = cast(np.concatenate([w64, w64, weights.uniform(-1, 1, (k - 2 * half, n))]), et)
            note = "cancellation: pairs of terms of magnitude 100..1000 cancel along K; judged against Σ|terms|."
        elif kind == "special":  # NaN in some rows of A: those output rows are NaN (IEEE)
            a64 = b.rng.uniform(-1, 1, a_shape)
            rows = b.rng.choice(a_shape[-1 if ta else -2], size=2, replace=False)
            flat = a64.reshape(-1, *a_shape[-2:])
            for r in rows:
                if ta:
                    flat[:, k // 2, r] = np.nan
                else:
                    flat[:, r, k // 2] = np.nan
            a = cast(a64, et)
            note = "NaN in two rows of A: their output rows are NaN."
        x = b.param("a", a, et)
        return b.finish("MatMul", 1, opset.matmul(x, b.const(w, et), ta, tb), note)

    if m_sizes:
        return lambda: dynamic_case([build(size) for size in m_sizes], note=f"dynamic mode: M = {m_sizes}")
    return build


@register_stimuli("MatMul", 1)
def _matmul_stimuli() -> Iterable[Stimulus]:
    op, v = "MatMul", 1
    for k in REMAINDERS:
        yield Stimulus(op, v, f"k{k}", "remainder", "ordinary", Type.f32, _matmul(f"k{k}", 9, k, 17),
                       remainder_depth(k))
    yield Stimulus(op, v, "k65-ta", "remainder", "ordinary", Type.f32, _matmul("k65-ta", 9, 65, 17, ta=True))
    yield Stimulus(op, v, "k129-tb", "remainder", "ordinary", Type.f32, _matmul("k129-tb", 9, 129, 17, tb=True))
    yield Stimulus(op, v, "batch-k65", "remainder", "ordinary", Type.f32, _matmul("batch-k65", 9, 65, 33, batch=(3,)))
    yield Stimulus(op, v, "k256-large", "large", "ordinary", Type.f32, _matmul("k256-large", 256, 256, 256))
    yield Stimulus(op, v, "k4096", "large", "long-reduction", Type.f32, _matmul("k4096", 4, LONG_REDUCTION, 8))
    yield Stimulus(op, v, "cancel-k256", "large", "cancellation", Type.f32,
                   _matmul("cancel-k256", 8, 256, 8, kind="cancellation"))
    yield Stimulus(op, v, "nan-k65", "remainder", "special", Type.f32, _matmul("nan-k65", 9, 65, 17, kind="special"))
    for et in NUMERIC:
        if et == Type.f32:
            continue
        depth = Depth.STANDARD if et in (Type.f16, Type.bf16, Type.i32, Type.i8, Type.u8) else Depth.EXHAUSTIVE
        yield Stimulus(op, v, f"{et.name}-k65", "remainder", "ordinary", et, _matmul(f"{et.name}-k65", 9, 65, 17, et),
                       depth)
    yield Stimulus(op, v, "f16-k256", "large", "ordinary", Type.f16, _matmul("f16-k256", 64, 256, 64, Type.f16))
    yield Stimulus(op, v, "dynamic", "remainder", "ordinary", Type.f32,
                   _matmul("dynamic", 1, 65, 17, m_sizes=(1, 9, 33)), dynamic=True)


# -- convolution ----------------------------------------------------------------------------------------

def _small_values(rng: np.random.Generator, shape: tuple[int, ...], et: Type, bound: int = 2) -> np.ndarray:
    if et.is_real():
        return cast(rng.uniform(-1, 1, shape), et)
    return rng.integers(-bound, bound, shape, endpoint=True).astype(et.to_dtype())


def _conv(op: str, label: str, data: tuple[int, ...], filters: tuple[int, ...], et: Type = Type.f32, *,
          stride: int = 1, pad: int = 1, sizes: tuple[tuple[int, ...], ...] = ()) -> Any:
    """``op`` (Convolution or GroupConvolution) over data ``(N, C, *spatial)`` with Constant
    ``filters`` (their own seed, so a dynamic case's shapes share them)."""
    def build(shape: tuple[int, ...] = data) -> OpCase:
        b = StimulusBuilder(seed_of(op, 1, label))
        weights = _small_values(np.random.default_rng(seed_of(op, 1, label + "/W")), filters, et)
        x = b.param("data", _small_values(b.rng, shape, et, 3), et)
        rank = len(shape) - 2
        maker = opset.convolution if op == "Convolution" else opset.group_convolution
        node = maker(x, b.const(weights, et), [stride] * rank, [pad] * rank, [pad] * rank, [1] * rank)
        return b.finish(op, 1, node, "values in [-1, 1]; integers in [-3, 3] (sums stay in i32).")

    if sizes:
        return lambda: dynamic_case([build(s) for s in sizes], note=f"dynamic mode: data shapes {list(sizes)}")
    return build


@register_stimuli("Convolution", 1)
def _convolution_stimuli() -> Iterable[Stimulus]:
    op = "Convolution"
    for c in REMAINDERS:  # input channels: the reduction's channel blocks
        yield Stimulus(op, 1, f"c{c}-2d", "remainder", "ordinary", Type.f32,
                       _conv(op, f"c{c}-2d", (1, c, 9, 9), (8, c, 3, 3)), remainder_depth(c))
    yield Stimulus(op, 1, "w65-2d", "remainder", "ordinary", Type.f32,
                   _conv(op, "w65-2d", (1, 4, 5, 65), (17, 4, 3, 3)))
    yield Stimulus(op, 1, "c33-3d", "remainder", "ordinary", Type.f32,
                   _conv(op, "c33-3d", (1, 33, 5, 5, 5), (4, 33, 3, 3, 3)))
    yield Stimulus(op, 1, "c17-1d", "remainder", "ordinary", Type.f32, _conv(op, "c17-1d", (2, 17, 65), (9, 17, 3)))
    yield Stimulus(op, 1, "c256-2d", "large", "long-reduction", Type.f32,
                   _conv(op, "c256-2d", (1, 256, 14, 14), (8, 256, 3, 3)))
    yield Stimulus(op, 1, "hw56-2d", "large", "ordinary", Type.f32,
                   _conv(op, "hw56-2d", (1, 24, LARGE_SPATIAL, LARGE_SPATIAL), (16, 24, 3, 3)))
    yield Stimulus(op, 1, "1x1-c256", "large", "ordinary", Type.f32,
                   _conv(op, "1x1-c256", (1, 256, 7, 7), (65, 256, 1, 1), pad=0))
    yield Stimulus(op, 1, "stride2-hw57", "large", "ordinary", Type.f32,
                   _conv(op, "stride2-hw57", (1, 16, 57, 57), (8, 16, 3, 3), stride=2), Depth.EXHAUSTIVE)
    for et in (Type.f16, Type.bf16, Type.i32, Type.f64, Type.i64, Type.i16):
        depth = Depth.STANDARD if et in (Type.f16, Type.bf16, Type.i32) else Depth.EXHAUSTIVE
        yield Stimulus(op, 1, f"{et.name}-c17-2d", "remainder", "ordinary", et,
                       _conv(op, f"{et.name}-c17-2d", (1, 17, 9, 9), (8, 17, 3, 3), et), depth)
    yield Stimulus(op, 1, "dynamic", "remainder", "ordinary", Type.f32,
                   _conv(op, "dynamic", (1, 17, 5, 5), (8, 17, 3, 3),
                         sizes=((1, 17, 5, 5), (2, 17, 9, 9), (3, 17, 13, 13))), dynamic=True)


@register_stimuli("GroupConvolution", 1)
def _group_convolution_stimuli() -> Iterable[Stimulus]:
    op = "GroupConvolution"
    yield Stimulus(op, 1, "dw-c33-2d", "remainder", "ordinary", Type.f32,
                   _conv(op, "dw-c33-2d", (1, 33, 9, 9), (33, 1, 1, 3, 3)))
    yield Stimulus(op, 1, "g4-c68-2d", "remainder", "ordinary", Type.f32,
                   _conv(op, "g4-c68-2d", (1, 68, 9, 9), (4, 8, 17, 3, 3)))
    yield Stimulus(op, 1, "g2-c34-3d", "remainder", "ordinary", Type.f32,
                   _conv(op, "g2-c34-3d", (1, 34, 5, 5, 5), (2, 3, 17, 3, 3, 3)))
    yield Stimulus(op, 1, "dw-c256-hw28", "large", "ordinary", Type.f32,
                   _conv(op, "dw-c256-hw28", (1, 256, 28, 28), (256, 1, 1, 3, 3)))
    yield Stimulus(op, 1, "g2-c512-hw7", "large", "long-reduction", Type.f32,
                   _conv(op, "g2-c512-hw7", (1, 512, 7, 7), (2, 4, 256, 3, 3)), Depth.EXHAUSTIVE)
    for et in (Type.f16, Type.bf16, Type.i32, Type.f64):
        depth = Depth.STANDARD if et in (Type.f16, Type.i32) else Depth.EXHAUSTIVE
        yield Stimulus(op, 1, f"{et.name}-dw-c33-2d", "remainder", "ordinary", et,
                       _conv(op, f"{et.name}-dw-c33-2d", (1, 33, 9, 9), (33, 1, 1, 3, 3), et), depth)
    yield Stimulus(op, 1, "dynamic", "remainder", "ordinary", Type.f32,
                   _conv(op, "dynamic", (1, 34, 5, 5), (2, 4, 17, 3, 3),
                         sizes=((1, 34, 5, 5), (2, 34, 9, 9), (3, 34, 13, 13))), dynamic=True)


# -- pooling --------------------------------------------------------------------------------------------

def _distinct(rng: np.random.Generator, shape: tuple[int, ...], et: Type) -> np.ndarray:
    """All-different values (a shuffled ramp centred on 0; unsigned from 1 up): no ties."""
    size = int(np.prod(shape))
    ramp = rng.permutation(size) + (-(size // 2) if (et.is_real() or et.is_signed()) else 1)
    scale = 0.25 if et == Type.f32 else 1.0
    return cast((ramp * scale).reshape(shape), et)


def _pool(op: str, version: int, label: str, data: tuple[int, ...], kernel: int, stride: int, pad: int,
          et: Type = Type.f32, *, kind: str = "ordinary", sizes: tuple[tuple[int, ...], ...] = ()) -> Any:
    def build(shape: tuple[int, ...] = data) -> OpCase:
        b = StimulusBuilder(seed_of(op, version, label))
        rank = len(shape) - 2
        note = "values are all different: max and its index are unique."
        if op == "MaxPool":
            values = _distinct(b.rng, shape, et)
            if kind == "special":  # one NaN in some windows (windows do not overlap): the max is NaN
                v64 = values.astype(np.float64)
                flat = v64.reshape(-1)
                flat[b.rng.choice(flat.size, size=max(1, flat.size // (4 * kernel ** rank)), replace=False)] = np.nan
                values = cast(v64, et)
                note = ("NaN propagates through max (IEEE 754-2019 maximum): a window with its one NaN gives NaN "
                        "and the NaN's index; OpenVINO CPU drops NaN (a recorded deviation).")
            elif kind == "int-boundary":
                values = with_boundaries(b.rng, values, et, highest=False, fraction=0.9)
                note = "mostly the type's minimum: the -inf padding must never win."
            elif kind == "-inf":
                v64 = values.astype(np.float64)
                v64.reshape(-1)[b.rng.choice(v64.size, size=v64.size // 3, replace=False)] = -np.inf
                values = cast(v64, et)
                note = "a third of the values are -inf (a window of -inf and padding gives -inf)."
        else:
            values = cast(b.rng.uniform(-4, 4, shape), et)
            note = "floating-point inputs only: integer averages round unspecified."
            if kind == "special":
                values = with_specials(b.rng, b.rng.uniform(-4, 4, shape), et, ("nan", "-0"), fraction=0.02)
                note = "NaN propagates through the window's sum."
        x = b.param("data", values, et)
        k, s, p = [kernel] * rank, [stride] * rank, [pad] * rank
        if op == "MaxPool":
            if version == 1:
                node = opset.max_pool(x, s, [1] * rank, p, p, k, "floor", "explicit", version=1)
            else:
                node = opset.max_pool(x, s, [1] * rank, p, p, k, "floor", "explicit", Type.i64, 0, version=version)
        else:
            node = opset.avg_pool(x, s, p, p, k, True, "floor", "explicit", [1] * rank if version == 16 else None,
                                  version=version)
        return b.finish(op, version, node, note)

    if sizes:
        return lambda: dynamic_case([build(sz) for sz in sizes], note=f"dynamic mode: data shapes {list(sizes)}")
    return build


def _pool_stimuli(op: str, version: int) -> None:
    def recipe() -> Iterable[Stimulus]:
        yield Stimulus(op, version, "c17-2d", "remainder", "ordinary", Type.f32,
                       _pool(op, version, "c17-2d", (1, 17, 9, 9), 3, 2, 1))
        yield Stimulus(op, version, "w65-2d", "remainder", "ordinary", Type.f32,
                       _pool(op, version, "w65-2d", (1, 3, 7, 65), 2, 1, 0))
        yield Stimulus(op, version, "c9-3d", "remainder", "ordinary", Type.f32,
                       _pool(op, version, "c9-3d", (1, 9, 6, 6, 6), 2, 2, 0))
        yield Stimulus(op, version, "w129-1d", "remainder", "ordinary", Type.f32,
                       _pool(op, version, "w129-1d", (2, 5, 129), 3, 1, 1), Depth.EXHAUSTIVE)
        yield Stimulus(op, version, "hw56-2d", "large", "ordinary", Type.f32,
                       _pool(op, version, "hw56-2d", (1, 32, LARGE_SPATIAL, LARGE_SPATIAL), 3, 2, 1))
        if op == "AvgPool":
            yield Stimulus(op, version, "k8x8", "remainder", "long-reduction", Type.f32,
                           _pool(op, version, "k8x8", (1, 4, 32, 32), 8, 8, 0))
        yield Stimulus(op, version, "nan-2d", "remainder", "special", Type.f32,
                       _pool(op, version, "nan-2d", (1, 5, 8, 10), 2, 2, 0, kind="special"))
        if op == "MaxPool":
            yield Stimulus(op, version, "nan-f16-2d", "remainder", "special", Type.f16,
                           _pool(op, version, "nan-f16-2d", (1, 5, 8, 10), 2, 2, 0, Type.f16, kind="special"))
            if version == 1:  # ties between -inf values: only the output without indices
                yield Stimulus(op, version, "ninf-2d", "remainder", "special", Type.f32,
                               _pool(op, version, "ninf-2d", (1, 5, 9, 9), 3, 2, 1, kind="-inf"))
                yield Stimulus(op, version, "boundary-i32", "remainder", "int-boundary", Type.i32,
                               _pool(op, version, "boundary-i32", (1, 5, 9, 9), 3, 2, 1, Type.i32,
                                     kind="int-boundary"))
            types: tuple[Type, ...] = (Type.f16, Type.bf16, Type.i32, Type.u8, Type.f64, Type.i8, Type.i64)
        else:
            types = (Type.f16, Type.bf16, Type.f64)
        for et in types:
            depth = Depth.STANDARD if et in (Type.f16, Type.bf16, Type.i32) else Depth.EXHAUSTIVE
            shape = (1, 3, 7, 9) if et in (Type.u8, Type.i8) else (1, 17, 9, 9)  # 8-bit: distinct values fit
            yield Stimulus(op, version, f"{et.name}-c17-2d", "remainder", "ordinary", et,
                           _pool(op, version, f"{et.name}-c17-2d", shape, 3, 2, 1, et), depth)
        yield Stimulus(op, version, "dynamic", "remainder", "ordinary", Type.f32,
                       _pool(op, version, "dynamic", (1, 17, 5, 5), 3, 2, 1,
                             sizes=((1, 17, 5, 5), (2, 17, 9, 9), (3, 17, 17, 17))), dynamic=True)

    register_stimuli(op, version)(recipe)


for _v in (1, 8, 14):
    _pool_stimuli("MaxPool", _v)
for _v in (1, 14, 16):
    _pool_stimuli("AvgPool", _v)


# -- activation: Softmax, LogSoftmax ---------------------------------------------------------------------------

def _softmax(op: str, version: int, label: str, shape: tuple[int, ...], axis: int, et: Type = Type.f32, *,
             kind: str = "ordinary", sizes: tuple[tuple[int, ...], ...] = ()) -> Any:
    def build(shape: tuple[int, ...] = shape) -> OpCase:
        b = StimulusBuilder(seed_of(op, version, label))
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
        node = (opset.softmax(b.param("data", cast(values, et), et), axis, version=version) if op == "Softmax"
                else opset.log_softmax(b.param("data", cast(values, et), et), axis))
        return b.finish(op, version, node, note)

    if sizes:
        return lambda: dynamic_case([build(s) for s in sizes], note=f"dynamic mode: shapes {list(sizes)}")
    return build


def _softmax_stimuli(op: str, version: int) -> None:
    def recipe() -> Iterable[Stimulus]:
        for n in REMAINDERS:
            yield Stimulus(op, version, f"axis{n}", "remainder", "ordinary", Type.f32,
                           _softmax(op, version, f"axis{n}", (5, n), 1), remainder_depth(n))
        yield Stimulus(op, version, "outer129", "remainder", "ordinary", Type.f32,
                       _softmax(op, version, "outer129", (129, 5), 0))
        yield Stimulus(op, version, "long4096", "large", "long-reduction", Type.f32,
                       _softmax(op, version, "long4096", (17, LONG_REDUCTION), 1))
        for et in (Type.f32, Type.f16, Type.bf16):
            yield Stimulus(op, version, f"logits-{et.name}", "remainder", "large-magnitude", et,
                           _softmax(op, version, f"logits-{et.name}", (9, 65), 1, et, kind="large-magnitude"),
                           Depth.STANDARD if et != Type.bf16 else Depth.EXHAUSTIVE)
        yield Stimulus(op, version, "masked-f32", "remainder", "special", Type.f32,
                       _softmax(op, version, "masked-f32", (9, 65), 1, kind="masked"))
        yield Stimulus(op, version, "nan-f32", "remainder", "special", Type.f32,
                       _softmax(op, version, "nan-f32", (9, 65), 1, kind="special"))
        for et in (Type.f16, Type.bf16, Type.f64):
            yield Stimulus(op, version, f"{et.name}-axis65", "remainder", "ordinary", et,
                           _softmax(op, version, f"{et.name}-axis65", (5, 65), 1, et),
                           Depth.STANDARD if et != Type.f64 else Depth.EXHAUSTIVE)
        yield Stimulus(op, version, "dynamic", "remainder", "ordinary", Type.f32,
                       _softmax(op, version, "dynamic", (1, 7), 1, sizes=((1, 7), (3, 65), (5, 129))), dynamic=True)

    register_stimuli(op, version)(recipe)


_softmax_stimuli("Softmax", 1)
_softmax_stimuli("Softmax", 8)
_softmax_stimuli("LogSoftmax", 5)


# -- reduction ------------------------------------------------------------------------------------------------

#: op -> (version, builder, element types, ordinary float range)
REDUCTIONS: dict[str, tuple[int, Any, tuple[Type, ...], tuple[float, float]]] = {
    "ReduceSum": (1, opset.reduce_sum, NUMERIC, (-1, 1)),
    "ReduceMean": (1, opset.reduce_mean, FLOATS, (-1, 1)),
    "ReduceMax": (1, opset.reduce_max, NUMERIC, (-10, 10)),
    "ReduceMin": (1, opset.reduce_min, NUMERIC, (-10, 10)),
    "ReduceProd": (1, opset.reduce_prod, (*FLOATS, Type.i32, Type.i64), (0.99, 1.01)),
    "ReduceL1": (4, opset.reduce_l1, FLOATS, (-1, 1)),
    "ReduceL2": (4, opset.reduce_l2, FLOATS, (-1, 1)),
    "ReduceLogicalAnd": (1, opset.reduce_logical_and, (Type.boolean,), (0, 1)),
    "ReduceLogicalOr": (1, opset.reduce_logical_or, (Type.boolean,), (0, 1)),
}


def _reduce(op: str, label: str, shape: tuple[int, ...], axes: list[int], et: Type = Type.f32, *,
            keep_dims: bool = False, kind: str = "ordinary", sizes: tuple[tuple[int, ...], ...] = ()) -> Any:
    version, maker, _types, (low, high) = REDUCTIONS[op]

    def build(shape: tuple[int, ...] = shape) -> OpCase:
        b = StimulusBuilder(seed_of(op, version, label))
        note = "axes are unique and non-empty."
        if et == Type.boolean:
            values = b.rng.random(shape) < (0.97 if op == "ReduceLogicalAnd" else 0.03)
        elif not et.is_real():
            values = (b.rng.choice([-1, 1], shape) if op == "ReduceProd"
                      else b.rng.integers(-3 if et.is_signed() else 0, 3, shape, endpoint=True)).astype(et.to_dtype())
            if kind == "int-boundary":
                values = with_boundaries(b.rng, values, et)
                note = "the type's minimum and maximum (max/min never overflow)."
        elif kind == "cancellation":
            half = shape[-1] // 2
            big = b.rng.uniform(100, 1000, (*shape[:-1], half))
            rest = b.rng.uniform(-1, 1, (*shape[:-1], shape[-1] - 2 * half))
            values = cast(np.concatenate([big, -big[..., ::-1], rest], axis=-1) + b.rng.uniform(-1e-3, 1e-3, shape), et)
            note = "cancellation: pairs of values of magnitude 100..1000 cancel; judged against Σ|terms|."
        elif kind == "special":
            kinds = ("nan", "inf", "-inf", "-0") if op in ("ReduceMax", "ReduceMin") else ("nan", "inf", "-0", "sub")
            values = with_specials(b.rng, b.rng.uniform(low, high, shape), et, kinds, fraction=0.02)
            note = "NaN propagates (through max/min too, IEEE 754-2019); ±inf as IEEE arithmetic gives."
        else:
            values = cast(b.rng.uniform(low, high, shape), et)
        x = b.param("data", values, et)
        return b.finish(op, version, maker(x, b.const(np.array(axes, np.int64)), keep_dims), note)

    if sizes:
        return lambda: dynamic_case([build(s) for s in sizes], note=f"dynamic mode: shapes {list(sizes)}")
    return build


def _reduce_stimuli(op: str) -> None:
    version, _maker, types, _range = REDUCTIONS[op]
    main = Type.f32 if Type.f32 in types else types[0]

    def recipe() -> Iterable[Stimulus]:
        for n in REMAINDERS:
            yield Stimulus(op, version, f"r{n}", "remainder", "ordinary", main, _reduce(op, f"r{n}", (5, n), [1], main),
                           remainder_depth(n))
        yield Stimulus(op, version, "outer129", "remainder", "ordinary", main,
                       _reduce(op, "outer129", (129, 17), [0], main))
        yield Stimulus(op, version, "mid65-keep", "remainder", "ordinary", main,
                       _reduce(op, "mid65-keep", (5, 65, 7), [1], main, keep_dims=True))
        yield Stimulus(op, version, "long4096", "large", "long-reduction", main,
                       _reduce(op, "long4096", (3, LONG_REDUCTION), [1], main))
        yield Stimulus(op, version, "all-large", "large", "long-reduction", main,
                       _reduce(op, "all-large", (257, 256), [0, 1], main))
        if op in ("ReduceSum", "ReduceMean", "ReduceL1"):
            yield Stimulus(op, version, "cancel", "remainder", "cancellation", Type.f32,
                           _reduce(op, "cancel", (5, 256), [1], kind="cancellation"))
        if main == Type.f32 and op not in ("ReduceProd", "ReduceL2"):
            for et in (Type.f32, Type.f16):
                yield Stimulus(op, version, f"special-{et.name}", "remainder", "special", et,
                               _reduce(op, f"special-{et.name}", (5, 65), [1], et, kind="special"))
        if op in ("ReduceMax", "ReduceMin"):
            yield Stimulus(op, version, "boundary-i32", "remainder", "int-boundary", Type.i32,
                           _reduce(op, "boundary-i32", (5, 65), [1], Type.i32, kind="int-boundary"))
        for et in types:
            if et == main:
                continue
            depth = Depth.STANDARD if et in (Type.f16, Type.bf16, Type.i32, Type.u8) else Depth.EXHAUSTIVE
            yield Stimulus(op, version, f"{et.name}-r65", "remainder", "ordinary", et,
                           _reduce(op, f"{et.name}-r65", (5, 65), [1], et), depth)
        yield Stimulus(op, version, "dynamic", "remainder", "ordinary", main,
                       _reduce(op, "dynamic", (1, 7), [1], main, keep_dims=True, sizes=((1, 7), (3, 65), (5, 129))),
                       dynamic=True)

    register_stimuli(op, version)(recipe)


for _op in REDUCTIONS:
    _reduce_stimuli(_op)


# -- sort: TopK -----------------------------------------------------------------------------------------------

def _topk(version: int, label: str, shape: tuple[int, ...], k: int, mode: str = "max", et: Type = Type.f32, *,
          kind: str = "ordinary", sizes: tuple[tuple[int, ...], ...] = ()) -> Any:
    def build(shape: tuple[int, ...] = shape) -> OpCase:
        b = StimulusBuilder(seed_of("TopK", version, label))
        rows, n = int(np.prod(shape[:-1])), shape[-1]
        ramp = np.stack([b.rng.permutation(n) for _ in range(rows)]).reshape(shape).astype(np.float64)
        values = ramp - n // 2 if (et.is_real() or et.is_signed()) else ramp + 1
        note = "values along the axis are all different (ties are ordered only by TopK-11 stable=true)."
        if kind == "special":  # one +inf and one -inf per row, at the places of the top and bottom values
            values = np.where(ramp == n - 1, np.inf, np.where(ramp == 0, -np.inf, values))
            note = "one +inf and one -inf per row; values otherwise all different."
        elif kind == "int-boundary":
            info = np.iinfo(et.to_dtype())
            values = np.where(ramp == n - 1, info.max, np.where(ramp == 0, info.min, values))
            note = "the type's minimum and maximum once per row; values otherwise all different."
        x = b.param("data", cast(values * (0.5 if et == Type.f32 else 1), et), et)
        node = opset.topk(x, b.const(np.array(k, np.int64)), -1, mode, "value", "i32", False, version=version)
        return b.finish("TopK", version, node, note)

    if sizes:
        return lambda: dynamic_case([build(s) for s in sizes], note=f"dynamic mode: shapes {list(sizes)}")
    return build


def _topk_stimuli(version: int) -> None:
    op = "TopK"

    def recipe() -> Iterable[Stimulus]:
        for n in REMAINDERS:
            yield Stimulus(op, version, f"n{n}", "remainder", "ordinary", Type.f32, _topk(version, f"n{n}", (5, n), 5),
                           remainder_depth(n))
        yield Stimulus(op, version, "min-n65", "remainder", "ordinary", Type.f32,
                       _topk(version, "min-n65", (5, 65), 7, "min"))
        yield Stimulus(op, version, "long4096", "large", "long-reduction", Type.f32,
                       _topk(version, "long4096", (3, LONG_REDUCTION), 8))
        yield Stimulus(op, version, "large", "large", "ordinary", Type.f32, _topk(version, "large", (17, 4096), 17))
        yield Stimulus(op, version, "inf-f32", "remainder", "special", Type.f32,
                       _topk(version, "inf-f32", (5, 65), 3, kind="special"))
        yield Stimulus(op, version, "boundary-i32", "remainder", "int-boundary", Type.i32,
                       _topk(version, "boundary-i32", (5, 65), 3, et=Type.i32, kind="int-boundary"))
        for et in (Type.f16, Type.bf16, Type.i32, Type.u8, Type.f64, Type.i64, Type.i8):
            depth = Depth.STANDARD if et in (Type.f16, Type.i32) else Depth.EXHAUSTIVE
            yield Stimulus(op, version, f"{et.name}-n65", "remainder", "ordinary", et,
                           _topk(version, f"{et.name}-n65", (5, 65), 5, et=et), depth)
        yield Stimulus(op, version, "dynamic", "remainder", "ordinary", Type.f32,
                       _topk(version, "dynamic", (1, 17), 5, sizes=((1, 17), (3, 65), (5, 129))), dynamic=True)

    register_stimuli(op, version)(recipe)


for _v in (1, 3, 11):
    _topk_stimuli(_v)


# -- arithmetic: CumSum ---------------------------------------------------------------------------------------

def _cumsum(label: str, shape: tuple[int, ...], et: Type = Type.f32, *, exclusive: bool = False,
            reverse: bool = False, sizes: tuple[tuple[int, ...], ...] = ()) -> Any:
    def build(shape: tuple[int, ...] = shape) -> OpCase:
        b = StimulusBuilder(seed_of("CumSum", 3, label))
        x = b.param("data", _small_values(b.rng, shape, et, 3), et)
        node = opset.cumsum(x, b.const(np.array(1, np.int64)), exclusive, reverse)
        return b.finish("CumSum", 3, node, "values in [-1, 1]; integers in [-3, 3]; judged against Σ|terms|.")

    if sizes:
        return lambda: dynamic_case([build(s) for s in sizes], note=f"dynamic mode: shapes {list(sizes)}")
    return build


@register_stimuli("CumSum", 3)
def _cumsum_stimuli() -> Iterable[Stimulus]:
    op = "CumSum"
    for n in REMAINDERS:
        yield Stimulus(op, 3, f"n{n}", "remainder", "ordinary", Type.f32, _cumsum(f"n{n}", (5, n)), remainder_depth(n))
    yield Stimulus(op, 3, "rev-excl-n129", "remainder", "ordinary", Type.f32,
                   _cumsum("rev-excl-n129", (5, 129), exclusive=True, reverse=True))
    yield Stimulus(op, 3, "long4096", "large", "long-reduction", Type.f32, _cumsum("long4096", (17, LONG_REDUCTION)))
    for et in (Type.f16, Type.bf16, Type.i32, Type.f64, Type.i64):
        depth = Depth.STANDARD if et in (Type.f16, Type.i32) else Depth.EXHAUSTIVE
        yield Stimulus(op, 3, f"{et.name}-n65", "remainder", "ordinary", et, _cumsum(f"{et.name}-n65", (5, 65), et),
                       depth)
    yield Stimulus(op, 3, "dynamic", "remainder", "ordinary", Type.f32,
                   _cumsum("dynamic", (1, 7), sizes=((1, 7), (3, 65), (5, 129))), dynamic=True)
