"""OpenVINO CPU deviations from the spec for the "misc" family (records as in openvino_deviations.py)."""

from __future__ import annotations

import numpy as np
from openvino_deviations import SPEC, Deviation, Witness, _case, input_value, op_nodes

from ovconform import opset as ops
from ovconform.ir import Node, Type
from ovconform.opcases import OpCase

RANDOM_UNIFORM_URL = f"{SPEC}/generation/random-uniform-8.html"
MULTINOMIAL_URL = f"{SPEC}/generation/multinomial-13.html"

# -- RandomUniform-8: outputs computed in 32 bits ---------------------------------------------------------------


def _i64_from_one_word(node: Node, case: OpCase) -> bool:
    """The spec's pytorch alignment makes an i64 value from one uint32 when min and max fit in uint32."""
    if node.attrs["alignment"] != "pytorch":
        return False
    bounds = [input_value(case, node, i) for i in (1, 2)]
    return all(b is not None and int(np.asarray(b).reshape(-1)[0]) <= 0xFFFFFFFF for b in bounds)


def _computed_in_32_bits(case: OpCase) -> bool:
    for node in op_nodes(case, "RandomUniform", (8,)):
        et = node.attrs["output_type"]
        if et in (Type.f16, Type.bf16, Type.f64) or (et == Type.i64 and not _i64_from_one_word(node, case)):
            return True
    return False


def _random_witness(et: str, dtype: type, count: int, high: float | int, expected: list[float | int]) -> Witness:
    node = ops.random_uniform(np.array([count], np.int32), dtype(0), dtype(high), et, 1, 0, "tensorflow")
    return Witness(_case("RandomUniform", 8, [node], [], {}), [np.array(expected, dtype)])


def _f16_witness() -> Witness:
    # Philox words of seed (1, 0): their low 23 bits give the f32 output [0.81269646, 0.07857466, 0.8916855]
    # (OpenVINO CPU agrees bit for bit); the low 10 bits give the spec's f16 values below.
    return _random_witness("f16", np.float16, 3, 1, [0.609375, 0.68359375, 0.6875])


# -- RandomUniform-8: scalar output -------------------------------------------------------------------------------


def _scalar_output(case: OpCase) -> bool:
    return any(n.output(0).get_partial_shape().is_static and len(n.output(0).get_partial_shape()) == 0
               for n in op_nodes(case, "RandomUniform", (8,)))


def _scalar_witness() -> Witness:
    node = ops.random_uniform(np.array([], np.int32), np.float32(0), np.float32(1), "f32", 1, 0, "tensorflow")
    return Witness(_case("RandomUniform", 8, [node], [], {}), [np.array(0.81269646, np.float32)])


# -- Multinomial-13: a class drawn twice without replacement -----------------------------------------------------


#: A row's smallest positive probability below this share of the row's sum: the CDF update after a draw
#: (subtract the drawn class's probability, divide by 1 - it) leaves a drawn class a rounding sliver that is
#: large against the mass left, so OpenVINO CPU can draw the class again.
SLIVER_SHARE = 2.0 ** -10


def _skewed_without_replacement(case: OpCase) -> bool:
    for node in op_nodes(case, "Multinomial", (13,)):
        probs, count = input_value(case, node, 0), input_value(case, node, 1)
        if node.attrs["with_replacement"] or (count is not None and int(np.asarray(count).reshape(-1)[0]) < 2):
            continue
        if probs is None:
            return True
        p = np.asarray(probs, np.float64)
        with np.errstate(over="ignore"):
            p = np.exp(p) if node.attrs["log_probs"] else p
        for row in p.reshape(-1, p.shape[-1]):
            positive = row[row > 0]
            if positive.size and positive.min() < SLIVER_SHARE * positive.sum():
                return True
    return False


def _repeat_witness() -> Witness:
    probs = np.array([[1e-7, 2e-7, 4e-7, 1.0]], np.float32)
    p = ops.parameter([1, 4], Type.f32, "probs")
    node = ops.multinomial(p, np.array([4], np.int32), "i32", False, False, 8, 1)
    # every class once; the order is REFERENCE's (RandomUniform's Philox numbers, seeds (8, 1))
    return Witness(_case("Multinomial", 13, [node], [p], {"probs": probs}), [np.array([[3, 1, 2, 0]], np.int32)])


DEVIATIONS: tuple[Deviation, ...] = (
    Deviation(
        "RandomUniform", (8,), _computed_in_32_bits,
        "f16/bf16/f64 output, and i64 output unless the pytorch alignment with bounds within uint32: OpenVINO CPU "
        "computes the values as f32/i32 and converts them; the spec converts the Philox/Mersenne words per type (low "
        "10 mantissa bits for f16, 52 bits of two words for f64, two words for i64)",
        RANDOM_UNIFORM_URL,
        "tensorflow alignment, seeds (1, 0), shape [3], [0, 1): f32 gives [0.81269646, 0.07857466, 0.8916855] on CPU "
        "and in the spec; f16 gives [0.8125, 0.07855, 0.8916] on CPU (the f32 values rounded) where the spec's low 10 "
        "bits give [0.609375, 0.68359375, 0.6875]; f64 and i64 likewise follow the f32/i32 sequence.",
        _f16_witness),
    Deviation(
        "RandomUniform", (8,), _scalar_output,
        "shape [] (a scalar output): OpenVINO CPU returns uninitialized memory; the spec gives the first generated "
        "value",
        RANDOM_UNIFORM_URL,
        "f32, tensorflow alignment, seeds (1, 0), [0, 1): shape [] gives -2.53e-20 (varying between runs, also "
        "values outside [min, max)) on CPU; shape [3] gives [0.81269646, ...], so the spec's scalar is 0.81269646.",
        _scalar_witness),
    Deviation(
        "Multinomial", (13,), _skewed_without_replacement,
        "with_replacement=false and a row whose smallest probability is tiny against the row's sum: OpenVINO CPU can "
        "draw a class twice (its CDF update after a draw, cdf -= p_k then cdf /= 1 - p_k in f32, leaves the drawn "
        "class a rounding sliver at the top of [0, 1]); the spec: class indices do not repeat in the output",
        MULTINOMIAL_URL,
        "probs [[1e-7, 2e-7, 4e-7, 1.0]] f32, num_samples 4, with_replacement=false, global_seed 8, op_seed 1: "
        "OpenVINO CPU gives [[3, 3, 1, 2]] (class 3 twice, class 0 never), on every run; any permutation of "
        "0..3 satisfies the spec. Found first as 1 row in 3000 of f16 probs in [1e-4, 1] drawing all 6 classes.",
        _repeat_witness),
)
