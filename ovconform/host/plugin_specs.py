"""Resolve ``--plugin X`` values to devices under test.

X may be: an entry-point name or device name (case-insensitive); ``module:attr`` naming a plugin
class, a factory, or a module with an ``ovconform_register_devices`` hook; a path to a ``.py``
file with that hook; ``openvino:DEVICE`` for a real OpenVINO device (through the adapter); or
``HETERO:X,Y`` for the host's HETERO device over the devices of the --plugin values X, Y (in
that priority order).
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ovconform.errors import NotFoundError, PluginSpecError, PluginValidationError
from ovconform.host.loader import load_object
from ovconform.host.manager import get_plugin_manager
from ovconform.registry import DeviceEntry, DeviceRegistry, NamedFactory, collect_devices


@dataclass(frozen=True)
class DeviceUnderTest:
    """One device a run tests: its name, how to create it, and the --plugin value it came from."""

    name: str
    entry: DeviceEntry
    spec: str

    def create(self) -> Any:
        return self.entry.factory()


def resolve(specs: list[str]) -> list[DeviceUnderTest]:
    """Devices for the given --plugin values, in order, without duplicates."""
    installed: DeviceRegistry | None = None
    out: list[DeviceUnderTest] = []
    for spec in specs:
        if spec.startswith("openvino:"):
            entries = _openvino(spec)
        elif spec.upper().startswith("HETERO:"):
            entries = _hetero(spec)
        elif spec.endswith(".py") or Path(spec).is_file():
            entries = _from_module(_import_path(spec), spec)
        elif ":" in spec:
            entries = _from_object(spec)
        else:
            if installed is None:
                installed = collect_devices(get_plugin_manager())
            found = installed.find(spec)
            if found is None:
                raise PluginSpecError(
                    f"--plugin={spec!r} matches no installed device or plugin; available: "
                    f"{installed.describe_available()}. Also accepted: module:attr, a path to a .py file, "
                    "openvino:DEVICE.")
            entries = [e for e in installed.entries() if e.source == found.source] \
                if found.source.upper() == spec.upper() else [found]
        for e in entries:
            if all(d.name.upper() != e.name.upper() for d in out):
                out.append(DeviceUnderTest(e.name, e, spec))
    return out


def _import_path(spec: str) -> Any:
    path = Path(spec).resolve()
    if not path.is_file():
        raise PluginSpecError(f"--plugin={spec!r}: file {str(path)!r} does not exist.")
    name = f"ovconform_device_{path.stem}_{abs(hash(str(path))) % 10**8}"
    module_spec = importlib.util.spec_from_file_location(name, path)
    if module_spec is None or module_spec.loader is None:
        raise PluginSpecError(f"--plugin={spec!r}: {str(path)!r} cannot be imported as a Python module.")
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[name] = module
    try:
        module_spec.loader.exec_module(module)
    except Exception as e:
        del sys.modules[name]
        raise PluginSpecError(f"--plugin={spec!r}: importing {str(path)!r} failed: {type(e).__name__}: {e}") from e
    return module


def _from_module(module: Any, spec: str) -> list[DeviceEntry]:
    if not hasattr(module, "ovconform_register_devices"):
        raise PluginSpecError(f"--plugin={spec!r}: module {module.__name__!r} has no ovconform_register_devices hook "
                              "(decorate it with @ovconform.hookimpl).")
    pm = get_plugin_manager(load_entrypoints=False)
    pm.register(module, spec)
    registry = collect_devices(pm)
    if not len(registry):
        raise PluginSpecError(f"--plugin={spec!r}: its ovconform_register_devices hook registered no device.")
    return registry.entries()


def _from_object(spec: str) -> list[DeviceEntry]:
    try:
        obj = load_object(spec)
    except (ImportError, AttributeError) as e:
        raise PluginSpecError(f"--plugin={spec!r} cannot be loaded: {type(e).__name__}: {e}") from e
    if inspect.ismodule(obj):
        return _from_module(obj, spec)
    registry = DeviceRegistry()
    registry.set_source(spec, "not installed (module:attr)")
    registry.add(obj)
    return registry.entries()


def _hetero(spec: str) -> list[DeviceEntry]:
    """``HETERO:X,Y``: the host's HETERO over the devices of the --plugin values X and Y, in that
    priority order (X and Y are any --plugin values except another HETERO)."""
    from ovconform.hetero.plugin import HETERO

    parts = [p.strip() for p in spec.split(":", 1)[1].split(",") if p.strip()]
    if not parts:
        raise PluginSpecError(f"--plugin={spec!r}: HETERO needs devices, e.g. HETERO:mydevice,reference.")
    devices: dict[str, Any] = {}
    for part in parts:
        if part.upper().startswith("HETERO:"):
            raise PluginSpecError(f"--plugin={spec!r}: HETERO cannot contain another HETERO.")
        for dut in resolve([part]):
            devices.setdefault(dut.name, dut.entry.factory)
    if any(name.upper() == HETERO for name in devices):
        raise PluginSpecError(f"--plugin={spec!r}: a device named HETERO cannot run under HETERO.")
    registry = DeviceRegistry()
    registry.set_source(spec, "ovconform HETERO (host)")
    registry.add(hetero_factory(devices, list(devices)), name=HETERO)
    return registry.entries()


def hetero_factory(devices: Mapping[str, Any], priorities: Sequence[str]) -> NamedFactory:
    """A factory for the host's HETERO over ``devices`` (what ``--plugin=HETERO:A,B`` registers):
    each HETERO gets its own Core holding just those devices."""
    from ovconform.hetero.plugin import HETERO, HeteroPlugin
    from ovconform.host.core import Core

    def make() -> HeteroPlugin:
        return HeteroPlugin(HETERO, ",".join(priorities), core=Core(dict(devices), discover=False))

    return NamedFactory(HETERO, make)


def _openvino(spec: str) -> list[DeviceEntry]:
    try:
        adapter = importlib.import_module("ovconform.adapters.openvino")
    except ImportError as e:
        raise PluginSpecError(f"--plugin={spec!r}: the OpenVINO adapter is not available ({e}); "
                              "install the 'openvino' extra.") from e
    return adapter.device_entries(spec.partition(":")[2])


__all__ = ["DeviceUnderTest", "NotFoundError", "PluginSpecError", "PluginValidationError", "resolve"]
