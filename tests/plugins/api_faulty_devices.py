"""Deliberately broken variants of the REFERENCE device for the API behaviours of issue 21: config
semantics, error paths, concurrency, lifetime, the shallow tests made to bite, hardware scope and
query_model (one fault each).

Each class subclasses :class:`reference_plugin.plugin.ReferencePlugin` under its own device name and
breaks exactly one behaviour an API suite checks. ``tests/suites/test_api_faults.py`` runs the suites
against each (``--plugin=api_faulty_devices:<Class>`` with ``tests/plugins`` on ``PYTHONPATH``) and
checks that exactly the tests of that behaviour fail, as failures, with messages that say what was
got and what was expected. :data:`FAULTS` maps each class name to a one-line description of its
fault; :data:`CONTROLS` lists devices that are not broken but must be scored differently (a
software device whose M(HW) tests skip).

The pattern is that of ``faulty_devices.py``: REFERENCE builds its compiled models and requests
with explicit classes, so a fault in a compiled model or a request swaps the class of the object
REFERENCE made (:func:`_recast`); the subclasses add methods only. Device names share no prefix with
one another (a ``-k`` expression selects a device by name).
"""

from __future__ import annotations

import dataclasses
import os
import threading
import time
import weakref
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

import ovconform
from ovconform import properties as P
from ovconform.api import StreamsExecutor, StreamsExecutorConfig, SyncInferRequest
from ovconform.contract.blob import DIGEST_SIZE, seal
from ovconform.errors import CancelledError, OVConformError, PropertyError
from reference_plugin._blob import pack, unpack
from reference_plugin._transformations import transform_model
from reference_plugin.async_infer_request import ReferenceAsyncInferRequest
from reference_plugin.compiled_model import ReferenceCompiledModel
from reference_plugin.plugin import ReferencePlugin
from reference_plugin.sync_infer_request import ReferenceSyncInferRequest


# -- plumbing ---------------------------------------------------------------------------------------
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


def _recast(compiled: Any, cls: type[ReferenceCompiledModel] | None) -> Any:
    if cls is not None:
        compiled.__class__ = cls
    return compiled


class _Faulty(ReferencePlugin):
    """ReferencePlugin whose compiled and imported models become ``fault_compiled``."""

    fault_compiled: ClassVar[type[ReferenceCompiledModel] | None] = None

    def _compile_model(self, model: Any, config: P.PropertyStore, context: Any) -> Any:
        return _recast(super()._compile_model(model, config, context), self.fault_compiled)

    def _import_model(self, blob: bytes, config: P.PropertyStore, context: Any) -> Any:
        return _recast(super()._import_model(blob, config, context), self.fault_compiled)


# -- config semantics (issue item 2) ------------------------------------------------------------------
class ConfigCoreWins(_Faulty):
    """A key set on the Core or the plugin beats the same key passed to compile_model."""

    device_name = "APIF_CORE_WINS"

    def compile_model(self, model: Any, properties: Mapping[str, Any] | None = None, context: Any = None) -> Any:
        kept = {k: v for k, v in dict(properties or {}).items() if not self.config.is_explicit(k)}
        return super().compile_model(model, kept, context)


class ConfigLeaksIntoPlugin(_Faulty):
    """compile_model's properties stay set on the plugin afterwards (it 'remembers the last compile')."""

    device_name = "APIF_CONFIG_LEAK"

    def compile_model(self, model: Any, properties: Mapping[str, Any] | None = None, context: Any = None) -> Any:
        compiled = super().compile_model(model, properties, context)
        self.set_property({k: v for k, v in dict(properties or {}).items() if k in self.config.rw_names()})
        return compiled


class ImportDropsConfig(_Faulty):
    """An imported model (also one loaded from CACHE_DIR) is built with the plugin's configuration
    only: the compile configuration in its blob and the import call's properties are dropped."""

    device_name = "APIF_IMPORT_NOCFG"

    def _import_model(self, blob: bytes, config: P.PropertyStore, context: Any) -> Any:
        plain = pack(dataclasses.replace(unpack(blob), config={}))
        return super()._import_model(plain, self.config.merged(None), context)


class _OneRequest(_Compiled):
    def get_property(self, name: str) -> Any:
        return 1 if name == P.OPTIMAL_NUMBER_OF_INFER_REQUESTS else super().get_property(name)


class OptimalRequestsIgnoreStreams(_Faulty):
    """OPTIMAL_NUMBER_OF_INFER_REQUESTS is 1 whatever the streams."""

    device_name = "APIF_OPTIMAL_ONE"
    fault_compiled = _OneRequest


class PluginStreamsNotUsed(_Faulty):
    """NUM_STREAMS set on the plugin reads back, but compile_model uses 1 unless the call passes it."""

    device_name = "APIF_STREAMS_UNUSED"

    def compile_model(self, model: Any, properties: Mapping[str, Any] | None = None, context: Any = None) -> Any:
        return super().compile_model(model, {P.NUM_STREAMS: 1, **dict(properties or {})}, context)


class _ForgetsUnlisted(_Compiled):
    def get_property(self, name: str) -> Any:
        if name not in super().get_property(P.SUPPORTED_PROPERTIES):
            raise PropertyError(f"Unsupported property {name!r} by compiled model {self.model_name!r}.")
        return super().get_property(name)


class CompiledForgetsUnlistedConfig(_Faulty):
    """The compiled model answers only the properties it lists; other compile-time values are lost."""

    device_name = "APIF_UNLISTED_CFG"
    fault_compiled = _ForgetsUnlisted


class DeviceIdIgnoredAtCompile(_Faulty):
    """Two devices ("0", "1"); DEVICE_ID reads back, but every model is compiled for device "0"."""

    device_name = "APIF_DEVICE_ID"
    device_ids = ("0", "1")  # type: ignore[assignment]  # REFERENCE declares exactly one id

    def _declare_properties(self) -> list[P.Declared]:
        ids = self.device_ids
        return [P.Declared(P.DEVICE_ID, "0", check=lambda v: None if v in ids else f"no such id; Supported values: "
                                                                                  f"{list(ids)}.")
                if d.name == P.DEVICE_ID else d for d in super()._declare_properties()]

    def _compile_model(self, model: Any, config: P.PropertyStore, context: Any) -> Any:
        config.set({P.DEVICE_ID: "0"})
        return super()._compile_model(model, config, context)


class SetPropertyLosesUpdates(_Faulty):
    """set_property reads the whole configuration, changes it and writes it all back without a lock:
    a concurrent set_property of another key is undone."""

    device_name = "APIF_LOST_UPDATE"

    def set_property(self, properties: Mapping[str, Any]) -> None:
        parsed = self.config.parse(dict(properties))
        snapshot = {k: v for k, v in self.config.values().items() if self.config.is_explicit(k)}
        time.sleep(0.005)  # the window another thread's write falls into
        self.config.set({**snapshot, **parsed})


class _PerfCountShadow(_Compiled):
    """set_property on the compiled model is remembered for get_property only."""

    def set_property(self, properties: dict[str, Any]) -> None:
        self.config.parse(dict(properties))  # still validated
        self.__dict__.setdefault("_shadow", {}).update(properties)

    def get_property(self, name: str) -> Any:
        shadow = self.__dict__.get("_shadow", {})
        return P.parse_value(name, shadow[name]) if name in shadow else super().get_property(name)


class CompiledSetPropertyNotApplied(_Faulty):
    """CompiledModel.set_property reads back, but the compiled model keeps its compile-time values
    (PERF_COUNT switched on afterwards gives no profiling)."""

    device_name = "APIF_CM_SET_IGNORED"
    fault_compiled = _PerfCountShadow


class RemoteContextReturnsNone(_Faulty):
    """No remote-context support, yet get_default_context / create_context return None instead of
    raising 'not implemented'."""

    device_name = "APIF_NO_CONTEXT"
    capabilities = (P.Capability.FP32, P.Capability.FP16, P.Capability.EXPORT_IMPORT)  # REFERENCE's, no REMOTE_CONTEXT

    def get_default_context(self, params: Mapping[str, Any] | None = None) -> Any:
        return None

    def create_context(self, params: Mapping[str, Any] | None = None) -> Any:
        return None


# -- error paths (item 3) -----------------------------------------------------------------------------
class _CallbackGetsNone(ReferenceAsyncInferRequest):
    def set_callback(self, callback: Any, *userdata: Any) -> None:
        super().set_callback(callback, *userdata)
        inner = self._callback
        if inner is not None:
            self._callback = lambda _error: inner(None)


class CallbackMissesError(_Faulty):
    """The completion callback of a failed run is called with None (wait() still raises)."""

    device_name = "APIF_CB_NO_ERROR"
    fault_compiled = _compiled_with(async_=_CallbackGetsNone)


class _WaitSwallows(ReferenceAsyncInferRequest):
    def wait(self) -> None:
        try:
            super().wait()
        except CancelledError:
            raise
        except OVConformError:
            pass  # the run's error is dropped


class WaitSwallowsError(_Faulty):
    """wait() returns normally after a run that failed inside the device."""

    device_name = "APIF_WAIT_NO_ERROR"
    fault_compiled = _compiled_with(async_=_WaitSwallows)


class _StickyError(ReferenceSyncInferRequest):
    def run_stage(self, name: str, stage: Callable[[], None]) -> None:
        old = self.__dict__.get("_sticky")
        if old is not None:
            raise old
        try:
            super().run_stage(name, stage)
        except CancelledError:
            raise
        except OVConformError as e:
            self.__dict__["_sticky"] = e
            raise


class FailedRunSticks(_Faulty):
    """After a run failed, every later run of the request fails with the same error."""

    device_name = "APIF_STICKY_ERROR"
    fault_compiled = _compiled_with(sync=_StickyError)


class _StaleAfterCancel(ReferenceSyncInferRequest):
    def check_cancelled(self) -> None:
        try:
            super().check_cancelled()
        except CancelledError:
            self.__dict__["_skip_next"] = True
            raise

    def _start_pipeline(self) -> None:
        if self.__dict__.pop("_skip_next", False):
            return  # "already computed": the outputs of the cancelled run stay
        super()._start_pipeline()


class StaleOutputsAfterCancel(_Faulty):
    """The run after a cancelled one does not compute: it hands back the cancelled run's outputs."""

    device_name = "APIF_STALE_CANCEL"
    fault_compiled = _compiled_with(sync=_StaleAfterCancel)


class _CancelNoopNeverBusy(ReferenceAsyncInferRequest):
    def cancel(self) -> None:
        """Does nothing."""

    def _check_idle(self, what: str) -> None:
        """Never refuses a call, even while a run is under way."""


class CancelNoopNeverBusy(_Faulty):
    """cancel() does nothing and requests never report Busy (the device issue 21 names)."""

    device_name = "APIF_CANCEL_NOOP"
    fault_compiled = _compiled_with(async_=_CancelNoopNeverBusy)


class _CancelSticks(ReferenceSyncInferRequest):
    def clear_cancel(self) -> None:
        """Keeps a cancel() made while idle: the next asynchronous run is cancelled at once."""


class CancelSticksWhenIdle(_Faulty):
    """cancel() on an idle request is remembered and cancels the next asynchronous run."""

    device_name = "APIF_CANCEL_STICKS"
    fault_compiled = _compiled_with(sync=_CancelSticks)


class ImportAcceptsForeignBlob(_Faulty):
    """import_model takes a blob another device exported (the device check is skipped)."""

    device_name = "APIF_FOREIGN_BLOB"

    def _import_model(self, blob: bytes, config: P.PropertyStore, context: Any) -> Any:
        parts = unpack(blob)
        ours = dataclasses.replace(parts, device=type(self).device_name,
                                   architecture=self.get_property(P.DEVICE_ARCHITECTURE))
        return super()._import_model(pack(ours), config, context)


class ImportAcceptsNewerFormat(_Faulty):
    """import_model reads a blob of a newer format version as if it were the current one."""

    device_name = "APIF_NEWER_BLOB"

    def _import_model(self, blob: bytes, config: P.PropertyStore, context: Any) -> Any:
        current = (1).to_bytes(4, "little")
        return super()._import_model(seal(blob[:8] + current + blob[12:-DIGEST_SIZE]), config, context)


class ImportReadsIr(_Faulty):
    """import_model compiles a model's IR (XML) it is given instead of an exported blob."""

    device_name = "APIF_IMPORT_IR"

    def _import_model(self, blob: bytes, config: P.PropertyStore, context: Any) -> Any:
        if blob.lstrip().startswith(b"<"):
            return self._compile_model(ovconform.read_model(blob), config, context)
        return super()._import_model(blob, config, context)


# -- concurrency (item 4) -------------------------------------------------------------------------------
class _SharedOutputs(ReferenceSyncInferRequest):
    def _tensor(self, is_input: bool, index: int) -> Any:
        if is_input or self._out_tensors[index] is not None:
            return super()._tensor(is_input, index)
        shared = self._compiled_model.__dict__.setdefault("_fault_shared_outputs", {})
        if index not in shared:
            shared[index] = super()._tensor(False, index)
        self._out_tensors[index] = shared[index]
        return shared[index]


class _PortsShareOutput(ReferenceSyncInferRequest):
    def _tensor(self, is_input: bool, index: int) -> Any:
        if is_input or index == 0 or self._out_tensors[index] is not None:
            return super()._tensor(is_input, index)
        first = super()._tensor(False, 0)
        port = self._outputs[index]
        if port.get_element_type() == self._outputs[0].get_element_type() and \
                port.get_partial_shape() == self._outputs[0].get_partial_shape():
            self._out_tensors[index] = first  # "same type and shape: one buffer will do"
            return first
        return super()._tensor(is_input, index)


class OutputPortsShareMemory(_Faulty):
    """A request's outputs of equal type and shape share one tensor."""

    device_name = "APIF_PORTS_SHARE"
    fault_compiled = _compiled_with(sync=_PortsShareOutput)


class RequestsShareOutputs(_Faulty):
    """All requests of a compiled model write their outputs into the same tensors."""

    device_name = "APIF_SHARED_OUT"
    fault_compiled = _compiled_with(sync=_SharedOutputs)


# -- lifetime (item 5) ----------------------------------------------------------------------------------
_NEVER = threading.Event()


class LeaksThreadPerCompile(_Faulty):
    """Each compile_model starts a watchdog thread that never ends."""

    device_name = "APIF_THREAD_LEAK"

    def _compile_model(self, model: Any, config: P.PropertyStore, context: Any) -> Any:
        threading.Thread(target=_NEVER.wait, name="leaked-watchdog", daemon=True).start()
        return super()._compile_model(model, config, context)


class LeaksExecutorPerCompile(_Faulty):
    """Each compiled model gets a streams executor of its own name, which is never reused or stopped."""

    device_name = "APIF_EXEC_LEAK"
    _count: ClassVar[int] = 0

    def acquire_task_executor(self, streams: int, config: P.PropertyStore) -> StreamsExecutor:
        type(self)._count += 1
        name = f"{self.get_device_name()}.model{type(self)._count}"
        executor = self._executors.get_idle_cpu_streams_executor(StreamsExecutorConfig(name, streams, 1))
        executor.acquire()  # a second lease nobody releases
        return executor


class ExecutorsSharedByName(_Faulty):
    """Every plugin instance names its executors after the device only, so instances share them, and
    an instance's destructor clears them: a request of a newer instance (after unload_plugin, say)
    is left with a stopped executor."""

    device_name = "APIF_SHARED_EXEC"

    def __init__(self, device_name: str | None = None) -> None:
        super().__init__(device_name)
        name = self.get_device_name()
        self._executor_names = {"streams": f"{name}.streams", "wait": f"{name}.wait", "exclusive": f"{name}.exclusive"}
        weakref.finalize(self, _clear_all, self._executors, tuple(self._executor_names.values()))


def _clear_all(manager: Any, names: tuple[str, ...]) -> None:
    for name in names:
        manager.clear_deferred(name)


# -- the shallow tests made to bite (item 9) ------------------------------------------------------------
class LoadedFromCacheNeverTrue(_Faulty):
    """A model loaded from CACHE_DIR reports LOADED_FROM_CACHE false."""

    device_name = "APIF_CACHE_FLAG"

    def import_model(self, stream: Any, properties: Mapping[str, Any] | None = None, context: Any = None) -> Any:
        props = {k: v for k, v in dict(properties or {}).items() if k != P.LOADED_FROM_CACHE}
        return super().import_model(stream, props, context)


# -- query_model (items 6 and 10) --------------------------------------------------------------------------
class QueryOmitsConvolution(_Faulty):
    """query_model leaves Convolution nodes out of its answer (they compile and run fine)."""

    device_name = "APIF_QUERY_NO_CONV"

    def query_model(self, model: Any, properties: Mapping[str, Any] | None = None) -> dict[str, str]:
        convolutions = {n.friendly_name for n in model.get_ordered_ops() if n.type_name == "Convolution"}
        return {k: v for k, v in super().query_model(model, properties).items() if k not in convolutions}


_HOUSEKEEPING = ("Parameter", "Constant", "Result")


class QueryClaimsHousekeeping(_Faulty):
    """query_model reports every Parameter, Constant and Result, also those next to unsupported ops only."""

    device_name = "APIF_QUERY_HK"

    def query_model(self, model: Any, properties: Mapping[str, Any] | None = None) -> dict[str, str]:
        answer = super().query_model(model, properties)
        target = next(iter(answer.values()), self.get_device_name())
        return {**answer, **{n.friendly_name: target for n in model.get_ordered_ops() if n.type_name in _HOUSEKEEPING}}


class QueryForgetsFusedNames(_Faulty):
    """query_model names the nodes of its transformed model by their own names only: ops that a
    transformation fused or folded into another node are left out of the answer."""

    device_name = "APIF_QUERY_FUSED"

    def query_model(self, model: Any, properties: Mapping[str, Any] | None = None) -> dict[str, str]:
        answer = super().query_model(model, properties)
        transformed = model.clone()
        transform_model(transformed, self.config.merged(properties))
        kept = {n.friendly_name for n in transformed.get_ordered_ops()}
        return {k: v for k, v in answer.items() if k in kept}


# -- hardware scope (item 7) --------------------------------------------------------------------------------
class HardwareLacksCapabilities(_Faulty):
    """A DISCRETE (hardware) device that does not list OPTIMIZATION_CAPABILITIES."""

    device_name = "APIF_HW_NO_CAPS"
    device_type = P.DeviceType.DISCRETE

    def _ro_property_names(self) -> list[str]:
        return [n for n in super()._ro_property_names() if n != P.OPTIMIZATION_CAPABILITIES]


class HardwareFlagWithoutDeviceType(_Faulty):
    """Declares itself hardware (``hardware = True``) but does not list DEVICE_TYPE."""

    device_name = "APIF_HW_NO_TYPE"
    hardware = True

    def _ro_property_names(self) -> list[str]:
        return [n for n in super()._ro_property_names() if n != P.DEVICE_TYPE]


class SoftwareLacksCapabilities(_Faulty):
    """Not broken: a software device (``hardware = False``) without OPTIMIZATION_CAPABILITIES,
    whose M(HW) tests are optional and skip."""

    device_name = "APIF_SW_NO_CAPS"
    hardware = False

    def _ro_property_names(self) -> list[str]:
        return [n for n in super()._ro_property_names() if n != P.OPTIMIZATION_CAPABILITIES]


#: Environment variable naming the file :class:`RecordsModelOps` appends op types to.
RECORD_OPS_ENV = "OVCONFORM_RECORD_OPS"


class RecordsModelOps(_Faulty):
    """Not broken: REFERENCE that appends the op types of every model it compiles or queries to the
    file named by ``$OVCONFORM_RECORD_OPS`` (one per line): what the mandatory API suite needs."""

    device_name = "APIF_OP_RECORDER"

    def _record(self, model: Any) -> None:
        path = os.environ.get(RECORD_OPS_ENV)
        if path and hasattr(model, "get_ordered_ops"):
            with open(path, "a", encoding="utf-8") as out:
                out.writelines(f"{t}\n" for t in sorted({n.type_name for n in model.get_ordered_ops()}))

    def compile_model(self, model: Any, properties: Mapping[str, Any] | None = None, context: Any = None) -> Any:
        self._record(model)
        return super().compile_model(model, properties, context)

    def query_model(self, model: Any, properties: Mapping[str, Any] | None = None) -> dict[str, str]:
        self._record(model)
        return super().query_model(model, properties)


#: Device class name -> the fault it carries.
FAULTS: dict[str, str] = {
    "ConfigCoreWins": "a key set on the Core or device beats the same key passed to compile_model",
    "ConfigLeaksIntoPlugin": "compile_model's properties stay set on the plugin",
    "ImportDropsConfig": "an imported (or cached) model ignores the compile configuration in its blob",
    "OptimalRequestsIgnoreStreams": "OPTIMAL_NUMBER_OF_INFER_REQUESTS is 1 whatever the streams",
    "PluginStreamsNotUsed": "NUM_STREAMS set on the plugin reads back but is not used by compile_model",
    "CompiledForgetsUnlistedConfig": "the compiled model answers only the properties it lists",
    "DeviceIdIgnoredAtCompile": "DEVICE_ID reads back but every model is compiled for device 0",
    "SetPropertyLosesUpdates": "concurrent set_property calls undo one another's writes",
    "CompiledSetPropertyNotApplied": "CompiledModel.set_property reads back but changes nothing",
    "RemoteContextReturnsNone": "a device without remote contexts returns None instead of raising",
    "CallbackMissesError": "the callback of a failed run gets None instead of the error",
    "WaitSwallowsError": "wait() returns normally after a failed run",
    "FailedRunSticks": "after a failed run every later run fails with the same error",
    "StaleOutputsAfterCancel": "the run after a cancelled one returns the cancelled run's outputs",
    "CancelNoopNeverBusy": "cancel() does nothing and requests never report Busy",
    "CancelSticksWhenIdle": "cancel() on an idle request cancels the next run",
    "ImportAcceptsForeignBlob": "import_model takes a blob another device exported",
    "ImportAcceptsNewerFormat": "import_model reads a newer blob format as the current one",
    "ImportReadsIr": "import_model compiles a model's IR instead of refusing it",
    "RequestsShareOutputs": "requests of one compiled model share their output tensors",
    "OutputPortsShareMemory": "a request's outputs of equal type and shape share one tensor",
    "LeaksThreadPerCompile": "each compile_model leaks a thread",
    "LeaksExecutorPerCompile": "each compiled model leaks a streams executor (and its threads)",
    "ExecutorsSharedByName": "plugin instances share executors by name and a destructor stops them for all",
    "LoadedFromCacheNeverTrue": "a model loaded from the cache reports LOADED_FROM_CACHE false",
    "QueryOmitsConvolution": "query_model leaves Convolution nodes out",
    "QueryClaimsHousekeeping": "query_model reports Parameters, Constants and Results next to unsupported ops only",
    "QueryForgetsFusedNames": "query_model leaves out the ops a transformation fused or folded into another",
    "HardwareLacksCapabilities": "a hardware (DISCRETE) device does not list OPTIMIZATION_CAPABILITIES",
    "HardwareFlagWithoutDeviceType": "a device declared hardware does not list DEVICE_TYPE",
}
#: Devices that are not broken; each must fail nothing (their scope differs from REFERENCE's).
CONTROLS: dict[str, str] = {
    "SoftwareLacksCapabilities": "a software device without OPTIMIZATION_CAPABILITIES: its M(HW) tests skip",
    "RecordsModelOps": "REFERENCE recording the op types of the models it compiles or queries",
}


@ovconform.hookimpl
def ovconform_register_devices(registry: Any) -> None:
    """Register every device of this module (for ``--plugin=path/to/api_faulty_devices.py``)."""
    for name in (*FAULTS, *CONTROLS):
        registry.add(globals()[name])


__all__ = [*FAULTS, *CONTROLS, "CONTROLS", "FAULTS"]
