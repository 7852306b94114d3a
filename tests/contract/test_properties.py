"""The property catalogue, parsing and stores (ovconform/properties.py)."""

from __future__ import annotations

import re
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


def _store() -> P.PropertyStore:
    return P.PropertyStore("device 'T'", [
        P.Declared("PERF_COUNT", False),
        P.Declared("PERFORMANCE_HINT", "LATENCY"),
        P.Declared("INFERENCE_PRECISION_HINT", Type.f32, choices=(Type.f32, Type.f16)),
        P.Declared("NUM_STREAMS", 1, check=lambda v: "at most 4 streams." if v > 4 else None),
    ], read_only=["FULL_DEVICE_NAME", "SUPPORTED_PROPERTIES"])


def test_store_defaults_set_and_get() -> None:
    s = _store()
    assert s.get("PERF_COUNT") is False and s.get("PERFORMANCE_HINT") == "LATENCY"
    s.set({"PERF_COUNT": "YES", "NUM_STREAMS": "2"})
    assert s.get("PERF_COUNT") is True and s.get("NUM_STREAMS") == 2
    assert s.supported() == {"FULL_DEVICE_NAME": "RO", "SUPPORTED_PROPERTIES": "RO", "PERF_COUNT": "RW",
                             "PERFORMANCE_HINT": "RW", "INFERENCE_PRECISION_HINT": "RW", "NUM_STREAMS": "RW"}


def test_store_rejects_unknown_names_listing_supported_ones() -> None:
    with pytest.raises(PropertyError, match=r"Unsupported property 'abc' by device 'T'; supported properties: .*PERF"):
        _store().set({"abc": "def"})
    with pytest.raises(PropertyError, match="Unsupported property 'abc'"):
        _store().get("abc")


def test_store_rejects_writes_to_read_only_properties() -> None:
    with pytest.raises(PropertyError, match="'FULL_DEVICE_NAME' of device 'T' is read-only"):
        _store().set({"FULL_DEVICE_NAME": "x"})


def test_store_device_limits_name_the_supported_values() -> None:
    with pytest.raises(PropertyError, match=re.escape("Wrong value 'bf16' for property 'INFERENCE_PRECISION_HINT'. "
                                                      "Supported values: f32, f16.")):
        _store().set({"INFERENCE_PRECISION_HINT": "bf16"})
    with pytest.raises(PropertyError, match="Wrong value 9 for property 'NUM_STREAMS': at most 4 streams."):
        _store().set({"NUM_STREAMS": 9})


def test_store_writes_are_all_or_nothing() -> None:
    s = _store()
    with pytest.raises(PropertyError):
        s.set({"PERF_COUNT": True, "PERFORMANCE_HINT": -1})
    assert s.get("PERF_COUNT") is False


def test_merged_and_restricted_copies_leave_the_original_alone() -> None:
    s = _store()
    m = s.merged({"PERF_COUNT": True})
    assert m.get("PERF_COUNT") is True and s.get("PERF_COUNT") is False
    r = s.restricted("compiled model 'x'", ["PERF_COUNT"], ["MODEL_NAME"])
    assert r.get("PERFORMANCE_HINT") == "LATENCY"
    assert r.supported()["PERFORMANCE_HINT"] == "RO" and r.supported()["PERF_COUNT"] == "RW"
    with pytest.raises(PropertyError, match="read-only"):
        r.set({"PERFORMANCE_HINT": "THROUGHPUT"})
    r.set({"PERF_COUNT": True})
    assert s.get("PERF_COUNT") is False
    assert r.get_or("NOT_THERE", 7) == 7


def test_num_streams_has_an_upper_bound() -> None:
    assert P.parse_value("NUM_STREAMS", P.MAX_NUM_STREAMS) == P.MAX_NUM_STREAMS
    for bad in (P.MAX_NUM_STREAMS + 1, 10**20, "-3"):
        with pytest.raises(PropertyError, match=r"NUM_STREAMS.*0\.\.1024"):
            P.parse_value("NUM_STREAMS", bad)


def test_store_knows_what_was_set_explicitly() -> None:
    s = _store()
    assert not s.is_explicit("NUM_STREAMS")
    m = s.merged({"NUM_STREAMS": 1})  # the default value, but set: explicit
    assert m.is_explicit("NUM_STREAMS") and not s.is_explicit("NUM_STREAMS")
    s.set({"PERF_COUNT": False})
    assert s.copy().is_explicit("PERF_COUNT") and s.merged({}).is_explicit("PERF_COUNT")
    with pytest.raises(PropertyError):
        s.set({"NUM_STREAMS": 9})
    assert not s.is_explicit("NUM_STREAMS")  # a refused value marks nothing


def test_store_needs_a_mapping() -> None:
    with pytest.raises(PropertyError, match="must be a mapping"):
        _store().set([("PERF_COUNT", True)])  # type: ignore[arg-type]


def test_register_device_specific_property() -> None:
    spec = P.PropertySpec("FAKE_TEST_KNOB", P.parse_bool, "True, False", P.Mutability.RW, "a test knob")
    assert P.register_property(spec) is spec
    assert P.register_property(spec) is spec  # same definition twice is fine
    assert P.parse_value("FAKE_TEST_KNOB", "YES") is True
    with pytest.raises(PropertyError, match="already in the catalogue"):
        P.register_property(P.PropertySpec("FAKE_TEST_KNOB", P.parse_int, "ints", P.Mutability.RW))


@pytest.mark.parametrize("streams,hint,expected", [
    (3, "LATENCY", 3), (0, "THROUGHPUT", 1), (P.STREAMS_AUTO, "LATENCY", 1),
    (P.STREAMS_AUTO, "THROUGHPUT", 2), (P.STREAMS_NUMA, "CUMULATIVE_THROUGHPUT", 2),
])
def test_resolve_num_streams(streams: int, hint: str, expected: int) -> None:
    assert P.resolve_num_streams(streams, P.PerformanceMode(hint), cpu_count=2) == expected
