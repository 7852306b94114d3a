"""Tier-3 "detect" family, part 4: FakeConvert-13 and SparseFillEmptyRows-16 — IR attributes,
builder inference and errors, and the REFERENCE kernels against hand-checked values."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from ovconform import opset
from ovconform.errors import ValidationError
from ovconform.ir import Model, Node, Type, get_opdef
from ovconform.opcases import OpCase, all_case_keys, case_strategy
from reference_plugin._evaluate import evaluate

P = opset.parameter
SETTINGS = settings(max_examples=20, deadline=None, derandomize=True, database=None,
                    suppress_health_check=list(HealthCheck))


def evaluate_node(node: Node, *inputs: np.ndarray) -> list[np.ndarray]:
    params = [n for n in (node.input_value(i).node for i in range(node.get_input_size())) if n.type_name == "Parameter"]
    return evaluate(Model(node.outputs(), params), list(inputs))


def fake(values: list[float], dest: str, et: type = np.float32, scale: float = 1.0,
         shift: float | None = None) -> np.ndarray:
    x = np.array(values, et)
    t = Type.f32 if et == np.float32 else Type.f16
    node = opset.fake_convert(P([x.size], t), np.array([scale], et), None if shift is None else np.array([shift], et),
                              dest)
    (out,) = evaluate_node(node, x)
    assert out.dtype == et
    return out


def test_fake_convert_attribute_and_case() -> None:
    assert [a.name for a in get_opdef("FakeConvert", 13).attrs] == ["destination_type"]
    assert ("FakeConvert", 13) in all_case_keys()


def test_f8e4m3_rounds_to_nearest_even_with_subnormals_and_saturation() -> None:
    values = [0.0, 1.0625, 1.1875, 1.125, 3.14159, -2.7, 440, 449, 1000, np.inf, -np.inf,
              0.0015, 1.375 * 2**-7, 1.125 * 2**-7, 2.5 * 2**-9, 3.5 * 2**-9, 2**-11]
    want = [0.0, 1.0, 1.25, 1.125, 3.25, -2.75, 448, 448, 448, 448, -448,
            2**-9, 1.5 * 2**-7, 2**-7, 2 * 2**-9, 4 * 2**-9, 0.0]
    np.testing.assert_array_equal(fake(values, "f8e4m3"), np.array(want, np.float32))
    # the value becomes f16 first: 1.0625001 is the f16 tie 1.0625, which rounds to even (1.0)
    np.testing.assert_array_equal(fake([1.0625001, 1.0630], "f8e4m3"), [1.0, 1.125])
    assert np.isnan(fake([np.nan], "f8e4m3")[0])


def test_f8e5m2_rounds_to_nearest_even_with_subnormals_and_saturation() -> None:
    values = [1.125, 1.375, 464, 480, 57344, 61440, 1e6, -np.inf, 1.5 * 2**-16, 2.5 * 2**-16, 0.75 * 2**-16]
    want = [1.0, 1.5, 448, 512, 57344, 57344, 57344, -57344, 2 * 2**-16, 2 * 2**-16, 2**-16]
    np.testing.assert_array_equal(fake(values, "f8e5m2"), np.array(want, np.float32))
    np.testing.assert_array_equal(fake([1.125, 464], "f8e5m2", np.float16), np.array([1.0, 448], np.float16))


def test_fake_convert_scales_and_shifts_around_the_conversion() -> None:
    # (convert(x * 3 - 0.5) + 0.5) / 3: 3.3 -> 9.4 -> 9 (e4m3 step 1 in [8, 16)) -> 9.5 / 3
    np.testing.assert_allclose(fake([1.0, 2.0, 3.3], "f8e4m3", scale=3.0, shift=0.5),
                               np.array([1.0, 2.0, 9.5 / 3], np.float32), rtol=1e-7)
    x = np.arange(6, dtype=np.float32).reshape(1, 2, 3) * 1.3
    node = opset.fake_convert(P([1, 2, 3]), P([1, 2, 1]), P([1, 2, 1]), "f8e5m2")
    (got,) = evaluate_node(node, x, np.array([[[2.0], [0.5]]], np.float32), np.zeros((1, 2, 1), np.float32))
    expected = np.stack([fake(list(x[0, 0]), "f8e5m2", scale=2.0), fake(list(x[0, 1]), "f8e5m2", scale=0.5)])
    np.testing.assert_array_equal(got[0], expected)


@pytest.mark.parametrize(("make", "message"), [
    (lambda: opset.fake_convert(P([2, 3], Type.f64), P([1], Type.f64)), "element type f64; it must be f32, f16"),
    (lambda: opset.fake_convert(P([2, 3]), P([1], Type.f16)), r"scale \(input 1\) .* f16; it must match"),
    (lambda: opset.fake_convert(P([2, 3]), P([2, 1]), P([1])), r"scale shape \[2,1\] and shift shape \[1\] must be"),
    (lambda: opset.fake_convert(P([2, 3]), P([1, 2, 3])), r"scale shape \[1,2,3\] must broadcast to the data shape"),
    (lambda: opset.fake_convert(P([2, 3]), P([1]), None, "f8e3m4"), "f8e3m4"),
])
def test_fake_convert_errors(make: Any, message: str) -> None:
    with pytest.raises(ValidationError, match="FakeConvert-13 node.*" + message):
        make()


def test_fake_convert_shapes() -> None:
    node = opset.fake_convert(P([-1, 4, "1..3"], Type.f16), P([1, 4, 1], Type.f16), destination_type="F8E5M2")
    assert str(node.output(0).get_partial_shape()) == "[?,4,1..3]" and node.attrs["destination_type"] == "f8e5m2"


def test_fake_convert_cases_evaluate() -> None:
    @SETTINGS
    @given(case_strategy("FakeConvert", 13))
    def check(case: OpCase) -> None:
        params = case.model.get_parameters()
        (out,) = evaluate(case.model, [case.inputs[p.friendly_name] for p in params])
        assert np.isfinite(out.astype(np.float32)).all()

    check()


# -- SparseFillEmptyRows-16 ---------------------------------------------------------------------------------------

def test_sparse_fill_empty_rows_fills_and_sorts() -> None:
    # TensorFlow's documented example: rows 1 and 4 of a [5, 6] tensor are empty
    values = np.array([4.0, 1.0, 2.0, 3.0], np.float32)
    indices = np.array([[3, 1], [0, 1], [0, 3], [2, 0]], np.int64)
    node = opset.sparse_fill_empty_rows(P([4]), P([2], Type.i64), P([4, 2], Type.i64), P([]))
    assert [str(node.output(i).get_partial_shape()) for i in range(3)] == ["[?,2]", "[?]", "[?]"]
    out_idx, out_val, empty = evaluate_node(node, values, np.array([5, 6], np.int64), indices,
                                            np.array(-1, np.float32))
    np.testing.assert_array_equal(out_idx, [[0, 1], [0, 3], [1, 0], [2, 0], [3, 1], [4, 0]])
    np.testing.assert_array_equal(out_val, [1, 2, -1, 3, 4, -1])
    np.testing.assert_array_equal(empty, [False, True, False, False, True])
    assert (out_idx.dtype, out_val.dtype, empty.dtype) == (np.int64, np.float32, np.bool_)


def test_sparse_fill_empty_rows_shapes_from_constants_and_empty_input() -> None:
    node = opset.sparse_fill_empty_rows(P([2], Type.i32), np.array([4, 3], np.int32),
                                        np.array([[1, 2], [1, 0]], np.int32), P([], Type.i32))
    assert [str(node.output(i).get_partial_shape()) for i in range(3)] == ["[5,2]", "[5]", "[4]"]
    assert node.output(0).get_element_type() == Type.i32
    out_idx, out_val, empty = evaluate_node(node, np.array([5, 6], np.int32), np.array(0, np.int32))
    np.testing.assert_array_equal(out_idx, [[0, 0], [1, 0], [1, 2], [2, 0], [3, 0]])
    np.testing.assert_array_equal(out_val, [0, 6, 5, 0, 0])
    node = opset.sparse_fill_empty_rows(P([0]), P([2], Type.i32), P([0, 2], Type.i32), P([]))
    out_idx, out_val, empty = evaluate_node(node, np.zeros(0, np.float32), np.array([2, 2], np.int32),
                                            np.zeros((0, 2), np.int32), np.array(7, np.float32))
    np.testing.assert_array_equal(out_idx, [[0, 0], [1, 0]])
    np.testing.assert_array_equal(out_val, [7, 7])
    assert empty.all()


def test_sparse_fill_empty_rows_errors() -> None:
    from ovconform.errors import InferError
    cases: list[tuple[Any, str]] = [
        (lambda: opset.sparse_fill_empty_rows(P([2]), P([2], Type.f32), P([2, 2], Type.i32), P([])),
         r"dense_shape \(input 1\) has element type f32; it must be i32 or i64"),
        (lambda: opset.sparse_fill_empty_rows(P([2]), P([2], Type.i32), P([2, 2], Type.i64), P([])),
         r"indices \(input 2\) have element type i64; they must match dense_shape \(i32\)"),
        (lambda: opset.sparse_fill_empty_rows(P([2]), P([2], Type.i32), P([2, 2], Type.i32), P([], Type.f16)),
         r"default_value \(input 3\) has element type f16; it must match the values"),
        (lambda: opset.sparse_fill_empty_rows(P([3]), P([2], Type.i32), P([2, 2], Type.i32), P([])),
         r"values \[3\] and indices \[2,2\] must have the same number of entries"),
        (lambda: opset.sparse_fill_empty_rows(P([2]), P([3], Type.i32), P([2, 2], Type.i32), P([])),
         r"dense_shape \(input 1\) has shape \[3\]; it must be \[2\]"),
        (lambda: opset.sparse_fill_empty_rows(P([2]), P([2], Type.i32), P([2, 3], Type.i32), P([])),
         r"indices \(input 2\) have shape \[2,3\]; they must be \[M, 2\]"),
        (lambda: opset.sparse_fill_empty_rows(P([2]), P([2], Type.i32), P([2, 2], Type.i32), P([1])),
         r"default_value \(input 3\) has shape \[1\]; it must have rank 0"),
    ]
    for make, message in cases:
        with pytest.raises(ValidationError, match="SparseFillEmptyRows-16 node.*" + message):
            make()
    node = opset.sparse_fill_empty_rows(P([1]), P([2], Type.i32), P([1, 2], Type.i32), P([]))
    with pytest.raises(InferError, match=r"SparseFillEmptyRows-16 node .*index \[2, 0\] of entry 0 is outside the "
                                         r"dense shape \[2, 3\]"):
        evaluate_node(node, np.ones(1, np.float32), np.array([2, 3], np.int32), np.array([[2, 0]], np.int32),
                      np.array(0, np.float32))


def test_sparse_fill_empty_rows_cases_evaluate() -> None:
    assert ("SparseFillEmptyRows", 16) in all_case_keys()

    @SETTINGS
    @given(case_strategy("SparseFillEmptyRows", 16))
    def check(case: OpCase) -> None:
        params = case.model.get_parameters()
        out_idx, _, empty = evaluate(case.model, [case.inputs[p.friendly_name] for p in params])
        assert len(np.unique(out_idx[:, 0])) == empty.size  # every row has an entry afterwards

    check()
