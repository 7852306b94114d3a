"""The device registry handed to ``ovconform_register_devices`` hooks, and device discovery.

Plugins call ``registry.add(PluginClass)``. The registry validates what it is given and raises
:class:`ovconform.errors.PluginValidationError` naming the plugin and the distribution it came
from: a duplicate device name (case-insensitive), a missing or non-callable contract method, a
device name that is not a valid name. Property value types are checked when a device is
created (:meth:`DeviceRegistry.create`), since that needs a live plugin.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pluggy

from ovconform import properties as P
from ovconform.contract.names import RULE, device_name_ok
from ovconform.errors import NotFoundError, OVConformError, PluginValidationError

#: The methods every device plugin must have (ov::IPlugin's Python form).
REQUIRED_METHODS: tuple[str, ...] = (
    "compile_model", "query_model", "import_model", "set_property", "get_property",
    "create_context", "get_default_context", "get_version",
)


@dataclass(frozen=True)
class DeviceEntry:
    """One registered device: its name, how to make it, and where it came from."""

    name: str
    factory: Callable[[], Any]
    source: str  # the pluggy plugin (entry point) name that registered it
    distribution: str

    def describe(self) -> str:
        return f"device {self.name!r} from plugin {self.source!r} ({self.distribution})"


class NamedFactory:
    """A zero-argument plugin factory that carries the name of the device it makes as
    ``device_name``, as a plugin class does (:meth:`DeviceRegistry.add` and
    ``Core.register_plugin`` read that name, and then call the factory without arguments)."""

    __slots__ = ("device_name", "make")

    def __init__(self, device_name: str, make: Callable[[], Any]) -> None:
        self.device_name = device_name
        self.make = make

    def __call__(self) -> Any:
        return self.make()

    def __repr__(self) -> str:
        return f"<factory of device {self.device_name!r}: {self.make!r}>"


class DeviceRegistry:
    """Collects device plugins. Lookups are case-insensitive (``reference`` finds ``REFERENCE``)."""

    def __init__(self) -> None:
        self._entries: dict[str, DeviceEntry] = {}
        self._source = "<direct>"
        self._distribution = "not installed (registered directly)"

    def set_source(self, source: str, distribution: str) -> None:
        """Name the plugin whose hook is about to run (used in error messages)."""
        self._source, self._distribution = source, distribution

    def add(self, plugin: Any, *, name: str | None = None) -> None:
        """Register a plugin class or zero-argument factory under its ``device_name`` (or ``name``)."""
        where = f"plugin {self._source!r} ({self._distribution})"
        device = name if name is not None else getattr(plugin, "device_name", None)
        if not isinstance(device, str) or not device_name_ok(device):
            raise PluginValidationError(
                f"{where} registered {plugin!r} with device name {device!r}; a device name is {RULE} "
                "(set the class attribute device_name).", plugin)
        if not callable(plugin):
            raise PluginValidationError(f"{where} registered {plugin!r} for {device!r}, which is neither a "
                                        "plugin class nor a factory.", plugin)
        if inspect.isclass(plugin):
            missing = [m for m in REQUIRED_METHODS if not callable(getattr(plugin, m, None))]
            if missing:
                raise PluginValidationError(
                    f"{where}: plugin class {plugin.__qualname__} for device {device!r} lacks the contract "
                    f"method(s) {missing}; every device implements {list(REQUIRED_METHODS)}.", plugin)
        key = device.upper()
        if key in self._entries:
            other = self._entries[key]
            raise PluginValidationError(
                f"{where} registered device {device!r}, but {other.describe()} already has that name.", plugin)
        factory = plugin if name is None or name == getattr(plugin, "device_name", None) else _named(plugin, name)
        self._entries[key] = DeviceEntry(device, factory, self._source, self._distribution)

    def names(self) -> list[str]:
        return sorted(e.name for e in self._entries.values())

    def entries(self) -> list[DeviceEntry]:
        return [self._entries[k] for k in sorted(self._entries)]

    def __iter__(self) -> Iterator[DeviceEntry]:
        return iter(self.entries())

    def __len__(self) -> int:
        return len(self._entries)

    def find(self, name: str) -> DeviceEntry | None:
        """The entry for a device or entry-point name (case-insensitive), or None."""
        key = name.upper()
        if key in self._entries:
            return self._entries[key]
        by_source = [e for e in self._entries.values() if e.source.upper() == key]
        return by_source[0] if len(by_source) == 1 else None

    def get(self, name: str) -> DeviceEntry:
        found = self.find(name)
        if found is None:
            raise NotFoundError(f"no device or plugin named {name!r}; available: {self.describe_available()}.")
        return found

    def describe_available(self) -> str:
        return ", ".join(f"{e.name} (plugin {e.source!r})" for e in self.entries()) or "none"

    def create(self, name: str) -> Any:
        """Instantiate the device and check its properties' value types against the catalogue."""
        entry = self.get(name)
        plugin = entry.factory()
        check_property_types(plugin, entry)
        return plugin


def _named(plugin: Any, name: str) -> Callable[[], Any]:
    def make() -> Any:
        return plugin(name) if isinstance(plugin, type) else plugin()  # not inspect.isclass: it narrows to type[object]

    return make


def check_property_types(plugin: Any, entry: DeviceEntry) -> None:
    """Every supported property must read back a value the catalogue accepts for that name."""
    try:
        supported = plugin.get_property(P.SUPPORTED_PROPERTIES)
    except OVConformError as e:
        raise PluginValidationError(f"{entry.describe()}: get_property('SUPPORTED_PROPERTIES') failed: {e}",
                                    plugin) from e
    for prop in supported:
        try:
            spec = P.get_spec(prop)
        except OVConformError:
            continue  # a device-specific property: the catalogue has no type for it
        value = plugin.get_property(prop)
        try:
            canonical = spec.coerce(value)
            if isinstance(value, str) and not isinstance(canonical, str):
                raise PluginValidationError(f"a string where {type(canonical).__name__} is expected")
        except OVConformError as e:
            raise PluginValidationError(
                f"{entry.describe()}: property {prop!r} reads back {value!r} ({type(value).__name__}), "
                f"which is not a valid value: {e}", plugin) from e


def collect_devices(pm: pluggy.PluginManager) -> DeviceRegistry:
    """Run every ``ovconform_register_devices`` hook, one plugin at a time, into a new registry."""
    from ovconform.host.manager import distribution_of

    registry = DeviceRegistry()
    for impl in pm.hook.ovconform_register_devices.get_hookimpls():
        registry.set_source(impl.plugin_name, distribution_of(pm, impl.plugin))
        impl.function(registry=registry)
    registry.set_source("<direct>", "not installed (registered directly)")
    return registry


def discover_devices() -> DeviceRegistry:
    """Load the ``ovconform`` entry points and collect their devices."""
    from ovconform.host.manager import get_plugin_manager

    return collect_devices(get_plugin_manager())
