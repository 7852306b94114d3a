"""Unary math ops: trigonometric and hyperbolic functions and their inverses, Floor, Ceiling,
Sign and Round.

Every op takes one tensor of any numeric element type (boolean is refused) and returns a tensor
of the same element type and shape. Versions follow the opset that introduced the op: the
inverse hyperbolic functions are opset4 (``ov::op::v3``), Round is opset5 with attribute
``mode`` ("half_to_even" or "half_away_from_zero"), the rest are opset1.
"""

from __future__ import annotations

from ovconform.ir import AttrSpec, Node, PartialShape, Type, define_op, make_node
from ovconform.opset._helpers import NodeInput, as_output, require

__all__ = [
    "acos", "acosh", "asin", "asinh", "atan", "atanh", "ceiling", "cos", "cosh", "floor", "round",
    "sign", "sin", "sinh", "tan",
]

#: op type -> the opset version it exists in (one version each in opset1..opset16).
UNARY_VERSIONS: dict[str, int] = {
    "Sin": 1, "Cos": 1, "Tan": 1, "Asin": 1, "Acos": 1, "Atan": 1, "Sinh": 1, "Cosh": 1,
    "Asinh": 4, "Acosh": 4, "Atanh": 4, "Floor": 1, "Ceiling": 1, "Sign": 1,
}
ROUND_MODES = ("half_to_even", "half_away_from_zero")


def _numeric(node: Node) -> list[tuple[Type, PartialShape]]:
    et = node.get_input_element_type(0)
    require(et != Type.boolean, f"element type {et} is not allowed; {node.type_name} needs a numeric type.")
    return [(et, node.get_input_partial_shape(0))]


for _t, _v in UNARY_VERSIONS.items():
    define_op(_t, _v, inputs=1)(_numeric)
define_op("Round", 5, inputs=1, attrs=[AttrSpec("mode", "str", "half_to_even", ROUND_MODES)])(_numeric)


def _unary(type_name: str):  # noqa: ANN202 - builder factory
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
