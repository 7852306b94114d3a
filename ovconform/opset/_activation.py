"""Activation ops (OpenVINO's op-spec folder "activation"): Relu-1, Sigmoid-1, Exp-1, Clamp-1,
Elu-1, Selu-1, PRelu-1, HardSigmoid-1, Gelu-2/7, HSwish-4, HSigmoid-5, SoftPlus-4, SoftSign-9,
Mish-4, Swish-4, Softmax-1/8, LogSoftmax-5 and Identity-16.

Element types follow the OpenVINO op specification: the activations proper take a floating-point
type (the spec's "arbitrary supported floating-point type"); Relu, Sigmoid, Exp and Clamp any
numeric type; Identity any type. Softmax-1 takes ``axis`` in ``[0, rank)``, Softmax-8 and
LogSoftmax-5 in ``[-rank, rank)`` (0 or -1 for rank 0); the IR type names are "SoftMax", "ReLU" and
"PReLU".
"""

from __future__ import annotations

from ovconform.ir import AttrSpec, Node, PartialShape, Type, define_op, make_node
from ovconform.opset._helpers import (
    NodeInput,
    UnaryBuilder,
    _real_data,
    _unary_float,
    as_output,
    as_outputs,
    elementwise_unary,
    normalize_scalar_axis,
    require,
    same_type,
)

__all__ = [
    "clamp", "elu", "exp", "gelu", "hard_sigmoid", "hsigmoid", "hswish", "identity", "log_softmax", "mish", "prelu",
    "relu", "selu", "sigmoid", "softmax", "softplus", "softsign", "swish",
]

define_op("Relu", 1, inputs=1, ir_type_name="ReLU")(_unary_float)


for _t in ("Exp", "Sigmoid"):
    define_op(_t, 1, inputs=1)(_unary_float)


def _unary_real(node: Node) -> list[tuple[Type, PartialShape]]:
    et = node.get_input_element_type(0)
    require(et.is_real(), f"element type {et} is not allowed; this op needs a floating-point type.")
    return [(et, node.get_input_partial_shape(0))]


define_op("Gelu", 2, inputs=1)(_unary_real)
define_op("Gelu", 7, inputs=1, attrs=[AttrSpec("approximation_mode", "str", "ERF", ("ERF", "TANH"))])(_unary_real)


@define_op("Clamp", 1, inputs=1, attrs=[AttrSpec("min", "float"), AttrSpec("max", "float")])
def _infer_clamp(node: Node) -> list[tuple[Type, PartialShape]]:
    lo, hi = node.attrs["min"], node.attrs["max"]
    require(lo <= hi, f"attribute min={lo} must not exceed max={hi}.")
    return _unary_float(node)


def _float_unary(node: Node) -> list[tuple[Type, PartialShape]]:
    return [(_real_data(node), node.get_input_partial_shape(0))]


for _t, _v in (("HSwish", 4), ("HSigmoid", 5), ("SoftPlus", 4), ("SoftSign", 9), ("Mish", 4)):
    define_op(_t, _v, inputs=1)(_float_unary)
define_op("Elu", 1, inputs=1, attrs=[AttrSpec("alpha", "float")])(_float_unary)


@define_op("Identity", 16, inputs=1)
def _infer_identity(node: Node) -> list[tuple[Type, PartialShape]]:
    return [(node.get_input_element_type(0), node.get_input_partial_shape(0))]


def _require_scalar(node: Node, index: int, name: str) -> None:
    """Input ``index`` is a scalar (rank 0)."""
    shape = node.get_input_partial_shape(index)
    require(not shape.has_rank() or shape.rank_length() == 0,
            f"input {name!r} has shape {shape}; {node.type_name} needs a scalar (rank 0).")


def _require_one_element(node: Node, index: int, name: str) -> None:
    """Input ``index`` holds exactly one element (any rank) when its shape is static."""
    shape = node.get_input_partial_shape(index)
    if shape.is_static:
        size = 1
        for d in shape.to_shape():
            size *= d
        require(size == 1, f"input {name!r} has shape {shape} ({size} elements); "
                           f"{node.type_name} needs exactly one element.")


@define_op("Swish", 4, inputs=(1, 2))
def _infer_swish(node: Node) -> list[tuple[Type, PartialShape]]:
    et = _real_data(node)
    if node.get_input_size() == 2:
        same_type(node, 0, 1)
        _require_scalar(node, 1, "beta")
    return [(et, node.get_input_partial_shape(0))]


@define_op("Selu", 1, inputs=3)
def _infer_selu(node: Node) -> list[tuple[Type, PartialShape]]:
    et = _real_data(node)
    same_type(node, 0, 1, 2)
    _require_one_element(node, 1, "alpha")
    _require_one_element(node, 2, "lambda")
    return [(et, node.get_input_partial_shape(0))]


@define_op("HardSigmoid", 1, inputs=3)
def _infer_hard_sigmoid(node: Node) -> list[tuple[Type, PartialShape]]:
    et = _real_data(node)
    same_type(node, 0, 1, 2)
    _require_scalar(node, 1, "alpha")
    _require_scalar(node, 2, "beta")
    return [(et, node.get_input_partial_shape(0))]


@define_op("PRelu", 1, inputs=2, ir_type_name="PReLU")
def _infer_prelu(node: Node) -> list[tuple[Type, PartialShape]]:
    et = _real_data(node)
    same_type(node, 0, 1)
    data, slope = node.get_input_partial_shape(0), node.get_input_partial_shape(1)
    if data.is_static and slope.is_static:
        d, s = list(data.to_shape()), list(slope.to_shape())
        require(prelu_slope_fits(d, s),
                f"slope shape {s} fits data shape {d} neither per channel (a 1-D slope of data's dim 1) "
                "nor by numpy broadcasting onto data.")
    return [(et, data)]


def prelu_slope_fits(data: list[int], slope: list[int]) -> bool:
    """Per channel (1-D slope, length == data dim 1) or numpy-broadcastable onto ``data``."""
    if len(slope) == 1 and len(data) >= 2 and slope[0] == data[1]:
        return True
    if len(slope) > len(data):
        return False
    return all(s in (1, d) for s, d in zip(reversed(slope), reversed(data), strict=False))


def _check(node: Node, allow_negative: bool) -> list[tuple[Type, PartialShape]]:
    et = node.get_input_element_type(0)
    require(et.is_real(), f"element type {et} is not allowed; Softmax needs a floating-point type.")
    shape = node.get_input_partial_shape(0)
    axis = node.attrs["axis"]
    if not allow_negative:
        require(axis >= 0, f"attribute 'axis'={axis} must not be negative in Softmax-1 (Softmax-8 allows it).")
    if shape.has_rank():
        normalize_scalar_axis(axis, len(shape), "attribute 'axis'")
    return [(et, shape)]


@define_op("Softmax", 1, inputs=1, ir_type_name="SoftMax", attrs=[AttrSpec("axis", "int", 1)])
def _infer_softmax_1(node: Node) -> list[tuple[Type, PartialShape]]:
    return _check(node, allow_negative=False)


@define_op("Softmax", 8, inputs=1, ir_type_name="SoftMax", attrs=[AttrSpec("axis", "int", 1)])
def _infer_softmax_8(node: Node) -> list[tuple[Type, PartialShape]]:
    return _check(node, allow_negative=True)


@define_op("LogSoftmax", 5, inputs=1, attrs=[AttrSpec("axis", "int", 1)])
def _infer_log_softmax(node: Node) -> list[tuple[Type, PartialShape]]:
    et = node.get_input_element_type(0)
    require(et.is_real(), f"element type {et} is not allowed; LogSoftmax needs a floating-point type.")
    shape = node.get_input_partial_shape(0)
    axis = node.attrs["axis"]
    if shape.has_rank():
        normalize_scalar_axis(axis, len(shape), "attribute 'axis'")
    return [(et, shape)]


def _unary(type_name: str, version: int, snake: str) -> UnaryBuilder:
    def build(data: NodeInput, name: str | None = None) -> Node:
        return make_node(type_name, version, [as_output(data)], {}, name)

    build.__name__ = build.__qualname__ = snake
    build.__doc__ = f"{type_name}-{version}."
    return build


hswish = _unary("HSwish", 4, "hswish")
hsigmoid = _unary("HSigmoid", 5, "hsigmoid")
softplus = _unary("SoftPlus", 4, "softplus")
softsign = _unary("SoftSign", 9, "softsign")
mish = _unary("Mish", 4, "mish")
identity = _unary("Identity", 16, "identity")


exp = elementwise_unary("Exp")
relu = elementwise_unary("Relu")
sigmoid = elementwise_unary("Sigmoid")


def gelu(data: NodeInput, approximation_mode: str = "erf", name: str | None = None) -> Node:
    """Gelu-7 with ``approximation_mode`` "erf" or "tanh" (case-insensitive)."""
    mode = approximation_mode.upper() if isinstance(approximation_mode, str) else approximation_mode
    return make_node("Gelu", 7, [as_output(data)], {"approximation_mode": mode}, name)


def clamp(data: NodeInput, min_value: float, max_value: float, name: str | None = None) -> Node:
    return make_node("Clamp", 1, [as_output(data)], {"min": min_value, "max": max_value}, name)


def swish(data: NodeInput, beta: NodeInput | None = None, name: str | None = None) -> Node:
    """Swish-4: ``x * sigmoid(beta * x)``; ``beta`` (a scalar, default 1) is optional."""
    inputs = [as_output(data)] if beta is None else as_outputs(data, beta)
    return make_node("Swish", 4, inputs, {}, name)


def elu(data: NodeInput, alpha: float, name: str | None = None) -> Node:
    """Elu-1 with the ``alpha`` attribute."""
    return make_node("Elu", 1, [as_output(data)], {"alpha": alpha}, name)


def selu(data: NodeInput, alpha: NodeInput, lambda_value: NodeInput, name: str | None = None) -> Node:
    """Selu-1: ``lambda * (x if x > 0 else alpha * (exp(x) - 1))``; alpha, lambda hold one element each."""
    return make_node("Selu", 1, as_outputs(data, alpha, lambda_value), {}, name)


def hard_sigmoid(data: NodeInput, alpha: NodeInput, beta: NodeInput, name: str | None = None) -> Node:
    """HardSigmoid-1: ``max(0, min(1, alpha * x + beta))`` with scalar alpha and beta."""
    return make_node("HardSigmoid", 1, as_outputs(data, alpha, beta), {}, name)


def prelu(data: NodeInput, slope: NodeInput, name: str | None = None) -> Node:
    """PRelu-1 (IR ``PReLU``): ``x if x >= 0 else slope * x``; slope per channel or numpy-broadcast."""
    return make_node("PRelu", 1, as_outputs(data, slope), {}, name)


def softmax(data: NodeInput, axis: int, name: str | None = None, *, version: int = 8) -> Node:
    """Softmax-8 over ``axis`` (negative counts from the end); ``version=1`` builds Softmax-1."""
    return make_node("Softmax", version, [as_output(data)], {"axis": axis}, name)


def log_softmax(data: NodeInput, axis: int, name: str | None = None) -> Node:
    """LogSoftmax-5 over ``axis`` (negative counts from the end)."""
    return make_node("LogSoftmax", 5, [as_output(data)], {"axis": axis}, name)
