"""NonZero-3: the indices of the non-zero elements of ``data``, shape ``[rank, count]``, one column
per element in row-major order (``output_type`` i32 or i64). NaN counts as non-zero; -0.0 as zero.
A scalar is read as a one-element 1D tensor (output ``[1, count]``).
"""

from __future__ import annotations

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun


@register_op("NonZero", since=3)
class NonZero3(OpRun):
    def _run(self, data: np.ndarray) -> tuple[np.ndarray, ...]:
        found = np.nonzero(np.atleast_1d(data) != 0) if self.in_types[0].name != "bf16" else \
            np.nonzero((np.atleast_1d(data) & 0x7FFF) != 0)
        return (np.array(found, dtype=self.out_dtypes[0]).reshape(max(data.ndim, 1), -1),)
