"""Checks shared by MatrixNms-8, MulticlassNms-8/9 and NMSRotated-13 (as OpenVINO's
``nms_shape_inference.hpp`` validates them): boxes ``[B, N, k]`` and scores ``[B, C, N]`` of one
floating-point type, the integer attributes that take -1 for "all", and the index output type.
"""

from __future__ import annotations

from ovconform.ir import Dimension, Node, PartialShape, Type
from ovconform.opset._helpers import require

SORT_RESULT_TYPES = ("classid", "score", "none")
INDEX_OUTPUT_TYPES = (Type.i64, Type.i32)


def float_pair(node: Node) -> Type:
    """The element type of boxes (input 0) and scores (input 1): floating-point and equal."""
    bt, st = node.get_input_element_type(0), node.get_input_element_type(1)
    require(bt.is_real(), f"boxes (input 0) have element type {bt}; they must be floating-point.")
    require(st == bt, f"scores (input 1) have element type {st}; they must match the boxes ({bt}).")
    return bt


def ranked(node: Node, index: int, rank: int, what: str, layout: str) -> PartialShape:
    """Input ``index``'s shape, ``rank`` dynamic dims when its rank is unknown; refuses another rank."""
    shape = node.get_input_partial_shape(index)
    if not shape.has_rank():
        return PartialShape.dynamic(rank)
    require(len(shape) == rank, f"{what} (input {index}) has shape {shape}; it must be {layout}.")
    return shape


def batched_boxes(node: Node, box_size: int) -> tuple[PartialShape, PartialShape]:
    """boxes [B, N, box_size] and scores [B, C, N], checked against each other."""
    layout = "[num_batches, num_boxes, " + str(box_size) + "]"
    boxes = ranked(node, 0, 3, "boxes", layout)
    scores = ranked(node, 1, 3, "scores", "[num_batches, num_classes, num_boxes]")
    require(boxes[2].compatible(box_size), f"boxes (input 0) have shape {boxes}; the last dim must be {box_size}.")
    require(boxes[0].compatible(scores[0]),
            f"boxes {boxes} and scores {scores} disagree on the number of batches (dim 0).")
    require(boxes[1].compatible(scores[2]),
            f"boxes {boxes} and scores {scores} disagree on the number of boxes (boxes dim 1, scores dim 2).")
    return boxes, scores


def at_least_minus_one(node: Node, *names: str) -> None:
    for name in names:
        value = node.attrs[name]
        require(value >= -1, f"attribute {name}={value}; it must be -1 (no limit) or a non-negative integer.")


def index_type(node: Node) -> Type:
    out_t = node.attrs["output_type"]
    require(out_t in INDEX_OUTPUT_TYPES, f"output_type is {out_t}; it must be i64 or i32.")
    return out_t


def times(a: Dimension, b: Dimension) -> Dimension:
    if not (a.is_static and b.is_static):
        return Dimension.dynamic()
    return Dimension(a.get_length() * b.get_length())


def top(dim: Dimension, k: int) -> Dimension:
    """``min(dim, k)`` (``dim`` when k is -1: no limit); static only when the result is known."""
    if k < 0:
        return dim
    return Dimension(min(dim.get_length(), k)) if dim.is_static else Dimension.dynamic()


def up_to(dim: Dimension) -> Dimension:
    """``0..dim`` for a static ``dim``, dynamic otherwise: the selected rows."""
    return Dimension(0, dim.get_length()) if dim.is_static else Dimension.dynamic()
