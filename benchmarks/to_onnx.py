"""An ovconform Model as an equivalent ONNX model (opset 18, IR version 10) for onnx.reference.

Covers the ops of the perf anchors (``ovconform.bench.models.ANCHORS``): Parameter, Constant,
Result, MatMul, Add, Subtract, Multiply, Divide, Sqrt, Relu, Sigmoid, Tanh, Softmax, Gelu (erf
form, written as 0.5·x·(1 + Erf(x/√2)) as ONNX before opset 20 has no Gelu), Convolution,
MaxPool, ReduceMean, Reshape, Transpose and MVN-6 (as ReduceMean/Sub/Mul/Add/Sqrt/Div). Any other
op is a NotImplementedError naming it: the benchmark compares like with like or not at all.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ovconform.ir import Model, Node, constant_value

_SIMPLE = {"Add": "Add", "Subtract": "Sub", "Multiply": "Mul", "Divide": "Div", "Sqrt": "Sqrt", "Relu": "Relu",
           "Sigmoid": "Sigmoid", "Tanh": "Tanh"}


class _Writer:
    def __init__(self) -> None:
        import onnx
        from onnx import helper, numpy_helper

        self.onnx, self.helper, self.numpy_helper = onnx, helper, numpy_helper
        self.nodes: list[Any] = []
        self.inits: list[Any] = []
        self.names: dict[tuple[int, int], str] = {}
        self._n = 0

    def fresh(self) -> str:
        self._n += 1
        return f"t{self._n}"

    def const(self, value: np.ndarray) -> str:
        name = self.fresh()
        self.inits.append(self.numpy_helper.from_array(np.asarray(value), name))
        return name

    def op(self, op_type: str, inputs: list[str], **attrs: Any) -> str:
        out = self.fresh()
        self.nodes.append(self.helper.make_node(op_type, inputs, [out], **attrs))
        return out

    def src(self, node: Node, port: int) -> str:
        value = node.input_value(port)
        return self.names[(id(value.node), value.index)]


def _ints(node: Node, port: int) -> list[int]:
    value = constant_value(node.input_value(port))
    if value is None:
        raise NotImplementedError(f"{node.type_name} {node.friendly_name!r}: input {port} is not a constant")
    return [int(v) for v in np.atleast_1d(value)]


def _matmul(w: _Writer, n: Node) -> str:
    a, b = w.src(n, 0), w.src(n, 1)
    for flag, port in (("transpose_a", 0), ("transpose_b", 1)):
        if n.attrs.get(flag):
            rank = len(n.get_input_partial_shape(port))
            perm = [*range(rank - 2), rank - 1, rank - 2]
            if port == 0:
                a = w.op("Transpose", [a], perm=perm)
            else:
                b = w.op("Transpose", [b], perm=perm)
    return w.op("MatMul", [a, b])


def _gelu(w: _Writer, n: Node) -> str:
    if str(n.attrs.get("approximation_mode", "ERF")).upper() != "ERF":
        raise NotImplementedError("Gelu with the TANH approximation")
    x = w.src(n, 0)
    erf = w.op("Erf", [w.op("Div", [x, w.const(np.array(math.sqrt(2.0), np.float32))])])
    half = w.op("Mul", [x, w.const(np.array(0.5, np.float32))])
    return w.op("Mul", [half, w.op("Add", [erf, w.const(np.array(1.0, np.float32))])])


def _conv(w: _Writer, n: Node) -> str:
    a = n.attrs
    pads = [*a["pads_begin"], *a["pads_end"]]
    return w.op("Conv", [w.src(n, 0), w.src(n, 1)], strides=list(a["strides"]), dilations=list(a["dilations"]),
                pads=pads)


def _max_pool(w: _Writer, n: Node) -> str:
    a = n.attrs
    return w.op("MaxPool", [w.src(n, 0)], kernel_shape=list(a["kernel"]), strides=list(a["strides"]),
                pads=[*a["pads_begin"], *a["pads_end"]])


def _mvn(w: _Writer, n: Node) -> str:
    x, axes = w.src(n, 0), w.const(np.array(_ints(n, 1), np.int64))
    centered = w.op("Sub", [x, w.op("ReduceMean", [x, axes], keepdims=1)])
    if not n.attrs["normalize_variance"]:
        return centered
    var = w.op("ReduceMean", [w.op("Mul", [centered, centered]), axes], keepdims=1)
    eps = w.const(np.array(n.attrs["eps"], np.float32))
    if str(n.attrs["eps_mode"]).upper() == "INSIDE_SQRT":
        return w.op("Div", [centered, w.op("Sqrt", [w.op("Add", [var, eps])])])
    return w.op("Div", [centered, w.op("Add", [w.op("Sqrt", [var]), eps])])


_CONVERTERS: dict[str, Callable[[_Writer, Node], str]] = {
    "MatMul": _matmul, "Gelu": _gelu, "Convolution": _conv, "MaxPool": _max_pool, "MVN": _mvn,
    "Softmax": lambda w, n: w.op("Softmax", [w.src(n, 0)], axis=int(n.attrs["axis"])),
    "ReduceMean": lambda w, n: w.op("ReduceMean", [w.src(n, 0), w.const(np.array(_ints(n, 1), np.int64))],
                                    keepdims=int(bool(n.attrs["keep_dims"]))),
    "Reshape": lambda w, n: w.op("Reshape", [w.src(n, 0), w.const(np.array(_ints(n, 1), np.int64))]),
    "Transpose": lambda w, n: w.op("Transpose", [w.src(n, 0)], perm=_ints(n, 1)),
}


def to_onnx(model: Model) -> Any:
    """The ONNX ModelProto computing what ``model`` computes (float32 inputs and outputs)."""
    w = _Writer()
    f32 = w.onnx.TensorProto.FLOAT
    inputs = []
    for p in model.get_parameters():
        w.names[(id(p), 0)] = p.friendly_name
        inputs.append(w.helper.make_tensor_value_info(p.friendly_name, f32, list(p.get_output_partial_shape(0)
                                                                               .to_shape())))
    outputs = []
    for node in model.get_ordered_ops():
        t = node.type_name
        if t == "Parameter":
            continue
        if t == "Constant":
            w.names[(id(node), 0)] = w.const(node.data)
        elif t == "Result":
            outputs.append(w.src(node, 0))
        elif t == "MaxPool" or t in _CONVERTERS:
            w.names[(id(node), 0)] = _CONVERTERS[t](w, node)
        elif t in _SIMPLE:
            w.names[(id(node), 0)] = w.op(_SIMPLE[t], [w.src(node, i) for i in range(node.get_input_size())])
        else:
            raise NotImplementedError(f"no ONNX equivalent written for {t} ({node.friendly_name!r})")
    outs = [w.helper.make_tensor_value_info(o, f32, None) for o in outputs]
    graph = w.helper.make_graph(w.nodes, model.friendly_name or "model", inputs, outs, w.inits)
    onnx_model = w.helper.make_model(graph, opset_imports=[w.helper.make_opsetid("", 18)])
    onnx_model.ir_version = 10
    return onnx_model
