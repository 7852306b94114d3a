"""The runtime (execution) model (``ov_compiled_model`` entity): ``import_export.hpp``'s
OVCompiledModelGraphUniqueNodeNamesTest (O, per element type) and OVExecGraphSerializationTest (–).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

import pytest

import ovconform
from ovconform.assertions import assert_equal, assert_in, assert_not_empty, call, no_error
from ovconform.suites import _models

pytestmark = pytest.mark.entity("ov_compiled_model")

#: The rt_info keys of every execution-graph layer (``ov::exec_model_info``).
EXEC_KEYS = ("execOrder", "execTimeMcs", "layerType", "originalLayersNames", "outputLayouts", "outputPrecisions",
             "primitiveType", "runtimePrecision")


def _runtime(core: Any, device: str, dtype: str) -> Any:
    model = _models.split_concat(dtype)
    where = call(device, "CompiledModel.get_runtime_model", model.friendly_name, dtype)
    with no_error(where):
        return core.compile_model(model, device).get_runtime_model(), where


@pytest.mark.parametrize("dtype", _models.ELEMENT_TYPES)
def test_check_unique_node_names(ov_core: Any, ov_device_name: str, dtype: str) -> None:
    """OVCompiledModelGraphUniqueNodeNamesTest.CheckUniqueNodeNames: unique friendly names, each
    node with a layerType."""
    runtime, where = _runtime(ov_core, ov_device_name, dtype)
    names = [n.friendly_name for n in runtime.get_ordered_ops()]
    assert_equal(sorted({n for n in names if names.count(n) > 1}), [], "duplicate node names", where)
    for node in runtime.get_ordered_ops():
        assert_in("layerType", node.get_rt_info(), f"rt_info keys of {node.friendly_name!r}", where)


def test_exec_graph_serialization(ov_core: Any, ov_device_name: str) -> None:
    """OVExecGraphSerializationTest.ExecutionGraph (–): the serialised runtime model has one
    <layer> per node, each with the execution-info entries (names only; values are not compared)."""
    runtime, where = _runtime(ov_core, ov_device_name, "f32")
    with no_error(where + " -> serialize"):
        xml, _ = ovconform.serialize(runtime)
    layers = ET.fromstring(xml).findall("./layers/layer")
    assert_equal(len(layers), len(runtime.get_ordered_ops()), "<layer> count", where)
    for layer in layers:
        keys = {e.get("name") for e in layer.findall("./rt_info/*")}
        assert_not_empty(keys, f"rt_info of layer {layer.get('name')!r}", where)
        missing = sorted(set(EXEC_KEYS) - keys)
        assert_equal(missing, [], f"execution-info keys missing from layer {layer.get('name')!r}", where)


_F16_NAMES = {"f16", "fp16", "float16"}


def test_runtime_precision_follows_the_hint(ov_core: Any, ov_device_name: str) -> None:
    """(–) a model compiled with INFERENCE_PRECISION_HINT=f16 that reports f16 as its hint runs
    some compute node (not Parameter, Constant or Result) in f16 by the runtime model's
    ``runtimePrecision``, when the device reports it: a runtime model that says f32 everywhere
    while the device runs f16 misreports what it executes. Skipped where f16 is refused or
    the compiled model does not report f16."""
    model = _models.build("conv_pool_relu")
    config = {"INFERENCE_PRECISION_HINT": "f16"}
    try:
        compiled = ov_core.compile_model(model, ov_device_name, config)
        hint = str(compiled.get_property("INFERENCE_PRECISION_HINT"))
    except Exception as e:  # noqa: BLE001 - a device without f16 inference
        pytest.skip(f"{ov_device_name}: compile_model with INFERENCE_PRECISION_HINT=f16 refused: {str(e)[:200]}")
    if hint.lower().replace("<type: '", "").rstrip("'>") not in _F16_NAMES:
        pytest.skip(f"{ov_device_name}: the model compiled with INFERENCE_PRECISION_HINT=f16 reports {hint!r}")
    where = call(ov_device_name, "CompiledModel.get_runtime_model", model.friendly_name, config)
    with no_error(where):
        nodes = compiled.get_runtime_model().get_ordered_ops()
        precisions = {}
        for node in nodes:
            info = node.get_rt_info()
            layer = str(info.get("layerType", node.get_type_name()) if hasattr(info, "get") else node.get_type_name())
            if layer in ("Parameter", "Constant", "Result", "Input", "Output"):
                continue
            value = info.get("runtimePrecision") if hasattr(info, "get") else None
            if value is not None:
                precisions[f"{node.get_friendly_name()} ({layer})"] = str(value)
    if not precisions:
        pytest.skip(f"{ov_device_name}: the runtime model reports no runtimePrecision of a compute node")
    f16 = [n for n, p in precisions.items() if p.lower() in _F16_NAMES]
    assert_not_empty(f16, "compute nodes whose runtimePrecision is f16 (all: " + repr(precisions) + ")", where)
