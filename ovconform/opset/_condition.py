"""Condition ops (OpenVINO's op-spec folder "condition"): Select-1, NonZero-3 and Bucketize-3.

Select takes a boolean condition and two inputs of one type, broadcast together (numpy, none or
pdpd). NonZero has ``output_type`` and an output whose size depends on the data's values
(bounded ``0..n`` when the data shape is static, ``?`` otherwise); Bucketize has ``output_type``
and ``with_right_bound``. If-8 (sub-graph bodies) is not defined yet.
"""

from __future__ import annotations

from typing import Any

from ovconform.ir import AttrSpec, Dimension, Node, PartialShape, Type, define_op, make_node
from ovconform.opset._helpers import _BROADCAST, NodeInput, as_output, as_outputs, broadcast_shapes, require, same_type
from ovconform.opset._inputs import INDEX_TYPES, Infer, _numeric, _upto, product

__all__ = ["bucketize", "non_zero", "select"]

@define_op("Select", 1, inputs=3, attrs=[_BROADCAST])
def _infer_select(node: Node) -> list[tuple[Type, PartialShape]]:
    require(node.get_input_element_type(0) == Type.boolean,
            f"condition has element type {node.get_input_element_type(0)}; Select needs boolean.")
    et = same_type(node, 1, 2)
    mode = node.attrs["auto_broadcast"]
    s = [node.get_input_partial_shape(i) for i in range(3)]
    if mode == "pdpd":
        out = broadcast_shapes(s[1], s[2], "pdpd")
        broadcast_shapes(out, s[0], "pdpd")
    else:
        out = broadcast_shapes(broadcast_shapes(s[0], s[1], mode), s[2], mode)
    return [(et, out)]


@define_op("NonZero", 3, inputs=1, attrs=[AttrSpec("output_type", "type", Type.i64, INDEX_TYPES)])
def _infer_non_zero(node: Node) -> Infer:
    """[rank, count of non-zero elements] (count 0..size when the shape is static)."""
    data = node.get_input_partial_shape(0)
    et = node.attrs["output_type"]
    if not data.has_rank() or len(data) == 0:
        return [(et, PartialShape.dynamic(2))]
    return [(et, PartialShape([Dimension(len(data)), _upto(product(list(data.dims)))]))]


@define_op("Bucketize", 3, inputs=2, attrs=[AttrSpec("output_type", "type", Type.i64, INDEX_TYPES),
                                             AttrSpec("with_right_bound", "bool", True)])
def _infer_bucketize(node: Node) -> Infer:
    """The bucket index of each element (data's shape) over the sorted 1D ``buckets``."""
    _numeric(node, 0, "data")
    _numeric(node, 1, "buckets")
    buckets = node.get_input_partial_shape(1)
    require(not buckets.has_rank() or len(buckets) == 1, f"buckets has shape {buckets}; it must be 1D.")
    return [(node.attrs["output_type"], node.get_input_partial_shape(0))]


def select(cond: NodeInput, then_node: NodeInput, else_node: NodeInput, auto_broadcast: str = "numpy",
           name: str | None = None) -> Node:
    then_out, else_out = as_outputs(then_node, else_node)
    return make_node("Select", 1, [as_output(cond), then_out, else_out], {"auto_broadcast": auto_broadcast}, name)


def non_zero(data: NodeInput, output_type: Any = "i64", name: str | None = None) -> Node:
    """NonZero-3: the indices of the non-zero elements, one row per dim (row-major order)."""
    return make_node("NonZero", 3, [as_output(data)], {"output_type": output_type}, name)


def bucketize(data: NodeInput, buckets: NodeInput, output_type: Any = "i64", with_right_bound: bool = True,
              name: str | None = None) -> Node:
    """Bucketize-3 (``with_right_bound``: bucket i holds buckets[i-1] < x <= buckets[i])."""
    return make_node("Bucketize", 3, [as_output(data), as_output(buckets)],
                     {"output_type": output_type, "with_right_bound": with_right_bound}, name)
