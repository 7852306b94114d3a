"""The plugin over one OpenVINO device (``openvino.Core`` + a device string).

Each plugin instance owns its own ``openvino.Core``, so properties set on one ovconform Core
never leak into another. Properties are OpenVINO's: names pass through unchanged, ovconform
values go to OpenVINO as strings (enums, element types) and come back as ovconform's canonical
values; OpenVINO validates them, and its refusals become :class:`~ovconform.errors.PropertyError`.
"""

from __future__ import annotations

import io
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import openvino as ov

from ovconform import properties as P
from ovconform.adapters.openvino._compiled import OVCompiledModel, unpack_blob
from ovconform.adapters.openvino._convert import from_ov_value, to_ov_model, to_ov_props, translate
from ovconform.contract import encryption
from ovconform.contract.plugin import Plugin, Version
from ovconform.errors import (
    CompileError,
    DeviceInitError,
    ImportModelError,
    OVConformError,
    PropertyError,
    ValidationError,
)
from ovconform.ir import Model

__all__ = ["OVPlugin", "Target"]

#: Properties OpenVINO lists but its Python API cannot read back (left out of SUPPORTED_PROPERTIES).
UNREADABLE = frozenset({"COMPATIBILITY_CHECK"})
_PROPERTY_WORDS = ("property", "wrong value", "unsupported value", "unsupported precision", "device id")


@dataclass(frozen=True)
class Target:
    """What one ``openvino:`` device spec means.

    :param ov_device: the OpenVINO device string compile_model gets ("CPU", "HETERO:CPU", "GPU.1").
    :param name: the ovconform device name ("openvino-CPU").
    :param libraries: plugins to register in each ``openvino.Core`` first ({device: library path}).
    :param defaults: properties set on the device when the plugin is created (when supported).
    """

    ov_device: str
    name: str
    libraries: Mapping[str, str] = field(default_factory=dict)
    defaults: Mapping[str, Any] = field(default_factory=dict)

    @property
    def key(self) -> str:
        """A hashable identity (the process-wide Core is shared per key)."""
        return repr((self.ov_device, sorted(self.libraries.items()), sorted(self.defaults.items(), key=str)))

    @property
    def base(self) -> str:
        """The device OpenVINO answers properties for ("HETERO" for "HETERO:CPU")."""
        return self.ov_device.split(":", 1)[0].split(".", 1)[0]

    def sub_devices(self, core: Any) -> list[str]:
        """The devices a meta device (HETERO, AUTO, MULTI) runs on: its list, or every
        available device when it has none."""
        head, colon, tail = self.ov_device.partition(":")
        if colon:
            return [d.strip().split("(")[0] for d in tail.split(",") if d.strip()]
        return list(core.available_devices) if self.base in ("AUTO", "MULTI", "HETERO") else []

    @property
    def device_id(self) -> str | None:
        head = self.ov_device.split(":", 1)[0]
        return head.split(".", 1)[1] if "." in head else None


class _ConfigView:
    """What the Core needs of ``plugin.config``: parse per-id properties (OpenVINO validates
    values when they are used; here only DEVICE_ID is checked against AVAILABLE_DEVICES)."""

    def __init__(self, plugin: OVPlugin) -> None:
        self._plugin = plugin

    def parse(self, props: Mapping[str, Any]) -> dict[str, Any]:
        out = dict(props)
        if P.DEVICE_ID in out:
            ids = [str(i) for i in self._plugin.get_property(P.AVAILABLE_DEVICES)]
            if str(out[P.DEVICE_ID]) not in ids:
                raise PropertyError(f"Wrong value {out[P.DEVICE_ID]!r} for property 'DEVICE_ID' of device "
                                    f"{self._plugin.device_name!r}. Supported values: {ids}.")
        return out

    def get_or(self, name: str, default: Any) -> Any:
        try:
            return self._plugin.get_property(name)
        except OVConformError:
            return default


class OVPlugin(Plugin):
    """An OpenVINO device as an ovconform plugin."""

    compiled_model_class = OVCompiledModel

    def __init__(self, target: Target) -> None:
        self._target = target
        self._private: Any = None
        self._private_lock = threading.Lock()
        super().__init__(target.name)

    @property
    def meta(self) -> bool:
        """Whether the OpenVINO device is a meta device (HETERO, AUTO, MULTI, BATCH), which runs
        models on other devices: the suites judge a few behaviours of those as OpenVINO does."""
        return self._target.base in ("HETERO", "AUTO", "MULTI", "BATCH")

    # -- set-up ---------------------------------------------------------------------------------
    def _declare_properties(self) -> list[P.Declared]:
        return []  # OpenVINO owns every value

    def _ro_property_names(self) -> list[str]:
        return []

    def _init_backend(self) -> None:
        _shared_core(self._target)  # fails early (DeviceInitError) when the device is not usable

    # -- the openvino.Core: shared until this plugin's properties change ---------------------------
    @property
    def _ov_core(self) -> Any:
        """The process-wide Core of this target (creating a Core and loading a plugin costs
        ~0.1 s), or this plugin's own Core once :meth:`set_property` changed something."""
        return self._private if self._private is not None else _shared_core(self._target)

    def _own_core(self) -> Any:
        with self._private_lock:
            if self._private is None:
                self._private = _new_core(self._target, self.device_name)
            return self._private

    # -- identity -------------------------------------------------------------------------------
    @property
    def ov_core(self) -> Any:
        return self._ov_core

    @property
    def ov_device(self) -> str:
        return self._target.ov_device

    @property
    def architecture(self) -> str:
        try:
            return str(self.get_property(P.DEVICE_ARCHITECTURE))
        except OVConformError:
            return self._target.base

    @property
    def config(self) -> Any:  # a _ConfigView: the part of Plugin.config's PropertyStore the Core uses
        return _ConfigView(self)

    def get_version(self) -> Version:
        versions = self._ov_core.get_versions(self._target.base)
        v = versions.get(self._target.base) or next(iter(versions.values()))
        return Version(str(v.build_number), str(v.description), int(v.major), int(v.minor), int(v.patch))

    @property
    def supports_export_import(self) -> bool:
        try:
            return P.Capability.EXPORT_IMPORT in [str(c) for c in self.get_property(P.OPTIMIZATION_CAPABILITIES)]
        except OVConformError:
            return False

    def execution_device(self, device_id: str) -> str:
        return f"{self.device_name}.{device_id}" if device_id else self.device_name

    def map_execution_device(self, ov_name: str) -> str:
        """OpenVINO's "CPU" / "GPU.1" as this device's name ("openvino-CPU", "openvino-GPU.1")."""
        _, dot, dev_id = ov_name.partition(".")
        return self.execution_device(dev_id if dot else "")

    # -- properties -----------------------------------------------------------------------------
    def _ov_target(self, props: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
        """The OpenVINO device string for a call and the properties without DEVICE_ID."""
        rest = dict(props)
        dev_id = rest.pop(P.DEVICE_ID, None)
        if dev_id in (None, "") or dev_id == self._target.device_id:
            return self._target.ov_device, rest
        head, colon, tail = self._target.ov_device.partition(":")
        return f"{head.split('.', 1)[0]}.{dev_id}{colon}{tail}", rest

    def set_property(self, properties: Mapping[str, Any]) -> None:
        if not isinstance(properties, Mapping):
            raise PropertyError(f"properties for device {self.device_name!r} must be a mapping, "
                                f"not {type(properties).__name__}.")
        try:
            self._own_core().set_property(self._target.base, to_ov_props(properties))
        except Exception as e:  # noqa: BLE001
            raise translate(e, f"device {self.device_name!r}: set_property({dict(properties)!r})",
                            PropertyError) from e

    def get_property(self, name: str, arguments: Mapping[str, Any] | None = None) -> Any:
        if not isinstance(name, str):
            raise PropertyError(f"a property name must be a string, not {type(name).__name__}.")
        device = self._target.base
        args = dict(arguments or {})
        if args.get(P.DEVICE_ID) not in (None, ""):
            device = f"{device}.{args.pop(P.DEVICE_ID)}"
        if name == P.SUPPORTED_PROPERTIES:
            raw = self._raw(device, name, args)
            return {str(k): ("RO" if str(v) == "RO" else "RW") for k, v in raw.items() if k not in UNREADABLE}
        value = self._raw(device, name, args)
        if name == P.EXECUTION_DEVICES:
            return [self.map_execution_device(str(d)) for d in value]
        return from_ov_value(name, value)

    def _raw(self, device: str, name: str, args: dict[str, Any]) -> Any:
        try:
            if args:
                return self._ov_core.get_property(device, name, to_ov_props(args))
            return self._ov_core.get_property(device, name)
        except Exception as e:  # noqa: BLE001
            raise translate(e, f"device {self.device_name!r}: get_property({name!r})", PropertyError) from e

    # -- the contract ---------------------------------------------------------------------------
    def _read(self, model: Any, what: str) -> Any:
        if not isinstance(model, Model):
            raise ValidationError(f"{what} needs an ovconform Model, not {type(model).__name__}.")
        try:
            return to_ov_model(self._ov_core, model)
        except OVConformError:
            raise
        except Exception as e:  # noqa: BLE001
            raise translate(e, f"device {self.device_name!r}: OpenVINO could not read model "
                               f"{model.friendly_name!r} (IR v11)", CompileError) from e

    def compile_model(self, model: Model, properties: Mapping[str, Any] | None = None,
                      context: Any = None) -> OVCompiledModel:
        ov_model = self._read(model, "compile_model")
        given = dict(properties or {})
        callbacks = encryption.pop_callbacks(given)
        device, props = self._ov_target(given)
        try:
            compiled = self._ov_core.compile_model(ov_model, device, _with_callbacks(to_ov_props(props), callbacks))
        except Exception as e:  # noqa: BLE001
            raise translate(e, f"device {self.device_name!r} failed to compile model {model.friendly_name!r}",
                            _compile_error_kind(e)) from e
        out = OVCompiledModel(model.clone(), self, compiled)
        out._encryption = callbacks  # the adapter's envelope (it holds the model's XML) is encrypted on export
        return out

    def query_model(self, model: Model, properties: Mapping[str, Any] | None = None) -> dict[str, str]:
        ov_model = self._read(model, "query_model")
        device, props = self._ov_target(properties or {})
        try:
            answer = self._ov_core.query_model(ov_model, device, to_ov_props(props))
        except Exception as e:  # noqa: BLE001
            raise translate(e, f"device {self.device_name!r}: query_model({model.friendly_name!r})",
                            _compile_error_kind(e)) from e
        # OpenVINO may add nodes while reading the IR (e.g. a Constant for an optional input
        # left out); they are not ops of the caller's model, so they are not part of the answer.
        ours = {n.friendly_name for n in model.get_ordered_ops()}
        return {str(k): self.map_execution_device(str(v)) for k, v in sorted(answer.items()) if str(k) in ours}

    def import_model(self, stream: Any, properties: Mapping[str, Any] | None = None,
                     context: Any = None) -> OVCompiledModel:
        import ovconform
        from ovconform.contract.plugin import _read_stream

        blob = _read_stream(stream)
        props = dict(properties or {})
        loaded = bool(P.parse_value(P.LOADED_FROM_CACHE, props.pop(P.LOADED_FROM_CACHE, False)))
        callbacks = encryption.pop_callbacks(props)
        if not blob:
            raise ImportModelError(f"device {self.device_name!r} cannot import an empty stream (no device header).")
        header, (xml, weights, ov_blob) = unpack_blob(encryption.decrypt_blob(blob, callbacks, self.device_name))
        if header.get("architecture") != self.architecture:
            raise ImportModelError(f"device {self.device_name!r} cannot import the blob: it was exported for "
                                   f"architecture {header.get('architecture')!r}; this device is "
                                   f"{self.architecture!r}.")
        device, props = self._ov_target(props)
        try:
            model = ovconform.read_model(xml, weights)
            compiled = self._ov_core.import_model(io.BytesIO(ov_blob), device,
                                                  _with_callbacks(to_ov_props(props), callbacks))
        except OVConformError as e:
            raise ImportModelError(f"device {self.device_name!r} could not import the blob: {e}") from e
        except Exception as e:  # noqa: BLE001
            raise translate(e, f"device {self.device_name!r}: import_model", _import_error_kind(e)) from e
        out = OVCompiledModel(model, self, compiled, loaded_from_cache=loaded)
        out._encryption = callbacks
        return out

    def __repr__(self) -> str:
        return f"<OVPlugin {self.device_name!r} -> OpenVINO {self._target.ov_device!r}>"


def _with_callbacks(ov_props: dict[str, Any], callbacks: P.EncryptionCallbacks | None) -> dict[str, Any]:
    """OpenVINO's Python form of CACHE_ENCRYPTION_CALLBACKS: ``[encrypt, decrypt]``, bytes -> bytes."""
    if callbacks is not None:
        ov_props[P.CACHE_ENCRYPTION_CALLBACKS] = [callbacks.encrypt, callbacks.decrypt]
    return ov_props


_SHARED: dict[str, Any] = {}
_SHARED_LOCK = threading.Lock()


def _shared_core(target: Target) -> Any:
    with _SHARED_LOCK:
        if target.key not in _SHARED:
            _SHARED[target.key] = _new_core(target, target.name)
        return _SHARED[target.key]


def _new_core(target: Target, name: str) -> Any:
    """An ``openvino.Core`` with the target's plugin libraries registered and its defaults set."""
    core = ov.Core()
    for device, path in target.libraries.items():
        try:
            core.register_plugin(path, device)
        except Exception as e:  # noqa: BLE001
            raise DeviceInitError(f"device {name!r}: registering OpenVINO plugin {device!r} from "
                                  f"{path!r} failed: {translate(e, 'register_plugin', DeviceInitError)}") from e
    try:
        core.get_property(target.base, P.SUPPORTED_PROPERTIES)
    except Exception as e:  # noqa: BLE001
        raise DeviceInitError(f"device {name!r}: OpenVINO device {target.base!r} is not usable: "
                              f"{translate(e, 'get_property', DeviceInitError)}; OpenVINO sees "
                              f"{core.available_devices}.") from e
    for device in dict.fromkeys([target.base, *target.sub_devices(core)]):
        _apply_defaults(core, device, target.defaults)
    return core


def _apply_defaults(core: Any, device: str, defaults: Mapping[str, Any]) -> None:
    """Set the adapter's default properties on ``device`` where it supports them."""
    try:
        supported = core.get_property(device, P.SUPPORTED_PROPERTIES)
    except Exception:  # noqa: BLE001 - a device that cannot answer gets no defaults
        return
    chosen = {k: v for k, v in defaults.items() if supported.get(k) == "RW"}
    if chosen:
        try:
            core.set_property(device, to_ov_props(chosen))
        except Exception as e:  # noqa: BLE001
            raise DeviceInitError(f"OpenVINO device {device!r} refused the adapter defaults {chosen}: "
                                  f"{translate(e, 'set_property', DeviceInitError)}") from e


def _is_property_error(error: BaseException) -> bool:
    from ovconform.adapters.openvino._convert import ov_message

    text = ov_message(error).lower()
    return any(w in text for w in _PROPERTY_WORDS)


def _compile_error_kind(error: BaseException) -> type[OVConformError]:
    return PropertyError if _is_property_error(error) else CompileError


def _import_error_kind(error: BaseException) -> type[OVConformError]:
    return PropertyError if _is_property_error(error) else ImportModelError
