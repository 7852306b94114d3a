"""Tier-3 "detect" family, part 3: DeformableConvolution-1/8 and DeformablePSROIPooling-1 — IR
attributes, builder inference and errors, and the REFERENCE kernels against naive loops (and
DeformableConvolution against Convolution)."""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ovconform import opset
from ovconform.errors import ValidationError
from ovconform.ir import Model, Node, Type, get_opdef
from ovconform.opcases import OpCase, all_case_keys, case_strategy
from reference_plugin._evaluate import evaluate

P = opset.parameter
SETTINGS = settings(max_examples=20, deadline=None, derandomize=True, database=None,
                    suppress_health_check=list(HealthCheck))
DC_ATTRS = ["strides", "dilations", "pads_begin", "pads_end", "auto_pad", "group", "deformable_group"]


def evaluate_node(node: Node, *inputs: np.ndarray) -> list[np.ndarray]:
    params = [n for n in (node.input_value(i).node for i in range(node.get_input_size())) if n.type_name == "Parameter"]
    return evaluate(Model(node.outputs(), params), list(inputs))


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


@SETTINGS
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
    @SETTINGS
    @given(case_strategy("DeformableConvolution", version))
    def check(case: OpCase) -> None:
        params = case.model.get_parameters()
        (out,) = evaluate(case.model, [case.inputs[p.friendly_name] for p in params])
        assert np.isfinite(out.astype(np.float32)).all()

    check()


# -- DeformablePSROIPooling-1 -------------------------------------------------------------------------------------

DPS_ATTRS = ["output_dim", "spatial_scale", "group_size", "mode", "spatial_bins_x", "spatial_bins_y", "trans_std",
             "part_size"]


def test_deformable_psroi_pooling_attributes_and_case() -> None:
    assert [a.name for a in get_opdef("DeformablePSROIPooling", 1).attrs] == DPS_ATTRS
    assert ("DeformablePSROIPooling", 1) in all_case_keys()


def naive_dpsroi(data: np.ndarray, rois: np.ndarray, off: np.ndarray | None, dim: int, scale: float, g: int,
                 bx: int, by: int, trans: float, part: int) -> np.ndarray:
    _, _, h, w = data.shape
    out = np.zeros((rois.shape[0], dim, g, g))
    for r, roi in enumerate(rois.astype(np.float64)):
        b = int(roi[0])
        rnd = [math.floor(abs(v) + 0.5) * (1 if v >= 0 else -1) for v in roi[1:]]
        x1, y1 = rnd[0] * scale - 0.5, rnd[1] * scale - 0.5
        x2, y2 = (rnd[2] + 1) * scale - 0.5, (rnd[3] + 1) * scale - 0.5
        rw, rh = max(x2 - x1, 0.1), max(y2 - y1, 0.1)
        bw, bh = rw / g, rh / g
        for c, i, j in itertools.product(range(dim), range(g), range(g)):
            cx, cy = x1 + j * bw, y1 + i * bh
            if off is not None:
                k = c // (dim // (off.shape[1] // 2))
                cx += off[r, 2 * k, i * part // g, j * part // g] * trans * rw
                cy += off[r, 2 * k + 1, i * part // g, j * part // g] * trans * rh
            samples = []
            for sy, sx in itertools.product(range(by), range(bx)):
                y, x = cy + sy * bh / by, cx + sx * bw / bx
                if not (-0.5 <= y <= h - 0.5 and -0.5 <= x <= w - 0.5):
                    continue
                y, x = min(max(y, 0), h - 1), min(max(x, 0), w - 1)
                img = data[b, (c * g + i) * g + j]
                t, bo, le, ri = math.floor(y), math.ceil(y), math.floor(x), math.ceil(x)
                top = img[t, le] + (img[t, ri] - img[t, le]) * (x - le)
                bottom = img[bo, le] + (img[bo, ri] - img[bo, le]) * (x - le)
                samples.append(top + (bottom - top) * (y - t))
            out[r, c, i, j] = np.mean(samples) if samples else 0.0
    return out


@SETTINGS
@given(st.integers(0, 2**32 - 1), st.integers(1, 3), st.integers(1, 3), st.integers(1, 3), st.integers(1, 3),
       st.sampled_from([0.25, 0.5, 1.0]), st.booleans())
def test_deformable_psroi_pooling_matches_a_naive_loop(seed: int, g: int, bx: int, by: int, part: int, scale: float,
                                                       with_offsets: bool) -> None:
    rng = np.random.default_rng(seed)
    dim = 2
    data = rng.uniform(-2, 2, (2, dim * g * g, 5, 6)).astype(np.float32)
    rois = np.array([[0, 1, 2, 9, 7], [1, 0.25, 0, 3.75, 12], [1, 8, 3, 30, 4]], np.float32)
    off = rng.uniform(-1, 1, (3, 4, part, part)).astype(np.float32) if with_offsets else None
    params = [P(list(data.shape)), P([3, 5])] + ([P(list(off.shape))] if off is not None else [])
    node = opset.deformable_psroi_pooling(params[0], params[1], dim, scale, g, "bilinear_deformable", bx, by, 0.25,
                                          part, params[2] if off is not None else None)
    assert str(node.output(0).get_partial_shape()) == f"[3,{dim},{g},{g}]"
    (got,) = evaluate_node(node, data, rois, *([off] if off is not None else []))
    want = naive_dpsroi(data, rois, off, dim, scale, g, bx, by, 0.25, part)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_deformable_psroi_pooling_literals_and_errors() -> None:
    data = np.full((1, 4, 4, 4), 3.0, np.float32)
    data[0, 1] = 5.0  # bin (0, 1) reads channel 1
    node = opset.deformable_psroi_pooling(P([1, 4, 4, 4]), P([2, 5]), 1, 1.0, 2)
    (got,) = evaluate_node(node, data, np.array([[0, 0, 0, 3, 3], [-1, 0, 0, 3, 3]], np.float32))
    np.testing.assert_array_equal(got[0, 0], [[3, 5], [3, 3]])
    np.testing.assert_array_equal(got[1], np.zeros((1, 2, 2)))  # a negative batch id gives zeros
    for make, message in [
        (lambda: opset.deformable_psroi_pooling(P([1, 5, 4, 4]), P([2, 5]), 1, 1.0, 2),
         r"feature maps \[1,5,4,4\] have 5 channels; they need output_dim \* group_size² = 4"),
        (lambda: opset.deformable_psroi_pooling(P([1, 4, 4, 4]), P([2, 4]), 1, 1.0, 2),
         r"ROIs \(input 1\) have shape \[2,4\]; they must be \[num_rois, 5\]"),
        (lambda: opset.deformable_psroi_pooling(P([1, 4, 4, 4]), P([2, 5]), 1, 1.0, 2, offsets=P([2, 2, 2, 2])),
         "offsets .* part_size 1"),
        (lambda: opset.deformable_psroi_pooling(P([1, 8, 4, 4]), P([2, 5]), 2, 1.0, 2, offsets=P([2, 6, 1, 1])),
         "offsets have 6 channels; they must be 2 \\* num_classes with output_dim \\(2\\) a multiple"),
        (lambda: opset.deformable_psroi_pooling(P([1, 4, 4, 4]), P([2, 5]), 1, 1.0, 2, "average"), "average"),
        (lambda: opset.deformable_psroi_pooling(P([1, 4, 4, 4]), P([2, 5]), 1, 0.0, 2), "spatial_scale is 0.0"),
    ]:
        with pytest.raises(ValidationError, match="DeformablePSROIPooling-1 node.*" + message):
            make()


def test_deformable_psroi_pooling_cases_evaluate() -> None:
    @SETTINGS
    @given(case_strategy("DeformablePSROIPooling", 1))
    def check(case: OpCase) -> None:
        params = case.model.get_parameters()
        (out,) = evaluate(case.model, [case.inputs[p.friendly_name] for p in params])
        assert np.isfinite(out.astype(np.float32)).all()

    check()
