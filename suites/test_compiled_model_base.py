"""Compiling and the compiled model's ports (``ov_compiled_model`` entity):
``behavior/compiled_model/compiled_model_base.hpp``.

* OVCompiledModelBaseTest — M: compile from a Model, from memory (XML + empty weights), with an
  empty config, to the default device, after the temporary Core is gone; two compiled models;
  inputs()/outputs() names, shapes and types; input()/output() with one and several ports; the
  runtime model exists, differs per compile and serialises; the original model is not changed;
  IR v10 is rejected and v11 accepted; an unknown config key is refused. The weightless-blob
  tests need CACHE_MODE / WEIGHTS_PATH, optional properties, so they skip (and count as optional)
  where those are not declared. CanSetInputPrecisionForNetwork / CanSetOutputPrecisionForNetwork
  and CompiledModelSetType use PrePostProcessor, which the Python contract does not have.
* OVCompiledModelBaseTestOptional — O: execution info in the runtime model before and after
  inference.
"""

from __future__ import annotations

import gc
from typing import Any

import numpy as np
import pytest

import ovconform
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
from ovconform.errors import NotFoundError, OVConformError, PropertyError, ReadModelError
from ovconform.ir import Model
from ovconform.suites import _models
from ovconform.suites._helpers import check_outputs, compile_case, is_meta, new_core

pytestmark = pytest.mark.entity("ov_compiled_model")

PORT_MODELS = {"relu_concat": _models.relu_concat, "two_results": _models.two_results,
               "single_split": _models.single_split, "concat_with_params": _models.concat_with_params}


def _compile(core: Any, device: str, model: Model, config: dict[str, Any] | None = None) -> Any:
    with no_error(call(device, "compile_model", model.friendly_name, config or {})):
        return core.compile_model(model, device, config or {})


def _infer_check(compiled: Any, model: Model, name: str, device: str) -> None:
    __tracebackhide__ = True
    inputs = _models.make_inputs(model)
    where = call(device, "infer", model.friendly_name)
    with no_error(where):
        results = compiled.create_infer_request().infer(inputs)
    check_outputs(results, model, inputs, name, where)


@pytest.mark.mandatory
@pytest.mark.parametrize("name", list(_models.CASES))
def test_can_compile_model(ov_core: Any, ov_device_name: str, name: str) -> None:
    """OVCompiledModelBaseTest.canCompileModel (and canCompileModelAndCreateInferRequest), over the
    suite models, with the oracle's numbers."""
    compiled = compile_case(ov_core, ov_device_name, name)
    _infer_check(compiled, _models.build(name), name, ov_device_name)


@pytest.mark.mandatory
def test_can_compile_model_from_memory(ov_core: Any, ov_device_name: str) -> None:
    """OVCompiledModelBaseTest.canCompileModelFromMemory: an XML string and empty weights."""
    model = _models.build("relu")
    xml, weights = ovconform.serialize(model)
    assert_equal(len(weights), 0, "weights size of a model without constants", "ovconform.serialize(relu)")
    with no_error(call(ov_device_name, "compile_model", "(<xml text>, b'')")):
        compiled = ov_core.compile_model((xml.decode("utf-8"), b""), ov_device_name)
    _infer_check(compiled, model, "relu", ov_device_name)


@pytest.mark.mandatory
def test_can_compile_model_with_empty_config(ov_core: Any, ov_device_name: str) -> None:
    """OVCompiledModelBaseTest.canCompileModelwithBrace."""
    _compile(ov_core, ov_device_name, _models.build("relu"), {})


@pytest.mark.mandatory
def test_can_compile_model_to_default_device(ov_core: Any, ov_device_name: str) -> None:
    """TEST canCompileModelToDefaultDevice: a Core with one device compiles without a device name."""
    model = _models.build("relu")
    with no_error(call("Core", "compile_model", model.friendly_name)):
        compiled = ov_core.compile_model(model)
    _infer_check(compiled, model, "relu", ov_device_name)


@pytest.mark.mandatory
def test_can_create_two_compiled_models(ov_core: Any, ov_device_name: str) -> None:
    """OVCompiledModelBaseTest.canCreateTwoCompiledModel: both work independently."""
    model = _models.build("conv_pool_relu")
    first, second = _compile(ov_core, ov_device_name, model), _compile(ov_core, ov_device_name, model)
    assert_that(first is not second, "second compile_model result", "the first object", "a new compiled model",
                call(ov_device_name, "compile_model", model.friendly_name))
    for compiled in (first, second):
        _infer_check(compiled, model, "conv_pool_relu", ov_device_name)


@pytest.mark.mandatory
def test_compile_after_temporary_core_is_gone(ov_plugin_spec: str, ov_device_name: str) -> None:
    """OVCompiledModelBaseTest: a model compiled by a Core that is then destroyed still answers
    OPTIMAL_NUMBER_OF_INFER_REQUESTS and infers."""
    model = _models.build("relu")
    core = new_core(ov_plugin_spec, ov_device_name)
    compiled = _compile(core, ov_device_name, model)
    del core
    gc.collect()
    where = call(ov_device_name, "CompiledModel.get_property", P.OPTIMAL_NUMBER_OF_INFER_REQUESTS) + " without its Core"
    with no_error(where):
        value = compiled.get_property(P.OPTIMAL_NUMBER_OF_INFER_REQUESTS)
    assert_that(int(value) >= 1, P.OPTIMAL_NUMBER_OF_INFER_REQUESTS, value, ">= 1", where)
    _infer_check(compiled, model, "relu", ov_device_name)


def _port_summary(ports: list[Any]) -> list[tuple[list[str], str, str]]:
    return [(sorted(p.get_names()), str(p.get_partial_shape()), str(p.get_element_type())) for p in ports]


@pytest.mark.mandatory
@pytest.mark.parametrize("name", sorted(PORT_MODELS))
@pytest.mark.parametrize("side", ["inputs", "outputs"])
def test_can_get_ports_info_and_check(ov_core: Any, ov_device_name: str, name: str, side: str) -> None:
    """OVCompiledModelBaseTest.CanGetInputsInfo(AndCheck) / CanGetOutputsInfo(AndCheck): tensor names,
    partial shapes and element types equal the model's."""
    model = PORT_MODELS[name]("f32")
    compiled = _compile(ov_core, ov_device_name, model)
    where = call(ov_device_name, f"CompiledModel.{side}", model.friendly_name)
    with no_error(where):
        got = _port_summary(getattr(compiled, side))
    assert_equal(got, _port_summary(getattr(model, side)), f"{side} (names, shape, type)", where)


@pytest.mark.mandatory
def test_runtime_models_exist_and_differ(ov_core: Any, ov_device_name: str) -> None:
    """OVCompiledModelBaseTest.CanCreateTwoCompiledModelsAndCheckRuntimeModel."""
    model = _models.build("split_conv_concat")
    runtimes = []
    for _ in range(2):
        compiled = _compile(ov_core, ov_device_name, model)
        with no_error(call(ov_device_name, "CompiledModel.get_runtime_model")):
            runtimes.append(compiled.get_runtime_model())
    where = call(ov_device_name, "CompiledModel.get_runtime_model")
    assert_that(all(isinstance(r, Model) for r in runtimes), "runtime models", runtimes, "two Models", where)
    assert_that(runtimes[0] is not runtimes[1], "second runtime model", "the first object", "a different object",
                where)


@pytest.mark.mandatory
def test_plugin_does_not_change_original_network(ov_core: Any, ov_device_name: str) -> None:
    """OVCompiledModelBaseTest.pluginDoesNotChangeOriginalNetwork: the model serialises the same
    before and after compile_model (and after inference)."""
    model = _models.build("kso")
    before = ovconform.serialize(model)
    compiled = _compile(ov_core, ov_device_name, model)
    compiled.create_infer_request().infer(_models.make_inputs(model))
    after = ovconform.serialize(model)
    assert_that(before == after, "serialized model after compile", f"{len(after[0])} bytes, changed",
                f"the same {len(before[0])} bytes", call(ov_device_name, "compile_model", model.friendly_name))


@pytest.mark.mandatory
def test_check_exec_graph_info_serialization(ov_core: Any, ov_device_name: str) -> None:
    """OVCompiledModelBaseTest.CheckExecGraphInfoSerialization: the runtime model serialises and
    reads back."""
    compiled = _compile(ov_core, ov_device_name, _models.build("conv_pool_relu"))
    where = call(ov_device_name, "serialize(CompiledModel.get_runtime_model())")
    with no_error(where):
        xml, weights = ovconform.serialize(compiled.get_runtime_model())
        again = ovconform.read_model(xml, weights)
    assert_not_empty(again.get_ordered_ops(), "ops of the re-read runtime model", where)


@pytest.mark.mandatory
@pytest.mark.parametrize("side", ["input", "output"])
def test_get_port_from_function_with_single_port(ov_core: Any, ov_device_name: str, side: str) -> None:
    """OVCompiledModelBaseTest.getInputFromFunctionWithSingleInput / getOutputFromFunctionWithSingleInput:
    ``input()`` is ``input(0)`` and the port found by its tensor name."""
    model = _models.split_concat("f32")
    compiled = _compile(ov_core, ov_device_name, model)
    name = "data" if side == "input" else "concat"
    where = call(ov_device_name, f"CompiledModel.{side}")
    with no_error(where):
        ports = [getattr(compiled, side)(), getattr(compiled, side)(0), getattr(compiled, side)(name)]
    assert_that(ports[0] == ports[1] == ports[2], f"{side}() / {side}(0) / {side}({name!r})", ports,
                "the same port", where)
    assert_in(name, ports[0].get_names(), f"{side} tensor name", where)


@pytest.mark.mandatory
@pytest.mark.parametrize(("side", "name"), [("input", "concat_with_params"), ("output", "two_results"),
                                            ("output", "single_split")],
                         ids=["several_inputs", "several_outputs", "split_several_outputs"])
def test_get_ports_from_function_with_several_ports(ov_core: Any, ov_device_name: str, side: str, name: str) -> None:
    """OVCompiledModelBaseTest.getInputsFromFunctionWithSeveralInputs / getOutputsFromFunctionWithSeveralOutputs /
    getOutputsFromSplitFunctionWithSeveralOutputs: ``input()`` without a key throws, each port is
    found by index and by tensor name."""
    model = PORT_MODELS[name]("f32")
    compiled = _compile(ov_core, ov_device_name, model)
    getter = getattr(compiled, side)
    assert_raises_ov_error(NotFoundError, getter, call=call(ov_device_name, f"CompiledModel.{side}") + " with "
                           f"{len(getattr(model, side + 's'))} {side}s")
    for index, port in enumerate(getattr(model, side + "s")):
        tensor_name = port.get_any_name()
        where = call(ov_device_name, f"CompiledModel.{side}", tensor_name)
        with no_error(where):
            by_index, by_name = getter(index), getter(tensor_name)
        assert_that(by_index == by_name, f"{side}({index}) vs {side}({tensor_name!r})", (by_index, by_name),
                    "the same port", where)
        assert_equal(sorted(by_name.get_names()), sorted(port.get_names()), f"{side} {index} names", where)


@pytest.mark.mandatory
@pytest.mark.parametrize("dtype", ["f32", "f16", "i32", "u8"])
def test_precisions_as_in_original_function(ov_core: Any, ov_device_name: str, dtype: str) -> None:
    """OVCompiledModelBaseTest.precisionsAsInOriginalFunction: port element types are the model's."""
    model = _models.concat_with_params(dtype)
    compiled = _compile(ov_core, ov_device_name, model)
    where = call(ov_device_name, "CompiledModel.inputs/outputs", model.friendly_name, dtype)
    got = [str(p.get_element_type()) for p in [*compiled.inputs, *compiled.outputs]]
    assert_equal(got, [dtype] * 3, "port element types", where)


@pytest.mark.mandatory
def test_load_incorrect_v10_model(ov_core: Any, ov_device_name: str) -> None:
    """OVCompiledModelBaseTest.loadIncorrectV10Model: an IR v10 document is rejected."""
    xml, weights = ovconform.serialize(_models.build("relu"))
    v10 = xml.replace(b'version="11"', b'version="10"', 1)
    assert_that(v10 != xml, "IR text", "no version attribute found", '<net ... version="11">', "ovconform.serialize")
    assert_raises_ov_error(ReadModelError, ov_core.compile_model, (v10, weights), ov_device_name,
                           call=call(ov_device_name, "compile_model", "<IR v10>"))


@pytest.mark.mandatory
def test_load_correct_v11_model(ov_core: Any, ov_device_name: str) -> None:
    """OVCompiledModelBaseTest.loadIncorrectV11Model's counterpart: IR v11 is accepted."""
    model = _models.build("split_conv_concat")
    xml, weights = ovconform.serialize(model)
    with no_error(call(ov_device_name, "compile_model", "<IR v11>")):
        compiled = ov_core.compile_model((xml, weights), ov_device_name)
    _infer_check(compiled, model, "split_conv_concat", ov_device_name)


@pytest.mark.mandatory
def test_incorrect_config_is_refused(ov_core: Any, ov_device_name: str) -> None:
    """OVCompiledModelBaseTest.canLoadCorrectNetworkToGetExecutableWithIncorrectConfig: an unknown
    key throws for a device. OpenVINO's body exempts the meta devices (AUTO/MULTI/HETERO), which
    may pass keys on to the devices under them: OpenVINO's HETERO compiles, ovconform's refuses; the
    test skips them."""
    if is_meta(ov_core, ov_device_name):
        pytest.skip(f"{ov_device_name} is a meta device: OpenVINO does not require it to refuse an unknown key")
    model = _models.build("relu")
    config = {"UNSUPPORTED_KEY": "some value"}
    assert_raises_ov_error(PropertyError, ov_core.compile_model, model, ov_device_name, config,
                           call=call(ov_device_name, "compile_model", model.friendly_name, config),
                           match="UNSUPPORTED_KEY")


# -- weightless blobs (need optional properties) -----------------------------------------------------
@pytest.mark.capability("EXPORT_IMPORT")
@pytest.mark.requires_property(P.CACHE_MODE)
@pytest.mark.requires_property(P.WEIGHTS_PATH)
def test_import_from_weightless_blob(ov_core: Any, ov_device_name: str, tmp_path: Any) -> None:
    """OVCompiledModelBaseTest.import_from_weightless_blob: CACHE_MODE=OPTIMIZE_SIZE exports without
    weights; importing with WEIGHTS_PATH gives the right numbers."""
    model = _models.build("matmul_bias")
    xml = tmp_path / "model.xml"
    ovconform.serialize(model, xml)
    compiled = _compile(ov_core, ov_device_name, model, {P.CACHE_MODE: "OPTIMIZE_SIZE"})
    blob = compiled.export_model()
    where = call(ov_device_name, "import_model", "<weightless blob>", {P.WEIGHTS_PATH: "model.bin"})
    with no_error(where):
        imported = ov_core.import_model(blob, ov_device_name, {P.WEIGHTS_PATH: str(tmp_path / "model.bin")})
    _infer_check(imported, model, "matmul_bias", ov_device_name)


@pytest.mark.capability("EXPORT_IMPORT")
@pytest.mark.requires_property(P.CACHE_MODE)
def test_weightless_blob_without_weights_is_refused(ov_core: Any, ov_device_name: str) -> None:
    """OVCompiledModelBaseTest.compile_from_weightless_blob_but_no_weights: no WEIGHTS_PATH, no import."""
    model = _models.build("matmul_bias")
    blob = _compile(ov_core, ov_device_name, model, {P.CACHE_MODE: "OPTIMIZE_SIZE"}).export_model()
    assert_raises_ov_error(OVConformError, ov_core.import_model, blob, ov_device_name,
                           call=call(ov_device_name, "import_model", "<weightless blob>", "no WEIGHTS_PATH"))


# -- OVCompiledModelBaseTestOptional ---------------------------------------------------------------
PERF_COUNTER, ORIGINAL_NAMES = "execTimeMcs", "originalLayersNames"


def test_exec_graph_info_is_not_null(ov_core: Any, ov_device_name: str) -> None:
    """OVCompiledModelBaseTestOptional.checkGetExecGraphInfoIsNotNullptr."""
    compiled = _compile(ov_core, ov_device_name, _models.build("conv_pool_relu"))
    where = call(ov_device_name, "CompiledModel.get_runtime_model")
    with no_error(where):
        runtime = compiled.get_runtime_model()
    assert_that(isinstance(runtime, Model), "runtime model", type(runtime).__name__, "a Model", where)


def _original_names(runtime: Model) -> set[str]:
    names: set[str] = set()
    for node in runtime.get_ordered_ops():
        names |= {n for n in str(node.get_rt_info().get(ORIGINAL_NAMES, "")).split(",") if n}
    return names


def test_exec_graph_info_before_execution(ov_core: Any, ov_device_name: str) -> None:
    """OVCompiledModelBaseTestOptional.CheckExecGraphInfoBeforeExecution: every node has
    execTimeMcs == "not_executed" and original names that map back to the model's ops."""
    model = _models.build("split_conv_concat")
    runtime = _compile(ov_core, ov_device_name, model).get_runtime_model()
    where = call(ov_device_name, "CompiledModel.get_runtime_model", "before inference")
    originals = {n.friendly_name for n in model.get_ordered_ops()}
    for node in runtime.get_ordered_ops():
        info = node.get_rt_info()
        assert_equal(info.get(PERF_COUNTER), "not_executed", f"rt_info[{PERF_COUNTER!r}] of {node.friendly_name!r}",
                     where)
        for name in (n for n in str(info.get(ORIGINAL_NAMES, "")).split(",") if n):
            assert_in(name, originals, f"{ORIGINAL_NAMES} entry of {node.friendly_name!r}", where)
    compute = {n.friendly_name for n in model.get_ordered_ops() if n.type_name not in ("Constant",)}
    missing = sorted(compute - _original_names(runtime))
    assert_equal(missing, [], "original ops missing from every originalLayersNames", where)


def test_exec_graph_info_after_execution(ov_core: Any, ov_device_name: str) -> None:
    """OVCompiledModelBaseTestOptional.CheckExecGraphInfoAfterExecution (compiled with PERF_COUNT):
    execTimeMcs is "not_executed" or a number >= 0, and a number on at least one node."""
    model = _models.build("split_conv_concat")
    compiled = _compile(ov_core, ov_device_name, model, {P.PERF_COUNT: True})
    compiled.create_infer_request().infer(_models.make_inputs(model))
    where = call(ov_device_name, "CompiledModel.get_runtime_model", "after inference")
    numbers = []
    for node in compiled.get_runtime_model().get_ordered_ops():
        value = str(node.get_rt_info().get(PERF_COUNTER))
        if value == "not_executed":
            continue
        try:
            numbers.append(float(value))
        except ValueError:
            numbers.append(np.nan)
        assert_that(numbers[-1] >= 0, f"rt_info[{PERF_COUNTER!r}] of {node.friendly_name!r}", value,
                    "'not_executed' or a number >= 0", where)
    assert_not_empty(numbers, f"nodes with a numeric {PERF_COUNTER}", where)


def test_compile_model_refuses_a_non_model(ov_core: Any, ov_device_name: str) -> None:
    """(–) compile_model of something that is not a model, a path or (xml, weights) is a clear error."""
    assert_raises_ov_error(OVConformError, ov_core.compile_model, 42, ov_device_name,
                           call=call(ov_device_name, "compile_model", 42))
