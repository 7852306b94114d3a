"""Shared parts of the control-flow builders (If-8, Loop-5, TensorIterator-1): the port-map entries a
builder takes, resolved into :mod:`ovconform.ir._subgraph` descriptions, and the binding of a body
to the node's inputs that shape inference runs (as OpenVINO does: each described body Parameter
takes the element type and shape of the value that feeds it, the body is re-inferred, and a
back edge whose Result shape differs from its Parameter's makes the differing dims dynamic).

The entries are named after OpenVINO's ``SubGraphOp`` methods: :func:`invariant_input`
(``set_invariant_input``), :func:`sliced_input` (``set_sliced_input``), :func:`merged_input`
(``set_merged_input``), :func:`iter_value` (``get_iter_value``) and :func:`concatenated_slices`
(``get_concatenated_slices``). A body Parameter is named by its node; a body value by its Result
node or by the Output a Result of the body reads.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ovconform.errors import ValidationError
from ovconform.ir import Dimension, Model, Node, Output, PartialShape, Type, constant_value, describe
from ovconform.ir._subgraph import (
    BodyOutputDescription,
    ConcatOutputDescription,
    InputDescription,
    InvariantInputDescription,
    MergedInputDescription,
    OutputDescription,
    SliceInputDescription,
    check_port_maps,
)
from ovconform.opset._helpers import NodeInput, as_output, require

__all__ = ["concatenated_slices", "invariant_input", "iter_value", "merged_input", "sliced_input"]


@dataclass(frozen=True)
class PortIn:
    """A builder's input entry: ``value`` (outside) feeds ``parameter`` (a body Parameter)."""

    kind: str
    parameter: Node
    value: Output
    successive: Any = None
    slicing: tuple[int, int, int, int, int] = (0, 1, 1, -1, 0)


@dataclass(frozen=True)
class PortOut:
    """A builder's output entry: body value ``value`` (a Result, or what a Result reads)."""

    kind: str
    value: Any
    slicing: tuple[int, int, int, int, int] = (0, 1, 1, -1, 0)


def invariant_input(parameter: Node, value: NodeInput) -> PortIn:
    """``value`` feeds body Parameter ``parameter`` unchanged on every iteration."""
    return PortIn("invariant", parameter, as_output(value))


def sliced_input(parameter: Node, value: NodeInput, start: int, stride: int, part_size: int, end: int,
                 axis: int) -> PortIn:
    """Iteration ``i`` feeds ``parameter`` the ``part_size`` part of ``value`` along ``axis`` at
    ``start + i * stride`` (negative ``start``/``end`` count from the end; ``end`` is inclusive)."""
    return PortIn("sliced", parameter, as_output(value), slicing=(start, stride, part_size, end, axis))


def merged_input(parameter: Node, initial_value: NodeInput, successive_value: Any) -> PortIn:
    """``initial_value`` feeds ``parameter`` on the first iteration, body value ``successive_value`` on
    every later one (a back edge)."""
    return PortIn("merged", parameter, as_output(initial_value), successive=successive_value)


def iter_value(body_value: Any, iteration: int = -1) -> PortOut:
    """A node output: ``body_value`` of the last iteration."""
    if iteration != -1:
        raise ValidationError(f"iter_value(): iteration {iteration} is not supported; only -1 (the last) is.")
    return PortOut("iter", body_value)


def concatenated_slices(body_value: Any, start: int = 0, stride: int = 1, part_size: int = 1, end: int = -1,
                        axis: int = 0) -> PortOut:
    """A node output: ``body_value`` of every iteration concatenated along ``axis``."""
    return PortOut("concat", body_value, (start, stride, part_size, end, axis))


def resolve(body: Model, entries_in: Sequence[PortIn], entries_out: Sequence[PortOut], first_input: int,
            label: str) -> tuple[list[Output], list[InputDescription], list[OutputDescription]]:
    """The node inputs (from ``first_input`` on) and the descriptions of ``body``'s port map."""
    params = body.get_parameters()
    inputs: list[Output] = []
    ins: list[InputDescription] = []
    for e in entries_in:
        if not isinstance(e, PortIn):
            raise ValidationError(f"{label}: an input entry must come from invariant_input/sliced_input/"
                                  f"merged_input, not {type(e).__name__}.")
        p = param_index(params, e.parameter, label)
        index = first_input + len(inputs)
        inputs.append(e.value)
        if e.kind == "invariant":
            ins.append(InvariantInputDescription(index, p))
        elif e.kind == "sliced":
            start, stride, part, end, axis = e.slicing
            ins.append(SliceInputDescription(index, p, start, stride, part, end, axis))
        else:
            ins.append(MergedInputDescription(index, p, result_index(body, e.successive, label)))
    outs: list[OutputDescription] = []
    for j, o in enumerate(entries_out):
        if not isinstance(o, PortOut):
            raise ValidationError(f"{label}: an output entry must come from iter_value/concatenated_slices, "
                                  f"not {type(o).__name__}.")
        r = result_index(body, o.value, label)
        if o.kind == "iter":
            outs.append(BodyOutputDescription(r, j))
        else:
            start, stride, part, end, axis = o.slicing
            outs.append(ConcatOutputDescription(r, j, start, stride, part, end, axis))
    return inputs, ins, outs


def param_index(params: list[Node], parameter: Any, label: str) -> int:
    for i, p in enumerate(params):
        if p is parameter:
            return i
    name = describe(parameter) if isinstance(parameter, Node) else repr(parameter)
    raise ValidationError(f"{label}: {name} is not a Parameter of the body; the body has "
                          f"{[p.friendly_name for p in params]}.")


def result_index(body: Model, value: Any, label: str) -> int:
    """The index of the body Result that is ``value`` (a Result node) or reads it (an Output)."""
    results = body.get_results()
    for i, r in enumerate(results):
        if r is value:
            return i
    if isinstance(value, Node) and value.get_output_size() == 1:
        value = value.output(0)
    if isinstance(value, Output):
        for i, r in enumerate(results):
            if r.input_value(0) == value:
                return i
    raise ValidationError(f"{label}: {value!r} is not a Result of the body (nor read by one); the body's "
                          f"results read {[repr(r.input_value(0)) for r in results]}.")


def own_body(body: Model) -> Model:
    """The copy of ``body`` a builder keeps (inference re-binds its Parameters): a node that had its
    automatic friendly name gets the copy's automatic name, so equal bodies built separately still
    look alike (the cache digest reads automatic names as unnamed)."""
    twin = body.clone()
    for old, new in zip(body.get_ordered_ops(), twin.get_ordered_ops(), strict=True):
        if old.friendly_name == old.get_name():
            new.friendly_name = new.get_name()
    return twin


# -- inference ----------------------------------------------------------------------------------------

def set_parameter(param: Node, et: Type, shape: PartialShape) -> None:
    """Give a body Parameter the element type and shape of the value that feeds it."""
    if param.attrs["element_type"] != et or param.attrs["shape"] != shape:
        param.attrs["element_type"], param.attrs["shape"] = et, shape
        param.validate_and_infer_types()


def bind_body(node: Node, b: int, sliced_dims: str) -> Model:
    """Bind body ``b`` of ``node`` to its inputs and re-infer it (``sliced_dims``: "loop" gives a
    sliced Parameter the input's shape with ``part_size`` along the axis, "ti" the same when the
    input shape is static and a dynamic shape of its rank otherwise)."""
    check_port_maps(node)
    body: Model = node.attrs["bodies"][b]
    params = body.get_parameters()
    for d in node.attrs["input_descriptions"][b]:
        value = node.input_value(d.input_index)
        et, shape = value.get_element_type(), value.get_partial_shape()
        if isinstance(d, SliceInputDescription):
            shape = _slice_shape(d, shape, sliced_dims)
        set_parameter(params[d.body_parameter_index], et, shape)
    _validate(body, b)
    _merge_back_edges(node, b)
    return body


def _slice_shape(d: SliceInputDescription, shape: PartialShape, mode: str) -> PartialShape:
    if not shape.has_rank():
        return PartialShape.dynamic()
    rank = len(shape)
    require(-rank <= d.axis < rank, f"{d!r}: axis {d.axis} is out of range for an input of rank {rank}.")
    if mode == "ti" and shape.is_dynamic:
        return PartialShape.dynamic(rank)
    dims = list(shape.dims)
    dims[d.axis % rank] = Dimension(d.part_size)
    return PartialShape(dims)


def _validate(body: Model, b: int) -> None:
    try:
        body.validate_nodes_and_infer_types()
    except ValidationError as e:
        raise ValidationError(f"body {b}: {e}") from e


def _merge_back_edges(node: Node, b: int) -> None:
    """A back edge whose Result type or shape differs from its Parameter's: the type must match; the
    dims that differ become dynamic (the rank must match, else the rank is dynamic)."""
    body: Model = node.attrs["bodies"][b]
    params, results = body.get_parameters(), body.get_results()
    for _round in range(8):
        changed = False
        for d in node.attrs["input_descriptions"][b]:
            if not isinstance(d, MergedInputDescription):
                continue
            param, value = params[d.body_parameter_index], results[d.body_value_index].input_value(0)
            require(value.get_element_type() == param.attrs["element_type"],
                    f"back edge from body Result {d.body_value_index} ({value.get_element_type()}) to body "
                    f"Parameter {d.body_parameter_index} ({param.attrs['element_type']}): the element types differ.")
            merged = union_shape(param.attrs["shape"], value.get_partial_shape())
            if merged != param.attrs["shape"]:
                set_parameter(param, param.attrs["element_type"], merged)
                changed = True
        if not changed:
            return
        _validate(body, b)
    raise ValidationError(f"body {b}: the back-edge shapes do not settle after 8 rounds.")


def union_shape(a: PartialShape, b: PartialShape) -> PartialShape:
    """A shape both ``a`` and ``b`` fit: equal dims kept, differing dims dynamic, differing ranks a dynamic rank."""
    if a == b:
        return a
    if not a.has_rank() or not b.has_rank() or len(a) != len(b):
        return PartialShape.dynamic()
    return PartialShape([x if x == y else Dimension.dynamic() for x, y in zip(a.dims, b.dims, strict=True)])


def scalar_flag(value: Output, what: str, types: tuple[Type, ...]) -> bool | int | None:
    """Check ``value`` is a scalar or a one-element 1D tensor of one of ``types``; its value when known."""
    et, shape = value.get_element_type(), value.get_partial_shape()
    require(et in types, f"{what} has element type {et}; allowed: {', '.join(map(str, types))}.")
    if shape.has_rank():
        require(len(shape) == 0 or (len(shape) == 1 and shape[0].compatible(1)),
                f"{what} has shape {shape}; it must be a scalar or hold one element.")
    known = constant_value(value)
    if known is None:
        return None
    require(known.size == 1, f"{what} holds {known.size} values; it must hold one.")
    flat = known.reshape(-1)[0]
    return bool(flat) if et == Type.boolean else int(flat)
