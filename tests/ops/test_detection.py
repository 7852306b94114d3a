"""Tests of the detection ops (OpenVINO's op-spec folder "detection"): PriorBox-1/8,
PriorBoxClustered-1, ROIAlign-3/9, ROIAlignRotated-15, ROIPooling-2, PSROIPooling-1,
DeformablePSROIPooling-1, DetectionOutput-1/8, Proposal-1/4, RegionYolo-1 and ReorgYolo-2 — builder
inference and errors (as OpenVINO writes and infers them), REFERENCE kernel numerics against literal
values or independent loop formulas (transcriptions of the specs' pseudo-code), and the case
strategies.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
import pytest
from _op_helpers import P, evaluate_node, run, seeded
from _opcase_checks import CASE_SETTINGS, check_case_runs, check_ir_spelling, versions_of
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ovconform import opset
from ovconform.errors import InferError, ValidationError
from ovconform.ir import Model, Node, Type, get_opdef
from ovconform.ir.opset_table import OPSET_VERSIONS
from ovconform.opcases import OpCase, all_case_keys, case_strategy
from ovconform.opset._detection._prior import number_of_priors
from reference_plugin.evaluate import evaluate

PB_ATTRS = ["min_size", "max_size", "aspect_ratio", "density", "fixed_ratio", "fixed_size", "clip", "flip", "step",
            "offset", "variance", "scale_all_sizes"]
ATTRS = {("PriorBox", 1): PB_ATTRS, ("PriorBox", 8): [*PB_ATTRS, "min_max_aspect_ratios_order"],
         ("PriorBoxClustered", 1): ["width", "height", "clip", "step", "step_w", "step_h", "offset", "variance"]}
KEYS = list(ATTRS)




def hw(h: int, w: int) -> np.ndarray:
    return np.array([h, w], np.int64)


@pytest.mark.parametrize(("attrs", "priors"), [
    ({"min_size": [2.0]}, 1),
    ({"min_size": [2.0, 3.0], "max_size": [4.0]}, 3),
    ({"min_size": [2.0], "max_size": [4.0], "aspect_ratio": [2.0, 3.0], "flip": True}, 6),
    ({"min_size": [2.0], "aspect_ratio": [2.0, 0.5, 1.0], "flip": True}, 3),
    ({"min_size": [0.2, 0.3], "aspect_ratio": [2.0], "scale_all_sizes": False}, 3),
    ({"fixed_size": [4.0], "density": [2.0]}, 4),
    ({"fixed_size": [4.0, 6.0], "density": [2.0, 3.0], "aspect_ratio": [2.0]}, 26),
    ({"fixed_size": [4.0], "density": [2.0], "aspect_ratio": [2.0], "fixed_ratio": [1.0, 2.0]}, 8),
])
def test_prior_box_counts_priors_per_position(attrs: dict[str, Any], priors: int) -> None:
    for version in (1, 8):
        node = opset.prior_box(hw(3, 4), hw(32, 32), {"offset": 0.5, **attrs}, version=version)
        assert str(node.output(0).get_partial_shape()) == f"[2,{4 * 12 * priors}]"
        assert node.output(0).get_element_type() == Type.f32
        assert number_of_priors(node.attrs) == priors


def test_prior_box_versions_and_dynamic_sizes() -> None:
    attrs = {"min_size": [2.0], "offset": 0.5}
    assert (opset.prior_box(hw(2, 2), hw(8, 8), attrs).version, opset.prior_box(hw(2, 2), hw(8, 8), attrs,
                                                                                 version=1).version) == (8, 1)
    node = opset.prior_box(P([2], Type.i32), P([2], Type.i32), attrs)
    assert str(node.output(0).get_partial_shape()) == "[2,?]"
    node = opset.prior_box_clustered(P([-1], Type.i64), hw(8, 8), {"width": [1.0], "height": [1.0]})
    assert str(node.output(0).get_partial_shape()) == "[2,?]"


@pytest.mark.parametrize(("layer", "image", "attrs", "message"), [
    (hw(2, 2), hw(8, 8), {"min_size": [2.0], "variance": [0.1, 0.2]}, r"variance.*\[0.1, 0.2\].*0, 1 or 4"),
    (hw(2, 2), hw(8, 8), {"min_size": [-2.0]}, r"'min_size' is \[-2.0\]; every value must be positive"),
    (hw(2, 2), hw(8, 8), {}, "min_size is empty"),
    (hw(2, 2), hw(8, 8), {"min_size": [2.0], "max_size": [3.0, 4.0]}, "max_size .* has more values than min_size"),
    (hw(2, 2), hw(8, 8), {"min_size": [0.2], "max_size": [0.4], "scale_all_sizes": False},
     "max_size .* needs scale_all_sizes"),
    (hw(2, 2), hw(8, 8), {"fixed_size": [4.0], "density": []}, r"density \[\] must have one value per fixed_size"),
    (hw(2, 2), hw(8, 8), {"fixed_size": [4.0], "density": [2.0], "fixed_ratio": [1.0, 2.0]},
     r"fixed_ratio \[1.0, 2.0\] must have one value per aspect ratio .*: 1\)"),
    (hw(2, 2), hw(8, 8), {"min_size": [2.0], "density": [2.0]}, "need fixed_size"),
    (hw(0, 2), hw(8, 8), {"min_size": [2.0]}, r"output_size is \[0, 2\]; both values must be positive"),
    (P([2], Type.f32), hw(8, 8), {"min_size": [2.0]}, "output_size .* f32; it must be an integer"),
    (hw(2, 2), np.array([8, 8, 8], np.int64), {"min_size": [2.0]}, r"image_size \(input 1\) has shape \[3\]"),
])
def test_prior_box_errors_name_the_node_and_value(layer: Any, image: Any, attrs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValidationError, match="PriorBox-8 node.*" + message):
        opset.prior_box(layer, image, {"offset": 0.5, **attrs})


def test_prior_box_version_keyword_errors() -> None:
    with pytest.raises(ValidationError, match="PriorBox-1 has no attribute 'min_max_aspect_ratios_order'"):
        opset.prior_box(hw(2, 2), hw(8, 8), {"min_size": [1.0], "min_max_aspect_ratios_order": True}, version=1)
    with pytest.raises(ValidationError, match=r"version 3 is not one of \(1, 8\)"):
        opset.prior_box(hw(2, 2), hw(8, 8), {"min_size": [1.0]}, version=3)


# -- PriorBox: numerics ----------------------------------------------------------------------------------------

def boxes_of(node: Node, *inputs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    (out,) = evaluate_node(node, *inputs)
    assert out.dtype == np.float32 and out.shape[0] == 2
    return out[0].reshape(-1, 4), out[1].reshape(-1, 4)


def test_prior_box_orders_min_max_and_ratio_boxes() -> None:
    # one position at the image centre (4, 4) of an 8x8 image: min 2, max 8 (side 4), ratio 4 (2 wide, 1/2 high)
    attrs = {"min_size": [2.0], "max_size": [8.0], "aspect_ratio": [4.0], "offset": 0.5, "variance": [0.1]}
    square, big, wide = [0.375, 0.375, 0.625, 0.625], [0.25, 0.25, 0.75, 0.75], [0.25, 0.4375, 0.75, 0.5625]
    for version, extra, order in [(1, {}, [square, big, wide]), (8, {}, [square, big, wide]),
                                  (8, {"min_max_aspect_ratios_order": False}, [square, wide, big])]:
        boxes, var = boxes_of(opset.prior_box(hw(1, 1), hw(8, 8), {**attrs, **extra}, version=version))
        np.testing.assert_array_equal(boxes, np.array(order, np.float32))
        np.testing.assert_array_equal(var, np.full((3, 4), 0.1, np.float32))


def test_prior_box_centres_steps_clip_and_variances() -> None:
    # step 0: centres (w + 0.5) * IW / W; step 4 with offset 0.25: (0.25 + w) * 4
    attrs = {"min_size": [4.0], "offset": 0.25, "variance": [0.1, 0.2, 0.3, 0.4], "clip": True}
    boxes, var = boxes_of(opset.prior_box(hw(1, 2), hw(8, 16), attrs))
    np.testing.assert_allclose(boxes, [[2 / 16, 2 / 8, 6 / 16, 6 / 8], [10 / 16, 2 / 8, 14 / 16, 6 / 8]])
    np.testing.assert_array_equal(var, np.tile(np.float32([0.1, 0.2, 0.3, 0.4]), (2, 1)))
    boxes, var = boxes_of(opset.prior_box(hw(1, 2), hw(8, 16), {**attrs, "step": 4.0}))
    np.testing.assert_allclose(boxes, [[0, 0, 3 / 16, 3 / 8], [3 / 16, 0, 7 / 16, 3 / 8]])  # clipped at 0
    np.testing.assert_allclose(var, np.full((2, 4), [0.1, 0.2, 0.3, 0.4]))


def test_prior_box_default_variance_and_fractional_sizes() -> None:
    # without scale_all_sizes min_size 0.5 means 0.5 * IH = 4 pixels; the ratio box uses the first size
    attrs = {"min_size": [0.25, 0.5], "aspect_ratio": [4.0], "scale_all_sizes": False, "offset": 0.5}
    boxes, var = boxes_of(opset.prior_box(hw(1, 1), hw(8, 8), attrs))
    np.testing.assert_allclose(boxes, [[0.375, 0.375, 0.625, 0.625], [0.25, 0.25, 0.75, 0.75],
                                       [0.25, 0.4375, 0.75, 0.5625]])
    np.testing.assert_array_equal(var, np.full((3, 4), 0.1, np.float32))


def test_prior_box_fixed_size_with_density_shifts_boxes() -> None:
    # fixed size 4, density 2 around the centre (4, 4): shift 2, centres 3 and 5, half side 2; clipped
    boxes, _ = boxes_of(opset.prior_box(hw(1, 1), hw(8, 8), {"fixed_size": [4.0], "density": [2.0], "offset": 0.5}))
    np.testing.assert_allclose(boxes, [[1 / 8, 1 / 8, 5 / 8, 5 / 8], [3 / 8, 1 / 8, 7 / 8, 5 / 8],
                                       [1 / 8, 3 / 8, 5 / 8, 7 / 8], [3 / 8, 3 / 8, 7 / 8, 7 / 8]])
    attrs = {"fixed_size": [8.0], "density": [1.0], "fixed_ratio": [4.0], "offset": 0.5}
    boxes, _ = boxes_of(opset.prior_box(hw(1, 1), hw(8, 8), attrs))
    np.testing.assert_allclose(boxes, [[0, 0.25, 1, 0.75]])  # 16 wide (clipped), 4 high


def test_prior_box_with_sizes_given_at_run_time() -> None:
    node = opset.prior_box(P([2], Type.i32), P([2], Type.i32), {"min_size": [2.0], "offset": 0.5})
    boxes, _ = boxes_of(node, np.array([1, 2], np.int32), np.array([4, 8], np.int32))
    np.testing.assert_allclose(boxes, [[1 / 8, 0.25, 3 / 8, 0.75], [5 / 8, 0.25, 7 / 8, 0.75]])
    with pytest.raises(InferError, match=r"PriorBox-8 node .*output_size \[0, 2\] .* must be positive"):
        evaluate_node(node, np.array([0, 2], np.int32), np.array([4, 8], np.int32))


# -- PriorBoxClustered ------------------------------------------------------------------------------------------

def test_prior_box_clustered_boxes_steps_and_aliases() -> None:
    attrs = {"widths": [2.0, 8.0], "heights": [4.0, 2.0], "clip": False, "variance": [0.5], "offset": 0.5}
    node = opset.prior_box_clustered(hw(1, 1), hw(8, 8), attrs)
    assert node.attrs["width"] == [2.0, 8.0] and str(node.output(0).get_partial_shape()) == "[2,8]"
    boxes, var = boxes_of(node)
    np.testing.assert_allclose(boxes, [[3 / 8, 2 / 8, 5 / 8, 6 / 8], [0, 3 / 8, 1, 5 / 8]])
    np.testing.assert_array_equal(var, np.full((2, 4), 0.5, np.float32))
    # step_w / step_h apart; step alone; clip
    boxes, _ = boxes_of(opset.prior_box_clustered(hw(1, 2), hw(8, 8), {"width": [2.0], "height": [2.0],
                                                                      "step_w": 4.0, "step_h": 2.0, "offset": 0.5}))
    np.testing.assert_allclose(boxes, [[0.125, 0, 0.375, 0.25], [0.625, 0, 0.875, 0.25]])
    boxes, _ = boxes_of(opset.prior_box_clustered(hw(1, 1), hw(8, 8), {"width": [4.0], "height": [4.0], "step": 2.0,
                                                                      "offset": 0.0, "clip": False}))
    np.testing.assert_allclose(boxes, [[-0.25, -0.25, 0.25, 0.25]])


@pytest.mark.parametrize(("attrs", "message"), [
    ({"width": [1.0, 2.0], "height": [1.0]}, "width .* and height .* must have the same number of values"),
    ({"width": [0.0], "height": [1.0]}, r"'width' is \[0.0\]; every value must be positive"),
    ({"width": [1.0], "height": [1.0], "variance": [1.0, 2.0]}, "0, 1 or 4 values"),
    ({"width": [1.0], "height": [1.0], "step_w": -1.0}, "'step_w' is -1.0; it must not be negative"),
])
def test_prior_box_clustered_errors(attrs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValidationError, match="PriorBoxClustered-1 node.*" + message):
        opset.prior_box_clustered(hw(2, 2), hw(8, 8), attrs)


@pytest.mark.parametrize("key", KEYS)
def test_drawn_cases_evaluate(key: tuple[str, int]) -> None:
    @seeded(15)
    @given(case_strategy(*key))
    def check(case: OpCase) -> None:
        params = case.model.get_parameters()
        outs = evaluate(case.model, [case.inputs[p.friendly_name] for p in params])
        assert all(o.dtype == np.float32 and np.isfinite(o).all() for o in outs)

    check()


# -- ROIAlign-3/9, ROIAlignRotated-15 -------------------------------------------------------------------------------

ROI_ATTRS = ["pooled_h", "pooled_w", "sampling_ratio", "spatial_scale"]
ROI_KEYS = {("ROIAlign", 3): [*ROI_ATTRS, "mode"], ("ROIAlign", 9): [*ROI_ATTRS, "mode", "aligned_mode"],
            ("ROIAlignRotated", 15): [*ROI_ATTRS, "clockwise_mode"]}


@pytest.mark.parametrize("key", list(ROI_KEYS))
def test_roi_attributes_follow_openvino(key: tuple[str, int]) -> None:
    assert [a.name for a in get_opdef(*key).attrs] == ROI_KEYS[key]


def naive_sample(fmap: np.ndarray, y: float, x: float) -> np.ndarray:
    """The spec's bilinear sample of one point (0 outside [-1, H] x [-1, W])."""
    _, h, w = fmap.shape
    if x < -1 or x > w or y < -1 or y > h:
        return np.zeros(fmap.shape[0])
    y, x = max(y, 0.0), max(x, 0.0)
    y0, x0 = int(y), int(x)
    if y0 >= h - 1:
        y0 = y1 = h - 1
        y = float(y0)
    else:
        y1 = y0 + 1
    if x0 >= w - 1:
        x0 = x1 = w - 1
        x = float(x0)
    else:
        x1 = x0 + 1
    ly, lx = y - y0, x - x0
    return ((1 - ly) * (1 - lx) * fmap[:, y0, x0] + (1 - ly) * lx * fmap[:, y0, x1]
            + ly * (1 - lx) * fmap[:, y1, x0] + ly * lx * fmap[:, y1, x1])


def naive_region(fmap: np.ndarray, start: tuple[float, float], size: tuple[float, float], pooled: tuple[int, int],
                 ratio: int, mode: str, rotation: tuple[float, float, float, float] | None = None) -> np.ndarray:
    (x1, y1), (rw, rh), (ph, pw) = start, size, pooled
    bh, bw = rh / ph, rw / pw
    ry, rx = (ratio, ratio) if ratio else (math.ceil(bh), math.ceil(bw))
    out = np.zeros((fmap.shape[0], ph, pw))
    for i, j in itertools.product(range(ph), range(pw)):
        samples = []
        for sy, sx in itertools.product(range(ry), range(rx)):
            y, x = y1 + i * bh + (sy + 0.5) * bh / ry, x1 + j * bw + (sx + 0.5) * bw / rx
            if rotation is not None:
                cx, cy, cos, sin = rotation
                y, x = y * cos - x * sin + cy, y * sin + x * cos + cx
            samples.append(naive_sample(fmap, y, x))
        stacked = np.array(samples)
        out[:, i, j] = np.maximum(stacked.max(axis=0), 0) if mode == "max" else stacked.mean(axis=0)
    return out


def naive_roi_align(data: np.ndarray, rois: np.ndarray, idx: np.ndarray, pooled: tuple[int, int], ratio: int,
                    scale: float, mode: str, aligned: str) -> np.ndarray:
    src, dst = {"asymmetric": (0, 0), "half_pixel_for_nn": (0, -0.5), "half_pixel": (0.5, -0.5)}[aligned]
    out = []
    for box, b in zip(rois.astype(np.float64), idx, strict=True):
        x1, y1, x2, y2 = ((v + src) * scale + dst for v in box)
        w, h = x2 - x1, y2 - y1
        if aligned == "asymmetric":
            w, h = max(w, 1.0), max(h, 1.0)
        out.append(naive_region(data[b].astype(np.float64), (x1, y1), (w, h), pooled, ratio, mode))
    return np.array(out)


@seeded(15)
@given(st.integers(0, 2**32 - 1), st.sampled_from(["avg", "max"]),
       st.sampled_from(["asymmetric", "half_pixel_for_nn", "half_pixel"]), st.integers(0, 3),
       st.sampled_from([0.5, 1.0, 1.5]), st.integers(1, 3), st.integers(1, 3))
def test_roi_align_matches_a_naive_loop(seed: int, mode: str, aligned: str, ratio: int, scale: float,
                                        ph: int, pw: int) -> None:
    rng = np.random.default_rng(seed)
    data = rng.uniform(-3, 3, (2, 2, 5, 6)).astype(np.float32)
    xy = np.sort(rng.uniform(-1.5, 7, (3, 2, 2)), axis=2)
    rois = np.stack([xy[:, 0, 0], xy[:, 1, 0], xy[:, 0, 1], xy[:, 1, 1]], axis=1).astype(np.float32)
    idx = np.array([1, 0, 1], np.int32)
    node = opset.roi_align(P([2, 2, 5, 6]), P([3, 4]), P([3], Type.i32), ph, pw, ratio, scale, mode, aligned)
    assert str(node.output(0).get_partial_shape()) == f"[3,2,{ph},{pw}]"
    (got,) = evaluate_node(node, data, rois, idx)
    want = naive_roi_align(data, rois, idx, (ph, pw), ratio, scale, mode, aligned)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_roi_align_literal_values() -> None:
    # a map whose value is its x coordinate: every bin averages its sample x positions
    data = np.tile(np.arange(4, dtype=np.float32), (1, 1, 4, 1))
    rois = np.array([[0, 0, 2, 2]], np.float32)
    node = opset.roi_align(P([1, 1, 4, 4]), P([1, 4]), P([1], Type.i64), 1, 2, 2, 1.0, "avg", version=3)
    (got,) = evaluate_node(node, data, rois, np.array([0], np.int64))
    np.testing.assert_allclose(got, [[[[0.5, 1.5]]]])  # samples at x = 0.25, 0.75 | 1.25, 1.75
    for aligned, centre in [("half_pixel_for_nn", 0.5), ("half_pixel", 1.0)]:  # regions [-0.5, 1.5] and [0, 2]
        node = opset.roi_align(P([1, 1, 4, 4]), P([1, 4]), P([1], Type.i64), 1, 1, 1, 1.0, "avg", aligned)
        (got,) = evaluate_node(node, data, rois, np.array([0], np.int64))
        np.testing.assert_allclose(got, [[[[centre]]]])  # one sample at the region's centre
    negative = -np.ones((1, 1, 4, 4), np.float32)
    node = opset.roi_align(P([1, 1, 4, 4]), P([1, 4]), P([1], Type.i64), 1, 1, 2, 1.0, "max")
    (got,) = evaluate_node(node, negative, rois, np.array([0], np.int64))
    np.testing.assert_array_equal(got, [[[[0.0]]]])  # max starts from 0, as the reference does


def test_roi_align_low_precision_and_batch_errors() -> None:
    data = np.ones((1, 1, 3, 3), np.float16)
    node = opset.roi_align(P([1, 1, 3, 3], Type.f16), P([2, 4], Type.f16), P([2], Type.i32), 2, 2, 0, 1.0, "avg")
    (got,) = evaluate_node(node, data, np.array([[0, 0, 2, 2], [0, 0, 1, 1]], np.float16), np.array([0, 0], np.int32))
    assert got.dtype == np.float16 and np.allclose(got, 1)
    with pytest.raises(InferError, match=r"ROIAlign-9 node .*batch index 1 of ROI 1 is out of range; allowed \[0, 0\]"):
        evaluate_node(node, data, np.zeros((2, 4), np.float16), np.array([0, 1], np.int32))


@pytest.mark.parametrize(("make", "message"), [
    (lambda: opset.roi_align(P([1, 2, 4, 4]), P([3, 4]), P([3], Type.i32), 0, 2, 1, 1.0, "avg"),
     "'pooled_h' is 0; it must be positive"),
    (lambda: opset.roi_align(P([1, 2, 4, 4]), P([3, 4]), P([3], Type.i32), 2, 2, -1, 1.0, "avg"),
     "sampling_ratio is -1; it must be >= 0"),
    (lambda: opset.roi_align(P([1, 2, 4, 4]), P([3, 4]), P([3], Type.i32), 2, 2, 1, 0.0, "avg"),
     "spatial_scale is 0.0; it must be positive"),
    (lambda: opset.roi_align(P([1, 2, 4, 4]), P([3, 5]), P([3], Type.i32), 2, 2, 1, 1.0, "avg"),
     r"ROIs \(input 1\) have shape \[3,5\]; they must be \[num_rois, 4\]"),
    (lambda: opset.roi_align(P([1, 2, 4, 4]), P([3, 4]), P([2], Type.i32), 2, 2, 1, 1.0, "avg"),
     "the number of ROIs .* 3 and 2 disagree"),
    (lambda: opset.roi_align(P([1, 2, 4]), P([3, 4]), P([3], Type.i32), 2, 2, 1, 1.0, "avg"),
     r"feature maps \(input 0\) have shape \[1,2,4\]; they must be NCHW"),
    (lambda: opset.roi_align(P([1, 2, 4, 4], Type.i32), P([3, 4], Type.i32), P([3], Type.i32), 2, 2, 1, 1.0, "avg"),
     "element type i32; they must be floating-point"),
    (lambda: opset.roi_align(P([1, 2, 4, 4]), P([3, 4], Type.f16), P([3], Type.i32), 2, 2, 1, 1.0, "avg"),
     "ROIs .* f16; they must match the feature maps"),
    (lambda: opset.roi_align(P([1, 2, 4, 4]), P([3, 4]), P([3]), 2, 2, 1, 1.0, "avg"),
     "batch indices .* f32; they must be integers"),
    (lambda: opset.roi_align(P([1, 2, 4, 4]), P([3, 4]), P([3], Type.i32), 2, 2, 1, 1.0, "mean"),
     "mean"),
    (lambda: opset.roi_align_rotated(P([1, 2, 4, 4]), P([3, 4]), P([3], Type.i32), 2, 2, 1, 1.0, True),
     r"ROIs \(input 1\) have shape \[3,4\]; they must be \[num_rois, 5\]"),
])
def test_roi_align_errors_name_the_node(make: Any, message: str) -> None:
    with pytest.raises(ValidationError, match=r"ROIAlign(Rotated)?-\d+ node.*" + message):
        make()


def test_roi_align_versions_and_dynamic_shapes() -> None:
    node = opset.roi_align(P([-1, 3, -1, -1]), P([-1, 4]), P([5], Type.i32), 2, 3, 0, 1.0, "max", version=3)
    assert (node.version, str(node.output(0).get_partial_shape())) == (3, "[5,3,2,3]")
    assert "aligned_mode" not in node.attrs
    node = opset.roi_align(P("..."), P("..."), P("...", Type.i32), 2, 3, 0, 1.0, "avg")
    assert (node.version, str(node.output(0).get_partial_shape())) == (9, "[?,?,2,3]")
    with pytest.raises(ValidationError, match="ROIAlign-3 has no aligned_mode; got 'half_pixel'"):
        opset.roi_align(P([1, 1, 2, 2]), P([1, 4]), P([1], Type.i32), 1, 1, 0, 1.0, "avg", "half_pixel", version=3)


def test_roi_align_rotated_matches_a_naive_loop() -> None:
    rng = np.random.default_rng(7)
    data = rng.uniform(-3, 3, (2, 2, 5, 6)).astype(np.float32)
    rois = np.array([[3, 2.5, 4, 2, 0.7], [2, 3, 3, 5, -2.0], [1, 1, 2, 1.5, 0.0]], np.float32)
    idx = np.array([1, 0, 0], np.int64)
    for clockwise, ratio, scale in [(False, 2, 1.0), (True, 0, 0.5), (True, 1, 2.0)]:
        node = opset.roi_align_rotated(P([2, 2, 5, 6]), P([3, 5]), P([3], Type.i64), 2, 3, ratio, scale, clockwise)
        (got,) = evaluate_node(node, data, rois, idx)
        want = []
        for box, b in zip(rois.astype(np.float64), idx, strict=True):
            cx, cy, w, h = box[0] * scale - 0.5, box[1] * scale - 0.5, box[2] * scale, box[3] * scale
            angle = -box[4] if clockwise else box[4]
            want.append(naive_region(data[b].astype(np.float64), (-w / 2, -h / 2), (w, h), (2, 3), ratio, "avg",
                                     (cx, cy, math.cos(angle), math.sin(angle))))
        np.testing.assert_allclose(got, np.array(want), rtol=1e-5, atol=1e-5)


def test_roi_cases_exist_and_evaluate() -> None:
    assert set(ROI_KEYS) <= set(all_case_keys())
    for key in ROI_KEYS:
        @seeded(15)
        @given(case_strategy(*key))
        def check(case: OpCase) -> None:
            params = case.model.get_parameters()
            (out,) = evaluate(case.model, [case.inputs[p.friendly_name] for p in params])
            assert np.isfinite(out.astype(np.float32)).all()

        check()


def test_prior_box_step_minus_one_is_image_height_over_rows() -> None:
    # without scale_all_sizes a step of -1 means IH / H: 8 / 2 = 4 (centres at 0.5 * 4 and 1.5 * 4)
    attrs = {"min_size": [0.25], "scale_all_sizes": False, "step": -1.0, "offset": 0.5}
    boxes, _ = boxes_of(opset.prior_box(hw(2, 1), hw(8, 8), attrs))
    np.testing.assert_allclose(boxes, [[0.125, 0.125, 0.375, 0.375], [0.125, 0.625, 0.375, 0.875]])  # side 0.25 * 8


DPS_ATTRS = ["output_dim", "spatial_scale", "group_size", "mode", "spatial_bins_x", "spatial_bins_y", "trans_std",
             "part_size"]


def test_deformable_psroi_pooling_attributes_and_case() -> None:
    assert [a.name for a in get_opdef("DeformablePSROIPooling", 1).attrs] == DPS_ATTRS
    assert ("DeformablePSROIPooling", 1) in all_case_keys()


def naive_dpsroi(data: np.ndarray, rois: np.ndarray, off: np.ndarray | None, dim: int, scale: float, g: int,
                 bx: int, by: int, trans: float, part: int) -> np.ndarray:
    _, _, h, w = data.shape
    out = np.zeros((rois.shape[0], dim, g, g))
    for r, roi in enumerate(rois.astype(np.float64)):
        b = int(roi[0])
        rnd = [math.floor(abs(v) + 0.5) * (1 if v >= 0 else -1) for v in roi[1:]]
        x1, y1 = rnd[0] * scale - 0.5, rnd[1] * scale - 0.5
        x2, y2 = (rnd[2] + 1) * scale - 0.5, (rnd[3] + 1) * scale - 0.5
        rw, rh = max(x2 - x1, 0.1), max(y2 - y1, 0.1)
        bw, bh = rw / g, rh / g
        for c, i, j in itertools.product(range(dim), range(g), range(g)):
            cx, cy = x1 + j * bw, y1 + i * bh
            if off is not None:
                k = c // (dim // (off.shape[1] // 2))
                cx += off[r, 2 * k, i * part // g, j * part // g] * trans * rw
                cy += off[r, 2 * k + 1, i * part // g, j * part // g] * trans * rh
            samples = []
            for sy, sx in itertools.product(range(by), range(bx)):
                y, x = cy + sy * bh / by, cx + sx * bw / bx
                if not (-0.5 <= y <= h - 0.5 and -0.5 <= x <= w - 0.5):
                    continue
                y, x = min(max(y, 0), h - 1), min(max(x, 0), w - 1)
                img = data[b, (c * g + i) * g + j]
                t, bo, le, ri = math.floor(y), math.ceil(y), math.floor(x), math.ceil(x)
                top = img[t, le] + (img[t, ri] - img[t, le]) * (x - le)
                bottom = img[bo, le] + (img[bo, ri] - img[bo, le]) * (x - le)
                samples.append(top + (bottom - top) * (y - t))
            out[r, c, i, j] = np.mean(samples) if samples else 0.0
    return out


@seeded(20)
@given(st.integers(0, 2**32 - 1), st.integers(1, 3), st.integers(1, 3), st.integers(1, 3), st.integers(1, 3),
       st.sampled_from([0.25, 0.5, 1.0]), st.booleans())
def test_deformable_psroi_pooling_matches_a_naive_loop(seed: int, g: int, bx: int, by: int, part: int, scale: float,
                                                       with_offsets: bool) -> None:
    rng = np.random.default_rng(seed)
    dim = 2
    data = rng.uniform(-2, 2, (2, dim * g * g, 5, 6)).astype(np.float32)
    rois = np.array([[0, 1, 2, 9, 7], [1, 0.25, 0, 3.75, 12], [1, 8, 3, 30, 4]], np.float32)
    off = rng.uniform(-1, 1, (3, 4, part, part)).astype(np.float32) if with_offsets else None
    params = [P(list(data.shape)), P([3, 5])] + ([P(list(off.shape))] if off is not None else [])
    node = opset.deformable_psroi_pooling(params[0], params[1], dim, scale, g, "bilinear_deformable", bx, by, 0.25,
                                          part, params[2] if off is not None else None)
    assert str(node.output(0).get_partial_shape()) == f"[3,{dim},{g},{g}]"
    (got,) = evaluate_node(node, data, rois, *([off] if off is not None else []))
    want = naive_dpsroi(data, rois, off, dim, scale, g, bx, by, 0.25, part)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_deformable_psroi_pooling_literals_and_errors() -> None:
    data = np.full((1, 4, 4, 4), 3.0, np.float32)
    data[0, 1] = 5.0  # bin (0, 1) reads channel 1
    node = opset.deformable_psroi_pooling(P([1, 4, 4, 4]), P([2, 5]), 1, 1.0, 2)
    (got,) = evaluate_node(node, data, np.array([[0, 0, 0, 3, 3], [-1, 0, 0, 3, 3]], np.float32))
    np.testing.assert_array_equal(got[0, 0], [[3, 5], [3, 3]])
    np.testing.assert_array_equal(got[1], np.zeros((1, 2, 2)))  # a negative batch id gives zeros
    for make, message in [
        (lambda: opset.deformable_psroi_pooling(P([1, 5, 4, 4]), P([2, 5]), 1, 1.0, 2),
         r"feature maps \[1,5,4,4\] have 5 channels; they need output_dim \* group_size² = 4"),
        (lambda: opset.deformable_psroi_pooling(P([1, 4, 4, 4]), P([2, 4]), 1, 1.0, 2),
         r"ROIs \(input 1\) have shape \[2,4\]; they must be \[num_rois, 5\]"),
        (lambda: opset.deformable_psroi_pooling(P([1, 4, 4, 4]), P([2, 5]), 1, 1.0, 2, offsets=P([2, 2, 2, 2])),
         "offsets .* part_size 1"),
        (lambda: opset.deformable_psroi_pooling(P([1, 8, 4, 4]), P([2, 5]), 2, 1.0, 2, offsets=P([2, 6, 1, 1])),
         "offsets have 6 channels; they must be 2 \\* num_classes with output_dim \\(2\\) a multiple"),
        (lambda: opset.deformable_psroi_pooling(P([1, 4, 4, 4]), P([2, 5]), 1, 1.0, 2, "average"), "average"),
        (lambda: opset.deformable_psroi_pooling(P([1, 4, 4, 4]), P([2, 5]), 1, 0.0, 2), "spatial_scale is 0.0"),
    ]:
        with pytest.raises(ValidationError, match="DeformablePSROIPooling-1 node.*" + message):
            make()


def test_deformable_psroi_pooling_cases_evaluate() -> None:
    @seeded(20)
    @given(case_strategy("DeformablePSROIPooling", 1))
    def check(case: OpCase) -> None:
        params = case.model.get_parameters()
        (out,) = evaluate(case.model, [case.inputs[p.friendly_name] for p in params])
        assert np.isfinite(out.astype(np.float32)).all()

    check()


DO_ATTRS = ["background_label_id", "top_k", "variance_encoded_in_target", "keep_top_k", "code_type",
            "share_location", "nms_threshold", "confidence_threshold", "clip_after_nms", "clip_before_nms",
            "decrease_label_id", "normalized", "input_height", "input_width", "objectness_score"]
BASE = {"keep_top_k": [-1], "nms_threshold": 0.5, "normalized": True, "variance_encoded_in_target": True}
# two priors: [0, 0, 0.4, 0.4] and [0.1, 0.1, 0.5, 0.5] (IoU 0.9 / 2.3), a third far away
PRIORS = np.array([[[0, 0, 0.4, 0.4, 0.1, 0.1, 0.5, 0.5, 0.6, 0.6, 1, 1]]], np.float32)


def output_rows(node: Node, *inputs: np.ndarray) -> np.ndarray:
    params = [n for n in (node.input_value(i).node for i in range(node.get_input_size())) if n.type_name == "Parameter"]
    (out,) = evaluate(Model(node.outputs(), params), list(inputs))
    return out.reshape(-1, 7)


def detect(attrs: dict[str, Any], loc: np.ndarray, conf: np.ndarray, priors: np.ndarray = PRIORS,
           version: int = 8) -> np.ndarray:
    node = opset.detection_output(P(list(loc.shape)), P(list(conf.shape)), P(list(priors.shape)), {**BASE, **attrs},
                                  version=version)
    return output_rows(node, loc, conf, priors)


def test_attributes_and_cases() -> None:
    assert [a.name for a in get_opdef("DetectionOutput", 8).attrs] == DO_ATTRS
    assert [a.name for a in get_opdef("DetectionOutput", 1).attrs] == ["num_classes", *DO_ATTRS]
    assert {("DetectionOutput", 1), ("DetectionOutput", 8)} <= set(all_case_keys())


@pytest.mark.parametrize(("attrs", "rows"), [({"keep_top_k": [4]}, 8), ({"top_k": 2}, 12), ({}, 18)])
def test_output_rows(attrs: dict[str, Any], rows: int) -> None:
    node = opset.detection_output(P([2, 12]), P([2, 9]), P([1, 1, 12]), {**BASE, **attrs})
    assert str(node.output(0).get_partial_shape()) == f"[1,1,{rows},7]"
    node = opset.detection_output(P([2, 12]), P([2, 9]), P([2, 2, 15]), {**BASE, **attrs, "num_classes": 3,
                                                                        "normalized": False,
                                                                        "variance_encoded_in_target": False},
                                  version=1)
    assert str(node.output(0).get_partial_shape()) == f"[1,1,{rows},7]"


@pytest.mark.parametrize(("make", "message"), [
    (lambda: opset.detection_output(P([2, 12]), P([2, 9]), P([1, 1, 10]), BASE),
     r"priors \[1,1,10\]: dim 2 must be a positive multiple of the prior size 4"),
    (lambda: opset.detection_output(P([2, 12]), P([2, 10]), P([1, 1, 12]), BASE),
     r"class predictions \[2,10\]: dim 1 must be a multiple of the 3 priors"),
    (lambda: opset.detection_output(P([2, 16]), P([2, 9]), P([1, 1, 12]), BASE),
     r"box logits \(input 0\) has shape \[2,16\]; dim 1 must be 12"),
    (lambda: opset.detection_output(P([2, 12]), P([2, 9]), P([1, 2, 12]), BASE),
     r"priors \(input 2\) has shape \[1,2,12\]; dim 1 must be 1"),
    (lambda: opset.detection_output(P([2, 12]), P([3, 9]), P([1, 1, 12]), BASE), "disagree on N"),
    (lambda: opset.detection_output(P([2, 12]), P([2, 9]), P([1, 1, 12]), {**BASE, "code_type": "CORNER"}),
     "CORNER"),
    (lambda: opset.detection_output(P([2, 12]), P([2, 9]), P([1, 1, 12]), BASE, P([2, 5]), P([2, 12])),
     r"ARM confidences \(input 3\) has shape \[2,5\]; dim 1 must be 6"),
])
def test_errors_name_the_node(make: Any, message: str) -> None:
    with pytest.raises(ValidationError, match="DetectionOutput-8 node.*" + message):
        make()


def test_builder_argument_errors() -> None:
    with pytest.raises(ValidationError, match="DetectionOutput-8 has no num_classes"):
        opset.detection_output(P([2, 12]), P([2, 9]), P([1, 1, 12]), {**BASE, "num_classes": 3})
    with pytest.raises(ValidationError, match="ARM confidences and ARM box logits come together"):
        opset.detection_output(P([2, 12]), P([2, 9]), P([1, 1, 12]), BASE, P([2, 6]))


def test_caffe_nms_per_class_and_the_end_marker() -> None:
    loc = np.zeros((1, 12), np.float32)
    conf = np.array([[0.1, 0.9, 0.3, 0.1, 0.8, 0.6, 0.5, 0.2, 0.7]], np.float32)  # [prior, class]
    out = detect({}, loc, conf)
    # class 1: priors 0 (0.9) and 1 (0.8) overlap by IoU 0.39 <= 0.5: both kept, then prior 2 (0.2)
    # class 2: priors 2 (0.7), 1 (0.6), 0 (0.3); background class 0 is skipped
    want = [[0, 1, 0.9, 0, 0, 0.4, 0.4], [0, 1, 0.8, 0.1, 0.1, 0.5, 0.5], [0, 1, 0.2, 0.6, 0.6, 1, 1],
            [0, 2, 0.7, 0.6, 0.6, 1, 1], [0, 2, 0.6, 0.1, 0.1, 0.5, 0.5], [0, 2, 0.3, 0, 0, 0.4, 0.4]]
    np.testing.assert_allclose(out[:6], want, rtol=1e-6)
    assert out[6, 0] == -1 and not out[6, 1:].any() and not out[7:].any()
    out = detect({"nms_threshold": 0.3, "confidence_threshold": 0.25, "keep_top_k": [3]}, loc, conf)
    # IoU 0.39 > 0.3 now drops the second of priors 0/1; keep_top_k keeps the 3 best of 4
    np.testing.assert_allclose(out[:3, :3], [[0, 1, 0.9], [0, 2, 0.7], [0, 2, 0.6]], rtol=1e-6)
    assert out.shape == (3, 7)


def test_decoding_modes_and_label_styles() -> None:
    loc = np.array([[0.1, 0, 0, 0, 0, 0, math.log(2), 0, 0, 0, 0, 0]], np.float32)
    conf = np.array([[0.0, 0.9, 0.0, 0.8, 0.0, 0.7]], np.float32)  # 3 priors, 2 classes
    out = detect({"nms_threshold": 1.0}, loc, conf)
    np.testing.assert_allclose(out[0, 3:], [0.1, 0, 0.4, 0.4], rtol=1e-6)  # CORNER: prior + delta
    out = detect({"nms_threshold": 1.0, "code_type": "caffe.PriorBoxParameter.CENTER_SIZE"}, loc, conf)
    np.testing.assert_allclose(out[0, 3:], [0.04, 0, 0.44, 0.4], rtol=1e-5, atol=1e-7)  # centre moved by 0.1 * 0.4
    np.testing.assert_allclose(out[1, 3:], [-0.1, 0.1, 0.7, 0.5], rtol=1e-5, atol=1e-7)  # width doubled
    out = detect({"nms_threshold": 1.0, "code_type": "caffe.PriorBoxParameter.CENTER_SIZE", "clip_after_nms": True},
                 loc, conf)
    np.testing.assert_allclose(out[1, 3:], [0, 0.1, 0.7, 0.5], rtol=1e-5, atol=1e-7)
    out = detect({"nms_threshold": 1.0, "decrease_label_id": True}, loc, conf)
    np.testing.assert_allclose(out[:3, :3], [[0, 0, 0.9], [0, 0, 0.8], [0, 0, 0.7]], rtol=1e-6)  # label - 1


def test_variances_pixels_and_arm_inputs() -> None:
    priors = np.array([[[0, 0, 0, 8, 8, 0, 10, 10, 20, 20], [0.5, 0.5, 0.5, 0.5, 0, 0, 0, 0, 0, 0]]], np.float32)
    loc = np.array([[0.2, 0, 0, 0, 0, 0, 0, 0]], np.float32)
    conf = np.array([[0.0, 0.9, 0.0, 0.8]], np.float32)
    attrs = {"normalized": False, "variance_encoded_in_target": False, "input_width": 20, "input_height": 20}
    out = detect(attrs, loc, conf, priors)
    np.testing.assert_allclose(out[0, 3:], [0.1, 0, 0.4, 0.4], rtol=1e-6)  # 8 / 20 + 0.5 * 0.2
    node = opset.detection_output(P([1, 8]), P([1, 4]), P([1, 2, 10]), {**BASE, **attrs, "objectness_score": 0.5},
                                  P([1, 4]), P([1, 8]))
    out = output_rows(node, loc, conf, priors, np.array([[0, 0.9, 0, 0.1]], np.float32), np.zeros((1, 8), np.float32))
    # prior 1's objectness 0.1 < 0.5: it becomes background; prior 0 decodes through the ARM deltas (0)
    # first, and each of the two decodes divides pixel coordinates by 20 (as the reference does)
    np.testing.assert_allclose(out[0, :7], [0, 1, 0.9, 0.1, 0, 0.02, 0.02], rtol=1e-6)
    assert out[1, 0] == -1


def test_cases_evaluate() -> None:
    for version in (1, 8):
        @settings(max_examples=15, deadline=None, derandomize=True, database=None,
                  suppress_health_check=list(HealthCheck))
        @given(case_strategy("DetectionOutput", version))
        def check(case: OpCase) -> None:
            params = case.model.get_parameters()
            (out,) = evaluate(case.model, [case.inputs[p.friendly_name] for p in params])
            assert out.shape[-1] == 7

        check()


# -- Proposal-1/4 -------------------------------------------------------------------------------------------------

PR_ATTRS = ["base_size", "pre_nms_topn", "post_nms_topn", "nms_thresh", "feat_stride", "min_size", "ratio", "scale",
            "clip_before_nms", "clip_after_nms", "normalize", "box_size_scale", "box_coordinate_scale", "framework"]
PR = {"base_size": 16, "pre_nms_topn": 10, "post_nms_topn": 3, "nms_thresh": 0.7, "feat_stride": 16, "min_size": 1,
      "ratio": [1.0], "scale": [1.0], "clip_before_nms": False}


def propose(attrs: dict[str, Any], probs: np.ndarray, deltas: np.ndarray, image: np.ndarray,
            version: int = 4) -> list[np.ndarray]:
    params = [P(list(a.shape)) for a in (probs, deltas, image)]
    node = opset.proposal(*params, {**PR, **attrs}, version=version)
    return evaluate(Model(node.outputs(), params), [probs, deltas, image])


def test_proposal_attributes_shapes_and_errors() -> None:
    for version in (1, 4):
        assert [a.name for a in get_opdef("Proposal", version).attrs] == PR_ATTRS
        assert ("Proposal", version) in all_case_keys()
    node = opset.proposal(P([2, 6, 3, 4]), P([2, 12, 3, 4]), P([3]), {**PR, "ratio": [0.5, 1.0, 2.0]})
    assert [str(o.get_partial_shape()) for o in node.outputs()] == ["[6,5]", "[6]"]
    node = opset.proposal(P([-1, 2, 3, 4]), P([-1, 4, 3, 4]), P([4]), PR, version=1)
    assert [str(o.get_partial_shape()) for o in node.outputs()] == ["[?,5]"]
    for make, message in [
        (lambda: opset.proposal(P([2, 4, 3, 4]), P([2, 4, 3, 4]), P([3]), PR), "need 2 and 4 channels"),
        (lambda: opset.proposal(P([2, 2, 3, 4]), P([2, 4, 3, 5]), P([3]), PR), "disagree on dim 3"),
        (lambda: opset.proposal(P([2, 2, 3, 4]), P([2, 4, 3, 4]), P([5]), PR), r"image_shape .* \[3\] or \[4\]"),
        (lambda: opset.proposal(P([2, 2, 3, 4]), P([2, 4, 3, 4]), P([3]), {**PR, "post_nms_topn": 0}),
         "'post_nms_topn' is 0; it must be positive"),
        (lambda: opset.proposal(P([2, 2, 3, 4]), P([2, 4, 3, 4]), P([3]), {**PR, "framework": "caffe"}), "caffe"),
    ]:
        with pytest.raises(ValidationError, match="Proposal-4 node.*" + message):
            make()


def test_proposal_anchors_decode_nms_and_padding() -> None:
    from reference_plugin.ops.op_proposal import anchors
    np.testing.assert_array_equal(anchors({**PR, "ratio": [1.0, 0.5]}, False), [[0, 0, 15, 15], [-3.5, 2, 18.5, 13]])
    np.testing.assert_array_equal(anchors(PR, True), [[-8, -8, 8, 8]])
    # 1 x 2 positions, one anchor; zero deltas: Caffe boxes are the anchors with the +1 convention
    probs = np.array([[[[0.1, 0.2]], [[0.6, 0.9]]]], np.float32)
    deltas = np.zeros((1, 4, 1, 2), np.float32)
    image = np.array([64, 64, 1], np.float32)
    rois, scores = propose({}, probs, deltas, image)
    np.testing.assert_array_equal(rois, [[0, 16, 0, 32, 16], [0, 0, 0, 16, 16], [-1, 0, 0, 0, 0]])
    np.testing.assert_array_equal(scores, np.float32([0.9, 0.6, 0]))
    # the boxes touch (IoU 17/527 with the +1 convention) but survive; nms_thresh 0.01 drops the second
    rois, scores = propose({"nms_thresh": 0.01}, probs, deltas, image)
    np.testing.assert_array_equal(rois[:2], [[0, 16, 0, 32, 16], [-1, 0, 0, 0, 0]])
    (rois,) = propose({"normalize": True}, probs, deltas, image, version=1)
    np.testing.assert_allclose(rois[0], [0, 0.25, 0, 0.5, 0.25])
    # min_size 20 (x image scale 1) zeroes both scores; a dx of 0.5 moves the box by half its width
    _, scores = propose({"min_size": 20}, probs, deltas, image)
    np.testing.assert_array_equal(scores, [0, 0, 0])
    deltas[0, 0, 0, 1] = 0.5
    rois, _ = propose({}, probs, deltas, image)
    np.testing.assert_array_equal(rois[0], [0, 24, 0, 40, 16])


def test_proposal_clipping_and_tensorflow() -> None:
    probs = np.array([[[[0.1]], [[0.9]]]], np.float32)
    deltas = np.array([[[[0.0]], [[0.0]], [[math.log(4)]], [[0.0]]]], np.float32)  # 4x wider
    image = np.array([40, 48, 1], np.float32)
    rois, _ = propose({}, probs, deltas, image)
    np.testing.assert_array_equal(rois[0], [0, -24, 0, 40, 16])
    rois, _ = propose({"clip_before_nms": True}, probs, deltas, image)
    np.testing.assert_array_equal(rois[0], [0, 0, 0, 40, 16])
    rois, _ = propose({"clip_after_nms": True}, probs, deltas, image)
    np.testing.assert_array_equal(rois[0], [0, 0, 0, 40, 16])
    rois, _ = propose({"framework": "tensorflow", "scale": [6.0]}, probs, np.zeros_like(deltas), image)
    np.testing.assert_array_equal(rois[0], [0, 0, 0, 48, 40])  # the anchor clipped to the image first


def naive_reorg(x: np.ndarray, s: int) -> np.ndarray:
    """The spec's reference loop: the output buffer as [N, C, H, W], the input buffer as [N, C/s², H*s, W*s]."""
    n, c, h, w = x.shape
    flat_in, out = x.reshape(-1), np.empty(x.size, x.dtype)
    oc, oh, ow = c // (s * s), h * s, w * s
    for b, ch, i, j in itertools.product(range(n), range(c), range(h), range(w)):
        off = ch // oc
        src = ((b * oc + ch % oc) * oh + i * s + off // s) * ow + j * s + off % s
        out[((b * c + ch) * h + i) * w + j] = flat_in[src]
    return out.reshape(n, c * s * s, h // s, w // s)


@pytest.mark.parametrize(("shape", "s"), [((1, 4, 2, 2), 2), ((2, 8, 4, 6), 2), ((1, 9, 3, 6), 3), ((1, 2, 3, 3), 1)])
def test_reorg_yolo_matches_the_reference_loop(shape: tuple[int, ...], s: int) -> None:
    x = np.arange(math.prod(shape), dtype=np.float32).reshape(shape)
    out = run(lambda d: opset.reorg_yolo(d, s), x)
    np.testing.assert_array_equal(out, naive_reorg(x, s))


def test_reorg_yolo_shapes_and_errors() -> None:
    assert str(opset.reorg_yolo(P([1, 8, -1, 6]), [2]).output(0).get_partial_shape()) == "[1,32,?,3]"
    with pytest.raises(ValidationError, match="ReorgYolo-2 node .*height 5; it must be divisible by stride 2"):
        opset.reorg_yolo(P([1, 8, 5, 4]), 2)
    with pytest.raises(ValidationError, match="at least stride² = 9"):
        opset.reorg_yolo(P([1, 8, 6, 6]), 3)
    with pytest.raises(ValidationError, match="'stride' is \\[0\\]"):
        opset.reorg_yolo(P([1, 8, 6, 6]), 0)


# -- RegionYolo-1 -----------------------------------------------------------------------------------------------

def naive_region_yolo(x: np.ndarray, coords: int, classes: int, regions: int, softmax: bool) -> np.ndarray:
    out = x.astype(np.float64).copy()
    per = coords + classes + 1
    sig = lambda v: 1 / (1 + math.exp(-v))  # noqa: E731
    for b, r, i, j in itertools.product(range(x.shape[0]), range(regions), range(x.shape[2]), range(x.shape[3])):
        base = r * per
        for k in (0, 1, coords):
            out[b, base + k, i, j] = sig(x[b, base + k, i, j])
        scores = [float(x[b, base + coords + 1 + k, i, j]) for k in range(classes)]
        if softmax:
            e = [math.exp(v - max(scores)) for v in scores]
            probs = [v / sum(e) for v in e]
        else:
            probs = [sig(v) for v in scores]
        for k, p in enumerate(probs):
            out[b, base + coords + 1 + k, i, j] = p
    return out


@pytest.mark.parametrize(("coords", "classes", "num", "softmax", "mask", "axis", "end_axis", "batch", "shape"), [
    (4, 3, 2, True, [], 1, 3, 2, [2, 128]),  # 2 regions x 8 channels, 2 x 4 positions
    (2, 2, 1, True, [], 0, 3, 1, [40]),
    (4, 1, 3, True, [], 2, 3, 1, [1, 18, 8]),
    (4, 2, 9, False, [0, 4], 1, 3, 1, [1, 14, 2, 4]),  # mask: 2 regions; num does not count
])
def test_region_yolo_matches_a_naive_loop(coords: int, classes: int, num: int, softmax: bool, mask: list[int],
                                          axis: int, end_axis: int, batch: int, shape: list[int]) -> None:
    regions = num if softmax else len(mask)
    x = np.random.default_rng(4).uniform(-4, 4, (batch, regions * (coords + classes + 1), 2, 4)).astype(np.float32)
    out = run(lambda d: opset.region_yolo(d, coords, classes, num, softmax, mask, axis, end_axis), x)
    assert list(out.shape) == shape
    np.testing.assert_allclose(out.reshape(x.shape), naive_region_yolo(x, coords, classes, regions, softmax), rtol=2e-6,
                               atol=1e-7)


def test_region_yolo_errors() -> None:
    with pytest.raises(ValidationError, match="RegionYolo-1 node .*needs a floating-point type"):
        opset.region_yolo(P([1, 12, 2, 2], Type.i32), 4, 1, 2, True, [], 1, 3)
    with pytest.raises(ValidationError, match="'end_axis' 1 must not come before 'axis' 2"):
        opset.region_yolo(P([1, 12, 2, 2]), 4, 1, 2, True, [], 2, 1)
    with pytest.raises(InferError, match="13 channels; 2 regions of coords \\+ classes \\+ 1 = 6 channels need 12"):
        run(lambda d: opset.region_yolo(d, 4, 1, 2, True, [], 1, 3), np.zeros((1, 13, 2, 2), np.float32))


def naive_roi_max(maps: np.ndarray, rois: np.ndarray, ph: int, pw: int, scale: float) -> np.ndarray:
    _, c, h, w = maps.shape
    out = np.zeros((len(rois), c, ph, pw), np.float32)
    f = np.float32
    for r, (b, x1, y1, x2, y2) in enumerate(rois):
        sx, sy, ex, ey = (int(math.floor(abs(float(f(v) * f(scale))) + 0.5) * (1 if v >= 0 else -1))
                          for v in (x1, y1, x2, y2))
        bh, bw = f(max(ey - sy + 1, 1)) / f(ph), f(max(ex - sx + 1, 1)) / f(pw)
        for ch, i, j in itertools.product(range(c), range(ph), range(pw)):
            h0 = min(max(int(math.floor(f(i) * bh)) + sy, 0), h)
            h1 = min(max(int(math.ceil(f(i + 1) * bh)) + sy, 0), h)
            w0 = min(max(int(math.floor(f(j) * bw)) + sx, 0), w)
            w1 = min(max(int(math.ceil(f(j + 1) * bw)) + sx, 0), w)
            cells = [maps[int(b), ch, y, x] for y in range(h0, h1) for x in range(w0, w1)]
            out[r, ch, i, j] = max(cells) if cells else 0
    return out


@given(seed=st.integers(0, 2**31), ph=st.integers(1, 3), pw=st.integers(1, 3), scale=st.sampled_from([1.0, 0.5]))
@seeded(25)
def test_roi_pooling_max_matches_a_naive_loop(seed: int, ph: int, pw: int, scale: float) -> None:
    rng = np.random.default_rng(seed)
    maps = rng.uniform(-5, 5, (2, 2, 5, 6)).astype(np.float32)
    corners = np.sort(rng.uniform(-1, 8 / scale, (3, 2, 2)), axis=1)
    rois = np.concatenate([rng.integers(0, 2, (3, 1)), corners[:, 0], corners[:, 1]], axis=1).astype(np.float32)
    out = run(lambda m, r: opset.roi_pooling(m, r, [ph, pw], scale, "max"), maps, rois)
    np.testing.assert_array_equal(out, naive_roi_max(maps, rois, ph, pw, scale))


def test_roi_pooling_bilinear_literal() -> None:
    maps = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)  # value = 4y + x
    rois = np.array([[0, 0, 0, 1, 1], [0, 0.5, 0.5, 0.5, 0.5], [0, 0, 0, 1, 2]], np.float32)
    out = run(lambda m, r: opset.roi_pooling(m, r, [2, 3], 1.0, "bilinear"), maps, rois)
    np.testing.assert_allclose(out[0, 0], [[0, 1.5, 3], [12, 13.5, 15]])  # corners and midpoints
    np.testing.assert_allclose(out[1, 0], np.full((2, 3), 7.5))  # one point: y = x = 1.5
    assert out[2, 0, 1].tolist() == [0, 0, 0]  # y = 2 * 3 = 6 > H - 1: outside, 0


def test_roi_pooling_errors() -> None:
    with pytest.raises(ValidationError, match="ROIPooling-2 node .*ROIs .input 1. have shape \\[2,4\\]"):
        opset.roi_pooling(P([1, 1, 4, 4]), P([2, 4]), [2, 2])
    with pytest.raises(ValidationError, match="pooled_h=0"):
        opset.roi_pooling(P([1, 1, 4, 4]), P([2, 5]), [0, 2])
    with pytest.raises(ValidationError, match="method"):
        opset.roi_pooling(P([1, 1, 4, 4]), P([2, 5]), [2, 2], method="avg")
    with pytest.raises(InferError, match="ROI 0 has batch id 3.0; allowed \\[0, 0\\]"):
        run(lambda m, r: opset.roi_pooling(m, r, [1, 1]), np.zeros((1, 1, 2, 2), np.float32),
            np.array([[3, 0, 0, 1, 1]], np.float32))


# -- PSROIPooling-1 ---------------------------------------------------------------------------------------------

def naive_psroi(maps: np.ndarray, rois: np.ndarray, dim: int, g: int, scale: float, bx: int, by: int,
                mode: str) -> np.ndarray:
    """The spec's reference loop, element by element (float32 positions)."""
    f = np.float32
    _, _, h, w = maps.shape
    out = np.zeros((len(rois), dim, g, g))
    for r, box in enumerate(rois):
        b = int(box[0])
        if mode == "average":
            sw, sh = f(round(float(box[1]))) * f(scale), f(round(float(box[2]))) * f(scale)
            ew, eh = (f(round(float(box[3]))) + f(1)) * f(scale), (f(round(float(box[4]))) + f(1)) * f(scale)
            bw, bh = (ew - sw) / f(g), (eh - sh) / f(g)
            c_in = 0
            for o, i, j in itertools.product(range(dim), range(g), range(g)):
                w0, h0 = min(int(math.floor(sw + f(j) * bw)), w - 1), min(int(math.floor(sh + f(i) * bh)), h - 1)
                w1, h1 = min(int(math.ceil(sw + f(j + 1) * bw)), w), min(int(math.ceil(sh + f(i + 1) * bh)), h)
                out[r, o, i, j] = maps[b, c_in, h0:h1, w0:w1].mean()
                c_in += 1
            continue
        sw, sh, ew, eh = (f(v) * f(scale) for v in box[1:])
        bw, bh = (ew - sw) / f(bx), (eh - sh) / f(by)
        ws = bw * f(w - 1) / f(g - 1) if g > 1 else f(0)
        hs = bh * f(h - 1) / f(g - 1) if g > 1 else f(0)
        for o, i, j in itertools.product(range(dim), range(g), range(g)):
            acc = 0.0
            for sy, sx in itertools.product(range(by), range(bx)):
                x0, y0 = sw + f(sx) * bw, sh + f(sy) * bh
                px = f(j) * ws + x0 * f(w - 1) if g > 1 else (x0 + x0 + bw) * f(w - 1) / f(2)
                py = f(i) * hs + y0 * f(h - 1) if g > 1 else (y0 + y0 + bh) * f(h - 1) / f(2)
                if px < w and py < h:
                    fm = maps[b, (sy * bx + sx) * dim + o]
                    left, top = int(math.floor(px)), int(math.floor(py))
                    right, bottom = min(int(math.ceil(px)), w - 1), min(int(math.ceil(py)), h - 1)
                    upper = fm[top, left] + (fm[top, right] - fm[top, left]) * (float(px) - left)
                    lower = fm[bottom, left] + (fm[bottom, right] - fm[bottom, left]) * (float(px) - left)
                    acc += upper + (lower - upper) * (float(py) - top)
            out[r, o, i, j] = acc / (bx * by)
    return out


@given(seed=st.integers(0, 2**31), dim=st.integers(1, 2), g=st.integers(1, 3), bins=st.sampled_from([(1, 1), (2, 1),
                                                                                                     (2, 2)]),
       mode=st.sampled_from(["average", "bilinear"]))
@seeded(25)
def test_psroi_pooling_matches_the_reference_loop(seed: int, dim: int, g: int, bins: tuple[int, int],
                                                  mode: str) -> None:
    rng = np.random.default_rng(seed)
    bx, by = bins if mode == "bilinear" else (1, 1)
    per = g * g if mode == "average" else bx * by
    maps = rng.uniform(-5, 5, (2, dim * per, 5, 6)).astype(np.float32)
    high = 4.0 if mode == "average" else 1.0
    corners = np.sort(rng.uniform(0, high, (3, 2, 2)), axis=1)
    rois = np.concatenate([rng.integers(0, 2, (3, 1)), corners[:, 0], corners[:, 1]], axis=1).astype(np.float32)
    out = run(lambda m, r: opset.psroi_pooling(m, r, dim, g, 1.0, bx, by, mode), maps, rois)
    np.testing.assert_allclose(out, naive_psroi(maps, rois, dim, g, 1.0, bx, by, mode), rtol=1e-5, atol=1e-5)


def test_psroi_pooling_errors() -> None:
    with pytest.raises(ValidationError, match="PSROIPooling-1 node .*7 channels; mode 'average' needs "
                                              "output_dim \\* group_size² = 8"):
        opset.psroi_pooling(P([1, 7, 4, 4]), P([2, 5]), 2, 2, 1.0, 1, 1, "average")
    with pytest.raises(ValidationError, match="spatial_bins_x \\* spatial_bins_y = 12"):
        opset.psroi_pooling(P([1, 8, 4, 4]), P([2, 5]), 3, 2, 1.0, 2, 2, "bilinear")
    with pytest.raises(ValidationError, match="'group_size' is 0"):
        opset.psroi_pooling(P([1, 8, 4, 4]), P([2, 5]), 2, 0, 1.0, 1, 1, "average")


#: The op versions of the family whose case strategies are checked here.
CASE_KEYS = [*KEYS, ("ReorgYolo", 2), ("RegionYolo", 1), ("ROIPooling", 2), ("PSROIPooling", 1)]
#: Attribute names, in IR order, as OpenVINO writes them.
IR_ATTRS = {**ATTRS, ("ReorgYolo", 2): ["stride"],
            ("RegionYolo", 1): ["anchors", "axis", "coords", "classes", "end_axis", "num", "do_softmax", "mask"],
            ("ROIPooling", 2): ["output_size", "output_roi", "pooled_h", "pooled_w", "spatial_scale", "method"],
            ("PSROIPooling", 1): ["output_dim", "group_size", "spatial_scale", "mode", "spatial_bins_x",
                                  "spatial_bins_y"]}
#: IR type names that differ from the op type.
IR_NAMES: dict[str, str] = {}

@pytest.mark.parametrize(("op", "version"), list(IR_ATTRS))
def test_ir_names_and_attributes_follow_openvino(op: str, version: int) -> None:
    check_ir_spelling(op, version, IR_ATTRS[(op, version)], IR_NAMES.get(op))
    assert version in OPSET_VERSIONS[op]


def test_builders_use_the_opset_versions() -> None:
    built = [opset.reorg_yolo(P([1, 4, 2, 2]), 2), opset.region_yolo(P([1, 12, 2, 2]), 4, 1, 2, True, [], 1, 3),
             opset.roi_pooling(P([1, 1, 4, 4]), P([1, 5]), [2, 2]),
             opset.psroi_pooling(P([1, 4, 4, 4]), P([1, 5]), 1, 2, 1.0, 1, 1, "average")]
    assert versions_of(built) == CASE_KEYS[3:]


def test_attributes_match_what_openvino_builds() -> None:
    pytest.importorskip("openvino")
    import openvino.opset1 as o1
    import openvino.opset2 as o2
    import openvino.opset8 as o8

    size = o1.constant(hw(2, 2))
    built = {("PriorBox", 1): o1.prior_box(size, size, {"offset": 0.5, "min_size": [1.0]}),
             ("PriorBox", 8): o8.prior_box(size, size, {"offset": 0.5, "min_size": [1.0]}),
             ("PriorBoxClustered", 1): o1.prior_box_clustered(size, size, {"offset": 0.5}),
             ("ReorgYolo", 2): o2.reorg_yolo(o1.parameter([1, 8, 4, 4]), [2]),
             ("RegionYolo", 1): o1.region_yolo(o1.parameter([1, 12, 2, 2]), 4, 1, 2, True, [], 1, 3, []),
             ("ROIPooling", 2): o2.roi_pooling(o1.parameter([1, 1, 4, 4]), o1.parameter([1, 5]), [2, 2], 1.0),
             ("PSROIPooling", 1): o1.psroi_pooling(o1.parameter([1, 4, 4, 4]), o1.parameter([1, 5]), 1, 2, 1.0, 1, 1,
                                                   "average")}
    for key, node in built.items():
        assert sorted(node.get_attributes()) == sorted(IR_ATTRS[key]), key

@pytest.mark.parametrize(("op", "version"), CASE_KEYS)
@CASE_SETTINGS
@given(data=st.data())
def test_cases_are_valid_and_run(op: str, version: int, data: st.DataObject) -> None:
    case = data.draw(case_strategy(op, version))
    node, outs = check_case_runs(case, op, version)
    if op not in ("PriorBox", "PriorBoxClustered"):
        for i, got in enumerate(outs):  # static output shapes, and the node's element types
            assert got.shape == node.output(i).get_partial_shape().to_shape()
            assert got.dtype == node.output(i).get_element_type().to_dtype()
