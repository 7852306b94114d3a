"""CACHE_ENCRYPTION_CALLBACKS in the contract (``ovconform/contract/encryption.py``) and the
static-only declaration (``Plugin.supports_dynamic_shapes``), on REFERENCE and HETERO."""

from __future__ import annotations

import numpy as np
import pytest

from ovconform import Core, Model
from ovconform import opset as ops
from ovconform import properties as P
from ovconform.contract import encryption
from ovconform.errors import CompileError, ImportModelError, NotImplementedByDeviceError, PropertyError
from reference_plugin.plugin import ReferencePlugin

MARK = b"layer_to_hide_8c2d"


def _model(shape: list[int] | None = None) -> Model:
    x = ops.parameter(shape or [2, 3], np.float32, name="x")
    return Model([ops.result(ops.relu(x, name=MARK.decode()))], [x], "m")


def _xor(data: bytes) -> bytes:
    return bytes(b ^ 0xA7 for b in data)


CALLBACKS = {P.CACHE_ENCRYPTION_CALLBACKS: [_xor, _xor]}


@pytest.mark.parametrize("device", ["REFERENCE", "HETERO:REFERENCE"])
def test_export_is_encrypted_and_imports_only_with_the_callbacks(device: str) -> None:
    core = Core()
    blob = core.compile_model(_model(), device, CALLBACKS).export_model()
    assert encryption.is_encrypted(blob) and MARK not in blob
    target = device.split(":")[0]
    with pytest.raises(ImportModelError, match="encrypted .* CACHE_ENCRYPTION_CALLBACKS"):
        core.import_model(blob, target)
    imported = core.import_model(blob, target, CALLBACKS)
    x = np.array([[-1, 2, -3], [4, -5, 6]], np.float32)
    np.testing.assert_array_equal(next(iter(imported({"x": x}).values())), np.maximum(x, 0))
    assert encryption.is_encrypted(imported.export_model()), "a model imported with the callbacks exports encrypted"


def test_without_callbacks_the_blob_is_plain() -> None:
    blob = Core().compile_model(_model(), "REFERENCE").export_model()
    assert not encryption.is_encrypted(blob) and MARK in blob


@pytest.mark.parametrize("value", [_xor, [_xor], [_xor, 3], "xor", (_xor, _xor, _xor)])
def test_bad_callbacks_are_refused(value: object) -> None:
    with pytest.raises(PropertyError, match="CACHE_ENCRYPTION_CALLBACKS.*two callables"):
        Core().compile_model(_model(), "REFERENCE", {P.CACHE_ENCRYPTION_CALLBACKS: value})


def test_object_with_encrypt_and_decrypt_is_accepted() -> None:
    pair = P.EncryptionCallbacks(_xor, _xor)
    assert P.parse_value(P.CACHE_ENCRYPTION_CALLBACKS, pair) is pair
    blob = Core().compile_model(_model(), "REFERENCE", {P.CACHE_ENCRYPTION_CALLBACKS: pair}).export_model()
    assert encryption.is_encrypted(blob)


def test_callback_failures_are_documented_errors() -> None:
    core = Core()
    bad_encrypt = core.compile_model(_model(), "REFERENCE", {P.CACHE_ENCRYPTION_CALLBACKS: [lambda b: "text", _xor]})
    with pytest.raises(CompileError, match="encrypt callback returned str"):
        bad_encrypt.export_model()
    blob = core.compile_model(_model(), "REFERENCE", CALLBACKS).export_model()

    def boom(data: bytes) -> bytes:
        raise ValueError("wrong key")

    with pytest.raises(ImportModelError, match="decrypt callback raised ValueError: wrong key"):
        core.import_model(blob, "REFERENCE", {P.CACHE_ENCRYPTION_CALLBACKS: [_xor, boom]})
    damaged = bytearray(blob)
    damaged[-40] ^= 1
    with pytest.raises(ImportModelError, match="checksum mismatch"):
        core.import_model(bytes(damaged), "REFERENCE", CALLBACKS)


def test_the_cache_stores_the_encrypted_blob(tmp_path: object) -> None:
    core = Core()
    core.set_property({P.CACHE_DIR: str(tmp_path)})
    core.compile_model(_model(), "REFERENCE", CALLBACKS)
    blobs = list(tmp_path.iterdir())  # type: ignore[attr-defined]
    assert len(blobs) == 1 and MARK not in blobs[0].read_bytes()
    again = core.compile_model(_model(), "REFERENCE", CALLBACKS)
    assert again.get_property(P.LOADED_FROM_CACHE) is True
    # the blob is encrypted: without the callbacks it cannot load, so the Core compiles again
    assert core.compile_model(_model(), "REFERENCE").get_property(P.LOADED_FROM_CACHE) is False


class _StaticOnly(ReferencePlugin):
    device_name = "STATIC_ONLY"
    supports_dynamic_shapes = False


def test_static_only_device_refuses_dynamic_inputs() -> None:
    core = Core({"STATIC_ONLY": _StaticOnly})
    with pytest.raises(NotImplementedByDeviceError, match=r"static shapes only.*dynamic inputs: x \[\?,3\]"):
        core.compile_model(_model([-1, 3]), "STATIC_ONLY")
    x = np.ones((2, 3), np.float32)
    np.testing.assert_array_equal(next(iter(core.compile_model(_model(), "STATIC_ONLY")({"x": x}).values())), x)
    assert ReferencePlugin.supports_dynamic_shapes is True
