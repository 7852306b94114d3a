"""Case strategies of GatherElements-6, GatherND-5/8, ScatterUpdate-3,
ScatterElementsUpdate-3/12, ScatterNDUpdate-4/15 (the spec's ScatterNDUpdate-3), Unique-10 and
GatherTree-1.

Kept away from (the spec leaves it undefined, or OpenVINO CPU cannot run it):

* GatherElements / GatherND / ScatterUpdate / ScatterElementsUpdate-3 / ScatterNDUpdate-4: index
  values stay in ``[0, dim)`` (the spec's range; REFERENCE also accepts ``[-dim, 0)`` counting from
  the end). ScatterElementsUpdate-12 and ScatterNDUpdate-15, whose specs allow negative indices,
  draw them too.
* GatherND with ``batch_dims > 0`` over a batch of one element, as for Gather (OpenVINO CPU).
* Scatters with reduction "none" (and ScatterUpdate) never update one position twice: the spec
  leaves the order of repeated updates undefined. Reductions repeat positions freely; products
  stay near 1 and unsigned ``sub`` above zero (no overflow). ScatterElementsUpdate "mean" runs on
  floats only (integer rounding of the mean is not spelled out).
* ScatterUpdate indices are never scalars (OpenVINO CPU: "do not support scalar input").
* Unique: data of rank >= 1, no NaN and no -0.0 (how they compare is not specified).
* GatherTree: i32 or f32 data, ``max_seq_len`` in [1, MAX_TIME], parent indices in range.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from hypothesis import strategies as st

from ovconform import opset
from ovconform.ir import Type
from ovconform.opcases import OpCase, register_case
from ovconform.opcases._draw import CaseBuilder, Draw, draw_seed, draw_shape
from ovconform.opcases._draw_index import DATA_TYPES, INDEX_TYPES, axis_input, draw_type, index_input, values


@register_case("GatherElements", 6)
def case_gather_elements(draw: Draw[Any]) -> OpCase:
    shape = draw_shape(draw, min_rank=1, max_side=4)
    rank = len(shape)
    axis = draw(st.integers(-rank, rank - 1))
    idx_shape = list(shape)
    idx_shape[axis] = draw(st.integers(1, 5))
    et = draw_type(draw)
    b = CaseBuilder(draw_seed(draw))
    data = b.param("data", values(b, shape, et))
    idx = b.rng.integers(0, shape[axis], tuple(idx_shape))
    node = opset.gather_elements(data, index_input(b, draw, "indices", idx), axis)
    return b.finish("GatherElements", 6, node, "index values in [0, dim) (the spec's range).")


# -- GatherND-5/8 -------------------------------------------------------------------------------------

def _gather_nd(draw: Draw[Any], version: int) -> OpCase:
    shape = draw_shape(draw, min_rank=1, max_side=4)
    rank = len(shape)
    batch_dims = draw(st.integers(0, rank - 1))
    if batch_dims and math.prod(shape[:batch_dims]) == 1:
        batch_dims = 0
    k = draw(st.integers(1, rank - batch_dims))
    middle = tuple(draw(st.lists(st.integers(1, 3), max_size=2)))
    et = draw_type(draw)
    b = CaseBuilder(draw_seed(draw))
    data = b.param("data", values(b, shape, et))
    idx_shape = (*shape[:batch_dims], *middle, k)
    highs = np.array(shape[batch_dims:batch_dims + k])
    idx = np.floor(b.rng.random(idx_shape) * highs).astype(np.int64)
    node = opset.gather_nd(data, index_input(b, draw, "indices", idx), batch_dims, version=version)
    note = ("index values in [0, dim) (the spec's range); batch_dims > 0 only over batches of more than one "
            "element.")
    return b.finish("GatherND", version, node, note)


@register_case("GatherND", 5)
def case_gather_nd_5(draw: Draw[Any]) -> OpCase:
    return _gather_nd(draw, 5)


@register_case("GatherND", 8)
def case_gather_nd_8(draw: Draw[Any]) -> OpCase:
    return _gather_nd(draw, 8)


# -- scatters -----------------------------------------------------------------------------------------

SCATTER_TYPES = (Type.f32, Type.f16, Type.i32, Type.i64, Type.u8)


def scatter_values(b: CaseBuilder, shape: tuple[int, ...], et: Type, reduction: str) -> np.ndarray:
    """Data or updates for ``reduction``: products stay near 1 (floats) or in {-1, 1, 2} (integers);
    unsigned values stay small and ``sub`` never goes below zero."""
    if reduction == "prod":
        if et.is_real():
            return b.uniform(shape, et, 0.5, 1.5)
        return b.rng.choice(np.array([1, 2] if not et.is_signed() else [-1, 1, 2]), shape).astype(et.to_dtype())
    if et == Type.u8:
        return b.uniform(shape, et, 0, 20) if reduction != "sub" else b.uniform(shape, et, 100, 200)
    return values(b, shape, et)


def distinct_along(b: CaseBuilder, shape: tuple[int, ...], axis: int, dim: int) -> np.ndarray:
    """Indices of ``shape`` in [0, dim) that never repeat along ``axis`` (shape[axis] <= dim)."""
    full = list(shape)
    full[axis] = dim
    order = np.argsort(b.rng.random(tuple(full)), axis=axis)
    return np.take(order, np.arange(shape[axis]), axis=axis)


@register_case("ScatterUpdate", 3)
def case_scatter_update(draw: Draw[Any]) -> OpCase:
    shape = draw_shape(draw, min_rank=1, max_side=4)
    rank = len(shape)
    axis = draw(st.integers(-rank, rank - 1))
    dim = shape[axis]
    idx_shape = draw(st.sampled_from([(1,), (dim,), (1, dim), (dim, 1)]))
    count = math.prod(idx_shape)
    et = draw_type(draw, DATA_TYPES)
    b = CaseBuilder(draw_seed(draw))
    idx = b.rng.permutation(dim)[:count].reshape(idx_shape)
    upd_shape = (*shape[:axis % rank], *idx_shape, *shape[axis % rank + 1:])
    data = b.param("data", values(b, shape, et))
    updates = b.param("updates", values(b, upd_shape, et))
    axis_node = axis_input(b, draw, axis)
    node = opset.scatter_update(data, index_input(b, draw, "indices", idx), updates, axis_node)
    note = ("indices never repeat (the spec leaves the order of repeated updates undefined) and stay in [0, dim); "
            "indices are never scalars (OpenVINO CPU refuses a scalar input: 'do not support scalar input').")
    return b.finish("ScatterUpdate", 3, node, note)


def _scatter_elements(draw: Draw[Any], version: int) -> OpCase:
    shape = draw_shape(draw, min_rank=1, max_side=4)
    rank = len(shape)
    axis = draw(st.integers(-rank, rank - 1))
    pos = axis % rank
    reduction = "none" if version == 3 else draw(st.sampled_from(("none", "sum", "prod", "min", "max", "mean")))
    use_init_val = True if version == 3 else draw(st.booleans())
    types = (Type.f32, Type.f16) if reduction == "mean" else SCATTER_TYPES
    et = draw_type(draw, types)
    idx_shape = [draw(st.integers(1, d)) for d in shape]
    b = CaseBuilder(draw_seed(draw))
    if reduction == "none":
        idx_shape[pos] = draw(st.integers(1, shape[pos]))
        idx = distinct_along(b, tuple(idx_shape), pos, shape[pos])
    else:
        idx_shape[pos] = draw(st.integers(1, shape[pos] + 2))
        idx = b.rng.integers(0, shape[pos], tuple(idx_shape))
    if version == 12 and draw(st.booleans()):
        idx = np.where(b.rng.random(idx.shape) < 0.5, idx - shape[pos], idx)
    data = b.param("data", scatter_values(b, tuple(shape), et, reduction))
    updates = b.param("updates", scatter_values(b, tuple(idx_shape), et, reduction))
    axis_node = axis_input(b, draw, axis)
    node = opset.scatter_elements_update(data, index_input(b, draw, "indices", idx), updates, axis_node,
                                         reduction, use_init_val, version=version)
    note = ("reduction 'none' never updates one position twice (undefined order in the spec); 'mean' runs on "
            "floats only; negative indices from version 12 on; products stay near 1.")
    return b.finish("ScatterElementsUpdate", version, node, note)


@register_case("ScatterElementsUpdate", 3)
def case_scatter_elements_update_3(draw: Draw[Any]) -> OpCase:
    return _scatter_elements(draw, 3)


@register_case("ScatterElementsUpdate", 12)
def case_scatter_elements_update_12(draw: Draw[Any]) -> OpCase:
    return _scatter_elements(draw, 12)


def _scatter_nd(draw: Draw[Any], version: int) -> OpCase:
    shape = draw_shape(draw, min_rank=1, max_side=4)
    k = draw(st.integers(1, len(shape)))
    reduction = "none" if version == 4 else draw(st.sampled_from(ND_REDUCTIONS))
    et = draw_type(draw, SCATTER_TYPES)
    cells = math.prod(shape[:k])
    b = CaseBuilder(draw_seed(draw))
    if reduction == "none":
        lead = draw(st.sampled_from([(n,) for n in range(1, cells + 1)] + [(1, 1)]))
        flat = b.rng.permutation(cells)[:math.prod(lead)]
    else:
        lead = tuple(draw(st.lists(st.integers(1, 3), min_size=1, max_size=2)))
        flat = b.rng.integers(0, cells, math.prod(lead))
    idx = np.stack(np.unravel_index(flat, shape[:k]), axis=-1).reshape(*lead, k)
    if version == 15 and draw(st.booleans()):
        idx = np.where(b.rng.random(idx.shape) < 0.5, idx - np.array(shape[:k]), idx)
    data = b.param("data", scatter_values(b, tuple(shape), et, reduction))
    updates = b.param("updates", scatter_values(b, (*lead, *shape[k:]), et, reduction))
    node = opset.scatter_nd_update(data, index_input(b, draw, "indices", idx), updates, reduction, version=version)
    note = ("reduction 'none' never updates one position twice (undefined order in the spec); negative indices "
            "from version 15 on; products stay near 1, unsigned 'sub' stays above zero.")
    return b.finish("ScatterNDUpdate", version, node, note)


ND_REDUCTIONS = ("none", "sum", "sub", "prod", "min", "max")


@register_case("ScatterNDUpdate", 4)
def case_scatter_nd_update_4(draw: Draw[Any]) -> OpCase:
    return _scatter_nd(draw, 4)


@register_case("ScatterNDUpdate", 15)
def case_scatter_nd_update_15(draw: Draw[Any]) -> OpCase:
    return _scatter_nd(draw, 15)


@register_case("Unique", 10)
def case_unique(draw: Draw[Any]) -> OpCase:
    shape = draw_shape(draw, min_rank=1, max_side=5)
    rank = len(shape)
    et = draw_type(draw, (Type.f32, Type.f16, Type.i32, Type.i64, Type.u8, Type.i8))
    with_axis = draw(st.booleans())
    axis = draw(st.integers(-rank, rank - 1))
    b = CaseBuilder(draw_seed(draw))
    spread = draw(st.sampled_from((1, 3, 50)))  # few distinct values give repeats
    data = b.uniform(tuple(shape), et, 0 if et == Type.u8 else -spread, spread)
    if et.is_real():
        data = np.round(data).astype(et.to_dtype()) + 0  # whole numbers: repeats, and no -0.0
    if with_axis and draw(st.booleans()):  # repeat some slices along the axis
        picks = b.rng.integers(0, shape[axis], shape[axis])
        data = np.take(data, picks, axis=axis)
    axis_node = b.const(np.array(axis, dtype=draw(st.sampled_from(INDEX_TYPES)).to_dtype())) if with_axis else None
    node = opset.unique(b.param("data", data), axis_node, draw(st.booleans()), draw(st.sampled_from(INDEX_TYPES)),
                        draw(st.sampled_from(INDEX_TYPES)))
    return b.finish("Unique", 10, node, "no NaN and no -0.0 (the spec does not say how they compare); the output "
                                        "shapes depend on the values.")


@register_case("GatherTree", 1)
def case_gather_tree(draw: Draw[Any]) -> OpCase:
    et = draw(st.sampled_from((Type.i32, Type.f32)))
    time, batch, width = draw(st.integers(1, 6)), draw(st.integers(1, 3)), draw(st.integers(1, 4))
    b = CaseBuilder(draw_seed(draw))
    shape = (time, batch, width)
    steps = b.param("step_ids", b.integers(shape, et, 0, 6))
    parents = b.param("parent_idx", b.integers(shape, et, 0, width - 1))
    lengths = b.param("max_seq_len", b.integers((batch,), et, 1, time))
    end = b.param("end_token", b.integers((), et, 0, 6))
    return b.finish("GatherTree", 1, opset.gather_tree(steps, parents, lengths, end))
