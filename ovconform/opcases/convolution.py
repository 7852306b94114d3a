"""Case strategies of the convolution ops (OpenVINO's op-spec folder "convolution"):
Convolution-1, GroupConvolution-1, ConvolutionBackpropData-1, GroupConvolutionBackpropData-1 and
DeformableConvolution-1/8.

* Convolution, GroupConvolution: 1D/2D/3D spatial, strides 1..3, dilations 1..2, every auto_pad
  (same_*/valid cases also carry non-zero stored pads, which must be ignored), filters as a
  Constant or a Parameter, f32/f16/i32.
* (Group)ConvolutionBackpropData: ``output_padding < stride``; with ``output_shape`` and explicit
  padding the pads are zero (the spec says pads should not be given then) and the requested size is
  at most the full size plus ``output_padding``; f32, f16 and i32 (small values: exact sums).
  GroupConvolutionBackpropData has 2 or 3 groups: OpenVINO CPU fails to compile one group unless
  both channel counts are 1 ("could not create a primitive descriptor for the deconvolution"); one
  group is ConvolutionBackpropData anyway.
* DeformableConvolution: data [N, C, H, W] (N 1..2, C a multiple of group and deformable_group, each
  1..2; H, W 3..6) of f32 or f16 in [-2, 2]; filters [group * (1..2), C / group, KH, KW] (KH, KW
  1..3) in [-1, 1]; strides and dilations 1..2; explicit pads 0..1 or auto_pad valid / same_upper;
  offsets in [-2, 2] (taps land inside, outside and across the border); version 8 adds a mask in
  [0, 1] (or none) and ``bilinear_interpolation_pad``. Every input is a Parameter.
* BinaryConvolution-1: 0/1 data, u1 filters (a Constant); see the comment above its strategy.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
from hypothesis import strategies as st

from ovconform import opset
from ovconform.ir import Type
from ovconform.opcases import OpCase, register_case
from ovconform.opcases import _stimulus_recipes as SR
from ovconform.opcases import stimulus as S
from ovconform.opcases._draw import FLOATS, CaseBuilder, Draw, _ints, draw_seed, draw_window
from ovconform.opcases._draw_index import INDEX_TYPES
from ovconform.opcases.depth import Depth
from ovconform.opset._window import AUTO_PAD, dilated, resolve_pads

TYPES = (*FLOATS, Type.i32)


def _values(b: CaseBuilder, shape: tuple[int, ...], et: Type) -> Any:
    return b.uniform(shape, et, -1, 1) if et.is_real() else b.uniform(shape, et, -3, 3)


def _conv_case(draw: Draw[Any], groups: bool) -> OpCase:
    et = draw(st.sampled_from(TYPES))
    n = draw(st.integers(1, 3))
    w = draw_window(draw, n)
    batch = draw(st.integers(1, 2))
    g = draw(st.integers(1, 3)) if groups else 1
    cin_g, cout_g = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    filters_shape = (g, cout_g, cin_g, *w.kernel) if groups else (cout_g, cin_g, *w.kernel)
    filters_constant = draw(st.integers(0, 3)) > 0
    b = CaseBuilder(draw_seed(draw))
    data = b.param("data", _values(b, (batch, g * cin_g, *w.spatial), et))
    filters = b.input("filters", _values(b, filters_shape, et), filters_constant)
    build = opset.group_convolution if groups else opset.convolution
    node = build(data, filters, w.strides, w.pads_begin, w.pads_end, w.dilations, w.auto_pad)
    op = "GroupConvolution" if groups else "Convolution"
    return b.finish(op, 1, node, "integer values are small, so sums are exact in i32.")


@register_case("Convolution", 1)
def _convolution(draw: Draw[Any]) -> OpCase:
    return _conv_case(draw, groups=False)


@register_case("GroupConvolution", 1)
def _group_convolution(draw: Draw[Any]) -> OpCase:
    return _conv_case(draw, groups=True)


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
        spatial.append(i)
        kernel.append(k)
        strides.append(s)
        dil.append(d)
        pb.append(p_b)
        pe.append(p_e)
        op.append(o)
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


def _out(size: int, k: int, s: int, d: int, pads: tuple[int, int]) -> int:
    return (size + pads[0] + pads[1] - (d * (k - 1) + 1)) // s + 1


def _deformable(version: int) -> None:
    def build(draw: Draw[Any]) -> OpCase:
        et = draw(st.sampled_from(FLOATS))
        group, dgroup = draw(st.integers(1, 2)), draw(st.integers(1, 2))
        c = max(group, dgroup) * draw(st.integers(1, 2))
        n, h, w = draw(st.integers(1, 2)), draw(st.integers(3, 6)), draw(st.integers(3, 6))
        kh, kw = draw(st.integers(1, 3)), draw(st.integers(1, 3))
        strides = [draw(st.integers(1, 2)), draw(st.integers(1, 2))]
        dilations = [draw(st.integers(1, 2)), draw(st.integers(1, 2))]
        if (dilations[0] * (kh - 1) >= h) or (dilations[1] * (kw - 1) >= w):
            dilations = [1, 1]
        auto_pad = draw(st.sampled_from(("explicit", "explicit", "valid", "same_upper")))
        pads_begin = [draw(st.integers(0, 1)), draw(st.integers(0, 1))]
        pads_end = [draw(st.integers(0, 1)), draw(st.integers(0, 1))]
        pb, pe = resolve_pads([h, w], [kh, kw], strides, dilations, auto_pad, pads_begin, pads_end)
        oh = _out(h, kh, strides[0], dilations[0], (pb[0], pe[0]))
        ow = _out(w, kw, strides[1], dilations[1], (pb[1], pe[1]))
        b = CaseBuilder(draw_seed(draw))
        data = b.param("data", b.uniform((n, c, h, w), et, -2, 2))
        offsets = b.param("offsets", b.uniform((n, dgroup * 2 * kh * kw, oh, ow), et, -2, 2))
        filters = b.param("filters", b.uniform((group * draw(st.integers(1, 2)), c // group, kh, kw), et, -1, 1))
        mask, pad = None, False
        if version == 8:
            pad = draw(st.booleans())
            if draw(st.booleans()):
                mask = b.param("mask", b.uniform((n, dgroup * kh * kw, oh, ow), et, 0, 1))
        if auto_pad != "explicit":
            pads_begin, pads_end = [0, 0], [0, 0]
        node = opset.deformable_convolution(data, offsets, filters, strides, pads_begin, pads_end, dilations, mask,
                                            auto_pad, group, dgroup, pad, version=version)
        return b.finish("DeformableConvolution", version, node)

    build.__name__ = f"case_deformable_convolution_{version}"
    register_case("DeformableConvolution", version)(build)


_deformable(1)
_deformable(8)

# -- stimulus cases (issue #20: sizes, values, element types, dynamic shapes; see ovconform.opcases.stimulus)

def _stim_conv(op: str, label: str, data: tuple[int, ...], filters: tuple[int, ...], et: Type = Type.f32, *,
          stride: int = 1, pad: int = 1, sizes: tuple[tuple[int, ...], ...] = ()) -> Any:
    """``op`` (Convolution or GroupConvolution) over data ``(N, C, *spatial)`` with Constant
    ``filters`` (their own seed, so a dynamic case's shapes share them)."""
    def build(shape: tuple[int, ...] = data) -> OpCase:
        b = S.StimulusBuilder(S.seed_of(op, 1, label))
        weights = SR.small_values(np.random.default_rng(S.seed_of(op, 1, label + "/W")), filters, et)
        x = b.param("data", SR.small_values(b.rng, shape, et, 3), et)
        rank = len(shape) - 2
        maker = opset.convolution if op == "Convolution" else opset.group_convolution
        node = maker(x, b.const(weights, et), [stride] * rank, [pad] * rank, [pad] * rank, [1] * rank)
        return b.finish(op, 1, node, "values in [-1, 1]; integers in [-3, 3] (sums stay in i32).")

    if sizes:
        return lambda: S.dynamic_case([build(s) for s in sizes], note=f"dynamic mode: data shapes {list(sizes)}")
    return build


@S.register_stimuli("Convolution", 1)
def _stimulus_convolution() -> Iterable[S.Stimulus]:
    op = "Convolution"
    for c in S.REMAINDERS:  # input channels: the reduction's channel blocks
        yield S.Stimulus(op, 1, f"c{c}-2d", "remainder", "ordinary", Type.f32,
                       _stim_conv(op, f"c{c}-2d", (1, c, 9, 9), (8, c, 3, 3)), S.remainder_depth(c))
    yield S.Stimulus(op, 1, "w65-2d", "remainder", "ordinary", Type.f32,
                   _stim_conv(op, "w65-2d", (1, 4, 5, 65), (17, 4, 3, 3)))
    yield S.Stimulus(op, 1, "c33-3d", "remainder", "ordinary", Type.f32,
                   _stim_conv(op, "c33-3d", (1, 33, 5, 5, 5), (4, 33, 3, 3, 3)))
    yield S.Stimulus(op, 1, "c17-1d", "remainder", "ordinary", Type.f32,
                     _stim_conv(op, "c17-1d", (2, 17, 65), (9, 17, 3)))
    yield S.Stimulus(op, 1, "c256-2d", "large", "long-reduction", Type.f32,
                   _stim_conv(op, "c256-2d", (1, 256, 14, 14), (8, 256, 3, 3)))
    yield S.Stimulus(op, 1, "hw56-2d", "large", "ordinary", Type.f32,
                   _stim_conv(op, "hw56-2d", (1, 24, S.LARGE_SPATIAL, S.LARGE_SPATIAL), (16, 24, 3, 3)))
    yield S.Stimulus(op, 1, "1x1-c256", "large", "ordinary", Type.f32,
                   _stim_conv(op, "1x1-c256", (1, 256, 7, 7), (65, 256, 1, 1), pad=0))
    yield S.Stimulus(op, 1, "stride2-hw57", "large", "ordinary", Type.f32,
                   _stim_conv(op, "stride2-hw57", (1, 16, 57, 57), (8, 16, 3, 3), stride=2), Depth.EXHAUSTIVE)
    for et in (Type.f16, Type.bf16, Type.i32, Type.f64, Type.i64, Type.i16):
        depth = Depth.STANDARD if et in (Type.f16, Type.bf16, Type.i32) else Depth.EXHAUSTIVE
        yield S.Stimulus(op, 1, f"{et.name}-c17-2d", "remainder", "ordinary", et,
                       _stim_conv(op, f"{et.name}-c17-2d", (1, 17, 9, 9), (8, 17, 3, 3), et), depth)
    yield S.Stimulus(op, 1, "dynamic", "remainder", "ordinary", Type.f32,
                   _stim_conv(op, "dynamic", (1, 17, 5, 5), (8, 17, 3, 3),
                         sizes=((1, 17, 5, 5), (2, 17, 9, 9), (3, 17, 13, 13))), dynamic=True)


@S.register_stimuli("GroupConvolution", 1)
def _stimulus_group_convolution() -> Iterable[S.Stimulus]:
    op = "GroupConvolution"
    yield S.Stimulus(op, 1, "dw-c33-2d", "remainder", "ordinary", Type.f32,
                   _stim_conv(op, "dw-c33-2d", (1, 33, 9, 9), (33, 1, 1, 3, 3)))
    yield S.Stimulus(op, 1, "g4-c68-2d", "remainder", "ordinary", Type.f32,
                   _stim_conv(op, "g4-c68-2d", (1, 68, 9, 9), (4, 8, 17, 3, 3)))
    yield S.Stimulus(op, 1, "g2-c34-3d", "remainder", "ordinary", Type.f32,
                   _stim_conv(op, "g2-c34-3d", (1, 34, 5, 5, 5), (2, 3, 17, 3, 3, 3)))
    yield S.Stimulus(op, 1, "dw-c256-hw28", "large", "ordinary", Type.f32,
                   _stim_conv(op, "dw-c256-hw28", (1, 256, 28, 28), (256, 1, 1, 3, 3)))
    yield S.Stimulus(op, 1, "g2-c512-hw7", "large", "long-reduction", Type.f32,
                   _stim_conv(op, "g2-c512-hw7", (1, 512, 7, 7), (2, 4, 256, 3, 3)), Depth.EXHAUSTIVE)
    for et in (Type.f16, Type.bf16, Type.i32, Type.f64):
        depth = Depth.STANDARD if et in (Type.f16, Type.i32) else Depth.EXHAUSTIVE
        yield S.Stimulus(op, 1, f"{et.name}-dw-c33-2d", "remainder", "ordinary", et,
                       _stim_conv(op, f"{et.name}-dw-c33-2d", (1, 33, 9, 9), (33, 1, 1, 3, 3), et), depth)
    yield S.Stimulus(op, 1, "dynamic", "remainder", "ordinary", Type.f32,
                   _stim_conv(op, "dynamic", (1, 34, 5, 5), (2, 4, 17, 3, 3),
                         sizes=((1, 34, 5, 5), (2, 34, 9, 9), (3, 34, 13, 13))), dynamic=True)


# -- BinaryConvolution-1 -----------------------------------------------------------------------------------------
# Data [N, C, H, W] of f32 (mostly) or f16 holding 0 and 1 (C 1..20: whole and partial bytes of filter bits per
# output channel), u1 filters [C_OUT, C, KH, KW] as a Constant (KH, KW 1..3), Convolution's windows (every
# auto_pad, strides, dilations, pads 0..2) and pad_value 0 or 1 (the two values a binary tap can match).

@register_case("BinaryConvolution", 1)
def _binary_convolution(draw: Draw[Any]) -> OpCase:
    et = draw(st.sampled_from((Type.f32, Type.f32, Type.f16)))
    w = draw_window(draw, 2)
    channels = draw(st.sampled_from((1, 3, 8, 9, 16, 20)))
    b = CaseBuilder(draw_seed(draw))
    data = b.param("data", b.integers((draw(st.integers(1, 2)), channels, *w.spatial), et, 0, 1))
    bits = b.integers((draw(st.integers(1, 4)), channels, *w.kernel), Type.u8, 0, 1)
    filters = opset.constant(bits, Type.u1)
    node = opset.binary_convolution(data, filters, w.strides, w.pads_begin, w.pads_end, w.dilations,
                                    "xnor-popcount", float(draw(st.sampled_from((0.0, 1.0)))), w.auto_pad)
    return b.finish("BinaryConvolution", 1, node, "data bits as 0/1 values, filter bits as u1.")
