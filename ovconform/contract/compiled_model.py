"""The compiled model base (``ov::ICompiledModel``).

A device subclasses :class:`CompiledModel`, sets ``sync_request_class`` and implements
:meth:`CompiledModel._compile` (build kernels) and, for EXPORT_IMPORT, :meth:`CompiledModel._export`.
The base keeps the I/O ports, the compile-time properties, the shared resources of its requests
(task executor, callback executor, request id counter) and answers the standard properties.
"""

from __future__ import annotations

import itertools
import threading
import weakref
from typing import TYPE_CHECKING, Any, BinaryIO, ClassVar

from ovconform import properties as P
from ovconform.contract import encryption
from ovconform.contract.async_infer_request import AsyncInferRequest, Results
from ovconform.contract.executors import ImmediateExecutor, ITaskExecutor, StreamsExecutor
from ovconform.contract.sync_infer_request import ProfilingStatus, SyncInferRequest
from ovconform.errors import (
    NotFoundError,
    NotImplementedByDeviceError,
    OVConformError,
    PropertyError,
    ValidationError,
)
from ovconform.ir import Model, Output

if TYPE_CHECKING:
    from ovconform.contract.plugin import Plugin
    from ovconform.contract.tensor import RemoteContext

__all__ = ["CompiledModel"]

#: Read-only properties every compiled model answers.
_BASE_RO = (P.SUPPORTED_PROPERTIES, P.MODEL_NAME, P.NETWORK_NAME, P.EXECUTION_DEVICES,
            P.LOADED_FROM_CACHE, P.OPTIMAL_NUMBER_OF_INFER_REQUESTS)


class CompiledModel:
    """Base of a device's compiled model.

    :param model: the (already cloned) model; its ports become the compiled model's ports.
    :param plugin: the plugin that compiled it (kept alive by the compiled model).
    :param config: the merged compile-time properties (plugin values under per-call values).
    :param context: the remote context it was compiled for, if any.
    :param task_executor: executor of the requests' pipelines; leased from the plugin when None.
    :param callback_executor: where request callbacks run; immediately when None.
    :param loaded_from_cache: value of LOADED_FROM_CACHE.
    """

    #: The device's synchronous request class.
    sync_request_class: ClassVar[type[SyncInferRequest]] = SyncInferRequest
    #: The asynchronous request class (override for multi-stage pipelines).
    async_request_class: ClassVar[type[AsyncInferRequest]] = AsyncInferRequest
    #: Compile-time properties that stay writable on the compiled model.
    rw_properties: ClassVar[tuple[str, ...]] = (P.PERF_COUNT,)

    def __init__(self, model: Model, plugin: Plugin, config: P.PropertyStore, *,
                 context: RemoteContext | None = None, task_executor: ITaskExecutor | None = None,
                 callback_executor: ITaskExecutor | None = None, loaded_from_cache: bool = False) -> None:
        if not isinstance(model, Model):
            raise ValidationError(f"a compiled model needs an ovconform Model, not {type(model).__name__}.")
        self._model = model
        self._plugin = plugin
        self._context = context
        self._inputs = list(model.inputs)
        self._outputs = list(model.outputs)
        self._streams = P.resolve_num_streams(_get(config, P.NUM_STREAMS, 1),
                                              _get(config, P.PERFORMANCE_HINT, P.PerformanceMode.LATENCY))
        owner = f"compiled model {model.friendly_name!r} on {plugin.device_name!r}"
        self._config = config.restricted(owner, self.rw_properties, [*_BASE_RO, *self._ro_property_names()])
        self._loaded_from_cache = bool(loaded_from_cache)
        #: CACHE_ENCRYPTION_CALLBACKS of compile_model / import_model (set by the plugin base).
        self._encryption: P.EncryptionCallbacks | None = None
        self._request_ids = itertools.count()
        self._ids_lock = threading.Lock()
        self._default_request: AsyncInferRequest | None = None
        self._default_lock = threading.Lock()
        #: {node name: microseconds} of the last completed run with profiling on (execTimeMcs);
        #: kept only when the runtime model is the base class's
        self._last_run_us: dict[str, float] = {}
        self._records_runs = type(self).get_runtime_model is CompiledModel.get_runtime_model
        self._callback_executor = callback_executor or ImmediateExecutor()
        self._task_executor = task_executor or plugin.acquire_task_executor(self._streams, config)
        if isinstance(self._task_executor, StreamsExecutor) and task_executor is None:
            weakref.finalize(self, self._task_executor.release)
        self._compile(model)

    # -- device hooks ---------------------------------------------------------------------------
    def _compile(self, model: Model) -> None:
        """Build the backend representation of ``model`` (transformations, kernels)."""

    def _export(self) -> bytes:
        """The blob :meth:`Plugin._import_model` reads back."""
        raise NotImplementedByDeviceError(
            f"device {self.device_name!r} cannot export compiled models (no EXPORT_IMPORT capability).")

    def _ro_property_names(self) -> list[str]:
        """Device-specific read-only properties (answered by :meth:`_get_ro_property`)."""
        return []

    def _get_ro_property(self, name: str) -> Any:
        raise PropertyError(f"Unsupported property {name!r} by compiled model {self.model_name!r}.")

    # -- identity and resources -----------------------------------------------------------------
    @property
    def plugin(self) -> Plugin:
        return self._plugin

    @property
    def device_name(self) -> str:
        return self._plugin.device_name

    @property
    def model(self) -> Model:
        """The compiled (device-transformed) model."""
        return self._model

    @property
    def model_name(self) -> str:
        return self._model.friendly_name

    @property
    def context(self) -> RemoteContext | None:
        """The context given to compile_model / import_model (None: the device's default)."""
        return self._context

    def get_context(self) -> RemoteContext:
        """``CompiledModel.get_context``: the context the model was compiled or imported for, or
        the device's default context.

        :raises NotImplementedByDeviceError: for a device without remote contexts.
        """
        if self._context is not None:
            return self._context
        return self._plugin.get_default_context()

    @property
    def task_executor(self) -> ITaskExecutor:
        return self._task_executor

    @property
    def callback_executor(self) -> ITaskExecutor:
        return self._callback_executor

    @property
    def loaded_from_cache(self) -> bool:
        return self._loaded_from_cache

    @property
    def profiling_enabled(self) -> bool:
        return bool(_get(self._config, P.PERF_COUNT, False))

    @property
    def config(self) -> P.PropertyStore:
        return self._config

    def next_request_id(self) -> int:
        with self._ids_lock:
            return next(self._request_ids)

    # -- ports ----------------------------------------------------------------------------------
    @property
    def inputs(self) -> list[Output]:
        return list(self._inputs)

    @property
    def outputs(self) -> list[Output]:
        return list(self._outputs)

    def input(self, key: int | str | Output | None = None) -> Output:
        return self._pick(self._inputs, key, "input")

    def output(self, key: int | str | Output | None = None) -> Output:
        return self._pick(self._outputs, key, "output")

    def _pick(self, ports: list[Output], key: Any, what: str) -> Output:
        if key is None:
            if len(ports) != 1:
                raise NotFoundError(f"compiled model {self.model_name!r} has {len(ports)} {what}s; "
                                    "name one by index or tensor name.")
            return ports[0]
        if isinstance(key, int) and not isinstance(key, bool):
            if not 0 <= key < len(ports):
                raise NotFoundError(f"compiled model {self.model_name!r} has no {what} {key}; it has {len(ports)}.")
            return ports[key]
        names = key.get_names() if isinstance(key, Output) else {key}
        for port in ports:
            if port == key or names & port.get_names():
                return port
        known = sorted(n for p in ports for n in p.get_names())
        raise NotFoundError(f"compiled model {self.model_name!r} has no {what} {key!r}; {what} names: {known}.")

    # -- requests -------------------------------------------------------------------------------
    def create_sync_infer_request(self) -> SyncInferRequest:
        return self.sync_request_class(self)

    def create_infer_request(self) -> AsyncInferRequest:
        return self.async_request_class(self.create_sync_infer_request(), self._task_executor,
                                        self._callback_executor)

    def __call__(self, inputs: Any = None) -> Results:
        """Infer with an internal request (created on first call), like OpenVINO's Python API."""
        with self._default_lock:
            if self._default_request is None:
                self._default_request = self.create_infer_request()
            return self._default_request.infer(inputs)

    # -- export and runtime model ----------------------------------------------------------------
    def export_model(self, stream: BinaryIO | None = None) -> bytes:
        """The exported blob (encrypted when the model was compiled or imported with
        CACHE_ENCRYPTION_CALLBACKS); also written to ``stream`` when given."""
        blob = self._export()
        if self._encryption is not None:
            blob = encryption.encrypt_blob(blob, self._encryption, self.device_name)
        if stream is not None:
            stream.write(blob)
        return blob

    def get_runtime_model(self) -> Model:
        """A copy of the compiled model with OpenVINO's execution info in each node's rt_info
        (``ov::exec_model_info``): layerType, execOrder, primitiveType, originalLayersNames,
        outputPrecisions, outputLayouts, runtimePrecision and execTimeMcs.

        execTimeMcs is "not_executed" until a request completed a run with PERF_COUNT on; then it
        is the node's time in the last completed run of any request (microseconds), from that
        request's ``get_profiling_info()`` counters named after the node (summed when several
        are; "not_executed" for a node with none, or whose counters are NOT_RUN / OPTIMIZED_OUT).
        """
        runtime = self._model.clone()
        times = self._last_run_us if self.profiling_enabled else {}
        for order, node in enumerate(runtime.get_ordered_ops()):
            types = [str(node.get_output_element_type(i)) for i in range(node.get_output_size())]
            time_us = times.get(node.friendly_name)
            node.rt_info.update({
                "layerType": node.type_name, "execOrder": str(order), "primitiveType": self._impl_type(node),
                "execTimeMcs": "not_executed" if time_us is None else f"{time_us:.3f}",
                "originalLayersNames": node.friendly_name,
                "outputPrecisions": ",".join(types), "runtimePrecision": types[0] if types else "",
                "outputLayouts": ",".join(_plain_layout(node, i) for i in range(node.get_output_size())),
            })
        return runtime

    def record_run(self, request: SyncInferRequest) -> None:
        """Called by a request after each completed run: with PERF_COUNT on (and the base
        :meth:`get_runtime_model`), keep its executed counters by node name for execTimeMcs."""
        if not self._records_runs or not self.profiling_enabled:
            return
        try:
            infos = list(request.get_profiling_info())
        except OVConformError:
            return
        times: dict[str, float] = {}
        for info in infos:
            if info.status == ProfilingStatus.EXECUTED:
                times[info.node_name] = times.get(info.node_name, 0.0) + info.real_time.total_seconds() * 1e6
        self._last_run_us = times

    def _impl_type(self, node: Any) -> str:
        return "ref"

    # -- properties -----------------------------------------------------------------------------
    def set_property(self, properties: dict[str, Any]) -> None:
        self._config.set(properties)

    def get_property(self, name: str) -> Any:
        if name == P.SUPPORTED_PROPERTIES:
            return self._config.supported()
        if name in (P.MODEL_NAME, P.NETWORK_NAME):
            return self.model_name
        if name == P.EXECUTION_DEVICES:
            return [self._plugin.execution_device(_get(self._config, P.DEVICE_ID, ""))]
        if name == P.LOADED_FROM_CACHE:
            return self._loaded_from_cache
        if name == P.OPTIMAL_NUMBER_OF_INFER_REQUESTS:
            return self._streams
        if name in self._ro_property_names():
            return self._get_ro_property(name)
        return self._config.get(name)

    def __repr__(self) -> str:
        return f"<CompiledModel {self.model_name!r} on {self.device_name!r}>"


def _plain_layout(node: Any, index: int) -> str:
    """The plain (row-major) layout of an output as OpenVINO's exec graph writes it: one letter
    per dimension ("abcd" for rank 4), "?" for a dynamic rank."""
    shape = node.get_output_partial_shape(index)
    if not shape.has_rank() or len(list(shape)) > 26:
        return "?"
    return "abcdefghijklmnopqrstuvwxyz"[:len(list(shape))]


def _get(store: P.PropertyStore, name: str, default: Any) -> Any:
    return store.get_or(name, default)
