"""OpenVINO CPU deviations from the spec for the "norm" family (records as in openvino_deviations.py)."""

from __future__ import annotations

import numpy as np
from openvino_deviations import SPEC, Deviation, Witness, _case, _param, input_value, op_nodes

from ovconform import opset as ops
from ovconform.opcases import OpCase
from ovconform.opset._normalization import mvn1_axes

# -- MVN-1 with reduction_axes other than the across_channels axes ------------------------------------------


def _mvn1_explicit_axes(case: OpCase) -> bool:
    for node in op_nodes(case, "MVN", (2,)):
        axes, rank = node.attrs["reduction_axes"], len(node.get_input_partial_shape(0))
        if axes and (min(axes) < 0 or mvn1_axes(rank, False, axes) != mvn1_axes(rank, node.attrs["across_channels"],
                                                                                None)):
            return True
    return False


def _mvn1_witness() -> Witness:
    x = np.array([[1.0, 2.0], [3.0, 6.0]], np.float32)
    p = _param("data", x)
    node = ops.mvn_v1(p, across_channels=False, normalize_variance=False, eps=1e-9, reduction_axes=[0])
    return Witness(_case("MVN", 2, [node], [p], {"data": x}), [x - x.mean(axis=0, keepdims=True)])


# -- NormalizeL2-1 with empty axes over rank-1 data ---------------------------------------------------------------

def _normalize_l2_empty_axes_rank1(case: OpCase) -> bool:
    for node in op_nodes(case, "NormalizeL2", (1,)):
        axes = input_value(case, node, 1)
        shape = node.get_input_partial_shape(0)
        if (axes is None or axes.size == 0) and shape.has_rank() and len(shape) <= 1:
            return True
    return False


def _normalize_l2_witness() -> Witness:
    x = np.array([-2.0, 0.5, 3.0], np.float32)
    p = _param("data", x)
    node = ops.normalize_l2(p, np.zeros(0, np.int64), 0.5, "max")
    return Witness(_case("NormalizeL2", 1, [node], [p], {"data": x}), [np.ones(3, np.float32)])


# -- Range-1/4 with Parameter inputs whose stop lies behind start ---------------------------------------------------

def _range_backwards_at_run_time(case: OpCase) -> bool:
    for node in op_nodes(case, "Range", (1, 4)):
        if all(node.input_value(i).node.type_name == "Constant" for i in range(3)):
            continue  # folded at build time: the shape inference gets it right
        values = [input_value(case, node, i) for i in range(3)]
        if any(v is None for v in values):
            return True
        start, stop, step = (float(np.asarray(v).reshape(-1)[0]) for v in values)
        if step != 0 and (stop - start) / step < 0:
            return True
    return False


def _range_witness() -> Witness:
    values = {"start": np.array(0.0, np.float32), "stop": np.array(-1.0, np.float32),
              "step": np.array(0.25, np.float32)}
    params = [_param(n, v) for n, v in values.items()]
    return Witness(_case("Range", 1, [ops.range_v1(*params)], params, values), [np.zeros(0, np.float32)])


DEVIATIONS: tuple[Deviation, ...] = (
    Deviation(
        "MVN", (2,), _mvn1_explicit_axes,
        "reduction_axes other than the axes across_channels selects, or negative: OpenVINO CPU ignores "
        "reduction_axes and reduces over dims 1.. (across_channels) or 2.., and a negative axis (which the spec "
        "allows, counting from the end) gives zeros; the spec reduces over reduction_axes when it is given",
        f"{SPEC}/normalization/mvn-1.html",
        "data [[1, 2], [3, 6]], reduction_axes=[0], across_channels=false, normalize_variance=false: the spec's "
        "x - ReduceMean(x, [0]) is [[-1, -2], [1, 2]]; CPU gives [[0, 0], [0, 0]] (no axes from dim 2 on). "
        "Shape [2, 3, 4] with reduction_axes=[0] likewise reduces over [2]; an IR spelling reduction_axes=\"-1\" "
        "(= [1]) with across_channels=true over [[1, 2], [3, 6]] gives zeros instead of [[-0.5, 0.5], "
        "[-1.5, 1.5]] (the builder stores axes non-negative, as OpenVINO's AxisSet does).",
        _mvn1_witness),
    Deviation(
        "NormalizeL2", (1,), _normalize_l2_empty_axes_rank1,
        "empty axes over rank-1 data: OpenVINO CPU computes x / sqrt(eps_mode(x**2, eps)) per element, so negative "
        "elements give -1 and small ones less than 1; the spec divides each element by itself, 1 for every non-zero "
        "element (CPU does so for rank >= 2)",
        f"{SPEC}/normalization/normalize-l2-1.html",
        "data [-2, 0.5, 3], axes [], eps=0.5, eps_mode=max: spec [1, 1, 1]; CPU [-1, 0.707, 1]; with "
        "eps_mode=add and eps=1e-12 CPU gives the signs [-1, 1, 1].",
        _normalize_l2_witness),
    Deviation(
        "Range", (1, 4), _range_backwards_at_run_time,
        "start, stop, step known only at run time with stop behind start (a negative count): OpenVINO CPU "
        "produces ceil(|stop - start| / |step|) elements; the spec's start <= val < stop (positive step) is empty",
        f"{SPEC}/generation/range-4.html",
        "Parameters start=0, stop=-1, step=0.25 (f32): spec gives []; CPU gives [0, 0.25, 0.5, 0.75]. With "
        "Constant inputs the count is folded at build time and is right.",
        _range_witness),
)
