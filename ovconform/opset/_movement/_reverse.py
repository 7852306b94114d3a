"""Reverse-1 (opset1; OpenVINO's Python API has no builder for it, ``NodeFactory("opset1")`` creates it).

The output is ``data`` with the elements of some axes in reverse order. ``mode`` says how input 1
names them: ``"index"`` — a 1D tensor of any integer type holding axis indices (negative counts
from the end; an axis named twice is reversed once, as OpenVINO's AxisSet does), or ``"mask"`` — a
1D boolean tensor with one value per data dim (true: reverse that dim). No axis named (an empty
index tensor, or an all-false mask) passes the data through.
"""

from __future__ import annotations

import numpy as np

from ovconform.errors import ValidationError
from ovconform.ir import AttrSpec, Node, Output, Type, define_op, make_node
from ovconform.opset._helpers import NodeInput, as_output, make_constant, normalize_axis, require
from ovconform.opset._inputs import Infer, const_ints, index_input

__all__ = ["reverse"]

MODES = ("index", "mask")


@define_op("Reverse", 1, inputs=2, attrs=[AttrSpec("mode", "str", choices=MODES)])
def _infer_reverse(node: Node) -> Infer:
    """Same type and shape as ``data``; checks the axes input against ``mode`` and the data rank."""
    mode = node.attrs["mode"]
    et, data = node.get_input_element_type(0), node.get_input_partial_shape(0)
    axes_t, axes = node.get_input_element_type(1), node.get_input_partial_shape(1)
    require(not axes.has_rank() or len(axes) == 1, f"axes (input 1) has shape {axes}; it must be 1D.")
    if mode == "mask":
        require(axes_t == Type.boolean,
                f"axes (input 1) has element type {axes_t}; in mode 'mask' it must be boolean.")
        if axes.has_rank() and data.has_rank():
            require(axes[0].compatible(len(data)),
                    f"axes (input 1) has shape {axes}; in mode 'mask' it needs one value per dim of data {data} "
                    f"({len(data)}).")
    else:
        require(axes_t.is_integral_number(),
                f"axes (input 1) has element type {axes_t}; in mode 'index' it must be an integer type.")
        values = const_ints(node, 1)
        if values is not None and data.has_rank():
            for a in values:
                normalize_axis(a, len(data), "axes value")
    return [(et, data)]


def _axes_input(axes: NodeInput, mode: str) -> Output:
    if isinstance(axes, (Node, Output)):
        return as_output(axes)
    if mode == "mask":
        arr = np.asarray(axes)
        if arr.dtype != np.bool_ and not (arr.size == 0 and arr.dtype.kind == "f"):
            raise ValidationError(f"Reverse axes {axes!r} must be booleans in mode 'mask'; "
                                  f"got numpy dtype {arr.dtype}.")
        return make_constant(arr.astype(np.bool_), Type.boolean).output(0)
    return index_input(axes, "Reverse axes")


def reverse(data: NodeInput, axes: NodeInput, mode: str, name: str | None = None) -> Node:
    """Reverse-1: ``data`` with the axes ``axes`` names reversed; ``mode`` is ``"index"`` (axes are
    axis indices, literals become an i64 Constant) or ``"mask"`` (one boolean per data dim)."""
    if mode not in MODES:
        raise ValidationError(f"Reverse mode {mode!r} is not allowed; allowed: 'index', 'mask'.")
    return make_node("Reverse", 1, [as_output(data), _axes_input(axes, mode)], {"mode": mode}, name)
