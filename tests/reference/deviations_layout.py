"""OpenVINO CPU deviations from the spec for the "layout" family (records as in openvino_deviations.py)."""

from __future__ import annotations

import numpy as np
from openvino_deviations import SPEC, Deviation, Witness, _case, _param, input_value, op_nodes

from ovconform import opset as ops
from ovconform.ir import Node
from ovconform.opcases import OpCase

# -- Pad-1/12: integer pad_value not representable in f32 ------------------------------------------------


def _pad_value_beyond_f32(case: OpCase) -> bool:
    for node in op_nodes(case, "Pad", (1, 12)):
        if node.attrs["pad_mode"] != "constant" or node.get_input_size() < 4:
            continue
        if not node.get_input_element_type(0).is_integral_number():
            continue
        value = input_value(case, node, 3)
        if value is None:
            return True
        if int(value) != int(np.float32(value)):
            return True
    return False


def _pad_value_witness() -> Witness:
    x = np.array([1, 2], np.int32)
    p = _param("x", x)
    value = np.array(2**24 + 1, np.int32)
    node = ops.pad(p, [1], [1], "constant", ops.constant(value))
    return Witness(_case("Pad", 12, [node], [p], {"x": x}), [np.array([2**24 + 1, 1, 2, 2**24 + 1], np.int32)])


# -- Pad-1/12: a runtime pad_value with pads known at build time -------------------------------------------

def _pad_value_parameter(case: OpCase) -> bool:
    return any(n.attrs["pad_mode"] == "constant" and n.get_input_size() == 4
               and n.input_value(3).node.type_name != "Constant"
               and all(n.input_value(i).node.type_name == "Constant" for i in (1, 2))
               for n in op_nodes(case, "Pad", (1, 12)))


def _pad_value_parameter_witness() -> Witness:
    x, value = np.array([1.0, 2.0, 3.0], np.float32), np.array(-5.0, np.float32)
    px, pv = _param("x", x), _param("value", value)
    node = ops.pad(px, [1], [1], "constant", pv)
    return Witness(_case("Pad", 12, [node], [px, pv], {"x": x, "value": value}),
                   [np.array([-5.0, 1.0, 2.0, 3.0, -5.0], np.float32)])


# -- Tile-1 over three or more tiled axes of 4D+ data --------------------------------------------------------

def _tile_three_axes(case: OpCase) -> bool:
    for node in op_nodes(case, "Tile", (1,)):
        data, repeats = node.get_input_partial_shape(0), input_value(case, node, 1)
        if repeats is None:
            return True
        reps = np.asarray(repeats).reshape(-1)
        if max(len(data), reps.size) >= 4 and int(np.sum(reps > 1)) >= 3:
            return True
    return False


def _tile_three_axes_witness() -> Witness:
    x = np.arange(16, dtype=np.float32).reshape(2, 2, 2, 2)
    p = _param("x", x)
    node = ops.tile(p, np.array([2, 2, 2], np.int32))
    return Witness(_case("Tile", 1, [node], [p], {"x": x}), [np.tile(x, [2, 2, 2])])



# -- ReverseSequence-1: integer data beyond the f32 range of exact integers -----------------------------

def _not_f32_exact(value: np.ndarray) -> bool:
    wide = np.asarray(value).astype(np.int64)
    return bool(np.any(wide != np.asarray(value).astype(np.float32).astype(np.float64).astype(np.int64)))


def _reverse_sequence_wide_ints(case: OpCase) -> bool:
    for node in op_nodes(case, "ReverseSequence", (1,)):
        et = node.get_input_element_type(0)
        if et.is_integral_number() and et.bitwidth > 16:
            data = input_value(case, node, 0)
            if data is None or _not_f32_exact(data):
                return True
    return False


def _reverse_sequence_witness() -> Witness:
    x = np.array([[16777217, 1, 2], [3, 4, 5]], np.int32)
    p = _param("x", x)
    node = ops.reverse_sequence(p, np.array([2, 1], np.int32), 0, 1)
    return Witness(_case("ReverseSequence", 1, [node], [p], {"x": x}),
                   [np.array([[1, 16777217, 2], [3, 4, 5]], np.int32)])


# -- Tile-1 with an empty repeats tensor ---------------------------------------------------------------------

def _tile_empty_repeats(case: OpCase) -> bool:
    return any(n.get_input_partial_shape(1).is_static and n.get_input_partial_shape(1).to_shape() == (0,)
               for n in op_nodes(case, "Tile", (1,)))


def _tile_witness() -> Witness:
    x = np.array([[1.5, -2.0, 3.25], [4.0, 5.5, -6.0]], np.float32)
    p = _param("x", x)
    node = ops.tile(p, ops.constant(np.zeros(0, np.int64)))
    return Witness(_case("Tile", 1, [node], [p], {"x": x}), [x.copy()])



# -- Slice-8: a backward slice whose start and stop both lie before the first element --------------------

def _slice_axes_spec(case: OpCase, node: Node) -> list[tuple[int, int, int, int]] | None:
    """(dim size, start, stop, step) per sliced axis of a Slice node, None when a value is unknown."""
    data = input_value(case, node, 0)
    parts = [input_value(case, node, i) for i in range(1, node.get_input_size())]
    if data is None or any(p is None for p in parts):
        return None
    start, stop, step = (np.asarray(p).reshape(-1).tolist() for p in parts[:3])
    axes = np.asarray(parts[3]).reshape(-1).tolist() if len(parts) == 4 else list(range(len(start)))
    return [(data.shape[a], b, e, s) for a, b, e, s in zip(axes, start, stop, step, strict=True)]


def _slice_backward_before_start(case: OpCase) -> bool:
    for node in op_nodes(case, "Slice", (8,)):
        spec = _slice_axes_spec(case, node)
        if spec is None or any(s < 0 and b < -n and e < -n for n, b, e, s in spec):
            return True
    return False


def _slice_witness() -> Witness:
    x = np.arange(5, dtype=np.float32)
    p = _param("x", x)
    node = ops.slice(p, np.array([-7], np.int64), np.array([-9], np.int64), np.array([-1], np.int64))
    return Witness(_case("Slice", 8, [node], [p], {"x": x}), [np.zeros(0, np.float32)])


# -- SpaceToBatch-2: end padding of a spatial dim of 4D/5D data --------------------------------------------

def _space_to_batch_last_pad(case: OpCase) -> bool:
    for node in op_nodes(case, "SpaceToBatch", (2,)):
        data, block, end = (input_value(case, node, i) for i in (0, 1, 3))
        begin = input_value(case, node, 2)
        if data is None or block is None or begin is None or end is None:
            return True
        if data.ndim >= 4 and any(int(v) > 0 for v in np.asarray(end).reshape(-1)[1:]):
            return True
    return False


def _space_to_batch_witness() -> Witness:
    x = np.array([[[[1.0], [2.0]]]], np.float32)
    p = _param("x", x)
    node = ops.space_to_batch(p, np.array([1, 1, 1, 2], np.int64), np.zeros(4, np.int64),
                              np.array([0, 0, 0, 1], np.int64))
    return Witness(_case("SpaceToBatch", 2, [node], [p], {"x": x}),
                   [np.array([[[[1.0], [2.0]]], [[[0.0], [0.0]]]], np.float32)])


DEVIATIONS: tuple[Deviation, ...] = (
    Deviation(
        "Pad", (1, 12), _pad_value_beyond_f32,
        "an integer pad_value that f32 cannot hold (|v| > 2**24): OpenVINO CPU fills with the value rounded "
        "to f32; the spec fills the padding with pad_value itself",
        f"{SPEC}/movement/pad-12.html",
        "i32 data [1, 2], pads [1]/[1], constant mode, pad_value 16777217 (Constant): CPU gives [16777216, 1, 2, "
        "16777216]; i32 588245967 gives 588245952 (also i64, Pad-1, and a Parameter pad_value).",
        _pad_value_witness),
    Deviation(
        "Pad", (1, 12), _pad_value_parameter,
        "a pad_value Parameter while pads_begin and pads_end are Constants: OpenVINO CPU pads with 0; the spec "
        "pads with pad_value",
        f"{SPEC}/movement/pad-12.html",
        "f32 [1, 2, 3], pads [1]/[1] (Constants), pad_value -5 (a Parameter): CPU gives [0, 1, 2, 3, 0], the "
        "spec [-5, 1, 2, 3, -5]; with pads as Parameters too CPU is right.",
        _pad_value_parameter_witness),
    Deviation(
        "ReverseSequence", (1,), _reverse_sequence_wide_ints,
        "i32/i64 data that f32 cannot hold exactly (|v| > 2**24): OpenVINO CPU moves the values through f32 "
        "and rounds them; the spec only reorders the data",
        f"{SPEC}/movement/reverse-sequence-1.html",
        "i32 [[16777217, 1, 2], [3, 4, 5]], seq_lengths [2, 1]: CPU gives [[1, 16777216, 2], ...]; a random i32 "
        "1505919583 came back as 1505919616.",
        _reverse_sequence_witness),
    Deviation(
        "Tile", (1,), _tile_empty_repeats,
        "an empty repeats tensor: OpenVINO CPU returns uninitialized memory (a Constant) or crashes (a "
        "Parameter); the spec pads repeats with leading 1s, so the output is the data",
        f"{SPEC}/movement/tile-1.html",
        "f32 [2, 3] data, repeats = Constant i64 [] : CPU gives values like [6.0e-25, 3.1e-41, ...], varying "
        "between runs; with repeats a Parameter of shape [0] the process dies with a segmentation fault.",
        _tile_witness),
    Deviation(
        "Tile", (1,), _tile_three_axes,
        "4D or higher output with three or more axes tiled (repeats > 1): OpenVINO CPU returns uninitialized "
        "memory for some of these; the spec's output repeats the data",
        f"{SPEC}/movement/tile-1.html",
        "f32 data of shape [2, 2, 2, 2], repeats [2, 2, 2] (Constant or Parameter): CPU gives values like "
        "[1.5e+25, 3.1e-41, 0, ...]; also repeats [1, 2, 2, 2] or [2, 2, 2, 2] as a Parameter and 5-element "
        "repeats tiling three axes. Not every such case fails ([2, 2, 2, 2] as a Constant, data [3, 1, 2, 2] are "
        "right) and 3D data is right; the record covers all of them.",
        _tile_three_axes_witness),
    Deviation(
        "Slice", (8,), _slice_backward_before_start,
        "a negative step with start and stop both below -dim: OpenVINO CPU returns the first element; "
        "python slicing, which the spec follows, gives an empty range",
        f"{SPEC}/movement/slice-8.html",
        "data arange(5), start [-7], stop [-9], step [-1]: CPU gives [0] (shape [1]), python x[-7:-9:-1] is "
        "empty; also start -6, stop -100, step -2 (Constants or Parameters alike).",
        _slice_witness),
    Deviation(
        "SpaceToBatch", (2,), _space_to_batch_last_pad,
        "4D/5D data with end padding on a spatial dim: OpenVINO CPU fills some of the end padding with the "
        "data elements that follow in memory instead of zeros",
        f"{SPEC}/movement/space-to-batch-2.html",
        "data [[[[1], [2]]]] (shape [1, 1, 2, 1]), block_shape [1, 1, 1, 2], pads_end [0, 0, 0, 1]: CPU gives "
        "[1, 2, 2, 0], the spec [1, 2, 0, 0]. Also [2, 1, 1, 1] with block [1, 1, 2, 1], pads_end [0, 0, 1, 0] "
        "and [2, 1, 1, 2] with the same block and pads, where the padding shows the next batch's values. Not "
        "every such case fails ([1, 1, 2, 2], block [1, 1, 1, 2], pads_end 2 on the last dim is right), but no "
        "narrower rule fit the failures seen; 3D data and begin padding are right.",
        _space_to_batch_witness),
)
