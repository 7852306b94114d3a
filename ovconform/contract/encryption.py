"""CACHE_ENCRYPTION_CALLBACKS (``ov::cache_encryption_callbacks``): the encrypted envelope around
a device's export blob.

A model compiled (or imported) with ``CACHE_ENCRYPTION_CALLBACKS: [encrypt, decrypt]`` exports
its blob, and so the Core's cache stores it, inside this envelope; importing it needs the same
callbacks. The device's own blob is encrypted whole, so nothing of the model (layer names,
weights) is left in clear; the envelope's clear header names the device for the error messages.

Layout (integers little-endian, sections and checksum as in :mod:`ovconform.contract.blob`)::

    magic            8 bytes   b"OVENCBLB"
    format version   u32       1
    header           u32 size + UTF-8 JSON {"device"}
    ciphertext       u64 size + encrypt(device blob)
    checksum         32 bytes  sha256 of every byte before it

Every failure on import is an :class:`~ovconform.errors.ImportModelError` saying what is wrong;
a callback that raises or returns something other than bytes is one too (or a CompileError on
export).
"""

from __future__ import annotations

import json
import struct
from collections.abc import Callable, MutableMapping
from typing import Any, Final

from ovconform import properties as P
from ovconform.contract.blob import close_blob, json_header, open_blob, seal
from ovconform.errors import CompileError, ImportModelError, OVConformError

__all__ = ["MAGIC", "decrypt_blob", "encrypt_blob", "is_encrypted", "pop_callbacks"]

MAGIC: Final = b"OVENCBLB"
FORMAT_VERSION: Final = 1
_NAME: Final = "encrypted blob"


def pop_callbacks(props: MutableMapping[str, Any]) -> P.EncryptionCallbacks | None:
    """Take CACHE_ENCRYPTION_CALLBACKS out of ``props`` (it is not a stored property: OpenVINO makes
    it write-only); None when absent or None.

    :raises PropertyError: naming the property, the bad value and what is allowed.
    """
    value = props.pop(P.CACHE_ENCRYPTION_CALLBACKS, None)
    return None if value is None else P.parse_value(P.CACHE_ENCRYPTION_CALLBACKS, value)


def is_encrypted(blob: bytes) -> bool:
    return blob[:len(MAGIC)] == MAGIC


def _apply(fn: Callable[[bytes], bytes], data: bytes, what: str, error: type[OVConformError]) -> bytes:
    try:
        out = fn(data)
    except Exception as e:  # noqa: BLE001 - the user's callback: reported with what it was doing
        raise error(f"the CACHE_ENCRYPTION_CALLBACKS {what} callback raised {type(e).__name__}: {e}") from e
    if not isinstance(out, (bytes, bytearray, memoryview)):
        raise error(f"the CACHE_ENCRYPTION_CALLBACKS {what} callback returned {type(out).__name__}; "
                    "it must return bytes.")
    return bytes(out)


def encrypt_blob(blob: bytes, callbacks: P.EncryptionCallbacks, device: str) -> bytes:
    """``blob`` encrypted with ``callbacks.encrypt``, in the envelope."""
    cipher = _apply(callbacks.encrypt, blob, "encrypt", CompileError)
    header = json.dumps({"device": device}, sort_keys=True).encode("utf-8")
    return seal(b"".join([MAGIC, struct.pack("<I", FORMAT_VERSION), struct.pack("<I", len(header)), header,
                          struct.pack("<Q", len(cipher)), cipher]))


def decrypt_blob(blob: bytes, callbacks: P.EncryptionCallbacks | None, device: str) -> bytes:
    """The device blob inside an encrypted ``blob``; ``blob`` itself when it is not encrypted.

    :raises ImportModelError: the blob is encrypted and no callbacks were given, the envelope is
        damaged, or the decrypt callback fails.
    """
    if not is_encrypted(blob):
        return blob
    _, reader = open_blob(blob, MAGIC, _NAME, FORMAT_VERSION, "this version of ovconform")
    header = json_header(reader.section("header", "<I"), _NAME)
    cipher = reader.section("ciphertext", "<Q")
    close_blob(reader)
    if callbacks is None:
        raise ImportModelError(
            f"device {device!r} cannot import the blob: it is encrypted (exported by device "
            f"{header.get('device')!r} with CACHE_ENCRYPTION_CALLBACKS); import it with the same "
            f"{P.CACHE_ENCRYPTION_CALLBACKS}: [encrypt, decrypt].")
    return _apply(callbacks.decrypt, cipher, "decrypt", ImportModelError)
