"""Test helper: rebuild an ovconform Model as an openvino.Model node by node (no IR involved),
so shape inference and cases can be checked against real OpenVINO."""

from __future__ import annotations

from typing import Any

import numpy as np
import openvino as ov
import openvino.opset3 as ov3
import openvino.opset5 as ov5
import openvino.opset6 as ov6
import openvino.opset8 as ov8
import openvino.opset16 as ov16
from openvino import op as ov_op
from openvino.utils.node_factory import NodeFactory

from ovconform.ir import Dimension, Model, Node, PartialShape, Type

_FACTORIES: dict[int, NodeFactory] = {}


def ov_type(t: Type) -> ov.Type:
    return getattr(ov.Type, t.name)


def ov_shape(shape: PartialShape) -> ov.PartialShape:
    return ov.PartialShape(str(shape))


def from_ov_shape(shape: ov.PartialShape) -> PartialShape:
    if shape.rank.is_dynamic:
        return PartialShape.dynamic()
    return PartialShape([Dimension(d.get_min_length(), d.get_max_length()) for d in shape])


def _attr(value: Any) -> Any:
    return value.name if isinstance(value, Type) else value


def _variable(node: Node, variables: dict[str, Any]) -> Any:
    vid = node.attrs["variable_id"]
    if vid not in variables:
        info = ov_op.util.VariableInfo()
        info.variable_id = vid
        if node.type_name == "ReadValue" and node.version == 6:
            info.data_type = ov_type(node.attrs["variable_type"])
            info.data_shape = ov_shape(node.attrs["variable_shape"])
        else:
            info.data_type = ov_type(node.get_output_element_type(0))
            info.data_shape = ov_shape(node.get_output_partial_shape(0))
        variables[vid] = ov_op.util.Variable(info)
    return variables[vid]


def _make(node: Node, ins: list[Any], variables: dict[str, Any]) -> Any:
    t, v = node.type_name, node.version
    if t == "Parameter":
        return ov16.parameter(ov_shape(node.attrs["shape"]), ov_type(node.attrs["element_type"]),
                              name=node.friendly_name)
    if t == "Constant":
        return ov16.constant(np.asarray(node.data))
    if t == "Result":
        return ov16.result(ins[0])
    if t in ("ReadValue", "Assign") and v == 3:
        return (ov3.read_value if t == "ReadValue" else ov3.assign)(ins[0], node.attrs["variable_id"])
    if t == "ReadValue":
        var = _variable(node, variables)
        return ov6.read_value(ins[0].get_node(), var) if ins else ov6.read_value(var)
    if t == "Assign":
        return ov6.assign(ins[0].get_node(), _variable(node, variables))
    if t in ("If", "Loop", "TensorIterator"):
        return _control_flow(node, ins)
    factory = _FACTORIES.setdefault(v, NodeFactory(f"opset{v}"))
    return factory.create(t, ins, {k: _attr(a) for k, a in node.attrs.items()})


def _control_flow(node: Node, ins: list[Any]) -> Any:
    """If-8, Loop-5, TensorIterator-1 with their bodies rebuilt and their port maps set through
    openvino's own methods (``set_input``/``set_output``, ``set_*_input``, ``get_iter_value``,
    ``get_concatenated_slices``)."""
    from ovconform.ir import ConcatOutputDescription, MergedInputDescription, SliceInputDescription

    bodies = [to_openvino(b)[0] for b in node.attrs["bodies"]]
    ins_d, outs_d = node.attrs["input_descriptions"], node.attrs["output_descriptions"]
    if node.type_name == "If":
        made = ov8.if_op(ins[0])
        made.set_then_body(bodies[0])
        made.set_else_body(bodies[1])
        for k in range(1, len(ins)):
            params = [next((body.get_parameters()[d.body_parameter_index] for d in ins_d[b]
                            if d.input_index == k), None) for b, body in enumerate(bodies)]
            made.set_input(ins[k], params[0], params[1])
        for j in range(node.get_output_size()):
            results = [next(body.get_results()[d.body_value_index] for d in outs_d[b] if d.output_index == j)
                       for b, body in enumerate(bodies)]
            made.set_output(results[0], results[1])
        return made
    body = bodies[0]
    params, results = body.get_parameters(), body.get_results()
    if node.type_name == "Loop":
        made = ov5.loop(ins[0], ins[1])
        made.set_function(body)
        ports = node.attrs["special_body_ports"]
        made.set_special_body_ports([ports.current_iteration_input_idx, ports.body_condition_output_idx])
    else:
        made = ov8.tensor_iterator()
        made.set_body(body)
    for d in ins_d[0]:
        param, value = params[d.body_parameter_index], ins[d.input_index]
        if isinstance(d, SliceInputDescription):
            made.set_sliced_input(param, value, d.start, d.stride, d.part_size, d.end, d.axis)
        elif isinstance(d, MergedInputDescription):
            made.set_merged_input(param, value, results[d.body_value_index].input_value(0))
        else:
            made.set_invariant_input(param, value)
    for d in sorted(outs_d[0], key=lambda d: d.output_index):
        value = results[d.body_value_index].input_value(0)
        if isinstance(d, ConcatOutputDescription):
            made.get_concatenated_slices(value, d.start, d.stride, d.part_size, d.end, d.axis)
        else:
            made.get_iter_value(value, -1)
    return made


def to_openvino(model: Model) -> tuple[ov.Model, dict[int, Any]]:
    """The openvino.Model and a map from id(ovconform node) to its openvino node."""
    made: dict[int, Any] = {}
    variables: dict[str, Any] = {}
    for node in model.get_ordered_ops():
        ins = [made[id(src.node)].output(src.index) for src in node.input_values()]
        made[id(node)] = _make(node, ins, variables)
        made[id(node)].set_friendly_name(node.friendly_name)
    results = [made[id(r)] for r in model.get_results()]
    sinks = [made[id(s)] for s in model.get_sinks()]
    params = [made[id(p)] for p in model.get_parameters()]
    return ov.Model(results, sinks, params, model.get_friendly_name()), made


def node_shapes_agree(model: Model, made: dict[int, Any]) -> list[str]:
    """Nodes whose inferred output type, or shape, disagrees with OpenVINO's: a static shape must be
    equal, a dynamic one compatible (the bounds OpenVINO infers are sometimes tighter, sometimes looser)."""
    problems = []
    for node in model.get_ordered_ops():
        ov_node = made[id(node)]
        for i in range(node.get_output_size()):
            ours, theirs = node.get_output_partial_shape(i), from_ov_shape(ov_node.get_output_partial_shape(i))
            if not ours.compatible(theirs) or (theirs.is_static and ours != theirs):
                problems.append(f"{node!r} output {i}: ours {ours}, OpenVINO {theirs}")
            if ov_type(node.get_output_element_type(i)) != ov_node.get_output_element_type(i):
                problems.append(f"{node!r} output {i}: type {node.get_output_element_type(i)} vs "
                                f"{ov_node.get_output_element_type(i)}")
    return problems


_CORE: list[ov.Core] = []


def compile_cpu(model: ov.Model) -> ov.CompiledModel:
    if not _CORE:
        _CORE.append(ov.Core())
    return _CORE[0].compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})


def ir_attrs(model: Model, tmp_dir: Any) -> dict[str, dict[str, str]]:
    """The ``<data>`` attributes OpenVINO writes for each layer, by layer name."""
    import xml.etree.ElementTree as ET

    ov_model, _ = to_openvino(model)
    path = f"{tmp_dir}/m.xml"
    ov.save_model(ov_model, path, compress_to_fp16=False)
    out = {}
    for layer in ET.parse(path).getroot().iter("layer"):
        data = layer.find("data")
        out[layer.get("name")] = dict(data.attrib) if data is not None else {}
    return out


def ir_string(value: Any) -> str:
    """An ovconform attribute value in the spelling of IR v11."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    if isinstance(value, Type):
        return value.name
    if isinstance(value, PartialShape):
        return value.to_ir_string()
    return str(value)
