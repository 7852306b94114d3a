"""Matrix ops (OpenVINO's op-spec folder "matrix"): MatMul-1, Einsum-7, Inverse-14 and GroupedMatMul-17.

* MatMul-1: numpy ``matmul`` shape rules with optional transposes of the two innermost axes. A
  1-D operand is a vector: ``a`` becomes ``[1, K]`` and ``b`` becomes ``[K, 1]`` (the transpose
  flags do not apply to it) and the added axis is removed from the output. Batch axes (all but
  the last two) broadcast as in numpy. Scalars are not allowed.
* Einsum-7: an ``equation`` over 1 or more inputs of one numeric type (see
  :mod:`ovconform.opset._einsum_eq`).
* Inverse-14: batches of square matrices (``[..., M, M]``, floating point); ``adjoint`` inverts
  the transpose.
* GroupedMatMul-17 (mixture of experts; no attributes), the two input cases of OpenVINO 2026.4's
  ``ov::op::v17::GroupedMatMul`` (its ``openvino.opset17.grouped_matmul`` and header): ``mat_a``
  ``[T, K]``, ``mat_b`` ``[G, N, K]`` and ``offsets`` ``[G]`` (i32/i64 cumulative row ends:
  group ``g`` takes rows ``offsets[g-1]:offsets[g]`` of ``mat_a``, times ``mat_b[g]`` transposed),
  output ``[T, N]``; or ``mat_a`` ``[G, M, K]`` and ``mat_b`` ``[G, N, K]`` without offsets,
  output ``[G, M, N]``. Both of one numeric type. (The newer spec text in OpenVINO's repository
  writes ``mat_b`` as ``[G, K, N]`` and adds a 2D x 2D case; OpenVINO 2026.4 refuses both.)
"""

from __future__ import annotations

from collections.abc import Sequence

from ovconform.errors import ValidationError
from ovconform.ir import AttrSpec, Dimension, Node, PartialShape, Type, define_op, make_node
from ovconform.opset._einsum_eq import einsum_output_shape, parse_equation
from ovconform.opset._helpers import NodeInput, as_output, as_outputs, broadcast_shapes, require, same_type

__all__ = ["einsum", "grouped_matmul", "inverse", "matmul"]

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


# -- GroupedMatMul ---------------------------------------------------------------------------------------------

@define_op("GroupedMatMul", 17, inputs=(2, 3))
def _infer_grouped_matmul(node: Node) -> list[tuple[Type, PartialShape]]:
    """``[T, N]`` (2D x 3D with offsets) or ``[G, M, N]`` (3D x 3D); ``mat_b`` is ``[G, N, K]``."""
    et = same_type(node, 0, 1)
    require(et != Type.boolean, f"element type {et} is not allowed; GroupedMatMul needs a numeric type.")
    a, b = node.get_input_partial_shape(0), node.get_input_partial_shape(1)
    with_offsets = node.get_input_size() == 3
    if with_offsets:
        off_t, off = node.get_input_element_type(2), node.get_input_partial_shape(2)
        require(off_t in (Type.i32, Type.i64), f"offsets (input 2) has element type {off_t}; it must be i32 or i64.")
        require(not off.has_rank() or len(off) == 1, f"offsets (input 2) has shape {off}; it must be 1D ([G]).")
    if not a.has_rank() or not b.has_rank():
        return [(et, PartialShape.dynamic())]
    require(len(b) == 3, f"mat_b (input 1) has shape {b}; it must be 3D ([G, N, K]).")
    require(len(a) in (2, 3), f"mat_a (input 0) has shape {a}; it must be 2D ([T, K], with offsets) or 3D "
                              "([G, M, K], without offsets).")
    require(a[-1].compatible(b[2]), f"the inner dimensions differ: mat_a {a} has K={a[-1]}, mat_b {b} has K={b[2]}.")
    if len(a) == 2:
        require(with_offsets, f"mat_a {a} is 2D: the 2D x 3D case needs offsets (input 2).")
        off = node.get_input_partial_shape(2)
        if off.has_rank():
            require(off[0].compatible(b[0]), f"offsets (input 2) has shape {off}; it needs one end per group of "
                                             f"mat_b {b} ({b[0]}).")
        return [(et, PartialShape([a[0], b[1]]))]
    require(not with_offsets, f"mat_a {a} is 3D: the 3D x 3D case takes no offsets (got input 2).")
    groups = a[0].merge(b[0])
    require(groups is not None, f"mat_a {a} and mat_b {b} differ in the number of groups ({a[0]} and {b[0]}).")
    assert groups is not None
    return [(et, PartialShape([groups, a[1], b[1]]))]


def grouped_matmul(mat_a: NodeInput, mat_b: NodeInput, offsets: NodeInput | None = None,
                   name: str | None = None) -> Node:
    """GroupedMatMul-17 (as ``openvino.opset17.grouped_matmul``): ``mat_b`` ``[G, N, K]``; ``offsets``
    (the cumulative row ends of the groups) with a 2D ``mat_a``, none with a 3D one."""
    inputs = as_outputs(mat_a, mat_b) + ([as_output(offsets)] if offsets is not None else [])
    return make_node("GroupedMatMul", 17, inputs, {}, name)
