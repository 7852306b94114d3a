"""GenerateProposals-9 and ExperimentalDetectronGenerateProposalsSingleImage-6: ROIs from anchors,
box deltas and scores (decode, clip, drop small boxes, top-n, NMS, top-n).

* **ExperimentalDetectronGenerateProposalsSingleImage-6** (no Python builder in OpenVINO):
  ``im_info`` [3], ``anchors`` [H * W * A, 4], ``deltas`` [4 * A, H, W], ``scores`` [A, H, W];
  attributes ``min_size``, ``nms_threshold``, ``pre_nms_count``, ``post_nms_count``. Outputs
  ROIs [post_nms_count, 4] and scores [post_nms_count].
* **GenerateProposals-9** (``openvino.opset9.generate_proposals``): ``im_info`` [N, 3] or [N, 4],
  ``anchors`` [H, W, A, 4], ``deltas`` [N, 4 * A, H, W], ``scores`` [N, A, H, W]; attributes
  ``min_size``, ``nms_threshold``, ``pre_nms_count``, ``post_nms_count``, ``normalized`` (default
  true), ``nms_eta`` (in [0, 1], default 1), ``roi_num_type`` (i32, i64). Outputs ROIs
  [0..N * post_nms_count, 4], scores [0..N * post_nms_count] (data-dependent, as OpenVINO infers
  them) and the ROIs per image [N] (``roi_num_type``).

Every floating-point input shares one type.
"""

from __future__ import annotations

from ovconform.ir import AttrSpec, Dimension, Node, PartialShape, Type, define_op, make_node
from ovconform.opset._detection._detectron import _float_inputs, _shape
from ovconform.opset._helpers import NodeInput, as_output, require

__all__ = ["experimental_detectron_generate_proposals_single_image", "generate_proposals"]

_NAMES = ("im_info", "anchors", "deltas", "scores")
_COMMON = [AttrSpec("min_size", "float"), AttrSpec("nms_threshold", "float"), AttrSpec("pre_nms_count", "int"),
           AttrSpec("post_nms_count", "int")]


def _check_attrs(node: Node) -> None:
    a = node.attrs
    for name in ("min_size", "nms_threshold", "pre_nms_count", "post_nms_count"):
        require(a[name] >= 0, f"attribute {name!r} is {a[name]}; it must not be negative.")


def _merge(a: Dimension, b: Dimension, message: str) -> Dimension:
    merged = a.merge(b)
    require(merged is not None, message)
    assert merged is not None
    return merged


@define_op("ExperimentalDetectronGenerateProposalsSingleImage", 6, inputs=4, attrs=_COMMON)
def _infer_single(node: Node) -> list[tuple[Type, PartialShape]]:
    _check_attrs(node)
    et = _float_inputs(node, _NAMES)
    info = _shape(node, 0, 1, "im_info", "[3]")
    anchors = _shape(node, 1, 2, "anchors", "[H * W * A, 4]")
    deltas = _shape(node, 2, 3, "deltas", "[4 * A, H, W]")
    scores = _shape(node, 3, 3, "scores", "[A, H, W]")
    require(info[0].compatible(3), f"im_info (input 0) has shape {info}; it must be [3].")
    require(anchors[1].compatible(4), f"anchors (input 1) have shape {anchors}; they must be [H * W * A, 4].")
    for axis in (1, 2):
        require(deltas[axis].compatible(scores[axis]), f"deltas {deltas} and scores {scores} disagree on dim {axis}.")
    require(deltas[0].compatible(scores[0] * 4), f"deltas {deltas} must have 4 channels per anchor of scores {scores}.")
    count = node.attrs["post_nms_count"]
    return [(et, PartialShape([count, 4])), (et, PartialShape([count]))]


_V9 = [*_COMMON, AttrSpec("normalized", "bool", True), AttrSpec("nms_eta", "float", 1.0),
       AttrSpec("roi_num_type", "type", Type.i64)]


@define_op("GenerateProposals", 9, inputs=4, attrs=_V9)
def _infer_v9(node: Node) -> list[tuple[Type, PartialShape]]:
    _check_attrs(node)
    a = node.attrs
    require(0.0 <= a["nms_eta"] <= 1.0, f"nms_eta is {a['nms_eta']}; it must be in [0, 1].")
    require(a["roi_num_type"] in (Type.i32, Type.i64), f"roi_num_type is {a['roi_num_type']}; it must be i32 or i64.")
    et = _float_inputs(node, _NAMES)
    info = _shape(node, 0, 2, "im_info", "[N, 3] or [N, 4]")
    anchors = _shape(node, 1, 4, "anchors", "[H, W, A, 4]")
    deltas = _shape(node, 2, 4, "deltas", "[N, 4 * A, H, W]")
    scores = _shape(node, 3, 4, "scores", "[N, A, H, W]")
    require(info[1].compatible(3) or info[1].compatible(4), f"im_info (input 0) has shape {info}; it must be [N, 3] "
                                                           "or [N, 4].")
    require(anchors[3].compatible(4), f"anchors (input 1) have shape {anchors}; they must be [H, W, A, 4].")
    disagree = f"anchors {anchors}, deltas {deltas} and scores {scores} disagree"
    batch = _merge(_merge(info[0], deltas[0], f"im_info {info} and deltas {deltas} disagree on N."), scores[0],
                   f"deltas {deltas} and scores {scores} disagree on N.")
    for axis, anchor_axis in ((2, 0), (3, 1)):
        _merge(_merge(deltas[axis], scores[axis], f"{disagree} on the feature map size."), anchors[anchor_axis],
               f"{disagree} on the feature map size.")
    _merge(scores[1], anchors[2], f"{disagree} on the number of anchors.")
    require(deltas[1].compatible(anchors[2] * 4), f"{disagree}: deltas need 4 channels per anchor.")
    rows = Dimension(0, batch.get_length() * a["post_nms_count"]) if batch.is_static else Dimension.dynamic()
    return [(et, PartialShape([rows, 4])), (et, PartialShape([rows])), (a["roi_num_type"], PartialShape([batch]))]


def experimental_detectron_generate_proposals_single_image(
        im_info: NodeInput, anchors: NodeInput, deltas: NodeInput, scores: NodeInput, min_size: float,
        nms_threshold: float, pre_nms_count: int, post_nms_count: int, name: str | None = None) -> Node:
    """ExperimentalDetectronGenerateProposalsSingleImage-6 (the C++ constructor's inputs, its
    attributes as keywords)."""
    attrs = {"min_size": float(min_size), "nms_threshold": float(nms_threshold), "pre_nms_count": int(pre_nms_count),
             "post_nms_count": int(post_nms_count)}
    return make_node("ExperimentalDetectronGenerateProposalsSingleImage", 6,
                     [as_output(x) for x in (im_info, anchors, deltas, scores)], attrs, name)


def generate_proposals(im_info: NodeInput, anchors: NodeInput, deltas: NodeInput, scores: NodeInput, min_size: float,
                       nms_threshold: float, pre_nms_count: int, post_nms_count: int, normalized: bool = True,
                       nms_eta: float = 1.0, roi_num_type: str | Type = "i64", name: str | None = None) -> Node:
    """GenerateProposals-9 (the arguments of ``openvino.opset9.generate_proposals``)."""
    attrs = {"min_size": float(min_size), "nms_threshold": float(nms_threshold), "pre_nms_count": int(pre_nms_count),
             "post_nms_count": int(post_nms_count), "normalized": normalized, "nms_eta": float(nms_eta),
             "roi_num_type": roi_num_type}
    return make_node("GenerateProposals", 9, [as_output(x) for x in (im_info, anchors, deltas, scores)], attrs, name)
