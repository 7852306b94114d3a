"""Tests of the infrastructure ops (OpenVINO's op-spec folder "infrastructure"): ReadValue-3/6 and
Assign-3/6 (model variables) — builder inference and errors (as OpenVINO writes and infers them),
REFERENCE kernel numerics against literal values or independent loop formulas (transcriptions of the
specs' pseudo-code), and the case strategies.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from _op_helpers import P
from _op_helpers import out as shape

from ovconform import Model, PartialShape, Type
from ovconform import opset as ops
from ovconform.errors import ValidationError
from ovconform.ir import Node, make_node
from ovconform.opset._infrastructure import VariableInfo, check_variables, variable_infos


def test_read_value_6() -> None:
    rv = ops.read_value(P([2, 3]), "v", "f32", [-1, 3])
    assert (shape(rv), rv.get_output_element_type(0)) == ("[?,3]", Type.f32)
    assert rv.attrs == {"variable_id": "v", "variable_type": Type.f32, "variable_shape": PartialShape([-1, 3])}
    bare = ops.read_value(None, "w", Type.i32, [2, "1..4"])
    assert (bare.get_input_size(), shape(bare), bare.get_output_element_type(0)) == (0, "[2,1..4]", Type.i32)
    defaulted = ops.read_value(P([2], "f16"), "u")
    assert defaulted.attrs["variable_type"] == Type.f16 and defaulted.attrs["variable_shape"] == [2]


@pytest.mark.parametrize(("init", "vtype", "vshape", "message"), [
    ([2, 4], "f32", [-1, 3], r"the initializing input has shape \[2,4\], which variable_shape \[\?,3\] does not allow"),
    ([-1, 3], "f32", [2, 3], r"the initializing input has shape \[\?,3\], which variable_shape \[2,3\]"),
    ([2, 3], "f16", [2, 3], r"the initializing input has element type f32; variable_type is f16"),
])
def test_read_value_6_errors(init: list[Any], vtype: str, vshape: list[Any], message: str) -> None:
    with pytest.raises(ValidationError, match=r"^ReadValue-6 node 'rv': " + message):
        ops.read_value(P(init), "v", vtype, vshape, name="rv")
    with pytest.raises(ValidationError, match=r"ReadValue-6 node 'rv': variable_type is required"):
        ops.read_value(None, "v", name="rv")
    with pytest.raises(ValidationError, match=r"ReadValue-6 node 'rv': attribute variable_id is empty"):
        ops.read_value(P(init), "", name="rv")


def _loop(version: int, et: str = "f32") -> tuple[Model, Node, Node]:
    x = P([2, 3], et, name="x")
    if version == 6:
        rv = ops.read_value(ops.constant(np.zeros([2, 3], Type.f32.to_dtype() if et == "f32" else et)), "state")
    else:
        rv = make_node("ReadValue", 3, [P([2, 3], et, name="init").output(0)], {"variable_id": "state"})
    y = ops.add(rv, x)
    sink = make_node("Assign", version, [y.output(0)], {"variable_id": "state"}, "a")
    params = [p for p in (x, rv.input_value(0).node) if p.type_name == "Parameter"]
    return Model([y], [sink], params, "loop"), rv, sink


@pytest.mark.parametrize("version", [3, 6])
def test_state_loop_model(version: int) -> None:
    model, rv, sink = _loop(version)
    assert model.get_sinks() == [sink] and sink.attrs == {"variable_id": "state"}
    assert model.get_variables() == ["state"]
    assert variable_infos(model) == [VariableInfo("state", Type.f32, PartialShape([2, 3]))]
    check_variables(model)
    assert shape(sink) == "[2,3]" and rv.attrs["variable_id"] == "state"


def test_assign_errors_name_the_node() -> None:
    with pytest.raises(ValidationError, match=r"^Assign-3 node 'a': no ReadValue of variable 'v' feeds this Assign"):
        make_node("Assign", 3, [P([2]).output(0)], {"variable_id": "v"}, "a")
    rv = ops.read_value(ops.constant(np.zeros([2, 3], np.float32)), "v")
    with pytest.raises(ValidationError, match=r"^Assign-6 node 'a': the new value has element type f16; variable "
                                              r"'v' has type f32"):
        ops.assign(ops.convert(rv, "f16"), "v", name="a")
    with pytest.raises(ValidationError, match=r"^Assign-6 node 'a': the new value has shape \[6\]; variable 'v' "
                                              r"has shape \[2,3\]"):
        ops.assign(ops.reshape(rv, [6], False), rv, name="a")
    with pytest.raises(ValidationError, match=r"Assign-6 node 'a': Parameter-1 node '.*' is not a ReadValue"):
        ops.assign(rv, P([1]), name="a")


def test_check_variables_sees_an_assign_the_node_could_not_check() -> None:
    rv = ops.read_value(ops.constant(np.zeros([2], np.float32)), "v")
    other = P([3], name="other")
    sink = ops.assign(other, "v", name="a")  # not downstream of the ReadValue: unchecked at build
    model = Model([rv], [sink], [other], "m")
    assert model.get_variables() == ["v"]
    with pytest.raises(ValidationError, match=r"Assign-6 node 'a': the new value has shape \[3\]; variable 'v'"):
        check_variables(model)
    clash = ops.read_value(None, "v", "f32", [5], name="clash")
    with pytest.raises(ValidationError, match=r"ReadValue-6 node 'clash': variable 'v' is declared as f32 \[5\]"):
        check_variables(Model([rv, clash], [], "m2"))


@pytest.mark.openvino
@pytest.mark.parametrize("version", [3, 6])
def test_state_attributes_agree_with_openvino(version: int, tmp_path: Any) -> None:
    bridge = pytest.importorskip("_ovbridge")
    model, rv, sink = _loop(version)
    rv.set_friendly_name("rv")
    written = bridge.ir_attrs(model, tmp_path)
    assert {k: bridge.ir_string(v) for k, v in rv.attrs.items()} == written["rv"]
    assert {k: bridge.ir_string(v) for k, v in sink.attrs.items()} == written["a"]
