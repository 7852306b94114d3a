"""Case strategies of the condition ops (OpenVINO's op-spec folder "condition"): Select-1,
NonZero-3 and Bucketize-3.

Select broadcasts its three inputs with numpy rules (or ``auto_broadcast="none"`` on equal
shapes). NonZero takes data of rank >= 1; Bucketize boundaries are sorted ascending (the spec
requires it).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import numpy as np
from hypothesis import strategies as st

from ovconform import opset
from ovconform.ir import Model, Type
from ovconform.opcases import OpCase, register_case
from ovconform.opcases import stimulus as S
from ovconform.opcases._draw import NUMERIC, CaseBuilder, Draw, draw_broadcast_shapes, draw_seed, draw_shape
from ovconform.opcases._draw_index import DATA_TYPES, INDEX_TYPES, draw_type, values


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


@register_case("NonZero", 3)
def case_non_zero(draw: Draw[Any]) -> OpCase:
    shape = draw_shape(draw, min_rank=1, max_side=5)
    et = draw_type(draw, (*DATA_TYPES, Type.i8))
    density = draw(st.sampled_from((0.0, 0.3, 0.7, 1.0)))
    b = CaseBuilder(draw_seed(draw))
    data = np.where(b.rng.random(tuple(shape)) < density, values(b, tuple(shape), et), 0).astype(et.to_dtype())
    if et.is_real():
        data[data == 0] = 0  # no -0.0 from the draw
    node = opset.non_zero(b.param("data", data), draw(st.sampled_from(INDEX_TYPES)))
    return b.finish("NonZero", 3, node, "data of rank >= 1 (OpenVINO infers [?,?] for a scalar); the output "
                                        "shape depends on the values (0..size columns).")


# -- Bucketize-3 --------------------------------------------------------------------------------------

BUCKET_TYPES = (Type.f32, Type.f16, Type.i32, Type.i64, Type.u8, Type.i8)


@register_case("Bucketize", 3)
def case_bucketize(draw: Draw[Any]) -> OpCase:
    shape = draw_shape(draw, max_side=5)
    et, bt = draw_type(draw, BUCKET_TYPES), draw_type(draw, BUCKET_TYPES)
    n = draw(st.integers(1, 8))
    b = CaseBuilder(draw_seed(draw))
    low = 0 if Type.u8 in (et, bt) else -20
    edges = np.sort(b.uniform((n,), bt, low, 20))
    data = b.uniform(tuple(shape), et, low - 2, 22)
    if et.is_real() and draw(st.booleans()):  # some values exactly on a boundary
        hits = b.rng.random(data.shape) < 0.3
        data = np.where(hits, edges[b.rng.integers(0, n, data.shape)].astype(np.float64), data).astype(data.dtype)
    buckets = b.input("buckets", edges, as_constant=draw(st.booleans()))
    node = opset.bucketize(b.param("data", data), buckets, draw(st.sampled_from(INDEX_TYPES)), draw(st.booleans()))
    return b.finish("Bucketize", 3, node, "buckets are sorted ascending (the spec requires it).")

# -- stimulus cases (issue #20: sizes, values, element types, dynamic shapes; see ovconform.opcases.stimulus)

def _stim_select(label: str, shapes: tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]], et: Type = Type.f32,
                 kind: str = "ordinary", dynamic: tuple[tuple[int, ...], ...] = ()) -> Callable[[], OpCase]:
    def build(first: tuple[int, ...] = shapes[0]) -> OpCase:
        b = S.StimulusBuilder(S.seed_of("Select", 1, label))
        sc, st_, se = (first if dynamic else shapes[0]), shapes[1], shapes[2]
        if dynamic:
            st_ = se = first
        then = b.uniform(st_, et, -100, 100) if et != Type.boolean else b.uniform(st_, et, 0, 1)
        other = b.uniform(se, et, -100, 100) if et != Type.boolean else b.uniform(se, et, 0, 1)
        if kind == "special":
            then = S.with_specials(b.rng, b.rng.uniform(-100, 100, st_), et, ("nan", "inf", "-inf", "-0"))
        cond = b.param("cond", b.rng.random(sc) < 0.5, Type.boolean)
        node = opset.select(cond, b.param("then", then, et), b.param("else", other, et))
        return b.finish("Select", 1, node, "values pass through unchanged (NaN and ±inf too).")

    if dynamic:
        return lambda: S.dynamic_case([build(s) for s in dynamic], note=f"dynamic mode: shapes {list(dynamic)}")
    return build


@S.register_stimuli("Select", 1)
def _stimulus_select() -> Iterable[S.Stimulus]:
    op, f32 = "Select", Type.f32
    for n in S.REMAINDERS:
        s = (3, n)
        yield S.Stimulus(op, 1, f"n{n}", "remainder", "ordinary", f32, _stim_select(f"n{n}", (s, s, s)),
                         S.remainder_depth(n))
    yield S.Stimulus(op, 1, "bcast-row63", "remainder", "ordinary", f32,
                     _stim_select("bcast-row63", ((1, 63), (3, 63), ())))
    yield S.Stimulus(op, 1, "bcast-col63", "remainder", "ordinary", f32,
                     _stim_select("bcast-col63", ((3, 63), (3, 1), (1, 63))))
    yield S.Stimulus(op, 1, "large", "large", "ordinary", f32,
                     _stim_select("large", ((2, 32771), (2, 32771), (2, 32771))))
    yield S.Stimulus(op, 1, "special-f32", "remainder", "special", f32,
                     _stim_select("special-f32", ((4, 33), (4, 33), (4, 33)), kind="special"))
    for et in (*S.NUMERIC, Type.boolean):
        if et != f32:
            s = (3, 65)
            yield S.Stimulus(op, 1, f"{et.name}-n65", "remainder", "ordinary", et,
                             _stim_select(f"{et.name}-n65", (s, s, s), et))
    yield S.Stimulus(op, 1, "dynamic", "remainder", "ordinary", f32,
                     _stim_select("dynamic", ((1, 7), (1, 7), (1, 7)), dynamic=((1, 7), (3, 65), (5, 129))),
                     dynamic=True)


# -- If-8 (sub-graph bodies) ------------------------------------------------------------------------------

IF_TYPES = (Type.f32, Type.i32)


@register_case("If", 8)
def case_if(draw: Draw[Any]) -> OpCase:
    """Two bodies of different ops over the same inputs; the condition a Parameter (true and false
    both drawn), a one-element 1D Parameter, or a Constant (then only the chosen body's shapes count);
    the else body sometimes reads only one of the inputs; one or two outputs."""
    et = draw(st.sampled_from(IF_TYPES))
    shape = draw_shape(draw, max_side=6)
    cond_kind = draw(st.sampled_from(("scalar", "scalar", "1d", "constant")))
    two_outputs = draw(st.booleans())
    b = CaseBuilder(draw_seed(draw))
    flag = bool(b.rng.random() < 0.5)
    if cond_kind == "constant":
        cond = b.const(np.array(flag))
    else:
        cond = b.param("cond", np.array(flag if cond_kind == "scalar" else [flag]))
    x = b.param("x", b.uniform(shape, et, -20, 20))
    y = b.param("y", b.uniform(shape, et, -20, 20))
    tx, ty = opset.parameter(list(shape), et), opset.parameter(list(shape), et)
    then_values = [opset.add(opset.multiply(tx, ty), tx)]
    if two_outputs:
        then_values.append(opset.maximum(tx, ty))
    then_body = Model(then_values, [tx, ty], "then")
    ex, ey = opset.parameter(list(shape), et), opset.parameter(list(shape), et)
    else_reads_y = draw(st.booleans())
    first = opset.subtract(ex, ey) if else_reads_y else opset.negative(ex)
    else_values = [first] + ([opset.minimum(first, ex)] if two_outputs else [])
    else_body = Model(else_values, [ex, ey] if else_reads_y else [ex], "else")
    inputs = [(x, tx, ex), (y, ty, ey if else_reads_y else None)]
    outputs = list(zip(then_body.get_results(), else_body.get_results(), strict=True))
    node = opset.if_op(cond, then_body, else_body, inputs, outputs)
    return b.finish("If", 8, node, "the branch follows cond (a Parameter: both values drawn); bodies of "
                                   "different ops, the else body sometimes reading one input only.")
