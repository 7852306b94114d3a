"""Case strategies of the logical ops (OpenVINO's op-spec folder "logical"): LogicalAnd, LogicalOr,
LogicalXor and Xor-1 (boolean data broadcast with numpy rules, or ``auto_broadcast="none"`` on equal
shapes) and LogicalNot.
"""

from __future__ import annotations

from ovconform.ir import Type
from ovconform.opcases import _stimulus_recipes as SR
from ovconform.opcases._draw import Gen2, _binary_case, _both, _range, unary_case

# op -> (types, value generator, note)
BINARY: dict[str, tuple[tuple[Type, ...], Gen2, str]] = {
    "LogicalAnd": ((Type.boolean,), _both(0, 1), ""),
    "LogicalOr": ((Type.boolean,), _both(0, 1), ""),
    "LogicalXor": ((Type.boolean,), _both(0, 1), ""),
    "Xor": ((Type.boolean,), _both(0, 1), "Xor-1 (opset1): LogicalXor's older form"),
}


for _op, (_types, _gen, _note) in BINARY.items():
    _binary_case(_op, _types, _gen, _note)
unary_case("LogicalNot", 1, (Type.boolean,), _range(0, 1), "")

# -- stimulus cases (issue #20: sizes, values, element types, dynamic shapes; see ovconform.opcases.stimulus)

SR.register_unary({
    ("LogicalNot", 1): {"types": (Type.boolean,), "gen": SR.uniform_gen(0, 1), "large": True},
})


SR.register_binary({
    ("LogicalAnd", 1): {"types": (Type.boolean,), "gen": SR.same_gen(SR.uniform_gen(0, 1))},
    ("LogicalOr", 1): {"types": (Type.boolean,), "gen": SR.same_gen(SR.uniform_gen(0, 1))},
    ("LogicalXor", 1): {"types": (Type.boolean,), "gen": SR.same_gen(SR.uniform_gen(0, 1))},
    ("Xor", 1): {"types": (Type.boolean,), "gen": SR.same_gen(SR.uniform_gen(0, 1))},
})
