"""MYDEVICE: an example ovconform device plugin (entry point ``mydevice``)."""

from __future__ import annotations

import ovconform
from ovconform.registry import DeviceRegistry


@ovconform.hookimpl
def ovconform_register_devices(registry: DeviceRegistry) -> None:
    from mydevice.plugin import MyDevicePlugin

    registry.add(MyDevicePlugin)
