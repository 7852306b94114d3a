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

from collections.abc import Callable, Iterable
from typing import Any

import numpy as np
from hypothesis import strategies as st

from ovconform import opset
from ovconform.ir import Node, Type
from ovconform.opcases import OpCase, register_case
from ovconform.opcases import stimulus as S
from ovconform.opcases._draw import FLOATS, CaseBuilder, Draw, draw_axes, draw_seed, draw_shape
from ovconform.opcases.depth import Depth

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

# -- stimulus cases (issue #20: sizes, values, element types, dynamic shapes; see ovconform.opcases.stimulus)

STIMULUS_REDUCTIONS: dict[str, tuple[int, Any, tuple[Type, ...], tuple[float, float]]] = {
    "ReduceSum": (1, opset.reduce_sum, S.NUMERIC, (-1, 1)),
    "ReduceMean": (1, opset.reduce_mean, S.FLOATS, (-1, 1)),
    "ReduceMax": (1, opset.reduce_max, S.NUMERIC, (-10, 10)),
    "ReduceMin": (1, opset.reduce_min, S.NUMERIC, (-10, 10)),
    "ReduceProd": (1, opset.reduce_prod, (*S.FLOATS, Type.i32, Type.i64), (0.99, 1.01)),
    "ReduceL1": (4, opset.reduce_l1, S.FLOATS, (-1, 1)),
    "ReduceL2": (4, opset.reduce_l2, S.FLOATS, (-1, 1)),
    "ReduceLogicalAnd": (1, opset.reduce_logical_and, (Type.boolean,), (0, 1)),
    "ReduceLogicalOr": (1, opset.reduce_logical_or, (Type.boolean,), (0, 1)),
}


def _stim_reduce(op: str, label: str, shape: tuple[int, ...], axes: list[int], et: Type = Type.f32, *,
            keep_dims: bool = False, kind: str = "ordinary", sizes: tuple[tuple[int, ...], ...] = ()) -> Any:
    version, maker, _types, (low, high) = STIMULUS_REDUCTIONS[op]

    def build(shape: tuple[int, ...] = shape) -> OpCase:
        b = S.StimulusBuilder(S.seed_of(op, version, label))
        note = "axes are unique and non-empty."
        if et == Type.boolean:
            values = b.rng.random(shape) < (0.97 if op == "ReduceLogicalAnd" else 0.03)
        elif not et.is_real():
            values = (b.rng.choice([-1, 1], shape) if op == "ReduceProd"
                      else b.rng.integers(-3 if et.is_signed() else 0, 3, shape, endpoint=True)).astype(et.to_dtype())
            if kind == "int-boundary":
                values = S.with_boundaries(b.rng, values, et)
                note = "the type's minimum and maximum (max/min never overflow)."
        elif kind == "cancellation":
            half = shape[-1] // 2
            big = b.rng.uniform(100, 1000, (*shape[:-1], half))
            rest = b.rng.uniform(-1, 1, (*shape[:-1], shape[-1] - 2 * half))
            values = S.cast(np.concatenate([big, -big[..., ::-1], rest], axis=-1) + b.rng.uniform(-1e-3, 1e-3, shape),
                            et)
            note = "cancellation: pairs of values of magnitude 100..1000 cancel; judged against Σ|terms|."
        elif kind == "special":
            kinds = ("nan", "inf", "-inf", "-0") if op in ("ReduceMax", "ReduceMin") else ("nan", "inf", "-0", "sub")
            values = S.with_specials(b.rng, b.rng.uniform(low, high, shape), et, kinds, fraction=0.02)
            note = "NaN propagates (through max/min too, IEEE 754-2019); ±inf as IEEE arithmetic gives."
        else:
            values = S.cast(b.rng.uniform(low, high, shape), et)
        x = b.param("data", values, et)
        return b.finish(op, version, maker(x, b.const(np.array(axes, np.int64)), keep_dims), note)

    if sizes:
        return lambda: S.dynamic_case([build(s) for s in sizes], note=f"dynamic mode: shapes {list(sizes)}")
    return build


def _stimulus_reduce(op: str) -> None:
    version, _maker, types, _range = STIMULUS_REDUCTIONS[op]
    main = Type.f32 if Type.f32 in types else types[0]

    def recipe() -> Iterable[S.Stimulus]:
        for n in S.REMAINDERS:
            yield S.Stimulus(op, version, f"r{n}", "remainder", "ordinary", main,
                             _stim_reduce(op, f"r{n}", (5, n), [1], main),
                           S.remainder_depth(n))
        yield S.Stimulus(op, version, "outer129", "remainder", "ordinary", main,
                       _stim_reduce(op, "outer129", (129, 17), [0], main))
        yield S.Stimulus(op, version, "mid65-keep", "remainder", "ordinary", main,
                       _stim_reduce(op, "mid65-keep", (5, 65, 7), [1], main, keep_dims=True))
        yield S.Stimulus(op, version, "long4096", "large", "long-reduction", main,
                       _stim_reduce(op, "long4096", (3, S.LONG_REDUCTION), [1], main))
        yield S.Stimulus(op, version, "all-large", "large", "long-reduction", main,
                       _stim_reduce(op, "all-large", (257, 256), [0, 1], main))
        if op in ("ReduceSum", "ReduceMean", "ReduceL1"):
            yield S.Stimulus(op, version, "cancel", "remainder", "cancellation", Type.f32,
                           _stim_reduce(op, "cancel", (5, 256), [1], kind="cancellation"))
        if main == Type.f32 and op not in ("ReduceProd", "ReduceL2"):
            for et in (Type.f32, Type.f16):
                yield S.Stimulus(op, version, f"special-{et.name}", "remainder", "special", et,
                               _stim_reduce(op, f"special-{et.name}", (5, 65), [1], et, kind="special"))
        if op in ("ReduceMax", "ReduceMin"):
            yield S.Stimulus(op, version, "boundary-i32", "remainder", "int-boundary", Type.i32,
                           _stim_reduce(op, "boundary-i32", (5, 65), [1], Type.i32, kind="int-boundary"))
        for et in types:
            if et == main:
                continue
            depth = Depth.STANDARD if et in (Type.f16, Type.bf16, Type.i32, Type.u8) else Depth.EXHAUSTIVE
            yield S.Stimulus(op, version, f"{et.name}-r65", "remainder", "ordinary", et,
                           _stim_reduce(op, f"{et.name}-r65", (5, 65), [1], et), depth)
        yield S.Stimulus(op, version, "dynamic", "remainder", "ordinary", main,
                       _stim_reduce(op, "dynamic", (1, 7), [1], main, keep_dims=True,
                                    sizes=((1, 7), (3, 65), (5, 129))),
                       dynamic=True)

    S.register_stimuli(op, version)(recipe)


for _stim_op in STIMULUS_REDUCTIONS:
    _stimulus_reduce(_stim_op)
