"""One device-name rule and one ``module:attr`` loader, used by the plugin base, the Core and the
registry alike (a name one of them accepts the others accept too)."""

from __future__ import annotations

import pluggy
import pytest
from plugins.fake_device import FakePlugin

from ovconform import Core
from ovconform.contract.names import device_name_ok
from ovconform.errors import NotFoundError, PluginValidationError, ValidationError
from ovconform.host.loader import load_object
from ovconform.registry import DeviceRegistry

BAD = ["", "A.B", "HETERO:A", "A,B", "A B", " A", "A\t", 3, None]
GOOD = ["A", "my-device", "NPU_2", "x"]


@pytest.mark.parametrize("name", BAD)
def test_every_entry_refuses_the_same_bad_names(name):
    assert not device_name_ok(name)
    if isinstance(name, str) and name:  # an empty or missing name means the class's own device_name
        with pytest.raises(ValidationError, match="a device name is a non-empty string without"):
            FakePlugin(name)
        with pytest.raises(ValidationError, match="a device name is a non-empty string without"):
            Core(discover=False).register_plugin(FakePlugin, name)
    if name is not None:  # None means the class's own device_name
        with pytest.raises(PluginValidationError, match="a device name is a non-empty string without"):
            DeviceRegistry().add(FakePlugin, name=name)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", GOOD)
def test_every_entry_accepts_the_same_good_names(name):
    assert device_name_ok(name)
    assert FakePlugin(name).device_name == name
    assert Core(discover=False).register_plugin(FakePlugin, name) == name
    registry = DeviceRegistry()
    registry.add(FakePlugin, name=name)
    assert registry.find(name.lower()) is not None  # names compare case-insensitively


def test_loader_reads_module_attr_and_nested_attr():
    assert load_object("ovconform.host.loader:load_object") is load_object
    assert load_object("pluggy:HookimplMarker.__call__") is pluggy.HookimplMarker.__call__
    assert load_object("ovconform.host.loader").__name__ == "ovconform.host.loader"
    with pytest.raises(ImportError):
        load_object("no_such_module_xyz:Thing")
    with pytest.raises(AttributeError):
        load_object("ovconform.host.loader:nothing_here")


def test_core_turns_a_bad_spec_into_not_found():
    with pytest.raises(NotFoundError, match="cannot load plugin 'no_such_module_xyz:Thing'"):
        Core(discover=False).register_plugin("no_such_module_xyz:Thing", "X")
