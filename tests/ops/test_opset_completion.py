"""The ops that completed opset1..17 (issue #22): BinaryConvolution-1, StringTensorPack-15,
StringTensorUnpack-15, GroupedMatMul-17, RGBtoNV12-17 and BGRtoNV12-17.

* builders: shape inference, and a ValidationError naming the bad value for every refused input;
* REFERENCE on hand-worked values (the spec's formulas);
* IR: OpenVINO-written IR of each op read by ``ovconform.read_model`` (u1 filters, string constants),
  ours read by OpenVINO;
* where OpenVINO CPU cannot run the op itself (a recorded deviation or refusal in
  ``tests/reference/deviations_opset_completion.py``), REFERENCE against OpenVINO CPU running the spec's
  formula built from ops CPU has: BinaryConvolution as the Convolution of ``2x - 1`` and ``2w - 1``
  (padding ``2 * [pad_value == 1] - 1``), and, for C_IN a multiple of 8, BinaryConvolution itself on
  CPU with every filter byte's bits reversed (the order CPU reads them in); RGBtoNV12/BGRtoNV12 as
  the colour formulas, Clamp, (Round) and a 2x2 AvgPool. GroupedMatMul and the string ops are
  cross-checked on CPU by ``tests/reference/test_crosscheck_openvino.py``;
* the op suite catches the broken devices of ``tests/plugins/opset_completion_faults.py``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from _session import assert_fails_only_its_ops, assert_passes_every_test_of, once_per_session, op_fault_runs

from ovconform import Model, opset, read_model, serialize
from ovconform.errors import InferError, ValidationError
from ovconform.ir import Type, constant_value
from ovconform.opcases import OpCase
from ovconform.suites._op_runner import generate_cases
from reference_plugin.evaluate import ModelRunner

CASES = 40
CPU_CONFIG = {"INFERENCE_PRECISION_HINT": "f32"}


def _run(outputs: list[Any], params: list[Any], inputs: dict[str, np.ndarray]) -> list[np.ndarray]:
    return ModelRunner(Model(outputs, params, "m")).run(inputs)


def _ov() -> Any:
    return pytest.importorskip("openvino", reason="the OpenVINO checks need the openvino package")


# -- GroupedMatMul-17 -------------------------------------------------------------------------------------------

def test_grouped_matmul_both_cases_by_hand() -> None:
    a = np.arange(12, dtype=np.float32).reshape(6, 2)
    w = np.array([[[1, 0], [0, 1], [1, 1]], [[2, 0], [0, 0], [0, 3]], [[1, -1], [0, 0], [0, 0]]], np.float32)
    pa = opset.parameter([6, 2], Type.f32, "a")
    node = opset.grouped_matmul(pa, opset.constant(w), opset.constant(np.array([2, 2, 6], np.int64)))
    assert node.get_output_partial_shape(0).to_shape() == (6, 3)
    (out,) = _run([node], [pa], {"a": a})
    want = np.concatenate([a[:2] @ w[0].T, a[2:6] @ w[2].T])  # group 1 is empty
    np.testing.assert_array_equal(out, want)
    a3 = np.arange(12, dtype=np.int32).reshape(2, 3, 2)
    w3 = np.arange(8, dtype=np.int32).reshape(2, 2, 2)
    p3 = opset.parameter([2, 3, 2], Type.i32, "a")
    (out3,) = _run([opset.grouped_matmul(p3, opset.constant(w3))], [p3], {"a": a3})
    np.testing.assert_array_equal(out3, np.einsum("gmk,gnk->gmn", a3, w3))


@pytest.mark.parametrize(("shapes", "offsets", "match"), [
    (([4, 3], [2, 5, 3]), None, "needs offsets"),
    (([2, 4, 3], [2, 5, 3]), [4, 4], "takes no offsets"),
    (([4, 3], [2, 5, 4]), [1, 4], "K=3.*K=4"),
    (([2, 4, 3], [3, 5, 3]), None, "number of groups"),
    (([4, 3], [2, 5, 3]), [1, 2, 4], "one end per group"),
    (([4], [2, 5, 4]), [1, 4], "must be 2D"),
    (([4, 3], [5, 3]), [1, 4], r"must be 3D \(\[G, N, K\]\)"),
])
def test_grouped_matmul_refuses(shapes: tuple[list[int], list[int]], offsets: list[int] | None, match: str) -> None:
    a, b = (opset.parameter(s, Type.f32, n) for s, n in zip(shapes, "ab", strict=True))
    with pytest.raises(ValidationError, match=match):
        opset.grouped_matmul(a, b, None if offsets is None else np.array(offsets, np.int32))


def test_grouped_matmul_offset_types_and_values() -> None:
    a, b = opset.parameter([4, 3], Type.f32, "a"), opset.parameter([2, 5, 3], Type.f32, "b")
    with pytest.raises(ValidationError, match="offsets .* element type u8; it must be i32 or i64"):
        opset.grouped_matmul(a, b, opset.constant(np.array([1, 4], np.uint8)))
    with pytest.raises(ValidationError, match=r"same element type; got \['f32', 'f16'\]"):
        opset.grouped_matmul(a, opset.parameter([2, 5, 3], Type.f16, "b16"), np.array([1, 4], np.int32))
    po = opset.parameter([2], Type.i32, "o")
    model = [opset.grouped_matmul(a, b, po)], [a, b, po]
    x, w = np.ones((4, 3), np.float32), np.ones((2, 5, 3), np.float32)
    for bad, match in (([3, 1], "ascending"), ([1, 3], "must end at the number of rows of mat_a \\(4\\)"),
                       ([-1, 4], "ascending")):
        with pytest.raises(InferError, match=match):
            _run(*model, {"a": x, "b": w, "o": np.array(bad, np.int32)})


# -- RGBtoNV12-17 / BGRtoNV12-17 ---------------------------------------------------------------------------------

def _pixel_yuv(rgb: np.ndarray) -> np.ndarray:
    r, g, b = (rgb[..., i].astype(np.float64) for i in range(3))
    y = 0.257 * r + 0.504 * g + 0.098 * b + 16
    u = -0.148 * r - 0.291 * g + 0.439 * b + 128
    v = 0.439 * r - 0.368 * g - 0.071 * b + 128
    return np.clip(np.stack([y, u, v], -1), 0, 255)


@pytest.mark.parametrize("op", ["RGBtoNV12", "BGRtoNV12"])
def test_to_nv12_by_hand(op: str) -> None:
    rng = np.random.default_rng(3)
    rgb = rng.uniform(-30, 290, (2, 4, 6, 3)).astype(np.float32)
    image = rgb[..., ::-1].copy() if op == "BGRtoNV12" else rgb
    build = opset.rgb_to_nv12 if op == "RGBtoNV12" else opset.bgr_to_nv12
    p = opset.parameter([2, 4, 6, 3], Type.f32, "x")
    yuv = _pixel_yuv(rgb)
    uv = yuv[..., 1:].reshape(2, 2, 2, 3, 2, 2).mean(axis=(2, 4))  # [N, H/2, W/2, 2]
    y_plane, uv_plane = _run(build(p, False).outputs(), [p], {"x": image})
    np.testing.assert_allclose(y_plane[..., 0], yuv[..., 0], atol=2e-4)
    np.testing.assert_allclose(uv_plane, uv, atol=2e-4)
    (single,) = _run([build(p)], [p], {"x": image})
    assert single.shape == (2, 6, 6, 1)
    np.testing.assert_array_equal(single[:, :4], y_plane)
    np.testing.assert_array_equal(single[:, 4:, :, 0].reshape(2, 2, 3, 2), uv_plane)


def test_to_nv12_u8_rounds_each_pixel_then_the_mean() -> None:
    """As OpenVINO's reference code: the pixels' U are 134.66, 126.563, 214.904, 176.538, rounded to 135,
    127, 215, 177, whose mean 163.5 rounds to 164 (the mean of the unrounded values, 163.17, would give 163)."""
    rgb = np.array([[[80, 125, 125], [249, 177, 198]], [[2, 79, 251], [69, 130, 220]]], np.uint8)[None]
    p = opset.parameter([1, 2, 2, 3], Type.u8, "x")
    y_plane, uv_plane = _run(opset.rgb_to_nv12(p, False).outputs(), [p], {"x": rgb})
    assert uv_plane[0, 0, 0, 0] == 164
    np.testing.assert_array_equal(y_plane[..., 0], np.floor(_pixel_yuv(rgb)[..., 0] + 0.5))


@pytest.mark.parametrize(("shape", "et", "match"), [
    ([1, 3, 4, 3], Type.u8, "height 3 must be even"),
    ([1, 4, 5, 3], Type.u8, "width 5 must be even"),
    ([1, 4, 4, 4], Type.f32, "channel dim must be 3"),
    ([4, 4, 3], Type.f32, "rank 4"),
    ([1, 4, 4, 3], Type.i32, "needs u8 or a floating-point type"),
])
def test_to_nv12_refuses(shape: list[int], et: Type, match: str) -> None:
    with pytest.raises(ValidationError, match=match):
        opset.rgb_to_nv12(opset.parameter(shape, et, "x"))


# -- BinaryConvolution-1 ---------------------------------------------------------------------------------------

def _binary_conv_formula(x: np.ndarray, bits: np.ndarray, pads: tuple[int, int], pad_value: float) -> np.ndarray:
    signs = np.pad(np.where(x == 1, 1.0, -1.0), ((0, 0), (0, 0), (pads[0], pads[0]), (pads[1], pads[1])),
                   constant_values=1.0 if pad_value == 1 else -1.0)
    w = 2.0 * bits - 1.0
    kh, kw = bits.shape[2:]
    oh, ow = signs.shape[2] - kh + 1, signs.shape[3] - kw + 1
    out = np.zeros((x.shape[0], bits.shape[0], oh, ow))
    for i in range(oh):
        for j in range(ow):
            out[:, :, i, j] = np.einsum("nchw,ochw->no", signs[:, :, i:i + kh, j:j + kw], w)
    return out


@pytest.mark.parametrize("pad_value", [0.0, 1.0])
def test_binary_convolution_by_hand(pad_value: float) -> None:
    rng = np.random.default_rng(5)
    x = rng.integers(0, 2, (2, 3, 4, 5)).astype(np.float32)
    bits = rng.integers(0, 2, (4, 3, 3, 3)).astype(np.uint8)
    p = opset.parameter([2, 3, 4, 5], Type.f32, "x")
    node = opset.binary_convolution(p, opset.constant(bits, Type.u1), [1, 1], [1, 1], [1, 1], [1, 1],
                                    "xnor-popcount", pad_value)
    (out,) = _run([node], [p], {"x": x})
    np.testing.assert_array_equal(out, _binary_conv_formula(x, bits, (1, 1), pad_value))
    # 2 * popcount(xnor) - B on one output: B = 27 taps
    assert abs(out).max() <= 27 and np.all((out + 27) % 2 == 0)


@pytest.mark.parametrize(("kernel_t", "data_shape", "mode", "match"), [
    (Type.u8, [1, 3, 4, 4], "xnor-popcount", "filters .* element type u8; BinaryConvolution needs u1"),
    (Type.u1, [1, 3, 4], "xnor-popcount", "must have rank 4"),
    (Type.u1, [1, 2, 4, 4], "xnor-popcount", "data channels 2"),
    (Type.u1, [1, 3, 4, 4], "popcount", "mode.=.popcount. is not allowed; allowed: .xnor-popcount."),
])
def test_binary_convolution_refuses(kernel_t: Type, data_shape: list[int], mode: str, match: str) -> None:
    filters = opset.constant(np.ones((2, 3, 1, 1), np.uint8), kernel_t)
    with pytest.raises(ValidationError, match=match):
        opset.binary_convolution(opset.parameter(data_shape, Type.f32, "x"), filters, [1, 1], [0, 0], [0, 0],
                                 [1, 1], mode, 0.0)


# -- StringTensorPack-15 / StringTensorUnpack-15 -------------------------------------------------------------------

def test_string_unpack_then_pack_by_hand() -> None:
    text = np.empty((2, 2), dtype=object)
    text[:] = [["ab", ""], ["héllo", "€\udcff"]]  # \udcff: the byte 0xff kept as a surrogate escape
    p = opset.parameter([2, 2], Type.string, "s")
    unpack = opset.string_tensor_unpack(p)
    begins, ends, symbols = _run(unpack.outputs(), [p], {"s": text})
    assert begins.tolist() == [[0, 2], [2, 8]] and ends.tolist() == [[2, 2], [8, 12]]
    assert symbols.tobytes() == b"ab" + "héllo".encode() + "€".encode() + b"\xff"
    packed = opset.string_tensor_pack(unpack.output(0), unpack.output(1), unpack.output(2))
    (back,) = _run([packed], [p], {"s": text})
    assert back.dtype == object and back.tolist() == text.tolist()


def test_string_pack_ranges_and_refusals() -> None:
    pb, pe = opset.parameter([3], Type.i64, "b"), opset.parameter([3], Type.i64, "e")
    ps = opset.parameter([6], Type.u8, "s")
    node = opset.string_tensor_pack(pb, pe, ps)
    assert node.get_output_element_type(0) == Type.string and node.get_output_partial_shape(0).to_shape() == (3,)
    symbols = np.frombuffer(b"abcdef", np.uint8).copy()
    (out,) = _run([node], [pb, pe, ps], {"b": np.array([4, 0, 1]), "e": np.array([6, 3, 1]), "s": symbols})
    assert out.tolist() == ["ef", "abc", ""]  # ranges in any order, overlapping, empty
    with pytest.raises(InferError, match=r"string 0 spans symbols\[2:7\]"):
        _run([node], [pb, pe, ps], {"b": np.array([2, 0, 0]), "e": np.array([7, 1, 1]), "s": symbols})
    with pytest.raises(ValidationError, match="i32 and i64"):
        opset.string_tensor_pack(opset.parameter([3], Type.i32, "b32"), pe, ps)
    with pytest.raises(ValidationError, match="symbols .* element type i8; it must be u8"):
        opset.string_tensor_pack(pb, pe, opset.parameter([6], Type.i8, "s8"))
    with pytest.raises(ValidationError, match="must have one shape"):
        opset.string_tensor_pack(pb, opset.parameter([2], Type.i64, "e2"), ps)
    with pytest.raises(ValidationError, match="StringTensorUnpack needs string"):
        opset.string_tensor_unpack(opset.parameter([2], Type.f32, "f"))
    const = opset.string_tensor_unpack(opset.constant(np.array(["ab", "€"], dtype=object), Type.string))
    assert const.get_output_partial_shape(2).to_shape() == (5,)  # symbols' length known from a Constant


# -- IR: OpenVINO-written IR read, ours read by OpenVINO -------------------------------------------------------------

def _openvino_models(ov: Any) -> dict[str, tuple[Any, list[np.ndarray]]]:
    from openvino._pyopenvino import NodeFactory

    rng = np.random.default_rng(11)
    x = ov.opset1.parameter([1, 8, 3, 3], ov.Type.f32, name="x")
    t = ov.Tensor(ov.Type.u1, ov.Shape([2, 8, 3, 3]))
    t.data[...] = rng.integers(0, 256, t.data.shape, dtype=np.uint8)
    bconv = ov.opset1.binary_convolution(x, ov.op.Constant(t), [1, 1], [1, 1], [1, 1], [1, 1], "xnor-popcount", 1.0)
    a = ov.opset1.parameter([5, 4], ov.Type.f32, name="a")
    gmm = ov.opset17.grouped_matmul(a, ov.opset1.constant(rng.random((2, 3, 4), dtype=np.float32)),
                                    ov.opset1.constant(np.array([2, 5], np.int32)))
    img = ov.opset1.parameter([1, 4, 4, 3], ov.Type.u8, name="img")
    nv12 = NodeFactory("opset17").create("BGRtoNV12", [img.output(0)], {"single_plane": False})
    s = ov.opset1.parameter([2], ov.Type.string, name="s")
    unpack = ov.opset15.string_tensor_unpack(s)
    pack = ov.opset15.string_tensor_pack(*unpack.outputs())
    return {
        "BinaryConvolution": (ov.Model([bconv], [x]), [rng.integers(0, 2, (1, 8, 3, 3)).astype(np.float32)]),
        "GroupedMatMul": (ov.Model([gmm], [a]), [rng.random((5, 4), dtype=np.float32)]),
        "BGRtoNV12": (ov.Model(nv12.outputs(), [img]), [rng.integers(0, 256, (1, 4, 4, 3), dtype=np.uint8)]),
        "StringTensorPack": (ov.Model([*unpack.outputs(), pack.output(0)], [s]),
                             [np.array(["ab", "€x"], dtype=object)]),
    }


@pytest.mark.openvino
@pytest.mark.parametrize("op", ["BinaryConvolution", "GroupedMatMul", "BGRtoNV12", "StringTensorPack"])
def test_openvino_written_ir_reads_and_runs(tmp_path: Path, op: str) -> None:
    ov = _ov()
    model, inputs = _openvino_models(ov)[op]
    xml = tmp_path / "model.xml"
    ov.save_model(model, xml, compress_to_fp16=False)
    ours = read_model(xml)
    assert op in {n.type_name for n in ours.get_ordered_ops()}
    got = ModelRunner(ours).run({p.friendly_name: v for p, v in zip(ours.get_parameters(), inputs, strict=True)})
    written, weights = serialize(ours)
    back = ov.Core().read_model(written, ov.Tensor(np.frombuffer(weights, np.uint8)))
    assert [n.get_type_name() for n in back.get_ordered_ops()] == [n.get_type_name() for n in model.get_ordered_ops()]
    if op == "BinaryConvolution":  # the u1 filter bits as OpenVINO stored them
        ov_bits = next(n for n in model.get_ordered_ops() if n.get_type_name() == "Constant").get_data()
        ours_bits = next(constant_value(n.output(0)) for n in ours.get_ordered_ops() if n.type_name == "Constant")
        assert ours_bits is not None and np.array_equal(np.packbits(ours_bits.reshape(-1)), ov_bits.reshape(-1))
        assert got[0].shape == (1, 2, 3, 3)
    elif op == "GroupedMatMul":
        (want,) = ov.Core().compile_model(model, "CPU", CPU_CONFIG)(inputs).values()
        np.testing.assert_allclose(got[0], want, rtol=1e-6, atol=1e-6)
    elif op == "StringTensorPack":
        assert got[3].tolist() == ["ab", "€x"] and got[2].tobytes() == "ab€x".encode()
    else:
        assert [g.shape for g in got] == [(1, 4, 4, 1), (1, 2, 2, 2)]


# -- REFERENCE against OpenVINO CPU running the formula ------------------------------------------------------------

def _bconv_nodes(case: OpCase) -> tuple[Any, np.ndarray]:
    node = next(n for n in case.model.get_ordered_ops() if n.type_name == "BinaryConvolution")
    bits = constant_value(node.input_value(1))
    assert bits is not None
    return node, np.asarray(bits)


def _cpu(ov: Any, model: Any, inputs: list[np.ndarray]) -> list[np.ndarray]:
    compiled = ov.Core().compile_model(model, "CPU", CPU_CONFIG)
    result = compiled(inputs)
    return [np.asarray(result[o]) for o in compiled.outputs]


@pytest.mark.openvino
def test_binary_convolution_matches_cpu_convolution_of_signs() -> None:
    """Every generated case: REFERENCE equals OpenVINO CPU's Convolution of ``2x - 1`` (padded with
    ``2 [pad_value == 1] - 1``) and ``2w - 1`` (f32, exact: sums of +-1)."""
    ov = _ov()
    for case in generate_cases("BinaryConvolution", 1, CASES):
        node, bits = _bconv_nodes(case)
        (x,) = case.inputs.values()
        (want,) = ModelRunner(case.model).run(case.inputs)
        a = node.attrs
        p = ov.opset1.parameter(list(x.shape), ov.Type.f32)
        pad_sign = np.float32(1.0 if a["pad_value"] == 1.0 else -1.0)
        taps = (2.0 * bits - 1.0).astype(np.float32)
        # sum over taps of w * s, the padding reading pad_sign = conv of (s - pad_sign) zero-padded, plus
        # pad_sign * (sum of w) at every output
        shifted = ov.opset1.subtract(ov.opset1.subtract(ov.opset1.multiply(p, np.float32(2)), np.float32(1)), pad_sign)
        conv = ov.opset1.convolution(shifted, ov.opset1.constant(taps), list(a["strides"]), list(a["pads_begin"]),
                                     list(a["pads_end"]), list(a["dilations"]), a["auto_pad"].upper())
        at_pads = pad_sign * taps.reshape(len(taps), -1).sum(1).reshape(1, -1, 1, 1)
        full = ov.opset1.add(conv, ov.opset1.constant(at_pads))
        (got,) = _cpu(ov, ov.Model([full], [p]), [x.astype(np.float32)])
        np.testing.assert_array_equal(got, want.astype(np.float32), err_msg=str(a))


@pytest.mark.openvino
def test_binary_convolution_matches_cpu_with_bytes_bit_reversed() -> None:
    """Cases with C_IN a multiple of 8 run on OpenVINO CPU's own BinaryConvolution with each filter
    byte's bits reversed (the order CPU reads them in; see the deviation record): equal to REFERENCE."""
    ov = _ov()
    checked = 0
    for case in generate_cases("BinaryConvolution", 1, CASES):
        node, bits = _bconv_nodes(case)
        if bits.shape[1] % 8:
            continue
        (x,) = case.inputs.values()
        (want,) = ModelRunner(case.model).run(case.inputs)
        a = node.attrs
        t = ov.Tensor(ov.Type.u1, ov.Shape(list(bits.shape)))
        t.data[...] = np.packbits(bits.reshape(-1), bitorder="little")[:t.data.size]
        et = ov.Type.f16 if x.dtype == np.float16 else ov.Type.f32
        p = ov.opset1.parameter(list(x.shape), et)
        bconv = ov.opset1.binary_convolution(p, ov.op.Constant(t), list(a["strides"]), list(a["pads_begin"]),
                                             list(a["pads_end"]), list(a["dilations"]), "xnor-popcount",
                                             a["pad_value"], a["auto_pad"].upper())
        (got,) = _cpu(ov, ov.Model([bconv], [p]), [x])
        np.testing.assert_array_equal(got, want, err_msg=str(a))
        checked += 1
    assert checked >= 5


def _nv12_formula_graph(ov: Any, x: np.ndarray, bgr: bool, single: bool) -> tuple[Any, Any]:
    """The spec's RGBtoNV12 built from Multiply/Add, Clamp, Round (u8) and a 2x2 AvgPool, in f32."""
    p = ov.opset1.parameter(list(x.shape), ov.Type.u8 if x.dtype == np.uint8 else ov.Type.f32)
    f = ov.opset1.convert(p, ov.Type.f32) if x.dtype == np.uint8 else p
    coeffs = np.array([[0.257, 0.504, 0.098], [-0.148, -0.291, 0.439], [0.439, -0.368, -0.071]], np.float32)
    if bgr:
        coeffs = coeffs[:, ::-1].copy()
    yuv = ov.opset1.add(ov.opset1.matmul(f, ov.opset1.constant(coeffs.T.copy()), False, False),
                        ov.opset1.constant(np.array([16, 128, 128], np.float32)))
    yuv = ov.opset1.clamp(yuv, 0.0, 255.0)
    if x.dtype == np.uint8:
        yuv = ov.opset5.round(yuv, "half_away_from_zero")
    nchw = ov.opset1.transpose(yuv, ov.opset1.constant(np.array([0, 3, 1, 2], np.int64)))
    pooled = ov.opset1.avg_pool(nchw, [2, 2], [0, 0], [0, 0], [2, 2], True, "floor")
    if x.dtype == np.uint8:
        pooled = ov.opset5.round(pooled, "half_away_from_zero")
    y = ov.opset8.slice(yuv, np.array([0]), np.array([1]), np.array([1]), np.array([3]))
    uv = ov.opset1.transpose(ov.opset8.slice(pooled, np.array([1]), np.array([3]), np.array([1]), np.array([1])),
                             ov.opset1.constant(np.array([0, 2, 3, 1], np.int64)))
    return p, [y, uv]


@pytest.mark.openvino
@pytest.mark.parametrize("op", ["RGBtoNV12", "BGRtoNV12"])
def test_to_nv12_matches_cpu_running_the_formula(op: str) -> None:
    """Every generated case against OpenVINO CPU computing the formula in f32: u8 equal, f32 within
    1e-4 (measured: 3.1e-5 over 200 cases), f16 within half an f16 ulp of 255 (REFERENCE rounds to f16)."""
    ov = _ov()
    for case in generate_cases(op, 17, CASES):
        node = next(n for n in case.model.get_ordered_ops() if n.type_name == op)
        (x,) = case.inputs.values()
        ours = ModelRunner(case.model).run(case.inputs)
        p, (y, uv) = _nv12_formula_graph(ov, x.astype(np.float32) if x.dtype == np.float16 else x, op == "BGRtoNV12",
                                         True)
        got_y, got_uv = _cpu(ov, ov.Model([y, uv], [p]), [x.astype(np.float32) if x.dtype == np.float16 else x])
        n, h, w = x.shape[:3]
        if node.attrs["single_plane"]:
            ours_y, ours_uv = ours[0][:, :h], ours[0][:, h:, :, 0].reshape(n, h // 2, w // 2, 2)
        else:
            ours_y, ours_uv = ours
        for mine, theirs in ((ours_y, got_y), (ours_uv, got_uv)):
            diff = np.abs(mine.astype(np.float64) - theirs.astype(np.float64))
            # u8 exact; f32 a few ulp of 255 (CPU sums by MatMul); f16: REFERENCE rounds to f16, the graph
            # stays in f32 (half an f16 ulp at 128..255)
            tol = {np.dtype(np.uint8): 0.0, np.dtype(np.float32): 1e-4, np.dtype(np.float16): 0.0625}[x.dtype]
            assert diff.max() <= tol, (op, x.dtype, node.attrs, float(diff.max()))


# -- the op suite catches the broken devices -------------------------------------------------------------------

#: fault class of tests/plugins/opset_completion_faults.py -> (its device name, the op it breaks); the module is
#: imported only by the pytest run below (it imports added_op_faults as a top-level module)
FAULTS = {"GroupedMatMulIgnoresLastOffset": ("OPF_GMM_LASTOFF", "GroupedMatMul-17"),
          "BinaryConvolutionPadValueZero": ("OPF_BCONV_PAD", "BinaryConvolution-1"),
          "BGRtoNV12ReadsRGB": ("OPF_BGR_AS_RGB", "BGRtoNV12-17")}
ADDED = ["BinaryConvolution-1", "StringTensorPack-15", "StringTensorUnpack-15", "GroupedMatMul-17", "RGBtoNV12-17",
         "BGRtoNV12-17"]


@pytest.fixture(scope="module")
def fault_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, dict[str, Any]]]:
    return once_per_session(tmp_path_factory, "opset_completion_fault_runs",
                            lambda d: op_fault_runs(d, "opset_completion_faults", list(FAULTS), ADDED))


def test_reference_passes_every_added_op(fault_runs: dict[str, Any]) -> None:
    assert_passes_every_test_of(fault_runs["REFERENCE"], ADDED)


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_each_fault_fails_its_op_only(fault_runs: dict[str, Any], fault: str) -> None:
    device, op = FAULTS[fault]
    assert_fails_only_its_ops(fault_runs[device], fault, [op])
