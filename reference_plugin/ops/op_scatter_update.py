"""ScatterUpdate-3: ``data`` with the slices at ``indices`` along ``axis`` replaced by ``updates``.

``updates`` has the shape ``data[:axis] + indices.shape + data[axis + 1:]``: the slice of updates
at index position ``j`` of ``indices`` replaces ``data[..., indices[j], ...]``. Negative indices
count from the end of the axis (an extension: the spec expects ``[0, dim)``); an index outside
``[-dim, dim)`` is an InferError. With repeated indices the last update wins (the spec leaves the
order undefined).
"""

from __future__ import annotations

import math

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_index import int_list, normalize_axis, wrap_indices


@register_op("ScatterUpdate", since=3)
class ScatterUpdate3(OpRun):
    def _run(self, data: np.ndarray, indices: np.ndarray, updates: np.ndarray,
             axis: np.ndarray) -> tuple[np.ndarray, ...]:
        if data.ndim == 0:
            raise self.fail("data is a scalar; ScatterUpdate needs rank >= 1.")
        ax = normalize_axis(int_list(axis)[0], data.ndim)
        want = (*data.shape[:ax], *indices.shape, *data.shape[ax + 1:])
        if updates.shape != want:
            raise self.fail(f"updates {list(updates.shape)} must have shape data[:axis] + indices.shape + "
                            f"data[axis+1:] = {list(want)}.")
        idx = wrap_indices(indices, data.shape[ax], "index").reshape(-1)
        out = data.copy()
        upd = updates.reshape(*data.shape[:ax], math.prod(indices.shape), *data.shape[ax + 1:])
        np.moveaxis(out, ax, 0)[idx] = np.moveaxis(upd, ax, 0)
        return (out,)
