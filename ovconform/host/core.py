"""``ovconform.Core`` (``ov::Core``): the host side of the plugin contract.

The Core keeps a registry of plugins by device name (instances, or classes/factories created
on first use), addresses devices as ``"DEVICE"`` or ``"DEVICE.id"``, merges properties
(plugin values, then per-id Core values, then per-call values), and caches compiled models
in ``CACHE_DIR`` for devices with the EXPORT_IMPORT capability. It is safe to share between
threads.

HETERO: ``"HETERO:A,B"`` compiles (and queries) a model split over devices A and B
(:mod:`ovconform.hetero.plugin`); the Core registers its HETERO device on first use of ``"HETERO"``
or ``"HETERO:..."``. As in OpenVINO, ``get_property`` / ``set_property`` take ``"HETERO"`` only
(its devices are its MULTI_DEVICE_PRIORITIES) and ``import_model`` runs a HETERO blob on the
blob's own devices.

Discovery: a Core runs a discovery callable once, on its first device lookup, to register more
plugins. The default collects the devices of the ``ovconform`` entry points (pluggy hook
``ovconform_register_devices``); :func:`set_plugin_discovery` replaces it, and
``Core(discover=False)`` switches it off.
"""

from __future__ import annotations

import functools
import os
import threading
import warnings
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from ovconform import properties as P
from ovconform.contract import names
from ovconform.contract.compiled_model import CompiledModel
from ovconform.contract.plugin import Version
from ovconform.contract.tensor import RemoteContext
from ovconform.errors import (
    DeviceInitError,
    ImportModelError,
    NotFoundError,
    OVConformError,
    PropertyError,
    ReadModelError,
    ValidationError,
)
from ovconform.hetero import plugin as _hetero
from ovconform.host import cache as _cache
from ovconform.host.loader import load_object
from ovconform.ir import Model

__all__ = ["Core", "get_plugin_discovery", "set_plugin_discovery"]

PluginLike = Any  # a Plugin instance, a Plugin class, a zero-argument factory, or "module:attr"
Discovery = Callable[[], Iterable[Any]]
_discovery: Discovery | None = None


def set_plugin_discovery(discovery: Discovery | None) -> None:
    """Install the callable every new Core runs once to find plugins. It returns plugins
    (anything :meth:`Core.register_plugin` takes) or ``(device_name, plugin)`` pairs."""
    global _discovery
    _discovery = discovery


def get_plugin_discovery() -> Discovery | None:
    return _discovery


def _entry_point_devices() -> list[tuple[str, Any]]:
    """The default discovery: devices registered through the ``ovconform`` entry points."""
    from ovconform.registry import discover_devices

    return [(e.name, e.factory) for e in discover_devices()]


class _Entry:
    """One registered device: a live plugin and/or the factory that makes it."""

    def __init__(self, name: str, factory: Callable[[], Any] | None, plugin: Any = None) -> None:
        self.name = name
        self.factory = factory
        self.plugin = plugin
        self.lock = threading.Lock()


def _load_object(spec: str) -> Any:
    try:
        return load_object(spec)
    except (ImportError, AttributeError) as e:
        raise NotFoundError(f"cannot load plugin {spec!r}: {type(e).__name__}: {e}") from e


def _check_device_name(name: Any) -> str:
    if not names.device_name_ok(name):
        raise ValidationError(f"device name {name!r} is not allowed: a device name is {names.RULE}.")
    return str(name)


def parse_device(device: Any) -> tuple[str, str | None]:
    """``"FAKE.1"`` -> ``("FAKE", "1")``; ``"FAKE"`` -> ``("FAKE", None)``."""
    if not isinstance(device, str) or not device.strip():
        raise ValidationError(f"a device name must be a non-empty string like 'DEVICE' or 'DEVICE.id', not {device!r}.")
    base, dot, dev_id = device.partition(".")
    if dot and not dev_id:
        raise ValidationError(f"device {device!r} has an empty id after '.'.")
    return base, (dev_id if dot else None)


class Core:
    """The host: a plugin registry plus compile, query, import, properties and caching.

    :param plugins: plugins to register now (a sequence, or a mapping ``{device_name: plugin}``).
    :param discover: run the installed discovery hook (see :func:`set_plugin_discovery`) on the
        first device lookup.
    """

    def __init__(self, plugins: Iterable[PluginLike] | Mapping[str, PluginLike] | None = None, *,
                 discover: bool = True) -> None:
        self._lock = threading.RLock()
        self._entries: dict[str, _Entry] = {}
        self._global: dict[str, Any] = {}
        self._core_props: dict[str, Any] = {P.CACHE_DIR: "", P.ENABLE_MMAP: True}
        self._device_core_props: dict[str, dict[str, Any]] = {}
        self._id_config: dict[str, dict[str, Any]] = {}
        self._cache_locks: dict[str, threading.Lock] = {}
        self._discovered = not discover
        items = plugins.items() if isinstance(plugins, Mapping) else ((None, p) for p in plugins or ())
        for name, plugin in items:
            self.register_plugin(plugin, name)

    # -- registry -------------------------------------------------------------------------------
    def register_plugin(self, plugin: PluginLike, device_name: str | None = None) -> str:
        """Register a plugin instance, class, zero-argument factory or ``"module:attr"`` under
        ``device_name`` (default: its ``device_name``); returns the name used."""
        if isinstance(plugin, str):
            plugin = _load_object(plugin)
        if isinstance(plugin, type) or (callable(plugin) and not hasattr(plugin, "compile_model")):
            name = device_name or getattr(plugin, "device_name", None)
            if not name:
                plugin = plugin()
                return self._add(_Entry(_check_device_name(device_name or plugin.device_name), None, plugin))
            factory = plugin if name == getattr(plugin, "device_name", None) else functools.partial(plugin, name)
            return self._add(_Entry(_check_device_name(name), factory))
        if not hasattr(plugin, "compile_model"):
            raise ValidationError(f"cannot register {plugin!r}: it is not a plugin, a plugin class or a factory.")
        name = _check_device_name(device_name or getattr(plugin, "device_name", None))
        return self._add(_Entry(name, None, plugin))

    def _add(self, entry: _Entry) -> str:
        self._check_free(entry.name)
        if entry.plugin is not None:
            self._attach(entry.plugin)
        with self._lock:
            self._check_free(entry.name)
            self._entries[entry.name] = entry
        return entry.name

    def _check_free(self, name: str) -> None:
        with self._lock:
            if name in self._entries:
                raise ValidationError(f"Device with {name!r} name is already registered in the Core.")

    def _attach(self, plugin: Any) -> None:
        if hasattr(plugin, "set_core"):
            plugin.set_core(self)
        with self._lock:
            pending = dict(self._global)
        if pending:
            plugin.set_property(pending)

    def unload_plugin(self, device_name: str) -> None:
        """Drop the plugin instance; a class or factory registration makes a new one on next use."""
        base, _ = parse_device(device_name)
        with self._lock:
            entry = self._entries.get(base)
            if entry is None:
                raise NotFoundError(f"Device with {base!r} name is not registered in the Core.")
            if entry.factory is None:
                del self._entries[base]
            else:
                entry.plugin = None

    def _discover(self) -> None:
        with self._lock:
            if self._discovered:
                return
            self._discovered = True
            discovery = _discovery if _discovery is not None else _entry_point_devices
        for item in discovery():
            name, plugin = item if isinstance(item, tuple) else (None, item)
            try:
                self.register_plugin(plugin, name)
            except ValidationError:
                continue  # already registered explicitly: the explicit registration wins

    def registered_devices(self) -> list[str]:
        self._discover()
        with self._lock:
            return sorted(self._entries)

    def get_plugin(self, device_name: str) -> Any:
        """The plugin for ``"DEVICE"`` or ``"DEVICE.id"``, created on first use."""
        base, _ = parse_device(device_name)
        if base == _hetero.HETERO:
            self._ensure_hetero()
        self._discover()
        with self._lock:
            entry = self._entries.get(base)
            known = sorted(self._entries)
        if entry is None:
            raise NotFoundError(f"Device with {base!r} name is not registered in the Core; "
                                f"registered devices: {known}.")
        with entry.lock:
            if entry.plugin is None:
                plugin = self._create(entry)
                self._attach(plugin)  # a bad Core-wide property fails every use, not just the first
                entry.plugin = plugin
            return entry.plugin

    @staticmethod
    def _create(entry: _Entry) -> Any:
        assert entry.factory is not None
        try:
            return entry.factory()
        except OVConformError:
            raise
        except Exception as e:
            raise DeviceInitError(f"device {entry.name!r} could not be created: {type(e).__name__}: {e}") from e

    @property
    def available_devices(self) -> list[str]:
        """``"DEVICE"`` or ``"DEVICE.id"`` for every device whose plugin can be created."""
        out: list[str] = []
        for name in self.registered_devices():
            try:
                ids = self.get_plugin(name).get_property(P.AVAILABLE_DEVICES)
            except OVConformError:
                continue
            ids = [str(i) for i in ids]
            out += [name] if ids in ([], [""]) else [f"{name}.{i}" for i in ids]
        return out

    def get_available_devices(self) -> list[str]:
        return self.available_devices

    def get_versions(self, device_name: str) -> dict[str, Version]:
        """``{device: Version}``; for ``"HETERO:A,B"`` HETERO's and each listed device's."""
        device_name, meta = _hetero.split_meta_device(device_name)
        base, _ = parse_device(device_name)
        if meta:
            self._ensure_hetero()
        versions = {base: self.get_plugin(base).get_version()}
        for device in _hetero.parse_priorities(meta.get(_hetero.DEVICE_PRIORITIES, "")):
            versions.update(self.get_versions(device))
        return versions

    def _ensure_hetero(self) -> None:
        """Register the host's HETERO device on first use of ``"HETERO:..."`` (unless a HETERO is
        registered already)."""
        self._discover()
        with self._lock:
            if _hetero.HETERO in self._entries:
                return
            self._entries[_hetero.HETERO] = _Entry(_hetero.HETERO, _hetero.HeteroPlugin)

    # -- properties -----------------------------------------------------------------------------
    def set_property(self, device_name: str | Mapping[str, Any], properties: Mapping[str, Any] | None = None) -> None:
        """``set_property(props)`` for the Core and every device, or ``set_property(device, props)``."""
        if isinstance(device_name, Mapping) and properties is None:
            return self._set_global(dict(device_name))
        if properties is None or not isinstance(properties, Mapping):
            raise ValidationError("set_property() takes (properties) or (device_name, properties).")
        _hetero.check_property_device(device_name, "set_property")
        base, dev_id = parse_device(device_name)
        props = dict(properties)
        core_part = {k: P.parse_value(k, props.pop(k)) for k in list(props) if k in P.CORE_PROPERTIES}
        plugin = self.get_plugin(base)
        if dev_id is None:
            plugin.set_property(props)
        else:
            parsed = plugin.config.parse({**props, P.DEVICE_ID: dev_id}) if hasattr(plugin, "config") else props
            parsed.pop(P.DEVICE_ID, None)
            with self._lock:
                self._id_config.setdefault(f"{base}.{dev_id}", {}).update(parsed)
        with self._lock:
            self._device_core_props.setdefault(base, {}).update(core_part)

    def _set_global(self, props: dict[str, Any]) -> None:
        core_part = {k: P.parse_value(k, props.pop(k)) for k in list(props) if k in P.CORE_PROPERTIES}
        with self._lock:
            self._core_props.update(core_part)
            self._global.update(props)
            live = [e.plugin for e in self._entries.values() if e.plugin is not None]
        for plugin in live:
            if props:
                plugin.set_property(props)

    def get_property(self, device_name: str, name: str | None = None) -> Any:
        """``get_property(device, name)``, or ``get_property(name)`` for a Core property."""
        if name is None:
            return self._core_property(device_name)
        _hetero.check_property_device(device_name, "get_property")
        base, dev_id = parse_device(device_name)
        if name in P.CORE_PROPERTIES:
            with self._lock:
                return self._device_core_props.get(base, {}).get(name, self._core_props[name])
        plugin = self.get_plugin(base)
        if dev_id is None:
            return plugin.get_property(name)
        if name == P.DEVICE_ID:
            plugin.get_property(P.FULL_DEVICE_NAME, {P.DEVICE_ID: dev_id})  # checks the id exists
            return dev_id
        with self._lock:
            stored = self._id_config.get(f"{base}.{dev_id}", {})
            if name in stored:
                return stored[name]
        return plugin.get_property(name, {P.DEVICE_ID: dev_id})

    def _core_property(self, name: str) -> Any:
        with self._lock:
            if name == P.SUPPORTED_PROPERTIES:
                return dict.fromkeys(self._core_props, "RW")
            if name in self._core_props:
                return self._core_props[name]
        raise PropertyError(f"Unsupported property {name!r} by the Core; Core properties: "
                            f"{sorted(self._core_props)}. Give a device name for device properties.")

    def _resolve(self, device_name: str | None,
                 config: Mapping[str, Any] | None) -> tuple[Any, dict[str, Any], dict[str, Any]]:
        """The plugin, the per-call plugin properties and the Core properties for one call."""
        if device_name is None:
            devices = self.registered_devices()
            if len(devices) != 1:
                raise ValidationError(f"no device name given and {len(devices)} devices are registered: {devices}.")
            device_name = devices[0]
        device_name, meta = _hetero.split_meta_device(device_name)
        if meta:
            self._ensure_hetero()
        base, dev_id = parse_device(device_name)
        plugin = self.get_plugin(base)
        props = {**dict(config or {}), **meta}
        core = {k: P.parse_value(k, props.pop(k)) for k in list(props) if k in P.CORE_PROPERTIES}
        with self._lock:
            core = {**self._core_props, **self._device_core_props.get(base, {}), **core}
            stored = dict(self._id_config.get(f"{base}.{dev_id}", {})) if dev_id is not None else {}
        if dev_id is not None:
            if P.DEVICE_ID in props and str(props[P.DEVICE_ID]) != dev_id:
                raise ValidationError(f"device {device_name!r} and DEVICE_ID={props[P.DEVICE_ID]!r} disagree.")
            props[P.DEVICE_ID] = dev_id
        return plugin, {**stored, **props}, core

    # -- models ---------------------------------------------------------------------------------
    def read_model(self, model: Any, weights: Any = None) -> Model:
        """Read IR v11 (a path, XML bytes or text; weights as bytes, uint8 array or path)."""
        try:
            from ovconform.ir._read import read_model
        except ImportError as e:
            raise ReadModelError(f"reading IR v11 is not available in this build: {e}") from e
        return read_model(model, weights)

    def _as_model(self, model: Any) -> Model:
        if isinstance(model, Model):
            return model
        if isinstance(model, (str, os.PathLike)):
            return self.read_model(model)
        if isinstance(model, tuple) and len(model) == 2:
            return self.read_model(*model)
        raise ValidationError(f"compile_model needs a Model, a path or (xml, weights), not {type(model).__name__}.")

    def compile_model(self, model: Any, device_name: str | RemoteContext | None = None,
                      config: Mapping[str, Any] | None = None) -> CompiledModel:
        """Compile ``model`` (a Model, a path, or ``(xml, weights)``) on ``device_name``.

        With ``COMPILED_BLOB`` (``ov::hint::compiled_blob``) the blob is imported instead; when it
        cannot be, the model is compiled as without the hint (from the cache, with CACHE_DIR), and
        an empty model makes that an ImportModelError. A device that lists WEIGHTS_PATH gets, for
        the imports, the weights file of a model given as a path (or named by the model's
        ``rt_info["__weights_path"]``) when the call gives none.
        """
        source = self._as_model(model)
        device_name, context = _device_or_context(device_name, "compile_model")
        plugin, props, core = self._resolve(device_name, config)
        blob = props.pop(P.COMPILED_BLOB, None)
        import_props = self._with_weights_hint(plugin, model, source, props)
        if blob is not None:
            imported = self._import_hint(plugin, source, P.parse_value(P.COMPILED_BLOB, blob), import_props, context)
            if imported is not None:
                return imported
        if core[P.CACHE_DIR] and self._can_cache(plugin):
            return self._compile_cached(plugin, source, props, Path(core[P.CACHE_DIR]), import_props, context)
        return _compile(plugin, source, props, context)

    @staticmethod
    def _with_weights_hint(plugin: Any, model: Any, source: Model, props: dict[str, Any]) -> dict[str, Any]:
        """``props`` plus WEIGHTS_PATH from the model's file or rt_info, for a device that lists it."""
        if P.WEIGHTS_PATH in props:
            return props
        hint = source.rt_info.get("__weights_path")
        if hint is None and isinstance(model, (str, os.PathLike)):
            hint = os.fspath(Path(model).with_suffix(".bin"))
        if not isinstance(hint, (str, os.PathLike)) or not hint:
            return props
        try:
            listed = P.WEIGHTS_PATH in plugin.get_property(P.SUPPORTED_PROPERTIES)
        except OVConformError:
            listed = False
        return {**props, P.WEIGHTS_PATH: os.fspath(hint)} if listed else props

    @staticmethod
    def _import_hint(plugin: Any, source: Model, blob: bytes, props: dict[str, Any],
                     context: RemoteContext | None) -> CompiledModel | None:
        """The model imported from a COMPILED_BLOB hint; None when it cannot be and the model
        can be compiled instead."""
        try:
            return _import(plugin, blob, props, context)
        except OVConformError as e:
            if source.get_results():
                return None
            raise ImportModelError(f"compile_model with COMPILED_BLOB: device {plugin.device_name!r} could not "
                                   f"import the blob ({e}), and model {source.friendly_name!r} is empty, so there "
                                   "is nothing to compile instead.") from e

    def query_model(self, model: Any, device_name: str | None = None,
                    config: Mapping[str, Any] | None = None) -> dict[str, str]:
        plugin, props, _ = self._resolve(device_name, config)
        return plugin.query_model(self._as_model(model), props)

    def import_model(self, model_stream: Any, device_name: str | RemoteContext | None = None,
                     config: Mapping[str, Any] | None = None) -> CompiledModel:
        """Import an exported blob on ``device_name`` (or for a RemoteContext, on its device)."""
        device_name, context = _device_or_context(device_name, "import_model")
        plugin, props, _ = self._resolve(device_name, config)
        return _import(plugin, model_stream, props, context)

    def create_context(self, device_name: str, params: Mapping[str, Any] | None = None) -> RemoteContext:
        return self.get_plugin(device_name).create_context(dict(params or {}))

    def get_default_context(self, device_name: str) -> RemoteContext:
        return self.get_plugin(device_name).get_default_context({})

    # -- cache ----------------------------------------------------------------------------------
    @staticmethod
    def _can_cache(plugin: Any) -> bool:
        try:
            caps = plugin.get_property(P.OPTIMIZATION_CAPABILITIES)
        except OVConformError:
            return False
        return P.Capability.EXPORT_IMPORT in [str(c) for c in caps]

    def _cache_lock(self, key: str) -> threading.Lock:
        with self._lock:
            return self._cache_locks.setdefault(key, threading.Lock())

    def _cache_key(self, plugin: Any, model: Model, props: Mapping[str, Any]) -> str:
        try:
            names = plugin.get_property(P.CACHING_PROPERTIES)
        except OVConformError:
            names = []
        caching = {n: _caching_value(plugin, n) for n in names}
        return _cache.cache_key(model, plugin.device_name, caching, props, str(plugin.get_version()))

    def _compile_cached(self, plugin: Any, model: Model, props: dict[str, Any], cache_dir: Path,
                        import_props: dict[str, Any] | None = None,
                        context: RemoteContext | None = None) -> CompiledModel:
        """Import the cached blob when it is valid; otherwise compile and write the blob.
        A corrupt or stale blob (or a weightless one whose weights are not given) is deleted and
        recompiled, never an error."""
        key = self._cache_key(plugin, model, props)
        path = cache_dir / f"{key}{_cache.BLOB_SUFFIX}"
        with self._cache_lock(key):
            payload = _cache.read_blob(path)
            if payload is not None:
                try:
                    return _import(plugin, payload, {**(import_props or props), P.LOADED_FROM_CACHE: True}, context)
                except Exception:  # noqa: BLE001 - a stale blob is dropped and rebuilt
                    _cache.drop_blob(path)
            compiled = _compile(plugin, model, props, context)
            try:
                _cache.write_blob(path, compiled.export_model())
            except (OSError, OVConformError) as e:
                warnings.warn(f"ovconform: could not write the cache blob {str(path)!r}: {e}", stacklevel=3)
            return compiled

    def __repr__(self) -> str:
        with self._lock:
            return f"<Core devices={sorted(self._entries)}>"


def _device_or_context(device: Any, what: str) -> tuple[str | None, RemoteContext | None]:
    """``compile_model(model, context)`` / ``import_model(blob, context)``: the context's device."""
    if isinstance(device, RemoteContext):
        return str(device.get_device_name()), device
    if device is not None and not isinstance(device, str):
        raise ValidationError(f"{what} takes a device name or a RemoteContext, not {type(device).__name__}.")
    return device, None


def _compile(plugin: Any, model: Model, props: dict[str, Any], context: RemoteContext | None) -> CompiledModel:
    """The plugin's compile_model, with the context only when there is one (a device without
    contexts may take just the model and the properties)."""
    return plugin.compile_model(model, props) if context is None else plugin.compile_model(model, props, context)


def _import(plugin: Any, blob: Any, props: dict[str, Any], context: RemoteContext | None) -> CompiledModel:
    return plugin.import_model(blob, props) if context is None else plugin.import_model(blob, props, context)


def _caching_value(plugin: Any, name: str) -> Any:
    """A caching property's value for the cache key. A property the device lists but cannot give
    (OpenVINO's HETERO lists CACHING_DEVICE_PROPERTIES, which its Python API cannot convert) keys
    as its error's type: the key stays stable, and the model is still cached."""
    try:
        return plugin.get_property(name)
    except OVConformError as e:
        return f"<unreadable: {type(e).__name__}>"
