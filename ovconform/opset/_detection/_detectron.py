"""The ExperimentalDetectron ops of opset6 in the "detection" folder (TopKROIs is in "sort"):
PriorGridGenerator-6, ROIFeatureExtractor-6 and DetectionOutput-6. OpenVINO's Python API has no
builders for them: the builders take the C++ constructors' arguments, attributes by IR name.

* **ExperimentalDetectronPriorGridGenerator-6**: ``priors`` [P, 4], ``feature_map`` [N, C, H, W] and
  ``im_data`` [N, C', IH, IW] (only their shapes are read); attributes ``flatten`` (default true),
  ``h``, ``w`` (0..H, 0..W; 0: the feature map's), ``stride_x``, ``stride_y`` (>= 0; 0: image / grid).
  Output [H * W * P, 4] (flatten) or [H, W, P, 4].
* **ExperimentalDetectronROIFeatureExtractor-6**: ``rois`` [R, 4] then L >= 1 pyramid levels
  [1, C, H_l, W_l] (one channel count); attributes ``output_size`` (> 0), ``sampling_ratio`` (>= 0),
  ``pyramid_scales`` (L positive integers), ``aligned`` (default false). Outputs
  [R, C, output_size, output_size] and the ROIs [R, 4].
* **ExperimentalDetectronDetectionOutput-6**: ``rois`` [R, 4], ``deltas`` [R, 4 * num_classes],
  ``scores`` [R, num_classes], ``im_info`` [1, 3]; attributes ``score_threshold``,
  ``nms_threshold``, ``max_delta_log_wh``, ``num_classes``, ``post_nms_count``,
  ``max_detections_per_image``, ``class_agnostic_box_regression`` (default false),
  ``deltas_weights`` (4 values). Outputs, as OpenVINO infers them: boxes [M, 4], classes [M] (i32)
  and scores [M], M = max_detections_per_image.

Every floating-point input shares one type.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ovconform.ir import AttrSpec, Dimension, Node, PartialShape, Type, define_op, make_node
from ovconform.opset._helpers import NodeInput, as_output, require

__all__ = ["experimental_detectron_detection_output", "experimental_detectron_prior_grid_generator",
           "experimental_detectron_roi_feature_extractor"]


def _float_inputs(node: Node, names: Sequence[str]) -> Type:
    et = node.get_input_element_type(0)
    require(et.is_real(), f"{names[0]} (input 0) has element type {et}; it must be floating-point.")
    for i in range(1, node.get_input_size()):
        it = node.get_input_element_type(i)
        what = names[min(i, len(names) - 1)]
        require(it == et, f"{what} (input {i}) has element type {it}; it must match {names[0]} ({et}).")
    return et


def _shape(node: Node, index: int, rank: int, what: str, form: str) -> PartialShape:
    shape = node.get_input_partial_shape(index)
    if not shape.has_rank():
        return PartialShape.dynamic(rank)
    require(len(shape) == rank, f"{what} (input {index}) has shape {shape}; it must be {form}.")
    return shape


# -- PriorGridGenerator ------------------------------------------------------------------------------------------

_GRID_ATTRS = [AttrSpec("flatten", "bool", True), AttrSpec("h", "int", 0), AttrSpec("w", "int", 0),
               AttrSpec("stride_x", "float", 0.0), AttrSpec("stride_y", "float", 0.0)]


@define_op("ExperimentalDetectronPriorGridGenerator", 6, inputs=3, attrs=_GRID_ATTRS)
def _infer_grid(node: Node) -> list[tuple[Type, PartialShape]]:
    a = node.attrs
    et = _float_inputs(node, ("priors", "feature_map", "im_data"))
    priors = _shape(node, 0, 2, "priors", "[number_of_priors, 4]")
    require(priors[1].compatible(4), f"priors (input 0) have shape {priors}; they must be [number_of_priors, 4].")
    fmap = _shape(node, 1, 4, "feature_map", "[N, C, H, W]")
    _shape(node, 2, 4, "im_data", "[N, C, H, W]")
    for name, axis in (("h", 2), ("w", 3)):
        dim = fmap[axis]
        require(a[name] >= 0 and (not dim.is_static or a[name] <= dim.get_length()),
                f"attribute {name!r} is {a[name]}; it must be in [0, {dim}] (the feature map's size).")
    for name in ("stride_x", "stride_y"):
        require(a[name] >= 0, f"attribute {name!r} is {a[name]}; it must not be negative.")
    h, w, p = fmap[2], fmap[3], priors[0]
    shape = PartialShape([h * w * p, 4]) if a["flatten"] else PartialShape([h, w, p, 4])
    return [(et, shape)]


def experimental_detectron_prior_grid_generator(priors: NodeInput, feature_map: NodeInput, im_data: NodeInput,
                                                attrs: Mapping[str, Any] | None = None,
                                                name: str | None = None) -> Node:
    """ExperimentalDetectronPriorGridGenerator-6; ``attrs`` by IR name (``flatten``, ``h``, ``w``,
    ``stride_x``, ``stride_y``), defaults as the spec's."""
    return make_node("ExperimentalDetectronPriorGridGenerator", 6,
                     [as_output(priors), as_output(feature_map), as_output(im_data)], dict(attrs or {}), name)


# -- ROIFeatureExtractor -----------------------------------------------------------------------------------------

_ROI_ATTRS = [AttrSpec("output_size", "int"), AttrSpec("sampling_ratio", "int"), AttrSpec("pyramid_scales", "ints"),
              AttrSpec("aligned", "bool", False)]


@define_op("ExperimentalDetectronROIFeatureExtractor", 6, inputs=(2, -1), attrs=_ROI_ATTRS)
def _infer_roi_features(node: Node) -> list[tuple[Type, PartialShape]]:
    a = node.attrs
    levels = node.get_input_size() - 1
    require(a["output_size"] > 0, f"output_size is {a['output_size']}; it must be positive.")
    require(a["sampling_ratio"] >= 0, f"sampling_ratio is {a['sampling_ratio']}; it must not be negative.")
    scales = list(a["pyramid_scales"])
    require(len(scales) == levels and all(s > 0 for s in scales),
            f"pyramid_scales {scales} must hold one positive integer per pyramid level ({levels} given).")
    et = _float_inputs(node, ("rois", "pyramid level"))
    rois = _shape(node, 0, 2, "rois", "[number_of_ROIs, 4]")
    require(rois[1].compatible(4), f"rois (input 0) have shape {rois}; they must be [number_of_ROIs, 4].")
    channels = Dimension.dynamic()
    for i in range(1, levels + 1):
        level = _shape(node, i, 4, f"pyramid level {i - 1}", "[1, C, H, W]")
        merged = channels.merge(level[1])
        require(merged is not None, f"pyramid level {i - 1} (input {i}) has shape {level}; every level must have "
                                    f"{channels} channels.")
        assert merged is not None
        channels = merged
    size = a["output_size"]
    return [(et, PartialShape([rois[0], channels, size, size])), (et, PartialShape([rois[0], 4]))]


def experimental_detectron_roi_feature_extractor(inputs: Sequence[NodeInput], attrs: Mapping[str, Any],
                                                 name: str | None = None) -> Node:
    """ExperimentalDetectronROIFeatureExtractor-6: ``inputs`` are the ROIs then the pyramid levels;
    ``attrs`` by IR name (``output_size``, ``sampling_ratio``, ``pyramid_scales``, ``aligned``)."""
    return make_node("ExperimentalDetectronROIFeatureExtractor", 6, [as_output(x) for x in inputs],
                     dict(attrs), name)


# -- DetectionOutput ---------------------------------------------------------------------------------------------

_OUTPUT_ATTRS = [AttrSpec("score_threshold", "float"), AttrSpec("nms_threshold", "float"),
                 AttrSpec("max_delta_log_wh", "float"), AttrSpec("num_classes", "int"),
                 AttrSpec("post_nms_count", "int"), AttrSpec("max_detections_per_image", "int"),
                 AttrSpec("class_agnostic_box_regression", "bool", False), AttrSpec("deltas_weights", "floats")]


@define_op("ExperimentalDetectronDetectionOutput", 6, inputs=4, attrs=_OUTPUT_ATTRS)
def _infer_output(node: Node) -> list[tuple[Type, PartialShape]]:
    a = node.attrs
    for name in ("score_threshold", "nms_threshold"):
        require(a[name] >= 0, f"attribute {name!r} is {a[name]}; it must not be negative.")
    for name in ("num_classes", "post_nms_count", "max_detections_per_image"):
        require(a[name] >= 0, f"attribute {name!r} is {a[name]}; it must not be negative.")
    weights = list(a["deltas_weights"])
    require(len(weights) == 4 and all(w > 0 for w in weights),
            f"deltas_weights {weights} must be 4 positive numbers (the divisors of dx, dy, d_log_w, d_log_h).")
    et = _float_inputs(node, ("rois", "deltas", "scores", "im_info"))
    rois = _shape(node, 0, 2, "rois", "[number_of_ROIs, 4]")
    deltas = _shape(node, 1, 2, "deltas", "[number_of_ROIs, 4 * num_classes]")
    scores = _shape(node, 2, 2, "scores", "[number_of_ROIs, num_classes]")
    info = _shape(node, 3, 2, "im_info", "[1, 3]")
    classes = a["num_classes"]
    require(rois[1].compatible(4), f"rois (input 0) have shape {rois}; they must be [number_of_ROIs, 4].")
    require(deltas[1].compatible(4 * classes) and scores[1].compatible(classes),
            f"deltas {deltas} and scores {scores} must have {4 * classes} and {classes} columns "
            f"(num_classes={classes}).")
    require(rois[0].compatible(deltas[0]) and rois[0].compatible(scores[0]),
            f"rois {rois}, deltas {deltas} and scores {scores} disagree on the number of ROIs.")
    require(info[0].compatible(1) and info[1].compatible(3), f"im_info (input 3) has shape {info}; it must be [1, 3].")
    m = a["max_detections_per_image"]
    return [(et, PartialShape([m, 4])), (Type.i32, PartialShape([m])), (et, PartialShape([m]))]


def experimental_detectron_detection_output(rois: NodeInput, deltas: NodeInput, scores: NodeInput,
                                            im_info: NodeInput, attrs: Mapping[str, Any],
                                            name: str | None = None) -> Node:
    """ExperimentalDetectronDetectionOutput-6; ``attrs`` by IR name."""
    return make_node("ExperimentalDetectronDetectionOutput", 6,
                     [as_output(rois), as_output(deltas), as_output(scores), as_output(im_info)], dict(attrs), name)
