"""Element-type plumbing shared by the kernels: compute dtypes, bf16, and C-like conversions.

Low-precision floats (f16, bf16) compute in float32 and round once to the output type, as
OpenVINO's reference implementation does (its ``float16``/``bfloat16`` classes compute in float).
The coded types (f8e4m3, f8e5m2, f8e8m0, f4e2m1, nf4; held as uint8 codes) compute in float32
too: decoded on the way in, encoded (``ovconform.ir._element_codec.encode``) on the way out.
The low-bit integers (u1..u6 held in uint8, i4 in int8) compute in their holding dtype and wrap
modulo ``2**bitwidth`` when stored.
"""

from __future__ import annotations

import numpy as np

from ovconform.errors import ValidationError
from ovconform.ir import Type, bf16_to_f32, f32_to_bf16
from ovconform.ir._element_codec import decode, encode

_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)
#: Largest float64 below 2**63 and the float64 2**63 / 2**64 bounds used by float → integer conversion.
_I64_HI = float(np.nextafter(2.0 ** 63, 0))
_U64_HI = float(np.nextafter(2.0 ** 64, 0))


def compute_dtype(t: Type) -> np.dtype:
    """The numpy dtype a kernel computes ``t`` in: float32 for f16/bf16, else the storage dtype."""
    if t.name in ("f16", "bf16") or t.is_coded():
        return _F32
    return t.to_dtype()


def to_compute(arr: np.ndarray, t: Type) -> np.ndarray:
    """``arr`` (stored as ``t``) as an array of ``compute_dtype(t)``."""
    if t.name == "bf16":
        return bf16_to_f32(arr)
    if t.name == "f16":
        return arr.astype(_F32)
    if t.is_coded():
        return decode(arr, t)
    return arr


def wrap_bits(values: np.ndarray, t: Type) -> np.ndarray:
    """Integers wrapped into the low-bit integer type ``t`` (u1..u6: modulo ``2**bitwidth``; i4:
    two's complement of 4 bits), held in ``t.to_dtype()``."""
    low = np.asarray(values).astype(np.int64) & ((1 << t.bitwidth) - 1)
    if t.is_signed():
        low = (low ^ (1 << (t.bitwidth - 1))) - (1 << (t.bitwidth - 1))
    return low.astype(t.to_dtype())


def from_compute(arr: np.ndarray, t: Type) -> np.ndarray:
    """Store a computed array as element type ``t`` (round to nearest for f16/bf16)."""
    arr = np.asarray(arr)
    if t.name == "bf16":
        return f32_to_bf16(arr.astype(_F32, copy=False))
    if t.is_coded():
        return encode(arr, t)
    if t.is_packed():
        return wrap_bits(arr, t)
    return arr.astype(t.to_dtype(), copy=False)


def float_to_int(values: np.ndarray, dst: np.dtype) -> np.ndarray:
    """Float → integer as C++ ``static_cast`` does for in-range values: truncate toward zero.

    Out-of-range values (undefined in C++ and in the spec) are defined here as: truncate, then
    wrap modulo 2**N into the destination type (the C++ rule for integer → integer), with the
    truncated value first clamped to the int64 range (to [0, 2**64) for u64 destinations when
    it is non-negative). NaN becomes 0. Examples: 300.7 → u8 44, -1.5 → u8 255, 1e20 → i32 -1024 (the int64
    bound 2**63 - 1024 wrapped).
    """
    t = np.trunc(np.asarray(values, dtype=_F64))
    t = np.where(np.isnan(t), 0.0, t)
    if dst == np.uint64:
        neg = t < 0
        pos = np.clip(t, 0.0, _U64_HI).astype(np.uint64)
        wrapped = np.clip(t, -_I64_HI, 0.0).astype(np.int64).astype(np.uint64)
        return np.where(neg, wrapped, pos)
    return np.clip(t, -2.0 ** 63, _I64_HI).astype(np.int64).astype(dst)


def round_half_away(values: np.ndarray) -> np.ndarray:
    """``std::round``: to nearest, halves away from zero."""
    return np.copysign(np.floor(np.abs(values) + 0.5), values)


def convert_array(arr: np.ndarray, src: Type, dst: Type) -> np.ndarray:
    """Convert ``arr`` stored as ``src`` to element type ``dst`` (see :func:`float_to_int`).

    Integer → integer wraps modulo 2**N (C++ rule, as the spec states for signed → unsigned);
    any type → boolean is ``x != 0`` (so NaN → True, as ``static_cast<bool>`` gives); boolean →
    numbers is 0/1; to f16/bf16 rounds to nearest even (overflow → ±inf).

    The storage types, as OpenVINO's Convert computes them (``ov::reference::convert`` through
    its element classes; its CPU plugin constant-folds these Converts with the same code):
    to u1..u6/i4 truncates toward zero like any integer and wraps modulo ``2**bitwidth``; a
    coded source (f8*, f4e2m1, nf4) is decoded to float32 first; to a coded type any source goes
    through float32 and is rounded by ``encode`` (f8e4m3 overflows to NaN, f8e5m2 to ±inf,
    f4e2m1 saturates at ±6, nf4 takes the nearest table value). string converts to nothing.
    """
    if Type.string in (src, dst) and src != dst:
        raise ValidationError(f"Convert: no conversion between {src} and {dst}; string converts only to string.")
    if dst.name == "boolean":
        return to_compute(arr, src) != 0
    if src == dst:
        return arr.copy()
    if dst.is_coded():
        return encode(to_compute(arr, src).astype(_F32), dst)
    values = to_compute(arr, src)
    if dst.is_packed():
        whole = float_to_int(values, np.dtype(np.int64)) if values.dtype.kind == "f" else values
        return wrap_bits(whole, dst)
    if dst.is_integral_number() and values.dtype.kind == "f":
        return float_to_int(values, dst.to_dtype())
    if dst.name == "bf16":
        return f32_to_bf16(values.astype(_F32))
    return values.astype(dst.to_dtype())


#: Set to float64 to compute every float kernel that follows :func:`compute_float_dtype` in double
#: precision (the accuracy measurements in tests/reference/test_kernel_accuracy.py do).
FLOAT_COMPUTE: dict[str, np.dtype] = {"f64": _F64, "f32": _F32, "f16": _F32, "bf16": _F32}


def compute_float_dtype(t: Type) -> np.dtype:
    """The float dtype transcendental and BLAS kernels compute ``t`` in: float32 for f32, f16 and
    bf16 (numpy's SIMD float32 functions and sgemm), float64 for f64 and for integer inputs (so
    every i32 value is exact). The error bound this costs is measured and stated in
    ``tests/reference/test_kernel_accuracy.py``."""
    return FLOAT_COMPUTE.get(t.name, _F64)


def accumulate_dtype(t: Type) -> np.dtype:
    """The dtype sums and products accumulate in: float64 for every float type (the oracle favours
    accuracy), int64/uint64 for integers (results then wrap to the output type)."""
    if t.is_real():
        return _F64
    if t.name == "boolean":
        return np.dtype(np.int64)
    return np.dtype(np.uint64) if not t.is_signed() else np.dtype(np.int64)


def lowest(t: Type) -> float | int:
    """The lowest finite value of ``t`` (``numeric_limits<T>::lowest()``), as a Python number."""
    if t.name == "bf16":
        return float(bf16_to_f32(np.array([0xFF7F], np.uint16))[0])
    if t.is_real():
        return float(np.finfo(t.to_dtype()).min)
    if t.name == "boolean":
        return 0
    return int(np.iinfo(t.to_dtype()).min)


def store(values: np.ndarray, t: Type) -> np.ndarray:
    """Store accumulated values as ``t``: floats round to nearest, integers wrap (C semantics)."""
    if t.is_integral_number() and values.dtype.kind == "f":
        return float_to_int(values, t.to_dtype())
    return from_compute(values, t)
