"""Condition ops (OpenVINO's op-spec folder "condition"): Select-1, NonZero-3 and Bucketize-3.

Select takes a boolean condition and two inputs of one type, broadcast together (numpy, none or
pdpd). NonZero has ``output_type`` and an output whose size depends on the data's values
(bounded ``0..n`` when the data shape is static, ``?`` otherwise); Bucketize has ``output_type``
and ``with_right_bound``.

If-8 runs its then body when ``cond`` (a boolean scalar or one-element tensor) is true, else its
else body; its port maps say which inputs feed which body Parameters and which body Results give
its outputs (:mod:`ovconform.ir._subgraph`). An output's shape is that of the branch a constant
condition chooses, else the union of both (OpenVINO's ``resolve_shape``: equal dims kept, differing
static dims an interval, a dynamic dim dynamic; a scalar and a 1D value a 1D dynamic shape).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ovconform.errors import ValidationError
from ovconform.ir import AttrSpec, Dimension, Model, Node, PartialShape, Type, define_op, make_node
from ovconform.ir._subgraph import BodyOutputDescription, InvariantInputDescription, check_port_maps, output_count
from ovconform.opset._bodies import bind_body, own_body, param_index, result_index, scalar_flag
from ovconform.opset._helpers import _BROADCAST, NodeInput, as_output, as_outputs, broadcast_shapes, require, same_type
from ovconform.opset._inputs import INDEX_TYPES, Infer, _numeric, _upto, product

__all__ = ["bucketize", "if_op", "non_zero", "select"]

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


# -- If-8 ---------------------------------------------------------------------------------------------

@define_op("If", 8, inputs=(1, -1), attrs=[AttrSpec("bodies", "subgraph"), AttrSpec("input_descriptions", "subgraph"),
                                           AttrSpec("output_descriptions", "subgraph")])
def _infer_if(node: Node) -> Infer:
    """One output per output index both bodies describe; see the module docstring for the shapes."""
    check_port_maps(node)
    bodies = node.attrs["bodies"]
    require(len(bodies) == 2, f"has {len(bodies)} bodies; If takes two (then, else).")
    chosen = scalar_flag(node.input_value(0), "cond", (Type.boolean,))
    for b, name in ((0, "then"), (1, "else")):
        fed = set()
        for d in node.attrs["input_descriptions"][b]:
            require(isinstance(d, InvariantInputDescription), f"{name} body: {d!r}; If takes invariant inputs only.")
            require(d.input_index >= 1, f"{name} body: {d!r} reads input 0, the condition.")
            fed.add(d.body_parameter_index)
        for i, p in enumerate(bodies[b].get_parameters()):
            require(i in fed, f"{name} body Parameter {i} ({p.friendly_name!r}) is fed by no input description.")
        bind_body(node, b, "loop")
    n = output_count(node.attrs["output_descriptions"])
    per: list[list[tuple[Type, PartialShape]]] = []
    for b, name in ((0, "then"), (1, "else")):
        results = bodies[b].get_results()
        mine: dict[int, tuple[Type, PartialShape]] = {}
        for d in node.attrs["output_descriptions"][b]:
            require(isinstance(d, BodyOutputDescription), f"{name} body: {d!r}; If takes body outputs only.")
            require(d.output_index not in mine, f"{name} body: output {d.output_index} is described twice.")
            value = results[d.body_value_index].input_value(0)
            mine[d.output_index] = (value.get_element_type(), value.get_partial_shape())
        missing = [i for i in range(n) if i not in mine]
        require(not missing, f"{name} body describes no value for output(s) {missing}.")
        per.append([mine[i] for i in range(n)])
    if chosen is not None:
        return per[0] if chosen else per[1]
    out = []
    for i, ((t_et, t_shape), (e_et, e_shape)) in enumerate(zip(per[0], per[1], strict=True)):
        require(t_et == e_et, f"output {i}: the then body gives {t_et}, the else body {e_et}; they must agree.")
        out.append((t_et, _resolve_shape(t_shape, e_shape)))
    return out


def _resolve_shape(a: PartialShape, b: PartialShape) -> PartialShape:
    if not a.has_rank() or not b.has_rank():
        return PartialShape.dynamic()
    if len(a) != len(b):
        return PartialShape.dynamic(1) if len(a) <= 1 and len(b) <= 1 else PartialShape.dynamic()
    dims = []
    for x, y in zip(a.dims, b.dims, strict=True):
        if x.is_dynamic or y.is_dynamic:
            dims.append(Dimension.dynamic())
        elif x == y:
            dims.append(x)
        else:
            dims.append(Dimension(min(x.get_length(), y.get_length()), max(x.get_length(), y.get_length())))
    return PartialShape(dims)


def if_op(condition: NodeInput, then_body: Model, else_body: Model,
          inputs: Sequence[tuple[NodeInput, Node | None, Node | None]] = (),
          outputs: Sequence[tuple[Any, Any]] = (), name: str | None = None) -> Node:
    """If-8 (``openvino.opset8.if_op`` with ``set_then_body``/``set_else_body``/``set_input``/``set_output``).

    :param inputs: ``(value, then_parameter, else_parameter)``: ``value`` feeds that Parameter of each
        body (None: the body does not read it), as ``If.set_input``.
    :param outputs: ``(then_result, else_result)`` per node output (a body Result, or the value one
        reads), as ``If.set_output``.
    Copies of the bodies are kept.
    """
    label = f"If-8 node {name!r}" if name else "If-8 node"
    node_inputs = [as_output(condition)]
    ins: list[list[Any]] = [[], []]
    for entry in inputs:
        if not isinstance(entry, (tuple, list)) or len(entry) != 3:
            raise ValidationError(f"{label}: an input entry must be (value, then_parameter, else_parameter), "
                                  f"not {entry!r}.")
        value, then_p, else_p = entry
        index = len(node_inputs)
        node_inputs.append(as_output(value))
        for b, (body, param) in enumerate(((then_body, then_p), (else_body, else_p))):
            if param is not None:
                ins[b].append(InvariantInputDescription(index, param_index(body.get_parameters(), param, label)))
    outs: list[list[Any]] = [[], []]
    for j, pair in enumerate(outputs):
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise ValidationError(f"{label}: an output entry must be (then_result, else_result), not {pair!r}.")
        for b, (body, result) in enumerate(((then_body, pair[0]), (else_body, pair[1]))):
            outs[b].append(BodyOutputDescription(result_index(body, result, label), j))
    attrs = {"bodies": [own_body(then_body), own_body(else_body)], "input_descriptions": ins,
             "output_descriptions": outs}
    return make_node("If", 8, node_inputs, attrs, name)
