"""Reverse-1: ``data`` with the elements along some axes in reverse order.

Mode "index": input 1 holds axis indices (any integer type; negative counts from the end; an axis
named twice is reversed once — the axes are a set). Mode "mask": input 1 holds one boolean per data
dim, true where that dim is reversed. Reversing axis ``k`` maps output index ``i_k`` to input index
``d_k - 1 - i_k``; every other index is unchanged. No axis named: the data passes through.
"""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_index import int_list, normalize_axis


@register_op("Reverse", since=1)
class Reverse(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.mode = str(self.attr("mode"))
        if self.mode not in ("index", "mask"):
            raise self.fail(f"attribute mode={self.mode!r} is not allowed; allowed: 'index', 'mask'.")

    def _axes(self, rank: int, axes: np.ndarray) -> list[int]:
        if axes.ndim != 1:
            raise self.fail(f"axes has shape {list(axes.shape)}; it must be 1D.")
        if self.mode == "mask":
            if axes.size != rank:
                raise self.fail(f"the mask has {axes.size} value(s); in mode 'mask' it needs one per data dim "
                                f"({rank}).")
            return [k for k in range(rank) if bool(axes[k])]
        values = int_list(axes)
        if values and rank == 0:
            raise self.fail(f"axes {values} name an axis of a scalar, which has none.")
        return sorted({normalize_axis(a, rank, "axes value") for a in values})

    def _run(self, data: np.ndarray, axes: np.ndarray) -> tuple[np.ndarray, ...]:
        chosen = self._axes(data.ndim, axes)
        # np.flip over axis k: output index i_k reads input index d_k - 1 - i_k
        return (np.flip(data, axis=tuple(chosen)).copy() if chosen else data.copy(),)
