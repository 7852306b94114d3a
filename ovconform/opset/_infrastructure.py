"""Infrastructure ops (OpenVINO's op-spec folder "infrastructure"): Parameter-1, Constant-1 (IR
type "Const"), Result-1 and the state ops ReadValue-3/6 and Assign-3/6 (model variables).

A variable is named by ``variable_id``. ReadValue-6 declares its ``variable_type`` (a Type) and
``variable_shape`` (a PartialShape) and may take an initializing input; ReadValue-3 takes its
type and shape from its (required) input. Assign writes a new value into the variable; an
Assign must be a sink of its Model (``Model(results, sinks, parameters, name)``).

:func:`variable_infos` lists a model's variables with their type and shape, and
:func:`check_variables` checks that every Assign matches a ReadValue of its variable.

Loop-5 and TensorIterator-1 run a body (a Model kept on the node) once per iteration; see the
section "Loop-5 and TensorIterator-1" below.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ovconform.errors import ValidationError
from ovconform.ir import (
    AttrSpec,
    Dimension,
    Node,
    PartialShape,
    Type,
    as_partial_shape,
    as_type,
    check_values,
    constant_value,
    define_op,
    describe,
    make_node,
)
from ovconform.ir._subgraph import (
    ConcatOutputDescription,
    SliceInputDescription,
    SpecialBodyPorts,
    check_port_maps,
    output_count,
)
from ovconform.opset._bodies import (
    PortIn,
    PortOut,
    bind_body,
    own_body,
    param_index,
    resolve,
    result_index,
    scalar_flag,
)
from ovconform.opset._helpers import NodeInput, as_output, make_constant, require
from ovconform.opset._inputs import Infer

__all__ = ["assign", "constant", "loop", "parameter", "read_value", "result", "tensor_iterator"]

@define_op("Parameter", 1, inputs=0,
           attrs=[AttrSpec("shape", "shape"), AttrSpec("element_type", "type")])
def _infer_parameter(node: Node) -> list[tuple[Type, PartialShape]]:
    return [(node.attrs["element_type"], node.attrs["shape"])]


@define_op("Constant", 1, inputs=0, ir_type_name="Const",
           attrs=[AttrSpec("element_type", "type"), AttrSpec("shape", "ints")])
def _infer_constant(node: Node) -> list[tuple[Type, PartialShape]]:
    et, shape = node.attrs["element_type"], node.attrs["shape"]
    require(node.data is not None, "a Constant needs data.")
    assert node.data is not None
    require(list(node.data.shape) == list(shape),
            f"data shape {list(node.data.shape)} differs from attribute shape {shape}.")
    require(node.data.dtype == et.to_dtype(), f"data dtype {node.data.dtype} does not store {et}.")
    check_values(node.data, et, "data")
    return [(et, PartialShape(shape))]


@define_op("Result", 1, inputs=1)
def _infer_result(node: Node) -> list[tuple[Type, PartialShape]]:
    return [(node.get_input_element_type(0), node.get_input_partial_shape(0))]


if TYPE_CHECKING:
    from ovconform.ir import Model


_ID = AttrSpec("variable_id", "str")


@dataclass(frozen=True)
class VariableInfo:
    """A model variable: its id, element type and (partial) shape, as ``ov.op.util.VariableInfo``."""

    variable_id: str
    data_type: Type
    data_shape: PartialShape


def _check_id(node: Node) -> str:
    vid = node.attrs["variable_id"]
    require(bool(vid), "attribute variable_id is empty; a variable needs a non-empty id.")
    return vid


def read_value_info(node: Node) -> VariableInfo:
    """The variable a ReadValue node declares (ReadValue-3: its input's type and shape)."""
    if node.version >= 6:
        return VariableInfo(node.attrs["variable_id"], node.attrs["variable_type"], node.attrs["variable_shape"])
    return VariableInfo(node.attrs["variable_id"], node.get_input_element_type(0), node.get_input_partial_shape(0))


@define_op("ReadValue", 3, inputs=1, attrs=[_ID])
def _infer_read_value_3(node: Node) -> Infer:
    """The variable's value; its type and shape are those of the initializing input."""
    _check_id(node)
    return [(node.get_input_element_type(0), node.get_input_partial_shape(0))]


@define_op("ReadValue", 6, inputs=(0, 1),
           attrs=[_ID, AttrSpec("variable_type", "type"), AttrSpec("variable_shape", "shape")])
def _infer_read_value_6(node: Node) -> Infer:
    """The variable's value, of ``variable_type`` and ``variable_shape``; an initializing input
    must have that type and a shape the variable shape allows."""
    _check_id(node)
    vt, vs = node.attrs["variable_type"], node.attrs["variable_shape"]
    if node.get_input_size() == 1:
        it, ishape = node.get_input_element_type(0), node.get_input_partial_shape(0)
        require(it == vt, f"the initializing input has element type {it}; variable_type is {vt}.")
        require(ishape.refines(vs), f"the initializing input has shape {ishape}, which variable_shape {vs} "
                                    "does not allow (the variable shape must extend the input shape).")
    return [(vt, vs)]


def _upstream_read_value(node: Node, variable_id: str) -> Node | None:
    """The first ReadValue of ``variable_id`` that ``node`` depends on (the walk stops there)."""
    seen, stack = set(), [node.input_value(i).node for i in range(node.get_input_size())]
    while stack:
        n = stack.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        if n.type_name == "ReadValue" and n.attrs.get("variable_id") == variable_id:
            return n
        stack.extend(n.input_value(i).node for i in range(n.get_input_size()))
    return None


def _check_assign(node: Node, info: VariableInfo) -> None:
    it, ishape = node.get_input_element_type(0), node.get_input_partial_shape(0)
    require(it == info.data_type, f"the new value has element type {it}; variable {info.variable_id!r} "
                                  f"has type {info.data_type}.")
    require(ishape.compatible(info.data_shape), f"the new value has shape {ishape}; variable "
                                                f"{info.variable_id!r} has shape {info.data_shape}.")


@define_op("Assign", 3, inputs=1, attrs=[_ID])
def _infer_assign_3(node: Node) -> Infer:
    """Write the input into the variable read by an upstream ReadValue-3 of the same id."""
    vid = _check_id(node)
    reader = _upstream_read_value(node, vid)
    require(reader is not None, f"no ReadValue of variable {vid!r} feeds this Assign; Assign-3 needs one upstream.")
    assert reader is not None
    _check_assign(node, read_value_info(reader))
    return [(node.get_input_element_type(0), node.get_input_partial_shape(0))]


@define_op("Assign", 6, inputs=1, attrs=[_ID])
def _infer_assign_6(node: Node) -> Infer:
    """Write the input into the variable; checked against an upstream ReadValue of the same id
    (and against the whole model by :func:`check_variables`)."""
    vid = _check_id(node)
    reader = _upstream_read_value(node, vid)
    if reader is not None:
        _check_assign(node, read_value_info(reader))
    return [(node.get_input_element_type(0), node.get_input_partial_shape(0))]


def read_value(init_value: NodeInput | None, variable_id: str, variable_type: Any = None,
               variable_shape: Any = None, name: str | None = None) -> Node:
    """ReadValue-6. ``variable_type`` defaults to the init value's type (required without one);
    ``variable_shape`` defaults to the init value's shape, or a dynamic rank without one."""
    inputs = [] if init_value is None else [as_output(init_value)]
    if variable_type is None:
        if not inputs:
            raise ValidationError(f"ReadValue-6 node {name or variable_id!r}: variable_type is required "
                                  "when there is no init value.")
        variable_type = inputs[0].get_element_type()
    if variable_shape is None:
        variable_shape = inputs[0].get_partial_shape() if inputs else PartialShape.dynamic()
    attrs = {"variable_id": variable_id, "variable_type": as_type(variable_type),
             "variable_shape": as_partial_shape(variable_shape)}
    return make_node("ReadValue", 6, inputs, attrs, name)


def assign(new_value: NodeInput, variable_id: str | Node, name: str | None = None) -> Node:
    """Assign-6 of ``variable_id`` (or of the variable a ReadValue node reads). Make it a model sink."""
    if isinstance(variable_id, Node):
        if variable_id.type_name != "ReadValue":
            raise ValidationError(f"Assign-6 node {name!r}: {describe(variable_id)} is not a ReadValue; "
                                  "pass a variable id or a ReadValue node.")
        variable_id = variable_id.attrs["variable_id"]
    return make_node("Assign", 6, [as_output(new_value)], {"variable_id": variable_id}, name)


# -- model-level view ----------------------------------------------------------------------------

def variable_infos(model: Model) -> list[VariableInfo]:
    """The model's variables, in model order, from their ReadValue nodes (an Assign without any
    ReadValue of its id gives its input's type and shape)."""
    infos: dict[str, VariableInfo] = {}
    ops = model.get_ordered_ops()
    for n in _of_type(ops, "ReadValue"):
        infos.setdefault(n.attrs["variable_id"], read_value_info(n))
    for n in _of_type(ops, "Assign"):
        vid = n.attrs["variable_id"]
        infos.setdefault(vid, VariableInfo(vid, n.get_input_element_type(0), n.get_input_partial_shape(0)))
    return list(infos.values())


def check_variables(model: Model) -> None:
    """Every ReadValue of a variable agrees on its type and shape, and every Assign writes a value
    of that type and a compatible shape. Raises ValidationError naming the node."""
    infos = {i.variable_id: i for i in variable_infos(model)}
    ops = model.get_ordered_ops()
    for n in _of_type(ops, "ReadValue"):
        info, mine = infos[n.attrs["variable_id"]], read_value_info(n)
        if (mine.data_type, mine.data_shape) != (info.data_type, info.data_shape):
            raise ValidationError(f"{describe(n)}: variable {info.variable_id!r} is declared as "
                                  f"{mine.data_type} {mine.data_shape} here but {info.data_type} "
                                  f"{info.data_shape} by another ReadValue.")
    for n in _of_type(ops, "Assign"):
        try:
            _check_assign(n, infos[n.attrs["variable_id"]])
        except ValidationError as e:
            raise ValidationError(f"{describe(n)}: {e}") from e


def _of_type(ops: Iterable[Node], type_name: str) -> list[Node]:
    return [n for n in ops if n.type_name == type_name]


def parameter(shape: Any, dtype: Any = Type.f32, name: str | None = None) -> Node:
    """A model input of ``shape`` (static, dynamic -1/"?", bounded "1..8") and element type."""
    node = make_node("Parameter", 1, [], {"shape": as_partial_shape(shape), "element_type": as_type(dtype)}, name)
    if name:
        node.output(0).set_names({name})
    return node


def constant(value: Any, dtype: Any = None, name: str | None = None, *, shared_memory: bool = False) -> Node:
    """A constant tensor; ``dtype`` defaults to the value's numpy dtype (Python floats → f32).
    ``shared_memory=True`` (OpenVINO's flag): a C-contiguous array already in the holding dtype is
    not copied, the Constant reads it through a read-only view (the caller must not change it)."""
    return make_constant(value, dtype, name, shared_memory=shared_memory)


def result(data: NodeInput, name: str | None = None) -> Node:
    return make_node("Result", 1, [as_output(data)], {}, name)


# == Loop-5 and TensorIterator-1 ========================================================================
# Loop-5 takes ``trip_count`` (i32/i64, scalar or one element; negative: no limit) and
# ``execution_condition`` (boolean: false runs no iteration), then the values its port map feeds to
# the body. Iteration ``i`` runs while ``i < trip_count`` (or always, for a negative trip count) and
# the body's condition Result of the iteration before was true. Sliced inputs and concatenated
# outputs of a Loop walk the whole axis one element at a time (``part_size`` 1, ``stride`` ±1, as
# OpenVINO supports them). TensorIterator-1 runs once per part of its sliced inputs.
#
# Shape inference follows OpenVINO's (``op/loop.cpp``, ``op/tensor_iterator.cpp``): the body is bound
# to the inputs and re-inferred; the number of iterations is known when the trip count and the
# body condition are constants (Loop) or the sliced inputs are static (TensorIterator); a
# concatenated output has ``iterations × part`` along its axis then, else a dynamic dim.

_BODY_ATTRS = [AttrSpec("bodies", "subgraph"), AttrSpec("input_descriptions", "subgraph"),
               AttrSpec("output_descriptions", "subgraph")]
_INT = (Type.i32, Type.i64)


def _one_body(node: Node) -> Model:
    check_port_maps(node)
    require(len(node.attrs["bodies"]) == 1, f"has {len(node.attrs['bodies'])} bodies; it takes one.")
    body: Model = node.attrs["bodies"][0]
    return body


def _check_fed(node: Node, body: Model, first_input: int, skip: int = -1) -> None:
    """Every body Parameter (but ``skip``) is fed by a description; every input from ``first_input``
    on feeds one."""
    fed = {d.body_parameter_index for d in node.attrs["input_descriptions"][0]}
    for i, p in enumerate(body.get_parameters()):
        require(i in fed or i == skip, f"body Parameter {i} ({p.friendly_name!r}) is fed by no input description.")
    used = {d.input_index for d in node.attrs["input_descriptions"][0]}
    for i in range(first_input, node.get_input_size()):
        require(i in used, f"input {i} feeds no body Parameter (no input description names it).")


def _normalized_axis(axis: int, rank: int, what: str) -> int:
    require(-rank <= axis < rank, f"{what}: axis {axis} is out of range for rank {rank}.")
    return axis % rank


# -- Loop-5 ---------------------------------------------------------------------------------------------

@define_op("Loop", 5, inputs=(2, -1),
           attrs=[*_BODY_ATTRS, AttrSpec("special_body_ports", "subgraph")])
def _infer_loop(node: Node) -> Infer:
    """Outputs from the body's Results: the last iteration's value, or all iterations concatenated."""
    body = _one_body(node)
    ports = node.attrs["special_body_ports"]
    require(isinstance(ports, SpecialBodyPorts), f"special_body_ports must be SpecialBodyPorts, not {ports!r}.")
    params, results = body.get_parameters(), body.get_results()
    require(0 <= ports.body_condition_output_idx < len(results),
            f"special_body_ports.body_condition_output_idx {ports.body_condition_output_idx} is out of range; "
            f"the body has {len(results)} Result(s).")
    cur = ports.current_iteration_input_idx
    if cur >= 0:
        require(cur < len(params), f"special_body_ports.current_iteration_input_idx {cur} is out of range; the "
                                   f"body has {len(params)} Parameter(s).")
        p = params[cur]
        require(p.attrs["element_type"] in _INT, f"the current-iteration Parameter {p.friendly_name!r} has element "
                                                 f"type {p.attrs['element_type']}; allowed: i32, i64.")
        require(not p.attrs["shape"].has_rank() or len(p.attrs["shape"]) in (0, 1),
                f"the current-iteration Parameter {p.friendly_name!r} has shape {p.attrs['shape']}; it must have "
                "rank 0 or 1.")
        require(all(d.body_parameter_index != cur for d in node.attrs["input_descriptions"][0]),
                f"the current-iteration Parameter {p.friendly_name!r} is also fed by an input description.")
    _check_fed(node, body, 2, cur)
    for d in node.attrs["input_descriptions"][0]:
        if isinstance(d, SliceInputDescription):
            require(d.part_size == 1 and (d.start, d.stride, d.end) in ((0, 1, -1), (-1, -1, 0)),
                    f"{d!r}: a Loop slices the whole axis one element at a time (start 0, stride 1, end -1, "
                    "or start -1, stride -1, end 0; part_size 1).")
    for d in node.attrs["output_descriptions"][0]:
        if isinstance(d, ConcatOutputDescription):
            require((d.start, d.stride, d.part_size, d.end) == (0, 1, 1, -1),
                    f"{d!r}: a Loop concatenates every iteration (start 0, stride 1, part_size 1, end -1).")
    trip = scalar_flag(node.input_value(0), "trip_count", _INT)
    cond = scalar_flag(node.input_value(1), "execution_condition", (Type.boolean,))
    bind_body(node, 0, "loop")
    body_cond = results[ports.body_condition_output_idx].input_value(0)
    scalar_flag(body_cond, "the body condition Result", (Type.boolean,))
    iterations = _loop_iterations(node, body, trip, body_cond)
    return _loop_outputs(node, body, iterations, zero=cond is False)


def _loop_iterations(node: Node, body: Model, trip: int | bool | None, body_cond: object) -> int:
    """The number of iterations when known from constants (OpenVINO's rule), else -1."""
    from ovconform.ir import Output

    assert isinstance(body_cond, Output)
    known = constant_value(body_cond)
    if known is None and body_cond.node.type_name == "Parameter":  # a Parameter fed by a constant
        params = body.get_parameters()
        for d in node.attrs["input_descriptions"][0]:
            if params[d.body_parameter_index] is body_cond.node:
                known = constant_value(node.input_value(d.input_index))
    if known is None or known.size != 1:
        return -1
    if not bool(known.reshape(-1)[0]):
        return 1  # do-while: the body runs once, then its condition stops it
    return int(trip) if trip is not None else -1


def _loop_outputs(node: Node, body: Model, iterations: int, zero: bool) -> Infer:
    descs = node.attrs["output_descriptions"]
    out: list[tuple[Type, PartialShape]] = [(Type.f32, PartialShape.dynamic())] * output_count(descs)
    results = body.get_results()
    for d in descs[0]:
        value = results[d.body_value_index].input_value(0)
        et, shape = value.get_element_type(), value.get_partial_shape()
        if isinstance(d, ConcatOutputDescription):
            if zero:
                shape = PartialShape([0])
            elif shape.has_rank():
                dims = list(shape.dims) if len(shape) else [Dimension(1)]
                axis = _normalized_axis(d.axis, len(dims), f"{d!r}")
                dims[axis] = (Dimension(dims[axis].get_length() * iterations)
                              if dims[axis].is_static and iterations >= 0 else Dimension.dynamic())
                shape = PartialShape(dims)
        elif shape.is_static and zero and len(shape):
            shape = PartialShape([0, *shape.to_shape()[1:]])
        out[d.output_index] = (et, shape)
    return out


def loop(trip_count: NodeInput, execution_condition: NodeInput, body: Model, inputs: Sequence[PortIn] = (),
         outputs: Sequence[PortOut] = (), current_iteration: Node | None = None, body_condition: object = None,
         name: str | None = None) -> Node:
    """Loop-5 over ``body`` (a copy of it is kept).

    :param inputs: :func:`invariant_input`, :func:`sliced_input`, :func:`merged_input` entries.
    :param outputs: :func:`iter_value` and :func:`concatenated_slices` entries, one per node output.
    :param current_iteration: the body Parameter that receives the iteration number (or None).
    :param body_condition: the body Result (or the value a Result reads) that says whether to go on.
    """
    label = f"Loop-5 node {name!r}" if name else "Loop-5 node"
    outs_in, ins, outs = resolve(body, inputs, outputs, 2, label)
    cur = param_index(body.get_parameters(), current_iteration, label) if current_iteration is not None else -1
    require(body_condition is not None, f"{label}: body_condition (the body Result that says whether to run "
                                        "another iteration) is required.")
    cond = result_index(body, body_condition, label)
    attrs = {"bodies": [own_body(body)], "input_descriptions": [ins], "output_descriptions": [outs],
             "special_body_ports": SpecialBodyPorts(cur, cond)}
    return make_node("Loop", 5, [as_output(trip_count), as_output(execution_condition), *outs_in], attrs, name)


# -- TensorIterator-1 ---------------------------------------------------------------------------------------

@define_op("TensorIterator", 1, inputs=(0, -1), attrs=_BODY_ATTRS)
def _infer_tensor_iterator(node: Node) -> Infer:
    """Outputs from the body's Results; the number of iterations comes from the sliced inputs."""
    body = _one_body(node)
    _check_fed(node, body, 0)
    require(len(node.attrs["input_descriptions"][0]) == node.get_input_size(),
            f"has {node.get_input_size()} input(s) but {len(node.attrs['input_descriptions'][0])} input "
            "descriptions; each input is described once.")
    iterations = -1
    for d in node.attrs["input_descriptions"][0]:
        if not isinstance(d, SliceInputDescription):
            continue
        shape = node.get_input_partial_shape(d.input_index)
        if not shape.has_rank():
            continue
        axis = _normalized_axis(d.axis, len(shape), f"{d!r}")
        if not shape.is_static:
            continue
        dim = shape[axis].get_length()
        start, end = (d.start + dim if d.start < 0 else d.start), (d.end + dim if d.end < 0 else d.end)
        require(0 <= start < dim and 0 <= end < dim,
                f"{d!r}: start {d.start} and end {d.end} must lie in the axis of size {dim}.")
        n = (abs(end - start) + 1) // d.part_size
        require(iterations in (-1, n), f"{d!r} gives {n} iterations; another sliced input gives {iterations}.")
        iterations = n
    has_slices = any(isinstance(d, SliceInputDescription) for d in node.attrs["input_descriptions"][0])
    if iterations == -1 and not has_slices:
        for d in node.attrs["output_descriptions"][0]:
            if isinstance(d, ConcatOutputDescription):
                iterations = abs(d.end - d.start) // d.part_size
                break
    bind_body(node, 0, "ti")
    descs = node.attrs["output_descriptions"]
    out: list[tuple[Type, PartialShape]] = [(Type.f32, PartialShape.dynamic())] * output_count(descs)
    results = body.get_results()
    for d in descs[0]:
        value = results[d.body_value_index].input_value(0)
        et, shape = value.get_element_type(), value.get_partial_shape()
        if isinstance(d, ConcatOutputDescription):
            if shape.is_static:
                dims = list(shape.to_shape()) or [0]
                require(len(shape) > 0 or d.axis == 0, f"{d!r}: the axis must be 0 when the body value is a scalar.")
                axis = _normalized_axis(d.axis, len(dims), f"{d!r}")
                dims[axis] = iterations * d.part_size
                shape = PartialShape(dims) if iterations != -1 else PartialShape.dynamic()
            else:
                shape = PartialShape.dynamic(len(shape)) if shape.has_rank() else PartialShape.dynamic()
        out[d.output_index] = (et, shape)
    return out


def tensor_iterator(body: Model, inputs: Sequence[PortIn] = (), outputs: Sequence[PortOut] = (),
                    name: str | None = None) -> Node:
    """TensorIterator-1 over ``body`` (a copy of it is kept); entries as for :func:`loop`."""
    label = f"TensorIterator-1 node {name!r}" if name else "TensorIterator-1 node"
    outs_in, ins, outs = resolve(body, inputs, outputs, 0, label)
    attrs = {"bodies": [own_body(body)], "input_descriptions": [ins], "output_descriptions": [outs]}
    return make_node("TensorIterator", 1, outs_in, attrs, name)

