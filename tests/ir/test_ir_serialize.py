"""IR v11: ``ovconform.serialize`` and ``ovconform.read_model`` — spelling, lossless round trips, files."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies_graphs import (
    OV_SAMPLE_BIN,
    OV_SAMPLE_XML,
    assert_models_equal,
    graph_models,
    random_array,
    state_models,
)

from ovconform import Model, PartialShape, Type, read_model, serialize
from ovconform import opset as ops
from ovconform.errors import ValidationError
from ovconform.ir import ALL_TYPES, REQUIRED, Dimension, all_opdefs
from ovconform.ir._ir_common import format_attr, format_dim, format_names, parse_attr, parse_dim, parse_names
from ovconform.ir._read import _aligned
from ovconform.opcases import all_case_keys, case_strategy
from reference_plugin.evaluate import evaluate

_QUIET = list(HealthCheck)
RANDOM_GRAPHS = settings(max_examples=300, deadline=None, derandomize=True, database=None, suppress_health_check=_QUIET)
PER_OP = settings(max_examples=10, deadline=None, derandomize=True, database=None, suppress_health_check=_QUIET)
CASE_KEYS = all_case_keys()


def round_trip(model: Model) -> Model:
    """serialize → read_model → compare → serialize again, byte for byte."""
    xml, weights = serialize(model)
    back = read_model(xml, weights)
    assert_models_equal(model, back)
    assert serialize(back) == (xml, weights), "serialize(read_model(serialize(m))) differs from serialize(m)"
    return back


def _text(model: Model) -> str:
    xml, _ = serialize(model)
    return xml.decode()


# -- lossless round trips ---------------------------------------------------------------------------

@RANDOM_GRAPHS
@given(graph_models())
def test_random_graphs_round_trip_losslessly(model: Model) -> None:
    round_trip(model)


@pytest.mark.parametrize("key", CASE_KEYS, ids=[f"{t}-{v}" for t, v in CASE_KEYS])
@PER_OP
@given(data=st.data())
def test_every_op_case_round_trips_losslessly(key: tuple[str, int], data: st.DataObject) -> None:
    round_trip(data.draw(case_strategy(*key)).model)


@PER_OP
@given(state_models())
def test_variables_and_sinks_round_trip(model: Model) -> None:
    back = round_trip(model)
    assert [s.type_name for s in back.get_sinks()] == ["Assign"]
    assert back.get_variables() == model.get_variables()


@pytest.mark.parametrize("et", ALL_TYPES, ids=str)
def test_constant_of_every_element_type_is_stored_bit_exact(et: Type) -> None:
    data = random_array(7, (2, 3), et)
    model = Model([ops.constant(data, et)], [], name="c")
    xml, weights = serialize(model)
    assert weights == data.astype(data.dtype.newbyteorder("<")).tobytes()
    assert f'<data element_type="{et.name}" shape="2, 3" offset="0" size="{6 * et.size}" />' in xml.decode()
    assert f'precision="{et.ir_precision}"' in xml.decode()
    round_trip(model)


@pytest.mark.parametrize("et", ALL_TYPES, ids=str)
def test_parameter_of_every_element_type(et: Type) -> None:
    text = _text(Model([ops.parameter([2], et, name="p")], name="m"))
    assert f'<data shape="2" element_type="{et.name}" />' in text
    round_trip(Model([ops.parameter([2], et, name="p")], name="m"))


def test_every_attribute_default_reads_back_from_its_spelling() -> None:
    """Every attribute kind in the OpDef table survives format → parse (defaults as samples)."""
    checked = 0
    for opdef in all_opdefs():
        for spec in opdef.attrs:
            if spec.default is REQUIRED or spec.default is None:
                continue
            text = format_attr(spec.kind, spec.default, spec.name)
            assert parse_attr(spec.kind, text, spec.name) == spec.default, (opdef.type_name, spec.name, text)
            checked += 1
    assert checked > 0


# -- spelling, as openvino.save_model writes it ----------------------------------------------------

def _sample_model() -> Model:
    x = ops.parameter("?,1..8,3", Type.f32, name="x")
    x.output(0).set_names({"x", "x,alias", "y z"})
    add = ops.add(x, ops.constant(np.arange(3, dtype=np.float32), name="c"), name="add1")
    add.output(0).set_names({"sum"})
    soft = ops.softmax(ops.relu(add, name="r"), 2, name="sm")
    return Model([soft, ops.clamp(add, 0.1, 2.0, name="cl")], [x], name="m")


def test_document_layout_matches_openvino() -> None:
    text = _text(_sample_model())
    assert text.startswith('<?xml version="1.0"?>\n<net name="m" version="11">\n\t<layers>\n')
    assert '\t\t<layer id="0" name="x" type="Parameter" version="opset1">\n\t\t\t<data shape="?,1..8,3" ' \
           'element_type="f32" />\n\t\t\t<output>\n\t\t\t\t<port id="0" precision="FP32" names="x,x\\,alias,y z">' \
           '\n\t\t\t\t\t<dim>-1</dim>\n\t\t\t\t\t<dim>-1</dim>\n\t\t\t\t\t<dim>3</dim>\n' in text
    assert '<layer id="1" name="c" type="Const" version="opset1">\n\t\t\t<data element_type="f32" shape="3" ' \
           'offset="0" size="12" />' in text
    assert 'name="r" type="ReLU" version="opset1">\n\t\t\t<input>' in text  # no <data> when there are no attributes
    assert 'type="SoftMax" version="opset8">\n\t\t\t<data axis="2" />' in text
    assert '<data min="0.10000000000000001" max="2" />' in text
    assert '<port id="2" precision="FP32" names="sum">' in text  # output ports number on after the inputs
    types = re.findall(r'<layer id="\d+" name="[^"]*" type="(\w+)"', text)
    assert types[0] == "Parameter" and types[-2:] == ["Result", "Result"]
    result = text[text.rindex('type="Result"'):]
    assert "<output>" not in result[:result.index("</layer>")]
    edges = [tuple(map(int, e)) for e in re.findall(r'from-layer="(\d+)" from-port="(\d+)" to-layer="(\d+)" '
                                                    r'to-port="(\d+)"', text)]
    assert edges == sorted(edges) and len(edges) == 7
    assert text.endswith("\t<rt_info />\n</net>\n")


@pytest.mark.parametrize(("dim", "text"), [
    (Dimension(3), "3"), (Dimension(), "?"), (Dimension(1, 8), "1..8"), (Dimension(0, 8), "..8"),
    (Dimension(2, -1), "2.."), (Dimension(0), "0")])
def test_dimension_spelling(dim: Dimension, text: str) -> None:
    assert format_dim(dim) == text
    assert parse_dim(text, "dim") == dim


@pytest.mark.parametrize(("shape", "text"), [
    (PartialShape("?,1..8,3"), "?,1..8,3"), (PartialShape.dynamic(), "..."), (PartialShape([]), ""),
    (PartialShape([Dimension(0, 4), Dimension(5, -1)]), "..4,5..")])
def test_parameter_shape_spelling_and_port_dims(shape: PartialShape, text: str) -> None:
    model = Model([ops.parameter(shape, Type.i32, name="p")], name="m")
    xml = _text(model)
    assert f'<data shape="{text}" element_type="i32" />' in xml
    port_dims = ["-1" if d.is_dynamic else str(d.get_length()) for d in shape] if shape.has_rank() else []
    assert re.findall(r"<dim>(-?\d+)</dim>", xml) == port_dims * 2  # the Parameter's and the Result's port
    assert read_model(xml.encode()).get_parameters()[0].get_output_partial_shape(0) == shape


@pytest.mark.parametrize(("names", "text"), [
    ({"a"}, "a"), ({"b", "a"}, "a,b"), ({"x,y", "z"}, "x\\,y,z"), ({"a\\b", "c"}, "a\\b,c"),
    ({"mid\\,dle"}, "mid\\\\,dle"), ({" sp ", "\t"}, "\t, sp ")])
def test_tensor_names_spelling(names: set[str], text: str) -> None:
    assert format_names(names, "port") == text
    assert parse_names(text) == names


def test_tensor_name_ending_with_backslash_is_refused() -> None:
    p = ops.parameter([1], name="p")
    p.output(0).set_names({"bad\\"})
    with pytest.raises(ValidationError, match=re.escape("Parameter-1 node 'p': output 0: tensor name 'bad\\\\' "
                                                      "ends with a backslash")):
        serialize(Model([p], name="m"))


@pytest.mark.parametrize(("where", "value"), [("friendly", "a\x01b"), ("rt_info", "bell\x07"),
                                              ("rt_info_type", object())])
def test_unwritable_text_is_refused_naming_the_node(where: str, value: object) -> None:
    relu = ops.relu(ops.parameter([1], name="p"), name="r")
    if where == "friendly":
        relu.friendly_name = value  # type: ignore[assignment]
    else:
        relu.rt_info["k"] = value
    with pytest.raises(ValidationError, match=r"Relu-1 node"):
        serialize(Model([relu], name="m"))


def test_serialize_needs_a_model() -> None:
    with pytest.raises(TypeError, match="needs an ovconform Model, not int"):
        serialize(3)  # type: ignore[arg-type]


def test_identical_constants_share_their_bytes_deterministically() -> None:
    p = ops.parameter([4], name="p")
    a, b = ops.constant(np.ones(4, np.float32)), ops.constant(np.ones(4, np.float32))
    model = Model([ops.add(p, a), ops.multiply(p, b), ops.constant(np.zeros(0, np.float32))], [p], name="m")
    xml, weights = serialize(model)
    assert len(weights) == 17  # the empty Constant: one zero byte, as openvino.save_model writes it
    assert re.findall(r'offset="(\d+)" size="(\d+)"', xml.decode()) == [("0", "16"), ("0", "16"), ("16", "1")]
    assert serialize(model) == (xml, weights)


def _constants(model: Model) -> dict[str, np.ndarray]:
    return {str(n.data.dtype) + str(n.data.shape): n.data for n in model.get_ordered_ops() if n.type_name == "Constant"}


def _byte_then_float() -> Model:
    """Three u8 bytes, then an f32 and an i64 constant: openvino.save_model (and serialize) packs
    them one after another, so the f32 bytes start at offset 3 and the i64 ones at 19."""
    p = ops.parameter([4], name="p")
    return Model([ops.add(ops.convert(ops.constant(np.array([7, 8, 9], np.uint8)), Type.f32),
                          ops.reduce_sum(ops.multiply(p, ops.constant(np.arange(4, dtype=np.float32) - 1.25)),
                                         ops.constant(np.array([0], np.int64)), True))], [p], name="unaligned")


def test_unaligned_constants_read_as_aligned_values_of_their_bytes() -> None:
    # numpy's BLAS products take a slow path (~10x) on arrays at unaligned addresses
    model = _byte_then_float()
    xml, weights = serialize(model)
    spans = re.findall(r'offset="(\d+)" size="(\d+)"', xml.decode())
    assert spans == [("0", "3"), ("3", "16"), ("19", "8")]  # as openvino.save_model packs them
    back = read_model(xml, weights)
    values = _constants(back)
    assert all(a.flags.aligned and not a.flags.writeable for a in values.values())
    for key, value in _constants(model).items():
        assert values[key].tobytes() == value.tobytes()
    assert serialize(back) == (xml, weights)  # the same document and bytes written back
    np.testing.assert_array_equal(evaluate(back, {"p": np.ones(4, np.float32)})[0], [8.0, 9.0, 10.0])


def test_overlapping_unaligned_constants_are_not_copied_apart() -> None:
    # 57 f32[200] Consts at offsets 3, 7, ... of 1,027 bytes: copied apart they would take 45 KB
    # (a crafted document could ask for any multiple of its weights); they stay views instead
    root = ET.Element("net")
    layers = ET.SubElement(root, "layers")
    spans = [(3 + 4 * i, 800) for i in range(57)]
    for offset, size in spans:
        layer = ET.SubElement(layers, "layer", type="Const")
        ET.SubElement(layer, "data", element_type="f32", shape="200", offset=str(offset), size=str(size))
    blob = bytes(1027)
    assert _aligned(root, blob) is blob
    assert [int(d.get("offset", "")) for d in root.iter("data")] == [o for o, _ in spans]
    # one span fewer than the weights: relocated, within the weights plus padding
    root = ET.Element("net")
    for offset, et, size in ((0, "u8", 3), (3, "f32", 1024)):
        layer = ET.SubElement(root, "layer", type="Const")
        ET.SubElement(layer, "data", element_type=et, shape=str(size // (4 if et == "f32" else 1)),
                      offset=str(offset), size=str(size))
    moved = _aligned(root, bytes(1027))
    assert moved is not None and len(moved) == 8 + 1024
    assert [d.get("offset") for d in root.iter("data")] == ["0", "8"]


def test_aligned_constants_are_views_of_the_weights_given() -> None:
    p = ops.parameter([4], name="p")
    model = Model([ops.multiply(ops.add(p, ops.constant(np.arange(4, dtype=np.float32))),
                                ops.constant(np.full(4, 2.0, np.float32)))], [p], name="aligned")
    xml, weights = serialize(model)
    held = np.frombuffer(weights, np.uint8)
    assert all(np.shares_memory(a, held) for a in _constants(read_model(xml, weights)).values())


def test_rt_info_spelling_node_user_data_and_model_sections() -> None:
    relu = ops.relu(ops.parameter([1], name="p"), name="r")
    relu.rt_info.update({"k": "v", "nest": {"a": "1", "empty": {}}})
    model = Model([relu], name="m")
    model.rt_info.update({"plain": "x", "with space": "y", "xmlish": "z", "sect": {"in": "1"}, "n": 3})
    text = _text(model)
    assert ('<rt_info>\n\t\t\t\t<user_data name="k" value="v" version="" />\n\t\t\t\t<user_data name="nest" '
            'version="">\n\t\t\t\t\t<user_data name="a" value="1" version="" />\n\t\t\t\t\t<user_data name="empty" '
            'version="" />\n\t\t\t\t</user_data>\n\t\t\t</rt_info>\n\t\t\t<input>') in text
    assert ('\t<rt_info>\n\t\t<plain value="x" />\n\t\t<info name="with space" value="y" />\n\t\t<info '
            'name="xmlish" value="z" />\n\t\t<sect>\n\t\t\t<in value="1" />\n\t\t</sect>\n'
            '\t\t<n value="3" />\n') in text
    back = read_model(text)
    assert back.rt_info == {"plain": "x", "with space": "y", "xmlish": "z", "sect": {"in": "1"}, "n": "3"}
    assert back.get_results()[0].input_value(0).node.rt_info == relu.rt_info


def test_multi_output_node_ports_and_edges() -> None:
    p = ops.parameter([4, 2], name="p")
    split = ops.split(p, 0, 2, name="s")
    split.output(1).set_names({"second"})
    model = Model([split.output(1), split.output(0)], [p], name="m")
    text = _text(model)
    assert '<port id="2" precision="FP32">' in text and '<port id="3" precision="FP32" names="second">' in text
    back = round_trip(model)
    assert [r.input_value(0).index for r in back.get_results()] == [1, 0]


# -- files and sources -----------------------------------------------------------------------------

def test_serialize_to_files_and_read_them_back(tmp_path: Path) -> None:
    model = _sample_model()
    xml, weights = serialize(model)
    assert serialize(model, tmp_path / "m.xml") is None
    assert (tmp_path / "m.xml").read_bytes() == xml and (tmp_path / "m.bin").read_bytes() == weights
    serialize(model, str(tmp_path / "a.xml"), tmp_path / "w.data")
    assert (tmp_path / "w.data").read_bytes() == weights
    for source in (tmp_path / "m.xml", str(tmp_path / "m.xml")):
        assert_models_equal(model, read_model(source))
    sources = [tmp_path / "w.data", str(tmp_path / "w.data"), memoryview(weights), bytearray(weights),
               np.frombuffer(weights, np.uint8)]
    for w in sources:
        assert_models_equal(model, read_model(tmp_path / "a.xml", w))
    assert_models_equal(model, read_model(xml.decode(), weights))


def test_model_without_constants_needs_no_weights(tmp_path: Path) -> None:
    model = Model([ops.relu(ops.parameter([2], name="p"))], name="m")
    xml, weights = serialize(model)
    assert weights == b""
    (tmp_path / "m.xml").write_bytes(xml)
    assert_models_equal(model, read_model(tmp_path / "m.xml"))
    assert_models_equal(model, read_model(xml))


# -- what real OpenVINO writes ------------------------------------------------------------------------

def test_reads_a_document_openvino_wrote() -> None:
    m = read_model(OV_SAMPLE_XML, OV_SAMPLE_BIN)
    assert m.get_friendly_name() == "ov_sample"
    assert [p.friendly_name for p in m.get_parameters()] == ["x", "flags", "s"]
    assert m.inputs[0].get_names() == {"x", "x,alias"}
    assert m.inputs[0].get_partial_shape() == PartialShape("?,1..8")
    assert [o.get_element_type() for o in m.outputs] == [Type.f32, Type.boolean, Type.f32, Type.f32, Type.f32]
    assert [o.get_any_name() for o in m.outputs] == [f"Result_{i}" for i in range(22, 27)]
    ops_by_name = {n.friendly_name: n for n in m.get_ordered_ops()}
    assert (ops_by_name["LogicalXor_10"].type_name, ops_by_name["LogicalXor_10"].version) == ("LogicalXor", 1)
    assert ops_by_name["Softmax_6"].version == 8 and ops_by_name["Softmax_6"].attrs == {"axis": -1}
    assert ops_by_name["Relu_5"].rt_info == {"note": "relu here"}  # OpenVINO's fused_names is dropped
    assert [s.friendly_name for s in m.get_sinks()] == ["Assign_17"]
    assert ops_by_name["Constant_3"].data.tolist() == [1.5]
    assert ops_by_name["Constant_20"].data.tolist() == 0  # shares its bytes with Constant_12
    assert m.rt_info == {"OpenVINO Runtime": "2026.4.1-22982-e213a147257-releases/2026/4", "a": {"b": "value"},
                         "with space": "v"}
    round_trip(m)


def test_rt_info_nesting_limit_is_the_same_for_writer_and_reader() -> None:
    def nested(levels: int) -> dict[str, object]:
        value: dict[str, object] = {}
        for _ in range(levels - 1):
            value = {"k": value}
        return value

    model = Model([ops.parameter([1], name="p")], name="m")
    model.rt_info["top"] = nested(32)  # entries on levels 1..32, the last an empty dict
    round_trip(model)
    model.rt_info["top"] = nested(33)
    with pytest.raises(ValidationError, match="nested deeper than 32 levels"):
        serialize(model)


def test_sinks_are_the_assigns_without_consumers() -> None:
    p = ops.parameter([2], name="p")
    rv = ops.read_value(p, "v", name="rv")
    tail = ops.assign(ops.relu(rv), "v", name="tail")
    used = ops.assign(ops.negative(rv), "w", name="used")
    model = Model([rv, used], [tail, used], [p], "m")
    xml, weights = serialize(model)
    back = read_model(xml, weights)
    assert [s.friendly_name for s in back.get_sinks()] == ["tail"]  # "used" feeds a Result: an ordinary op
    assert serialize(back) == (xml, weights)
    assert_models_equal(Model(model.get_results(), [tail], [p], "m"), back)
