"""Stimulus cases of the computing ops that had none (issue #20 gap): Convert,
BatchNormInference, GroupNormalization, LRN, FakeQuantize, ScaledDotProductAttention,
ConvolutionBackpropData, Einsum and the adaptive poolings.

Each follows its op specification, and only where the spec defines the result:

* **Convert** — to f16/bf16 the IEEE 754 conversion (round to nearest, ties to even; overflow to
  ±Inf; NaN stays NaN; -0 stays -0; results in the f16 subnormal range rounded, not flushed):
  the cases hold exact ties, the values just past the largest finite value and every special
  value. Float → integer only for whole numbers inside the destination's range (its minimum and
  maximum included) and -0: the spec leaves rounding of fractions ("may be round") and
  out-of-range values undefined. Integer → unsigned wraps modulo 2^N (the spec's C++ rule).
* **BatchNormInference / GroupNormalization / LRN** — channel and group counts one past the
  vector widths, per-group reductions over 4K+ elements, zero variances (the result is
  ``(x - mean) / sqrt(eps)``), data whose mean is far from zero relative to its spread.
* **FakeQuantize** — levels 256 and 2, per-tensor and per-channel limits, values exactly on the
  input range's edges and just past them; no value sits near a rounding boundary (the spec does
  not say how ties round).
* **ScaledDotProductAttention** — sequences past 64 (one key tile), causal and boolean/float masks
  whose masked positions lie past the first 64 keys, head size 256, 4096 keys, logits whose
  exponentials overflow unless the row maximum is subtracted.
* **ConvolutionBackpropData / Einsum** — input channels (the reduction) and contracted axes of
  remainder length, 256 channels and 56×56 outputs, K of 4096.
* **AdaptiveAvgPool / AdaptiveMaxPool** — input sides of remainder length split into bins of
  uneven width, global pooling over 56×56, 1-D to 3-D; MaxPool values all different.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from ovconform import opset
from ovconform.ir import Node, Type
from ovconform.opcases import _stimulus_recipes as SR
from ovconform.opcases import stimulus as S
from ovconform.opcases.depth import Depth

Make = SR.MakeAt
F32 = Type.f32
REAL = (Type.f16, Type.bf16, Type.f64)


def stim(op: str, version: int, label: str, make: Make, shape: tuple[int, ...], *, size: str = "remainder",
         values: str = "ordinary", et: Type = F32, depth: Depth = Depth.STANDARD,
         shapes: tuple[tuple[int, ...], ...] = (), note: str = "") -> S.Stimulus:
    return S.Stimulus(op, version, label, size, values, et, SR.node_case(op, version, label, make, shape, shapes, note),
                      depth, dynamic=bool(shapes))


def const_rng(op: str, version: int, label: str) -> np.random.Generator:
    """A generator for a case's Constants: the same at every shape of a dynamic case."""
    return np.random.default_rng(S.seed_of(op, version, label + "/const"))


def type_depth(et: Type) -> Depth:
    return Depth.STANDARD if et in (Type.f16, Type.bf16, Type.i32) else Depth.EXHAUSTIVE


# -- Convert ---------------------------------------------------------------------------------------------------

def f16_ties(rng: np.random.Generator, count: int) -> np.ndarray:
    """f32 values exactly halfway between two neighbouring f16 values (normal and subnormal ones),
    of both signs, next to the largest finite f16 included."""
    bits = rng.integers(0, 0x7BFF, count).astype(np.uint16)  # finite f16 below the largest
    low = bits.view(np.float16).astype(np.float64)
    high = (bits + 1).view(np.float16).astype(np.float64)
    sign = np.where(rng.random(count) < 0.5, -1.0, 1.0)
    return ((low + high) / 2 * sign).astype(np.float32)


def bf16_ties(rng: np.random.Generator, count: int) -> np.ndarray:
    """f32 values whose low 16 bits are 0x8000: halfway between two bf16 values (normal range)."""
    high = rng.integers(0x0080, 0x7F7F, count).astype(np.uint32)
    sign = np.where(rng.random(count) < 0.5, 0x80000000, 0).astype(np.uint32)
    return ((high << 16) | 0x8000 | sign).view(np.float32)


#: f32 values at the edge of f16's range: 65504 (largest finite), 65519.99 (rounds to it), 65520
#: (the tie with 2^16: to even, so to infinity), 1e6; 2^-25 (the tie of 0 and the smallest
#: subnormal: to 0), 1.5 * 2^-24 (tie: to 2 * 2^-24), 2^-24 (smallest subnormal).
F16_EDGES = (65504.0, 65519.99, 65520.0, 1e6, 2.0 ** -25, 1.5 * 2.0 ** -24, 2.0 ** -24, 3e-8, 6.1e-5)
#: f32 values at the edge of bf16's range: the largest finite f32 (rounds up to infinity), the
#: largest finite bf16, 2^127 * (2 - 2^-8) (the tie with 2^128: to infinity).
BF16_EDGES = (float(np.finfo(np.float32).max), 3.3895314e38, float(np.float32(2.0 ** 127 * (2 - 2.0 ** -8))), 1e-30)


def to_half_values(dst: Type) -> Callable[[S.StimulusBuilder, tuple[int, ...]], np.ndarray]:
    """f32 data for Convert to ``dst`` (f16 or bf16): a third ordinary values over many binades, a
    third exact ties, the rest the range's edges (both signs), NaN, ±Inf and -0."""
    def gen(b: S.StimulusBuilder, shape: tuple[int, ...]) -> np.ndarray:
        n = int(np.prod(shape))
        ordinary = (b.rng.uniform(-1, 1, n) * np.exp2(b.rng.integers(-14, 15, n))).astype(np.float32)
        ties = f16_ties(b.rng, n) if dst == Type.f16 else bf16_ties(b.rng, n)
        edges = np.array(F16_EDGES if dst == Type.f16 else BF16_EDGES, np.float64)
        special = np.concatenate([edges, -edges, [np.nan, np.inf, -np.inf, -0.0]]).astype(np.float32)
        out = np.where(b.rng.random(n) < 0.5, ordinary, ties)
        where = b.rng.permutation(n)[:min(n, max(special.size, n // 6))]
        out[where] = np.resize(special, where.size)
        return out.reshape(shape)

    return gen


#: Significant bits of each float type.
DIGITS = {Type.f16: 11, Type.bf16: 8, Type.f32: 24, Type.f64: 53}
F16_MAX = 65504


def exact_limit(limit: int, digits: int) -> int:
    """The value of largest magnitude, at most ``|limit|`` and of ``limit``'s sign, that a float with
    ``digits`` significant bits holds exactly."""
    a = abs(limit)
    spacing = 1 << max(0, a.bit_length() - digits)
    return (a // spacing) * spacing * (-1 if limit < 0 else 1)


def whole_values(src: Type, dst: Type) -> Callable[[S.StimulusBuilder, tuple[int, ...]], np.ndarray]:
    """Whole numbers of ``src`` inside ``dst``'s range: its minimum and maximum (the nearest ``src``
    holds exactly), 0, -0, 1, -1 among them; the others spread over the exactly held integers."""
    def gen(b: S.StimulusBuilder, shape: tuple[int, ...]) -> np.ndarray:
        info = np.iinfo(dst.to_dtype())
        lo, hi = int(info.min), int(info.max)
        if src.is_real():
            digits = DIGITS[src]
            lo, hi = exact_limit(lo, digits) if lo else 0, exact_limit(hi, digits)
            if src == Type.f16:
                lo, hi = max(lo, -F16_MAX), min(hi, F16_MAX)
            dense = 2 ** digits  # every integer up to here is exact
            spread_lo, spread_hi = max(lo, -dense), min(hi, dense)
        else:
            spread_lo, spread_hi = lo, hi
        edges = [float(lo), float(hi), 0.0, -0.0, 1.0, -1.0 if lo < 0 else 2.0]
        n = int(np.prod(shape))
        out = np.floor(b.rng.uniform(spread_lo, spread_hi, n))
        where = b.rng.permutation(n)[:len(edges)]
        out[where] = edges[:where.size]
        return S.cast(out, src).reshape(shape)

    return gen


def wrapping_values(src: Type) -> Callable[[S.StimulusBuilder, tuple[int, ...]], np.ndarray]:
    """Integers of both signs past the destination's range (the spec: modulo 2^N)."""
    return lambda b, shape: b.uniform(shape, src, -1000, 1000)


def special_values(src: Type, kinds: tuple[str, ...]) -> Callable[[S.StimulusBuilder, tuple[int, ...]], np.ndarray]:
    return lambda b, shape: S.with_specials(b.rng, b.rng.uniform(-100, 100, shape), src, kinds)


def convert_make(src: Type, dst: Type, gen: Callable[[S.StimulusBuilder, tuple[int, ...]], np.ndarray]) -> Make:
    return lambda b, shape: opset.convert(b.param("x", gen(b, shape), src), dst)


@S.register_stimuli("Convert", 1)
def convert_recipe() -> Iterable[S.Stimulus]:
    op = "Convert"
    for dst in (Type.f16, Type.bf16):
        for n in S.REMAINDERS:
            label = f"f32-{dst.name}-ties-n{n}"
            yield stim(op, 1, label, convert_make(F32, dst, to_half_values(dst)), (3, n), values="special",
                       depth=S.remainder_depth(n))
        yield stim(op, 1, f"f32-{dst.name}-large", convert_make(F32, dst, to_half_values(dst)), (2, 32771),
                   size="large", values="special")
    yield stim(op, 1, "f64-f32-ties-n65", convert_make(Type.f64, F32, lambda b, s: (
        b.rng.uniform(-1, 1, s) * 2.0 ** 20).round() / 2.0 ** 20 + 2.0 ** -45), (3, 65), et=Type.f64,
               depth=Depth.EXHAUSTIVE)
    for src, dst in ((F32, Type.i8), (F32, Type.u8), (F32, Type.i32), (F32, Type.i64), (Type.f16, Type.i32),
                     (Type.bf16, Type.i32), (Type.f16, Type.u8), (Type.f64, Type.i64)):
        depth = Depth.STANDARD if src == F32 or dst == Type.i32 and src == Type.f16 else Depth.EXHAUSTIVE
        label = f"{src.name}-{dst.name}-whole-n65"
        yield stim(op, 1, label, convert_make(src, dst, whole_values(src, dst)), (3, 65), values="int-boundary",
                   et=src, depth=depth)
    for src, dst in ((Type.i32, Type.u8), (Type.i64, Type.u32), (Type.i8, Type.u16)):
        depth = Depth.STANDARD if dst == Type.u8 else Depth.EXHAUSTIVE
        yield stim(op, 1, f"{src.name}-{dst.name}-wrap-n65", convert_make(src, dst, wrapping_values(src)), (3, 65),
                   values="int-boundary", et=src, depth=depth)
    for src in (Type.f16, Type.bf16):
        kinds = ("nan", "inf", "-inf", "-0", "sub") if src == Type.f16 else ("nan", "inf", "-inf", "-0")
        yield stim(op, 1, f"{src.name}-f32-special-n65", convert_make(src, F32, special_values(src, kinds)), (3, 65),
                   values="special", et=src)
    yield stim(op, 1, "f32-boolean-special-n65", convert_make(F32, Type.boolean, special_values(
        F32, ("inf", "-inf", "-0"))), (3, 65), values="special")
    yield stim(op, 1, "u8-f32-n65", convert_make(Type.u8, F32, lambda b, s: b.uniform(s, Type.u8, 0, 255)), (3, 65),
               et=Type.u8)
    yield stim(op, 1, "dynamic", convert_make(F32, Type.f16, to_half_values(Type.f16)), (3, 7), values="special",
               shapes=((3, 7), (3, 65), (3, 129)))


# -- BatchNormInference ---------------------------------------------------------------------------------------

def batch_norm_make(version: int, label: str, et: Type = F32, eps: float = 1e-5, zero_var: bool = False) -> Make:
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        c = shape[1]
        rng = const_rng("BatchNormInference", version, label)
        gamma, beta, mean = (S.cast(rng.uniform(lo, hi, c), et) for lo, hi in ((-2, 2), (-2, 2), (-1, 1)))
        var = rng.uniform(0.1, 2, c)
        if zero_var:
            var[::3] = 0.0
        data = b.param("data", b.uniform(shape, et, -3, 3), et)
        return opset.batch_norm_inference(data, b.const(gamma, et), b.const(beta, et), b.const(mean, et),
                                          b.const(S.cast(var, et), et), eps, version=version)

    return make


def batch_norm_recipe(version: int) -> Callable[[], Iterable[S.Stimulus]]:
    op = "BatchNormInference"

    def recipe() -> Iterable[S.Stimulus]:
        for n in S.REMAINDERS:
            yield stim(op, version, f"c{n}", batch_norm_make(version, f"c{n}"), (2, n, 5, 5),
                       depth=S.remainder_depth(n))
        yield stim(op, version, "hw-n65", batch_norm_make(version, "hw-n65"), (1, 3, 9, 65))
        yield stim(op, version, "zero-var-c17", batch_norm_make(version, "zero-var-c17", zero_var=True), (2, 17, 9))
        yield stim(op, version, "large", batch_norm_make(version, "large"), (1, 256, 16, 16), size="large")
        for et in REAL:
            yield stim(op, version, f"{et.name}-c17", batch_norm_make(version, f"{et.name}-c17", et), (2, 17, 5, 5),
                       et=et, depth=type_depth(et))
        yield stim(op, version, "dynamic", batch_norm_make(version, "dynamic"), (1, 17, 5, 5),
                   shapes=((1, 17, 5, 5), (2, 17, 9, 9), (3, 17, 13, 13)))

    return recipe


# -- GroupNormalization -------------------------------------------------------------------------------------

def group_norm_make(label: str, groups: int, et: Type = F32, offset: float = 0.0, eps: float = 1e-5) -> Make:
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        rng = const_rng("GroupNormalization", 12, label)
        scale, bias = (S.cast(rng.uniform(-2, 2, shape[1]), et) for _ in range(2))
        data = b.param("data", S.cast(b.rng.normal(offset, 1.0, shape), et), et)
        return opset.group_normalization(data, b.const(scale, et), b.const(bias, et), groups, eps)

    return make


@S.register_stimuli("GroupNormalization", 12)
def group_norm_recipe() -> Iterable[S.Stimulus]:
    op = "GroupNormalization"
    for n in S.REMAINDERS:
        yield stim(op, 12, f"n{n}", group_norm_make(f"n{n}", 4), (2, 8, n), depth=S.remainder_depth(n))
    yield stim(op, 12, "g32-c64-hw17", group_norm_make("g32-c64-hw17", 32), (1, 64, 17, 17))
    yield stim(op, 12, "g3-c33", group_norm_make("g3-c33", 3), (2, 33, 7, 7))
    yield stim(op, 12, "long4160", group_norm_make("long4160", 2), (1, 4, 65, 64), size="large",
               values="long-reduction")
    yield stim(op, 12, "offset-n65", group_norm_make("offset-n65", 2, offset=100.0), (2, 4, 65),
               values="cancellation", note="data mean 100, spread 1: a variance from E[x^2] - E[x]^2 in f32 is wrong")
    for et in REAL:
        yield stim(op, 12, f"{et.name}-n65", group_norm_make(f"{et.name}-n65", 4, et), (2, 8, 65), et=et,
                   depth=type_depth(et))
    yield stim(op, 12, "dynamic", group_norm_make("dynamic", 4), (1, 8, 7), shapes=((1, 8, 7), (2, 8, 65), (3, 8, 129)))


# -- LRN ----------------------------------------------------------------------------------------------------

def lrn_make(axes: list[int], size: int, alpha: float = 1e-4, beta: float = 0.75, bias: float = 1.0,
             et: Type = F32) -> Make:
    return lambda b, shape: opset.lrn(b.param("data", b.uniform(shape, et, -4, 4), et),
                                      b.const(np.array(axes, np.int64)), alpha, beta, bias, size)


@S.register_stimuli("LRN", 1)
def lrn_recipe() -> Iterable[S.Stimulus]:
    op = "LRN"
    for n in S.REMAINDERS:
        yield stim(op, 1, f"c{n}", lrn_make([1], 5, alpha=0.5), (1, n, 5, 5), depth=S.remainder_depth(n))
    yield stim(op, 1, "spatial-w65", lrn_make([2, 3], 3, alpha=1.0, bias=2.0), (1, 3, 17, 65))
    yield stim(op, 1, "alexnet-c96", lrn_make([1], 5), (1, 96, 13, 13))
    yield stim(op, 1, "large", lrn_make([1], 5, alpha=0.5), (1, 64, 32, 32), size="large")
    for et in REAL:
        yield stim(op, 1, f"{et.name}-c17", lrn_make([1], 5, alpha=0.5, et=et), (1, 17, 5, 5), et=et,
                   depth=type_depth(et))
    yield stim(op, 1, "dynamic", lrn_make([1], 5, alpha=0.5), (1, 17, 5, 5),
               shapes=((1, 17, 5, 5), (2, 17, 9, 9), (3, 17, 13, 13)))


# -- FakeQuantize -------------------------------------------------------------------------------------------

def fq_make(label: str, levels: int, limit_shape: tuple[int, ...], et: Type = F32, inverted: bool = False) -> Make:
    """Input limits of ``limit_shape`` (per tensor or per channel) on multiples of 1/8 (exact in
    every float type); data: values a level's step apart from the levels' rounding boundaries,
    a third clipped on each side, and the limits themselves and values just past them."""
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        rng = const_rng("FakeQuantize", 1, label)
        il = np.round(rng.uniform(-3, 0, limit_shape) * 8) / 8
        ih = il + np.round(rng.uniform(1, 4, limit_shape) * 8) / 8
        ol = np.round(rng.uniform(-5, 5, limit_shape) * 8) / 8
        oh = ol + (-1 if inverted else 1) * np.round(rng.uniform(1, 5, limit_shape) * 8) / 8
        lo, hi = np.broadcast_to(il, shape), np.broadcast_to(ih, shape)
        step = (hi - lo) / (levels - 1)
        level = b.rng.integers(0, levels, shape)
        x = lo + (level + b.rng.uniform(-0.3, 0.3, shape)) * step
        side = b.rng.random(shape)
        past = b.rng.uniform(0, 2, shape)
        x = np.where(side < 0.15, lo - past, np.where(side > 0.85, hi + past, x))
        edge = b.rng.random(shape)
        x = np.where(edge < 0.05, lo, np.where(edge > 0.95, hi, x))
        x = np.where((edge >= 0.05) & (edge < 0.08), lo - step * 0.1, np.where((edge <= 0.95) & (edge > 0.92),
                                                                             hi + step * 0.1, x))
        data = b.param("x", S.cast(x, et), et)
        il_n, ih_n, ol_n, oh_n = (b.const(S.cast(v, et), et) for v in (il, ih, ol, oh))
        return opset.fake_quantize(data, il_n, ih_n, ol_n, oh_n, levels)

    return make


@S.register_stimuli("FakeQuantize", 1)
def fake_quantize_recipe() -> Iterable[S.Stimulus]:
    op = "FakeQuantize"
    for n in S.REMAINDERS:
        yield stim(op, 1, f"l256-n{n}", fq_make(f"l256-n{n}", 256, ()), (3, n), values="special",
                   depth=S.remainder_depth(n))
    yield stim(op, 1, "l2-c17", fq_make("l2-c17", 2, (1, 17, 1, 1)), (1, 17, 9, 9), values="special")
    yield stim(op, 1, "l2-n65", fq_make("l2-n65", 2, ()), (3, 65), values="special")
    yield stim(op, 1, "l256-c65", fq_make("l256-c65", 256, (1, 65, 1, 1)), (1, 65, 5, 5), values="special")
    yield stim(op, 1, "l256-inverted-c17", fq_make("l256-inverted-c17", 256, (1, 17, 1, 1), inverted=True),
               (1, 17, 5, 5), values="special")
    yield stim(op, 1, "l16-w65", fq_make("l16-w65", 16, (1, 1, 1, 65)), (1, 3, 5, 65), values="special")
    yield stim(op, 1, "large", fq_make("large", 256, ()), (2, 32771), size="large", values="special")
    for et in REAL:
        yield stim(op, 1, f"{et.name}-l256-c17", fq_make(f"{et.name}-l256-c17", 256, (1, 17, 1, 1), et),
                   (1, 17, 5, 5), et=et, values="special", depth=type_depth(et))
    yield stim(op, 1, "dynamic", fq_make("dynamic", 256, ()), (3, 7), values="special",
               shapes=((3, 7), (3, 65), (3, 129)))


# -- ScaledDotProductAttention -------------------------------------------------------------------------------

def sdpa_make(heads: int, e: int, et: Type = F32, *, causal: bool = False, mask: str = "none",
              spread: float = 1.0) -> Make:
    """Q ``(1, heads, L, E)``, K and V ``(1, heads, S, E)``; the shape given to the case is
    ``(L, S)``. ``mask``: "boolean" (about 40 % False, every row keeps a True among its first
    keys), "float" (values in [-2, 2] with the last quarter of the keys -inf: a padding mask)."""

    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        length, keys = shape
        q = b.param("query", b.uniform((1, heads, length, e), et, -spread, spread), et)
        k = b.param("key", b.uniform((1, heads, keys, e), et, -spread, spread), et)
        v = b.param("value", b.uniform((1, heads, keys, e), et, -1, 1), et)
        m: Any = None
        if mask == "boolean":
            keep = b.rng.random((length, keys)) < 0.6
            keep[:, 0] = True
            m = b.param("attention_mask", keep)
        elif mask == "float":
            add = b.rng.uniform(-2, 2, (1, 1, length, keys))
            add[..., keys - max(1, keys // 4):] = -np.inf
            m = b.param("attention_mask", S.cast(add, et), et)
        return opset.scaled_dot_product_attention(q, k, v, m, None, causal)

    return make


@S.register_stimuli("ScaledDotProductAttention", 13)
def sdpa_recipe() -> Iterable[S.Stimulus]:
    op = "ScaledDotProductAttention"
    for n in S.REMAINDERS:
        yield stim(op, 13, f"causal-l{n}", sdpa_make(2, 64, causal=True), (n, n),
                   depth=S.remainder_depth(n))
    for n in (65, 129):
        yield stim(op, 13, f"bool-mask-s{n}", sdpa_make(2, 32, mask="boolean"), (17, n))
        yield stim(op, 13, f"float-mask-s{n}", sdpa_make(2, 32, mask="float"), (9, n))
    yield stim(op, 13, "e256", sdpa_make(1, 256), (33, 33), size="large", values="long-reduction")
    yield stim(op, 13, "keys4096", sdpa_make(1, 16), (4, 4096), size="large",
               values="long-reduction")
    yield stim(op, 13, "large", sdpa_make(4, 64, causal=True), (256, 256), size="large")
    yield stim(op, 13, "logits-s65", sdpa_make(2, 64, spread=12.0), (17, 65),
               values="large-magnitude",
               note="logits of several hundred: exp overflows unless the maximum is subtracted")
    for et in (Type.f16, Type.bf16, Type.f64):
        yield stim(op, 13, f"{et.name}-causal-l65", sdpa_make(2, 32, et, causal=True),
                   (65, 65), et=et, depth=type_depth(et))
    yield stim(op, 13, "dynamic", sdpa_make(2, 32, causal=True), (7, 7),
               shapes=((7, 7), (65, 65), (129, 129)))


# -- ConvolutionBackpropData ----------------------------------------------------------------------------------

def backprop_make(label: str, filters: tuple[int, ...], stride: int, pad: int, et: Type = F32,
                  output_padding: int = 0, output_shape: list[int] | None = None) -> Make:
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        rank = len(shape) - 2
        w = SR.small_values(const_rng("ConvolutionBackpropData", 1, label), filters, et)
        x = b.param("data", SR.small_values(b.rng, shape, et, 3), et)
        out = b.const(np.array(output_shape, np.int64)) if output_shape else None
        return opset.convolution_backprop_data(x, b.const(w, et), [stride] * rank, out, [pad] * rank, [pad] * rank,
                                               [1] * rank, None, [output_padding] * rank if output_padding else None)

    return make


@S.register_stimuli("ConvolutionBackpropData", 1)
def backprop_recipe() -> Iterable[S.Stimulus]:
    op = "ConvolutionBackpropData"
    for c in S.REMAINDERS:  # input channels: the reduction
        yield stim(op, 1, f"c{c}-s2", backprop_make(f"c{c}-s2", (c, 8, 3, 3), 2, 1, output_padding=1), (1, c, 9, 9),
                   depth=S.remainder_depth(c))
    yield stim(op, 1, "cout65", backprop_make("cout65", (8, 65, 3, 3), 1, 1), (1, 8, 7, 7))
    yield stim(op, 1, "c17-1d", backprop_make("c17-1d", (17, 4, 3), 2, 0), (2, 17, 33))
    yield stim(op, 1, "c9-3d", backprop_make("c9-3d", (9, 4, 3, 3, 3), 2, 1), (1, 9, 5, 5, 5))
    yield stim(op, 1, "output-shape-c17", backprop_make("output-shape-c17", (17, 8, 3, 3), 2, 0,
                                                        output_shape=[17, 18]), (1, 17, 9, 9))
    yield stim(op, 1, "c256-k4s2", backprop_make("c256-k4s2", (256, 16, 4, 4), 2, 1), (1, 256, 14, 14), size="large",
               values="long-reduction")
    yield stim(op, 1, "hw56-k2s2", backprop_make("hw56-k2s2", (16, 8, 2, 2), 2, 0), (1, 16, 28, 28), size="large")
    for et in (Type.f16, Type.bf16, Type.i32, Type.f64):
        yield stim(op, 1, f"{et.name}-c17-s2", backprop_make(f"{et.name}-c17-s2", (17, 8, 3, 3), 2, 1, et),
                   (1, 17, 9, 9), et=et, depth=type_depth(et))
    yield stim(op, 1, "dynamic", backprop_make("dynamic", (17, 8, 3, 3), 2, 1), (1, 17, 5, 5),
               shapes=((1, 17, 5, 5), (2, 17, 9, 9), (3, 17, 13, 13)))


# -- Einsum ------------------------------------------------------------------------------------------------

def einsum_make(equation: str, shapes: list[tuple[int, ...]], et: Type = F32) -> Make:
    """The operands' shapes are ``shapes``; the case's own shape only names it (a dynamic case
    passes ``(k,)`` and every ``k`` in the shapes becomes that length)."""
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        sized = [tuple(shape[0] if d == -1 else d for d in s) for s in shapes]
        low, high = (-1, 1) if et.is_real() else (-3, 3)
        return opset.einsum([b.param(f"in{i}", b.uniform(s, et, low, high), et) for i, s in enumerate(sized)],
                            equation)

    return make


@S.register_stimuli("Einsum", 7)
def einsum_recipe() -> Iterable[S.Stimulus]:
    op = "Einsum"
    for n in S.REMAINDERS:
        yield stim(op, 7, f"matmul-k{n}", einsum_make("ij,jk->ik", [(17, -1), (-1, 33)]), (n,),
                   depth=S.remainder_depth(n))
    yield stim(op, 7, "batch-k65", einsum_make("bij,bjk->bik", [(4, 17, 65), (4, 65, 9)]), (65,))
    yield stim(op, 7, "attention-d65", einsum_make("bhqd,bhkd->bhqk", [(1, 2, 33, 65), (1, 2, 17, 65)]), (65,))
    yield stim(op, 7, "ellipsis-k65", einsum_make("...ij,...jk->...ik", [(2, 3, 9, 65), (2, 3, 65, 7)]), (65,))
    yield stim(op, 7, "outer-n129", einsum_make("i,j->ij", [(129,), (65,)]), (129,))
    yield stim(op, 7, "diagonal-n65", einsum_make("ii->i", [(65, 65)]), (65,))
    yield stim(op, 7, "reduce-k4099", einsum_make("ij->i", [(3, 4099)]), (4099,), values="long-reduction")
    yield stim(op, 7, "k256-large", einsum_make("ij,jk->ik", [(256, 256), (256, 65)]), (256,), size="large",
               values="long-reduction")
    yield stim(op, 7, "transpose-large", einsum_make("ijk->kji", [(16, 65, 65)]), (65,), size="large")
    for et in (Type.f16, Type.bf16, Type.i32, Type.f64):
        yield stim(op, 7, f"{et.name}-matmul-k65", einsum_make("ij,jk->ik", [(17, 65), (65, 33)], et), (65,), et=et,
                   depth=type_depth(et))
    yield stim(op, 7, "dynamic", einsum_make("ij,jk->ik", [(17, -1), (-1, 33)]), (7,), shapes=((7,), (65,), (129,)))


for _v in (1, 5):
    S.register_stimuli("BatchNormInference", _v)(batch_norm_recipe(_v))


# -- AdaptiveAvgPool / AdaptiveMaxPool ---------------------------------------------------------------------

def adaptive_make(op: str, out: list[int], et: Type = F32) -> Make:
    """Bins of uneven width (an input side that the output side does not divide); MaxPool's values
    are all different (the spec does not say which index a tie gives), its indices i32."""
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        target = b.const(np.array(out, np.int64))
        if op == "AdaptiveAvgPool":
            return opset.adaptive_avg_pool(b.param("data", b.uniform(shape, et, -4, 4), et), target)
        return opset.adaptive_max_pool(b.param("data", SR.distinct(b.rng, shape, et), et), target, "i32")

    return make


def adaptive_recipe(op: str) -> Callable[[], Iterable[S.Stimulus]]:
    def recipe() -> Iterable[S.Stimulus]:
        for n in S.REMAINDERS:  # an input side past the vector width, 7 uneven bins
            yield stim(op, 8, f"hw{n}-to7", adaptive_make(op, [7, 7]), (1, 3, n, n), depth=S.remainder_depth(n))
        yield stim(op, 8, "c65-to3x5", adaptive_make(op, [3, 5]), (1, 65, 9, 17))
        yield stim(op, 8, "1d-w129-to10", adaptive_make(op, [10]), (2, 9, 129))
        yield stim(op, 8, "3d-to2x3x4", adaptive_make(op, [2, 3, 4]), (1, 17, 7, 9, 11))
        yield stim(op, 8, "global-hw56", adaptive_make(op, [1, 1]), (1, 64, S.LARGE_SPATIAL, S.LARGE_SPATIAL),
                   size="large")
        yield stim(op, 8, "large-to7", adaptive_make(op, [7, 7]), (1, 21, 57, 57), size="large")
        for et in (Type.f16, Type.bf16, Type.f64):
            yield stim(op, 8, f"{et.name}-hw65-to7", adaptive_make(op, [7, 7], et), (1, 3, 65, 65), et=et,
                       depth=type_depth(et))
        yield stim(op, 8, "dynamic", adaptive_make(op, [7, 7]), (1, 3, 9, 9),
                   shapes=((1, 3, 9, 9), (2, 3, 17, 33), (3, 3, 65, 65)))

    return recipe


for _op in ("AdaptiveAvgPool", "AdaptiveMaxPool"):
    S.register_stimuli(_op, 8)(adaptive_recipe(_op))
