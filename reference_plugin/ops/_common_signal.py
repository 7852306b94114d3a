"""Shared pieces of the signal kernels (DFT-7, IDFT-7, RDFT-9, IRDFT-9, STFT-15, ISTFT-16).

Complex tensors are stored with a trailing dimension of 2 (real, imaginary). Every transform
computes in float64/complex128 with numpy's FFT (exact up to rounding) and rounds once to the
output type; f16/bf16 data are widened first. ``signal_size`` pads with zeros at the end of an
axis or keeps the slice ``0:size`` of it; ``-1`` keeps the axis.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ovconform.errors import InferError
from ovconform.ir import Node, Type
from reference_plugin.ops._base import OpRun
from reference_plugin.ops._common_index import int_list
from reference_plugin.ops._common_types import from_compute, to_compute


def to_complex(data: np.ndarray) -> np.ndarray:
    """``[..., 2]`` real/imaginary pairs as a complex128 array of one rank less."""
    return data[..., 0].astype(np.float64) + 1j * data[..., 1].astype(np.float64)


def from_complex(values: np.ndarray) -> np.ndarray:
    """A complex array as ``[..., 2]`` float64 real/imaginary pairs."""
    return np.stack([values.real, values.imag], axis=-1)


def fit_axis(values: np.ndarray, axis: int, size: int) -> np.ndarray:
    """``values`` trimmed to ``0:size`` or zero-padded at the end along ``axis``."""
    n = values.shape[axis]
    if size < n:
        return np.take(values, np.arange(size), axis=axis)
    if size > n:
        pad = [(0, 0)] * values.ndim
        pad[axis] = (0, size - n)
        return np.pad(values, pad)
    return values


def normalize_signal_axes(axes: Sequence[int], signal_rank: int) -> list[int]:
    """Axes in ``[-signal_rank, signal_rank)`` made non-negative; InferError for a bad or repeated axis."""
    out = []
    for a in axes:
        if not -signal_rank <= a < signal_rank:
            raise InferError(f"axes value {a} is out of range; allowed [{-signal_rank}, {signal_rank - 1}] "
                             f"for {signal_rank} signal dimension(s).")
        out.append(a + signal_rank if a < 0 else a)
    if len(set(out)) != len(out) or not out:
        raise InferError(f"axes {list(axes)} must be a non-empty list of different axes.")
    return out


class SignalOp(OpRun):
    """Reads ``axes`` and ``signal_size`` (constant at build time or given at run time) and converts
    the data; subclasses implement :meth:`transform` over the complex (or real) signal."""

    #: True when ``data`` holds complex values (a last dimension of 2).
    complex_input = True

    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.t: Type = self.in_types[0]
        self.out_t: Type = self.out_types[0]
        axes = self.const_input(1)
        sizes = self.const_input(2)
        self.axes = None if axes is None else int_list(axes)
        self.sizes = None if sizes is None else int_list(sizes)

    def _run(self, data: np.ndarray, axes: np.ndarray, signal_size: np.ndarray | None = None) -> tuple[np.ndarray]:
        signal_rank = data.ndim - 1 if self.complex_input else data.ndim
        if self.complex_input and (data.ndim < 2 or data.shape[-1] != 2):
            raise self.fail(f"data shape {list(data.shape)} must end with a dimension of 2.")
        ax = normalize_signal_axes(self.axes if self.axes is not None else int_list(axes), signal_rank)
        given = None
        if self.n_inputs == 3:
            given = self.sizes if self.sizes is not None else int_list(signal_size)  # type: ignore[arg-type]
            if len(given) != len(ax):
                raise self.fail(f"signal_size {given} must have one entry per axis ({len(ax)} axes).")
            if any(s != -1 and s < 1 for s in given):
                raise self.fail(f"signal_size {given} must hold -1 or positive sizes.")
        values = to_compute(data, self.t).astype(np.float64)
        signal = to_complex(values) if self.complex_input else values
        return (from_compute(self.transform(signal, ax, given), self.out_t),)

    def transform(self, signal: np.ndarray, axes: list[int], sizes: list[int] | None) -> np.ndarray:
        raise NotImplementedError

    @staticmethod
    def full_sizes(signal: np.ndarray, axes: list[int], sizes: list[int] | None) -> list[int]:
        """The signal size of each axis: the given one, or the axis length for ``-1``/no input."""
        if sizes is None:
            return [signal.shape[a] for a in axes]
        return [signal.shape[a] if s == -1 else s for a, s in zip(axes, sizes, strict=True)]

    @staticmethod
    def fit(signal: np.ndarray, axes: list[int], sizes: list[int]) -> np.ndarray:
        for a, s in zip(axes, sizes, strict=True):
            signal = fit_axis(signal, a, s)
        return signal


def padded_window(window: np.ndarray, frame_size: int) -> np.ndarray:
    """The window zero-padded to ``frame_size``: ``(frame_size - length) // 2`` zeros on the left."""
    if window.ndim != 1 or window.shape[0] > frame_size:
        raise InferError(f"window shape {list(window.shape)} must be 1-D and at most frame_size {frame_size} long.")
    left = (frame_size - window.shape[0]) // 2
    return np.pad(window, (left, frame_size - window.shape[0] - left))
