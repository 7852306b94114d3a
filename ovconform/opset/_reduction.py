"""Reduction ops (OpenVINO's op-spec folder "reduction"): ReduceSum-1, ReduceMean-1, ReduceMax-1,
ReduceMin-1, ReduceProd-1, ReduceL1-4, ReduceL2-4 (numeric data) and ReduceLogicalAnd-1,
ReduceLogicalOr-1 (boolean data): reduce ``data`` over the axes given as input 2.

Axes are a scalar or 1-D tensor of an integer type; negative axes count from the end and a
repeated axis counts once. With ``keep_dims`` the reduced axes stay as 1. When the axes are not
known at build time the output rank (without ``keep_dims``) and the dims are dynamic as far as
the axes' shape allows.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from ovconform.ir import AttrSpec, Dimension, Node, Output, PartialShape, Type, constant_value, define_op, make_node
from ovconform.opset._helpers import NodeInput, as_output, make_constant, normalize_scalar_axis, require

__all__ = [
    "reduce_l1", "reduce_l2", "reduce_logical_and", "reduce_logical_or", "reduce_max", "reduce_mean", "reduce_min",
    "reduce_prod", "reduce_sum",
]

REDUCTIONS = ("ReduceSum", "ReduceMean", "ReduceMax")


def _axes_count(axes: PartialShape) -> int | None:
    """How many axes a non-constant axes input holds, when its shape tells."""
    if not axes.has_rank():
        return None
    if len(axes) == 0:
        return 1
    return axes[0].get_length() if axes[0].is_static else None


def _unknown_axes(data: PartialShape, axes: PartialShape, keep_dims: bool) -> PartialShape:
    count = _axes_count(axes)
    if count == 0:
        return data
    if keep_dims:  # every dim is either kept or becomes 1
        return PartialShape([d if d == 1 else _hull_with_one(d) for d in data.dims])
    if count == 1:
        return PartialShape.dynamic(len(data) - 1)
    return PartialShape.dynamic()


def _hull_with_one(d: Dimension) -> Dimension:
    hi = -1 if not d.is_bounded() else max(1, d.max_length)
    return Dimension(min(1, d.min_length), hi)


def _infer_reduce(node: Node) -> list[tuple[Type, PartialShape]]:
    et = node.get_input_element_type(0)
    require(et != Type.boolean, f"data element type {et} is not allowed; reductions need a numeric type.")
    return reduced_output(node, et)


def reduced_output(node: Node, et: Type) -> list[tuple[Type, PartialShape]]:
    """The output of a Reduce* node whose data type ``et`` its caller has checked: axes input
    checks, then the reduced shape (exact for constant axes, bounded otherwise)."""
    axes_et = node.get_input_element_type(1)
    require(axes_et.is_integral_number(), f"axes element type {axes_et} is not allowed; axes need an integer type.")
    axes_shape = node.get_input_partial_shape(1)
    require(not axes_shape.has_rank() or len(axes_shape) <= 1,
            f"axes shape {axes_shape} is not allowed; axes must be a scalar or a 1-D tensor.")
    data = node.get_input_partial_shape(0)
    keep = node.attrs["keep_dims"]
    if not data.has_rank():
        return [(et, PartialShape.dynamic())]
    value = constant_value(node.input_value(1))
    if value is None:
        return [(et, _unknown_axes(data, axes_shape, keep))]
    axes = {normalize_scalar_axis(int(a), len(data), "reduction axis") for a in value.reshape(-1).tolist()}
    if keep:
        return [(et, PartialShape([Dimension(1) if i in axes else d for i, d in enumerate(data.dims)]))]
    return [(et, PartialShape([d for i, d in enumerate(data.dims) if i not in axes]))]


for _t in REDUCTIONS:
    define_op(_t, 1, inputs=2, attrs=[AttrSpec("keep_dims", "bool", False)])(_infer_reduce)


def _axes_constant(value: object, type_name: str) -> Output:
    """Literal axes as a Constant: i64, or the integer dtype of a given numpy array."""
    arr = np.asarray(value)
    require(arr.size == 0 or arr.dtype.kind in "iu",
            f"{type_name}: reduction axes {value!r} must be integers; got numpy dtype {arr.dtype}.")
    keep_dtype = isinstance(value, (np.ndarray, np.integer)) and arr.dtype.kind in "iu"
    return make_constant(arr, None if keep_dtype else Type.i64).output(0)


_KEEP = AttrSpec("keep_dims", "bool", False)


ARITHMETIC_REDUCTIONS = {"ReduceMin": 1, "ReduceProd": 1, "ReduceL1": 4, "ReduceL2": 4}
LOGICAL_REDUCTIONS = {"ReduceLogicalAnd": 1, "ReduceLogicalOr": 1}

for _t, _v in ARITHMETIC_REDUCTIONS.items():
    define_op(_t, _v, inputs=2, attrs=[_KEEP])(_infer_reduce)


def _infer_logical_reduce(node: Node) -> list[tuple[Type, PartialShape]]:
    et = node.get_input_element_type(0)
    require(et == Type.boolean, f"data element type {et} is not allowed; logical reductions need boolean.")
    return reduced_output(node, et)


for _t, _v in LOGICAL_REDUCTIONS.items():
    define_op(_t, _v, inputs=2, attrs=[_KEEP])(_infer_logical_reduce)


class ReduceBuilder(Protocol):
    """A reduction builder: ``build(node, reduction_axes, keep_dims=False, name=None)``."""

    __name__: str

    def __call__(self, node: NodeInput, reduction_axes: NodeInput, keep_dims: bool = False,
                 name: str | None = None) -> Node: ...


def _reducer(type_name: str, version: int, snake: str) -> ReduceBuilder:
    def build(node: NodeInput, reduction_axes: NodeInput, keep_dims: bool = False, name: str | None = None) -> Node:
        if isinstance(reduction_axes, (Node, Output)):
            axes = as_output(reduction_axes)
        else:
            axes = _axes_constant(reduction_axes, type_name)
        return make_node(type_name, version, [as_output(node), axes], {"keep_dims": keep_dims}, name)

    build.__name__ = build.__qualname__ = snake
    build.__doc__ = (f"{type_name}-{version} of ``node`` over ``reduction_axes`` (a list, array or node of an "
                     "integer type; literals become an i64 Constant); reduced axes stay as 1 when ``keep_dims``.")
    return build


reduce_min = _reducer("ReduceMin", 1, "reduce_min")
reduce_prod = _reducer("ReduceProd", 1, "reduce_prod")
reduce_l1 = _reducer("ReduceL1", 4, "reduce_l1")
reduce_l2 = _reducer("ReduceL2", 4, "reduce_l2")
reduce_logical_and = _reducer("ReduceLogicalAnd", 1, "reduce_logical_and")
reduce_logical_or = _reducer("ReduceLogicalOr", 1, "reduce_logical_or")


reduce_sum = _reducer("ReduceSum", 1, "reduce_sum")
reduce_mean = _reducer("ReduceMean", 1, "reduce_mean")
reduce_max = _reducer("ReduceMax", 1, "reduce_max")
