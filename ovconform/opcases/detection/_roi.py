"""Case strategies of ROIAlign-3/9 and ROIAlignRotated-15.

Feature maps [N, C, H, W] (N 1..2, C 1..3, H and W 2..6) of f32 or f16 in [-4, 4]; 1..4 ROIs
and i32/i64 batch indices in [0, N), all Parameters. ROI corners are multiples of 1/4 that reach
up to a pixel outside the map, ``spatial_scale`` is 0.5, 1 or 2: the sampling arithmetic is then
exact in f32, so the adaptive sample count (``ceil`` of a bin size, sampling_ratio 0) cannot
round differently on two devices. ROIAlign corners satisfy ``x1 <= x2`` and ``y1 <= y2`` (an
inverted box has a negative size, for which the spec defines no samples); with the adaptive
sampling ratio (0) and a mode other than asymmetric, an empty box side (``x1 == x2``) is widened by
1/4: its ``ceil(roi_width / pooled_w)`` is 0 samples, whose average or maximum the spec leaves
undefined (OpenVINO CPU gives NaN). Rotated boxes have positive sizes and any angle in [-pi, pi].

ROIPooling-2 and PSROIPooling-1: batch ids in range; PSROIPooling ROIs inside the map (the reference
code leaves negative positions undefined), normalized ([0, 1]) ROIs for the bilinear modes.

DeformablePSROIPooling-1: feature maps [N, output_dim * group_size², H, W] (N 1..2, output_dim and
group_size 1..3, H and W 2..6) of f32 or f16 in [-2, 2]; 1..3 ROIs with batch ids in [0, N) and
corners on a quarter grid that avoids .5 (where rounding halves is a tie) reaching past the map;
spatial_scale 0.25, 0.5 or 1; 1..3 sub-bins per axis; optional offsets in [-1, 1] for 1..3
classes dividing output_dim, with part_size 1..3 and trans_std in [3/64, 1/2] (multiples of
1/64). Every input is a Parameter.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st

from ovconform import opset
from ovconform.ir import Type
from ovconform.opcases import OpCase, register_case
from ovconform.opcases._draw import FLOATS, CaseBuilder, Draw, draw_seed
from ovconform.opset._detection._roi import ALIGNED_MODES

SCALES = (0.5, 1.0, 2.0)


def _maps(draw: Draw[Any], b: CaseBuilder) -> tuple[Any, Type, tuple[int, ...], float]:
    et = draw(st.sampled_from(FLOATS))
    shape = (draw(st.integers(1, 2)), draw(st.integers(1, 3)), draw(st.integers(2, 6)), draw(st.integers(2, 6)))
    scale = draw(st.sampled_from(SCALES))
    return b.param("data", b.uniform(shape, et, -4, 4)), et, shape, scale


def _indices(draw: Draw[Any], b: CaseBuilder, n: int, count: int) -> Any:
    it = draw(st.sampled_from((Type.i32, Type.i64)))
    return b.param("batch_indices", b.integers((count,), it, 0, n - 1))


def _quarters(b: CaseBuilder, shape: tuple[int, ...], low: float, high: float) -> np.ndarray:
    return b.rng.integers(int(low * 4), int(high * 4) + 1, shape) / 4


def _corners(b: CaseBuilder, count: int, shape: tuple[int, ...], scale: float) -> np.ndarray:
    h, w = shape[2] / scale, shape[3] / scale
    x = np.sort(_quarters(b, (count, 2), -1, w + 1), axis=1)
    y = np.sort(_quarters(b, (count, 2), -1, h + 1), axis=1)
    return np.stack([x[:, 0], y[:, 0], x[:, 1], y[:, 1]], axis=1)


def _widen_empty(corners: np.ndarray) -> np.ndarray:
    """``corners`` with every empty side (``x1 == x2`` or ``y1 == y2``) made 1/4 long."""
    out = corners.copy()
    for lo, hi in ((0, 2), (1, 3)):
        out[:, hi] = np.where(out[:, hi] == out[:, lo], out[:, lo] + 0.25, out[:, hi])
    return out


def _roi_align(version: int) -> None:
    def build(draw: Draw[Any]) -> OpCase:
        b = CaseBuilder(draw_seed(draw))
        data, et, shape, scale = _maps(draw, b)
        count = draw(st.integers(1, 4))
        corners = _corners(b, count, shape, scale)
        it = draw(st.sampled_from((Type.i32, Type.i64)))
        batches = b.integers((count,), it, 0, shape[0] - 1)
        pooled = draw(st.integers(1, 3)), draw(st.integers(1, 3))
        ratio, mode = draw(st.integers(0, 3)), draw(st.sampled_from(("avg", "max")))
        aligned = draw(st.sampled_from(ALIGNED_MODES)) if version == 9 else "asymmetric"
        if ratio == 0 and aligned != "asymmetric":
            corners = _widen_empty(corners)  # no bin of 0 samples (asymmetric boxes are at least 1 x 1)
        rois = b.param("rois", corners.astype(et.to_dtype()))
        idx = b.param("batch_indices", batches)
        node = opset.roi_align(data, rois, idx, *pooled, ratio, scale, mode, aligned, version=version)
        return b.finish("ROIAlign", version, node)

    build.__name__ = f"case_roi_align_{version}"
    register_case("ROIAlign", version)(build)


_roi_align(3)
_roi_align(9)


@register_case("ROIAlignRotated", 15)
def case_roi_align_rotated(draw: Draw[Any]) -> OpCase:
    b = CaseBuilder(draw_seed(draw))
    data, et, shape, scale = _maps(draw, b)
    count = draw(st.integers(1, 4))
    h, w = shape[2] / scale, shape[3] / scale
    centre = np.stack([_quarters(b, (count,), 0, w), _quarters(b, (count,), 0, h)], axis=1)
    size = _quarters(b, (count, 2), 0.5, max(h, w))
    angle = b.rng.uniform(-np.pi, np.pi, (count, 1))
    rois = b.param("rois", np.concatenate([centre, size, angle], axis=1).astype(et.to_dtype()))
    idx = _indices(draw, b, shape[0], count)
    pooled = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    node = opset.roi_align_rotated(data, rois, idx, *pooled, draw(st.integers(0, 3)), scale, draw(st.booleans()))
    return b.finish("ROIAlignRotated", 15, node)


def _boxes(b: CaseBuilder, count: int, batches: int, low: float, high: float, et: Type) -> np.ndarray:
    corners = b.rng.uniform(low, high, (count, 2, 2))
    corners.sort(axis=1)  # x_1 <= x_2, y_1 <= y_2
    ids = b.rng.integers(0, batches, (count, 1))
    return np.concatenate([ids, corners[:, 0], corners[:, 1]], axis=1).astype(et.to_dtype())


@register_case("ROIPooling", 2)
def case_roi_pooling(draw: Draw[Any]) -> OpCase:
    et = draw(st.sampled_from(FLOATS))
    method = draw(st.sampled_from(("max", "bilinear")))
    n = draw(st.integers(1, 2))
    shape = (n, draw(st.integers(1, 3)), draw(st.integers(1, 6)), draw(st.integers(1, 6)))
    pooled = [draw(st.integers(1, 3)), draw(st.integers(1, 3))]
    scale = draw(st.sampled_from((1.0, 0.5, 0.25))) if method == "max" else 1.0
    b = CaseBuilder(draw_seed(draw))
    maps = b.param("feature_maps", b.uniform(shape, et, -10, 10))
    limit = (max(shape[2:]) + 1) / scale if method == "max" else 1.0
    rois = b.param("rois", _boxes(b, draw(st.integers(1, 3)), n, -0.1 * limit, limit, et))
    return b.finish("ROIPooling", 2, opset.roi_pooling(maps, rois, pooled, scale, method))


@register_case("PSROIPooling", 1)
def case_psroi_pooling(draw: Draw[Any]) -> OpCase:
    et = draw(st.sampled_from(FLOATS))
    mode = draw(st.sampled_from(("average", "bilinear")))
    dim, group = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    bins = (draw(st.integers(1, 2)), draw(st.integers(1, 2))) if mode == "bilinear" else (1, 1)
    per = group * group if mode == "average" else bins[0] * bins[1]
    n = draw(st.integers(1, 2))
    shape = (n, dim * per, draw(st.integers(1, 6)), draw(st.integers(1, 6)))
    scale = draw(st.sampled_from((1.0, 0.5))) if mode == "average" else 1.0
    b = CaseBuilder(draw_seed(draw))
    maps = b.param("feature_maps", b.uniform(shape, et, -10, 10))
    high = (min(shape[2:]) - 1) / scale if mode == "average" else 1.0
    rois = b.param("rois", _boxes(b, draw(st.integers(1, 3)), n, 0.0, high, et))
    node = opset.psroi_pooling(maps, rois, dim, group, scale, bins[1], bins[0], mode)
    return b.finish("PSROIPooling", 1, node)


@register_case("DeformablePSROIPooling", 1)
def case_deformable_psroi_pooling(draw: Draw[Any]) -> OpCase:
    et = draw(st.sampled_from(FLOATS))
    dim, group = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    n, h, w = draw(st.integers(1, 2)), draw(st.integers(2, 6)), draw(st.integers(2, 6))
    count, scale = draw(st.integers(1, 3)), draw(st.sampled_from((0.25, 0.5, 1.0)))
    bins_x, bins_y, part = draw(st.integers(1, 3)), draw(st.integers(1, 3)), draw(st.integers(1, 3))
    classes = draw(st.sampled_from([c for c in (1, 2, 3) if dim % c == 0]))
    b = CaseBuilder(draw_seed(draw))
    data = b.param("data", b.uniform((n, dim * group * group, h, w), et, -2, 2))
    quarters = b.rng.choice(np.array([0.0, 0.25, 0.75]), (count, 4))
    xs = np.sort(b.rng.integers(0, int(w / scale) + 2, (count, 2)) + quarters[:, :2], axis=1)
    ys = np.sort(b.rng.integers(0, int(h / scale) + 2, (count, 2)) + quarters[:, 2:], axis=1)
    ids = b.rng.integers(0, n, count)
    rois = b.param("rois", np.stack([ids, xs[:, 0], ys[:, 0], xs[:, 1], ys[:, 1]], axis=1).astype(et.to_dtype()))
    offsets = None
    if draw(st.integers(0, 3)) > 0:
        offsets = b.param("offsets", b.uniform((count, 2 * classes, part, part), et, -1, 1))
    trans = draw(st.integers(3, 32)) / 64  # exact in f32, as OpenVINO stores the attribute
    node = opset.deformable_psroi_pooling(data, rois, dim, scale, group, "bilinear_deformable", bins_x, bins_y, trans,
                                          part, offsets)
    return b.finish("DeformablePSROIPooling", 1, node)
