"""Element types (``ovconform.Type``), named as in OpenVINO's Python API."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ovconform.errors import ValidationError

#: numpy dtype objects by name, made once (to_dtype is on every kernel's hot path).
_DTYPES: dict[str, np.dtype] = {n: np.dtype(n) for n in ("float32", "float16", "float64", "uint16", "int8", "int16",
                                                        "int32", "int64", "uint8", "uint32", "uint64", "bool")}


@dataclass(frozen=True, eq=True)
class Type:
    """An element type: ``Type.f32``, ``Type.boolean``, ... (bf16 is stored as uint16)."""

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

    def get_type_name(self) -> str:
        return self.name

    def to_string(self) -> str:
        return self.name

    def to_dtype(self) -> np.dtype:
        """The numpy dtype that stores this type (uint16 for bf16)."""
        return _DTYPES.get(self.numpy_dtype) or np.dtype(self.numpy_dtype)

    def is_real(self) -> bool:
        return self.real

    def is_integral(self) -> bool:
        return not self.real

    def is_integral_number(self) -> bool:
        return not self.real and self.name != "boolean"

    def is_signed(self) -> bool:
        return self.signed

    @property
    def size(self) -> int:
        """Bytes per element."""
        return self.bitwidth // 8

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

ALL_TYPES: tuple[Type, ...] = tuple(_ALL.values())
_BY_PRECISION = {t.ir_precision: t for t in ALL_TYPES}
_ALIASES = {"bool": "boolean", "float32": "f32", "float16": "f16", "float64": "f64",
            "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64", "uint8": "u8",
            "uint16": "u16", "uint32": "u32", "uint64": "u64", "bfloat16": "bf16"}
_FROM_DTYPE = {np.dtype(t.numpy_dtype): t for t in ALL_TYPES if t.name != "bf16"}


def as_type(value: Any) -> Type:
    """Convert a Type, a type name ("f32", "FP32", "float32"), a numpy dtype or a Python type."""
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
    try:
        dtype = np.dtype(value)
    except TypeError:
        dtype = None
    if dtype is not None and dtype in _FROM_DTYPE:
        return _FROM_DTYPE[dtype]
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
