"""Object lifetimes (``ov_plugin`` entity): ``behavior/ov_plugin/life_time.hpp`` OVHoldersTest.

OpenVINO runs these as gtest death tests (``EXPECT_EXIT``); here each runs in a child interpreter
(:mod:`ovconform.suites._subprocess`) that re-creates the device from its ``--plugin`` value, so a
crash, a hang or an exception in a finalizer fails the test instead of the session.

* OVHoldersTest: Orders (all 6 release orders of Core, CompiledModel, InferRequest), LoadedState,
  LoadedTensor, LoadedAny, LoadedRemoteContext — M. LoadedRemoteContext needs a remote context,
  which a device declares here with the ``REMOTE_CONTEXT`` capability (there is no standard
  declaration; see test_plugin_remote).
* OVHoldersTestOnImportedNetwork: LoadedTensor, CreateRequestWithCoreRemoved — M(HW): mandatory
  for a hardware device (:func:`~ovconform.suites._helpers.hardware_scope`), optional otherwise;
  they need EXPORT_IMPORT.
* Beyond OpenVINO (–, optional; seed 002: "the destructor stops all activity and clears its
  executors"): threads and executors do not grow over 50 compile/run/release cycles, on one Core
  and with a new Core (so a new plugin instance) per cycle. Counted in a child interpreter, so no
  other test's threads come and go meanwhile: OS threads (native ones included) and, for a
  device built on ovconform's executors, the executor manager's executors.
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from ovconform.assertions import call
from ovconform.suites._helpers import hardware_scope
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
def test_imported_loaded_tensor(request: pytest.FixtureRequest, ov_core: Any, ov_plugin_spec: str,
                                ov_device_name: str) -> None:
    """OVHoldersTestOnImportedNetwork.LoadedTensor (M(HW)): a Tensor of an imported model's request
    outlives the request, the model and the Core."""
    hardware_scope(request, ov_core, ov_device_name)
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
def test_imported_create_request_with_core_removed(request: pytest.FixtureRequest, ov_core: Any, ov_plugin_spec: str,
                                                   ov_device_name: str) -> None:
    """OVHoldersTestOnImportedNetwork.CreateRequestWithCoreRemoved (M(HW)): an imported model makes
    and runs requests after its Core is gone."""
    hardware_scope(request, ov_core, ov_device_name)
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


#: Compile/run/release cycles, and how many more threads or executors than before them are tolerated
#: (threads a runtime starts once, lazily, e.g. a BLAS pool on its first big product).
CYCLES, SLACK = 50, 3
_GROWTH = """
import threading, time
from ovconform.suites._helpers import os_thread_count
try:
    from ovconform.api import get_executor_manager
    executors = get_executor_manager().executors_number
except ImportError:
    executors = lambda: 0
model = models.build("conv_pool_relu")
inputs = models.make_inputs(model)
shared = new_core()


def cycle():
    core = {core}
    compiled = core.compile_model(model, DEVICE)
    request = compiled.create_infer_request()
    request.start_async(inputs)
    request.wait()
    request.infer(inputs)


def settled():
    # threads of released executors end on their own: wait until the count stops falling
    gc.collect()
    last, deadline = os_thread_count(), time.monotonic() + 5
    while time.monotonic() < deadline:
        time.sleep(0.05)
        gc.collect()
        now = os_thread_count()
        if now >= last and now <= before_threads + {slack}:
            break
        last = now
    return os_thread_count(), executors()


for _ in range(3):  # whatever a device starts once
    cycle()
before_threads = 10 ** 6
before_threads, before_executors = settled()
for i in range({cycles}):
    cycle()
after_threads, after_executors = settled()
grown = (after_threads - before_threads, after_executors - before_executors)
assert max(grown) <= {slack}, (
    f"threads, executors after {cycles} compile/run/release cycles grew by {{grown}} "
    f"({{before_threads}} -> {{after_threads}} threads, {{before_executors}} -> {{after_executors}} executors), "
    f"but should grow by at most {slack}")
"""


@pytest.mark.parametrize("core", ["one_core", "core_per_cycle"])
def test_threads_and_executors_do_not_grow(ov_plugin_spec: str, ov_device_name: str, core: str) -> None:
    """(–) 50 cycles of compile_model, an asynchronous and a synchronous run, and release (of the
    compiled model and request; with ``core_per_cycle`` also of the Core and so of the plugin
    instance) leave no more threads or executors than before them (up to 3)."""
    body = _GROWTH.format(core="shared" if core == "one_core" else "new_core()", cycles=CYCLES, slack=SLACK)
    _run(ov_plugin_spec, ov_device_name, body, f"compile_model/infer/release x{CYCLES} ({core})")
