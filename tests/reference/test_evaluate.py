"""evaluate() and ModelRunner: input binding, multi-op models, variable state over several calls,
error reporting, and every registered opcases strategy run end to end."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from ref_kernel_util import const

from ovconform import opset as ops
from ovconform.errors import InferError, UnsupportedOpError
from ovconform.ir import Model, PartialShape, Type, make_node
from reference_plugin.evaluate import ModelRunner, evaluate

F32 = np.float32


def _mlp() -> Model:
    x = ops.parameter([-1, 3], "f32", name="x")
    bias = ops.parameter([2], "f32", name="bias")
    bias.output(0).set_names({"bias_tensor", "b"})
    w = ops.constant(np.array([[1, 0], [0, 1], [1, 1]], F32))
    h = ops.add(ops.matmul(x, w, False, False), bias)
    y = ops.relu(h, name="relu")
    s = ops.softmax(y, -1)
    return Model([y, s], [x, bias], "mlp")


X = np.array([[1, -2, 3], [-4, 5, -6]], F32)
BIAS = np.array([0.5, -0.5], F32)


def _mlp_expected() -> tuple[np.ndarray, np.ndarray]:
    h = X @ np.array([[1, 0], [0, 1], [1, 1]], F32) + BIAS
    y = np.maximum(h, 0)
    e = np.exp(y - y.max(axis=-1, keepdims=True))
    return y, e / e.sum(axis=-1, keepdims=True)


def test_multi_op_model_by_order_and_by_name() -> None:
    y, s = _mlp_expected()
    for inputs in ([X, BIAS], {"x": X, "bias": BIAS}, {"x": X, "bias_tensor": BIAS}, {"b": BIAS, "x": X}):
        out = evaluate(_mlp(), inputs)
        assert len(out) == 2
        np.testing.assert_allclose(out[0], y, rtol=1e-6)
        np.testing.assert_allclose(out[1], s, rtol=1e-6)


def test_runner_is_reusable_and_dynamic_batch() -> None:
    runner = ModelRunner(_mlp())
    for batch in (1, 2, 5):
        x = np.tile(X, (3, 1))[:batch]
        y, _ = runner.run({"x": x, "bias": BIAS})
        assert y.shape == (batch, 2)
    assert runner.input_names == [["x", "x"], ["bias", "b", "bias_tensor"]]  # friendly name, tensor names


def test_outputs_never_alias_inputs_or_constants() -> None:
    x = ops.parameter([3], "f32", name="x")
    c = ops.constant(np.array([1, 2, 3], F32))
    model = Model([ops.reshape(x, const([3]), False), c], [x])
    arr = np.zeros(3, F32)
    out = evaluate(model, [arr])
    out[0][0] = 42
    out[1][0] = 42
    assert arr[0] == 0 and c.data[0] == 1


def test_timings_cover_every_executed_node() -> None:
    model = _mlp()
    timings: list = []
    ModelRunner(model).run([X, BIAS], timings=timings)
    executed = [n for n in model.get_ordered_ops() if n.type_name != "Parameter"]
    assert [n for n, _ in timings] == executed
    assert all(t >= 0 for _, t in timings)


# -- binding errors -------------------------------------------------------------------------------------

def test_binding_errors_name_the_input() -> None:
    model = _mlp()
    with pytest.raises(InferError, match=r"takes 2 input\(s\)"):
        evaluate(model, [X])
    with pytest.raises(InferError, match=r"no input named 'nope'; input names: \['b', 'bias', 'bias_tensor', 'x'\]"):
        evaluate(model, {"x": X, "bias": BIAS, "nope": X})
    with pytest.raises(InferError, match=r"no value for input\(s\) \['bias'\]"):
        evaluate(model, {"x": X})
    with pytest.raises(InferError, match="given twice"):
        evaluate(model, {"x": X, "bias": BIAS, "b": BIAS})
    with pytest.raises(InferError, match=r"Parameter-1 node 'x': input has shape \[2, 4\]"):
        evaluate(model, [np.zeros((2, 4), F32), BIAS])
    with pytest.raises(InferError, match=r"Parameter-1 node 'bias': input has dtype float64"):
        evaluate(model, [X, BIAS.astype(np.float64)])
    with pytest.raises(InferError, match="sequence"):
        evaluate(model, 3)  # type: ignore[arg-type]


def test_runtime_failure_names_the_node() -> None:
    a = ops.parameter([-1], "i32", name="a")
    model = Model([ops.divide(a, a, name="div")], [a])
    with pytest.raises(InferError, match=r"Divide-1 node 'div': integer division by zero"):
        evaluate(model, [np.array([1, 0], np.int32)])


def test_unsupported_op_is_reported_at_construction(monkeypatch: pytest.MonkeyPatch) -> None:
    import reference_plugin.ops as registry

    a = ops.parameter([2], "f32", name="a")
    model = Model([ops.relu(a)], [a])
    monkeypatch.setitem(registry._REGISTRY, "Relu", {})
    with pytest.raises(UnsupportedOpError, match="Relu"):
        ModelRunner(model)


# -- state --------------------------------------------------------------------------------------------------

def _counter(version: int, init: str) -> Model:
    """state := state + x; outputs (state + x, the value read)."""
    x = ops.parameter([2], "f32", name="x")
    inputs = []
    if init == "constant":
        inputs = [ops.constant(np.array([10, 20], F32)).output(0)]
    elif init == "parameter":
        inputs = [ops.parameter([2], "f32", name="init").output(0)]
    attrs: dict = {"variable_id": "acc"}
    if version == 6:
        attrs |= {"variable_type": Type.f32, "variable_shape": PartialShape([2])}
    read = make_node("ReadValue", version, inputs, attrs, name="read")
    new = ops.add(read, x, name="new")
    sink = make_node("Assign", version, [new.output(0)], {"variable_id": "acc"}, name="write")
    params = [x] + ([inputs[0].node] if init == "parameter" else [])
    return Model([new, read], [sink], params, "counter")


@pytest.mark.parametrize(("version", "init", "start"), [
    (3, "constant", [10, 20]), (6, "constant", [10, 20]), (6, "none", [0, 0]), (3, "parameter", [5, 5]),
])
def test_read_value_assign_over_several_calls(version: int, init: str, start: list[int]) -> None:
    runner = ModelRunner(_counter(version, init))
    state: dict[str, np.ndarray] = {}
    feed = {"x": np.array([1, 2], F32)} | ({"init": np.array([5, 5], F32)} if init == "parameter" else {})
    expected_read = np.array(start, F32)
    for _ in range(4):
        new, read = runner.run(feed, state)
        np.testing.assert_array_equal(read, expected_read)
        np.testing.assert_array_equal(new, expected_read + [1, 2])
        np.testing.assert_array_equal(state["acc"], new)
        expected_read = expected_read + [1, 2]
    state.clear()  # a reset: back to the initializer
    np.testing.assert_array_equal(runner.run(feed, state)[1], start)


def test_state_none_means_no_persistence_and_state_is_copied() -> None:
    runner = ModelRunner(_counter(6, "constant"))
    x = np.array([1, 1], F32)
    assert runner.run([x])[1].tolist() == [10, 20]
    assert runner.run([x])[1].tolist() == [10, 20]
    state: dict[str, np.ndarray] = {}
    new, _ = runner.run([x], state)
    new[0] = 99
    assert state["acc"].tolist() == [11, 21]


def test_state_is_untouched_when_a_call_fails() -> None:
    x = ops.parameter([2], "i32", name="x")
    read = ops.read_value(ops.constant(np.array([1, 1], np.int32)), "v")
    new = ops.add(read, x)
    sink = ops.assign(new, "v")
    model = Model([ops.divide(x, x, name="div")], [sink], [x], "failing")
    state: dict[str, np.ndarray] = {}
    with pytest.raises(InferError, match="division by zero"):
        evaluate(model, [np.array([1, 0], np.int32)], state)
    assert state == {}
    evaluate(model, [np.array([1, 1], np.int32)], state)  # the sink runs although no result needs it
    assert state["v"].tolist() == [2, 2]


def test_stored_state_of_wrong_type_is_an_error() -> None:
    runner = ModelRunner(_counter(6, "none"))
    with pytest.raises(InferError, match=r"ReadValue-6 node 'read': the state of variable 'acc' holds int32"):
        runner.run([np.ones(2, F32)], {"acc": np.ones(2, np.int32)})


def test_read_value_6_zeros_of_dynamic_shape() -> None:
    x = ops.parameter([-1], "f32", name="x")
    read = ops.read_value(None, "z", "f32", PartialShape([-1]))
    model = Model([read, ops.shape_of(read)], [ops.assign(ops.concat([read, x], 0), "z")], [x], "grow")
    state: dict[str, np.ndarray] = {}
    runner = ModelRunner(model)
    first, shape = runner.run([np.array([1], F32)], state)
    assert first.shape == (0,) and shape.tolist() == [0]
    second, _ = runner.run([np.array([2, 3], F32)], state)
    assert second.tolist() == [1]
    assert state["z"].tolist() == [1, 2, 3]


# -- every opcases strategy ---------------------------------------------------------------------------------

def _case_keys() -> list[tuple[str, int]]:
    from ovconform.opcases import all_case_keys

    return all_case_keys()


@pytest.mark.parametrize("key", _case_keys(), ids=lambda k: f"{k[0]}-{k[1]}")
def test_opcases_run_with_declared_types_and_shapes(key: tuple[str, int]) -> None:
    from ovconform.opcases import case_strategy

    @settings(max_examples=20, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(case_strategy(*key))
    def check(case) -> None:  # noqa: ANN001
        runner = ModelRunner(case.model)
        state: dict[str, np.ndarray] = {}
        outs = runner.run(case.inputs, state)
        assert len(outs) == len(case.model.outputs)
        for i, (arr, port) in enumerate(zip(outs, case.model.outputs, strict=True)):
            assert isinstance(arr, np.ndarray)
            assert arr.dtype == port.get_element_type().to_dtype(), f"output {i}: {arr.dtype} vs {port}"
            assert port.get_partial_shape().fits(arr.shape), f"output {i}: {arr.shape} vs {port}"
        if case.model.get_sinks():  # stateful: a second call reads what the first assigned
            again = runner.run(case.inputs, state)
            assert all(a.shape == b.shape for a, b in zip(outs, again, strict=True))
            assert set(state) == set(case.model.get_variables())
            if case.op_type in ("ReadValue", "Assign"):  # the loop is state := state + x
                want = outs[0].astype(np.float64) + case.inputs["x"].astype(np.float64)
                np.testing.assert_allclose(again[0].astype(np.float64), want, rtol=2e-3)

    check()
