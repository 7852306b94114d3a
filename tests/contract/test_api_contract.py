"""The plugin contract's base classes, exercised through the FAKE device (ovconform/api.py)."""

from __future__ import annotations

import gc
import io
import threading
import weakref
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from plugins.fake_device import (
    BrokenBackendPlugin,
    FakeCompiledModel,
    FakePlugin,
    FakeSyncInferRequest,
    NoExportPlugin,
    relu_expected,
    relu_model,
    two_io_model,
)

from ovconform import Model, Tensor, Type
from ovconform import opset as ops
from ovconform.api import (
    STAGES,
    AsyncInferRequest,
    CompiledModel,
    CompiledModelContract,
    InferRequestContract,
    Plugin,
    PluginContract,
    ProfilingInfo,
    RemoteContext,
    StreamsExecutor,
    StreamsExecutorConfig,
    SyncInferRequest,
    VariableState,
    get_executor_manager,
)
from ovconform.errors import (
    BusyError,
    CancelledError,
    DeviceInitError,
    ImportModelError,
    InferError,
    NotEnabledError,
    NotFoundError,
    NotImplementedByDeviceError,
    PropertyError,
    UnsupportedOpError,
    ValidationError,
)
from ovconform.host.cache import model_digest

pytestmark = pytest.mark.timeout(60)
JOIN = 10.0
X = np.array([[-3, -2, -1], [0, 1, 2]], dtype=np.float32)


@pytest.fixture
def plugin() -> FakePlugin:
    return FakePlugin()


@pytest.fixture
def compiled(plugin: FakePlugin) -> FakeCompiledModel:
    return plugin.compile_model(relu_model(), {"PERF_COUNT": True})  # type: ignore[return-value]


@pytest.fixture
def gated(compiled: FakeCompiledModel) -> Iterator[FakeCompiledModel]:
    """A compiled model whose runs hold at their start until ``compiled.gate`` is set."""
    compiled.gate = threading.Event()
    yield compiled
    compiled.gate.set()


# -- Plugin ------------------------------------------------------------------------------------
def test_plugin_identity_and_version(plugin: FakePlugin) -> None:
    assert plugin.device_name == plugin.get_device_name() == "FAKE"
    v = plugin.get_version()
    assert v.build_number and "FakePlugin" in v.description
    assert FakePlugin("FAKE2").device_name == "FAKE2"


def test_plugin_without_a_device_name_is_rejected() -> None:
    with pytest.raises(ValidationError, match="device name ''"):
        Plugin()


def test_backend_that_cannot_initialise_raises_at_construction() -> None:
    with pytest.raises(DeviceInitError, match="device 'BROKEN': the backend could not be initialised: "
                                              "OSError: libfakedriver.so.1"):
        BrokenBackendPlugin()


def test_contract_protocols_match_the_base_classes(compiled: FakeCompiledModel) -> None:
    assert isinstance(compiled.plugin, PluginContract)
    assert isinstance(compiled, CompiledModelContract)
    assert isinstance(compiled.create_infer_request(), InferRequestContract)


def test_compile_does_not_change_the_original_model(plugin: FakePlugin) -> None:
    class Renaming(FakePlugin):
        def _transform_model(self, model: Model, config: Any) -> None:
            for node in model.get_ordered_ops():
                node.set_friendly_name(node.friendly_name + "_t")

    model = relu_model()
    before = model_digest(model)
    compiled = Renaming().compile_model(model)
    assert model_digest(model) == before
    assert compiled.model.get_ordered_ops()[-2].friendly_name == "relu_t"


def test_compile_errors(plugin: FakePlugin) -> None:
    with pytest.raises(ValidationError, match="needs an ovconform Model, not str"):
        plugin.compile_model("not a model")  # type: ignore[arg-type]
    p = ops.parameter([2], np.float32, name="p")
    with pytest.raises(UnsupportedOpError, match=r"no kernel for \['Subtract'\]"):
        plugin.compile_model(Model([ops.subtract(p, p)], [p], "sub"))
    with pytest.raises(PropertyError, match="Wrong value -1 for property 'PERF_COUNT'"):
        plugin.compile_model(relu_model(), {"PERF_COUNT": -1})


def test_unexpected_device_failure_becomes_compile_error() -> None:
    class Crashing(FakeCompiledModel):
        def _compile(self, model: Model) -> None:
            raise ZeroDivisionError("kernel table broken")

    class CrashingPlugin(FakePlugin):
        compiled_model_class = Crashing

    with pytest.raises(Exception, match="failed to compile model 'relu_model': ZeroDivisionError") as info:
        CrashingPlugin().compile_model(relu_model())
    assert type(info.value).__name__ == "CompileError"


def test_per_call_properties_win_over_plugin_properties(plugin: FakePlugin) -> None:
    plugin.set_property({"PERF_COUNT": True, "NUM_STREAMS": 2})
    assert plugin.compile_model(relu_model()).get_property("PERF_COUNT") is True
    assert plugin.compile_model(relu_model(), {"PERF_COUNT": False}).get_property("PERF_COUNT") is False
    assert plugin.get_property("PERF_COUNT") is True


def test_plugin_read_only_properties(plugin: FakePlugin) -> None:
    supported = plugin.get_property("SUPPORTED_PROPERTIES")
    for name in ("FULL_DEVICE_NAME", "AVAILABLE_DEVICES", "OPTIMIZATION_CAPABILITIES", "DEVICE_ARCHITECTURE",
                 "DEVICE_TYPE", "RANGE_FOR_ASYNC_INFER_REQUESTS", "RANGE_FOR_STREAMS", "EXECUTION_DEVICES"):
        assert supported[name] == "RO" and plugin.get_property(name) not in ("", None, [])
    for name in ("PERF_COUNT", "PERFORMANCE_HINT", "NUM_STREAMS", "DEVICE_ID", "INFERENCE_PRECISION_HINT",
                 "EXECUTION_MODE_HINT", "LOG_LEVEL", "MODEL_PRIORITY", "PERFORMANCE_HINT_NUM_REQUESTS"):
        assert supported[name] == "RW"
        plugin.set_property({name: plugin.get_property(name)})  # setting the current value back works
    assert plugin.get_property("AVAILABLE_DEVICES") == ["0", "1"]
    assert plugin.get_property("OPTIMIZATION_CAPABILITIES") == ["FP32", "EXPORT_IMPORT"]
    assert plugin.get_property("EXECUTION_DEVICES") == ["FAKE.0"]
    assert plugin.get_property("EXECUTION_DEVICES", {"DEVICE_ID": "1"}) == ["FAKE.1"]
    start, end, step = plugin.get_property("RANGE_FOR_ASYNC_INFER_REQUESTS")
    assert start <= end and step >= 1


def test_plugin_property_errors(plugin: FakePlugin) -> None:
    with pytest.raises(PropertyError, match="Unsupported property 'NOPE' by device 'FAKE'"):
        plugin.get_property("NOPE")
    with pytest.raises(PropertyError, match="read-only"):
        plugin.set_property({"FULL_DEVICE_NAME": "x"})
    with pytest.raises(PropertyError, match="'DEVICE_ID'.*Supported values: \\['0', '1'\\]"):
        plugin.set_property({"DEVICE_ID": "UNSUPPORTED_DEVICE_ID_STRING"})
    with pytest.raises(PropertyError, match="Supported values: f32"):
        plugin.set_property({"INFERENCE_PRECISION_HINT": "u8"})
    with pytest.raises(PropertyError, match="'DEVICE_ID'"):
        plugin.get_property("FULL_DEVICE_NAME", {"DEVICE_ID": "110"})
    assert plugin.get_property("PERFORMANCE_HINT") == "LATENCY"


def test_query_model_maps_supported_ops_to_device_and_id(plugin: FakePlugin) -> None:
    model = relu_model()
    names = {n.friendly_name for n in model.get_ordered_ops()}
    assert plugin.query_model(model) == dict.fromkeys(names, "FAKE.0")
    assert set(plugin.query_model(model, {"DEVICE_ID": "1"}).values()) == {"FAKE.1"}
    with pytest.raises(PropertyError, match="DEVICE_ID"):
        plugin.query_model(model, {"DEVICE_ID": "110"})


def test_query_model_leaves_out_unsupported_ops_and_their_own_housekeeping(plugin: FakePlugin) -> None:
    a = ops.parameter([2], np.float32, name="a")
    b = ops.parameter([2], np.float32, name="b")
    sub = ops.subtract(b, b, name="sub")
    model = Model([ops.relu(a, name="relu"), sub], [a, b], "mixed")
    supported = plugin.query_model(model)
    assert "relu" in supported and "a" in supported
    assert "sub" not in supported and "b" not in supported
    assert len([k for k in supported if k.startswith("Result")]) == 1


def test_export_import_round_trip(compiled: FakeCompiledModel, plugin: FakePlugin) -> None:
    stream = io.BytesIO()
    blob = compiled.export_model(stream)
    assert stream.getvalue() == blob
    imported = plugin.import_model(io.BytesIO(blob))
    assert imported.get_property("LOADED_FROM_CACHE") is False
    for a, b in zip(imported.inputs + imported.outputs, compiled.inputs + compiled.outputs, strict=True):
        assert a.get_names() == b.get_names()
        assert a.get_partial_shape() == b.get_partial_shape() and a.get_element_type() == b.get_element_type()
    np.testing.assert_array_equal(imported.create_infer_request().infer({"x": X})["y"], relu_expected(X))
    assert plugin.import_model(blob, {"LOADED_FROM_CACHE": True}).get_property("LOADED_FROM_CACHE") is True


@pytest.mark.parametrize("blob,match", [
    (b"", "empty stream"), (b"garbage bytes", "no FAKE device header"), (b"FAKEDEV\x01\x05", "truncated"),
])
def test_import_rejects_bad_blobs(plugin: FakePlugin, blob: bytes, match: str) -> None:
    with pytest.raises(ImportModelError, match=match):
        plugin.import_model(blob)


def test_import_of_a_blob_from_another_architecture_fails(compiled: FakeCompiledModel) -> None:
    class Other(FakePlugin):
        device_architecture = "FAKE-ARCH-2"

    with pytest.raises(ImportModelError, match="made for 'FAKE-ARCH-1'"):
        Other().import_model(compiled.export_model())


def test_import_needs_bytes_or_a_stream(plugin: FakePlugin) -> None:
    with pytest.raises(ValidationError, match="bytes or a binary stream"):
        plugin.import_model(12345)


def test_devices_without_export_say_so() -> None:
    compiled = NoExportPlugin().compile_model(relu_model())
    with pytest.raises(NotImplementedByDeviceError, match="cannot export"):
        compiled.export_model()
    with pytest.raises(NotImplementedByDeviceError, match="cannot import"):
        Plugin("BASE").import_model(b"abc")


def test_remote_contexts(plugin: FakePlugin) -> None:
    ctx = plugin.create_context({"k": 1})
    assert isinstance(ctx, RemoteContext) and ctx.get_device_name() == "FAKE" and ctx.get_params() == {"k": 1}
    assert plugin.get_default_context().get_params() == {"default": True}
    with pytest.raises(NotImplementedByDeviceError, match="remote contexts"):
        Plugin("BASE").create_context()
    with pytest.raises(NotImplementedByDeviceError, match="remote contexts"):
        Plugin("BASE").get_default_context()


def test_remote_tensor_as_input(compiled: FakeCompiledModel) -> None:
    remote = compiled.plugin.create_context().create_tensor(Type.f32, [2, 3])
    remote.copy_from(X)
    request = compiled.create_infer_request()
    request.set_tensor("x", remote)
    np.testing.assert_array_equal(request.infer()["y"], relu_expected(X))


def test_plugin_going_away_clears_its_executors() -> None:
    plugin = FakePlugin()
    names = set(plugin.executor_names.values())
    compiled = plugin.compile_model(relu_model())
    compiled.create_infer_request().infer(X)
    assert plugin.wait_executor is plugin.wait_executor
    assert names & set(get_executor_manager().names())
    del plugin, compiled
    gc.collect()
    assert not names & set(get_executor_manager().names())


# -- CompiledModel -----------------------------------------------------------------------------
def test_compiled_model_ports() -> None:
    compiled = FakePlugin().compile_model(two_io_model())
    assert [sorted(p.get_names()) for p in compiled.inputs] == [["a"], ["b"]]
    assert compiled.input("b") == compiled.inputs[1] == compiled.input(1)
    assert compiled.output("prod") == compiled.outputs[1]
    with pytest.raises(NotFoundError, match="has 2 inputs"):
        compiled.input()
    with pytest.raises(NotFoundError, match="no output 'nope'; output names: \\['prod', 'sum'\\]"):
        compiled.output("nope")
    with pytest.raises(NotFoundError, match="no input 5"):
        compiled.input(5)
    single = FakePlugin().compile_model(relu_model())
    assert single.input().get_names() == {"x"} and single.output().get_names() == {"y"}


def test_compiled_model_properties(plugin: FakePlugin) -> None:
    compiled = plugin.compile_model(relu_model(), {"NUM_STREAMS": 2, "DEVICE_ID": "1"})
    supported = compiled.get_property("SUPPORTED_PROPERTIES")
    assert supported["MODEL_NAME"] == "RO" and supported["PERF_COUNT"] == "RW"
    assert compiled.get_property("MODEL_NAME") == "relu_model"
    assert compiled.get_property("EXECUTION_DEVICES") == ["FAKE.1"]
    assert compiled.get_property("LOADED_FROM_CACHE") is False
    assert compiled.get_property("OPTIMAL_NUMBER_OF_INFER_REQUESTS") == 2
    assert compiled.get_property("NUM_STREAMS") == 2
    compiled.set_property({"PERF_COUNT": True})
    assert compiled.get_property("PERF_COUNT") is True
    with pytest.raises(PropertyError, match="read-only"):
        compiled.set_property({"NUM_STREAMS": 1})
    with pytest.raises(PropertyError, match="Unsupported property 'abc'"):
        compiled.set_property({"abc": "def"})
    with pytest.raises(PropertyError, match="Unsupported property 'abc'"):
        compiled.get_property("abc")


def test_compiled_model_shared_resources(plugin: FakePlugin) -> None:
    compiled = plugin.compile_model(relu_model(), {"NUM_STREAMS": 2})
    ex = compiled.task_executor
    assert isinstance(ex, StreamsExecutor) and ex.config.streams == 2 and ex.in_use
    r1, r2 = compiled.create_sync_infer_request(), compiled.create_infer_request()
    assert isinstance(r1, FakeSyncInferRequest) and isinstance(r2, AsyncInferRequest)
    assert r2.sync_request.request_id == r1.request_id + 1
    assert compiled.callback_executor is not None
    del compiled, r1, r2
    gc.collect()
    assert not ex.in_use  # the compiled model's lease went with it


def test_runtime_model_carries_execution_info(compiled: FakeCompiledModel) -> None:
    runtime = compiled.get_runtime_model()
    assert runtime is not compiled.get_runtime_model()
    relu = next(n for n in runtime.get_ordered_ops() if n.type_name == "Relu")
    assert relu.rt_info["layerType"] == "Relu" and relu.rt_info["originalLayersNames"] == "relu"
    assert {"execOrder", "execTimeMcs", "primitiveType", "outputPrecisions", "runtimePrecision"} <= set(relu.rt_info)
    assert runtime.inputs[0].get_partial_shape() == compiled.inputs[0].get_partial_shape()
    assert "layerType" not in compiled.model.get_ordered_ops()[-2].rt_info


def test_compiled_model_is_callable(compiled: FakeCompiledModel) -> None:
    np.testing.assert_array_equal(compiled({"x": X})[0], relu_expected(X))


# -- SyncInferRequest: tensors -----------------------------------------------------------------
def test_tensor_by_compiled_port_model_port_name_and_index_is_one_object(compiled: FakeCompiledModel) -> None:
    model = relu_model()
    request = compiled.create_infer_request()
    t = request.get_tensor(compiled.input(0))
    assert request.get_tensor(model.input(0)) is t
    assert request.get_tensor("x") is t
    assert request.get_input_tensor(0) is t and request.get_input_tensor() is t
    assert request.get_tensor("y") is request.get_output_tensor(0)
    assert request.get_tensor("x") is t  # a second get does not reallocate


def test_set_tensor_is_zero_copy_for_inputs_and_outputs(compiled: FakeCompiledModel) -> None:
    request = compiled.create_infer_request()
    x = X.copy()
    out = np.zeros((2, 3), np.float32)
    tin, tout = Tensor(x, shared_memory=True), Tensor(out, shared_memory=True)
    request.set_tensor("x", tin)
    request.set_output_tensor(tout)
    assert request.get_tensor("x") is tin and request.get_output_tensor() is tout
    request.infer()
    np.testing.assert_array_equal(out, relu_expected(X))  # written in place into the user's memory
    np.testing.assert_array_equal(x, X)  # the input is not modified
    x[:] = 1.0
    request.infer()
    np.testing.assert_array_equal(out, relu_expected(np.ones((2, 3), np.float32)))


@pytest.mark.parametrize("key,tensor,error,match", [
    ("x", Tensor(Type.i32, [2, 3]), ValidationError, "element type i32; the port's element type is f32"),
    ("x", Tensor(Type.f32, [2, 4]), ValidationError, r"shape \[2, 4\]; the port's shape is \[2,3\]"),
    ("y", Tensor(Type.f32, [3, 2]), ValidationError, "output 0 'y'"),
    ("nope", Tensor(Type.f32, [2, 3]), NotFoundError, "Port for tensor name 'nope' was not found"),
    ("x", None, ValidationError, "must be a Tensor, not NoneType"),
    ("x", np.zeros((2, 3), np.float32), ValidationError, "must be a Tensor, not ndarray"),
    (3, Tensor(Type.f32, [2, 3]), ValidationError, "Output or a tensor name, not int"),
])
def test_set_tensor_validation(compiled: FakeCompiledModel, key: Any, tensor: Any, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        compiled.create_infer_request().set_tensor(key, tensor)


def test_friendly_names_are_not_tensor_names(compiled: FakeCompiledModel) -> None:
    with pytest.raises(NotFoundError, match="'relu'"):
        compiled.create_infer_request().get_tensor("relu")


def test_changing_a_static_tensor_shape_makes_infer_fail(compiled: FakeCompiledModel) -> None:
    request = compiled.create_infer_request()
    request.get_tensor("x").set_shape([1, 3])
    with pytest.raises(ValidationError, match="input 0 'x' has shape \\[1, 3\\]"):
        request.infer()


def test_dynamic_ports_accept_fitting_shapes_and_resize_outputs(plugin: FakePlugin) -> None:
    compiled = plugin.compile_model(relu_model("?,1..4"))
    request = compiled.create_infer_request()
    assert request.get_output_tensor().size == 0  # nothing computed yet
    for rows in (1, 5, 2):
        x = np.full((rows, 3), 2.0, np.float32)
        out = request.infer({"x": x})
        assert request.get_output_tensor().shape == (rows, 3)
        np.testing.assert_array_equal(out["y"], relu_expected(x))
    with pytest.raises(ValidationError, match="does not fit the port's shape \\[\\?,1..4\\]"):
        request.set_tensor("x", Tensor(Type.f32, [2, 5]))


def test_user_output_tensor_of_a_dynamic_port_is_used_in_place_when_it_fits(plugin: FakePlugin) -> None:
    request = plugin.compile_model(relu_model("?,3")).create_infer_request()
    buf = np.zeros(12, np.float32)
    request.set_output_tensor(Tensor(buf, shared_memory=True))
    request.infer({"x": np.ones((4, 3), np.float32)})
    assert np.shares_memory(request.get_output_tensor().data, buf)
    np.testing.assert_array_equal(buf, 4.0)


def test_roi_input_tensor(compiled: FakeCompiledModel) -> None:
    big = Tensor(np.arange(40, dtype=np.float32).reshape(5, 8) - 20, shared_memory=True)
    roi = Tensor(big, [1, 2], [3, 5])
    out = compiled.create_infer_request().infer({"x": roi})
    np.testing.assert_array_equal(out["y"], relu_expected(big.data[1:3, 2:5]))


def test_infer_input_forms_and_results_lookup() -> None:
    compiled = FakePlugin().compile_model(two_io_model())
    a, b = np.array([1, 2], np.float32), np.array([3, 4], np.float32)
    expected = {"sum": a + b, "prod": a * b}
    request = compiled.create_infer_request()
    for inputs in ({"a": a, "b": b}, {0: a, 1: b}, [a, b], {compiled.input(0): a, compiled.input(1): Tensor(b)}):
        res = request.infer(inputs)
        np.testing.assert_array_equal(res["sum"], expected["sum"])
        np.testing.assert_array_equal(res[1], expected["prod"])
        np.testing.assert_array_equal(res[compiled.output(0)], expected["sum"])
    assert request.results.names() == [{"sum"}, {"prod"}]
    with pytest.raises(NotFoundError, match="no output 'x'"):
        request.results["x"]
    with pytest.raises(NotFoundError, match="no output 7"):
        request.results[7]


@pytest.mark.parametrize("inputs,match", [
    ({"x": np.zeros((3, 3), np.float32)}, "does not fit"),
    ({"y": np.zeros((2, 3), np.float32)}, "names an output"),
    ({"x": np.zeros((2, 3), np.complex64)}, "cannot store complex64"),
    ({5: np.zeros((2, 3), np.float32)}, "no input 5"),
    ([X, X], "got 2 inputs"),
])
def test_bad_infer_inputs(compiled: FakeCompiledModel, inputs: Any, match: str) -> None:
    with pytest.raises((ValidationError, NotFoundError), match=match):
        compiled.create_infer_request().infer(inputs)


def test_infer_casts_same_kind_arrays(compiled: FakeCompiledModel) -> None:
    out = compiled.create_infer_request().infer(X.astype(np.float64))
    np.testing.assert_array_equal(out[0], relu_expected(X))


# -- SyncInferRequest: stages, profiling, states, errors -----------------------------------------
def test_infer_runs_named_stages_and_records_durations(compiled: FakeCompiledModel) -> None:
    sync = compiled.create_sync_infer_request()
    sync.set_tensor("x", Tensor(X))
    sync.infer()
    assert tuple(sync.stage_durations) == STAGES == ("preprocess", "start_pipeline", "wait_pipeline", "postprocess")
    assert all(v >= 0.0 for v in sync.stage_durations.values())
    np.testing.assert_array_equal(sync.get_tensor("y").data, relu_expected(X))


def test_stage_overrides_run_in_order() -> None:
    calls: list[str] = []

    class Traced(FakeSyncInferRequest):
        def _preprocess(self) -> None:
            calls.append("pre")
            super()._preprocess()

        def _wait_pipeline(self) -> None:
            calls.append("wait")

        def _postprocess(self) -> None:
            calls.append("post")
            super()._postprocess()

    class TracedModel(FakeCompiledModel):
        sync_request_class = Traced

    class TracedPlugin(FakePlugin):
        compiled_model_class = TracedModel

    TracedPlugin().compile_model(relu_model()).create_infer_request().infer(X)
    assert calls == ["pre", "wait", "post"]


def test_profiling_info_names_every_op(compiled: FakeCompiledModel) -> None:
    request = compiled.create_infer_request()
    request.infer(X)
    info = request.get_profiling_info()
    assert all(isinstance(p, ProfilingInfo) for p in info)
    names = {p.node_name for p in info}
    for node in compiled.model.get_ordered_ops():
        if node.type_name != "Constant":
            assert node.friendly_name in names
    relu = next(p for p in info if p.node_name == "relu")
    assert relu.status == ProfilingInfo.Status.EXECUTED and relu.node_type == "Relu"
    assert relu.real_time.total_seconds() >= 0 and relu.cpu_time.total_seconds() >= 0
    assert next(p for p in info if p.node_type == "Parameter").status == ProfilingInfo.Status.NOT_RUN


def test_profiling_info_needs_perf_count(plugin: FakePlugin) -> None:
    request = plugin.compile_model(relu_model()).create_infer_request()
    request.infer(X)
    with pytest.raises(NotEnabledError, match="compile with PERF_COUNT=True"):
        request.get_profiling_info()


def test_default_profiling_info_is_one_entry_per_stage() -> None:
    class Plain(SyncInferRequest):
        def _run_model(self, inputs: Any) -> list[np.ndarray]:
            return [relu_expected(inputs[0])]

    class PlainModel(CompiledModel):
        sync_request_class = Plain

    class PlainPlugin(Plugin):
        device_name = "PLAIN"
        compiled_model_class = PlainModel

    request = PlainPlugin().compile_model(relu_model(), {"PERF_COUNT": True}).create_infer_request()
    np.testing.assert_array_equal(request.infer(X)[0], relu_expected(X))
    assert [p.node_name for p in request.get_profiling_info()] == [
        "1. preprocess", "2. start_pipeline", "3. wait_pipeline", "4. postprocess"]


def test_unexpected_kernel_errors_become_infer_errors_naming_the_stage() -> None:
    class Failing(FakeSyncInferRequest):
        def _run_model(self, inputs: Any) -> list[np.ndarray]:
            raise FloatingPointError("overflow in kernel")

    class FailingModel(FakeCompiledModel):
        sync_request_class = Failing

    class FailingPlugin(FakePlugin):
        compiled_model_class = FailingModel

    with pytest.raises(InferError, match="stage 'start_pipeline' failed: FloatingPointError: overflow in kernel"):
        FailingPlugin().compile_model(relu_model()).create_infer_request().infer(X)


class _Stateful(FakeSyncInferRequest):
    """Adds one variable, "acc", that each run adds the input's sum to."""

    def _create_states(self) -> list[VariableState]:
        return [VariableState("acc", Tensor(np.zeros(1, np.float32)))]

    def _run_model(self, inputs: Any) -> list[np.ndarray]:
        state = self._states["acc"]
        state.set_state(state.state.data + inputs[0].sum())
        return super()._run_model(inputs)


class _StatefulModel(FakeCompiledModel):
    sync_request_class = _Stateful


class _StatefulPlugin(FakePlugin):
    compiled_model_class = _StatefulModel


def test_variable_states_query_set_reset_and_isolation() -> None:
    compiled = _StatefulPlugin().compile_model(relu_model())
    r1, r2 = compiled.create_infer_request(), compiled.create_infer_request()
    ones = np.ones((2, 3), np.float32)
    r1.infer(ones)
    r1.infer(ones)
    (s1,), (s2,) = r1.query_state(), r2.query_state()
    assert s1.name == s1.get_name() == "acc"
    assert s1.state.data[0] == 12.0 and s2.state.data[0] == 0.0
    s2.state = np.array([5.0], np.float32)
    assert s2.get_state().data[0] == 5.0
    s1.reset()
    assert s1.state.data[0] == 0.0 and s2.state.data[0] == 5.0
    with pytest.raises(ValidationError, match="holds f32"):
        s1.set_state(np.array([1], np.int64))
    r2.reset_state()
    assert r2.query_state()[0].state.data[0] == 0.0
    assert FakePlugin().compile_model(relu_model()).create_infer_request().query_state() == []


# -- AsyncInferRequest ---------------------------------------------------------------------------
def test_start_async_then_wait(compiled: FakeCompiledModel) -> None:
    request = compiled.create_infer_request()
    request.start_async({"x": X})
    request.wait()
    np.testing.assert_array_equal(request.get_tensor("y").data, relu_expected(X))
    assert request.wait_for(0) is True and request.latency >= 0.0


def test_wait_without_start_returns_at_once(compiled: FakeCompiledModel) -> None:
    request = compiled.create_infer_request()
    request.wait()
    assert request.wait_for(0) is True


def test_callback_runs_once_per_run_on_another_thread(compiled: FakeCompiledModel) -> None:
    request = compiled.create_infer_request()
    calls: list[tuple[Any, int]] = []
    request.set_callback(lambda err: calls.append((err, threading.get_ident())))
    for i in range(5):
        request.start_async(X)
        request.wait()
        assert len(calls) == i + 1
    assert all(err is None and tid != threading.get_ident() for err, tid in calls)


def test_default_pipeline_runs_on_the_task_executor_and_callbacks_on_the_callback_executor(
        compiled: FakeCompiledModel) -> None:
    names: list[str] = []
    request = compiled.create_infer_request()
    request.set_callback(lambda err: names.append(threading.current_thread().name))
    request.start_async(X)
    request.wait()
    assert names == [f"{compiled.task_executor.name}_s0"]  # immediate callback: the stage's thread
    callbacks = StreamsExecutor(StreamsExecutorConfig("t_callbacks"))
    request = AsyncInferRequest(compiled.create_sync_infer_request(), compiled.task_executor, callbacks)
    request.set_callback(lambda err: names.append(threading.current_thread().name))
    request.start_async(X)
    request.wait()
    assert names[1] == "t_callbacks_s0"
    callbacks.shutdown()


def test_sync_infer_does_not_call_the_callback(compiled: FakeCompiledModel) -> None:
    request = compiled.create_infer_request()
    calls: list[Any] = []
    request.set_callback(calls.append)
    request.infer(X)
    assert calls == []


def test_callback_with_userdata_and_clearing(compiled: FakeCompiledModel) -> None:
    request = compiled.create_infer_request()
    got: list[Any] = []
    request.set_callback(got.append, "my-data")
    request.start_async(X)
    request.wait()
    request.set_callback(None)
    request.start_async(X)
    request.wait()
    assert got == ["my-data"]
    with pytest.raises(ValidationError, match="callable or None"):
        request.set_callback(42)  # type: ignore[arg-type]


def test_callback_restarting_the_request_ten_times(compiled: FakeCompiledModel) -> None:
    request = compiled.create_infer_request()
    holder = [request]
    count, done, errors = [0], threading.Event(), []

    def again(err: BaseException | None) -> None:
        errors.append(err)
        count[0] += 1
        if count[0] < 10:
            holder[0].start_async()
        else:
            done.set()

    request.set_callback(again)
    request.start_async(X)
    assert done.wait(JOIN)
    request.wait()
    assert count[0] == 10 and errors == [None] * 10
    np.testing.assert_array_equal(request.get_tensor("y").data, relu_expected(X))
    ref = weakref.ref(request)
    del request
    holder.clear()
    gc.collect()  # destroying the request after re-arming from its callback is safe
    assert ref() is None


def test_exception_in_a_stage_reaches_the_callback_and_wait() -> None:
    class Failing(FakeSyncInferRequest):
        def _run_model(self, inputs: Any) -> list[np.ndarray]:
            raise ArithmeticError("device fault")

    class FailingModel(FakeCompiledModel):
        sync_request_class = Failing

    class FailingPlugin(FakePlugin):
        compiled_model_class = FailingModel

    request = FailingPlugin().compile_model(relu_model()).create_infer_request()
    seen: list[Any] = []
    request.set_callback(seen.append)
    request.start_async(X)
    with pytest.raises(InferError, match="ArithmeticError: device fault"):
        request.wait()
    assert isinstance(seen[0], InferError)
    with pytest.raises(InferError):
        request.wait_for(0)


def test_exception_in_the_callback_surfaces_from_wait(compiled: FakeCompiledModel) -> None:
    request = compiled.create_infer_request()

    def bad(err: Any) -> None:
        raise LookupError("callback bug")

    request.set_callback(bad)
    request.start_async(X)
    with pytest.raises(LookupError, match="callback bug"):
        request.wait()
    request.set_callback(None)
    request.start_async(X)
    request.wait()  # the request is usable again


def test_waiting_inside_the_own_callback_is_refused_instead_of_hanging(compiled: FakeCompiledModel) -> None:
    request = compiled.create_infer_request()
    seen: list[Any] = []

    def callback(err: Any) -> None:
        seen.append(request.wait_for(0))
        request.wait()

    request.set_callback(callback)
    request.start_async(X)
    with pytest.raises(ValidationError, match="inside the request's own callback"):
        request.wait()
    assert seen == [False]


def test_wait_for_zero_polls_while_running(gated: FakeCompiledModel) -> None:
    request = gated.create_infer_request()
    request.start_async(X)
    assert gated.started.wait(JOIN)
    assert request.wait_for(0) is False  # would hang (test timeout) if it blocked
    assert request.wait_for(1) is False
    gated.gate.set()
    assert request.wait_for(JOIN * 1000) is True


@pytest.mark.parametrize("timeout,match", [(-1, "can't be less than 0"), (-0.5, "less than 0"),
                                           ("10", "number of milliseconds"), (None, "number of milliseconds")])
def test_wait_for_rejects_bad_timeouts(compiled: FakeCompiledModel, timeout: Any, match: str) -> None:
    with pytest.raises(ValidationError, match=match):
        compiled.create_infer_request().wait_for(timeout)


def test_calls_while_running_raise_busy(gated: FakeCompiledModel) -> None:
    request = gated.create_infer_request()
    request.start_async(X)
    assert gated.started.wait(JOIN)
    calls = [lambda: request.start_async(), lambda: request.infer(),
             lambda: request.set_tensor("x", Tensor(X)), lambda: request.get_tensor("x"),
             lambda: request.set_input_tensor(Tensor(X)), lambda: request.get_profiling_info(),
             lambda: request.query_state(), lambda: request.results]
    for call in calls:
        with pytest.raises(BusyError, match="Infer Request is busy"):
            call()
    gated.gate.set()
    request.wait()
    request.start_async(X)  # idle again
    request.wait()


def test_cancel_before_start_is_a_no_op(compiled: FakeCompiledModel) -> None:
    request = compiled.create_infer_request()
    request.cancel()
    request.start_async(X)
    request.wait()
    np.testing.assert_array_equal(request.get_tensor("y").data, relu_expected(X))


def test_cancel_during_a_run_then_reuse(gated: FakeCompiledModel) -> None:
    request = gated.create_infer_request()
    seen: list[Any] = []
    request.set_callback(seen.append)
    request.start_async(X)
    assert gated.started.wait(JOIN)
    request.cancel()
    with pytest.raises(CancelledError, match="was cancelled"):
        request.wait()
    assert isinstance(seen[0], CancelledError)
    gated.gate.set()
    request.start_async(X * 2)
    request.wait()
    np.testing.assert_array_equal(request.get_tensor("y").data, relu_expected(X * 2))


def test_cancel_after_a_run_keeps_its_result(compiled: FakeCompiledModel) -> None:
    request = compiled.create_infer_request()
    request.start_async(X)
    request.wait()
    request.cancel()
    request.wait()
    np.testing.assert_array_equal(request.get_tensor("y").data, relu_expected(X))


def test_cancel_a_synchronous_infer_from_another_thread(gated: FakeCompiledModel) -> None:
    request = gated.create_infer_request()
    errors: list[BaseException] = []

    def run() -> None:
        try:
            request.infer(X)
        except CancelledError as e:
            errors.append(e)

    worker = threading.Thread(target=run)
    worker.start()
    assert gated.started.wait(JOIN)
    request.cancel()
    worker.join(JOIN)
    assert not worker.is_alive() and len(errors) == 1
    gated.gate.set()
    np.testing.assert_array_equal(request.infer(X)[0], relu_expected(X))


def test_a_multi_stage_pipeline_runs_its_stages_in_order_on_their_executors() -> None:
    trace: list[tuple[str, str]] = []

    class TwoStage(AsyncInferRequest):
        def _create_pipeline(self, task_executor: Any) -> list:
            sync = self.sync_request
            wait_ex = sync.compiled_model.plugin.wait_executor
            return [
                (task_executor, lambda: (trace.append(("device", threading.current_thread().name)),
                                         sync.run_stage("preprocess", sync._preprocess),
                                         sync.run_stage("start_pipeline", sync._start_pipeline))),
                (wait_ex, lambda: (trace.append(("wait", threading.current_thread().name)),
                                   sync.run_stage("postprocess", sync._postprocess))),
            ]

    class TwoStageModel(FakeCompiledModel):
        async_request_class = TwoStage

    class TwoStagePlugin(FakePlugin):
        compiled_model_class = TwoStageModel

    plugin = TwoStagePlugin()
    request = plugin.compile_model(relu_model()).create_infer_request()
    request.start_async(X)
    request.wait()
    np.testing.assert_array_equal(request.get_tensor("y").data, relu_expected(X))
    assert [stage for stage, _ in trace] == ["device", "wait"]
    assert trace[0][1].endswith(".streams_s0") and trace[1][1].endswith(".wait_s0")


def test_request_outlives_its_core_and_compiled_model() -> None:
    from ovconform import Core

    core = Core([FakePlugin])
    compiled = core.compile_model(relu_model(), "FAKE")
    request = compiled.create_infer_request()
    core_ref = weakref.ref(core)
    del core, compiled
    gc.collect()
    assert core_ref() is None
    np.testing.assert_array_equal(request.infer(X)[0], relu_expected(X))
    request.start_async(X)
    request.wait()
    np.testing.assert_array_equal(request.get_output_tensor().data, relu_expected(X))
    assert request.get_compiled_model().get_property("MODEL_NAME") == "relu_model"
