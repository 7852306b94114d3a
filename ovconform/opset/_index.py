"""Index ops: GatherElements-6, GatherND-5/8, ScatterUpdate-3, ScatterElementsUpdate-3/12,
ScatterNDUpdate-4/15, TopK-1/3/11, NonZero-3, Bucketize-3, SearchSorted-15, Unique-10, SegmentMax-16.

Attribute spellings are those OpenVINO writes to IR v11: GatherElements ``axis``; GatherND
``batch_dims``; ScatterElementsUpdate-12 ``reduction`` (none, sum, prod, min, max, mean) and
``use_init_val``; ScatterNDUpdate-15 ``reduction`` (none, sum, sub, prod, min, max); TopK ``axis``,
``mode`` (max, min), ``sort`` (value, index, none), ``index_element_type`` and, from TopK-11,
``stable``; NonZero ``output_type``; Bucketize ``output_type``, ``with_right_bound``; SearchSorted
``right_mode``, ``output_type``; Unique ``sorted``, ``index_element_type``, ``count_element_type``;
SegmentMax ``fill_mode`` (zero, lowest).

Outputs whose size depends on input values (NonZero, Unique, SegmentMax without a constant
``num_segments``/``segment_ids``, TopK with a ``k`` unknown at build time) get bounded
dimensions (``0..n``) when the data shape is static, ``?`` otherwise.

Versions are numbered by the first opset holding them, as the IR writes them and as
:data:`ovconform.ir.opset_table.OPSET_VERSIONS` lists them: ``ScatterNDUpdate-4`` is
``ov::op::v3::ScatterNDUpdate`` (the spec page "ScatterNDUpdate-3"), first in opset4.
"""

from __future__ import annotations

from typing import Any

from ovconform.ir import AttrSpec, Dimension, Node, PartialShape, Type, define_op, make_node
from ovconform.opset._helpers import NodeInput, as_output, normalize_axis, require
from ovconform.opset._shape_ops import const_ints, index_input, product, require_integer

__all__ = [
    "bucketize", "gather_elements", "gather_nd", "non_zero", "scatter_elements_update", "scatter_nd_update",
    "scatter_update", "search_sorted", "segment_max", "topk", "unique",
]

Infer = list[tuple[Type, PartialShape]]
INDEX_TYPES = (Type.i32, Type.i64)


def _rank(shape: PartialShape) -> int | None:
    return len(shape) if shape.has_rank() else None


def _merge(a: Dimension, b: Dimension, message: str) -> Dimension:
    merged = a.merge(b)
    require(merged is not None, message)
    assert merged is not None
    return merged


def _numeric(node: Node, index: int, what: str) -> Type:
    et = node.get_input_element_type(index)
    require(et != Type.boolean and et.name not in ("string", "dynamic"),
            f"{what} (input {index}) has element type {et}; it must be a numeric type.")
    return et


def _scalar_input(node: Node, index: int, what: str) -> int | None:
    """The build-time value of a scalar (or one-element) integer input, else None."""
    require_integer(node, index, what)
    shape = node.get_input_partial_shape(index)
    require(not shape.has_rank() or len(shape) == 0 or (len(shape) == 1 and shape[0].compatible(1)),
            f"{what} (input {index}) has shape {shape}; it must be a scalar.")
    values = const_ints(node, index)
    return None if values is None else values[0]


def _upto(n: Dimension) -> Dimension:
    """0..n (n's upper bound), or ? when unbounded."""
    return Dimension(0, n.max_length) if n.is_bounded() else Dimension()


# -- GatherElements-6 -------------------------------------------------------------------------------

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


def _infer_gather_nd(version: int):  # noqa: ANN202 - inference factory
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


def _same(node: Node, a: int, b: int, what_a: str, what_b: str) -> Type:
    ta, tb = node.get_input_element_type(a), node.get_input_element_type(b)
    require(ta == tb, f"{what_a} ({ta}) and {what_b} ({tb}) must have the same element type.")
    return ta


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


# -- TopK-1/3/11 --------------------------------------------------------------------------------------

def _topk_attrs(stable: bool = False) -> list[AttrSpec]:
    attrs = [AttrSpec("axis", "int"), AttrSpec("mode", "str", choices=("max", "min")),
             AttrSpec("sort", "str", choices=("value", "index", "none")),
             AttrSpec("index_element_type", "type", Type.i32, INDEX_TYPES)]
    return [*attrs, AttrSpec("stable", "bool", False)] if stable else attrs


def _infer_topk(node: Node) -> Infer:
    """values and indices: data's shape with dim ``axis`` = min(k, dim) (0..dim when k is unknown)."""
    et = _numeric(node, 0, "data")
    k = _scalar_input(node, 1, "k")
    if k is not None:
        require(k >= 0, f"k={k} must be non-negative.")
    data = node.get_input_partial_shape(0)
    out = PartialShape.dynamic()
    if data.has_rank():
        require(len(data) >= 1, "data is a scalar; TopK needs rank >= 1.")
        axis = normalize_axis(node.attrs["axis"], len(data), "attribute 'axis'")
        dim = data[axis]
        if k is None:
            new = _upto(dim)
        elif dim.is_bounded():
            new = Dimension(min(k, dim.min_length), min(k, dim.max_length))
        else:
            new = Dimension(min(k, dim.min_length), k)
        out = PartialShape([new if i == axis else d for i, d in enumerate(data.dims)])
    return [(et, out), (node.attrs["index_element_type"], out)]


define_op("TopK", 1, inputs=2, attrs=_topk_attrs())(_infer_topk)
define_op("TopK", 3, inputs=2, attrs=_topk_attrs())(_infer_topk)
define_op("TopK", 11, inputs=2, attrs=_topk_attrs(stable=True))(_infer_topk)


def topk(data: NodeInput, k: NodeInput, axis: int, mode: str, sort: str, index_element_type: Any = "i32",
         stable: bool = False, version: int = 11, name: str | None = None) -> Node:
    """TopK-11 (``version=1``/``3``: without ``stable``): the k largest/smallest values along
    ``axis`` and their indices; take them with ``node.output(0)``/``node.output(1)``."""
    require(version in (1, 3, 11), f"TopK version {version} does not exist; versions: 1, 3, 11.")
    attrs: dict[str, Any] = {"axis": axis, "mode": mode.lower(), "sort": sort.lower(),
                             "index_element_type": index_element_type}
    if version == 11:
        attrs["stable"] = stable
    return make_node("TopK", version, [as_output(data), index_input(k, "TopK k")], attrs, name)


# -- NonZero-3 ----------------------------------------------------------------------------------------

@define_op("NonZero", 3, inputs=1, attrs=[AttrSpec("output_type", "type", Type.i64, INDEX_TYPES)])
def _infer_non_zero(node: Node) -> Infer:
    """[rank, count of non-zero elements] (count 0..size when the shape is static)."""
    data = node.get_input_partial_shape(0)
    et = node.attrs["output_type"]
    if not data.has_rank() or len(data) == 0:
        return [(et, PartialShape.dynamic(2))]
    return [(et, PartialShape([Dimension(len(data)), _upto(product(list(data.dims)))]))]


def non_zero(data: NodeInput, output_type: Any = "i64", name: str | None = None) -> Node:
    """NonZero-3: the indices of the non-zero elements, one row per dim (row-major order)."""
    return make_node("NonZero", 3, [as_output(data)], {"output_type": output_type}, name)


# -- Bucketize-3 --------------------------------------------------------------------------------------

@define_op("Bucketize", 3, inputs=2, attrs=[AttrSpec("output_type", "type", Type.i64, INDEX_TYPES),
                                             AttrSpec("with_right_bound", "bool", True)])
def _infer_bucketize(node: Node) -> Infer:
    """The bucket index of each element (data's shape) over the sorted 1D ``buckets``."""
    _numeric(node, 0, "data")
    _numeric(node, 1, "buckets")
    buckets = node.get_input_partial_shape(1)
    require(not buckets.has_rank() or len(buckets) == 1, f"buckets has shape {buckets}; it must be 1D.")
    return [(node.attrs["output_type"], node.get_input_partial_shape(0))]


def bucketize(data: NodeInput, buckets: NodeInput, output_type: Any = "i64", with_right_bound: bool = True,
              name: str | None = None) -> Node:
    """Bucketize-3 (``with_right_bound``: bucket i holds buckets[i-1] < x <= buckets[i])."""
    return make_node("Bucketize", 3, [as_output(data), as_output(buckets)],
                     {"output_type": output_type, "with_right_bound": with_right_bound}, name)


# -- SearchSorted-15 ----------------------------------------------------------------------------------

@define_op("SearchSorted", 15, inputs=2, attrs=[AttrSpec("right_mode", "bool", False),
                                                 AttrSpec("output_type", "type", Type.i64, INDEX_TYPES)])
def _infer_search_sorted(node: Node) -> Infer:
    """Insertion indices (values' shape); a 1D sequence serves every value, an ND one is per row."""
    _numeric(node, 0, "sorted_sequence")
    _same(node, 0, 1, "sorted_sequence", "values")
    seq, values = node.get_input_partial_shape(0), node.get_input_partial_shape(1)
    out = values
    if seq.has_rank():
        require(len(seq) >= 1, "sorted_sequence is a scalar; it must have rank >= 1.")
        if len(seq) > 1 and values.has_rank():
            require(len(values) == len(seq), f"values {values} must have the rank of sorted_sequence {seq} "
                                             "(or sorted_sequence must be 1D).")
            lead = [_merge(a, b, f"sorted_sequence {seq} and values {values} differ in dim {i}.")
                    for i, (a, b) in enumerate(zip(seq.dims[:-1], values.dims[:-1], strict=True))]
            out = PartialShape([*lead, values[-1]])
    return [(node.attrs["output_type"], out)]


def search_sorted(sorted_sequence: NodeInput, values: NodeInput, right_mode: bool = False, output_type: Any = "i64",
                  name: str | None = None) -> Node:
    """SearchSorted-15: where ``values`` would be inserted into ``sorted_sequence`` (its last axis)."""
    return make_node("SearchSorted", 15, [as_output(sorted_sequence), as_output(values)],
                     {"right_mode": right_mode, "output_type": output_type}, name)


# -- Unique-10 ----------------------------------------------------------------------------------------

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


# -- SegmentMax-16 ------------------------------------------------------------------------------------

@define_op("SegmentMax", 16, inputs=(2, 3), attrs=[AttrSpec("fill_mode", "str", choices=("zero", "lowest"))])
def _infer_segment_max(node: Node) -> Infer:
    """[num_segments] + data[1:]: the max of each segment of rows (sorted ``segment_ids``)."""
    et = _numeric(node, 0, "data")
    require_integer(node, 1, "segment_ids")
    data, ids = node.get_input_partial_shape(0), node.get_input_partial_shape(1)
    require(not ids.has_rank() or len(ids) == 1, f"segment_ids has shape {ids}; it must be 1D.")
    if data.has_rank():
        require(len(data) >= 1, "data is a scalar; SegmentMax needs rank >= 1.")
        if ids.has_rank():
            _merge(data[0], ids[0], f"segment_ids {ids} must have one value per row of data {data}.")
    values = const_ints(node, 1)
    if values is not None:
        require(all(v >= 0 for v in values) and values == sorted(values),
                f"segment_ids {values} must be non-negative and sorted in non-decreasing order.")
    count: Dimension = Dimension() if values is None else Dimension(values[-1] + 1 if values else 0)
    if node.get_input_size() == 3:
        n = _scalar_input(node, 2, "num_segments")
        if n is not None:
            require(n >= 0, f"num_segments={n} must be non-negative.")
            count = Dimension(n)
    tail = list(data.dims[1:]) if data.has_rank() else None
    return [(et, PartialShape([count, *tail]) if tail is not None else PartialShape.dynamic())]


def segment_max(data: NodeInput, segment_ids: NodeInput, num_segments: NodeInput | None = None,
                fill_mode: str = "zero", name: str | None = None) -> Node:
    """SegmentMax-16: row maxima per segment; empty segments hold 0 (``zero``) or the type's lowest value."""
    inputs = [as_output(data), index_input(segment_ids, "SegmentMax segment_ids")]
    if num_segments is not None:
        inputs.append(index_input(num_segments, "SegmentMax num_segments"))
    return make_node("SegmentMax", 16, inputs, {"fill_mode": fill_mode.lower()}, name)
