"""Broken variants of REFERENCE that a red-team review found passing every API behaviour test
(adapted from its devices): each breaks one behaviour of the request data path, the variable
states, the profiling or the configuration, and ``tests/suites/test_api_faults_redteam.py``
checks that exactly the test added for it fails, as a failure, while REFERENCE passes it.

:data:`FAULTS` maps each class name to its fault. :data:`CONTROLS` holds devices whose behaviour
looks odd but is allowed (OpenVINO CPU does the same and no documentation forbids it): they must
pass the same tests. Device names share no prefix or substring with one another (a ``-k``
expression selects a device by name). The plumbing (a REFERENCE plugin whose compiled models make
requests of given classes) is that of ``api_faulty_devices.py``; the subclasses add methods only.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

import ovconform
from ovconform import properties as P
from ovconform.api import SyncInferRequest, Tensor
from ovconform.contract.async_infer_request import Results
from ovconform.contract.sync_infer_request import POSTPROCESS
from reference_plugin.async_infer_request import ReferenceAsyncInferRequest
from reference_plugin.compiled_model import ReferenceCompiledModel
from reference_plugin.plugin import ReferencePlugin
from reference_plugin.sync_infer_request import ReferenceSyncInferRequest, ReferenceVariableState


# -- plumbing (as in api_faulty_devices.py; each module of tests/plugins stands alone) -------------------
class _Compiled(ReferenceCompiledModel):
    """A REFERENCE compiled model whose requests are made of the class attributes below."""

    fault_sync: ClassVar[type[ReferenceSyncInferRequest]] = ReferenceSyncInferRequest
    fault_async: ClassVar[type[ReferenceAsyncInferRequest]] = ReferenceAsyncInferRequest

    def create_sync_infer_request(self) -> SyncInferRequest:
        return self.fault_sync(self)

    def create_infer_request(self) -> ReferenceAsyncInferRequest:
        plugin: Any = self.plugin
        return self.fault_async(self.create_sync_infer_request(), self.task_executor, plugin.wait_executor,
                                self.callback_executor)


def _compiled_with(sync: type[ReferenceSyncInferRequest] = ReferenceSyncInferRequest,
                   async_: type[ReferenceAsyncInferRequest] = ReferenceAsyncInferRequest) -> type[_Compiled]:
    return type("FaultyCompiledModel", (_Compiled,), {"fault_sync": sync, "fault_async": async_})


class _Faulty(ReferencePlugin):
    """ReferencePlugin whose compiled and imported models become ``fault_compiled``."""

    fault_compiled: ClassVar[type[ReferenceCompiledModel] | None] = None

    def _recast(self, compiled: Any) -> Any:
        if self.fault_compiled is not None:
            compiled.__class__ = self.fault_compiled
        return compiled

    def _compile_model(self, model: Any, config: Any, context: Any) -> Any:
        return self._recast(super()._compile_model(model, config, context))

    def _import_model(self, blob: bytes, config: Any, context: Any) -> Any:
        return self._recast(super()._import_model(blob, config, context))


class _AsyncMarks(ReferenceAsyncInferRequest):
    """Tells the sync request whether the run was started by start_async (``_async_run``)."""

    def start_async(self, inputs: Any = None) -> None:
        self._sync.__dict__["_async_run"] = True
        super().start_async(inputs)

    def infer(self, inputs: Any = None) -> Any:
        self._sync.__dict__["_async_run"] = False
        return super().infer(inputs)


# -- callbacks ----------------------------------------------------------------------------------------
class _CallbackFirst(ReferenceAsyncInferRequest):
    """The completion callback fires when the device signals "done"; the copy of the results into
    the output tensors (postprocess) runs after it. wait() still returns after the copy."""

    def _create_pipeline(self, task_executor: Any) -> Any:
        return super()._create_pipeline(task_executor)[:-1]  # no postprocess stage on the executors

    def _complete(self, future: Any, error: BaseException | None) -> None:
        sync = self._sync

        def last() -> None:
            err = error
            with self._lock:
                self._busy = False
                callback = self._callback
            if callback is not None:
                try:
                    callback(err)
                except BaseException as e:  # noqa: BLE001 - surfaces from wait()
                    err = e
            if error is None:
                try:
                    sync.run_stage(POSTPROCESS, sync._postprocess)
                except BaseException as e:  # noqa: BLE001
                    err = err or e
            future.finish(err)

        self._callback_executor.run(last)


class CallbackBeforeOutputs(_Faulty):
    """The callback runs before the outputs are written: a callback reading them sees the previous run."""

    device_name = "APIRT_CB_EARLY"
    fault_compiled = _compiled_with(async_=_CallbackFirst)


# -- variable states ----------------------------------------------------------------------------------
class _ZeroResetState(ReferenceVariableState):
    def reset(self) -> None:
        """reset() writes zeros of the state's shape instead of going back to the initializer."""
        super().reset()
        self.set_state(Tensor(np.zeros_like(self.get_state().data)))


class _AliasState(ReferenceVariableState):
    def set_state(self, value: Any) -> None:
        """Keeps the caller's tensor (zero-copy) instead of copying it."""
        if isinstance(value, Tensor) and value.element_type == self._initial.element_type:
            with self._lock:
                self._state, self._written = value, True
            return
        super().set_state(value)


def _states_of(state_class: type[ReferenceVariableState]) -> type[ReferenceSyncInferRequest]:
    def _create_states(self: ReferenceSyncInferRequest) -> list[Any]:
        states = ReferenceSyncInferRequest._create_states(self)
        for state in states:
            state.__class__ = state_class
        return states

    return type("FaultyStates", (ReferenceSyncInferRequest,), {"_create_states": _create_states})


class StateResetToZeros(_Faulty):
    """VariableState.reset() writes zeros, not the ReadValue initializer (invisible with zero initializers)."""

    device_name = "APIRT_RESET_ZEROS"
    fault_compiled = _compiled_with(sync=_states_of(_ZeroResetState))


class SetStateKeepsUserTensor(_Faulty):
    """set_state keeps the caller's tensor: writes into it afterwards change the state."""

    device_name = "APIRT_STATE_ALIAS"
    fault_compiled = _compiled_with(sync=_states_of(_AliasState))


class _ResetFirstOnly(ReferenceAsyncInferRequest):
    def reset_state(self) -> None:
        """InferRequest.reset_state() resets the first variable only (a loop that returns early)."""
        for state in self.query_state():
            state.reset()
            return


class RequestResetStateFirstOnly(_Faulty):
    """InferRequest.reset_state() resets only the first variable."""

    device_name = "APIRT_RESET_FIRST"
    fault_compiled = _compiled_with(async_=_ResetFirstOnly)


# -- profiling ----------------------------------------------------------------------------------------
class _UnprofiledWhenAsync(ReferenceSyncInferRequest):
    def _start_pipeline(self) -> None:
        """The asynchronous path never turns the device's timers on (every counter NOT_RUN)."""
        super()._start_pipeline()
        if self.__dict__.get("_async_run"):
            self._timings = None


class ProfilingSyncOnly(_Faulty):
    """Runs started with start_async are not profiled: every counter is NOT_RUN."""

    device_name = "APIRT_PERF_SYNCONLY"
    fault_compiled = _compiled_with(sync=_UnprofiledWhenAsync, async_=_AsyncMarks)


class _ModelWideCounters(ReferenceSyncInferRequest):
    """Counters live in the compiled model, written by whichever request ran last."""

    def _start_pipeline(self) -> None:
        super()._start_pipeline()
        self._compiled_model.__dict__["_last_timings"] = self._timings

    def _profiling_info(self) -> list[Any]:
        self._timings = self._compiled_model.__dict__.get("_last_timings")
        return super()._profiling_info()


class ProfilingSharedByRequests(_Faulty):
    """(control) Counters per compiled model, as OpenVINO CPU keeps them per graph: a request that
    never ran shows another request's counters. Allowed: nothing documents per-request counters."""

    device_name = "APIRT_PERF_MODELWIDE"
    fault_compiled = _compiled_with(sync=_ModelWideCounters)


# -- the request's data path --------------------------------------------------------------------------
class _ZeroCopyResults(ReferenceAsyncInferRequest):
    @property
    def results(self) -> Results:
        """The output tensors' own memory (no copy): results kept from a run change with the next."""
        with self._lock:
            self._check_idle("results")
            return Results((port, self._sync.get_output_tensor(i)._host_array())
                           for i, port in enumerate(self._sync.outputs))


class ResultsAliasOutputTensors(_Faulty):
    """infer() and InferRequest.results return views of the output tensors, not copies."""

    device_name = "APIRT_RESULTS_ALIAS"
    fault_compiled = _compiled_with(async_=_ZeroCopyResults)


class _WrapsUserArrays(ReferenceSyncInferRequest):
    def copy_input(self, index: int, value: Any) -> None:
        """A numpy input of the port's type and shape is wrapped (zero-copy), not copied."""
        spec = self._specs[0][index]
        if isinstance(value, np.ndarray) and value.dtype == spec.dtype and value.flags.c_contiguous \
                and spec.fits(value.shape):
            self._set(True, index, Tensor(value, shared_memory=True, element_type=spec.element_type))
            return
        super().copy_input(index, value)


class InputsZeroCopyOnStart(_Faulty):
    """infer(inputs) / start_async(inputs) wrap the caller's arrays: writes after the call change the run."""

    device_name = "APIRT_INPUT_ZEROCOPY"
    fault_compiled = _compiled_with(sync=_WrapsUserArrays)


class _AsyncOwnOutputs(ReferenceSyncInferRequest):
    """The asynchronous path binds the device's own output buffers: an output tensor the user set is
    replaced by a device tensor on start_async and never written (infer() is right)."""

    def _preprocess(self) -> None:
        if self.__dict__.get("_async_run"):
            for i in self.__dict__.get("_user_out", set()):
                self._out_tensors[i] = None
            self.__dict__["_user_out"] = set()
        super()._preprocess()

    def _set(self, is_input: bool, index: int, tensor: Any) -> None:
        super()._set(is_input, index, tensor)
        if not is_input:
            self.__dict__.setdefault("_user_out", set()).add(index)


class AsyncIgnoresUserOutputTensor(_Faulty):
    """start_async does not write an output tensor the user set (it binds its own)."""

    device_name = "APIRT_ASYNC_OWN_OUT"
    fault_compiled = _compiled_with(sync=_AsyncOwnOutputs, async_=_AsyncMarks)


# -- configuration ------------------------------------------------------------------------------------
_LIVE = (P.PERF_COUNT, P.PERFORMANCE_HINT, P.EXECUTION_MODE_HINT)


class _LiveConfig(_Compiled):
    """Properties not passed to compile_model are read from the plugin at each call (the compiled
    model keeps a pointer to the plugin's configuration instead of a snapshot)."""

    def get_property(self, name: str) -> Any:
        if name in _LIVE and name not in self.__dict__.get("_passed", frozenset()):
            return self.plugin.get_property(name)
        return super().get_property(name)

    def set_property(self, properties: dict[str, Any]) -> None:
        super().set_property(properties)
        self.__dict__["_passed"] = self.__dict__.get("_passed", frozenset()) | frozenset(properties)

    @property
    def profiling_enabled(self) -> bool:
        return bool(self.get_property(P.PERF_COUNT))


class CompiledFollowsPluginConfig(_Faulty):
    """A later set_property on the device changes already compiled models (PERF_COUNT, hints)."""

    device_name = "APIRT_LIVE_CONFIG"
    fault_compiled = _LiveConfig

    def _own(self, compiled: Any) -> Any:
        """The compiled model keeps as its own only the values that differ from the plugin's now."""
        compiled.__dict__["_passed"] = frozenset(
            k for k in _LIVE if P.to_string(compiled.config.get(k)) != P.to_string(self.get_property(k)))
        return compiled

    def _compile_model(self, model: Any, config: Any, context: Any) -> Any:
        return self._own(super()._compile_model(model, config, context))

    def _import_model(self, blob: bytes, config: Any, context: Any) -> Any:
        return self._own(super()._import_model(blob, config, context))


class ImportBlobConfigWins(_Faulty):
    """import_model applies the blob's compile configuration over the call's own properties:
    import_model(blob, {PERF_COUNT: True}) of a blob compiled without it has no profiling."""

    device_name = "APIRT_IMPORT_BLOBWINS"

    def _import_model(self, blob: bytes, config: Any, context: Any) -> Any:
        config._given = frozenset()  # forgets which names import_model gave: the blob's values win
        return super()._import_model(blob, config, context)


FAULTS: dict[str, str] = {
    "CallbackBeforeOutputs": "the completion callback fires before the outputs are written",
    "StateResetToZeros": "VariableState.reset() writes zeros instead of the ReadValue initializer",
    "SetStateKeepsUserTensor": "set_state keeps the caller's tensor instead of a copy",
    "RequestResetStateFirstOnly": "InferRequest.reset_state() resets the first variable only",
    "ProfilingSyncOnly": "runs started with start_async are not profiled",
    "ResultsAliasOutputTensors": "infer() / results return views of the output tensors",
    "InputsZeroCopyOnStart": "infer / start_async wrap the caller's numpy inputs instead of copying",
    "AsyncIgnoresUserOutputTensor": "start_async does not write a user-set output tensor",
    "CompiledFollowsPluginConfig": "a compiled model follows later set_property calls on the device",
    "ImportBlobConfigWins": "the blob's compile configuration beats import_model's properties",
}

CONTROLS: dict[str, str] = {
    "ProfilingSharedByRequests": "counters per compiled model, as OpenVINO CPU keeps them (allowed)",
}


@ovconform.hookimpl
def ovconform_register_devices(registry: Any) -> None:
    """Register every device of this module (for ``--plugin=path/to/api_faulty_devices_redteam.py``)."""
    for name in (*FAULTS, *CONTROLS):
        registry.add(globals()[name])


__all__ = [*FAULTS, *CONTROLS, "CONTROLS", "FAULTS"]
