"""Case strategies of DeformableConvolution-1/8.

Data [N, C, H, W] (N 1..2, C a multiple of group and deformable_group, each 1..2; H, W 3..6) of
f32 or f16 in [-2, 2]; filters [group * (1..2), C / group, KH, KW] (KH, KW 1..3) in [-1, 1];
strides and dilations 1..2; explicit pads 0..1 or auto_pad valid / same_upper; offsets in [-2, 2]
(taps land inside, outside and across the border); version 8 adds a mask in [0, 1] (or none) and
``bilinear_interpolation_pad``. Every input is a Parameter.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from ovconform import opset
from ovconform.opcases import OpCase, register_case
from ovconform.opcases._draw import FLOATS, CaseBuilder, Draw, draw_seed
from ovconform.opset._window import resolve_pads


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
