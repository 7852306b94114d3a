"""CTCLoss-4: the connectionist temporal classification loss per batch item.

Inputs: ``logits`` [N, T, C] (floating-point), ``logit_length`` [N], ``labels`` [N, T],
``label_length`` [N] and optionally ``blank_index`` (a scalar; default C - 1), all of one
integer type (i32 or i64). Output [N] of the logits' type. Attributes as OpenVINO writes them:
``preprocess_collapse_repeated``, ``ctc_merge_repeated``, ``unique``.
"""

from __future__ import annotations

from ovconform.ir import AttrSpec, Dimension, Node, PartialShape, Type, define_op, make_node
from ovconform.opset._helpers import NodeInput, as_output, require

__all__ = ["ctc_loss"]

_NAMES = ("logits", "logit_length", "labels", "label_length", "blank_index")
_RANKS = (3, 1, 2, 1, 0)


def _merge(dims: list[tuple[str, Dimension]]) -> Dimension:
    merged = Dimension.dynamic()
    for what, dim in dims:
        require(merged.compatible(dim), f"{what} is {dim}; it must equal the other inputs' {merged}.")
        if dim.is_static:
            merged = dim
    return merged


@define_op("CTCLoss", 4, inputs=(4, 5), attrs=[
    AttrSpec("preprocess_collapse_repeated", "bool", False), AttrSpec("ctc_merge_repeated", "bool", True),
    AttrSpec("unique", "bool", False)])
def _infer_ctc_loss(node: Node) -> list[tuple[Type, PartialShape]]:
    et = node.get_input_element_type(0)
    require(et.is_real(), f"logits (input 0) have element type {et}; they must be floating-point.")
    shapes = []
    for i in range(node.get_input_size()):
        shape = node.get_input_partial_shape(i)
        if i:
            it = node.get_input_element_type(i)
            require(it in (Type.i32, Type.i64),
                    f"{_NAMES[i]} (input {i}) has element type {it}; it must be i32 or i64.")
        if not shape.has_rank():
            shape = PartialShape.dynamic(_RANKS[i])
        require(len(shape) == _RANKS[i], f"{_NAMES[i]} (input {i}) has shape {shape}; it must have rank {_RANKS[i]}.")
        shapes.append(shape)
    n = _merge([("logits dim 0", shapes[0][0]), ("logit_length dim 0", shapes[1][0]), ("labels dim 0", shapes[2][0]),
                ("label_length dim 0", shapes[3][0])])
    _merge([("logits dim 1 (time)", shapes[0][1]), ("labels dim 1", shapes[2][1])])
    return [(et, PartialShape([n]))]


def ctc_loss(logits: NodeInput, logits_length: NodeInput, labels: NodeInput, labels_length: NodeInput,
             blank_index: NodeInput | None = None, preprocess_collapse_repeated: bool = False,
             ctc_merge_repeated: bool = True, unique: bool = False, name: str | None = None) -> Node:
    """CTCLoss-4 (the arguments of ``openvino.opset4.ctc_loss``; literal lengths/labels become i32)."""
    inputs = [as_output(logits), *(as_output(v, Type.i32) for v in (logits_length, labels, labels_length))]
    if blank_index is not None:
        inputs.append(as_output(blank_index, Type.i32))
    attrs = {"preprocess_collapse_repeated": preprocess_collapse_repeated, "ctc_merge_repeated": ctc_merge_repeated,
             "unique": unique}
    return make_node("CTCLoss", 4, inputs, attrs, name)
