"""Roll-7: elements shift ``shift`` places along ``axes``; those leaving one end come back at the
other. A scalar shift applies to every axis; an axis named twice shifts by the sum."""

from __future__ import annotations

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._common_index import normalize_axes
from reference_plugin.ops._common_layout import IndexInputsOp


@register_op("Roll", since=7)
class Roll(IndexInputsOp):
    INDEX_PORTS = (1, 2)

    def _run(self, data: np.ndarray, shift: np.ndarray, axes: np.ndarray) -> tuple[np.ndarray, ...]:
        shifts, axis_list = self.ints(1, shift), self.ints(2, axes)
        if data.ndim == 0:
            raise self.fail("data is a scalar; Roll needs data of rank >= 1 to name axes.")
        axis_list = normalize_axes(axis_list, data.ndim, "axes", unique=False)
        if shift.ndim == 0:
            shifts = shifts * len(axis_list)
        elif len(shifts) != len(axis_list):
            raise self.fail(f"shift {shifts} and axes {axis_list} differ in length; a 1D shift needs one value "
                            "per axis.")
        if not axis_list:
            return (data.copy(),)
        return (np.roll(data, shifts, axis_list),)
