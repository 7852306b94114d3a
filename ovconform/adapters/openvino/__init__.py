"""OpenVINO devices as ovconform plugins: ``pytest --plugin=openvino:CPU``.

``openvino:DEVICE`` takes any OpenVINO device string: ``CPU``, ``GPU.1``, ``AUTO``, ``AUTO:CPU``,
``HETERO:CPU`` or a device from the user's own plugin library, registered through the
environment variable ``OVCONFORM_OPENVINO_PLUGINS`` (``NAME=/path/libplugin.so``, several
separated by ``;``). The ovconform device is called ``openvino-<DEVICE>`` with ``:``, ``,`` and ``.``
replaced by ``-`` (``openvino-CPU``, ``openvino-HETERO-CPU``); its reports go to
``<report-dir>/openvino-CPU/``.

Models reach OpenVINO as IR v11 (``ovconform.serialize`` → ``openvino.Core.read_model``);
requests run OpenVINO's own asynchronous requests (real callbacks, ``cancel``), and profiling
info, variable states, export/import and every property are OpenVINO's.

Defaults: the adapter sets ``INFERENCE_PRECISION_HINT=f32`` on every device that supports it
(OpenVINO CPU would otherwise compute in bf16 or f16 where the hardware has them), so results
compare with the f32 REFERENCE. ``OVCONFORM_OPENVINO_CONFIG`` (a JSON object) replaces these
defaults; ``OVCONFORM_OPENVINO_CONFIG={}`` tests the device's own defaults.
"""

from __future__ import annotations

import json
import os
import re
import threading
from typing import Any

from ovconform.adapters.openvino._compiled import OVCompiledModel
from ovconform.adapters.openvino._plugin import OVPlugin, Target
from ovconform.adapters.openvino._request import OVAsyncInferRequest, OVSyncInferRequest, OVVariableState
from ovconform.registry import DeviceEntry, NamedFactory

__all__ = ["DEFAULT_CONFIG", "OVAsyncInferRequest", "OVCompiledModel", "OVPlugin", "OVSyncInferRequest",
           "OVVariableState", "Target", "device_entries", "device_name", "make_target", "user_plugins"]

PLUGINS_ENV = "OVCONFORM_OPENVINO_PLUGINS"
CONFIG_ENV = "OVCONFORM_OPENVINO_CONFIG"
DEFAULT_CONFIG: dict[str, Any] = {"INFERENCE_PRECISION_HINT": "f32"}
_DISTRIBUTION = "openvino (through ovconform.adapters.openvino)"


def device_name(ov_device: str) -> str:
    """``"HETERO:CPU"`` -> ``"openvino-HETERO-CPU"``."""
    return "openvino-" + re.sub(r"[:,.\s()]+", "-", ov_device.strip()).strip("-")


def user_plugins(value: str | None = None) -> dict[str, str]:
    """``{device: library}`` from ``OVCONFORM_OPENVINO_PLUGINS`` (``NAME=/path.so;NAME2=/path2.so``)."""
    from ovconform.errors import PluginSpecError

    text = os.environ.get(PLUGINS_ENV, "") if value is None else value
    out: dict[str, str] = {}
    for item in filter(None, (s.strip() for s in text.split(";"))):
        name, eq, path = item.partition("=")
        if not eq or not name.strip() or not path.strip():
            raise PluginSpecError(f"{PLUGINS_ENV}: entry {item!r} is not NAME=/path/to/libplugin.so.")
        if not os.path.isfile(path.strip()):
            raise PluginSpecError(f"{PLUGINS_ENV}: the plugin library {path.strip()!r} for device "
                                  f"{name.strip()!r} does not exist.")
        out[name.strip()] = path.strip()
    return out


def default_config() -> dict[str, Any]:
    from ovconform.errors import PluginSpecError

    text = os.environ.get(CONFIG_ENV)
    if text is None:
        return dict(DEFAULT_CONFIG)
    try:
        value = json.loads(text)
    except json.JSONDecodeError as e:
        raise PluginSpecError(f"{CONFIG_ENV} must be a JSON object of properties, not {text!r}: {e}.") from None
    if not isinstance(value, dict):
        raise PluginSpecError(f"{CONFIG_ENV} must be a JSON object of properties, not {text!r}.")
    return value


#: One probing ``openvino.Core`` per set of plugin libraries, kept for the process: destroying a
#: Core joins OpenVINO's CPU executor threads while this thread holds the GIL, which deadlocks
#: when one of those threads is about to run a Python completion callback (seen once in CI:
#: MainThread in ~CPUStreamsExecutor -> std::thread::join, under make_target).
_PROBES: dict[tuple[tuple[str, str], ...], Any] = {}
_PROBE_LOCK = threading.Lock()


def make_target(ov_device: str) -> Target:
    """Check the OpenVINO device exists and describe it (its name, plugins, defaults)."""
    import openvino as ov

    from ovconform.errors import PluginSpecError

    spec = ov_device.strip()
    if not spec:
        raise PluginSpecError("--plugin=openvino: needs a device, e.g. openvino:CPU.")
    libraries = user_plugins()
    key = tuple(sorted(libraries.items()))
    with _PROBE_LOCK:
        core = _PROBES.get(key)
        if core is None:
            core = ov.Core()
            for name, path in libraries.items():
                try:
                    core.register_plugin(path, name)
                except Exception as e:  # noqa: BLE001 - OpenVINO raises RuntimeError
                    raise PluginSpecError(f"{PLUGINS_ENV}: OpenVINO cannot register {name!r} from {path!r}: "
                                          f"{e}") from e
            _PROBES[key] = core
    target = Target(spec, device_name(spec), libraries, default_config())
    try:
        core.get_property(target.base, "SUPPORTED_PROPERTIES")
    except Exception as e:  # noqa: BLE001
        known = sorted({*core.available_devices, *libraries, "AUTO", "HETERO", "MULTI", "BATCH"})
        raise PluginSpecError(f"--plugin=openvino:{spec}: OpenVINO has no usable device {target.base!r} "
                              f"({str(e).strip().splitlines()[-1]}); available: {known}. Register your own "
                              f"plugin with {PLUGINS_ENV}=NAME=/path/libplugin.so.") from None
    return target


def device_entries(spec: str) -> list[DeviceEntry]:
    """The device for ``--plugin=openvino:<spec>`` (what :mod:`ovconform.host.plugin_specs` calls)."""
    target = make_target(spec)

    def make() -> OVPlugin:
        return OVPlugin(target)

    return [DeviceEntry(target.name, NamedFactory(target.name, make), f"openvino:{spec}", _DISTRIBUTION)]
