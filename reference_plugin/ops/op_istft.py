"""ISTFT-16: the real signal whose STFT is ``data`` ``[bins, frames, 2]`` or ``[batch, bins, frames, 2]``.

The spec gives the shapes but no formula; this is OpenVINO CPU's, which is PyTorch's ``istft``
(the op's origin): each frame is inverse-transformed to ``frame_size`` real samples (as IRDFT),
multiplied by the window (zero-padded to ``frame_size`` as in STFT) and overlap-added at
``t * frame_step``; the sum is divided by the overlap-added squared window (0 where that is 0) and,
with ``normalized``, multiplied by ``sqrt(frame_size)``. With ``center`` the first ``frame_size // 2``
samples are dropped. The result has ``signal_length`` samples (zero-padded at the end when longer),
by default ``(frames - 1) * frame_step`` with ``center``, else ``(frames - 1) * frame_step + frame_size``.
For data that is an STFT of ``x`` with a window whose overlap-added square has no zeros, this is ``x``.
"""

from __future__ import annotations

import numpy as np

from ovconform.ir import Node
from reference_plugin.ops import register_op
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_index import int_list
from reference_plugin.ops._common_signal import padded_window, to_complex
from reference_plugin.ops._common_types import from_compute, to_compute


@register_op("ISTFT", since=16)
class ISTFT16(OpRun):
    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.center: bool = self.attr("center")
        self.normalized: bool = self.attr("normalized")

    def _run(self, data: np.ndarray, window: np.ndarray, frame_size: np.ndarray, frame_step: np.ndarray,
             signal_length: np.ndarray | None = None) -> tuple[np.ndarray, ...]:
        size, step = int_list(frame_size)[0], int_list(frame_step)[0]
        if size < 1 or step < 1:
            raise self.fail(f"frame_size {size} and frame_step {step} must be positive.")
        bins, frames = data.shape[-3], data.shape[-2]
        if bins != size // 2 + 1 or frames < 1:
            raise self.fail(f"data shape {list(data.shape)} must have frame_size // 2 + 1 = {size // 2 + 1} "
                            f"frequency bins and at least one frame.")
        t = self.in_types[0]
        w = padded_window(to_compute(window, t).astype(np.float64), size)
        spectra = np.swapaxes(to_complex(to_compute(data, t).astype(np.float64)), -1, -2)  # [..., frames, bins]
        chunks = np.fft.irfft(spectra, n=size, axis=-1) * w  # [..., frames, size]
        full = (frames - 1) * step + size
        index = (np.arange(frames)[:, None] * step + np.arange(size)[None, :]).reshape(-1)
        acc = np.zeros((*data.shape[:-3], full))
        # numpy's stub for ufunc.at lists array indices only; a tuple index is what numpy documents and runs
        np.add.at(acc, (..., index), chunks.reshape(*chunks.shape[:-2], -1))  # type: ignore[arg-type]
        envelope = np.zeros(full)
        np.add.at(envelope, index, np.tile(w * w, frames))
        out = np.where(envelope != 0, acc / np.where(envelope == 0, 1.0, envelope), 0.0)
        if self.normalized:
            out = out * np.sqrt(size)
        margin = size // 2 if self.center else 0
        length = full - size if self.center else full
        if signal_length is not None:
            length = int_list(signal_length)[0]
            if length < 0:
                raise self.fail(f"signal_length {length} must be >= 0.")
        result = np.zeros((*data.shape[:-3], length))
        keep = max(0, min(length, full - margin))
        result[..., :keep] = out[..., margin:margin + keep]
        return (from_compute(result, self.out_types[0]),)
