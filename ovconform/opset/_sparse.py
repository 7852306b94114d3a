"""Sparse ops (OpenVINO's op-spec folder "sparse"): EmbeddingSegmentsSum-3, EmbeddingBagOffsetsSum-3,
EmbeddingBagPackedSum-3, EmbeddingBagOffsets-15, EmbeddingBagPacked-15 (``reduction``: sum, mean)
and SparseFillEmptyRows-16.

``emb_table`` is ``[num_emb, emb_dim1, ...]`` of any numeric type T; indices, offsets, segment ids,
``num_segments`` and ``default_index`` share one index type (i32 or i64); ``per_sample_weights``
has type T and the shape of ``indices`` (opset15: only with ``reduction="sum"``). An optional input
can only be given when the ones before it are (they are positional), so ``per_sample_weights`` of
the offsets/segments forms needs a ``default_index`` (``-1`` means "fill empty bags with zeros").

SparseFillEmptyRows-16 gives every empty row of a 2-D sparse tensor one default entry. Inputs:
``values`` [M] (any numeric type), ``dense_shape`` [2] and ``indices`` [M, 2] of one integer type
(i32/i64), ``default_value`` (a scalar of the values' type). Outputs: ``output_indices`` [M', 2]
(the index type), ``output_values`` [M'] and ``empty_row_indicator`` [dense_shape[0]] (boolean).
M' is known only when both ``dense_shape`` and ``indices`` are known at build time (as OpenVINO
infers it); the indicator's length when ``dense_shape`` is.
"""

from __future__ import annotations

import numpy as np

from ovconform.ir import (
    AttrSpec,
    Dimension,
    Node,
    Output,
    PartialShape,
    Type,
    as_type,
    constant_value,
    define_op,
    make_node,
)
from ovconform.opset._helpers import NodeInput, as_output, make_constant, require
from ovconform.opset._inputs import Infer, const_ints, index_input

__all__ = [
    "embedding_bag_offsets", "embedding_bag_offsets_sum", "embedding_bag_packed", "embedding_bag_packed_sum",
    "embedding_segments_sum", "sparse_fill_empty_rows",
]

REDUCTIONS = ("sum", "mean")
_REDUCTION = AttrSpec("reduction", "str", "sum", REDUCTIONS)


def _table(node: Node) -> tuple[Type, PartialShape]:
    et = node.get_input_element_type(0)
    require(et != Type.boolean, "emb_table (input 0) has element type boolean; it must be a numeric type.")
    shape = node.get_input_partial_shape(0)
    require(not shape.has_rank() or len(shape) >= 1, f"emb_table (input 0) has shape {shape}; it must have rank >= 1.")
    return et, shape


def _index_types(node: Node, names: dict[int, str]) -> None:
    types = {i: node.get_input_element_type(i) for i in names if i < node.get_input_size()}
    for i, et in types.items():
        require(et in (Type.i32, Type.i64), f"{names[i]} (input {i}) has element type {et}; it must be i32 or i64.")
    got = ", ".join(f"{names[i]}: {t}" for i, t in types.items())
    require(len(set(types.values())) <= 1, f"the index inputs must share one element type; got {got}.")


def _rank(node: Node, index: int, rank: int, what: str) -> PartialShape:
    shape = node.get_input_partial_shape(index)
    require(not shape.has_rank() or len(shape) == rank,
            f"{what} (input {index}) has shape {shape}; it must have rank {rank}.")
    return shape if shape.has_rank() else PartialShape.dynamic(rank)


def _scalar(node: Node, index: int, what: str) -> None:
    if index < node.get_input_size():
        shape = node.get_input_partial_shape(index)
        require(not shape.has_rank() or len(shape) == 0, f"{what} (input {index}) has shape {shape}; it must be a "
                                                         "scalar.")


def _weights(node: Node, index: int, et: Type, like: PartialShape) -> None:
    if index >= node.get_input_size():
        return
    wt = node.get_input_element_type(index)
    require(wt == et, f"per_sample_weights (input {index}) has element type {wt}; it must match emb_table ({et}).")
    shape = node.get_input_partial_shape(index)
    require(shape.compatible(like), f"per_sample_weights (input {index}) has shape {shape}; it must have the shape "
                                    f"of indices {like}.")
    if "reduction" in node.attrs:
        require(node.attrs["reduction"] == "sum", f"per_sample_weights is given with reduction="
                                                  f"{node.attrs['reduction']!r}; it is supported only with 'sum'.")


def _output(et: Type, table: PartialShape, rows: Dimension) -> Infer:
    if not table.has_rank():
        return [(et, PartialShape.dynamic())]
    return [(et, PartialShape([rows, *table.dims[1:]]))]


def _infer_offsets(node: Node) -> Infer:
    et, table = _table(node)
    _index_types(node, {1: "indices", 2: "offsets", 3: "default_index"})
    indices = _rank(node, 1, 1, "indices")
    offsets = _rank(node, 2, 1, "offsets")
    _scalar(node, 3, "default_index")
    _weights(node, 4, et, indices)
    return _output(et, table, offsets[0])


def _infer_packed(node: Node) -> Infer:
    et, table = _table(node)
    _index_types(node, {1: "indices"})
    indices = _rank(node, 1, 2, "indices")
    _weights(node, 2, et, indices)
    return _output(et, table, indices[0])


define_op("EmbeddingBagOffsetsSum", 3, inputs=(3, 5))(_infer_offsets)
define_op("EmbeddingBagOffsets", 15, inputs=(3, 5), attrs=[_REDUCTION])(_infer_offsets)
define_op("EmbeddingBagPackedSum", 3, inputs=(2, 3))(_infer_packed)
define_op("EmbeddingBagPacked", 15, inputs=(2, 3), attrs=[_REDUCTION])(_infer_packed)


@define_op("EmbeddingSegmentsSum", 3, inputs=(4, 6))
def _infer_segments(node: Node) -> Infer:
    et, table = _table(node)
    _index_types(node, {1: "indices", 2: "segment_ids", 3: "num_segments", 4: "default_index"})
    indices = _rank(node, 1, 1, "indices")
    ids = _rank(node, 2, 1, "segment_ids")
    require(indices.compatible(ids), f"segment_ids {ids} must have the shape of indices {indices}.")
    _scalar(node, 3, "num_segments")
    _scalar(node, 4, "default_index")
    _weights(node, 5, et, indices)
    count = const_ints(node, 3)
    if count is not None:
        require(count[0] >= 0, f"num_segments is {count[0]}; it must not be negative.")
    return _output(et, table, Dimension(count[0]) if count is not None else Dimension())


# -- builders -----------------------------------------------------------------------------------------------------

def _inputs(emb_table: NodeInput, index_inputs: list[tuple[NodeInput | None, str]],
            per_sample_weights: NodeInput | None) -> list[Output]:
    """Outputs for the table, the given index inputs and the weights. Literal index inputs become
    Constants of the first index input that is a node (i64 when none is); a missing optional input
    ends the list."""
    like = next((as_output(v).get_element_type() for v, _ in index_inputs if isinstance(v, (Node, Output))), None)
    out = [as_output(emb_table)]
    for value, what in index_inputs:
        if value is None:
            require(per_sample_weights is None, f"per_sample_weights needs {what} to be given too (inputs are "
                                                "positional; -1 fills empty bags with zeros in opset15).")
            return out
        if like is None or isinstance(value, (Node, Output)):
            out.append(index_input(value, what))
        else:
            out.append(make_constant(np.asarray(value), like).output(0))
    if per_sample_weights is not None:
        out.append(as_output(per_sample_weights))
    return out


def embedding_segments_sum(emb_table: NodeInput, indices: NodeInput, segment_ids: NodeInput,
                           num_segments: NodeInput, default_index: NodeInput | None = None,
                           per_sample_weights: NodeInput | None = None, name: str | None = None) -> Node:
    """EmbeddingSegmentsSum-3: output [num_segments, emb_dims...], row s the (weighted) sum of the
    embeddings whose ``segment_ids`` is s; empty segments take ``emb_table[default_index]`` or zeros."""
    ins = _inputs(emb_table, [(indices, "indices"), (segment_ids, "segment_ids"), (num_segments, "num_segments"),
                              (default_index, "default_index")], per_sample_weights)
    return make_node("EmbeddingSegmentsSum", 3, ins, {}, name)


def embedding_bag_offsets_sum(emb_table: NodeInput, indices: NodeInput, offsets: NodeInput,
                              default_index: NodeInput | None = None, per_sample_weights: NodeInput | None = None,
                              name: str | None = None) -> Node:
    """EmbeddingBagOffsetsSum-3: bag b = ``indices[offsets[b]:offsets[b+1]]``, summed (weighted)."""
    ins = _inputs(emb_table, [(indices, "indices"), (offsets, "offsets"), (default_index, "default_index")],
                  per_sample_weights)
    return make_node("EmbeddingBagOffsetsSum", 3, ins, {}, name)


def embedding_bag_packed_sum(emb_table: NodeInput, indices: NodeInput, per_sample_weights: NodeInput | None = None,
                             name: str | None = None) -> Node:
    """EmbeddingBagPackedSum-3: ``indices`` [batch, bag_len]; each row's embeddings summed (weighted)."""
    return make_node("EmbeddingBagPackedSum", 3, _inputs(emb_table, [(indices, "indices")], per_sample_weights), {},
                     name)


def embedding_bag_offsets(emb_table: NodeInput, indices: NodeInput, offsets: NodeInput,
                          default_index: NodeInput | None = None, per_sample_weights: NodeInput | None = None,
                          reduction: str = "sum", name: str | None = None) -> Node:
    """EmbeddingBagOffsets-15: as EmbeddingBagOffsetsSum with ``reduction`` sum or mean."""
    ins = _inputs(emb_table, [(indices, "indices"), (offsets, "offsets"), (default_index, "default_index")],
                  per_sample_weights)
    return make_node("EmbeddingBagOffsets", 15, ins, {"reduction": reduction}, name)


def embedding_bag_packed(emb_table: NodeInput, indices: NodeInput, per_sample_weights: NodeInput | None = None,
                         reduction: str = "sum", name: str | None = None) -> Node:
    """EmbeddingBagPacked-15: as EmbeddingBagPackedSum with ``reduction`` sum or mean."""
    return make_node("EmbeddingBagPacked", 15, _inputs(emb_table, [(indices, "indices")], per_sample_weights),
                     {"reduction": reduction}, name)


_NAMES = ("values", "dense_shape", "indices", "default_value")
_RANKS = (1, 1, 2, 0)


def _check(node: Node) -> list[PartialShape]:
    et = node.get_input_element_type(0)
    require(et.is_real() or et.is_integral_number(), f"values (input 0) have element type {et}; they must be numeric.")
    it = node.get_input_element_type(1)
    require(it in (Type.i32, Type.i64), f"dense_shape (input 1) has element type {it}; it must be i32 or i64.")
    xt = node.get_input_element_type(2)
    require(xt == it, f"indices (input 2) have element type {xt}; they must match dense_shape ({it}).")
    require(node.get_input_element_type(3) == et,
            f"default_value (input 3) has element type {node.get_input_element_type(3)}; it must match the values "
            f"({et}).")
    shapes = []
    for i, rank in enumerate(_RANKS):
        shape = node.get_input_partial_shape(i)
        shape = shape if shape.has_rank() else PartialShape.dynamic(rank)
        require(len(shape) == rank, f"{_NAMES[i]} (input {i}) has shape {shape}; it must have rank {rank}.")
        shapes.append(shape)
    require(shapes[1][0].compatible(2), f"dense_shape (input 1) has shape {shapes[1]}; it must be [2].")
    require(shapes[2][1].compatible(2), f"indices (input 2) have shape {shapes[2]}; they must be [M, 2].")
    require(shapes[0][0].compatible(shapes[2][0]),
            f"values {shapes[0]} and indices {shapes[2]} must have the same number of entries.")
    return shapes


@define_op("SparseFillEmptyRows", 16, inputs=4)
def _infer_sparse_fill_empty_rows(node: Node) -> list[tuple[Type, PartialShape]]:
    _check(node)
    et, it = node.get_input_element_type(0), node.get_input_element_type(1)
    dense = constant_value(node.input_value(1))
    indices = constant_value(node.input_value(2))
    rows, total = Dimension.dynamic(), Dimension.dynamic()
    if dense is not None:
        shape = [int(v) for v in np.asarray(dense).reshape(-1)]
        require(min(shape) >= 0, f"dense_shape is {shape}; it must not be negative.")
        rows = Dimension(shape[0])
        if indices is not None:
            used = {int(r) for r in np.asarray(indices).reshape(-1, 2)[:, 0]}
            total = Dimension(len(np.asarray(indices).reshape(-1, 2)) + sum(r not in used for r in range(shape[0])))
    return [(it, PartialShape([total, 2])), (et, PartialShape([total])), (Type.boolean, PartialShape([rows]))]


def sparse_fill_empty_rows(values: NodeInput, dense_shape: NodeInput, indices: NodeInput,
                           default_value: NodeInput, name: str | None = None) -> Node:
    """SparseFillEmptyRows-16 (the arguments of ``openvino.opset16.sparse_fill_empty_rows``; a literal
    dense shape keeps its i32/i64 type, other literals become i64, and indices follow it)."""
    vals = as_output(values)
    if isinstance(dense_shape, np.ndarray) and dense_shape.dtype in (np.int32, np.int64):
        shape = as_output(dense_shape, as_type(dense_shape.dtype))
    else:
        shape = as_output(dense_shape, Type.i64)
    idx = as_output(indices, shape.get_element_type())
    default = as_output(default_value, vals.get_element_type())
    return make_node("SparseFillEmptyRows", 16, [vals, shape, idx, default], {}, name)
