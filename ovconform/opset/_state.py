"""Old import path, kept for ``reference_plugin`` and ``tests/reference`` until they import from
:mod:`ovconform.opset._infrastructure` (the op families); nothing else may use it."""

from __future__ import annotations

from ovconform.opset._infrastructure import VariableInfo, variable_infos

__all__ = ["VariableInfo", "variable_infos"]
