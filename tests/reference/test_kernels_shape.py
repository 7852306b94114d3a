"""Shape and data-movement REFERENCE kernels: Reshape, Transpose, Squeeze, Unsqueeze, Concat,
Split, VariadicSplit, Gather, Broadcast, ShapeOf, StridedSlice — hand-checked values, constant
and runtime index inputs, dynamic shapes and errors."""

from __future__ import annotations

import numpy as np
import pytest
from ref_kernel_util import bf16, const, from_bf16, run1, run_op

from ovconform import opset as ops
from ovconform.errors import InferError
from ovconform.ir import make_node

A = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
I64 = np.int64


# -- Reshape ------------------------------------------------------------------------------------

@pytest.mark.parametrize(("pattern", "special_zero", "shape"), [
    ([4, 6], False, (4, 6)), ([0, -1], True, (2, 12)), ([-1], False, (24,)),
    ([2, 0, 2, 2], True, (2, 3, 2, 2)), ([3, -1, 2], False, (3, 4, 2)),
])
def test_reshape_constant_pattern(pattern: list[int], special_zero: bool, shape: tuple[int, ...]) -> None:
    out = run1(lambda x: ops.reshape(x, const(pattern), special_zero), A)
    assert out.shape == shape
    np.testing.assert_array_equal(out.ravel(), np.arange(24))


def test_reshape_runtime_pattern_and_dynamic_input() -> None:
    out = run1(lambda x, p: ops.reshape(x, p, True), A, np.array([0, 0, 2, 2], I64), shapes=[[-1, -1, -1], None])
    assert out.shape == (2, 3, 2, 2)
    with pytest.raises(InferError, match=r"Reshape-1 node .*cannot"):
        run1(lambda x, p: ops.reshape(x, p, False), A, np.array([5, -1], I64))


def test_reshape_zero_without_special_zero_is_a_size() -> None:
    empty = np.zeros((0, 3), np.float32)
    out = run1(lambda x, p: ops.reshape(x, p, False), empty, np.array([3, 0], I64))
    assert out.shape == (3, 0)


# -- Transpose ------------------------------------------------------------------------------------

def test_transpose_orders() -> None:
    np.testing.assert_array_equal(run1(lambda x: ops.transpose(x, const([2, 0, 1])), A), A.transpose(2, 0, 1))
    np.testing.assert_array_equal(run1(lambda x: ops.transpose(x, ops.constant(np.array([], I64))), A), A.T)
    out = run1(ops.transpose, A, np.array([1, 0, 2], np.int32))
    assert out.shape == (3, 2, 4) and out[2, 1, 3] == A[1, 2, 3]
    with pytest.raises(InferError, match=r"Transpose-1 node .*not a permutation"):
        run1(ops.transpose, A, np.array([0, 0, 1], I64))


# -- Squeeze / Unsqueeze -------------------------------------------------------------------------

B = np.arange(6, dtype=np.float32).reshape(1, 2, 1, 3, 1)


@pytest.mark.parametrize("version", [1, 15])
def test_squeeze_versions(version: int) -> None:
    def sq(x, axes=None):  # noqa: ANN001, ANN202
        inputs = [x.output(0)] + ([axes.output(0)] if axes is not None else [])
        return make_node("Squeeze", version, inputs, {})

    assert run1(sq, B).shape == (2, 3)
    assert run1(lambda x: sq(x, const([0, -1])), B).shape == (2, 1, 3)
    assert run1(lambda x: sq(x, const(2)), B).shape == (1, 2, 3, 1)  # scalar axis
    assert run1(lambda x: sq(x, ops.constant(np.array([], I64))), B).shape == (2, 3)  # empty: all
    assert run1(lambda x, a: sq(x, a), B, np.array([0, 2], np.int32)).shape == (2, 3, 1)  # runtime axes
    assert run1(lambda x: sq(x), B, shapes=[[-1, -1, -1, -1, -1]]).shape == (2, 3)  # dynamic dims


def test_squeeze_bad_axis() -> None:
    with pytest.raises(InferError, match=r"Squeeze-15 node .*out of range"):
        run1(lambda x, a: ops.squeeze(x, a), B, np.array([7], I64))


def test_unsqueeze() -> None:
    x = np.arange(6, dtype=np.int32).reshape(2, 3)
    assert run1(lambda p: ops.unsqueeze(p, const([0, 3])), x).shape == (1, 2, 3, 1)
    assert run1(lambda p: ops.unsqueeze(p, const([-1])), x).shape == (2, 3, 1)
    assert run1(lambda p: ops.unsqueeze(p, const(1)), x).shape == (2, 1, 3)
    out = run1(ops.unsqueeze, x, np.array([1, 1], I64))  # runtime; a repeated axis counts once
    assert out.shape == (2, 1, 3) and out.dtype == np.int32


# -- Concat / Split / VariadicSplit -------------------------------------------------------------------

def test_concat_axes_and_types() -> None:
    a, b = np.ones((2, 1), np.float32), np.zeros((2, 2), np.float32)
    np.testing.assert_array_equal(run1(lambda x, y: ops.concat([x, y], -1), a, b), [[1, 0, 0], [1, 0, 0]])
    out = run1(lambda x, y, z: ops.concat([x, y, z], 0), *(np.array([[i]], np.int8) for i in range(3)))
    assert out.dtype == np.int8 and out.tolist() == [[0], [1], [2]]
    got = run1(lambda x, y: ops.concat([x, y], 0), bf16([1.5]), bf16([2.5]), types=["bf16", "bf16"])
    np.testing.assert_array_equal(from_bf16(got), [1.5, 2.5])


def test_concat_runtime_mismatch() -> None:
    with pytest.raises(InferError, match=r"Concat-1 node .*differ outside the concat axis"):
        run1(lambda x, y: ops.concat([x, y], 0), np.ones((1, 2), np.float32), np.ones((1, 3), np.float32),
             shapes=[[-1, -1], [-1, -1]])


def test_split() -> None:
    outs = run_op(lambda x: ops.split(x, const(1), 3), A)
    assert [o.shape for o in outs] == [(2, 1, 4)] * 3
    for i, o in enumerate(outs):
        np.testing.assert_array_equal(o, A[:, i:i + 1, :])
    outs = run_op(lambda x, ax: ops.split(x, ax, 2), A, np.array(-1, I64))
    np.testing.assert_array_equal(outs[1], A[..., 2:])
    with pytest.raises(InferError, match=r"Split-1 node .*does not divide"):
        run_op(lambda x: ops.split(x, const(0), 2), np.ones((3, 2), np.float32), shapes=[[-1, 2]])


def test_variadic_split() -> None:
    outs = run_op(lambda x: ops.variadic_split(x, const(2), const([1, -1, 2])), A)
    assert [o.shape for o in outs] == [(2, 3, 1), (2, 3, 1), (2, 3, 2)]
    np.testing.assert_array_equal(outs[2], A[..., 2:])
    outs = run_op(lambda x, ax, ln: ops.variadic_split(x, ax, ln), A, np.array([0], I64), np.array([2, 0], I64))
    assert [o.shape for o in outs] == [(2, 3, 4), (0, 3, 4)]
    with pytest.raises(InferError, match=r"VariadicSplit-1 node .*split_lengths"):
        run_op(lambda x, ln: ops.variadic_split(x, const(0), ln), A, np.array([1, 2], I64))


# -- Gather ---------------------------------------------------------------------------------------

def _gather(version: int, batch_dims: int = 0):  # noqa: ANN202
    def build(data, indices, axis):  # noqa: ANN001, ANN202
        attrs = {} if version == 1 else {"batch_dims": batch_dims}
        return make_node("Gather", version, [data.output(0), indices.output(0), axis.output(0)], attrs)
    return build


@pytest.mark.parametrize("version", [1, 7, 8])
def test_gather_axis(version: int) -> None:
    data = np.arange(12, dtype=np.float32).reshape(3, 4)
    out = run1(_gather(version), data, np.array([[2, 0]], I64), np.array(1, I64))
    assert out.shape == (3, 1, 2)
    np.testing.assert_array_equal(out[:, 0, :], [[2, 0], [6, 4], [10, 8]])
    out = run1(_gather(version), data, np.array(1, np.int32), np.array([-2], I64))  # scalar index, axis -2
    np.testing.assert_array_equal(out, [4, 5, 6, 7])


def test_gather8_negative_and_out_of_range_indices() -> None:
    data = np.array([10, 20, 30], np.int32)
    out = run1(_gather(8), data, np.array([-1, -3, 3, -4, 0], I64), np.array(0, I64))
    assert out.tolist() == [30, 10, 0, 0, 10]


@pytest.mark.parametrize("version", [7, 8])
def test_gather_batch_dims(version: int) -> None:
    data = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    idx = np.array([[0, 3], [1, 1]], I64)
    out = run1(_gather(version, 1), data, idx, np.array(2, I64))
    assert out.shape == (2, 3, 2)
    want = np.stack([data[b][:, idx[b]] for b in range(2)])
    np.testing.assert_array_equal(out, want)
    out = run1(_gather(version, -1), data, np.array([[2], [0]], I64), np.array(1, I64))  # batch_dims -1 → 1
    assert out.shape == (2, 1, 4)
    np.testing.assert_array_equal(out[:, 0], [data[0, 2], data[1, 0]])


def test_gather_bf16_and_bool() -> None:
    out = run1(_gather(8), bf16([1.5, 2.5]), np.array([1, 0], I64), np.array(0, I64), types=["bf16", None, None])
    np.testing.assert_array_equal(from_bf16(out), [2.5, 1.5])
    out = run1(_gather(8), np.array([True, False]), np.array([1], I64), np.array(0, I64))
    assert out.tolist() == [False]


# -- Broadcast ----------------------------------------------------------------------------------------

def _bcast(version: int, mode: str, with_mapping: bool = False):  # noqa: ANN202
    def build(data, target, *mapping):  # noqa: ANN001, ANN202
        inputs = [data.output(0), target.output(0), *(m.output(0) for m in mapping)]
        return make_node("Broadcast", version, inputs, {"mode": mode})
    return build


@pytest.mark.parametrize(("version", "mode"), [(1, "numpy"), (3, "numpy"), (1, "pdpd")])
def test_broadcast_numpy_like(version: int, mode: str) -> None:
    out = run1(_bcast(version, mode), np.array([1, 2, 3], np.float32), np.array([2, 1, 3], I64))
    assert out.shape == (2, 1, 3)
    np.testing.assert_array_equal(out, [[[1, 2, 3]], [[1, 2, 3]]])


@pytest.mark.parametrize(("version", "mode"), [(1, "none"), (1, "explicit"), (3, "explicit")])
def test_broadcast_explicit(version: int, mode: str) -> None:
    out = run1(_bcast(version, mode), np.array([1, 2], np.int32), np.array([2, 3], I64), np.array([0], I64))
    assert out.tolist() == [[1, 1, 1], [2, 2, 2]]


def test_broadcast_bidirectional() -> None:
    out = run1(_bcast(3, "bidirectional"), np.arange(3, dtype=np.float32).reshape(3, 1), np.array([1, 4], I64))
    assert out.shape == (3, 4)
    np.testing.assert_array_equal(out[:, 0], [0, 1, 2])
    out = run1(_bcast(3, "bidirectional"), np.ones((2, 3), np.float32), np.array([1], I64))  # target smaller
    assert out.shape == (2, 3)


def test_broadcast_runtime_errors() -> None:
    with pytest.raises(InferError, match=r"Broadcast-3 node .*cannot broadcast"):
        run1(_bcast(3, "numpy"), np.ones(3, np.float32), np.array([2, 4], I64))
    with pytest.raises(InferError, match=r"Broadcast-3 node .*axes_mapping"):
        run1(_bcast(3, "explicit"), np.ones(2, np.float32), np.array([2, 3], I64), np.array([5], I64))


# -- ShapeOf ------------------------------------------------------------------------------------------

def test_shape_of_versions() -> None:
    out = run1(lambda x: make_node("ShapeOf", 1, [x.output(0)], {}), A, shapes=[[-1, 3, -1]])
    assert out.dtype == np.int64 and out.tolist() == [2, 3, 4]
    out = run1(lambda x: ops.shape_of(x, "i32"), np.ones((0, 5), np.uint8))
    assert out.dtype == np.int32 and out.tolist() == [0, 5]
    out = run1(lambda x: ops.shape_of(x), np.array(3.0, np.float32))
    assert out.shape == (0,)


# -- StridedSlice -------------------------------------------------------------------------------------

def _ss(begin, end, strides, **masks):  # noqa: ANN001, ANN003, ANN202
    def build(x):  # noqa: ANN001, ANN202
        return ops.strided_slice(x, const(begin), const(end), const(strides) if strides is not None else None,
                                 masks.get("begin_mask", []), masks.get("end_mask", []),
                                 masks.get("new_axis_mask"), masks.get("shrink_axis_mask"),
                                 masks.get("ellipsis_mask"))
    return build


@pytest.mark.parametrize(("args", "expected"), [
    (([0, 1], [2, 3], [1, 1]), A[0:2, 1:3]),
    (([1, -1], [0, 0], [1, -2], {"end_mask": [0, 1]}), A[1:0, -1::-2]),
    (([0, 2], [0, 0], [1, 1], {"begin_mask": [1, 0], "end_mask": [1, 1]}), A[:, 2:]),
    (([1, 0], [0, 0], [1, 1], {"shrink_axis_mask": [1, 0], "end_mask": [0, 1]}), A[1, 0:]),
    (([0, 0, 1], [0, 0, 3], [1, 1, 1], {"new_axis_mask": [1, 0, 0], "begin_mask": [0, 1], "end_mask": [0, 1]}),
     A[None, :, 1:3]),
    (([0, -1], [0, 0], [1, 1], {"ellipsis_mask": [1, 0], "shrink_axis_mask": [0, 1]}), A[..., -1]),
    (([-100], [100], [1], {}), A[-100:100]),
    (([5], [-10], [-1], {}), A[5:-10:-1]),
    (([0, 0, 0], [1, 1, 1], None, {"shrink_axis_mask": [1, 1, 1]}), A[0, 0, 0]),
])
def test_strided_slice_matches_numpy(args: tuple, expected: np.ndarray) -> None:
    begin, end, strides, *rest = args
    out = run1(_ss(begin, end, strides, **(rest[0] if rest else {})), A)
    assert out.shape == expected.shape
    np.testing.assert_array_equal(out, expected)


def test_strided_slice_runtime_inputs_and_errors() -> None:
    def build(x, b, e, s):  # noqa: ANN001, ANN202
        return ops.strided_slice(x, b, e, s, [0, 0], [0, 0])
    out = run1(build, A, np.array([0, 1], I64), np.array([2, 3], I64), np.array([1, 2], I64),
               shapes=[[-1, -1, -1], None, None, None])
    np.testing.assert_array_equal(out, A[0:2, 1:3:2])
    with pytest.raises(InferError, match=r"StridedSlice-1 node .*non-zero"):
        run1(build, A, np.array([0, 1], I64), np.array([2, 3], I64), np.array([1, 0], I64))
    with pytest.raises(InferError, match=r"StridedSlice-1 node .*out of range"):
        run1(_ss([7], [8], [1], shrink_axis_mask=[1]), A)
