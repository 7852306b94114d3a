"""Old import path, kept for ``reference_plugin`` and ``tests/reference`` until they import from
:mod:`ovconform.opset._movement._patches` (the op families); nothing else may use it."""

from __future__ import annotations

from ovconform.opset._movement._patches import patches_out_dim

__all__ = ["patches_out_dim"]
