"""SliceScatter-15: a copy of ``data`` whose slice ``[start:stop:step]`` over ``axes`` (Slice-8's
python slicing) is replaced by ``updates``, which must have the slice's shape."""

from __future__ import annotations

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._common_layout import IndexInputsOp, slice_index


@register_op("SliceScatter", since=15)
class SliceScatter(IndexInputsOp):
    INDEX_PORTS = (2, 3, 4, 5)

    def _run(self, data: np.ndarray, updates: np.ndarray, start: np.ndarray, stop: np.ndarray, step: np.ndarray,
             axes: np.ndarray | None = None) -> tuple[np.ndarray, ...]:
        index = slice_index(data.shape, self.ints(2, start), self.ints(3, stop), self.ints(4, step),
                            None if axes is None else self.ints(5, axes))
        out = data.copy()
        target = out[index].shape
        if updates.shape != target:
            raise self.fail(f"updates has shape {list(updates.shape)}; the slice has shape {list(target)}.")
        out[index] = updates
        return (out,)
