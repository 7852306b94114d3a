"""Activation ops: HSwish, HSigmoid, SoftPlus, SoftSign, Mish, Swish, Elu, Selu, HardSigmoid, PRelu,
the float classifiers IsNaN / IsInf / IsFinite, and Identity.

Element types follow the OpenVINO op specification: every activation takes a floating-point
type (the spec's "arbitrary supported floating-point type"); the classifiers take a float and
give boolean; Identity takes any type.
"""

from __future__ import annotations

from ovconform.ir import AttrSpec, Node, PartialShape, Type, define_op, make_node
from ovconform.opset._helpers import NodeInput, as_output, as_outputs, require, same_type

__all__ = [
    "elu", "hard_sigmoid", "hsigmoid", "hswish", "identity", "is_finite", "is_inf", "is_nan", "mish",
    "prelu", "selu", "softplus", "softsign", "swish",
]


def _real_data(node: Node) -> Type:
    et = node.get_input_element_type(0)
    require(et.is_real(),
            f"data has element type {et}; {node.type_name} needs a floating-point type.")
    return et


def _float_unary(node: Node) -> list[tuple[Type, PartialShape]]:
    return [(_real_data(node), node.get_input_partial_shape(0))]


for _t, _v in (("HSwish", 4), ("HSigmoid", 5), ("SoftPlus", 4), ("SoftSign", 9), ("Mish", 4)):
    define_op(_t, _v, inputs=1)(_float_unary)
define_op("Elu", 1, inputs=1, attrs=[AttrSpec("alpha", "float")])(_float_unary)


def _classify(node: Node) -> list[tuple[Type, PartialShape]]:
    _real_data(node)
    return [(Type.boolean, node.get_input_partial_shape(0))]


define_op("IsNaN", 10, inputs=1)(_classify)
define_op("IsFinite", 10, inputs=1)(_classify)
define_op("IsInf", 10, inputs=1, attrs=[AttrSpec("detect_negative", "bool", True),
                                        AttrSpec("detect_positive", "bool", True)])(_classify)


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


def _unary(type_name: str, version: int):  # noqa: ANN202 - builder factory
    def build(data: NodeInput, name: str | None = None) -> Node:
        return make_node(type_name, version, [as_output(data)], {}, name)

    build.__doc__ = f"{type_name}-{version}."
    return build


hswish = _unary("HSwish", 4)
hsigmoid = _unary("HSigmoid", 5)
softplus = _unary("SoftPlus", 4)
softsign = _unary("SoftSign", 9)
mish = _unary("Mish", 4)
is_nan = _unary("IsNaN", 10)
is_finite = _unary("IsFinite", 10)
identity = _unary("Identity", 16)
for _name, _fn in (("hswish", hswish), ("hsigmoid", hsigmoid), ("softplus", softplus), ("softsign", softsign),
                   ("mish", mish), ("is_nan", is_nan), ("is_finite", is_finite), ("identity", identity)):
    _fn.__name__ = _fn.__qualname__ = _name


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


def is_inf(data: NodeInput, attributes: dict[str, bool] | None = None, name: str | None = None) -> Node:
    """IsInf-10; ``attributes`` may set ``detect_negative`` / ``detect_positive`` (both default True)."""
    attrs = {"detect_negative": True, "detect_positive": True, **(attributes or {})}
    return make_node("IsInf", 10, [as_output(data)], attrs, name)
