"""Tile-1: ``data`` repeated ``repeats[i]`` times along dim i; the shorter of the data rank and
the repeats is padded with leading 1s (``numpy.tile``)."""

from __future__ import annotations

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._common_layout import IndexInputsOp


@register_op("Tile", since=1)
class Tile(IndexInputsOp):
    INDEX_PORTS = (1,)

    def _run(self, data: np.ndarray, repeats: np.ndarray) -> tuple[np.ndarray, ...]:
        reps = self.ints(1, repeats)
        if any(r < 0 for r in reps):
            raise self.fail(f"repeats {reps} has a negative value; repeats must be >= 0.")
        return (np.tile(data, reps) if reps else data.copy(),)
