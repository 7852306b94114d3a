"""TopK-1, TopK-3 and TopK-11: the ``k`` largest (``mode="max"``) or smallest (``"min"``) elements
along ``axis`` and their indices (``index_element_type``).

Selection ranks by value; among equal values the lower index ranks first (TopK-11's
``stable=true`` rule, applied to every version: the spec leaves ties undefined otherwise).
``sort="value"`` orders the outputs by rank, ``sort="index"`` by ascending index, ``sort="none"``
as ranked (the spec leaves that order open). ``k`` larger than the axis gives the whole axis (the
spec allows ``1 <= k <= dim``). NaN counts as larger than every number (numpy's sort order): first
for ``max``, last for ``min``. f16/bf16 compare in f32.
"""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_index import int_list, normalize_axis
from reference_plugin.ops._common_types import to_compute


def rank_order(x: np.ndarray, axis: int, largest: bool) -> np.ndarray:
    """Indices along ``axis`` from best to worst, ties by ascending index."""
    if not largest:
        return np.argsort(x, axis=axis, kind="stable")
    n = x.shape[axis]
    flipped = np.argsort(np.flip(x, axis=axis), axis=axis, kind="stable")
    return (n - 1) - np.flip(flipped, axis=axis)


@register_op("TopK", since=1)
class TopK1(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.axis: int = node.attrs["axis"]
        self.largest = node.attrs["mode"] == "max"
        self.sort: str = node.attrs["sort"]

    def _run(self, data: np.ndarray, k: np.ndarray) -> tuple[np.ndarray, ...]:
        if data.ndim == 0:
            raise self.fail("data is a scalar; TopK needs rank >= 1.")
        axis = normalize_axis(self.axis, data.ndim)
        kk = int_list(k)[0]
        if kk < 0:
            raise self.fail(f"k={kk} must be non-negative.")
        kk = min(kk, data.shape[axis])
        order = rank_order(to_compute(data, self.in_types[0]), axis, self.largest)
        chosen = np.take(order, np.arange(kk), axis=axis)
        if self.sort == "index":
            chosen = np.sort(chosen, axis=axis)
        values = np.take_along_axis(data, chosen, axis=axis)
        return values, chosen.astype(self.out_dtypes[1])


@register_op("TopK", since=3)
class TopK3(TopK1):
    """TopK-3: as TopK-1 (``k`` of any integer type)."""


@register_op("TopK", since=11)
class TopK11(TopK1):
    """TopK-11: adds ``stable`` (ties by ascending index, which REFERENCE always does)."""
