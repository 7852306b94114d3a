"""REFERENCE's weightless blobs (CACHE_MODE=OPTIMIZE_SIZE / ENABLE_WEIGHTLESS + WEIGHTS_PATH), the
blob header that marks them, the Core's COMPILED_BLOB hint and the cache key that leaves the
weightless properties out (the suite is ``suites/test_compiled_model_weightless.py``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import ovconform
from ovconform import Model
from ovconform import opset as ops
from ovconform import properties as P
from ovconform.errors import ImportModelError, PropertyError
from ovconform.host import cache
from reference_plugin._blob import Blob, pack, unpack


def _model(weights: tuple[float, ...] = (1, 2, 3)) -> Model:
    x = ops.parameter([1], np.float32, name="x")
    x.output(0).set_names({"x"})
    y = ops.relu(ops.multiply(x, ops.constant(np.array(weights, np.float32), name="w")))
    y.output(0).set_names({"y"})
    return Model([ops.result(y)], [x], "weighted")


def _run(compiled: ovconform.CompiledModel) -> np.ndarray:
    req = compiled.create_infer_request()
    req.infer({"x": np.array([2], np.float32)})
    return np.array(req.get_tensor("y").data)


def test_header_marks_a_weightless_blob() -> None:
    data = pack(Blob("REFERENCE", "REFERENCE", b"<net/>", b"", weights_size=12))
    assert unpack(data).weights_size == 12
    assert unpack(pack(Blob("REFERENCE", "REFERENCE", b"<net/>", b"abc"))).weights_size is None


@pytest.mark.parametrize(("blob", "match"), [
    (Blob("REFERENCE", "REFERENCE", b"<net/>", b"abc", weights_size=3), "marked weightless but holds 3 bytes"),
    (Blob("REFERENCE", "REFERENCE", b"<net/>", b"", weights_size=-1), "'weightless' is"),
])
def test_bad_weightless_header_is_refused(blob: Blob, match: str) -> None:
    with pytest.raises(ImportModelError, match=match):
        unpack(pack(blob))


def test_weightless_export_keeps_the_source_model(tmp_path: Path) -> None:
    """The blob holds the model as compiled (before transformations) and none of its weights;
    imported with the weights file it computes what the model computes, and exports weightless again."""
    core = ovconform.Core()
    model = _model()
    compiled = core.compile_model(model, "REFERENCE", {P.CACHE_MODE: "OPTIMIZE_SIZE"})
    blob = compiled.export_model()
    parts = unpack(blob)
    xml, weights = ovconform.serialize(model)
    assert parts.weights == b"" and parts.weights_size == len(weights) and P.WEIGHTS_PATH not in parts.config
    (tmp_path / "w.bin").write_bytes(weights)
    imported = core.import_model(blob, "REFERENCE", {P.WEIGHTS_PATH: str(tmp_path / "w.bin")})
    np.testing.assert_array_equal(_run(imported), [2, 4, 6])
    assert unpack(imported.export_model()).weights_size == len(weights)


def test_enable_weightless_beats_cache_mode() -> None:
    core = ovconform.Core()
    off = core.compile_model(_model(), "REFERENCE", {P.CACHE_MODE: "OPTIMIZE_SIZE", P.ENABLE_WEIGHTLESS: False})
    on = core.compile_model(_model(), "REFERENCE", {P.ENABLE_WEIGHTLESS: True})
    assert unpack(off.export_model()).weights_size is None and unpack(on.export_model()).weights_size is not None


def test_compiled_blob_hint_takes_bytes_arrays_and_tensors() -> None:
    core = ovconform.Core()
    blob = core.compile_model(_model((5, 6, 7)), "REFERENCE").export_model()
    empty = Model([], [], "empty")
    array = np.frombuffer(blob, np.uint8)
    for value in (blob, bytearray(blob), array, ovconform.Tensor(array)):
        np.testing.assert_array_equal(_run(core.compile_model(empty, "REFERENCE", {P.COMPILED_BLOB: value})),
                                      [10, 12, 14])
    with pytest.raises(PropertyError, match="COMPILED_BLOB"):
        core.compile_model(empty, "REFERENCE", {P.COMPILED_BLOB: 3.5})


def test_weightless_properties_are_not_in_the_cache_key() -> None:
    model = _model()
    keys = {cache.cache_key(model, "REFERENCE", {}, props, "1") for props in (
        {}, {P.CACHE_MODE: "OPTIMIZE_SIZE"}, {P.WEIGHTS_PATH: "/x.bin"}, {P.ENABLE_WEIGHTLESS: True})}
    assert len(keys) == 1
    assert cache.cache_key(model, "REFERENCE", {}, {P.PERF_COUNT: True}, "1") not in keys
