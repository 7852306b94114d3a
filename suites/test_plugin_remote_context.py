"""Compiling and importing for a remote context (``ov_plugin`` entity): seed 002's second forms of
``compile_model(model, context, properties)`` and ``import_model(stream, context, properties)``
(OpenVINO's ``Core.compile_model(model, context)`` / ``Core.import_model(blob, context)``), as
``ov_plugin/remote.cpp`` uses them.

A device declares remote contexts with the ``REMOTE_CONTEXT`` capability (see
``test_plugin_remote.py``; without it these tests skip). The compiled model keeps the context it
was compiled or imported for (``CompiledModel.get_context``: that context, or the device's default
one when none was given), runs right with it, takes the context's remote tensors as inputs and
outputs, and a context of another device is refused with ValidationError.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from ovconform.api import RemoteContext
from ovconform.assertions import assert_equal, assert_outputs_close, assert_raises_ov_error, call, no_error
from ovconform.errors import ValidationError
from ovconform.suites import _models
from ovconform.suites._helpers import relu_through_remote

pytestmark = [pytest.mark.entity("ov_plugin"), pytest.mark.capability("REMOTE_CONTEXT")]

PARAMS = {"ovconform_context_tag": "created for this test"}


def _input(seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((1, 3, 4, 4)).astype(np.float32)


def _check_relu(compiled: Any, where: str) -> None:
    x = _input(1)
    with no_error(f"{where}; infer"):
        req = compiled.create_infer_request()
        req.infer({"data": x})
        got = np.array(req.get_tensor("relu").data)
    assert_outputs_close(got, np.maximum(x, np.float32(0)), "relu", where)


def _context_of(compiled: Any, device: str, what: str) -> Any:
    where = call(device, "CompiledModel.get_context", what)
    with no_error(where):
        return compiled.get_context()


def _created(core: Any, device: str) -> Any:
    with no_error(call(device, "Core.create_context", PARAMS)):
        return core.create_context(device, dict(PARAMS))


@pytest.mark.parametrize("kind", ["default", "created"])
def test_compile_model_with_context(ov_core: Any, ov_device_name: str, kind: str) -> None:
    """compile_model(model, context): right results; get_context is that context (its params)."""
    if kind == "default":
        with no_error(call(ov_device_name, "Core.get_default_context")):
            context = ov_core.get_default_context(ov_device_name)
    else:
        context = _created(ov_core, ov_device_name)
    model = _models.build("relu")
    where = call(ov_device_name, "Core.compile_model", model.friendly_name, f"{kind} context")
    with no_error(where):
        compiled = ov_core.compile_model(model, context)
    _check_relu(compiled, where)
    got = _context_of(compiled, ov_device_name, f"compiled for the {kind} context")
    assert_equal(str(got.get_device_name()).split(".")[0], ov_device_name, "context device", where)
    assert_equal(got.get_params(), context.get_params(), "context params", where)


@pytest.mark.capability("EXPORT_IMPORT")
def test_import_model_with_context(ov_core: Any, ov_device_name: str) -> None:
    """import_model(blob, context): right results; get_context is that context."""
    model = _models.build("relu")
    with no_error(call(ov_device_name, "compile_model + export_model", model.friendly_name)):
        blob = ov_core.compile_model(model, ov_device_name).export_model()
    context = _created(ov_core, ov_device_name)
    where = call(ov_device_name, "Core.import_model", "<blob>", "created context")
    with no_error(where):
        imported = ov_core.import_model(blob, context)
    _check_relu(imported, where)
    got = _context_of(imported, ov_device_name, "imported for a created context")
    assert_equal(got.get_params(), context.get_params(), "context params", where)


def test_compiled_without_context_reports_the_default(ov_core: Any, ov_device_name: str) -> None:
    """CompiledModel.get_context without a context given: the device's default context."""
    with no_error(call(ov_device_name, "compile_model", "relu")):
        compiled = ov_core.compile_model(_models.build("relu"), ov_device_name)
    got = _context_of(compiled, ov_device_name, "compiled without a context")
    assert_equal(str(got.get_device_name()).split(".")[0], ov_device_name, "context device",
                 call(ov_device_name, "CompiledModel.get_context"))


def test_infer_with_the_contexts_tensors(ov_core: Any, ov_device_name: str) -> None:
    """A model compiled for a context runs with that context's remote tensors as input and output."""
    context = _created(ov_core, ov_device_name)
    x = _input(2)
    where = call(ov_device_name, "InferRequest.infer", "remote tensors of the context it was compiled for")
    with no_error(where):
        request = ov_core.compile_model(_models.build("relu"), context).create_infer_request()
    relu_through_remote(request, context, x, where)


@pytest.mark.parametrize("api", ["compile_model", "import_model"])
def test_context_of_another_device_is_refused(ov_core: Any, ov_plugin: Any, ov_device_name: str, api: str) -> None:
    """The plugin refuses a context that belongs to another device (ValidationError)."""
    foreign = RemoteContext(f"NOT_{ov_device_name}")
    model = _models.build("relu")
    if api == "compile_model":
        fn, arg = ov_plugin.compile_model, model
    else:
        if "EXPORT_IMPORT" not in [str(c) for c in ov_plugin.get_property("OPTIMIZATION_CAPABILITIES")]:
            pytest.skip(f"{ov_device_name}: capability 'EXPORT_IMPORT' not in OPTIMIZATION_CAPABILITIES")
        with no_error(call(ov_device_name, "compile_model + export_model", model.friendly_name)):
            arg = ov_core.compile_model(model, ov_device_name).export_model()
        fn = ov_plugin.import_model
    assert_raises_ov_error(ValidationError, fn, arg, {}, foreign,
                           call=call(ov_device_name, f"Plugin.{api}", "<model>", {}, repr(foreign)))


@pytest.mark.parametrize("side", ["input", "output"])
def test_remote_tensor_of_another_device_is_refused(ov_core: Any, ov_device_name: str, side: str) -> None:
    """(–) InferRequest.set_tensor refuses a remote tensor of another device's context (its memory is
    not this device's) with ValidationError, as the plugin refuses that device's context itself."""
    foreign = RemoteContext(f"NOT_{ov_device_name}")
    with no_error(call(ov_device_name, "compile_model+create_infer_request", "SimpleFunctionRelu")):
        compiled = ov_core.compile_model(_models.build("relu"), ov_device_name)
        request = compiled.create_infer_request()
    port = compiled.input() if side == "input" else compiled.output()
    tensor = foreign.create_tensor(port.get_element_type(), list(port.get_shape()))
    assert_raises_ov_error(ValidationError, request.set_tensor, port, tensor,
                           call=call(ov_device_name, "InferRequest.set_tensor", side, repr(tensor)))
