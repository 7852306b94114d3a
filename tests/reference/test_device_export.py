"""REFERENCE export_model / import_model: the versioned blob, its checks, configuration, caching."""

from __future__ import annotations

import io
import json
import struct
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from device_models import (
    collect_garbage_after_each_test,  # noqa: F401 - autouse fixture
    mixed_expected,
    mixed_model,
    rand,
    two_input_model,
)

import ovconform
from ovconform import opset as ops
from ovconform.contract.blob import seal
from ovconform.errors import ImportModelError, ValidationError
from ovconform.ir import Model, Type
from reference_plugin._blob import FORMAT_VERSION, MAGIC, Blob, pack, unpack
from reference_plugin.plugin import ReferencePlugin


@pytest.fixture
def plugin() -> ReferencePlugin:
    return ReferencePlugin()


def run(compiled: Any, *inputs: np.ndarray) -> list[np.ndarray]:
    return list(compiled.create_infer_request().infer(list(inputs)).values())


def ports(compiled: Any) -> list[tuple[Any, ...]]:
    return [(sorted(p.get_names()), str(p.get_partial_shape()), p.get_element_type())
            for p in [*compiled.inputs, *compiled.outputs]]


# -- round trips ----------------------------------------------------------------------------------
def test_round_trip_keeps_ports_graph_and_results(plugin: ReferencePlugin) -> None:
    compiled = plugin.compile_model(mixed_model())
    stream = io.BytesIO()
    blob = compiled.export_model(stream)
    assert stream.getvalue() == blob and blob.startswith(MAGIC)
    imported = plugin.import_model(io.BytesIO(blob))
    assert ports(imported) == ports(compiled)
    assert [(n.type_name, n.friendly_name, n.rt_info) for n in imported.model.get_ordered_ops()] == \
        [(n.type_name, n.friendly_name, n.rt_info) for n in compiled.model.get_ordered_ops()]
    assert imported.get_property("MODEL_NAME") == "mixed"
    x = rand(np.random.default_rng(0), 2, 3)
    assert np.array_equal(run(imported, x)[0], mixed_expected(x))
    assert imported.get_property("LOADED_FROM_CACHE") is False


def test_two_inputs_two_outputs_keep_their_order_and_names(plugin: ReferencePlugin) -> None:
    compiled = plugin.compile_model(two_input_model())
    imported = ovconform.Core().import_model(compiled.export_model(), "REFERENCE")
    assert ports(imported) == ports(compiled)
    request = imported.create_infer_request()
    out = request.infer({"a": np.full((2, 2), 3, np.float32), "b": np.full((2, 2), 2, np.float32)})
    assert out["sum"].tolist() == [[5, 5], [5, 5]] and out["prod"].tolist() == [[6, 6], [6, 6]]


@pytest.mark.parametrize("dtype", [Type.f32, Type.f16, Type.f64, Type.bf16, Type.i8, Type.i32, Type.i64, Type.u8,
                                   Type.u16, Type.u64, Type.boolean])
def test_parameter_to_result_and_constant_to_result_for_each_type(plugin: ReferencePlugin, dtype: Type) -> None:
    p = ops.parameter([2, 2], dtype, name="p")
    value = np.arange(4).reshape(2, 2).astype(dtype.to_dtype())
    c = ops.constant(value, dtype, name="c")
    p.output(0).set_names({"in"})
    c.output(0).set_names({"const"})
    imported = plugin.import_model(plugin.compile_model(Model([p, c], [p], "pr")).export_model())
    assert [o.get_element_type() for o in imported.outputs] == [dtype, dtype]
    out = run(imported, value[::-1].copy())
    assert np.array_equal(out[0], value[::-1]) and np.array_equal(out[1], value)


def test_the_blob_keeps_the_compile_configuration(plugin: ReferencePlugin) -> None:
    model = two_input_model()
    compiled = plugin.compile_model(model, {"PERF_COUNT": True, "INFERENCE_PRECISION_HINT": "f16", "NUM_STREAMS": 2})
    blob = compiled.export_model()
    imported = plugin.import_model(blob)
    for name in ("PERF_COUNT", "INFERENCE_PRECISION_HINT", "OPTIMAL_NUMBER_OF_INFER_REQUESTS"):
        assert imported.get_property(name) == compiled.get_property(name)
    a, b = np.float32([[1.0001, 3], [5, 7]]), np.float32([[1, 1], [1, 1]])
    assert np.array_equal(run(imported, a, b)[0], run(compiled, a, b)[0])
    assert not np.array_equal(run(imported, a, b)[0], a + b)  # f16 rounding is back, not f32
    overridden = plugin.import_model(blob, {"PERF_COUNT": False})  # the call's properties win
    assert overridden.get_property("PERF_COUNT") is False
    assert overridden.get_property("INFERENCE_PRECISION_HINT") == Type.f16


def test_blob_header_is_plain_json(plugin: ReferencePlugin) -> None:
    blob = plugin.compile_model(mixed_model()).export_model()
    parts = unpack(blob)
    assert (parts.device, parts.architecture, parts.format_version) == ("REFERENCE", "REFERENCE", FORMAT_VERSION)
    assert parts.config["INFERENCE_PRECISION_HINT"] == "f32" and parts.config["PERF_COUNT"] == "NO"
    assert parts.producer.startswith("ovconform ") and parts.xml.startswith(b"<?xml")
    (size,) = struct.unpack_from("<I", blob, len(MAGIC) + 4)
    header = json.loads(blob[len(MAGIC) + 8:len(MAGIC) + 8 + size])
    assert header["device"] == "REFERENCE" and set(header) == {"device", "architecture", "config", "producer"}


# -- import errors -------------------------------------------------------------------------------
def _good_blob(plugin: ReferencePlugin) -> bytes:
    return plugin.compile_model(two_input_model()).export_model()


def _xml_offset(blob: bytes) -> int:
    """Where the model xml starts (after magic, version, header size, header and xml size)."""
    (size,) = struct.unpack_from("<I", blob, len(MAGIC) + 4)
    return len(MAGIC) + 8 + size + 8


def _flip(blob: bytes, index: int) -> bytes:
    return blob[:index] + bytes([blob[index] ^ 1]) + blob[index + 1:]


def _repack(blob: bytes, **changes: Any) -> bytes:
    parts = unpack(blob)
    fields = {"device": parts.device, "architecture": parts.architecture, "xml": parts.xml, "weights": parts.weights,
              "config": parts.config, "producer": parts.producer, "format_version": parts.format_version}
    return pack(Blob(**{**fields, **changes}))


@pytest.mark.parametrize(("mangle", "message"), [
    (lambda b: b"", r"cannot import an empty stream"),
    (lambda b: b"<?xml version='1.0'?><net/>", r"not a REFERENCE compiled-model blob: it starts with b'<\?xml"),
    (lambda b: b"OVREF", r"not a REFERENCE compiled-model blob"),
    (lambda b: MAGIC + struct.pack("<I", FORMAT_VERSION + 1) + b[len(MAGIC) + 4:],
     rf"format version {FORMAT_VERSION + 1}, which is newer than this plugin reads \(up to {FORMAT_VERSION}\)"),
    (lambda b: MAGIC + struct.pack("<I", 0) + b[len(MAGIC) + 4:], r"invalid format version 0"),
    (lambda b: b[:len(MAGIC) + 2], r"truncated: its format version needs 4 byte\(s\) but only 2 remain"),
    (lambda b: b[:_xml_offset(b) + 10], r"truncated: its model xml section needs \d+ byte\(s\) but only 10 remain"),
    (lambda b: b[:-5], r"truncated: its sha256 checksum needs 32 byte\(s\) but only 27 remain"),
    (lambda b: b + b"\0\0", r"2 unexpected byte\(s\) after its checksum"),
    (lambda b: _flip(b, _xml_offset(b) + 50), r"checksum mismatch: the REFERENCE blob is corrupt"),
    (lambda b: _flip(b, len(b) - 1), r"checksum mismatch"),
    (lambda b: _repack(b, device="OTHER"), r"exported by device 'OTHER' \(architecture 'REFERENCE'\); "
                                           r"this device is 'REFERENCE'"),
    (lambda b: _repack(b, architecture="REFERENCE-2"), r"architecture 'REFERENCE-2'"),
    (lambda b: _repack(b, config={"NOT_A_PROPERTY": "1"}), r"compile configuration is not valid here: "
                                                           r"Unsupported property 'NOT_A_PROPERTY'"),
    (lambda b: _repack(b, config={"INFERENCE_PRECISION_HINT": "bf16"}), r"Wrong value 'bf16'"),
    (lambda b: _repack(b, xml=b"<net/>"), r"could not import the blob: ReadModelError"),
])
def test_bad_blobs_are_refused_saying_why(plugin: ReferencePlugin, mangle: Any, message: str) -> None:
    with pytest.raises(ImportModelError, match=message) as info:
        plugin.import_model(mangle(_good_blob(plugin)))
    assert "REFERENCE" in str(info.value)


def test_unpack_checks_the_header_itself() -> None:
    body = MAGIC + struct.pack("<I", 1)
    for header, message in ((b"[1]", "JSON list, not an object"), (b"\xff", "not UTF-8 JSON"),
                            (b'{"device": 1}', "'device' is 1"),
                            (b'{"device": "R", "architecture": "R", "producer": "", "config": {"A": 1}}',
                             "must map names to strings")):
        data = body + struct.pack("<I", len(header)) + header + struct.pack("<Q", 0) + struct.pack("<Q", 0)
        data = seal(data)
        with pytest.raises(ImportModelError, match=message):
            unpack(data)


def test_import_needs_bytes_or_a_stream(plugin: ReferencePlugin) -> None:
    with pytest.raises(ValidationError, match="needs bytes or a binary stream, not int"):
        plugin.import_model(42)


# -- LOADED_FROM_CACHE ------------------------------------------------------------------------------
def test_loaded_from_cache_is_true_only_for_the_cores_cache(tmp_path: Path) -> None:
    core = ovconform.Core()
    core.set_property({"CACHE_DIR": str(tmp_path)})
    model = mixed_model()
    first = core.compile_model(model, "REFERENCE")
    second = core.compile_model(model, "REFERENCE")
    assert first.get_property("LOADED_FROM_CACHE") is False
    assert second.get_property("LOADED_FROM_CACHE") is True
    assert len(list(tmp_path.glob("*.blob"))) == 1
    x = rand(np.random.default_rng(4), 2, 3)
    assert np.array_equal(run(first, x)[0], run(second, x)[0])
    assert core.compile_model(model, "REFERENCE").get_property("LOADED_FROM_CACHE") is True
    assert len(list(tmp_path.glob("*.blob"))) == 1
    plain = ovconform.Core().import_model(first.export_model(), "REFERENCE")
    assert plain.get_property("LOADED_FROM_CACHE") is False


def test_a_corrupt_cache_blob_is_rebuilt(tmp_path: Path) -> None:
    core = ovconform.Core()
    core.set_property({"CACHE_DIR": str(tmp_path)})
    core.compile_model(mixed_model(), "REFERENCE")
    (path,) = tmp_path.glob("*.blob")
    data = bytearray(path.read_bytes())
    data[-1] ^= 0xFF  # inside our blob: the Core's own checksum catches it first
    path.write_bytes(bytes(data))
    again = core.compile_model(mixed_model(), "REFERENCE")
    assert again.get_property("LOADED_FROM_CACHE") is False
    assert core.compile_model(mixed_model(), "REFERENCE").get_property("LOADED_FROM_CACHE") is True
