"""Sort ops (OpenVINO's op-spec folder "sort"): NonMaxSuppression-1/3/4/5/9, TopK-1/3/11 and
SearchSorted-15.

NonMaxSuppression: greedy per-class box selection by score and overlap. Inputs: ``boxes``
[B, N, 4] and ``scores`` [B, C, N] (floating-point, one type), then optional scalars (or
1-element 1-D tensors): ``max_output_boxes_per_class`` (integer, default 0), ``iou_threshold``
and ``score_threshold`` (floating-point, default 0), and from version 5 ``soft_nms_sigma``
(default 0). Attributes as OpenVINO writes them: ``box_encoding`` (corner, center),
``sort_result_descending``, from version 3 ``output_type`` (i64, i32). Outputs, as OpenVINO infers
them (M = max_output_boxes_per_class when known at build time):

* version 1 and 3: ``selected_indices`` [min(N, M * C), 3] (i64, or ``output_type``);
* version 4: [B * C * min(N, M), 3];
* version 5 and 9: ``selected_indices`` [0..B * C * min(N, M), 3], ``selected_scores`` of the same
  shape (f32 for every input type, as OpenVINO infers it), ``valid_outputs`` [1] (``output_type``).

Dims that depend on an unknown M, B, C or N are dynamic.

TopK has ``axis``, ``mode`` (max, min), ``sort`` (value, index, none), ``index_element_type`` and,
from TopK-11, ``stable``; with a ``k`` unknown at build time the sorted axis is bounded ``0..n``
when the data shape is static, ``?`` otherwise. SearchSorted has ``right_mode`` and
``output_type``. MatrixNms-8 (:mod:`._matrix_nms`), MulticlassNms-8/9 (:mod:`._multiclass_nms`) and
NMSRotated-13 (:mod:`._nms_rotated`) have a module each; :mod:`._nms_checks` holds their shared checks.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ovconform.ir import AttrSpec, Dimension, Node, PartialShape, Type, constant_value, define_op, make_node
from ovconform.opset._helpers import NodeInput, as_output, normalize_axis, require
from ovconform.opset._inputs import INDEX_TYPES, Infer, _merge, _numeric, _same, _scalar_input, _upto, index_input
from ovconform.opset._sort._matrix_nms import matrix_nms
from ovconform.opset._sort._multiclass_nms import multiclass_nms
from ovconform.opset._sort._nms_rotated import nms_rotated
from ovconform.opset._sort._topk_rois import experimental_detectron_topk_rois

__all__ = ["experimental_detectron_topk_rois", "matrix_nms", "multiclass_nms", "nms_rotated", "non_max_suppression",
           "search_sorted", "topk"]

_NAMES = ("boxes", "scores", "max_output_boxes_per_class", "iou_threshold", "score_threshold", "soft_nms_sigma")
_ENCODING = AttrSpec("box_encoding", "str", "corner", ("corner", "center"))
_SORT = AttrSpec("sort_result_descending", "bool", True)
_OUT_TYPE = AttrSpec("output_type", "type", Type.i64)
VERSIONS = (1, 3, 4, 5, 9)


def _check_inputs(node: Node) -> tuple[PartialShape, PartialShape]:
    bt, st = node.get_input_element_type(0), node.get_input_element_type(1)
    require(bt.is_real(), f"boxes (input 0) have element type {bt}; they must be floating-point.")
    require(st == bt, f"scores (input 1) have element type {st}; they must match the boxes ({bt}).")
    boxes, scores = node.get_input_partial_shape(0), node.get_input_partial_shape(1)
    boxes = boxes if boxes.has_rank() else PartialShape.dynamic(3)
    scores = scores if scores.has_rank() else PartialShape.dynamic(3)
    require(len(boxes) == 3 and boxes[2].compatible(4), f"boxes (input 0) have shape {boxes}; they must be [B, N, 4].")
    require(len(scores) == 3, f"scores (input 1) have shape {scores}; they must be [B, C, N].")
    require(boxes[0].compatible(scores[0]) and boxes[1].compatible(scores[2]),
            f"boxes {boxes} and scores {scores} disagree on the batch or the number of boxes.")
    for i in range(2, node.get_input_size()):
        et = node.get_input_element_type(i)
        ok = et.is_integral_number() if i == 2 else et.is_real()
        require(ok, f"{_NAMES[i]} (input {i}) has element type {et}; it must be "
                    f"{'an integer' if i == 2 else 'a floating-point'} type.")
        shape = node.get_input_partial_shape(i)
        require(not shape.has_rank() or len(shape) == 0 or (len(shape) == 1 and shape[0].compatible(1)),
                f"{_NAMES[i]} (input {i}) has shape {shape}; it must be a scalar or hold 1 element.")
    if node.version < 3:
        return boxes, scores
    require(node.attrs["output_type"] in (Type.i64, Type.i32),
            f"output_type is {node.attrs['output_type']}; it must be i64 or i32.")
    return boxes, scores


def max_boxes(node: Node) -> int | None:
    """max_output_boxes_per_class when known at build time (0 when the input is absent)."""
    if node.get_input_size() < 3:
        return 0
    value = constant_value(node.input_value(2))
    return None if value is None else int(np.asarray(value).reshape(-1)[0])


def _product(*dims: Dimension) -> Dimension:
    out = Dimension(1)
    for d in dims:
        if not d.is_static:
            return Dimension.dynamic()
        out = Dimension(out.get_length() * d.get_length())
    return out


def selected_rows(node: Node, boxes: PartialShape, scores: PartialShape) -> Dimension:
    """The rows of ``selected_indices`` (upper bound for versions 5 and 9)."""
    m = max_boxes(node)
    n, b, c = boxes[1], scores[0], scores[1]
    if m is not None and m <= 0:
        return Dimension(0)
    if m is None or not n.is_static:
        return Dimension.dynamic()
    if node.version < 4:
        return Dimension(min(n.get_length(), m * c.get_length())) if c.is_static else Dimension.dynamic()
    return _product(b, c, Dimension(min(n.get_length(), m)))


def _infer(node: Node) -> list[tuple[Type, PartialShape]]:
    boxes, scores = _check_inputs(node)
    rows = selected_rows(node, boxes, scores)
    out_t = node.attrs.get("output_type", Type.i64)
    if node.version < 5:
        return [(out_t, PartialShape([rows, 3]))]
    bound = Dimension(0, rows.get_length()) if rows.is_static else Dimension.dynamic()
    return [(out_t, PartialShape([bound, 3])), (Type.f32, PartialShape([bound, 3])), (out_t, PartialShape([1]))]


define_op("NonMaxSuppression", 1, inputs=(2, 5), attrs=[_ENCODING, _SORT])(_infer)
for _v in (3, 4):
    define_op("NonMaxSuppression", _v, inputs=(2, 5), attrs=[_ENCODING, _SORT, _OUT_TYPE])(_infer)
for _v in (5, 9):
    define_op("NonMaxSuppression", _v, inputs=(2, 6), attrs=[_ENCODING, _SORT, _OUT_TYPE])(_infer)


def non_max_suppression(boxes: NodeInput, scores: NodeInput, max_output_boxes_per_class: NodeInput | None = None,
                        iou_threshold: NodeInput | None = None, score_threshold: NodeInput | None = None,
                        soft_nms_sigma: NodeInput | None = None, box_encoding: str = "corner",
                        sort_result_descending: bool = True, output_type: str | Type = "i64",
                        name: str | None = None, *, version: int = 9) -> Node:
    """NonMaxSuppression-9 (the arguments of ``openvino.opset9.non_max_suppression``); ``version=``
    1, 3, 4 or 5 for the older ones (1-4 have no soft_nms_sigma, 1 has no output_type). Optional
    inputs given as literals become scalar Constants (i64 for the count, the boxes' type else);
    missing ones become their default Constants (0 as i64 / f32), as OpenVINO adds them: 5 inputs
    for versions 1-5 (6 for version 5 with a sigma), 6 for version 9."""
    require(version in VERSIONS, f"NonMaxSuppression: version {version} is not one of {VERSIONS}.")
    first = as_output(boxes)
    ft = first.get_element_type()
    optional = [max_output_boxes_per_class, iou_threshold, score_threshold]
    if version >= 5:
        optional.append(soft_nms_sigma)
    else:
        require(soft_nms_sigma is None, f"NonMaxSuppression-{version} has no soft_nms_sigma (use version 5 or 9).")
    if version == 5 and optional[-1] is None:
        optional.pop()  # as OpenVINO builds it: NonMaxSuppression-5 has 5 inputs unless a sigma is given
    defaults = [np.array(0, np.int64)] + [np.array(0, np.float32)] * 3
    inputs = [first, as_output(scores)]
    for i, value in enumerate(optional):
        if value is None:
            inputs.append(as_output(defaults[i]))
        else:
            inputs.append(as_output(value, Type.i64 if i == 0 else ft))
    attrs: dict[str, object] = {"box_encoding": box_encoding.lower(), "sort_result_descending": sort_result_descending}
    if version >= 3:
        attrs["output_type"] = output_type
    else:
        require(output_type in ("i64", Type.i64), "NonMaxSuppression-1 has no output_type (its indices are i64).")
    return make_node("NonMaxSuppression", version, inputs, attrs, name)


def _topk_attrs(stable: bool = False) -> list[AttrSpec]:
    attrs = [AttrSpec("axis", "int"), AttrSpec("mode", "str", choices=("max", "min")),
             AttrSpec("sort", "str", choices=("value", "index", "none")),
             AttrSpec("index_element_type", "type", Type.i32, INDEX_TYPES)]
    return [*attrs, AttrSpec("stable", "bool", False)] if stable else attrs


def _infer_topk(node: Node) -> Infer:
    """values and indices: data's shape with dim ``axis`` = min(k, dim) (0..dim when k is unknown)."""
    et = _numeric(node, 0, "data")
    k = _scalar_input(node, 1, "k")
    if k is not None:
        require(k >= 0, f"k={k} must be non-negative.")
    data = node.get_input_partial_shape(0)
    out = PartialShape.dynamic()
    if data.has_rank():
        require(len(data) >= 1, "data is a scalar; TopK needs rank >= 1.")
        axis = normalize_axis(node.attrs["axis"], len(data), "attribute 'axis'")
        dim = data[axis]
        if k is None:
            new = _upto(dim)
        elif dim.is_bounded():
            new = Dimension(min(k, dim.min_length), min(k, dim.max_length))
        else:
            new = Dimension(min(k, dim.min_length), k)
        out = PartialShape([new if i == axis else d for i, d in enumerate(data.dims)])
    return [(et, out), (node.attrs["index_element_type"], out)]


define_op("TopK", 1, inputs=2, attrs=_topk_attrs())(_infer_topk)
define_op("TopK", 3, inputs=2, attrs=_topk_attrs())(_infer_topk)
define_op("TopK", 11, inputs=2, attrs=_topk_attrs(stable=True))(_infer_topk)


def topk(data: NodeInput, k: NodeInput, axis: int, mode: str, sort: str, index_element_type: Any = "i32",
         stable: bool = False, version: int = 11, name: str | None = None) -> Node:
    """TopK-11 (``version=1``/``3``: without ``stable``): the k largest/smallest values along
    ``axis`` and their indices; take them with ``node.output(0)``/``node.output(1)``."""
    require(version in (1, 3, 11), f"TopK version {version} does not exist; versions: 1, 3, 11.")
    attrs: dict[str, Any] = {"axis": axis, "mode": mode.lower(), "sort": sort.lower(),
                             "index_element_type": index_element_type}
    if version == 11:
        attrs["stable"] = stable
    return make_node("TopK", version, [as_output(data), index_input(k, "TopK k")], attrs, name)


@define_op("SearchSorted", 15, inputs=2, attrs=[AttrSpec("right_mode", "bool", False),
                                                 AttrSpec("output_type", "type", Type.i64, INDEX_TYPES)])
def _infer_search_sorted(node: Node) -> Infer:
    """Insertion indices (values' shape); a 1D sequence serves every value, an ND one is per row."""
    _numeric(node, 0, "sorted_sequence")
    _same(node, 0, 1, "sorted_sequence", "values")
    seq, values = node.get_input_partial_shape(0), node.get_input_partial_shape(1)
    out = values
    if seq.has_rank():
        require(len(seq) >= 1, "sorted_sequence is a scalar; it must have rank >= 1.")
        if len(seq) > 1 and values.has_rank():
            require(len(values) == len(seq), f"values {values} must have the rank of sorted_sequence {seq} "
                                             "(or sorted_sequence must be 1D).")
            lead = [_merge(a, b, f"sorted_sequence {seq} and values {values} differ in dim {i}.")
                    for i, (a, b) in enumerate(zip(seq.dims[:-1], values.dims[:-1], strict=True))]
            out = PartialShape([*lead, values[-1]])
    return [(node.attrs["output_type"], out)]


def search_sorted(sorted_sequence: NodeInput, values: NodeInput, right_mode: bool = False, output_type: Any = "i64",
                  name: str | None = None) -> Node:
    """SearchSorted-15: where ``values`` would be inserted into ``sorted_sequence`` (its last axis)."""
    return make_node("SearchSorted", 15, [as_output(sorted_sequence), as_output(values)],
                     {"right_mode": right_mode, "output_type": output_type}, name)
