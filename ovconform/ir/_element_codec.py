"""The bits of OpenVINO's storage types: decoding and encoding 4/8-bit float codes, and the byte
layouts of packed elements and strings in IR weights and ``openvino.Tensor`` memory.

Codes (held as uint8, see :mod:`ovconform.ir._types`) decode to float32 exactly:

* f8e4m3 (OCP E4M3FN): bias 7, no infinity, ``S.1111.111`` is NaN, largest finite 448;
* f8e5m2: the upper byte of an IEEE f16 (bias 15, infinities, NaNs);
* f8e8m0: ``2**(code - 127)``, code 0 is ``2**-127`` and 0xFF is NaN (no sign, no zero);
* f4e2m1: ``±{0, 0.5, 1, 1.5, 2, 3, 4, 6}`` (sign in bit 3);
* nf4: the 16-value NormalFloat4 table of bitsandbytes, as ``ov::ConvertNF4``.

Encoding rounds a float32 value as OpenVINO's element classes do (``ov::float8_e4m3(float)`` and
friends; sources other than f32 go through float32 first, as OpenVINO's Convert does):

* f8e4m3: first to f16 (nearest even), then to nearest, ties to even; magnitudes above 464 (and
  ±inf, NaN) give NaN (``S.1111.111``). The f16 step is OpenVINO 2026.4's (its constant folding and
  CPU plugin agree; a direct f32 rounding, as ``ov::float8_e4m3(float)``'s source reads, differs
  on values within an f16 ulp of a midpoint — 576 of 200,000 random values);
* f8e5m2: first to f16 (nearest even), then the f16 bits to nearest even on the upper byte;
  overflow gives ±inf, NaN stays NaN;
* f8e8m0: negative values (and -0.0) give code 0; otherwise the exponent rounded to nearest
  (ties to an even code) on the mantissa; +inf gives 0xFE (``2**127``), NaN gives 0xFF;
* f4e2m1: to nearest, ties to even, saturating at ±6; NaN and ±inf give ±6 (the sign bit kept);
* nf4: the nearest table value (OpenVINO's decision tree of midpoints; NaN gives code 0, -1.0).

Packed layouts (what ``openvino.save_model`` writes, checked byte by byte in
``tests/ir/test_openvino_element_types.py``):

* u1: 8 per byte, the first element in the most significant bit;
* u2: 4 per byte, the first element in the least significant bits;
* u4, i4, nf4, f4e2m1: 2 per byte, the first element in the low nibble;
* u3: blocks of 8 elements in 3 bytes: two bytes of the elements' low 2 bits (4 per byte, first
  element in the most significant bits), then a byte of their high bits (first element in bit 7);
* u6: blocks of 4 elements in 3 bytes: two bytes of low nibbles (first element in the high
  nibble), then a byte of the 4 elements' high 2 bits (first element in bits 7-6).

Strings: ``int32 count``, ``count + 1`` int32 offsets (0, then the end of each string), then the
bytes of all strings (UTF-8; surrogate-escaped bytes are written back as the bytes they were).
"""

from __future__ import annotations

import numpy as np

from ovconform.errors import ValidationError
from ovconform.ir._types import Type, byte_size, check_values, f32_to_bf16

__all__ = ["decode", "encode", "holding_array", "pack", "pack_strings", "unpack", "unpack_strings"]

_F32 = np.dtype(np.float32)


def _e4m3_table() -> np.ndarray:
    codes = np.arange(256)
    exp, man = (codes >> 3) & 0xF, codes & 7
    mag = np.where(exp == 0, man / 8.0 * 2.0 ** -6, (1 + man / 8.0) * 2.0 ** (exp - 7.0))
    mag = np.where((codes & 0x7F) == 0x7F, np.nan, mag)
    return np.where(codes & 0x80, -mag, mag).astype(np.float32)


def _e5m2_table() -> np.ndarray:
    with np.errstate(invalid="ignore"):  # signalling f16 NaN codes: kept as quiet NaNs of their sign
        table = (np.arange(256, dtype=np.uint16) << 8).view(np.float16).astype(np.float32)
    return np.where(np.isnan(table), np.copysign(np.float32(np.nan), table), table).astype(np.float32)


def _e8m0_table() -> np.ndarray:
    table = (np.arange(256, dtype=np.uint32) << 23).view(np.float32).copy()
    table[0] = np.float32(2.0 ** -127)
    table[255] = np.nan
    return table


_F4E2M1 = np.array([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, -0.0, -0.5, -1.0, -1.5, -2.0, -3.0, -4.0, -6.0],
                   dtype=np.float32)
_NF4 = np.array([-1.0, -0.6961928009986877, -0.5250730514526367, -0.39491748809814453, -0.28444138169288635,
                 -0.18477343022823334, -0.09105003625154495, 0.0, 0.07958029955625534, 0.16093020141124725,
                 0.24611230194568634, 0.33791524171829224, 0.44070982933044434, 0.5626170039176941,
                 0.7229568362236023, 1.0], dtype=np.float32)
#: OpenVINO's nf4 decision thresholds: code = number of thresholds strictly below x.
_NF4_SPLITS = np.array([-0.8480964004993439, -0.6106329262256622, -0.4599952697753906, -0.33967943489551544,
                        -0.23460740596055984, -0.13791173323988914, -0.045525018125772476, 0.03979014977812767,
                        0.1202552504837513, 0.2035212516784668, 0.2920137718319893, 0.3893125355243683,
                        0.5016634166240692, 0.6427869200706482, 0.8614784181118011], dtype=np.float32)
_TABLES: dict[str, np.ndarray] = {"f8e4m3": _e4m3_table(), "f8e5m2": _e5m2_table(), "f8e8m0": _e8m0_table(),
                                  "f4e2m1": _F4E2M1, "nf4": _NF4}


def decode(codes: np.ndarray, et: Type) -> np.ndarray:
    """float32 values of the codes of a coded type (f8e4m3, f8e5m2, f8e8m0, f4e2m1, nf4)."""
    return _TABLES[et.name][np.asarray(codes, dtype=np.uint8)]


def encode(values: np.ndarray, et: Type) -> np.ndarray:
    """uint8 codes of ``values`` (converted to float32 first) in a coded type, rounded as the module
    docstring states."""
    x = np.asarray(values).astype(_F32)
    if et.name == "f8e4m3":
        return _encode_e4m3(x)
    if et.name == "f8e5m2":
        return _encode_e5m2(x)
    if et.name == "f8e8m0":
        return _encode_e8m0(x)
    if et.name == "f4e2m1":
        return _encode_f4e2m1(x)
    if et.name == "nf4":
        return np.where(np.isnan(x), 0, np.searchsorted(_NF4_SPLITS, x, side="left")).astype(np.uint8)
    raise ValidationError(f"element type {et} has no codes; coded types are f8e4m3, f8e5m2, f8e8m0, f4e2m1, nf4.")


def _nearest_even(mag: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """Index of the nearest value of the ascending ``grid`` to each finite ``mag``; ties go to the
    even index (the even code: every grid here is indexed by its code)."""
    hi = np.clip(np.searchsorted(grid, mag, side="left"), 1, len(grid) - 1)
    lo = hi - 1
    d_lo, d_hi = mag - grid[lo], grid[hi] - mag
    pick_hi = (d_hi < d_lo) | ((d_hi == d_lo) & (hi % 2 == 0))
    return np.where(pick_hi, hi, lo)


_E4M3_GRID = _e4m3_table()[:127].astype(np.float64)  # codes 0..126: 0 .. 448


def _encode_e4m3(x: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        x = x.astype(np.float16).astype(_F32)  # OpenVINO rounds to f16 first (measured: 2026.4's Convert)
    sign = np.signbit(x).astype(np.uint8) << 7
    mag = np.abs(x).astype(np.float64)
    finite = np.isfinite(mag)
    code = _nearest_even(np.where(finite, np.minimum(mag, 448.0), 0.0), _E4M3_GRID)
    nan = ~finite | (mag > 464.0)
    return (np.where(nan, 0x7F, code).astype(np.uint8)) | sign


def _encode_e5m2(x: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        bits = x.astype(np.float16).view(np.uint16).astype(np.uint32)
    naninf = (bits & 0x7C00) == 0x7C00
    rest, tie = bits & 0xFF, bits & 0x180
    up = ((rest > 0x80) | (tie == 0x180)) & ~naninf
    return (((bits + (up.astype(np.uint32) << 8)) & 0xFF00) >> 8).astype(np.uint8)


def _encode_e8m0(x: np.ndarray) -> np.ndarray:
    bits = x.view(np.uint32)
    exp = (bits >> 23) & 0xFF
    man = bits & 0x7FFFFF
    up = (man > 0x400000) | ((man == 0x400000) & ((exp & 1) == 1))
    normal = exp + up.astype(np.uint32)
    code = np.where(exp >= 0xFE, exp - np.isinf(x).astype(np.uint32), normal)
    return np.where(np.signbit(x), 0, code).astype(np.uint8)


_F4_GRID = _F4E2M1[:8].astype(np.float64)


def _encode_f4e2m1(x: np.ndarray) -> np.ndarray:
    sign = np.signbit(x).astype(np.uint8) << 3
    mag = np.abs(x).astype(np.float64)
    finite = np.isfinite(mag)
    code = _nearest_even(np.where(finite, np.minimum(mag, 6.0), 0.0), _F4_GRID)
    return np.where(finite, code, 7).astype(np.uint8) | sign


# -- packed layouts -------------------------------------------------------------------------------

def _pack_fields(values: np.ndarray, bits: int, msb_first: bool) -> np.ndarray:
    """``values`` (uint8, each below 2**bits) packed ``8 // bits`` to a byte."""
    per = 8 // bits
    padded = np.zeros(-(-values.size // per) * per, dtype=np.uint8)
    padded[:values.size] = values
    shifts = np.arange(per, dtype=np.uint8) * bits
    if msb_first:
        shifts = (8 - bits - shifts).astype(np.uint8)
    return np.bitwise_or.reduce(padded.reshape(-1, per) << shifts, axis=1).astype(np.uint8)


def _unpack_fields(raw: np.ndarray, bits: int, msb_first: bool, count: int) -> np.ndarray:
    per = 8 // bits
    shifts = np.arange(per, dtype=np.uint8) * bits
    if msb_first:
        shifts = (8 - bits - shifts).astype(np.uint8)
    return ((raw[:, None] >> shifts) & ((1 << bits) - 1)).reshape(-1)[:count].astype(np.uint8)


def _pack_blocks(values: np.ndarray, per_block: int, low_bits: int) -> np.ndarray:
    """u3/u6: blocks of ``per_block`` elements: their low bits (MSB first), then their high bits."""
    padded = np.zeros(-(-values.size // per_block) * per_block, dtype=np.uint8)
    padded[:values.size] = values
    low = _pack_fields(padded & ((1 << low_bits) - 1), low_bits, True).reshape(-1, 2)
    high = _pack_fields(padded >> low_bits, 8 // (per_block), True).reshape(-1, 1)
    return np.concatenate([low, high], axis=1).reshape(-1)


def _unpack_blocks(raw: np.ndarray, per_block: int, low_bits: int, count: int) -> np.ndarray:
    blocks = raw.reshape(-1, 3)
    n = blocks.shape[0] * per_block
    low = _unpack_fields(np.ascontiguousarray(blocks[:, :2]).reshape(-1), low_bits, True, n)
    high = _unpack_fields(np.ascontiguousarray(blocks[:, 2]), 8 // per_block, True, n)
    return ((high << low_bits) | low)[:count].astype(np.uint8)


_FIELDS = {"u1": (1, True), "u2": (2, False), "u4": (4, False), "i4": (4, False), "nf4": (4, False),
           "f4e2m1": (4, False)}


def pack(array: np.ndarray, et: Type, what: str) -> bytes:
    """The bytes of ``array`` (held as ``et``) in OpenVINO's layout (little-endian, packed types
    packed, see the module docstring). ValidationError naming ``what`` for out-of-range values."""
    if et.name == "string":
        return pack_strings(array, what)
    check_values(array, et, what)
    if not et.is_packed():
        return np.ascontiguousarray(array, dtype=et.to_dtype().newbyteorder("<")).tobytes()
    flat: np.ndarray = np.ascontiguousarray(array).reshape(-1).view(np.uint8)
    if et.name == "i4":
        flat = flat & np.uint8(0x0F)
    if et.name == "u3":
        return _pack_blocks(flat, 8, 2).tobytes()
    if et.name == "u6":
        return _pack_blocks(flat, 4, 4).tobytes()
    bits, msb_first = _FIELDS[et.name]
    return _pack_fields(flat, bits, msb_first).tobytes()


def unpack(buffer: bytes | memoryview | np.ndarray, et: Type, count: int, offset: int = 0) -> np.ndarray:
    """``count`` elements of ``et`` read from ``buffer`` at byte ``offset`` (a flat array in the
    holding dtype; padding bits are ignored). Strings: see :func:`unpack_strings`."""
    if not et.is_packed():
        dtype = et.to_dtype().newbyteorder("<") if et.to_dtype().itemsize > 1 else et.to_dtype()
        return np.frombuffer(buffer, dtype=dtype, count=count, offset=offset).astype(et.to_dtype())
    raw = np.frombuffer(buffer, dtype=np.uint8, count=byte_size(et, count), offset=offset)
    if et.name == "u3":
        return _unpack_blocks(raw, 8, 2, count)
    if et.name == "u6":
        return _unpack_blocks(raw, 4, 4, count)
    bits, msb_first = _FIELDS[et.name]
    out = _unpack_fields(raw, bits, msb_first, count)
    if et.name == "i4":
        return ((out ^ 8).astype(np.int8) - 8).astype(np.int8)
    return out


# -- strings ---------------------------------------------------------------------------------------

def pack_strings(array: np.ndarray, what: str) -> bytes:
    """A string array in OpenVINO's weights layout (count, offsets, UTF-8 bytes)."""
    check_values(array, Type.string, what)
    items = []
    for text in np.asarray(array, dtype=object).reshape(-1):
        try:
            items.append(text.encode("utf-8", "surrogateescape"))
        except UnicodeEncodeError as e:
            raise ValidationError(f"{what}: string {text!r} holds the code point {text[e.start]!r}, which has no "
                                  "UTF-8 encoding.") from None
    ends = np.cumsum([0] + [len(b) for b in items], dtype=np.int64)
    if ends[-1] > np.iinfo(np.int32).max:
        raise ValidationError(f"{what}: the strings take {ends[-1]} bytes; IR v11 offsets are int32.")
    head = np.array([len(items), *ends], dtype="<i4").tobytes()
    return head + b"".join(items)


def unpack_strings(buffer: bytes | memoryview, count: int, offset: int, size: int, what: str) -> np.ndarray:
    """``count`` strings from OpenVINO's weights layout in ``buffer[offset:offset + size]``, as a flat
    object array of str. ValidationError naming ``what`` when the layout does not hold together."""
    blob = bytes(memoryview(buffer)[offset:offset + size])
    need = 4 * (count + 2)
    if len(blob) < need:
        raise ValidationError(f"{what}: {size} bytes cannot hold {count} strings (the header alone takes {need}).")
    head = np.frombuffer(blob, dtype="<i4", count=count + 2)
    if int(head[0]) != count:
        raise ValidationError(f"{what}: the weights hold {int(head[0])} strings; the shape has {count} elements.")
    ends = head[1:].astype(np.int64)
    if ends[0] != 0 or np.any(np.diff(ends) < 0) or need + ends[-1] > len(blob):
        raise ValidationError(f"{what}: string offsets {ends.tolist()[:8]} are not ascending from 0 within "
                              f"the {len(blob) - need} bytes after the header.")
    chars = blob[need:]
    out = np.empty(count, dtype=object)
    for i in range(count):
        out[i] = chars[ends[i]:ends[i + 1]].decode("utf-8", "surrogateescape")
    return out


# -- values given by users ----------------------------------------------------------------------------

def holding_array(values: np.ndarray, et: Type, what: str) -> np.ndarray:
    """``values`` as the array that holds element type ``et`` (see :mod:`ovconform.ir._types`).

    * bf16 and the coded types (f8e4m3, f8e5m2, f8e8m0, f4e2m1, nf4): an array already in the
      holding dtype (uint16 / uint8) is taken as bits or codes; any other array holds values,
      which are rounded (:func:`encode`; ``f32_to_bf16``);
    * u1..u6 and i4: the values must be whole numbers in range (no wrapping);
    * string: str, bytes (decoded as UTF-8, undecodable bytes kept as surrogate escapes) or numpy
      str/bytes arrays, held as an object array of str;
    * other types: ``values.astype(et.to_dtype())``.

    ValidationError naming ``what`` for a value the type cannot hold.
    """
    arr = np.asarray(values)
    if et.name == "string":
        out = np.empty(arr.shape, dtype=object)
        flat = out.reshape(-1)
        for i, item in enumerate(arr.reshape(-1)):
            if isinstance(item, bytes):
                item = item.decode("utf-8", "surrogateescape")
            flat[i] = str(item) if isinstance(item, str) else item
        check_values(out, et, what)
        return out
    if arr.dtype == object or arr.dtype.kind in "USV":
        raise ValidationError(f"{what}: numpy dtype {arr.dtype} cannot hold {et} values.")
    if et.name == "bf16":
        return arr if arr.dtype == np.uint16 else f32_to_bf16(arr.astype(np.float32))
    if et.is_coded():
        if arr.dtype == np.uint8:
            check_values(arr, et, what)
            return arr
        return encode(arr, et)
    if et.is_packed():
        if arr.dtype.kind == "f" and not np.array_equal(arr, np.trunc(arr)):
            raise ValidationError(f"{what}: {et} holds whole numbers; got {arr.reshape(-1)[:6].tolist()}.")
        check_values(arr, et, what)
    return arr.astype(et.to_dtype())
