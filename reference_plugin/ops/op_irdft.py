"""IRDFT-9: the inverse complex-to-real transform over ``axes``, scaled by ``1 / prod(S_b)``.

The input is the non-redundant half of a Hermitian spectrum along the last listed axis. Axes other
than the last are padded/trimmed to their signal sizes and inverse-transformed as IDFT does. Along
the last axis, whose output length ``S`` is ``signal_size`` (``2 * (D - 1)`` when absent or -1),
the half spectrum is padded/trimmed to ``S // 2 + 1`` values and extended by conjugate symmetry
(``F[S - j] = conj(F[j])``) to the full spectrum; the output is the real part of its inverse
transform. This is OpenVINO's meaning of the spec (its examples and its CPU plugin; the spec's
closed formula sums over the untrimmed input and is not self-consistent): numpy's ``irfftn``.
The imaginary parts of the DC (and, for even ``S``, the Nyquist) terms do not contribute.
"""

from __future__ import annotations

import numpy as np

from reference_plugin.ops import register_op
from reference_plugin.ops._common_signal import SignalOp


@register_op("IRDFT", since=9)
class IRDFT9(SignalOp):
    def transform(self, signal: np.ndarray, axes: list[int], sizes: list[int] | None) -> np.ndarray:
        full = [signal.shape[a] for a in axes]
        full[-1] = 2 * (full[-1] - 1)
        if sizes is not None:
            full = [f if s == -1 else s for f, s in zip(full, sizes, strict=True)]
        if full[-1] < 1:
            raise self.fail(f"the last axis {axes[-1]} has length {signal.shape[axes[-1]]}; its output length "
                            f"2 * (length - 1) = {full[-1]} must be positive (give a signal_size).")
        return np.fft.irfftn(signal, s=full, axes=axes)
