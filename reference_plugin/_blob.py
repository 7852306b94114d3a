"""The REFERENCE device's export/import blob: a versioned, checksummed container (no pickle).

Layout (integers little-endian)::

    magic            8 bytes   b"OVREFBLB"
    format version   u32       FORMAT_VERSION
    header           u32 size + UTF-8 JSON {"device", "architecture", "config", "producer"}
                               (+ "weightless": {"weights_size": N} for a weightless blob)
    model xml        u64 size + IR v11 XML bytes
    model weights    u64 size + IR v11 weights bytes (empty in a weightless blob)
    checksum         32 bytes  sha256 of every byte before it

A weightless blob (CACHE_MODE=OPTIMIZE_SIZE or ENABLE_WEIGHTLESS) holds the XML of the model as
it was given to compile_model, whose Constants point into the weights that ``ovconform.serialize``
writes for it (N bytes); import reads them from WEIGHTS_PATH and compiles again.

:func:`unpack` checks, in order: the magic, the format version (a newer version is refused
before anything else is read, since its layout may differ), the section sizes (truncation),
the checksum, then the header's JSON. Each failure is an :class:`~ovconform.errors.ImportModelError`
saying what was wrong. The device and architecture are checked by the plugin.
"""

from __future__ import annotations

import json
import struct
from dataclasses import dataclass, field
from typing import Any, Final

from ovconform.contract.blob import close_blob, json_header, open_blob, seal
from ovconform.errors import ImportModelError

MAGIC: Final = b"OVREFBLB"
FORMAT_VERSION: Final = 1
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
    #: The size of the weights file import needs (WEIGHTS_PATH); None when the weights are inside.
    weights_size: int | None = None


def pack(blob: Blob) -> bytes:
    """The bytes of ``blob`` (its ``format_version`` is written as given)."""
    fields: dict[str, Any] = {"device": blob.device, "architecture": blob.architecture, "config": blob.config,
                              "producer": blob.producer}
    if blob.weights_size is not None:
        fields["weightless"] = {"weights_size": blob.weights_size}
    header = json.dumps(fields, sort_keys=True).encode("utf-8")
    return seal(b"".join([MAGIC, struct.pack("<I", blob.format_version),
                          struct.pack("<I", len(header)), header,
                          struct.pack("<Q", len(blob.xml)), blob.xml,
                          struct.pack("<Q", len(blob.weights)), blob.weights]))


def unpack(data: bytes) -> Blob:
    """Read and check a blob made by :func:`pack`.

    :raises ImportModelError: for an empty stream, a wrong magic, a newer or invalid format
        version, a truncated section, trailing bytes, a checksum mismatch or a bad header.
    """
    version, reader = open_blob(data, MAGIC, "REFERENCE blob", FORMAT_VERSION, "this plugin")
    header, xml, weights = (reader.section(what, fmt) for what, fmt in _SECTIONS)
    close_blob(reader)
    return _with_header(_parse_header(header), xml, weights, version)


def _parse_header(raw: bytes) -> dict[str, Any]:
    header = json_header(raw, "blob")
    for key in ("device", "architecture", "producer"):
        if not isinstance(header.get(key), str):
            raise ImportModelError(f"the blob header's {key!r} is {header.get(key)!r}; it must be a string.")
    config = header.get("config")
    if not isinstance(config, dict) or not all(isinstance(v, str) for v in config.values()):
        raise ImportModelError(f"the blob header's 'config' is {config!r}; it must map names to strings.")
    weightless = header.get("weightless")
    if weightless is not None:
        size = weightless.get("weights_size") if isinstance(weightless, dict) else None
        if isinstance(size, bool) or not isinstance(size, int) or size < 0:
            raise ImportModelError(f"the blob header's 'weightless' is {weightless!r}; it must be "
                                   "{'weights_size': a byte count >= 0}.")
    return header


def _with_header(header: dict[str, Any], xml: bytes, weights: bytes, version: int) -> Blob:
    weightless = header.get("weightless")
    if weightless is not None and weights:
        raise ImportModelError(f"the blob is marked weightless but holds {len(weights)} bytes of weights.")
    return Blob(header["device"], header["architecture"], xml, weights, dict(header["config"]),
                header["producer"], version, None if weightless is None else weightless["weights_size"])
