"""Where OpenVINO CPU (2026.4) disagrees with OpenVINO's own operation specification, as data.

REFERENCE follows the specification, so the cross-check (``test_crosscheck_openvino.py``) skips a
drawn case that one of these records matches, with the record's reason. Each record carries a
``witness``: one concrete case and the outputs the spec gives for it. The cross-check module
runs every witness on OpenVINO CPU and fails when OpenVINO now matches the spec (the record is
stale: delete it), and checks REFERENCE against the same spec outputs (``xfail(strict=True)``
where ``reference_follows_spec`` is False: a known REFERENCE gap, see its ``reference_gap``).

``NOT_DEVIATIONS`` lists behaviours that were suspected and checked, but where the spec does not
define the result (so neither side is wrong); the case strategies keep away from them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ovconform import Model
from ovconform import opset as ops
from ovconform.ir import Node, Type, as_type, bf16_to_f32
from ovconform.opcases import OpCase

SPEC: str = "https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs"


@dataclass(frozen=True)
class Witness:
    """One case that shows the deviation, and the outputs the spec gives for it."""

    case: OpCase
    expected: list[np.ndarray]


@dataclass(frozen=True)
class Deviation:
    """OpenVINO CPU differs from the spec for ``op``-``versions`` wherever ``applies(case)``."""

    op: str
    versions: tuple[int, ...]
    applies: Callable[[OpCase], bool]
    reason: str
    spec_url: str
    evidence: str
    witness: Callable[[], Witness]
    reference_follows_spec: bool = True
    reference_gap: str = ""
    #: OpenVINO refuses the witness's model (its validation rejects what the spec allows)
    openvino_refuses: bool = False

    @property
    def name(self) -> str:
        return f"{self.op}-{'/'.join(map(str, self.versions))}: {self.reason.split(':')[0]}"


# -- reading a case --------------------------------------------------------------------------------------------

def op_nodes(case: OpCase, op: str, versions: tuple[int, ...]) -> list[Node]:
    return [n for n in case.model.get_ordered_ops() if n.type_name == op and n.version in versions]


def input_value(case: OpCase, node: Node, port: int) -> np.ndarray | None:
    """The array feeding ``port``: a Parameter's case input or a Constant's data (else None)."""
    src = node.input_value(port).node
    if src.type_name == "Parameter":
        return np.asarray(case.inputs[src.friendly_name])
    if src.type_name == "Constant":
        return np.asarray(src.data)
    return None


def _case(op: str, version: int, outputs: list[Any], params: list[Node], inputs: dict[str, np.ndarray]) -> OpCase:
    return OpCase(op, version, Model(outputs, params, f"{op}_{version}_witness"), inputs, "deviation witness")


def _param(name: str, value: np.ndarray) -> Node:
    return ops.parameter(list(value.shape), as_type(value.dtype), name)


# -- Clamp-1 on 8-bit integers ---------------------------------------------------------------------------------

def _clamp_8bit_fraction(case: OpCase) -> bool:
    for node in op_nodes(case, "Clamp", (1,)):
        et = node.get_input_element_type(0)
        lo, hi = float(node.attrs["min"]), float(node.attrs["max"])
        if et in (Type.i8, Type.u8) and (np.trunc(lo) != np.ceil(lo) or np.trunc(hi) != np.floor(hi)):
            return True
    return False


def _clamp_witness() -> Witness:
    x = np.arange(-5, 5, dtype=np.int8)
    p = _param("x", x)
    return Witness(_case("Clamp", 1, [ops.clamp(p, 0.7, 3.3)], [p], {"x": x}),
                   [np.clip(x, 1, 3).astype(np.int8)])


# -- Divide-1 integer floor division -----------------------------------------------------------------------------

def _divide_floor_differs(case: OpCase) -> bool:
    for node in op_nodes(case, "Divide", (1,)):
        if not node.attrs["m_pythondiv"] or not node.get_output_element_type(0).is_integral_number():
            continue
        a, b = input_value(case, node, 0), input_value(case, node, 1)
        if a is None or b is None:
            return True
        a64, b64 = np.broadcast_arrays(a.astype(np.int64), b.astype(np.int64))
        if np.any((b64 != 0) & (a64 % np.where(b64 == 0, 1, b64) != 0) & ((a64 < 0) != (b64 < 0))):
            return True
    return False


def _divide_witness() -> Witness:
    a, b = np.array([-7, 7, -1, 6], np.int32), np.array([2, -2, 3, 3], np.int32)
    pa, pb = _param("a", a), _param("b", b)
    return Witness(_case("Divide", 1, [ops.divide(pa, pb, python_division=True)], [pa, pb], {"a": a, "b": b}),
                   [np.array([-4, -4, -1, 2], np.int32)])


# -- ReduceMean-1 integer sums that leave the type's range ---------------------------------------------------

def _reduce_mean_sum_overflows(case: OpCase) -> bool:
    for node in op_nodes(case, "ReduceMean", (1,)):
        et = node.get_input_element_type(0)
        data, axes = input_value(case, node, 0), input_value(case, node, 1)
        if not et.is_integral_number():
            continue
        if data is None or axes is None:
            return True
        info = np.iinfo(et.to_dtype())
        sums = np.sum(data.astype(np.float64), axis=tuple(int(a) for a in np.atleast_1d(axes)))
        if np.any((sums < info.min) | (sums > info.max)):
            return True
    return False


def _reduce_mean_witness() -> Witness:
    x = np.array([[100, 100, 100, 100], [-100, -100, -100, -100]], np.int8)
    p = _param("x", x)
    return Witness(_case("ReduceMean", 1, [ops.reduce_mean(p, [1])], [p], {"x": x}),
                   [np.array([100, -100], np.int8)])


# -- ReduceMin-1 over no elements (issue #22) -----------------------------------------------------------------

def _reduce_min_f32_over_nothing(case: OpCase) -> bool:
    """An f32 ReduceMin with a reduced dim of size 0 (axes from a Parameter: maybe)."""
    for node in op_nodes(case, "ReduceMin", (1,)):
        data, axes = node.get_input_partial_shape(0), input_value(case, node, 1)
        if node.get_input_element_type(0) != Type.f32 or not data.is_static:
            continue
        dims = data.to_shape()
        if axes is None and 0 in dims:
            return True
        if axes is not None and any(dims[int(a)] == 0 for a in np.atleast_1d(axes)):
            return True
    return False


def _reduce_min_empty_witness() -> Witness:
    x = np.zeros((2, 0, 3), np.float32)
    p = _param("x", x)
    return Witness(_case("ReduceMin", 1, [ops.reduce_min(p, [1])], [p], {"x": x}),
                   [np.full((2, 3), np.inf, np.float32)])


# -- ErfInv-17 computed by an approximation (issue #22) ------------------------------------------------------

def _erfinv_inside(case: OpCase) -> bool:
    """An ErfInv whose input holds a value inside (-1, 1) other than 0 (not only the special inputs)."""
    for node in op_nodes(case, "ErfInv", (17,)):
        x = input_value(case, node, 0)
        if x is None:
            return True
        a = np.abs(np.asarray(x, np.float64))
        if np.any((a > 0) & (a < 1)):
            return True
    return False


def _erfinv_witness() -> Witness:
    x = np.array([0.5, 0.999], np.float32)
    p = _param("x", x)
    # erfinv by bisection on math.erfc in float64: 0.47693627620446977, 2.326756326796155
    return Witness(_case("ErfInv", 17, [ops.erfinv(p)], [p], {"x": x}),
                   [np.array([0.47693628, 2.3267562], np.float32)])


# -- MaxPool-8/14 indices of a window whose maximum is the type's lowest value ---------------------------

def _lowest_finite(et: Type) -> float:
    """The value REFERENCE and OpenVINO pad a MaxPool with (the type's lowest finite value)."""
    if et == Type.bf16:
        return float(bf16_to_f32(np.array(0xFF7F, np.uint16)))
    return float(np.finfo(et.to_dtype()).min if et.is_real() else np.iinfo(et.to_dtype()).min)


def _max_pool_lowest_after_pad(case: OpCase) -> bool:
    for node in op_nodes(case, "MaxPool", (8, 14)):
        data, et = input_value(case, node, 0), node.get_input_element_type(0)
        begin_pad = any(node.attrs["pads_begin"]) or node.attrs["auto_pad"] in ("same_upper", "same_lower")
        if data is None:
            return begin_pad
        values = bf16_to_f32(data) if et == Type.bf16 else data
        if begin_pad and np.any(values.astype(np.float64) <= _lowest_finite(et)):
            return True
    return False


def _max_pool_witness() -> Witness:
    x = np.array([[[[5, 0, 3], [1, 2, 4]]]], np.uint8)
    p = _param("x", x)
    pool = ops.max_pool(p, [1, 1], [1, 1], [1, 0], [0, 0], [2, 1], version=8)
    return Witness(_case("MaxPool", 8, pool.outputs(), [p], {"x": x}),
                   [np.array([[[[5, 0, 3], [5, 2, 4]]]], np.uint8),
                    np.array([[[[0, 1, 2], [0, 4, 5]]]], np.int64)])


# -- StridedSlice-1 with new_axis_mask and shrink_axis_mask both set -------------------------------------

def _new_and_shrink(case: OpCase) -> bool:
    return any(any(n.attrs["new_axis_mask"]) and any(n.attrs["shrink_axis_mask"])
               for n in op_nodes(case, "StridedSlice", (1,)))


def _strided_slice_witness() -> Witness:
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    p = _param("x", x)
    index = np.array([0, 1], np.int64)
    node = ops.strided_slice(p, index, index, np.array([1, 1], np.int64), [0, 0], [0, 0], new_axis_mask=[1, 0],
                             shrink_axis_mask=[0, 1])
    return Witness(_case("StridedSlice", 1, [node], [p], {"x": x}), [x[np.newaxis, 1]])


# -- i64 values outside the i32 range --------------------------------------------------------------------------

def _i64_beyond_i32(case: OpCase) -> bool:
    info = np.iinfo(np.int32)
    for node in case.model.get_ordered_ops():
        if node.type_name in ("Parameter", "Constant") and node.get_output_element_type(0) == Type.i64:
            value = case.inputs.get(node.friendly_name) if node.type_name == "Parameter" else node.data
            if value is not None and np.any((np.asarray(value) < info.min) | (np.asarray(value) > info.max)):
                return True
    return False


_BIG = np.array([2 ** 40, 3, -(2 ** 35), 2 ** 31], np.int64)
_SMALL = np.array([1, 2 ** 33, 5, 1], np.int64)


def _add_i64_witness() -> Witness:
    pa, pb = _param("a", _BIG), _param("b", _SMALL)
    return Witness(_case("Add", 1, [ops.add(pa, pb)], [pa, pb], {"a": _BIG, "b": _SMALL}), [_BIG + _SMALL])


def _concat_i64_witness() -> Witness:
    pa, pb = _param("a", _BIG), _param("b", _SMALL)
    return Witness(_case("Concat", 1, [ops.concat([pa, pb], 0)], [pa, pb], {"a": _BIG, "b": _SMALL}),
                   [np.concatenate([_BIG, _SMALL])])


_I64_REASON = ("i64 values outside the i32 range: OpenVINO CPU executes i64 as i32 and keeps only the low 32 "
               "bits; the spec defines the op for any numeric type, so i64 values must be exact")

# -- HardSigmoid-1 with a zero alpha or beta ---------------------------------------------------------------------

def _hard_sigmoid_zero_coefficient(case: OpCase) -> bool:
    for node in op_nodes(case, "HardSigmoid", (1,)):
        alpha, beta = input_value(case, node, 1), input_value(case, node, 2)
        if alpha is None or beta is None or not np.all(alpha) or not np.all(beta):
            return True
    return False


def _hard_sigmoid_witness() -> Witness:
    x = np.array([-4.0, -1.0, 0.0, 1.0, 4.0], np.float32)
    p = _param("x", x)
    node = ops.hard_sigmoid(p, np.float32(0.0), np.float32(0.0))
    return Witness(_case("HardSigmoid", 1, [node], [p], {"x": x}), [np.zeros(5, np.float32)])


DEVIATIONS: tuple[Deviation, ...] = (
    Deviation(
        "HardSigmoid", (1,), _hard_sigmoid_zero_coefficient,
        "zero alpha or beta: OpenVINO CPU replaces alpha=0 by 0.2 and beta=0 by 0.5 (its defaults); the spec "
        "computes max(0, min(1, alpha*x + beta)) with the given values",
        f"{SPEC}/activation/hard-sigmoid-1.html",
        "x = [-4, -1, 0, 1, 4], alpha = beta = 0: spec gives [0, 0, 0, 0, 0]; CPU gives [0, 0.3, 0.5, 0.7, 1] "
        "(0.2*x + 0.5 clipped).",
        _hard_sigmoid_witness),
    Deviation(
        "Clamp", (1,), _clamp_8bit_fraction,
        "fractional bounds on i8/u8: OpenVINO CPU truncates min and max toward zero; the spec converts min with "
        "ceil and max with floor (i16/i32/i64/u16/u32 follow the spec)",
        f"{SPEC}/activation/clamp-1.html",
        "i8 x=[-5..4], Clamp(min=0.7, max=3.3): CPU gives [0,0,0,0,0,0,1,2,3,3] (min 0), spec ceil(0.7)=1 gives "
        "[1,1,1,1,1,1,1,2,3,3]; Clamp(-3.7, -1.7) gives -1 where floor(-1.7)=-2.",
        _clamp_witness),
    Deviation(
        "Divide", (1,), _divide_floor_differs,
        "integer division with m_pythondiv=true and operands of different signs: OpenVINO CPU truncates toward "
        "zero; the spec says m_pythondiv=true is floor division",
        f"{SPEC}/arithmetic/divide-1.html",
        "i32 [-7, 7, -1, 6] / [2, -2, 3, 3] with m_pythondiv=true: CPU gives [-3, -3, 0, 2], floor division "
        "[-4, -4, -1, 2] (also i64 and i8, Parameter or Constant divisor).",
        _divide_witness),
    Deviation(
        "ReduceMean", (1,), _reduce_mean_sum_overflows,
        "integer data whose sum leaves the type's range: OpenVINO CPU saturates (i8/u8) or wraps (i32) the "
        "running sum, although the spec's arithmetic mean is representable",
        f"{SPEC}/reduction/reduce-mean-1.html",
        "i8 [[100]*4, [-100]*4] mean over axis 1: CPU gives [31, -32] (127/4, -128/4), the mean is [100, -100]; "
        "u8 [200]*4 gives 63; i32 [2**31-10]*2 gives -1073741824.",
        _reduce_mean_witness),
    Deviation(
        "ReduceMin", (1,), _reduce_min_f32_over_nothing,
        "f32 data reduced over a dim of size 0: OpenVINO CPU gives f32's largest finite value; the minimum over "
        "no elements is min's identity +inf, which OpenVINO's reference code gives (numeric_limits<T>::"
        "has_infinity ? infinity() : max()) and REFERENCE follows",
        f"{SPEC}/reduction/reduce-min-1.html",
        "f32 zeros((2, 0, 3)) ReduceMin over axis 1: CPU gives 3.4028235e+38 everywhere, ReduceMin's evaluate "
        "(OpenVINO's reference code) gives inf (f16 and integer types agree: inf, the type's max).",
        _reduce_min_empty_witness),
    Deviation(
        "ErfInv", (17,), _erfinv_inside,
        "values inside (-1, 1): OpenVINO CPU's ErfInv is an approximation with relative errors up to about 1e-4 "
        "(870 f32 ulp) for |x| < 0.99 and 5e-3 nearer ±1; the spec's erfinv is the exact inverse of erf (its "
        "special values 0, ±1, |x| > 1 and NaN CPU gets right)",
        f"{SPEC}/arithmetic/erfinv-17.html",
        "f32 [0.5, 0.999]: CPU gives [0.47693622, 2.3218474], erfinv gives [0.47693628, 2.3267562]; over 20001 "
        "points of [-0.9999, 0.9999] the largest relative error is 873 ulp below 0.5 and 43750 ulp in [0.99, 0.999).",
        _erfinv_witness),
    Deviation(
        "MaxPool", (8, 14), _max_pool_lowest_after_pad,
        "a window whose maximum is the type's lowest value with begin padding before it: OpenVINO CPU reports "
        "index 0 (where the padding is); the spec pads with -inf and computes indices 'not considering padding', "
        "so the index is the element's own",
        f"{SPEC}/pooling/max-pool-8.html",
        "u8 [[5, 0, 3], [1, 2, 4]], kernel [2, 1], pads_begin [1, 0]: the window over (pad, x[0,1]=0) gives "
        "value 0 and index 0 instead of 1 (also i32 INT_MIN, i8 -128 and f32 -FLT_MAX; values are right).",
        _max_pool_witness),
    Deviation(
        "StridedSlice", (1,), _new_and_shrink,
        "new_axis_mask and shrink_axis_mask both set: OpenVINO CPU returns values from the wrong place and "
        "uninitialized memory",
        f"{SPEC}/movement/strided-slice-1.html",
        "x = arange(24).reshape(2, 3, 4), begin=end=[0, 1], new_axis_mask=[1, 0], shrink_axis_mask=[0, 1] "
        "(x[np.newaxis, 1], shape [1, 3, 4]): CPU gives [3, 4, 5, 0, 1.7e25, ...], varying between runs.",
        _strided_slice_witness),
    Deviation(
        "Add", (1,), _i64_beyond_i32, _I64_REASON, f"{SPEC}/arithmetic/add-1.html",
        "i64 [2**40, 3, -2**35, 2**31] + [1, 2**33, 5, 1]: CPU gives [1, 3, 5, -2147483647].",
        _add_i64_witness),
    Deviation(
        "Concat", (1,), _i64_beyond_i32, _I64_REASON, f"{SPEC}/movement/concat-1.html",
        "Concat of i64 [2**40, 3, -2**35, 2**31] and [1, 2**33, 5, 1]: CPU gives [0, 3, 0, -2147483648, 1, 0, "
        "5, 1] (data movement loses the high bits too).",
        _concat_i64_witness),
)

# Each tier-2/3 family keeps its records in deviations_<family>.py (imported here, after the types exist).
from deviations_opset_completion import DEVIATIONS as _ADDED_S8  # noqa: E402
from deviations_advanced import DEVIATIONS as _ADVANCED  # noqa: E402
from deviations_detect import DEVIATIONS as _DETECT  # noqa: E402
from deviations_detectron import DEVIATIONS as _DETECTRON  # noqa: E402
from deviations_index import DEVIATIONS as _INDEX  # noqa: E402
from deviations_layout import DEVIATIONS as _LAYOUT  # noqa: E402
from deviations_misc import DEVIATIONS as _MISC  # noqa: E402
from deviations_norm import DEVIATIONS as _NORM  # noqa: E402
from deviations_recurrent import DEVIATIONS as _RECURRENT  # noqa: E402
from deviations_signal import DEVIATIONS as _SIGNAL  # noqa: E402
from deviations_sort import DEVIATIONS as _SORT  # noqa: E402

DEVIATIONS = (*DEVIATIONS, *_NORM, *_LAYOUT, *_INDEX, *_ADVANCED, *_RECURRENT, *_SIGNAL, *_MISC, *_DETECT, *_ADDED_S8,
              *_SORT, *_DETECTRON)

#: Suspected deviations that were checked and rejected: the spec leaves the result undefined.
NOT_DEVIATIONS: dict[str, str] = {
    "i8/u8 Power, Add, Multiply, ReduceSum overflow (CPU saturates, REFERENCE wraps)":
        "the result is not representable in the type and no spec says what happens then; the strategies keep "
        "8-bit values small.",
    "AvgPool window with no input element (CPU NaN, REFERENCE 0)":
        "with ceil rounding and exclude-pad=true the last window can lie wholly in the padding; its mean is 0/0 "
        "and the AvgPool-1/14/16 specs do not define it (ceil_torch exists to avoid such windows).",
    "Clamp on i16/i32/i64/u16/u32 with fractional bounds":
        "OpenVINO CPU follows the spec there (ceil(min), floor(max)); only i8/u8 deviate.",
    "NV12toRGB/NV12toBGR/I420toRGB/I420toBGR u8 output 1 apart (CPU 174, REFERENCE 175)":
        "only where the spec's R, G or B is exactly k + 0.5 (Y 148, U 162, V 86: G = 153.648 + 34.146 - 13.294 = "
        "174.5; also 106.5, 226.5, 136.5, 50.5); the NV12toRGB-8 spec gives the formula and the clip to [0, 255] but "
        "no rounding to u8, and CPU rounds such halves up or down (30 of 54 up, 24 down, in 1200 drawn cases). The "
        "colour strategies move the Y of such a pixel by one.",
    "ROIAlign-9 box with an empty side, sampling_ratio 0, aligned_mode half_pixel(_for_nn) (CPU NaN, REFERENCE 0)":
        "outside asymmetric the spec does not make roi_width/roi_height at least 1, so x1 == x2 gives "
        "ceil(roi_width / pooled_w) = 0 samples per bin and the average (or maximum) of no samples is undefined "
        "(0/0). The ROIAlign strategy widens such a side by 1/4 when sampling_ratio is 0.",
    "Multinomial samples differ (CPU std::mt19937 seeded by seed_seq{global_seed, op_seed}, REFERENCE "
    "RandomUniform's Philox as OpenVINO's reference code)":
        "the Multinomial-13 spec does not define the uniform generator; devices are checked by the validity "
        "of their samples (ovconform.categorical), not by value.",
}


def deviation_for(case: OpCase) -> Deviation | None:
    """The first record whose op and version match the case's and whose predicate holds."""
    for dev in DEVIATIONS:
        if case.op_type == dev.op and case.version in dev.versions and dev.applies(case):
            return dev
    return None
