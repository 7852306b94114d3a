"""IR v11 reader: ``ovconform.read_model(xml, weights)`` → :class:`~ovconform.ir.Model`.

Reads what ``openvino.save_model`` / ``openvino.serialize`` write and what
:func:`ovconform.serialize` writes. Every node is created through :func:`~ovconform.ir.make_node`,
so attribute checks and shape/type inference run; declared port precisions and dims must agree
with the inferred ones. Any bad input raises :class:`~ovconform.errors.ReadModelError` naming the
layer id (or the XML line and column, or the edge) and what was wrong.

Hostile input is bounded: a DOCTYPE (and so any entity) is refused before it is expanded; the
document size, element, layer, edge, port and rank counts and the rt_info depth are capped
(``MAX_XML_BYTES`` = 64 MiB, ``MAX_XML_ELEMENTS`` = 2,000,000, ``MAX_LAYERS`` = 200,000,
``MAX_EDGES`` = 1,000,000, ``MAX_PORTS`` = 4,096 per layer, ``MAX_RANK`` = 64,
``MAX_RT_INFO_DEPTH`` = 32, ``MAX_BODY_DEPTH`` = 16 nested sub-graph bodies, in
``ovconform.ir._ir_common``); dims, ids, offsets and sizes must fit in int64; constants are
read-only views into one copy of the weights (never copied per layer),
so memory stays proportional to the XML tree plus the weights (packed types, u1 to u6, i4, nf4
and f4e2m1, are unpacked to one byte per element: at most 8 bytes per weight byte; strings are
decoded only after their count and offsets are checked against the Constant's size).

Element types and the weights layout of each are in :mod:`ovconform.ir._element_codec`. If-8, Loop-5
and TensorIterator-1 layers hold their bodies (``<body>``, or ``<then_body>``/``<else_body>``, each
read as a model of its own: its tensor names are its own) and port maps (``<port_map>`` or
``<then_port_map>``/``<else_port_map>``, ``<back_edges>``), as ``openvino.save_model`` writes them. An empty
Constant may have ``size="0"`` or ``size="1"`` (``openvino.save_model`` writes one zero byte).
"""

from __future__ import annotations

import os
import re
import xml.etree.ElementTree as ET
from collections import deque
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ovconform.errors import ReadModelError, UnsupportedOpError, ValidationError
from ovconform.ir import _ir_common as limits
from ovconform.ir._element_codec import unpack, unpack_strings
from ovconform.ir._graph import Model, Node, Output, make_node
from ovconform.ir._ir_common import (
    IR_VERSION,
    OV_DATA_RT_INFO,
    OV_OPSET_QUIRKS,
    parse_attr,
    parse_int,
    parse_names,
    parse_type,
    read_meta,
    read_user_data,
)
from ovconform.ir._opdef import OpDef, canonical_type_name, get_opdef
from ovconform.ir._shape import PartialShape
from ovconform.ir._subgraph import (
    BodyOutputDescription,
    ConcatOutputDescription,
    InvariantInputDescription,
    MergedInputDescription,
    SliceInputDescription,
    SpecialBodyPorts,
)
from ovconform.ir._types import Type, as_type, byte_size

__all__ = ["read_model"]

XmlSource = bytes | bytearray | memoryview | str | os.PathLike[str]
WeightsSource = bytes | bytearray | memoryview | np.ndarray | str | os.PathLike[str] | None

_LAYER_KEYS = frozenset({"id", "name", "type", "version", "output_names"})
_OPSET_RE = re.compile(r"opset[0-9]{1,6}")


def read_model(xml: XmlSource, weights: WeightsSource = None) -> Model:
    """Read an IR v11 model.

    :param xml: the XML document (bytes, or a str that starts with ``<``), or a path to it.
    :param weights: the weights as bytes/bytearray/memoryview/uint8 numpy array, or a path; when
        None and ``xml`` is a path, the sibling ``.bin`` file is used if it exists.
    :returns: the model. Parameters and Results are in document order; the sinks are the Assign
        layers without consumers. Node ``rt_info`` holds the ``<user_data>`` entries (OpenVINO's own
        runtime ``<attribute>`` entries, port rt_info and the legacy ``PrimitivesPriority``/``alt_width``
        data attributes are dropped); model ``rt_info`` holds every entry, nested sections as dicts,
        leaves as strings. A Result's ``output_names`` are added to the names of the tensor it reads.
        Constants are read-only views of the weights, or, when a numeric constant sits at an offset
        that is not a multiple of its element size, of one aligned copy of them (:func:`_aligned`).
        The ``version`` of a layer must be the opset of exactly that op version (``opset8`` for
        Softmax-8), except OpenVINO's spelling ``opset2`` for LogicalXor-1.
    :raises ReadModelError: on any bad input (including arguments of the wrong type, unreadable files,
        a DTD, a document over the limits in the module docstring); the message names the layer id,
        the edge, or the XML line and column.
    """
    text, xml_file = _load_xml(xml)
    blob = _load_weights(weights, xml_file)
    root = _parse(text)
    return _Reader(root, _aligned(root, blob)).build()


# -- sources ------------------------------------------------------------------------------------

def _load_xml(xml: Any) -> tuple[bytes | str, str | None]:
    if isinstance(xml, (bytes, bytearray, memoryview)):
        data = bytes(xml)
        _check_size(len(data), "the XML document")
        return data, None
    if isinstance(xml, str) and xml.lstrip("\ufeff \t\r\n").startswith("<"):
        _check_size(len(xml), "the XML document")
        return xml, None
    if isinstance(xml, (str, os.PathLike)):
        path = os.fspath(xml)
        return _read_file(path, "XML", limits.MAX_XML_BYTES), path
    raise ReadModelError(f"read_model(): xml must be bytes, XML text or a path, not {type(xml).__name__}.")


def _check_size(n: int, what: str) -> None:
    if n > limits.MAX_XML_BYTES:
        raise ReadModelError(f"{what} has {n} bytes; at most {limits.MAX_XML_BYTES} are read.")


def _read_file(path: str, what: str, cap: int | None) -> bytes:
    try:
        size = os.path.getsize(path)
        if cap is not None and size > cap:
            raise ReadModelError(f"{what} file {path!r} has {size} bytes; at most {cap} are read.")
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        raise ReadModelError(f"cannot read the {what} file {path!r}: {e.strerror or e}.") from e


def _load_weights(weights: Any, xml_file: str | None) -> bytes | None:
    if weights is None:
        if xml_file is None:
            return None
        sibling = os.path.splitext(xml_file)[0] + ".bin"
        return _read_file(sibling, "weights", None) if os.path.isfile(sibling) else None
    if isinstance(weights, np.ndarray):
        if weights.dtype != np.uint8:
            raise ReadModelError(f"read_model(): a weights array must have dtype uint8, not {weights.dtype}.")
        return weights.tobytes()
    if isinstance(weights, (bytes, bytearray, memoryview)):
        return bytes(weights)
    if isinstance(weights, (str, os.PathLike)):
        return _read_file(os.fspath(weights), "weights", None)
    raise ReadModelError(f"read_model(): weights must be bytes, a uint8 array or a path, not {type(weights).__name__}.")


#: Where :func:`_aligned` places each constant's bytes: a multiple of this many bytes.
ALIGNMENT = 8


def _aligned(root: ET.Element, blob: bytes | None) -> bytes | memoryview | None:
    """``blob``, or, when a numeric constant's bytes sit at an offset that is not a multiple of its
    element size (``openvino.save_model`` packs constants one after another: an f32 weight after a
    u8 or f16 one), a copy with every constant at a multiple of :data:`ALIGNMENT` and the Const
    layers' ``offset`` attributes rewritten to match. The constants are views of these bytes:
    views at unaligned addresses would send every numpy BLAS product with them down its slow
    unaligned path (~10x) at each inference. The copy replaces ``blob`` (read from a path, the
    file's bytes are then released): the weights stay held once. Constants whose spans overlap
    so that the copy would exceed the weights (plus padding) stay views of ``blob``, as does
    everything when a Const is malformed (for the reader to name)."""
    if not blob:
        return blob
    spans: list[tuple[ET.Element, int, int]] = []
    misaligned = np.frombuffer(blob, np.uint8, count=1).ctypes.data % ALIGNMENT != 0
    for layer in root.iter("layer"):
        data = layer.find("data") if layer.get("type") == "Const" else None
        if data is None:
            continue
        try:
            offset, size = int(data.get("offset", "")), int(data.get("size", ""))
            et = as_type(data.get("element_type", ""))
        except (TypeError, ValueError, ValidationError):
            return blob
        if offset < 0 or size < 0 or offset + size > len(blob):
            return blob
        spans.append((data, offset, size))
        numeric = not et.is_packed() and et.name not in ("string", "boolean")
        misaligned = misaligned or (numeric and offset % min(et.to_dtype().itemsize, ALIGNMENT) != 0)
    if not misaligned:
        return blob
    where: dict[tuple[int, int], int] = {}
    end = 0
    for offset, size in sorted({(o, n) for _, o, n in spans}):
        end += -end % ALIGNMENT
        where[(offset, size)] = end
        end += size
    if end > len(blob) + ALIGNMENT * len(where):  # spans that overlap: copied apart they would take
        return blob  # more than the weights (a crafted document could ask for many times them)
    pool = bytearray(end)
    view = memoryview(blob)
    for (offset, size), at in where.items():
        pool[at:at + size] = view[offset:offset + size]
    for data, offset, size in spans:
        data.set("offset", str(where[(offset, size)]))
    return memoryview(pool).toreadonly()  # read-only, as bytes are, with no third copy


# -- XML parsing (no DTD, ever) -------------------------------------------------------------------

class _GuardedBuilder(ET.TreeBuilder):
    """A TreeBuilder that refuses any DOCTYPE and stops after ``MAX_XML_ELEMENTS`` elements."""

    def __init__(self) -> None:
        super().__init__()
        self._count = 0

    def doctype(self, name: str, pubid: str | None, system: str | None) -> None:
        raise ReadModelError(f"the XML document declares a DOCTYPE ({name!r}); DTDs and entities are refused.")

    def start(self, tag: str, attrs: dict[str, str]) -> ET.Element:
        self._count += 1
        if self._count > limits.MAX_XML_ELEMENTS:
            raise ReadModelError(f"the XML document has more than {limits.MAX_XML_ELEMENTS} elements.")
        return super().start(tag, attrs)


def _parse(text: bytes | str) -> ET.Element:
    head = text[:4096] if isinstance(text, str) else text[:4096].decode("latin-1")
    if "<!DOCTYPE" in head or "<!ENTITY" in head:
        raise ReadModelError("the XML document declares a DOCTYPE or ENTITY; DTDs and entities are refused.")
    parser = ET.XMLParser(target=_GuardedBuilder())
    try:
        parser.feed(text)
        return parser.close()
    except ET.ParseError as e:
        line, col = e.position
        raise ReadModelError(f"malformed XML at line {line}, column {col}: {e}.") from None
    except (LookupError, ValueError) as e:  # unknown encoding declaration, bad bytes
        if isinstance(e, ReadModelError):
            raise
        raise ReadModelError(f"the XML document cannot be decoded: {e}.") from None


# -- layers, ports, edges ---------------------------------------------------------------------------

@dataclass
class _Port:
    port_id: int
    precision: Type | None
    dims: list[int] | None  # None: no <dim> children (a scalar or a dynamic rank)
    names: set[str] = field(default_factory=set)


@dataclass
class _Layer:
    lid: int
    name: str
    type: str
    version: int
    elem: ET.Element
    inputs: list[_Port]
    outputs: list[_Port]
    in_index: dict[int, int] = field(default_factory=dict)  # port id -> input position
    out_index: dict[int, int] = field(default_factory=dict)  # port id -> output position
    sources: list[tuple[int, int] | None] = field(default_factory=list)  # (layer id, output index)
    consumers: int = 0

    def label(self) -> str:
        return f"layer id={self.lid} ({self.type} {self.name!r})"


class _Reader:
    def __init__(self, root: ET.Element, weights: bytes | memoryview | None, body_of: str | None = None,
                 depth: int = 0) -> None:
        self.root = root
        self.weights = weights
        self.body_of = body_of  # "layer id=N (If 'x') then_body" while reading a sub-graph body
        self.depth = depth
        self.layers: dict[int, _Layer] = {}
        self.nodes: dict[int, Node] = {}
        self.tensor_names: dict[str, str] = {}  # tensor name -> "layer id=N output i"

    def build(self) -> Model:
        if self.body_of is None:
            self._check_root()
        self._read_layers()
        self._read_edges()
        for layer in self._topological_order():
            self.nodes[layer.lid] = self._make(layer)
        return self._model()

    # -- document structure ----------------------------------------------------------------------
    def _check_root(self) -> None:
        if self.root.tag != "net":
            raise ReadModelError(f"the root element is <{self.root.tag}>; an IR document has <net>.")
        version = self.root.get("version")
        if version != str(IR_VERSION):
            raise ReadModelError(f"<net version={version!r}> is not supported; only IR version {IR_VERSION} is read.")

    def _section(self, tag: str, required: bool) -> ET.Element | None:
        found = self.root.findall(tag)
        where = f"<{self.root.tag}>" if self.body_of is None else f"{self.body_of}"
        if len(found) > 1:
            raise ReadModelError(f"{where} has {len(found)} <{tag}> sections; it must have one.")
        if not found and required:
            raise ReadModelError(f"{where} has no <{tag}> section.")
        return found[0] if found else None

    # -- sub-graph bodies (If, Loop, TensorIterator) ------------------------------------------------
    def _subgraph_attrs(self, layer: _Layer) -> dict[str, Any]:
        """The bodies and port maps of a control-flow layer (``<body>``/``<port_map>``/``<back_edges>``,
        or If's ``<then_body>``/``<else_body>`` with their port maps)."""
        if self.depth >= limits.MAX_BODY_DEPTH:
            raise ReadModelError(f"{layer.label()}: sub-graph bodies are nested deeper than {limits.MAX_BODY_DEPTH}.")
        pairs = [("then_body", "then_port_map"), ("else_body", "else_port_map")] if layer.type == "If" \
            else [("body", "port_map")]
        bodies, ins, outs = [], [], []
        ports = SpecialBodyPorts()
        for body_tag, map_tag in pairs:
            where = f"{layer.label()} <{body_tag}>"
            body_elem = _one_child(layer.elem, body_tag, layer.label())
            reader = _Reader(body_elem, self.weights, where, self.depth + 1)
            body = reader.build()
            params = {id(p): i for i, p in enumerate(body.get_parameters())}
            results = {id(r): i for i, r in enumerate(body.get_results())}

            def index_of(lid_text: str | None, table: dict[int, int], what: str, where: str = where,
                         reader: _Reader = reader) -> int:
                try:
                    lid = parse_int(lid_text or "", "internal_layer_id", 0, limits.MAX_DIM)
                except ValidationError as e:
                    raise ReadModelError(f"{where}: {e}") from None
                node = reader.nodes.get(lid)
                if node is None or id(node) not in table:
                    raise ReadModelError(f"{where}: internal_layer_id={lid_text!r} is not a body {what}.")
                return table[id(node)]

            back = {}
            for pos, edge in enumerate(_children(layer.elem, "back_edges", "edge", layer.label())):
                back[_int_attr(edge, "to-layer", f"{layer.label()} back edge {pos}", 0, limits.MAX_DIM)] = \
                    index_of(edge.get("from-layer"), results, "Result")
            map_elem = _one_child(layer.elem, map_tag, layer.label())
            body_ins: list[Any] = []
            body_outs: list[Any] = []
            for pos, entry in enumerate(map_elem):
                here = f"{layer.label()} <{map_tag}> entry {pos}"
                if entry.tag not in ("input", "output"):
                    raise ReadModelError(f"{here}: is <{entry.tag}>; only <input> and <output> are allowed.")
                try:
                    ext = parse_int(entry.get("external_port_id", ""), "external_port_id", -1, limits.MAX_DIM)
                    if entry.tag == "input":
                        p = index_of(entry.get("internal_layer_id"), params, "Parameter")
                        if entry.get("purpose") == "current_iteration":
                            ports = SpecialBodyPorts(p, ports.body_condition_output_idx)
                            continue
                        i = layer.in_index.get(ext)
                        if i is None:
                            raise ReadModelError(f"{here}: the layer has no input port id={ext}.")
                        lid = parse_int(entry.get("internal_layer_id", ""), "internal_layer_id", 0, limits.MAX_DIM)
                        if "axis" in entry.attrib:
                            body_ins.append(SliceInputDescription(i, p, *_slice_attrs(entry)))
                        elif lid in back:
                            body_ins.append(MergedInputDescription(i, p, back[lid]))
                        else:
                            body_ins.append(InvariantInputDescription(i, p))
                    else:
                        r = index_of(entry.get("internal_layer_id"), results, "Result")
                        if entry.get("purpose") == "execution_condition":
                            ports = SpecialBodyPorts(ports.current_iteration_input_idx, r)
                            continue
                        j = layer.out_index.get(ext)
                        if j is None:
                            raise ReadModelError(f"{here}: the layer has no output port id={ext}.")
                        if "axis" in entry.attrib:
                            body_outs.append(ConcatOutputDescription(r, j, *_slice_attrs(entry)))
                        else:
                            body_outs.append(BodyOutputDescription(r, j))
                except ReadModelError:
                    raise
                except ValidationError as e:
                    raise ReadModelError(f"{here}: {e}") from None
            bodies.append(body)
            ins.append(body_ins)
            outs.append(body_outs)
        attrs: dict[str, Any] = {"bodies": bodies, "input_descriptions": ins, "output_descriptions": outs}
        if layer.type == "Loop":
            attrs["special_body_ports"] = ports
        return attrs

    def _read_layers(self) -> None:
        section = self._section("layers", True)
        assert section is not None
        if len(section) > limits.MAX_LAYERS:
            raise ReadModelError(f"<layers> has {len(section)} children; at most {limits.MAX_LAYERS} are read.")
        for pos, elem in enumerate(section):
            if elem.tag != "layer":
                raise ReadModelError(f"<layers> child {pos} is <{elem.tag}>; only <layer> is allowed.")
            layer = _parse_layer(elem, pos)
            if layer.lid in self.layers:
                raise ReadModelError(f"layer id={layer.lid} is used twice (<layer> {pos} repeats it).")
            self.layers[layer.lid] = layer

    def _read_edges(self) -> None:
        section = self._section("edges", False)
        edges = list(section) if section is not None else []
        if len(edges) > limits.MAX_EDGES:
            raise ReadModelError(f"<edges> has {len(edges)} children; at most {limits.MAX_EDGES} are read.")
        for layer in self.layers.values():
            layer.sources = [None] * len(layer.inputs)
        for pos, elem in enumerate(edges):
            self._add_edge(elem, pos)
        for layer in self.layers.values():
            for i, src in enumerate(layer.sources):
                if src is None:
                    raise ReadModelError(f"{layer.label()}: input port id={layer.inputs[i].port_id} has no edge.")

    def _add_edge(self, elem: ET.Element, pos: int) -> None:
        where = f"edge {pos}"
        if elem.tag != "edge":
            raise ReadModelError(f"<edges> child {pos} is <{elem.tag}>; only <edge> is allowed.")
        ends = {}
        for key in ("from-layer", "from-port", "to-layer", "to-port"):
            ends[key] = _int_attr(elem, key, where, 0, limits.MAX_DIM)
        where = (f"edge {pos} (from-layer={ends['from-layer']} from-port={ends['from-port']} "
                 f"to-layer={ends['to-layer']} to-port={ends['to-port']})")
        src, dst = self.layers.get(ends["from-layer"]), self.layers.get(ends["to-layer"])
        if src is None or dst is None:
            missing = ends["from-layer"] if src is None else ends["to-layer"]
            raise ReadModelError(f"{where}: layer id={missing} does not exist.")
        out_index = src.out_index.get(ends["from-port"])
        in_index = dst.in_index.get(ends["to-port"])
        if out_index is None:
            raise ReadModelError(f"{where}: {src.label()} has no output port id={ends['from-port']}.")
        if in_index is None:
            raise ReadModelError(f"{where}: {dst.label()} has no input port id={ends['to-port']}.")
        if dst.sources[in_index] is not None:
            raise ReadModelError(f"{where}: input port id={ends['to-port']} of {dst.label()} already has an edge.")
        dst.sources[in_index] = (src.lid, out_index)
        src.consumers += 1

    def _topological_order(self) -> list[_Layer]:
        """Kahn's algorithm in document order; a cycle is named by one of its layers."""
        waiting = {lid: len(layer.sources) for lid, layer in self.layers.items()}
        users: dict[int, list[int]] = {lid: [] for lid in self.layers}
        for layer in self.layers.values():
            for src in layer.sources:
                assert src is not None
                users[src[0]].append(layer.lid)
        ready = deque(lid for lid, n in waiting.items() if n == 0)
        order: list[_Layer] = []
        while ready:
            lid = ready.popleft()
            order.append(self.layers[lid])
            for user in users[lid]:
                waiting[user] -= 1
                if waiting[user] == 0:
                    ready.append(user)
        if len(order) != len(self.layers):
            stuck = next(self.layers[lid] for lid, n in waiting.items() if n > 0)
            raise ReadModelError(f"the edges form a cycle (or depend on one) at {stuck.label()}.")
        return order

    # -- nodes -------------------------------------------------------------------------------------
    def _make(self, layer: _Layer) -> Node:
        opdef = _opdef(layer)
        attrs, data = self._attrs_and_data(layer, opdef)
        if any(spec.kind == "subgraph" for spec in opdef.attrs):
            attrs.update(self._subgraph_attrs(layer))
        inputs = [self.nodes[src[0]].output(src[1]) for src in layer.sources if src is not None]
        try:
            node = make_node(opdef.type_name, opdef.version, inputs, attrs, layer.name, data)
        except ValidationError as e:
            raise ReadModelError(f"{layer.label()}: {e}") from e
        _check_ports(layer, node)
        self._apply_names(layer, node)
        node.rt_info.update(_node_rt_info(layer))
        return node

    def _attrs_and_data(self, layer: _Layer, opdef: OpDef) -> tuple[dict[str, Any], np.ndarray | None]:
        data_elems = layer.elem.findall("data")
        if len(data_elems) > 1:
            raise ReadModelError(f"{layer.label()}: has {len(data_elems)} <data> elements; at most one is allowed.")
        given = {k: v for k, v in data_elems[0].attrib.items() if k not in OV_DATA_RT_INFO} if data_elems else {}
        blob = None
        if opdef.type_name == "Constant":
            blob = (given.pop("offset", None), given.pop("size", None))
        attrs: dict[str, Any] = {}
        for key, text in given.items():
            spec = opdef.attr_index.get(key)
            if spec is None:
                known = ", ".join(opdef.attr_index) or "none"
                raise ReadModelError(f"{layer.label()}: unknown attribute {key!r}={text!r}; known: {known}.")
            try:
                attrs[key] = parse_attr(spec.kind, text, f"attribute {key!r}")
            except ValidationError as e:
                raise ReadModelError(f"{layer.label()}: {e}") from None
        data = self._constant_data(layer, attrs, *blob) if blob is not None else None
        return attrs, data

    def _constant_data(self, layer: _Layer, attrs: dict[str, Any], offset_s: str | None,
                       size_s: str | None) -> np.ndarray:
        label = layer.label()
        et, shape = attrs.get("element_type"), attrs.get("shape")
        if not isinstance(et, Type) or not isinstance(shape, list):
            raise ReadModelError(f"{label}: a Const needs the attributes 'element_type' and 'shape'.")
        if offset_s is None or size_s is None:
            raise ReadModelError(f"{label}: a Const needs the attributes 'offset' and 'size'.")
        try:
            offset = parse_int(offset_s, "attribute 'offset'", 0, limits.MAX_DIM)
            size = parse_int(size_s, "attribute 'size'", 0, limits.MAX_DIM)
        except ValidationError as e:
            raise ReadModelError(f"{label}: {e}") from None
        count = _element_count(shape, label)
        expected = byte_size(et, count)
        if count == 0 and size <= 1:
            pass  # openvino.save_model writes one (zero) byte for an empty Constant
        elif et.name != "string" and size != expected:
            bits = f"{et.bitwidth} bits" if et.is_packed() else f"{et.size} bytes"
            raise ReadModelError(f"{label}: size={size} does not match shape {shape} of {et} "
                                 f"({count} elements × {bits} = {expected} bytes).")
        if size and self.weights is None:
            raise ReadModelError(f"{label}: needs {size} bytes of weights, but no weights were given.")
        have = len(self.weights) if self.weights is not None else 0
        if offset + size > have:
            raise ReadModelError(f"{label}: offset={offset} size={size} reaches past the end of the weights "
                                 f"({have} bytes).")
        if et.name == "string" and count:
            try:
                strings = unpack_strings(self.weights or b"", count, offset, size, "string data")
            except ValidationError as e:
                raise ReadModelError(f"{label}: {e}") from None
            strings = strings.reshape(shape)
            strings.setflags(write=False)
            return strings
        return _view(self.weights, et, shape, offset, count)

    def _apply_names(self, layer: _Layer, node: Node) -> None:
        for i, port in enumerate(layer.outputs):
            if port.names:
                self._claim(port.names, f"layer id={layer.lid} output {i}", node.output(i))
        if node.type_name == "Result" and layer.elem.get("output_names"):
            src = layer.sources[0]
            assert src is not None
            self._claim(parse_names(layer.elem.get("output_names", "")), f"layer id={src[0]} output {src[1]}",
                        node.input_value(0))

    def _claim(self, names: set[str], owner: str, value: Output) -> None:
        for name in sorted(names):
            other = self.tensor_names.setdefault(name, owner)
            if other != owner:
                raise ReadModelError(f"{owner}: tensor name {name!r} is already used by {other}.")
        value.add_names(names)

    # -- the model -----------------------------------------------------------------------------------
    def _model(self) -> Model:
        by_type: dict[str, list[Node]] = {"Parameter": [], "Result": [], "Assign": []}
        for lid, layer in self.layers.items():
            node = self.nodes[lid]
            if node.type_name in by_type and not (node.type_name == "Assign" and layer.consumers):
                by_type[node.type_name].append(node)
        name = self.root.get("name") or None
        try:
            model = Model(by_type["Result"], by_type["Parameter"], name=name, sinks=by_type["Assign"])
        except ValidationError as e:
            raise ReadModelError(f"the model is invalid: {e}") from e
        section = self._section("rt_info", False)
        if section is not None:
            model.rt_info.update(read_meta(section, "model rt_info", 1))
        return model


# -- layer pieces ---------------------------------------------------------------------------------

def _one_child(elem: ET.Element, tag: str, where: str) -> ET.Element:
    found = elem.findall(tag)
    if len(found) != 1:
        raise ReadModelError(f"{where}: has {len(found)} <{tag}> elements; a control-flow layer needs one.")
    return found[0]


def _children(elem: ET.Element, tag: str, child: str, where: str) -> list[ET.Element]:
    found = elem.findall(tag)
    if len(found) > 1:
        raise ReadModelError(f"{where}: has {len(found)} <{tag}> elements; at most one is allowed.")
    items = list(found[0]) if found else []
    for pos, item in enumerate(items):
        if item.tag != child:
            raise ReadModelError(f"{where}: <{tag}> child {pos} is <{item.tag}>; only <{child}> is allowed.")
    return items


def _slice_attrs(entry: ET.Element) -> tuple[int, int, int, int, int]:
    """(start, stride, part_size, end, axis) of a sliced input or concatenated output entry."""
    lim = limits.MAX_DIM

    def get(key: str, default: str) -> int:
        return parse_int(entry.get(key, default), key, -lim, lim)

    return get("start", "0"), get("stride", "1"), get("part_size", "1"), get("end", "-1"), get("axis", "0")


def _int_attr(elem: ET.Element, key: str, where: str, lo: int, hi: int) -> int:
    text = elem.get(key)
    if text is None:
        raise ReadModelError(f"{where}: attribute {key!r} is missing.")
    try:
        return parse_int(text, f"attribute {key!r}", lo, hi)
    except ValidationError as e:
        raise ReadModelError(f"{where}: {e}") from None


def _parse_layer(elem: ET.Element, pos: int) -> _Layer:
    lid = _int_attr(elem, "id", f"<layer> {pos}", 0, limits.MAX_DIM)
    where = f"layer id={lid}"
    extra = sorted(set(elem.attrib) - _LAYER_KEYS)
    if extra:
        raise ReadModelError(f"{where}: unknown <layer> attribute(s) {extra}; known: {sorted(_LAYER_KEYS)}.")
    for key in ("name", "type", "version"):
        if not elem.get(key):
            raise ReadModelError(f"{where}: attribute {key!r} is missing or empty.")
    version = elem.get("version", "")
    if not _OPSET_RE.fullmatch(version):
        raise ReadModelError(f"{where}: version {version!r} is not an opset name like 'opset8'.")
    inputs = _ports(elem, "input", where)
    outputs = _ports(elem, "output", where)
    ids = [p.port_id for p in (*inputs, *outputs)]
    if len(set(ids)) != len(ids):
        raise ReadModelError(f"{where}: port ids {ids} repeat.")
    return _Layer(lid, elem.get("name", ""), elem.get("type", ""), int(version[5:]), elem, inputs, outputs,
                  {p.port_id: i for i, p in enumerate(inputs)}, {p.port_id: i for i, p in enumerate(outputs)})


def _ports(elem: ET.Element, tag: str, where: str) -> list[_Port]:
    sections = elem.findall(tag)
    if len(sections) > 1:
        raise ReadModelError(f"{where}: has {len(sections)} <{tag}> sections; at most one is allowed.")
    if not sections:
        return []
    ports = list(sections[0])
    if len(ports) > limits.MAX_PORTS:
        raise ReadModelError(f"{where}: <{tag}> has {len(ports)} ports; at most {limits.MAX_PORTS} are read.")
    return [_port(p, f"{where} {tag} port {i}") for i, p in enumerate(ports)]


def _port(elem: ET.Element, where: str) -> _Port:
    if elem.tag != "port":
        raise ReadModelError(f"{where}: is <{elem.tag}>; only <port> is allowed.")
    port_id = _int_attr(elem, "id", where, 0, limits.MAX_DIM)
    where = f"{where} (id={port_id})"
    precision = None
    if elem.get("precision") is not None:
        try:
            precision = parse_type(elem.get("precision", ""), "precision")
        except ValidationError as e:
            raise ReadModelError(f"{where}: {e}") from None
    dims_elems = [c for c in elem if c.tag == "dim"]
    if len(dims_elems) > limits.MAX_RANK:
        raise ReadModelError(f"{where}: has {len(dims_elems)} dims; at most {limits.MAX_RANK} are allowed.")
    dims = [_dim(d.text or "", where) for d in dims_elems] if dims_elems else None
    names = parse_names(elem.get("names", ""))
    return _Port(port_id, precision, dims, names)


def _dim(text: str, where: str) -> int:
    try:
        return parse_int(text, "<dim>", -1, limits.MAX_DIM)
    except ValidationError as e:
        raise ReadModelError(f"{where}: {e}") from None


def _opdef(layer: _Layer) -> OpDef:
    try:
        return get_opdef(layer.type, layer.version)
    except UnsupportedOpError as e:
        quirk = OV_OPSET_QUIRKS.get((canonical_type_name(layer.type), layer.version))
        if quirk is not None:
            return get_opdef(layer.type, quirk)
        raise ReadModelError(f"{layer.label()}: {e}") from None


def _element_count(shape: list[int], label: str) -> int:
    if len(shape) > limits.MAX_RANK:
        raise ReadModelError(f"{label}: shape has rank {len(shape)}; at most {limits.MAX_RANK} is allowed.")
    count = 1
    for d in shape:
        if not 0 <= d <= limits.MAX_DIM:
            raise ReadModelError(f"{label}: shape {shape} has the dimension {d}; allowed [0, {limits.MAX_DIM}].")
        count *= d
    return count


def _view(weights: bytes | memoryview | None, et: Type, shape: list[int], offset: int, count: int) -> np.ndarray:
    dtype = et.to_dtype().newbyteorder("<") if et.to_dtype().itemsize > 1 else et.to_dtype()
    if count == 0 or weights is None:
        arr = np.zeros(shape, dtype=et.to_dtype())
    elif et.name == "boolean":
        raw = np.frombuffer(weights, dtype=np.uint8, count=count, offset=offset)
        arr = raw.view(np.bool_) if raw.max(initial=0) <= 1 else raw != 0
    elif et.is_packed():
        arr = unpack(weights, et, count, offset)
    else:
        arr = np.frombuffer(weights, dtype=dtype, count=count, offset=offset)
    arr = arr.reshape(shape)
    arr.setflags(write=False)
    return arr


def _check_ports(layer: _Layer, node: Node) -> None:
    expected = 0 if node.type_name == "Result" else node.get_output_size()
    if len(layer.outputs) != expected:
        raise ReadModelError(f"{layer.label()}: declares {len(layer.outputs)} output port(s); "
                             f"the op has {expected}.")
    for i, port in enumerate(layer.inputs):
        _check_port(layer, f"input port id={port.port_id}", port, node.input_value(i))
    for i, port in enumerate(layer.outputs):
        _check_port(layer, f"output port id={port.port_id}", port, node.output(i))


def _check_port(layer: _Layer, what: str, port: _Port, value: Output) -> None:
    et, shape = value.get_element_type(), value.get_partial_shape()
    if port.precision is not None and port.precision != et:
        raise ReadModelError(f"{layer.label()}: {what} declares precision {port.precision.ir_precision}; "
                             f"the value has {et.ir_precision}.")
    if not _dims_fit(port.dims, shape):
        declared = "no dims" if port.dims is None else f"dims {port.dims}"
        raise ReadModelError(f"{layer.label()}: {what} declares {declared}; the value has shape {shape}.")


def _dims_fit(dims: list[int] | None, shape: PartialShape) -> bool:
    if not shape.has_rank():
        return True
    if dims is None:
        return len(shape) == 0
    return len(dims) == len(shape) and all(d == -1 or s.contains(d) for d, s in zip(dims, shape, strict=True))


# -- rt_info ---------------------------------------------------------------------------------------------

def _node_rt_info(layer: _Layer) -> dict[str, Any]:
    sections = layer.elem.findall("rt_info")
    if len(sections) > 1:
        raise ReadModelError(f"{layer.label()}: has {len(sections)} <rt_info> sections; at most one is allowed.")
    if not sections:
        return {}
    out: dict[str, Any] = {}
    for child in sections[0]:
        if child.tag == "user_data":  # OpenVINO's own <attribute> entries (fused_names, ...) are dropped
            key, value = read_user_data(child, f"{layer.label()}: rt_info", 1)
            out[key] = value
    return out
