"""The plugin base (``ov::IPlugin``).

A device subclasses :class:`Plugin`, sets ``device_name`` and ``compiled_model_class`` and
overrides a few ``_``-hooks: :meth:`Plugin._init_backend` (raise if the backend is unusable),
:meth:`Plugin._is_node_supported`, :meth:`Plugin._import_model` and, to change the property
set, :meth:`Plugin._declare_properties`. The base validates arguments and properties, clones
the model before compiling, wraps device failures in the documented errors and manages
executors.
"""

from __future__ import annotations

import itertools
import os
import weakref
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from ovconform import properties as P
from ovconform.contract import encryption, names
from ovconform.contract.compiled_model import CompiledModel
from ovconform.contract.executors import ExecutorManager, StreamsExecutor, StreamsExecutorConfig, get_executor_manager
from ovconform.contract.tensor import RemoteContext
from ovconform.errors import (
    CompileError,
    DeviceInitError,
    ImportModelError,
    NotImplementedByDeviceError,
    OVConformError,
    PropertyError,
    ValidationError,
)
from ovconform.ir import Model, Node, Type
from ovconform.ir._subgraph import bodies_supported

__all__ = ["Plugin", "Version"]

_SEQ = itertools.count(1)
_HOUSEKEEPING = ("Parameter", "Constant", "Result")


@dataclass(frozen=True)
class Version:
    """Build information of a plugin (``ov::Version``)."""

    build_number: str
    description: str
    major: int = 0
    minor: int = 0
    patch: int = 0

    def __str__(self) -> str:
        return f"{self.build_number} {self.description}"


def _as_model(model: Any, what: str) -> Model:
    if not isinstance(model, Model):
        raise ValidationError(f"{what} needs an ovconform Model, not {type(model).__name__}.")
    return model


def _read_stream(stream: Any) -> bytes:
    if isinstance(stream, (bytes, bytearray, memoryview)):
        return bytes(stream)
    if hasattr(stream, "read"):
        data = stream.read()
        if isinstance(data, (bytes, bytearray)):
            return bytes(data)
    raise ValidationError(f"import_model needs bytes or a binary stream, not {type(stream).__name__}.")


class Plugin:
    """Base of every device plugin.

    :param device_name: overrides the class attribute ``device_name`` (e.g. to register the
        same plugin class twice under two names).
    """

    #: The device name ("FAKE"); an instance may be registered under another name.
    device_name: str = ""
    #: FULL_DEVICE_NAME (defaults to the device name).
    full_device_name: ClassVar[str] = ""
    #: DEVICE_ARCHITECTURE (defaults to the device name); part of the cache key.
    device_architecture: ClassVar[str] = ""
    device_type: ClassVar[P.DeviceType] = P.DeviceType.INTEGRATED
    #: AVAILABLE_DEVICES: ids of the devices of this type; ("",) for a single unnamed device.
    device_ids: ClassVar[tuple[str, ...]] = ("",)
    #: OPTIMIZATION_CAPABILITIES; add "EXPORT_IMPORT" when :meth:`_import_model` works.
    capabilities: ClassVar[tuple[str, ...]] = (P.Capability.FP32,)
    #: INFERENCE_PRECISION_HINT values the device accepts (the first is the default).
    inference_precisions: ClassVar[tuple[Type, ...]] = (Type.f32,)
    #: Op types the device supports (None: all); used by the default :meth:`_is_node_supported`.
    supported_ops: ClassVar[frozenset[str] | None] = None
    range_for_async_infer_requests: ClassVar[tuple[int, int, int]] = (1, 1, 1)
    #: Whether the device compiles models with dynamic input shapes. A static-only device sets
    #: False: compile_model then refuses a model with a dynamic input (NotImplementedByDeviceError
    #: naming it, OpenVINO's OVNotSupportRequestDynamicTests) and the dynamic-shape suites skip.
    supports_dynamic_shapes: ClassVar[bool] = True
    version: ClassVar[Version | None] = None
    compiled_model_class: ClassVar[type[CompiledModel]] = CompiledModel

    def __init__(self, device_name: str | None = None) -> None:
        name = device_name or type(self).device_name
        if not names.device_name_ok(name):
            raise ValidationError(f"device name {name!r} is not allowed: a device name is {names.RULE}.")
        self._name = name
        self.device_name = name
        self._core_ref: weakref.ReferenceType[Any] | None = None
        self._config = P.PropertyStore(f"device {name!r}", self._declare_properties(), self._ro_property_names())
        self._executors: ExecutorManager = get_executor_manager()
        prefix = f"{name}#{next(_SEQ)}"
        self._executor_names = {"streams": f"{prefix}.streams", "wait": f"{prefix}.wait",
                                "exclusive": f"{prefix}.exclusive"}
        weakref.finalize(self, _clear_executors, self._executors, tuple(self._executor_names.values()))
        try:
            self._init_backend()
        except DeviceInitError:
            raise
        except Exception as e:
            raise DeviceInitError(f"device {name!r}: the backend could not be initialised: "
                                  f"{type(e).__name__}: {e}") from e

    # -- device hooks ---------------------------------------------------------------------------
    def _init_backend(self) -> None:
        """Check the backend is usable (drivers, libraries); raise if it is not."""

    def _declare_properties(self) -> list[P.Declared]:
        """The RW properties and their defaults (extend with ``super()._declare_properties()``)."""
        ids, name = tuple(self.device_ids), self._name

        def known_id(value: str) -> str | None:  # closes over plain values: no cycle to self
            return None if value in ids else f"device {name!r} has no such id. Supported values: {list(ids)}."

        return [
            P.Declared(P.DEVICE_ID, ids[0], check=known_id),
            P.Declared(P.PERF_COUNT, False),
            P.Declared(P.PERFORMANCE_HINT, P.PerformanceMode.LATENCY),
            P.Declared(P.PERFORMANCE_HINT_NUM_REQUESTS, 0),
            P.Declared(P.INFERENCE_PRECISION_HINT, self.inference_precisions[0],
                       choices=tuple(self.inference_precisions)),
            P.Declared(P.EXECUTION_MODE_HINT, P.ExecutionMode.ACCURACY),
            P.Declared(P.NUM_STREAMS, 1),
            P.Declared(P.INFERENCE_NUM_THREADS, 0),
            P.Declared(P.LOG_LEVEL, P.LogLevel.NO),
            P.Declared(P.MODEL_PRIORITY, P.Priority.MEDIUM),
            P.Declared(P.EXCLUSIVE_ASYNC_REQUESTS, False),
        ]

    def _ro_property_names(self) -> list[str]:
        return [P.SUPPORTED_PROPERTIES, P.AVAILABLE_DEVICES, P.FULL_DEVICE_NAME, P.DEVICE_ARCHITECTURE,
                P.DEVICE_TYPE, P.OPTIMIZATION_CAPABILITIES, P.RANGE_FOR_ASYNC_INFER_REQUESTS,
                P.RANGE_FOR_STREAMS, P.EXECUTION_DEVICES, P.IMPORT_EXPORT_SUPPORT, P.CACHING_PROPERTIES]

    def _get_ro_property(self, name: str, arguments: Mapping[str, Any]) -> Any:
        """Value of a read-only property (``arguments`` may carry DEVICE_ID)."""
        device_id = arguments.get(P.DEVICE_ID, self._config.get(P.DEVICE_ID))
        values: dict[str, Any] = {
            P.SUPPORTED_PROPERTIES: self._config.supported,
            P.AVAILABLE_DEVICES: lambda: list(self.device_ids),
            P.FULL_DEVICE_NAME: lambda: self.full_device_name or self.device_name,
            P.DEVICE_ARCHITECTURE: lambda: self.device_architecture or self.device_name,
            P.DEVICE_TYPE: lambda: self.device_type,
            P.OPTIMIZATION_CAPABILITIES: lambda: [str(c) for c in self.capabilities],
            P.RANGE_FOR_ASYNC_INFER_REQUESTS: lambda: tuple(self.range_for_async_infer_requests),
            P.RANGE_FOR_STREAMS: lambda: (1, os.cpu_count() or 1),
            P.EXECUTION_DEVICES: lambda: [self.execution_device(device_id)],
            P.IMPORT_EXPORT_SUPPORT: lambda: self.supports_export_import,
            P.CACHING_PROPERTIES: lambda: [P.DEVICE_ARCHITECTURE],
        }
        if name not in values:
            raise PropertyError(f"Unsupported property {name!r} by device {self.device_name!r}.")
        return values[name]()

    def _transform_model(self, model: Model, config: P.PropertyStore) -> None:
        """Device transformations, applied in place to the clone before compiling."""

    def _compile_model(self, model: Model, config: P.PropertyStore, context: RemoteContext | None) -> CompiledModel:
        """Make the compiled model (``model`` is already a clone)."""
        if not config.get_or(P.DISABLE_TRANSFORMATIONS, False):
            self._transform_model(model, config)
        return self.compiled_model_class(model, self, config, context=context)

    def _is_node_supported(self, node: Node, config: P.PropertyStore) -> bool:
        return self.supported_ops is None or node.type_name in self.supported_ops

    def _import_model(self, blob: bytes, config: P.PropertyStore, context: RemoteContext | None) -> CompiledModel:
        """Rebuild a compiled model from :meth:`CompiledModel.export_model`'s blob."""
        raise NotImplementedByDeviceError(f"device {self.device_name!r} cannot import compiled models.")

    # -- identity -------------------------------------------------------------------------------
    def get_device_name(self) -> str:
        return self._name

    def get_version(self) -> Version:
        version = type(self).version
        if version is not None:
            return version
        from ovconform import __version__

        return Version(str(__version__), f"ovconform plugin {type(self).__name__} ({self._name})")

    @property
    def supports_export_import(self) -> bool:
        return P.Capability.EXPORT_IMPORT in [str(c) for c in self.capabilities]

    def execution_device(self, device_id: str) -> str:
        """``"DEVICE.id"`` (or ``"DEVICE"`` for a device without ids)."""
        return f"{self._name}.{device_id}" if device_id else self._name

    def set_core(self, core: Any) -> None:
        """Called by the Core that registers this plugin (kept as a weak reference)."""
        self._core_ref = weakref.ref(core) if core is not None else None

    def get_core(self) -> Any:
        return self._core_ref() if self._core_ref is not None else None

    # -- properties -----------------------------------------------------------------------------
    def set_property(self, properties: Mapping[str, Any]) -> None:
        self._config.set(properties)

    def get_property(self, name: str, arguments: Mapping[str, Any] | None = None) -> Any:
        args = self._config.parse(dict(arguments or {})) if arguments else {}
        if name in self._config.ro_names():
            return self._get_ro_property(name, args)
        return self._config.get(name)

    @property
    def config(self) -> P.PropertyStore:
        return self._config

    # -- the contract ---------------------------------------------------------------------------
    def compile_model(self, model: Model, properties: Mapping[str, Any] | None = None,
                      context: RemoteContext | None = None) -> CompiledModel:
        """Compile a clone of ``model`` with the plugin's properties under ``properties``."""
        source = _as_model(model, "compile_model")
        self._check_context(context, "compile_model")
        props = dict(properties or {})
        callbacks = encryption.pop_callbacks(props)
        config = self._config.merged(props)
        self._check_static(source)
        try:
            compiled = self._compile_model(source.clone(), config, context)
        except OVConformError:
            raise
        except Exception as e:
            raise CompileError(f"device {self._name!r} failed to compile model {source.friendly_name!r}: "
                               f"{type(e).__name__}: {e}") from e
        compiled._encryption = callbacks
        return compiled

    def _check_static(self, model: Model) -> None:
        """A static-only device (``supports_dynamic_shapes = False``) refuses dynamic inputs."""
        if type(self).supports_dynamic_shapes:
            return
        dynamic = [f"{p.friendly_name} {p.get_output_partial_shape(0)}" for p in model.get_parameters()
                   if p.get_output_partial_shape(0).is_dynamic]
        if dynamic:
            raise NotImplementedByDeviceError(
                f"device {self._name!r} supports static shapes only, and model {model.friendly_name!r} has "
                f"dynamic inputs: {', '.join(dynamic)}; reshape the model to static shapes first.")

    def query_model(self, model: Model, properties: Mapping[str, Any] | None = None) -> dict[str, str]:
        """``{original op friendly name: "DEVICE.id"}`` for every op the device supports."""
        source = _as_model(model, "query_model")
        config = self._config.merged(properties)
        target = self.execution_device(config.get(P.DEVICE_ID))
        return dict.fromkeys(sorted(self._supported_names(source, config)), target)

    def _supported_names(self, model: Model, config: P.PropertyStore) -> set[str]:
        ops = model.get_ordered_ops()
        compute = {n.friendly_name for n in ops
                   if n.type_name not in _HOUSEKEEPING and self._is_node_supported(n, config)
                   and bodies_supported(n, lambda b: self._is_node_supported(b, config))}
        out = set(compute)
        for node in ops:
            if node.type_name not in _HOUSEKEEPING or not self._is_node_supported(node, config):
                continue
            if node.type_name == "Result":
                near = [node.input_value(0).node]
            else:
                near = [inp.get_node() for o in node.outputs() for inp in o.get_target_inputs()]
            if all(n.type_name in _HOUSEKEEPING for n in near) or any(n.friendly_name in compute for n in near):
                out.add(node.friendly_name)
        return out

    def import_model(self, stream: Any, properties: Mapping[str, Any] | None = None,
                     context: RemoteContext | None = None) -> CompiledModel:
        """Rebuild a compiled model from an exported blob (bytes or a binary stream)."""
        blob = _read_stream(stream)
        self._check_context(context, "import_model")
        props = dict(properties or {})
        loaded = P.parse_value(P.LOADED_FROM_CACHE, props.pop(P.LOADED_FROM_CACHE, False))
        callbacks = encryption.pop_callbacks(props)
        config = self._config.merged(props)
        if not blob:
            raise ImportModelError(f"device {self._name!r} cannot import an empty stream "
                                   "(no device header).")
        blob = encryption.decrypt_blob(blob, callbacks, self._name)
        try:
            compiled = self._import_model(blob, config, context)
        except (ImportModelError, NotImplementedByDeviceError):
            raise
        except Exception as e:
            raise ImportModelError(f"device {self._name!r} could not import the blob: "
                                   f"{type(e).__name__}: {e}") from e
        compiled._loaded_from_cache = bool(loaded)
        compiled._encryption = callbacks
        return compiled

    def _check_context(self, context: Any, what: str) -> None:
        """A context given to compile_model / import_model must be a RemoteContext of this device."""
        if context is None:
            return
        if not isinstance(context, RemoteContext):
            raise ValidationError(f"{what} on device {self._name!r}: the context must be a RemoteContext, "
                                  f"not {type(context).__name__}.")
        owner = str(context.get_device_name())
        if owner.split(".")[0] != self._name:
            raise ValidationError(f"{what} on device {self._name!r}: the context belongs to device {owner!r}; "
                                  f"give a context of {self._name!r} (get_default_context or create_context).")

    def create_context(self, params: Mapping[str, Any] | None = None) -> RemoteContext:
        raise NotImplementedByDeviceError(f"device {self._name!r} does not support remote contexts.")

    def get_default_context(self, params: Mapping[str, Any] | None = None) -> RemoteContext:
        raise NotImplementedByDeviceError(f"device {self._name!r} does not support remote contexts.")

    # -- executors ------------------------------------------------------------------------------
    def acquire_task_executor(self, streams: int, config: P.PropertyStore) -> StreamsExecutor:
        """A leased executor for a compiled model (released when the compiled model goes)."""
        if config.get_or(P.EXCLUSIVE_ASYNC_REQUESTS, False):
            ex = self._executors.get_executor(self._executor_names["exclusive"])
            ex.acquire()
            return ex
        threads = config.get_or(P.INFERENCE_NUM_THREADS, 0)
        per_stream = max(1, threads // streams) if threads else 1
        return self._executors.get_idle_cpu_streams_executor(
            StreamsExecutorConfig(self._executor_names["streams"], streams, per_stream))

    @property
    def wait_executor(self) -> StreamsExecutor:
        """The plugin's shared executor for waiting on device completion."""
        return self._executors.get_executor(self._executor_names["wait"])

    @property
    def executor_names(self) -> dict[str, str]:
        return dict(self._executor_names)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self._name!r}>"


def _clear_executors(manager: ExecutorManager, names: tuple[str, ...]) -> None:
    for name in names:  # runs as a finalizer: enqueue only, never take a lock here
        manager.clear_deferred(name)

