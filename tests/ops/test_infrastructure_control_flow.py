"""The control-flow ops (issue #22 item 2): If-8, Loop-5 and TensorIterator-1.

Builders, validation and shape inference (as OpenVINO infers: a counted Loop's concatenated output
is static, a Loop its body condition stops is dynamic along the axis; If with a constant condition
takes the chosen branch's shapes, else the union); the REFERENCE kernels' semantics (a run-time trip
count of -1, a false execution condition, do-while, slicing backwards and in parts of two);
copies and cache digests that follow the bodies; query_model over bodies (a device answers for a
control-flow op only when it supports every op of its bodies) and HETERO (a control-flow op stays
whole on one device); and the op suite catching the broken devices of
``tests/plugins/control_flow_faults.py``.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import pytest
from _session import assert_fails_only_its_ops, assert_passes_every_test_of, once_per_session, op_fault_runs
from plugins import control_flow_faults as faults
from plugins.partial_device import PartialPlugin

from ovconform import Core, read_model, serialize
from ovconform import opset as o
from ovconform import properties as P
from ovconform.errors import InferError, ValidationError
from ovconform.host.cache import model_digest
from ovconform.ir import InvariantInputDescription, Model, Node, SpecialBodyPorts, Type, make_node
from reference_plugin.evaluate import evaluate
from reference_plugin.ops import _common_subgraph
from reference_plugin.plugin import ReferencePlugin

F32 = Type.f32


# -- models --------------------------------------------------------------------------------------------

def _if(cond: Any = None, else_shape: tuple[int, ...] = (2, 3)) -> tuple[Model, Node]:
    c = cond if cond is not None else o.parameter([], Type.boolean, "cond")
    x, y = o.parameter([2, 3], F32, "x"), o.parameter([2, 3], F32, "y")
    tx, ty = o.parameter([2, 3], F32), o.parameter([2, 3], F32)
    then_body = Model([o.add(tx, ty)], [tx, ty], "then")
    ex = o.parameter([2, 3], F32)
    value = o.multiply(ex, o.constant(np.float32(2)))
    if else_shape != (2, 3):
        value = o.reshape(value, o.constant(np.array(else_shape, np.int64)), False)
    else_body = Model([value], [ex], "else")
    node = o.if_op(c, then_body, else_body, [(x, tx, ex), (y, ty, None)],
                   [(then_body.get_results()[0], else_body.get_results()[0])], name="if")
    params = [c, x, y] if c.type_name == "Parameter" else [x, y]
    return Model([node], params, "if_model"), node


def _loop(trip: Any, stop: int | None = None, execution: bool = True) -> tuple[Model, Node]:
    """acc <- acc * 2 + i on each iteration; the last acc and every i concatenated."""
    a = o.parameter([2], F32, "a")
    it, acc = o.parameter([1], Type.i64), o.parameter([2], F32)
    step = o.add(o.multiply(acc, o.constant(np.float32(2))), o.convert(it, F32))
    cond = o.constant(True) if stop is None else o.less(it, o.constant(np.array([stop], np.int64)))
    body = Model([step, cond, o.convert(it, F32)], [it, acc], "body")
    r = body.get_results()
    node = o.loop(trip, o.constant(execution), body, [o.merged_input(acc, a, r[0])],
                  [o.iter_value(r[0]), o.concatenated_slices(r[2])], current_iteration=it, body_condition=r[1],
                  name="loop")
    params = [a] + ([trip] if isinstance(trip, Node) and trip.type_name == "Parameter" else [])
    return Model(node.outputs(), params, "loop_model"), node


def _ti(start: int, stride: int, part: int, end: int, out_stride: int = 1) -> tuple[Model, Node]:
    x, h = o.parameter([4, 2], F32, "x"), o.parameter([part, 2], F32, "h")
    xi, hi = o.parameter([part, 2], F32), o.parameter([part, 2], F32)
    s = o.add(o.multiply(hi, o.constant(np.float32(0.5))), xi)
    body = Model([s], [xi, hi], "body")
    r = body.get_results()[0]
    node = o.tensor_iterator(body, [o.sliced_input(xi, x, start, stride, part, end, 0), o.merged_input(hi, h, r)],
                             [o.iter_value(r), o.concatenated_slices(r, 0 if out_stride > 0 else -1,
                                                                     out_stride * part, part,
                                                                     -1 if out_stride > 0 else 0, 0)], name="ti")
    return Model(node.outputs(), [x, h], "ti_model"), node


# -- shape inference -------------------------------------------------------------------------------------

def test_shapes_follow_openvino() -> None:
    assert str(_if()[1].get_output_partial_shape(0)) == "[2,3]"
    assert str(_if(else_shape=(2, 3, 1))[1].get_output_partial_shape(0)) == "..."  # ranks differ
    assert str(_if(else_shape=(3, 2))[1].get_output_partial_shape(0)) == "[2..3,2..3]"
    assert str(_if(o.constant(False), else_shape=(3, 2))[1].get_output_partial_shape(0)) == "[3,2]"
    counted = _loop(o.constant(np.int64(4)))[1]
    assert [str(s.get_partial_shape()) for s in counted.outputs()] == ["[2]", "[4]"]
    stopped = _loop(o.parameter([], Type.i64, "trip"), stop=2)[1]
    assert [str(s.get_partial_shape()) for s in stopped.outputs()] == ["[2]", "[?]"]
    assert [str(s.get_partial_shape()) for s in _ti(0, 2, 2, -1)[1].outputs()] == ["[2,2]", "[4,2]"]


def test_a_back_edge_of_another_shape_makes_the_parameter_dynamic() -> None:
    a = o.parameter([1], F32, "a")
    acc = o.parameter([1], F32)
    grown = o.concat([acc, o.constant(np.zeros(1, np.float32))], 0)
    body = Model([grown, o.constant(True)], [acc], "body")
    r = body.get_results()
    node = o.loop(o.constant(np.int64(3)), o.constant(True), body, [o.merged_input(acc, a, r[0])],
                  [o.iter_value(r[0])], body_condition=r[1])
    assert str(node.attrs["bodies"][0].get_parameters()[0].get_output_partial_shape(0)) == "[?]"
    assert str(node.get_output_partial_shape(0)) == "[1..]"  # Concat of [?] and [1]
    out = evaluate(Model(node.outputs(), [a]), [np.array([7], np.float32)])
    np.testing.assert_array_equal(out[0], [7, 0, 0, 0])


@pytest.mark.parametrize(("build", "message"), [
    (lambda: o.if_op(o.parameter([], F32), Model([o.parameter([1])], name="t"), Model([o.parameter([1])], name="e")),
     "cond has element type f32; allowed: boolean"),
    (lambda: o.if_op(o.parameter([], Type.boolean), Model([o.relu(p := o.parameter([2]))], [p]),
                     Model([o.relu(q := o.parameter([2]))], [q]), [(o.parameter([2]), o.parameter([2]), q)]),
     "is not a Parameter of the body"),
    (lambda: o.if_op(o.parameter([], Type.boolean), Model([o.relu(p := o.parameter([2]))], [p]),
                     Model([o.convert(q := o.parameter([2]), Type.i32)], [q]), [(o.parameter([2]), p, q)],
                     [(o.relu(p), None)]),
     "is not a Result of the body"),
    (lambda: _mixed_types_if(), "the then body gives f32, the else body i32; they must agree"),
    (lambda: o.loop(o.constant(np.int64(2)), o.constant(True), Model([o.constant(True)], [], "b")),
     "body_condition (the body Result that says whether to run another iteration) is required"),
    (lambda: _loop_with(lambda x, xi: [o.sliced_input(xi, x, 0, 2, 2, -1, 0)]),
     "a Loop slices the whole axis one element at a time"),
    (lambda: _loop_with(lambda x, xi: []), "is fed by no input description"),
    (lambda: _float_trip(), "trip_count has element type f32; allowed: i32, i64"),
    (lambda: _ti_disagreeing(), "another sliced input gives"),
])
def test_bad_constructions_are_named(build: Any, message: str) -> None:
    with pytest.raises(ValidationError) as info:
        build()
    assert message in str(info.value)


def _mixed_types_if() -> Node:
    p, q = o.parameter([2]), o.parameter([2])
    then_body, else_body = Model([o.relu(p)], [p]), Model([o.convert(q, Type.i32)], [q])
    x = o.parameter([2])
    return o.if_op(o.parameter([], Type.boolean), then_body, else_body, [(x, p, q)],
                   [(then_body.get_results()[0], else_body.get_results()[0])])


def _float_trip() -> Node:
    body = Model([o.constant(True)], [], "b")
    return o.loop(o.constant(np.float32(2)), o.constant(True), body, body_condition=body.get_results()[0])


def _loop_with(entries: Any) -> Node:
    x, xi = o.parameter([4, 2]), o.parameter([1, 2])
    body = Model([o.relu(xi), o.constant(True)], [xi], "b")
    r = body.get_results()
    return o.loop(o.constant(np.int64(2)), o.constant(True), body, entries(x, xi), [o.iter_value(r[0])],
                  body_condition=r[1])


def _ti_disagreeing() -> Node:
    x, y, xi, yi = o.parameter([4, 2]), o.parameter([3, 2]), o.parameter([1, 2]), o.parameter([1, 2])
    body = Model([o.add(xi, yi)], [xi, yi], "b")
    return o.tensor_iterator(body, [o.sliced_input(xi, x, 0, 1, 1, -1, 0), o.sliced_input(yi, y, 0, 1, 1, -1, 0)],
                             [o.iter_value(body.get_results()[0])])


def test_a_malformed_port_map_is_named() -> None:
    cond, x = o.parameter([], Type.boolean), o.parameter([2])
    with pytest.raises(ValidationError, match="attribute 'bodies' must be a list of Models"):
        make_node("If", 8, [cond.output(0), x.output(0)],
                  {"bodies": "nope", "input_descriptions": [[], []], "output_descriptions": [[], []]})
    p = o.parameter([2])
    body = Model([o.relu(p)], [p], "b")
    with pytest.raises(ValidationError, match="body_parameter_index 5 is out of range; body 0 has 1 Parameter"):
        make_node("TensorIterator", 1, [x.output(0)],
                  {"bodies": [body], "output_descriptions": [[]],
                   "input_descriptions": [[InvariantInputDescription(0, 5)]]})
    with pytest.raises(ValidationError, match="special_body_ports.body_condition_output_idx 3 is out of range"):
        make_node("Loop", 5, [o.constant(np.int64(1)).output(0), o.constant(True).output(0)],
                  {"bodies": [Model([o.constant(True)], [], "b")], "input_descriptions": [[]],
                   "output_descriptions": [[]], "special_body_ports": SpecialBodyPorts(-1, 3)})


# -- REFERENCE semantics ----------------------------------------------------------------------------------

def test_if_runs_the_branch_its_condition_names() -> None:
    model, _ = _if()
    x, y = np.full((2, 3), 3, np.float32), np.full((2, 3), 4, np.float32)
    np.testing.assert_array_equal(evaluate(model, [np.array(True), x, y])[0], x + y)
    np.testing.assert_array_equal(evaluate(model, [np.array(False), x, y])[0], x * 2)
    one = o.parameter([1], Type.boolean, "cond")
    model1, _ = _if(one)
    np.testing.assert_array_equal(evaluate(model1, [np.array([False]), x, y])[0], x * 2)


def _acc(start: np.ndarray, n: int) -> np.ndarray:
    for i in range(n):
        start = start * 2 + i
    return start


@pytest.mark.parametrize(("trip", "stop", "iterations"), [(4, None, 4), (-1, 2, 3), (2, 5, 2), (5, 0, 1), (1, None, 1)])
def test_loop_iterations_follow_trip_count_and_condition(trip: int, stop: int | None, iterations: int) -> None:
    model, _ = _loop(o.parameter([], Type.i64, "trip"), stop)
    a = np.array([1, -1], np.float32)
    last, steps = evaluate(model, [a, np.array(trip, np.int64)])
    np.testing.assert_array_equal(last, _acc(a, iterations))
    np.testing.assert_array_equal(steps, np.arange(iterations, dtype=np.float32))


def test_a_false_execution_condition_runs_no_iteration() -> None:
    model, node = _loop(o.constant(np.int64(3)), execution=False)
    assert [str(s.get_partial_shape()) for s in node.outputs()] == ["[0]", "[0]"]
    model2, _ = _loop(o.parameter([], Type.i64, "trip"), execution=False)
    last, steps = evaluate(model2, [np.array([5, 6], np.float32), np.array(3, np.int64)])
    np.testing.assert_array_equal(last, [5, 6])  # the back-edged value keeps its initial value
    assert steps.shape == (0,)


def test_an_endless_loop_is_stopped_with_a_named_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_common_subgraph, "MAX_ITERATIONS", 20)
    import reference_plugin.ops.op_loop as op_loop

    monkeypatch.setattr(op_loop, "MAX_ITERATIONS", 20)
    model, _ = _loop(o.parameter([], Type.i64, "trip"))
    with pytest.raises(InferError, match="Loop-5 node 'loop': the loop ran 20 iterations"):
        evaluate(model, [np.zeros(2, np.float32), np.array(-1, np.int64)])


@pytest.mark.parametrize(("start", "stride", "part", "end", "out_stride"),
                         [(0, 1, 1, -1, 1), (-1, -1, 1, 0, 1), (0, 2, 2, -1, 1), (-1, -2, 2, 0, -1), (1, 1, 1, 2, 1)])
def test_tensor_iterator_walks_its_slices(start: int, stride: int, part: int, end: int, out_stride: int) -> None:
    model, _ = _ti(start, stride, part, end, out_stride)
    x = np.arange(8, dtype=np.float32).reshape(4, 2)
    h = np.ones((part, 2), np.float32)
    dim = 4
    s, e = start % dim, end % dim
    firsts = list(range(min(s, e), max(s, e) + 1, part))
    if stride < 0:
        firsts.reverse()
    states = []
    for f in firsts:
        h = h * 0.5 + x[f:f + part]
        states.append(h)
    if out_stride < 0:
        states.reverse()
    last, stacked = evaluate(model, [x, np.ones((part, 2), np.float32)])
    np.testing.assert_array_equal(last, h)
    np.testing.assert_array_equal(stacked, np.concatenate(states, 0))


def test_loop_and_if_nest() -> None:
    a = o.parameter([2], F32, "a")
    it, acc = o.parameter([], Type.i64), o.parameter([2], F32)
    tp, ep = o.parameter([2], F32), o.parameter([2], F32)
    inner_then = Model([o.negative(tp)], [tp], "t")
    inner_else = Model([o.add(ep, o.constant(np.float32(1)))], [ep], "e")
    branch = o.if_op(o.equal(it, o.constant(np.int64(1))), inner_then, inner_else, [(acc, tp, ep)],
                     [(inner_then.get_results()[0], inner_else.get_results()[0])])
    body = Model([branch, o.constant(True)], [it, acc], "body")
    r = body.get_results()
    node = o.loop(o.constant(np.int64(3)), o.constant(True), body, [o.merged_input(acc, a, r[0])],
                  [o.iter_value(r[0])], current_iteration=it, body_condition=r[1])
    model = Model(node.outputs(), [a], "nested")
    np.testing.assert_array_equal(evaluate(model, [np.array([1, 2], np.float32)])[0], [-1, -2])  # +1, negate, +1
    again = read_model(*serialize(model))
    assert serialize(again) == serialize(model)
    np.testing.assert_array_equal(evaluate(again, [np.array([1, 2], np.float32)])[0], [-1, -2])


@pytest.mark.parametrize("key", [("If", 8), ("Loop", 5), ("TensorIterator", 1)], ids=lambda k: f"{k[0]}-{k[1]}")
def test_cases_built_with_openvinos_api_agree(key: tuple[str, int]) -> None:
    """Each op case rebuilt node by node with openvino's own API (``tests/_ovbridge.py``: ``set_input``,
    ``set_merged_input``, ``get_concatenated_slices``, ...): OpenVINO infers the same output types and
    shapes, and OpenVINO CPU computes what REFERENCE computes."""
    pytest.importorskip("openvino", reason="needs the openvino package")
    from _ovbridge import compile_cpu, node_shapes_agree, to_openvino

    from ovconform.opcases import generate_cases

    for case in generate_cases(*key, 10):
        ov_model, made = to_openvino(case.model)
        assert not node_shapes_agree(case.model, made)
        inputs = [case.inputs[p.friendly_name] for p in case.model.get_parameters()]
        compiled = compile_cpu(ov_model)
        theirs = compiled(inputs)
        for ours, out in zip(evaluate(case.model, inputs), compiled.outputs, strict=True):
            np.testing.assert_allclose(np.asarray(theirs[out]), ours, rtol=1e-5, atol=1e-5)


# -- copies, digests --------------------------------------------------------------------------------------

def test_clone_and_deepcopy_copy_the_bodies() -> None:
    model, node = _if()
    twin = model.clone()
    twin_if = next(n for n in twin.get_ordered_ops() if n.type_name == "If")
    assert twin_if.attrs["bodies"][0] is not node.attrs["bodies"][0]
    assert copy.deepcopy(node.attrs)["bodies"][1] is not node.attrs["bodies"][1]
    assert serialize(twin) == serialize(model)  # the same bodies, names and all


def test_the_cache_digest_follows_the_bodies() -> None:
    def build(op: Any) -> Model:
        x, p = o.parameter([2], F32, "x"), o.parameter([2], F32)
        body = Model([op(p), o.constant(True)], [p], "body")
        r = body.get_results()
        node = o.loop(o.constant(np.int64(2)), o.constant(True), body, [o.merged_input(p, x, r[0])],
                      [o.iter_value(r[0])], body_condition=r[1], name="loop")
        return Model(node.outputs(), [x], "m")

    assert model_digest(build(o.relu)) == model_digest(build(o.relu))
    assert model_digest(build(o.relu)) != model_digest(build(o.negative))


# -- query_model over bodies, HETERO ---------------------------------------------------------------------------

class ControlFlowPartial(PartialPlugin):
    """PARTIAL (elementwise ops only) that also takes If and Loop when it supports their bodies."""

    device_name = "CFPARTIAL"
    device_architecture = "CFPARTIAL"

    def _is_node_supported(self, node: Node, config: P.PropertyStore) -> bool:
        return node.type_name in ("If", "Loop") or super()._is_node_supported(node, config)

    def _compile_model(self, model: Model, config: P.PropertyStore, context: Any) -> Any:
        return ReferencePlugin._compile_model(self, model, config, context)


def _hetero_model(else_op: Any) -> Model:
    x = o.parameter([2, 3], F32, "x")
    c = o.parameter([], Type.boolean, "c")
    front = o.relu(x, name="front")
    tp, ep = o.parameter([2, 3], F32), o.parameter([2, 3], F32)
    then_body, else_body = Model([o.tanh(tp)], [tp], "t"), Model([else_op(ep)], [ep], "e")
    node = o.if_op(c, then_body, else_body, [(front, tp, ep)],
                   [(then_body.get_results()[0], else_body.get_results()[0])], name="branch")
    out = o.reduce_sum(node, o.constant(np.array([1], np.int64)), True, name="back")
    return Model([out], [c, x], "hetero_if")


def _softmax(v: Any) -> Node:
    return o.softmax(v, 1)


def test_query_model_answers_for_a_control_flow_op_only_with_its_bodies() -> None:
    core = Core([ControlFlowPartial, ReferencePlugin], discover=False)
    assert "branch" in core.query_model(_hetero_model(o.negative), "CFPARTIAL")
    assert "branch" not in core.query_model(_hetero_model(_softmax), "CFPARTIAL")  # Softmax is not elementwise
    assert "branch" in core.query_model(_hetero_model(_softmax), "REFERENCE")


@pytest.mark.parametrize(("else_op", "device"), [(o.negative, "CFPARTIAL"), (_softmax, "REFERENCE")])
def test_hetero_keeps_a_control_flow_op_whole(else_op: Any, device: str) -> None:
    core = Core([ControlFlowPartial, ReferencePlugin], discover=False)
    model = _hetero_model(else_op)
    compiled = core.compile_model(model, "HETERO:CFPARTIAL,REFERENCE")
    stage = next(s for s in compiled.stages if any(n.friendly_name == "branch" for n in s.nodes))
    assert stage.device == device
    placed = next(n for n in stage.nodes if n.friendly_name == "branch")
    assert len(placed.attrs["bodies"]) == 2  # the whole op, both bodies, on one device
    want = core.compile_model(model, "REFERENCE")
    imported = core.import_model(compiled.export_model(), "HETERO:CFPARTIAL,REFERENCE")
    assert [s.device for s in imported.stages] == [s.device for s in compiled.stages]
    x = np.random.default_rng(0).standard_normal((2, 3)).astype(np.float32)
    for flag in (True, False):
        inputs = {"c": np.array(flag), "x": x}
        np.testing.assert_allclose(compiled(inputs)[0], want(inputs)[0], rtol=1e-6)
        np.testing.assert_array_equal(imported(inputs)[0], compiled(inputs)[0])


# -- the op suite catches the broken devices -------------------------------------------------------------------

ALL = sorted(set(faults.FAULTS.values()))


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, dict[str, Any]]]:
    return once_per_session(tmp_path_factory, "control_flow_fault_runs",
                            lambda d: op_fault_runs(d, "control_flow_faults", list(faults.FAULTS), ALL, timeout=600))


def test_reference_passes_every_control_flow_test(runs: dict[str, Any]) -> None:
    assert_passes_every_test_of(runs["REFERENCE"], ALL, least=30)


@pytest.mark.parametrize("fault", sorted(faults.FAULTS))
def test_each_fault_fails_its_op_only(runs: dict[str, Any], fault: str) -> None:
    """An inference test of its op fails; an import/export test of the same op may fail too (it infers)."""
    assert_fails_only_its_ops(runs[getattr(faults, fault).device_name], fault, [faults.FAULTS[fault]],
                              inference_only=False)
