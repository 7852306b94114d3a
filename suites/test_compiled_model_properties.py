"""Compiled-model properties (``ov_compiled_model`` entity): ``behavior/compiled_model/properties.hpp``.

* OVClassCompiledModelGetPropertyTest (SUPPORTED_CONFIG_KEYS, NETWORK_NAME,
  OPTIMAL_NUMBER_OF_INFER_REQUESTS, CanCompileModelWithEmptyProperties) — M.
* OVClassCompiledModelGetIncorrectPropertyTest.GetConfigThrows — M.
* OVClassCompiledModelGetConfigTest (GetConfigNoThrow, GetConfigFromCoreAndFromCompiledModel,
  CanCompileModelWithCustomLocale) — M.
* OVClassCompiledModelPropertiesTests (CanUseCache, canCompileModelWithPropertiesAndCheckGetProperty,
  ×3 configs) — M. OpenVINO's bodies only compile twice with CACHE_DIR and read listed
  properties; here the second compile of a device with EXPORT_IMPORT must come from the cache,
  both compiles report the compile configuration and compute the right numbers, and a compile
  property reads back from the compiled model whether the compiled model lists it or not (seed
  000: get_property is the only way to get configuration values).
* OVClassCompiledModelPropertiesDefaultTests.CheckDefaultValues — M (PERF_COUNT=NO,
  PERFORMANCE_HINT=LATENCY, listed and equal, as the TEMPLATE plugin lists them).
* OVCompiledModelPropertiesDefaultSupportedTests.CanCompileWithDefaultValueFromPlugin — M.
* OVClassCompiledModelPropertiesIncorrectTests.CanNotCompileModelWithIncorrectProperties — M.
* OVClassCompiledModelGetPropertyTest_MODEL_PRIORITY (×4) — M.
* OVClassCompiledModelSetIncorrectConfigTest — O.
* Not in conformance (–, optional): set/get round trip on the compiled model, EXECUTION_DEVICES
  names this device, read-only compiled-model properties refuse writes,
  OPTIMAL_NUMBER_OF_INFER_REQUESTS follows the streams and hints the compiled model reports, a
  compiled model keeps the configuration it was compiled with when the device's properties
  change afterwards (seed 000: the compiled model holds its own copy of the configuration).
"""

from __future__ import annotations

import locale
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ovconform import properties as P
from ovconform.assertions import (
    assert_equal,
    assert_in,
    assert_not_empty,
    assert_raises_ov_error,
    assert_that,
    call,
    no_error,
)
from ovconform.errors import OVConformError, PropertyError
from ovconform.suites import _models
from ovconform.suites._helpers import check_outputs

pytestmark = pytest.mark.entity("ov_compiled_model")
#: The property a meta device (HETERO, AUTO) lists its devices in (ov::device::priorities).
META_DEVICES = "MULTI_DEVICE_PRIORITIES"


def _compile(core: Any, device: str, config: dict[str, Any] | None = None, name: str = "relu") -> Any:
    model = _models.build(name)
    with no_error(call(device, "compile_model", model.friendly_name, config or {})):
        return core.compile_model(model, device, config or {})


def _get(compiled: Any, device: str, name: str) -> Any:
    with no_error(call(device, "CompiledModel.get_property", name)):
        return compiled.get_property(name)


def _supported(compiled: Any, device: str) -> dict[str, str]:
    return {str(k): str(v) for k, v in dict(_get(compiled, device, P.SUPPORTED_PROPERTIES)).items()}


def _canonical(name: str, value: Any) -> str:
    return P.to_string(P.parse_value(name, value))


@pytest.mark.mandatory
def test_supported_properties(ov_core: Any, ov_device_name: str) -> None:
    """OVClassCompiledModelGetPropertyTest.GetMetricNoThrow_SUPPORTED_CONFIG_KEYS: non-empty names,
    each RO or RW."""
    supported = _supported(_compile(ov_core, ov_device_name), ov_device_name)
    where = call(ov_device_name, "CompiledModel.get_property", P.SUPPORTED_PROPERTIES)
    assert_not_empty(supported, P.SUPPORTED_PROPERTIES, where)
    for name, mutability in supported.items():
        assert_not_empty(name.strip(), "property name", where)
        assert_in(mutability, ["RO", "RW"], f"mutability of {name}", where)


@pytest.mark.mandatory
def test_model_name(ov_core: Any, ov_device_name: str) -> None:
    """OVClassCompiledModelGetPropertyTest.GetMetricNoThrow_NETWORK_NAME: MODEL_NAME is the model's
    friendly name and is listed."""
    compiled = _compile(ov_core, ov_device_name, name="conv_pool_relu")
    where = call(ov_device_name, "CompiledModel.get_property", P.MODEL_NAME)
    assert_equal(_get(compiled, ov_device_name, P.MODEL_NAME), "ConvPoolRelu", P.MODEL_NAME, where)
    assert_in(P.MODEL_NAME, _supported(compiled, ov_device_name), "property", where)


@pytest.mark.mandatory
def test_optimal_number_of_infer_requests(ov_core: Any, ov_device_name: str) -> None:
    """OVClassCompiledModelGetPropertyTest.GetMetricNoThrow_OPTIMAL_NUMBER_OF_INFER_REQUESTS: >= 1, listed."""
    compiled = _compile(ov_core, ov_device_name)
    where = call(ov_device_name, "CompiledModel.get_property", P.OPTIMAL_NUMBER_OF_INFER_REQUESTS)
    value = _get(compiled, ov_device_name, P.OPTIMAL_NUMBER_OF_INFER_REQUESTS)
    assert_that(isinstance(value, int) and value >= 1, P.OPTIMAL_NUMBER_OF_INFER_REQUESTS, value, "an int >= 1",
                where)
    assert_in(P.OPTIMAL_NUMBER_OF_INFER_REQUESTS, _supported(compiled, ov_device_name), "property", where)


@pytest.mark.mandatory
def test_can_compile_model_with_empty_properties(ov_core: Any, ov_device_name: str) -> None:
    """OVClassCompiledModelGetPropertyTest.CanCompileModelWithEmptyProperties."""
    assert_not_empty(_supported(_compile(ov_core, ov_device_name, {}), ov_device_name), P.SUPPORTED_PROPERTIES,
                     call(ov_device_name, "CompiledModel.get_property", P.SUPPORTED_PROPERTIES))


@pytest.mark.mandatory
def test_get_config_throws(ov_core: Any, ov_device_name: str) -> None:
    """OVClassCompiledModelGetIncorrectPropertyTest.GetConfigThrows."""
    compiled = _compile(ov_core, ov_device_name)
    assert_raises_ov_error(PropertyError, compiled.get_property, "unsupported_property",
                           call=call(ov_device_name, "CompiledModel.get_property", "unsupported_property"))


@pytest.mark.mandatory
def test_get_config_no_throw(ov_core: Any, ov_device_name: str) -> None:
    """OVClassCompiledModelGetConfigTest.GetConfigNoThrow: every listed property reads and holds a
    value (OpenVINO's ``Any::empty()``: an empty string is a value)."""
    compiled = _compile(ov_core, ov_device_name)
    for name in _supported(compiled, ov_device_name):
        value = _get(compiled, ov_device_name, name)
        assert_that(value is not None, name, value, "a value", call(ov_device_name, "CompiledModel.get_property", name))


@pytest.mark.mandatory
def test_get_config_from_core_and_from_compiled_model(ov_core: Any, ov_device_name: str) -> None:
    """OVClassCompiledModelGetConfigTest.GetConfigFromCoreAndFromCompiledModel: a property the
    plugin has RW and the compiled model lists reads the same from both."""
    plugin = {str(k): str(v) for k, v in dict(ov_core.get_property(ov_device_name, P.SUPPORTED_PROPERTIES)).items()}
    compiled = _compile(ov_core, ov_device_name)
    for name in _supported(compiled, ov_device_name):
        if plugin.get(name) != "RW":
            continue
        core_value = P.to_string(ov_core.get_property(ov_device_name, name))
        assert_equal(P.to_string(_get(compiled, ov_device_name, name)), core_value, name,
                     call(ov_device_name, "CompiledModel.get_property", name) + f" vs Core.get_property ({core_value})")


_LOCALES = ("de_DE.UTF-8", "en_GB.UTF-8", "fr_FR.UTF-8", "C.UTF-8")


@pytest.fixture
def custom_locale() -> Iterator[str]:
    """Switch LC_ALL to a non-default locale (the first one installed) for the test."""
    old = locale.setlocale(locale.LC_ALL)
    chosen = "C"
    for name in _LOCALES:
        try:
            locale.setlocale(locale.LC_ALL, name)
            chosen = name
            break
        except locale.Error:
            continue
    try:
        yield chosen
    finally:
        locale.setlocale(locale.LC_ALL, old)


@pytest.mark.mandatory
def test_can_compile_model_with_custom_locale(ov_core: Any, ov_device_name: str, custom_locale: str) -> None:
    """OVClassCompiledModelGetConfigTest.CanCompileModelWithCustomLocale."""
    model = _models.build("matmul_bias")
    where = call(ov_device_name, "compile_model", model.friendly_name) + f" under LC_ALL={custom_locale}"
    with no_error(where):
        compiled = ov_core.compile_model(model, ov_device_name, {P.PERFORMANCE_HINT: "THROUGHPUT"})
        inputs = _models.make_inputs(model)
        results = compiled.create_infer_request().infer(inputs)
    check_outputs(results, model, inputs, "matmul_bias", where)


COMPILE_CONFIGS = [{P.PERF_COUNT: True}, {P.PERFORMANCE_HINT: "THROUGHPUT"}, {P.EXECUTION_MODE_HINT: "PERFORMANCE"}]
COMPILE_IDS = ["PERF_COUNT=YES", "PERFORMANCE_HINT=THROUGHPUT", "EXECUTION_MODE_HINT=PERFORMANCE"]


def _check_config(compiled: Any, device: str, config: dict[str, Any], what: str) -> None:
    """Every key of ``config`` reads back from the compiled model, listed or not."""
    __tracebackhide__ = True
    for name, value in config.items():
        assert_equal(P.to_string(_get(compiled, device, name)), _canonical(name, value), name,
                     call(device, "CompiledModel.get_property", name) + f" of a model {what} {config}")


@pytest.mark.mandatory
@pytest.mark.parametrize("config", COMPILE_CONFIGS, ids=COMPILE_IDS)
def test_can_use_cache(ov_core: Any, ov_device_name: str, ov_capabilities: set[str], tmp_path: Path,
                       config: dict[str, Any]) -> None:
    """OVClassCompiledModelPropertiesTests.CanUseCache: compile twice with CACHE_DIR. Both compiled
    models report the compile configuration, and the second computes the right numbers; with
    EXPORT_IMPORT the first is compiled (LOADED_FROM_CACHE false) and the second comes from the
    cache (true)."""
    ov_core.set_property({P.CACHE_DIR: str(tmp_path)})
    model = _models.build("conv_pool_relu")
    inputs = _models.make_inputs(model, seed=6)
    for attempt, from_cache in enumerate((False, True), 1):
        what = f"compiled (#{attempt}) with CACHE_DIR and"
        compiled = _compile(ov_core, ov_device_name, config, "conv_pool_relu")
        where = call(ov_device_name, "compile_model", model.friendly_name, config) + f" #{attempt} with CACHE_DIR"
        if "EXPORT_IMPORT" in ov_capabilities:
            assert_equal(_get(compiled, ov_device_name, P.LOADED_FROM_CACHE), from_cache, P.LOADED_FROM_CACHE, where)
        _check_config(compiled, ov_device_name, config, what)
        if from_cache:  # infer the second (cached) compiled model only
            with no_error(where + "; infer"):
                results = compiled.create_infer_request().infer(inputs)
            check_outputs(results, model, inputs, "conv_pool_relu", where)


@pytest.mark.mandatory
@pytest.mark.parametrize("config", COMPILE_CONFIGS, ids=COMPILE_IDS)
def test_compile_with_properties_and_check_get_property(ov_core: Any, ov_device_name: str,
                                                        config: dict[str, Any]) -> None:
    """OVClassCompiledModelPropertiesTests.canCompileModelWithPropertiesAndCheckGetProperty: a
    compile property reads back equal from the compiled model. OpenVINO reads only the properties
    the compiled model lists; here an unlisted one must read back too (seed 000: the compiled
    model's get_property is the only way to get its configuration values)."""
    _check_config(_compile(ov_core, ov_device_name, config), ov_device_name, config, "compiled with")


COMPILED_DEFAULTS = [(P.PERF_COUNT, False), (P.PERFORMANCE_HINT, "LATENCY")]


@pytest.mark.mandatory
@pytest.mark.parametrize(("name", "default"), COMPILED_DEFAULTS, ids=[n for n, _ in COMPILED_DEFAULTS])
def test_check_default_values(ov_core: Any, ov_device_name: str, name: str, default: Any) -> None:
    """OVClassCompiledModelPropertiesDefaultTests.CheckDefaultValues: listed and equal to the default."""
    compiled = _compile(ov_core, ov_device_name)
    where = call(ov_device_name, "CompiledModel.get_property", name)
    assert_in(name, _supported(compiled, ov_device_name), "default property",
              call(ov_device_name, "CompiledModel.get_property", P.SUPPORTED_PROPERTIES))
    assert_equal(P.to_string(_get(compiled, ov_device_name, name)), _canonical(name, default), name, where)


@pytest.mark.mandatory
def test_can_compile_with_default_values_from_plugin(ov_core: Any, ov_device_name: str) -> None:
    """OVCompiledModelPropertiesDefaultSupportedTests.CanCompileWithDefaultValueFromPlugin: every
    current RW value of the plugin passed back to compile_model is accepted."""
    supported = dict(ov_core.get_property(ov_device_name, P.SUPPORTED_PROPERTIES))
    config = {name: ov_core.get_property(ov_device_name, name) for name, m in supported.items() if str(m) == "RW"}
    _compile(ov_core, ov_device_name, config)


@pytest.mark.mandatory
def test_cannot_compile_with_incorrect_properties(ov_core: Any, ov_device_name: str) -> None:
    """OVClassCompiledModelPropertiesIncorrectTests.CanNotCompileModelWithIncorrectProperties."""
    config = {P.DEVICE_ID: "UNSUPPORTED_DEVICE_ID_STRING"}
    model = _models.build("relu")
    assert_raises_ov_error(OVConformError, ov_core.compile_model, model, ov_device_name, config,
                           call=call(ov_device_name, "compile_model", model.friendly_name, config))


PRIORITIES = [("HIGH", "HIGH"), ("MEDIUM", "MEDIUM"), ("LOW", "LOW"), ("DEFAULT", "MEDIUM")]


@pytest.mark.mandatory
@pytest.mark.parametrize(("priority", "expected"), PRIORITIES, ids=[p for p, _ in PRIORITIES])
def test_model_priority(ov_core: Any, ov_device_name: str, priority: str, expected: str) -> None:
    """OVClassCompiledModelGetPropertyTest_MODEL_PRIORITY.GetMetricNoThrow: MODEL_PRIORITY passed to
    compile reads back (DEFAULT is MEDIUM)."""
    value = expected if priority == "DEFAULT" else priority
    compiled = _compile(ov_core, ov_device_name, {P.MODEL_PRIORITY: value})
    assert_equal(P.to_string(_get(compiled, ov_device_name, P.MODEL_PRIORITY)), expected, P.MODEL_PRIORITY,
                 call(ov_device_name, "CompiledModel.get_property", P.MODEL_PRIORITY) + f" (compiled with {priority})")


STREAM_CONFIGS = [{P.NUM_STREAMS: 1}, {P.NUM_STREAMS: 2}, {P.NUM_STREAMS: 3},
                  {P.PERFORMANCE_HINT: "THROUGHPUT", P.PERFORMANCE_HINT_NUM_REQUESTS: 1}]


@pytest.mark.parametrize("config", STREAM_CONFIGS, ids=["NUM_STREAMS=1", "NUM_STREAMS=2", "NUM_STREAMS=3",
                                                        "THROUGHPUT+NUM_REQUESTS=1"])
def test_optimal_number_of_infer_requests_follows_streams(ov_core: Any, ov_device_name: str,
                                                          ov_supported_properties: dict[str, str],
                                                          config: dict[str, Any]) -> None:
    """(–) OPTIMAL_NUMBER_OF_INFER_REQUESTS keeps every stream busy and respects the hint: with
    NUM_STREAMS=n it is at least the NUM_STREAMS the compiled model reports (n when it reports
    none), and with PERFORMANCE_HINT_NUM_REQUESTS=1 it is 1 (OpenVINO: the hint caps the
    requests). Skipped when the device does not list a property of the config."""
    missing = [n for n in config if n not in ov_supported_properties]
    if missing:
        pytest.skip(f"{ov_device_name}: property {missing[0]!r} not in SUPPORTED_PROPERTIES")
    compiled = _compile(ov_core, ov_device_name, config)
    where = call(ov_device_name, "CompiledModel.get_property", P.OPTIMAL_NUMBER_OF_INFER_REQUESTS) + \
        f" of a model compiled with {config}"
    optimal = _get(compiled, ov_device_name, P.OPTIMAL_NUMBER_OF_INFER_REQUESTS)
    if P.PERFORMANCE_HINT_NUM_REQUESTS in config:
        assert_equal(optimal, config[P.PERFORMANCE_HINT_NUM_REQUESTS], P.OPTIMAL_NUMBER_OF_INFER_REQUESTS, where)
        return
    try:
        streams = int(compiled.get_property(P.NUM_STREAMS))
    except PropertyError:
        streams = int(config[P.NUM_STREAMS])
    assert_that(isinstance(optimal, int) and optimal >= streams, P.OPTIMAL_NUMBER_OF_INFER_REQUESTS, optimal,
                f">= NUM_STREAMS ({streams})", where)


def test_cannot_set_incorrect_config_on_compiled_model(ov_core: Any, ov_device_name: str) -> None:
    """OVClassCompiledModelSetIncorrectConfigTest.canNotSetConfigToCompiledModelWithIncorrectConfig (O)."""
    compiled = _compile(ov_core, ov_device_name)
    assert_raises_ov_error(PropertyError, compiled.set_property, {"abc": "def"},
                           call=call(ov_device_name, "CompiledModel.set_property", {"abc": "def"}))


def test_set_rw_properties_on_compiled_model(ov_core: Any, ov_device_name: str) -> None:
    """OVClassCompiledModelSetCorrectConfigTest.canSetConfig (–): each RW compiled-model property
    takes its own value back and reads it; PERF_COUNT, when RW, switched on after compiling reads
    back and is in force (requests made then have profiling information; seed 000: set_property
    changes the compiled model's configuration)."""
    compiled = _compile(ov_core, ov_device_name, {P.PERF_COUNT: False})
    supported = _supported(compiled, ov_device_name)
    for name in (n for n, m in supported.items() if m == "RW"):
        value = _get(compiled, ov_device_name, name)
        where = call(ov_device_name, "CompiledModel.set_property", {name: value})
        with no_error(where):
            compiled.set_property({name: value})
        assert_equal(P.to_string(_get(compiled, ov_device_name, name)), P.to_string(value), name, where)
    if supported.get(P.PERF_COUNT) != "RW":
        return
    where = call(ov_device_name, "CompiledModel.set_property", {P.PERF_COUNT: True}) + " after compiling without it"
    with no_error(where):
        compiled.set_property({P.PERF_COUNT: True})
    assert_equal(P.to_string(_get(compiled, ov_device_name, P.PERF_COUNT)), "YES", P.PERF_COUNT, where)
    request = compiled.create_infer_request()
    with no_error(where + "; infer + get_profiling_info"):
        request.infer(_models.make_inputs(_models.build("relu")))
        info = request.get_profiling_info()
    assert_equal(bool(info), True, "profiling information after PERF_COUNT was switched on", where)


def test_execution_devices_name_this_device(ov_core: Any, ov_device_name: str) -> None:
    """OVCompileModelGetExecutionDeviceTests.CanGetExecutionDeviceInfo (–): EXECUTION_DEVICES lists
    this device (as DEV or DEV.<id>); a meta device (one whose compiled model reports
    MULTI_DEVICE_PRIORITIES, as HETERO) may list the devices it runs on, as OpenVINO's do."""
    compiled = _compile(ov_core, ov_device_name)
    where = call(ov_device_name, "CompiledModel.get_property", P.EXECUTION_DEVICES)
    devices = [str(d) for d in _get(compiled, ov_device_name, P.EXECUTION_DEVICES)]
    assert_not_empty(devices, P.EXECUTION_DEVICES, where)
    allowed = [ov_device_name]
    if META_DEVICES in _supported(compiled, ov_device_name):
        listed = str(_get(compiled, ov_device_name, META_DEVICES))
        allowed += [d.strip().split(".")[0] for d in listed.split(",") if d.strip()]
    for device in devices:
        assert_in(device.split(".")[0], allowed, "EXECUTION_DEVICES entry", where)


def test_read_only_compiled_properties_refuse_writes(ov_core: Any, ov_device_name: str) -> None:
    """(–) every compiled-model property listed RO refuses set_property."""
    compiled = _compile(ov_core, ov_device_name)
    for name in sorted(n for n, m in _supported(compiled, ov_device_name).items() if m == "RO"):
        value = _get(compiled, ov_device_name, name)
        assert_raises_ov_error(PropertyError, compiled.set_property, {name: value},
                               call=call(ov_device_name, "CompiledModel.set_property", {name: value}))


#: Device properties a compiled model takes when it is compiled, each with two values to switch between.
SNAPSHOT = {P.PERF_COUNT: (False, True), P.PERFORMANCE_HINT: ("LATENCY", "THROUGHPUT"),
            P.EXECUTION_MODE_HINT: ("PERFORMANCE", "ACCURACY")}


def test_compiled_model_keeps_its_config_when_the_device_changes(ov_core: Any, ov_device_name: str,
                                                                ov_supported_properties: dict[str, str]) -> None:
    """(–, seed 000: the compiled model holds its own copy of the configuration) Core.set_property
    on the device after compiling changes no compiled model: of a model compiled without
    properties, PERF_COUNT, PERFORMANCE_HINT and EXECUTION_MODE_HINT (those the device lists RW
    and the compiled model lists or answers; OpenVINO AUTO's compiled model has no
    EXECUTION_MODE_HINT) read back what they read before the device was set to other values."""
    compiled = _compile(ov_core, ov_device_name)
    listed = _supported(compiled, ov_device_name)
    before: dict[str, str] = {}
    for name in (n for n in SNAPSHOT if ov_supported_properties.get(n) == "RW"):
        if name in listed:
            before[name] = P.to_string(_get(compiled, ov_device_name, name))
            continue
        try:
            before[name] = P.to_string(compiled.get_property(name))
        except OVConformError:
            continue  # neither listed nor answered: the compiled model does not report it
    names = sorted(before)
    if not names:
        pytest.skip(f"{ov_device_name}: no compiled model reports one of {sorted(SNAPSHOT)}, RW on the device")
    change: dict[str, Any] = {}
    for name in names:
        first, second = SNAPSHOT[name]
        change[name] = second if _canonical(name, first) == before[name] else first
    with no_error(call(ov_device_name, "Core.set_property", change)):
        ov_core.set_property(ov_device_name, change)
    after = {n: P.to_string(_get(compiled, ov_device_name, n)) for n in names}
    where = call(ov_device_name, "CompiledModel.get_property") + f" after Core.set_property({change}) on the device"
    assert_equal(after, before, "properties of the compiled model", where)
