"""The ovconform exception hierarchy.

Every error the host, the IR or a device raises on purpose is one of these (or a built-in
``TypeError``/``ValueError`` raised by Python itself). Messages name the object, the bad value
and what is allowed.
"""

from __future__ import annotations

from typing import Any


class OVConformError(RuntimeError):
    """Base class of every error ovconform raises on purpose."""


class NotImplementedByDeviceError(OVConformError, NotImplementedError):
    """The device does not implement this optional part of the plugin contract."""


class NotFoundError(OVConformError, LookupError):
    """A named thing (device, port, tensor, op, variable) does not exist."""


class UnsupportedOpError(NotFoundError):
    """No kernel or definition exists for this op type and version."""


class BusyError(OVConformError):
    """The infer request is running; the call is refused (ov::Busy)."""


class CancelledError(OVConformError):
    """The infer request was cancelled before it completed (ov::Cancelled)."""


class ValidationError(OVConformError, ValueError):
    """A model, node, tensor or argument is invalid."""


class ReadModelError(ValidationError):
    """An IR v11 document or its weights could not be read."""


class ImportModelError(OVConformError):
    """An exported compiled-model blob could not be imported."""


class CompileError(OVConformError):
    """A device failed to compile a model."""


class InferError(OVConformError):
    """Inference failed inside a device."""


class NotEnabledError(OVConformError):
    """The feature exists but is switched off (e.g. profiling without PERF_COUNT)."""


class PropertyError(OVConformError, KeyError):
    """A property name is unknown, read-only, or its value is not allowed."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class DeviceInitError(OVConformError):
    """A device backend could not be initialised (raised by the plugin constructor)."""


class PluginValidationError(OVConformError):
    """A device plugin breaks the registration contract (harness error, not a test failure)."""

    def __init__(self, message: str, plugin: Any = None) -> None:
        super().__init__(message)
        self.plugin = plugin


class PluginSpecError(OVConformError):
    """A --plugin value names nothing that can be loaded (a usage error)."""


class ExpectationError(OVConformError, ValueError):
    """An expectation file line cannot be parsed (names the file, the line and what is allowed)."""


__all__ = [
    "BusyError",
    "CancelledError",
    "CompileError",
    "DeviceInitError",
    "ExpectationError",
    "ImportModelError",
    "InferError",
    "NotEnabledError",
    "NotFoundError",
    "NotImplementedByDeviceError",
    "OVConformError",
    "PluginSpecError",
    "PluginValidationError",
    "PropertyError",
    "ReadModelError",
    "UnsupportedOpError",
    "ValidationError",
]
