"""Old import path, kept for ``reference_plugin`` and ``tests/reference`` until they import from
:mod:`ovconform.opset._detection._yolo` (the op families); nothing else may use it."""

from __future__ import annotations

from ovconform.opset._detection._yolo import reorg_stride

__all__ = ["reorg_stride"]
