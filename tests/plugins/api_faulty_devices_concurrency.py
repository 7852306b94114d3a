"""Broken variants of REFERENCE that a third red-team review (concurrency, streams and async) found
passing every API behaviour test: the asynchronous and multi-request machinery. Each device is
REFERENCE plus the smallest change that models one bug a real plugin author makes there;
``tests/suites/test_api_faults_concurrency.py`` checks that exactly the tests added for each fail,
as failures, while REFERENCE passes them.

:data:`FAULTS` maps each class name to its fault. Device names share no substring with one
another (a ``-k`` expression selects a device by name). The plumbing (a REFERENCE plugin whose
compiled models make requests of given classes) is ``api_faulty_devices``'; faults never touch
REFERENCE's shared kernels (a Convolution kernel is *wrapped* per compiled model).

Not here (no check closes them without flaking on REFERENCE, see the report): a device whose
streams never overlap, and one that maps PERFORMANCE_HINT=THROUGHPUT to one stream.
"""

from __future__ import annotations

import math
import time
import weakref
from typing import Any

import numpy as np

import ovconform
from ovconform.errors import CancelledError
from reference_plugin.async_infer_request import ReferenceAsyncInferRequest
from reference_plugin.compiled_model import ReferenceCompiledModel
from reference_plugin.sync_infer_request import ReferenceSyncInferRequest

try:  # as a --plugin module (tests/plugins on the path) and as plugins.<module> (in-process)
    from api_faulty_devices import _compiled_with, _Faulty
    from patched_reference import PatchedReference
except ImportError:  # pragma: no cover - imported as plugins.api_faulty_devices_concurrency
    from plugins.api_faulty_devices import _compiled_with, _Faulty
    from plugins.patched_reference import PatchedReference


# 1 ------------------------------------------------------------------------------------------------
class _SharedWorkspace:
    """Wraps one compiled model's Convolution kernel: the input is first staged into ONE workspace
    buffer owned by the kernel (per compiled model, not per request), then convolved from there."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self._ws: np.ndarray | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def _stage(self, inputs: Any) -> list[Any]:
        x = inputs[0]
        if self._ws is None or self._ws.shape != x.shape or self._ws.dtype != x.dtype:
            self._ws = np.empty_like(x)
        np.copyto(self._ws, x)  # "upload to the device workspace"
        return [self._ws, *inputs[1:]]

    def run_trusted(self, inputs: Any, ctx: Any) -> Any:
        return self._inner.run_trusted(self._stage(inputs), ctx)

    def run(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        return self._inner.run(self._stage(inputs), *args, **kwargs)


class ConvWorkspaceShared(PatchedReference):
    """Convolution stages its input in a workspace allocated once per compiled model (a cuDNN-style
    workspace / im2col buffer) and shared by all requests: two requests of one compiled model that
    run at once with different inputs read each other's data. Correct whenever runs don't overlap."""

    device_name = "APIC_CONV_WS"

    def _patch(self, compiled: ReferenceCompiledModel) -> None:
        for step in compiled.program.steps:
            if step.node.type_name == "Convolution":
                step.kernel = _SharedWorkspace(step.kernel)


# 2 ------------------------------------------------------------------------------------------------
class _CancelNoCallback(ReferenceAsyncInferRequest):
    def _complete(self, future: Any, error: BaseException | None) -> None:
        if isinstance(error, CancelledError):  # "aborted runs are not completions": no callback
            with self._lock:
                self._busy = False
                self._latency_ms = (time.perf_counter() - self._started) * 1000.0
            future.finish(error)
            return
        super()._complete(future, error)


class CancelSkipsCallback(_Faulty):
    """A cancelled run ends (wait() raises CancelledError) without calling the completion callback:
    AsyncInferQueue-style users that count callbacks wait forever."""

    device_name = "APIC_CANCEL_NOCB"
    fault_compiled = _compiled_with(async_=_CancelNoCallback)


# 3 ------------------------------------------------------------------------------------------------
class _QueueFlushCancel(ReferenceSyncInferRequest):
    def __init__(self, compiled_model: Any) -> None:
        super().__init__(compiled_model)
        compiled_model.__dict__.setdefault("_fault_live", weakref.WeakSet()).add(self)

    def cancel(self) -> None:
        # the device's abort flushes its whole command queue: every request in flight is aborted
        for request in list(self._compiled_model.__dict__["_fault_live"]):
            request._cancel.set()


class CancelAbortsWholeQueue(_Faulty):
    """cancel() on one request aborts every running request of the compiled model (one device
    queue flushed), not just its own."""

    device_name = "APIC_CANCEL_ALL"
    fault_compiled = _compiled_with(sync=_QueueFlushCancel)


# 4 ------------------------------------------------------------------------------------------------
class _InferNotBusy(ReferenceAsyncInferRequest):
    def infer(self, inputs: Any = None) -> Any:
        with self._lock:
            self._check_idle("infer")
            self._apply_inputs(inputs)
            self._future = None
        self._sync.infer()  # the synchronous path never marks the request busy
        return self.results


class SyncInferNotBusy(_Faulty):
    """infer() does not mark the request busy: while it runs, start_async / infer / set_tensor from
    another thread on the same request are accepted and race on its buffers."""

    device_name = "APIC_INFER_NOTBUSY"
    fault_compiled = _compiled_with(async_=_InferNotBusy)


# 5 ------------------------------------------------------------------------------------------------
class _WaitForSeconds(ReferenceAsyncInferRequest):
    def wait_for(self, timeout: float) -> bool:
        # the driver's wait takes whole seconds: the milliseconds are rounded up
        if isinstance(timeout, (int, float)) and not isinstance(timeout, bool) and timeout > 0:
            timeout = math.ceil(timeout / 1000.0) * 1000
        return super().wait_for(timeout)


class WaitForWholeSeconds(_Faulty):
    """wait_for(ms) rounds its timeout up to whole seconds (a driver wait in seconds): wait_for(50)
    on an unfinished run blocks 1 s, 20x its timeout."""

    device_name = "APIC_WAITFOR_SEC"
    fault_compiled = _compiled_with(async_=_WaitForSeconds)


# 6 ------------------------------------------------------------------------------------------------
class _ModelWideCallback(ReferenceAsyncInferRequest):
    """One completion handler per compiled model (one device interrupt): set_callback on any
    request replaces it for all of them."""

    @property
    def _callback(self) -> Any:
        return self._sync.compiled_model.__dict__.get("_fault_callback")

    @_callback.setter
    def _callback(self, value: Any) -> None:
        if value is None and not self.__dict__.get("_fault_ready"):
            self.__dict__["_fault_ready"] = True  # the constructor's reset: leave the handler alone
            return
        self._sync.compiled_model.__dict__["_fault_callback"] = value


class CallbackPerCompiledModel(_Faulty):
    """The completion callback (and its userdata) is kept per compiled model: with several requests
    (AsyncInferQueue style), each completion calls the callback last set on any request."""

    device_name = "APIC_CB_MODELWIDE"
    fault_compiled = _compiled_with(async_=_ModelWideCallback)


# 9 ------------------------------------------------------------------------------------------------
class _ProfilingAnyTime(ReferenceAsyncInferRequest):
    def get_profiling_info(self) -> Any:
        return self._sync.get_profiling_info()  # no busy check: reads the counters being written


class ProfilingReadableMidRun(_Faulty):
    """get_profiling_info() is not refused while a run is under way: it returns the half-written
    counters of the running inference (some EXECUTED, the rest NOT_RUN)."""

    device_name = "APIC_PERF_MIDRUN"
    fault_compiled = _compiled_with(async_=_ProfilingAnyTime)


# 10 -----------------------------------------------------------------------------------------------
class _StickyCallbackError(ReferenceAsyncInferRequest):
    def _complete(self, future: Any, error: BaseException | None) -> None:
        if error is not None:
            self.__dict__["_fault_error"] = error  # the stored exception is never reset
        sticky = self.__dict__.get("_fault_error")

        def last() -> None:
            err = error
            with self._lock:
                self._busy = False
                self._latency_ms = (time.perf_counter() - self._started) * 1000.0
                callback = self._callback
            if callback is not None:
                self._in_callback.active = True
                try:
                    callback(sticky)
                except BaseException as e:  # noqa: BLE001
                    err = e
                finally:
                    self._in_callback.active = False
            future.finish(err)

        try:
            self._callback_executor.run(last)
        except BaseException:  # noqa: BLE001
            last()


class CallbackErrorSticks(_Faulty):
    """After one failed run, the completion callback of every later (successful) run of the request
    still receives that old exception (the stored exception_ptr is never reset); wait() is right."""

    device_name = "APIC_CB_STICKY_ERR"
    fault_compiled = _compiled_with(async_=_StickyCallbackError)


# 11 -----------------------------------------------------------------------------------------------
class _CallbackThreadDies(ReferenceAsyncInferRequest):
    """Callbacks go through the compiled model's own dispatcher thread; a callback that raises kills
    it (a Python thread dies silently on an uncaught exception). The run's error still reaches wait();
    from then on no request of the compiled model gets its callback (wait() still returns)."""

    def set_callback(self, callback: Any, *userdata: Any) -> None:
        super().set_callback(callback, *userdata)
        inner, cm = self._callback, self._sync.compiled_model
        if inner is not None:
            def guarded(err: Any) -> None:
                try:
                    inner(err)
                except BaseException:
                    cm.__dict__["_fault_dispatcher_dead"] = True  # the dispatcher thread dies here
                    raise
            with self._lock:
                self._callback = guarded

    def _complete(self, future: Any, error: BaseException | None) -> None:
        if self._sync.compiled_model.__dict__.get("_fault_dispatcher_dead"):
            with self._lock:  # the device still signals completion; nobody calls the callback
                self._busy = False
                self._latency_ms = (time.perf_counter() - self._started) * 1000.0
            future.finish(error)
            return
        super()._complete(future, error)


class CallbackRaiseKillsDispatcher(_Faulty):
    """After one completion callback raised, no later callback of any request of that compiled model
    is ever called (the device's callback thread died); wait() keeps working."""

    device_name = "APIC_CB_DISPATCH_DEAD"
    fault_compiled = _compiled_with(async_=_CallbackThreadDies)


FAULTS: dict[str, str] = {
    "ConvWorkspaceShared": "Convolution stages its input in one workspace per compiled model, shared by its requests",
    "CancelSkipsCallback": "a cancelled run never calls its completion callback",
    "CancelAbortsWholeQueue": "cancel() of one request aborts every running request of the compiled model",
    "SyncInferNotBusy": "a synchronous infer() leaves the request idle: calls from other threads race on it",
    "WaitForWholeSeconds": "wait_for(ms) rounds its timeout up to whole seconds",
    "CallbackPerCompiledModel": "one completion callback (and userdata) per compiled model, not per request",
    "ProfilingReadableMidRun": "get_profiling_info() answers during a run (half-written counters)",
    "CallbackErrorSticks": "after a failed run every later callback gets that run's error",
    "CallbackRaiseKillsDispatcher": "after a callback raised, no callback of the compiled model is called again",
}


@ovconform.hookimpl
def ovconform_register_devices(registry: Any) -> None:
    """Register every device of this module (for ``--plugin=path/to/api_faulty_devices_concurrency.py``)."""
    for name in FAULTS:
        registry.add(globals()[name])


__all__ = [*FAULTS, "FAULTS"]
