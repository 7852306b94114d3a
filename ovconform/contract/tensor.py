"""Tensors (``ovconform.Tensor``) and a minimal host-memory RemoteContext / RemoteTensor.

A :class:`Tensor` is an element type plus a numpy view of memory, one element per numpy item in
the holding dtype of :mod:`ovconform.ir._types` (u4 values in uint8, f8e4m3 bits in uint8, string
as an object array of str; values out of a type's range are refused). Names follow OpenVINO's Python
API: ``Tensor(array, shared_memory=True)`` wraps the caller's array without copying,
``Tensor(Type.f32, [2, 3])`` allocates, ``Tensor(other, begin, end)`` is a region of interest
(a strided, non-contiguous view of ``other``). ``data`` is always a view of the same memory, so
writes through it are seen by every holder of the tensor (the zero-copy contract of set_tensor).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ovconform.errors import NotImplementedByDeviceError, ValidationError
from ovconform.ir import Type, as_type, byte_size, check_values, holding_array

__all__ = ["RemoteContext", "RemoteTensor", "Tensor"]


def _as_shape(shape: Any, what: str = "shape") -> tuple[int, ...]:
    """A concrete shape: a sequence of non-negative ints (a PartialShape must be static)."""
    if hasattr(shape, "to_shape"):
        try:
            shape = shape.to_shape()
        except ValidationError as e:
            raise ValidationError(f"tensor {what} {shape} is not static; a tensor needs a static shape.") from e
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        shape = [shape]
    try:
        dims = tuple(int(d) for d in shape)
        ok = all(isinstance(d, (int, np.integer)) and not isinstance(d, bool) for d in shape)
    except (TypeError, ValueError):
        raise ValidationError(f"tensor {what} {shape!r} is not a sequence of integers.") from None
    if not ok or any(d < 0 for d in dims):
        raise ValidationError(f"tensor {what} {shape!r} must contain non-negative integers.")
    return dims


def _type_for_array(array: np.ndarray, element_type: Any) -> Type:
    if element_type is None:
        if array.dtype == object and array.size and all(isinstance(v, str) for v in array.reshape(-1)):
            return Type.string
        try:
            return as_type(array.dtype)
        except ValidationError:
            raise ValidationError(
                f"numpy dtype {array.dtype} has no element type; use bool, float16/32/64, "
                "int8/16/32/64, uint8/16/32/64, str (string), or name the element type.") from None
    et = as_type(element_type)
    if et.to_dtype() != array.dtype:
        raise ValidationError(f"element type {et} is stored as {et.to_dtype()}, but the array has dtype {array.dtype}.")
    check_values(array, et, f"a {et} tensor")
    return et


def _zeros(et: Type, count: int) -> np.ndarray:
    """``count`` zero elements of ``et`` (empty strings for string)."""
    if et == Type.string:
        return np.full(count, "", dtype=object)
    return np.zeros(count, dtype=et.to_dtype())


class Tensor:
    """An element type and a (possibly strided) numpy view of memory.

    :param args: ``(array)``, ``(element_type, shape)`` or ``(tensor, begin, end)`` for a
        region of interest.
    :param shared_memory: with an array, wrap it without copying (the tensor and the array
        share memory); otherwise the tensor owns a contiguous copy.
    :param element_type: with a uint16 array, ``Type.bf16`` reads the bits as bf16.
    """

    __slots__ = ("__weakref__", "_array", "_buffer", "_owned", "_type")
    _array: np.ndarray  # the tensor's view (shape and element type of the data)
    _buffer: np.ndarray | None  # the flat memory behind it, when contiguous and whole
    _owned: bool
    _type: Type

    def __init__(self, *args: Any, shared_memory: bool = False, element_type: Any = None) -> None:
        if len(args) == 3 and isinstance(args[0], Tensor):
            self._init_roi(args[0], args[1], args[2])
        elif len(args) == 1 and not isinstance(args[0], (Type, str, type, np.dtype)):
            self._init_array(args[0], shared_memory, element_type)
        elif len(args) == 2:
            self._init_alloc(args[0], args[1])
        else:
            raise ValidationError(
                "Tensor() takes (array, shared_memory=...), (element_type, shape) or (tensor, begin, end); "
                f"got {len(args)} positional argument(s).")

    # -- construction ------------------------------------------------------------------------
    def _init_array(self, array: Any, shared: bool, element_type: Any) -> None:
        if isinstance(array, Tensor):
            array = array._array
        if isinstance(array, np.ndarray) and array.dtype.kind in "US":
            if shared:
                raise ValidationError(f"shared_memory=True cannot wrap a numpy {array.dtype} array: a string tensor "
                                      "holds an object array of str (pass one, or copy).")
            array = holding_array(array, Type.string, "string tensor")
        if not isinstance(array, np.ndarray):
            if shared:
                raise ValidationError(f"shared_memory=True needs a numpy array, not {type(array).__name__}.")
            array = np.asarray(array)
        self._type = _type_for_array(array, element_type)
        if shared:
            self._array, self._owned = array, False
            self._buffer = array.reshape(-1) if array.flags.c_contiguous else None
        else:
            self._array = np.array(array, dtype=array.dtype, order="C", copy=True)
            self._owned, self._buffer = True, self._array.reshape(-1)

    def _init_alloc(self, element_type: Any, shape: Any) -> None:
        self._type = as_type(element_type)
        dims = _as_shape(shape)
        self._buffer = _zeros(self._type, math.prod(dims))
        self._array, self._owned = self._buffer.reshape(dims), True

    def _init_roi(self, other: Tensor, begin: Any, end: Any) -> None:
        lo, hi = _as_shape(begin, "ROI begin"), _as_shape(end, "ROI end")
        shape = other.shape
        if not (len(lo) == len(hi) == len(shape)) or any(
                not (0 <= a <= b <= s) for a, b, s in zip(lo, hi, shape, strict=True)):
            raise ValidationError(f"ROI begin {list(lo)} / end {list(hi)} do not fit in tensor shape {list(shape)}.")
        self._type = other._type
        self._array = other._array[tuple(slice(a, b) for a, b in zip(lo, hi, strict=True))]
        self._owned, self._buffer = False, None

    # -- OpenVINO-style accessors ------------------------------------------------------------
    @property
    def data(self) -> np.ndarray:
        """A numpy view of the tensor's memory (no copy; bf16 is shown as uint16)."""
        return self._array.view()

    @property
    def element_type(self) -> Type:
        return self._type

    def get_element_type(self) -> Type:
        return self._type

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self._array.shape)

    @shape.setter
    def shape(self, value: Any) -> None:
        self.set_shape(value)

    def get_shape(self) -> tuple[int, ...]:
        return self.shape

    @property
    def strides(self) -> tuple[int, ...]:
        """Byte strides, as OpenVINO reports them."""
        return tuple(int(s) for s in self._array.strides)

    def get_strides(self) -> tuple[int, ...]:
        return self.strides

    @property
    def size(self) -> int:
        return int(self._array.size)

    def get_size(self) -> int:
        return self.size

    @property
    def byte_size(self) -> int:
        """Bytes as OpenVINO counts them (packed types packed: 3 u4 elements take 2 bytes)."""
        return byte_size(self._type, self.size)

    def get_byte_size(self) -> int:
        return self.byte_size

    def is_continuous(self) -> bool:
        return bool(self._array.flags.c_contiguous)

    @property
    def owns_memory(self) -> bool:
        """False when the tensor wraps caller memory (shared_memory=True or an ROI view)."""
        return self._owned

    def set_shape(self, shape: Any) -> None:
        """Change the shape. Owned memory grows as needed; wrapped memory can only be reused
        within its capacity and only while contiguous."""
        dims = _as_shape(shape)
        if dims == self.shape:
            return
        need = math.prod(dims)
        if self._buffer is not None and need <= self._buffer.size:
            self._array = self._buffer[:need].reshape(dims)
        elif self._owned:
            self._buffer = _zeros(self._type, need)
            self._array = self._buffer.reshape(dims)
        else:
            cap = "a strided view" if self._buffer is None else f"{self._buffer.size} elements"
            raise ValidationError(
                f"cannot set shape {list(dims)} on a tensor that wraps caller memory ({cap}); "
                f"it needs {need} contiguous elements.")

    def copy_to(self, target: Tensor) -> None:
        """Copy this tensor's values into ``target`` (reshaping ``target`` if it must)."""
        if not isinstance(target, Tensor):
            raise ValidationError(f"copy_to() needs a Tensor, not {type(target).__name__}.")
        if target._type != self._type:
            raise ValidationError(f"copy_to(): element types differ ({self._type} -> {target._type}).")
        target.set_shape(self.shape)
        np.copyto(target._array, self._host_array())

    def copy_from(self, source: Tensor | np.ndarray) -> None:
        src = source if isinstance(source, Tensor) else Tensor(np.asarray(source), shared_memory=True)
        src.copy_to(self)

    # -- for devices ---------------------------------------------------------------------------
    def _host_array(self) -> np.ndarray:
        """The memory as a numpy array (devices use this; remote tensors allow it too)."""
        return self._array

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        arr = self.data
        return arr if dtype is None else arr.astype(dtype)

    def __repr__(self) -> str:
        return f"<Tensor: shape{list(self.shape)} type: {self._type}>"


class RemoteContext:
    """A device memory context. This minimal one is backed by host memory.

    :param device_name: the device that owns the context, e.g. ``"FAKE"``.
    :param params: device-specific parameters (kept and returned by :meth:`get_params`).
    """

    def __init__(self, device_name: str, params: Mapping[str, Any] | None = None) -> None:
        self._device_name = device_name
        self._params = dict(params or {})

    def get_device_name(self) -> str:
        return self._device_name

    def get_params(self) -> dict[str, Any]:
        return dict(self._params)

    def create_tensor(self, element_type: Any, shape: Sequence[int],
                      params: Mapping[str, Any] | None = None) -> RemoteTensor:
        return RemoteTensor(self, element_type, shape, params)

    def create_host_tensor(self, element_type: Any, shape: Sequence[int]) -> Tensor:
        return Tensor(element_type, shape)

    def __repr__(self) -> str:
        return f"<RemoteContext: {self._device_name!r}>"


class RemoteTensor(Tensor):
    """A tensor in a :class:`RemoteContext`: element type and shape are readable, ``data`` is not
    (copy through :meth:`copy_to` / :meth:`copy_from`)."""

    __slots__ = ("_context", "_params")

    def __init__(self, context: RemoteContext, element_type: Any, shape: Sequence[int],
                 params: Mapping[str, Any] | None = None) -> None:
        super().__init__(element_type, shape)
        self._context = context
        self._params = dict(params or {})

    @property
    def data(self) -> np.ndarray:
        raise NotImplementedByDeviceError(
            f"a remote tensor on {self._context.get_device_name()!r} has no host-accessible data; "
            "use copy_to() or copy_from().")

    def get_device_name(self) -> str:
        return self._context.get_device_name()

    def get_context(self) -> RemoteContext:
        return self._context

    def get_params(self) -> dict[str, Any]:
        return dict(self._params)

    def __repr__(self) -> str:
        return f"<RemoteTensor: {self.get_device_name()!r} shape{list(self.shape)} type: {self._type}>"
