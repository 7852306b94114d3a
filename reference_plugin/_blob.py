"""The REFERENCE device's export/import blob: a versioned, checksummed container (no pickle).

Layout (integers little-endian)::

    magic            8 bytes   b"OVREFBLB"
    format version   u32       FORMAT_VERSION
    header           u32 size + UTF-8 JSON {"device", "architecture", "config", "producer"}
    model xml        u64 size + IR v11 XML bytes
    model weights    u64 size + IR v11 weights bytes
    checksum         32 bytes  sha256 of every byte before it

:func:`unpack` checks, in order: the magic, the format version (a newer version is refused
before anything else is read, since its layout may differ), the section sizes (truncation),
the checksum, then the header's JSON. Each failure is an :class:`~ovconform.errors.ImportModelError`
saying what was wrong. The device and architecture are checked by the plugin.
"""

from __future__ import annotations

import hashlib
import json
import struct
from dataclasses import dataclass, field
from typing import Any, Final

from ovconform.errors import ImportModelError

MAGIC: Final = b"OVREFBLB"
FORMAT_VERSION: Final = 1
_DIGEST: Final = 32
_SECTIONS: Final = (("header", "<I"), ("model xml", "<Q"), ("model weights", "<Q"))


@dataclass(frozen=True)
class Blob:
    """The parts of an exported compiled model."""

    device: str
    architecture: str
    xml: bytes
    weights: bytes
    config: dict[str, str] = field(default_factory=dict)
    producer: str = ""
    format_version: int = FORMAT_VERSION


def pack(blob: Blob) -> bytes:
    """The bytes of ``blob`` (its ``format_version`` is written as given)."""
    header = json.dumps({"device": blob.device, "architecture": blob.architecture, "config": blob.config,
                         "producer": blob.producer}, sort_keys=True).encode("utf-8")
    body = b"".join([MAGIC, struct.pack("<I", blob.format_version),
                     struct.pack("<I", len(header)), header,
                     struct.pack("<Q", len(blob.xml)), blob.xml,
                     struct.pack("<Q", len(blob.weights)), blob.weights])
    return body + hashlib.sha256(body).digest()


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data, self.pos = data, 0

    def take(self, size: int, what: str) -> bytes:
        left = len(self.data) - self.pos
        if size > left:
            raise ImportModelError(f"the blob is truncated: its {what} needs {size} byte(s) but only {left} remain.")
        chunk = self.data[self.pos:self.pos + size]
        self.pos += size
        return chunk

    def section(self, what: str, fmt: str) -> bytes:
        (size,) = struct.unpack(fmt, self.take(struct.calcsize(fmt), f"{what} size"))
        return self.take(size, f"{what} section")


def unpack(data: bytes) -> Blob:
    """Read and check a blob made by :func:`pack`.

    :raises ImportModelError: for an empty stream, a wrong magic, a newer or invalid format
        version, a truncated section, trailing bytes, a checksum mismatch or a bad header.
    """
    if not data:
        raise ImportModelError("the stream is empty: there is no REFERENCE blob header to read.")
    if data[:len(MAGIC)] != MAGIC:
        raise ImportModelError(f"this is not a REFERENCE compiled-model blob: it starts with "
                               f"{bytes(data[:len(MAGIC)])!r}, not the magic {MAGIC!r}.")
    reader = _Reader(data)
    reader.take(len(MAGIC), "magic")
    (version,) = struct.unpack("<I", reader.take(4, "format version"))
    if version > FORMAT_VERSION:
        raise ImportModelError(f"the blob has format version {version}, which is newer than this plugin "
                               f"reads (up to {FORMAT_VERSION}); export it again with this version.")
    if version < 1:
        raise ImportModelError(f"the blob has an invalid format version {version}; versions start at 1.")
    header, xml, weights = (reader.section(what, fmt) for what, fmt in _SECTIONS)
    digest = reader.take(_DIGEST, "sha256 checksum")
    if reader.pos != len(data):
        raise ImportModelError(f"the blob has {len(data) - reader.pos} unexpected byte(s) after its checksum.")
    actual = hashlib.sha256(data[:-_DIGEST]).digest()
    if actual != digest:
        raise ImportModelError(f"checksum mismatch: the blob is corrupt (sha256 of its content is "
                               f"{actual.hex()[:16]}..., the blob records {digest.hex()[:16]}...).")
    return _with_header(_parse_header(header), xml, weights, version)


def _parse_header(raw: bytes) -> dict[str, Any]:
    try:
        header = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ImportModelError(f"the blob header is not UTF-8 JSON: {e}") from None
    if not isinstance(header, dict):
        raise ImportModelError(f"the blob header is a JSON {type(header).__name__}, not an object.")
    for key in ("device", "architecture", "producer"):
        if not isinstance(header.get(key), str):
            raise ImportModelError(f"the blob header's {key!r} is {header.get(key)!r}; it must be a string.")
    config = header.get("config")
    if not isinstance(config, dict) or not all(isinstance(v, str) for v in config.values()):
        raise ImportModelError(f"the blob header's 'config' is {config!r}; it must map names to strings.")
    return header


def _with_header(header: dict[str, Any], xml: bytes, weights: bytes, version: int) -> Blob:
    return Blob(header["device"], header["architecture"], xml, weights, dict(header["config"]),
                header["producer"], version)
