"""Deliberately broken variants of the REFERENCE device: one fault each (the fault zoo).

Each class subclasses :class:`reference_plugin.plugin.ReferencePlugin` under its own device name
and breaks exactly one behaviour the suites check. ``tests/suites/test_suites_faults.py`` runs the
suites against each (``--plugin=faulty_devices:<Class>`` with ``tests/plugins`` on ``PYTHONPATH``) and
checks that exactly the tests of that behaviour fail, with the right outcome and with messages
saying what was got and what was expected. :data:`FAULTS` maps each class name to a one-line
description of its fault.

REFERENCE builds its compiled models and requests with explicit classes, so a fault that needs
other request classes swaps the compiled model's class right after REFERENCE made it
(:func:`_recast`); the subclasses add methods only, no state. A kernel fault (numbers off,
wrong broadcasting) wraps one op type's kernels in the compiled model's own program, never the
shared REFERENCE kernels (the oracle runs in the same process). Two faults take their process
down on an error path — a segfault and a deadlock — to show they are contained (``crashed``,
``hanged``) while the rest of the run goes on.
"""

from __future__ import annotations

import ctypes
import dataclasses
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from datetime import timedelta
from typing import Any

import numpy as np

import ovconform
from ovconform import properties as P
from ovconform.api import ImmediateExecutor, ITaskExecutor, ProfilingInfo, SyncInferRequest, Tensor, Version
from ovconform.errors import UnsupportedOpError
from reference_plugin._blob import pack, unpack
from reference_plugin.async_infer_request import ReferenceAsyncInferRequest
from reference_plugin.compiled_model import ReferenceCompiledModel
from reference_plugin.plugin import ReferencePlugin
from reference_plugin.sync_infer_request import ReferenceSyncInferRequest


# -- plumbing ---------------------------------------------------------------------------------------
class _FaultyCompiledModel(ReferenceCompiledModel):
    """A REFERENCE compiled model whose requests use the class attributes below."""

    fault_async_class: type[ReferenceAsyncInferRequest] = ReferenceAsyncInferRequest

    def create_infer_request(self) -> ReferenceAsyncInferRequest:
        plugin: Any = self.plugin
        return self.fault_async_class(self.create_sync_infer_request(), self.task_executor, plugin.wait_executor,
                                      self.callback_executor)


def _recast(compiled: ReferenceCompiledModel, cls: type[ReferenceCompiledModel] | None) -> Any:
    if cls is not None:
        compiled.__class__ = cls
    return compiled


class _FaultyPlugin(ReferencePlugin):
    """ReferencePlugin whose compiled (and imported) models become ``fault_compiled_class``."""

    fault_compiled_class: type[ReferenceCompiledModel] | None = None

    def _compile_model(self, model: Any, config: P.PropertyStore, context: Any) -> Any:
        return _recast(super()._compile_model(model, config, context), self.fault_compiled_class)

    def _import_model(self, blob: bytes, config: P.PropertyStore, context: Any) -> Any:
        return _recast(super()._import_model(blob, config, context), self.fault_compiled_class)


def _compiled_with(sync: type[ReferenceSyncInferRequest] | None = None,
                   async_: type[ReferenceAsyncInferRequest] | None = None) -> type[_FaultyCompiledModel]:
    attrs: dict[str, Any] = {}
    if sync is not None:
        attrs["sync_request_class"] = sync
    if async_ is not None:
        attrs["fault_async_class"] = async_
    return type("FaultyCompiledModel", (_FaultyCompiledModel,), attrs)


Outs = Sequence[np.ndarray]


class _KernelFault:
    """Wraps one program step's kernel (the compiled model's own program, never the shared kernels)."""

    def __init__(self, kernel: Any, fault: Callable[[Outs, Outs], Outs]) -> None:
        self._kernel, self._fault = kernel, fault

    def run(self, args: Outs, ctx: Any = None) -> tuple[np.ndarray, ...]:
        return tuple(self._fault(args, self._kernel.run(args, ctx)))

    def run_trusted(self, args: Outs, ctx: Any) -> tuple[np.ndarray, ...]:
        return tuple(self._fault(args, self._kernel.run_trusted(args, ctx)))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._kernel, name)


class _KernelFaultPlugin(_FaultyPlugin):
    """Swaps the kernels of ``fault_op`` nodes for ``fault_kernel`` in every model it compiles or imports."""

    fault_op = ""

    @staticmethod
    def fault_kernel(args: Outs, outs: Outs) -> Outs:
        return outs

    def _faulted(self, compiled: Any) -> Any:
        for step in compiled.program.steps:
            if step.node.type_name == self.fault_op:
                step.kernel = _KernelFault(step.kernel, self.fault_kernel)
        return compiled

    def _compile_model(self, model: Any, config: P.PropertyStore, context: Any) -> Any:
        return self._faulted(super()._compile_model(model, config, context))

    def _import_model(self, blob: bytes, config: P.PropertyStore, context: Any) -> Any:
        return self._faulted(super()._import_model(blob, config, context))


def _off_by_1e3(args: Outs, outs: Outs) -> Outs:
    return [np.asarray(o + np.float32(1e-3), dtype=o.dtype) if o.dtype == np.float32 else o for o in outs]


def _left_aligned_add(args: Outs, outs: Outs) -> Outs:
    """Add that aligns a lower-rank operand with the *leading* axes (NumPy aligns trailing ones)."""
    a, b = (np.asarray(x) for x in args)
    if a.ndim == b.ndim:
        return outs
    low, high = (a, b) if a.ndim < b.ndim else (b, a)
    low = low.reshape(low.shape + (1,) * (high.ndim - low.ndim))
    return [np.asarray(np.add(high, low), dtype=outs[0].dtype)]  # a ValueError when they do not broadcast so


# -- async request faults -----------------------------------------------------------------------------
class _NeverCallsBack(ReferenceAsyncInferRequest):
    def set_callback(self, callback: Any, userdata: Any = None) -> None:
        """Accepts the callback and forgets it."""


class _CallsBackTwice(ReferenceAsyncInferRequest):
    def set_callback(self, callback: Any, *userdata: Any) -> None:
        super().set_callback(callback, *userdata)
        inner = self._callback
        if inner is not None:
            def twice(error: Any) -> None:
                inner(error)
                inner(error)

            self._callback = twice


class _WaitForZeroBlocks(ReferenceAsyncInferRequest):
    def wait_for(self, timeout: float) -> bool:
        return super().wait_for(3_600_000 if timeout == 0 else timeout)


class _WaitForInverted(ReferenceAsyncInferRequest):
    def wait_for(self, timeout: float) -> bool:
        return not super().wait_for(timeout)


class _NeverBusy(ReferenceAsyncInferRequest):
    def _check_idle(self, what: str) -> None:
        """Never refuses a call, even while a run is under way."""


class _IgnoresCancel(ReferenceAsyncInferRequest):
    def cancel(self) -> None:
        """Does nothing."""


class _RunsOnCaller(ReferenceAsyncInferRequest):
    """A "fake async" request: start_async runs every stage, and the callback, on the caller's thread."""

    def __init__(self, sync_request: SyncInferRequest, task_executor: ITaskExecutor, wait_executor: ITaskExecutor,
                 callback_executor: ITaskExecutor | None = None) -> None:
        now = ImmediateExecutor()
        super().__init__(sync_request, now, now, now)


class _WaitSkipsCallback(ReferenceAsyncInferRequest):
    def wait(self) -> None:
        """Returns once the device work is done, before the completion callback has run (and never
        raises the run's error)."""
        while self._busy:
            time.sleep(0.0005)


# -- sync request faults ------------------------------------------------------------------------------
class _CopiesSetTensor(ReferenceSyncInferRequest):
    def _set(self, is_input: bool, index: int, tensor: Tensor) -> None:
        self._check_tensor(is_input, index, tensor)
        super()._set(is_input, index, Tensor(np.array(tensor.data), element_type=tensor.element_type))


class _EmptyProfiling(ReferenceSyncInferRequest):
    def _profiling_info(self) -> list[Any]:
        return []


class _TruncatesDynamicBatch(ReferenceSyncInferRequest):
    def _postprocess(self) -> None:
        arrays: list[np.ndarray] = []
        for port, array in zip(self._outputs, self._output_arrays, strict=True):
            shape = port.get_partial_shape()
            dynamic_batch = shape.has_rank() and shape.rank_length() > 0 and shape[0].is_dynamic
            arrays.append(array[:1] if dynamic_batch and array.ndim and array.shape[0] > 1 else array)
        self._output_arrays = arrays
        super()._postprocess()


class _NegativeProfiling(ReferenceSyncInferRequest):
    def _profiling_info(self) -> list[Any]:
        return [dataclasses.replace(i, real_time=-i.real_time - timedelta(microseconds=1))
                if i.status == ProfilingInfo.Status.EXECUTED else i for i in super()._profiling_info()]


class _CumulativeProfiling(ReferenceSyncInferRequest):
    """Counters summed over every run of the request and never averaged or reset."""

    def _start_pipeline(self) -> None:
        totals = self.__dict__.get("_totals")
        super()._start_pipeline()
        if self._timings is not None:
            if totals is not None:
                self._timings = [None if t is None or old is None else (t[0] + old[0], t[1] + old[1])
                                 for t, old in zip(self._timings, totals, strict=True)]
            self.__dict__["_totals"] = self._timings


class _LeaksPerInference(ReferenceSyncInferRequest):
    LEAK_BYTES = 256 * 1024

    def _start_pipeline(self) -> None:
        super()._start_pipeline()
        self.__dict__.setdefault("_leaked", []).append(np.ones(self.LEAK_BYTES // 8))  # touched pages


class _ProfilingErrorPathCrashes(ReferenceSyncInferRequest):
    def get_profiling_info(self) -> list[ProfilingInfo]:
        if not self._compiled_model.profiling_enabled:
            ctypes.string_at(0)  # a NULL dereference: SIGSEGV, the process dies
        return super().get_profiling_info()


class _ProfilingCrashes(ReferenceSyncInferRequest):
    def get_profiling_info(self) -> list[ProfilingInfo]:
        if self._compiled_model.profiling_enabled:
            ctypes.string_at(0)  # a NULL dereference: SIGSEGV, the process dies
        return super().get_profiling_info()


class _ProfilingErrorPathDeadlocks(ReferenceSyncInferRequest):
    def get_profiling_info(self) -> list[ProfilingInfo]:
        if not self._compiled_model.profiling_enabled:
            lock = threading.Lock()
            lock.acquire()
            lock.acquire()  # a self-deadlock: never returns
        return super().get_profiling_info()


class _Corrupted(ReferenceSyncInferRequest):
    def _postprocess(self) -> None:
        self._output_arrays = [np.logical_not(a) if a.dtype == np.bool_ else (a + a.dtype.type(1)).astype(a.dtype)
                               for a in self._output_arrays]
        super()._postprocess()


class _StampedExportCompiledModel(_FaultyCompiledModel):
    def _export(self) -> bytes:
        """A valid blob whose producer field carries the export time: no two exports are equal."""
        blob = unpack(super()._export())
        return pack(dataclasses.replace(blob, producer=f"{blob.producer} (exported {time.time_ns()})"))


# -- the devices ----------------------------------------------------------------------------------------
class CallbackNeverCalled(_FaultyPlugin):
    device_name = "FAULT_CB_NEVER"
    fault_compiled_class = _compiled_with(async_=_NeverCallsBack)


class CallbackCalledTwice(_FaultyPlugin):
    device_name = "FAULT_CB_TWICE"
    fault_compiled_class = _compiled_with(async_=_CallsBackTwice)


class WaitForZeroBlocks(_FaultyPlugin):
    device_name = "FAULT_WAIT_BLOCKS"
    fault_compiled_class = _compiled_with(async_=_WaitForZeroBlocks)


class WaitForWrongBool(_FaultyPlugin):
    device_name = "FAULT_WAIT_BOOL"
    fault_compiled_class = _compiled_with(async_=_WaitForInverted)


class BusyNotRaised(_FaultyPlugin):
    device_name = "FAULT_NO_BUSY"
    fault_compiled_class = _compiled_with(async_=_NeverBusy)


class CancelIgnored(_FaultyPlugin):
    device_name = "FAULT_NO_CANCEL"
    fault_compiled_class = _compiled_with(async_=_IgnoresCancel)


class SetTensorCopies(_FaultyPlugin):
    device_name = "FAULT_TENSOR_COPY"
    fault_compiled_class = _compiled_with(sync=_CopiesSetTensor)


class ProfilingEmpty(_FaultyPlugin):
    device_name = "FAULT_NO_PROFILING"
    fault_compiled_class = _compiled_with(sync=_EmptyProfiling)


class DynamicShapeWrong(_FaultyPlugin):
    device_name = "FAULT_DYN_SHAPE"
    fault_compiled_class = _compiled_with(sync=_TruncatesDynamicBatch)


class ImportIgnoresBlob(_FaultyPlugin):
    """Imports the blob's ports but computes something else (every output + 1)."""

    device_name = "FAULT_IMPORT"

    def _import_model(self, blob: bytes, config: P.PropertyStore, context: Any) -> Any:
        return _recast(super()._import_model(blob, config, context), _compiled_with(sync=_Corrupted))


class QueryClaimsMissingOp(_FaultyPlugin):
    """Has no Tanh kernel at compile time, but query_model still reports Tanh supported."""

    device_name = "FAULT_QUERY"

    def _compile_model(self, model: Any, config: P.PropertyStore, context: Any) -> Any:
        for node in model.get_ordered_ops():
            if node.type_name == "Tanh":
                raise UnsupportedOpError(f"device {self.device_name!r} has no kernel for op type 'Tanh'.")
        return super()._compile_model(model, config, context)


class PropertyDoesNotReadBack(_FaultyPlugin):
    """Accepts PERFORMANCE_HINT but always reads back LATENCY."""

    device_name = "FAULT_PROP_READBACK"

    def get_property(self, name: str, arguments: Mapping[str, Any] | None = None) -> Any:
        if name == P.PERFORMANCE_HINT:
            return P.PerformanceMode.LATENCY
        return super().get_property(name, arguments)


class ReadOnlyPropertySettable(_FaultyPlugin):
    """set_property silently accepts (and drops) writes to read-only properties."""

    device_name = "FAULT_RO_SET"

    def set_property(self, properties: Mapping[str, Any]) -> None:
        ro = set(self.config.ro_names())
        super().set_property({k: v for k, v in properties.items() if k not in ro})


class UnknownPropertyAccepted(_FaultyPlugin):
    """set_property silently drops property names it does not know."""

    device_name = "FAULT_UNKNOWN_PROP"

    def set_property(self, properties: Mapping[str, Any]) -> None:
        known = set(self.config.supported())
        super().set_property({k: v for k, v in properties.items() if k in known})


class VersionEmpty(_FaultyPlugin):
    """get_version() has no build number and no description."""

    device_name = "FAULT_VERSION"

    def get_version(self) -> Version:
        return Version("", "")


class NumbersOff(_KernelFaultPlugin):
    """Every f32 output of a Tanh node is off by +1e-3."""

    device_name = "FAULT_NUMERIC"
    fault_op = "Tanh"
    fault_kernel = staticmethod(_off_by_1e3)


class WrongBroadcasting(_KernelFaultPlugin):
    """Add broadcasts a lower-rank operand along the leading axes instead of the trailing ones."""

    device_name = "FAULT_BROADCAST"
    fault_op = "Add"
    fault_kernel = staticmethod(_left_aligned_add)


class CallbackOnCallerThread(_FaultyPlugin):
    device_name = "FAULT_CB_CALLER"
    fault_compiled_class = _compiled_with(async_=_RunsOnCaller)


class WaitReturnsEarly(_FaultyPlugin):
    device_name = "FAULT_WAIT_EARLY"
    fault_compiled_class = _compiled_with(async_=_WaitSkipsCallback)


class ExportNotDeterministic(_FaultyPlugin):
    device_name = "FAULT_EXPORT_NONDET"
    fault_compiled_class = _StampedExportCompiledModel


class ProfilingNegative(_FaultyPlugin):
    device_name = "FAULT_NEG_PERF"
    fault_compiled_class = _compiled_with(sync=_NegativeProfiling)


class ProfilingCumulative(_FaultyPlugin):
    device_name = "FAULT_SUM_PERF"
    fault_compiled_class = _compiled_with(sync=_CumulativeProfiling)


class MemoryGrowsPerInference(_FaultyPlugin):
    device_name = "FAULT_LEAK"
    fault_compiled_class = _compiled_with(sync=_LeaksPerInference)


class SegfaultOnErrorPath(_FaultyPlugin):
    device_name = "FAULT_SEGV"
    fault_compiled_class = _compiled_with(sync=_ProfilingErrorPathCrashes)


class HangOnErrorPath(_FaultyPlugin):
    device_name = "FAULT_HANG"
    fault_compiled_class = _compiled_with(sync=_ProfilingErrorPathDeadlocks)


class ProfilingSegfaults(_FaultyPlugin):
    """Not in the fault table (:data:`FAULTS`): a harness test device. Its get_profiling_info()
    with PERF_COUNT on segfaults, so the mandatory perf-counter tests crash their worker
    (``tests/reports/test_crash_records.py``: crashed records keep their entity and scope)."""

    device_name = "FAULT_SEGV_PERF"
    fault_compiled_class = _compiled_with(sync=_ProfilingCrashes)


#: Device class name -> the fault it carries.
FAULTS: dict[str, str] = {
    "CallbackNeverCalled": "the completion callback is never called",
    "CallbackCalledTwice": "the completion callback is called twice per run",
    "WaitForZeroBlocks": "wait_for(0) blocks until the run ends",
    "WaitForWrongBool": "wait_for returns the opposite of 'finished'",
    "BusyNotRaised": "calls during a run never raise BusyError",
    "CancelIgnored": "cancel() does nothing",
    "SetTensorCopies": "set_tensor keeps a copy (not zero-copy)",
    "ProfilingEmpty": "get_profiling_info() is empty with PERF_COUNT on",
    "DynamicShapeWrong": "outputs of a dynamic-batch port keep only the first batch item",
    "ImportIgnoresBlob": "an imported model computes something else",
    "QueryClaimsMissingOp": "query_model claims Tanh, which compile_model cannot do",
    "PropertyDoesNotReadBack": "PERFORMANCE_HINT always reads back LATENCY",
    "ReadOnlyPropertySettable": "writes to read-only properties are silently accepted",
    "UnknownPropertyAccepted": "unknown property names are silently accepted",
    "VersionEmpty": "get_version() has an empty build number and description",
    "NumbersOff": "every f32 output of a Tanh node is off by +1e-3",
    "WrongBroadcasting": "Add aligns a lower-rank operand with the leading axes (NumPy: the trailing ones)",
    "CallbackOnCallerThread": "start_async runs the whole run and the callback on the caller's thread",
    "WaitReturnsEarly": "wait() returns before the completion callback has run",
    "ExportNotDeterministic": "two exports of one compiled model differ (a time stamp in the blob)",
    "ProfilingNegative": "executed nodes report negative real_time",
    "ProfilingCumulative": "counters add up over every run of the request (never averaged or reset)",
    "MemoryGrowsPerInference": "each inference keeps 256 KiB alive until the request is released",
    "SegfaultOnErrorPath": "get_profiling_info() without PERF_COUNT segfaults (kills the process)",
    "HangOnErrorPath": "get_profiling_info() without PERF_COUNT deadlocks (never returns)",
}


@ovconform.hookimpl
def ovconform_register_devices(registry: Any) -> None:
    """Register every faulty device (for ``--plugin=path/to/faulty_devices.py``)."""
    for name in FAULTS:
        registry.add(globals()[name])


__all__ = [*FAULTS, "FAULTS"]
