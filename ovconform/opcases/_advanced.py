"""Case strategies of the "advanced" family: AdaptiveAvgPool-8, AdaptiveMaxPool-8, FakeQuantize-1,
Inverse-14, Einsum-7, ScaledDotProductAttention-13, ConvolutionBackpropData-1,
GroupConvolutionBackpropData-1, Col2Im-15 and Interpolate-1/4/11.

What the cases keep away from, and why:

* AdaptiveMaxPool: values are all different (no ties: the spec does not say which index a tie gives);
  ``index_element_type`` is i32 (OpenVINO CPU cannot compile i64 indices for it).
* FakeQuantize: the limits are Constants (OpenVINO CPU needs them constant); ``auto_broadcast`` is
  numpy (OpenVINO CPU fails to compile ``none`` and ``pdpd`` with non-scalar limits: its
  FakeQuantizeDecomposition pass rebuilds the node with scalar limits and rejects it, "Argument shapes
  are inconsistent"; unit tests cover those modes on REFERENCE); ``input_low < input_high``
  (the spec's formula divides by their difference), and no value lies within 2% of a level step of a
  rounding boundary (``x`` where the quantized level flips: the choice there depends on the precision
  of the division, which the spec does not fix). Boundary values are moved into their level.
* Inverse: well-conditioned matrices only (diagonally dominant): the spec leaves singular matrices
  undefined and ill-conditioned ones amplify rounding differences without bound.
* Einsum: equations from a list of templates that covers matmul-like contractions, transposes,
  traces and diagonals (repeated labels), outer products, reductions, ellipsis broadcasting and the
  implicit (no ``->``) form; labels are lower-case (the implicit output order is then alphabetical
  in every convention).
* ScaledDotProductAttention: every row of a boolean mask keeps at least one True (a row masked
  everywhere is 0/0); float masks are finite.
* (Group)ConvolutionBackpropData: ``output_padding < stride``; with ``output_shape`` and explicit
  padding the pads are zero (the spec says pads should not be given then) and the requested size is
  at most the full size plus ``output_padding``; f32, f16 and i32 (small values: exact sums).
  GroupConvolutionBackpropData has 2 or 3 groups: OpenVINO CPU fails to compile one group unless
  both channel counts are 1 ("could not create a primitive descriptor for the deconvolution"); one
  group is ConvolutionBackpropData anyway.
* Col2Im: the sizes are Constants and consistent with the number of blocks.
* Interpolate: sizes, scales and axes are Constants; scales come from a set of binary fractions (so
  ``floor(scale · size)`` is exact); data is f32/f16, and also u8 for nearest (the spec does not say
  how the other modes round integer results).

  - nearest: no output coordinate lies within 1e-4 of a rounding decision (a half-integer for the
    round modes, an integer for floor/ceil/simple) unless float32 and float64 compute it alike: the
    spec's formulas are exact only in real numbers and a device may evaluate them in another order.
    Such an axis gets another size (or scale 1, where coordinates are exact).
  - linear_onnx uses the axes the spec allows ({0, 1} for 2D, {0, 1, 2} for 3D, {2, 3} for 4D,
    {2, 3, 4} for 5D); the Pillow modes interpolate two axes with sizes, or with scales whose
    product with the size is whole (where "scale" as given and as in/out sizes agree).
  - At most two axes are interpolated, or the last three (OpenVINO CPU refuses others: "only
    supports resize on spatial dimensions").
  - Pads, antialias and cube_coeff != -0.5 for bicubic_pillow are drawn in a minority of cases:
    OpenVINO CPU deviates there (deviations_advanced.py), so those cases are skipped by the
    cross-check and the rest are checked.
  - Interpolate-1 draws nearest, linear and cubic (``area`` is not implemented by REFERENCE), pads
    only the interpolated axes (OpenVINO then pads the other dims too, unlike the v1 output shape)
    and lists its axes in increasing order (OpenVINO reads them into a sorted set, so unsorted axes
    pair with the wrong sizes: a recorded deviation that also breaks the IR round trip).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from hypothesis import strategies as st

from ovconform import opset
from ovconform.ir import Type
from ovconform.opcases import OpCase, register_case
from ovconform.opcases._draw import FLOATS, CaseBuilder, Draw, draw_seed
from ovconform.opset._window import AUTO_PAD, dilated

INDEX_TYPES = (Type.i32, Type.i64)


def _ints(b: CaseBuilder, name: str, values: list[int], et: Type, constant: bool) -> Any:
    return b.input(name, np.array(values, dtype=et.to_dtype()), constant)


# -- adaptive pooling --------------------------------------------------------------------------------------------

def _adaptive(draw: Draw[Any]) -> tuple[tuple[int, ...], list[int], Type, bool]:
    n = draw(st.integers(1, 3))
    side = {1: 9, 2: 7, 3: 4}[n]
    shape = (draw(st.integers(1, 2)), draw(st.integers(1, 3)), *(draw(st.integers(1, side)) for _ in range(n)))
    out = [draw(st.integers(1, side)) for _ in range(n)]
    return shape, out, draw(st.sampled_from(INDEX_TYPES)), draw(st.integers(0, 3)) > 0


@register_case("AdaptiveAvgPool", 8)
def case_adaptive_avg_pool(draw: Draw[Any]) -> OpCase:
    shape, out, it, constant = _adaptive(draw)
    et = draw(st.sampled_from(FLOATS))
    b = CaseBuilder(draw_seed(draw))
    data = b.param("data", b.uniform(shape, et, -4, 4))
    node = opset.adaptive_avg_pool(data, _ints(b, "output_shape", out, it, constant))
    return b.finish("AdaptiveAvgPool", 8, node)


@register_case("AdaptiveMaxPool", 8)
def case_adaptive_max_pool(draw: Draw[Any]) -> OpCase:
    shape, out, it, constant = _adaptive(draw)
    et = draw(st.sampled_from(FLOATS))
    index_type = Type.i32  # OpenVINO CPU cannot compile i64 indices ("does not support i64 for use with oneDNN")
    b = CaseBuilder(draw_seed(draw))
    data = b.param("data", b.distinct(shape, et, 0.25 if math.prod(shape) <= 2000 else 0.0625))
    node = opset.adaptive_max_pool(data, _ints(b, "output_shape", out, it, constant), index_type)
    return b.finish("AdaptiveMaxPool", 8, node, "values are all different: no ties.")


# -- FakeQuantize ------------------------------------------------------------------------------------------------

def _limit_shape(draw: Draw[Any], shape: tuple[int, ...]) -> tuple[int, ...]:
    """A limit shape that broadcasts into ``shape`` (numpy): scalar, per channel, or a partial suffix."""
    kind = draw(st.sampled_from(("scalar", "channel", "partial")))
    if kind == "scalar" or not shape:
        return ()
    if kind == "channel" and len(shape) >= 2:
        return (1, shape[1], *([1] * (len(shape) - 2)))
    rank = draw(st.integers(1, len(shape)))
    return tuple(d if draw(st.booleans()) else 1 for d in shape[len(shape) - rank:])


def _off_boundaries(x: np.ndarray, lo: np.ndarray, hi: np.ndarray, levels: int, et: Type) -> np.ndarray:
    """``x`` with every value near a level's rounding boundary moved into its level (then stored as et)."""
    dt = et.to_dtype()
    lo64, hi64 = lo.astype(np.float64), hi.astype(np.float64)
    for _ in range(3):
        u = (x.astype(np.float64) - lo64) / (hi64 - lo64) * (levels - 1)
        frac = u - np.floor(u)
        bad = (np.abs(frac - 0.5) < 0.02) & (u > 0) & (u < levels - 1)
        if not bad.any():
            return x
        moved = lo64 + (np.floor(u) + 0.25) / (levels - 1) * (hi64 - lo64)
        x = np.where(bad, moved, x).astype(dt)
    u = (x.astype(np.float64) - lo64) / (hi64 - lo64) * (levels - 1)
    bad = (np.abs(u - np.floor(u) - 0.5) < 0.02) & (u > 0) & (u < levels - 1)
    return np.where(bad, lo64, x).astype(dt)


@register_case("FakeQuantize", 1)
def case_fake_quantize(draw: Draw[Any]) -> OpCase:
    et = draw(st.sampled_from(FLOATS))
    rank = draw(st.integers(0, 4))
    shape = tuple(draw(st.integers(1, 4)) for _ in range(rank))
    shapes = [_limit_shape(draw, shape) for _ in range(4)]
    levels = draw(st.sampled_from((2, 3, 5, 16, 255, 256)))
    inverted = draw(st.integers(0, 3)) == 0  # output_low > output_high: the spec allows an inverted range
    b = CaseBuilder(draw_seed(draw))
    lo = b.uniform(shapes[0], et, -3, 0)
    hi_shape = np.broadcast_shapes(shapes[0], shapes[1])
    hi = (lo.astype(np.float64) + b.uniform(hi_shape, Type.f64, 0.5, 4)).astype(et.to_dtype())
    ol = b.uniform(shapes[2], et, -5, 5)
    step = b.uniform(np.broadcast_shapes(shapes[2], shapes[3]), Type.f64, 0.5, 5)
    oh = (ol.astype(np.float64) + (-step if inverted else step)).astype(et.to_dtype())
    x = b.uniform(shape, et, -4, 5)
    x = _off_boundaries(x, *np.broadcast_arrays(lo, hi)[:2], levels, et) if x.size else x
    data = b.param("x", x)
    node = opset.fake_quantize(data, b.const(lo), b.const(hi), b.const(ol), b.const(oh), levels)
    return b.finish("FakeQuantize", 1, node, "limits are Constants; no value sits on a rounding boundary.")


# -- Inverse -----------------------------------------------------------------------------------------------------

@register_case("Inverse", 14)
def case_inverse(draw: Draw[Any]) -> OpCase:
    et = draw(st.sampled_from(FLOATS))
    batch = tuple(draw(st.integers(1, 3)) for _ in range(draw(st.integers(0, 2))))
    m = draw(st.integers(1, 4))
    adjoint = draw(st.booleans())
    b = CaseBuilder(draw_seed(draw))
    a = b.uniform((*batch, m, m), Type.f64, -1, 1)
    sign = np.where(b.rng.random((*batch, m)) < 0.5, -1.0, 1.0)
    dominant = np.abs(a).sum(axis=-1) + b.rng.uniform(0.5, 2, (*batch, m))
    a = a + np.einsum("...i,ij->...ij", sign * dominant, np.eye(m))
    data = b.param("data", a.astype(et.to_dtype()))
    return b.finish("Inverse", 14, opset.inverse(data, adjoint), "diagonally dominant (well-conditioned) matrices.")


# -- Einsum ------------------------------------------------------------------------------------------------------

EINSUM_EQUATIONS = (
    "ij,jk->ik", "bij,bjk->bik", "ij->ji", "abc->cab", "ii->i", "ii->", "ij->", "ij->j", "i,i->", "i,j->ij",
    "ij,ij->ij", "ijk,k->ij", "ab,bc,cd->ad", "...ij,...jk->...ik", "...ii->...i", "a...->...a", "...,...->...",
    "ij", "ba", "ij,jk", "bhqd,bhkd->bhqk", "iij->ij", "i...j,j...->...i",
)


def _einsum_shapes(draw: Draw[Any], equation: str) -> list[tuple[int, ...]]:
    lhs = equation.split("->")[0].split(",")
    sizes = {lab: draw(st.integers(1, 4)) for lab in sorted(set(equation) - set(",->."))}
    ell = tuple(draw(st.integers(1, 3)) for _ in range(draw(st.integers(0, 2))))
    shapes = []
    for term in lhs:
        head, _, tail = term.partition("...")
        mid: tuple[int, ...] = ()
        if "..." in term:
            keep = draw(st.integers(0, len(ell)))  # a suffix of the ellipsis dims, some broadcast to 1
            mid = tuple(1 if draw(st.integers(0, 3)) == 0 else d for d in ell[len(ell) - keep:])
        shapes.append((*(sizes[c] for c in head), *mid, *(sizes[c] for c in tail)))
    return shapes


@register_case("Einsum", 7)
def case_einsum(draw: Draw[Any]) -> OpCase:
    equation = draw(st.sampled_from(EINSUM_EQUATIONS))
    et = draw(st.sampled_from((*FLOATS, Type.i32)))
    shapes = _einsum_shapes(draw, equation)
    b = CaseBuilder(draw_seed(draw))
    low, high = (-2, 2) if et.is_real() else (-3, 3)
    inputs = [b.param(f"in{i}", b.uniform(s, et, low, high)) for i, s in enumerate(shapes)]
    return b.finish("Einsum", 7, opset.einsum(inputs, equation), "integers are small: sums are exact in i32.")


# -- ScaledDotProductAttention -------------------------------------------------------------------------------------

def _mask_shape(draw: Draw[Any], batch: tuple[int, ...], length: int, s_len: int) -> tuple[int, ...]:
    kind = draw(st.sampled_from(("2d", "full", "broadcast")))
    if kind == "2d":
        return (length, s_len)
    if kind == "full":
        return (*batch, length, s_len)
    return (*(1 if draw(st.booleans()) else d for d in batch), 1 if draw(st.integers(0, 3)) == 0 else length, s_len)


@register_case("ScaledDotProductAttention", 13)
def case_sdpa(draw: Draw[Any]) -> OpCase:
    et = draw(st.sampled_from(FLOATS))
    batch = tuple(draw(st.integers(1, 2)) for _ in range(draw(st.integers(1, 2))))
    length, s_len, e, ev = (draw(st.integers(1, 5)) for _ in range(4))
    causal = draw(st.booleans())
    mask_kind = draw(st.sampled_from(("none", "boolean", "float")))
    scale_kind = draw(st.sampled_from(("none", "param", "const")))
    qb, kb, vb = (tuple(1 if draw(st.integers(0, 3)) == 0 else d for d in batch) for _ in range(3))
    batch = tuple(np.broadcast_shapes(qb, kb, vb))  # query, key and value batch dims broadcast
    b = CaseBuilder(draw_seed(draw))
    q = b.param("query", b.uniform((*qb, length, e), et, -2, 2))
    k = b.param("key", b.uniform((*kb, s_len, e), et, -2, 2))
    v = b.param("value", b.uniform((*vb, s_len, ev), et, -2, 2))
    mask = None
    if mask_kind != "none" or scale_kind != "none":
        shape = _mask_shape(draw, batch, length, s_len)
        if mask_kind == "boolean":
            m = b.rng.random(shape) < 0.6
            m[..., b.rng.integers(0, s_len)] = True  # every row keeps at least one position
            mask = b.param("attention_mask", m)
        else:
            mask = b.param("attention_mask", b.uniform(shape, et, -2, 2) if mask_kind == "float"
                           else np.zeros(shape, et.to_dtype()))
    scale = None
    if scale_kind != "none":
        value = b.uniform((), et, 0.1, 1.5)
        scale = b.input("scale", value, scale_kind == "const")
    node = opset.scaled_dot_product_attention(q, k, v, mask, scale, causal)
    return b.finish("ScaledDotProductAttention", 13, node, "boolean masks keep one True per row.")


# -- (Group)ConvolutionBackpropData ------------------------------------------------------------------------------

def _backprop_case(draw: Draw[Any], groups: bool) -> OpCase:
    et = draw(st.sampled_from((*FLOATS, Type.i32)))
    n = draw(st.integers(1, 3))
    side = {1: 6, 2: 4, 3: 3}[n]
    auto_pad = draw(st.sampled_from(AUTO_PAD))
    with_shape = draw(st.integers(0, 2)) == 0
    spatial, kernel, strides, dil, pb, pe, op, out = [], [], [], [], [], [], [], []
    for _ in range(n):
        i, k = draw(st.integers(1, side)), draw(st.integers(1, 3))
        s, d = draw(st.integers(1, 3)), draw(st.integers(1, 2))
        full = (i - 1) * s + dilated(k, d)
        o = draw(st.integers(0, s - 1))
        zero_pads = with_shape or auto_pad != "explicit"
        p_b = 0 if with_shape and auto_pad == "explicit" else draw(st.integers(0, 2))
        p_e = 0 if with_shape and auto_pad == "explicit" else draw(st.integers(0, 2))
        if not zero_pads and p_b + p_e >= full + o:
            p_b, p_e = 0, 0
        spatial.append(i), kernel.append(k), strides.append(s), dil.append(d)
        pb.append(p_b), pe.append(p_e), op.append(o)
        out.append(draw(st.integers(max(1, full + o - 4), full + o)))
    g = draw(st.integers(2, 3)) if groups else 1  # OpenVINO CPU cannot compile one group (see the docstring)
    cin_g, cout_g = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    w_shape = (g, cin_g, cout_g, *kernel) if groups else (cin_g, cout_g, *kernel)
    b = CaseBuilder(draw_seed(draw))
    limit = 1 if et.is_real() else 3  # small integers: sums are exact in i32
    data = b.param("data", b.uniform((draw(st.integers(1, 2)), g * cin_g, *spatial), et, -limit, limit))
    filters = b.input("filters", b.uniform(w_shape, et, -limit, limit), draw(st.integers(0, 3)) > 0)
    shape_node = _ints(b, "output_shape", out, draw(st.sampled_from(INDEX_TYPES)), True) if with_shape else None
    build = opset.group_convolution_backprop_data if groups else opset.convolution_backprop_data
    node = build(data, filters, strides, shape_node, pb, pe, dil, auto_pad, op)
    op_type = "GroupConvolutionBackpropData" if groups else "ConvolutionBackpropData"
    return b.finish(op_type, 1, node, "output_padding < stride; explicit pads are zero with output_shape.")


@register_case("ConvolutionBackpropData", 1)
def case_convolution_backprop_data(draw: Draw[Any]) -> OpCase:
    return _backprop_case(draw, groups=False)


@register_case("GroupConvolutionBackpropData", 1)
def case_group_convolution_backprop_data(draw: Draw[Any]) -> OpCase:
    return _backprop_case(draw, groups=True)


# -- Col2Im ------------------------------------------------------------------------------------------------------

@register_case("Col2Im", 15)
def case_col2im(draw: Draw[Any]) -> OpCase:
    et = draw(st.sampled_from((*FLOATS, Type.i32)))
    kernel = [draw(st.integers(1, 3)) for _ in range(2)]
    strides, dil = [draw(st.integers(1, 2)) for _ in range(2)], [draw(st.integers(1, 2)) for _ in range(2)]
    pb, pe = [draw(st.integers(0, 1)) for _ in range(2)], [draw(st.integers(0, 1)) for _ in range(2)]
    size = [max(1, dilated(k, d) - a - c) + draw(st.integers(0, 4))
            for k, d, a, c in zip(kernel, dil, pb, pe, strict=True)]
    blocks = [(s + a + c - dilated(k, d)) // st_ + 1
              for s, a, c, k, d, st_ in zip(size, pb, pe, kernel, dil, strides, strict=True)]
    channels = draw(st.integers(1, 3))
    batched = draw(st.booleans())
    shape = ((draw(st.integers(1, 2)),) if batched else ()) + (channels * kernel[0] * kernel[1], blocks[0] * blocks[1])
    it = draw(st.sampled_from(INDEX_TYPES))
    b = CaseBuilder(draw_seed(draw))
    data = b.param("data", b.uniform(shape, et, -2, 2) if et.is_real() else b.uniform(shape, et, -5, 5))
    node = opset.col2im(data, b.const(np.array(size, it.to_dtype())), b.const(np.array(kernel, it.to_dtype())),
                        strides, dil, pb, pe)
    return b.finish("Col2Im", 15, node)


# -- Interpolate ---------------------------------------------------------------------------------------------

SCALES = (0.5, 0.75, 1.25, 1.5, 2.0, 2.5, 3.0, 0.25, 1.75)
ONNX_AXES = {2: [0, 1], 3: [0, 1, 2], 4: [2, 3], 5: [2, 3, 4]}
PILLOW_AXES = {2: [[0, 1]], 3: [[1, 2]], 4: [[2, 3], [1, 2]], 5: [[3, 4]]}
_NEAREST_TIE = {"round_prefer_floor": 0.5, "round_prefer_ceil": 0.5, "floor": 0.0, "ceil": 0.0, "simple": 0.0}


def _coords64(out_len: int, in_len: int, scale: float, mode: str) -> np.ndarray:
    x = np.arange(out_len, dtype=np.float64)
    if mode in ("half_pixel", "pytorch_half_pixel"):
        return (x + 0.5) / scale - 0.5 if out_len > 1 or mode == "half_pixel" else np.zeros(out_len)
    if mode == "asymmetric":
        return x / scale
    if mode == "tf_half_pixel_for_nn":
        return (x + 0.5) / scale
    return np.zeros(out_len) if out_len == 1 else x * (in_len - 1) / (out_len - 1)


def nearest_is_ambiguous(out_len: int, in_len: int, scale: float, mode: str, nearest_mode: str) -> bool:
    """Some output coordinate lies within 1e-4 of a rounding decision and float32 does not compute
    it exactly as float64 does (see the module docstring)."""
    from reference_plugin.ops._common_advanced import original_coords  # the kernel's float32 formulas

    c64 = _coords64(out_len, in_len, scale, mode)
    c32 = original_coords(out_len, in_len, scale, mode).astype(np.float64)
    frac = c64 - np.floor(c64) - _NEAREST_TIE[nearest_mode]
    near = np.minimum(np.abs(frac), np.abs(np.abs(frac) - 1)) < 1e-4
    return bool(np.any(near & (c32 != c64)) or np.any(np.floor(c32 * 2) != np.floor(c64 * 2)))


def _interp_axes(draw: Draw[Any], rank: int, mode: str) -> list[int]:
    if mode == "linear_onnx":
        return list(ONNX_AXES[rank])
    if mode in ("bilinear_pillow", "bicubic_pillow"):
        return list(draw(st.sampled_from(PILLOW_AXES[rank])))
    if rank >= 3 and draw(st.integers(0, 3)) == 3:  # three axes: OpenVINO CPU takes only the trailing three
        return list(range(rank - 3, rank))
    if mode == "cubic" and rank >= 3 and draw(st.integers(0, 3)) < 3:  # mostly dims >= 2 (deviations_advanced.py)
        return draw(st.lists(st.integers(2, rank - 1), min_size=1, max_size=2, unique=True))
    return draw(st.lists(st.integers(0, rank - 1), min_size=1, max_size=2, unique=True))


def _interp_shape(draw: Draw[Any], rank: int) -> tuple[int, ...]:
    side = {2: 6, 3: 5, 4: 4, 5: 3}[rank]
    return tuple(draw(st.integers(1, side)) for _ in range(rank))


@dataclass
class InterpPlan:
    """Drawn Interpolate attributes and a data shape they fit."""

    shape: tuple[int, ...]
    axes: list[int]
    pads_begin: list[int]
    pads_end: list[int]
    sizes: list[int]
    scales: list[float]


def _draw_targets(draw: Draw[Any], shape: tuple[int, ...], axes: list[int], pads: tuple[list[int], list[int]],
                  use_scales: bool, pillow: bool) -> tuple[list[int], list[float]]:
    sizes, scales = [], []
    for a in axes:
        padded = shape[a] + pads[0][a] + pads[1][a]
        if use_scales:
            choices = [s for s in SCALES if int(s * padded) >= 1 and (not pillow or float(s * padded).is_integer())
                       and int(s * padded) != padded]  # a scale != 1 that keeps the size: deviations_advanced.py
            scale = draw(st.sampled_from(choices or [1.0]))
            scales.append(scale)
            sizes.append(int(np.floor(scale * padded)))
        else:
            size = draw(st.integers(1, 7))
            sizes.append(size)
            scales.append(size / padded)
    return sizes, scales


def _draw_interp(draw: Draw[Any], mode: str, use_scales: bool, version: int) -> InterpPlan:
    rank = draw(st.integers(2, 5))
    shape = _interp_shape(draw, rank)
    axes = _interp_axes(draw, rank, mode)
    other_pads = version > 1 and draw(st.integers(0, 3)) == 3  # see deviations_advanced.py
    padded_dims = range(rank) if other_pads else axes
    pb = [draw(st.integers(0, 1)) if i in padded_dims else 0 for i in range(rank)]
    pe = [draw(st.integers(0, 1)) if i in padded_dims else 0 for i in range(rank)]
    if draw(st.integers(0, 3)) < 3:  # pads in a quarter of the cases (OpenVINO CPU: deviations_advanced.py)
        pb, pe = [0] * rank, [0] * rank
    sizes, scales = _draw_targets(draw, shape, axes, (pb, pe), use_scales, "pillow" in mode)
    return InterpPlan(shape, axes, pb, pe, sizes, scales)


def _settle_nearest(plan: InterpPlan, coordinate_mode: str, nearest_mode: str, use_scales: bool) -> None:
    """Replace the target of every axis whose nearest pixels are ambiguous (see the module docstring)
    by the first unambiguous one that changes the size, else by scale 1."""
    for i, a in enumerate(plan.axes):
        padded = plan.shape[a] + plan.pads_begin[a] + plan.pads_end[a]
        options = [(int(np.floor(s * padded)), s) for s in SCALES] if use_scales else \
            [(n, n / padded) for n in range(1, 8)]
        options = [(plan.sizes[i], plan.scales[i])] + [o for o in options if 1 <= o[0] != padded] + [(padded, 1.0)]
        for size, scale in options:
            used = scale if use_scales else float(np.float32(size) / np.float32(padded))
            if size == padded or not nearest_is_ambiguous(size, padded, used, coordinate_mode, nearest_mode):
                plan.sizes[i], plan.scales[i] = size, scale
                break


def _interp_case(draw: Draw[Any], version: int) -> OpCase:
    modes = MODES_BY_VERSION[version]
    mode = draw(st.sampled_from(modes))
    use_scales = draw(st.booleans())
    plan = _draw_interp(draw, mode, use_scales, version)
    coordinate_mode = draw(st.sampled_from(COORDINATE_MODES))
    nearest_mode = draw(st.sampled_from(NEAREST_MODES))
    if mode == "nearest":
        _settle_nearest(plan, coordinate_mode, nearest_mode, use_scales)
    et = draw(st.sampled_from((*FLOATS, Type.u8) if mode == "nearest" else FLOATS))
    cube = draw(st.sampled_from((-0.75, -0.5, -0.6) if mode == "cubic" else (-0.5, -0.5, -0.5, -0.75)))
    antialias = draw(st.integers(0, 3)) == 3  # a minority: OpenVINO CPU deviates for linear
    b = CaseBuilder(draw_seed(draw))
    data = b.param("image", b.uniform(plan.shape, et, -4, 4) if et.is_real() else b.uniform(plan.shape, et, 0, 255))
    all_axes = sorted(plan.axes) == list(range(len(plan.shape))) and draw(st.booleans())
    order = list(range(len(plan.shape))) if all_axes else plan.axes
    pick = [plan.axes.index(a) for a in order]
    sizes = [plan.sizes[i] for i in pick]
    scales = [plan.scales[i] for i in pick]
    axes_node = None if all_axes else b.const(np.array(order, np.int64 if draw(st.booleans()) else np.int32))
    size_type = np.int64 if draw(st.booleans()) else np.int32
    sizes_node, scales_node = b.const(np.array(sizes, size_type)), b.const(np.array(scales, np.float32))
    shape_mode = "scales" if use_scales else "sizes"
    if version == 11:
        node = opset.interpolate(data, scales_node if use_scales else sizes_node, mode, shape_mode, plan.pads_begin,
                                 plan.pads_end, coordinate_mode, nearest_mode, antialias, cube, axes_node)
    else:
        node = opset.interpolate_v4(data, sizes_node, scales_node, mode, shape_mode, plan.pads_begin, plan.pads_end,
                                    coordinate_mode, nearest_mode, antialias, cube, axes_node)
    return b.finish("Interpolate", version, node, "nearest keeps away from ambiguous rounding; see the docstring.")


COORDINATE_MODES = ("half_pixel", "pytorch_half_pixel", "asymmetric", "tf_half_pixel_for_nn", "align_corners")
NEAREST_MODES = ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil", "simple")
MODES_BY_VERSION = {4: ("nearest", "linear", "linear_onnx", "cubic"),
                    11: ("nearest", "linear", "linear_onnx", "cubic", "bilinear_pillow", "bicubic_pillow")}


@register_case("Interpolate", 4)
def case_interpolate_4(draw: Draw[Any]) -> OpCase:
    return _interp_case(draw, 4)


@register_case("Interpolate", 11)
def case_interpolate_11(draw: Draw[Any]) -> OpCase:
    return _interp_case(draw, 11)


@register_case("Interpolate", 1)
def case_interpolate_1(draw: Draw[Any]) -> OpCase:
    mode = draw(st.sampled_from(("nearest", "linear", "cubic")))
    plan = _draw_interp(draw, mode, False, 1)
    order = np.argsort(plan.axes)  # OpenVINO reads v1 axes as a sorted set (deviations_advanced.py)
    plan.axes, plan.sizes = [plan.axes[i] for i in order], [plan.sizes[i] for i in order]
    align = draw(st.booleans())
    if mode == "nearest":  # Interpolate-1 nearest is nearest_mode simple over these coordinates
        _settle_nearest(plan, "align_corners" if align else "asymmetric", "simple", False)
    et = draw(st.sampled_from(FLOATS))
    b = CaseBuilder(draw_seed(draw))
    data = b.param("image", b.uniform(plan.shape, et, -4, 4))
    attrs = {"axes": plan.axes, "mode": mode, "align_corners": align, "antialias": draw(st.integers(0, 3)) == 3,
             "pads_begin": plan.pads_begin, "pads_end": plan.pads_end}
    sizes = b.const(np.array(plan.sizes, np.int64 if draw(st.booleans()) else np.int32))
    return b.finish("Interpolate", 1, opset.interpolate_v1(data, sizes, attrs), "pads only on interpolated axes.")
