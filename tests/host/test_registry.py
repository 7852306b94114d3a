"""The device registry and the plugin manager: discovery, blocking, validation."""

from __future__ import annotations

import sys
import types

import pluggy
import pytest
from plugins.fake_device import FakePlugin

import ovconform
from ovconform import hookspecs
from ovconform.errors import NotFoundError, PluginValidationError
from ovconform.host.manager import get_plugin_manager
from ovconform.registry import DeviceRegistry, check_property_types, collect_devices


def _module(name: str, *classes: type) -> types.ModuleType:
    mod = types.ModuleType(name)

    @ovconform.hookimpl
    def ovconform_register_devices(registry: DeviceRegistry) -> None:
        for cls in classes:
            registry.add(cls)

    mod.ovconform_register_devices = ovconform_register_devices  # type: ignore[attr-defined]
    return mod


def _pm(*modules: types.ModuleType) -> pluggy.PluginManager:
    pm = pluggy.PluginManager("ovconform")
    pm.add_hookspecs(hookspecs)
    for m in modules:
        pm.register(m, m.__name__)
    return pm


def test_collects_devices_and_finds_them_case_insensitively() -> None:
    reg = collect_devices(_pm(_module("fakeplug", FakePlugin)))
    assert reg.names() == ["FAKE"]
    assert reg.get("fake").source == "fakeplug"
    assert reg.get("fakeplug").name == "FAKE"  # by entry-point (plugin) name too
    with pytest.raises(NotFoundError, match=r"no device or plugin named 'nope'; available: FAKE \(plugin 'fakeplug'\)"):
        reg.get("nope")


def test_duplicate_device_names_name_both_plugins() -> None:
    class Other(FakePlugin):
        device_name = "fake"

    with pytest.raises(PluginValidationError, match=r"plugin 'second'.*'fake'.*device 'FAKE' from plugin 'first'"):
        collect_devices(_pm(_module("first", FakePlugin), _module("second", Other)))


def test_missing_contract_methods_are_named() -> None:
    class Broken:
        device_name = "BROKEN"

        def compile_model(self) -> None: ...

    with pytest.raises(PluginValidationError, match=r"plugin 'brk'.*lacks the contract method\(s\) \['query_model'") as info:
        collect_devices(_pm(_module("brk", Broken)))
    assert info.value.plugin is Broken


@pytest.mark.parametrize("bad", ["", "A.B", "A:B", None])
def test_bad_device_names(bad: object) -> None:
    reg = DeviceRegistry()
    with pytest.raises(PluginValidationError, match="device name"):
        reg.add(FakePlugin, name=bad) if bad is not None else reg.add(type("X", (), {}))


def test_property_value_types_are_checked_on_create() -> None:
    class WrongType(FakePlugin):
        device_name = "WRONG"

        def get_property(self, name: str, arguments: object = None) -> object:
            if name == "PERF_COUNT":
                return "maybe"
            return super().get_property(name, arguments)

    reg = DeviceRegistry()
    reg.add(WrongType)
    with pytest.raises(PluginValidationError, match=r"property 'PERF_COUNT' reads back 'maybe'"):
        reg.create("WRONG")
    reg2 = DeviceRegistry()
    reg2.add(FakePlugin)
    check_property_types(reg2.create("FAKE"), reg2.get("FAKE"))  # the well-behaved device passes


def test_entry_point_discovery_finds_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OVCONFORM_DISABLE_PLUGINS", raising=False)
    pm = get_plugin_manager()
    assert pm.has_plugin("reference")
    reg = collect_devices(pm)
    assert "REFERENCE" in reg.names()
    assert reg.get("reference").distribution.startswith("ovconform ")


def test_blocked_plugins_are_not_loaded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OVCONFORM_DISABLE_PLUGINS", "reference, other")
    pm = get_plugin_manager()
    assert pm.is_blocked("reference") and not pm.has_plugin("reference")
    assert "REFERENCE" not in collect_devices(pm).names()


def test_trace_env_var_writes_hook_calls(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("OVCONFORM_TRACE_PLUGINS", "1")
    monkeypatch.setattr(sys, "stderr", sys.stderr)
    pm = get_plugin_manager()
    collect_devices(pm)
    pm.hook.ovconform_expectations(device="X")
    assert "ovconform_expectations" in capsys.readouterr().err


def test_every_hook_is_documented_with_params() -> None:
    import inspect

    specs = [n for n in dir(hookspecs) if n.startswith("ovconform_")]
    assert specs
    for name in specs:
        fn = getattr(hookspecs, name)
        doc = inspect.getdoc(fn) or ""
        for param in inspect.signature(fn).parameters:
            assert f":param {param}:" in doc, f"{name} does not document {param}"
        if getattr(fn, "ovconform_spec", {}).get("firstresult"):
            assert "Stops at first non-None result." in doc
