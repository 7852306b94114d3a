"""Tests of Xor-1 (OpenVINO's op-spec folder "logical"; ``ov::op::v0::Xor``, opset1 only, no builder
in OpenVINO's Python API): builder inference and errors, the REFERENCE kernel against the truth
table with numpy broadcasting, the case strategy, and IR that OpenVINO writes
(``type="Xor" version="opset1"``) read by ``ovconform.read_model`` and run on REFERENCE and
OpenVINO CPU. LogicalAnd/Or/Xor/Not are tested in ``tests/reference/test_kernels_elementwise.py``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from _op_helpers import out, run
from _opcase_checks import CASE_SETTINGS, check_case_runs, check_ir_spelling
from hypothesis import given
from hypothesis import strategies as st

from ovconform import opset as ops
from ovconform import read_model
from ovconform.errors import ValidationError
from ovconform.ir import PartialShape, Type
from ovconform.ir.op_families import family_of
from ovconform.ir.opset_table import OPSET_VERSIONS
from ovconform.opcases import case_strategy
from reference_plugin.evaluate import evaluate

P = ops.parameter


def test_ir_spelling_table_and_family() -> None:
    check_ir_spelling("Xor", 1, ["auto_broadcast"])
    assert OPSET_VERSIONS["Xor"] == (1,) and family_of("Xor") == "logical"


@CASE_SETTINGS
@given(data=st.data())
def test_cases_are_valid_and_run(data: st.DataObject) -> None:
    case = data.draw(case_strategy("Xor", 1))
    node, (got,) = check_case_runs(case, "Xor", 1)
    x = case.inputs["x"]
    y = case.inputs["y"] if "y" in case.inputs else node.input_value(1).node.data
    want = np.array([a != b for a, b in zip(*(v.reshape(-1).tolist() for v in np.broadcast_arrays(x, y)),
                                            strict=True)], dtype=bool).reshape(got.shape)
    np.testing.assert_array_equal(got, want)


def test_truth_table_and_broadcast() -> None:
    a = np.array([[False, False, True, True]])
    b = np.array([[False], [True]])
    got = run(ops.xor, a, b)
    assert got.dtype == np.bool_ and got.tolist() == [[False, False, True, True], [True, True, False, False]]
    same = np.array([True, False, True])
    assert run(lambda x, y: ops.xor(x, y, "none"), same, ~same).tolist() == [True, True, True]


def test_builder_inference_and_errors() -> None:
    assert out(ops.xor(P(PartialShape("?,3"), Type.boolean), P([1], Type.boolean))) == "[?,3]"
    with pytest.raises(ValidationError, match=r"Xor-1 node.*input 0 has element type f32; logical ops need boolean"):
        ops.xor(P([2], Type.f32), P([2], Type.boolean))
    with pytest.raises(ValidationError, match=r"auto_broadcast.*'bad' is not allowed"):
        ops.xor(P([2], Type.boolean), P([2], Type.boolean), "bad")


def test_ir_written_by_openvino_reads_and_runs_as_on_openvino_cpu(tmp_path: Path) -> None:
    ov = pytest.importorskip("openvino")
    import openvino.opset1 as ov1
    from openvino._pyopenvino import NodeFactory

    a, b = ov1.parameter([2, 3], np.bool_, name="a"), ov1.parameter([3], np.bool_, name="b")
    node = NodeFactory("opset1").create("Xor", [a.output(0), b.output(0)], {"auto_broadcast": "numpy"})
    xml = tmp_path / "xor.xml"
    ov.save_model(ov.Model([node.output(0)], [a, b]), xml)
    assert 'type="Xor" version="opset1"' in xml.read_text()
    model = read_model(xml)
    (xor,) = [n for n in model.get_ordered_ops() if n.type_name == "Xor"]
    assert xor.version == 1 and xor.attrs == {"auto_broadcast": "numpy"}
    inputs = [np.array([[True, False, True], [False, False, True]]), np.array([True, True, False])]
    (ours,) = evaluate(model, inputs)
    theirs = ov.Core().compile_model(str(xml), "CPU")(inputs)[0]
    want = [[False, True, True], [True, True, True]]
    assert ours.tolist() == want and theirs.tolist() == want
