"""OpenVINO CPU deviations from the spec for the "misc" family (records as in openvino_deviations.py)."""

from __future__ import annotations

import numpy as np
from openvino_deviations import SPEC, Deviation, Witness, _case, input_value, op_nodes

from ovconform import opset as ops
from ovconform.ir import Node, Type
from ovconform.opcases import OpCase

RANDOM_UNIFORM_URL = f"{SPEC}/generation/random-uniform-8.html"

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
)
