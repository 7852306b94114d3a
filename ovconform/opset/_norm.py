"""Old import path, kept for ``reference_plugin`` and ``tests/reference`` until they import from
:mod:`ovconform.opset._generation`, :mod:`ovconform.opset._normalization` (the op families); nothing else may use it."""

from __future__ import annotations

from ovconform.opset._generation import range_length
from ovconform.opset._normalization import BATCH_NORM_ORDER, mvn1_axes

__all__ = ["BATCH_NORM_ORDER", "mvn1_axes", "range_length"]
