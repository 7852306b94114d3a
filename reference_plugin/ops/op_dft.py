"""DFT-7: the complex-to-complex discrete Fourier transform over ``axes`` (no normalization).

``Y[k] = sum_j X[j] exp(-2 pi i sum_b k_b j_b / S_b)`` over the axes, after padding/trimming each
axis to its signal size.
"""

from __future__ import annotations

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._common_signal import SignalOp, from_complex


@register_op("DFT", since=7)
class DFT7(SignalOp):
    def transform(self, signal: np.ndarray, axes: list[int], sizes: list[int] | None) -> np.ndarray:
        full = self.full_sizes(signal, axes, sizes)
        return from_complex(np.fft.fftn(self.fit(signal, axes, full), axes=axes))
