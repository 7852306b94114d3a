"""OpenVINO CPU deviations from the spec for the "signal" family (records as in openvino_deviations.py)."""

from __future__ import annotations

import numpy as np
from openvino_deviations import SPEC, Deviation, Witness, _case, _param, input_value, op_nodes

from ovconform import opset as ops
from ovconform.opcases import OpCase

# -- IRDFT-9 zero-padding an axis other than the last one ---------------------------------------------------------


def _irdft_pads_inner_axis(case: OpCase) -> bool:
    for node in op_nodes(case, "IRDFT", (9,)):
        axes, sizes = input_value(case, node, 1), input_value(case, node, 2) if node.get_input_size() == 3 else None
        shape = node.get_input_partial_shape(0)
        if sizes is None:
            continue
        if axes is None or not shape.has_rank():
            return True
        signal_rank = len(shape) - 1
        for a, s in list(zip(np.asarray(axes).reshape(-1).tolist(), np.asarray(sizes).reshape(-1).tolist(),
                             strict=True))[:-1]:
            d = shape[a + signal_rank if a < 0 else a]
            if not d.is_static or s > d.get_length():
                return True
    return False


def _irdft_witness() -> Witness:
    x = np.zeros((2, 3, 2), np.float32)
    x[0, 0, 0] = x[1, 0, 0] = 16.0  # X[0, 0] = X[1, 0] = 16, every other term 0
    p = _param("data", x)
    node = ops.irdft(p, np.array([0, 1], np.int64), np.array([4, 4], np.int64))
    # axis 0 zero-padded to 4 and inverse-transformed: (16 + 16 e^{i pi m / 2}) / 4 = [8, 4+4i, 0, 4-4i];
    # the last axis holds only its DC term, so each row is constant: Re(Z[m]) / 4.
    expected = np.repeat(np.array([[2.0], [1.0], [0.0], [1.0]], np.float32), 4, axis=1)
    return Witness(_case("IRDFT", 9, [node], [p], {"data": x}), [expected])


# -- IRDFT-9 over three or more axes with a signal size other than the default ------------------------------------


def _irdft_default_sizes(shape: list[int], axes: list[int]) -> list[int]:
    sizes = [shape[a] for a in axes]
    sizes[-1] = 2 * (sizes[-1] - 1)
    return sizes


def _irdft_3d_resized(case: OpCase) -> bool:
    for node in op_nodes(case, "IRDFT", (9,)):
        if node.get_input_size() < 3:
            continue
        axes, sizes = input_value(case, node, 1), input_value(case, node, 2)
        shape = node.get_input_partial_shape(0)
        if axes is None or sizes is None or not shape.is_static:
            return True
        dims = list(shape.to_shape())[:-1]
        ax = [a + len(dims) if a < 0 else a for a in np.asarray(axes).reshape(-1).tolist()]
        if len(ax) >= 3 and np.asarray(sizes).reshape(-1).tolist() != _irdft_default_sizes(dims, ax):
            return True
    return False


def _idft_matrix(n: int) -> np.ndarray:
    """The inverse DFT matrix for n = 2 or 4, whose twiddles are exactly +-1 and +-i."""
    w = np.exp(2j * np.pi * np.outer(np.arange(n), np.arange(n)) / n)
    return (np.round(w.real) + 1j * np.round(w.imag)) / n


def _irdft_3d_witness() -> Witness:
    x = np.random.default_rng(5).integers(-2, 3, (3, 4, 3, 2)).astype(np.float32)
    p = _param("data", x)
    node = ops.irdft(p, np.array([0, 1, 2], np.int64), np.array([2, 2, 4], np.int64))
    # trim to [2, 2, 3] (3 = 4 // 2 + 1), extend the last axis by conjugate symmetry to 4, inverse DFT by
    # matrices: lengths 2 and 4 have twiddles +-1, +-i, so every value is exact.
    z = (x[..., 0] + 1j * x[..., 1]).astype(np.complex128)[:2, :2, :3]
    full = np.concatenate([z, np.conj(z[:, :, 1:2])], axis=2)
    y = np.einsum("am,bn,co,mno->abc", _idft_matrix(2), _idft_matrix(2), _idft_matrix(4), full)
    return Witness(_case("IRDFT", 9, [node], [p], {"data": x}), [y.real.astype(np.float32)])


# -- ISTFT-16 with center, an odd frame_size and no signal_length --------------------------------------------------


def _istft_odd_center_default_length(case: OpCase) -> bool:
    for node in op_nodes(case, "ISTFT", (16,)):
        if not node.attrs["center"] or node.get_input_size() == 5:
            continue
        size = input_value(case, node, 2)
        if size is None or int(np.asarray(size).reshape(-1)[0]) % 2 == 1:
            return True
    return False


def _istft_witness() -> Witness:
    data = np.zeros((2, 3, 2), np.float32)
    data[0, :, 0] = 3.0  # three frames, each only a DC term of 3: every frame is [1, 1, 1]
    window = np.ones(3, np.float32)
    pd, pw = _param("data", data), _param("window", window)
    node = ops.istft(pd, pw, np.int64(3), np.int64(3), center=True, normalized=False)
    # default length (frames - 1) * frame_step = 6 samples of the overlap-added frames, after dropping 3 // 2
    return Witness(_case("ISTFT", 16, [node], [pd, pw], {"data": data, "window": window}),
                   [np.ones(6, np.float32)])


DEVIATIONS: tuple[Deviation, ...] = (
    Deviation(
        "IRDFT", (9,), _irdft_pads_inner_axis,
        "a signal_size larger than the input along an axis other than the last listed one: OpenVINO CPU "
        "returns wrong values (often huge, like uninitialized memory); the spec zero-pads the axis at the end",
        f"{SPEC}/signals/irdft-9.html",
        "data [2, 3, 2] with X[0, 0] = X[1, 0] = 16 and zeros elsewhere, axes [0, 1], signal_size [4, 4]: the "
        "spec gives rows [2, 1, 0, 1] (each constant along axis 1); CPU gives other values. Drawn cases show "
        "errors up to 1e34 (data [5, 2, 6, 2, 2], axes [1, -2], signal_size [6, 1]); trimming is right.",
        _irdft_witness),
    Deviation(
        "IRDFT", (9,), _irdft_3d_resized,
        "three or more axes with a signal_size other than the default (trimming some axis): OpenVINO CPU "
        "returns wrong values (NaN, inf, or values of the wrong elements); two axes are right",
        f"{SPEC}/signals/irdft-9.html",
        "data [3, 4, 3, 2] of small integers, axes [0, 1, 2], signal_size [2, 2, 4] (the spec trims axes 0 and "
        "1 to 2 and keeps the 3 = 4 // 2 + 1 terms of the last axis): CPU differs from the exact result. A "
        "sweep over data [3, 4, 3, 2], every axes order and size, found CPU right only where at most the "
        "outermost transformed axis is trimmed.",
        _irdft_3d_witness),
    Deviation(
        "ISTFT", (16,), _istft_odd_center_default_length,
        "center=true with an odd frame_size and no signal_length: OpenVINO CPU returns (frames - 1) * frame_step + 1 "
        "samples; the spec's default signal_length with center is (frames - 1) * frame_step",
        f"{SPEC}/signals/istft-16.html",
        "data [2, 3, 2] (frame_size 3, three frames of a DC term 3), window [1, 1, 1], frame_step 3, center=true: "
        "the spec gives 6 samples (all 1); CPU gives 7 (it computes the length as the padded length less "
        "2 * (frame_size // 2)); the spec's own example (frame_size 11, frame_step 3, 16 frames, center) is 45. "
        "Even frame sizes agree.",
        _istft_witness),
)
