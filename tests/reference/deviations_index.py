"""OpenVINO CPU deviations from the spec for the "index" family (records as in openvino_deviations.py)."""

from __future__ import annotations

import numpy as np
from openvino_deviations import SPEC, Deviation, Witness, _case, _param, input_value, op_nodes

from ovconform import opset as ops
from ovconform.ir import Type
from ovconform.opcases import OpCase

# -- Unique-10 with an axis over 8-bit data, unsorted ---------------------------------------------------


def _unique_8bit_axis_unsorted(case: OpCase) -> bool:
    return any(n.get_input_size() == 2 and not n.attrs["sorted"] and n.get_input_element_type(0) in (Type.u8, Type.i8)
               for n in op_nodes(case, "Unique", (10,)))


def _unique_witness() -> Witness:
    x = np.array([3, 1, 3], np.uint8)
    p = _param("x", x)
    node = ops.unique(p, np.array(0, np.int64), sorted=False, index_element_type="i32", count_element_type="i32")
    return Witness(_case("Unique", 10, node.outputs(), [p], {"x": x}),
                   [np.array([3, 1], np.uint8), np.array([0, 1], np.int32), np.array([0, 1, 0], np.int32),
                    np.array([2, 1], np.int32)])


def _unique_8bit_axis_sorted_nd(case: OpCase) -> bool:
    return any(n.get_input_size() == 2 and n.attrs["sorted"] and n.get_input_element_type(0) in (Type.u8, Type.i8)
               and n.get_input_partial_shape(0).rank.is_static and len(n.get_input_partial_shape(0)) >= 2
               for n in op_nodes(case, "Unique", (10,)))


def _unique_sorted_witness() -> Witness:
    x = np.array([[3, 1], [1, 2]], np.int8)
    p = _param("x", x)
    node = ops.unique(p, np.array(0, np.int64), sorted=True, index_element_type="i32", count_element_type="i32")
    # slices sorted: [1, 2] (first at row 1), [3, 1] (first at row 0)
    return Witness(_case("Unique", 10, node.outputs(), [p], {"x": x}),
                   [np.array([[1, 2], [3, 1]], np.int8), np.array([1, 0], np.int32), np.array([1, 0], np.int32),
                    np.array([1, 1], np.int32)])


# -- SegmentMax-16: f16 "lowest" fill --------------------------------------------------------------------


def _lowest_fill_of_empty_segment(case: OpCase, et: Type) -> bool:
    for node in op_nodes(case, "SegmentMax", (16,)):
        if node.get_input_element_type(0) != et or node.attrs["fill_mode"] != "lowest":
            continue
        ids = input_value(case, node, 1)
        num = input_value(case, node, 2) if node.get_input_size() == 3 else None
        if ids is None or (node.get_input_size() == 3 and num is None):
            return True
        count = int(num) if num is not None else (int(ids.max()) + 1 if ids.size else 0)
        if set(range(count)) - {int(i) for i in ids.reshape(-1)}:
            return True
    return False


def _segment_max_witness(dtype: type) -> Witness:
    x = np.array([[1, 2], [3, -4], [5, 6]], dtype)
    p = _param("x", x)
    node = ops.segment_max(p, np.array([0, 0, 2], np.int32), fill_mode="lowest")
    lowest = np.finfo(dtype).min if np.dtype(dtype).kind == "f" else np.iinfo(dtype).min
    expected = np.array([[3, 2], [lowest, lowest], [5, 6]], dtype)
    return Witness(_case("SegmentMax", 16, [node], [p], {"x": x}), [expected])


# -- TopK-11 stable=true with sort="none" ----------------------------------------------------------------


def _topk_stable_unsorted(case: OpCase) -> bool:
    return any(n.attrs["stable"] and n.attrs["sort"] == "none" for n in op_nodes(case, "TopK", (11,)))


def _topk_witness() -> Witness:
    x = np.array([[1.0, 3.0, 2.0]], np.float32)
    p = _param("x", x)
    node = ops.topk(p, np.array(1, np.int64), 1, "max", "none", "i32", stable=True)
    return Witness(_case("TopK", 11, node.outputs(), [p], {"x": x}),
                   [np.array([[3.0]], np.float32), np.array([[1]], np.int32)])


DEVIATIONS: tuple[Deviation, ...] = (
    Deviation(
        "TopK", (11,), _topk_stable_unsorted,
        "stable=true with sort=none: OpenVINO refuses the model (TopK validation: \"Stable sort can only be used "
        "when TopK's sorting mode is set to 'VALUE' or 'INDEX'\"); the spec only says stable takes effect with "
        "VALUE/INDEX sorting and does not forbid it, so REFERENCE computes the op (the cases use k=1 with "
        "sort=none, where no order is in question)",
        f"{SPEC}/sort/top-k-11.html",
        "x=[[1, 3, 2]] f32, k=1, axis=1, mode=max, sort=none, stable=true: openvino.Core().compile_model raises "
        "at validation (core.cpp / topk.cpp:251); the spec gives values [[3]] and indices [[1]]. The same model "
        "with stable=false, or stable=true with sort=value, compiles and gives those outputs.",
        _topk_witness, openvino_refuses=True),
    Deviation(
        "Unique", (10,), _unique_8bit_axis_unsorted,
        "u8/i8 data with the axis input and sorted=false: OpenVINO CPU returns uninitialized memory as the "
        "first-occurrence indices (output 1) and the counts (output 3); the unique slices and reverse indices "
        "are right",
        f"{SPEC}/movement/unique-10.html",
        "u8 x=[3, 1, 3], axis=0, sorted=false: CPU gives indices [2085879808, 21958] and counts [2, 0] (varying "
        "between runs) where the spec gives [0, 1] and [2, 1]; u8 [1] gives indices [-2104422144]. Without the "
        "axis input, with sorted=true on 1-D data, or for i32/f32 data the outputs are right (sorted=true on data "
        "of rank >= 2 is the next record).",
        _unique_witness),
    Deviation(
        "Unique", (10,), _unique_8bit_axis_sorted_nd,
        "u8/i8 data of rank >= 2 with the axis input and sorted=true: OpenVINO CPU often gives wrong "
        "first-occurrence indices (output 1) and sometimes wrong counts (output 3); the unique slices and reverse "
        "indices are right. The spec: output 1 holds the index of each unique slice's first occurrence, output 3 "
        "how many times it occurs",
        f"{SPEC}/movement/unique-10.html",
        "i8 [[3, 1], [1, 2]], axis 0, sorted=true: CPU gives indices [1, 1] (the same on every run), the spec "
        "[1, 0]; i8 [[2, 0], [1, 5], [2, 0]] gives counts [1, 1] where the spec gives [1, 2] (and indices [1, 1], "
        "spec [1, 0]); u8 [[5, 1], [2, 2], [0, 3]] gives indices [2, 1, 2], spec [2, 1, 0]. In 1200 random cases "
        "about 1 in 3 of the 8-bit, rank >= 2 ones were wrong (with or without repeated slices); 1-D 8-bit data "
        "and i32/f32 data of any rank were always right.",
        _unique_sorted_witness),
    Deviation(
        "SegmentMax", (16,), lambda case: _lowest_fill_of_empty_segment(case, Type.f16),
        "f16 data with fill_mode=lowest and an empty segment: OpenVINO CPU fills it with -inf; the spec fills "
        "empty segments with the lowest value of the data type (-65504 for f16)",
        f"{SPEC}/arithmetic/segment-max-16.html",
        "f16 [[1, 2], [3, -4], [5, 6]], segment_ids [0, 0, 2], fill_mode=lowest: CPU gives row 1 = [-inf, -inf]; "
        "f32 gives -3.4028235e38 (FLT_MAX negated) and i32 gives -2147483648, the types' lowest values.",
        lambda: _segment_max_witness(np.float16)),
    Deviation(
        "SegmentMax", (16,), lambda case: _lowest_fill_of_empty_segment(case, Type.i64),
        "i64 data with fill_mode=lowest and an empty segment: OpenVINO CPU fills it with -2**31 (the i32 lowest "
        "value: it executes i64 as i32); the spec fills empty segments with the lowest value of the data type "
        "(-2**63 for i64)",
        f"{SPEC}/arithmetic/segment-max-16.html",
        "i64 [[1, 2], [3, -4], [5, 6]], segment_ids [0, 0, 2], fill_mode=lowest: CPU gives row 1 = "
        "[-2147483648, -2147483648], the spec -9223372036854775808.",
        lambda: _segment_max_witness(np.int64)),
)
