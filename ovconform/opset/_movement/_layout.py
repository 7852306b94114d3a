"""Transpose-1, Broadcast-1/3, Tile-1, Roll-7, DepthToSpace-1, SpaceToDepth-1, ShuffleChannels-1,
ReverseSequence-1, Pad-1/12, BatchToSpace-2 and SpaceToBatch-2.

Attribute spellings are those OpenVINO writes to IR v11: Broadcast ``mode`` — v1 "numpy", "none"
(the explicit mode: OpenVINO writes "none"; "explicit" is accepted and stored as "none") or "pdpd",
v3 "numpy", "explicit" or "bidirectional"; DepthToSpace/SpaceToDepth ``block_size``, ``mode``;
ShuffleChannels ``axis``, ``group``; ReverseSequence ``batch_axis``, ``seq_axis``; Pad
``pad_mode``. Index inputs (target shapes, axes, pads, block shapes) are integer tensors; when
they are known at build time the output shape is exact, otherwise the dims they decide are
dynamic, as OpenVINO does.
"""

from __future__ import annotations

import math

import numpy as np

from ovconform.ir import AttrSpec, Dimension, Node, PartialShape, Type, define_op, make_node
from ovconform.opset._helpers import NodeInput, as_output, broadcast_shapes, normalize_axis, require
from ovconform.opset._inputs import Infer, _merge, const_ints, index_input, require_integer, static_length

__all__ = [
    "batch_to_space", "broadcast", "depth_to_space", "pad", "reverse_sequence", "roll", "shuffle_channels",
    "space_to_batch", "space_to_depth", "tile", "transpose",
]

@define_op("Transpose", 1, inputs=2)
def _infer_transpose(node: Node) -> Infer:
    """Permute dims by ``input_order`` (a permutation of 0..rank-1; empty = reversed)."""
    require_integer(node, 1, "input_order")
    oshape = node.get_input_partial_shape(1)
    require(not oshape.has_rank() or len(oshape) == 1, f"input_order has shape {oshape}; it must be 1D.")
    et, data = node.get_input_element_type(0), node.get_input_partial_shape(0)
    order = const_ints(node, 1)
    n = static_length(node, 1)
    if data.has_rank() and n not in (None, 0):
        require(n == len(data), f"input_order has {n} value(s); the input {data} has rank {len(data)}.")
    if order is None:
        return [(et, PartialShape.dynamic(len(data) if data.has_rank() else n or None))]
    if not order:
        return [(et, PartialShape(list(reversed(data.dims))) if data.has_rank() else PartialShape.dynamic())]
    require(sorted(order) == list(range(len(order))),
            f"input_order {order} is not a permutation of 0..{len(order) - 1}.")
    if not data.has_rank():
        return [(et, PartialShape.dynamic(len(order)))]
    return [(et, PartialShape([data[i] for i in order]))]


def transpose(data: NodeInput, input_order: NodeInput, name: str | None = None) -> Node:
    return make_node("Transpose", 1, [as_output(data), index_input(input_order, "Transpose input_order")], {}, name)


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


_INF = Dimension().max_length


def _vector_input(node: Node, index: int, what: str, scalar_ok: bool = False) -> int | None:
    """Input ``index`` is an integer 1D tensor (or a scalar when ``scalar_ok``); its static length."""
    require_integer(node, index, what)
    shape = node.get_input_partial_shape(index)
    ranks = "0 or 1" if scalar_ok else "1"
    require(not shape.has_rank() or len(shape) == 1 or (scalar_ok and len(shape) == 0),
            f"{what} (input {index}) has shape {shape}; it must have rank {ranks}.")
    return static_length(node, index)


def _rank_at_least(shape: PartialShape, rank: int, what: str = "data") -> None:
    require(not shape.has_rank() or len(shape) >= rank,
            f"{what} has shape {shape}; it must have rank >= {rank}.")


def _shifted(dim: Dimension, delta: int) -> Dimension:
    """``dim + delta`` clamped at 0 (delta may be negative)."""
    lo = max(dim.min_length + delta, 0)
    hi = _INF if dim.max_length == _INF else max(dim.max_length + delta, 0)
    return Dimension(lo) if lo == hi else Dimension(lo, hi)


# -- Tile -------------------------------------------------------------------------------------------

@define_op("Tile", 1, inputs=2)
def _infer_tile(node: Node) -> Infer:
    """Repeat ``data`` along each dim; the shorter of data rank / repeats is padded with leading 1s."""
    n = _vector_input(node, 1, "repeats")
    et, data = node.get_input_element_type(0), node.get_input_partial_shape(0)
    repeats = const_ints(node, 1)
    if repeats is None:
        rank = None if n is None or not data.has_rank() else max(n, len(data))
        return [(et, PartialShape.dynamic(rank))]
    bad = [r for r in repeats if r < 0]
    require(not bad, f"repeats {repeats} has negative value(s) {bad}; repeats must be >= 0.")
    if not data.has_rank():
        return [(et, PartialShape.dynamic())]
    rank = max(len(repeats), len(data))
    dims = [Dimension(1)] * (rank - len(data)) + list(data.dims)
    reps = [1] * (rank - len(repeats)) + repeats
    return [(et, PartialShape([d * r for d, r in zip(dims, reps, strict=True)]))]


def tile(data: NodeInput, repeats: NodeInput, name: str | None = None) -> Node:
    """Tile-1: ``data`` repeated ``repeats[i]`` times along dim i."""
    return make_node("Tile", 1, [as_output(data), index_input(repeats, "Tile repeats")], {}, name)


# -- Roll -------------------------------------------------------------------------------------------

@define_op("Roll", 7, inputs=3)
def _infer_roll(node: Node) -> Infer:
    """Shift elements along ``axes`` by ``shift`` (scalar: the same shift for every axis)."""
    for i, what in ((1, "shift"), (2, "axes")):
        et = node.get_input_element_type(i)
        require(et in (Type.i32, Type.i64), f"{what} (input {i}) has element type {et}; it must be i32 or i64.")
        _vector_input(node, i, what, scalar_ok=True)
    shift, axes = node.get_input_partial_shape(1), node.get_input_partial_shape(2)
    if shift.has_rank() and len(shift) == 1:
        require(axes.compatible(shift), f"shift has shape {shift} and axes {axes}; a 1D shift needs 1D axes "
                                        "of the same size.")
    et, data = node.get_input_element_type(0), node.get_input_partial_shape(0)
    values = const_ints(node, 2)
    if values is not None and data.has_rank():
        for a in values:  # a repeated axis is allowed: its shifts add up
            normalize_axis(a, len(data), "axes value")
    return [(et, data)]


def roll(data: NodeInput, shift: NodeInput, axes: NodeInput, name: str | None = None) -> Node:
    """Roll-7: elements move ``shift`` places along ``axes`` (a repeated axis adds its shifts)."""
    inputs = [as_output(data), index_input(shift, "Roll shift"), index_input(axes, "Roll axes")]
    return make_node("Roll", 7, inputs, {}, name)


# -- DepthToSpace / SpaceToDepth --------------------------------------------------------------------

_MODE = AttrSpec("mode", "str", choices=("blocks_first", "depth_first"))
_BLOCK = AttrSpec("block_size", "int", 1)


def _block_size(node: Node, data: PartialShape) -> int:
    bs = node.attrs["block_size"]
    require(bs >= 1, f"attribute block_size={bs} must be a positive integer.")
    _rank_at_least(data, 3)
    return bs


@define_op("DepthToSpace", 1, inputs=1, attrs=[_BLOCK, _MODE])
def _infer_depth_to_space(node: Node) -> Infer:
    """[N, C, D1..DK] -> [N, C / bs^K, D1*bs, ..., DK*bs]."""
    et, data = node.get_input_element_type(0), node.get_input_partial_shape(0)
    bs = _block_size(node, data)
    if not data.has_rank():
        return [(et, data)]
    k = len(data) - 2
    div = bs ** k
    c = data[1]
    if c.is_static:
        require(c.get_length() % div == 0, f"data {data} has depth {c}; it must divide by block_size^{k} = {div}.")
    return [(et, PartialShape([data[0], c // div, *(d * bs for d in data.dims[2:])]))]


@define_op("SpaceToDepth", 1, inputs=1, attrs=[_BLOCK, _MODE])
def _infer_space_to_depth(node: Node) -> Infer:
    """[N, C, D1..DK] -> [N, C * bs^K, D1/bs, ..., DK/bs]."""
    et, data = node.get_input_element_type(0), node.get_input_partial_shape(0)
    bs = _block_size(node, data)
    if not data.has_rank():
        return [(et, data)]
    for i, d in enumerate(data.dims[2:], start=2):
        require(not d.is_static or d.get_length() % bs == 0,
                f"data {data} has dim {i} = {d}; spatial dims must divide by block_size={bs}.")
    return [(et, PartialShape([data[0], data[1] * bs ** (len(data) - 2), *(d // bs for d in data.dims[2:])]))]


def depth_to_space(node: NodeInput, mode: str, block_size: int = 1, name: str | None = None) -> Node:
    """DepthToSpace-1: depth moves into ``block_size`` blocks of every spatial dim."""
    return make_node("DepthToSpace", 1, [as_output(node)], {"block_size": block_size, "mode": mode}, name)


def space_to_depth(data: NodeInput, mode: str, block_size: int = 1, name: str | None = None) -> Node:
    """SpaceToDepth-1: ``block_size`` blocks of every spatial dim move into the depth."""
    return make_node("SpaceToDepth", 1, [as_output(data)], {"block_size": block_size, "mode": mode}, name)


# -- ShuffleChannels ------------------------------------------------------------------------------

@define_op("ShuffleChannels", 1, inputs=1, attrs=[AttrSpec("axis", "int", 1), AttrSpec("group", "int", 1)])
def _infer_shuffle_channels(node: Node) -> Infer:
    """Split dim ``axis`` into [group, C/group] and swap the two."""
    et, data = node.get_input_element_type(0), node.get_input_partial_shape(0)
    group = node.attrs["group"]
    require(group >= 1, f"attribute group={group} must be a positive integer.")
    _rank_at_least(data, 1)
    if data.has_rank():
        c = data[normalize_axis(node.attrs["axis"], len(data), "attribute axis")]
        require(not c.is_static or c.get_length() % group == 0,
                f"data {data} has channel dim {c}; it must divide by group={group}.")
    return [(et, data)]


def shuffle_channels(data: NodeInput, axis: int, group: int, name: str | None = None) -> Node:
    """ShuffleChannels-1 over dim ``axis`` (negative counts from the end)."""
    return make_node("ShuffleChannels", 1, [as_output(data)], {"axis": axis, "group": group}, name)


# -- ReverseSequence ------------------------------------------------------------------------------

@define_op("ReverseSequence", 1, inputs=2, attrs=[AttrSpec("batch_axis", "int", 0), AttrSpec("seq_axis", "int", 1)])
def _infer_reverse_sequence(node: Node) -> Infer:
    """For every index i of ``batch_axis`` reverse the first seq_lengths[i] elements of ``seq_axis``."""
    lt = node.get_input_element_type(1)
    require(lt != Type.boolean, "seq_lengths (input 1) has element type boolean; it must be numeric.")
    lshape = node.get_input_partial_shape(1)
    require(not lshape.has_rank() or len(lshape) == 1, f"seq_lengths has shape {lshape}; it must be 1D.")
    et, data = node.get_input_element_type(0), node.get_input_partial_shape(0)
    _rank_at_least(data, 2)
    if not data.has_rank():
        return [(et, data)]
    b = normalize_axis(node.attrs["batch_axis"], len(data), "attribute batch_axis")
    s = normalize_axis(node.attrs["seq_axis"], len(data), "attribute seq_axis")
    require(b != s, f"batch_axis={node.attrs['batch_axis']} and seq_axis={node.attrs['seq_axis']} name the same "
                    f"dim of data {data}; they must differ.")
    dims = list(data.dims)
    if lshape.has_rank():
        dims[b] = _merge(dims[b], lshape[0], f"seq_lengths has shape {lshape}; it needs data dim batch_axis={b} "
                                             f"({dims[b]}) elements.")
    return [(et, PartialShape(dims))]


def reverse_sequence(input: NodeInput, seq_lengths: NodeInput, batch_axis: int, seq_axis: int,  # noqa: A002
                     name: str | None = None) -> Node:
    """ReverseSequence-1: seq_lengths of any numeric type (a float ndarray becomes a Constant of its type,
    other literals an integer Constant)."""
    if isinstance(seq_lengths, np.ndarray) and seq_lengths.dtype.kind == "f":
        lengths = as_output(seq_lengths)
    else:
        lengths = index_input(seq_lengths, "ReverseSequence seq_lengths")
    return make_node("ReverseSequence", 1, [as_output(input), lengths],
                     {"batch_axis": batch_axis, "seq_axis": seq_axis}, name)


# -- Pad -------------------------------------------------------------------------------------------

PAD_MODES = ("constant", "edge", "reflect", "symmetric")


def _infer_pad(node: Node) -> Infer:
    """Output dim D is ``max(pads_begin[D] + data.shape[D] + pads_end[D], 0)``."""
    et, data = node.get_input_element_type(0), node.get_input_partial_shape(0)
    lengths = [_vector_input(node, i, what) for i, what in ((1, "pads_begin"), (2, "pads_end"))]
    if node.get_input_size() == 4:
        vt, vshape = node.get_input_element_type(3), node.get_input_partial_shape(3)
        require(vt == et, f"pad_value has element type {vt}; it must match data ({et}).")
        require(not vshape.has_rank() or len(vshape) == 0, f"pad_value has shape {vshape}; it must be a scalar.")
    for n, what in zip(lengths, ("pads_begin", "pads_end"), strict=True):
        require(n is None or not data.has_rank() or n == len(data),
                f"{what} has {n} value(s); data {data} has rank {len(data) if data.has_rank() else '?'}.")
    begin, end = const_ints(node, 1), const_ints(node, 2)
    rank = len(data) if data.has_rank() else next((n for n in lengths if n is not None), None)
    if begin is None or end is None or not data.has_rank():
        return [(et, PartialShape.dynamic(rank))]
    if node.version == 1:
        bad = [v for v in begin + end if v < 0]
        require(not bad, f"pads {begin} / {end} have negative value(s) {bad}; Pad-1 needs pads >= 0 "
                         "(Pad-12 crops with negative pads).")
    mode = node.attrs["pad_mode"]
    for i, (d, pb, pe) in enumerate(zip(data.dims, begin, end, strict=True)):
        _check_pad_fits(mode, i, d, max(pb, pe))
    return [(et, PartialShape([_shifted(d, pb + pe) for d, pb, pe in zip(data.dims, begin, end, strict=True)]))]


def _check_pad_fits(mode: str, axis: int, dim: Dimension, pad: int) -> None:
    if pad <= 0 or mode == "constant" or not dim.is_static:
        return
    n = dim.get_length()
    limit = {"edge": None if n else 0, "reflect": n - 1, "symmetric": n}[mode]
    require(limit is None or pad <= limit, f"pad {pad} on dim {axis} (size {n}) is too large for pad_mode="
                                           f"{mode!r}; allowed at most {limit}.")


_PAD_MODE = AttrSpec("pad_mode", "str", choices=PAD_MODES)
define_op("Pad", 1, inputs=(3, 4), attrs=[_PAD_MODE])(_infer_pad)
define_op("Pad", 12, inputs=(3, 4), attrs=[_PAD_MODE])(_infer_pad)


def pad(arg: NodeInput, pads_begin: NodeInput, pads_end: NodeInput, pad_mode: str,
        arg_pad_value: NodeInput | None = None, name: str | None = None, *, version: int = 12) -> Node:
    """Pad-12 (``version=1`` for Pad-1, which takes no negative pads). ``arg_pad_value`` (a scalar of
    the data type) fills the constant mode; without it the fill is 0."""
    data = as_output(arg)
    inputs = [data, index_input(pads_begin, "Pad pads_begin"), index_input(pads_end, "Pad pads_end")]
    if arg_pad_value is not None:
        inputs.append(as_output(arg_pad_value, data.get_element_type()))
    mode = pad_mode.lower() if isinstance(pad_mode, str) else pad_mode
    return make_node("Pad", version, inputs, {"pad_mode": mode}, name)


def _block_inputs(node: Node, names: tuple[str, str]) -> tuple[list[int], list[int], list[int]] | None:
    """Check block_shape and the two crop/pad inputs; their values when all are constant."""
    data = node.get_input_partial_shape(0)
    _rank_at_least(data, 2)
    what = ("block_shape", *names)
    lengths = [_vector_input(node, i, w) for i, w in zip((1, 2, 3), what, strict=True)]
    types = [node.get_input_element_type(i) for i in (1, 2, 3)]
    require(types[0] == types[1] == types[2], f"{', '.join(what)} must share one element type; got "
                                              f"{[str(t) for t in types]}.")
    for n, w in zip(lengths, what, strict=True):
        require(n is None or not data.has_rank() or n == len(data),
                f"{w} has {n} value(s); data {data} has rank {len(data) if data.has_rank() else '?'}.")
    block, begin, end = (const_ints(node, i) for i in (1, 2, 3))
    if block is None or begin is None or end is None:
        return None
    require(all(b >= 1 for b in block), f"block_shape {block} must hold values >= 1.")
    require(block[0] == 1, f"block_shape {block} must start with 1 (the batch dim is not split).")
    for v, w in ((begin, names[0]), (end, names[1])):
        require(all(x >= 0 for x in v), f"{w} {v} must hold values >= 0.")
        verb = "cropped" if "crop" in w else "padded"
        require(v[0] == 0, f"{w} {v} must start with 0 (the batch dim is not {verb}).")
    return block, begin, end


@define_op("BatchToSpace", 2, inputs=4)
def _infer_batch_to_space(node: Node) -> Infer:
    """[batch, D1..] -> [batch / prod(block), D_i * B_i - crops_begin[i] - crops_end[i], ...]."""
    et, data = node.get_input_element_type(0), node.get_input_partial_shape(0)
    values = _block_inputs(node, ("crops_begin", "crops_end"))
    if values is None or not data.has_rank():
        return [(et, PartialShape.dynamic(len(data) if data.has_rank() else static_length(node, 1)))]
    block, begin, end = values
    prod = math.prod(block)
    batch = data[0]
    require(not batch.is_static or batch.get_length() % prod == 0,
            f"data {data} has batch {batch}; it must divide by the product of block_shape {block} ({prod}).")
    dims = [batch // prod]
    for i in range(1, len(data)):
        full = data[i] * block[i]
        crop = begin[i] + end[i]
        require(not full.is_static or crop <= full.get_length(),
                f"crops {crop} on dim {i} exceed its size {full} (data dim {data[i]} * block {block[i]}).")
        dims.append(_shifted(full, -crop))
    return [(et, PartialShape(dims))]


@define_op("SpaceToBatch", 2, inputs=4)
def _infer_space_to_batch(node: Node) -> Infer:
    """[batch, D1..] -> [batch * prod(block), (D_i + pads_begin[i] + pads_end[i]) / B_i, ...]."""
    et, data = node.get_input_element_type(0), node.get_input_partial_shape(0)
    values = _block_inputs(node, ("pads_begin", "pads_end"))
    if values is None or not data.has_rank():
        return [(et, PartialShape.dynamic(len(data) if data.has_rank() else static_length(node, 1)))]
    block, begin, end = values
    dims = [data[0] * math.prod(block)]
    for i in range(1, len(data)):
        padded = data[i] + (begin[i] + end[i])
        require(not padded.is_static or padded.get_length() % block[i] == 0,
                f"padded dim {i} ({data[i]} + {begin[i]} + {end[i]} = {padded}) must divide by block_shape[{i}]"
                f"={block[i]}.")
        dims.append(padded // block[i])
    return [(et, PartialShape(dims))]


def batch_to_space(data: NodeInput, block_shape: NodeInput, crops_begin: NodeInput, crops_end: NodeInput,
                   name: str | None = None) -> Node:
    """BatchToSpace-2: blocks of the batch move into the spatial dims, which are then cropped."""
    inputs = [as_output(data), index_input(block_shape, "BatchToSpace block_shape"),
              index_input(crops_begin, "BatchToSpace crops_begin"), index_input(crops_end, "BatchToSpace crops_end")]
    return make_node("BatchToSpace", 2, inputs, {}, name)


def space_to_batch(data: NodeInput, block_shape: NodeInput, pads_begin: NodeInput, pads_end: NodeInput,
                   name: str | None = None) -> Node:
    """SpaceToBatch-2: the zero-padded spatial dims split into blocks that move into the batch."""
    inputs = [as_output(data), index_input(block_shape, "SpaceToBatch block_shape"),
              index_input(pads_begin, "SpaceToBatch pads_begin"), index_input(pads_end, "SpaceToBatch pads_end")]
    return make_node("SpaceToBatch", 2, inputs, {}, name)
