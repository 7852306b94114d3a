"""The REFERENCE device: ovconform's numpy oracle, registered like any third-party device."""

from __future__ import annotations

from typing import TYPE_CHECKING

import ovconform

if TYPE_CHECKING:
    from ovconform.registry import DeviceRegistry


@ovconform.hookimpl
def ovconform_register_devices(registry: DeviceRegistry) -> None:
    """Register :class:`reference_plugin.plugin.ReferencePlugin` (imported only when asked for)."""
    from reference_plugin.plugin import ReferencePlugin

    registry.add(ReferencePlugin)
