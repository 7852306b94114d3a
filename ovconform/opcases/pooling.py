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
from collections.abc import Iterable
from typing import Any

import numpy as np
from hypothesis import strategies as st

from ovconform import opset
from ovconform.ir import Dimension, Type
from ovconform.opcases import OpCase, register_case
from ovconform.opcases import _stimulus_recipes as SR
from ovconform.opcases import stimulus as S
from ovconform.opcases._draw import FLOATS, CaseBuilder, Draw, Window, _ints, draw_seed, draw_window
from ovconform.opcases._draw_index import INDEX_TYPES
from ovconform.opcases.depth import Depth
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

# -- stimulus cases (issue #20: sizes, values, element types, dynamic shapes; see ovconform.opcases.stimulus)

def _stim_pool(op: str, version: int, label: str, data: tuple[int, ...], kernel: int, stride: int, pad: int,
          et: Type = Type.f32, *, kind: str = "ordinary", sizes: tuple[tuple[int, ...], ...] = ()) -> Any:
    def build(shape: tuple[int, ...] = data) -> OpCase:
        b = S.StimulusBuilder(S.seed_of(op, version, label))
        rank = len(shape) - 2
        note = "values are all different: max and its index are unique."
        if op == "MaxPool":
            values = SR.distinct(b.rng, shape, et)
            if kind == "special":  # one NaN in some windows (windows do not overlap): the max is NaN
                v64 = values.astype(np.float64)
                flat = v64.reshape(-1)
                flat[b.rng.choice(flat.size, size=max(1, flat.size // (4 * kernel ** rank)), replace=False)] = np.nan
                values = S.cast(v64, et)
                note = ("NaN propagates through max (IEEE 754-2019 maximum): a window with its one NaN gives NaN "
                        "and the NaN's index; OpenVINO CPU drops NaN (a recorded deviation).")
            elif kind == "int-boundary":
                values = S.with_boundaries(b.rng, values, et, highest=False, fraction=0.9)
                note = "mostly the type's minimum: the -inf padding must never win."
            elif kind == "-inf":
                v64 = values.astype(np.float64)
                v64.reshape(-1)[b.rng.choice(v64.size, size=v64.size // 3, replace=False)] = -np.inf
                values = S.cast(v64, et)
                note = "a third of the values are -inf (a window of -inf and padding gives -inf)."
        else:
            values = S.cast(b.rng.uniform(-4, 4, shape), et)
            note = "floating-point inputs only: integer averages round unspecified."
            if kind == "special":
                values = S.with_specials(b.rng, b.rng.uniform(-4, 4, shape), et, ("nan", "-0"), fraction=0.02)
                note = "NaN propagates through the window's sum."
        x = b.param("data", values, et)
        k, s, p = [kernel] * rank, [stride] * rank, [pad] * rank
        if op == "MaxPool":
            if version == 1:
                node = opset.max_pool(x, s, [1] * rank, p, p, k, "floor", "explicit", version=1)
            else:
                node = opset.max_pool(x, s, [1] * rank, p, p, k, "floor", "explicit", Type.i64, 0, version=version)
        else:
            node = opset.avg_pool(x, s, p, p, k, True, "floor", "explicit", [1] * rank if version == 16 else None,
                                  version=version)
        return b.finish(op, version, node, note)

    if sizes:
        return lambda: S.dynamic_case([build(sz) for sz in sizes], note=f"dynamic mode: data shapes {list(sizes)}")
    return build


def _stimulus_pool(op: str, version: int) -> None:
    def recipe() -> Iterable[S.Stimulus]:
        yield S.Stimulus(op, version, "c17-2d", "remainder", "ordinary", Type.f32,
                       _stim_pool(op, version, "c17-2d", (1, 17, 9, 9), 3, 2, 1))
        yield S.Stimulus(op, version, "w65-2d", "remainder", "ordinary", Type.f32,
                       _stim_pool(op, version, "w65-2d", (1, 3, 7, 65), 2, 1, 0))
        yield S.Stimulus(op, version, "c9-3d", "remainder", "ordinary", Type.f32,
                       _stim_pool(op, version, "c9-3d", (1, 9, 6, 6, 6), 2, 2, 0))
        yield S.Stimulus(op, version, "w129-1d", "remainder", "ordinary", Type.f32,
                       _stim_pool(op, version, "w129-1d", (2, 5, 129), 3, 1, 1), Depth.EXHAUSTIVE)
        yield S.Stimulus(op, version, "hw56-2d", "large", "ordinary", Type.f32,
                       _stim_pool(op, version, "hw56-2d", (1, 32, S.LARGE_SPATIAL, S.LARGE_SPATIAL), 3, 2, 1))
        if op == "AvgPool":
            yield S.Stimulus(op, version, "k8x8", "remainder", "long-reduction", Type.f32,
                           _stim_pool(op, version, "k8x8", (1, 4, 32, 32), 8, 8, 0))
        yield S.Stimulus(op, version, "nan-2d", "remainder", "special", Type.f32,
                       _stim_pool(op, version, "nan-2d", (1, 5, 8, 10), 2, 2, 0, kind="special"))
        if op == "MaxPool":
            yield S.Stimulus(op, version, "nan-f16-2d", "remainder", "special", Type.f16,
                           _stim_pool(op, version, "nan-f16-2d", (1, 5, 8, 10), 2, 2, 0, Type.f16, kind="special"))
            if version == 1:  # ties between -inf values: only the output without indices
                yield S.Stimulus(op, version, "ninf-2d", "remainder", "special", Type.f32,
                               _stim_pool(op, version, "ninf-2d", (1, 5, 9, 9), 3, 2, 1, kind="-inf"))
                yield S.Stimulus(op, version, "boundary-i32", "remainder", "int-boundary", Type.i32,
                               _stim_pool(op, version, "boundary-i32", (1, 5, 9, 9), 3, 2, 1, Type.i32,
                                     kind="int-boundary"))
            types: tuple[Type, ...] = (Type.f16, Type.bf16, Type.i32, Type.u8, Type.f64, Type.i8, Type.i64)
        else:
            types = (Type.f16, Type.bf16, Type.f64)
        for et in types:
            depth = Depth.STANDARD if et in (Type.f16, Type.bf16, Type.i32) else Depth.EXHAUSTIVE
            shape = (1, 3, 7, 9) if et in (Type.u8, Type.i8) else (1, 17, 9, 9)  # 8-bit: distinct values fit
            yield S.Stimulus(op, version, f"{et.name}-c17-2d", "remainder", "ordinary", et,
                           _stim_pool(op, version, f"{et.name}-c17-2d", shape, 3, 2, 1, et), depth)
        yield S.Stimulus(op, version, "dynamic", "remainder", "ordinary", Type.f32,
                       _stim_pool(op, version, "dynamic", (1, 17, 5, 5), 3, 2, 1,
                             sizes=((1, 17, 5, 5), (2, 17, 9, 9), (3, 17, 17, 17))), dynamic=True)

    S.register_stimuli(op, version)(recipe)


_stimulus_pool("MaxPool", 1)
_stimulus_pool("MaxPool", 8)
_stimulus_pool("MaxPool", 14)
_stimulus_pool("AvgPool", 1)
_stimulus_pool("AvgPool", 14)
_stimulus_pool("AvgPool", 16)
