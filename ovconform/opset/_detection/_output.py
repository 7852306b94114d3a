"""DetectionOutput-1/8: decode SSD box predictions against priors, per-class NMS, keep the best.

Inputs: box logits [N, P * L * 4] (L = 1 with ``share_location``, else num_classes), class
predictions [N, P * num_classes], priors [1 or N, 1 or 2, P * S] (S = 4 when ``normalized``,
else 5; 2 rows unless ``variance_encoded_in_target``), optionally ARM confidences [N, P * 2] and
ARM box logits (the logits' shape); all of one floating-point type. num_classes is an attribute
of version 1 and follows from the class predictions in version 8. Output [1, 1, R, 7] with
R = N * keep_top_k[0] when that is positive, else N * top_k * num_classes when top_k is
positive, else N * P * num_classes. Attributes as OpenVINO writes them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ovconform.ir import AttrSpec, Dimension, Node, PartialShape, Type, define_op, make_node
from ovconform.opset._helpers import NodeInput, as_output, require

__all__ = ["detection_output"]

CODE_TYPES = ("caffe.PriorBoxParameter.CORNER", "caffe.PriorBoxParameter.CENTER_SIZE")
_COMMON = [
    AttrSpec("background_label_id", "int", 0), AttrSpec("top_k", "int", -1),
    AttrSpec("variance_encoded_in_target", "bool", False), AttrSpec("keep_top_k", "ints"),
    AttrSpec("code_type", "str", CODE_TYPES[0], CODE_TYPES), AttrSpec("share_location", "bool", True),
    AttrSpec("nms_threshold", "float"), AttrSpec("confidence_threshold", "float", 0.0),
    AttrSpec("clip_after_nms", "bool", False), AttrSpec("clip_before_nms", "bool", False),
    AttrSpec("decrease_label_id", "bool", False), AttrSpec("normalized", "bool", False),
    AttrSpec("input_height", "int", 1), AttrSpec("input_width", "int", 1), AttrSpec("objectness_score", "float", 0.0)]
_NAMES = ("box logits", "class predictions", "priors", "ARM confidences", "ARM box logits")
_RANKS = (2, 2, 3, 2, 2)


def _shapes(node: Node) -> list[PartialShape]:
    et = node.get_input_element_type(0)
    require(et.is_real(), f"box logits (input 0) have element type {et}; they must be floating-point.")
    shapes = []
    for i in range(node.get_input_size()):
        it = node.get_input_element_type(i)
        require(it == et, f"{_NAMES[i]} (input {i}) have element type {it}; they must match the box logits ({et}).")
        shape = node.get_input_partial_shape(i)
        shape = shape if shape.has_rank() else PartialShape.dynamic(_RANKS[i])
        require(len(shape) == _RANKS[i], f"{_NAMES[i]} (input {i}) have shape {shape}; they must have rank "
                                         f"{_RANKS[i]}.")
        shapes.append(shape)
    return shapes


def _static(dim: Dimension) -> int | None:
    return dim.get_length() if dim.is_static else None


def _want(shape: PartialShape, axis: int, value: int | None, what: str) -> None:
    if value is not None:
        require(shape[axis].compatible(value), f"{what} has shape {shape}; dim {axis} must be {value}.")


def _infer(node: Node) -> list[tuple[Type, PartialShape]]:
    a = node.attrs
    require(node.get_input_size() in (3, 5), f"DetectionOutput takes 3 or 5 inputs; got {node.get_input_size()}.")
    require(len(a["keep_top_k"]) >= 1, "keep_top_k must hold at least one value.")
    require(a["nms_threshold"] >= 0, f"nms_threshold is {a['nms_threshold']}; it must not be negative.")
    require(a["normalized"] or (a["input_height"] > 0 and a["input_width"] > 0),
            f"input_height={a['input_height']} and input_width={a['input_width']} must be positive.")
    shapes = _shapes(node)
    size = 4 if a["normalized"] else 5
    third = _static(shapes[2][2])
    if third is not None:
        require(third > 0 and third % size == 0, f"priors {shapes[2]}: dim 2 must be a positive multiple of the "
                                                 f"prior size {size}.")
    priors = None if third is None else third // size
    classes = a.get("num_classes")
    conf = _static(shapes[1][1])
    if classes is None and priors is not None and conf is not None:
        require(conf % priors == 0, f"class predictions {shapes[1]}: dim 1 must be a multiple of the {priors} priors.")
        classes = conf // priors
    require(classes is None or classes > 0, f"num_classes is {classes}; it must be positive.")
    if priors is not None and classes is not None:
        loc_classes = 1 if a["share_location"] else classes
        _want(shapes[0], 1, priors * loc_classes * 4, "box logits (input 0)")
        _want(shapes[1], 1, priors * classes, "class predictions (input 1)")
    n = shapes[0][0]
    require(n.compatible(shapes[1][0]), f"box logits {shapes[0]} and class predictions {shapes[1]} disagree on N.")
    require(shapes[2][0].compatible(1) or shapes[2][0].compatible(n),
            f"priors {shapes[2]}: dim 0 must be 1 or the batch {n}.")
    _want(shapes[2], 1, 1 if a["variance_encoded_in_target"] else 2, "priors (input 2)")
    if len(shapes) == 5:
        _want(shapes[3], 1, None if priors is None else priors * 2, "ARM confidences (input 3)")
        require(shapes[4].compatible(shapes[0]), f"ARM box logits {shapes[4]} must match the box logits {shapes[0]}.")
    return [(node.get_input_element_type(0), PartialShape([1, 1, _rows(a, n, classes, priors), 7]))]


def _rows(a: Mapping[str, Any], n: Dimension, classes: int | None, priors: int | None) -> Dimension:
    if not n.is_static:
        return Dimension.dynamic()
    if a["keep_top_k"][0] > 0:
        return Dimension(n.get_length() * a["keep_top_k"][0])
    per = a["top_k"] if a["top_k"] > 0 else priors
    if per is None or classes is None:
        return Dimension.dynamic()
    return Dimension(n.get_length() * per * classes)


define_op("DetectionOutput", 1, inputs=(3, 5), attrs=[AttrSpec("num_classes", "int"), *_COMMON])(_infer)
define_op("DetectionOutput", 8, inputs=(3, 5), attrs=_COMMON)(_infer)


def detection_output(box_logits: NodeInput, class_preds: NodeInput, proposals: NodeInput, attrs: Mapping[str, Any],
                     aux_class_preds: NodeInput | None = None, aux_box_preds: NodeInput | None = None,
                     name: str | None = None, *, version: int = 8) -> Node:
    """DetectionOutput-8 (the arguments of ``openvino.opset8.detection_output``; ``attrs`` by IR name);
    ``version=1`` for DetectionOutput-1, whose attrs also hold ``num_classes``."""
    require(version in (1, 8), f"DetectionOutput: version {version} is not one of (1, 8).")
    values = dict(attrs)
    if version == 8:
        require("num_classes" not in values, "DetectionOutput-8 has no num_classes (it follows from the inputs).")
    inputs = [as_output(box_logits), as_output(class_preds), as_output(proposals)]
    require((aux_class_preds is None) == (aux_box_preds is None),
            "DetectionOutput: the ARM confidences and ARM box logits come together (5 inputs) or not at all.")
    if aux_class_preds is not None and aux_box_preds is not None:
        inputs += [as_output(aux_class_preds), as_output(aux_box_preds)]
    return make_node("DetectionOutput", version, inputs, values, name)
