"""ScatterElementsUpdate-3 and -12: ``data`` with each element of ``updates`` applied at the position
of that element with its ``axis`` coordinate replaced by the matching value of ``indices``.

``indices`` and ``updates`` share one shape, of the data's rank, with dims no larger than the data's
except along ``axis``. Version 3 overwrites; version 12 combines by ``reduction`` (none, sum, prod,
min, max, mean) starting from the data value (``use_init_val=true``) or from the updates alone.
Integer ``mean`` rounds toward minus infinity; f16/bf16 compute in f32 and round once. Negative
indices count from the end of the axis; an index outside ``[-dim, dim)`` is an InferError. With
``reduction="none"`` the last of several updates of one position wins (undefined in the spec).
"""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_index import int_list, normalize_axis, scatter_reduce, wrap_indices
from reference_plugin.ops._common_types import from_compute, to_compute


@register_op("ScatterElementsUpdate", since=3)
class ScatterElementsUpdate3(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.reduction: str = node.attrs.get("reduction", "none")
        self.use_init_val: bool = node.attrs.get("use_init_val", True)

    def _run(self, data: np.ndarray, indices: np.ndarray, updates: np.ndarray,
             axis: np.ndarray) -> tuple[np.ndarray, ...]:
        if data.ndim == 0 or indices.shape != updates.shape or indices.ndim != data.ndim:
            raise self.fail(f"indices {list(indices.shape)} and updates {list(updates.shape)} must share one "
                            f"shape of the rank of data {list(data.shape)} (rank >= 1).")
        ax = normalize_axis(int_list(axis)[0], data.ndim)
        bigger = [i for i in range(data.ndim) if i != ax and indices.shape[i] > data.shape[i]]
        if bigger:
            raise self.fail(f"indices {list(indices.shape)} is larger than data {list(data.shape)} in dim "
                            f"{bigger[0]}, which is not the axis.")
        coords: list[np.ndarray] = list(np.indices(indices.shape, sparse=True))
        coords[ax] = wrap_indices(indices, data.shape[ax], "index")
        targets = np.ravel_multi_index(np.broadcast_arrays(*coords), data.shape).reshape(-1)
        t = self.in_types[0]
        out = np.array(to_compute(data, t), copy=True).reshape(-1)
        scatter_reduce(out, targets, to_compute(updates, t).reshape(-1), self.reduction, self.use_init_val)
        return (from_compute(out.reshape(data.shape), t),)


@register_op("ScatterElementsUpdate", since=12)
class ScatterElementsUpdate12(ScatterElementsUpdate3):
    """ScatterElementsUpdate-12: adds ``reduction`` and ``use_init_val``."""
