"""Old import path, kept for ``reference_plugin`` and ``tests/reference`` until they import from
:mod:`ovconform.opset._image` (the op families); nothing else may use it."""

from __future__ import annotations

from ovconform.opset._image import scaled_size

__all__ = ["scaled_size"]
