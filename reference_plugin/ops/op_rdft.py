"""RDFT-9: the real-to-complex transform over ``axes`` (no normalization).

The real signal is padded/trimmed to the signal sizes and transformed as DFT does; the output
keeps the non-redundant half ``0 .. S_last // 2`` of the last listed axis.
"""

from __future__ import annotations

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._common_signal import SignalOp, fit_axis, from_complex


@register_op("RDFT", since=9)
class RDFT9(SignalOp):
    complex_input = False

    def transform(self, signal: np.ndarray, axes: list[int], sizes: list[int] | None) -> np.ndarray:
        full = self.full_sizes(signal, axes, sizes)
        spectrum = np.fft.fftn(self.fit(signal, axes, full), axes=axes)
        return from_complex(fit_axis(spectrum, axes[-1], full[-1] // 2 + 1))
