"""Stimulus cases of the element-type corners the other cases do not reach: run-time conversions to
the 8-bit floats, bf16 NaN payloads, i64 values beyond the i32 range, narrowing integer Converts,
f16 and i32 results past what their types (or an f32 detour) hold, and strings with embedded NUL
bytes and empty ranges.

A red team wrote a realistic bug for each (``tests/plugins/stimulus_faults_types.py``) that every
test of its ops passed before; each label names what it adds:

* **Convert-1** — from run-time values (a Parameter, not a folded Constant):
  ``f32-f8e4m3-ties``, ``f32-f8e5m2-ties``, ``f16-f8e4m3-ties``: a third exact ties between two
  neighbouring 8-bit values (to even), a third values one f16 ulp either side of a tie, the rest
  ordinary; every value exactly held by f16, so rounding through f16 first (as OpenVINO does) and
  rounding f32 directly agree. ``f32-f8e4m3-beyond-max``, ``f32-f8e5m2-beyond-max``: magnitudes
  past the largest finite value (448, 57344): f8e4m3 (no infinity) gives NaN past 464, f8e5m2
  rounds to ±inf from 61440 (the tie with infinity goes to the even code), as OpenVINO's
  ``float8_e4m3``/``float8_e5m2`` do; below those, the largest value. ``f32-bf16-nan-payloads``:
  NaNs of both signs whose payload sits in the low 16 bits only (which rounding by
  ``(bits + 0x7FFF + lsb) >> 16`` without a NaN test turns into ±inf or ±0), in the high bits, and
  all-ones; with ordinary values and ±inf. ``i64-f32-wide``, ``i64-f64-wide``, ``i64-boolean-wide``:
  i64 values far beyond the i32 range (to ±2^62; multiples of 2^32 for boolean, whose low 32 bits
  are 0). ``i32-i8-wrap``, ``u8-i8-wrap``, ``i32-i16-wrap``, ``i64-i32-wrap``: narrowing to a
  signed type wraps modulo 2^N (the spec's C++ rule: C++20 [conv.integral] gives the value
  congruent modulo 2^N; OpenVINO's reference ``static_cast``) — 300 -> 44 in i8, not 127.
* **FakeConvert-13** — ``f8e5m2-beyond-max``, ``f8e5m2-beyond-max-shift`` (with a shift input),
  ``f8e4m3-beyond-max``: a third of the scaled values ``data * scale - shift`` past the largest
  value of the type but inside f16's range (57344..65000, 448..60000): they saturate to it (the
  reference implementation ``emulate_f8e5m2_on_fp16`` truncates them to 57344, ``_f8e4m3`` clamps
  to 448), never ±inf.
* **Add-1, Subtract-1, Multiply-1, Exp-1, Power-1, SquaredDifference-1** — ``f16-overflow``: f16
  operands, all finite, about half of whose exact results lie beyond f16's range (at least
  72,000 in magnitude, both signs): IEEE 754 rounds them to ±inf, not to ±65504; no exact result
  lies between 60,000 and 72,000, where rounding decides.
* **Add-1, Subtract-1, Multiply-1** — ``i32-beyond-2p24``: i32 operands and results between 2^24
  and 2^31 in magnitude, odd values among them (an f32 detour loses their low bits); no result
  overflows i32.
* **StringTensorUnpack-15** — ``embedded-nul``: strings with NUL bytes inside them (never at the
  end: numpy's fixed-width strings drop trailing NULs), empty strings among them.
* **StringTensorPack-15** — ``embedded-nul``: ranges over symbols with NUL bytes inside them;
  ``empty-ranges``: ranges with ``begin == end`` first, last, two in a row and one in the middle of a
  word's bytes: the spec's string ``symbols[begin:end]`` is empty (OpenVINO CPU 2026.4 agrees).

Every case is small (at most a few hundred elements) and seeded by its op, version and label
(:func:`ovconform.opcases.stimulus.seed_of`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Final

import numpy as np

from ovconform import opset
from ovconform.ir import Node, Type
from ovconform.ir._element_codec import decode
from ovconform.opcases import _stimulus_recipes as SR
from ovconform.opcases import stimulus as S

Make = SR.MakeAt
F32: Final = Type.f32
F16: Final = Type.f16
#: The shape of the elementwise cases (33: one past a 32-wide block, 4 rows).
SHAPE: Final = (4, 33)

#: the recipes of this module by (op, version), in registration order (the tests read the labels)
_BOOK = SR.RecipeBook()
RECIPES = _BOOK.recipes
register = _BOOK.register
labels = _BOOK.labels


def stim(op: str, version: int, label: str, make: Make, shape: tuple[int, ...] = SHAPE, *, values: str = "special",
         et: Type = F32, note: str = "") -> S.Stimulus:
    return S.Stimulus(op, version, label, "remainder", values, et, SR.node_case(op, version, label, make, shape, (),
                                                                                note))


def signs(rng: np.random.Generator, n: int) -> np.ndarray:
    return np.where(rng.random(n) < 0.5, -1.0, 1.0)


# -- Convert: to the 8-bit floats ---------------------------------------------------------------------------------

#: type -> (largest finite code, the value past which the conversion leaves the finite range)
F8: Final = {"f8e4m3": (0x7E, 464.0), "f8e5m2": (0x7B, 61440.0)}


def f8_values(dst: str, rng: np.random.Generator, n: int) -> np.ndarray:
    """f16-exact float64 values: a third ties between neighbouring ``dst`` codes, a third one f16 ulp
    off a tie, the rest ordinary values inside ``dst``'s range; both signs."""
    et = getattr(Type, dst)
    top, _ = F8[dst]
    codes = rng.integers(1, top, n).astype(np.uint8)  # finite, positive, below the largest
    low, high = decode(codes, et).astype(np.float64), decode(codes + 1, et).astype(np.float64)
    ties = (low + high) / 2
    ulp = np.abs(np.spacing(ties.astype(np.float16))).astype(np.float64)
    near = ties + np.where(rng.random(n) < 0.5, -ulp, ulp)
    ordinary = low + rng.random(n) * (high - low)
    kind = rng.integers(0, 3, n)
    out = np.where(kind == 0, ties, np.where(kind == 1, near, ordinary)) * signs(rng, n)
    return out.astype(np.float16).astype(np.float64)


def f8_beyond(dst: str, rng: np.random.Generator, n: int) -> np.ndarray:
    """Half the values past ``dst``'s largest finite value (up to 65000, f16-exact), the rest inside
    its range; ±inf and NaN once each."""
    et = getattr(Type, dst)
    top, _ = F8[dst]
    largest = float(decode(np.array([top], np.uint8), et)[0])
    past = rng.uniform(largest * 1.0001, 65000, n)
    inside = rng.uniform(0.01, largest, n)
    out = np.where(rng.random(n) < 0.5, past, inside) * signs(rng, n)
    out[:3] = [np.inf, -np.inf, np.nan]
    return out.astype(np.float16).astype(np.float64)


def to_f8_make(src: Type, dst: str, gen: Callable[[str, np.random.Generator, int], np.ndarray]) -> Make:
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        values = gen(dst, b.rng, int(np.prod(shape))).reshape(shape)
        return opset.convert(b.param("x", S.cast(values, src), src), getattr(Type, dst))

    return make


# -- Convert: bf16 NaN payloads -----------------------------------------------------------------------------------

def nan_payloads(rng: np.random.Generator, n: int) -> np.ndarray:
    """f32 values (as float32): a third NaNs whose payload is in the low 16 bits only, a sixth
    NaNs with high payload bits (quiet, signalling, all ones), the rest ordinary values and ±inf."""
    sign = np.where(rng.random(n) < 0.5, 0x80000000, 0).astype(np.uint32)
    low = rng.integers(1, 0x10000, n).astype(np.uint32)
    high = rng.choice(np.array([0x400000, 0x7FFFFF, 0x000100 << 8, 0x7FFF00 | 0xFF, 0x010000], np.uint32), n)
    nan_low = (0x7F800000 | low | sign).astype(np.uint32).view(np.float32)
    nan_high = (0x7F800000 | high | sign).astype(np.uint32).view(np.float32)
    ordinary = (rng.uniform(-1, 1, n) * np.exp2(rng.integers(-20, 20, n))).astype(np.float32)
    kind = rng.integers(0, 6, n)
    out = np.where(kind < 2, nan_low, np.where(kind == 2, nan_high, ordinary))
    out[:4] = np.array([0x7F800001, 0xFF800001, 0x7FFFFFFF, 0xFFFFFFFF], np.uint32).view(np.float32)
    out[4:6] = [np.inf, -np.inf]
    return out


def nan_make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
    return opset.convert(b.param("x", nan_payloads(b.rng, int(np.prod(shape))).reshape(shape), F32), Type.bf16)


# -- Convert: i64 beyond i32, narrowing to signed types -------------------------------------------------------------

def wide_i64(rng: np.random.Generator, n: int, boolean: bool) -> np.ndarray:
    """i64 values of magnitude 2^31..2^62 (for ``boolean``: multiples of 2^32, whose low 32 bits are 0),
    a few small ones and 0 among them."""
    mag = np.floor(np.exp2(rng.uniform(31, 62, n))).astype(np.int64)
    if boolean:
        mag = (mag >> 32) << 32
        mag = np.where(mag == 0, np.int64(1) << 32, mag)
    out = mag * signs(rng, n).astype(np.int64)
    out[:4] = [0, 1, -1, 7] if not boolean else [0, 1 << 32, -(1 << 32), 5 << 40]
    return out


def wide_make(dst: Type) -> Make:
    return lambda b, shape: opset.convert(b.param("x", wide_i64(b.rng, int(np.prod(shape)), dst == Type.boolean)
                                                  .reshape(shape), Type.i64), dst)


#: label -> (source, destination, the magnitude of the source values)
NARROW: Final = {"i32-i8-wrap": (Type.i32, Type.i8, 1000), "u8-i8-wrap": (Type.u8, Type.i8, 255),
                 "i32-i16-wrap": (Type.i32, Type.i16, 1 << 20), "i64-i32-wrap": (Type.i64, Type.i32, 1 << 40)}


def narrow_make(src: Type, dst: Type, bound: int) -> Make:
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        lo = -bound if src.is_signed() else 0
        values = b.rng.integers(lo, bound, shape, endpoint=True).reshape(-1)
        info = np.iinfo(dst.to_dtype())
        edges = [int(info.max), int(info.max) + 1, int(info.min) - 1, int(info.min), 0, -1] if src.is_signed() \
            else [int(info.max), int(info.max) + 1, 255, 0]
        values[:len(edges)] = edges
        return opset.convert(b.param("x", values.astype(src.to_dtype()).reshape(shape), src), dst)

    return make


@register("Convert", 1)
def convert_recipe() -> Iterable[S.Stimulus]:
    op = "Convert"
    tie_note = ("run-time values: ties between neighbouring {d} values (to even), values one f16 ulp off a tie, "
                "ordinary values; all exactly held by f16.")
    for src, f8 in ((F32, "f8e4m3"), (F32, "f8e5m2"), (F16, "f8e4m3")):
        yield stim(op, 1, f"{src.name}-{f8}-ties", to_f8_make(src, f8, f8_values), et=src,
                   note=tie_note.format(d=f8))
    for f8, note in (("f8e4m3", "past 448: 448 up to 464, NaN beyond (f8e4m3 has no infinity)"),
                     ("f8e5m2", "past 57344: 57344 below 61440, ±inf from there")):
        yield stim(op, 1, f"f32-{f8}-beyond-max", to_f8_make(F32, f8, f8_beyond), note=f"run-time values {note}.")
    yield stim(op, 1, "f32-bf16-nan-payloads", nan_make,
               note="NaNs of both signs with payloads in the low 16 bits only (stay NaN, not ±inf or ±0), in the "
                    "high bits and all ones; ordinary values and ±inf.")
    for dst in (F32, Type.f64, Type.boolean):
        yield stim(op, 1, f"i64-{dst.name}-wide", wide_make(dst), values="int-boundary", et=Type.i64,
                   note="i64 values of magnitude 2^31..2^62 (for boolean multiples of 2^32: True); nothing may pass "
                        "through 32 bits.")
    for label, (src, dst, bound) in NARROW.items():
        yield stim(op, 1, label, narrow_make(src, dst, bound), values="int-boundary", et=src,
                   note=f"{src.name} values up to {bound} in magnitude to {dst.name}: they wrap modulo "
                        f"2^{dst.bitwidth} (C++ conversion), never saturate.")


# -- FakeConvert: scaled values past the largest 8-bit value ---------------------------------------------------

#: label -> (destination, largest finite value, shift)
FAKE: Final = {"f8e5m2-beyond-max": ("f8e5m2", 57344.0, 0.0), "f8e5m2-beyond-max-shift": ("f8e5m2", 57344.0, 8.0),
               "f8e4m3-beyond-max": ("f8e4m3", 448.0, 0.0)}
SCALES: Final = (4.0, 0.5, 2.0, 16.0)


def fake_make(dest: str, largest: float, shift: float) -> Make:
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        rows, n = shape
        past = b.rng.uniform(largest * 1.01, 65000, shape)
        inside = b.rng.uniform(-largest, largest, shape)
        scaled = np.where(b.rng.random(shape) < 0.35, past * signs(b.rng, rows * n).reshape(shape), inside)
        scaled = scaled.astype(np.float16).astype(np.float64)  # exact in f16, so the f16 step keeps it
        scale = np.array(SCALES[:rows], np.float64).reshape(rows, 1)
        data = (scaled + shift) / scale  # scale is a power of two: data * scale - shift is scaled again
        shift_node = b.const(np.full((rows, 1), shift, np.float32), F32) if shift else None
        return opset.fake_convert(b.param("data", S.cast(data, F32), F32),
                                  b.const(scale.astype(np.float32), F32), shift_node, dest)

    return make


@register("FakeConvert", 13)
def fake_convert_recipe() -> Iterable[S.Stimulus]:
    for label, (dest, largest, shift) in FAKE.items():
        yield stim("FakeConvert", 13, label, fake_make(dest, largest, shift), values="large-magnitude",
                   note=f"about a third of data * scale - shift past {largest:g} (inside f16's range): saturates to "
                        f"±{largest:g}; scales {list(SCALES)}, shift {shift:g}.")


# -- f16 arithmetic that overflows from finite inputs ---------------------------------------------------------------

F16_RANGE_GAP: Final = (60000.0, 72000.0)

#: op -> (operand generator (rng, n) -> operands, exact result)
Gen = Callable[[np.random.Generator, int], tuple[np.ndarray, ...]]


def _add(rng: np.random.Generator, n: int) -> tuple[np.ndarray, ...]:
    s = signs(rng, n)
    return rng.uniform(20000, 65000, n) * s, rng.uniform(5000, 65000, n) * s


def _subtract(rng: np.random.Generator, n: int) -> tuple[np.ndarray, ...]:
    s = signs(rng, n)
    return rng.uniform(20000, 65000, n) * s, -rng.uniform(5000, 65000, n) * s


def _multiply(rng: np.random.Generator, n: int) -> tuple[np.ndarray, ...]:
    return rng.uniform(50, 600, n) * signs(rng, n), rng.uniform(50, 600, n) * signs(rng, n)


def _exp(rng: np.random.Generator, n: int) -> tuple[np.ndarray, ...]:
    return (rng.uniform(0, 16, n),)


def _power(rng: np.random.Generator, n: int) -> tuple[np.ndarray, ...]:
    return rng.uniform(1.5, 40, n), rng.integers(2, 6, n).astype(np.float64)


def _sqdiff(rng: np.random.Generator, n: int) -> tuple[np.ndarray, ...]:
    return rng.uniform(-500, 500, n), rng.uniform(-500, 500, n)


def _exact(op: str, args: tuple[np.ndarray, ...]) -> np.ndarray:
    a = args[0]
    if op == "Exp":
        return np.asarray(np.exp(a))
    b = args[1]
    exact: dict[str, Callable[[], np.ndarray]] = {
        "Add": lambda: a + b, "Subtract": lambda: a - b, "Multiply": lambda: a * b,
        "Power": lambda: np.power(a, b), "SquaredDifference": lambda: (a - b) ** 2}
    return exact[op]()


OVERFLOW: Final[dict[str, Gen]] = {"Add": _add, "Subtract": _subtract, "Multiply": _multiply, "Exp": _exp,
                                   "Power": _power, "SquaredDifference": _sqdiff}


def overflow_operands(op: str, rng: np.random.Generator, n: int) -> tuple[np.ndarray, ...]:
    """f16-exact operands (float64) of ``op`` whose exact results avoid :data:`F16_RANGE_GAP`; drawn
    again where they do not."""
    args = tuple(a.astype(np.float16).astype(np.float64) for a in OVERFLOW[op](rng, n))
    for _ in range(50):
        r = np.abs(_exact(op, args))
        bad = (r > F16_RANGE_GAP[0]) & (r < F16_RANGE_GAP[1])
        if not bad.any():
            return args
        fresh = tuple(a.astype(np.float16).astype(np.float64) for a in OVERFLOW[op](rng, n))
        args = tuple(np.where(bad, f, a) for a, f in zip(args, fresh, strict=True))
    raise AssertionError(f"{op}: no f16 operands outside the rounding gap")  # pragma: no cover - 50 draws suffice


def overflow_make(op: str) -> Make:
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        args = overflow_operands(op, b.rng, int(np.prod(shape)))
        params = [b.param(name, S.cast(a.reshape(shape), F16), F16) for name, a in zip("ab", args, strict=False)]
        if op == "Exp":
            return opset.exp(params[0])
        maker = {"Add": opset.add, "Subtract": opset.subtract, "Multiply": opset.multiply, "Power": opset.power,
                 "SquaredDifference": opset.squared_difference}[op]
        return maker(params[0], params[1])

    return make


# -- i32 arithmetic beyond 2^24 -------------------------------------------------------------------------------------

def _i32_operands(op: str, rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    if op == "Multiply":
        a = rng.integers(1 << 23, 1 << 25, n) | 1
        b = rng.integers(3, 63, n)
    else:
        a = rng.integers(1 << 24, 1 << 30, n) | 1
        b = rng.integers(1, 1 << 20, n)
    return a * signs(rng, n).astype(np.int64), b * signs(rng, n).astype(np.int64)


def i32_make(op: str) -> Make:
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        x, y = (v.astype(np.int32).reshape(shape) for v in _i32_operands(op, b.rng, int(np.prod(shape))))
        maker = {"Add": opset.add, "Subtract": opset.subtract, "Multiply": opset.multiply}[op]
        return maker(b.param("a", x, Type.i32), b.param("b", y, Type.i32))

    return make


def arithmetic_recipe(op: str) -> Callable[[], Iterable[S.Stimulus]]:
    def recipe() -> Iterable[S.Stimulus]:
        yield stim(op, 1, "f16-overflow", overflow_make(op), values="large-magnitude", et=F16,
                   note="finite f16 operands; about half the exact results beyond f16's range (>= 72000 in "
                        "magnitude): ±inf (IEEE 754), not ±65504; none between 60000 and 72000.")
        if op in ("Add", "Subtract", "Multiply"):
            yield stim(op, 1, "i32-beyond-2p24", i32_make(op), values="int-boundary", et=Type.i32,
                       note="i32 results between 2^24 and 2^31 in magnitude, odd values among them: exact, as "
                            "integer arithmetic is (an f32 detour drops their low bits).")

    return recipe


for _op in OVERFLOW:
    register(_op, 1)(arithmetic_recipe(_op))


# -- strings: embedded NUL, empty ranges ---------------------------------------------------------------------------

WORDS: Final = ("ab", "x", "hello", "é", "中文", "q")


def nul_strings(rng: np.random.Generator, n: int) -> list[str]:
    """Strings with NUL bytes inside (never last), and a few empty strings."""
    out = []
    for i in range(n):
        if i % 5 == 4:
            out.append("")
            continue
        parts = [str(rng.choice(WORDS)) for _ in range(int(rng.integers(2, 4)))]
        out.append("\x00".join(parts) if i % 3 else "\x00" + "\x00\x00".join(parts))
    return out


def unpack_make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
    strings = np.empty(int(np.prod(shape)), dtype=object)
    strings[:] = nul_strings(b.rng, strings.size)
    return opset.string_tensor_unpack(b.param("data", strings.reshape(shape), Type.string))


def pack_make(empty: bool) -> Make:
    """With ``empty``: ranges with begin == end first, last, two in a row and one in the middle of a
    word's bytes (ascending, as OpenVINO CPU requires); else strings with NUL bytes inside and none empty."""
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        n = int(np.prod(shape))
        words = nul_strings(b.rng, n) if not empty else [str(b.rng.choice(WORDS)) * 2 for _ in range(n)]
        words = [w or "z\x00z" for w in words] if not empty else words
        buffer, begins, ends = bytearray(b"#"), [], []
        for text in words:
            begins.append(len(buffer))
            buffer += text.encode("utf-8")
            ends.append(len(buffer))
            buffer += b"|"
        if empty:
            for i in (0, 3, 4, n - 1):
                begins[i] = ends[i] = begins[i] + (1 if i == 4 else 0)  # inside its own bytes for i = 4
        return opset.string_tensor_pack(b.param("begins", np.array(begins, np.int32).reshape(shape), Type.i32),
                                        b.param("ends", np.array(ends, np.int32).reshape(shape), Type.i32),
                                        b.param("symbols", np.frombuffer(bytes(buffer), np.uint8).copy(), Type.u8))

    return make


@register("StringTensorUnpack", 15)
def unpack_recipe() -> Iterable[S.Stimulus]:
    yield stim("StringTensorUnpack", 15, "embedded-nul", unpack_make, (3, 5), values="ordinary", et=Type.string,
               note="strings with NUL bytes inside (never last) and empty strings: every byte counts.")


@register("StringTensorPack", 15)
def pack_recipe() -> Iterable[S.Stimulus]:
    yield stim("StringTensorPack", 15, "embedded-nul", pack_make(False), (3, 5), values="ordinary", et=Type.string,
               note="ranges over bytes with NULs inside (never last): the strings hold them.")
    yield stim("StringTensorPack", 15, "empty-ranges", pack_make(True), (9,), values="ordinary", et=Type.string,
               note="ranges with begin == end (first, last, two in a row, one inside a word): empty strings.")
