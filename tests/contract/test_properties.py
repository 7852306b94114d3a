"""The property catalogue and parsing (ovconform/properties.py); the store is tested in
test_property_store.py."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from ovconform import Type
from ovconform import properties as P
from ovconform.errors import OVConformError, PropertyError

ISSUE_NAMES = [
    "PERFORMANCE_HINT", "EXECUTION_MODE_HINT", "INFERENCE_PRECISION_HINT", "NUM_STREAMS", "PERF_COUNT",
    "DEVICE_ID", "LOG_LEVEL", "MODEL_PRIORITY", "CACHE_DIR", "SUPPORTED_PROPERTIES", "FULL_DEVICE_NAME",
    # listed by the seeds (plugin and compiled model get_property)
    "AVAILABLE_DEVICES", "DEVICE_ARCHITECTURE", "OPTIMIZATION_CAPABILITIES", "DEVICE_TYPE",
    "RANGE_FOR_ASYNC_INFER_REQUESTS", "EXECUTION_DEVICES", "PERFORMANCE_HINT_NUM_REQUESTS",
    "CACHING_PROPERTIES", "EXCLUSIVE_ASYNC_REQUESTS", "MODEL_NAME", "LOADED_FROM_CACHE",
    "OPTIMAL_NUMBER_OF_INFER_REQUESTS", "NETWORK_NAME", "IMPORT_EXPORT_SUPPORT", "RANGE_FOR_STREAMS",
    "DISABLE_TRANSFORMATIONS", "SUPPORTED_METRICS", "SUPPORTED_CONFIG_KEYS",
]
READ_ONLY = {"SUPPORTED_PROPERTIES", "FULL_DEVICE_NAME", "AVAILABLE_DEVICES", "DEVICE_ARCHITECTURE",
             "OPTIMIZATION_CAPABILITIES", "DEVICE_TYPE", "RANGE_FOR_ASYNC_INFER_REQUESTS", "EXECUTION_DEVICES",
             "CACHING_PROPERTIES", "MODEL_NAME", "LOADED_FROM_CACHE", "OPTIMAL_NUMBER_OF_INFER_REQUESTS",
             "NETWORK_NAME", "IMPORT_EXPORT_SUPPORT", "RANGE_FOR_STREAMS", "SUPPORTED_METRICS",
             "SUPPORTED_CONFIG_KEYS"}


@pytest.mark.parametrize("name", ISSUE_NAMES)
def test_catalogue_has_every_named_property_with_its_mutability(name: str) -> None:
    spec = P.get_spec(name)
    assert spec.name == name
    assert spec.mutability == (P.Mutability.RO if name in READ_ONLY else P.Mutability.RW)


def test_unknown_catalogue_name_lists_known_names() -> None:
    with pytest.raises(PropertyError, match="NOT_A_PROPERTY.*known properties: .*PERF_COUNT"):
        P.get_spec("NOT_A_PROPERTY")


@pytest.mark.parametrize("name,value,expected", [
    ("PERFORMANCE_HINT", "THROUGHPUT", P.PerformanceMode.THROUGHPUT),
    ("PERFORMANCE_HINT", P.PerformanceMode.CUMULATIVE_THROUGHPUT, "CUMULATIVE_THROUGHPUT"),
    ("EXECUTION_MODE_HINT", "ACCURACY", P.ExecutionMode.ACCURACY),
    ("MODEL_PRIORITY", "HIGH", P.Priority.HIGH),
    ("LOG_LEVEL", "LOG_WARNING", P.LogLevel.WARNING),
    ("LOG_LEVEL", "TRACE", P.LogLevel.TRACE),
    ("SCHEDULING_CORE_TYPE", "PCORE_ONLY", P.SchedulingCoreType.PCORE_ONLY),
    ("CACHE_MODE", "OPTIMIZE_SIZE", P.CacheMode.OPTIMIZE_SIZE),
    ("PERF_COUNT", True, True),
    ("PERF_COUNT", "YES", True),
    ("PERF_COUNT", "false", False),
    ("PERF_COUNT", np.bool_(True), True),
    ("NUM_STREAMS", 3, 3),
    ("NUM_STREAMS", "3", 3),
    ("NUM_STREAMS", "AUTO", P.STREAMS_AUTO),
    ("NUM_STREAMS", "NUMA", P.STREAMS_NUMA),
    ("PERFORMANCE_HINT_NUM_REQUESTS", np.int64(4), 4),
    ("INFERENCE_PRECISION_HINT", "f32", Type.f32),
    ("INFERENCE_PRECISION_HINT", "FP16", Type.f16),
    ("INFERENCE_PRECISION_HINT", np.float32, Type.f32),
    ("INFERENCE_PRECISION_HINT", Type.bf16, Type.bf16),
    ("DEVICE_ID", 1, "1"),
    ("CACHE_DIR", "/tmp/x", "/tmp/x"),
])
def test_values_parse_from_native_and_string_forms(name: str, value: Any, expected: Any) -> None:
    assert P.parse_value(name, value) == expected


def test_enum_values_compare_and_print_as_openvino_strings() -> None:
    assert P.PerformanceMode.LATENCY == "LATENCY"
    assert str(P.LogLevel.NO) == "LOG_NONE"
    assert P.to_string(True) == "YES" and P.to_string(Type.f16) == "f16"
    assert P.to_string([P.Capability.FP32, "EXPORT_IMPORT"]) == "FP32,EXPORT_IMPORT"


def test_objects_with_a_member_name_are_accepted() -> None:
    class ForeignEnum:  # like openvino.properties.hint.PerformanceMode.THROUGHPUT
        name = "THROUGHPUT"

    assert P.parse_value("PERFORMANCE_HINT", ForeignEnum()) == P.PerformanceMode.THROUGHPUT


# The invalid values OpenVINO's OVCheckSetIncorrectRWMetricsPropsTests uses (mandatory + optional).
@pytest.mark.parametrize("name,value", [
    ("PERFORMANCE_HINT", -1), ("PERFORMANCE_HINT_NUM_REQUESTS", -10), ("EXECUTION_MODE_HINT", 5),
    ("PERF_COUNT", -1), ("NUM_STREAMS", -10), ("INFERENCE_NUM_THREADS", -1), ("COMPILATION_NUM_THREADS", -1),
    ("ENABLE_HYPER_THREADING", -1), ("ENABLE_CPU_PINNING", -1), ("SCHEDULING_CORE_TYPE", -1),
    ("ENABLE_MMAP", -10), ("LOG_LEVEL", -3), ("PERFORMANCE_HINT", "latency"), ("PERF_COUNT", "maybe"),
    ("NUM_STREAMS", "many"), ("NUM_STREAMS", 1.5), ("INFERENCE_PRECISION_HINT", "f11"), ("DEVICE_ID", 1.0),
])
def test_bad_values_name_the_property_the_value_and_the_supported_values(name: str, value: Any) -> None:
    with pytest.raises(PropertyError) as info:
        P.parse_value(name, value)
    text = str(info.value)
    assert f"Wrong value {value!r}" in text
    assert repr(name) in text
    assert "Supported values:" in text


def test_property_error_is_a_key_error_and_an_ovconform_error() -> None:
    with pytest.raises(KeyError):
        P.parse_value("PERF_COUNT", -1)
    assert issubclass(PropertyError, OVConformError)


def test_num_streams_has_an_upper_bound() -> None:
    assert P.parse_value("NUM_STREAMS", P.MAX_NUM_STREAMS) == P.MAX_NUM_STREAMS
    for bad in (P.MAX_NUM_STREAMS + 1, 10**20, "-3"):
        with pytest.raises(PropertyError, match=r"NUM_STREAMS.*0\.\.1024"):
            P.parse_value("NUM_STREAMS", bad)


def test_register_device_specific_property() -> None:
    spec = P.PropertySpec("FAKE_TEST_KNOB", P.parse_bool, "True, False", P.Mutability.RW, "a test knob")
    assert P.register_property(spec) is spec
    assert P.register_property(spec) is spec  # same definition twice is fine
    assert P.parse_value("FAKE_TEST_KNOB", "YES") is True
    with pytest.raises(PropertyError, match="already in the catalogue"):
        P.register_property(P.PropertySpec("FAKE_TEST_KNOB", P.parse_int, "ints", P.Mutability.RW))
