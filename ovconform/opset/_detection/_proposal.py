"""Proposal-1/4: region proposals from RPN class scores and box deltas.

Inputs: ``class_probs`` [N, 2 * A, H, W], ``bbox_deltas`` [N, 4 * A, H, W] (floating-point, one
type; A = len(ratio) * len(scale) anchors) and ``image_shape`` [3] or [4] (``[height, width,
scale_h(, scale_w)]``). Outputs: ROIs [N * post_nms_topn, 5] and, from version 4, their scores
[N * post_nms_topn]. Attributes as OpenVINO writes them: ``base_size``, ``pre_nms_topn``,
``post_nms_topn``, ``nms_thresh``, ``feat_stride``, ``min_size``, ``ratio``, ``scale``,
``clip_before_nms``, ``clip_after_nms``, ``normalize``, ``box_size_scale``,
``box_coordinate_scale``, ``framework`` ("" for Caffe, or "tensorflow").
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ovconform.ir import AttrSpec, Dimension, Node, PartialShape, Type, define_op, make_node
from ovconform.opset._helpers import NodeInput, as_output, require

__all__ = ["proposal"]

_ATTRS = [
    AttrSpec("base_size", "int"), AttrSpec("pre_nms_topn", "int"), AttrSpec("post_nms_topn", "int"),
    AttrSpec("nms_thresh", "float"), AttrSpec("feat_stride", "int"), AttrSpec("min_size", "int"),
    AttrSpec("ratio", "floats"), AttrSpec("scale", "floats"), AttrSpec("clip_before_nms", "bool", True),
    AttrSpec("clip_after_nms", "bool", False), AttrSpec("normalize", "bool", False),
    AttrSpec("box_size_scale", "float", 1.0), AttrSpec("box_coordinate_scale", "float", 1.0),
    AttrSpec("framework", "str", "", ("", "tensorflow"))]


def _infer(node: Node) -> list[tuple[Type, PartialShape]]:
    a = node.attrs
    for name in ("base_size", "pre_nms_topn", "post_nms_topn", "feat_stride"):
        require(a[name] > 0, f"attribute {name!r} is {a[name]}; it must be positive.")
    require(a["min_size"] >= 0, f"min_size is {a['min_size']}; it must not be negative.")
    require(bool(a["ratio"]) and bool(a["scale"]), f"ratio {a['ratio']} and scale {a['scale']} must not be empty.")
    require(all(v > 0 for v in (*a["ratio"], *a["scale"], a["box_size_scale"], a["box_coordinate_scale"])),
            "ratio, scale, box_size_scale and box_coordinate_scale must be positive.")
    et = node.get_input_element_type(0)
    require(et.is_real(), f"class_probs (input 0) have element type {et}; they must be floating-point.")
    for i, what in ((1, "bbox_deltas"), (2, "image_shape")):
        it = node.get_input_element_type(i)
        require(it == et, f"{what} (input {i}) has element type {it}; it must match class_probs ({et}).")
    probs, deltas, image = (node.get_input_partial_shape(i) for i in range(3))
    probs = probs if probs.has_rank() else PartialShape.dynamic(4)
    deltas = deltas if deltas.has_rank() else PartialShape.dynamic(4)
    require(len(probs) == 4 and len(deltas) == 4, f"class_probs {probs} and bbox_deltas {deltas} must have rank 4.")
    anchors = len(a["ratio"]) * len(a["scale"])
    require(probs[1].compatible(2 * anchors) and deltas[1].compatible(4 * anchors),
            f"class_probs {probs} and bbox_deltas {deltas} need {2 * anchors} and {4 * anchors} channels "
            f"({anchors} anchors).")
    for axis in (0, 2, 3):
        require(probs[axis].compatible(deltas[axis]), f"class_probs {probs} and bbox_deltas {deltas} disagree "
                                                      f"on dim {axis}.")
    require(not image.has_rank() or (len(image) == 1 and (image[0].compatible(3) or image[0].compatible(4))),
            f"image_shape (input 2) has shape {image}; it must be [3] or [4].")
    batch = probs[0] if probs[0].is_static else deltas[0]
    rows = Dimension(batch.get_length() * a["post_nms_topn"]) if batch.is_static else Dimension.dynamic()
    outs = [(et, PartialShape([rows, 5]))]
    if node.version >= 4:
        outs.append((et, PartialShape([rows])))
    return outs


define_op("Proposal", 1, inputs=3, attrs=_ATTRS)(_infer)
define_op("Proposal", 4, inputs=3, attrs=_ATTRS)(_infer)


def proposal(class_probs: NodeInput, bbox_deltas: NodeInput, image_shape: NodeInput, attrs: Mapping[str, Any],
             name: str | None = None, *, version: int = 4) -> Node:
    """Proposal-4 (the arguments of ``openvino.opset4.proposal``; ``attrs`` by IR name); ``version=1``
    for Proposal-1, which has no scores output."""
    require(version in (1, 4), f"Proposal: version {version} is not one of (1, 4).")
    values = {k: (int(v) if k in ("base_size", "pre_nms_topn", "post_nms_topn", "feat_stride", "min_size") else v)
              for k, v in attrs.items()}
    inputs = [as_output(class_probs), as_output(bbox_deltas), as_output(image_shape)]
    return make_node("Proposal", version, inputs, values, name)
