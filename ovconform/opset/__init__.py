"""Builders for every op, named as in ``openvino.opset16``: ``parameter``, ``add``, ``relu``, ...

Each builder checks its arguments and infers output types and shapes; a bad construction raises
:class:`ovconform.errors.ValidationError` naming the op type, the node and what was wrong.
"""

from __future__ import annotations

from ovconform.opset._core import constant, convert, convert_like, parameter, result
from ovconform.opset._elementwise import (
    abs, add, clamp, divide, equal, erf, exp, floor_mod, gelu, greater, greater_equal, less,
    less_equal, log, logical_and, logical_not, logical_or, logical_xor, maximum, minimum, mod,
    multiply, negative, not_equal, power, relu, select, sigmoid, sqrt, squared_difference,
    subtract, tanh,
)

__all__ = [
    "abs", "add", "clamp", "constant", "convert", "convert_like", "divide", "equal", "erf", "exp",
    "floor_mod", "gelu", "greater", "greater_equal", "less", "less_equal", "log", "logical_and",
    "logical_not", "logical_or", "logical_xor", "maximum", "minimum", "mod", "multiply",
    "negative", "not_equal", "parameter", "power", "relu", "result", "select", "sigmoid", "sqrt",
    "squared_difference", "subtract", "tanh",
]
