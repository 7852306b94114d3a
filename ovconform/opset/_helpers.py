"""Shared pieces of the opset builders: input coercion, shape-inference rules used by several
families (broadcasting, axes, element-type checks) and the factories of the elementwise builders.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

from ovconform.errors import ValidationError
from ovconform.ir import (
    AttrSpec,
    Dimension,
    Node,
    Output,
    PartialShape,
    Type,
    as_type,
    check_values,
    holding_array,
    make_node,
)

#: What a builder takes as an input: a one-output Node, an Output, or a literal (an array, a numpy or
#: Python scalar, a nested sequence) that becomes a Constant.
NodeInput = Node | Output | np.ndarray | np.generic | int | float | bool | Sequence[Any]


class UnaryBuilder(Protocol):
    """A builder made by a factory for a unary op without attributes: ``build(data, name=None)``."""

    __name__: str

    def __call__(self, data: NodeInput, name: str | None = None) -> Node: ...


class BinaryBuilder(Protocol):
    """A builder made by a factory for a binary op with ``auto_broadcast`` (numpy, none or pdpd)."""

    __name__: str

    def __call__(self, left: NodeInput, right: NodeInput, auto_broadcast: str = "numpy",
                 name: str | None = None) -> Node: ...


def as_output(value: NodeInput, like: Type | None = None) -> Output:
    """A Node with one output, an Output, or a literal (made a Constant of type ``like``)."""
    if isinstance(value, Output):
        return value
    if isinstance(value, Node):
        if value.get_output_size() != 1:
            raise ValidationError(
                f"{value.type_name} node {value.friendly_name!r} has {value.get_output_size()} outputs; "
                "pass one of them (node.output(i)).")
        return value.output(0)
    return make_constant(value, like).output(0)


def as_outputs(*values: NodeInput) -> list[Output]:
    """Coerce inputs; literals take the element type of the first non-literal input."""
    like = next((as_output(v).get_element_type() for v in values if isinstance(v, (Node, Output))), None)
    return [as_output(v, like) for v in values]


def make_constant(value: Any, element_type: Type | str | None = None, name: str | None = None, *,
                  shared_memory: bool = False) -> Node:
    """A Constant holding ``value`` as ``element_type``. The Constant owns its data: ``value`` is copied
    once (by the conversion to the holding dtype, or here when that conversion returned a view of it),
    never more — a model's weights are the bulk of its build time and memory. With ``shared_memory``
    (OpenVINO's ``Constant(..., shared_memory=True)``) an array already in the holding dtype and
    C-contiguous is not copied at all: the Constant holds a read-only view of it."""
    try:
        arr = np.asarray(value)
    except (ValueError, TypeError) as e:
        raise ValidationError(f"Constant value {value!r} is not array-like: {e}") from None
    if element_type is None and arr.dtype.kind in "US":
        element_type = Type.string
    if element_type is None and (arr.dtype == object or arr.dtype.kind == "V"):
        raise ValidationError(f"Constant value of numpy dtype {arr.dtype} is not supported.")
    if element_type is None:
        if arr.dtype == np.float64 and not isinstance(value, np.ndarray):
            element_type = Type.f32  # Python floats become f32, as OpenVINO's builders do for literals
        else:
            element_type = as_type(arr.dtype)
    et = as_type(element_type)
    what = f"Constant {name!r} value" if name else "Constant value"
    if (shared_memory and isinstance(value, np.ndarray) and arr.dtype == et.to_dtype() and arr.flags.c_contiguous
            and et.name not in ("bf16", "string")):
        check_values(arr, et, what)  # the range check holding_array would make (u4 codes below 16, ...)
        held = arr.view()
        held.setflags(write=False)
        return make_node("Constant", 1, [], {"element_type": et, "shape": list(held.shape)}, name, data=held)
    held = holding_array(arr, et, what)
    if np.may_share_memory(held, arr) or not held.flags.c_contiguous:
        held = np.array(held, order="C")  # one copy; keeps 0-d arrays 0-d (ascontiguousarray does not)
    held.setflags(write=False)
    return make_node("Constant", 1, [], {"element_type": et, "shape": list(held.shape)}, name, data=held)


# -- inference rules ----------------------------------------------------------------------------

def require(cond: bool, message: str) -> None:
    if not cond:
        raise ValidationError(message)


def same_type(node: Node, *indices: int) -> Type:
    """All named inputs share one element type; return it."""
    types = [node.get_input_element_type(i) for i in indices]
    require(all(t == types[0] for t in types),
            f"inputs {list(indices)} must have the same element type; got {[str(t) for t in types]}.")
    return types[0]


def broadcast_shapes(a: PartialShape, b: PartialShape, mode: str = "numpy") -> PartialShape:
    """Output shape of an autobroadcast elementwise op (``numpy``, ``none`` or ``pdpd``)."""
    if mode == "none":
        merged = a.merge(b)
        require(merged is not None, f"shapes {a} and {b} must be equal when auto_broadcast='none'.")
        assert merged is not None
        return merged
    if not a.has_rank() or not b.has_rank():
        return PartialShape.dynamic()
    if mode == "pdpd":
        require(len(b) <= len(a), f"pdpd broadcast needs rank of {b} <= rank of {a}.")
        dims = list(a.dims)
        off = len(a) - len(b)
        for i, db in enumerate(b.dims):
            da = dims[off + i]
            require(db == 1 or da.compatible(db), f"shape {b} cannot pdpd-broadcast to {a}.")
            dims[off + i] = da if db == 1 else (da.merge(db) or da)
        return PartialShape(dims)
    ra, rb = len(a), len(b)
    n = max(ra, rb)
    dims_a = [Dimension(1)] * (n - ra) + list(a.dims)
    dims_b = [Dimension(1)] * (n - rb) + list(b.dims)
    out: list[Dimension] = []
    for x, y in zip(dims_a, dims_b, strict=True):
        m = x.broadcast_merge(y)
        if m is None:
            raise ValidationError(f"shapes {a} and {b} cannot be broadcast (numpy rules).")
        out.append(m)
    return PartialShape(out)


def normalize_axis(axis: int, rank: int, what: str = "axis") -> int:
    require(rank > 0, f"{what} {axis} is given for a rank-0 input, which has no axes.")
    require(-rank <= axis < rank, f"{what} {axis} is out of range for rank {rank}; allowed [{-rank}, {rank - 1}].")
    return axis + rank if axis < 0 else axis


def normalize_axes(axes: Sequence[int], rank: int, what: str = "axes") -> list[int]:
    out = [normalize_axis(int(a), rank, what) for a in axes]
    require(len(set(out)) == len(out), f"{what} {list(axes)} repeat an axis.")
    return out


AUTO_BROADCAST = ("numpy", "none", "pdpd")


def normalize_scalar_axis(axis: int, rank: int, what: str) -> int:
    """``normalize_axis``, except that a rank-0 input takes axis 0 or -1, as in OpenVINO."""
    if rank == 0:
        require(axis in (0, -1), f"{what} {axis} is out of range for a rank-0 input; allowed: 0 or -1.")
        return 0
    return normalize_axis(axis, rank, what)


_BROADCAST = AttrSpec("auto_broadcast", "str", "numpy", AUTO_BROADCAST)


def _compare(node: Node) -> list[tuple[Type, PartialShape]]:
    same_type(node, 0, 1)
    return [(Type.boolean, broadcast_shapes(node.get_input_partial_shape(0), node.get_input_partial_shape(1),
                                            node.attrs["auto_broadcast"]))]


def _unary_float(node: Node) -> list[tuple[Type, PartialShape]]:
    et = node.get_input_element_type(0)
    require(et != Type.boolean, f"element type {et} is not allowed; this op needs a numeric type.")
    return [(et, node.get_input_partial_shape(0))]


def _real_data(node: Node) -> Type:
    et = node.get_input_element_type(0)
    require(et.is_real(),
            f"data has element type {et}; {node.type_name} needs a floating-point type.")
    return et


def elementwise_binary(type_name: str, version: int = 1) -> BinaryBuilder:
    """The builder of an elementwise binary op with ``auto_broadcast`` (numpy, none or pdpd)."""
    def build(left: NodeInput, right: NodeInput, auto_broadcast: str = "numpy", name: str | None = None) -> Node:
        return make_node(type_name, version, as_outputs(left, right), {"auto_broadcast": auto_broadcast}, name)

    build.__name__ = build.__qualname__ = snake_case(type_name)
    build.__doc__ = f"Elementwise {type_name} with autobroadcast (numpy, none or pdpd)."
    return build


def elementwise_unary(type_name: str, version: int = 1) -> UnaryBuilder:
    """The builder of an elementwise unary op without attributes."""
    def build(data: NodeInput, name: str | None = None) -> Node:
        return make_node(type_name, version, [as_output(data)], {}, name)

    build.__name__ = build.__qualname__ = snake_case(type_name)
    build.__doc__ = f"Elementwise {type_name}."
    return build


def snake_case(name: str) -> str:
    """``SquaredDifference`` -> ``squared_difference``."""
    out = "".join("_" + c.lower() if c.isupper() else c for c in name).lstrip("_")
    return out
