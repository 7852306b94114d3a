"""REFERENCE discovery and properties: the seeds' lists, defaults, validation, merging, streams, logging."""

from __future__ import annotations

import logging
import os
from typing import Any

import numpy as np
import pytest
from device_models import (
    collect_garbage_after_each_test,  # noqa: F401 - autouse fixture
    relu_chain_model,
)

import ovconform
from ovconform import properties as P
from ovconform.errors import PropertyError
from ovconform.ir import Type
from ovconform.registry import discover_devices
from reference_plugin.plugin import ReferencePlugin

PLUGIN_RO = {"SUPPORTED_PROPERTIES", "AVAILABLE_DEVICES", "FULL_DEVICE_NAME", "DEVICE_ARCHITECTURE",
             "OPTIMIZATION_CAPABILITIES", "DEVICE_TYPE", "RANGE_FOR_ASYNC_INFER_REQUESTS", "EXECUTION_DEVICES",
             "CACHING_PROPERTIES"}
PLUGIN_RW = {"DEVICE_ID", "PERF_COUNT", "PERFORMANCE_HINT", "PERFORMANCE_HINT_NUM_REQUESTS",
             "INFERENCE_PRECISION_HINT", "EXECUTION_MODE_HINT", "NUM_STREAMS", "DISABLE_TRANSFORMATIONS",
             "LOG_LEVEL", "EXCLUSIVE_ASYNC_REQUESTS", "INFERENCE_NUM_THREADS", "MODEL_PRIORITY",
             "REFERENCE_PROCESS_STREAMS",  # REFERENCE's own (reference_plugin/fast/process_streams.py)
             "CACHE_MODE", "ENABLE_WEIGHTLESS", "WEIGHTS_PATH"}  # weightless blobs (reference_plugin/_blob.py)
DEFAULTS: dict[str, Any] = {
    "DEVICE_ID": "0", "PERF_COUNT": False, "PERFORMANCE_HINT": "LATENCY", "PERFORMANCE_HINT_NUM_REQUESTS": 0,
    "INFERENCE_PRECISION_HINT": Type.f32, "EXECUTION_MODE_HINT": "ACCURACY", "NUM_STREAMS": 1,
    "DISABLE_TRANSFORMATIONS": False, "LOG_LEVEL": "LOG_NONE", "EXCLUSIVE_ASYNC_REQUESTS": False,
    "INFERENCE_NUM_THREADS": 0, "MODEL_PRIORITY": "MEDIUM", "REFERENCE_PROCESS_STREAMS": False,
    "CACHE_MODE": "OPTIMIZE_SPEED", "ENABLE_WEIGHTLESS": False, "WEIGHTS_PATH": "",
}


@pytest.fixture
def plugin() -> ReferencePlugin:
    return ReferencePlugin()


# -- discovery ----------------------------------------------------------------------------------
def test_default_core_discovers_reference_through_the_entry_point() -> None:
    core = ovconform.Core()
    assert "REFERENCE" in core.available_devices
    assert isinstance(core.get_plugin("REFERENCE"), ReferencePlugin)
    entry = discover_devices().get("reference")  # the entry-point name finds the device too
    assert entry.name == "REFERENCE" and entry.source == "reference"
    assert "ovconform" in entry.distribution


def test_registry_accepts_every_property_value_type() -> None:
    plugin = discover_devices().create("REFERENCE")  # checks each supported value against the catalogue
    assert isinstance(plugin, ReferencePlugin)


def test_versions_name_the_device() -> None:
    versions = ovconform.Core().get_versions("REFERENCE")
    assert list(versions) == ["REFERENCE"]
    assert versions["REFERENCE"].build_number and "ReferencePlugin" in versions["REFERENCE"].description


# -- the lists of the seeds ---------------------------------------------------------------------
def test_supported_properties_are_exactly_the_seeds(plugin: ReferencePlugin) -> None:
    supported = plugin.get_property("SUPPORTED_PROPERTIES")
    assert {k for k, v in supported.items() if v == "RO"} == PLUGIN_RO
    assert {k for k, v in supported.items() if v == "RW"} == PLUGIN_RW


def test_read_only_values(plugin: ReferencePlugin) -> None:
    assert plugin.get_property("AVAILABLE_DEVICES") == [""]
    assert "REFERENCE" in plugin.get_property("FULL_DEVICE_NAME")
    assert plugin.get_property("DEVICE_ARCHITECTURE") == "REFERENCE"
    assert plugin.get_property("OPTIMIZATION_CAPABILITIES") == ["FP32", "FP16", "EXPORT_IMPORT", "REMOTE_CONTEXT"]
    assert plugin.get_property("DEVICE_TYPE") == "INTEGRATED"
    assert plugin.get_property("RANGE_FOR_ASYNC_INFER_REQUESTS") == (1, 1, 1)
    assert plugin.get_property("EXECUTION_DEVICES") == ["REFERENCE"]
    # the architecture and every property the compiled program reads or its blob carries (cache keys see them)
    assert plugin.get_property("CACHING_PROPERTIES") == [
        "DEVICE_ARCHITECTURE", "INFERENCE_PRECISION_HINT", "EXECUTION_MODE_HINT", "PERF_COUNT",
        "DISABLE_TRANSFORMATIONS", "PERFORMANCE_HINT", "PERFORMANCE_HINT_NUM_REQUESTS", "NUM_STREAMS",
        "INFERENCE_NUM_THREADS", "REFERENCE_PROCESS_STREAMS", "CACHE_MODE", "ENABLE_WEIGHTLESS"]


@pytest.mark.parametrize(("name", "default"), sorted(DEFAULTS.items()))
def test_defaults(plugin: ReferencePlugin, name: str, default: Any) -> None:
    assert plugin.get_property(name) == default


@pytest.mark.parametrize(("name", "value", "expected"), [
    ("PERF_COUNT", "YES", True),
    ("PERFORMANCE_HINT", "THROUGHPUT", "THROUGHPUT"),
    ("PERFORMANCE_HINT", "CUMULATIVE_THROUGHPUT", "CUMULATIVE_THROUGHPUT"),
    ("PERFORMANCE_HINT_NUM_REQUESTS", "4", 4),
    ("INFERENCE_PRECISION_HINT", "f16", Type.f16),
    ("EXECUTION_MODE_HINT", "PERFORMANCE", "PERFORMANCE"),
    ("NUM_STREAMS", 3, 3),
    ("NUM_STREAMS", "AUTO", P.STREAMS_AUTO),
    ("DISABLE_TRANSFORMATIONS", True, True),
    ("LOG_LEVEL", "LOG_DEBUG", "LOG_DEBUG"),
    ("EXCLUSIVE_ASYNC_REQUESTS", True, True),
    ("DEVICE_ID", "0", "0"),
    ("INFERENCE_NUM_THREADS", 2, 2),
    ("MODEL_PRIORITY", "HIGH", "HIGH"),
])
def test_read_write_round_trip(plugin: ReferencePlugin, name: str, value: Any, expected: Any) -> None:
    plugin.set_property({name: value})
    assert plugin.get_property(name) == expected
    plugin.set_property({name: DEFAULTS[name]})  # setting the default back works too
    assert plugin.get_property(name) == DEFAULTS[name]


@pytest.mark.parametrize(("props", "message"), [
    ({"INFERENCE_PRECISION_HINT": "bf16"}, r"Wrong value 'bf16' .*Supported values: f32, f16"),
    ({"INFERENCE_PRECISION_HINT": "i8"}, r"Supported values: f32, f16"),
    ({"PERFORMANCE_HINT": -1}, r"Wrong value -1 for property 'PERFORMANCE_HINT'"),
    ({"PERFORMANCE_HINT_NUM_REQUESTS": -10}, r"Wrong value -10"),
    ({"EXECUTION_MODE_HINT": 5}, r"Wrong value 5 for property 'EXECUTION_MODE_HINT'"),
    ({"PERF_COUNT": -1}, r"Wrong value -1 for property 'PERF_COUNT'"),
    ({"NUM_STREAMS": -10}, r"Wrong value -10 for property 'NUM_STREAMS'"),
    ({"LOG_LEVEL": -3}, r"Wrong value -3 for property 'LOG_LEVEL'"),
    ({"DEVICE_ID": "1"}, r"has no such id. Supported values: \['0'\]"),
    ({"DEVICE_ID": "UNSUPPORTED_DEVICE_ID_STRING"}, r"no such id"),
    ({"COMPILATION_NUM_THREADS": 1}, r"Unsupported property 'COMPILATION_NUM_THREADS'"),
    ({"INFERENCE_NUM_THREADS": -1}, r"Wrong value -1 for property 'INFERENCE_NUM_THREADS'"),
    ({"MODEL_PRIORITY": -1}, r"Wrong value -1 for property 'MODEL_PRIORITY'"),
    ({"NOT_A_PROPERTY": 1},
     r"Unsupported property 'NOT_A_PROPERTY'.*supported properties: AVAILABLE_DEVICES, CACHE_MODE, "
     "CACHING_PROPERTIES"),
    ({"FULL_DEVICE_NAME": "x"}, r"'FULL_DEVICE_NAME' .* is read-only"),
])
def test_bad_writes_are_refused_and_change_nothing(plugin: ReferencePlugin, props: dict[str, Any],
                                                   message: str) -> None:
    with pytest.raises(PropertyError, match=message):
        plugin.set_property({"PERF_COUNT": True, **props})
    assert plugin.get_property("PERF_COUNT") is False  # all or nothing
    plugin.compile_model(relu_chain_model())  # the plugin still compiles


def test_unknown_property_read_is_refused(plugin: ReferencePlugin) -> None:
    with pytest.raises(PropertyError, match="Unsupported property 'unsupported_property'"):
        plugin.get_property("unsupported_property")


def test_device_ids_through_the_core() -> None:
    core = ovconform.Core()
    assert core.get_property("REFERENCE.0", "FULL_DEVICE_NAME") == core.get_property("REFERENCE", "FULL_DEVICE_NAME")
    assert core.get_property("REFERENCE.0", "DEVICE_ID") == "0"
    compiled = core.compile_model(relu_chain_model(), "REFERENCE.0")
    assert compiled.get_property("EXECUTION_DEVICES") == ["REFERENCE.0"]
    for bad in ("REFERENCE.1", "REFERENCE.110", "REFERENCE.l0"):
        with pytest.raises(PropertyError, match="no such id"):
            core.compile_model(relu_chain_model(), bad)


# -- configuration merge ------------------------------------------------------------------------
def test_call_properties_win_over_plugin_properties(plugin: ReferencePlugin) -> None:
    plugin.set_property({"PERF_COUNT": True, "PERFORMANCE_HINT": "THROUGHPUT"})
    compiled = plugin.compile_model(relu_chain_model(), {"PERF_COUNT": False})
    assert compiled.get_property("PERF_COUNT") is False
    assert compiled.get_property("PERFORMANCE_HINT") == "THROUGHPUT"  # plugin value, readable on the model
    assert plugin.compile_model(relu_chain_model()).get_property("PERF_COUNT") is True


def test_per_device_id_core_properties_reach_the_compiled_model() -> None:
    core = ovconform.Core()
    core.set_property("REFERENCE.0", {"NUM_STREAMS": 2})
    assert core.get_property("REFERENCE.0", "NUM_STREAMS") == 2
    compiled = core.compile_model(relu_chain_model(), "REFERENCE.0")
    assert compiled.get_property("OPTIMAL_NUMBER_OF_INFER_REQUESTS") == 2


# -- compiled-model properties ------------------------------------------------------------------
def test_compiled_model_properties(plugin: ReferencePlugin) -> None:
    compiled = plugin.compile_model(relu_chain_model())
    assert compiled.get_property("SUPPORTED_PROPERTIES") == {
        "MODEL_NAME": "RO", "SUPPORTED_PROPERTIES": "RO", "EXECUTION_DEVICES": "RO", "LOADED_FROM_CACHE": "RO",
        "OPTIMAL_NUMBER_OF_INFER_REQUESTS": "RO", "DEVICE_ID": "RW", "PERF_COUNT": "RW", "PERFORMANCE_HINT": "RW"}
    assert compiled.get_property("MODEL_NAME") == "relu_chain"
    assert compiled.get_property("EXECUTION_DEVICES") == ["REFERENCE.0"]
    assert compiled.get_property("LOADED_FROM_CACHE") is False
    assert compiled.get_property("OPTIMAL_NUMBER_OF_INFER_REQUESTS") == 1
    assert compiled.get_property("DEVICE_ID") == "0"
    compiled.set_property({"PERF_COUNT": True})
    assert compiled.get_property("PERF_COUNT") is True and compiled.profiling_enabled
    assert compiled.get_property("PERFORMANCE_HINT") == "LATENCY"
    assert compiled.get_property("MODEL_PRIORITY") == "MEDIUM"  # readable, though not listed
    compiled.set_property({"PERFORMANCE_HINT": "THROUGHPUT"})
    assert compiled.get_property("PERFORMANCE_HINT") == "THROUGHPUT"
    with pytest.raises(PropertyError, match="'NUM_STREAMS' .* is read-only"):
        compiled.set_property({"NUM_STREAMS": 2})
    with pytest.raises(PropertyError, match="Unsupported property 'abc'"):
        compiled.set_property({"abc": "def"})
    with pytest.raises(PropertyError, match="Unsupported property 'unsupported_property'"):
        compiled.get_property("unsupported_property")
    with pytest.raises(PropertyError, match="no such id"):
        compiled.set_property({"DEVICE_ID": "3"})


@pytest.mark.parametrize(("props", "streams"), [
    ({}, 1),
    ({"NUM_STREAMS": 3}, 3),
    ({"PERFORMANCE_HINT": "THROUGHPUT"}, max(1, min(os.cpu_count() or 1, 4))),  # unset NUM_STREAMS: the hint decides
    ({"PERFORMANCE_HINT": "THROUGHPUT", "NUM_STREAMS": 1}, 1),  # an explicit NUM_STREAMS wins
    ({"PERFORMANCE_HINT": "LATENCY", "NUM_STREAMS": "AUTO"}, 1),
    ({"PERFORMANCE_HINT": "THROUGHPUT", "NUM_STREAMS": "AUTO"}, max(1, min(os.cpu_count() or 1, 4))),
    ({"PERFORMANCE_HINT": "THROUGHPUT", "NUM_STREAMS": "AUTO", "PERFORMANCE_HINT_NUM_REQUESTS": 1}, 1),
])
def test_streams_and_optimal_number_of_requests(plugin: ReferencePlugin, props: dict[str, Any], streams: int) -> None:
    compiled = plugin.compile_model(relu_chain_model(), props)
    # one request per stream, whether streams are threads or worker processes (the THROUGHPUT
    # hint's choice with 2+ streams: a second request per worker only queued, same throughput)
    processes = props.get("PERFORMANCE_HINT") == "THROUGHPUT" and streams > 1
    assert compiled.get_property("REFERENCE_PROCESS_STREAMS") is processes
    assert compiled.get_property("OPTIMAL_NUMBER_OF_INFER_REQUESTS") == streams
    assert compiled.get_property("NUM_STREAMS") == streams  # the resolved count reads back
    assert compiled.task_executor.config.streams == streams  # type: ignore[attr-defined]


# -- logging ------------------------------------------------------------------------------------
def test_log_level_controls_compile_logging(plugin: ReferencePlugin, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG, logger="reference_plugin"):
        plugin.compile_model(relu_chain_model())
        assert caplog.records == []
        plugin.compile_model(relu_chain_model(), {"LOG_LEVEL": "LOG_INFO"})
        assert [r.levelno for r in caplog.records] == [logging.INFO]
        assert "compiled model 'relu_chain' (4 -> 3 nodes)" in caplog.records[0].getMessage()
        caplog.clear()
        plugin.compile_model(relu_chain_model(), {"LOG_LEVEL": "LOG_DEBUG"})
    messages = [r.getMessage() for r in caplog.records]
    assert any("FuseIdempotentUnary changed 1 node(s)" in m for m in messages)
    assert any("ConstantFolding changed 0 node(s)" in m for m in messages)


def test_compile_time_values_read_back_on_the_compiled_model(plugin: ReferencePlugin) -> None:
    compiled = plugin.compile_model(relu_chain_model(), {"EXECUTION_MODE_HINT": "PERFORMANCE",
                                                         "INFERENCE_PRECISION_HINT": np.float16,
                                                         "MODEL_PRIORITY": "LOW", "INFERENCE_NUM_THREADS": 2})
    assert compiled.get_property("EXECUTION_MODE_HINT") == "PERFORMANCE"
    assert compiled.get_property("INFERENCE_PRECISION_HINT") == Type.f16
    assert compiled.get_property("MODEL_PRIORITY") == "LOW"
    assert compiled.task_executor.config.threads_per_stream == 2  # type: ignore[attr-defined]


def test_streams_set_on_the_plugin_are_explicit_too(plugin: ReferencePlugin) -> None:
    plugin.set_property({"NUM_STREAMS": 1})
    compiled = plugin.compile_model(relu_chain_model(), {"PERFORMANCE_HINT": "THROUGHPUT"})
    assert compiled.get_property("NUM_STREAMS") == 1


@pytest.mark.parametrize(("hint", "streams"), [("LATENCY", 1), ("THROUGHPUT", max(1, min(os.cpu_count() or 1, 4)))])
def test_each_stream_runs_blas_on_its_share_of_the_cores(plugin: ReferencePlugin, hint: str, streams: int) -> None:
    pytest.importorskip("threadpoolctl", reason="BLAS threads are managed through threadpoolctl")
    from reference_plugin.fast.blas import blas_info, threads_per_stream

    # streams as threads in this process (the hint alone would run them in worker processes)
    compiled = plugin.compile_model(relu_chain_model(), {"PERFORMANCE_HINT": hint, "REFERENCE_PROCESS_STREAMS": False})
    assert compiled.get_property("NUM_STREAMS") == streams
    request = compiled.create_infer_request()
    request.infer([np.ones(compiled.inputs[0].get_shape(), np.float32)])
    info = blas_info()
    assert isinstance(info, list) and info, info
    assert all(lib["num_threads"] == threads_per_stream(streams) for lib in info)
    assert threads_per_stream(streams) == max(1, (os.cpu_count() or 1) // streams)


def test_inference_num_threads_caps_the_threads_an_inference_computes_with() -> None:
    """INFERENCE_NUM_THREADS=1 (as a harness sets it for its oracle next to another runtime): BLAS
    runs one thread during the inference; 0 (the default) leaves the cores the streams share."""
    threadpoolctl = pytest.importorskip("threadpoolctl")
    from ovconform import Core, opset
    from ovconform.ir import Model

    x = opset.parameter([64, 64], "f32", name="x")
    model = Model([opset.result(opset.matmul(x, x, False, False))], [x], "mm")
    core = Core()
    seen = {}
    for limit in (1, 0):
        request = core.compile_model(model, "REFERENCE", {"INFERENCE_NUM_THREADS": limit}).create_infer_request()
        request.infer([np.ones((64, 64), np.float32)])
        blas = [c for c in threadpoolctl.threadpool_info() if c["user_api"] == "blas"]
        seen[limit] = {c["num_threads"] for c in blas}
    cores = os.cpu_count() or 1
    assert seen[1] == {1} and seen[0] == {cores}, seen
