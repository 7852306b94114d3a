"""Tier-3 "detect" family: PriorBox-1/8, PriorBoxClustered-1, ROIAlign-3/9 and ROIAlignRotated-15 —
IR attribute names, builder inference and errors, REFERENCE kernel numerics against hand-computed
values and naive per-sample loops, and the case strategies (every op version has one)."""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ovconform import opset
from ovconform.errors import InferError, ValidationError
from ovconform.ir import Model, Node, Type, get_opdef
from ovconform.opcases import OpCase, all_case_keys, case_strategy
from ovconform.opset._detection._prior import number_of_priors
from reference_plugin._evaluate import evaluate

P = opset.parameter
SETTINGS = settings(max_examples=15, deadline=None, derandomize=True, database=None,
                    suppress_health_check=list(HealthCheck))
PB_ATTRS = ["min_size", "max_size", "aspect_ratio", "density", "fixed_ratio", "fixed_size", "clip", "flip", "step",
            "offset", "variance", "scale_all_sizes"]
ATTRS = {("PriorBox", 1): PB_ATTRS, ("PriorBox", 8): [*PB_ATTRS, "min_max_aspect_ratios_order"],
         ("PriorBoxClustered", 1): ["width", "height", "clip", "step", "step_w", "step_h", "offset", "variance"]}
KEYS = list(ATTRS)


def evaluate_node(node: Node, *inputs: np.ndarray) -> list[np.ndarray]:
    params = [n for n in (node.input_value(i).node for i in range(node.get_input_size())) if n.type_name == "Parameter"]
    return evaluate(Model(node.outputs(), params), list(inputs))


def hw(h: int, w: int) -> np.ndarray:
    return np.array([h, w], np.int64)


@pytest.mark.parametrize("key", KEYS)
def test_ir_attributes_follow_openvino(key: tuple[str, int]) -> None:
    assert [a.name for a in get_opdef(*key).attrs] == ATTRS[key]


def test_attributes_match_what_openvino_builds() -> None:
    pytest.importorskip("openvino")
    import openvino.opset1 as o1
    import openvino.opset8 as o8

    size = o1.constant(hw(2, 2))
    built = {("PriorBox", 1): o1.prior_box(size, size, {"offset": 0.5, "min_size": [1.0]}),
             ("PriorBox", 8): o8.prior_box(size, size, {"offset": 0.5, "min_size": [1.0]}),
             ("PriorBoxClustered", 1): o1.prior_box_clustered(size, size, {"offset": 0.5})}
    for key, node in built.items():
        assert sorted(node.get_attributes()) == sorted(ATTRS[key]), key


# -- PriorBox: inference and errors ----------------------------------------------------------------------------

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


# -- cases --------------------------------------------------------------------------------------------------------

def test_every_op_of_the_family_has_a_case() -> None:
    assert set(KEYS) <= set(all_case_keys())


@pytest.mark.parametrize("key", KEYS)
def test_drawn_cases_evaluate(key: tuple[str, int]) -> None:
    @SETTINGS
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


@SETTINGS
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
        @SETTINGS
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
