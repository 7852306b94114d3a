"""Arithmetic ops (OpenVINO's op-spec folder "arithmetic"): the binaries Add, Subtract, Multiply,
Divide, Power, Maximum, Minimum, SquaredDifference, FloorMod, Mod (opset1, ``auto_broadcast``
numpy, none or pdpd); the unary Abs, Negative, Log, Sqrt, Tanh, Erf, the trigonometric and
hyperbolic functions and their inverses, Floor, Ceiling, Sign and Round-5; CumSum-3,
SegmentMax-16 and ErfInv-17 (floating-point types only: ``erfinv`` as in ``openvino.opset17``).

Every unary op takes one tensor of any numeric element type (boolean is refused) and returns a
tensor of the same element type and shape. Versions follow the opset that introduced the op: the
inverse hyperbolic functions are opset4 (``ov::op::v3``), Round is opset5 with attribute
``mode`` ("half_to_even" or "half_away_from_zero"), the rest are opset1. CumSum-3 has
``exclusive`` and ``reverse``; SegmentMax-16 ``fill_mode`` (zero, lowest), and its output size
depends on ``num_segments``/``segment_ids`` (bounded ``0..n`` when they are not known at build
time and the data shape is static, ``?`` otherwise).
"""

from __future__ import annotations

from ovconform.ir import AttrSpec, Dimension, Node, PartialShape, Type, define_op, make_node
from ovconform.opset._helpers import (
    _BROADCAST,
    NodeInput,
    UnaryBuilder,
    _real_data,
    _unary_float,
    as_output,
    as_outputs,
    broadcast_shapes,
    elementwise_binary,
    elementwise_unary,
    normalize_axis,
    require,
    same_type,
)
from ovconform.opset._inputs import (
    Infer,
    _const_ints,
    _integer,
    _merge,
    _numeric,
    _scalar_input,
    const_ints,
    index_input,
    require_integer,
)

__all__ = [
    "abs", "acos", "acosh", "add", "asin", "asinh", "atan", "atanh", "ceiling", "cos", "cosh", "cumsum", "divide",
    "erf", "erfinv", "floor", "floor_mod", "log", "maximum", "minimum", "mod", "multiply", "negative", "power", "round",
    "segment_max", "sign", "sin", "sinh", "sqrt", "squared_difference", "subtract", "tan", "tanh",
]

def _arith(node: Node) -> list[tuple[Type, PartialShape]]:
    et = same_type(node, 0, 1)
    require(et != Type.boolean, f"element type {et} is not allowed; arithmetic needs a numeric type.")
    return [(et, broadcast_shapes(node.get_input_partial_shape(0), node.get_input_partial_shape(1),
                                  node.attrs["auto_broadcast"]))]


ARITHMETIC = ("Add", "Subtract", "Multiply", "Power", "Maximum", "Minimum", "SquaredDifference",
              "FloorMod", "Mod")


for _t in ARITHMETIC:
    define_op(_t, 1, inputs=2, attrs=[_BROADCAST])(_arith)
define_op("Divide", 1, inputs=2, attrs=[_BROADCAST, AttrSpec("m_pythondiv", "bool", True)])(_arith)


UNARY = ("Abs", "Negative", "Log", "Sqrt", "Tanh", "Erf")
for _t in UNARY:
    define_op(_t, 1, inputs=1)(_unary_float)


#: op type -> the opset version it exists in (one version each in opset1..opset16).
UNARY_VERSIONS: dict[str, int] = {
    "Sin": 1, "Cos": 1, "Tan": 1, "Asin": 1, "Acos": 1, "Atan": 1, "Sinh": 1, "Cosh": 1,
    "Asinh": 4, "Acosh": 4, "Atanh": 4, "Floor": 1, "Ceiling": 1, "Sign": 1,
}
ROUND_MODES = ("half_to_even", "half_away_from_zero")


def _numeric_unary(node: Node) -> list[tuple[Type, PartialShape]]:
    et = node.get_input_element_type(0)
    require(et != Type.boolean, f"element type {et} is not allowed; {node.type_name} needs a numeric type.")
    return [(et, node.get_input_partial_shape(0))]


for _t, _v in UNARY_VERSIONS.items():
    define_op(_t, _v, inputs=1)(_numeric_unary)
define_op("Round", 5, inputs=1, attrs=[AttrSpec("mode", "str", "half_to_even", ROUND_MODES)])(_numeric_unary)


@define_op("CumSum", 3, inputs=(1, 2), attrs=[AttrSpec("exclusive", "bool", False), AttrSpec("reverse", "bool", False)])
def _infer_cumsum(node: Node) -> Infer:
    """Cumulative sum along the scalar ``axis`` input (0 when absent)."""
    et = node.get_input_element_type(0)
    require(et != Type.boolean, f"data element type {et} is not allowed; CumSum needs a numeric type.")
    data = node.get_input_partial_shape(0)
    if node.get_input_size() == 2:
        _integer(node, 1, "axis")
        shape = node.get_input_partial_shape(1)
        require(not shape.has_rank() or len(shape) == 0, f"axis (input 1) has shape {shape}; it must be a scalar.")
        value = _const_ints(node, 1)
        if value is not None and data.has_rank():
            require(len(data) >= 1, "data is a scalar; CumSum needs data of rank >= 1.")
            normalize_axis(value[0], len(data), "axis")
    return [(et, data)]


@define_op("SegmentMax", 16, inputs=(2, 3), attrs=[AttrSpec("fill_mode", "str", choices=("zero", "lowest"))])
def _infer_segment_max(node: Node) -> Infer:
    """[num_segments] + data[1:]: the max of each segment of rows (sorted ``segment_ids``)."""
    et = _numeric(node, 0, "data")
    require_integer(node, 1, "segment_ids")
    data, ids = node.get_input_partial_shape(0), node.get_input_partial_shape(1)
    require(not ids.has_rank() or len(ids) == 1, f"segment_ids has shape {ids}; it must be 1D.")
    if data.has_rank():
        require(len(data) >= 1, "data is a scalar; SegmentMax needs rank >= 1.")
        if ids.has_rank():
            _merge(data[0], ids[0], f"segment_ids {ids} must have one value per row of data {data}.")
    values = const_ints(node, 1)
    if values is not None:
        require(all(v >= 0 for v in values) and values == sorted(values),
                f"segment_ids {values} must be non-negative and sorted in non-decreasing order.")
    count: Dimension = Dimension() if values is None else Dimension(values[-1] + 1 if values else 0)
    if node.get_input_size() == 3:
        n = _scalar_input(node, 2, "num_segments")
        if n is not None:
            require(n >= 0, f"num_segments={n} must be non-negative.")
            count = Dimension(n)
    tail = list(data.dims[1:]) if data.has_rank() else None
    return [(et, PartialShape([count, *tail]) if tail is not None else PartialShape.dynamic())]


add = elementwise_binary("Add")
subtract = elementwise_binary("Subtract")
multiply = elementwise_binary("Multiply")
power = elementwise_binary("Power")
maximum = elementwise_binary("Maximum")
minimum = elementwise_binary("Minimum")
squared_difference = elementwise_binary("SquaredDifference")
floor_mod = elementwise_binary("FloorMod")
mod = elementwise_binary("Mod")

abs = elementwise_unary("Abs")  # noqa: A001 - OpenVINO's builder name
negative = elementwise_unary("Negative")
log = elementwise_unary("Log")
sqrt = elementwise_unary("Sqrt")
tanh = elementwise_unary("Tanh")
erf = elementwise_unary("Erf")


@define_op("ErfInv", 17, inputs=1)
def _infer_erfinv(node: Node) -> list[tuple[Type, PartialShape]]:
    """Same type and shape as the input, which must be of a floating-point type (the spec's T)."""
    return [(_real_data(node), node.get_input_partial_shape(0))]


def erfinv(data: NodeInput, name: str | None = None) -> Node:
    """ErfInv-17: elementwise inverse error function (``erfinv(±1) = ±inf``, NaN for ``|x| > 1``)."""
    return make_node("ErfInv", 17, [as_output(data)], {}, name)


def divide(left: NodeInput, right: NodeInput, auto_broadcast: str = "numpy", python_division: bool = True,
           name: str | None = None) -> Node:
    """Elementwise Divide; integer division floors when ``python_division`` (m_pythondiv) is set."""
    return make_node("Divide", 1, as_outputs(left, right),
                     {"auto_broadcast": auto_broadcast, "m_pythondiv": python_division}, name)


def _unary(type_name: str) -> UnaryBuilder:
    version = UNARY_VERSIONS[type_name]

    def build(data: NodeInput, name: str | None = None) -> Node:
        return make_node(type_name, version, [as_output(data)], {}, name)

    build.__name__ = build.__qualname__ = type_name.lower()
    build.__doc__ = f"Elementwise {type_name}-{version} (any numeric element type; output of the same type)."
    return build


sin = _unary("Sin")
cos = _unary("Cos")
tan = _unary("Tan")
asin = _unary("Asin")
acos = _unary("Acos")
atan = _unary("Atan")
sinh = _unary("Sinh")
cosh = _unary("Cosh")
asinh = _unary("Asinh")
acosh = _unary("Acosh")
atanh = _unary("Atanh")
floor = _unary("Floor")
ceiling = _unary("Ceiling")
sign = _unary("Sign")


def round(data: NodeInput, mode: str = "half_to_even", name: str | None = None) -> Node:  # noqa: A001
    """Round-5: to the nearest integer; ``mode`` ("half_to_even" or "half_away_from_zero",
    case-insensitive) decides halves. Integer inputs pass through unchanged."""
    mode = mode.lower() if isinstance(mode, str) else mode
    return make_node("Round", 5, [as_output(data)], {"mode": mode}, name)


def cumsum(arg: NodeInput, axis: NodeInput | None = None, exclusive: bool = False, reverse: bool = False,
           name: str | None = None) -> Node:
    """CumSum-3 along ``axis`` (a scalar node or integer; 0 when None)."""
    inputs = [as_output(arg)] + ([] if axis is None else [index_input(axis, "CumSum axis")])
    return make_node("CumSum", 3, inputs, {"exclusive": exclusive, "reverse": reverse}, name)


def segment_max(data: NodeInput, segment_ids: NodeInput, num_segments: NodeInput | None = None,
                fill_mode: str = "zero", name: str | None = None) -> Node:
    """SegmentMax-16: row maxima per segment; empty segments hold 0 (``zero``) or the type's lowest value."""
    inputs = [as_output(data), index_input(segment_ids, "SegmentMax segment_ids")]
    if num_segments is not None:
        inputs.append(index_input(num_segments, "SegmentMax num_segments"))
    return make_node("SegmentMax", 16, inputs, {"fill_mode": fill_mode.lower()}, name)
