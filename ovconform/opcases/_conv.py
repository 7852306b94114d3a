"""Case strategies for Convolution-1 and GroupConvolution-1: 1D/2D/3D spatial, strides 1..3,
dilations 1..2, every auto_pad (same_*/valid cases also carry non-zero stored pads, which must be
ignored), filters as a Constant or a Parameter, f32/f16/i32."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from ovconform import opset
from ovconform.ir import Type
from ovconform.opcases import OpCase, register_case
from ovconform.opcases._draw import FLOATS, CaseBuilder, Draw, draw_seed
from ovconform.opset._window import AUTO_PAD, dilated

TYPES = (*FLOATS, Type.i32)
MAX_SIDE = {1: 12, 2: 7, 3: 4}


@dataclass
class Window:
    """Drawn sliding-window attributes and a data spatial shape they fit."""

    kernel: list[int]
    strides: list[int]
    dilations: list[int]
    pads_begin: list[int]
    pads_end: list[int]
    auto_pad: str
    spatial: list[int]


def draw_window(draw: Draw[Any], n: int, max_kernel: int = 3, dilate: bool = True,
                pads_below_kernel: bool = False) -> Window:
    """Window attributes for ``n`` spatial axes and input sizes the (padded) kernel fits in."""
    auto_pad = draw(st.sampled_from(AUTO_PAD + ("explicit",)))
    w = Window([], [], [], [], [], auto_pad, [])
    for _ in range(n):
        k, d = draw(st.integers(1, max_kernel)), draw(st.integers(1, 2)) if dilate else 1
        dk = dilated(k, d)
        pad = st.integers(0, dk - 1) if pads_below_kernel else st.integers(0, 2)
        pb, pe = draw(pad), draw(pad)
        used = 0 if auto_pad != "explicit" else pb + pe
        need = 1 if auto_pad.startswith("same") else max(1, dk - used)
        w.kernel.append(k)
        w.dilations.append(d)
        w.strides.append(draw(st.integers(1, 3)))
        w.pads_begin.append(pb)
        w.pads_end.append(pe)
        w.spatial.append(draw(st.integers(need, max(need, MAX_SIDE[n]))))
    return w


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
