"""IDFT-7: the inverse complex-to-complex transform over ``axes``, scaled by ``1 / prod(S_b)``.

``Y[k] = (1 / prod S_b) sum_j X[j] exp(+2 pi i sum_b k_b j_b / S_b)`` after padding/trimming each
axis to its signal size ``S_b``.
"""

from __future__ import annotations

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._common_signal import SignalOp, from_complex


@register_op("IDFT", since=7)
class IDFT7(SignalOp):
    def transform(self, signal: np.ndarray, axes: list[int], sizes: list[int] | None) -> np.ndarray:
        full = self.full_sizes(signal, axes, sizes)
        return from_complex(np.fft.ifftn(self.fit(signal, axes, full), axes=axes))
