"""Plugin properties (``ov_plugin`` entity): OpenVINO's ``behavior/ov_plugin/properties_tests``.

Rows of behaviours.md §1.1 covered here, with their scope:

* OVPropertiesTests (M), OVPropertiesIncorrectTests (M), OVPropertiesDefaultTests (M),
  OVPropertiesDefaultSupportedTests (O), OVBasicPropertiesTestsP (M);
* OVCheckGetSupportedROMetricsPropsTests and OVCheckSetSupportedRWMetricsPropsTests /
  OVCheckSetIncorrectRWMetricsPropsTests: the mandatory and optional value lists;
* OVCheckMetricsPropsTests_ModelDependceProps (O), OVGetMetricPropsOptionalTest (O);
* OVCompiledModelIncorrectDevice (M; counted under ov_plugin as in properties.hpp);
* not in OpenVINO's conformance runner (–, optional here): core and compile properties together,
  per-device-id configuration, unknown keys rejected by the plugin itself, read-only properties
  refusing writes.

M(HW) rows — the hardware-only mandatory read-only list (DEVICE_ARCHITECTURE, DEVICE_TYPE,
EXECUTION_DEVICES, AVAILABLE_DEVICES, EXECUTION_MODE_HINT, INFERENCE_PRECISION_HINT),
NUM_STREAMS round-trips, OVCheckChangePropComplieModleGetPropTests_DEVICE_ID and
_InferencePrecision, OVGetMetricPropsTest and OVGetAvailableDevicesPropsTest — are mandatory for a
hardware device and optional for a software one (:func:`~ovconform.suites._helpers.hardware_scope`:
a device is hardware when it reports DEVICE_TYPE, or declares ``hardware = True``; meta devices
never are). On a hardware device a property they need that is not listed fails the test, as in
OpenVINO; on a software device it skips it.

Beyond OpenVINO's bodies: a value set on the plugin is the one a model compiled afterwards
reports (not only what get_property echoes back); a key passed to compile_model beats the same
key set on the Core or the plugin, for that compile only; DEVICE_ID reaches the compiled model,
its EXECUTION_DEVICES and query_model's answer; concurrent ``set_property`` calls lose no
update (test_plugin_threading).
"""

from __future__ import annotations

from typing import Any

import pytest

from ovconform import properties as P
from ovconform.assertions import (
    assert_equal,
    assert_in,
    assert_not_empty,
    assert_property_type,
    assert_raises_ov_error,
    assert_that,
    call,
    fail,
    no_error,
)
from ovconform.errors import NotFoundError, OVConformError, PropertyError
from ovconform.ir import ALL_TYPES, Type
from ovconform.suites import _models
from ovconform.suites._helpers import META_DEVICES, hardware_scope

pytestmark = pytest.mark.entity("ov_plugin")

CONFIGS = [{}, {P.PERF_COUNT: False}, {P.PERFORMANCE_HINT: "LATENCY"}]
CONFIG_IDS = ["empty", "PERF_COUNT=NO", "PERFORMANCE_HINT=LATENCY"]


def _canonical(name: str, value: Any) -> str:
    return P.to_string(P.parse_value(name, value))


def _compile(core: Any, device: str, config: dict[str, Any] | None = None) -> Any:
    model = _models.build("relu")
    with no_error(call(device, "compile_model", model.friendly_name, config or {})):
        return core.compile_model(model, device, config or {})


# -- OVPropertiesTests / Incorrect / Default -------------------------------------------------------
@pytest.mark.mandatory
@pytest.mark.parametrize("config", CONFIGS, ids=CONFIG_IDS)
def test_set_correct_properties(ov_core: Any, ov_device_name: str, config: dict[str, Any]) -> None:
    """OVPropertiesTests.SetCorrectProperties: set_property(dev, props) does not throw."""
    with no_error(call(ov_device_name, "set_property", config)):
        ov_core.set_property(ov_device_name, config)


@pytest.mark.mandatory
@pytest.mark.parametrize("config", CONFIGS, ids=CONFIG_IDS)
def test_can_set_property_and_check_get_property(ov_core: Any, ov_device_name: str, config: dict[str, Any]) -> None:
    """OVPropertiesTests.canSetPropertyAndCheckGetProperty: each key reads back (non-empty, and equal)."""
    with no_error(call(ov_device_name, "set_property", config)):
        ov_core.set_property(ov_device_name, config)
    for name, value in config.items():
        where = call(ov_device_name, "get_property", name)
        with no_error(where):
            got = ov_core.get_property(ov_device_name, name)
        assert_equal(P.to_string(got), _canonical(name, value), name, where)


@pytest.mark.mandatory
def test_set_properties_with_incorrect_key(ov_core: Any, ov_device_name: str) -> None:
    """OVPropertiesIncorrectTests.SetPropertiesWithIncorrectKey: an unknown DEVICE_ID is refused."""
    props = {P.DEVICE_ID: "UNSUPPORTED_DEVICE_ID_STRING"}
    assert_raises_ov_error(PropertyError, ov_core.set_property, ov_device_name, props,
                           call=call(ov_device_name, "set_property", props))


DEFAULTS = [(P.PERF_COUNT, False), (P.PERFORMANCE_HINT, "LATENCY"), (P.PERFORMANCE_HINT_NUM_REQUESTS, 0)]


@pytest.mark.mandatory
@pytest.mark.parametrize(("name", "default"), DEFAULTS, ids=[n for n, _ in DEFAULTS])
def test_check_default_values(ov_core: Any, ov_device_name: str, name: str, default: Any) -> None:
    """OVPropertiesDefaultTests.CheckDefaultValues: the key is supported and has the expected default."""
    where = call(ov_device_name, "get_property", name)
    with no_error(where):
        supported = ov_core.get_property(ov_device_name, P.SUPPORTED_PROPERTIES)
        got = ov_core.get_property(ov_device_name, name)
    assert_in(name, supported, "default property", call(ov_device_name, "get_property", P.SUPPORTED_PROPERTIES))
    assert_equal(P.to_string(got), _canonical(name, default), f"default {name}", where)


def test_can_set_default_value_back_to_plugin(ov_core: Any, ov_device_name: str) -> None:
    """OVPropertiesDefaultSupportedTests.CanSetDefaultValueBackToPlugin: every supported property
    reads non-empty, and a mutable one accepts its own value back."""
    with no_error(call(ov_device_name, "get_property", P.SUPPORTED_PROPERTIES)):
        supported = dict(ov_core.get_property(ov_device_name, P.SUPPORTED_PROPERTIES))
    for name, mutability in sorted(supported.items()):
        where = call(ov_device_name, "get_property", name)
        with no_error(where):
            value = ov_core.get_property(ov_device_name, name)
        assert_that(value is not None, name, value, "a value", where)
        if str(mutability) == "RW":
            with no_error(call(ov_device_name, "set_property", {name: value})):
                ov_core.set_property(ov_device_name, {name: value})


# -- OVBasicPropertiesTestsP -----------------------------------------------------------------------
@pytest.mark.mandatory
def test_get_metric_throw_unsupported(ov_core: Any, ov_device_name: str) -> None:
    """OVBasicPropertiesTestsP.GetMetricThrowUnsupported: an unknown property name throws."""
    assert_raises_ov_error(PropertyError, ov_core.get_property, ov_device_name, "UNSUPPORTED_PROPERTY",
                           call=call(ov_device_name, "get_property", "UNSUPPORTED_PROPERTY"))


@pytest.mark.mandatory
def test_set_config_all_throws(ov_core: Any, ov_device_name: str) -> None:
    """OVBasicPropertiesTestsP.SetConfigAllThrows: a global unknown key makes get_versions(dev) throw."""

    def set_then_get_versions() -> Any:
        ov_core.set_property({"UNSUPPORTED_KEY": "4"})
        return ov_core.get_versions(ov_device_name)

    where = call(ov_device_name, "get_versions") + " after Core.set_property({'UNSUPPORTED_KEY': '4'})"
    assert_raises_ov_error(PropertyError, set_then_get_versions, call=where)


@pytest.mark.mandatory
def test_set_config_for_unregistered_device_throws(ov_core: Any, ov_device_name: str) -> None:
    """OVBasicPropertiesTestsP.SetConfigForUnRegisteredDeviceThrows."""
    assert_raises_ov_error(NotFoundError, ov_core.set_property, "UNREGISTERED_DEVICE", {P.PERF_COUNT: True},
                           call=call("UNREGISTERED_DEVICE", "set_property", {P.PERF_COUNT: True}))


@pytest.mark.mandatory
def test_get_versions_by_device_class_no_throw(ov_core: Any, ov_device_name: str) -> None:
    """OVBasicPropertiesTestsP.getVersionsByDeviceClassNoThrow."""
    where = call(ov_device_name, "get_versions")
    with no_error(where):
        versions = ov_core.get_versions(ov_device_name)
    assert_in(ov_device_name, versions, "get_versions key", where)


@pytest.mark.mandatory
def test_get_versions_by_exact_device_no_throw(ov_core: Any, ov_device_name: str) -> None:
    """OVBasicPropertiesTestsP.getVersionsByExactDeviceNoThrow: for every available DEVICE[.id]."""
    with no_error(call("Core", "get_available_devices")):
        devices = [d for d in ov_core.get_available_devices() if d.split(".")[0] == ov_device_name]
    for device in devices:
        where = call(device, "get_versions")
        with no_error(where):
            versions = ov_core.get_versions(device)
        assert_equal(list(versions), [ov_device_name], "get_versions keys", where)


@pytest.mark.mandatory
def test_set_unknown_property_throws(ov_core: Any, ov_device_name: str) -> None:
    """Beyond OpenVINO's list: the plugin itself refuses an unknown property name in set_property."""
    props = {"UNSUPPORTED_KEY": "4"}
    assert_raises_ov_error(PropertyError, ov_core.set_property, ov_device_name, props,
                           call=call(ov_device_name, "set_property", props), match="UNSUPPORTED_KEY")


# -- OVCheckGetSupportedROMetricsPropsTests --------------------------------------------------------
RO_TYPES: dict[str, type | tuple[type, ...]] = {
    P.FULL_DEVICE_NAME: str, P.DEVICE_ARCHITECTURE: str, P.DEVICE_TYPE: str, P.EXECUTION_DEVICES: (list, tuple),
    P.AVAILABLE_DEVICES: (list, tuple), P.EXECUTION_MODE_HINT: str, P.INFERENCE_PRECISION_HINT: Type,
    P.LOADED_FROM_CACHE: bool, P.DEVICE_UUID: str, P.DEVICE_LUID: str, P.DEVICE_GOPS: dict,
    P.DEVICE_THERMAL: (float, int),
}
RO_MANDATORY_HW = [P.DEVICE_ARCHITECTURE, P.DEVICE_TYPE, P.EXECUTION_DEVICES, P.AVAILABLE_DEVICES,
                   P.EXECUTION_MODE_HINT, P.INFERENCE_PRECISION_HINT]
RO_OPTIONAL = [P.LOADED_FROM_CACHE, P.DEVICE_UUID, P.DEVICE_LUID, P.DEVICE_GOPS, P.DEVICE_THERMAL]


def _check_ro(core: Any, device: str, name: str) -> None:
    __tracebackhide__ = True
    with no_error(call(device, "get_property", P.SUPPORTED_PROPERTIES)):
        supported = core.get_property(device, P.SUPPORTED_PROPERTIES)
    assert_in(name, supported, "property", call(device, "get_property", P.SUPPORTED_PROPERTIES))
    where = call(device, "get_property", name)
    with no_error(where):
        value = core.get_property(device, name)
    assert_that(value is not None, name, value, "a value", where)
    assert_property_type(value, RO_TYPES[name], name, where)
    if name in (P.FULL_DEVICE_NAME, P.AVAILABLE_DEVICES, P.EXECUTION_DEVICES):
        assert_not_empty(value, name, where)


@pytest.mark.mandatory
def test_get_supported_ro_property_full_device_name(ov_core: Any, ov_device_name: str) -> None:
    """OVCheckGetSupportedROMetricsPropsTests.ChangeCorrectProperties (mandatory list: FULL_DEVICE_NAME)."""
    _check_ro(ov_core, ov_device_name, P.FULL_DEVICE_NAME)


@pytest.mark.parametrize("name", [*RO_MANDATORY_HW, *(pytest.param(n, marks=pytest.mark.requires_property(n))
                                                      for n in RO_OPTIONAL)])
def test_get_supported_ro_property(request: pytest.FixtureRequest, ov_core: Any, ov_device_name: str,
                                   name: str) -> None:
    """OVCheckGetSupportedROMetricsPropsTests.ChangeCorrectProperties: the M(HW) list (mandatory
    for a hardware device, which must list them) and the optional list."""
    if name in RO_MANDATORY_HW:
        hardware_scope(request, ov_core, ov_device_name, name)
    _check_ro(ov_core, ov_device_name, name)


# -- OVCheckSetSupportedRWMetricsPropsTests / OVCheckSetIncorrectRWMetricsPropsTests ------------------
RW_MANDATORY = [(P.PERFORMANCE_HINT, "LATENCY"), (P.PERFORMANCE_HINT, "THROUGHPUT"),
                (P.PERFORMANCE_HINT, "CUMULATIVE_THROUGHPUT"), (P.PERFORMANCE_HINT_NUM_REQUESTS, 1),
                (P.EXECUTION_MODE_HINT, "PERFORMANCE"), (P.EXECUTION_MODE_HINT, "ACCURACY"),
                (P.PERF_COUNT, True), (P.PERF_COUNT, False)]
RW_HARDWARE = [(P.NUM_STREAMS, 3)]
RW_OPTIONAL = [(P.INFERENCE_NUM_THREADS, 1), (P.COMPILATION_NUM_THREADS, 1),
               (P.ENABLE_HYPER_THREADING, True), (P.ENABLE_HYPER_THREADING, False), (P.ENABLE_CPU_PINNING, True),
               (P.ENABLE_CPU_PINNING, False), (P.SCHEDULING_CORE_TYPE, "ANY_CORE"),
               (P.SCHEDULING_CORE_TYPE, "PCORE_ONLY"), (P.SCHEDULING_CORE_TYPE, "ECORE_ONLY"),
               (P.ENABLE_MMAP, True), (P.ENABLE_MMAP, False),
               *[(P.LOG_LEVEL, level.value) for level in P.LogLevel]]


def _rw_id(item: tuple[str, Any]) -> str:
    return f"{item[0]}={item[1]}"


def _check_rw(core: Any, device: str, name: str, value: Any) -> None:
    __tracebackhide__ = True
    with no_error(call(device, "get_property", P.SUPPORTED_PROPERTIES)):
        supported = dict(core.get_property(device, P.SUPPORTED_PROPERTIES))
    assert_in(name, supported, "property", call(device, "get_property", P.SUPPORTED_PROPERTIES))
    with no_error(call(device, "get_property", name)):
        default = core.get_property(device, name)
    assert_that(default is not None, f"default {name}", default, "a value", call(device, "get_property", name))
    with no_error(call(device, "set_property", {name: value})):
        core.set_property(device, {name: value})
    compiled = _compile(core, device)
    where = call(device, "get_property", name)
    with no_error(where):
        got = core.get_property(device, name)
    assert_equal(P.to_string(got), _canonical(name, value), name, f"{where} after set_property({name}={value!r})")
    if name in HARDWARE_REQUESTS:
        return
    if name == P.NUM_STREAMS:
        _check_compiled_streams(core, compiled, device, value)
        return
    _check_compiled_value(compiled, device, name, value)


#: Requests the device may decline on this machine (no hyper-threading, no efficient cores, no
#: pinning): its compiled model reports what it does, so only the plugin's read-back is checked.
HARDWARE_REQUESTS = (P.ENABLE_HYPER_THREADING, P.SCHEDULING_CORE_TYPE, P.ENABLE_CPU_PINNING)


def _compiled_answer(compiled: Any, device: str, name: str, where: str) -> Any:
    """The compiled model's value of ``name``, or None when it does not answer ``name``."""
    __tracebackhide__ = True
    try:
        return compiled.get_property(name)
    except PropertyError:
        return None
    except OVConformError as e:
        fail("error", f"{type(e).__name__}: {e}", "a value or PropertyError", where)


def _check_compiled_value(compiled: Any, device: str, name: str, value: Any) -> None:
    """A model compiled after ``set_property(name=value)`` reports ``value`` for ``name``, when its
    compiled model answers ``name`` at all (a value only echoed back by the plugin, never used for
    compiling, is caught here)."""
    __tracebackhide__ = True
    where = (call(device, "CompiledModel.get_property", name)
             + f" of a model compiled after set_property({name}={value!r})")
    got = _compiled_answer(compiled, device, name, where)
    if got is not None:
        assert_equal(P.to_string(got), _canonical(name, value), name, where)


def _check_compiled_streams(core: Any, compiled: Any, device: str, value: int) -> None:
    """After ``set_property(NUM_STREAMS=n)`` a compiled model runs n streams, or as many as the
    device has (the top of its RANGE_FOR_STREAMS, when it lists that) when n is more."""
    __tracebackhide__ = True
    where = (call(device, "CompiledModel.get_property", P.NUM_STREAMS)
             + f" of a model compiled after set_property(NUM_STREAMS={value})")
    got = _compiled_answer(compiled, device, P.NUM_STREAMS, where)
    if got is None:
        return
    low = value
    if P.RANGE_FOR_STREAMS in core.get_property(device, P.SUPPORTED_PROPERTIES):
        low = min(value, int(tuple(core.get_property(device, P.RANGE_FOR_STREAMS))[1]))
    assert_that(low <= int(got) <= value, P.NUM_STREAMS, got,
                f"{value}" + (f" (or down to {low}, the top of RANGE_FOR_STREAMS)" if low < value else ""), where)


@pytest.mark.mandatory
@pytest.mark.parametrize(("name", "value"), RW_MANDATORY, ids=[_rw_id(i) for i in RW_MANDATORY])
def test_set_supported_rw_property_mandatory(ov_core: Any, ov_device_name: str, name: str, value: Any) -> None:
    """OVCheckSetSupportedRWMetricsPropsTests.ChangeCorrectProperties (mandatory values)."""
    _check_rw(ov_core, ov_device_name, name, value)


@pytest.mark.parametrize(("name", "value"), [pytest.param(n, v, marks=pytest.mark.requires_property(n))
                                             for n, v in RW_OPTIONAL], ids=[_rw_id(i) for i in RW_OPTIONAL])
def test_set_supported_rw_property_optional(ov_core: Any, ov_device_name: str, name: str, value: Any) -> None:
    """OVCheckSetSupportedRWMetricsPropsTests.ChangeCorrectProperties (optional values)."""
    _check_rw(ov_core, ov_device_name, name, value)


@pytest.mark.parametrize(("name", "value"), RW_HARDWARE, ids=[_rw_id(i) for i in RW_HARDWARE])
def test_set_supported_rw_property_hardware(request: pytest.FixtureRequest, ov_core: Any, ov_device_name: str,
                                            name: str, value: Any) -> None:
    """OVCheckSetSupportedRWMetricsPropsTests.ChangeCorrectProperties (NUM_STREAMS=3: M(HW))."""
    hardware_scope(request, ov_core, ov_device_name, name)
    _check_rw(ov_core, ov_device_name, name, value)


RW_BAD_MANDATORY = [(P.PERFORMANCE_HINT, -1), (P.PERFORMANCE_HINT_NUM_REQUESTS, -10), (P.EXECUTION_MODE_HINT, 5),
                    (P.PERF_COUNT, -1)]
RW_BAD_HARDWARE = [(P.NUM_STREAMS, -10)]
RW_BAD_OPTIONAL = [(P.INFERENCE_NUM_THREADS, -1), (P.COMPILATION_NUM_THREADS, -1),
                   (P.ENABLE_HYPER_THREADING, -1), (P.ENABLE_CPU_PINNING, -1), (P.SCHEDULING_CORE_TYPE, -1),
                   (P.ENABLE_MMAP, -10), (P.LOG_LEVEL, -3)]


def _check_rw_incorrect(core: Any, device: str, name: str, value: Any) -> None:
    __tracebackhide__ = True
    with no_error(call(device, "get_property", P.SUPPORTED_PROPERTIES)):
        supported = core.get_property(device, P.SUPPORTED_PROPERTIES)
    assert_in(name, supported, "property", call(device, "get_property", P.SUPPORTED_PROPERTIES))
    with no_error(call(device, "get_property", name)):
        before = core.get_property(device, name)
    assert_raises_ov_error(PropertyError, core.set_property, device, {name: value},
                           call=call(device, "set_property", {name: value}), match=name)
    where = call(device, "get_property", name)
    with no_error(where):
        after = core.get_property(device, name)
    assert_equal(P.to_string(after), P.to_string(before), f"{name} after a refused write", where)
    _compile(core, device)


@pytest.mark.mandatory
@pytest.mark.parametrize(("name", "value"), RW_BAD_MANDATORY, ids=[_rw_id(i) for i in RW_BAD_MANDATORY])
def test_set_incorrect_rw_property_mandatory(ov_core: Any, ov_device_name: str, name: str, value: Any) -> None:
    """OVCheckSetIncorrectRWMetricsPropsTests.ChangeIncorrectProperties (mandatory values)."""
    _check_rw_incorrect(ov_core, ov_device_name, name, value)


@pytest.mark.parametrize(("name", "value"), [pytest.param(n, v, marks=pytest.mark.requires_property(n))
                                             for n, v in RW_BAD_OPTIONAL], ids=[_rw_id(i) for i in RW_BAD_OPTIONAL])
def test_set_incorrect_rw_property_optional(ov_core: Any, ov_device_name: str, name: str, value: Any) -> None:
    """OVCheckSetIncorrectRWMetricsPropsTests.ChangeIncorrectProperties (optional values)."""
    _check_rw_incorrect(ov_core, ov_device_name, name, value)


@pytest.mark.parametrize(("name", "value"), RW_BAD_HARDWARE, ids=[_rw_id(i) for i in RW_BAD_HARDWARE])
def test_set_incorrect_rw_property_hardware(request: pytest.FixtureRequest, ov_core: Any, ov_device_name: str,
                                            name: str, value: Any) -> None:
    """OVCheckSetIncorrectRWMetricsPropsTests.ChangeIncorrectProperties (NUM_STREAMS=-10: M(HW))."""
    hardware_scope(request, ov_core, ov_device_name, name)
    _check_rw_incorrect(ov_core, ov_device_name, name, value)


# -- M(HW) groups: mandatory for a hardware device ---------------------------------------------------
def _ids(core: Any, device: str) -> list[str]:
    with no_error(call(device, "get_property", P.AVAILABLE_DEVICES)):
        return [str(i) for i in core.get_property(device, P.AVAILABLE_DEVICES)]


def test_change_device_id_compile_and_get(request: pytest.FixtureRequest, ov_core: Any, ov_device_name: str) -> None:
    """OVCheckChangePropComplieModleGetPropTests_DEVICE_ID.ChangeCorrectDeviceProperties (M(HW)):
    for each id of AVAILABLE_DEVICES, FULL_DEVICE_NAME answers for it, DEVICE_ID set to it reads
    back, and — beyond OpenVINO's echo — a model compiled then reports that DEVICE_ID, runs on
    that device (EXECUTION_DEVICES) and query_model answers for it. A device without ids (``""``)
    is checked with its current DEVICE_ID."""
    hardware_scope(request, ov_core, ov_device_name, P.DEVICE_ID, P.AVAILABLE_DEVICES)
    model = _models.build("relu")
    for device_id in _ids(ov_core, ov_device_name):
        args = {P.DEVICE_ID: device_id} if device_id else {}
        where = call(ov_device_name, "get_property", P.FULL_DEVICE_NAME, args)
        with no_error(where):
            full_name = ov_core.get_plugin(ov_device_name).get_property(P.FULL_DEVICE_NAME, args)
        assert_not_empty(full_name, P.FULL_DEVICE_NAME, where)
        if device_id:
            with no_error(call(ov_device_name, "set_property", args)):
                ov_core.set_property(ov_device_name, args)
        with no_error(call(ov_device_name, "get_property", P.DEVICE_ID)):
            current = str(ov_core.get_property(ov_device_name, P.DEVICE_ID))
        if device_id:
            assert_equal(current, device_id, P.DEVICE_ID, call(ov_device_name, "get_property", P.DEVICE_ID))
        _check_runs_on(ov_core, ov_device_name, model, current)


def _check_runs_on(core: Any, device: str, model: Any, device_id: str) -> None:
    """A model compiled now reports ``device_id``, runs on ``DEV[.device_id]``, and query_model
    answers ``DEV[.device_id]`` (a meta device such as HETERO runs on, and answers for, the devices
    it splits the model over: only its compile is checked)."""
    __tracebackhide__ = True
    compiled = _compile(core, device)
    if device.upper() in META_DEVICES:
        return
    allowed = [device, f"{device}.{device_id}"] if device_id else [device]
    where = call(device, "CompiledModel.get_property", P.EXECUTION_DEVICES) + f" with DEVICE_ID={device_id!r}"
    with no_error(where):
        executing = [str(d) for d in compiled.get_property(P.EXECUTION_DEVICES)]
    assert_not_empty(executing, P.EXECUTION_DEVICES, where)
    for name in executing:
        assert_in(name, allowed, "EXECUTION_DEVICES entry", where)
    if device_id:
        _check_compiled_value(compiled, device, P.DEVICE_ID, device_id)
    where = call(device, "query_model", model.friendly_name) + f" with DEVICE_ID={device_id!r}"
    with no_error(where):
        answer = dict(core.query_model(model, device))
    for op, target in sorted(answer.items()):
        assert_in(str(target), allowed, f"device query_model answered for {op!r}", where)


@pytest.mark.parametrize("element_type", [t.name for t in ALL_TYPES])
def test_inference_precision_accepted_or_explained(request: pytest.FixtureRequest, ov_core: Any, ov_device_name: str,
                                                   element_type: str) -> None:
    """OVCheckChangePropComplieModleGetPropTests_InferencePrecision (M(HW)): an accepted type reads
    back; a refused one says "Wrong value"/"Unsupported precision" and lists "Supported values"."""
    hardware_scope(request, ov_core, ov_device_name, P.INFERENCE_PRECISION_HINT)
    props = {P.INFERENCE_PRECISION_HINT: element_type}
    where = call(ov_device_name, "set_property", props)
    try:
        ov_core.set_property(ov_device_name, props)
    except PropertyError as e:
        text = str(e)
        assert_that(("Wrong value" in text or "Unsupported precision" in text) and "Supported values" in text,
                    "refusal message", text, "a message with 'Wrong value' (or 'Unsupported precision') and "
                    "'Supported values'", where)
        return
    except OVConformError as e:
        fail("error", f"{type(e).__name__}: {e}", "success or PropertyError", where)
    got = ov_core.get_property(ov_device_name, P.INFERENCE_PRECISION_HINT)
    assert_equal(P.to_string(got), element_type, P.INFERENCE_PRECISION_HINT, where)


def test_inference_precision_at_least_one_accepted(request: pytest.FixtureRequest, ov_core: Any,
                                                   ov_device_name: str) -> None:
    """OVCheckChangePropComplieModleGetPropTests_InferencePrecision (M(HW)): some type is accepted."""
    hardware_scope(request, ov_core, ov_device_name, P.INFERENCE_PRECISION_HINT)
    accepted = []
    for t in ALL_TYPES:
        try:
            ov_core.set_property(ov_device_name, {P.INFERENCE_PRECISION_HINT: t.name})
            accepted.append(t.name)
        except PropertyError:
            continue
    assert_not_empty(accepted, "accepted INFERENCE_PRECISION_HINT values",
                     call(ov_device_name, "set_property", "INFERENCE_PRECISION_HINT=<each type>"))


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.requires_property(n))
                                  for n in (P.OPTIMAL_BATCH_SIZE, P.MAX_BATCH_SIZE)])
def test_model_dependent_property(ov_core: Any, ov_device_name: str, name: str) -> None:
    """OVCheckMetricsPropsTests_ModelDependceProps.ChangeCorrectDeviceProperties (O)."""
    where = call(ov_device_name, "get_property", name)
    with no_error(where):
        value = ov_core.get_property(ov_device_name, name)
    assert_property_type(value, int, name, where)
    assert_that(value >= 1, name, value, ">= 1", where)


def test_available_devices_and_full_names(request: pytest.FixtureRequest, ov_core: Any, ov_device_name: str) -> None:
    """OVGetMetricPropsTest.GetMetricAndPrintNoThrow_AVAILABLE_DEVICES and
    GetMetriDeviceFullNameWithoutAdditionalTerminatorChars (M(HW))."""
    hardware_scope(request, ov_core, ov_device_name, P.AVAILABLE_DEVICES)
    ids = _ids(ov_core, ov_device_name)
    assert_not_empty(ids, P.AVAILABLE_DEVICES, call(ov_device_name, "get_property", P.AVAILABLE_DEVICES))
    for device_id in ids:
        args = {P.DEVICE_ID: device_id} if device_id else {}
        where = call(ov_device_name, "get_property", P.FULL_DEVICE_NAME, args)
        with no_error(where):
            name = ov_core.get_plugin(ov_device_name).get_property(P.FULL_DEVICE_NAME, args)
        assert_not_empty(name, P.FULL_DEVICE_NAME, where)
        assert_that("\x00" not in name, P.FULL_DEVICE_NAME, name, "no embedded NUL", where)


def test_optimization_capabilities_values(request: pytest.FixtureRequest, ov_core: Any, ov_device_name: str) -> None:
    """OVGetMetricPropsTest.GetMetricAndPrintNoThrow_OPTIMIZATION_CAPABILITIES (M(HW))."""
    hardware_scope(request, ov_core, ov_device_name, P.OPTIMIZATION_CAPABILITIES)
    where = call(ov_device_name, "get_property", P.OPTIMIZATION_CAPABILITIES)
    with no_error(where):
        caps = ov_core.get_property(ov_device_name, P.OPTIMIZATION_CAPABILITIES)
    # OpenVINO's values, plus the harness's own REMOTE_CONTEXT declaration (see test_plugin_remote).
    allowed = [c.value for c in P.Capability] + ["REMOTE_CONTEXT"]
    for cap in caps:
        assert_in(str(cap), allowed, "OPTIMIZATION_CAPABILITIES entry", where)


@pytest.mark.requires_property(P.RANGE_FOR_ASYNC_INFER_REQUESTS)
def test_range_for_async_infer_requests(ov_core: Any, ov_device_name: str) -> None:
    """OVGetMetricPropsOptionalTest.GetMetricAndPrintNoThrow_RANGE_FOR_ASYNC_INFER_REQUESTS (O)."""
    where = call(ov_device_name, "get_property", P.RANGE_FOR_ASYNC_INFER_REQUESTS)
    with no_error(where):
        value = tuple(ov_core.get_property(ov_device_name, P.RANGE_FOR_ASYNC_INFER_REQUESTS))
    assert_equal(len(value), 3, "len(RANGE_FOR_ASYNC_INFER_REQUESTS)", where)
    start, end, step = value
    assert_that(1 <= start <= end and step >= 1, P.RANGE_FOR_ASYNC_INFER_REQUESTS, value,
                "(start, end, step) with 1 <= start <= end and step >= 1", where)


@pytest.mark.requires_property(P.RANGE_FOR_STREAMS)
def test_range_for_streams(ov_core: Any, ov_device_name: str) -> None:
    """OVGetMetricPropsOptionalTest.GetMetricAndPrintNoThrow_RANGE_FOR_STREAMS (O)."""
    where = call(ov_device_name, "get_property", P.RANGE_FOR_STREAMS)
    with no_error(where):
        value = tuple(ov_core.get_property(ov_device_name, P.RANGE_FOR_STREAMS))
    assert_equal(len(value), 2, "len(RANGE_FOR_STREAMS)", where)
    assert_that(1 <= value[0] <= value[1], P.RANGE_FOR_STREAMS, value, "(start, end) with 1 <= start <= end", where)


def test_get_available_devices_contains_target(request: pytest.FixtureRequest, ov_core: Any,
                                              ov_device_name: str) -> None:
    """OVGetAvailableDevicesPropsTest.GetAvailableDevicesNoThrow (M(HW))."""
    hardware_scope(request, ov_core, ov_device_name)
    where = call("Core", "get_available_devices")
    with no_error(where):
        devices = ov_core.get_available_devices()
    bases = [d.split(".")[0] for d in devices]
    assert_in(ov_device_name, bases, "target device", where)


# -- OVCompiledModelIncorrectDevice (ov_plugin_mandatory) -------------------------------------------
@pytest.mark.mandatory
@pytest.mark.parametrize("suffix", [".10", None], ids=["DEV.10", "empty_name"])
def test_cannot_compile_model_with_incorrect_device(ov_core: Any, ov_device_name: str, suffix: str | None) -> None:
    """OVCompiledModelIncorrectDevice.CanNotCompileModelWithIncorrectDeviceID / CanNotCompileModelWithEmpty."""
    device = "" if suffix is None else ov_device_name + suffix
    model = _models.build("relu")
    assert_raises_ov_error(OVConformError, ov_core.compile_model, model, device,
                           call=call(device or "''", "compile_model", model.friendly_name))


# -- not in OpenVINO's conformance runner -----------------------------------------------------------
def test_core_and_compile_properties_work_together(ov_core: Any, ov_device_name: str) -> None:
    """OVSetPropComplieModleGetPropTests.SetPropertyAndComplieModelWithPropsWorkCorrectTogeter (–)."""
    with no_error(call(ov_device_name, "set_property", {P.PERF_COUNT: True})):
        ov_core.set_property(ov_device_name, {P.PERF_COUNT: True})
    compiled = _compile(ov_core, ov_device_name, {P.PERFORMANCE_HINT: "THROUGHPUT"})
    for name, want in ((P.PERF_COUNT, True), (P.PERFORMANCE_HINT, "THROUGHPUT")):
        where = call(ov_device_name, "CompiledModel.get_property", name)
        with no_error(where):
            got = compiled.get_property(name)
        assert_equal(P.to_string(got), _canonical(name, want), name, where)


SAME_KEY = [(P.PERF_COUNT, True, False), (P.PERFORMANCE_HINT, "THROUGHPUT", "LATENCY")]


@pytest.mark.mandatory
@pytest.mark.parametrize("scope", ["device", "core"])
@pytest.mark.parametrize(("name", "stored", "passed"), SAME_KEY, ids=[k for k, _, _ in SAME_KEY])
def test_compile_config_beats_core_config(ov_core: Any, ov_device_name: str, name: str, stored: Any, passed: Any,
                                          scope: str) -> None:
    """(–, seeds 001/002: a compile configuration is the plugin's configuration overridden by the
    compile_model call's) a key set on the device (``Core.set_property(dev, ...)``) or on the Core
    (``Core.set_property({...})``) and passed again to compile_model with another value: the
    compiled model has the passed value, the device keeps the stored one, and the next compile
    without the key gets the stored one."""
    props = {name: stored}
    setting = call(ov_device_name, "set_property", props) if scope == "device" else call("Core", "set_property", props)
    with no_error(setting):
        if scope == "device":
            ov_core.set_property(ov_device_name, props)
        else:
            ov_core.set_property(props)
    compiled = _compile(ov_core, ov_device_name, {name: passed})
    where = (call(ov_device_name, "CompiledModel.get_property", name)
             + f" after {setting} and compile_model({name}={passed!r})")
    with no_error(where):
        got = compiled.get_property(name)
    assert_equal(P.to_string(got), _canonical(name, passed), f"{name} of the compiled model", where)
    where = call(ov_device_name, "get_property", name) + f" after compile_model({name}={passed!r})"
    with no_error(where):
        kept = ov_core.get_property(ov_device_name, name)
    assert_equal(P.to_string(kept), _canonical(name, stored), f"{name} of the device (stored before)", where)
    later = _compile(ov_core, ov_device_name)
    where = call(ov_device_name, "CompiledModel.get_property", name) + f" of a later compile without {name}"
    with no_error(where):
        got = later.get_property(name)
    assert_equal(P.to_string(got), _canonical(name, stored), f"{name} of the next compiled model", where)


@pytest.mark.requires_property(P.DEVICE_ID)
def test_per_device_id_configuration(ov_core: Any, ov_device_name: str) -> None:
    """OVSpecificDeviceSetConfigTest / OVClassSetDefaultDeviceIDPropTest (–): a value set for
    ``DEV.<id>`` applies to that id only and reaches models compiled on it."""
    device_id = str(ov_core.get_property(ov_device_name, P.DEVICE_ID))
    if not device_id:
        pytest.skip(f"{ov_device_name}: DEVICE_ID is '' (get_property), so there is no DEV.<id> to configure")
    target = f"{ov_device_name}.{device_id}"
    with no_error(call(target, "set_property", {P.PERF_COUNT: True})):
        ov_core.set_property(target, {P.PERF_COUNT: True})
    assert_equal(ov_core.get_property(target, P.PERF_COUNT), True, P.PERF_COUNT,
                 call(target, "get_property", P.PERF_COUNT))
    assert_equal(ov_core.get_property(ov_device_name, P.PERF_COUNT), False, P.PERF_COUNT,
                 call(ov_device_name, "get_property", P.PERF_COUNT) + " after setting it for " + target)
    compiled = _compile(ov_core, target)
    assert_equal(compiled.get_property(P.PERF_COUNT), True, P.PERF_COUNT,
                 call(target, "CompiledModel.get_property", P.PERF_COUNT))


def test_read_only_properties_refuse_writes(ov_core: Any, ov_device_name: str) -> None:
    """(–) every property SUPPORTED_PROPERTIES marks RO refuses set_property, even with its own value."""
    with no_error(call(ov_device_name, "get_property", P.SUPPORTED_PROPERTIES)):
        supported = dict(ov_core.get_property(ov_device_name, P.SUPPORTED_PROPERTIES))
    for name in sorted(n for n, m in supported.items() if str(m) == "RO"):
        value = ov_core.get_property(ov_device_name, name)
        assert_raises_ov_error(PropertyError, ov_core.set_property, ov_device_name, {name: value},
                               call=call(ov_device_name, "set_property", {name: value}))


COMPILE_BAD = [(P.NUM_STREAMS, -5), (P.PERFORMANCE_HINT, "FAST"), (P.INFERENCE_PRECISION_HINT, "i4")]


@pytest.mark.parametrize(("name", "value"), [pytest.param(n, v, marks=pytest.mark.requires_property(n))
                                             for n, v in COMPILE_BAD], ids=[_rw_id(i) for i in COMPILE_BAD])
def test_compile_model_refuses_an_invalid_value(ov_core: Any, ov_device_name: str, name: str, value: Any) -> None:
    """(–) compile_model(model, device, {name: value}) with a value the device's set_property
    refuses raises too (OpenVINO CPU: "Wrong value ... for property key"), instead of compiling
    with the value dropped. A value set_property takes (a device with i4 inference) is skipped."""
    try:
        ov_core.set_property(ov_device_name, {name: value})
    except Exception:  # noqa: BLE001 - refused, as expected: compile_model must refuse it too
        pass
    else:
        pytest.skip(f"{ov_device_name}: set_property({name}={value!r}) is accepted: a valid value here")
    model = _models.build("relu")
    where = call(ov_device_name, "compile_model", model.friendly_name, {name: value})
    try:
        compiled = ov_core.compile_model(model, ov_device_name, {name: value})
    except Exception:  # noqa: BLE001 - any error refuses it
        return
    try:
        got: Any = P.to_string(compiled.get_property(name))
    except Exception:  # noqa: BLE001 - only for the message
        got = "<unreadable>"
    fail(f"compile_model with {name}={value!r} (refused by set_property)", f"compiled ({name} reads {got!r})",
         "an error naming the property, as set_property raises", where)


#: read-write properties whose every value is known: each value a device lists the property for must be settable.
RW_ENUMS = [(P.PERFORMANCE_HINT, ("LATENCY", "THROUGHPUT")), (P.EXECUTION_MODE_HINT, ("PERFORMANCE", "ACCURACY")),
            (P.MODEL_PRIORITY, ("LOW", "MEDIUM", "HIGH")), (P.PERF_COUNT, (True, False))]


@pytest.mark.parametrize(("name", "values"), [pytest.param(n, v, marks=pytest.mark.requires_property(n))
                                              for n, v in RW_ENUMS], ids=[n for n, _ in RW_ENUMS])
def test_rw_property_takes_each_allowed_value(ov_core: Any, ov_device_name: str, name: str,
                                              values: tuple[Any, ...]) -> None:
    """(–) a property SUPPORTED_PROPERTIES lists as read-write takes each of its allowed values
    (set_property, then get_property reads that value back), each value other than the current
    one in turn, then the first again: a property listed RW but frozen at its value is the fault."""
    with no_error(call(ov_device_name, "get_property", P.SUPPORTED_PROPERTIES)):
        supported = ov_core.get_property(ov_device_name, P.SUPPORTED_PROPERTIES)
    mutability = supported.get(name) if isinstance(supported, dict) else None
    if mutability is not None and str(mutability).upper() not in ("RW", "MUTABILITY.RW"):
        pytest.skip(f"{ov_device_name}: {name} is listed as {mutability}, not RW")
    with no_error(call(ov_device_name, "get_property", name)):
        current = P.to_string(ov_core.get_property(ov_device_name, name))
    order = [v for v in values if P.to_string(v) != current]
    for value in [*order, current]:
        where = call(ov_device_name, "set_property", {name: value}) + f" ({name} was {current!r} at first)"
        with no_error(where):
            ov_core.set_property(ov_device_name, {name: value})
            got = ov_core.get_property(ov_device_name, name)
        assert_equal(P.to_string(got), P.to_string(value), f"{name} read back after set_property", where)


def test_accepted_precision_hint_reaches_the_compiled_model(ov_core: Any, ov_device_name: str) -> None:
    """(–) for each element type set_property(INFERENCE_PRECISION_HINT=<type>) takes on the device,
    a model compiled afterwards either is refused or reports that type as its
    INFERENCE_PRECISION_HINT: a device that takes any type and silently runs (and reports) another
    one says one thing and does another."""
    supported = ov_core.get_property(ov_device_name, P.SUPPORTED_PROPERTIES)
    if P.INFERENCE_PRECISION_HINT not in supported:
        pytest.skip(f"{ov_device_name}: property {P.INFERENCE_PRECISION_HINT!r} not in SUPPORTED_PROPERTIES")
    model = _models.build("relu")
    differ = []
    for t in ALL_TYPES:
        try:
            ov_core.set_property(ov_device_name, {P.INFERENCE_PRECISION_HINT: t.name})
        except Exception:  # noqa: BLE001 - a type the device refuses
            continue
        try:
            compiled = ov_core.compile_model(model, ov_device_name)
        except Exception:  # noqa: BLE001 - refusing to compile under it is allowed
            continue
        with no_error(call(ov_device_name, "CompiledModel.get_property", P.INFERENCE_PRECISION_HINT)
                      + f" after set_property(INFERENCE_PRECISION_HINT={t.name})"):
            got = P.to_string(compiled.get_property(P.INFERENCE_PRECISION_HINT))
        if got != t.name:
            differ.append(f"{t.name} -> {got}")
    assert_equal(differ, [], "types set_property took whose compiled model reports another INFERENCE_PRECISION_HINT "
                 "(set -> compiled)", call(ov_device_name, "set_property+compile_model",
                                           "INFERENCE_PRECISION_HINT=<each type>"))
