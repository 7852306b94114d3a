"""Embedding-bag builders: EmbeddingSegmentsSum-3, EmbeddingBagOffsetsSum-3, EmbeddingBagPackedSum-3,
EmbeddingBagOffsets-15 and EmbeddingBagPacked-15 (``reduction``: sum, mean).

``emb_table`` is ``[num_emb, emb_dim1, ...]`` of any numeric type T; indices, offsets, segment ids,
``num_segments`` and ``default_index`` share one index type (i32 or i64); ``per_sample_weights``
has type T and the shape of ``indices`` (opset15: only with ``reduction="sum"``). An optional input
can only be given when the ones before it are (they are positional), so ``per_sample_weights`` of
the offsets/segments forms needs a ``default_index`` (``-1`` means "fill empty bags with zeros").
"""

from __future__ import annotations

import numpy as np

from ovconform.ir import AttrSpec, Dimension, Node, Output, PartialShape, Type, define_op, make_node
from ovconform.opset._helpers import NodeInput, as_output, make_constant, require
from ovconform.opset._shape_ops import const_ints, index_input

__all__ = ["embedding_bag_offsets", "embedding_bag_offsets_sum", "embedding_bag_packed", "embedding_bag_packed_sum",
           "embedding_segments_sum"]

Infer = list[tuple[Type, PartialShape]]
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
