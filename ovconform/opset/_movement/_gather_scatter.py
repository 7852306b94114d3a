"""Gather-1/7/8, GatherElements-6, GatherND-5/8, GatherTree-1, ScatterUpdate-3,
ScatterElementsUpdate-3/12, ScatterNDUpdate-4/15 and Unique-10.

Attribute spellings are those OpenVINO writes to IR v11: Gather-7/8 and GatherND ``batch_dims``;
GatherElements ``axis``; ScatterElementsUpdate-12 ``reduction`` (none, sum, prod, min, max, mean)
and ``use_init_val``; ScatterNDUpdate-15 ``reduction`` (none, sum, sub, prod, min, max); Unique
``sorted``, ``index_element_type``, ``count_element_type``. Gather's axis is an input; when an
index input is not known at build time the output keeps what can be known (the rank, untouched
dims) and the rest is dynamic. Unique's outputs have bounded dims (``0..n``) when the data shape is
static, ``?`` otherwise.

Versions are numbered by the first opset holding them, as the IR writes them and as
:data:`ovconform.ir.opset_table.OPSET_VERSIONS` lists them: ``ScatterNDUpdate-4`` is
``ov::op::v3::ScatterNDUpdate`` (the spec page "ScatterNDUpdate-3"), first in opset4.
"""

from __future__ import annotations

from typing import Any

from ovconform.ir import AttrSpec, Dimension, Node, PartialShape, Type, define_op, make_node
from ovconform.opset._helpers import NodeInput, as_output, as_outputs, normalize_axis, require
from ovconform.opset._inputs import (
    INDEX_TYPES,
    Infer,
    InferFn,
    _merge,
    _same,
    _scalar_input,
    const_ints,
    index_input,
    merge_dim,
    product,
    require_integer,
    require_rank,
    require_rank_at_most,
    static_length,
)

__all__ = [
    "gather", "gather_elements", "gather_nd", "gather_tree", "scatter_elements_update", "scatter_nd_update",
    "scatter_update", "unique",
]

def _infer_gather(node: Node) -> Infer:
    """data[:axis] + indices[batch_dims:] + data[axis+1:], with the first batch_dims dims shared."""
    require_integer(node, 1, "indices")
    require_integer(node, 2, "axis")
    require_rank_at_most(node, 2, 1, "axis")
    require(static_length(node, 2) in (None, 1),
            f"axis has shape {node.get_input_partial_shape(2)}; it must be a scalar or hold one value.")
    et, data, idx = node.get_input_element_type(0), node.get_input_partial_shape(0), node.get_input_partial_shape(1)
    require(not data.has_rank() or len(data) >= 1, "data is a scalar; Gather needs data of rank >= 1.")
    bd = node.attrs.get("batch_dims", 0)
    if bd < 0:
        require(idx.has_rank(), f"batch_dims={bd} is negative and the indices rank is dynamic.")
        bd += len(idx)
    require(bd >= 0 and (not idx.has_rank() or bd <= len(idx)),
            f"batch_dims={node.attrs.get('batch_dims', 0)} is out of range for indices {idx}; "
            f"allowed [{-len(idx) if idx.has_rank() else '-r'}, {len(idx) if idx.has_rank() else 'r'}].")
    value = const_ints(node, 2)
    if not data.has_rank() or not idx.has_rank():
        return [(et, PartialShape.dynamic())]
    if value is None:
        return [(et, PartialShape.dynamic(len(data) + len(idx) - 1 - bd))]
    axis = normalize_axis(value[0], len(data))
    require(bd <= axis, f"batch_dims={bd} (normalized) must not exceed axis={axis}.")
    batch = [_merge(data[i], idx[i], f"data {data} and indices {idx} differ in batch dim {i} (batch_dims={bd}).")
             for i in range(bd)]
    return [(et, PartialShape([*batch, *data.dims[bd:axis], *idx.dims[bd:], *data.dims[axis + 1:]]))]


define_op("Gather", 1, inputs=3)(_infer_gather)
define_op("Gather", 7, inputs=3, attrs=[AttrSpec("batch_dims", "int", 0)])(_infer_gather)
define_op("Gather", 8, inputs=3, attrs=[AttrSpec("batch_dims", "int", 0)])(_infer_gather)


def gather(data: NodeInput, indices: NodeInput, axis: NodeInput, batch_dims: int = 0, name: str | None = None) -> Node:
    """Gather-8 (negative indices count from the end); Gather-1/7 via ``make_node``."""
    inputs = [as_output(data), index_input(indices, "Gather indices"), index_input(axis, "Gather axis")]
    return make_node("Gather", 8, inputs, {"batch_dims": batch_dims}, name)


def _rank(shape: PartialShape) -> int | None:
    return len(shape) if shape.has_rank() else None


@define_op("GatherElements", 6, inputs=2, attrs=[AttrSpec("axis", "int")])
def _infer_gather_elements(node: Node) -> Infer:
    """Output = indices' shape; data and indices share every dim but ``axis``."""
    require_integer(node, 1, "indices")
    data, idx = node.get_input_partial_shape(0), node.get_input_partial_shape(1)
    et = node.get_input_element_type(0)
    rank = _rank(data) if data.has_rank() else _rank(idx)
    if rank is None:
        return [(et, PartialShape.dynamic())]
    require(rank >= 1, "data is a scalar; GatherElements needs rank >= 1.")
    axis = normalize_axis(node.attrs["axis"], rank, "attribute 'axis'")
    if not data.has_rank() or not idx.has_rank():
        return [(et, idx if idx.has_rank() else PartialShape.dynamic(rank))]
    require(len(idx) == rank, f"indices {idx} and data {data} must have the same rank.")
    dims = [d if i == axis else _merge(d, data[i], f"indices {idx} and data {data} differ in dim {i}, which is "
                                                   f"not the axis {node.attrs['axis']}.")
            for i, d in enumerate(idx.dims)]
    return [(et, PartialShape(dims))]


def gather_elements(data: NodeInput, indices: NodeInput, axis: int = 0, name: str | None = None) -> Node:
    """GatherElements-6: ``out[..., i, ...] = data[..., indices[..., i, ...], ...]`` along ``axis``."""
    return make_node("GatherElements", 6, [as_output(data), index_input(indices, "GatherElements indices")],
                     {"axis": axis}, name)


# -- GatherND-5/8 -------------------------------------------------------------------------------------

def _gather_nd_parts(node: Node) -> tuple[list[Dimension], list[Dimension], list[Dimension]] | None:
    """(batch dims, indices dims between batch and last, trailing data dims), None when unknown."""
    require_integer(node, 1, "indices")
    data, idx = node.get_input_partial_shape(0), node.get_input_partial_shape(1)
    b = node.attrs["batch_dims"]
    require(b >= 0, f"batch_dims={b} must be non-negative.")
    if data.has_rank():
        require(len(data) >= 1, "data is a scalar; GatherND needs rank >= 1.")
    if idx.has_rank():
        require(len(idx) >= 1, "indices is a scalar; GatherND needs rank >= 1.")
    if data.has_rank() and idx.has_rank():
        require(b < min(len(data), len(idx)), f"batch_dims={b} must be less than the ranks of data {data} and "
                                              f"indices {idx}.")
    if not data.has_rank() or not idx.has_rank() or idx[-1].is_dynamic:
        return None
    k = idx[-1].get_length()
    require(1 <= k <= len(data) - b, f"indices {idx} has a last dim of {k}; it must be in [1, {len(data) - b}] "
                                     f"(data rank {len(data)} minus batch_dims={b}).")
    batch = [_merge(data[i], idx[i], f"data {data} and indices {idx} differ in batch dim {i}.") for i in range(b)]
    return batch, list(idx.dims[b:-1]), list(data.dims[b + k:])


def _infer_gather_nd(version: int) -> InferFn:
    def infer(node: Node) -> Infer:
        et = node.get_input_element_type(0)
        parts = _gather_nd_parts(node)
        if parts is None:
            return [(et, PartialShape.dynamic())]
        batch, middle, tail = parts
        if version == 5 and batch:
            batch = [product(batch)]
        return [(et, PartialShape([*batch, *middle, *tail]))]

    return infer


define_op("GatherND", 5, inputs=2, attrs=[AttrSpec("batch_dims", "int", 0)])(_infer_gather_nd(5))
define_op("GatherND", 8, inputs=2, attrs=[AttrSpec("batch_dims", "int", 0)])(_infer_gather_nd(8))


def gather_nd(data: NodeInput, indices: NodeInput, batch_dims: int = 0, version: int = 8,
              name: str | None = None) -> Node:
    """GatherND-8 (``version=5``: GatherND-5, whose batch dims are flattened into one output dim)."""
    require(version in (5, 8), f"GatherND version {version} does not exist; versions: 5, 8.")
    return make_node("GatherND", version, [as_output(data), index_input(indices, "GatherND indices")],
                     {"batch_dims": batch_dims}, name)


# -- ScatterUpdate-3 ----------------------------------------------------------------------------------

@define_op("ScatterUpdate", 3, inputs=4)
def _infer_scatter_update(node: Node) -> Infer:
    """data with slices along ``axis`` replaced; updates = data[:axis] + indices + data[axis+1:]."""
    require_integer(node, 1, "indices")
    et = _same(node, 0, 2, "data", "updates")
    axis_value = _scalar_input(node, 3, "axis")
    data, idx, upd = (node.get_input_partial_shape(i) for i in range(3))
    if data.has_rank():
        require(len(data) >= 1, "data is a scalar; ScatterUpdate needs rank >= 1.")
    if axis_value is not None and data.has_rank() and idx.has_rank():
        axis = normalize_axis(axis_value, len(data), "axis")
        want = PartialShape([*data.dims[:axis], *idx.dims, *data.dims[axis + 1:]])
        require(not upd.has_rank() or upd.compatible(want),
                f"updates {upd} must have shape data[:axis] + indices.shape + data[axis+1:] = {want}.")
    return [(et, data)]


def scatter_update(data: NodeInput, indices: NodeInput, updates: NodeInput, axis: NodeInput,
                   name: str | None = None) -> Node:
    """ScatterUpdate-3: ``data`` with the slices at ``indices`` along ``axis`` set from ``updates``."""
    inputs = [as_output(data), index_input(indices, "ScatterUpdate indices"), as_output(updates),
              index_input(axis, "ScatterUpdate axis")]
    return make_node("ScatterUpdate", 3, inputs, {}, name)


# -- ScatterElementsUpdate-3/12 -----------------------------------------------------------------------

ELEMENTS_REDUCTIONS = ("none", "sum", "prod", "min", "max", "mean")


def _infer_scatter_elements(node: Node) -> Infer:
    """data with elements at indices (along ``axis``) set or reduced from updates (indices' shape)."""
    require_integer(node, 1, "indices")
    et = _same(node, 0, 2, "data", "updates")
    if node.attrs.get("reduction", "none") != "none":
        require(et != Type.boolean or node.attrs["reduction"] in ("sum", "prod", "min", "max"),
                f"reduction {node.attrs['reduction']!r} is not defined for boolean data.")
    axis_value = _scalar_input(node, 3, "axis")
    data, idx, upd = (node.get_input_partial_shape(i) for i in range(3))
    require(idx.compatible(upd), f"indices {idx} and updates {upd} must have the same shape.")
    ranks = {len(s) for s in (data, idx, upd) if s.has_rank()}
    require(len(ranks) <= 1, f"data {data}, indices {idx} and updates {upd} must have the same rank.")
    if data.has_rank():
        require(len(data) >= 1, "data is a scalar; ScatterElementsUpdate needs rank >= 1.")
        if axis_value is not None:
            normalize_axis(axis_value, len(data), "axis")
    return [(et, data)]


define_op("ScatterElementsUpdate", 3, inputs=4)(_infer_scatter_elements)
define_op("ScatterElementsUpdate", 12, inputs=4, attrs=[
    AttrSpec("reduction", "str", "none", ELEMENTS_REDUCTIONS), AttrSpec("use_init_val", "bool", True),
])(_infer_scatter_elements)


def scatter_elements_update(data: NodeInput, indices: NodeInput, updates: NodeInput, axis: NodeInput,
                            reduction: str = "none", use_init_val: bool = True, version: int = 12,
                            name: str | None = None) -> Node:
    """ScatterElementsUpdate-12 (``version=3``: no ``reduction``/``use_init_val``, plain update)."""
    require(version in (3, 12), f"ScatterElementsUpdate version {version} does not exist; versions: 3, 12.")
    inputs = [as_output(data), index_input(indices, "ScatterElementsUpdate indices"), as_output(updates),
              index_input(axis, "ScatterElementsUpdate axis")]
    attrs: dict[str, Any] = {}
    if version == 12:
        attrs = {"reduction": reduction.lower() if isinstance(reduction, str) else reduction,
                 "use_init_val": use_init_val}
    return make_node("ScatterElementsUpdate", version, inputs, attrs, name)


# -- ScatterNDUpdate-4/15 -----------------------------------------------------------------------------

ND_REDUCTIONS = ("none", "sum", "sub", "prod", "min", "max")


def _infer_scatter_nd(node: Node) -> Infer:
    """data with the elements/slices at index tuples set or reduced; updates = indices[:-1] + data[k:]."""
    require_integer(node, 1, "indices")
    et = _same(node, 0, 2, "data", "updates")
    if node.attrs.get("reduction", "none") not in ("none", "max", "min"):
        require(et != Type.boolean or node.attrs["reduction"] in ("sum", "prod"),
                f"reduction {node.attrs['reduction']!r} is not defined for boolean data.")
    data, idx, upd = (node.get_input_partial_shape(i) for i in range(3))
    if data.has_rank():
        require(len(data) >= 1, "data is a scalar; ScatterNDUpdate needs rank >= 1.")
    if idx.has_rank():
        require(len(idx) >= 1, "indices is a scalar; ScatterNDUpdate needs rank >= 1.")
    if data.has_rank() and idx.has_rank() and idx[-1].is_static:
        k = idx[-1].get_length()
        require(k <= len(data), f"indices {idx} has a last dim of {k}; it must not exceed the data rank {len(data)}.")
        want = PartialShape([*idx.dims[:-1], *data.dims[k:]])
        require(not upd.has_rank() or upd.compatible(want),
                f"updates {upd} must have shape indices.shape[:-1] + data.shape[k:] = {want}.")
    return [(et, data)]


define_op("ScatterNDUpdate", 4, inputs=3)(_infer_scatter_nd)
define_op("ScatterNDUpdate", 15, inputs=3, attrs=[AttrSpec("reduction", "str", "none", ND_REDUCTIONS)])(
    _infer_scatter_nd)


def scatter_nd_update(data: NodeInput, indices: NodeInput, updates: NodeInput, reduction: str = "none",
                      version: int = 15, name: str | None = None) -> Node:
    """ScatterNDUpdate-15 (``version=4``: ScatterNDUpdate-4, the spec's ScatterNDUpdate-3, no ``reduction``)."""
    require(version in (4, 15), f"ScatterNDUpdate version {version} does not exist; versions: 4, 15.")
    inputs = [as_output(data), index_input(indices, "ScatterNDUpdate indices"), as_output(updates)]
    attrs = {"reduction": reduction.lower() if isinstance(reduction, str) else reduction} if version == 15 else {}
    return make_node("ScatterNDUpdate", version, inputs, attrs, name)


@define_op("Unique", 10, inputs=(1, 2), attrs=[AttrSpec("sorted", "bool", True),
                                                AttrSpec("index_element_type", "type", Type.i64, INDEX_TYPES),
                                                AttrSpec("count_element_type", "type", Type.i64, INDEX_TYPES)])
def _infer_unique(node: Node) -> Infer:
    """unique elements (or slices along ``axis``), first indices, reverse indices, counts."""
    et, data = node.get_input_element_type(0), node.get_input_partial_shape(0)
    it, ct = node.attrs["index_element_type"], node.attrs["count_element_type"]
    size = product(list(data.dims)) if data.has_rank() else Dimension()
    if node.get_input_size() == 1:
        n = Dimension(1 if size.min_length else 0, size.max_length) if size.is_bounded() else Dimension()
        return [(et, PartialShape([n])), (it, PartialShape([n])), (it, PartialShape([size])), (ct, PartialShape([n]))]
    axis_value = _scalar_input(node, 1, "axis")
    if not data.has_rank() or axis_value is None:
        return [(et, PartialShape.dynamic(_rank(data))), (it, PartialShape.dynamic(1)),
                (it, PartialShape.dynamic(1)), (ct, PartialShape.dynamic(1))]
    axis = normalize_axis(axis_value, len(data), "axis")
    dim = data[axis]
    n = Dimension(1 if dim.min_length else 0, dim.max_length) if dim.is_bounded() else Dimension()
    out = PartialShape([n if i == axis else d for i, d in enumerate(data.dims)])
    return [(et, out), (it, PartialShape([n])), (it, PartialShape([dim])), (ct, PartialShape([n]))]


def unique(data: NodeInput, axis: NodeInput | None = None, sorted: bool = True,  # noqa: A002 - OpenVINO's name
           index_element_type: Any = "i64", count_element_type: Any = "i64", name: str | None = None) -> Node:
    """Unique-10: four outputs (unique values, first indices, reverse indices, counts); with
    ``axis`` unique slices along it, without it unique elements of the flattened data."""
    inputs = [as_output(data)] + ([] if axis is None else [index_input(axis, "Unique axis")])
    attrs = {"sorted": sorted, "index_element_type": index_element_type, "count_element_type": count_element_type}
    return make_node("Unique", 10, inputs, attrs, name)


@define_op("GatherTree", 1, inputs=4)
def _infer_gather_tree(node: Node) -> Infer:
    et = node.get_input_element_type(0)
    require(et != Type.boolean, "step_ids (input 0) has element type boolean; GatherTree needs a numeric type.")
    for i, what in ((1, "parent_idx"), (2, "max_seq_len"), (3, "end_token")):
        other = node.get_input_element_type(i)
        require(other == et, f"{what} (input {i}) has element type {other}; it must match step_ids ({et}).")
    steps = require_rank(node, 0, 3, "step_ids")
    parents = require_rank(node, 1, 3, "parent_idx")
    lengths = require_rank(node, 2, 1, "max_seq_len")
    end = node.get_input_partial_shape(3)
    require(not end.has_rank() or len(end) == 0, f"end_token (input 3) has shape {end}; it must be a scalar.")
    merged = steps.merge(parents)
    require(merged is not None, f"step_ids {steps} and parent_idx {parents} must have the same shape.")
    assert merged is not None
    batch = merge_dim(merged[1], lengths[0], f"max_seq_len {lengths} must have BATCH_SIZE={merged[1]} elements.")
    return [(et, PartialShape([merged[0], batch, merged[2]]))]


def gather_tree(step_ids: NodeInput, parent_idx: NodeInput, max_seq_len: NodeInput, end_token: NodeInput,
                name: str | None = None) -> Node:
    """GatherTree-1: the full beams from per-step ids and parent beam indices ([MAX_TIME, BATCH, BEAM])."""
    return make_node("GatherTree", 1, as_outputs(step_ids, parent_idx, max_seq_len, end_token), {}, name)
