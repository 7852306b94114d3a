"""Checks on a node's inputs and their build-time values, shared by several op families.

Index inputs (target shapes, axes, sizes) are integer tensors; when one is known at build time (a
Constant, or ShapeOf of a static shape) :func:`const_ints` gives its value and shape inference is
exact, otherwise the dims it decides are dynamic, as OpenVINO does.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ovconform.errors import ValidationError
from ovconform.ir import Dimension, Node, Output, PartialShape, Type, constant_value
from ovconform.opset._helpers import NodeInput, as_output, make_constant, require

Infer = list[tuple[Type, PartialShape]]
#: A shape-inference function (what ``define_op`` registers), as made by the inference factories.
InferFn = Callable[[Node], Infer]


INDEX_TYPES = (Type.i32, Type.i64)


def index_input(value: NodeInput, what: str) -> Output:
    """A node/output as is; a literal becomes an integer Constant (i64 unless an int ndarray)."""
    if isinstance(value, (Node, Output)):
        return as_output(value)
    arr = np.asarray(value)
    if arr.size == 0 and arr.dtype.kind == "f":  # [] parses as float64
        arr = arr.astype(np.int64)
    if arr.dtype.kind not in "iu":
        raise ValidationError(f"{what} {value!r} must be integers; got numpy dtype {arr.dtype}.")
    return make_constant(arr).output(0)


def require_integer(node: Node, index: int, what: str) -> None:
    et = node.get_input_element_type(index)
    require(et.is_integral_number(), f"{what} (input {index}) has element type {et}; it must be an integer type.")


def require_rank_at_most(node: Node, index: int, rank: int, what: str) -> None:
    shape = node.get_input_partial_shape(index)
    require(not shape.has_rank() or len(shape) <= rank,
            f"{what} (input {index}) has shape {shape}; it must have rank {'0 or 1' if rank == 1 else rank}.")


def const_ints(node: Node, index: int) -> list[int] | None:
    """The build-time value of input ``index`` as a flat list of ints, or None."""
    value = constant_value(node.input_value(index))
    return None if value is None else [int(v) for v in np.asarray(value).reshape(-1)]


def static_length(node: Node, index: int) -> int | None:
    """The number of elements of a 0D/1D input when its shape is static, else None."""
    shape = node.get_input_partial_shape(index)
    return int(np.prod(shape.to_shape(), dtype=np.int64)) if shape.is_static else None


def product(dims: Sequence[Dimension]) -> Dimension:
    out = Dimension(1)
    for d in dims:
        out = out * d
    return out


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


def _same(node: Node, a: int, b: int, what_a: str, what_b: str) -> Type:
    ta, tb = node.get_input_element_type(a), node.get_input_element_type(b)
    require(ta == tb, f"{what_a} ({ta}) and {what_b} ({tb}) must have the same element type.")
    return ta


def _integer(node: Node, index: int, what: str) -> Type:
    et = node.get_input_element_type(index)
    require(et.is_integral_number(), f"{what} (input {index}) has element type {et}; it must be an integer type.")
    return et


def _rank_at_most(node: Node, index: int, rank: int, what: str) -> PartialShape:
    shape = node.get_input_partial_shape(index)
    require(not shape.has_rank() or len(shape) <= rank,
            f"{what} (input {index}) has shape {shape}; its rank must be at most {rank}.")
    return shape


def _scalar_like(node: Node, index: int, what: str) -> None:
    """A scalar or a 1-D tensor of one element."""
    shape = _rank_at_most(node, index, 1, what)
    if shape.has_rank() and len(shape) == 1:
        require(shape[0].contains(1), f"{what} (input {index}) has shape {shape}; it must hold one value.")


def _const_ints(node: Node, index: int) -> list[int] | None:
    value = constant_value(node.input_value(index))
    return None if value is None else [int(v) for v in np.asarray(value).reshape(-1).tolist()]


_INT_TYPES = (Type.i32, Type.i64)


def map_dim(dim: Dimension, f: Callable[[int], int]) -> Dimension:
    """``f`` (increasing) applied to a dimension interval."""
    if dim.is_static:
        return Dimension(f(dim.get_length()))
    hi = f(dim.max_length) if dim.is_bounded() else -1
    return Dimension(max(0, f(dim.min_length)), hi)


def int_vector(node: Node, port: int, what: str, length: int | None) -> np.ndarray | None:
    """Check input ``port`` is a 1D i32/i64 tensor (of ``length`` values when known); its value
    when known at build time, else None."""
    et = node.get_input_element_type(port)
    require(et in _INT_TYPES, f"{what} element type {et} is not allowed; allowed: i32, i64.")
    shape = node.get_input_partial_shape(port)
    if shape.has_rank():
        require(len(shape) == 1, f"{what} shape {shape} is not allowed; it must be 1D.")
        if length is not None:
            require(shape[0].compatible(length), f"{what} shape {shape} must hold {length} value(s).")
    value = constant_value(node.input_value(port))
    return None if value is None else np.asarray(value).reshape(-1).astype(np.int64)


def _ints(value: NodeInput) -> Output:
    """A node input as is; literal integers as an i64 Constant."""
    return as_output(value) if isinstance(value, (Node, Output)) else as_output(np.asarray(value, np.int64))


def require_rank(node: Node, index: int, rank: int, what: str) -> PartialShape:
    shape = node.get_input_partial_shape(index)
    require(not shape.has_rank() or len(shape) == rank,
            f"{what} (input {index}) has shape {shape}; it must have rank {rank}.")
    return shape if shape.has_rank() else PartialShape.dynamic(rank)


def merge_dim(a: Dimension, b: Dimension, message: str) -> Dimension:
    merged = a.merge(b)
    require(merged is not None, message)
    assert merged is not None
    return merged
