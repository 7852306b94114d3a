"""Tests of the convolution ops (OpenVINO's op-spec folder "convolution"): Convolution-1,
GroupConvolution-1, ConvolutionBackpropData-1, GroupConvolutionBackpropData-1 and
DeformableConvolution-1/8 — builder inference and errors (as OpenVINO writes and infers them),
REFERENCE kernel numerics against literal values or independent loop formulas (transcriptions of the
specs' pseudo-code), and the case strategies.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from _op_helpers import P, evaluate_node, out, run, seeded
from _opcase_checks import CASE_SETTINGS, check_case_runs, check_ir_spelling, versions_of
from hypothesis import given
from hypothesis import strategies as st

from ovconform import opset
from ovconform.errors import ValidationError
from ovconform.ir import Node, Type, get_opdef
from ovconform.ir.opset_table import OPSET_VERSIONS
from ovconform.opcases import OpCase, all_case_keys, case_strategy
from ovconform.opset._window import resolve_pads, same_pads
from reference_plugin.evaluate import evaluate

#: The op versions of the family whose case strategies are checked here.
CASE_KEYS = [("ConvolutionBackpropData", 1), ("GroupConvolutionBackpropData", 1)]
#: Attribute names, in IR order, as OpenVINO writes them.
IR_ATTRS = {("Convolution", 1): ["strides", "dilations", "pads_begin", "pads_end", "auto_pad"],
            ("GroupConvolution", 1): ["strides", "pads_begin", "pads_end", "dilations", "auto_pad"],
            ("ConvolutionBackpropData", 1): ["strides", "dilations", "pads_begin", "pads_end", "auto_pad",
                                             "output_padding"],
            ("GroupConvolutionBackpropData", 1): ["strides", "pads_begin", "pads_end", "dilations", "auto_pad",
                                                  "output_padding"]}
#: IR type names that differ from the op type.
IR_NAMES: dict[str, str] = {}

@pytest.mark.parametrize(("op", "version"), list(IR_ATTRS))
def test_ir_names_and_attributes_follow_openvino(op: str, version: int) -> None:
    check_ir_spelling(op, version, IR_ATTRS[(op, version)], IR_NAMES.get(op))
    assert version in OPSET_VERSIONS[op]


def test_builders_use_the_opset_versions() -> None:
    x4 = P([1, 2, 4, 4])
    built = [opset.convolution_backprop_data(x4, P([2, 3, 3, 3]), [1, 1]),
             opset.group_convolution_backprop_data(x4, P([2, 1, 3, 3, 3]), [1, 1])]
    assert versions_of(built) == CASE_KEYS


def test_builders_store_ir_spelling() -> None:
    x = P([1, 3, 7, 7])
    conv = opset.convolution(x, w(2, 3, 3, 3), [1, 1], [0, 0], [0, 0], [1, 1], auto_pad="SAME_UPPER")
    assert conv.attrs["auto_pad"] == "same_upper"
    assert opset.convolution(x, w(2, 3, 3, 3), [1, 1], [0, 0], [0, 0], [1, 1]).attrs["auto_pad"] == "explicit"

@pytest.mark.parametrize(("op", "version"), CASE_KEYS)
@CASE_SETTINGS
@given(data=st.data())
def test_cases_are_valid_and_run(op: str, version: int, data: st.DataObject) -> None:
    case = data.draw(case_strategy(op, version))
    node, outs = check_case_runs(case, op, version)
    if node.get_output_element_type(0).is_real():
        assert np.all(np.isfinite(outs[0].astype(np.float64)))


def test_backprop_inference() -> None:
    x, w = P([1, 2, 5]), P([2, 1, 3])
    assert out(opset.convolution_backprop_data(x, w, [2])) == "[1,1,11]"
    assert out(opset.convolution_backprop_data(x, w, [2], None, [1], [0], [1], "explicit", [1])) == "[1,1,11]"
    assert out(opset.convolution_backprop_data(x, w, [2], None, [1], [1], [2], "same_upper")) == "[1,1,13]"
    assert out(opset.convolution_backprop_data(x, w, [2], [8], auto_pad="same_lower")) == "[1,1,8]"
    assert out(opset.convolution_backprop_data(x, w, [2], P([1], Type.i32))) == "[1,1,?]"
    assert out(opset.convolution_backprop_data(P([-1, 2, "2..4"]), w, [2])) == "[?,1,5..9]"
    g = opset.group_convolution_backprop_data(P([1, 6, 4, 4]), P([3, 2, 4, 3, 3]), [1, 1])
    assert out(g) == "[1,12,6,6]"


@pytest.mark.parametrize(("make", "match"), [
    (lambda: opset.convolution_backprop_data(P([1, 3, 5]), P([2, 1, 3]), [1]), r"data channels 3 .* differ"),
    (lambda: opset.convolution_backprop_data(P([1, 2, 5]), P([2, 1, 3, 3]), [1]), "do not match in rank"),
    (lambda: opset.convolution_backprop_data(P([1, 2, 5]), P([2, 1, 3]), [1, 1]), r"'strides'=\[1, 1\] must have 1"),
    (lambda: opset.convolution_backprop_data(P([1, 2, 2]), P([2, 1, 1]), [1], None, [1], [1]),
     "would be 0; the pads"),
    (lambda: opset.convolution_backprop_data(P([1, 2, 5]), P([2, 1, 3]), [1], [0]), r"must hold 1 positive"),
    (lambda: opset.group_convolution_backprop_data(P([1, 5, 4]), P([2, 2, 1, 3]), [1]),
     "must equal groups x input channels per group"),
])
def test_backprop_errors(make: Callable[[], Node], match: str) -> None:
    with pytest.raises(ValidationError, match=f"ConvolutionBackpropData-1 node.*{match}"):
        make()


def test_backprop_matches_openvino_literals() -> None:
    # x = [0..4], stride 2, kernel ones(3): the full transposed result is [0 0 1 1 3 2 5 3 7 4 4]
    x = np.arange(5, dtype=np.float32).reshape(1, 1, 5)
    w = np.ones((1, 1, 3), np.float32)

    def bp(*args: Any, **kw: Any) -> list[float]:
        return run(lambda a, b: opset.convolution_backprop_data(a, b, [2], *args, **kw), x, w)[0, 0].tolist()

    assert bp() == [0, 0, 1, 1, 3, 2, 5, 3, 7, 4, 4]
    assert bp([8], [1], [1], [1], "same_upper") == [1, 1, 3, 2, 5, 3, 7, 4]
    assert bp([8], [1], [1], [1], "same_lower") == [0, 1, 1, 3, 2, 5, 3, 7]
    assert bp([8], [1], [1], [1], "explicit") == [0, 1, 1, 3, 2, 5, 3, 7]
    assert bp([8], [1], [1], [1], "valid") == [0, 0, 1, 1, 3, 2, 5, 3]
    assert bp([7], [0], [0], [1], "same_upper", [1]) == [1, 3, 2, 5, 3, 7, 4]
    assert bp([7], [0], [0], [1], "same_lower", [1]) == [1, 1, 3, 2, 5, 3, 7]
    assert bp(None, [1], [0], [1], "explicit", [1]) == [0, 1, 1, 3, 2, 5, 3, 7, 4, 4, 0]
    assert bp(None, [1], [1], [1], "same_upper", [1]) == [0, 0, 1, 1, 3, 2, 5, 3, 7, 4, 4, 0]


@pytest.mark.parametrize(("strides", "dilations", "pads", "op"), [
    ([1, 1], [1, 1], ([0, 0], [0, 0]), [0, 0]), ([2, 3], [1, 2], ([1, 0], [0, 2]), [1, 2]),
    ([3, 1], [2, 1], ([2, 1], [1, 0]), [0, 0]),
])
def test_backprop_is_the_adjoint_of_convolution(strides: list[int], dilations: list[int],
                                                 pads: tuple[list[int], list[int]], op: list[int]) -> None:
    """<conv(x), y> == <x, conv_backprop(y)> for the pads and sizes that make the shapes fit."""
    rng = np.random.default_rng(11)
    w = rng.uniform(-1, 1, (3, 2, 3, 2))  # Convolution filters [C_OUT=3, C_IN=2, 3, 2]
    y_shape = (1, 3, 4, 5)
    y = rng.uniform(-1, 1, y_shape)
    bp = run(lambda a, b: opset.convolution_backprop_data(a, b, strides, None, pads[0], pads[1], dilations,
                                                          "explicit", op),
             y.astype(np.float32), w.astype(np.float32)).astype(np.float64)
    x = rng.uniform(-1, 1, bp.shape)
    conv = run(lambda a, b: opset.convolution(a, b, strides, pads[0], [p + o for p, o in zip(pads[1], op,
                                                                                             strict=True)],
                                              dilations), x.astype(np.float32), w.astype(np.float32))
    conv = conv.astype(np.float64)[..., :y_shape[2], :y_shape[3]]
    np.testing.assert_allclose(np.sum(conv * y), np.sum(x * bp), rtol=1e-4)


def test_group_backprop_is_backprop_per_group() -> None:
    rng = np.random.default_rng(4)
    x = rng.uniform(-1, 1, (2, 4, 3, 3)).astype(np.float32)
    w = rng.uniform(-1, 1, (2, 2, 3, 2, 2)).astype(np.float32)
    args = ([2, 1], None, [1, 0], [0, 1], [1, 2], "explicit", [1, 0])
    got = run(lambda a, b: opset.group_convolution_backprop_data(a, b, *args), x, w)
    parts = [run(lambda a, b: opset.convolution_backprop_data(a, b, *args), x[:, 2 * g:2 * g + 2], w[g])
             for g in range(2)]
    np.testing.assert_allclose(got, np.concatenate(parts, axis=1), rtol=1e-6, atol=1e-6)


DC_ATTRS = ["strides", "dilations", "pads_begin", "pads_end", "auto_pad", "group", "deformable_group"]




def test_deformable_convolution_attributes_and_cases() -> None:
    assert [a.name for a in get_opdef("DeformableConvolution", 1).attrs] == DC_ATTRS
    assert [a.name for a in get_opdef("DeformableConvolution", 8).attrs] == [*DC_ATTRS, "bilinear_interpolation_pad"]
    assert {("DeformableConvolution", 1), ("DeformableConvolution", 8)} <= set(all_case_keys())


def naive_point(img: np.ndarray, y: float, x: float, pad: bool) -> float:
    h, w = img.shape
    if pad:
        if not (-1 < math.trunc(y) < h and -1 < math.trunc(x) < w):
            return 0.0
        y1, x1 = math.floor(y), math.floor(x)
        y2, x2 = y1 + 1, x1 + 1
    else:
        if not (0 <= y < h and 0 <= x < w):
            return 0.0
        y1, x1 = max(math.floor(y), 0), max(math.floor(x), 0)
        y2, x2 = min(math.ceil(y), h - 1), min(math.ceil(x), w - 1)

    def at(i: int, j: int) -> float:
        return float(img[i, j]) if 0 <= i < h and 0 <= j < w else 0.0

    dy, dx = y - y1, x - x1
    return ((1 - dx) * (1 - dy) * at(y1, x1) + (1 - dx) * dy * at(y2, x1) + dx * (1 - dy) * at(y1, x2)
            + dx * dy * at(y2, x2))


def naive_deformable(data: np.ndarray, off: np.ndarray, filt: np.ndarray, mask: np.ndarray | None, stride: int,
                     pad: int, dil: int, group: int, dgroup: int, bilinear_pad: bool) -> np.ndarray:
    n, c_in, _, _ = data.shape
    c_out, cg, kh, kw = filt.shape
    oh, ow = off.shape[2:]
    out = np.zeros((n, c_out, oh, ow))
    for b, o, i, j in itertools.product(range(n), range(c_out), range(oh), range(ow)):
        g = o // (c_out // group)
        total = 0.0
        for cl, ky, kx in itertools.product(range(cg), range(kh), range(kw)):
            c = g * cg + cl
            dg = c // (c_in // dgroup)
            k = ky * kw + kx
            y = i * stride - pad + ky * dil + float(off[b, dg * 2 * kh * kw + 2 * k, i, j])
            x = j * stride - pad + kx * dil + float(off[b, dg * 2 * kh * kw + 2 * k + 1, i, j])
            m = 1.0 if mask is None else mask[b, dg * kh * kw + k, i, j]
            total += filt[o, cl, ky, kx] * m * naive_point(data[b, c], y, x, bilinear_pad)
        out[b, o, i, j] = total
    return out


@seeded(20)
@given(st.integers(0, 2**32 - 1), st.sampled_from([1, 2]), st.sampled_from([1, 2]), st.integers(1, 2),
       st.integers(0, 1), st.integers(1, 2), st.booleans(), st.booleans())
def test_deformable_convolution_matches_a_naive_loop(seed: int, group: int, dgroup: int, stride: int, pad: int,
                                                     dil: int, with_mask: bool, bilinear_pad: bool) -> None:
    rng = np.random.default_rng(seed)
    c, h, w, kh, kw = 2, 4, 5, 2, 3
    data = rng.uniform(-2, 2, (1, c, h, w)).astype(np.float32)
    filt = rng.uniform(-1, 1, (2 * group, c // group, kh, kw)).astype(np.float32)
    oh, ow = (h + 2 * pad - dil * (kh - 1) - 1) // stride + 1, (w + 2 * pad - dil * (kw - 1) - 1) // stride + 1
    off = rng.uniform(-2.5, 2.5, (1, dgroup * 2 * kh * kw, oh, ow)).astype(np.float32)
    mask = rng.uniform(0, 1, (1, dgroup * kh * kw, oh, ow)).astype(np.float32) if with_mask else None
    params = [P(list(a.shape)) for a in (data, off, filt)]
    mask_param = P(list(mask.shape)) if mask is not None else None
    node = opset.deformable_convolution(*params, [stride] * 2, [pad] * 2, [pad] * 2, [dil] * 2, mask_param,
                                        "explicit", group, dgroup, bilinear_pad)
    assert str(node.output(0).get_partial_shape()) == f"[1,{2 * group},{oh},{ow}]"
    arrays = [data, off, filt] + ([mask] if mask is not None else [])
    (got,) = evaluate_node(node, *arrays)
    want = naive_deformable(data, off, filt, mask, stride, pad, dil, group, dgroup, bilinear_pad)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_zero_offsets_make_a_plain_convolution() -> None:
    rng = np.random.default_rng(0)
    data = rng.uniform(-1, 1, (2, 3, 5, 5)).astype(np.float32)
    filt = rng.uniform(-1, 1, (4, 3, 3, 3)).astype(np.float32)
    off = np.zeros((2, 18, 5, 5), np.float32)
    for version in (1, 8):
        node = opset.deformable_convolution(P([2, 3, 5, 5]), P([2, 18, 5, 5]), P([4, 3, 3, 3]), [1, 1], [1, 1],
                                            [1, 1], [1, 1], version=version)
        (got,) = evaluate_node(node, data, off, filt)
        conv = opset.convolution(P([2, 3, 5, 5]), P([4, 3, 3, 3]), [1, 1], [1, 1], [1, 1], [1, 1])
        (want,) = evaluate_node(conv, data, filt)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    # an offset of +1 row everywhere reads the next row: a 1x1 kernel copies the shifted map (0 past the end)
    node = opset.deformable_convolution(P([1, 1, 3, 3]), P([1, 2, 3, 3]), P([1, 1, 1, 1]), [1, 1], [0, 0], [0, 0],
                                        [1, 1], version=1)
    img = np.arange(9, dtype=np.float32).reshape(1, 1, 3, 3)
    shift = np.stack([np.ones((3, 3)), np.zeros((3, 3))])[None].astype(np.float32)
    (got,) = evaluate_node(node, img, shift, np.ones((1, 1, 1, 1), np.float32))
    np.testing.assert_array_equal(got[0, 0], [[3, 4, 5], [6, 7, 8], [0, 0, 0]])


def test_deformable_convolution_auto_pad_and_dynamic_shapes() -> None:
    node = opset.deformable_convolution(P([1, 4, 6, 6]), P([1, 2 * 2 * 9, 3, 3]), P([8, 2, 3, 3]), [2, 2], [0, 0],
                                        [0, 0], [1, 1], auto_pad="same_upper", group=2, deformable_group=2)
    assert str(node.output(0).get_partial_shape()) == "[1,8,3,3]" and node.attrs["auto_pad"] == "same_upper"
    node = opset.deformable_convolution(P([-1, 4, -1, -1]), P("..."), P([8, 4, 3, 3]), [1, 1], [0, 0], [0, 0],
                                        [1, 1], P("..."))
    assert str(node.output(0).get_partial_shape()) == "[?,8,1..,1..]"


@pytest.mark.parametrize(("make", "message"), [
    (lambda: opset.deformable_convolution(P([1, 4, 5, 5], Type.i32), P([1, 18, 3, 3], Type.i32),
                                          P([2, 4, 3, 3], Type.i32), [1, 1], [0, 0], [0, 0], [1, 1]),
     r"data \(input 0\) has element type i32; it must be floating-point"),
    (lambda: opset.deformable_convolution(P([1, 4, 5, 5]), P([1, 18, 3, 3], Type.f16), P([2, 4, 3, 3]), [1, 1],
                                          [0, 0], [0, 0], [1, 1]), "offsets .* f16; it must match the data"),
    (lambda: opset.deformable_convolution(P([1, 4, 5]), P([1, 18, 3, 3]), P([2, 4, 3, 3]), [1, 1], [0, 0], [0, 0],
                                          [1, 1]), r"data \(input 0\) has shape \[1,4,5\]; it must have rank 4"),
    (lambda: opset.deformable_convolution(P([1, 4, 5, 5]), P([1, 16, 3, 3]), P([2, 4, 3, 3]), [1, 1], [0, 0],
                                          [0, 0], [1, 1]), r"offsets channels 16 must be deformable_group x 2 x KH"),
    (lambda: opset.deformable_convolution(P([1, 4, 5, 5]), P([1, 18, 2, 3]), P([2, 4, 3, 3]), [1, 1], [0, 0],
                                          [0, 0], [1, 1]), "offsets spatial dims .* must equal the output's"),
    (lambda: opset.deformable_convolution(P([1, 4, 5, 5]), P([1, 18, 3, 3]), P([2, 4, 3, 3]), [1, 1], [0, 0],
                                          [0, 0], [1, 1], P([1, 8, 3, 3])), "mask channels 8 must be"),
    (lambda: opset.deformable_convolution(P([1, 4, 5, 5]), P([1, 18, 3, 3]), P([2, 4, 3, 3]), [1, 1], [0, 0],
                                          [0, 0], [1, 1], group=2), r"data channels 4 must equal group \(2\) x"),
    (lambda: opset.deformable_convolution(P([1, 4, 5, 5]), P([1, 54, 3, 3]), P([2, 4, 3, 3]), [1, 1], [0, 0],
                                          [0, 0], [1, 1], deformable_group=3),
     "data channels 4 is not a multiple of 3"),
    (lambda: opset.deformable_convolution(P([1, 4, 5, 5]), P([1, 18, 3, 3]), P([2, 4, 3, 3]), [1, 1], [0, 0],
                                          [0, 0], [1, 1], group=0), "group=0 and deformable_group=1 must be positive"),
])
def test_deformable_convolution_errors(make: Any, message: str) -> None:
    with pytest.raises(ValidationError, match="DeformableConvolution-8 node.*" + message):
        make()


def test_deformable_convolution_version_one_has_no_mask() -> None:
    with pytest.raises(ValidationError, match="DeformableConvolution-1 has no mask"):
        opset.deformable_convolution(P([1, 4, 5, 5]), P([1, 18, 3, 3]), P([2, 4, 3, 3]), [1, 1], [0, 0], [0, 0],
                                     [1, 1], P([1, 9, 3, 3]), version=1)


@pytest.mark.parametrize("version", [1, 8])
def test_deformable_convolution_cases_evaluate(version: int) -> None:
    @seeded(20)
    @given(case_strategy("DeformableConvolution", version))
    def check(case: OpCase) -> None:
        params = case.model.get_parameters()
        (out,) = evaluate(case.model, [case.inputs[p.friendly_name] for p in params])
        assert np.isfinite(out.astype(np.float32)).all()

    check()


def w(*shape: int, dtype: Any = np.float32) -> np.ndarray:
    return np.ones(shape, dtype)


@pytest.mark.parametrize(("size", "k", "s", "d", "lower", "expected"), [
    (7, 3, 1, 1, False, (1, 1)),
    (8, 2, 2, 1, False, (0, 0)),
    (7, 4, 2, 1, False, (1, 2)),
    (7, 4, 2, 1, True, (2, 1)),
    (5, 3, 3, 2, False, (1, 2)),
    (2, 5, 1, 1, True, (2, 2)),
])
def test_same_pads(size: int, k: int, s: int, d: int, lower: bool, expected: tuple[int, int]) -> None:
    assert same_pads(size, k, s, d, lower) == expected


def test_resolve_pads() -> None:
    args = ([7, 7], [4, 3], [2, 1], [1, 2])
    assert resolve_pads(*args, "explicit", [1, 0], [0, 2]) == ([1, 0], [0, 2])
    assert resolve_pads(*args, "explicit", [], []) == ([0, 0], [0, 0])
    assert resolve_pads(*args, "valid", [1, 0], [0, 2]) == ([0, 0], [0, 0])
    assert resolve_pads(*args, "same_upper", [9, 9], [9, 9]) == ([1, 2], [2, 2])
    assert resolve_pads(*args, "same_lower", [], []) == ([2, 2], [1, 2])


# -- Convolution / GroupConvolution ---------------------------------------------------------------

CONV = [  # data, filters, strides, pads_begin, pads_end, dilations, auto_pad, expected
    ([1, 3, 7, 7], [4, 3, 3, 3], [1, 1], [0, 0], [0, 0], [1, 1], "explicit", "[1,4,5,5]"),
    ([1, 3, 7, 7], [4, 3, 3, 3], [2, 2], [1, 1], [1, 1], [1, 1], "explicit", "[1,4,4,4]"),
    ([1, 3, 7, 8], [4, 3, 3, 2], [2, 3], [1, 0], [0, 1], [1, 2], "explicit", "[1,4,3,3]"),
    ([2, 3, 7, 7], [4, 3, 3, 3], [2, 2], [5, 5], [5, 5], [1, 1], "same_upper", "[2,4,4,4]"),
    ([2, 3, 7, 7], [4, 3, 3, 3], [2, 2], [0, 0], [0, 0], [2, 2], "same_lower", "[2,4,4,4]"),
    ([1, 3, 7, 7], [4, 3, 3, 3], [2, 2], [3, 3], [3, 3], [1, 1], "valid", "[1,4,3,3]"),
    ([1, 3, 9], [4, 3, 2], [2], [1], [0], [3], "same_lower", "[1,4,5]"),
    ([1, 2, 5, 6, 7], [1, 2, 2, 3, 1], [1, 2, 3], [0, 0, 0], [0, 0, 0], [1, 1, 1], "explicit", "[1,1,4,2,3]"),
    ([0, 1, 7], [2, 1, 3], [1], [0], [0], [1], "explicit", "[0,2,5]"),
    ([-1, 3, "5..20", -1], [4, 3, 3, 2], [2, 3], [1, 0], [0, 1], [1, 2], "explicit", "[?,4,2..10,1..]"),
    ([-1, 3, "5..20", -1], [4, 3, 3, 2], [2, 3], [1, 0], [0, 1], [1, 2], "same_upper", "[?,4,3..10,?]"),
    ([-1, 3, "5..20", -1], [4, 3, 3, 2], [2, 3], [1, 0], [0, 1], [1, 2], "valid", "[?,4,2..9,1..]"),
    ([1, 3, "1..2", 9], [4, 3, 3, 3], [1, 1], [0, 0], [0, 0], [1, 1], "explicit", "[1,4,1,7]"),
    ([1, 1, "4..9"], [2, 1, 3], [2], [1], [1], [2], "explicit", "[1,2,1..4]"),
    ([1, 3, 7, 7], [-1, -1, -1, -1], [1, 1], [0, 0], [0, 0], [1, 1], "explicit", "[1,?,1..7,1..7]"),
    ([1, 1, 9], [2, 1, "2..4"], [2], [1], [1], [2], "explicit", "[1,2,3..5]"),
    ([1, 1, 9], [2, 1, "2..4"], [2], [1], [1], [2], "same_upper", "[1,2,5]"),
    ([1, 1, 9], [2, 1, "2..4"], [2], [1], [1], [2], "valid", "[1,2,2..4]"),
    ([1, 1, 9], "...", [2], [1], [1], [2], "explicit", "[1,?,1..6]"),
    ("...", [4, 3, 3, 3], [1, 1], [0, 0], [0, 0], [1, 1], "explicit", "[?,4,1..,1..]"),
    ("...", "...", [2], [1], [1], [2], "explicit", "[?,?,1..]"),
    ("...", "...", [], [], [], [], "explicit", "..."),
    ([1, 3, 7, 7], [4, 3, 3, 3], [1, 1], [], [], [1, 1], "same_upper", "[1,4,7,7]"),
]


@pytest.mark.parametrize(("data", "filters", "s", "pb", "pe", "d", "pad", "expected"), CONV)
def test_convolution_shapes(data: Any, filters: Any, s: list[int], pb: list[int], pe: list[int],
                            d: list[int], pad: str, expected: str) -> None:
    node = opset.convolution(P(data), P(filters), s, pb, pe, d, pad)
    assert out(node) == expected
    assert node.attrs["pads_begin"] == pb  # stored as given, even when auto_pad computes its own


@pytest.mark.parametrize(("data", "filters", "expected"), [
    ([1, 6, 5, 5], [3, 4, 2, 3, 3], "[1,12,3,3]"),
    ([1, -1, 5, 5], [3, 4, 2, 3, 3], "[1,12,3,3]"),
    ([1, 6, 5, 5], [-1, 4, 2, 3, 3], "[1,12,3,3]"),
    ([1, 6, 5, 5], [-1, 4, -1, 3, 3], "[1,?,3,3]"),
    ([1, 6, 5, 5], [3, -1, 2, 3, 3], "[1,?,3,3]"),
    ([1, "2..8", 9], [-1, 3, 2, 3], "[1,3..12,7]"),
    ([1, "2..", 9], [-1, 3, 2, 3], "[1,3..,7]"),
    ("...", [2, 3, 4, 3], "[?,6,1..]"),
    ([1, 4, 9], "...", "[1,?,1..9]"),
])
def test_group_convolution_shapes(data: Any, filters: Any, expected: str) -> None:
    n = len(filters) - 3 if isinstance(filters, list) else len(data) - 2
    node = opset.group_convolution(P(data), P(filters), [1] * n, [0] * n, [0] * n, [1] * n)
    assert out(node) == expected


@pytest.mark.parametrize(("data", "filters", "kw", "match"), [
    ([1, 2, 5, 5], [4, 3, 3, 3], {}, r"data channels 2 .* filters input channels 3"),
    ([1, 3, 5, 5], [4, 3, 3], {}, "do not match in rank"),
    ([1, 3], [4, 3], {"n": 0}, "rank 3, 4 or 5"),
    ([1, 3, 4, 4, 4, 4], [4, 3, 2, 2, 2, 2], {"n": 4}, "rank 3, 4 or 5"),
    ([1, 3, 5, 5], [4, 3, 3, 3], {"s": [1]}, r"'strides'=\[1\] must have 2 value"),
    ([1, 3, 5, 5], [4, 3, 3, 3], {"s": [0, 1]}, "'strides'.* must be positive"),
    ([1, 3, 5, 5], [4, 3, 3, 3], {"d": [1, 0]}, "'dilations'.* must be positive"),
    ([1, 3, 5, 5], [4, 3, 3, 3], {"pb": [-1, 0]}, "'pads_begin'.* must not be negative"),
    ([1, 3, 5, 5], [4, 3, 3, 3], {"pe": [0]}, r"'pads_end'=\[0\] must have 2"),
    ([1, 3, 2, 9], [4, 3, 3, 3], {}, r"kernel after dilation \(3\) is larger than the padded input \(2\)"),
    ([1, 3, 5, 5], [4, 3, 3, 3], {"d": [3, 1]}, r"kernel after dilation \(7\)"),
    ([1, 3, 5, 5], [4, 3, 0, 3], {}, "filters spatial dimension 0 is 0"),
    ([1, 3, 5, 5], [4, 3, 3, 3], {"pad": "same"}, "'auto_pad'='same' is not allowed; allowed: 'explicit'"),
])
def test_convolution_errors(data: Any, filters: Any, kw: dict[str, Any], match: str) -> None:
    n = kw.get("n", 2)
    args = [kw.get("s", [1] * n), kw.get("pb", [0] * n), kw.get("pe", [0] * n), kw.get("d", [1] * n)]
    with pytest.raises(ValidationError, match=f"Convolution-1 node.*{match}"):
        opset.convolution(P(data), P(filters), *args, auto_pad=kw.get("pad", "explicit"))


def test_convolution_type_errors() -> None:
    with pytest.raises(ValidationError, match="same element type"):
        opset.convolution(P([1, 3, 5, 5], Type.f16), P([4, 3, 3, 3]), [1, 1], [0, 0], [0, 0], [1, 1])
    with pytest.raises(ValidationError, match="boolean is not allowed"):
        opset.convolution(P([1, 3, 5, 5], "boolean"), P([4, 3, 3, 3], "boolean"), [1, 1], [0, 0], [0, 0], [1, 1])
    node = opset.convolution(P([1, 3, 5, 5], Type.i32), w(4, 3, 3, 3), [1, 1], [0, 0], [0, 0], [1, 1])
    assert node.output(0).get_element_type() == Type.i32  # the literal filters take the data type


@pytest.mark.parametrize(("data", "filters", "match"), [
    ([1, 5, 5, 5], [3, 4, 2, 3, 3], "data channels 5 .* not a multiple of .* 2"),
    ([1, 8, 5, 5], [3, 4, 2, 3, 3], r"need 4 group\(s\) of 2 channels, but the filters .* have 3"),
    ([1, "5..7", 5], [-1, 4, 4, 3], "hold no multiple of"),
    ([1, 4, 9], [2, 3, 2], r"filters shape \[2,3,2\] must have rank 4, 5 or 6"),
    ([1, 4, 9], [2, 3, 0, 3], "input channels per group .* is 0"),
])
def test_group_convolution_errors(data: Any, filters: Any, match: str) -> None:
    n = len(filters) - 3
    with pytest.raises(ValidationError, match=f"GroupConvolution-1 node.*{match}"):
        opset.group_convolution(P(data), P(filters), [1] * n, [0] * n, [0] * n, [1] * n)
