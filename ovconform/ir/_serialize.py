"""IR v11 writer: ``ovconform.serialize(model)`` → ``(xml_bytes, weights_bytes)``.

The layout is what ``openvino.save_model(model, path, compress_to_fp16=False)`` writes: Parameters
first (in model order), then the other ops in topological order, then the sinks, then the Results
(in model order); ``<data>`` attributes in the order of the op's :class:`~ovconform.ir.OpDef`;
tab indentation; constants packed into the weights without padding (identical bytes written once;
low-bit types packed and strings laid out as :mod:`ovconform.ir._element_codec` says; an empty
Constant as one zero byte, ``size="1"``, as OpenVINO does). The output is deterministic:
the same model always gives the same bytes, and ``serialize(read_model(*serialize(m)))`` gives them
again.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, overload

import numpy as np

from ovconform.errors import ValidationError
from ovconform.ir._element_codec import pack
from ovconform.ir._graph import Model, Node, describe
from ovconform.ir._ir_common import (
    IR_VERSION,
    MAX_RT_INFO_DEPTH,
    format_attr,
    format_names,
    is_tag_name,
    port_dim,
    rt_value_text,
    xml_attr,
)
from ovconform.ir._subgraph import has_bodies
from ovconform.ir._types import Type, check_values

if TYPE_CHECKING:
    from ovconform.ir._graph import Output

__all__ = ["WeightChunks", "serialize", "serialize_chunks"]

Attrs = list[tuple[str, str]]


class _Writer:
    """Accumulates XML lines (tab-indented, ``<tag a="v" />`` like pugixml) and the weights blob."""

    def __init__(self) -> None:
        self.lines: list[str] = ['<?xml version="1.0"?>']
        self.weights = WeightChunks()
        self.shift = 0  # extra indentation while a sub-graph body is written

    def open(self, depth: int, tag: str, attrs: Attrs | None = None) -> None:
        self.lines.append(f"{chr(9) * (depth + self.shift)}<{tag}{_attrs(attrs)}>")

    def close(self, depth: int, tag: str) -> None:
        self.lines.append(f"{chr(9) * (depth + self.shift)}</{tag}>")

    def empty(self, depth: int, tag: str, attrs: Attrs | None = None) -> None:
        self.lines.append(f"{chr(9) * (depth + self.shift)}<{tag}{_attrs(attrs)} />")

    def text(self, depth: int, tag: str, value: str) -> None:
        self.lines.append(f"{chr(9) * (depth + self.shift)}<{tag}>{value}</{tag}>")

    def add_weights(self, blob: bytes | memoryview) -> int:
        """Offset of ``blob`` in the weights; identical blobs share one copy."""
        return self.weights.add(blob)

    def xml(self) -> bytes:
        return ("\n".join(self.lines) + "\n").encode("utf-8")

    def result(self) -> tuple[bytes, bytes]:
        return self.xml(), self.weights.tobytes()


def _equal(a: memoryview, b: memoryview, block: int = 1 << 20) -> bool:
    """Whether two byte views of one length hold the same bytes (compared a block at a time)."""
    x, y = np.frombuffer(a, np.uint8), np.frombuffer(b, np.uint8)
    return all(np.array_equal(x[i:i + block], y[i:i + block]) for i in range(0, x.size, block))


class WeightChunks:
    """The weights blob as the list of its constants' bytes, each written once: a constant whose
    bytes equal an earlier one's (same length and SHA-256, then compared) takes that offset. A
    chunk is a view of the Constant's own array where its bytes are already OpenVINO's (a
    C-contiguous little-endian array of an unpacked type), so nothing is copied until
    :meth:`tobytes` or :meth:`write_into` writes the blob once."""

    def __init__(self) -> None:
        self.chunks: list[memoryview] = []
        self.nbytes = 0
        self._offsets: dict[tuple[int, bytes], list[tuple[int, memoryview]]] = {}

    def add(self, blob: bytes | memoryview) -> int:
        view = memoryview(blob)
        view = view if view.format == "B" and view.ndim == 1 else view.cast("B")
        key = (view.nbytes, hashlib.sha256(view).digest())
        same = self._offsets.setdefault(key, [])
        for offset, earlier in same:
            if _equal(earlier, view):
                return offset
        offset = self.nbytes
        same.append((offset, view))
        self.chunks.append(view)
        self.nbytes += view.nbytes
        return offset

    def tobytes(self) -> bytes:
        return b"".join(self.chunks)

    def write_into(self, buffer: np.ndarray) -> None:
        """Write the blob into ``buffer`` (a writable uint8 array of :attr:`nbytes` elements)."""
        if buffer.nbytes != self.nbytes:
            raise ValidationError(f"the weights take {self.nbytes} bytes; the buffer holds {buffer.nbytes}.")
        flat = buffer.reshape(-1).view(np.uint8)
        at = 0
        for chunk in self.chunks:
            flat[at:at + chunk.nbytes] = np.frombuffer(chunk, np.uint8)
            at += chunk.nbytes


def _attrs(attrs: Attrs | None) -> str:
    return "".join(f' {k}="{v}"' for k, v in attrs or ())


# -- the model --------------------------------------------------------------------------------------

@overload
def serialize(model: Model, xml_path: None = None, bin_path: None = None) -> tuple[bytes, bytes]: ...
@overload
def serialize(model: Model, xml_path: str | os.PathLike[str],
              bin_path: str | os.PathLike[str] | None = None) -> None: ...


def serialize(model: Model, xml_path: str | os.PathLike[str] | None = None,
              bin_path: str | os.PathLike[str] | None = None) -> tuple[bytes, bytes] | None:
    """Write ``model`` as OpenVINO IR v11.

    :param model: the model to write.
    :param xml_path: when given, write the XML there and return None (as ``openvino.serialize``).
    :param bin_path: where the weights go; defaults to ``xml_path`` with the suffix ``.bin``.
    :returns: ``(xml_bytes, weights_bytes)`` when no path is given, else None.
    :raises ValidationError: when the model holds something IR v11 cannot represent (a character
        XML 1.0 cannot hold, a tensor name ending with a backslash, an rt_info value that is not a
        string, number, list or dict); the message names the node.

    A sink that other nodes of the model consume is written as an ordinary op, so
    :func:`~ovconform.read_model` (whose sinks are the Assign layers without consumers) does not
    list it among the sinks; the graph is the same.

    Node ``rt_info`` entries are written as ``<user_data name=... value=... version=""/>``, which
    OpenVINO reads as ``rt_info["user_data" + name]``; model ``rt_info`` as nested elements.
    Non-string rt_info leaves are written as text (numbers with ``str``, lists space-separated,
    booleans ``true``/``false``) and read back as strings.
    """
    if not isinstance(model, Model):
        raise TypeError(f"serialize() needs an ovconform Model, not {type(model).__name__}.")
    xml, weights = _serialize(model)
    if xml_path is None:
        if bin_path is not None:
            raise TypeError("serialize(): bin_path needs xml_path.")
        return xml, weights
    xml_file = os.fspath(xml_path)
    bin_file = os.fspath(bin_path) if bin_path is not None else os.path.splitext(xml_file)[0] + ".bin"
    with open(xml_file, "wb") as f:
        f.write(xml)
    with open(bin_file, "wb") as f:
        f.write(weights)
    return None


def _serialize(model: Model) -> tuple[bytes, bytes]:
    xml, weights = serialize_chunks(model)
    return xml, weights.tobytes()


def serialize_chunks(model: Model) -> tuple[bytes, WeightChunks]:
    """``(xml_bytes, weights)`` with the weights not yet joined (:class:`WeightChunks`): a caller
    that needs them in a buffer of its own (the OpenVINO adapter, in a tensor OpenVINO owns)
    writes them there once, with no other copy of a real model's weights."""
    w = _Writer()
    w.open(0, "net", [("name", xml_attr(model.get_friendly_name(), "model name")), ("version", str(IR_VERSION))])
    _write_graph(w, model, _layer_order(model))
    w.close(0, "net")
    return w.xml(), w.weights


def _write_graph(w: _Writer, model: Model, order: list[Node]) -> None:
    """``<layers>``, ``<edges>`` and ``<rt_info>`` of ``model`` (the net, or a sub-graph body)."""
    ids = {id(node): i for i, node in enumerate(order)}
    w.open(1, "layers")
    for node in order:
        _write_layer(w, node, ids[id(node)])
    w.close(1, "layers")
    _write_edges(w, order, ids)
    _write_model_rt_info(w, model.rt_info)


def _layer_order(model: Model, ordered: list[Node] | None = None) -> list[Node]:
    """Parameters, other ops (topological), sinks without consumers, Results — as OpenVINO orders them."""
    params = model.get_parameters()
    results = model.get_results()
    ordered = model.get_ordered_ops() if ordered is None else ordered
    consumed = {id(src.node) for n in ordered for src in n.input_values()}
    tail_sinks = [s for s in model.get_sinks() if id(s) not in consumed]
    skip = {id(n) for n in (*params, *results, *tail_sinks)}
    middle = [n for n in ordered if id(n) not in skip]
    return [*params, *middle, *tail_sinks, *results]


# -- one layer --------------------------------------------------------------------------------------

def _write_layer(w: _Writer, node: Node, layer_id: int) -> None:
    what = describe(node)
    opdef = node.opdef
    head = [("id", str(layer_id)), ("name", xml_attr(node.friendly_name, f"{what}: friendly name")),
            ("type", opdef.ir_type_name or opdef.type_name), ("version", opdef.opset)]
    if node.type_name == "Result":  # as OpenVINO writes it: the names of the tensor the Result reads
        names = node.input_value(0).get_names()
        if names:
            label = f"{what}: output names"
            head.append(("output_names", xml_attr(format_names(names, label), label)))
    w.open(2, "layer", head)
    data = _data_attrs(w, node, what)
    if data:
        w.empty(3, "data", data)
    _write_node_rt_info(w, node.rt_info, what)
    bodies = write_port_maps(w, node) if has_bodies(node) else None
    n_in = node.get_input_size()
    if n_in:
        w.open(3, "input")
        for i, src in enumerate(node.input_values()):
            _write_port(w, i, src, None, what)
        w.close(3, "input")
    if node.type_name != "Result" and node.get_output_size():
        w.open(3, "output")
        for j, out in enumerate(node.outputs()):
            _write_port(w, n_in + j, out, out.get_names(), what)
        w.close(3, "output")
    if bodies is not None:
        for tag, body, order in bodies:
            w.open(3, tag)
            w.shift += 3
            _write_graph(w, body, order)
            w.shift -= 3
            w.close(3, tag)
    w.close(2, "layer")


def _data_attrs(w: _Writer, node: Node, what: str) -> list[tuple[str, str]]:
    out = []
    for spec in node.opdef.attrs:
        value = node.attrs.get(spec.name)
        if value is None or spec.kind == "subgraph":
            continue
        label = f"{what}: attribute {spec.name!r}"
        out.append((spec.name, xml_attr(format_attr(spec.kind, value, label), label)))
    if node.type_name == "Constant":
        blob = _constant_bytes(node, what)
        out += [("offset", str(w.add_weights(blob))), ("size", str(len(blob)))]
    return out


def _constant_bytes(node: Node, what: str) -> bytes | memoryview:
    """The Constant's weights as OpenVINO writes them: little-endian, packed types packed, strings
    as count, offsets and bytes; an empty Constant as one zero byte (as ``openvino.save_model``)."""
    data = node.data
    et = node.get_output_element_type(0)
    if not isinstance(data, np.ndarray) or data.dtype != et.to_dtype():
        raise ValidationError(f"{what}: data must be a numpy array of dtype {et.to_dtype()} for element type {et}.")
    if data.size == 0:
        return b"\x00"
    if not et.is_packed() and et != Type.string and data.flags.c_contiguous \
            and data.dtype == et.to_dtype().newbyteorder("<"):
        check_values(data, et, f"{what}: data")
        return data.data.cast("B")  # already OpenVINO's bytes: a view, not a copy
    return pack(data, et, f"{what}: data")


def _write_port(w: _Writer, port_id: int, value: Output, names: set[str] | None, what: str) -> None:
    attrs = [("id", str(port_id)), ("precision", value.get_element_type().ir_precision)]
    if names:
        label = f"{what}: output {value.get_index()}"
        attrs.append(("names", xml_attr(format_names(names, label), f"{label} tensor names")))
    shape = value.get_partial_shape()
    dims = list(shape) if shape.has_rank() else []
    if not dims:
        w.empty(4, "port", attrs)
        return
    w.open(4, "port", attrs)
    for d in dims:
        w.text(5, "dim", port_dim(d))
    w.close(4, "port")


def _write_edges(w: _Writer, order: list[Node], ids: dict[int, int]) -> None:
    edges = []
    for node in order:
        for i, src in enumerate(node.input_values()):
            producer = src.get_node()
            edges.append((ids[id(producer)], producer.get_input_size() + src.get_index(), ids[id(node)], i))
    edges.sort()
    if not edges:
        w.empty(1, "edges")
        return
    w.open(1, "edges")
    for fl, fp, tl, tp in edges:
        w.empty(2, "edge", [("from-layer", str(fl)), ("from-port", str(fp)), ("to-layer", str(tl)),
                            ("to-port", str(tp))])
    w.close(1, "edges")


# -- rt_info ------------------------------------------------------------------------------------------

def _write_node_rt_info(w: _Writer, rt_info: Mapping[str, Any], what: str) -> None:
    if not rt_info:
        return
    w.open(3, "rt_info")
    for key, value in rt_info.items():
        _write_user_data(w, 4, key, value, f"{what}: rt_info[{key!r}]", 1)
    w.close(3, "rt_info")


def _write_user_data(w: _Writer, depth: int, key: str, value: Any, what: str, level: int) -> None:
    _check_depth(level, what)
    if not isinstance(key, str):
        raise ValidationError(f"{what}: key {key!r} must be a string.")
    name = ("name", xml_attr(key, f"{what} key"))
    text = rt_value_text(value, what)
    if text is not None:
        w.empty(depth, "user_data", [name, ("value", xml_attr(text, what)), ("version", "")])
        return
    if not value:
        w.empty(depth, "user_data", [name, ("version", "")])
        return
    w.open(depth, "user_data", [name, ("version", "")])
    for k, v in value.items():
        _write_user_data(w, depth + 1, k, v, f"{what}[{k!r}]", level + 1)
    w.close(depth, "user_data")


def _write_model_rt_info(w: _Writer, rt_info: Mapping[str, Any]) -> None:
    if not rt_info:
        w.empty(1, "rt_info")
        return
    w.open(1, "rt_info")
    for key, value in rt_info.items():
        _write_meta(w, 2, key, value, f"model rt_info[{key!r}]", 1)
    w.close(1, "rt_info")


def _write_meta(w: _Writer, depth: int, key: str, value: Any, what: str, level: int) -> None:
    _check_depth(level, what)
    if not isinstance(key, str):
        raise ValidationError(f"{what}: key {key!r} must be a string.")
    tag, attrs = (key, []) if is_tag_name(key) else ("info", [("name", xml_attr(key, f"{what} key"))])
    text = rt_value_text(value, what)
    if text is not None:
        w.empty(depth, tag, [*attrs, ("value", xml_attr(text, what))])
    elif not value:
        w.empty(depth, tag, attrs)
    else:
        w.open(depth, tag, attrs)
        for k, v in value.items():
            _write_meta(w, depth + 1, k, v, f"{what}[{k!r}]", level + 1)
        w.close(depth, tag)


def _check_depth(level: int, what: str) -> None:
    if level > MAX_RT_INFO_DEPTH:
        raise ValidationError(f"{what}: rt_info is nested deeper than {MAX_RT_INFO_DEPTH} levels.")


# -- sub-graph bodies (If, Loop, TensorIterator) --------------------------------------------------------

def ov_topological(model: Model) -> list[Node]:
    """The nodes of ``model`` in the order of OpenVINO's ``topological_sort`` (a stack seeded with the
    results, sinks and parameters; each node's inputs pushed last-first), which decides where
    ``openvino.save_model`` puts a body's constants in the weights."""
    stack = [*model.get_results(), *model.get_sinks(), *model.get_parameters()]
    done: set[int] = set()
    visited: set[int] = set()
    order: list[Node] = []
    while stack:
        node = stack[-1]
        if id(node) in done:
            stack.pop()
            continue
        can_add = True
        n = node.get_input_size()
        for i in range(n):
            dep = node.input_value(n - 1 - i).node
            if id(dep) not in done and id(node) not in visited:
                can_add = False
                stack.append(dep)
        if can_add:
            order.append(node)
            stack.pop()
            done.add(id(node))
        visited.add(id(node))
    return order


def _slicing(d: Any) -> Attrs:
    return [("start", str(d.start)), ("end", str(d.end)), ("stride", str(d.stride)), ("part_size", str(d.part_size))]


def write_port_maps(w: _Writer, node: Node) -> list[tuple[str, Model, list[Node]]]:
    """Write the node's port maps and back edges as OpenVINO does; return the bodies to write (tag,
    body, layer order) after the node's ports."""
    from ovconform.ir._subgraph import (
        ConcatOutputDescription,
        MergedInputDescription,
        SliceInputDescription,
    )

    bodies: list[Model] = node.attrs["bodies"]
    n_in = node.get_input_size()
    orders = [_layer_order(b, ov_topological(b)) for b in bodies]
    lids = [{id(n): i for i, n in enumerate(order)} for order in orders]
    is_if = node.type_name == "If"
    tags = [("then_port_map", "then_body"), ("else_port_map", "else_body")] if is_if else [("port_map", "body")]
    for b in (1, 0) if is_if else (0,):  # OpenVINO writes the else port map first
        body, ids = bodies[b], lids[b]
        params, results = body.get_parameters(), body.get_results()
        w.open(3, tags[b][0])
        for d in node.attrs["input_descriptions"][b]:
            ext = [("external_port_id", str(d.input_index)),
                   ("internal_layer_id", str(ids[id(params[d.body_parameter_index])]))]
            if isinstance(d, SliceInputDescription):
                w.empty(4, "input", [("axis", str(d.axis)), *ext, *_slicing(d)])
            else:
                w.empty(4, "input", ext)
        for d in node.attrs["output_descriptions"][b]:
            ext = [("external_port_id", str(n_in + d.output_index)),
                   ("internal_layer_id", str(ids[id(results[d.body_value_index])]))]
            if isinstance(d, ConcatOutputDescription):
                w.empty(4, "output", [("axis", str(d.axis)), *ext, *_slicing(d)])
            else:
                w.empty(4, "output", ext)
        ports = node.attrs.get("special_body_ports")
        if ports is not None:
            if ports.current_iteration_input_idx >= 0:
                w.empty(4, "input", [("external_port_id", "-1"), ("internal_layer_id",
                        str(ids[id(params[ports.current_iteration_input_idx])])), ("purpose", "current_iteration")])
            if ports.body_condition_output_idx >= 0:
                w.empty(4, "output", [("external_port_id", "-1"), ("internal_layer_id",
                        str(ids[id(results[ports.body_condition_output_idx])])), ("purpose", "execution_condition")])
        w.close(3, tags[b][0])
        edges = [d for d in node.attrs["input_descriptions"][b] if isinstance(d, MergedInputDescription)]
        if edges:
            w.open(3, "back_edges")
            for d in edges:
                w.empty(4, "edge", [("from-layer", str(ids[id(results[d.body_value_index])])),
                                    ("to-layer", str(ids[id(params[d.body_parameter_index])]))])
            w.close(3, "back_edges")
    return [(tags[b][1], bodies[b], orders[b]) for b in range(len(bodies))]
