"""OpenVINO CPU deviations from the spec for the ops that completed opset1..17 (issue #22): BinaryConvolution-1,
GroupedMatMul-17, RGBtoNV12-17 and BGRtoNV12-17 (records as in openvino_deviations.py).

Not recorded (not reproducible): OpenVINO CPU's StringTensorPack gives bytes left in memory by an earlier
request for an empty string (begins[i] == ends[i]) (begins [1], ends [1], symbols b'abcd' gave b'\xc3'
after other requests, '' in a fresh process; a scalar gave '\x01'); the StringTensorPack strategy draws no
empty string.

OpenVINO 2026.4 has no evaluate() for any of them (``Node.evaluate`` returns false), so where CPU
refuses or deviates there is no OpenVINO reference code to run instead; ``tests/ops/test_opset_completion.py``
checks REFERENCE against OpenVINO CPU running each op's formula built from ops CPU has (Convolution
of ``2x - 1`` and ``2w - 1``; the colour formulas with AvgPool).
"""

from __future__ import annotations

import numpy as np
from openvino_deviations import SPEC, Deviation, Witness, _case, _param, op_nodes

from ovconform import opset as ops
from ovconform.ir import Type
from ovconform.opcases import OpCase

# -- BinaryConvolution-1: u1 filter bits read in another order ---------------------------------------------------


def _any_binary_convolution(case: OpCase) -> bool:
    return bool(op_nodes(case, "BinaryConvolution", (1,)))


def _binary_convolution_witness() -> Witness:
    x = np.array([1, 1, 1, 1, 0, 0, 0, 0], np.float32).reshape(1, 8, 1, 1)
    bits = np.array([1, 1, 0, 0, 0, 0, 0, 0], np.uint8).reshape(1, 8, 1, 1)
    p = _param("x", x)
    node = ops.binary_convolution(p, ops.constant(bits, Type.u1), [1, 1], [0, 0], [0, 0], [1, 1], "xnor-popcount", 0.0)
    # signs (+ + + + - - - -) . (+ + - - - - - -) = 4; CPU reads the byte 0b11000000 as 0b00000011 and gives -4
    return Witness(_case("BinaryConvolution", 1, [node], [p], {"x": x}), [np.array([[[[4.0]]]], np.float32)])


# -- GroupedMatMul-17: only f32/f16 with constant weights ----------------------------------------------------------


def _grouped_matmul_refused(case: OpCase) -> bool:
    for node in op_nodes(case, "GroupedMatMul", (17,)):
        if not node.get_input_element_type(0).is_real() or node.input_value(1).node.type_name != "Constant":
            return True
    return False


def _grouped_matmul_witness() -> Witness:
    a = np.arange(6, dtype=np.float32).reshape(1, 2, 3)
    b = np.ones((1, 1, 3), np.float32)
    pa, pb = _param("a", a), _param("b", b)
    return Witness(_case("GroupedMatMul", 17, [ops.grouped_matmul(pa, pb)], [pa, pb], {"a": a, "b": b}),
                   [np.array([[[3.0], [12.0]]], np.float32)])


# -- RGBtoNV12-17 / BGRtoNV12-17: no CPU kernel ------------------------------------------------------------------


def _to_nv12(op: str):  # type: ignore[no-untyped-def]
    def applies(case: OpCase) -> bool:
        return bool(op_nodes(case, op, (17,)))
    return applies


def _nv12_witness(op: str):  # type: ignore[no-untyped-def]
    def witness() -> Witness:
        x = np.zeros((1, 2, 2, 3), np.uint8)
        p = _param("x", x)
        build = ops.rgb_to_nv12 if op == "RGBtoNV12" else ops.bgr_to_nv12
        # black: Y = 16, U = V = 128
        return Witness(_case(op, 17, [build(p)], [p], {"x": x}),
                       [np.array([16, 16, 16, 16, 128, 128], np.uint8).reshape(1, 3, 2, 1)])
    return witness


DEVIATIONS: tuple[Deviation, ...] = (
    Deviation(
        "BinaryConvolution", (1,), _any_binary_convolution,
        "u1 filters: OpenVINO CPU reads the filter bits in another order than OpenVINO's u1 layout (first element "
        "in the most significant bit, as the spec's u1, save_model and OpenVINO's reference code have it): with "
        "C_IN a multiple of 8 it reads each byte least significant bit first (otherwise in an order not worked out), "
        "and it refuses some valid windows ('has unsupported parameters')",
        f"{SPEC}/convolution/binary-convolution-1.html",
        "data [1, 8, 1, 1] = 1,1,1,1,0,0,0,0 and filter bits 1,1,0,0,0,0,0,0 (byte 0xC0): the spec gives 4, CPU -4 "
        "(the filter read as 0,0,0,0,0,0,1,1); with the filter bytes bit-reversed CPU matches the spec exactly "
        "for C_IN 8, 16, 32, 64 (1x1 and 3x3, pad_value 0 and 1); for C_IN 1, 3, 5 45-95 % of outputs differ.",
        _binary_convolution_witness),
    Deviation(
        "GroupedMatMul", (17,), _grouped_matmul_refused,
        "mat_b not a Constant, or an integer type: OpenVINO CPU refuses to compile (its GroupedMatMul kernel needs "
        "constant f32/f16 weights; there is no evaluate() to fall back on); the spec's T is any numeric type and "
        "mat_b any tensor",
        f"{SPEC}/matrix/grouped-matmul-17.html",
        "f32 mat_a [1, 2, 3] and mat_b [1, 1, 3] both Parameters: 'Ngraph::Node::evaluate() is not implemented for "
        "op: opset17::GroupedMatMul'; i32/i64/u8/i8 with constant weights: 'No suitable implementations found'.",
        _grouped_matmul_witness, openvino_refuses=True),
    *(Deviation(
        op, (17,), _to_nv12(op),
        f"any {op}: OpenVINO CPU has no kernel for it and its evaluate() is not implemented, so it refuses every "
        "model holding it",
        f"{SPEC}/image/{op[:3].lower()}-to-nv12-17.html",
        f"u8 [1, 2, 2, 3] zeros: 'Unsupported operation of type: {op}' ... 'Ngraph::Node::evaluate() is not "
        "implemented'; f32 and f16, one plane or two, the same.",
        _nv12_witness(op), openvino_refuses=True) for op in ("RGBtoNV12", "BGRtoNV12")),
)
