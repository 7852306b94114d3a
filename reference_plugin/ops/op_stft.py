"""STFT-15: the short-time Fourier transform of a real signal ``[signal_size]`` or ``[batch, signal_size]``.

Frame ``t`` is ``signal[t * frame_step : t * frame_step + frame_size]`` for ``t < frames =
(signal_size - frame_size) // frame_step + 1``, multiplied by the window zero-padded to ``frame_size``
(``(frame_size - window_length) // 2`` zeros on the left, the rest on the right), then transformed as
RDFT (no normalization): ``frame_size // 2 + 1`` complex values per frame. The output is
``[..., frames, bins, 2]``, or ``[..., bins, frames, 2]`` with ``transpose_frames``.
"""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_index import int_list
from reference_plugin.ops._common_signal import from_complex, padded_window
from reference_plugin.ops._common_types import from_compute, to_compute


@register_op("STFT", since=15)
class STFT15(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.transpose: bool = self.attr("transpose_frames")

    def _run(self, signal: np.ndarray, window: np.ndarray, frame_size: np.ndarray,
             frame_step: np.ndarray) -> tuple[np.ndarray, ...]:
        size, step = int_list(frame_size)[0], int_list(frame_step)[0]
        length = signal.shape[-1]
        if size < 1 or step < 1 or size > length:
            raise self.fail(f"frame_size {size} and frame_step {step} must be positive, frame_size at most the "
                            f"signal length {length}.")
        t = self.in_types[0]
        w = padded_window(to_compute(window, t).astype(np.float64), size)
        frames = (length - size) // step + 1
        index = np.arange(frames)[:, None] * step + np.arange(size)[None, :]
        windowed = to_compute(signal, t).astype(np.float64)[..., index] * w  # [..., frames, size]
        out = from_complex(np.fft.rfft(windowed, axis=-1))
        if self.transpose:
            out = np.swapaxes(out, -2, -3)
        return (from_compute(out, self.out_types[0]),)
