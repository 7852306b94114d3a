"""Cache encryption (``ov_plugin`` entity): OpenVINO's ``behavior/ov_plugin/caching_tests.hpp``
CompileModelWithCacheEncryptionTest.CanImportModelWithoutException (–).

``CACHE_ENCRYPTION_CALLBACKS`` (``ov::cache_encryption_callbacks``; OpenVINO's Python API takes
``[encrypt, decrypt]``, each ``bytes -> bytes``) given to compile_model and import_model: an IR
compiled by path with CACHE_DIR is not loaded from the cache, its export imports with the same
callbacks (not from the cache), and a second compile loads the cached blob. Beyond OpenVINO,
which only checks LOADED_FROM_CACHE: both callbacks are called; the cached blob and the exported
blob hold nothing of the model's topology in clear (its distinctive layer name; OpenVINO promises
that the topology is encrypted); an import without the callbacks is refused with an
ImportModelError; every compiled model computes the right outputs.

Optional: needs EXPORT_IMPORT; a device that refuses the property (a PropertyError or
NotImplementedByDeviceError naming it) skips. The cipher is not its own inverse, so encrypting a
blob that holds an already encrypted part cannot give clear text back by accident.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import ovconform
from ovconform import Model
from ovconform import opset as ops
from ovconform import properties as P
from ovconform.assertions import assert_equal, assert_outputs_close, assert_raises_ov_error, assert_that, call, no_error
from ovconform.errors import ImportModelError, NotImplementedByDeviceError, PropertyError

pytestmark = [pytest.mark.entity("ov_plugin"), pytest.mark.capability("EXPORT_IMPORT")]

#: The layer name that must not be readable in an encrypted blob.
MARK = "ovconform_secret_layer_5e1f"
SCALE = np.array([0.5, -2.0, 3.0], np.float32).reshape(1, 3, 1, 1)


class Cipher:
    """A byte cipher that is not its own inverse (reverse, then add 0x5B), counting its calls."""

    def __init__(self) -> None:
        self.encrypted = self.decrypted = 0

    def encrypt(self, data: bytes) -> bytes:
        self.encrypted += 1
        return bytes((b + 0x5B) & 0xFF for b in reversed(data))

    def decrypt(self, data: bytes) -> bytes:
        self.decrypted += 1
        return bytes((b - 0x5B) & 0xFF for b in reversed(data))

    def config(self) -> dict[str, Any]:
        return {P.CACHE_ENCRYPTION_CALLBACKS: [self.encrypt, self.decrypt]}


def _model() -> Model:
    x = ops.parameter([1, 3, 4, 4], np.float32, name="data")
    x.output(0).set_names({"data"})
    scaled = ops.multiply(x, ops.constant(SCALE, name="scale"), name="scaled")
    out = ops.relu(scaled, name=MARK)
    out.output(0).set_names({"out"})
    return Model([ops.result(out)], [x], "EncryptedCacheModel")


def _check(compiled: Any, seed: int, where: str) -> None:
    x = np.random.default_rng(seed).standard_normal((1, 3, 4, 4)).astype(np.float32)
    with no_error(f"{where}; infer"):
        got = compiled.create_infer_request().infer({"data": x})
        value = next(iter(got.values())) if isinstance(got, dict) else list(got)[0]
    assert_outputs_close(value, np.maximum(x * SCALE, np.float32(0)), "out", where)


def _loaded(compiled: Any, expected: bool, where: str) -> None:
    with no_error(f"{where}; get_property({P.LOADED_FROM_CACHE})"):
        got = compiled.get_property(P.LOADED_FROM_CACHE)
    assert_equal(bool(got), expected, P.LOADED_FROM_CACHE, where)


def _no_clear_topology(data: bytes, what: str, where: str) -> None:
    assert_that(MARK.encode() not in data, f"{what}: the layer name {MARK!r} in clear", "found",
                "not found (the topology encrypted with CACHE_ENCRYPTION_CALLBACKS)", where)


def test_can_import_model_without_exception(ov_core: Any, ov_device_name: str, tmp_path: Path) -> None:
    """CompileModelWithCacheEncryptionTest.CanImportModelWithoutException (–)."""
    xml, weights = ovconform.serialize(_model())
    path = tmp_path / "model.xml"
    path.write_bytes(xml)
    path.with_suffix(".bin").write_bytes(weights)
    cache = tmp_path / "cache"
    ov_core.set_property({P.CACHE_DIR: str(cache)})
    cipher = Cipher()
    where = call(ov_device_name, "compile_model", str(path), "CACHE_DIR + CACHE_ENCRYPTION_CALLBACKS")
    try:
        first = ov_core.compile_model(str(path), ov_device_name, cipher.config())
    except (PropertyError, NotImplementedByDeviceError) as e:
        if P.CACHE_ENCRYPTION_CALLBACKS not in str(e):
            raise
        pytest.skip(f"{ov_device_name}: refuses {P.CACHE_ENCRYPTION_CALLBACKS} ({e})")
    _loaded(first, False, where + ", first")
    _check(first, 0, where + ", first")
    assert_that(cipher.encrypted >= 1, "calls of the encrypt callback", cipher.encrypted, ">= 1", where)
    blobs = sorted(p for p in cache.iterdir() if p.is_file()) if cache.is_dir() else []
    assert_equal(len(blobs), 1, "blob files in CACHE_DIR", where)
    _no_clear_topology(blobs[0].read_bytes(), "the cached blob", where)

    where_export = call(ov_device_name, "export_model", "compiled with CACHE_ENCRYPTION_CALLBACKS")
    with no_error(where_export):
        blob = bytes(first.export_model())
    _no_clear_topology(blob, "the exported blob", where_export)
    where_import = call(ov_device_name, "import_model", "the exported blob", "CACHE_ENCRYPTION_CALLBACKS")
    decrypted = cipher.decrypted
    with no_error(where_import):
        imported = ov_core.import_model(blob, ov_device_name, cipher.config())
    _loaded(imported, False, where_import)
    _check(imported, 1, where_import)
    assert_that(cipher.decrypted > decrypted, "calls of the decrypt callback", cipher.decrypted - decrypted,
                ">= 1", where_import)
    assert_raises_ov_error(ImportModelError, ov_core.import_model, blob, ov_device_name,
                           call=call(ov_device_name, "import_model", "the encrypted blob", "without the callbacks"))

    decrypted = cipher.decrypted
    with no_error(where + ", second"):
        second = ov_core.compile_model(str(path), ov_device_name, cipher.config())
    _loaded(second, True, where + ", second")
    _check(second, 2, where + ", second")
    assert_that(cipher.decrypted > decrypted, "calls of the decrypt callback on the cache hit",
                cipher.decrypted - decrypted, ">= 1", where + ", second")
