"""Element types (``ovconform.Type``), named as in OpenVINO's Python API (``openvino.Type``).

How a numpy array holds each type (``Type.to_dtype()``, the same dtype ``openvino.Type.to_dtype``
names), one element per numpy item:

* f16, f32, f64, integers, boolean: their numpy dtype; bf16: its bits in uint16.
* u1, u2, u3, u4, u6: uint8 holding the value, within ``[0, 2**bitwidth)``; i4: int8 within
  ``[-8, 7]``. Unpacked: OpenVINO packs several elements into a byte in IR weights and in
  ``openvino.Tensor.data``; :mod:`ovconform.ir._element_codec` packs and unpacks.
* f8e4m3, f8e5m2, f8e8m0: uint8 holding the element's 8 bits (as bf16 holds its bits), so every
  element, NaN payloads included, is kept exactly; f4e2m1 and nf4: uint8 holding the 4-bit code
  (``[0, 15]``; for nf4 an index into its 16-value table). Kernels decode codes to float32 and
  encode results (``ovconform.ir._element_codec.decode`` / ``encode``).
* string: a numpy object array of Python ``str`` (OpenVINO holds ``std::string`` bytes; IR weights
  store UTF-8 and bytes that are not UTF-8 are kept as surrogate escapes, so any byte string reads
  and writes back unchanged).

:func:`check_values` refuses held values outside these ranges (17 in a u4 array).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ovconform.errors import ValidationError

#: numpy dtype objects by name, made once (to_dtype is on every kernel's hot path).
_DTYPES: dict[str, np.dtype] = {n: np.dtype(n) for n in ("float32", "float16", "float64", "uint16", "int8", "int16",
                                                        "int32", "int64", "uint8", "uint32", "uint64", "bool",
                                                        "object")}


@dataclass(frozen=True, eq=True)
class Type:
    """An element type: ``Type.f32``, ``Type.boolean``, ``Type.u4``, ... (bf16 is stored as uint16; see the
    module docstring for the low-bit types and string)."""

    name: str
    numpy_dtype: str
    bitwidth: int
    real: bool
    signed: bool
    ir_precision: str

    f32: ClassVar[Type]
    f16: ClassVar[Type]
    f64: ClassVar[Type]
    bf16: ClassVar[Type]
    i8: ClassVar[Type]
    i16: ClassVar[Type]
    i32: ClassVar[Type]
    i64: ClassVar[Type]
    u8: ClassVar[Type]
    u16: ClassVar[Type]
    u32: ClassVar[Type]
    u64: ClassVar[Type]
    boolean: ClassVar[Type]
    u1: ClassVar[Type]
    u2: ClassVar[Type]
    u3: ClassVar[Type]
    u4: ClassVar[Type]
    u6: ClassVar[Type]
    i4: ClassVar[Type]
    nf4: ClassVar[Type]
    f4e2m1: ClassVar[Type]
    f8e4m3: ClassVar[Type]
    f8e5m2: ClassVar[Type]
    f8e8m0: ClassVar[Type]
    string: ClassVar[Type]

    def get_type_name(self) -> str:
        return self.name

    def to_string(self) -> str:
        return self.name

    def to_dtype(self) -> np.dtype:
        """The numpy dtype that holds this type (uint16 for bf16; see the module docstring)."""
        return _DTYPES.get(self.numpy_dtype) or np.dtype(self.numpy_dtype)

    def is_real(self) -> bool:
        return self.real

    def is_integral(self) -> bool:
        return not self.real

    def is_integral_number(self) -> bool:
        return not self.real and self.name not in ("boolean", "nf4", "string")

    def is_quantized(self) -> bool:
        """True for nf4, whose codes index a table of values (as ``ov::element::Type::is_quantized``)."""
        return self.name == "nf4"

    def is_coded(self) -> bool:
        """True when the held uint8 values are codes, not values: f8e4m3, f8e5m2, f8e8m0, f4e2m1, nf4."""
        return self.name in _CODED

    def is_packed(self) -> bool:
        """True when OpenVINO packs several elements into one byte (bitwidth below 8)."""
        return self.bitwidth < 8

    def is_signed(self) -> bool:
        return self.signed

    @property
    def size(self) -> int:
        """Bytes per element, rounded up (1 for the packed types, 32 for string), as
        ``ov::element::Type::size``. Bytes of ``n`` elements: :func:`byte_size`."""
        return (self.bitwidth + 7) // 8

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"<Type: {self.name!r}>"


_ALL: dict[str, Type] = {}


def _define(name: str, dtype: str, bits: int, real: bool, signed: bool, prec: str) -> Type:
    t = Type(name, dtype, bits, real, signed, prec)
    _ALL[name] = t
    setattr(Type, name, t)
    return t


_define("boolean", "bool", 8, False, False, "BOOL")
_define("f16", "float16", 16, True, True, "FP16")
_define("f32", "float32", 32, True, True, "FP32")
_define("f64", "float64", 64, True, True, "FP64")
_define("bf16", "uint16", 16, True, True, "BF16")
_define("i8", "int8", 8, False, True, "I8")
_define("i16", "int16", 16, False, True, "I16")
_define("i32", "int32", 32, False, True, "I32")
_define("i64", "int64", 64, False, True, "I64")
_define("u8", "uint8", 8, False, False, "U8")
_define("u16", "uint16", 16, False, False, "U16")
_define("u32", "uint32", 32, False, False, "U32")
_define("u64", "uint64", 64, False, False, "U64")

#: The full-width number types and boolean: one element per numpy item of their own dtype (bf16
#: as bits). These are what the op suites draw, the inference precisions a device may declare
#: and what every kernel computes on.
ALL_TYPES: tuple[Type, ...] = tuple(_ALL.values())

_define("u1", "uint8", 1, False, False, "BIN")
_define("u2", "uint8", 2, False, False, "U2")
_define("u3", "uint8", 3, False, False, "U3")
_define("u4", "uint8", 4, False, False, "U4")
_define("u6", "uint8", 6, False, False, "U6")
_define("i4", "int8", 4, False, True, "I4")
_define("nf4", "uint8", 4, False, False, "NF4")
_define("f4e2m1", "uint8", 4, True, True, "F4E2M1")
_define("f8e4m3", "uint8", 8, True, True, "F8E4M3")
_define("f8e5m2", "uint8", 8, True, True, "F8E5M2")
_define("f8e8m0", "uint8", 8, True, True, "F8E8M0")
_define("string", "object", 256, False, False, "STRING")

#: The storage types OpenVINO reads and writes besides ALL_TYPES: low-bit integers (packed in
#: weights), 4- and 8-bit floats held as their codes, nf4 and string (see the module docstring).
STORAGE_TYPES: tuple[Type, ...] = tuple(t for t in _ALL.values() if t not in ALL_TYPES)
#: Every element type, in OpenVINO's ``ov::element::Type`` sense.
ELEMENT_TYPES: tuple[Type, ...] = ALL_TYPES + STORAGE_TYPES
_CODED = frozenset({"nf4", "f4e2m1", "f8e4m3", "f8e5m2", "f8e8m0"})
_BY_PRECISION = {t.ir_precision: t for t in ELEMENT_TYPES}
_ALIASES = {"bool": "boolean", "float32": "f32", "float16": "f16", "float64": "f64",
            "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64", "uint8": "u8",
            "uint16": "u16", "uint32": "u32", "uint64": "u64", "bfloat16": "bf16", "uint1_t": "u1",
            "uint2_t": "u2", "uint3_t": "u3", "uint4_t": "u4", "uint6_t": "u6", "int4_t": "i4", "nfloat4": "nf4"}
_FROM_DTYPE = {np.dtype(t.numpy_dtype): t for t in ALL_TYPES if t.name != "bf16"}


def as_type(value: Any) -> Type:
    """Convert a Type, a type name ("f32", "FP32", "float32", "u4", "f8e4m3"), a numpy dtype or a
    Python type (``str`` and numpy str/bytes dtypes give string). A numpy dtype gives the type it
    is the natural dtype of: uint8 is u8, never u4 or f8e4m3 (name those)."""
    if isinstance(value, Type):
        return value
    if isinstance(value, str):
        key = _ALIASES.get(value, value)
        if key in _ALL:
            return _ALL[key]
        if value.upper() in _BY_PRECISION:
            return _BY_PRECISION[value.upper()]
        raise ValidationError(
            f"element type {value!r} is not known; known types: {', '.join(sorted(_ALL))}."
        )
    if value is float:
        return Type.f32
    if value is int:
        return Type.i64
    if value is bool:
        return Type.boolean
    if value is str or value is bytes:
        return Type.string
    try:
        dtype = np.dtype(value)
    except TypeError:
        dtype = None
    if dtype is not None and dtype in _FROM_DTYPE:
        return _FROM_DTYPE[dtype]
    if dtype is not None and dtype.kind in "US":
        return Type.string
    raise ValidationError(
        f"element type {value!r} is not known; known types: {', '.join(sorted(_ALL))}."
    )


def bf16_to_f32(bits: np.ndarray) -> np.ndarray:
    """Widen bf16 values stored as uint16 to float32 (exact)."""
    return (np.asarray(bits, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)


def f32_to_bf16(values: np.ndarray) -> np.ndarray:
    """Round float32 values to bf16 (nearest, ties to even; NaN stays NaN), stored as uint16."""
    f = np.array(values, dtype=np.float32, order="C")  # a copy; keeps 0-d arrays 0-d
    u = f.view(np.uint32)
    rounding = ((u >> 16) & 1) + np.uint32(0x7FFF)
    out = np.asarray((u + rounding) >> 16).astype(np.uint16)
    nan = np.isnan(f)
    out[nan] = (u[nan] >> 16).astype(np.uint16) | np.uint16(0x0040)
    return out


def byte_size(et: Type, count: int) -> int:
    """Bytes ``count`` elements of ``et`` take in IR weights and in an ``openvino.Tensor``, as
    ``ov::element::get_memory_size``: packed types take ``ceil(count * bitwidth / 8)`` bytes,
    except u3 (3 bytes per 8 elements) and u6 (3 bytes per 4 elements), which OpenVINO stores in
    blocks; string: 32 bytes (``sizeof(std::string)``) per element."""
    if et.name == "u3":
        return -(-count // 8) * 3
    if et.name == "u6":
        return -(-count // 4) * 3
    if et.bitwidth < 8:
        return -(-count * et.bitwidth // 8)
    return count * et.size


#: Held value ranges of the types whose numpy dtype holds more values than the type has.
_RANGES: dict[str, tuple[int, int]] = {"u1": (0, 1), "u2": (0, 3), "u3": (0, 7), "u4": (0, 15), "u6": (0, 63),
                                       "i4": (-8, 7), "nf4": (0, 15), "f4e2m1": (0, 15)}


def value_range(et: Type) -> tuple[int, int] | None:
    """The inclusive range of held values of a packed type (codes for nf4 and f4e2m1), else None."""
    return _RANGES.get(et.name)


def check_values(array: np.ndarray, et: Type, what: str) -> None:
    """Raise ValidationError (naming ``what``, the first bad value and its index, and the allowed
    range) when ``array`` holds a value ``et`` cannot hold: 17 in a u4 array, a code above 15 in a
    nf4/f4e2m1 array, a non-str item in a string array."""
    if et.name == "string":
        flat = np.asarray(array, dtype=object).reshape(-1)
        for i, item in enumerate(flat):
            if not isinstance(item, str):
                index = [int(j) for j in np.unravel_index(i, np.shape(array))] if np.ndim(array) else []
                raise ValidationError(f"{what}: item {item!r} at index {index} is {type(item).__name__}; "
                                      "a string element is a str.")
        return
    bounds = _RANGES.get(et.name)
    if bounds is None or not np.size(array):
        return
    lo, hi = bounds
    bad = (array < lo) | (array > hi)
    if bad.any():
        first = np.argwhere(np.asarray(bad))[0]
        value = np.asarray(array)[tuple(first)]
        held = "codes" if et.is_coded() else "values"
        raise ValidationError(f"{what}: value {value} at index {[int(i) for i in first]} is out of range for "
                              f"{et}; allowed {held} are [{lo}, {hi}].")
