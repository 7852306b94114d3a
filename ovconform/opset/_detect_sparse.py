"""SparseFillEmptyRows-16: give every empty row of a 2-D sparse tensor one default entry.

Inputs: ``values`` [M] (any numeric type), ``dense_shape`` [2] and ``indices`` [M, 2] of one
integer type (i32/i64), ``default_value`` (a scalar of the values' type). Outputs:
``output_indices`` [M', 2] (the index type), ``output_values`` [M'] and ``empty_row_indicator``
[dense_shape[0]] (boolean). M' is known only when both ``dense_shape`` and ``indices`` are known
at build time (as OpenVINO infers it); the indicator's length when ``dense_shape`` is.
"""

from __future__ import annotations

import numpy as np

from ovconform.ir import Dimension, Node, PartialShape, Type, as_type, constant_value, define_op, make_node
from ovconform.opset._helpers import NodeInput, as_output, require

__all__ = ["sparse_fill_empty_rows"]

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
    literal = isinstance(dense_shape, np.ndarray) and dense_shape.dtype in (np.int32, np.int64)
    shape = as_output(dense_shape, as_type(dense_shape.dtype) if literal else Type.i64)
    idx = as_output(indices, shape.get_element_type())
    default = as_output(default_value, vals.get_element_type())
    return make_node("SparseFillEmptyRows", 16, [vals, shape, idx, default], {}, name)
