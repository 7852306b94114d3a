"""Case strategies of the type ops (OpenVINO's op-spec folder "type"): Convert-1, ConvertLike-1 and
ConvertPromoteTypes-14.

Convert/ConvertLike values always fit the destination type, and floats converted to integers have
a fractional part below 0.4 in magnitude: the spec leaves out-of-range conversions undefined, and
OpenVINO CPU truncates toward zero where the spec only says the value "may be rounded".

Some Convert cases convert a Constant of a storage type (u1, u2, u3, u4, u6, i4, nf4,
f4e2m1, f8e4m3, f8e5m2, f8e8m0), as OpenVINO's compressed weights do: low-bit integers to any
full type their values fit, the coded types to f32 or f16, drawing every code (NaN and inf codes
included; f8e8m0 only its f32-normal codes 1..254 for f32 and 113..142 for f16, where it is
normal and finite). Converting *to* the storage types is tested in
``tests/ir/test_openvino_element_types.py``: OpenVINO CPU computes those Converts only when it
constant-folds them (from a Parameter it returns unwrapped values for u4/i4 and crashes on u1).
Stimulus cases ``Convert-1-stored-<type>`` and ``ConvertLike-1-stored-<type>`` (like: an f32
Parameter) convert every value (every code) of each storage type, in a 6×43 Constant (partial pack
units in every row), to f32.

ConvertPromoteTypes: type pairs whose promotion is valid under the drawn attributes (bf16 is left
out: ``CaseBuilder.param`` types a Parameter by its numpy dtype, and bf16 is stored as uint16);
values are small whole numbers (within [0, 100] when an unsigned type is involved), so every
conversion is exact.

StringTensorUnpack-15, StringTensorPack-15: multi-byte UTF-8 strings; see the comment above their
strategies.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Any

import numpy as np
from hypothesis import strategies as st

from ovconform import opset
from ovconform.errors import ValidationError
from ovconform.ir import Type
from ovconform.ir._types import value_range
from ovconform.opcases import OpCase, register_case
from ovconform.opcases import stimulus as S
from ovconform.opcases._draw import CaseBuilder, Draw, draw_seed, draw_shape, type_limits
from ovconform.opset._type import promote_types

TYPES = (Type.f32, Type.f16, Type.i32, Type.i64, Type.i8, Type.u8, Type.boolean)
NOTE = "values fit the destination type; float-to-integer fractions stay below 0.4 (trunc == round)."


def _source_values(b: CaseBuilder, shape: tuple[int, ...], src: Type, dst: Type) -> np.ndarray:
    """Whole numbers inside both types' ranges (at most +-100); real sources get a fraction that
    points away from zero and stays below 0.4, so truncation and rounding agree."""
    if src == Type.boolean:
        return b.uniform(shape, src, 0, 1)
    bounds = [(-100, 100), type_limits(src)] + ([type_limits(dst)] if dst != Type.boolean else [])
    lo, hi = max(lo for lo, _ in bounds), min(hi for _, hi in bounds)
    whole = b.integers(shape, Type.i64, int(lo), int(hi)).astype(np.float64)
    if src.is_real():
        away = np.where(whole < 0, -1.0, 1.0)
        whole = whole + away * b.rng.uniform(0, 0.4, shape)
    return whole.astype(src.to_dtype())


def _draw_types(draw: Draw[Any]) -> tuple[Type, Type]:
    return draw(st.sampled_from(TYPES)), draw(st.sampled_from(TYPES))


STORED_INTEGERS = (Type.u1, Type.u2, Type.u3, Type.u4, Type.u6, Type.i4)
CODED = (Type.nf4, Type.f4e2m1, Type.f8e4m3, Type.f8e5m2, Type.f8e8m0)
STORED_NOTE = "a Constant of a storage type, every value (or code) of it drawn."
#: Codes of f8e8m0 whose values are normal and finite in the destination (2**-126..2**127; 2**-14..2**15).
_E8M0_CODES = {"f32": (1, 254), "f16": (113, 142)}


def _stored_values(b: CaseBuilder, shape: tuple[int, ...], src: Type, dst: Type) -> np.ndarray:
    """Held values of the storage type ``src`` (values for low-bit integers, codes for coded types)
    whose conversion to ``dst`` is defined."""
    if src.is_coded():
        lo, hi = _E8M0_CODES[dst.name] if src == Type.f8e8m0 else (0, 2 ** src.bitwidth - 1)
        return b.rng.integers(lo, hi + 1, shape).astype(np.uint8)
    held = value_range(src)
    assert held is not None
    lo, hi = held
    if dst != Type.boolean:
        lo, hi = max(lo, int(type_limits(dst)[0])), min(hi, int(type_limits(dst)[1]))
    return b.rng.integers(lo, hi + 1, shape).astype(src.to_dtype())


def _convert_stored(draw: Draw[Any]) -> OpCase:
    src = draw(st.sampled_from(STORED_INTEGERS + CODED))
    dst = draw(st.sampled_from((Type.f32, Type.f16) if src.is_coded() else TYPES))
    shape = draw_shape(draw)
    b = CaseBuilder(draw_seed(draw))
    x = opset.constant(_stored_values(b, shape, src, dst), src)
    return b.finish("Convert", 1, opset.convert(x, dst), STORED_NOTE)


@register_case("Convert", 1)
def _convert(draw: Draw[Any]) -> OpCase:
    if draw(st.integers(0, 2)) == 0:
        return _convert_stored(draw)
    src, dst = _draw_types(draw)
    shape = draw_shape(draw)
    b = CaseBuilder(draw_seed(draw))
    x = b.param("x", _source_values(b, shape, src, dst))
    return b.finish("Convert", 1, opset.convert(x, dst), NOTE)


@register_case("ConvertLike", 1)
def _convert_like(draw: Draw[Any]) -> OpCase:
    src, dst = _draw_types(draw)
    shape, like_shape = draw_shape(draw), draw_shape(draw, max_rank=2)
    b = CaseBuilder(draw_seed(draw))
    x = b.param("x", _source_values(b, shape, src, dst))
    like = b.param("like", b.integers(like_shape, dst, 0, 5))
    return b.finish("ConvertLike", 1, opset.convert_like(x, like), NOTE)


PROMOTE_TYPES = (Type.boolean, Type.f16, Type.f32, Type.f64, Type.i8, Type.i16, Type.i32, Type.i64, Type.u8,
                 Type.u16, Type.u32, Type.u64)
U64_TARGETS = (Type.f32, Type.f64, Type.f16, Type.i64, Type.i32)


def _small_values(b: CaseBuilder, shape: tuple[int, ...], et: Type, unsigned: bool) -> np.ndarray:
    if et == Type.boolean:
        return b.uniform(shape, et, 0, 1)
    low = 0 if unsigned or not et.is_signed() else -100
    return b.integers(shape, et, low, 100)


@register_case("ConvertPromoteTypes", 14)
def case_convert_promote_types(draw: Draw[Any]) -> OpCase:
    ta, tb = draw(st.sampled_from(PROMOTE_TYPES)), draw(st.sampled_from(PROMOTE_TYPES))
    sa, sb = (draw(st.sampled_from(((), (1,), (3,), (2, 3), (2, 1, 2)))) for _ in range(2))
    pytorch = draw(st.booleans())
    target = draw(st.sampled_from(U64_TARGETS))
    unsafe = draw(st.booleans())
    try:
        promote_types(ta, tb, sa == (), sb == (), unsafe, pytorch, target)
    except ValidationError:
        unsafe = True
        try:
            promote_types(ta, tb, sa == (), sb == (), unsafe, pytorch, target)
        except ValidationError:
            tb = ta
    unsigned = any(t.is_integral_number() and not t.is_signed() for t in (ta, tb, target))
    b = CaseBuilder(draw_seed(draw))
    left = b.param("a", _small_values(b, sa, ta, unsigned))
    right = b.param("b", _small_values(b, sb, tb, unsigned))
    node = opset.convert_promote_types(left, right, unsafe, pytorch, target)
    return b.finish("ConvertPromoteTypes", 14, node)


# -- stimulus cases: every value of every storage type ------------------------------------------------

#: Rows × columns of the stored-type stimulus: 43 columns leave a partial pack unit in every row
#: (2 u4 per byte, 8 u3 per 3-byte block, 4 u6 per block), and 6 rows hold all 256 f8 codes.
STORED_SHAPE = (6, 43)


def _every_value(src: Type, rng: np.random.Generator) -> np.ndarray:
    """Every value (codes for coded types) ``src`` holds, each at least once, shuffled, in
    :data:`STORED_SHAPE` (f8e8m0 without code 0, whose value 2**-127 is an f32 subnormal)."""
    held = value_range(src) or ((1, 255) if src == Type.f8e8m0 else (0, 255))
    lo, hi = held
    count = int(np.prod(STORED_SHAPE))
    values = np.concatenate([np.arange(lo, hi + 1), rng.integers(lo, hi + 1, count - (hi - lo + 1))])
    return rng.permutation(values).reshape(STORED_SHAPE).astype(src.to_dtype())


def _stored_case(op_type: str, src: Type) -> OpCase:
    b = S.StimulusBuilder(S.seed_of(op_type, 1, f"stored-{src.name}"))
    x = opset.constant(_every_value(src, b.rng), src)
    if op_type == "Convert":
        node = opset.convert(x, Type.f32)
    else:
        node = opset.convert_like(x, b.param("like", np.zeros(1, np.float32)))
    return b.finish(op_type, 1, node, f"every value of {src} (a Constant) to f32.")


def _stored_stimuli(op_type: str) -> Iterable[S.Stimulus]:
    for src in STORED_INTEGERS + CODED:
        yield S.Stimulus(op_type, 1, f"stored-{src.name}", "remainder", "special" if src.is_coded() else "ordinary",
                         src, functools.partial(_stored_case, op_type, src))


for _op in ("Convert", "ConvertLike"):
    S.register_stimuli(_op, 1)(functools.partial(_stored_stimuli, _op))


# -- StringTensorUnpack-15, StringTensorPack-15 ------------------------------------------------------------------
# Strings of 0..6 characters drawn from ASCII, Latin-1, CJK and emoji (1 to 4 UTF-8 bytes each; empty strings
# included) in tensors of rank 0..3 (dims 0..4: empty tensors too). StringTensorUnpack reads them from a
# Parameter or a Constant. StringTensorPack gets begins/ends (i32 or i64) that select whole characters of a
# symbols buffer, in order, with unused bytes between and before them, from Parameters; no empty range
# (OpenVINO CPU fills an empty string from stale memory: not reproducible, so not a recorded deviation; see
# tests/reference/deviations_opset_completion.py). StringTensorUnpack's cases hold empty strings.

_ALPHABET = "abcXYZ09 _-éßø€中文字😀🚀"


def _strings(draw: Draw[Any], shape: tuple[int, ...]) -> np.ndarray:
    size = int(np.prod(shape, dtype=np.int64))
    words = [draw(st.text(alphabet=_ALPHABET, min_size=0, max_size=6)) for _ in range(size)]
    out = np.empty(size, dtype=object)
    out[:] = words
    return out.reshape(shape)


@register_case("StringTensorUnpack", 15)
def _string_tensor_unpack(draw: Draw[Any]) -> OpCase:
    shape = draw_shape(draw, 0, 3, 4)
    b = CaseBuilder(draw_seed(draw))
    strings = _strings(draw, tuple(shape))
    data = b.param("data", strings) if draw(st.integers(0, 3)) else opset.constant(strings, Type.string)
    return b.finish("StringTensorUnpack", 15, opset.string_tensor_unpack(data), "UTF-8 bytes of str values.")


@register_case("StringTensorPack", 15)
def _string_tensor_pack(draw: Draw[Any]) -> OpCase:
    shape = tuple(draw_shape(draw, 0, 3, 4))
    strings = _strings(draw, shape).reshape(-1)
    # no empty string: OpenVINO CPU packs one from stale memory (see the comment above)
    strings = np.array([t or draw(st.text(alphabet=_ALPHABET, min_size=1, max_size=3)) for t in strings], dtype=object)
    buffer, begins, ends = b"", [], []
    for text in strings:
        gap = draw(st.sampled_from((b"", b"", b"#", b"\x00~")))
        buffer += gap + ("é" if draw(st.integers(0, 4)) == 0 else "").encode()
        begins.append(len(buffer))
        buffer += text.encode("utf-8")
        ends.append(len(buffer))
    buffer += draw(st.sampled_from((b"", b"tail")))
    index_t = draw(st.sampled_from((Type.i32, Type.i64)))
    b = CaseBuilder(draw_seed(draw))
    first = b.param("begins", np.array(begins, dtype=index_t.to_dtype()).reshape(shape))
    last = b.param("ends", np.array(ends, dtype=index_t.to_dtype()).reshape(shape))
    symbols = b.param("symbols", np.frombuffer(buffer, dtype=np.uint8).copy())
    return b.finish("StringTensorPack", 15, opset.string_tensor_pack(first, last, symbols), "whole UTF-8 characters.")
