"""IR v11 of the control-flow ops (issue #22 item 2): If-8, Loop-5 and TensorIterator-1 as
``openvino.save_model`` writes them (``<then_body>``/``<else_body>`` and their port maps, ``<body>``,
``<port_map>`` with sliced inputs, concatenated outputs and the special ports, ``<back_edges>``).

Each model is built with openvino's own Python API and saved by OpenVINO; ``ovconform.read_model``
reads it, :func:`ovconform.serialize` writes it back byte-identical (XML and weights),
REFERENCE computes what OpenVINO CPU computes, and OpenVINO reads ovconform's IR back and computes the
same again. Bad port maps are refused with a ReadModelError naming the layer.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ovconform import read_model, serialize
from ovconform.errors import ReadModelError
from reference_plugin.evaluate import evaluate

ov = pytest.importorskip("openvino", reason="IR written by OpenVINO needs the openvino package")
pytestmark = pytest.mark.openvino

import openvino.opset8 as o8  # noqa: E402

CPU_CONFIG = {"INFERENCE_PRECISION_HINT": "f32"}
F32 = ov.Type.f32


def _if_model() -> tuple[Any, list[list[np.ndarray]]]:
    cond = o8.parameter([], ov.Type.boolean, name="cond")
    x = o8.parameter([2, 3], F32, name="x")
    y = o8.parameter([2, 3], F32, name="y")
    tx, ty = o8.parameter([2, 3], F32), o8.parameter([2, 3], F32)
    then_body = ov.Model([o8.result(o8.add(tx, ty)), o8.result(o8.relu(tx))], [tx, ty], "then")
    ex = o8.parameter([2, 3], F32)
    scaled = o8.multiply(ex, o8.constant(np.float32(2.5)))
    else_body = ov.Model([o8.result(scaled), o8.result(o8.subtract(scaled, o8.constant(np.float32(1))))], [ex],
                         "else")
    node = o8.if_op(cond)
    node.set_then_body(then_body)
    node.set_else_body(else_body)
    node.set_input(x.output(0), tx, ex)
    node.set_input(y.output(0), ty, None)
    out0 = node.set_output(then_body.get_results()[0], else_body.get_results()[0])
    out1 = node.set_output(then_body.get_results()[1], else_body.get_results()[1])
    rng = np.random.default_rng(1)
    xs, ys = rng.normal(size=(2, 3)).astype(np.float32), rng.normal(size=(2, 3)).astype(np.float32)
    return ov.Model([out0, out1], [cond, x, y], "if_model"), [[np.array(True), xs, ys], [np.array(False), xs, ys]]


def _loop_model() -> tuple[Any, list[list[np.ndarray]]]:
    """A counted Loop: the current iteration, a merged accumulator, a concatenated output."""
    a = o8.parameter([2], F32, name="a")
    node = o8.loop(o8.constant(np.int64(4)), o8.constant(True))
    it, acc = o8.parameter([1], ov.Type.i64), o8.parameter([2], F32)
    step = o8.add(o8.multiply(acc, o8.constant(np.float32(1.5))), o8.convert(it, "f32"))
    body = ov.Model([o8.result(step), o8.result(o8.constant(True)), o8.result(o8.convert(it, "f32"))], [it, acc],
                    "body")
    node.set_function(body)
    node.set_special_body_ports([0, 1])
    node.set_merged_input(acc, a.output(0), step.output(0))
    last = node.get_iter_value(step.output(0), -1)
    steps = node.get_concatenated_slices(body.get_results()[2].input_value(0), 0, 1, 1, -1, 0)
    return ov.Model([last, steps], [a], "loop_model"), [[np.array([1.0, -2.0], np.float32)]]


def _loop_condition_model() -> tuple[Any, list[list[np.ndarray]]]:
    """A Loop with a run-time trip count (-1: no limit) that the body's condition stops; a sliced input."""
    tc = o8.parameter([], ov.Type.i64, name="trip_count")
    x = o8.parameter([5, 3], F32, name="x")
    h = o8.parameter([1, 3], F32, name="h")
    node = o8.loop(tc, o8.constant(True))
    it, xi, acc = o8.parameter([], ov.Type.i64), o8.parameter([1, 3], F32), o8.parameter([1, 3], F32)
    nacc = o8.add(acc, xi)
    cond = o8.less(it, o8.constant(np.int64(2)))
    body = ov.Model([o8.result(nacc), o8.result(cond)], [it, xi, acc], "body")
    node.set_function(body)
    node.set_special_body_ports([0, 1])
    node.set_sliced_input(xi, x.output(0), 0, 1, 1, -1, 0)
    node.set_merged_input(acc, h.output(0), nacc.output(0))
    last = node.get_iter_value(nacc.output(0), -1)
    rows = node.get_concatenated_slices(nacc.output(0), 0, 1, 1, -1, 0)
    rng = np.random.default_rng(2)
    xs, hs = rng.normal(size=(5, 3)).astype(np.float32), rng.normal(size=(1, 3)).astype(np.float32)
    return (ov.Model([last, rows], [tc, x, h], "loop_condition"),
            [[np.array(-1, np.int64), xs, hs], [np.array(2, np.int64), xs, hs], [np.array(1, np.int64), xs, hs]])


def _tensor_iterator_model() -> tuple[Any, list[list[np.ndarray]]]:
    """A TensorIterator walking its input backwards (stride -1), a back edge, a concatenated output."""
    x = o8.parameter([4, 3], F32, name="x")
    h = o8.parameter([1, 3], F32, name="h")
    w = o8.parameter([3, 3], F32, name="w")
    xi, hi, wi = o8.parameter([1, 3], F32), o8.parameter([1, 3], F32), o8.parameter([3, 3], F32)
    new_h = o8.tanh(o8.add(o8.matmul(hi, wi, False, False), xi))
    body = ov.Model([o8.result(new_h), o8.result(o8.multiply(new_h, new_h))], [xi, hi, wi], "body")
    node = o8.tensor_iterator()
    node.set_body(body)
    node.set_sliced_input(xi, x.output(0), -1, -1, 1, 0, 0)
    node.set_merged_input(hi, h.output(0), new_h.output(0))
    node.set_invariant_input(wi, w.output(0))
    last = node.get_iter_value(new_h.output(0), -1)
    squares = node.get_concatenated_slices(body.get_results()[1].input_value(0), 0, 1, 1, -1, 0)
    rng = np.random.default_rng(3)
    values = [rng.normal(size=s).astype(np.float32) for s in ((4, 3), (1, 3), (3, 3))]
    return ov.Model([last, squares], [x, h, w], "ti_model"), [values]


def _nested_model() -> tuple[Any, list[list[np.ndarray]]]:
    """An If inside a Loop body: the branch depends on the iteration number."""
    a = o8.parameter([3], F32, name="a")
    node = o8.loop(o8.constant(np.int64(3)), o8.constant(True))
    it, acc = o8.parameter([], ov.Type.i64), o8.parameter([3], F32)
    inner = o8.if_op(o8.equal(it, o8.constant(np.int64(1))).output(0))
    tp, ep = o8.parameter([3], F32), o8.parameter([3], F32)
    then_body = ov.Model([o8.result(o8.negative(tp))], [tp], "then")
    else_body = ov.Model([o8.result(o8.add(ep, o8.constant(np.float32(10))))], [ep], "else")
    inner.set_then_body(then_body)
    inner.set_else_body(else_body)
    inner.set_input(acc.output(0), tp, ep)
    branch = inner.set_output(then_body.get_results()[0], else_body.get_results()[0])
    body = ov.Model([o8.result(branch), o8.result(o8.constant(True))], [it, acc], "body")
    node.set_function(body)
    node.set_special_body_ports([0, 1])
    node.set_merged_input(acc, a.output(0), branch)
    return ov.Model([node.get_iter_value(branch, -1)], [a], "nested"), [[np.array([1, 2, 3], np.float32)]]


MODELS: dict[str, Callable[[], tuple[Any, list[list[np.ndarray]]]]] = {
    "If-8": _if_model, "Loop-5": _loop_model, "Loop-5-condition": _loop_condition_model,
    "TensorIterator-1": _tensor_iterator_model, "If-8-in-Loop-5": _nested_model,
}



def _saved(tmp_path: Path, build: Callable[[], tuple[Any, Any]]) -> tuple[Path, list[list[np.ndarray]]]:
    model, inputs = build()
    xml = tmp_path / "model.xml"
    ov.save_model(model, xml, compress_to_fp16=False)
    return xml, inputs


def _cpu(xml: bytes, weights: bytes, inputs: list[np.ndarray]) -> list[np.ndarray]:
    core = ov.Core()
    compiled = core.compile_model(core.read_model(xml, ov.Tensor(np.frombuffer(weights, np.uint8).copy())), "CPU",
                                  CPU_CONFIG)
    result = compiled(inputs)
    return [np.asarray(result[o]) for o in compiled.outputs]


@pytest.mark.parametrize("name", sorted(MODELS))
def test_openvino_written_control_flow_round_trips(tmp_path: Path, name: str) -> None:
    xml_path, _ = _saved(tmp_path, MODELS[name])
    theirs_xml, theirs_bin = xml_path.read_bytes(), xml_path.with_suffix(".bin").read_bytes()
    ours_xml, ours_bin = serialize(read_model(xml_path))
    assert ours_bin == theirs_bin
    assert ours_xml == theirs_xml
    again = serialize(read_model(ours_xml, ours_bin))
    assert again == (ours_xml, ours_bin)


@pytest.mark.parametrize("name", sorted(MODELS))
def test_reference_computes_what_openvino_cpu_computes(tmp_path: Path, name: str) -> None:
    xml_path, cases = _saved(tmp_path, MODELS[name])
    theirs_xml, theirs_bin = xml_path.read_bytes(), xml_path.with_suffix(".bin").read_bytes()
    model = read_model(xml_path)
    ours_xml, ours_bin = serialize(model)
    for inputs in cases:
        ours = evaluate(model, inputs)
        cpu = _cpu(theirs_xml, theirs_bin, inputs)
        back = _cpu(ours_xml, ours_bin, inputs)  # OpenVINO reads ovconform's IR
        assert len(ours) == len(cpu) == len(back)
        for a, b, c in zip(ours, cpu, back, strict=True):
            assert a.shape == b.shape == c.shape
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
            np.testing.assert_array_equal(b, c)


def test_declared_shapes_follow_openvino(tmp_path: Path) -> None:
    """Output shapes as OpenVINO infers them: a concatenated output of a counted Loop is static, of a
    Loop stopped by its body condition dynamic along the axis."""
    for name, shapes in (("Loop-5", ["[2]", "[4]"]), ("Loop-5-condition", ["[1,3]", "[?,3]"]),
                         ("TensorIterator-1", ["[1,3]", "[4,3]"]), ("If-8", ["[2,3]", "[2,3]"])):
        xml_path, _ = _saved(tmp_path, MODELS[name])
        model = read_model(xml_path)
        assert [str(o.get_partial_shape()) for o in model.outputs] == shapes, name


# -- bad port maps ----------------------------------------------------------------------------------------

def _edit(tmp_path: Path, name: str, old: bytes, new: bytes) -> tuple[bytes, bytes]:
    xml_path, _ = _saved(tmp_path, MODELS[name])
    text = xml_path.read_bytes()
    assert old in text
    return text.replace(old, new), xml_path.with_suffix(".bin").read_bytes()


@pytest.mark.parametrize(("name", "old", "new", "message"), [
    ("Loop-5", b'<input external_port_id="2" internal_layer_id="1" />',
     b'<input external_port_id="2" internal_layer_id="99" />', "internal_layer_id='99' is not a body Parameter"),
    ("Loop-5", b'<input external_port_id="2" internal_layer_id="1" />',
     b'<input external_port_id="7" internal_layer_id="1" />', "has no input port id=7"),
    ("TensorIterator-1", b"body>", b"bodies>", "has 0 <body> elements"),
    ("If-8", b"<then_port_map>", b"<then_port_map><weird />", "only <input> and <output> are allowed"),
    ("Loop-5", b'purpose="execution_condition"', b'purpose="other"', "the layer has no output port id=-1"),
])
def test_bad_port_maps_are_refused(tmp_path: Path, name: str, old: bytes, new: bytes, message: str) -> None:
    xml, weights = _edit(tmp_path, name, old, new)
    with pytest.raises(ReadModelError, match=re.escape(message)) as info:
        read_model(xml, weights)
    assert "layer id=" in str(info.value)
