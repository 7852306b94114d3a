"""Small helpers shared by the API suites: new Cores for the device under test, compiling the
models of :mod:`ovconform.suites._models` and checking their outputs, and holding a request busy.
"""

from __future__ import annotations

import contextlib
import functools
import os
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

from ovconform import Core, Tensor
from ovconform import properties as P
from ovconform.assertions import assert_equal, assert_outputs_close, call, fail, no_error
from ovconform.host.plugin_specs import resolve
from ovconform.ir import Model, Type
from ovconform.suites import _models

__all__ = ["RunWindow", "blocked_run", "check_outputs", "compile_case", "hardware_scope", "is_hardware",
           "long_run_expected", "long_run_inputs", "long_run_request", "new_core", "os_thread_count",
           "relu_through_remote", "run_and_check", "slow_request", "start_infer_in_thread", "supports_dynamic_shapes",
           "wait_in_thread"]

#: How long a test waits for something that should happen at once before it calls it a hang.
PATIENCE_S = 20.0


@functools.cache
def _factory(spec: str, device: str) -> Callable[[], Any]:
    return next(d for d in resolve([spec]) if d.name == device).entry.factory


def new_core(spec: str, device: str) -> Core:
    """Another Core with only the device under test (made from its ``--plugin`` value)."""
    core = Core(discover=False)
    core.register_plugin(_factory(spec, device), device)
    return core


def compile_case(core: Core, device: str, name: str, config: dict[str, Any] | None = None, dtype: Any = "f32") -> Any:
    """Compile the named model case; a failure is an explained assertion."""
    model = _models.build(name, dtype)
    with no_error(call(device, "compile_model", model.friendly_name, config or {})):
        return core.compile_model(model, device, config or {})


def check_outputs(results: Any, model: Model, inputs: dict[str, np.ndarray], name: str, where: str) -> None:
    """The results of one inference must match the oracle of case ``name``."""
    __tracebackhide__ = True
    expected = _models.expected(name, inputs)
    values = list(results.values()) if isinstance(results, dict) else list(results)
    assert_equal(len(values), len(expected), "number of outputs", where)
    for i, (got, want) in enumerate(zip(values, expected, strict=True)):
        assert_outputs_close(got, want, f"output {i} ({model.friendly_name})", where, rtol=1e-4, atol=1e-5)


def run_and_check(request: Any, device: str, name: str, seed: int = 0, how: str = "infer") -> None:
    """Infer (``"infer"``) or start_async + wait (``"async"``) with random inputs and check outputs."""
    __tracebackhide__ = True
    model = _models.build(name)
    inputs = _models.make_inputs(model, seed)
    where = call(device, f"InferRequest.{how}", name)
    with no_error(where):
        if how == "infer":
            results = request.infer(inputs)
        else:
            request.start_async(inputs)
            request.wait()
            results = request.results
    check_outputs(results, model, inputs, name, where)


#: How long the completion callback may take to start after a run of a tiny model.
CALLBACK_START_S = 2.0


@contextlib.contextmanager
def blocked_run(request: Any, device: str, inputs: Any = None) -> Iterator[None]:
    """Start an asynchronous run whose completion callback blocks until the block ends.

    A run is complete (``wait`` returns, ``wait_for`` is True) only after its callback returned,
    so inside the block the run is deterministically unfinished. The block starts once the
    callback is running; a callback that does not start within :data:`CALLBACK_START_S` fails the
    test. On exit the callback is released and the run waited for.
    """
    __tracebackhide__ = True
    release, entered = threading.Event(), threading.Event()

    def callback(_error: Any) -> None:
        entered.set()
        release.wait(PATIENCE_S)

    request.set_callback(callback)
    where = call(device, "InferRequest.start_async") + " with a blocking callback"
    with no_error(where):
        request.start_async(inputs)
    try:
        if not entered.wait(CALLBACK_START_S):
            fail("completion callback", f"not called within {CALLBACK_START_S} s", "called once the run ends", where)
        yield
    finally:
        release.set()
        with no_error(call(device, "InferRequest.wait") + " after releasing the callback"):
            request.wait()
        request.set_callback(None)


def slow_request(core: Core, device: str) -> tuple[Any, dict[str, np.ndarray]]:
    """A request of :func:`_models.slow_model` (a run of tens of ms on REFERENCE) and inputs for it."""
    model = _models.slow_model()
    with no_error(call(device, "compile_model", model.friendly_name)):
        request = core.compile_model(model, device).create_infer_request()
    return request, _models.make_inputs(model)


class RunWindow:
    """Tells whether a call made right after ``start_async`` certainly met an unfinished run.

    The completion callback cannot tell it: a request becomes idle just before its callback
    starts (OpenVINO's IAsyncInferRequest and ours alike), so a call can land in between. Here
    the measure is the run's length instead: a call made sooner after ``start_async`` than half
    the shortest synchronous run of the same request (measured in :meth:`__init__`) certainly met
    the run unfinished. A later call is inconclusive, never a failure.

    Before a judge fails a device on such calls it measures again (:meth:`remeasure`, the request
    idle) and counts only the calls that are still certain (:meth:`still_certain`): a busy moment
    while measuring (a loaded CI machine) makes runs look longer than they are."""

    def __init__(self, request: Any, inputs: dict[str, np.ndarray], runs: int = 3) -> None:
        self._request, self._inputs, self._runs = request, inputs, runs
        self.shortest = self._measure()
        self._started = self._called = 0.0

    def _measure(self) -> float:
        durations = []
        for _ in range(self._runs):
            start = time.perf_counter()
            self._request.infer(self._inputs)
            durations.append(time.perf_counter() - start)
        return min(durations)

    def remeasure(self) -> None:
        """Measure the shortest run again (the request must be idle); the lower one counts."""
        self.shortest = min(self.shortest, self._measure())

    @property
    def offset(self) -> float:
        """How long after ``start_async`` the last call under test came, in seconds."""
        return self._called - self._started

    def still_certain(self, offsets: list[float]) -> int:
        """How many of ``offsets`` (of calls judged certain) are certain still, after :meth:`remeasure`."""
        return sum(o < self.shortest / 2 for o in offsets)

    def start(self) -> None:
        """Call just before ``start_async``."""
        self._started = time.perf_counter()

    def call(self) -> None:
        """Call just before the call under test."""
        self._called = time.perf_counter()

    def certainly_unfinished(self) -> bool:
        """Whether the call under test was made while the run was certainly unfinished."""
        return self.offset < self.shortest / 2


def wait_in_thread(fn: Callable[[], Any], seconds: float, where: str) -> Any:
    """Run ``fn`` on a helper thread; fail (instead of hanging the suite) if it is not done in time."""
    __tracebackhide__ = True
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = fn()
        except BaseException as e:  # noqa: BLE001 - re-raised on the test thread
            box["error"] = e

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        fail("call", f"still blocked after {seconds} s", "returned", where)
    if "error" in box:
        raise box["error"]
    return box.get("value")


def property_text(value: Any) -> str:
    """The string form OpenVINO's tests compare property values by."""
    return P.to_string(value)


# -- the long, input-dependent run ---------------------------------------------------------------------
def long_run_request(core: Core, device: str, config: dict[str, Any] | None = None) -> Any:
    """A request of :func:`_models.long_run_model` (10-20 ms a run on REFERENCE)."""
    model = _models.long_run_model()
    with no_error(call(device, "compile_model", model.friendly_name, config or {})):
        return core.compile_model(model, device, config or {}).create_infer_request()


@functools.cache
def long_run_inputs(seed: int) -> dict[str, np.ndarray]:
    """:func:`_models.long_run_inputs` of ``seed``, made once (read-only arrays; runs copy them)."""
    inputs = _models.long_run_inputs(seed)
    for array in inputs.values():
        array.flags.writeable = False
    return inputs


@functools.cache
def _long_run_expected(seed: int) -> np.ndarray:
    out = _models.long_run_oracle(long_run_inputs(seed)["data"])
    out.flags.writeable = False
    return out


def long_run_expected(seed: int) -> np.ndarray:
    """The oracle's output for :func:`_models.long_run_inputs` of ``seed`` (computed once)."""
    return _long_run_expected(seed)


#: Tolerance of the long run: 320 roundings of +-0.5 on values near 0 leave up to ~1e-6 absolute.
LONG_RUN_TOLERANCE = {"rtol": 1e-5, "atol": 1e-4}


# -- hardware-device scope (behaviours.md, "How mandatory is marked") -------------------------------
#: Meta devices: never hardware (OpenVINO's sw_plugin_in_target_device).
META_DEVICES = ("HETERO", "AUTO", "MULTI", "BATCH")
#: The class attribute a device declares itself hardware (True) or software (False) with.
HARDWARE_FLAG = "hardware"


def is_meta(core: Core, device: str) -> bool:
    """Whether ``device`` is a meta device (HETERO, AUTO, MULTI, BATCH): by its name, or by the
    plugin's ``meta`` attribute (an adapter of another runtime's HETERO says so there)."""
    base = device.split(":")[0].split(".")[0]
    if base.upper() in META_DEVICES:
        return True
    with no_error(call(device, "get_plugin")):
        plugin = core.get_plugin(base)
    return getattr(plugin, "meta", False) is True


def is_hardware(core: Core, device: str) -> bool:
    """Whether ``device`` is a hardware device, whose M(HW) tests are mandatory.

    A meta device (HETERO, AUTO, MULTI, BATCH) is not. Otherwise the plugin's class attribute
    ``hardware`` decides when it has one (a software device that still reports DEVICE_TYPE sets
    ``hardware = False``); without it a device that lists DEVICE_TYPE in SUPPORTED_PROPERTIES
    (INTEGRATED or DISCRETE: OpenVINO's two device types, reported by every real device and by
    no meta device) is hardware."""
    base = device.split(":")[0].split(".")[0]
    if is_meta(core, device):
        return False
    with no_error(call(device, "get_plugin")):
        plugin = core.get_plugin(base)
    flag = getattr(plugin, HARDWARE_FLAG, None)
    if isinstance(flag, bool):
        return flag
    with no_error(call(device, "get_property", P.SUPPORTED_PROPERTIES)):
        supported = core.get_property(device, P.SUPPORTED_PROPERTIES)
    return P.DEVICE_TYPE in supported


def hardware_scope(request: pytest.FixtureRequest, core: Core, device: str, *needed: str) -> bool:
    """Scope an M(HW) test: mandatory (and ``needed`` properties must be listed) on a hardware
    device; optional, and skipped when a ``needed`` property is not listed, on a software device.

    OpenVINO marks these tests mandatory for hardware devices only (MARK_MANDATORY_*_FOR_HW_DEVICE,
    PR 27197): there, a missing property fails the test instead of skipping it. Returns whether the
    device is hardware."""
    __tracebackhide__ = True
    hardware = is_hardware(core, device)
    if hardware:
        request.node.add_marker(pytest.mark.mandatory)
    with no_error(call(device, "get_property", P.SUPPORTED_PROPERTIES)):
        supported = core.get_property(device, P.SUPPORTED_PROPERTIES)
    for name in needed:
        if name in supported:
            continue
        if hardware:
            fail(f"{name} in SUPPORTED_PROPERTIES", "not listed",
                 "listed: mandatory for a hardware device (it reports DEVICE_TYPE or declares hardware = True)",
                 call(device, "get_property", P.SUPPORTED_PROPERTIES))
        pytest.skip(f"{device}: property {name!r} not in SUPPORTED_PROPERTIES (a software device: optional)")
    return hardware


#: The plugin class attribute a static-only device declares itself with (False); absent means True.
DYNAMIC_SHAPES_FLAG = "supports_dynamic_shapes"


def supports_dynamic_shapes(core: Core, device: str) -> bool:
    """Whether ``device`` compiles models with dynamic input shapes: its plugin's class attribute
    ``supports_dynamic_shapes`` (:class:`ovconform.contract.plugin.Plugin`), True when it has none."""
    with no_error(call(device, "get_plugin")):
        plugin = core.get_plugin(device.split(":")[0].split(".")[0])
    return getattr(plugin, DYNAMIC_SHAPES_FLAG, True) is not False


# -- lifetime ------------------------------------------------------------------------------------------
def os_thread_count() -> int:
    """Threads of this process as the OS sees them (native threads included, e.g. a C++ runtime's),
    or Python's count where ``/proc`` is not available."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return threading.active_count()


def relu_through_remote(request: Any, context: Any, x: np.ndarray, where: str) -> None:
    """Run the ``relu`` model's ``request`` with remote tensors of ``context`` as its input and
    output (``x`` copied in), and check the output copied back to the host."""
    __tracebackhide__ = True
    with no_error(where):
        remote_in, remote_out = context.create_tensor(Type.f32, x.shape), context.create_tensor(Type.f32, x.shape)
        remote_in.copy_from(Tensor(x))
        request.set_tensor("data", remote_in)
        request.set_tensor("relu", remote_out)
        request.infer()
        host = Tensor(Type.f32, x.shape)
        remote_out.copy_to(host)
    assert_outputs_close(host.data, np.maximum(x, np.float32(0)), "output copied to the host", where)


def start_infer_in_thread(request: Any, inputs: Any, window: RunWindow) -> tuple[threading.Thread,
                                                                                    dict[str, BaseException | None]]:
    """Start ``request.infer(inputs)`` on a helper (daemon) thread and return once it is about to
    call infer() (the run window started): the thread, and the outcome it fills when infer()
    returns (``{"error": None}``) or raises (``{"error": e}``), for the caller to judge."""
    outcome: dict[str, BaseException | None] = {}
    started = threading.Event()

    def run() -> None:
        try:
            window.start()
            started.set()
            request.infer(inputs)
            outcome["error"] = None
        except BaseException as e:  # noqa: BLE001 - judged on the caller's thread
            outcome["error"] = e

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    started.wait(PATIENCE_S)
    return thread, outcome
