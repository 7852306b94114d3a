"""What a device name may be, in one place (the plugin base, the Core and the registry use it).

A device name is a non-empty string without ``.`` (it separates the device id: ``"CPU.1"``),
``:`` (it separates meta-device lists: ``"HETERO:A,B"``), ``,`` (it separates priorities), ``/``
or ``\\`` (it names the device's report folder: ``/dev/accel0`` would write outside the report
folder) or whitespace. Names are compared case-insensitively (``--plugin=reference`` finds ``REFERENCE``).
"""

from __future__ import annotations

from typing import Final

#: characters a device name may not contain (it may not contain whitespace either)
FORBIDDEN: Final = ".:,/\\"
RULE: Final = "a non-empty string without '.', ':', ',', '/', '\\' or whitespace"


def device_name_ok(name: object) -> bool:
    """Whether ``name`` is a valid device name (see the module docstring)."""
    return (isinstance(name, str) and bool(name) and not any(c in name for c in FORBIDDEN)
            and not any(c.isspace() for c in name))


def same_device(a: str, b: str) -> bool:
    """Device names are compared case-insensitively."""
    return a.upper() == b.upper()


__all__ = ["FORBIDDEN", "RULE", "device_name_ok", "same_device"]
