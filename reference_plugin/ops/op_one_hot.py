"""OneHot-1 and OneHot-16: ``indices`` with a new axis of length ``depth`` at ``axis``; position
``j`` of that axis holds ``on_value`` where the index equals ``j``, ``off_value`` elsewhere.

An index outside ``[0, depth)`` selects nothing (all ``off_value``); OneHot-16 with
``negative_indices_mode="normalize"`` first maps an index in ``[-depth, -1]`` to ``index + depth``
(``ignore_negative``, the default, and OneHot-1 leave negative indices selecting nothing).
"""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_index import normalize_axis
from reference_plugin.ops._common_norm import MAX_OUTPUT_ELEMENTS, scalar


@register_op("OneHot", since=1)
class OneHot1(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.axis: int = self.attr("axis")
        self.normalize = node.attrs.get("negative_indices_mode") == "normalize"

    def _run(self, indices: np.ndarray, depth: np.ndarray, on: np.ndarray,
             off: np.ndarray) -> tuple[np.ndarray, ...]:
        d = int(scalar(depth))
        if d < 0:
            raise self.fail(f"depth is {d}; it must be >= 0.")
        if indices.size * d > MAX_OUTPUT_ELEMENTS:
            raise self.fail(f"{indices.size} indices x depth {d} exceed {MAX_OUTPUT_ELEMENTS} output elements.")
        pos = normalize_axis(self.axis, indices.ndim + 1, "attribute 'axis'")
        idx = indices.astype(np.int64) if indices.dtype != np.uint64 else np.minimum(indices, 2**62).astype(np.int64)
        if self.normalize:
            idx = np.where(idx < 0, idx + d, idx)
        classes = np.arange(d, dtype=np.int64).reshape((1,) * pos + (d,) + (1,) * (indices.ndim - pos))
        hit = np.expand_dims(idx, pos) == classes
        out = np.where(hit, scalar(on), scalar(off)).astype(self.out_dtypes[0])
        return (out,)


@register_op("OneHot", since=16)
class OneHot16(OneHot1):
    """OneHot-16: adds ``negative_indices_mode`` (ignore_negative or normalize)."""
