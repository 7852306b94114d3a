"""Old import path, kept for ``reference_plugin`` and ``tests/reference`` until they import from
:mod:`ovconform.opset._detection._prior` (the op families); nothing else may use it."""

from __future__ import annotations

from ovconform.opset._detection._prior import aspect_ratios

__all__ = ["aspect_ratios"]
