"""Case strategies of the infrastructure ops (OpenVINO's op-spec folder "infrastructure") that
have strategies of their own: ReadValue-3/6 and Assign-3/6 (Parameter, Constant and Result are in
every case).

Every case is the stateful loop ``ReadValue(init) -> Add(x) -> Assign`` with the Assign as the
model's sink and the Add (and sometimes the ReadValue) as results. Within one infer request the
first inference reads the init value (zeros for a ReadValue-6 without init); each later one
reads what the previous inference assigned; ``reset_state`` goes back to the init value.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from ovconform.ir import PartialShape, Type, make_node
from ovconform.opcases import OpCase, register_case
from ovconform.opcases._draw_dynamic import CaseBuilder, Draw, draw_shape, draw_type, random_array
from ovconform.opset import add, constant

STATE_TYPES = (Type.f32, Type.f16, Type.i32)
NOTE = ("stateful: infer more than once on one request; each inference reads what the previous "
        "one assigned, and reset_state restores the init value (zeros without an init input). "
        "variable_shape is static: OpenVINO CPU cannot Assign into a variable of dynamic shape.")


def _state_case(draw: Draw, op_type: str, version: int) -> OpCase:
    b = CaseBuilder(draw)
    shape = draw_shape(draw, 0, 3)
    et = draw_type(draw, STATE_TYPES)
    vid = f"var{draw(st.integers(0, 99))}"
    init_kind = draw(st.sampled_from(["constant", "parameter"] + (["none"] if version == 6 else [])))
    inputs = []
    if init_kind == "constant":
        inputs.append(constant(random_array(b.rng, shape, et), et).output(0))
    elif init_kind == "parameter":
        inputs.append(b.data(shape, et, "init", dynamic_ok=False).output(0))
    attrs: dict[str, Any] = {"variable_id": vid}
    if version == 6:
        attrs |= {"variable_type": et, "variable_shape": PartialShape(shape)}
    read = make_node("ReadValue", version, inputs, attrs)
    x = b.data(shape, et, "x", dynamic_ok=False)
    new_value = add(read, x)
    sink = make_node("Assign", version, [new_value.output(0)], {"variable_id": vid})
    outputs = [new_value.output(0)] + ([read.output(0)] if draw(st.booleans()) else [])
    return b.case(op_type, version, outputs, NOTE, sinks=[sink], stateful=True, variables=[vid])


@register_case("ReadValue", 3)
def read_value_3_case(draw: Draw) -> OpCase:
    return _state_case(draw, "ReadValue", 3)


@register_case("ReadValue", 6)
def read_value_6_case(draw: Draw) -> OpCase:
    return _state_case(draw, "ReadValue", 6)


@register_case("Assign", 3)
def assign_3_case(draw: Draw) -> OpCase:
    return _state_case(draw, "Assign", 3)


@register_case("Assign", 6)
def assign_6_case(draw: Draw) -> OpCase:
    return _state_case(draw, "Assign", 6)
