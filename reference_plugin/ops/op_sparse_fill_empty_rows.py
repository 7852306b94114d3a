"""SparseFillEmptyRows-16: the entries plus one ``(row, 0) = default_value`` entry per empty row,
sorted by (row, column); the indicator flags the empty rows. An index outside the dense shape,
or a negative dense shape, is an InferError.
"""

from __future__ import annotations

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun


@register_op("SparseFillEmptyRows", since=16)
class SparseFillEmptyRows(OpRun):
    def _run(self, values: np.ndarray, dense_shape: np.ndarray, indices: np.ndarray,
             default_value: np.ndarray) -> tuple[np.ndarray, ...]:
        rows, cols = (int(v) for v in dense_shape)
        if rows < 0 or cols < 0:
            raise self.fail(f"dense_shape {[rows, cols]} must not be negative.")
        idx = indices.reshape(-1, 2)
        bad = (idx[:, 0] < 0) | (idx[:, 0] >= rows) | (idx[:, 1] < 0) | (idx[:, 1] >= cols)
        if bad.any():
            k = int(np.flatnonzero(bad)[0])
            raise self.fail(f"index {idx[k].tolist()} of entry {k} is outside the dense shape {[rows, cols]}.")
        empty = np.ones(rows, bool)
        empty[idx[:, 0]] = False
        new_rows = np.flatnonzero(empty).astype(idx.dtype)
        all_idx = np.concatenate([idx, np.stack([new_rows, np.zeros_like(new_rows)], axis=1)])
        all_vals = np.concatenate([values, np.full(new_rows.size, default_value, values.dtype)])
        order = np.lexsort((all_idx[:, 1], all_idx[:, 0]))
        return (np.ascontiguousarray(all_idx[order]), all_vals[order], empty)
