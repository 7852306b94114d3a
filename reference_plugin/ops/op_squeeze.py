"""Squeeze-1 and Squeeze-15: drop size-1 dims.

Without axes (or with empty axes) every size-1 dim goes. With axes, each named dim of size 1
goes and a named dim of another size is kept (as the shape inference does); ``allow_axis_skip``
(v15) only changes shape inference, not the result for a concrete input.
"""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_index import int_list, normalize_axes


@register_op("Squeeze", since=1)
class Squeeze1(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        const = self.const_input(1)
        self.axes = int_list(const) if const is not None else None

    def _run(self, x: np.ndarray, axes: np.ndarray | None = None) -> tuple[np.ndarray, ...]:
        values = self.axes if self.axes is not None else (int_list(axes) if axes is not None else [])
        if not values:
            return (x.reshape([d for d in x.shape if d != 1]),)
        chosen = set(normalize_axes(values, x.ndim, "squeeze axes", unique=False))
        return (x.reshape([d for i, d in enumerate(x.shape) if not (i in chosen and d == 1)]),)


@register_op("Squeeze", since=15)
class Squeeze15(Squeeze1):
    """Squeeze-15: as Squeeze-1 for concrete inputs."""
