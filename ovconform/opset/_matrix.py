"""Matrix ops (OpenVINO's op-spec folder "matrix"): MatMul-1, Einsum-7 and Inverse-14.

* MatMul-1: numpy ``matmul`` shape rules with optional transposes of the two innermost axes. A
  1-D operand is a vector: ``a`` becomes ``[1, K]`` and ``b`` becomes ``[K, 1]`` (the transpose
  flags do not apply to it) and the added axis is removed from the output. Batch axes (all but
  the last two) broadcast as in numpy. Scalars are not allowed.
* Einsum-7: an ``equation`` over 1 or more inputs of one numeric type (see
  :mod:`ovconform.opset._einsum_eq`).
* Inverse-14: batches of square matrices (``[..., M, M]``, floating point); ``adjoint`` inverts
  the transpose.
"""

from __future__ import annotations

from collections.abc import Sequence

from ovconform.errors import ValidationError
from ovconform.ir import AttrSpec, Dimension, Node, PartialShape, Type, define_op, make_node
from ovconform.opset._einsum_eq import einsum_output_shape, parse_equation
from ovconform.opset._helpers import NodeInput, as_output, as_outputs, broadcast_shapes, require, same_type

__all__ = ["einsum", "inverse", "matmul"]

def _as_matrix(shape: PartialShape, transpose: bool, is_a: bool) -> list[Dimension]:
    """Dims of an operand as ``[..., rows, cols]`` after vector promotion and transpose."""
    dims = list(shape.dims)
    if len(dims) == 1:
        return [Dimension(1), dims[0]] if is_a else [dims[0], Dimension(1)]
    if transpose:
        dims[-2], dims[-1] = dims[-1], dims[-2]
    return dims


@define_op("MatMul", 1, inputs=2,
           attrs=[AttrSpec("transpose_a", "bool", False), AttrSpec("transpose_b", "bool", False)])
def _infer_matmul(node: Node) -> list[tuple[Type, PartialShape]]:
    et = same_type(node, 0, 1)
    require(et != Type.boolean, f"element type {et} is not allowed; MatMul needs a numeric type.")
    a, b = node.get_input_partial_shape(0), node.get_input_partial_shape(1)
    for name, shape in (("A", a), ("B", b)):
        require(not shape.has_rank() or len(shape) > 0, f"input {name} is a scalar (shape {shape}); "
                                                        "MatMul needs rank 1 or more.")
    if not a.has_rank() or not b.has_rank():
        return [(et, PartialShape.dynamic())]
    ma = _as_matrix(a, node.attrs["transpose_a"], True)
    mb = _as_matrix(b, node.attrs["transpose_b"], False)
    require(ma[-1].compatible(mb[-2]),
            f"the inner dimensions differ: A {a} (transpose_a={node.attrs['transpose_a']}) has K={ma[-1]}, "
            f"B {b} (transpose_b={node.attrs['transpose_b']}) has K={mb[-2]}.")
    try:
        batch = broadcast_shapes(PartialShape(ma[:-2]), PartialShape(mb[:-2]))
    except ValidationError as e:
        raise ValidationError(f"batch dimensions of A {a} and B {b} do not broadcast: {e}") from e
    out = [*batch.dims]
    if len(a) > 1:
        out.append(ma[-2])
    if len(b) > 1:
        out.append(mb[-1])
    return [(et, PartialShape(out))]


def matmul(data_a: NodeInput, data_b: NodeInput, transpose_a: bool, transpose_b: bool,
           name: str | None = None) -> Node:
    """MatMul-1 of ``data_a`` and ``data_b``, each optionally transposed on its last two axes."""
    return make_node("MatMul", 1, as_outputs(data_a, data_b),
                     {"transpose_a": transpose_a, "transpose_b": transpose_b}, name)


@define_op("Inverse", 14, inputs=1, attrs=[AttrSpec("adjoint", "bool", False)])
def _infer_inverse(node: Node) -> list[tuple[Type, PartialShape]]:
    et = node.get_input_element_type(0)
    require(et.is_real(), f"element type {et} is not allowed; Inverse needs a floating-point type.")
    shape = node.get_input_partial_shape(0)
    if not shape.has_rank():
        return [(et, shape)]
    require(len(shape) >= 2, f"input shape {shape} must have rank >= 2 ([..., M, M]).")
    side = shape[-1].merge(shape[-2])
    require(side is not None, f"input shape {shape}: the last two dims must be equal (square matrices).")
    assert side is not None
    return [(et, PartialShape([*shape.dims[:-2], side, side]))]


def inverse(data: NodeInput, adjoint: bool = False, name: str | None = None) -> Node:
    """Inverse-14: the inverse of each matrix (of its transpose when ``adjoint``)."""
    return make_node("Inverse", 14, [as_output(data)], {"adjoint": adjoint}, name)


# -- Einsum ----------------------------------------------------------------------------------------------------

@define_op("Einsum", 7, inputs=(1, -1), attrs=[AttrSpec("equation", "str")])
def _infer_einsum(node: Node) -> list[tuple[Type, PartialShape]]:
    n = node.get_input_size()
    types = [node.get_input_element_type(i) for i in range(n)]
    require(all(t == types[0] for t in types), f"all inputs must have one element type; got {[str(t) for t in types]}.")
    require(types[0] != Type.boolean, f"element type {types[0]} is not allowed; Einsum needs a numeric type.")
    eq = parse_equation(node.attrs["equation"])
    require(len(eq.inputs) == n, f"equation {node.attrs['equation']!r} has {len(eq.inputs)} input subscript(s) "
                                 f"but the node has {n} input(s).")
    return [(types[0], einsum_output_shape(eq, [node.get_input_partial_shape(i) for i in range(n)]))]


def einsum(inputs: Sequence[NodeInput], equation: str, name: str | None = None) -> Node:
    """Einsum-7 (``equation`` such as ``"ij,jk->ik"``; spaces are removed, as OpenVINO does)."""
    eq = equation.replace(" ", "") if isinstance(equation, str) else equation
    return make_node("Einsum", 7, as_outputs(*inputs), {"equation": eq}, name)
