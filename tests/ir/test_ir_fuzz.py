"""Hostile IR v11 input: ``read_model`` raises only ReadModelError, quickly, with bounded memory.

Part 1 fuzzes valid documents (ours and one OpenVINO wrote) with seeded mutations — byte flips,
truncation, attribute values replaced by junk, duplicated/removed/moved elements, random and
rewired edges, swapped layer ids, damaged weights — 3,200 cases per run, each timed. Part 2 has
one explicit test per hostile-input class, checking the message names the layer, edge or position.
"""

from __future__ import annotations

import copy
import random
import re
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from strategies_graphs import OV_SAMPLE_BIN, OV_SAMPLE_XML, graph_models, state_models

from ovconform import Model, read_model, serialize
from ovconform import opset as ops
from ovconform.errors import ReadModelError, ValidationError
from ovconform.ir import _ir_common

CASES_PER_FAMILY = 400
SECONDS_PER_CASE = 2.0
Doc = tuple[bytes, bytes]


# -- the corpus ---------------------------------------------------------------------------------------

def _drawn(strategy: object, n: int) -> list[Model]:
    """The first ``n`` examples hypothesis generates (derandomized, so the same every run)."""
    out: list[Model] = []

    @settings(max_examples=n, derandomize=True, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def grab(model: Model) -> None:
        out.append(model)

    grab()
    return out[:n]


def _base_model() -> Model:
    p = ops.parameter([2], name="p")
    add = ops.add(p, ops.constant(np.array([1, 2], np.float32), name="c"), name="add")
    return Model([ops.result(ops.relu(add, name="relu"), name="out")], [p], name="base")


def _corpus() -> list[Doc]:
    models = [_base_model(), *_drawn(graph_models(), 5), *_drawn(state_models(), 1)]
    docs = [serialize(m) for m in models]
    return [*docs, (OV_SAMPLE_XML.encode(), OV_SAMPLE_BIN)]  # type: ignore[misc]


CORPUS = _corpus()

JUNK = ["", "-1", "0", "1", "-2", "7", "99999999999999999999999", "18446744073709551615", "9223372036854775808",
        "1e308", "nan", "inf", "?", "...", "1..", "..2", "3..1", "a,b", ",", "\\,", "1, 2, 3", "true", "maybe",
        "f32", "f31", "boolean", "undefined", "dynamic", "opset0", "opset999", "opset1", "Const", "Parameter",
        "Frobnicate", "x" * 2000, "1," * 60, "-", " 1 ", "0x10", "\uff11", "\u00b2", "&amp;", "&#10;"]


def _junk(rng: random.Random, old: str) -> str:
    choice = rng.randrange(5)
    if choice == 0 and old.lstrip("-").isdigit():
        return str(int(old) + rng.choice([-2, -1, 1, 2, 10**6, 2**40]))
    if choice == 1 and old:
        return old * rng.randint(2, 3) if rng.random() < 0.5 else old[: rng.randrange(len(old))]
    return rng.choice(JUNK)


# -- mutations (each: rng, xml, weights -> xml, weights, description) ---------------------------------

def flip_bytes(rng: random.Random, xml: bytes, w: bytes) -> tuple[bytes, bytes, str]:
    data = bytearray(xml)
    spots = [rng.randrange(len(data)) for _ in range(rng.randint(1, 4))]
    for i in spots:
        data[i] = rng.randrange(256)
    return bytes(data), w, f"flip bytes at {spots}"


def truncate(rng: random.Random, xml: bytes, w: bytes) -> tuple[bytes, bytes, str]:
    cut = rng.randrange(len(xml))
    return xml[:cut], w, f"truncate the XML at {cut}"


_ATTR = re.compile(rb'([\w:.-]+)="([^"]*)"')


def replace_attribute(rng: random.Random, xml: bytes, w: bytes) -> tuple[bytes, bytes, str]:
    matches = list(_ATTR.finditer(xml))
    m = rng.choice(matches)
    new = _junk(rng, m.group(2).decode("utf-8", "replace"))
    escaped = new.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;").encode()
    return xml[: m.start(2)] + escaped + xml[m.end(2):], w, f"{m.group(1).decode()}={new[:40]!r} at {m.start()}"


def replace_text(rng: random.Random, xml: bytes, w: bytes) -> tuple[bytes, bytes, str]:
    matches = list(re.finditer(rb"<dim>([^<]*)</dim>", xml))
    m = rng.choice(matches) if matches else None
    if m is None:
        return replace_attribute(rng, xml, w)
    new = _junk(rng, m.group(1).decode())
    escaped = new.replace("&", "&amp;").replace("<", "&lt;").encode()
    return xml[: m.start(1)] + escaped + xml[m.end(1):], w, f"<dim>{new[:40]!r}</dim> at {m.start()}"


def _tree(xml: bytes) -> tuple[ET.Element, dict[ET.Element, ET.Element]]:
    root = ET.fromstring(xml)
    return root, {child: parent for parent in root.iter() for child in parent}


def edit_elements(rng: random.Random, xml: bytes, w: bytes) -> tuple[bytes, bytes, str]:
    root, parent = _tree(xml)
    if not parent:
        return xml, w, "nothing to edit"
    elem = rng.choice(list(parent))
    where = parent[elem]
    action = rng.choice(["duplicate", "remove", "move", "junk attribute"])
    if action == "duplicate":
        where.insert(list(where).index(elem) + rng.randint(0, 1), copy.deepcopy(elem))
    elif action == "remove":
        where.remove(elem)
    elif action == "move":
        where.remove(elem)
        target = rng.choice([e for e in root.iter() if e is not elem])
        target.insert(rng.randint(0, len(target)), elem)
    else:
        key = rng.choice([*elem.attrib, "id", "offset", "size", "shape", "names", "foo", "output_names"])
        elem.set(key, _junk(rng, elem.get(key, "")))
    return ET.tostring(root), w, f"{action} <{elem.tag} {dict(list(elem.attrib.items())[:3])}>"


def edit_edges(rng: random.Random, xml: bytes, w: bytes) -> tuple[bytes, bytes, str]:
    root, _ = _tree(xml)
    ids = [int(e.get("id", "0")) for e in root.iter("layer") if e.get("id", "").isdigit()] or [0]
    edges = root.find("edges")
    if edges is None:
        edges = ET.SubElement(root, "edges")
    layers = list(root.iter("layer"))
    action = rng.choice(["add", "rewire", "swap ids"] if len(layers) > 1 else ["add"])
    if action == "add" or not len(edges):
        attrs = {"from-layer": rng.choice(ids + [max(ids) + 1]), "from-port": rng.randint(0, 4),
                 "to-layer": rng.choice(ids), "to-port": rng.randint(0, 4)}
        ET.SubElement(edges, "edge", {k: str(v) for k, v in attrs.items()})
        return ET.tostring(root), w, f"add edge {attrs}"
    if action == "rewire":
        edge = rng.choice(list(edges))
        key = rng.choice(["from-layer", "from-port", "to-layer", "to-port"])
        value = str(rng.choice(ids) if key.endswith("layer") else rng.randint(0, 4))
        edge.set(key, value)
        return ET.tostring(root), w, f"rewire an edge: {key}={value}"
    a, b = rng.sample(layers, 2)
    ida, idb = a.get("id", ""), b.get("id", "")
    a.set("id", idb)
    b.set("id", ida)
    return ET.tostring(root), w, f"swap layer ids {ida} and {idb}"


def damage_weights(rng: random.Random, xml: bytes, w: bytes) -> tuple[bytes, bytes, str]:
    action = rng.choice(["truncate", "extend", "flip", "empty"])
    if action == "truncate" and w:
        cut = rng.randrange(len(w))
        return xml, w[:cut], f"truncate the weights at {cut}"
    if action == "extend":
        return xml, w + bytes(rng.randrange(256) for _ in range(rng.randint(1, 9))), "extend the weights"
    if action == "flip" and w:
        data = bytearray(w)
        data[rng.randrange(len(data))] = rng.randrange(256)
        return xml, bytes(data), "flip a weights byte"
    return xml, b"", "drop the weights"


def combined(rng: random.Random, xml: bytes, w: bytes) -> tuple[bytes, bytes, str]:
    steps = []
    for _ in range(rng.randint(2, 4)):
        mutate = rng.choice([replace_attribute, replace_text, edit_elements, edit_edges, damage_weights])
        xml, w, what = mutate(rng, xml, w)
        steps.append(what)
    return xml, w, " then ".join(steps)


MUTATIONS: list[Callable[[random.Random, bytes, bytes], tuple[bytes, bytes, str]]] = [
    flip_bytes, truncate, replace_attribute, replace_text, edit_elements, edit_edges, damage_weights, combined]


@pytest.mark.timeout(180)  # a hang fails here instead of stalling CI (needs pytest-timeout)
@pytest.mark.parametrize("mutate", MUTATIONS, ids=lambda f: f.__name__)
def test_mutated_documents_raise_only_read_model_error(mutate: Callable[..., tuple[bytes, bytes, str]]) -> None:
    rng = random.Random(f"ir-fuzz-{mutate.__name__}")
    problems: list[str] = []
    outcomes = {"read": 0, "refused": 0}
    for case in range(CASES_PER_FAMILY):
        xml, w = CORPUS[case % len(CORPUS)]
        try:
            bad_xml, bad_w, what = mutate(rng, xml, w)
        except ET.ParseError:  # a structural mutation of an earlier byte-level result: skip
            continue
        label = f"case {case} (corpus {case % len(CORPUS)}): {what}"
        start = time.perf_counter()
        try:
            model = read_model(bad_xml, bad_w)
            outcomes["read"] += 1
            _serialize_again(model, label, problems)
        except ReadModelError:
            outcomes["refused"] += 1
        except Exception as e:  # anything else is a bug in the reader
            problems.append(f"{label}: {type(e).__name__}: {e}")
        elapsed = time.perf_counter() - start
        if elapsed > SECONDS_PER_CASE:
            problems.append(f"{label}: took {elapsed:.1f}s")
    assert not problems, "\n".join(problems[:10])
    assert sum(outcomes.values()) >= CASES_PER_FAMILY * 0.9, outcomes
    assert outcomes["refused"] > 0, outcomes


def _serialize_again(model: Model, label: str, problems: list[str]) -> None:
    """A model that was read must serialize (ValidationError only for names IR cannot write back)."""
    try:
        serialize(model)
    except ValidationError:
        pass
    except Exception as e:
        problems.append(f"{label}: read fine but serialize failed: {type(e).__name__}: {e}")


# -- explicit hostile classes ----------------------------------------------------------------------------

BASE_XML, BASE_W = serialize(_base_model())
BASE = BASE_XML.decode()


def _refused(xml: str | bytes, weights: bytes | None = BASE_W, match: str = "") -> str:
    start = time.perf_counter()
    with pytest.raises(ReadModelError, match=match) as info:
        read_model(xml, weights)
    assert time.perf_counter() - start < SECONDS_PER_CASE
    return str(info.value)


def _edit(old: str, new: str, text: str = BASE) -> str:
    assert old in text, old
    return text.replace(old, new, 1)


def test_base_document_is_valid() -> None:
    assert read_model(BASE_XML, BASE_W).get_friendly_name() == "base"


BILLION_LAUGHS = ('<?xml version="1.0"?>\n<!DOCTYPE lolz [\n <!ENTITY lol "lol">\n'
                  + "".join(f' <!ENTITY lol{i} "{("&lol" + (str(i - 1) if i > 1 else "") + ";") * 10}">\n'
                            for i in range(1, 10))
                  + ']>\n<net name="&lol9;" version="11"><layers/></net>')


@pytest.mark.parametrize("doc", [
    BILLION_LAUGHS,
    '<?xml version="1.0"?><!DOCTYPE net SYSTEM "file:///etc/passwd"><net version="11"/>',
    '<?xml version="1.0"?><!DOCTYPE net [<!ENTITY x SYSTEM "file:///etc/passwd">]><net name="&x;" version="11"/>',
    ('<?xml version="1.0" encoding="UTF-16"?><!DOCTYPE n [<!ENTITY a "b">]><net version="11"/>').encode("utf-16"),
    "<!-- " + "x" * 10_000 + ' --><!DOCTYPE net [<!ENTITY a "b">]><net version="11"/>',
], ids=["billion-laughs", "external-dtd", "external-entity", "utf16-dtd", "late-dtd"])
def test_any_dtd_is_refused_before_expansion(doc: str | bytes) -> None:
    _refused(doc, match="DOCTYPE")


@pytest.mark.parametrize(("doc", "match"), [
    (BASE[:300], r"malformed XML at line \d+, column \d+"),
    (BASE.replace("</net>", "</nett>"), r"malformed XML at line 6\d, column"),
    ("<model/>", r"root element is <model>"),
    (_edit('version="11"', 'version="10"'), r"version='10'.*only IR version 11"),
    (_edit("<layers>", "<layers><junk/>"), r"<layers> child 0 is <junk>"),
])
def test_malformed_or_foreign_documents(doc: str, match: str) -> None:
    _refused(doc, match=match)


def test_cycle_is_named_by_a_layer() -> None:
    doc = _edit('from-layer="0" from-port="0" to-layer="2"', 'from-layer="3" from-port="1" to-layer="2"')
    _refused(doc, match=r"cycle .* layer id=[23] ")


@pytest.mark.parametrize(("old", "new", "match"), [
    ('to-layer="3" to-port="0"', 'to-layer="99" to-port="0"', r"edge 2 .*layer id=99 does not exist"),
    ('from-layer="0" from-port="0"', 'from-layer="77" from-port="0"', r"edge 0 .*layer id=77 does not exist"),
    ('to-layer="3" to-port="0"', 'to-layer="3" to-port="7"', r"edge 2 .*layer id=3 .*has no input port id=7"),
    ('from-layer="2" from-port="2"', 'from-layer="2" from-port="0"', r"edge 2 .*layer id=2 .*no output port id=0"),
    ('<edge from-layer="2" from-port="2" to-layer="3" to-port="0" />', "", r"layer id=3 .*port id=0 has no edge"),
    ('<edge from-layer="3"', '<edge from-layer="0" from-port="0" to-layer="2" to-port="1" />\n<edge from-layer="3"',
     r"edge 3 .*input port id=1 of layer id=2 .*already has an edge"),
    ('from-layer="0"', 'from-layer="-1"', r"edge 0: attribute 'from-layer' -1 is out of range"),
])
def test_bad_edges_are_named(old: str, new: str, match: str) -> None:
    _refused(_edit(old, new), match=match)


def test_duplicate_layer_ids() -> None:
    _refused(_edit('<layer id="3"', '<layer id="2"'), match=r"layer id=2 is used twice \(<layer> 3 repeats it\)")


@pytest.mark.parametrize(("old", "new", "weights", "match"), [
    ('offset="0" size="8"', 'offset="100" size="8"', BASE_W, r"layer id=1 .*offset=100 size=8 reaches past the end"),
    ('offset="0" size="8"', 'offset="4" size="8"', BASE_W, r"layer id=1 .*reaches past the end of the weights"),
    ('offset="0" size="8"', 'offset="0" size="4"', BASE_W, r"layer id=1 .*size=4 does not match shape \[2\] of f32"),
    ('offset="0" size="8"', 'offset="0" size="99999999999999999999999"', BASE_W, r"layer id=1 .*'size'.*integer"),
    ('shape="2" offset="0" size="8"', 'shape="1000000000, 1000000000" offset="0" size="8"', BASE_W,
     r"layer id=1 .*does not match shape"),
    ('offset="0" size="8"', 'offset="0" size="8"', None, r"layer id=1 .*no weights were given"),
    ('offset="0" size="8" ', "", BASE_W, r"layer id=1 .*needs the attributes 'offset' and 'size'"),
])
def test_constant_data_outside_or_unlike_the_weights(old: str, new: str, weights: bytes | None, match: str) -> None:
    _refused(_edit(old, new), weights, match=match)


@pytest.mark.parametrize(("old", "new", "match"), [
    ('type="ReLU"', 'type="Frobnicate"', r"layer id=3 \(Frobnicate 'relu'\): op type 'Frobnicate' is not defined"),
    ('type="ReLU" version="opset1"', 'type="ReLU" version="opset99"', r"layer id=3 .*'Relu' has no version 99"),
    ('type="ReLU" version="opset1"', 'type="ReLU" version="v1"', r"layer id=3: version 'v1' is not an opset"),
    ('<layer id="3" name="relu"', '<layer id="3"', r"layer id=3: attribute 'name' is missing"),
    ('<layer id="3"', '<layer id="3" colour="red"', r"layer id=3: unknown <layer> attribute"),
])
def test_unknown_ops_and_versions(old: str, new: str, match: str) -> None:
    _refused(_edit(old, new), match=match)


@pytest.mark.parametrize(("old", "new", "match"), [
    ('<data shape="2" ', '<data shape="99999999999999999999" ', r"layer id=0 .*out of range"),
    ('<data shape="2" ', '<data shape="' + ",".join(["1"] * 100) + '" ', r"layer id=0 .*rank 100; at most 64"),
    ('<data shape="2" ', '<data shape="-3" ', r"layer id=0 .*-3 is out of range"),
    ("<dim>2</dim>", "<dim>99999999999999999999</dim>", r"layer id=0 output port 0 .*out of range"),
    ("<dim>2</dim>", "<dim>" + "1" * 5000 + "</dim>", r"layer id=0 output port 0 .*not an integer"),
    ("<dim>2</dim>", "<dim>-2</dim>", r"layer id=0 output port 0 .*-2 is out of range"),
    ("<dim>2</dim>", "<dim>3</dim>", r"layer id=0 \(Parameter 'p'\): output port id=0 declares dims \[3\]"),
    ('precision="FP32">\n\t\t\t\t\t<dim>2</dim>\n\t\t\t\t</port>\n\t\t\t</output>\n\t\t</layer>\n\t\t<layer id="4"',
     'precision="I32">\n\t\t\t\t\t<dim>2</dim>\n\t\t\t\t</port>\n\t\t\t</output>\n\t\t</layer>\n\t\t<layer id="4"',
     r"layer id=3 .*output port id=1 declares precision I32; the value has FP32"),
])
def test_huge_or_inconsistent_dims(old: str, new: str, match: str) -> None:
    _refused(_edit(old, new), match=match)


@pytest.mark.parametrize(("old", "new", "match"), [
    (' element_type="f32" />', " />", r"layer id=0 .*attribute 'element_type' is required"),
    ('auto_broadcast="numpy"', 'auto_broadcast="numpy" foo="1"', r"layer id=2 .*unknown attribute 'foo'"),
    ('auto_broadcast="numpy"', 'auto_broadcast="sideways"', r"layer id=2 .*'sideways' is not allowed"),
    ('element_type="f32" shape="2"', 'element_type="f31" shape="2"', r"layer id=1 .*'f31' is not known"),
    ('shape="2" offset', 'shape="2, x" offset', r"layer id=1 .*'x' is not an integer"),
    ('<port id="2" precision="FP32">', '<port id="2" precision="FP32" names="p">',
     r"layer id=2 output 0: tensor name 'p' is already used by layer id=0 output 0"),
    ("</output>\n\t\t</layer>\n\t\t<layer id=\"3\"",
     '\t<port id="9" precision="FP32" />\n\t\t\t</output>\n\t\t</layer>\n\t\t<layer id="3"',
     r"layer id=2 .*declares 2 output port\(s\); the op has 1"),
])
def test_missing_extra_or_invalid_attributes(old: str, new: str, match: str) -> None:
    _refused(_edit(old, new), match=match)


def test_rt_info_nesting_is_capped() -> None:
    deep = "<a>" * 40 + "</a>" * 40
    _refused(_edit("<rt_info />", f"<rt_info>{deep}</rt_info>"), match=r"model rt_info.*deeper than 32 levels")


@pytest.mark.parametrize(("limit", "value", "match"), [
    ("MAX_LAYERS", 3, r"<layers> has 5 children; at most 3"),
    ("MAX_EDGES", 2, r"<edges> has 4 children; at most 2"),
    ("MAX_XML_BYTES", 100, r"the XML document has \d+ bytes; at most 100"),
    ("MAX_PORTS", 1, r"layer id=2: <input> has 2 ports; at most 1"),
    ("MAX_XML_ELEMENTS", 10, r"the XML document has more than 10 elements"),
])
def test_document_limits(monkeypatch: pytest.MonkeyPatch, limit: str, value: int, match: str) -> None:
    monkeypatch.setattr(_ir_common, limit, value)
    _refused(BASE_XML, match=match)


@pytest.mark.parametrize(("xml", "weights", "match"), [
    (123, None, r"xml must be bytes, XML text or a path, not int"),
    (BASE_XML, 3.5, r"weights must be bytes, a uint8 array or a path, not float"),
    (BASE_XML, np.zeros(2, np.float32), r"weights array must have dtype uint8, not float32"),
    ("/nonexistent/model.xml", None, r"cannot read the XML file '/nonexistent/model.xml'"),
    (BASE_XML, "/nonexistent/w.bin", r"cannot read the weights file"),
])
def test_bad_arguments(xml: object, weights: object, match: str) -> None:
    with pytest.raises(ReadModelError, match=match):
        read_model(xml, weights)  # type: ignore[arg-type]


def test_boolean_constant_bytes_are_normalized() -> None:
    p = ops.parameter([2], "boolean", name="p")
    model = Model([ops.logical_and(p, ops.constant(np.array([True, False])))], [p], name="b")
    xml, _ = serialize(model)
    back = read_model(xml, bytes([7, 0]))
    const = next(n for n in back.get_ordered_ops() if n.type_name == "Constant")
    assert const.data.tolist() == [True, False] and const.data.view(np.uint8).tolist() == [1, 0]
