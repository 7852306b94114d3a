"""Stimulus cases of GRN-1, MVN-2, Interpolate-1, GridSample-9, Inverse-14, STFT-15, ISTFT-16,
FakeConvert-13, GroupedMatMul-17, Multinomial-13, RandomUniform-8, DeformableConvolution-1/8 and
BinaryConvolution-1, which had none (issue #20 gap; registered on import by
:mod:`ovconform.opcases._stimulus_sparse`).

The axes a device tiles: the normalized axis (GRN's channels, MVN's spatial reduction of up to
16,384 terms), Interpolate's and GridSample's output width (2-D images of 56×56 and more, every
mode Interpolate-1 has but ``area``, which REFERENCE does not implement, both ``align_corners``),
the matrix size of Inverse (7..129, batched; 4×129×129 is the large case), the frame size of
STFT/ISTFT (sizes that are no power of two: the FFT's mixed-radix paths) over long signals,
GroupedMatMul's K and N (remainders and 256), the classes and samples of Multinomial, the output
length of RandomUniform (its Philox stream is compared bit for bit in f32 and i32), the channels
and offsets of DeformableConvolution and the packed channel bits of BinaryConvolution (7..129
channels: whole and partial bytes and words).

What the specs leave undefined, or where only a recorded OpenVINO deviation lies, is avoided:

* Interpolate-1 nearest: no output coordinate within 1e-4 of a rounding decision unless float32
  and float64 compute it alike (:func:`ovconform.opcases.image.nearest_is_ambiguous`); no pads.
* GridSample nearest: no sampling coordinate within 0.01 pixel of a half (rounding halves is the
  one place the spec's "nearest" is open; OpenVINO rounds them to even).
* Inverse: diagonally dominant matrices (condition numbers below 4): the spec leaves singular
  matrices undefined and an ill-conditioned one's inverse is not determined by f32 inputs.
* ISTFT: window values in [0.5, 1], ``frame_step`` at most the window length, the window as long
  as the frame (no zero in the overlap-added squared window); ``center`` only with even frame sizes
  (OpenVINO's shape inference gives one sample more for odd ones: a recorded deviation).
* FakeConvert: no NaN (OpenVINO CPU turns it into the largest negative value, recorded).
* RandomUniform: seeds never both 0 (the spec's "non-deterministic" setting); f16, f64 and i64
  outputs only at exhaustive depth (OpenVINO CPU computes them as f32/i32, recorded). No
  dynamic-mode case: the spec initialises Philox's key and counter from the seeds but does not say
  whether a second inference starts over (REFERENCE) or continues the stream (OpenVINO CPU); the
  output shape as a Parameter (one inference) takes the dynamic-shape path instead.
* GridSample: smooth data (a few low-frequency waves, slope below 1 per pixel): the spec's sampling
  coordinates are exact only in real numbers, and a device's f32 coordinate error (about e·W
  pixels) times the data's slope must stay inside the value tolerance.
* Multinomial: samples compared as a categorical distribution's (devices may draw other uniform
  numbers); without replacement at most as many samples as positive classes.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from ovconform import opset
from ovconform.ir import Node, Type
from ovconform.opcases import _stimulus_recipes as SR
from ovconform.opcases import stimulus as S
from ovconform.opcases._stimulus_numeric import const_rng, stim
from ovconform.opcases.depth import Depth

F32 = Type.f32
STD = Depth.STANDARD
EXH = Depth.EXHAUSTIVE
REAL = (Type.f16, Type.bf16, Type.f64)


def fdepth(et: Type) -> Depth:
    return STD if et in (Type.f16, Type.bf16) else EXH


def away_from_zero(rng: np.random.Generator, shape: tuple[int, ...], low: float = 0.25,
                   high: float = 3.0) -> np.ndarray:
    return rng.uniform(low, high, shape) * np.where(rng.random(shape) < 0.5, -1.0, 1.0)


# -- GRN-1 and MVN-2 ----------------------------------------------------------------------------------------------

def grn_make(et: Type, bias: float = 1e-6) -> SR.MakeAt:
    """Data ``|x|`` in [0.25, 3] (no norm below the bias by accident)."""
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        return opset.grn(b.param("data", S.cast(away_from_zero(b.rng, shape), et), et), bias)

    return make


@S.register_stimuli("GRN", 1)
def grn_recipe() -> Iterable[S.Stimulus]:
    op = "GRN"
    for c in S.REMAINDERS:
        yield stim(op, 1, f"c{c}", grn_make(F32), (2, c, 5, 5), depth=S.remainder_depth(c))
    yield stim(op, 1, "c129-rank2", grn_make(F32), (7, 129))
    yield stim(op, 1, "large", grn_make(F32), (1, 256, 16, 16), size="large")
    yield stim(op, 1, "c4099-long", grn_make(F32), (2, 4099, 9), size="large", values="long-reduction", depth=EXH)
    for et in REAL:
        yield stim(op, 1, f"{et.name}-c65", grn_make(et, 1e-3), (2, 65, 3, 3), et=et, depth=fdepth(et))
    yield stim(op, 1, "dynamic", grn_make(F32), (1, 7, 3, 3), shapes=((1, 7, 3, 3), (2, 65, 3, 3), (1, 129, 5, 5)))


def mvn_make(et: Type, across: bool, normalize: bool = True, eps: float = 1e-9, offset: float = 0.0) -> SR.MakeAt:
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        values = offset + (b.rng.normal(0, 1, shape) if offset else b.rng.uniform(-2, 2, shape))
        return opset.mvn_v1(b.param("data", S.cast(values, et), et), across, normalize, eps)

    return make


@S.register_stimuli("MVN", 2)
def mvn_recipe() -> Iterable[S.Stimulus]:
    op = "MVN"
    for i, n in enumerate(S.REMAINDERS):
        yield stim(op, 2, f"hw{n}", mvn_make(F32, i % 2 == 1), (2, 3, 3, n), depth=S.remainder_depth(n))
    yield stim(op, 2, "mean-only-hw65", mvn_make(F32, False, normalize=False), (2, 3, 5, 65))
    yield stim(op, 2, "large", mvn_make(F32, False), (1, 4, 128, 128), size="large", values="long-reduction")
    yield stim(op, 2, "large-across", mvn_make(F32, True), (2, 3, 129, 129), size="large", values="long-reduction",
               depth=EXH)
    yield stim(op, 2, "offset20-hw4099", mvn_make(F32, False, offset=20.0), (1, 2, 1, 4099),
               values="cancellation")
    for et in REAL:
        yield stim(op, 2, f"{et.name}-hw65", mvn_make(et, True, eps=1e-3), (2, 3, 3, 65), et=et, depth=fdepth(et))
    yield stim(op, 2, "dynamic", mvn_make(F32, False), (1, 3, 3, 7),
               shapes=((1, 3, 3, 7), (2, 3, 3, 65), (1, 3, 5, 129)))


# -- Interpolate-1 and GridSample-9 ----------------------------------------------------------------------------------

def interp1_make(mode: str, align: bool, sizes: tuple[int, int], et: Type = F32) -> SR.MakeAt:
    """2-D (axes 2, 3) Interpolate-1 of ``[N, C, H, W]`` data to ``sizes``."""
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        if mode == "nearest":
            from ovconform.opcases.image import nearest_is_ambiguous

            for out_len, in_len in zip(sizes, shape[2:], strict=True):
                scale = float(np.float32(out_len) / np.float32(in_len))
                if nearest_is_ambiguous(out_len, in_len, scale, "align_corners" if align else "asymmetric", "simple"):
                    raise ValueError(f"Interpolate-1 stimulus: nearest {in_len} -> {out_len} rounds ambiguously.")
        attrs = {"axes": [2, 3], "mode": mode, "align_corners": align, "antialias": False,
                 "pads_begin": [0, 0, 0, 0], "pads_end": [0, 0, 0, 0]}
        data = b.param("image", S.cast(b.rng.uniform(-4, 4, shape), et), et)
        return opset.interpolate_v1(data, b.const(np.array(sizes, np.int64)), attrs)

    return make


INTERP_MODES = ("nearest", "linear", "cubic")


@S.register_stimuli("Interpolate", 1)
def interpolate1_recipe() -> Iterable[S.Stimulus]:
    op = "Interpolate"
    for mode in INTERP_MODES:
        for align in (False, True):
            tag = f"{mode}{'-align' if align else ''}"
            yield stim(op, 1, f"{tag}-56to113x129", interp1_make(mode, align, (113, 129)), (1, 3, 56, 56))
            yield stim(op, 1, f"{tag}-57to31x65", interp1_make(mode, align, (31, 65)), (1, 2, 57, 57),
                       depth=STD if not align else EXH)
        yield stim(op, 1, f"{mode}-large", interp1_make(mode, False, (65, 63)), (1, 21, 56, 56), size="large",
                   depth=STD if mode == "linear" else EXH)
    for et in REAL:
        yield stim(op, 1, f"{et.name}-linear-56to65", interp1_make("linear", False, (65, 65), et), (1, 2, 56, 56),
                   et=et, depth=fdepth(et))
    yield stim(op, 1, "dynamic", interp1_make("linear", False, (65, 65)), (1, 2, 56, 56),
               shapes=((1, 2, 56, 56), (2, 2, 60, 64), (1, 2, 64, 72)))


def smooth_image(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    """``[N, C, H, W]`` images in [-6, 6] made of two waves of 1..3 periods per side each (slope
    below 1 per pixel from 56 pixels up), phases drawn per image."""
    n, c, h, w = shape
    y = np.arange(h)[:, None] / h
    x = np.arange(w)[None, :] / w
    out = np.empty(shape)
    for i in range(n):
        for j in range(c):
            fy, fx = rng.integers(1, 4, 2)
            py, px = rng.uniform(0, 2 * np.pi, 2)
            out[i, j] = 3 * np.sin(2 * np.pi * fx * x + px) + 3 * np.cos(2 * np.pi * fy * y + py)
    return out


def grid_make(mode: str, padding: str, align: bool, grid_hw: tuple[int, int], et: Type = F32) -> SR.MakeAt:
    """The case's shape is the data's ``[N, C, H, W]``; the grid ``[N, gh, gw, 2]`` in [-1.1, 1.1]
    (some taps beyond the border), for ``nearest`` moved off the rounding halves."""
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        n, _, h, w = shape
        grid = b.rng.uniform(-1.1, 1.1, (n, *grid_hw, 2))
        if mode == "nearest":
            for axis, size in ((0, w), (1, h)):
                g = grid[..., axis]
                pixel = (g + 1) / 2 * (size - 1) if align else ((g + 1) * size - 1) / 2
                near = np.abs(pixel - np.floor(pixel) - 0.5) < 0.01
                g[near] += (0.04 if align else 0.04) / size
        data = b.param("data", S.cast(smooth_image(b.rng, shape), et), et)
        attrs = {"align_corners": align, "mode": mode, "padding_mode": padding}
        return opset.grid_sample(data, b.param("grid", S.cast(grid, et), et), attrs)

    return make


@S.register_stimuli("GridSample", 9)
def grid_sample_recipe() -> Iterable[S.Stimulus]:
    op = "GridSample"
    for mode in ("bilinear", "bicubic", "nearest"):
        for i, padding in enumerate(("zeros", "border", "reflection")):
            align = i == 1
            yield stim(op, 9, f"{mode}-{padding}-56x56-g65", grid_make(mode, padding, align, (33, 65)),
                       (1, 3, 56, 56), depth=STD if mode == "bilinear" or i == 0 else EXH)
    yield stim(op, 9, "bilinear-large", grid_make("bilinear", "zeros", False, (33, 33)), (1, 21, 56, 56),
               size="large")
    yield stim(op, 9, "bicubic-large", grid_make("bicubic", "reflection", True, (17, 65)), (1, 21, 56, 56),
               size="large", depth=EXH)
    for et in REAL:
        yield stim(op, 9, f"{et.name}-bilinear-g65", grid_make("bilinear", "border", False, (9, 65), et),
                   (1, 3, 56, 56), et=et, depth=fdepth(et))
    yield stim(op, 9, "dynamic", grid_make("bilinear", "zeros", False, (9, 17)), (1, 3, 56, 56),
               shapes=((1, 3, 56, 56), (1, 3, 63, 65), (1, 3, 64, 129)))


# -- Inverse-14 ----------------------------------------------------------------------------------------------------

def inverse_make(et: Type, adjoint: bool = False) -> SR.MakeAt:
    """Diagonally dominant matrices ``[..., n, n]``: off-diagonal entries in [-1, 1] and a diagonal of
    either sign 1.5..3 times the row's off-diagonal sum, so the condition number stays below 4
    (|A| >= 1.5 R and |A^-1| <= 1 / (0.5 R) with R the row sums)."""
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        *batch, n, _ = shape
        a = b.rng.uniform(-1, 1, shape)
        eye = np.eye(n, dtype=bool)
        a[..., eye] = 0
        rows = np.abs(a).sum(axis=-1) + 1
        sign = np.where(b.rng.random((*batch, n)) < 0.5, -1.0, 1.0)
        diag = sign * rows * b.rng.uniform(1.5, 3, (*batch, n))
        a[..., eye] = diag
        return opset.inverse(b.param("data", S.cast(a, et), et), adjoint)

    return make


@S.register_stimuli("Inverse", 14)
def inverse_recipe() -> Iterable[S.Stimulus]:
    op = "Inverse"
    for n in S.REMAINDERS:
        yield stim(op, 14, f"n{n}", inverse_make(F32), (2, n, n), depth=S.remainder_depth(n))
    yield stim(op, 14, "adjoint-n65", inverse_make(F32, True), (3, 65, 65))
    yield stim(op, 14, "large", inverse_make(F32), (4, 129, 129), size="large")
    yield stim(op, 14, "n256", inverse_make(F32), (256, 256), size="large", depth=EXH)
    for et in REAL:
        yield stim(op, 14, f"{et.name}-n33", inverse_make(et), (2, 33, 33), et=et, depth=fdepth(et))
    yield stim(op, 14, "dynamic", inverse_make(F32), (1, 7, 7), shapes=((1, 7, 7), (2, 33, 33), (1, 65, 65)))


# -- STFT-15 and ISTFT-16 -------------------------------------------------------------------------------------------

def stft_make(frame: int, step: int, window: int, transpose: bool, et: Type = F32, label: str = "") -> SR.MakeAt:
    """The case's shape is the signal's; the window (a Constant) in [0.5, 1]."""
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        win = const_rng("STFT", 15, label).uniform(0.5, 1, window)
        signal = b.param("signal", S.cast(b.rng.uniform(-2, 2, shape), et), et)
        return opset.stft(signal, b.const(S.cast(win, et), et), b.const(np.array(frame, np.int64)),
                          b.const(np.array(step, np.int64)), transpose)

    return make


@S.register_stimuli("STFT", 15)
def stft_recipe() -> Iterable[S.Stimulus]:
    op = "STFT"
    for i, n in enumerate(S.REMAINDERS):
        label = f"frame{n}"
        yield stim(op, 15, label, stft_make(n, max(1, n // 2), n, i % 2 == 0, label=label), (2, 1000),
                   depth=S.remainder_depth(n))
    yield stim(op, 15, "frame65-window33-step7", stft_make(65, 7, 33, False, label="w33"), (1, 513))
    yield stim(op, 15, "frame256-unbatched", stft_make(256, 100, 256, True, label="u"), (4099,))
    yield stim(op, 15, "large", stft_make(256, 128, 256, False, label="large"), (2, 32771), size="large")
    yield stim(op, 15, "large-frame1000", stft_make(1000, 333, 1000, True, label="large-frame1000"), (2, 32771),
               size="large", depth=EXH)
    for et in REAL:
        label = f"{et.name}-frame63"
        yield stim(op, 15, label, stft_make(63, 20, 63, False, et, label), (2, 1000), et=et, depth=fdepth(et))
    yield stim(op, 15, "dynamic", stft_make(63, 31, 63, False, label="dynamic"), (2, 300),
               shapes=((2, 300), (2, 1000), (1, 2049)))


def istft_make(frame: int, step: int, center: bool, normalized: bool, et: Type = F32, label: str = "",
               length: int | None = None) -> SR.MakeAt:
    """The case's shape is the data's ``[(B,) frame/2 + 1, frames, 2]``."""
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        win = const_rng("ISTFT", 16, label).uniform(0.5, 1, frame)
        data = b.param("data", S.cast(b.rng.uniform(-2, 2, shape), et), et)
        args: list[Any] = [data, b.const(S.cast(win, et), et), b.const(np.array(frame, np.int64)),
                           b.const(np.array(step, np.int64)), center, normalized]
        if length is not None:
            args.append(b.const(np.array(length, np.int64)))
        return opset.istft(*args)

    return make


@S.register_stimuli("ISTFT", 16)
def istft_recipe() -> Iterable[S.Stimulus]:
    op = "ISTFT"
    for i, n in enumerate(S.REMAINDERS):
        label = f"frame{n}"
        yield stim(op, 16, label, istft_make(n, max(1, n // 3), False, i % 2 == 1, label=label),
                   (2, n // 2 + 1, 33, 2), depth=S.remainder_depth(n))
    for n in (16, 64, 130):
        label = f"center-frame{n}"
        yield stim(op, 16, label, istft_make(n, n // 4, True, False, label=label), (n // 2 + 1, 17, 2),
                   depth=STD if n == 130 else EXH)
    yield stim(op, 16, "frame63-length1000", istft_make(63, 21, False, False, label="len", length=1000),
               (2, 32, 48, 2))
    yield stim(op, 16, "large", istft_make(256, 128, True, True, label="large"), (2, 129, 257, 2), size="large")
    for et in REAL:
        label = f"{et.name}-frame63"
        yield stim(op, 16, label, istft_make(63, 21, False, False, et, label), (2, 32, 17, 2), et=et,
                   depth=fdepth(et))
    yield stim(op, 16, "dynamic", istft_make(63, 21, False, False, label="dynamic"), (2, 32, 7, 2),
               shapes=((2, 32, 7, 2), (2, 32, 33, 2), (1, 32, 65, 2)))


# -- FakeConvert-13 -----------------------------------------------------------------------------------------------

def fake_convert_make(dest: str, et: Type = F32, shifted: bool = True) -> SR.MakeAt:
    """Magnitudes spread over 2^-14 .. 2^12 (subnormals and saturation of both 8-bit types), a
    per-tensor scale in [0.25, 4] and shift in [-1, 1] (Constants)."""
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        rng = const_rng("FakeConvert", 13, f"{dest}-{et.name}-{shifted}")
        values = b.rng.uniform(-1, 1, shape) * np.exp2(b.rng.integers(-14, 13, shape))
        data = b.param("data", S.cast(values, et), et)
        scale = b.const(S.cast(rng.uniform(0.25, 4, (1,)), et), et)
        shift = b.const(S.cast(rng.uniform(-1, 1, (1,)), et), et) if shifted else None
        return opset.fake_convert(data, scale, shift, dest)

    return make


@S.register_stimuli("FakeConvert", 13)
def fake_convert_recipe() -> Iterable[S.Stimulus]:
    op = "FakeConvert"
    for dest in ("f8e4m3", "f8e5m2"):
        for n in S.REMAINDERS:
            yield stim(op, 13, f"{dest}-rem{n}", fake_convert_make(dest, shifted=n % 2 == 1), (3, n),
                       depth=S.remainder_depth(n) if dest == "f8e4m3" or n in (17, 129) else EXH)
        yield stim(op, 13, f"{dest}-large", fake_convert_make(dest), (2, 32771), size="large")
        for et in (Type.f16, Type.bf16):
            yield stim(op, 13, f"{dest}-{et.name}-rem65", fake_convert_make(dest, et), (3, 65), et=et)
    yield stim(op, 13, "dynamic", fake_convert_make("f8e4m3"), (3, 7), shapes=((1, 7), (3, 65), (5, 129)))


# -- GroupedMatMul-17 ---------------------------------------------------------------------------------------------

def grouped_make(label: str, groups: int, n: int, k: int, et: Type = F32) -> SR.MakeAt:
    """3-D x 3-D: the case's shape is mat_a's ``[G, M, K]``; mat_b ``[G, N, K]`` a Constant (OpenVINO
    CPU runs GroupedMatMul only with constant weights)."""
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        w = SR.mm_values(const_rng("GroupedMatMul", 17, label), (groups, n, k), et)
        return opset.grouped_matmul(b.param("mat_a", SR.mm_values(b.rng, shape, et), et), b.const(w, et))

    return make


def grouped_offsets_make(label: str, rows: list[int], n: int, et: Type = F32) -> SR.MakeAt:
    """2-D x 3-D with offsets: the case's shape is mat_a's ``[T, K]``, groups of ``rows`` rows (0: an
    empty group)."""
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        k = shape[1]
        w = SR.mm_values(const_rng("GroupedMatMul", 17, label), (len(rows), n, k), et)
        offsets = b.const(np.cumsum(rows).astype(np.int32))
        return opset.grouped_matmul(b.param("mat_a", SR.mm_values(b.rng, shape, et), et), b.const(w, et), offsets)

    return make


@S.register_stimuli("GroupedMatMul", 17)
def grouped_matmul_recipe() -> Iterable[S.Stimulus]:
    op = "GroupedMatMul"
    for k in S.REMAINDERS:
        label = f"k{k}"
        yield stim(op, 17, label, grouped_make(label, 3, 17, k), (3, 9, k), depth=S.remainder_depth(k))
    for n in (65, 129):
        label = f"n{n}"
        yield stim(op, 17, label, grouped_make(label, 2, n, 33), (2, 9, 33))
    rows = [40, 0, 17, 63, 9]
    yield stim(op, 17, "offsets-k129", grouped_offsets_make("offsets-k129", rows, 33), (sum(rows), 129))
    yield stim(op, 17, "large-k256-n256", grouped_make("large", 4, 256, 256), (4, 64, 256), size="large",
               values="long-reduction")
    yield stim(op, 17, "offsets-large", grouped_offsets_make("offsets-large", [100, 0, 156], 256), (256, 256),
               size="large")
    yield stim(op, 17, "f16-k129", grouped_make("f16-k129", 2, 33, 129, Type.f16), (2, 9, 129), et=Type.f16)
    yield stim(op, 17, "dynamic", grouped_make("dynamic", 2, 17, 65), (2, 1, 65),
               shapes=((2, 1, 65), (2, 9, 65), (2, 33, 65)))


# -- Multinomial-13 and RandomUniform-8 -----------------------------------------------------------------------------

def multinomial_make(samples: int, replacement: bool, log_probs: bool, et: Type = F32,
                     out: Type = Type.i64) -> SR.MakeAt:
    """The case's shape is the probabilities' ``[B, C]``: about a quarter 0 (-inf logits), never a
    whole row; the rest in [0.01, 1] (logits in [-2, 2])."""
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        zero = b.rng.random(shape) < 0.25
        zero[:, 0] = False
        if log_probs:
            probs = np.where(zero, -np.inf, b.rng.uniform(-2, 2, shape))
        else:
            probs = np.where(zero, 0.0, b.rng.uniform(0.01, 1, shape))
        count = b.const(np.array([samples], np.int64))
        return opset.multinomial(b.param("probs", S.cast(probs, et), et), count, out, replacement, log_probs,
                                 1234, 5678)

    return make


@S.register_stimuli("Multinomial", 13)
def multinomial_recipe() -> Iterable[S.Stimulus]:
    op = "Multinomial"
    for c in S.REMAINDERS:
        yield stim(op, 13, f"classes{c}", multinomial_make(65, True, c % 2 == 1), (3, c), depth=S.remainder_depth(c))
    yield stim(op, 13, "no-replacement-classes129", multinomial_make(65, False, False), (3, 129))
    yield stim(op, 13, "large-probs", multinomial_make(17, True, False, out=Type.i32), (64, 1025), size="large")
    yield stim(op, 13, "many-samples", multinomial_make(4099, True, True), (2, 129), depth=EXH)
    yield stim(op, 13, "large-classes", multinomial_make(129, True, True), (4, 16411), size="large", depth=EXH)
    yield stim(op, 13, "f16-classes65", multinomial_make(129, True, False, Type.f16), (3, 65), et=Type.f16)
    yield stim(op, 13, "dynamic", multinomial_make(33, True, False), (1, 7), shapes=((1, 7), (3, 65), (2, 129)))


def random_make(et: Type, alignment: str, low: float, high: float, seeds: tuple[int, int] = (7, 11),
                shape_param: bool = False) -> SR.MakeAt:
    """The case's shape is the output's (a Constant, or a Parameter's values with ``shape_param``:
    the output shape is then dynamic); ``min`` and ``max`` are scalar Parameters."""
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        dims = np.array(shape, np.int64)
        shape_node = b.param("shape", dims, Type.i64) if shape_param else b.const(dims)
        lo, hi = (b.param(name, S.cast(np.array(v), et), et) for name, v in (("min", low), ("max", high)))
        return opset.random_uniform(shape_node, lo, hi, et, *seeds, alignment)

    return make


@S.register_stimuli("RandomUniform", 8)
def random_uniform_recipe() -> Iterable[S.Stimulus]:
    op = "RandomUniform"
    for n in S.REMAINDERS:
        for alignment in ("tensorflow", "pytorch"):
            depth = S.remainder_depth(n) if alignment == "tensorflow" or n in (7, 129) else EXH
            yield stim(op, 8, f"{alignment}-rem{n}", random_make(F32, alignment, -3, 5), (3, n), depth=depth)
    yield stim(op, 8, "large", random_make(F32, "tensorflow", 0, 1, (0, 42)), (2, 32771), size="large")
    yield stim(op, 8, "large-pytorch", random_make(F32, "pytorch", -1, 1, (5, 0)), (2, 32771), size="large")
    yield stim(op, 8, "i32-large", random_make(Type.i32, "tensorflow", -1000, 1000), (2, 32771), size="large",
               et=Type.i32)
    yield stim(op, 8, "i32-rem65", random_make(Type.i32, "pytorch", 0, 1 << 30), (3, 65), et=Type.i32)
    for et in (Type.f16, Type.bf16, Type.f64, Type.i64):
        low, high = (-3, 5) if et.is_real() else (-(1 << 40), 1 << 40)
        yield stim(op, 8, f"{et.name}-rem65", random_make(et, "tensorflow", low, high), (3, 65), et=et, depth=EXH)
    # no dynamic-mode case: its second and third inference on one request would test what the spec leaves open
    # (OpenVINO carries the Philox state from one inference to the next; REFERENCE restarts from the seeds).
    # A single inference with the output shape as a Parameter covers the dynamic-shape path instead.
    yield stim(op, 8, "shape-parameter", random_make(F32, "tensorflow", -3, 5, shape_param=True), (5, 129))


# -- DeformableConvolution-1/8 and BinaryConvolution-1 ---------------------------------------------------------------

def deformable_make(version: int, label: str, cout: int, kernel: int, *, group: int = 1, dgroup: int = 1,
                    stride: int = 1, mask: bool = False, pad_mode: bool = False, et: Type = F32) -> SR.MakeAt:
    """The case's shape is the data's ``[N, C, H, W]``; offsets in [-2, 2] (taps inside, outside and
    across the border), filters a Constant, pads 1."""
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        n, c, h, w = shape
        oh, ow = (h + 2 - kernel) // stride + 1, (w + 2 - kernel) // stride + 1
        taps = kernel * kernel
        filters = const_rng("DeformableConvolution", version, label).uniform(-1, 1, (cout, c // group, kernel, kernel))
        data = b.param("data", S.cast(b.rng.uniform(-2, 2, shape), et), et)
        offsets = b.param("offsets", S.cast(b.rng.uniform(-2, 2, (n, dgroup * 2 * taps, oh, ow)), et), et)
        mask_node = b.param("mask", S.cast(b.rng.uniform(0, 1, (n, dgroup * taps, oh, ow)), et), et) if mask else None
        return opset.deformable_convolution(data, offsets, b.const(S.cast(filters, et), et), [stride] * 2, [1, 1],
                                            [1, 1], [1, 1], mask_node, "explicit", group, dgroup, pad_mode,
                                            version=version)

    return make


def deformable_recipe(version: int) -> S.Recipe:
    def recipe() -> Iterable[S.Stimulus]:
        op = "DeformableConvolution"
        v8 = version == 8
        for c in S.REMAINDERS:
            label = f"c{c}"
            yield stim(op, version, label, deformable_make(version, label, 4, 3, mask=v8), (1, c, 9, 9),
                       depth=S.remainder_depth(c))
        yield stim(op, version, "cout65-g2-dg2", deformable_make(version, "cout65", 66, 3, group=2, dgroup=2,
                                                                 pad_mode=v8), (1, 18, 7, 7))
        yield stim(op, version, "hw56-s2", deformable_make(version, "hw56", 8, 3, stride=2, mask=v8), (1, 4, 56, 56))
        yield stim(op, version, "large", deformable_make(version, "large", 4, 3, dgroup=2), (1, 22, 56, 56),
                   size="large")
        for et in (Type.f16, Type.bf16, Type.f64):
            label = f"{et.name}-c17"
            yield stim(op, version, label, deformable_make(version, label, 4, 3, mask=v8, et=et), (1, 17, 7, 7),
                       et=et, depth=fdepth(et))
        yield stim(op, version, "dynamic", deformable_make(version, "dynamic", 4, 3, mask=v8), (1, 17, 5, 5),
                   shapes=((1, 17, 5, 5), (2, 17, 9, 9), (1, 17, 17, 17)))

    return recipe


for _version in (1, 8):
    S.register_stimuli("DeformableConvolution", _version)(deformable_recipe(_version))


def binary_make(label: str, cout: int, kernel: int, pad_value: float, et: Type = F32, stride: int = 1) -> SR.MakeAt:
    """The case's shape is the data's ``[N, C, H, W]`` (0/1 values); u1 filters ``[cout, C, k, k]``
    (a Constant); pads 1 filled with ``pad_value``."""
    def make(b: S.StimulusBuilder, shape: tuple[int, ...]) -> Node:
        rng = const_rng("BinaryConvolution", 1, label)
        bits = rng.integers(0, 2, (cout, shape[1], kernel, kernel)).astype(np.uint8)
        data = b.param("data", S.cast(b.rng.integers(0, 2, shape), et), et)
        return opset.binary_convolution(data, opset.constant(bits, Type.u1), [stride] * 2, [1, 1], [1, 1], [1, 1],
                                        "xnor-popcount", pad_value, "explicit")

    return make


@S.register_stimuli("BinaryConvolution", 1)
def binary_convolution_recipe() -> Iterable[S.Stimulus]:
    op = "BinaryConvolution"
    for c in S.REMAINDERS:
        label = f"c{c}"
        yield stim(op, 1, label, binary_make(label, 5, 3, float(c % 2)), (1, c, 9, 9), depth=S.remainder_depth(c))
    yield stim(op, 1, "cout65-k1", binary_make("cout65-k1", 65, 1, 0.0), (1, 33, 7, 7))
    yield stim(op, 1, "large", binary_make("large", 3, 3, 1.0), (1, 21, 56, 56), size="large")
    yield stim(op, 1, "f16-c65", binary_make("f16-c65", 4, 3, 0.0, Type.f16), (1, 65, 9, 9), et=Type.f16)
    yield stim(op, 1, "dynamic", binary_make("dynamic", 4, 3, 1.0), (1, 17, 5, 5),
               shapes=((1, 17, 5, 5), (2, 17, 9, 9), (1, 17, 17, 17)))
