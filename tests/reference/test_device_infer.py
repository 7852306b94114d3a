"""REFERENCE inference: numbers against independent numpy, stages, profiling, dynamic shapes,
the f16 precision rule and variable states."""

from __future__ import annotations

import numpy as np
import pytest
from device_models import (
    accumulator_model,
    collect_garbage_after_each_test,  # noqa: F401 - autouse fixture
    mixed_model,
    rand,
    relu_chain_model,
)

import ovconform
from ovconform import opset as ops
from ovconform.api import STAGES, ProfilingStatus, Tensor
from ovconform.errors import CancelledError, InferError, NotEnabledError, ValidationError
from ovconform.ir import Model, Type
from reference_plugin.plugin import ReferencePlugin


@pytest.fixture(scope="module")
def core() -> ovconform.Core:
    return ovconform.Core()


@pytest.fixture
def plugin() -> ReferencePlugin:
    return ReferencePlugin()


def r16(a: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        return np.asarray(a, np.float32).astype(np.float16).astype(np.float32)


# -- numbers against numpy -----------------------------------------------------------------------
def numpy_conv2d(x: np.ndarray, w: np.ndarray, stride: int, pad: int) -> np.ndarray:
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    n, _, h, wd = xp.shape
    o, _, kh, kw = w.shape
    oh, ow = (h - kh) // stride + 1, (wd - kw) // stride + 1
    out = np.zeros((n, o, oh, ow))
    for i in range(oh):
        for j in range(ow):
            patch = xp[:, :, i * stride:i * stride + kh, j * stride:j * stride + kw]
            out[:, :, i, j] = np.einsum("nchw,ochw->no", patch, w.astype(np.float64))
    return out


def test_add_relu_matmul_softmax_against_numpy(core: ovconform.Core) -> None:
    rng = np.random.default_rng(0)
    a = ops.parameter([3, 4], np.float32, name="a")
    b = ops.parameter([3, 4], np.float32, name="b")
    w = rand(rng, 4, 5)
    h = ops.matmul(ops.relu(ops.add(a, b, name="add"), name="relu"), ops.constant(w, name="w"), False, False,
                   name="mm")
    y = ops.softmax(h, 1, name="softmax")
    compiled = core.compile_model(Model([y], [a, b], "dense"), "REFERENCE")
    va, vb = rand(rng, 3, 4), rand(rng, 3, 4)
    logits = np.maximum(va + vb, 0).astype(np.float64) @ w.astype(np.float64)
    expected = np.exp(logits - logits.max(1, keepdims=True))
    expected /= expected.sum(1, keepdims=True)
    out = compiled.create_infer_request().infer({"a": va, "b": vb})[0]
    assert out.dtype == np.float32 and out.shape == (3, 5)
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(("stride", "pad"), [(1, 0), (2, 1)])
def test_convolution_against_numpy(core: ovconform.Core, stride: int, pad: int) -> None:
    rng = np.random.default_rng(1)
    x = ops.parameter([2, 3, 7, 6], np.float32, name="x")
    w = rand(rng, 4, 3, 3, 3)
    y = ops.convolution(x, ops.constant(w, name="w"), [stride, stride], [pad, pad], [pad, pad], [1, 1], name="conv")
    compiled = core.compile_model(Model([y], [x], "conv"), "REFERENCE")
    v = rand(rng, 2, 3, 7, 6)
    np.testing.assert_allclose(compiled.create_infer_request().infer([v])[0], numpy_conv2d(v, w, stride, pad),
                               rtol=1e-5, atol=1e-5)


def test_compiled_model_call_and_infer_does_not_change_its_input(core: ovconform.Core) -> None:
    compiled = core.compile_model(mixed_model(), "REFERENCE")
    x = np.float32([[-1, 0, 1], [2, -3, 4]])
    keep = x.copy()
    out = compiled(x)
    assert np.array_equal(out[0], (np.maximum(keep, 0) + 3.5) / 4) and np.array_equal(x, keep)


# -- stages and profiling -------------------------------------------------------------------------
def test_stages_are_timed(plugin: ReferencePlugin) -> None:
    request = plugin.compile_model(mixed_model()).create_infer_request()
    request.infer([np.ones((2, 3), np.float32)])
    durations = request.sync_request.stage_durations
    assert list(durations) == list(STAGES) == ["preprocess", "start_pipeline", "wait_pipeline", "postprocess"]
    assert all(d >= 0 for d in durations.values()) and durations["start_pipeline"] > 0


def test_profiling_needs_perf_count(plugin: ReferencePlugin) -> None:
    request = plugin.compile_model(mixed_model()).create_infer_request()
    request.infer([np.ones((2, 3), np.float32)])
    with pytest.raises(NotEnabledError, match="compile with PERF_COUNT=True"):
        request.get_profiling_info()


def test_per_node_profiling(plugin: ReferencePlugin) -> None:
    model = mixed_model()
    compiled = plugin.compile_model(model, {"PERF_COUNT": True})
    request = compiled.create_infer_request()
    before = request.get_profiling_info()
    assert {p.status for p in before if p.node_name != "r1"} == {ProfilingStatus.NOT_RUN}
    request.infer([np.ones((2, 3), np.float32)])
    info = request.get_profiling_info()
    executed = [p for p in info if p.status == ProfilingStatus.EXECUTED]
    assert [p.node_name for p in executed] == [n.friendly_name for n in compiled.model.get_ordered_ops()]
    assert [p.node_type for p in executed] == [n.type_name for n in compiled.model.get_ordered_ops()]
    assert all(p.exec_type == "ref_f32" and p.real_time.total_seconds() >= 0 for p in executed)
    fused = [p for p in info if p.status == ProfilingStatus.OPTIMIZED_OUT]
    assert [(p.node_name, p.node_type, p.exec_type) for p in fused] == [("r1", "Relu", "optimized_out_into:r2")]
    names = {p.node_name for p in info}
    assert all(n.friendly_name in names for n in model.get_ordered_ops() if n.type_name != "Constant")
    total = sum(p.real_time.total_seconds() for p in executed)
    assert total <= request.sync_request.stage_durations["start_pipeline"]  # node times nest inside the stage


# -- dynamic shapes ---------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", ["?,3", "1..4,3", "..."])
def test_dynamic_inputs_resize_outputs(core: ovconform.Core, shape: str) -> None:
    x = ops.parameter(shape, np.float32, name="x")
    y = ops.multiply(ops.relu(x, name="r"), ops.constant(np.float32(2), name="two"), name="y")
    compiled = core.compile_model(Model([y], [x], "dyn"), "REFERENCE")
    request = compiled.create_infer_request()
    assert request.get_output_tensor().get_size() == 0 and request.get_output_tensor().element_type == Type.f32
    for rows in (1, 4, 2, 2):
        v = rand(np.random.default_rng(rows), rows, 3)
        out = request.infer([v])[0]
        assert out.shape == (rows, 3) and np.array_equal(out, np.maximum(v, 0) * 2)
        assert request.get_output_tensor().shape == (rows, 3)


def test_bounded_input_out_of_range_is_refused(core: ovconform.Core) -> None:
    x = ops.parameter("1..4,3", np.float32, name="x")
    request = core.compile_model(Model([ops.relu(x)], [x], "bounded"), "REFERENCE").create_infer_request()
    with pytest.raises(ValidationError, match=r"does not fit the port's shape \[1\.\.4,3\]"):
        request.infer([np.zeros((5, 3), np.float32)])


def test_run_time_shape_inference_through_shape_of(core: ovconform.Core) -> None:
    x = ops.parameter("?,?", np.float32, name="x")
    flat = ops.reshape(x, ops.constant(np.int64([-1]), name="minus_one"), False, name="flat")
    back = ops.reshape(ops.relu(flat, name="r"), ops.shape_of(x, name="shape"), False, name="back")
    request = core.compile_model(Model([back], [x], "shapes"), "REFERENCE").create_infer_request()
    for shape in ((2, 5), (3, 1)):
        v = rand(np.random.default_rng(7), *shape)
        assert np.array_equal(request.infer([v])[0], np.maximum(v, 0))


def test_user_output_tensor_is_written_in_place(core: ovconform.Core) -> None:
    x = ops.parameter("?,3", np.float32, name="x")
    request = core.compile_model(Model([ops.relu(x)], [x], "in_place"), "REFERENCE").create_infer_request()
    memory = np.zeros(12, np.float32)
    request.set_output_tensor(Tensor(memory, shared_memory=True))
    request.infer([np.ones((2, 3), np.float32)])
    assert memory[:6].tolist() == [1] * 6 and request.get_output_tensor().shape == (2, 3)


# -- INFERENCE_PRECISION_HINT ---------------------------------------------------------------------------
def test_f16_rounds_inputs_constants_and_every_f32_output(plugin: ReferencePlugin) -> None:
    x = ops.parameter([4], np.float32, name="x")
    c, d = np.float32(0.1), np.float32(1.0009765)
    y = ops.multiply(ops.add(x, ops.constant(c, name="c"), name="add"), ops.constant(d, name="d"), name="mul")
    model = Model([y], [x], "f16")
    f16 = plugin.compile_model(model, {"INFERENCE_PRECISION_HINT": "f16"})
    f32 = plugin.compile_model(model)
    v = np.float32([1.0001, 2049.0, 70000.0, -3.3333])
    expected = r16(r16(r16(v) + r16(c)) * r16(d))
    out = f16.create_infer_request().infer([v])[0]
    assert out.dtype == np.float32 and np.array_equal(out, expected)
    assert np.isinf(out[2])  # 70000 is beyond float16
    assert not np.array_equal(out, f32.create_infer_request().infer([v])[0])
    assert np.array_equal(f32.create_infer_request().infer([v])[0], (v + c) * d)


def test_f16_leaves_other_element_types_alone(plugin: ReferencePlugin) -> None:
    i = ops.parameter([2], np.int32, name="i")
    f = ops.parameter([2], np.float64, name="f")
    model = Model([ops.add(i, ops.constant(np.int32(1))), ops.add(f, ops.constant(0.1, np.float64))], [i, f], "ints")
    request = plugin.compile_model(model, {"INFERENCE_PRECISION_HINT": "f16"}).create_infer_request()
    out = request.infer([np.int32([100001, -7]), np.float64([1.0001, 2.0])])
    assert out[0].tolist() == [100002, -6] and np.array_equal(out[1], np.float64([1.0001, 2.0]) + 0.1)


# -- variable states -------------------------------------------------------------------------------------
def test_states_accumulate_per_request_and_reset(core: ovconform.Core) -> None:
    compiled = core.compile_model(accumulator_model(), "REFERENCE")
    first, second = compiled.create_infer_request(), compiled.create_infer_request()
    assert [s.name for s in first.query_state()] == ["acc"]
    assert first.query_state()[0].state.data.tolist() == [0, 0]
    for k in range(1, 4):
        assert first.infer([np.float32([1, 2])])[0].tolist() == [k, 2 * k]
    assert second.infer([np.float32([10, 10])])[0].tolist() == [10, 10]  # its own state
    assert first.query_state()[0].state.data.tolist() == [3, 6]
    first.query_state()[0].state = Tensor(np.float32([100, 200]))
    assert first.infer([np.float32([1, 1])])[0].tolist() == [101, 201]
    first.reset_state()
    assert first.query_state()[0].state.data.tolist() == [0, 0]
    assert first.infer([np.float32([5, 5])])[0].tolist() == [5, 5]
    assert second.query_state()[0].state.data.tolist() == [10, 10]


def test_read_value_initializer_is_used_after_reset(plugin: ReferencePlugin) -> None:
    x = ops.parameter([2], np.float32, name="x")
    rv = ops.read_value(ops.constant(np.float32([7, 7]), name="init"), "v", Type.f32, [2], name="rv")
    y = ops.add(rv, x, name="y")
    request = plugin.compile_model(Model([y], [ops.assign(y, "v")], [x], "init")).create_infer_request()
    assert request.infer([np.float32([1, 2])])[0].tolist() == [8, 9]  # initializer, not zeros
    assert request.infer([np.float32([1, 2])])[0].tolist() == [9, 11]
    request.reset_state()
    assert request.infer([np.float32([0, 0])])[0].tolist() == [7, 7]


def test_read_value_without_initializer_starts_at_zero(plugin: ReferencePlugin) -> None:
    request = plugin.compile_model(accumulator_model(with_init=False)).create_infer_request()
    assert request.infer([np.float32([2, 3])])[0].tolist() == [2, 3]
    assert request.infer([np.float32([2, 3])])[0].tolist() == [4, 6]


def test_a_failed_run_commits_no_state(plugin: ReferencePlugin) -> None:
    x = ops.parameter([2], np.int32, name="x")
    rv = ops.read_value(ops.constant(np.int32([0, 0]), name="init"), "s", Type.i32, [2], name="rv")
    s = ops.add(rv, ops.constant(np.int32(1)), name="s")
    y = ops.divide(s, x, name="div")  # integer division by zero fails after the Assign's input is ready
    request = plugin.compile_model(Model([y], [ops.assign(s, "s")], [x], "fail")).create_infer_request()
    assert request.infer([np.int32([1, 1])])[0].tolist() == [1, 1]
    with pytest.raises(InferError, match="div"):
        request.infer([np.int32([1, 0])])
    assert request.query_state()[0].state.data.tolist() == [1, 1]
    assert request.infer([np.int32([1, 1])])[0].tolist() == [2, 2]


def test_cancellation_is_checked_between_nodes(plugin: ReferencePlugin) -> None:
    compiled = plugin.compile_model(accumulator_model())
    calls = []

    def check() -> None:
        calls.append(1)
        if len(calls) == 4:
            raise CancelledError("cancelled by the test")

    with pytest.raises(CancelledError):
        compiled.program.run([np.float32([1, 1])], {}, check=check)
    assert len(calls) == 4 < len(compiled.program.steps)


def test_f16_rounds_state_reads(plugin: ReferencePlugin) -> None:
    request = plugin.compile_model(accumulator_model(), {"INFERENCE_PRECISION_HINT": "f16"}).create_infer_request()
    request.query_state()[0].state = Tensor(np.float32([0.1, 1e5]))
    out = request.infer([np.float32([0, 0])])[0]
    assert np.array_equal(out, r16(np.float32([0.1, 1e5])))


def test_bad_inputs_are_named(core: ovconform.Core) -> None:
    request = core.compile_model(relu_chain_model(), "REFERENCE").create_infer_request()
    with pytest.raises(ValidationError, match=r"array shape \[3, 2\] does not fit the port's shape \[2,3\]"):
        request.infer([np.zeros((3, 2), np.float32)])
    with pytest.raises(ValidationError, match=r"input 0 .*: the value is not an array numpy can build"):
        request.infer([[[1.0, 2.0, 3.0], [4.0, 5.0]]])  # ragged
    with pytest.raises(ValidationError, match="has element type i32; the port's element type is f32"):
        request.set_input_tensor(Tensor(np.zeros((2, 3), np.int32)))
