"""Tests of the signals ops (OpenVINO's op-spec folder "signals"): DFT-7, IDFT-7, RDFT-9, IRDFT-9,
STFT-15 and ISTFT-16 — builder inference and errors (as OpenVINO writes and infers them), REFERENCE
kernel numerics against literal values or independent loop formulas (transcriptions of the specs'
pseudo-code), and the case strategies.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from _op_helpers import P, out, run
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ovconform import opset
from ovconform.errors import InferError, ValidationError
from ovconform.ir import Node, Type, bf16_to_f32, f32_to_bf16, get_opdef
from ovconform.opcases import OpCase, case_strategy
from reference_plugin.evaluate import evaluate

KEYS = [("DFT", 7), ("IDFT", 7), ("RDFT", 9), ("IRDFT", 9)]
ALL_KEYS = [*KEYS, ("STFT", 15), ("ISTFT", 16)]


def _matrix(n: int, sign: int) -> np.ndarray:
    k = np.arange(n)
    return np.exp(sign * 2j * np.pi * np.outer(k, k) / n)


def _fit(x: np.ndarray, axis: int, size: int) -> np.ndarray:
    n = x.shape[axis]
    if size <= n:
        return np.take(x, np.arange(size), axis=axis)
    pad = [(0, 0)] * x.ndim
    pad[axis] = (0, size - n)
    return np.pad(x, pad)


def _apply(x: np.ndarray, axis: int, m: np.ndarray) -> np.ndarray:
    return np.moveaxis(np.tensordot(m, np.moveaxis(x, axis, 0), axes=(1, 0)), 0, axis)


def direct_dft(x: np.ndarray, axes: list[int], sizes: list[int], inverse: bool) -> np.ndarray:
    for a, s in zip(axes, sizes, strict=True):
        x = _apply(_fit(x, a, s), a, _matrix(s, 1 if inverse else -1) / (s if inverse else 1))
    return x


def direct_irdft(x: np.ndarray, axes: list[int], sizes: list[int]) -> np.ndarray:
    """Inner axes as IDFT; the last axis: half spectrum fitted to S // 2 + 1, conjugate-extended, IDFT, real."""
    x = direct_dft(x, axes[:-1], sizes[:-1], inverse=True)
    a, s = axes[-1], sizes[-1]
    half = _fit(x, a, s // 2 + 1)
    mirror = np.conj(np.flip(np.take(half, np.arange(1, (s + 1) // 2), axis=a), axis=a))
    full = np.concatenate([half, mirror], axis=a)
    return _apply(full, a, _matrix(s, 1) / s).real


def as_complex(x: np.ndarray) -> np.ndarray:
    return x[..., 0].astype(np.float64) + 1j * x[..., 1]


def as_pairs(c: np.ndarray) -> np.ndarray:
    return np.stack([c.real, c.imag], axis=-1)


# -- op definitions ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("op", "version"), KEYS)
def test_op_definitions_have_no_attributes(op: str, version: int) -> None:
    d = get_opdef(op, version)
    assert (d.ir_type_name or d.type_name) == op and d.attrs == () and (d.min_inputs, d.max_inputs) == (2, 3)


def test_builders_use_the_opset_versions_and_make_i64_constants() -> None:
    c, r = P([4, 3, 2]), P([4, 3])
    built = [opset.dft(c, [0]), opset.idft(c, [0]), opset.rdft(r, [1]), opset.irdft(c, [1], [4])]
    assert [(n.type_name, n.version) for n in built] == KEYS
    axes = built[3].input_value(1).node
    assert axes.type_name == "Constant" and axes.get_output_element_type(0) == Type.i64
    assert built[3].get_input_size() == 3 and built[0].get_input_size() == 2


# -- shape inference ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("builder", "shape", "axes", "sizes", "expected"), [
    (opset.dft, [4, 5, 2], [1], None, "[4,5,2]"),
    (opset.dft, [4, 5, 2], [-1, 0], [8, -1], "[4,8,2]"),
    (opset.idft, [3, 4, 5, 2], [2, 0], [3, 7], "[7,4,3,2]"),
    (opset.dft, [-1, "2..6", 2], [1], None, "[?,2..6,2]"),
    (opset.dft, [-1, 5, -1], [0], [6], "[6,5,2]"),
    (opset.rdft, [4, 6], [1], None, "[4,4,2]"),
    (opset.rdft, [4, 7], [-1], None, "[4,4,2]"),
    (opset.rdft, [4, 6], [1, 0], [5, 9], "[5,5,2]"),
    (opset.rdft, [4, 6, 3], [0, 2], [-1, 8], "[4,6,5,2]"),
    (opset.irdft, [4, 5, 2], [1], None, "[4,8]"),
    (opset.irdft, [4, 5, 2], [1, 0], [3, 7], "[7,3]"),
    (opset.irdft, [4, 5, 2], [0, 1], [-1, 9], "[4,9]"),
    (opset.irdft, [16, 768, 580, 320, 2], [3, 1, 2], [170, -1, 1024], "[16,768,1024,170]"),
    (opset.irdft, [16, 768, 580, 320, 2], [3, 0, 2], [258, -1, 2056], "[16,768,2056,258]"),
    (opset.irdft, [1, 161, 161, 2], [1, 2], None, "[1,161,320]"),
])
def test_shapes_with_constant_axes(builder: Any, shape: Any, axes: list[int], sizes: list[int] | None,
                                   expected: str) -> None:
    node = builder(P(shape, Type.f16), axes, sizes)
    assert out(node) == expected and node.output(0).get_element_type() == Type.f16


@pytest.mark.parametrize(("builder", "shape", "expected"), [
    (opset.dft, [4, 5, 2], "[?,?,2]"), (opset.rdft, [4, 5], "[?,?,2]"), (opset.irdft, [4, 5, 2], "[?,?]"),
    (opset.dft, "...", "..."),
])
def test_axes_unknown_at_build_time(builder: Any, shape: Any, expected: str) -> None:
    assert out(builder(P(shape), P([1], Type.i32))) == expected


def test_signal_size_unknown_at_build_time_makes_the_axes_dynamic() -> None:
    size = P([2], Type.i64)
    assert out(opset.dft(P([4, 5, 3, 2]), [0, 2], size)) == "[?,5,?,2]"
    assert out(opset.rdft(P([4, 5]), [1], P([1], Type.i64))) == "[4,?,2]"
    assert out(opset.irdft(P([4, 5, 2]), [1], P([1], Type.i64))) == "[4,?]"


@pytest.mark.parametrize(("make", "message"), [
    (lambda: opset.dft(P([4, 5, 2], Type.i32), [0]), r"DFT-7 node.*data element type i32 is not allowed"),
    (lambda: opset.dft(P([4, 5, 3]), [0]), r"DFT-7 node.*must end with a dimension of 2"),
    (lambda: opset.idft(P([2]), [0]), r"IDFT-7 node.*data shape \[2\] must have rank >= 2"),
    (lambda: opset.dft(P([4, 5, 2]), [2]), r"axes value 2 is out of range for data of rank 3; allowed \[-2, 1\]"),
    (lambda: opset.irdft(P([4, 5, 2]), [-3]), r"IRDFT-9 node.*axes value -3 is out of range"),
    (lambda: opset.rdft(P([4, 5]), [2]), r"RDFT-9 node.*axes value 2 is out of range.*allowed \[-2, 1\]"),
    (lambda: opset.dft(P([4, 5, 2]), [0, -2]), r"axes \[0, -2\] repeat an axis"),
    (lambda: opset.dft(P([4, 2]), [0, 0]), r"2 axes are given for data shape \[4,2\]"),
    (lambda: opset.dft(P([4, 5, 2]), [0], [3, 4]), r"signal_size shape \[2\] must match the number of axes \(1\)"),
    (lambda: opset.dft(P([4, 5, 2]), [0], [0]), r"signal_size \[0\] holds \[0\]; each entry must be -1 or positive"),
    (lambda: opset.rdft(P([4, 5]), [0], [-2]), r"holds \[-2\]"),
    (lambda: opset.dft(P([4, 5, 2]), opset.constant(np.array([0.0], np.float32))),
     r"axes element type f32 is not allowed; allowed: i32, i64"),
    (lambda: opset.dft(P([4, 5, 2]), P([1, 1], Type.i64)), r"axes shape \[1,1\] is not allowed; it must be 1-D"),
    (lambda: opset.dft(P([4, 5, 2]), P([2], Type.i64), P([3], Type.i64)),
     r"signal_size shape \[3\] must match the number of axes \(2\)"),
    (lambda: opset.dft(P([4, 5, 2]), np.zeros(0, np.int64)), r"axes is empty"),
    (lambda: opset.irdft(P([4, 1, 2]), [1]), r"IRDFT-9 node.*last transformed axis 1 has length 1"),
    (lambda: opset.irdft(P([4, 1, 2]), [0, 1], [3, -1]), r"IRDFT-9 node.*last transformed axis 1 has length 1"),
    (lambda: opset.dft(P([4, 5, 2]), [0.5]), r"DFT: axes \[0.5\] must be integers"),
])
def test_errors_name_the_node_and_the_bad_value(make: Callable[[], Node], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        make()


# -- kernels: literal values -----------------------------------------------------------------------------------

def test_literal_spectra() -> None:
    impulse = as_pairs(np.array([1, 0, 0, 0], np.complex128)).astype(np.float32)
    assert run(lambda p: opset.dft(p, [0]), impulse).tolist() == [[1, 0]] * 4
    ones = as_pairs(np.ones(4, np.complex128)).astype(np.float32)
    assert run(lambda p: opset.idft(p, [0]), ones).tolist() == [[1, 0], [0, 0], [0, 0], [0, 0]]  # 1/N scaling
    real = np.array([1, 2, 3, 4], np.float32)
    assert run(lambda p: opset.rdft(p, [0]), real).tolist() == [[10, 0], [-2, 2], [-2, 0]]
    half = np.array([[10, 0], [-2, 2], [-2, 0]], np.float32)
    np.testing.assert_allclose(run(lambda p: opset.irdft(p, [0]), half), real, rtol=1e-6)
    # the DC imaginary part does not contribute to IRDFT's real result
    np.testing.assert_allclose(run(lambda p: opset.irdft(p, [0]), half + [[0, 5], [0, 0], [0, 0]]), real, rtol=1e-6)


def test_signal_size_pads_and_trims_at_the_end() -> None:
    x = as_pairs(np.array([1, 2, 3], np.complex128)).astype(np.float32)
    padded = as_complex(run(lambda p: opset.dft(p, [0], [4]), x))
    np.testing.assert_allclose(padded, [6, -2 - 2j, 2, -2 + 2j], atol=1e-6)
    trimmed = as_complex(run(lambda p: opset.dft(p, [0], [2]), x))
    np.testing.assert_allclose(trimmed, [3, -1], atol=1e-6)
    keep = as_complex(run(lambda p: opset.idft(p, [0], [-1]), x))
    np.testing.assert_allclose(keep, [2, -0.5 - 0.288675j, -0.5 + 0.288675j], atol=1e-6)
    # RDFT pads too (OpenVINO CPU cannot: it is left out of the cross-check)
    r = run(lambda p: opset.rdft(p, [0], [6]), np.array([1, 1, 1], np.float32))
    np.testing.assert_allclose(as_complex(r), [3, 1 - np.sqrt(3) * 1j, 0, 1], atol=1e-6)


# -- kernels: against the direct formula ------------------------------------------------------------------------

RNG = np.random.default_rng(11)
CONFIGS = [([3, 4, 5], [1], None), ([3, 4, 5], [2, 0], [7, -1]), ([3, 4, 5], [-1, -3, 1], [2, 6, 4]),
           ([6], [0], [4]), ([2, 3, 4, 2], [3, 1], [5, 2])]


@pytest.mark.parametrize(("dims", "axes", "sizes"), CONFIGS)
@pytest.mark.parametrize("inverse", [False, True])
def test_dft_and_idft_match_direct_sums(dims: list[int], axes: list[int], sizes: list[int] | None,
                                        inverse: bool) -> None:
    x = RNG.uniform(-2, 2, [*dims, 2]).astype(np.float32)
    builder = opset.idft if inverse else opset.dft
    got = run(lambda p: builder(p, axes, sizes), x)
    norm = [a % len(dims) for a in axes]
    full = [dims[a] if sizes is None or sizes[i] == -1 else sizes[i] for i, a in enumerate(norm)]
    want = as_pairs(direct_dft(as_complex(x), norm, full, inverse))
    assert got.dtype == np.float32 and got.shape == want.shape
    np.testing.assert_allclose(got, want, atol=2e-5, rtol=1e-5)


@pytest.mark.parametrize(("dims", "axes", "sizes"), CONFIGS)
def test_rdft_matches_direct_sums(dims: list[int], axes: list[int], sizes: list[int] | None) -> None:
    x = RNG.uniform(-2, 2, dims).astype(np.float64)
    got = run(lambda p: opset.rdft(p, axes, sizes), x)
    norm = [a % len(dims) for a in axes]
    full = [dims[a] if sizes is None or sizes[i] == -1 else sizes[i] for i, a in enumerate(norm)]
    spectrum = direct_dft(x.astype(np.complex128), norm, full, inverse=False)
    want = as_pairs(np.take(spectrum, np.arange(full[-1] // 2 + 1), axis=norm[-1]))
    assert got.dtype == np.float64 and got.shape == want.shape
    np.testing.assert_allclose(got, want, atol=1e-12)


@pytest.mark.parametrize(("dims", "axes", "sizes"), [
    ([3, 4], [1], None), ([3, 4], [1], [5]), ([3, 4], [1], [9]), ([3, 4], [1, 0], [5, 2]),
    ([3, 4, 3], [0, 2], [5, -1]), ([3, 4, 3], [2, 0, 1], [2, 6, 4]), ([3, 4, 3], [-2, -3], [-1, 3])])
def test_irdft_matches_direct_sums(dims: list[int], axes: list[int], sizes: list[int] | None) -> None:
    x = RNG.uniform(-2, 2, [*dims, 2]).astype(np.float32)
    got = run(lambda p: opset.irdft(p, axes, sizes), x)
    norm = [a % len(dims) for a in axes]
    full = [dims[a] for a in norm]
    full[-1] = 2 * (full[-1] - 1)
    if sizes is not None:
        full = [f if s == -1 else s for f, s in zip(full, sizes, strict=True)]
    want = direct_irdft(as_complex(x), norm, full)
    assert got.dtype == np.float32 and got.shape == want.shape
    np.testing.assert_allclose(got, want, atol=2e-5, rtol=1e-5)


def test_rdft_then_irdft_round_trips() -> None:
    x = RNG.uniform(-2, 2, (3, 5, 6)).astype(np.float32)
    spectrum = run(lambda p: opset.rdft(p, [2, 0]), x)
    back = run(lambda p: opset.irdft(p, [2, 0], [6, 3]), spectrum)
    np.testing.assert_allclose(back, x, atol=1e-5)


def test_low_precision_rounds_once() -> None:
    x = RNG.uniform(-2, 2, (4, 3, 2)).astype(np.float16)
    got = run(lambda p: opset.dft(p, [0, 1]), x)
    want = as_pairs(direct_dft(as_complex(x.astype(np.float64)), [0, 1], [4, 3], False)).astype(np.float16)
    assert got.dtype == np.float16
    np.testing.assert_array_max_ulp(got, want, maxulp=1)
    bits = f32_to_bf16(np.array([[1.0, 0.0], [2.0, 0.0]], np.float32))
    got_bf16 = run(lambda p: opset.dft(p, [0]), bits, types=[Type.bf16])
    assert bf16_to_f32(got_bf16).tolist() == [[3.0, 0.0], [-1.0, 0.0]]


def test_axes_and_sizes_given_at_run_time() -> None:
    x = RNG.uniform(-2, 2, (3, 4, 2)).astype(np.float32)
    got = run(lambda p, a, s: opset.dft(p, a, s), x, np.array([-1], np.int32), np.array([6], np.int64))
    np.testing.assert_allclose(got, as_pairs(direct_dft(as_complex(x), [1], [6], False)), atol=2e-5)
    with pytest.raises(InferError, match=r"DFT-7 node.*axes value 2 is out of range"):
        run(lambda p, a: opset.dft(p, a), x, np.array([2], np.int64))
    with pytest.raises(InferError, match=r"RDFT-9 node.*axes \[0, 0\] must be a non-empty list of different axes"):
        run(lambda p, a: opset.rdft(p, a), x[..., 0], np.array([0, 0], np.int64))
    with pytest.raises(InferError, match=r"IDFT-7 node.*signal_size \[0\] must hold -1 or positive sizes"):
        run(lambda p, a, s: opset.idft(p, a, s), x, np.array([0], np.int64), np.array([0], np.int64))


# -- case strategies --------------------------------------------------------------------------------------------

CASE_SETTINGS = settings(max_examples=15, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])



def _op_node(case: OpCase) -> Node:
    (node,) = [n for n in case.model.get_ordered_ops() if n.type_name not in {"Parameter", "Constant", "Result"}]
    return node


@pytest.mark.parametrize(("op", "version"), ALL_KEYS)
@CASE_SETTINGS
@given(data=st.data())
def test_cases_are_valid_and_run(op: str, version: int, data: st.DataObject) -> None:
    case = data.draw(case_strategy(op, version))
    node = _op_node(case)
    assert (node.type_name, node.version) == (op, version)
    for p in case.model.get_parameters():
        assert tuple(case.inputs[p.friendly_name].shape) == p.get_output_partial_shape(0).to_shape()
    (result,) = evaluate(case.model, case.inputs)
    if node.output(0).get_partial_shape().is_static:
        assert result.shape == node.output(0).get_partial_shape().to_shape()
    assert np.all(np.isfinite(result))
    if op in ("RDFT", "IRDFT"):  # OpenVINO CPU runs these only with Constant axes and sizes
        assert {p.friendly_name for p in case.model.get_parameters()} == {"data"}


# -- STFT-15 and ISTFT-16 --------------------------------------------------------------------------------------------

def test_stft_istft_definitions() -> None:
    assert [a.name for a in get_opdef("STFT", 15).attrs] == ["transpose_frames"]
    assert [a.name for a in get_opdef("ISTFT", 16).attrs] == ["center", "normalized"]
    assert (get_opdef("ISTFT", 16).min_inputs, get_opdef("ISTFT", 16).max_inputs) == (4, 5)


@pytest.mark.parametrize(("signal", "window", "size", "step", "transpose", "expected"), [
    ([56], [7], 11, 3, False, "[16,6,2]"), ([56], [7], 11, 3, True, "[6,16,2]"),
    ([3, 56], [7], 11, 3, False, "[3,16,6,2]"), ([3, 56], [7], 11, 3, True, "[3,6,16,2]"),
    ([-1, 56], [7], 11, 3, False, "[?,16,6,2]"), ([3, -1], [7], 11, 3, False, "[3,?,6,2]"),
])
def test_stft_shapes(signal: list[int], window: list[int], size: int, step: int, transpose: bool,
                     expected: str) -> None:
    assert out(opset.stft(P(signal), P(window), size, step, transpose)) == expected


@pytest.mark.parametrize(("data", "size", "step", "center", "length", "expected"), [
    ([6, 16, 2], 11, 3, False, None, "[56]"), ([4, 6, 16, 2], 11, 3, False, None, "[4,56]"),
    ([6, 16, 2], 11, 3, True, None, "[45]"), ([4, 6, 16, 2], 11, 3, True, None, "[4,45]"),
    ([6, 16, 2], 11, 3, False, 64, "[64]"), ([6, -1, 2], 11, 3, False, None, "[?]"),
])
def test_istft_shapes(data: list[int], size: int, step: int, center: bool, length: int | None,
                      expected: str) -> None:
    assert out(opset.istft(P(data), P([7]), size, step, center, False, length)) == expected
    unknown = opset.istft(P(data), P([7]), size, step, center, False, P([1], Type.i32))
    assert out(unknown) == ("[4,?]" if len(data) == 4 else "[?]")


@pytest.mark.parametrize(("make", "message"), [
    (lambda: opset.stft(P([20], Type.i32), P([4], Type.i32), 4, 2, False), r"STFT-15 node.*data element type i32"),
    (lambda: opset.stft(P([20]), P([4], Type.f16), 4, 2, False), r"window element type f16 must match"),
    (lambda: opset.stft(P([20]), P([5]), 4, 2, False), r"window length 5 must not exceed frame_size 4"),
    (lambda: opset.stft(P([20]), P([4]), 0, 2, False), r"frame_size 0 must be positive"),
    (lambda: opset.stft(P([20]), P([4]), 4, -1, False), r"frame_step -1 must be positive"),
    (lambda: opset.stft(P([3]), P([4]), 4, 1, False), r"frame_size 4 is larger than the signal length 3"),
    (lambda: opset.stft(P([2, 2, 20]), P([4]), 4, 1, False), r"signal shape \[2,2,20\] is not allowed"),
    (lambda: opset.stft(P([20]), P([4]), P([1], Type.i64), 1, False), r"frame_size shape \[1\] is not allowed"),
    (lambda: opset.stft(P([20]), P([4]), 4.0, 1, False), r"must be integers; got 4.0"),
    (lambda: opset.istft(P([3, 5, 2]), P([4]), 6, 2, False, False), r"ISTFT-16 node.*has 3 frequency bins; "
                                                                     r"frame_size 6 needs .* = 4"),
    (lambda: opset.istft(P([4, 5, 3]), P([4]), 6, 2, False, False), r"must end with a dimension of 2"),
    (lambda: opset.istft(P([4, 5]), P([4]), 6, 2, False, False), r"data shape \[4,5\] is not allowed"),
    (lambda: opset.istft(P([4, 5, 2]), P([4]), 6, 2, False, False, -3), r"signal_length -3 must be >= 0"),
])
def test_stft_istft_errors(make: Callable[[], Node], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        make()


def direct_stft(x: np.ndarray, window: np.ndarray, size: int, step: int) -> np.ndarray:
    left = (size - len(window)) // 2
    w = np.zeros(size)
    w[left:left + len(window)] = window
    frames = [(x[..., t * step:t * step + size] * w) for t in range((x.shape[-1] - size) // step + 1)]
    return np.stack([_apply(f.astype(np.complex128), f.ndim - 1, _matrix(size, -1))[..., :size // 2 + 1]
                     for f in frames], axis=-2)


@pytest.mark.parametrize(("shape", "wlen", "size", "step"), [([20], 6, 6, 2), ([2, 17], 3, 6, 4), ([9], 1, 5, 5)])
@pytest.mark.parametrize("transpose", [False, True])
def test_stft_matches_direct_sums(shape: list[int], wlen: int, size: int, step: int, transpose: bool) -> None:
    x, w = RNG.uniform(-2, 2, shape).astype(np.float32), RNG.uniform(-1, 1, wlen).astype(np.float32)
    got = run(lambda a, b: opset.stft(a, b, size, step, transpose), x, w)
    want = as_pairs(direct_stft(x.astype(np.float64), w.astype(np.float64), size, step))
    if transpose:
        want = np.swapaxes(want, -2, -3)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, atol=2e-5)


@pytest.mark.parametrize(("size", "step", "wlen", "center", "normalized"), [
    (6, 2, 6, False, False), (7, 3, 7, True, True), (8, 1, 4, True, False), (5, 5, 5, False, True)])
def test_istft_inverts_stft(size: int, step: int, wlen: int, center: bool, normalized: bool) -> None:
    x = RNG.uniform(-2, 2, (2, 30)).astype(np.float64)
    w = RNG.uniform(0.5, 1, wlen)
    spectrum = run(lambda a, b: opset.stft(a, b, size, step, True), x, w)
    if normalized:
        spectrum = spectrum / np.sqrt(size)
    frames = spectrum.shape[-2]
    got = run(lambda a, b: opset.istft(a, b, size, step, center, normalized), spectrum, w)
    covered = (frames - 1) * step + size
    margin = size // 2 if center else 0
    want = x[:, margin:covered - (size - size // 2 if center else 0)]
    left = (size - wlen) // 2
    keep = slice(max(0, left - margin), None if wlen == size else want.shape[-1] - (size - wlen - left))
    assert got.shape == want.shape
    np.testing.assert_allclose(got[:, keep], want[:, keep], atol=1e-9)


def test_istft_signal_length_pads_and_trims_and_zero_envelope() -> None:
    data = np.zeros((2, 3, 2), np.float32)
    data[0, :, 0] = 3.0  # frame_size 3: every frame [1, 1, 1]
    ones = np.ones(3, np.float32)
    assert run(lambda a, b: opset.istft(a, b, 3, 3, False, False), data, ones).tolist() == [1.0] * 9
    assert run(lambda a, b: opset.istft(a, b, 3, 3, True, False), data, ones).tolist() == [1.0] * 6
    assert run(lambda a, b: opset.istft(a, b, 3, 3, False, False, 11), data, ones).tolist() == [1.0] * 9 + [0.0] * 2
    assert run(lambda a, b: opset.istft(a, b, 3, 3, False, False, 4), data, ones).tolist() == [1.0] * 4
    # a window of length 1 covers only the middle sample of each frame: the others divide 0 by 0 -> 0
    got = run(lambda a, b: opset.istft(a, b, 3, 3, False, True), data, np.array([2.0], np.float32))
    np.testing.assert_allclose(got, [0, np.sqrt(3) / 2, 0] * 3, rtol=1e-6)  # 1 * 2 / 2**2 * sqrt(3)
