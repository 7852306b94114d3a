"""Unique-10: the unique elements of the flattened ``data`` (or, with the ``axis`` input, the unique
slices along that axis) and three index outputs.

Outputs: (0) the unique elements/slices, (1) for each, the index of its first occurrence in the
input (``index_element_type``), (2) for each input element/slice, the index of its value in output
0 (``index_element_type``), (3) how often each occurs (``count_element_type``). With
``sorted=true`` output 0 is ascending (slices in lexicographic order of their flattened values);
otherwise it keeps the order of first occurrence. f16/bf16 compare in f32; -0.0 equals 0.0 and
the first of them is kept.
"""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_index import int_list, normalize_axis
from reference_plugin.ops._common_types import to_compute


def unique_rows(rows: np.ndarray, keep_sorted: bool) -> tuple[np.ndarray, ...]:
    """(first index, inverse, counts) of the unique rows of a 2D array, in output order."""
    _, first, inverse, counts = np.unique(rows, axis=0, return_index=True, return_inverse=True, return_counts=True)
    inverse = inverse.reshape(-1)
    if keep_sorted:
        return first, inverse, counts
    order = np.argsort(first, kind="stable")
    position = np.empty_like(order)
    position[order] = np.arange(len(order))
    return first[order], position[inverse], counts[order]


@register_op("Unique", since=10)
class Unique10(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.sorted: bool = node.attrs["sorted"]
        const = self.const_input(1)
        self.axis = int_list(const)[0] if const is not None else None

    def _run(self, data: np.ndarray, *axis: np.ndarray) -> tuple[np.ndarray, ...]:
        values = to_compute(data, self.in_types[0])
        values = values + 0 if values.dtype.kind == "f" else values  # -0.0 -> 0.0
        if axis:
            if data.ndim == 0:
                raise self.fail("data is a scalar; it has no axis for Unique.")
            ax = normalize_axis(self.axis if self.axis is not None else int_list(axis[0])[0], data.ndim)
            rows = np.moveaxis(values, ax, 0).reshape(data.shape[ax], -1)
            first, inverse, counts = unique_rows(rows, self.sorted)
            out = np.take(data, first, axis=ax)
        else:
            first, inverse, counts = unique_rows(values.reshape(-1, 1), self.sorted)
            out = data.reshape(-1)[first]
        it, ct = self.out_dtypes[1], self.out_dtypes[3]
        return out, first.astype(it), inverse.astype(it), counts.astype(ct)
