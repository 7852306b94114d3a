"""Tensor, RemoteContext and RemoteTensor (ovconform/contract/tensor.py)."""

from __future__ import annotations

import numpy as np
import pytest

from ovconform import Tensor, Type
from ovconform.contract.tensor import RemoteContext, RemoteTensor
from ovconform.errors import NotImplementedByDeviceError, ValidationError
from ovconform.ir import ALL_TYPES, PartialShape


def test_shared_memory_wraps_the_array_without_copying() -> None:
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    t = Tensor(a, shared_memory=True)
    assert np.shares_memory(t.data, a)
    a[0, 0] = 42
    assert t.data[0, 0] == 42
    t.data[1, 2] = -1
    assert a[1, 2] == -1
    assert not t.owns_memory


def test_default_constructor_copies() -> None:
    a = np.ones((2, 2), dtype=np.int32)
    t = Tensor(a)
    assert not np.shares_memory(t.data, a)
    a[:] = 5
    assert (t.data == 1).all()
    assert t.owns_memory


def test_data_is_always_a_view_of_the_same_memory() -> None:
    t = Tensor(Type.f32, [4])
    assert t.data.ctypes.data == t.data.ctypes.data
    t.data[:] = 3
    assert (t.data == 3).all()


def test_allocating_constructor_and_accessors() -> None:
    t = Tensor(Type.f32, [2, 3])
    assert t.shape == t.get_shape() == (2, 3)
    assert t.element_type == t.get_element_type() == Type.f32
    assert t.strides == t.get_strides() == (12, 4)
    assert t.size == t.get_size() == 6
    assert t.byte_size == t.get_byte_size() == 24
    assert t.is_continuous()
    assert t.data.dtype == np.float32


def test_allocating_from_a_static_partial_shape() -> None:
    assert Tensor("i64", PartialShape([3, 1])).shape == (3, 1)
    with pytest.raises(ValidationError, match="not static"):
        Tensor(Type.f32, PartialShape("?,3"))


@pytest.mark.parametrize("et", [t for t in ALL_TYPES if t.name != "bf16"], ids=lambda t: t.name)
def test_element_type_follows_the_array_dtype(et: Type) -> None:
    t = Tensor(np.zeros(3, dtype=et.to_dtype()), shared_memory=True)
    assert t.element_type == et
    assert t.get_byte_size() == 3 * et.size


def test_bf16_is_uint16_storage_with_an_explicit_type() -> None:
    bits = np.array([0x3F80, 0x4000], dtype=np.uint16)
    t = Tensor(bits, shared_memory=True, element_type=Type.bf16)
    assert t.element_type == Type.bf16 and np.shares_memory(t.data, bits)
    with pytest.raises(ValidationError, match="bf16 is stored as uint16"):
        Tensor(np.zeros(2, np.float32), element_type=Type.bf16)


@pytest.mark.parametrize("args", [
    (np.zeros(2, dtype=np.complex64),),
    (Type.f32, [2, -1]),
    (Type.f32, ["a"]),
    (Type.f32, [2.5]),
    (),
    (Type.f32,),
])
def test_bad_construction_raises_validation_error(args: tuple) -> None:
    with pytest.raises(ValidationError):
        Tensor(*args)


def test_shared_memory_needs_an_ndarray() -> None:
    with pytest.raises(ValidationError, match="numpy array"):
        Tensor([1.0, 2.0], shared_memory=True)
    assert Tensor([1.0, 2.0]).element_type == Type.f64


def test_roi_is_a_strided_view_of_the_parent() -> None:
    parent = Tensor(np.arange(24, dtype=np.float32).reshape(4, 6), shared_memory=True)
    roi = Tensor(parent, [1, 2], [3, 5])
    assert roi.shape == (2, 3)
    assert roi.strides == parent.strides
    assert not roi.is_continuous()
    np.testing.assert_array_equal(roi.data, parent.data[1:3, 2:5])
    roi.data[0, 0] = -7
    assert parent.data[1, 2] == -7


@pytest.mark.parametrize("begin,end", [([0, 0], [5, 1]), ([2, 0], [1, 1]), ([0], [1])])
def test_roi_out_of_bounds_is_rejected(begin: list[int], end: list[int]) -> None:
    parent = Tensor(Type.f32, [4, 6])
    with pytest.raises(ValidationError, match="do not fit"):
        Tensor(parent, begin, end)


def test_non_contiguous_shared_array_reports_its_strides() -> None:
    a = np.zeros((3, 8), dtype=np.int16)[:, ::2]
    t = Tensor(a, shared_memory=True)
    assert t.strides == (16, 4)
    assert not t.is_continuous()
    assert np.shares_memory(t.data, a)


def test_set_shape_on_owned_memory_reuses_or_grows() -> None:
    t = Tensor(Type.f32, [4, 4])
    ptr = t.data.ctypes.data
    t.set_shape([2, 2])
    assert t.shape == (2, 2) and t.data.ctypes.data == ptr
    t.shape = [8, 8]
    assert t.shape == (8, 8) and t.size == 64


def test_set_shape_on_shared_memory_stays_within_capacity() -> None:
    a = np.zeros(12, dtype=np.float32)
    t = Tensor(a, shared_memory=True)
    t.set_shape([3, 4])
    assert np.shares_memory(t.data, a)
    with pytest.raises(ValidationError, match="caller memory"):
        t.set_shape([4, 4])


def test_set_shape_on_roi_is_refused() -> None:
    roi = Tensor(Tensor(Type.f32, [4, 4]), [0, 0], [2, 2])
    roi.set_shape([2, 2])  # same shape: fine
    with pytest.raises(ValidationError, match="strided view"):
        roi.set_shape([1, 4])


def test_copy_to_and_copy_from() -> None:
    src = Tensor(np.arange(4, dtype=np.int32))
    dst = Tensor(Type.i32, [1])
    src.copy_to(dst)
    np.testing.assert_array_equal(dst.data, [0, 1, 2, 3])
    dst.copy_from(np.full(4, 9, np.int32))
    assert (dst.data == 9).all()
    with pytest.raises(ValidationError, match="element types differ"):
        src.copy_to(Tensor(Type.f32, [4]))


def test_numpy_interop() -> None:
    t = Tensor(np.arange(3, dtype=np.float32))
    assert np.asarray(t).sum() == 3
    assert "Tensor" in repr(t)


def test_remote_context_and_tensor() -> None:
    ctx = RemoteContext("FAKE", {"queue": 1})
    assert ctx.get_device_name() == "FAKE"
    assert ctx.get_params() == {"queue": 1}
    rt = ctx.create_tensor(Type.f32, [2, 2], {"mem": "usm"})
    assert isinstance(rt, RemoteTensor) and isinstance(rt, Tensor)
    assert rt.shape == (2, 2) and rt.element_type == Type.f32
    assert rt.get_device_name() == "FAKE" and rt.get_params() == {"mem": "usm"}
    assert rt.get_context() is ctx
    with pytest.raises(NotImplementedByDeviceError, match="no host-accessible data"):
        _ = rt.data
    rt.copy_from(np.ones((2, 2), np.float32))
    host = ctx.create_host_tensor(Type.f32, [2, 2])
    rt.copy_to(host)
    assert (host.data == 1).all()
