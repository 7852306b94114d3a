"""Builders of the "signal" family: DFT-7, IDFT-7, RDFT-9, IRDFT-9, STFT-15 and ISTFT-16 (every version in
opset1..opset16).

Complex numbers are a trailing dimension of 2 (real, imaginary). Inputs: ``data``, ``axes`` (1-D i32/i64)
and the optional ``signal_size`` (1-D i32/i64, one entry per axis: ``-1`` keeps the axis length,
a larger value zero-pads at the end, a smaller one trims). None of the ops has attributes.

* DFT/IDFT: complex data ``[D_0, ..., D_{r-2}, 2]``; axes in ``[-(r - 1), r - 2]`` (a negative axis
  ``a`` is ``a + r - 1``); the output is complex with the transformed axes resized to the signal size.
* RDFT: real data of rank ``r``, axes in ``[-r, r - 1]``; the output is complex: the last listed axis
  becomes ``signal_size // 2 + 1`` long (the non-redundant half of the spectrum) and ``2`` is appended.
* IRDFT: complex data as DFT; the output is real (rank ``r - 1``); the last listed axis becomes
  ``2 * (D - 1)`` long unless a signal size is given.

* STFT: real ``signal [signal_size]`` or ``[batch, signal_size]``, ``window [window_length]``,
  scalar ``frame_size`` and ``frame_step`` (i32/i64); output ``[..., frames, frame_size // 2 + 1, 2]``
  (``transpose_frames``: ``[..., frame_size // 2 + 1, frames, 2]``) with
  ``frames = (signal_size - frame_size) // frame_step + 1``.
* ISTFT: complex ``data [frame_size // 2 + 1, frames, 2]`` or ``[batch, ..]``, ``window``, scalar
  ``frame_size``/``frame_step`` and the optional ``signal_length`` (scalar or 1-element 1-D); output
  ``[signal_length]`` or ``[batch, signal_length]``, by default ``(frames - 1) * frame_step`` (``center``)
  or that plus ``frame_size``; attributes ``center`` and ``normalized``.

Axes known at build time (a Constant) are validated (range, no repeats, never the complex axis);
unknown axes make every dimension but the complex one dynamic; an unknown ``signal_size`` makes
the transformed dimensions dynamic.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ovconform.errors import ValidationError
from ovconform.ir import AttrSpec, Dimension, Node, Output, PartialShape, Type, constant_value, define_op, make_node
from ovconform.opset._helpers import NodeInput, as_output, make_constant, require

__all__ = ["dft", "idft", "irdft", "istft", "rdft", "stft"]

_INDEX_TYPES = (Type.i32, Type.i64)


# -- input checks -------------------------------------------------------------------------------------------

def _check_index_input(node: Node, port: int, what: str) -> np.ndarray | None:
    """``axes`` or ``signal_size``: a 1-D i32/i64 tensor; its value when known at build time."""
    et = node.get_input_element_type(port)
    require(et in _INDEX_TYPES, f"{what} element type {et} is not allowed; allowed: i32, i64.")
    shape = node.get_input_partial_shape(port)
    require(not shape.has_rank() or len(shape) == 1, f"{what} shape {shape} is not allowed; it must be 1-D.")
    value = constant_value(node.input_value(port))
    return None if value is None else np.asarray(value).reshape(-1).astype(np.int64)


def _normalized_axes(axes: np.ndarray, rank: int, complex_input: bool) -> list[int]:
    """Axes in ``[0, n)`` where ``n`` is the number of signal dims (rank, less the complex axis)."""
    n = rank - 1 if complex_input else rank
    out = []
    for a in axes.tolist():
        require(-n <= a < n, f"axes value {a} is out of range for data of rank {rank}; allowed "
                             f"[{-n}, {n - 1}]" + (" (the last, complex axis cannot be transformed)."
                                                   if complex_input else "."))
        out.append(a + n if a < 0 else a)
    require(len(set(out)) == len(out), f"axes {axes.tolist()} repeat an axis (after normalization: {out}).")
    return out


def _check_sizes(sizes: np.ndarray, n_axes: int | None) -> None:
    if n_axes is not None:
        require(len(sizes) == n_axes, f"signal_size {sizes.tolist()} must have one entry per axis "
                                      f"({n_axes} axes).")
    bad = [int(s) for s in sizes if s != -1 and s < 1]
    require(not bad, f"signal_size {sizes.tolist()} holds {bad}; each entry must be -1 or positive.")


def _inputs(node: Node, complex_input: bool) -> tuple[Type, PartialShape, list[int] | None, np.ndarray | None, bool]:
    """Validate all inputs: element type, data shape, normalized axes (None when unknown) and sizes."""
    et = node.get_input_element_type(0)
    require(et.is_real(), f"data element type {et} is not allowed; it must be a floating-point type.")
    data = node.get_input_partial_shape(0)
    axes_value = _check_index_input(node, 1, "axes")
    has_sizes = node.get_input_size() == 3
    sizes = _check_index_input(node, 2, "signal_size") if has_sizes else None
    axes_shape = node.get_input_partial_shape(1)
    n_axes = len(axes_value) if axes_value is not None else (
        axes_shape[0].get_length() if axes_shape.has_rank() and axes_shape[0].is_static else None)
    require(n_axes != 0, "axes is empty; at least one axis must be given.")
    if has_sizes:
        size_shape = node.get_input_partial_shape(2)
        if n_axes is not None and size_shape.has_rank() and size_shape[0].is_static:
            require(size_shape[0].get_length() == n_axes,
                    f"signal_size shape {size_shape} must match the number of axes ({n_axes}).")
        if sizes is not None:
            _check_sizes(sizes, n_axes)
    axes = None
    if data.has_rank():
        rank = len(data)
        if complex_input:
            require(rank >= 2, f"data shape {data} must have rank >= 2 (complex values as a last dim of 2).")
            require(data[rank - 1].compatible(2), f"data shape {data} must end with a dimension of 2 "
                                                  "(real and imaginary parts).")
        else:
            require(rank >= 1, f"data shape {data} must have rank >= 1.")
        signal_rank = rank - 1 if complex_input else rank
        if n_axes is not None:
            require(n_axes <= signal_rank, f"{n_axes} axes are given for data shape {data}, which has only "
                                           f"{signal_rank} signal dimension(s).")
        if axes_value is not None:
            axes = _normalized_axes(axes_value, rank, complex_input)
    return et, data, axes, sizes, has_sizes


def _sized(dim: Dimension, size: int | None, known: bool) -> Dimension:
    """An axis after padding/trimming: ``size`` (-1 keeps ``dim``); dynamic when the size is unknown."""
    if not known:
        return Dimension.dynamic()
    return dim if size is None or size == -1 else Dimension(size)


def _resized_dims(data: PartialShape, axes: list[int], sizes: np.ndarray | None, has_sizes: bool) -> list[Dimension]:
    dims = list(data.dims)
    for i, a in enumerate(axes):
        size = None if sizes is None else int(sizes[i])
        dims[a] = _sized(dims[a], size, not has_sizes or sizes is not None)
    return dims


# -- inference ----------------------------------------------------------------------------------------------

def _infer_complex(node: Node) -> list[tuple[Type, PartialShape]]:
    et, data, axes, sizes, has_sizes = _inputs(node, complex_input=True)
    if not data.has_rank():
        return [(et, PartialShape.dynamic())]
    if axes is None:
        return [(et, PartialShape([*[Dimension.dynamic()] * (len(data) - 1), 2]))]
    dims = _resized_dims(data, axes, sizes, has_sizes)
    return [(et, PartialShape([*dims[:-1], 2]))]


define_op("DFT", 7, inputs=(2, 3))(_infer_complex)
define_op("IDFT", 7, inputs=(2, 3))(_infer_complex)


@define_op("RDFT", 9, inputs=(2, 3))
def _infer_rdft(node: Node) -> list[tuple[Type, PartialShape]]:
    et, data, axes, sizes, has_sizes = _inputs(node, complex_input=False)
    if not data.has_rank():
        return [(et, PartialShape.dynamic())]
    if axes is None:
        return [(et, PartialShape([*[Dimension.dynamic()] * len(data), 2]))]
    dims = _resized_dims(data, axes, sizes, has_sizes)
    last = dims[axes[-1]]
    dims[axes[-1]] = Dimension(last.get_length() // 2 + 1) if last.is_static else Dimension.dynamic()
    return [(et, PartialShape([*dims, 2]))]


@define_op("IRDFT", 9, inputs=(2, 3))
def _infer_irdft(node: Node) -> list[tuple[Type, PartialShape]]:
    et, data, axes, sizes, has_sizes = _inputs(node, complex_input=True)
    if not data.has_rank():
        return [(et, PartialShape.dynamic())]
    if axes is None:
        return [(et, PartialShape.dynamic(len(data) - 1))]
    dims = list(data.dims[:-1])
    for i, a in enumerate(axes):
        known = not has_sizes or sizes is not None
        size = None if sizes is None else int(sizes[i])
        if i == len(axes) - 1 and (size is None or size == -1) and known:
            d = dims[a]
            require(not d.is_static or d.get_length() >= 2,
                    f"data shape {data}: the last transformed axis {a} has length {d}; without a signal size "
                    "(absent or -1) its output length 2 * (length - 1) must be positive, so the length must be >= 2.")
            dims[a] = Dimension(2 * (d.get_length() - 1)) if d.is_static else Dimension.dynamic()
        else:
            dims[a] = _sized(dims[a], size, known)
    return [(et, PartialShape(dims))]


# -- builders -----------------------------------------------------------------------------------------------

def _index_input(value: NodeInput, what: str, op: str) -> Output:
    if isinstance(value, (Node, Output)):
        return as_output(value)
    arr = np.asarray(value)
    if arr.dtype.kind not in "iu":
        raise ValidationError(f"{op}: {what} {value!r} must be integers (i32 or i64).")
    return make_constant(arr.reshape(-1), Type.i64).output(0)


def _build(op: str, version: int, data: NodeInput, axes: NodeInput, signal_size: Any, name: str | None) -> Node:
    inputs = [as_output(data), _index_input(axes, "axes", op)]
    if signal_size is not None:
        inputs.append(_index_input(signal_size, "signal_size", op))
    return make_node(op, version, inputs, {}, name)


def dft(data: NodeInput, axes: NodeInput, signal_size: NodeInput | None = None, name: str | None = None) -> Node:
    """DFT-7 of complex ``data`` (last dim 2) over ``axes`` (literals become an i64 Constant)."""
    return _build("DFT", 7, data, axes, signal_size, name)


def idft(data: NodeInput, axes: NodeInput, signal_size: NodeInput | None = None, name: str | None = None) -> Node:
    """IDFT-7 of complex ``data`` over ``axes``, scaled by 1 / (product of the signal sizes)."""
    return _build("IDFT", 7, data, axes, signal_size, name)


def rdft(data: NodeInput, axes: NodeInput, signal_size: NodeInput | None = None, name: str | None = None) -> Node:
    """RDFT-9 of real ``data`` over ``axes``: the non-redundant half spectrum, complex (last dim 2)."""
    return _build("RDFT", 9, data, axes, signal_size, name)


def irdft(data: NodeInput, axes: NodeInput, signal_size: NodeInput | None = None, name: str | None = None) -> Node:
    """IRDFT-9 of a complex half spectrum over ``axes``: a real signal."""
    return _build("IRDFT", 9, data, axes, signal_size, name)


# -- STFT-15 and ISTFT-16 -------------------------------------------------------------------------------------------

def _scalar_input(node: Node, port: int, what: str, allow_1d: bool = False) -> int | None:
    """A scalar i32/i64 input (a 1-element 1-D tensor too when ``allow_1d``); its value when constant."""
    et = node.get_input_element_type(port)
    require(et in _INDEX_TYPES, f"{what} element type {et} is not allowed; allowed: i32, i64.")
    shape = node.get_input_partial_shape(port)
    ok = not shape.has_rank() or len(shape) == 0 or (allow_1d and len(shape) == 1 and shape[0].compatible(1))
    require(ok, f"{what} shape {shape} is not allowed; it must be a scalar" + (" or [1]." if allow_1d else "."))
    value = constant_value(node.input_value(port))
    return None if value is None else int(np.asarray(value).reshape(-1)[0])


def _frame_inputs(node: Node) -> tuple[Type, int | None, int | None, Dimension]:
    """Validate data/window types and frame_size/frame_step; return the type, the two values and the
    window length."""
    et = node.get_input_element_type(0)
    require(et.is_real(), f"data element type {et} is not allowed; it must be a floating-point type.")
    wt = node.get_input_element_type(1)
    require(wt == et, f"window element type {wt} must match the data element type {et}.")
    window = node.get_input_partial_shape(1)
    require(not window.has_rank() or len(window) == 1, f"window shape {window} is not allowed; it must be 1-D.")
    size = _scalar_input(node, 2, "frame_size")
    step = _scalar_input(node, 3, "frame_step")
    require(size is None or size > 0, f"frame_size {size} must be positive.")
    require(step is None or step > 0, f"frame_step {step} must be positive.")
    wlen = window[0] if window.has_rank() else Dimension.dynamic()
    require(size is None or not wlen.is_static or wlen.get_length() <= size,
            f"window length {wlen} must not exceed frame_size {size}.")
    return et, size, step, wlen


@define_op("STFT", 15, inputs=4, attrs=[AttrSpec("transpose_frames", "bool")])
def _infer_stft(node: Node) -> list[tuple[Type, PartialShape]]:
    et, size, step, _ = _frame_inputs(node)
    signal = node.get_input_partial_shape(0)
    require(not signal.has_rank() or len(signal) in (1, 2),
            f"signal shape {signal} is not allowed; it must be [signal_size] or [batch, signal_size].")
    if not signal.has_rank():
        return [(et, PartialShape.dynamic())]
    length = signal[len(signal) - 1]
    frames, bins = Dimension.dynamic(), Dimension.dynamic()
    if size is not None:
        bins = Dimension(size // 2 + 1)
        require(not length.is_static or length.get_length() >= size,
                f"frame_size {size} is larger than the signal length {length}.")
        if step is not None and length.is_static:
            frames = Dimension((length.get_length() - size) // step + 1)
    tail = [bins, frames] if node.attrs["transpose_frames"] else [frames, bins]
    return [(et, PartialShape([*signal.dims[:-1], *tail, 2]))]


@define_op("ISTFT", 16, inputs=(4, 5), attrs=[AttrSpec("center", "bool"), AttrSpec("normalized", "bool")])
def _infer_istft(node: Node) -> list[tuple[Type, PartialShape]]:
    et, size, step, _ = _frame_inputs(node)
    data = node.get_input_partial_shape(0)
    require(not data.has_rank() or len(data) in (3, 4),
            f"data shape {data} is not allowed; it must be [fft_results, frames, 2] or "
            "[batch, fft_results, frames, 2].")
    length = _scalar_input(node, 4, "signal_length", allow_1d=True) if node.get_input_size() == 5 else None
    require(length is None or length >= 0, f"signal_length {length} must be >= 0.")
    if not data.has_rank():
        return [(et, PartialShape.dynamic())]
    rank = len(data)
    require(data[rank - 1].compatible(2), f"data shape {data} must end with a dimension of 2 (real and imaginary).")
    bins, frames = data[rank - 3], data[rank - 2]
    if size is not None:
        require(bins.compatible(size // 2 + 1), f"data shape {data} has {bins} frequency bins; frame_size {size} "
                                                f"needs frame_size // 2 + 1 = {size // 2 + 1}.")
    out = Dimension.dynamic()
    if node.get_input_size() == 5:
        if length is not None:
            out = Dimension(length)
    elif size is not None and step is not None and frames.is_static:
        require(frames.get_length() >= 1, f"data shape {data} has no frames.")
        out = Dimension((frames.get_length() - 1) * step + (0 if node.attrs["center"] else size))
    return [(et, PartialShape([*data.dims[:rank - 3], out]))]


def _scalar(value: NodeInput) -> Output:
    if isinstance(value, (Node, Output)):
        return as_output(value)
    arr = np.asarray(value)
    if arr.dtype.kind not in "iu":
        raise ValidationError(f"frame_size, frame_step and signal_length must be integers; got {value!r}.")
    return make_constant(arr.astype(np.int64), Type.i64).output(0)


def stft(data: NodeInput, window: NodeInput, frame_size: NodeInput, frame_step: NodeInput, transpose_frames: bool,
         name: str | None = None) -> Node:
    """STFT-15 of a real signal: windowed frames, each transformed as RDFT (integers become i64 scalars)."""
    inputs = [as_output(data), as_output(window), _scalar(frame_size), _scalar(frame_step)]
    return make_node("STFT", 15, inputs, {"transpose_frames": transpose_frames}, name)


def istft(data: NodeInput, window: NodeInput, frame_size: NodeInput, frame_step: NodeInput, center: bool,
          normalized: bool, signal_length: NodeInput | None = None, name: str | None = None) -> Node:
    """ISTFT-16: the real signal whose STFT is ``data`` (overlap-add of inverse transforms)."""
    inputs = [as_output(data), as_output(window), _scalar(frame_size), _scalar(frame_step)]
    if signal_length is not None:
        inputs.append(_scalar(signal_length))
    return make_node("ISTFT", 16, inputs, {"center": center, "normalized": normalized}, name)
