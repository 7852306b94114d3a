"""FLOPs and MACs per op, from the IR (static shapes), for GFLOP/s per op.

Counting rules (the usual ones of model profilers; a multiply-accumulate is 2 FLOPs):

* Convolution: MACs = output elements x C_in x kernel size; GroupConvolution: C_in / groups;
  ConvolutionBackpropData: input elements x C_out x kernel size;
* MatMul: MACs = output elements x K (the contracted length, after transpose_a);
* elementwise arithmetic and activations: 1 FLOP per output element (exp, erf, tanh ... count
  as one); Softmax / LogSoftmax: 5 per element; Gelu, MVN, normalizations: 8 per element;
* reductions: 1 FLOP per input element; MaxPool / AvgPool: 1 per window element per output;
* data movement (Reshape, Transpose, Concat, Gather, Convert, ...), Parameter, Constant, Result:
  0 — listed with ``flops = 0``;
* an op whose shapes are not static, or whose type has no rule: not listed (unknown).
"""

from __future__ import annotations

from typing import Any

from ovconform.ir import Model, Node

__all__ = ["model_flops", "node_flops"]

_ZERO = frozenset({
    "Parameter", "Constant", "Result", "Reshape", "Transpose", "Squeeze", "Unsqueeze", "Concat", "Split",
    "VariadicSplit", "Gather", "ShapeOf", "Convert", "ConvertLike", "Broadcast", "StridedSlice", "Identity",
    "ReadValue", "Assign", "Tile", "Slice", "Pad",
})
_PER_ELEMENT = {"Softmax": 5, "LogSoftmax": 5, "Gelu": 8, "MVN": 8, "NormalizeL2": 8, "Swish": 4, "Mish": 6,
                "HSwish": 4, "HSigmoid": 3, "SoftPlus": 3, "Selu": 4, "Elu": 3}
_REDUCE = frozenset({"ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
                     "ReduceLogicalAnd", "ReduceLogicalOr"})
_POOL = frozenset({"MaxPool", "AvgPool"})


def _numel(shape: Any) -> int:
    n = 1
    for d in shape:
        n *= int(d)
    return n


def _static(node: Node) -> bool:
    ports = [node.get_input_partial_shape(i) for i in range(node.get_input_size())]
    ports += [node.get_output_partial_shape(i) for i in range(node.get_output_size())]
    return all(p.is_static for p in ports)


def _shape(node: Node, index: int, output: bool = True) -> list[int]:
    ps = node.get_output_partial_shape(index) if output else node.get_input_partial_shape(index)
    return list(ps.to_shape())


def _macs(node: Node) -> int | None:
    t = node.type_name
    if t == "Convolution":
        w = _shape(node, 1, output=False)
        return _numel(_shape(node, 0)) * w[1] * _numel(w[2:])
    if t == "GroupConvolution":
        w = _shape(node, 1, output=False)  # [G, C_out/G, C_in/G, k...]
        return _numel(_shape(node, 0)) * w[2] * _numel(w[3:])
    if t == "ConvolutionBackpropData":
        w = _shape(node, 1, output=False)  # [C_in, C_out, k...]
        return _numel(_shape(node, 0, output=False)) * w[1] * _numel(w[2:])
    if t == "MatMul":
        a = _shape(node, 0, output=False)
        transpose_a = bool(node.get_attributes().get("transpose_a", False))
        k = (a[-2] if transpose_a and len(a) > 1 else a[-1]) if a else 1
        return _numel(_shape(node, 0)) * k
    return None


def node_flops(node: Node) -> dict[str, int] | None:
    """``{"flops", "macs"}`` of one node, or None when unknown (dynamic shapes, no rule)."""
    t = node.type_name
    if t in _ZERO:
        return {"flops": 0, "macs": 0}
    if node.get_output_size() == 0 or not _static(node):
        return None
    macs = _macs(node)
    if macs is not None:
        return {"flops": 2 * macs, "macs": macs}
    out = _numel(_shape(node, 0))
    if t in _REDUCE:
        return {"flops": _numel(_shape(node, 0, output=False)), "macs": 0}
    if t in _POOL:
        kernel = node.get_attributes().get("kernel", [])
        return {"flops": out * _numel(kernel or [1]), "macs": 0}
    return {"flops": out * _PER_ELEMENT.get(t, 1), "macs": 0}


def model_flops(model: Model) -> dict[str, dict[str, int]]:
    """``{friendly name: {"flops", "macs"}}`` for every op of ``model`` with a known count."""
    out = {}
    for node in model.get_ordered_ops():
        try:
            counted = node_flops(node)
        except (IndexError, ValueError, TypeError, AttributeError):
            counted = None
        if counted is not None:
            out[node.friendly_name] = counted
    return out
