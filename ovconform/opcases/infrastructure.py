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

import numpy as np
from hypothesis import strategies as st

from ovconform import opset
from ovconform.ir import Model, PartialShape, Type, make_node
from ovconform.opcases import OpCase, register_case
from ovconform.opcases._draw import CaseBuilder as _Builder
from ovconform.opcases._draw import draw_seed
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


# -- Loop-5 and TensorIterator-1 (sub-graph bodies) -------------------------------------------------------

LOOP_TYPES = (Type.f32, Type.i32)


def _scaled(value: Any, et: Type, factor: float) -> Any:
    """``value * factor`` (f32) or ``value + 1`` (i32: exact, no overflow over a few iterations)."""
    if et == Type.i32:
        return opset.add(value, opset.constant(np.int32(1)))
    return opset.multiply(value, opset.constant(np.float32(factor)))


@register_case("Loop", 5)
def case_loop(draw: Draw) -> OpCase:
    """A counted Loop (constant trip count, body condition true), a Loop stopped by its body condition
    (``i < stop``) with a run-time trip count (-1: no limit, or a number), or a do-while (body condition
    false: one iteration); the current iteration (i32/i64, rank 0 or 1) feeds the body; a merged
    accumulator, an invariant input and (sometimes) a sliced input; the last value and every
    iteration's value concatenated along a drawn axis as outputs."""
    et = draw(st.sampled_from(LOOP_TYPES))
    mode = draw(st.sampled_from(("counted", "counted", "condition", "condition", "do_while")))
    shape = tuple(draw_shape(draw, 1, 3, 4))
    sliced = draw(st.booleans())
    n_slices = draw(st.integers(1, 5))
    it_type = draw(st.sampled_from((Type.i64, Type.i32)))
    it_shape: list[int] = draw(st.sampled_from(([], [1])))
    b = _Builder(draw_seed(draw))
    trip = draw(st.integers(1 if mode != "counted" else 2, 5))
    stop = draw(st.integers(0, 5))
    if sliced:
        trip = min(trip, n_slices)
        stop = min(stop, n_slices - 1)
    if mode == "counted":
        trip_count = b.const(np.array(trip, np.int64))
    else:
        trip_value = draw(st.sampled_from((-1, trip, 6)))
        if sliced and trip_value == 6:
            trip_value = -1
        trip_count = b.param("trip_count", np.array(trip_value, np.int64))
    acc0 = b.param("acc", b.uniform(shape, et, -4, 4))
    bias = b.param("bias", b.uniform(shape, et, -4, 4))
    it, acc = opset.parameter(it_shape, it_type), opset.parameter(list(shape), et)
    inv = opset.parameter(list(shape), et)
    step = opset.add(_scaled(acc, et, 0.75), inv)
    entries = [opset.invariant_input(inv, bias)]
    params = [it, acc, inv]
    if sliced:
        xs = b.param("xs", b.uniform((n_slices, *shape), et, -4, 4))
        xi = opset.parameter([1, *shape], et)
        step = opset.add(step, opset.reshape(xi, opset.constant(np.array(shape, np.int64)), False))
        entries.append(opset.sliced_input(xi, xs, 0, 1, 1, -1, 0))
        params.append(xi)
    step = opset.add(step, opset.convert(opset.reshape(it, opset.constant(np.array([], np.int64)), False), et))
    if mode == "counted":
        cond = opset.constant(True)
    elif mode == "do_while":
        cond = opset.constant(False)
    else:
        cond = opset.less(opset.convert(it, Type.i64), opset.constant(np.array(stop, np.int64)))
    axis = draw(st.integers(0, len(shape)))  # each iteration's value is 1 wide along it (OpenVINO CPU needs it)
    body = Model([step, cond, opset.unsqueeze(step, opset.constant(np.array([axis], np.int64)))], params, "body")
    results = body.get_results()
    entries.insert(0, opset.merged_input(acc, acc0, results[0]))
    node = opset.loop(trip_count, opset.constant(True), body, entries,
                      [opset.iter_value(results[0]), opset.concatenated_slices(results[2], 0, 1, 1, -1, axis)],
                      current_iteration=it, body_condition=results[1])
    return b.finish("Loop", 5, node, "trip count and body condition decide the iterations (a run-time trip "
                                     "count of -1 has no limit); outputs: last value and all values concatenated.")


@register_case("TensorIterator", 1)
def case_tensor_iterator(draw: Draw) -> OpCase:
    """An RNN-like TensorIterator: a sequence sliced along a drawn axis (forwards or backwards,
    ``part_size`` 1 or 2), a hidden state carried by a back edge, an invariant weight; the last state
    and every state concatenated (forwards or backwards) as outputs."""
    et = draw(st.sampled_from(LOOP_TYPES))
    rank = draw(st.integers(2, 3))
    part = draw(st.sampled_from((1, 1, 2)))
    steps = draw(st.integers(1, 4))
    shape = [draw(st.integers(1, 4)) for _ in range(rank)]
    axis = draw(st.integers(0, rank - 1))
    forward = draw(st.booleans())
    seq_shape = list(shape)
    seq_shape[axis] = steps * part
    b = _Builder(draw_seed(draw))
    seq = b.param("seq", b.uniform(seq_shape, et, -3, 3))
    h0 = b.param("h0", b.uniform(shape[:axis] + [part] + shape[axis + 1:], et, -3, 3))
    w = b.param("w", b.uniform([1] * rank, et, -1, 1) if et == Type.f32 else b.uniform([1] * rank, et, -2, 2))
    part_shape = shape[:axis] + [part] + shape[axis + 1:]
    xi, hi, wi = (opset.parameter(part_shape, et), opset.parameter(part_shape, et),
                  opset.parameter([1] * rank, et))
    mixed = opset.add(opset.multiply(hi, wi), xi)
    new_h = opset.tanh(mixed) if et == Type.f32 else opset.clamp(mixed, -50, 50)
    body = Model([new_h], [xi, hi, wi], "body")
    r = body.get_results()[0]
    start, stride, end = (0, part, -1) if forward else (-1, -part, 0)
    out_stride = draw(st.sampled_from((1, -1)))
    entries = [opset.sliced_input(xi, seq, start, stride, part, end, axis), opset.merged_input(hi, h0, r),
               opset.invariant_input(wi, w)]
    outs = [opset.iter_value(r), opset.concatenated_slices(r, 0 if out_stride > 0 else -1, out_stride * part, part,
                                                           -1 if out_stride > 0 else 0, axis)]
    node = opset.tensor_iterator(body, entries, outs)
    return b.finish("TensorIterator", 1, node, "the sequence is walked along a drawn axis, forwards or "
                                               "backwards, part_size 1 or 2; a back edge carries the state.")
