"""Two interop bugs of issue #22 (in ops, not in the IR reader), each on IR that OpenVINO writes: a
model built with openvino's own opset, saved by ``openvino.save_model``, read by
``ovconform.read_model``, run on REFERENCE and compared with OpenVINO CPU (f32).

* Einsum-7 with scalar operands: the spec gives a scalar the empty subscript, so ``"->"``,
  ``",->"``, ``"i,->i"`` and the implicit ``""`` are equations (they used to be refused: "has no
  input subscripts").
* ReduceMin-1 over no elements: min's identity, +inf, for floating-point types (OpenVINO's reference
  code); the type's highest value for integers. ReduceMax gives the type's lowest value
  (``numeric_limits::lowest``, as OpenVINO's reference code and CPU do for f32 and integers).
  OpenVINO CPU gives f32's largest finite value for ReduceMin (recorded in
  ``tests/reference/openvino_deviations.py``).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ovconform import read_model, serialize
from ovconform.errors import ValidationError
from ovconform.opset._einsum_eq import parse_equation
from reference_plugin.evaluate import evaluate

ov = pytest.importorskip("openvino", reason="IR written by OpenVINO needs the openvino package")
pytestmark = pytest.mark.openvino

CPU_CONFIG = {"INFERENCE_PRECISION_HINT": "f32"}


def _save(tmp_path: Path, outputs: list[Any], params: list[Any]) -> Path:
    xml = tmp_path / "model.xml"
    ov.save_model(ov.Model(outputs, params), xml)
    return xml


def _equations(xml: bytes) -> list[str]:
    return [d.get("equation", "") for d in ET.fromstring(xml).iter("data") if "equation" in d.attrib]


def _both(xml: Path, inputs: list[np.ndarray]) -> tuple[list[np.ndarray], list[np.ndarray]]:
    ours = evaluate(read_model(xml), inputs)
    compiled = ov.Core().compile_model(str(xml), "CPU", CPU_CONFIG)
    result = compiled(inputs)
    return ours, [np.asarray(result[o]) for o in compiled.outputs]


# -- Einsum-7 with scalar operands -----------------------------------------------------------------------------

@pytest.mark.parametrize(("equation", "shapes"), [
    ("->", [()]),
    (",->", [(), ()]),
    ("i,->i", [(3,), ()]),
    (",ij->ji", [(), (2, 3)]),
    ("", [()]),                    # implicit: one scalar in, the scalar out
    ("i,", [(4,), ()]),            # implicit: output "i"
    ("...,->...", [(2, 3), ()]),
])
def test_einsum_scalar_operands_from_openvino_ir(tmp_path: Path, equation: str, shapes: list[tuple[int, ...]]) -> None:
    import openvino.opset7 as ov7

    params = [ov7.parameter(list(s), np.float32, name=f"in{i}") for i, s in enumerate(shapes)]
    xml = _save(tmp_path, [ov7.einsum([p.output(0) for p in params], equation).output(0)], params)
    assert _equations(xml.read_bytes()) == [equation]
    rng = np.random.default_rng(7)
    inputs = [rng.uniform(-2, 2, s).astype(np.float32) for s in shapes]
    (ours,), (theirs,) = _both(xml, inputs)
    want = np.einsum(parse_equation(equation).text(), *(a.astype(np.float64) for a in inputs))
    assert ours.shape == theirs.shape == np.shape(want)
    np.testing.assert_allclose(ours, want, rtol=1e-6)
    np.testing.assert_allclose(theirs, want, rtol=1e-6)
    xml_ours, _ = serialize(read_model(xml))  # and written back as it was read
    assert _equations(xml_ours) == [equation]


@pytest.mark.parametrize("equation", ["i->ii", "->i", "i,->j", "i->", "i,->ii"])
def test_einsum_still_refuses_bad_scalar_equations(equation: str) -> None:
    from ovconform import opset as ops

    shapes = [[3]] if equation.count(",") == 0 else [[3], []] + [[]] * (equation.count(",") - 1)
    params = [ops.parameter(s, "f32", f"in{i}") for i, s in enumerate(shapes)]
    if equation == "i->":  # a valid sum of a vector: the control
        assert ops.einsum(params, equation).get_output_partial_shape(0).to_shape() == ()
        return
    with pytest.raises(ValidationError, match=f"equation {equation!r}"):
        ops.einsum(params, equation)


# -- ReduceMin / ReduceMax over no elements -------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32, np.int8, np.uint8, np.int64])
@pytest.mark.parametrize("op", ["reduce_min", "reduce_max"])
def test_reduce_over_no_elements_from_openvino_ir(tmp_path: Path, op: str, dtype: Any) -> None:
    import openvino.opset1 as ov1

    x = ov1.parameter([2, 0, 3], dtype, name="x")
    node = getattr(ov1, op)(x, ov1.constant(np.array([1], np.int64)), False)
    xml = _save(tmp_path, [node.output(0)], [x])
    (ours,), (theirs,) = _both(xml, [np.zeros((2, 0, 3), dtype)])
    evaluated = ov.Tensor(np.zeros((2, 3), dtype))  # OpenVINO's reference code: the op's evaluate
    assert node.evaluate([evaluated], [ov.Tensor(np.zeros((2, 0, 3), dtype)), ov.Tensor(np.array([1], np.int64))])
    info = np.finfo(dtype) if np.dtype(dtype).kind == "f" else np.iinfo(dtype)
    if op == "reduce_min":
        want = np.inf if np.dtype(dtype).kind == "f" else info.max
    else:
        want = info.min  # lowest: -FLT_MAX, -65504, INT_MIN, ...
    assert ours.dtype == dtype and ours.shape == (2, 3)
    np.testing.assert_array_equal(ours, np.full((2, 3), want, dtype))
    if op == "reduce_min" or dtype != np.float16:  # f16 ReduceMax: OpenVINO computes in f32, -FLT_MAX -> -inf
        np.testing.assert_array_equal(evaluated.data, ours)
    if op == "reduce_min" and dtype == np.float32:  # the recorded CPU deviation: f32's largest finite value
        np.testing.assert_array_equal(theirs, np.full((2, 3), np.finfo(np.float32).max, np.float32))
    elif dtype == np.int64:  # OpenVINO CPU moves i64 as i32 (a recorded deviation)
        assert theirs.tolist() == np.full((2, 3), np.iinfo(np.int32).max if op == "reduce_min"
                                          else np.iinfo(np.int32).min).tolist()
    elif op == "reduce_max" and dtype == np.float16:
        assert np.all(theirs == -np.inf)  # see above; REFERENCE keeps f16's lowest, -65504
    else:
        np.testing.assert_array_equal(theirs, ours)
