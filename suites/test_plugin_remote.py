"""Remote contexts and tensors (``ov_plugin`` entity): ``behavior/ov_plugin/remote.hpp`` OVRemoteTest (–).

A device declares remote-context support with the ``REMOTE_CONTEXT`` entry in
OPTIMIZATION_CAPABILITIES (there is no standard declaration in OpenVINO; without it these tests
skip with that reason).

* canCreateRemote: the default context and a created one name the device and report their params.
* remoteTensorAsTensor: a remote tensor's element type and shape are readable, its host data is not.
* inferWithRemoteNoThrow: inference with a remote input and a remote output; the output, copied
  back to the host, is right.
* Seed 002 (–, optional, for every device): get_default_context and create_context return a context
  naming the device, or — for a device without REMOTE_CONTEXT — raise NotImplementedByDeviceError
  ("not implemented"), never return nothing.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from ovconform.assertions import (
    assert_equal,
    assert_property_type,
    assert_raises_ov_error,
    call,
    no_error,
)
from ovconform.errors import NotImplementedByDeviceError, OVConformError
from ovconform.ir import Type
from ovconform.suites import _models
from ovconform.suites._helpers import relu_through_remote

pytestmark = pytest.mark.entity("ov_plugin")
REMOTE = pytest.mark.capability("REMOTE_CONTEXT")


def _contexts(core: Any, device: str) -> dict[str, Any]:
    with no_error(call(device, "get_default_context/create_context")):
        return {"default": core.get_default_context(device), "created": core.create_context(device, {})}


@REMOTE
def test_can_create_remote(ov_core: Any, ov_device_name: str) -> None:
    """OVRemoteTest.canCreateRemote."""
    for kind, context in _contexts(ov_core, ov_device_name).items():
        where = call(ov_device_name, f"{kind} RemoteContext")
        assert_equal(str(context.get_device_name()).split(".")[0], ov_device_name, "context device", where)
        assert_property_type(context.get_params(), dict, "context params", where)


@REMOTE
def test_remote_tensor_as_tensor(ov_core: Any, ov_device_name: str) -> None:
    """OVRemoteTest.remoteTensorAsTensor: type and shape readable, host data not."""
    context = _contexts(ov_core, ov_device_name)["default"]
    where = call(ov_device_name, "RemoteContext.create_tensor", "f32", [1, 3, 4, 4])
    with no_error(where):
        tensor = context.create_tensor(Type.f32, [1, 3, 4, 4])
    assert_equal((tensor.get_element_type(), tuple(tensor.get_shape())), (Type.f32, (1, 3, 4, 4)),
                 "(element type, shape)", where)
    assert_property_type(tensor.get_params(), dict, "remote tensor params", where)
    assert_raises_ov_error(OVConformError, lambda: tensor.data, call=where + ".data")


@REMOTE
def test_infer_with_remote_no_throw(ov_core: Any, ov_device_name: str) -> None:
    """OVRemoteTest.inferWithRemoteNoThrow: remote input and output; the host copy is right."""
    model = _models.build("relu")
    context = _contexts(ov_core, ov_device_name)["default"]
    x = np.random.default_rng(0).standard_normal((1, 3, 4, 4)).astype(np.float32)
    where = call(ov_device_name, "InferRequest.infer") + " with remote input and output tensors"
    with no_error(where):
        request = ov_core.compile_model(model, ov_device_name).create_infer_request()
    relu_through_remote(request, context, x, where)


def test_remote_context_or_not_implemented(ov_core: Any, ov_device_name: str, ov_capabilities: set[str]) -> None:
    """Seed 002 (–): create_context / get_default_context return a context (REMOTE_CONTEXT declared)
    or throw "not implemented" (NotImplementedByDeviceError)."""
    calls = {"get_default_context": lambda: ov_core.get_default_context(ov_device_name),
             "create_context": lambda: ov_core.create_context(ov_device_name, {})}
    for name, fn in calls.items():
        where = call(ov_device_name, name)
        if "REMOTE_CONTEXT" not in ov_capabilities:
            assert_raises_ov_error(NotImplementedByDeviceError, fn, call=where + " (no REMOTE_CONTEXT capability)")
            continue
        with no_error(where):
            context = fn()
        with no_error(where + "; get_device_name()"):
            device = str(context.get_device_name())
        assert_equal(device.split(".")[0], ov_device_name, "context device", where)
