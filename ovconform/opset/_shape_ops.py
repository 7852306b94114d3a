"""Shape ops: Reshape, Squeeze, Unsqueeze, ShapeOf, Broadcast.

Index inputs (target shapes, axes, axes mappings) are integer tensors; when they are known at
build time (a Constant, or ShapeOf of a static shape) the output shape is exact, otherwise the
rank is taken from the index input's length and the dimensions are dynamic, as OpenVINO does.

Attribute spellings are those OpenVINO writes to IR v11: Reshape ``special_zero``; Squeeze-15
``allow_axis_skip``; ShapeOf-3 ``output_type`` (Type i32/i64); Broadcast ``mode`` — v1
"numpy", "none" (the explicit mode: OpenVINO writes "none"; "explicit" is accepted and stored as
"none") or "pdpd", v3 "numpy", "explicit" or "bidirectional".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ovconform.errors import ValidationError
from ovconform.ir import (
    AttrSpec,
    Dimension,
    Node,
    Output,
    PartialShape,
    Type,
    constant_value,
    define_op,
    make_node,
)
from ovconform.opset._helpers import NodeInput, as_output, broadcast_shapes, make_constant, normalize_axis, require

__all__ = ["broadcast", "reshape", "shape_of", "squeeze", "unsqueeze"]

Infer = list[tuple[Type, PartialShape]]


# -- index inputs (shared with _movement) -----------------------------------------------------------

def index_input(value: NodeInput, what: str) -> Output:
    """A node/output as is; a literal becomes an integer Constant (i64 unless an int ndarray)."""
    if isinstance(value, (Node, Output)):
        return as_output(value)
    arr = np.asarray(value)
    if arr.size == 0 and arr.dtype.kind == "f":  # [] parses as float64
        arr = arr.astype(np.int64)
    if arr.dtype.kind not in "iu":
        raise ValidationError(f"{what} {value!r} must be integers; got numpy dtype {arr.dtype}.")
    return make_constant(arr).output(0)


def require_integer(node: Node, index: int, what: str) -> None:
    et = node.get_input_element_type(index)
    require(et.is_integral_number(), f"{what} (input {index}) has element type {et}; it must be an integer type.")


def require_rank_at_most(node: Node, index: int, rank: int, what: str) -> None:
    shape = node.get_input_partial_shape(index)
    require(not shape.has_rank() or len(shape) <= rank,
            f"{what} (input {index}) has shape {shape}; it must have rank {'0 or 1' if rank == 1 else rank}.")


def const_ints(node: Node, index: int) -> list[int] | None:
    """The build-time value of input ``index`` as a flat list of ints, or None."""
    value = constant_value(node.input_value(index))
    return None if value is None else [int(v) for v in np.asarray(value).reshape(-1)]


def static_length(node: Node, index: int) -> int | None:
    """The number of elements of a 0D/1D input when its shape is static, else None."""
    shape = node.get_input_partial_shape(index)
    return int(np.prod(shape.to_shape(), dtype=np.int64)) if shape.is_static else None


def product(dims: Sequence[Dimension]) -> Dimension:
    out = Dimension(1)
    for d in dims:
        out = out * d
    return out


# -- Reshape -------------------------------------------------------------------------------------

@define_op("Reshape", 1, inputs=2, attrs=[AttrSpec("special_zero", "bool")])
def _infer_reshape(node: Node) -> Infer:
    """Output dims from the target shape; 0 copies the input dim when special_zero; one -1 is inferred."""
    require_integer(node, 1, "the target shape")
    pattern = node.get_input_partial_shape(1)
    require(not pattern.has_rank() or len(pattern) == 1, f"the target shape has shape {pattern}; it must be 1D.")
    et, data = node.get_input_element_type(0), node.get_input_partial_shape(0)
    values = const_ints(node, 1)
    if values is None:
        n = static_length(node, 1)
        return [(et, PartialShape.dynamic(n))]
    return [(et, reshape_dims(data, values, node.attrs["special_zero"]))]


def reshape_dims(data: PartialShape, values: list[int], special_zero: bool) -> PartialShape:
    bad = [v for v in values if v < -1]
    require(not bad, f"target shape {values} has value(s) {bad}; allowed: -1, 0 and positive sizes.")
    require(values.count(-1) <= 1, f"target shape {values} has more than one -1.")
    out: list[Dimension | None] = []
    copied: set[int] = set()
    for i, v in enumerate(values):
        if v == 0 and special_zero:
            if data.has_rank():
                require(i < len(data), f"target shape {values} copies input dim {i} (special_zero) "
                                       f"but the input {data} has rank {len(data)}.")
                out.append(data[i])
                copied.add(i)
            else:
                out.append(Dimension())
        else:
            out.append(None if v == -1 else Dimension(v))
    if -1 in values:
        known = product([d for i, d in enumerate(out) if d is not None and i not in copied])
        out[values.index(-1)] = _minus_one_dim(data, copied, known, values)
    result = PartialShape(out)  # type: ignore[arg-type]
    if data.has_rank():
        have, want = product(list(data)), product(list(result))
        require(have.compatible(want), f"cannot reshape input of shape {data} into {result} "
                                       f"(target {values}, special_zero={special_zero}): element counts differ.")
    return result


def _minus_one_dim(data: PartialShape, copied: set[int], known: Dimension, values: list[int]) -> Dimension:
    if not data.has_rank():
        return Dimension()
    rest = product([d for i, d in enumerate(data) if i not in copied])
    if known == 0:
        if rest == 0:
            return Dimension(1)
        require(rest.contains(0), f"target shape {values} has a zero-size dim, so -1 cannot be inferred "
                                  f"from input {data} that has no zero-size dim.")
        return Dimension()
    k = known.get_length()
    if rest.is_static:
        require(rest.get_length() % k == 0,
                f"target shape {values} does not divide the {rest.get_length()} elements of input {data}.")
    return rest // k


def reshape(node: NodeInput, output_shape: NodeInput, special_zero: bool, name: str | None = None) -> Node:
    """Reshape-1: ``output_shape`` values; 0 copies the input dim when ``special_zero``; one -1 is inferred."""
    return make_node("Reshape", 1, [as_output(node), index_input(output_shape, "Reshape target shape")],
                     {"special_zero": special_zero}, name)


# -- Squeeze / Unsqueeze --------------------------------------------------------------------------

def _infer_squeeze(node: Node) -> Infer:
    """Drop the size-1 dims named by ``axes`` (all size-1 dims without axes); others are kept as is."""
    et, data = node.get_input_element_type(0), node.get_input_partial_shape(0)
    axes: list[int] | None = None
    if node.get_input_size() == 2:
        require_integer(node, 1, "axes")
        require_rank_at_most(node, 1, 1, "axes")
        axes = const_ints(node, 1)
        if axes is None:
            n = static_length(node, 1)
            rank = len(data) - 1 if data.has_rank() and n == 1 else None
            return [(et, PartialShape.dynamic(rank))]
    if not data.has_rank():
        return [(et, PartialShape.dynamic())]
    skip = node.attrs.get("allow_axis_skip", False)
    return [(et, squeeze_dims(data, axes, skip))]


def squeeze_dims(data: PartialShape, axes: list[int] | None, allow_axis_skip: bool = False) -> PartialShape:
    if not axes:  # no axes, or empty axes: every size-1 dim goes
        if any(d.is_dynamic and d.contains(1) for d in data):
            return PartialShape.dynamic()
        return PartialShape([d for d in data if d != 1])
    chosen = {normalize_axis(a, len(data), "squeeze axis") for a in axes}
    out = []
    for i, d in enumerate(data):
        if i not in chosen or not d.contains(1):
            out.append(d)  # not chosen, or cannot be 1: copied as is
        elif d.is_dynamic and allow_axis_skip:
            return PartialShape.dynamic()
    return PartialShape(out)


define_op("Squeeze", 1, inputs=(1, 2))(_infer_squeeze)
define_op("Squeeze", 15, inputs=(1, 2), attrs=[AttrSpec("allow_axis_skip", "bool", False)])(_infer_squeeze)


def squeeze(data: NodeInput, axes: NodeInput | None = None, allow_axis_skip: bool = False,
            name: str | None = None) -> Node:
    """Squeeze-15 (as ``openvino.opset16.squeeze``); Squeeze-1 via ``make_node("Squeeze", 1, ...)``."""
    inputs = [as_output(data)] + ([] if axes is None else [index_input(axes, "Squeeze axes")])
    return make_node("Squeeze", 15, inputs, {"allow_axis_skip": allow_axis_skip}, name)


@define_op("Unsqueeze", 1, inputs=2)
def _infer_unsqueeze(node: Node) -> Infer:
    """Insert size-1 dims at ``axes`` (positions in the output; repeated axes count once, as OpenVINO)."""
    require_integer(node, 1, "axes")
    require_rank_at_most(node, 1, 1, "axes")
    et, data = node.get_input_element_type(0), node.get_input_partial_shape(0)
    axes = const_ints(node, 1)
    if axes is None or not data.has_rank():
        return [(et, PartialShape.dynamic())]
    require(len(axes) > 0, "axes is empty; Unsqueeze needs at least one axis.")
    rank = len(data) + len(set(axes))
    chosen = {normalize_axis(a, rank, "unsqueeze axis") for a in axes}
    final = len(data) + len(chosen)
    require(max(chosen) < final, f"axes {axes} (repeated after normalization) leave a gap in output rank {final}.")
    dims = iter(data)
    return [(et, PartialShape([Dimension(1) if i in chosen else next(dims) for i in range(final)]))]


def unsqueeze(data: NodeInput, axes: NodeInput, name: str | None = None) -> Node:
    return make_node("Unsqueeze", 1, [as_output(data), index_input(axes, "Unsqueeze axes")], {}, name)


# -- ShapeOf -------------------------------------------------------------------------------------

def _shape_of_shape(node: Node) -> PartialShape:
    data = node.get_input_partial_shape(0)
    return PartialShape([len(data)]) if data.has_rank() else PartialShape.dynamic(1)


@define_op("ShapeOf", 1, inputs=1)
def _infer_shape_of_1(node: Node) -> Infer:
    """The input's shape as a 1D i64 tensor."""
    return [(Type.i64, _shape_of_shape(node))]


@define_op("ShapeOf", 3, inputs=1, attrs=[AttrSpec("output_type", "type", Type.i64, (Type.i32, Type.i64))])
def _infer_shape_of_3(node: Node) -> Infer:
    """The input's shape as a 1D tensor of ``output_type`` (i32 or i64)."""
    return [(node.attrs["output_type"], _shape_of_shape(node))]


def shape_of(data: NodeInput, output_type: Any = "i64", name: str | None = None) -> Node:
    """ShapeOf-3; ShapeOf-1 (always i64) via ``make_node("ShapeOf", 1, ...)``."""
    return make_node("ShapeOf", 3, [as_output(data)], {"output_type": output_type}, name)


# -- Broadcast -----------------------------------------------------------------------------------

@define_op("Broadcast", 1, inputs=(2, 3),
           attrs=[AttrSpec("mode", "str", "numpy", ("numpy", "explicit", "none", "pdpd"))])
def _infer_broadcast_1(node: Node) -> Infer:
    """Broadcast data to ``target_shape`` (numpy/pdpd: right-aligned; none = explicit: axes_mapping)."""
    if node.attrs["mode"] == "explicit":
        node.attrs["mode"] = "none"  # the spelling OpenVINO writes for Broadcast-1's explicit mode
    mode = "explicit" if node.attrs["mode"] == "none" else node.attrs["mode"]
    require(mode != "explicit" or node.get_input_size() == 3, "mode 'none' (explicit) needs the axes_mapping input.")
    return [(node.get_input_element_type(0), _broadcast_shape(node, mode))]


@define_op("Broadcast", 3, inputs=(2, 3),
           attrs=[AttrSpec("mode", "str", "numpy", ("numpy", "explicit", "bidirectional"))])
def _infer_broadcast_3(node: Node) -> Infer:
    """Broadcast data to ``target_shape`` (numpy, explicit with axes_mapping, or bidirectional)."""
    mode = node.attrs["mode"]
    if mode == "explicit":
        require(node.get_input_size() == 3, "mode 'explicit' needs the axes_mapping input.")
    else:
        require(node.get_input_size() == 2, f"the axes_mapping input is only allowed in mode 'explicit', not {mode!r}.")
    return [(node.get_input_element_type(0), _broadcast_shape(node, mode))]


def _broadcast_shape(node: Node, mode: str) -> PartialShape:
    require_integer(node, 1, "target_shape")
    tshape = node.get_input_partial_shape(1)
    require(not tshape.has_rank() or len(tshape) == 1, f"target_shape has shape {tshape}; it must be 1D.")
    data = node.get_input_partial_shape(0)
    target = const_ints(node, 1)
    if target is None:
        return _broadcast_unknown_target(data, static_length(node, 1), mode)
    bad = [t for t in target if t < 0]
    require(not bad, f"target_shape {target} has negative value(s) {bad}.")
    if mode == "bidirectional":
        return broadcast_shapes(data, PartialShape(target))
    if mode == "explicit":
        _check_explicit(node, data, target)
    elif data.has_rank():
        _check_numpy(data, target)
    return PartialShape(target)


def _broadcast_unknown_target(data: PartialShape, n: int | None, mode: str) -> PartialShape:
    if n is None:
        return PartialShape.dynamic()
    if mode != "bidirectional" or not data.has_rank():
        return PartialShape.dynamic(n if mode != "bidirectional" else None)
    only_data = max(0, len(data) - n)  # leading data dims no target dim meets: kept as they are
    met = [d if d.is_static and d != 1 else Dimension() for d in data.dims[only_data:]]
    return PartialShape([*data.dims[:only_data], *[Dimension()] * max(0, n - len(data)), *met])


def _check_numpy(data: PartialShape, target: list[int]) -> None:
    require(len(data) <= len(target), f"input shape {data} has a larger rank than target_shape {target}.")
    off = len(target) - len(data)
    for i, d in enumerate(data):
        t = target[off + i]
        require(d.contains(1) or d.contains(t),
                f"input shape {data} cannot broadcast to target_shape {target} (numpy rules): "
                f"input dim {i} is {d}; allowed 1 or {t}.")


def _check_explicit(node: Node, data: PartialShape, target: list[int]) -> None:
    require_integer(node, 2, "axes_mapping")
    mapping = const_ints(node, 2)
    if mapping is None or not data.has_rank():
        return
    require(len(mapping) == len(data),
            f"axes_mapping {mapping} has {len(mapping)} value(s); the input {data} has rank {len(data)}.")
    require(all(a < b for a, b in zip(mapping, mapping[1:], strict=False)),
            f"axes_mapping {mapping} must be strictly increasing (Broadcast does not transpose).")
    for i, (d, a) in enumerate(zip(data, mapping, strict=True)):
        require(0 <= a < len(target),
                f"axes_mapping {mapping} value {a} is out of range for target rank {len(target)}.")
        t = target[a]
        require(d.contains(1) or d.contains(t),
                f"input dim {i} is {d} but target_shape[{a}] is {t} (axes_mapping {mapping}); allowed 1 or {t}.")


def broadcast(data: NodeInput, target_shape: NodeInput, axes_mapping: NodeInput | None = None,
              broadcast_spec: str = "NUMPY", name: str | None = None) -> Node:
    """Broadcast-3 with ``broadcast_spec`` NUMPY, EXPLICIT (needs ``axes_mapping``) or BIDIRECTIONAL."""
    mode = broadcast_spec.lower() if isinstance(broadcast_spec, str) else broadcast_spec
    inputs = [as_output(data), index_input(target_shape, "Broadcast target_shape")]
    if axes_mapping is not None:
        inputs.append(index_input(axes_mapping, "Broadcast axes_mapping"))
    return make_node("Broadcast", 3, inputs, {"mode": mode}, name)
