"""Builders of the tier-2 "advanced" family (compute ops).

* AdaptiveAvgPool-8 / AdaptiveMaxPool-8: floating-point data ``[N, C, spatial...]`` (rank 3 to 5)
  and an ``output_shape`` input (1D i32/i64 with one positive value per spatial axis); bin ``i`` of
  an axis of size ``H`` split into ``O`` covers ``[floor(i·H/O), ceil((i+1)·H/O))``. AdaptiveMaxPool
  has a second output, the index of each maximum within the flattened spatial dims of its channel,
  of type ``index_element_type`` (i32/i64).
* FakeQuantize-1: ``X``, ``input_low``, ``input_high``, ``output_low``, ``output_high`` of one
  floating-point type broadcast together (``auto_broadcast`` numpy, none or pdpd); ``levels`` >= 2.
* Inverse-14: batches of square matrices (``[..., M, M]``, floating point); ``adjoint`` inverts
  the transpose.
* Einsum-7: an ``equation`` over 1 or more inputs of one numeric type (see :mod:`._einsum_eq`).
* ScaledDotProductAttention-13: query ``[..., L, E]``, key ``[..., S, E]``, value ``[..., S, Ev]``
  and optional attention_mask (boolean or the query type, broadcastable to ``[..., L, S]``) and
  scale (a scalar); output ``[..., L, Ev]``.
* ConvolutionBackpropData-1, GroupConvolutionBackpropData-1 and Col2Im-15 live in
  :mod:`._advanced_conv`; Interpolate-1/4/11 in :mod:`._advanced_interp` (re-exported here).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ovconform.ir import AttrSpec, Dimension, Node, Output, PartialShape, Type, define_op, make_node
from ovconform.opset._advanced_conv import (
    col2im,
    convolution_backprop_data,
    group_convolution_backprop_data,
    int_vector,
)
from ovconform.opset._advanced_interp import interpolate, interpolate_v1, interpolate_v4
from ovconform.opset._einsum_eq import einsum_output_shape, parse_equation
from ovconform.opset._helpers import AUTO_BROADCAST, NodeInput, as_output, as_outputs, broadcast_shapes, require

__all__ = [
    "adaptive_avg_pool", "adaptive_max_pool", "col2im", "convolution_backprop_data", "einsum", "fake_quantize",
    "group_convolution_backprop_data", "interpolate", "interpolate_v1", "interpolate_v4", "inverse",
    "scaled_dot_product_attention",
]

INDEX_TYPES = (Type.i32, Type.i64)


# -- adaptive pooling ------------------------------------------------------------------------------------------

def _adaptive_shape(node: Node) -> tuple[Type, PartialShape]:
    et = node.get_input_element_type(0)
    require(et.is_real(), f"data element type {et} is not allowed; adaptive pooling needs a floating-point type.")
    data = node.get_input_partial_shape(0)
    if data.has_rank():
        require(len(data) in (3, 4, 5), f"data shape {data} must have rank 3, 4 or 5 ([N, C, 1-3 spatial dims]).")
    n = len(data) - 2 if data.has_rank() else None
    sizes = int_vector(node, 1, "output_shape", n)
    if sizes is not None:
        require(n is None or len(sizes) == n, f"output_shape {sizes.tolist()} must have {n} value(s), one per "
                                              f"spatial axis of data shape {data}.")
        require(bool(np.all(sizes > 0)), f"output_shape {sizes.tolist()} must be positive.")
    if not data.has_rank():
        return et, PartialShape.dynamic()
    assert n is not None
    spatial = [Dimension(int(s)) for s in sizes] if sizes is not None else [Dimension()] * n
    return et, PartialShape([data[0], data[1], *spatial])


@define_op("AdaptiveAvgPool", 8, inputs=2)
def _infer_adaptive_avg_pool(node: Node) -> list[tuple[Type, PartialShape]]:
    return [_adaptive_shape(node)]


@define_op("AdaptiveMaxPool", 8, inputs=2, attrs=[AttrSpec("index_element_type", "type", Type.i64, INDEX_TYPES)])
def _infer_adaptive_max_pool(node: Node) -> list[tuple[Type, PartialShape]]:
    et, shape = _adaptive_shape(node)
    return [(et, shape), (node.attrs["index_element_type"], shape)]


def _sizes(value: NodeInput) -> Output:
    """A node input as is; literal sizes as an i64 Constant."""
    return as_output(value) if isinstance(value, (Node, Output)) else as_output(np.asarray(value, np.int64))


def adaptive_avg_pool(data: NodeInput, output_shape: NodeInput, name: str | None = None) -> Node:
    """AdaptiveAvgPool-8: the average of each adaptive bin (literals become an i64 Constant)."""
    return make_node("AdaptiveAvgPool", 8, [as_output(data), _sizes(output_shape)], {}, name)


def adaptive_max_pool(data: NodeInput, output_shape: NodeInput, index_element_type: Any = "i64",
                      name: str | None = None) -> Node:
    """AdaptiveMaxPool-8: the maximum of each adaptive bin and its spatial index."""
    return make_node("AdaptiveMaxPool", 8, [as_output(data), _sizes(output_shape)],
                     {"index_element_type": index_element_type}, name)


# -- FakeQuantize ----------------------------------------------------------------------------------------------

@define_op("FakeQuantize", 1, inputs=5, attrs=[AttrSpec("levels", "int"),
                                               AttrSpec("auto_broadcast", "str", "numpy", AUTO_BROADCAST)])
def _infer_fake_quantize(node: Node) -> list[tuple[Type, PartialShape]]:
    types = [node.get_input_element_type(i) for i in range(5)]
    require(all(t == types[0] for t in types),
            f"all five inputs must have one element type; got {[str(t) for t in types]}.")
    require(types[0].is_real(), f"element type {types[0]} is not allowed; FakeQuantize needs a floating-point type.")
    levels = node.attrs["levels"]
    require(levels >= 2, f"attribute 'levels'={levels} is not allowed; it must be at least 2.")
    mode = node.attrs["auto_broadcast"]
    shape = node.get_input_partial_shape(0)
    for i in range(1, 5):
        other = node.get_input_partial_shape(i)
        shape = broadcast_shapes(shape, other, mode)
    return [(types[0], shape)]


def fake_quantize(data: NodeInput, input_low: NodeInput, input_high: NodeInput, output_low: NodeInput,
                  output_high: NodeInput, levels: int, auto_broadcast: str = "NUMPY", name: str | None = None) -> Node:
    """FakeQuantize-1: quantize ``data`` to ``levels`` levels of [input_low, input_high] and map them
    onto [output_low, output_high] (literals take the data's element type)."""
    mode = auto_broadcast.lower() if isinstance(auto_broadcast, str) else auto_broadcast
    return make_node("FakeQuantize", 1, as_outputs(data, input_low, input_high, output_low, output_high),
                     {"levels": levels, "auto_broadcast": mode}, name)


# -- Inverse ---------------------------------------------------------------------------------------------------

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


def einsum(inputs: list[NodeInput], equation: str, name: str | None = None) -> Node:
    """Einsum-7 (``equation`` such as ``"ij,jk->ik"``; spaces are removed, as OpenVINO does)."""
    eq = equation.replace(" ", "") if isinstance(equation, str) else equation
    return make_node("Einsum", 7, as_outputs(*inputs), {"equation": eq}, name)


# -- ScaledDotProductAttention ---------------------------------------------------------------------------------

def _batch_dims(shapes: list[PartialShape]) -> PartialShape:
    out = PartialShape([])
    for s in shapes:
        out = broadcast_shapes(out, PartialShape(s.dims[:-2]))
    return out


@define_op("ScaledDotProductAttention", 13, inputs=(3, 5), attrs=[AttrSpec("causal", "bool", False)])
def _infer_sdpa(node: Node) -> list[tuple[Type, PartialShape]]:
    et = node.get_input_element_type(0)
    require(et.is_real(), f"query element type {et} is not allowed; SDPA needs a floating-point type.")
    for i, what in ((1, "key"), (2, "value")):
        t = node.get_input_element_type(i)
        require(t == et, f"{what} element type {t} differs from the query's {et}.")
    q, k, v = (node.get_input_partial_shape(i) for i in range(3))
    if not (q.has_rank() and k.has_rank() and v.has_rank()):
        return [(et, PartialShape.dynamic())]
    for s, what in ((q, "query"), (k, "key"), (v, "value")):
        require(len(s) >= 3, f"{what} shape {s} must have rank >= 3 ([N, ..., rows, features]).")
    require(q[-1].compatible(k[-1]), f"query shape {q} and key shape {k} differ in the feature dim (last).")
    require(k[-2].compatible(v[-2]), f"key shape {k} and value shape {v} differ in the sequence dim (-2).")
    batch = _batch_dims([q, k, v])
    s_len = k[-2].merge(v[-2]) or k[-2]
    if node.get_input_size() > 3:
        _check_mask(node, et, PartialShape([*batch.dims, q[-2], s_len]))
    if node.get_input_size() > 4:
        t, sc = node.get_input_element_type(4), node.get_input_partial_shape(4)
        require(t == et, f"scale element type {t} differs from the query's {et}.")
        require(not sc.has_rank() or len(sc) == 0 or (len(sc) == 1 and sc[0].compatible(1)),
                f"scale shape {sc} is not allowed; it must be a scalar (or hold one value).")
    return [(et, PartialShape([*batch.dims, q[-2], v[-1]]))]


def _check_mask(node: Node, et: Type, target: PartialShape) -> None:
    t = node.get_input_element_type(3)
    require(t in (Type.boolean, et), f"attention_mask element type {t} is not allowed; allowed: boolean, {et}.")
    mask = node.get_input_partial_shape(3)
    if mask.has_rank():
        require(len(mask) <= len(target), f"attention_mask shape {mask} has more dims than {target}.")
        merged = broadcast_shapes(target, mask)
        require(merged.compatible(target), f"attention_mask shape {mask} does not broadcast to {target}.")


def scaled_dot_product_attention(query: NodeInput, key: NodeInput, value: NodeInput,
                                 attention_mask: NodeInput | None = None, scale: NodeInput | None = None,
                                 causal: bool = False, name: str | None = None) -> Node:
    """ScaledDotProductAttention-13: ``softmax(Q·Kᵀ·scale + mask)·V``. A ``scale`` without a mask is
    given a zero mask of the query type (the inputs are positional)."""
    q, k, v = as_outputs(query, key, value)
    inputs = [q, k, v]
    if attention_mask is not None or scale is not None:
        et = q.get_element_type()
        mask = attention_mask if attention_mask is not None else np.zeros((), et.to_dtype())
        boolean = isinstance(mask, np.ndarray) and mask.dtype == np.bool_
        inputs.append(as_output(mask, None if boolean else et))
    if scale is not None:
        inputs.append(as_output(scale, q.get_element_type()))
    return make_node("ScaledDotProductAttention", 13, inputs, {"causal": causal}, name)
