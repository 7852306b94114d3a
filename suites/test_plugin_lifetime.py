"""Object lifetimes (``ov_plugin`` entity): ``behavior/ov_plugin/life_time.hpp`` OVHoldersTest.

OpenVINO runs these as gtest death tests (``EXPECT_EXIT``); here each runs in a child interpreter
(:mod:`ovconform.suites._subprocess`) that re-creates the device from its ``--plugin`` value, so a
crash, a hang or an exception in a finalizer fails the test instead of the session.

* OVHoldersTest: Orders (all 6 release orders of Core, CompiledModel, InferRequest), LoadedState,
  LoadedTensor, LoadedAny, LoadedRemoteContext — M. LoadedRemoteContext needs a remote context,
  which a device declares here with the ``REMOTE_CONTEXT`` capability (there is no standard
  declaration; see test_plugin_remote).
* OVHoldersTestOnImportedNetwork: LoadedTensor, CreateRequestWithCoreRemoved — M(HW), optional
  here (REFERENCE is a software device), and they need EXPORT_IMPORT.
"""

from __future__ import annotations

import itertools

import pytest

from ovconform.assertions import call
from ovconform.suites._subprocess import assert_clean_exit, run_snippet

pytestmark = pytest.mark.entity("ov_plugin")

ORDERS = list(itertools.permutations(("core", "compiled", "request")))

_SETUP = """
core = new_core()
model = models.build("relu")
inputs = models.make_inputs(model)
compiled = core.compile_model(model, DEVICE)
request = compiled.create_infer_request()
request.infer(inputs)
"""


def _run(spec: str, device: str, body: str, what: str) -> None:
    __tracebackhide__ = True
    assert_clean_exit(run_snippet(spec, device, body), call(device, what) + " in a child process")


@pytest.mark.mandatory
@pytest.mark.parametrize("order", ORDERS, ids=["-".join(o) for o in ORDERS])
def test_release_orders(ov_plugin_spec: str, ov_device_name: str, order: tuple[str, ...]) -> None:
    """OVHoldersTest.Orders: releasing Core, CompiledModel and InferRequest in this order does not
    crash; while the Core is gone the request still infers."""
    body = _SETUP + f"""
objects = {{"core": core, "compiled": compiled, "request": request}}
del core, compiled, request
for name in {list(order)!r}:
    del objects[name]
    gc.collect()
    if "request" in objects:
        objects["request"].infer(inputs)
"""
    _run(ov_plugin_spec, ov_device_name, body, f"release {' -> '.join(order)}")


@pytest.mark.mandatory
def test_loaded_state(ov_plugin_spec: str, ov_device_name: str) -> None:
    """OVHoldersTest.LoadedState: a VariableState outlives its request, model and Core."""
    body = """
core = new_core()
compiled = core.compile_model(models.state_model(), DEVICE)
request = compiled.create_infer_request()
request.infer({"data": np.full((1, 2), 3.0, np.float32)})
states = request.query_state()
del request, compiled, core
gc.collect()
values = sorted((s.get_name(), s.get_state().data.tolist()) for s in states)
want = [("c_1-3", [[3.0, 3.0]]), ("r_1-3", [[3.0, 3.0]])]
assert values == want, f"states={values}, but should be {want}"
"""
    _run(ov_plugin_spec, ov_device_name, body, "VariableState after release")


@pytest.mark.mandatory
def test_loaded_tensor(ov_plugin_spec: str, ov_device_name: str) -> None:
    """OVHoldersTest.LoadedTensor: an output Tensor outlives its request, model and Core."""
    body = _SETUP + """
tensor = request.get_tensor(compiled.output())
want = np.maximum(inputs["data"], 0)
del request, compiled, core
gc.collect()
assert np.array_equal(tensor.data, want), f"tensor={tensor.data.ravel()[:6]}..., but should be {want.ravel()[:6]}..."
"""
    _run(ov_plugin_spec, ov_device_name, body, "Tensor after release")


@pytest.mark.mandatory
def test_loaded_any(ov_plugin_spec: str, ov_device_name: str) -> None:
    """OVHoldersTest.LoadedAny: property values outlive the Core."""
    body = """
core = new_core()
supported = core.get_property(DEVICE, "SUPPORTED_PROPERTIES")
name = core.get_property(DEVICE, "FULL_DEVICE_NAME")
del core
gc.collect()
assert len(dict(supported)) > 0 and len(str(name)) > 0, f"values={supported!r}, {name!r}, but should be non-empty"
"""
    _run(ov_plugin_spec, ov_device_name, body, "property values after release")


@pytest.mark.mandatory
@pytest.mark.capability("REMOTE_CONTEXT")
def test_loaded_remote_context(ov_plugin_spec: str, ov_device_name: str) -> None:
    """OVHoldersTest.LoadedRemoteContext: the default RemoteContext outlives its Core and model."""
    body = _SETUP + """
context = core.get_default_context(DEVICE)
del request, compiled, core
gc.collect()
name = context.get_device_name()
assert name.split(".")[0] == DEVICE, f"device={name!r}, but should be {DEVICE!r}"
"""
    _run(ov_plugin_spec, ov_device_name, body, "RemoteContext after release")


@pytest.mark.capability("EXPORT_IMPORT")
def test_imported_loaded_tensor(ov_plugin_spec: str, ov_device_name: str) -> None:
    """OVHoldersTestOnImportedNetwork.LoadedTensor (M(HW)): a Tensor of an imported model's request
    outlives the request, the model and the Core."""
    body = _SETUP + """
imported = core.import_model(compiled.export_model(), DEVICE)
request = imported.create_infer_request()
request.infer(inputs)
tensor = request.get_tensor(imported.output())
del request, imported, compiled, core
gc.collect()
want = np.maximum(inputs["data"], 0)
assert np.array_equal(tensor.data, want), f"tensor={tensor.data.ravel()[:6]}..., but should be {want.ravel()[:6]}..."
"""
    _run(ov_plugin_spec, ov_device_name, body, "imported model's Tensor after release")


@pytest.mark.capability("EXPORT_IMPORT")
def test_imported_create_request_with_core_removed(ov_plugin_spec: str, ov_device_name: str) -> None:
    """OVHoldersTestOnImportedNetwork.CreateRequestWithCoreRemoved (M(HW)): an imported model makes
    and runs requests after its Core is gone."""
    body = _SETUP + """
imported = core.import_model(compiled.export_model(), DEVICE)
del request, compiled, core
gc.collect()
request = imported.create_infer_request()
result = list(request.infer(inputs).values())[0]
want = np.maximum(inputs["data"], 0)
assert np.array_equal(result, want), f"output={result.ravel()[:6]}..., but should be {want.ravel()[:6]}..."
"""
    _run(ov_plugin_spec, ov_device_name, body, "create_infer_request on an imported model without its Core")
