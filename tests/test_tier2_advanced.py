"""Tier-2 "advanced" family: AdaptiveAvgPool-8, AdaptiveMaxPool-8, FakeQuantize-1, Inverse-14, Einsum-7,
ScaledDotProductAttention-13, ConvolutionBackpropData-1, GroupConvolutionBackpropData-1, Col2Im-15 and
Interpolate-1/4/11 — builder inference and errors, REFERENCE kernel numerics against literal values (several
taken from OpenVINO CPU runs) or independent loop formulas (transcriptions of the specs' pseudo-code), and
the case strategies."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from _opcase_checks import check_case_runs
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ovconform import opset
from ovconform.errors import CompileError, InferError, ValidationError
from ovconform.ir import Model, Node, Type, as_type, get_opdef
from ovconform.opcases import all_case_keys, case_strategy
from reference_plugin._evaluate import evaluate

P = opset.parameter

KEYS = [("AdaptiveAvgPool", 8), ("AdaptiveMaxPool", 8), ("FakeQuantize", 1), ("Inverse", 14), ("Einsum", 7),
        ("ScaledDotProductAttention", 13), ("ConvolutionBackpropData", 1), ("GroupConvolutionBackpropData", 1),
        ("Col2Im", 15), ("Interpolate", 1), ("Interpolate", 4), ("Interpolate", 11)]


def out(node: Node, i: int = 0) -> str:
    return str(node.output(i).get_partial_shape())


def run_all(make: Callable[..., Node], *arrays: Any) -> list[np.ndarray]:
    """One op over Parameters holding ``arrays``; every output evaluated on REFERENCE."""
    values = [np.asarray(a) for a in arrays]
    params = [P(list(v.shape), as_type(v.dtype), name=f"in{i}") for i, v in enumerate(values)]
    node = make(*params)
    return evaluate(Model(node.outputs(), params), values)


def run(make: Callable[..., Node], *arrays: Any) -> np.ndarray:
    return run_all(make, *arrays)[0]


# -- op definitions: IR spelling ------------------------------------------------------------------------------

IR_ATTRS = {
    ("AdaptiveAvgPool", 8): [], ("AdaptiveMaxPool", 8): ["index_element_type"],
    ("FakeQuantize", 1): ["levels", "auto_broadcast"], ("Inverse", 14): ["adjoint"], ("Einsum", 7): ["equation"],
    ("ScaledDotProductAttention", 13): ["causal"],
    ("ConvolutionBackpropData", 1): ["strides", "dilations", "pads_begin", "pads_end", "auto_pad", "output_padding"],
    ("GroupConvolutionBackpropData", 1): ["strides", "pads_begin", "pads_end", "dilations", "auto_pad",
                                          "output_padding"],
    ("Col2Im", 15): ["strides", "dilations", "pads_begin", "pads_end"],
    ("Interpolate", 1): ["align_corners", "antialias", "axes", "mode", "pads_begin", "pads_end"],
    ("Interpolate", 4): ["mode", "shape_calculation_mode", "coordinate_transformation_mode", "nearest_mode",
                         "antialias", "pads_begin", "pads_end", "cube_coeff"],
}
IR_ATTRS[("Interpolate", 11)] = IR_ATTRS[("Interpolate", 4)]


@pytest.mark.parametrize(("op", "version"), KEYS)
def test_ir_names_and_attributes_follow_openvino(op: str, version: int) -> None:
    d = get_opdef(op, version)
    assert (d.ir_type_name or d.type_name) == op
    assert [a.name for a in d.attrs] == IR_ATTRS[(op, version)]


def test_builders_use_the_opset_versions() -> None:
    x4, x3 = P([1, 2, 4, 4]), P([1, 4, 9])
    built = [opset.adaptive_avg_pool(x4, [2, 2]), opset.adaptive_max_pool(x4, [2, 2]),
             opset.fake_quantize(x4, 0.0, 1.0, 0.0, 1.0, 3), opset.inverse(x4), opset.einsum([x4], "abcd->abdc"),
             opset.scaled_dot_product_attention(x3, x3, x3),
             opset.convolution_backprop_data(x4, P([2, 3, 3, 3]), [1, 1]),
             opset.group_convolution_backprop_data(x4, P([2, 1, 3, 3, 3]), [1, 1]),
             opset.col2im(x3, [4, 4], [2, 2]), opset.interpolate_v1(x4, [8, 8], {"axes": [2, 3], "mode": "nearest"}),
             opset.interpolate_v4(x4, [8, 8], [2.0, 2.0], "nearest", "sizes", axes=[2, 3]),
             opset.interpolate(x4, [8, 8], "nearest", "sizes", axes=[2, 3])]
    assert [(n.type_name, n.version) for n in built] == KEYS


# -- adaptive pooling -----------------------------------------------------------------------------------------

def test_adaptive_pool_inference() -> None:
    assert out(opset.adaptive_avg_pool(P([2, 3, 7]), [3])) == "[2,3,3]"
    assert out(opset.adaptive_avg_pool(P([-1, 3, 7, 5, 4]), np.array([1, 2, 9], np.int32))) == "[?,3,1,2,9]"
    assert out(opset.adaptive_avg_pool(P([2, 3, 7, 7]), P([2], Type.i64))) == "[2,3,?,?]"
    node = opset.adaptive_max_pool(P([2, 3, 7, 7], Type.f16), [3, 3], "i32")
    assert node.output(1).get_element_type() == Type.i32 and out(node, 1) == "[2,3,3,3]"
    assert out(opset.adaptive_max_pool(P("..."), [3, 3])) == "..."


@pytest.mark.parametrize(("make", "match"), [
    (lambda: opset.adaptive_avg_pool(P([2, 3, 7, 7]), [3]), r"output_shape shape \[1\] must hold 2 value"),
    (lambda: opset.adaptive_avg_pool(P([2, 7]), [3]), r"data shape \[2,7\] must have rank 3, 4 or 5"),
    (lambda: opset.adaptive_avg_pool(P([2, 3, 7], Type.i32), [3]), "i32 is not allowed; .*floating-point"),
    (lambda: opset.adaptive_avg_pool(P([2, 3, 7]), [0]), r"output_shape \[0\] must be positive"),
    (lambda: opset.adaptive_max_pool(P([2, 3, 7]), [3], "i8"), "index_element_type.*not allowed"),
    (lambda: opset.adaptive_max_pool(P([2, 3, 7]), opset.constant(np.array([3.0], np.float32))),
     "output_shape element type f32"),
])
def test_adaptive_pool_errors(make: Callable[[], Node], match: str) -> None:
    with pytest.raises(ValidationError, match=f"Adaptive(Avg|Max)Pool-8 node.*{match}"):
        make()


def _bins(size: int, n: int) -> list[tuple[int, int]]:
    return [(math.floor(i * size / n), math.ceil((i + 1) * size / n)) for i in range(n)]


@pytest.mark.parametrize(("shape", "sizes"), [((2, 3, 7), [3]), ((1, 2, 5, 7), [2, 4]), ((1, 1, 3, 4, 5), [2, 3, 7]),
                                              ((1, 2, 3, 2), [5, 4])])
def test_adaptive_pools_match_a_loop_over_bins(shape: tuple[int, ...], sizes: list[int]) -> None:
    x = np.random.default_rng(3).permutation(math.prod(shape)).reshape(shape).astype(np.float32)
    avg = run(lambda p: opset.adaptive_avg_pool(p, sizes), x)
    peak, index = run_all(lambda p: opset.adaptive_max_pool(p, sizes), x)
    spatial = shape[2:]
    for pos in np.ndindex(*sizes):
        box = tuple(slice(*_bins(s, n)[o]) for s, n, o in zip(spatial, sizes, pos, strict=True))
        window = x[(slice(None), slice(None), *box)].reshape(*shape[:2], -1)
        np.testing.assert_allclose(avg[(..., *pos)], window.mean(axis=-1), rtol=1e-6)
        np.testing.assert_array_equal(peak[(..., *pos)], window.max(axis=-1))
        flat = x.reshape(*shape[:2], -1)
        np.testing.assert_array_equal(np.take_along_axis(flat, index[(..., *pos)].reshape(*shape[:2], 1), -1)[..., 0],
                                      window.max(axis=-1))
    assert index.dtype == np.int64


def test_adaptive_max_pool_matches_openvino_literals() -> None:
    x = np.random.default_rng(0).permutation(40).astype(np.float32).reshape(1, 2, 5, 4)
    values, index = run_all(lambda p: opset.adaptive_max_pool(p, [2, 3], "i32"), x)
    assert values.tolist() == [[[[27, 27, 34], [38, 38, 30]], [[35, 35, 36], [39, 39, 31]]]]
    assert index.dtype == np.int32
    assert index.tolist() == [[[[1, 1, 7], [17, 17, 15]], [[1, 1, 7], [13, 13, 19]]]]


def test_adaptive_max_pool_ties_and_nan() -> None:
    x = np.array([[[2.0, 5.0, 5.0, 1.0, np.nan, 3.0]]], np.float32)
    values, index = run_all(lambda p: opset.adaptive_max_pool(p, [2]), x)
    assert index.tolist() == [[[1, 4]]]  # the first maximum; NaN wins its bin
    assert values[0, 0, 0] == 5.0 and np.isnan(values[0, 0, 1])


# -- FakeQuantize ---------------------------------------------------------------------------------------------

def _fq_formula(x: np.ndarray, il: Any, ih: Any, ol: Any, oh: Any, levels: int) -> np.ndarray:
    x, il, ih, ol, oh = np.broadcast_arrays(*(np.asarray(v, np.float64) for v in (x, il, ih, ol, oh)))
    out = np.empty(x.shape)
    for i in np.ndindex(*x.shape):
        if x[i] <= min(il[i], ih[i]):
            out[i] = ol[i]
        elif x[i] > max(il[i], ih[i]):
            out[i] = oh[i]
        else:
            out[i] = round((x[i] - il[i]) / (ih[i] - il[i]) * (levels - 1)) / (levels - 1) * (oh[i] - ol[i]) + ol[i]
    return out


def test_fake_quantize_literals() -> None:
    x = np.array([-2.0, -1.0, -0.4, 0.1, 0.6, 1.0, 3.0], np.float32)
    got = run(lambda p: opset.fake_quantize(p, np.float32(-1), np.float32(1), np.float32(0), np.float32(8), 5), x)
    # levels at -1, -0.5, 0, 0.5, 1 -> outputs 0, 2, 4, 6, 8
    assert got.tolist() == [0.0, 0.0, 2.0, 4.0, 6.0, 8.0, 8.0]


@pytest.mark.parametrize("levels", [2, 3, 16, 256])
def test_fake_quantize_matches_the_formula_with_broadcast_limits(levels: int) -> None:
    rng = np.random.default_rng(levels)
    x = rng.uniform(-3, 3, (2, 3, 4)).astype(np.float32)
    il = rng.uniform(-2, -0.5, (1, 3, 1)).astype(np.float32)
    ih = rng.uniform(0.5, 2, (4,)).astype(np.float32)
    ol, oh = np.float32(-1.5), rng.uniform(-1, 3, (3, 1)).astype(np.float32)  # some output ranges inverted
    got = run(lambda p: opset.fake_quantize(p, il, ih, ol, oh, levels), x)
    np.testing.assert_allclose(got, _fq_formula(x, il, ih, ol, oh, levels).astype(np.float32), rtol=1e-6, atol=1e-6)


def test_fake_quantize_broadcast_modes_and_errors() -> None:
    x = P([2, 3])
    assert out(opset.fake_quantize(x, P([2, 3]), P([2, 3]), P([2, 3]), P([2, 3]), 4, "none")) == "[2,3]"
    assert out(opset.fake_quantize(x, P([3]), P([1]), P([]), P([2, 1]), 4, "pdpd")) == "[2,3]"
    assert out(opset.fake_quantize(x, P([4, 1, 1]), 0.0, 1.0, 2.0, 4)) == "[4,2,3]"
    with pytest.raises(ValidationError, match="FakeQuantize-1 node.*'levels'=1 is not allowed; .*at least 2"):
        opset.fake_quantize(x, 0.0, 1.0, 0.0, 1.0, 1)
    with pytest.raises(ValidationError, match=r"FakeQuantize-1 node.*must be equal when auto_broadcast='none'"):
        opset.fake_quantize(x, P([3]), P([2, 3]), P([2, 3]), P([2, 3]), 4, "none")
    with pytest.raises(ValidationError, match="FakeQuantize-1 node.*one element type"):
        opset.fake_quantize(x, P([], Type.f16), 1.0, 0.0, 1.0, 4)
    with pytest.raises(ValidationError, match="FakeQuantize-1 node.*i32 is not allowed"):
        opset.fake_quantize(P([2], Type.i32), 0, 1, 0, 1, 4)
    lo = np.full((2, 3), -1, np.float32)
    got = run(lambda p: opset.fake_quantize(p, lo, lo + 2, lo + 1, lo + 3, 3, "none"),
              np.array([[-1.0, 0.2, 1.0], [-0.2, 5.0, -3.0]], np.float32))
    assert got.tolist() == [[0.0, 1.0, 2.0], [1.0, 2.0, 0.0]]


def test_fake_quantize_rounds_half_to_even_on_exact_boundaries() -> None:
    # (x - 0) / 1 * 4 = 0.5 and 1.5: ties go to the even level (std::nearbyint); the case strategy
    # keeps away from such boundaries because the division's precision decides them in practice
    x = np.array([0.125, 0.375], np.float32)
    got = run(lambda p: opset.fake_quantize(p, np.float32(0), np.float32(1), np.float32(0), np.float32(4), 5), x)
    assert got.tolist() == [0.0, 2.0]


# -- Inverse --------------------------------------------------------------------------------------------------

def test_inverse_inference_and_errors() -> None:
    assert out(opset.inverse(P([2, -1, 3]))) == "[2,3,3]"
    assert out(opset.inverse(P([4, 4], Type.f16), True)) == "[4,4]"
    with pytest.raises(ValidationError, match=r"Inverse-14 node.*\[2,3\]: the last two dims must be equal"):
        opset.inverse(P([2, 3]))
    with pytest.raises(ValidationError, match=r"Inverse-14 node.*rank >= 2"):
        opset.inverse(P([3]))
    with pytest.raises(ValidationError, match="Inverse-14 node.*i32 is not allowed"):
        opset.inverse(P([3, 3], Type.i32))


@pytest.mark.parametrize("adjoint", [False, True])
def test_inverse_numerics(adjoint: bool) -> None:
    a = np.array([[[4.0, 1.0, 0.0], [2.0, 5.0, 1.0], [0.0, 1.0, 3.0]], [[2.0, 0.0, 0.0], [0.0, 0.5, 0.0],
                                                                      [1.0, 0.0, 1.0]]], np.float32)
    got = run(lambda p: opset.inverse(p, adjoint), a).astype(np.float64)
    base = np.swapaxes(a, -1, -2) if adjoint else a
    np.testing.assert_allclose(base.astype(np.float64) @ got, np.broadcast_to(np.eye(3), (2, 3, 3)), atol=1e-6)
    assert run(lambda p: opset.inverse(p), np.array([[2.0, 0.0], [0.0, 4.0]], np.float32)).tolist() == \
        [[0.5, 0.0], [0.0, 0.25]]


def test_inverse_of_a_singular_matrix_is_an_error() -> None:
    with pytest.raises(InferError, match="Inverse-14 node.*singular"):
        run(lambda p: opset.inverse(p), np.array([[1.0, 2.0], [2.0, 4.0]], np.float32))


# -- Einsum ---------------------------------------------------------------------------------------------------

EINSUM_CHECKS = [
    ("ij,jk->ik", [(2, 3), (3, 4)]), ("bij,bjk->bik", [(2, 2, 3), (2, 3, 2)]), ("ij->ji", [(2, 3)]),
    ("ii->i", [(3, 3)]), ("ii", [(3, 3)]), ("ij->", [(2, 3)]), ("i,j->ij", [(2,), (3,)]), ("ba", [(2, 3)]),
    ("ij,jk", [(2, 3), (3, 4)]), ("...ij,...jk->...ik", [(2, 1, 2, 3), (4, 3, 2)]), ("...ii->...i", [(2, 3, 3)]),
    ("a...->...a", [(2, 3, 4)]), ("ab,bc,cd->ad", [(2, 3), (3, 2), (2, 2)]), ("iij->ij", [(2, 2, 3)]),
]


@pytest.mark.parametrize(("equation", "shapes"), EINSUM_CHECKS)
def test_einsum_matches_numpy(equation: str, shapes: list[tuple[int, ...]]) -> None:
    rng = np.random.default_rng(len(equation))
    arrays = [rng.uniform(-2, 2, s).astype(np.float32) for s in shapes]
    node_shape = opset.einsum([P(list(s)) for s in shapes], equation).output(0).get_partial_shape()
    got = run(lambda *ps: opset.einsum(list(ps), equation), *arrays)
    want = np.einsum(equation, *(a.astype(np.float64) for a in arrays))
    assert got.shape == want.shape == node_shape.to_shape()
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def test_einsum_on_integers_and_spaces() -> None:
    a = np.arange(6, dtype=np.int32).reshape(2, 3)
    assert run(lambda p: opset.einsum([p, p], "ij, ij -> i"), a).tolist() == [5, 50]
    assert opset.einsum([P([2, 3]), P([2, 3])], "ij, ij -> i").attrs["equation"] == "ij,ij->i"


@pytest.mark.parametrize(("shapes", "equation", "match"), [
    ([[2, 3], [4, 5]], "ij,jk->ik", r"label 'j' has dims of different sizes"),
    ([[2, 3]], "ij,jk->ik", r"2 input subscript\(s\) but the node has 1"),
    ([[2, 3]], "i->i", r"input 0 shape \[2,3\] does not have one dim per label"),
    ([[2, 3]], "ij->ii", r"output subscript 'ii' repeats a label"),
    ([[2, 3]], "ij->k", r"output label 'k' appears in no input"),
    ([[2, 3]], "i1->i", r"subscript 'i1' is not allowed"),
    ([[2, 3, 4]], "...j->j", r"an input has '...' but the output subscript does not"),
    ([[2, 3]], "ij->i->j", r"more than one '->'"),
])
def test_einsum_errors(shapes: list[list[int]], equation: str, match: str) -> None:
    with pytest.raises(ValidationError, match=f"Einsum-7 node.*{match}"):
        opset.einsum([P(s) for s in shapes], equation)


# -- ScaledDotProductAttention --------------------------------------------------------------------------------

def _sdpa(q: np.ndarray, k: np.ndarray, v: np.ndarray, bias: Any = 0.0, scale: float | None = None) -> np.ndarray:
    s = (1 / math.sqrt(q.shape[-1])) if scale is None else scale
    w = q.astype(np.float64) @ np.swapaxes(k, -1, -2).astype(np.float64) * s + bias
    w = np.exp(w - w.max(axis=-1, keepdims=True))
    return (w / w.sum(axis=-1, keepdims=True)) @ v.astype(np.float64)


@pytest.fixture
def qkv() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(5)
    return (rng.uniform(-1, 1, (2, 3, 4, 5)).astype(np.float32), rng.uniform(-1, 1, (2, 3, 6, 5)).astype(np.float32),
            rng.uniform(-1, 1, (2, 3, 6, 2)).astype(np.float32))


def test_sdpa_plain_and_scaled(qkv: tuple[np.ndarray, ...]) -> None:
    q, k, v = qkv
    got = run(opset.scaled_dot_product_attention, q, k, v)
    np.testing.assert_allclose(got, _sdpa(q, k, v), rtol=1e-5, atol=1e-6)
    scale = np.float32(0.3)
    got = run(lambda a, b, c, s: opset.scaled_dot_product_attention(a, b, c, None, s), q, k, v, scale)
    np.testing.assert_allclose(got, _sdpa(q, k, v, scale=0.3), rtol=1e-5, atol=1e-6)


def test_sdpa_masks(qkv: tuple[np.ndarray, ...]) -> None:
    q, k, v = qkv
    mask = np.random.default_rng(1).random((4, 6)) < 0.5
    mask[:, 0] = True
    got = run(lambda a, b, c, m: opset.scaled_dot_product_attention(a, b, c, m), q, k, v, mask)
    np.testing.assert_allclose(got, _sdpa(q, k, v, np.where(mask, 0.0, -np.inf)), rtol=1e-5, atol=1e-6)
    fmask = np.random.default_rng(2).uniform(-2, 2, (1, 3, 1, 6)).astype(np.float32)
    got = run(lambda a, b, c, m: opset.scaled_dot_product_attention(a, b, c, m), q, k, v, fmask)
    np.testing.assert_allclose(got, _sdpa(q, k, v, fmask), rtol=1e-5, atol=1e-6)


def test_sdpa_causal_ignores_the_mask_and_aligns_top_left(qkv: tuple[np.ndarray, ...]) -> None:
    q, k, v = qkv
    causal = np.triu(np.full((4, 6), -np.inf), k=1)
    junk = np.full((4, 6), 100.0, np.float32)
    got = run(lambda a, b, c, m: opset.scaled_dot_product_attention(a, b, c, m, causal=True), q, k, v, junk)
    np.testing.assert_allclose(got, _sdpa(q, k, v, causal), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[..., 0, :], v[..., 0, :], rtol=1e-6)  # row 0 sees only key 0


def test_sdpa_row_masked_everywhere_is_nan(qkv: tuple[np.ndarray, ...]) -> None:
    q, k, v = qkv
    mask = np.ones((4, 6), bool)
    mask[2] = False
    got = run(lambda a, b, c, m: opset.scaled_dot_product_attention(a, b, c, m), q, k, v, mask)
    assert np.isnan(got[:, :, 2]).all() and not np.isnan(got[:, :, :2]).any()


def test_sdpa_inference_and_errors() -> None:
    q, k, v = P([2, 1, 4, 8]), P([1, 3, 5, 8]), P([2, 3, 5, 6])
    assert out(opset.scaled_dot_product_attention(q, k, v)) == "[2,3,4,6]"
    node = opset.scaled_dot_product_attention(P([2, 4, 8]), P([2, 5, 8]), P([2, 5, 3]), scale=0.5)
    assert node.get_input_size() == 5 and node.input_value(3).get_element_type() == Type.f32
    with pytest.raises(ValidationError, match=r"ScaledDotProductAttention-13 node.*differ in the feature dim"):
        opset.scaled_dot_product_attention(P([2, 4, 8]), P([2, 5, 7]), P([2, 5, 3]))
    with pytest.raises(ValidationError, match=r"ScaledDotProductAttention-13 node.*differ in the sequence dim"):
        opset.scaled_dot_product_attention(P([2, 4, 8]), P([2, 5, 8]), P([2, 6, 3]))
    with pytest.raises(ValidationError, match=r"ScaledDotProductAttention-13 node.*attention_mask element type i32"):
        opset.scaled_dot_product_attention(P([2, 4, 8]), P([2, 5, 8]), P([2, 5, 3]), P([4, 5], Type.i32))
    with pytest.raises(ValidationError, match=r"ScaledDotProductAttention-13 node.*cannot be broadcast"):
        opset.scaled_dot_product_attention(P([2, 4, 8]), P([2, 5, 8]), P([2, 5, 3]), P([4, 3]))
    with pytest.raises(ValidationError, match=r"ScaledDotProductAttention-13 node.*scale shape \[2\]"):
        opset.scaled_dot_product_attention(P([2, 4, 8]), P([2, 5, 8]), P([2, 5, 3]), P([4, 5]), P([2]))
    with pytest.raises(ValidationError, match=r"ScaledDotProductAttention-13 node.*rank >= 3"):
        opset.scaled_dot_product_attention(P([4, 8]), P([5, 8]), P([5, 3]))


# -- (Group)ConvolutionBackpropData ---------------------------------------------------------------------------

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


# -- Col2Im ---------------------------------------------------------------------------------------------------

def _col2im_loop(x: np.ndarray, size: list[int], kernel: list[int], s: list[int], d: list[int], pb: list[int],
                 pe: list[int]) -> np.ndarray:
    n, ck, _ = x.shape
    c = ck // (kernel[0] * kernel[1])
    blocks = [(size[i] + pb[i] + pe[i] - (d[i] * (kernel[i] - 1) + 1)) // s[i] + 1 for i in range(2)]
    img = np.zeros((n, c, size[0], size[1]))
    for ch, ki, kj, bh, bw in np.ndindex(c, kernel[0], kernel[1], *blocks):
        r, q = bh * s[0] + ki * d[0] - pb[0], bw * s[1] + kj * d[1] - pb[1]
        if 0 <= r < size[0] and 0 <= q < size[1]:
            img[:, ch, r, q] += x[:, (ch * kernel[0] + ki) * kernel[1] + kj, bh * blocks[1] + bw]
    return img


@pytest.mark.parametrize(("size", "kernel", "s", "d", "pb", "pe"), [
    ([4, 4], [2, 2], [1, 1], [1, 1], [0, 0], [0, 0]), ([5, 6], [2, 3], [2, 1], [1, 2], [1, 0], [0, 1]),
    ([3, 7], [3, 1], [1, 2], [2, 1], [1, 1], [1, 0]),
])
def test_col2im_matches_a_loop(size: list[int], kernel: list[int], s: list[int], d: list[int], pb: list[int],
                               pe: list[int]) -> None:
    blocks = [(size[i] + pb[i] + pe[i] - (d[i] * (kernel[i] - 1) + 1)) // s[i] + 1 for i in range(2)]
    x = np.random.default_rng(9).uniform(-2, 2, (2, 2 * kernel[0] * kernel[1], blocks[0] * blocks[1]))
    got = run(lambda p: opset.col2im(p, size, kernel, s, d, pb, pe), x.astype(np.float32))
    assert out(opset.col2im(P(list(x.shape)), size, kernel, s, d, pb, pe)) == str(list(got.shape)).replace(" ", "")
    np.testing.assert_allclose(got, _col2im_loop(x, size, kernel, s, d, pb, pe), rtol=1e-5, atol=1e-6)
    unbatched = run(lambda p: opset.col2im(p, size, kernel, s, d, pb, pe), x[0].astype(np.float32))
    np.testing.assert_allclose(unbatched, got[0], rtol=1e-6)


def test_col2im_literal_and_errors() -> None:
    x = np.arange(1, 5, dtype=np.int32).reshape(1, 4, 1)  # one 2x2 block
    assert run(lambda p: opset.col2im(p, [2, 2], [2, 2]), x).tolist() == [[[[1, 2], [3, 4]]]]
    with pytest.raises(ValidationError, match=r"Col2Im-15 node.*dim -1 must be the number of blocks 9"):
        opset.col2im(P([1, 4, 8]), [4, 4], [2, 2])
    with pytest.raises(ValidationError, match=r"Col2Im-15 node.*dim -2 \(6\) is not a multiple of the kernel volume 4"):
        opset.col2im(P([1, 6, 9]), [4, 4], [2, 2])
    with pytest.raises(ValidationError, match=r"Col2Im-15 node.*rank 2 .* or 3"):
        opset.col2im(P([1, 1, 4, 9]), [4, 4], [2, 2])
    with pytest.raises(ValidationError, match=r"Col2Im-15 node.*'strides'=\[0, 1\] must be positive"):
        opset.col2im(P([1, 4, 9]), [4, 4], [2, 2], [0, 1])
    assert out(opset.col2im(P([1, 8, 9]), P([2], Type.i64), [2, 2])) == "[1,2,?,?]"


# -- Interpolate: spec pseudo-code transcribed (loops over every output element) --------------------------------

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


# -- case strategies ------------------------------------------------------------------------------------------

CASE_SETTINGS = settings(max_examples=12, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])


def test_every_op_of_the_family_has_a_case() -> None:
    assert set(KEYS) <= set(all_case_keys())


@pytest.mark.parametrize(("op", "version"), KEYS)
@CASE_SETTINGS
@given(data=st.data())
def test_cases_are_valid_and_run(op: str, version: int, data: st.DataObject) -> None:
    case = data.draw(case_strategy(op, version))
    node, outs = check_case_runs(case, op, version)
    if op == "Interpolate":
        assert node.attrs["mode"] != "area"
    if op == "AdaptiveMaxPool":
        values = case.inputs["data"]
        assert np.unique(values).size == values.size
    if node.get_output_element_type(0).is_real() and op not in ("ScaledDotProductAttention",):
        assert np.all(np.isfinite(outs[0].astype(np.float64)))
