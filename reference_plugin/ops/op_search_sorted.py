"""SearchSorted-15: for each of ``values`` the index where it would be inserted into the ascending
last axis of ``sorted_sequence`` to keep it sorted.

``right_mode=false`` gives the first such index (``seq[i-1] < v <= seq[i]``), ``true`` the last
(``seq[i-1] <= v < seq[i]``). A 1D sequence serves every value; an ND sequence has one row per
leading index, and ``values`` shares its leading dims. f16/bf16 compare in f32.
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_types import to_compute


@register_op("SearchSorted", since=15)
class SearchSorted15(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.side: Literal["left", "right"] = "right" if node.attrs["right_mode"] else "left"

    def _run(self, sorted_sequence: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, ...]:
        t = self.in_types[0]
        seq, vals = to_compute(sorted_sequence, t), to_compute(values, t)
        dtype = self.out_dtypes[0]
        if seq.ndim == 0:
            raise self.fail("sorted_sequence is a scalar; it must have rank >= 1.")
        if seq.ndim == 1:
            return (np.searchsorted(seq, vals, side=self.side).astype(dtype),)
        if vals.ndim != seq.ndim or vals.shape[:-1] != seq.shape[:-1]:
            raise self.fail(f"values {list(vals.shape)} must share the leading dims of sorted_sequence "
                            f"{list(seq.shape)}.")
        rows = math.prod(seq.shape[:-1])
        s2, v2 = seq.reshape(rows, seq.shape[-1]), vals.reshape(rows, vals.shape[-1])
        out = np.empty(v2.shape, dtype)
        for r in range(rows):  # one row per leading index (a small batch)
            out[r] = np.searchsorted(s2[r], v2[r], side=self.side)
        return (out.reshape(vals.shape),)
