"""YOLO builders: ReorgYolo-2 (``stride``) and RegionYolo-1 (``anchors``, ``axis``, ``coords``, ``classes``,
``end_axis``, ``num``, ``do_softmax``, ``mask``), the attribute order OpenVINO writes.

* ReorgYolo-2: NCHW data, H and W divisible by the stride, C at least stride²; output
  ``[N, C * stride², H / stride, W / stride]``. ``stride`` is written as one value (OpenVINO's
  builder takes ``[s]``; ``[s, s]`` is accepted too).
* RegionYolo-1: NCHW floating-point data. With ``do_softmax`` (YOLO v2) the output flattens dims
  ``axis..end_axis`` of the input; without it (YOLO v3) the output is
  ``[N, len(mask) * (coords + classes + 1), H, W]``.
"""

from __future__ import annotations

from collections.abc import Sequence

from ovconform.ir import AttrSpec, Dimension, Node, PartialShape, define_op, make_node
from ovconform.opset._helpers import NodeInput, as_output, normalize_axis, require
from ovconform.opset._inputs import Infer

__all__ = ["region_yolo", "reorg_yolo"]

def _nchw(node: Node) -> PartialShape:
    shape = node.get_input_partial_shape(0)
    if not shape.has_rank():
        return PartialShape.dynamic(4)
    require(len(shape) == 4, f"data (input 0) has shape {shape}; it must be NCHW (rank 4).")
    return shape


def reorg_stride(node: Node) -> int:
    stride = node.attrs["stride"]
    require(len(stride) >= 1 and all(s == stride[0] for s in stride) and stride[0] > 0,
            f"attribute 'stride' is {stride}; it must be one positive integer (or equal values).")
    return int(stride[0])


@define_op("ReorgYolo", 2, inputs=1, attrs=[AttrSpec("stride", "ints")])
def _infer_reorg_yolo(node: Node) -> Infer:
    s = reorg_stride(node)
    shape = _nchw(node)
    n, c, h, w = shape.dims
    require(not c.is_static or c.get_length() >= s * s,
            f"data {shape} has {c} channels; ReorgYolo needs at least stride² = {s * s}.")
    for d, what in ((h, "height"), (w, "width")):
        require(not d.is_static or d.get_length() % s == 0, f"data {shape} has {what} {d}; it must be divisible by "
                                                            f"stride {s}.")
    dims = [n, c * (s * s), h // s if h.is_static else Dimension(), w // s if w.is_static else Dimension()]
    return [(node.get_input_element_type(0), PartialShape(dims))]


def reorg_yolo(input: NodeInput, stride: int | Sequence[int], name: str | None = None) -> Node:  # noqa: A002
    """ReorgYolo-2 (Darknet's reorg) with ``stride`` (an int or ``[s]``)."""
    strides = [int(stride)] if isinstance(stride, int) else [int(s) for s in stride]
    return make_node("ReorgYolo", 2, [as_output(input)], {"stride": strides}, name)


@define_op("RegionYolo", 1, inputs=1, attrs=[
    AttrSpec("anchors", "floats", []), AttrSpec("axis", "int", 1), AttrSpec("coords", "int", 4),
    AttrSpec("classes", "int", 20), AttrSpec("end_axis", "int", 3), AttrSpec("num", "int", 5),
    AttrSpec("do_softmax", "bool", True), AttrSpec("mask", "ints", [])])
def _infer_region_yolo(node: Node) -> Infer:
    et = node.get_input_element_type(0)
    require(et.is_real(), f"data (input 0) has element type {et}; RegionYolo needs a floating-point type.")
    a = node.attrs
    require(a["coords"] >= 0 and a["classes"] >= 0 and a["num"] >= 0,
            f"coords={a['coords']}, classes={a['classes']} and num={a['num']} must not be negative.")
    shape = _nchw(node)
    if not a["do_softmax"]:
        per = len(a["mask"]) * (a["coords"] + a["classes"] + 1)
        return [(et, PartialShape([shape[0], per, shape[2], shape[3]]))]
    first = normalize_axis(a["axis"], 4, "attribute 'axis'")
    last = normalize_axis(a["end_axis"], 4, "attribute 'end_axis'")
    require(first <= last, f"attribute 'end_axis' {a['end_axis']} must not come before 'axis' {a['axis']}.")
    flat = Dimension(1)
    for d in shape.dims[first:last + 1]:
        flat = flat * d
    return [(et, PartialShape([*shape.dims[:first], flat, *shape.dims[last + 1:]]))]


def region_yolo(input: NodeInput, coords: int, classes: int, num: int, do_softmax: bool,  # noqa: A002
                mask: Sequence[int], axis: int, end_axis: int, anchors: Sequence[float] | None = None,
                name: str | None = None) -> Node:
    """RegionYolo-1 (the argument order of ``openvino.opset1.region_yolo``)."""
    attrs = {"anchors": [float(v) for v in anchors or []], "axis": axis, "coords": coords, "classes": classes,
             "end_axis": end_axis, "num": num, "do_softmax": do_softmax, "mask": [int(m) for m in mask]}
    return make_node("RegionYolo", 1, [as_output(input)], attrs, name)
