"""Tests of the image ops (OpenVINO's op-spec folder "image"): Interpolate-1/4/11, GridSample-9 and
NV12toRGB/BGR-8, I420toRGB/BGR-8 — builder inference and errors (as OpenVINO writes and infers
them), REFERENCE kernel numerics against literal values or independent loop formulas (transcriptions
of the specs' pseudo-code), and the case strategies.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from _op_helpers import P, out, run, run_all, seeded
from _op_helpers import out as shape
from _opcase_checks import CASE_SETTINGS, check_case_runs, check_ir_spelling, versions_of
from hypothesis import given
from hypothesis import strategies as st

from ovconform import opset
from ovconform.errors import CompileError, ValidationError
from ovconform.ir import Model, Node, Type
from ovconform.ir.opset_table import OPSET_VERSIONS
from ovconform.opcases import case_strategy
from reference_plugin.evaluate import evaluate

#: The op versions of the family whose case strategies are checked here.
CASE_KEYS = [("Interpolate", 1), ("Interpolate", 4), ("Interpolate", 11), ("NV12toRGB", 8), ("NV12toBGR", 8),
             ("I420toRGB", 8), ("I420toBGR", 8), ("GridSample", 9)]
#: Attribute names, in IR order, as OpenVINO writes them.
IR_ATTRS = {("Interpolate", 1): ["align_corners", "antialias", "axes", "mode", "pads_begin", "pads_end"],
            ("Interpolate", 4): ["mode", "shape_calculation_mode", "coordinate_transformation_mode", "nearest_mode",
                                 "antialias", "pads_begin", "pads_end", "cube_coeff"],
            ("Interpolate", 11): ["mode", "shape_calculation_mode", "coordinate_transformation_mode", "nearest_mode",
                                  "antialias", "pads_begin", "pads_end", "cube_coeff"],
            ("NV12toRGB", 8): [], ("NV12toBGR", 8): [], ("I420toRGB", 8): [], ("I420toBGR", 8): [],
            ("GridSample", 9): ["align_corners", "mode", "padding_mode"]}
#: IR type names that differ from the op type.
IR_NAMES: dict[str, str] = {}

@pytest.mark.parametrize(("op", "version"), list(IR_ATTRS))
def test_ir_names_and_attributes_follow_openvino(op: str, version: int) -> None:
    check_ir_spelling(op, version, IR_ATTRS[(op, version)], IR_NAMES.get(op))
    assert version in OPSET_VERSIONS[op]


def test_builders_use_the_opset_versions() -> None:
    x4 = P([1, 2, 4, 4])
    built = [opset.interpolate_v1(x4, [8, 8], {"axes": [2, 3], "mode": "nearest"}),
             opset.interpolate_v4(x4, [8, 8], [2.0, 2.0], "nearest", "sizes", axes=[2, 3]),
             opset.interpolate(x4, [8, 8], "nearest", "sizes", axes=[2, 3]),
             opset.nv12_to_rgb(P([1, 6, 4, 1])), opset.nv12_to_bgr(P([1, 6, 4, 1])), opset.i420_to_rgb(P([1, 6, 4, 1])),
             opset.i420_to_bgr(P([1, 6, 4, 1])), opset.grid_sample(P([1, 1, 2, 2]), P([1, 2, 2, 2]))]
    assert versions_of(built) == CASE_KEYS


def test_attributes_match_what_openvino_builds() -> None:
    pytest.importorskip("openvino")
    import openvino.opset1 as o1
    import openvino.opset9 as o9

    node = o9.grid_sample(o1.parameter([1, 1, 2, 2]), o1.parameter([1, 2, 2, 2]), {})
    assert sorted(node.get_attributes()) == sorted(IR_ATTRS[("GridSample", 9)])

@pytest.mark.parametrize(("op", "version"), CASE_KEYS)
@CASE_SETTINGS
@given(data=st.data())
def test_cases_are_valid_and_run(op: str, version: int, data: st.DataObject) -> None:
    case = data.draw(case_strategy(op, version))
    node, outs = check_case_runs(case, op, version)
    if op == "Interpolate":
        assert node.attrs["mode"] != "area"
    if node.get_output_element_type(0).is_real():
        assert np.all(np.isfinite(outs[0].astype(np.float64)))
    if op != "Interpolate":
        for i, got in enumerate(outs):  # static output shapes, and the node's element types
            assert got.shape == node.output(i).get_partial_shape().to_shape()
            assert got.dtype == node.output(i).get_element_type().to_dtype()


def _spec_coord(mode: str, x: int, scale: float, out_len: int, in_len: int) -> float:
    if mode == "half_pixel":
        return (x + 0.5) / scale - 0.5
    if mode == "pytorch_half_pixel":
        return (x + 0.5) / scale - 0.5 if out_len > 1 else 0.0
    if mode == "asymmetric":
        return x / scale
    if mode == "tf_half_pixel_for_nn":
        return (x + 0.5) / scale
    return 0 if out_len == 1 else x * (in_len - 1) / (out_len - 1)


def _spec_nearest_pixel(mode: str, c: float, down: bool) -> int:
    if mode == "round_prefer_floor":
        return int(math.floor(c)) if c == int(c) + 0.5 else int(round(c))
    if mode == "round_prefer_ceil":  # "round half up" (the spec's text; its Python round() would round half to even)
        return int(math.floor(c + 0.5))
    if mode == "floor":
        return int(math.floor(c))
    if mode == "ceil":
        return int(math.ceil(c))
    return int(math.ceil(c)) if down else int(c)


def _spec_cubic_coeff(s: float, a: float) -> list[float]:
    s = abs(s)
    return [a * (s - 1) * (s - 1) * s, ((a + 2) * s - (a + 3)) * s * s + 1, (((-a - 2) * s + (2 * a + 3)) * s - a) * s,
            -a * s * s * (s - 1)]


def _spec_interpolate(x: np.ndarray, axes: list[int], sizes: list[int], mode: str, ctm: str = "half_pixel",
                      nearest: str = "round_prefer_floor", cube: float = -0.75, antialias: bool = False) -> np.ndarray:
    """The spec's InterpolateCalculation (sizes mode, no pads) for nearest, linear and cubic."""
    out_shape = list(x.shape)
    for a, s in zip(axes, sizes, strict=True):
        out_shape[a] = s
    scales = [sizes[i] / x.shape[a] for i, a in enumerate(axes)]
    result = np.zeros(out_shape)
    aa = antialias and any(s < 1 for s in scales)
    av = [scales[i] if aa else 1.0 for i in range(len(axes))]
    for c in np.ndindex(*out_shape):
        coords = {a: _spec_coord(ctm, c[a], scales[i], out_shape[a], x.shape[a]) for i, a in enumerate(axes)}
        if mode == "nearest":
            idx = list(c)
            for i, a in enumerate(axes):
                idx[a] = max(0, min(_spec_nearest_pixel(nearest, coords[a], scales[i] < 1), x.shape[a] - 1))
            result[c] = x[tuple(idx)]
        elif mode == "cubic":
            total = 0.0
            for taps in np.ndindex(*([4] * len(axes))):
                idx, w = list(c), 1.0
                for i, a in enumerate(axes):
                    base = math.floor(coords[a])
                    idx[a] = max(0, min(base + taps[i] - 1, x.shape[a] - 1))
                    w *= _spec_cubic_coeff(coords[a] - base, cube)[taps[i]]
                total += w * x[tuple(idx)]
            result[c] = total
        else:  # linear: the triangle filter, normalized over the taps inside the input
            r = [2 if scales[i] > 1 else math.ceil(2 / av[i]) for i in range(len(axes))]
            total = wsum = 0.0
            for off in np.ndindex(*[2 * ri + 1 for ri in r]):
                idx, w, inside = list(c), 1.0, True
                for i, a in enumerate(axes):
                    idx[a] = off[i] - r[i] + round(coords[a])
                    inside &= 0 <= idx[a] < x.shape[a]
                    w *= av[i] * max(0.0, 1 - abs(av[i] * (coords[a] - idx[a])))
                if inside:
                    total += w * x[tuple(idx)]
                    wsum += w
            result[c] = 0.0 if wsum == 0 else total / wsum
    return result


def _interp11(x: np.ndarray, axes: list[int], sizes: list[int], mode: str, **kw: Any) -> np.ndarray:
    return run(lambda p: opset.interpolate(p, sizes, mode, "sizes", axes=axes, **kw), x)


X = np.random.default_rng(21).uniform(-3, 3, (1, 2, 5, 6)).astype(np.float32)


@pytest.mark.parametrize("ctm", ["half_pixel", "pytorch_half_pixel", "asymmetric", "tf_half_pixel_for_nn",
                                 "align_corners"])
@pytest.mark.parametrize("nearest", ["round_prefer_floor", "round_prefer_ceil", "floor", "ceil", "simple"])
@pytest.mark.parametrize("sizes", [[8, 12], [3, 4], [10, 3]])
def test_interpolate_nearest_matches_the_spec(ctm: str, nearest: str, sizes: list[int]) -> None:
    got = _interp11(X, [2, 3], sizes, "nearest", coordinate_transformation_mode=ctm, nearest_mode=nearest)
    np.testing.assert_array_equal(got, _spec_interpolate(X, [2, 3], sizes, "nearest", ctm, nearest))


@pytest.mark.parametrize("ctm", ["half_pixel", "asymmetric", "align_corners", "pytorch_half_pixel"])
@pytest.mark.parametrize(("axes", "sizes"), [([2, 3], [8, 4]), ([3], [13]), ([3, 1], [2, 3])])
@pytest.mark.parametrize("cube", [-0.75, -0.5])
def test_interpolate_cubic_matches_the_spec(ctm: str, axes: list[int], sizes: list[int], cube: float) -> None:
    got = _interp11(X, axes, sizes, "cubic", coordinate_transformation_mode=ctm, cube_coeff=cube)
    np.testing.assert_allclose(got, _spec_interpolate(X, axes, sizes, "cubic", ctm, cube=cube), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("ctm", ["half_pixel", "align_corners", "asymmetric"])
@pytest.mark.parametrize(("axes", "sizes"), [([2, 3], [8, 4]), ([2, 3], [3, 2]), ([3], [13]), ([3, 2], [3, 9])])
@pytest.mark.parametrize("antialias", [False, True])
def test_interpolate_linear_matches_the_spec(ctm: str, axes: list[int], sizes: list[int], antialias: bool) -> None:
    got = _interp11(X, axes, sizes, "linear", coordinate_transformation_mode=ctm, antialias=antialias)
    want = _spec_interpolate(X, axes, sizes, "linear", ctm, antialias=antialias)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_interpolate_linear_onnx_literals() -> None:
    x = np.array([[[[1.0, 2.0], [3.0, 4.0]]]], np.float32)
    got = _interp11(x, [2, 3], [4, 4], "linear_onnx")
    assert got[0, 0].tolist() == [[1.0, 1.25, 1.75, 2.0], [1.5, 1.75, 2.25, 2.5], [2.5, 2.75, 3.25, 3.5],
                                  [3.0, 3.25, 3.75, 4.0]]
    got = _interp11(x, [2, 3], [3, 3], "linear_onnx", coordinate_transformation_mode="align_corners")
    assert got[0, 0].tolist() == [[1.0, 1.5, 2.0], [2.0, 2.5, 3.0], [3.0, 3.5, 4.0]]


def _pillow_weights(in_len: int, out_len: int, cubic: bool, a: float) -> np.ndarray:
    scale = in_len / out_len
    fs = max(scale, 1.0)
    support = (2.0 if cubic else 1.0) * fs
    w = np.zeros((out_len, in_len))
    for o in range(out_len):
        center = (o + 0.5) * scale
        lo, hi = max(int(center - support + 0.5), 0), min(int(center + support + 0.5), in_len)
        for j in range(lo, hi):
            t = abs((j - center + 0.5) / fs)
            if cubic:
                w[o, j] = ((a + 2) * t - (a + 3)) * t * t + 1 if t < 1 else ((((t - 5) * t + 8) * t - 4) * a if t < 2
                                                                            else 0.0)
            else:
                w[o, j] = max(0.0, 1 - t)
        w[o] /= w[o].sum()
    return w


@pytest.mark.parametrize("mode", ["bilinear_pillow", "bicubic_pillow"])
@pytest.mark.parametrize("sizes", [[3, 2], [9, 13], [2, 6]])
def test_interpolate_pillow_modes(mode: str, sizes: list[int]) -> None:
    cubic = mode == "bicubic_pillow"
    got = _interp11(X, [2, 3], sizes, mode, cube_coeff=-0.5, coordinate_transformation_mode="align_corners")
    want = np.einsum("oh,pw,nchw->ncop", _pillow_weights(5, sizes[0], cubic, -0.5),
                     _pillow_weights(6, sizes[1], cubic, -0.5), X.astype(np.float64))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_interpolate_scales_pads_and_versions_agree() -> None:
    x = np.arange(12, dtype=np.float32).reshape(1, 1, 3, 4)
    by_scales = run(lambda p: opset.interpolate(p, [2.0, 0.5], "nearest", "scales", [0, 0, 1, 0], [0, 0, 0, 0],
                                                axes=[2, 3]), x)
    padded = np.pad(x, ((0, 0), (0, 0), (1, 0), (0, 0)))
    assert by_scales.shape == (1, 1, 8, 2)
    np.testing.assert_array_equal(by_scales, _spec_interpolate(padded, [2, 3], [8, 2], "nearest"))
    v4 = run(lambda p: opset.interpolate_v4(p, [0, 0], [2.0, 0.5], "nearest", "scales", [0, 0, 1, 0], axes=[2, 3]), x)
    np.testing.assert_array_equal(v4, by_scales)
    no_axes = run(lambda p: opset.interpolate(p, [1, 1, 6, 8], "linear_onnx", "sizes"), x)
    np.testing.assert_array_equal(no_axes, _interp11(x, [2, 3], [6, 8], "linear_onnx"))
    u8 = run(lambda p: opset.interpolate(p, [6, 8], "nearest", "sizes", axes=[2, 3]), x.astype(np.uint8))
    assert u8.dtype == np.uint8 and u8.tolist() == _interp11(x, [2, 3], [6, 8], "nearest").astype(np.uint8).tolist()


def test_interpolate_1_uses_openvinos_mapping_to_interpolate_4() -> None:
    x = np.random.default_rng(2).uniform(-1, 1, (1, 2, 3, 4)).astype(np.float32)

    def v1(**attrs: Any) -> np.ndarray:
        return run(lambda p: opset.interpolate_v1(p, [5, 7], {"axes": [2, 3], **attrs}), x)

    assert v1(mode="linear").shape == (1, 2, 5, 7)
    np.testing.assert_allclose(v1(mode="linear"), _interp11(x, [2, 3], [5, 7], "linear_onnx",
                                                             coordinate_transformation_mode="align_corners"))
    np.testing.assert_allclose(v1(mode="linear", align_corners=False),
                               _interp11(x, [2, 3], [5, 7], "linear_onnx", coordinate_transformation_mode="asymmetric"))
    np.testing.assert_array_equal(v1(mode="nearest", align_corners=False),
                                  _interp11(x, [2, 3], [5, 7], "nearest", coordinate_transformation_mode="asymmetric",
                                            nearest_mode="simple"))
    np.testing.assert_allclose(v1(mode="cubic"), _interp11(x, [2, 3], [5, 7], "cubic",
                                                           coordinate_transformation_mode="align_corners"))
    x3 = x[0]
    got = run(lambda p: opset.interpolate_v1(p, [7], {"axes": [2], "mode": "linear", "align_corners": False}), x3)
    np.testing.assert_allclose(got, run(lambda p: opset.interpolate(p, [7], "linear_onnx", "sizes", axes=[2]), x3))


def test_interpolate_1_area_is_refused_when_compiled() -> None:
    node = opset.interpolate_v1(P([1, 1, 4, 4]), [2, 2], {"axes": [2, 3], "mode": "area"})
    assert out(node) == "[1,1,2,2]"
    with pytest.raises(CompileError, match="Interpolate-1 node.*mode 'area' is not implemented by REFERENCE"):
        evaluate(Model([node.output(0)], [node.input_value(0).node]), [np.zeros((1, 1, 4, 4), np.float32)])


def test_interpolate_inference() -> None:
    x = P([1, 2, 4, 6])
    assert out(opset.interpolate(x, [3, 5], "nearest", "sizes", axes=[3, 1])) == "[1,5,4,3]"
    assert out(opset.interpolate(x, [0.5, 1.5], "linear", "scales", [0, 0, 1, 0], [0, 0, 1, 1],
                                 axes=[2, 3])) == "[1,2,3,10]"
    assert out(opset.interpolate(x, P([2], Type.i32), "nearest", "sizes", axes=[2, 3])) == "[1,2,?,?]"
    assert out(opset.interpolate(x, [3, 5], "nearest", "sizes", axes=P([2], Type.i64))) == "[?,?,?,?]"
    assert out(opset.interpolate(P([1, 2, "2..4", 6]), [2.0], "nearest", "scales", axes=[2])) == "[1,2,4..8,6]"
    assert out(opset.interpolate_v4(x, [3, 5], [9.0, 9.0], "cubic", "sizes", axes=[2, 3])) == "[1,2,3,5]"
    assert out(opset.interpolate_v1(x, [3], {"axes": [1], "mode": "cubic", "pads_begin": [0, 0, 1, 1]})) == \
        "[1,3,4,6]"


@pytest.mark.parametrize(("make", "match"), [
    (lambda: opset.interpolate(P([1, 2, 4]), [3, 5], "nearest", "sizes", axes=[2]), r"sizes holds 2 value"),
    (lambda: opset.interpolate(P([1, 2, 4]), [3, 5], "nearest", "sizes", axes=[2, 2]), r"axes \[2, 2\] repeat"),
    (lambda: opset.interpolate(P([1, 2, 4]), [3], "nearest", "sizes", axes=[3]), r"axes \[3\] must be in \[0, 2\]"),
    (lambda: opset.interpolate(P([1, 2, 4]), [3], "area", "sizes", axes=[2]), "'mode'='area' is not allowed"),
    (lambda: opset.interpolate(P([1, 2, 4]), opset.constant(np.array([2.0], np.float32)), "nearest", "sizes",
                               axes=[2]), "scales_or_sizes .*element type f32 is not allowed; .*integer"),
    (lambda: opset.interpolate(P([1, 2, 4]), [3], "nearest", "sizes", [0, 0, 0, 1], axes=[2]),
     r"'pads_begin'=\[0, 0, 0, 1\] has more values than the data rank 3"),
    (lambda: opset.interpolate(P([1, 2, 4], Type.boolean), [3], "nearest", "sizes", axes=[2]), "boolean"),
    (lambda: opset.interpolate(P([1, 2, 4]), [2.0], "nearest", "scales", coordinate_transformation_mode="corner",
                               axes=[2]), "'coordinate_transformation_mode'='corner' is not allowed"),
    (lambda: opset.interpolate_v4(P([1, 2, 4]), [3], opset.constant(np.array([2], np.int64)), "nearest", "sizes",
                                  axes=[2]),
     "scales element type i64 is not allowed"),
])
def test_interpolate_errors(make: Callable[[], Node], match: str) -> None:
    with pytest.raises(ValidationError, match=f"Interpolate-(1|4|11) node.*{match}"):
        make()


def naive_rgb(y: float, u: float, v: float) -> list[float]:
    c, d, e = y - 16, u - 128, v - 128
    rgb = [1.164 * c + 1.596 * e, 1.164 * c - 0.813 * e - 0.391 * d, 1.164 * c + 2.018 * d]
    return [min(max(x, 0.0), 255.0) for x in rgb]


def _yuv(rng: np.random.Generator, n: int, h: int, w: int, dt: type) -> tuple[np.ndarray, ...]:
    planes = (rng.integers(0, 256, (n, h, w)), rng.integers(0, 256, (n, h // 2, w // 2)),
              rng.integers(0, 256, (n, h // 2, w // 2)))
    return tuple(p.astype(dt) for p in planes)


def _expected(y: np.ndarray, u: np.ndarray, v: np.ndarray, bgr: bool, u8: bool) -> np.ndarray:
    out = np.zeros((*y.shape, 3))
    for b, i, j in itertools.product(*(range(s) for s in y.shape)):
        px = naive_rgb(float(y[b, i, j]), float(u[b, i // 2, j // 2]), float(v[b, i // 2, j // 2]))
        out[b, i, j] = px[::-1] if bgr else px
    return np.floor(out + 0.5) if u8 else out


@pytest.mark.parametrize("dt", [np.uint8, np.float32])
@pytest.mark.parametrize("bgr", [False, True])
def test_nv12_single_and_two_planes(dt: type, bgr: bool) -> None:
    y, u, v = _yuv(np.random.default_rng(5), 2, 4, 6, dt)
    uv = np.stack([u, v], axis=-1)
    single = np.concatenate([y, uv.reshape(2, 2, 6)], axis=1)[..., None]
    make = opset.nv12_to_bgr if bgr else opset.nv12_to_rgb
    (one,) = run_all(make, single)
    (two,) = run_all(make, y[..., None], uv)
    want = _expected(y, u, v, bgr, dt == np.uint8)
    assert one.dtype == dt and one.shape == (2, 4, 6, 3)
    np.testing.assert_array_equal(one, two)
    np.testing.assert_allclose(one.astype(np.float64), want, atol=1e-3 if dt == np.float32 else 0)


@pytest.mark.parametrize("dt", [np.uint8, np.float32])
@pytest.mark.parametrize("bgr", [False, True])
def test_i420_single_and_three_planes(dt: type, bgr: bool) -> None:
    y, u, v = _yuv(np.random.default_rng(6), 1, 4, 4, dt)
    single = np.concatenate([y.reshape(1, -1), u.reshape(1, -1), v.reshape(1, -1)], axis=1).reshape(1, 6, 4, 1)
    make = opset.i420_to_bgr if bgr else opset.i420_to_rgb
    (one,) = run_all(make, single)
    (three,) = run_all(make, y[..., None], u[..., None], v[..., None])
    np.testing.assert_array_equal(one, three)
    np.testing.assert_allclose(one.astype(np.float64), _expected(y, u, v, bgr, dt == np.uint8),
                               atol=1e-3 if dt == np.float32 else 0)


def test_u8_output_rounds_to_nearest_and_clips() -> None:
    # U=V=128: Y=17 gives 1.164 -> 1; Y=18 2.328 -> 2; Y=20 4.656 -> 5; Y=0 negative -> 0; Y=255 278.2 -> 255
    y = np.array([[17, 18], [20, 0]], np.uint8).reshape(1, 2, 2, 1)
    (out,) = run_all(opset.nv12_to_rgb, y, np.full((1, 1, 1, 2), 128, np.uint8))
    assert out[0, :, :, 0].tolist() == [[1, 2], [5, 0]]
    (hi,) = run_all(opset.nv12_to_rgb, np.full((1, 2, 2, 1), 255, np.uint8), np.full((1, 1, 1, 2), 128, np.uint8))
    assert hi.max() == 255


@pytest.mark.parametrize(("make", "message"), [
    (lambda: opset.nv12_to_rgb(P([1, 5, 4, 1])), "multiple of 3"),
    (lambda: opset.nv12_to_rgb(P([1, 6, 3, 1])), "width 3 must be even"),
    (lambda: opset.nv12_to_rgb(P([1, 4, 4, 1]), P([1, 2, 2, 1])), "channel dim must be 2"),
    (lambda: opset.nv12_to_bgr(P([1, 4, 4, 1]), P([1, 1, 2, 2])), "half the height"),
    (lambda: opset.i420_to_rgb(P([1, 6, 4, 1], Type.i32)), "needs u8 or a floating-point type"),
    (lambda: opset.i420_to_bgr(P([1, 4, 4, 1], Type.u8), P([1, 2, 2, 1], Type.u8), P([1, 2, 2, 1])),
     "input 2 has element type f32"),
])
def test_color_errors(make: Callable[[], Node], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        make()


def test_color_shapes() -> None:
    assert shape(opset.nv12_to_rgb(P([2, -1, 8, 1]))) == "[2,?,8,3]"
    assert shape(opset.i420_to_rgb(P([1, -1, -1, 1]), P([1, 3, 4, 1]), P([1, 3, 4, 1]))) == "[1,6,8,3]"
    with pytest.raises(ValidationError, match="both the U and the V plane"):
        opset.i420_to_rgb(P([1, 4, 4, 1]), P([1, 2, 2, 1]))


def naive_grid_sample(data: np.ndarray, grid: np.ndarray, align: bool, mode: str, padding: str) -> np.ndarray:
    n, c, h, w = data.shape

    def denorm(v: float, size: int) -> float:
        v32 = np.float32(v)
        f = np.float32
        return float((v32 + f(1)) * f(size - 1) / f(2) if align else ((v32 + f(1)) * f(size) - f(1)) / f(2))

    def reflect(i: int, size: int) -> int:
        if align:
            period = 1 if size == 1 else 2 * (size - 1)
            i = abs(i) % period
            return period - i if i >= size else i
        i = i % (2 * size)
        return 2 * size - 1 - i if i >= size else i

    def pixel(b: int, ch: int, y: int, x: int) -> float:
        if padding == "zeros":
            return float(data[b, ch, y, x]) if 0 <= y < h and 0 <= x < w else 0.0
        if padding == "border":
            return float(data[b, ch, min(max(y, 0), h - 1), min(max(x, 0), w - 1)])
        return float(data[b, ch, reflect(y, h), reflect(x, w)])

    def cubic(r: float) -> list[float]:
        a = -0.75
        return [((a * (r + 1) - 5 * a) * (r + 1) + 8 * a) * (r + 1) - 4 * a, ((a + 2) * r - (a + 3)) * r * r + 1,
                ((a + 2) * (1 - r) - (a + 3)) * (1 - r) * (1 - r) + 1,
                ((a * (2 - r) - 5 * a) * (2 - r) + 8 * a) * (2 - r) - 4 * a]

    out = np.zeros((n, c, grid.shape[1], grid.shape[2]))
    for b, ch, i, j in itertools.product(range(n), range(c), range(grid.shape[1]), range(grid.shape[2])):
        y, x = denorm(grid[b, i, j, 1], h), denorm(grid[b, i, j, 0], w)
        if mode == "nearest":
            out[b, ch, i, j] = pixel(b, ch, round(y), round(x))  # Python round: halves to even, as lrint
            continue
        y0, x0 = math.floor(y), math.floor(x)
        dy, dx = y - y0, x - x0
        if mode == "bilinear":
            q0 = (1 - dx) * pixel(b, ch, y0, x0) + dx * pixel(b, ch, y0, x0 + 1)
            q1 = (1 - dx) * pixel(b, ch, y0 + 1, x0) + dx * pixel(b, ch, y0 + 1, x0 + 1)
            out[b, ch, i, j] = dy * q1 + (1 - dy) * q0
        else:
            cy, cx = cubic(dy), cubic(dx)
            out[b, ch, i, j] = sum(cy[p] * sum(cx[q] * pixel(b, ch, y0 - 1 + p, x0 - 1 + q) for q in range(4))
                                   for p in range(4))
    return out


@given(seed=st.integers(0, 2**31), align=st.booleans(), mode=st.sampled_from(["bilinear", "bicubic", "nearest"]),
       padding=st.sampled_from(["zeros", "border", "reflection"]))
@seeded(25)
def test_grid_sample_matches_a_naive_loop(seed: int, align: bool, mode: str, padding: str) -> None:
    rng = np.random.default_rng(seed)
    data = rng.uniform(-5, 5, (1, 2, rng.integers(1, 5), rng.integers(1, 5))).astype(np.float32)
    grid = rng.uniform(-2.5, 2.5, (1, 3, 2, 2)).astype(np.float32)
    attrs = {"align_corners": align, "mode": mode, "padding_mode": padding}
    out = run(lambda d, g: opset.grid_sample(d, g, attrs), data, grid)
    np.testing.assert_allclose(out, naive_grid_sample(data, grid, align, mode, padding), rtol=1e-5, atol=1e-5)


def test_grid_sample_identity_grid_with_aligned_corners() -> None:
    data = np.arange(12, dtype=np.float32).reshape(1, 1, 3, 4)
    ys, xs = np.meshgrid(np.linspace(-1, 1, 3), np.linspace(-1, 1, 4), indexing="ij")
    grid = np.stack([xs, ys], axis=-1)[None].astype(np.float32)
    for mode in ("bilinear", "nearest", "bicubic"):
        attrs = {"align_corners": True, "mode": mode}
        out = run(lambda d, g, a=attrs: opset.grid_sample(d, g, a), data, grid)
        np.testing.assert_allclose(out, data, atol=1e-5)


def test_grid_sample_shapes_and_errors() -> None:
    assert str(opset.grid_sample(P([-1, 3, 8, 8]), P([2, 4, 5, 2])).output(0).get_partial_shape()) == "[2,3,4,5]"
    with pytest.raises(ValidationError, match="GridSample-9 node .*its last dim must be 2"):
        opset.grid_sample(P([1, 1, 4, 4]), P([1, 2, 2, 3]))
    with pytest.raises(ValidationError, match="must be NCHW \\(rank 4\\)"):
        opset.grid_sample(P([1, 1, 2, 4, 4]), P([1, 2, 2, 2, 3]))
    with pytest.raises(ValidationError, match="grid .input 1. has element type i32"):
        opset.grid_sample(P([1, 1, 4, 4]), P([1, 2, 2, 2], Type.i32))
    with pytest.raises(ValidationError, match="padding_mode"):
        opset.grid_sample(P([1, 1, 4, 4]), P([1, 2, 2, 2]), {"padding_mode": "wrap"})
    with pytest.raises(ValidationError, match="unknown attribute"):
        opset.grid_sample(P([1, 1, 4, 4]), P([1, 2, 2, 2]), {"interpolation": "nearest"})
