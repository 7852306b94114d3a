"""Case strategies of the pooling ops (OpenVINO's op-spec folder "pooling"): MaxPool-1/8/14,
AvgPool-1/14/16, AdaptiveAvgPool-8 and AdaptiveMaxPool-8.

Pads stay below the dilated kernel, and every window has at least one tap on the data: when
dilated taps would skip it the dilations become 1, and when ``ceil`` would add a window past it
the rounding becomes ``floor``. AvgPool with exclude-pad=false also rounds down when ``ceil``
would make a window reach past the end padding: OpenVINO CPU then divides by the whole kernel,
and the spec does not say what to divide by. A window wholly in the padding is left out because
OpenVINO rejects it for AvgPool with exclude-pad and the spec leaves the MaxPool value open.
MaxPool values are all different (u8 from 1 up, so no value ties with the padding), so the
indices output has no ties. AvgPool-16 always states its dilations: OpenVINO CPU crashes on the
empty default.

AdaptiveMaxPool: values are all different (no ties: the spec does not say which index a tie
gives); ``index_element_type`` is i32 (OpenVINO CPU cannot compile i64 indices for it).
"""

from __future__ import annotations

import math
from typing import Any

from hypothesis import strategies as st

from ovconform import opset
from ovconform.ir import Dimension, Type
from ovconform.opcases import OpCase, register_case
from ovconform.opcases._draw import FLOATS, CaseBuilder, Draw, Window, _ints, draw_seed, draw_window
from ovconform.opcases._draw_index import INDEX_TYPES
from ovconform.opset._window import dilated, out_dim, resolve_pads

MAX_TYPES = (*FLOATS, Type.i32, Type.u8)


def _axes(w: Window, rounding: str) -> list[tuple[int, int, int, int, int, int, int]]:
    """Per spatial axis: input size, kernel, stride, dilation, applied pads and output size."""
    pb, pe = resolve_pads(w.spatial, w.kernel, w.strides, w.dilations, w.auto_pad, w.pads_begin, w.pads_end)
    out = []
    for i, size in enumerate(w.spatial):
        k, s, d = w.kernel[i], w.strides[i], w.dilations[i]
        dk = dilated(k, d)
        n = out_dim(Dimension(size), dk, dk, s, (w.pads_begin[i], w.pads_end[i]), w.auto_pad, rounding)
        out.append((size, k, s, d, pb[i], pe[i], n.get_length()))
    return out


def _windows_see_data(w: Window, rounding: str) -> bool:
    """Every window has at least one tap on the input (none lies wholly in padding or beyond)."""
    return all(any(0 <= o * s - pb + t * d < size for t in range(k))
               for size, k, s, d, pb, _pe, n in _axes(w, rounding) for o in range(n))


def _overhangs(w: Window, rounding: str) -> bool:
    """Some window reaches past the end padding (``ceil`` rounding can make one)."""
    return any((n - 1) * s - pb + dilated(k, d) > size + pe for size, k, s, d, pb, pe, n in _axes(w, rounding))


def _draw_pool(draw: Draw[Any], dilate: bool, roundings: tuple[str, ...]) -> tuple[tuple[int, ...], Window, str]:
    n = draw(st.integers(1, 3))
    w = draw_window(draw, n, dilate=dilate, pads_below_kernel=True)
    rounding = draw(st.sampled_from(roundings))
    if not _windows_see_data(w, rounding):  # dilated taps can skip the data: undilate
        w.dilations = [1] * n
        w.pads_begin = [min(p, k - 1) for p, k in zip(w.pads_begin, w.kernel, strict=True)]
        w.pads_end = [min(p, k - 1) for p, k in zip(w.pads_end, w.kernel, strict=True)]
    if not _windows_see_data(w, rounding):  # ceil may add a window past the data: round down
        rounding = "floor"
    shape = (draw(st.integers(1, 2)), draw(st.integers(1, 3)), *w.spatial)
    return shape, w, rounding


def _max_pool(version: int) -> None:
    roundings = ("floor", "ceil", "ceil_torch") if version >= 14 else ("floor", "ceil")

    def build(draw: Draw[Any]) -> OpCase:
        shape, w, rounding = _draw_pool(draw, version > 1, roundings)
        types = MAX_TYPES if math.prod(shape) <= 255 else MAX_TYPES[:3]  # u8 holds 1..255 distinct values
        et = draw(st.sampled_from(types))
        extra: dict[str, Any] = {}
        if version > 1:
            extra = {"index_element_type": draw(st.sampled_from((Type.i32, Type.i64))),
                     "axis": draw(st.integers(-len(shape), len(shape) - 1))}
        b = CaseBuilder(draw_seed(draw))
        scale = 0.25 if et.is_real() else 1.0
        data = b.param("data", b.distinct(shape, et, scale))
        node = opset.max_pool(data, w.strides, w.dilations, w.pads_begin, w.pads_end, w.kernel, rounding,
                              w.auto_pad, version=version, **extra)
        return b.finish("MaxPool", version, node, "values are all different: max and its index are unique.")

    build.__name__ = f"case_MaxPool_{version}"
    register_case("MaxPool", version)(build)


def _avg_pool(version: int) -> None:
    roundings = ("floor", "ceil", "ceil_torch") if version >= 14 else ("floor", "ceil")

    def build(draw: Draw[Any]) -> OpCase:
        shape, w, rounding = _draw_pool(draw, version == 16, roundings)
        et = draw(st.sampled_from(FLOATS))
        exclude_pad = draw(st.booleans())
        if not exclude_pad and _overhangs(w, rounding):  # what such a window divides by is unsettled
            rounding = "floor"
        b = CaseBuilder(draw_seed(draw))
        data = b.param("data", b.uniform(shape, et, -4, 4))
        dilations = w.dilations if version == 16 else None
        node = opset.avg_pool(data, w.strides, w.pads_begin, w.pads_end, w.kernel, exclude_pad, rounding,
                              w.auto_pad, dilations, version=version)
        return b.finish("AvgPool", version, node, "floating-point inputs only: integer averages round unspecified.")

    build.__name__ = f"case_AvgPool_{version}"
    register_case("AvgPool", version)(build)


for _v in (1, 8, 14):
    _max_pool(_v)
for _v in (1, 14, 16):
    _avg_pool(_v)


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
