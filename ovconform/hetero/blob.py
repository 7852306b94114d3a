"""HETERO's export/import blob: a versioned, checksummed container of sections (no pickle).

Layout (integers little-endian)::

    magic            8 bytes   b"OVHETERO"
    format version   u32       FORMAT_VERSION
    header           u32 size + UTF-8 JSON (sorted keys), see :class:`HeteroBlob`
    section count    u32
    sections         each u64 size + bytes: the model's IR v11 xml and weights, then for each
                     device part either the part device's own exported blob ("blob") or the
                     part's IR v11 xml and weights ("ir", recompiled on import)
    checksum         32 bytes  sha256 of every byte before it

The header holds the device list (DEVICE_PRIORITIES), HETERO's compile configuration and the
plan: the steps in run order, each a device part (its device, the friendly names of its ops and
the kind of its payload) or a ReadValue/Assign HETERO runs itself. :func:`unpack` checks, in
order: the magic, the format version, the section sizes (truncation), the checksum, then the
header and that the sections match it; every failure is an
:class:`~ovconform.errors.ImportModelError` saying what is wrong.
"""

from __future__ import annotations

import json
import struct
from dataclasses import dataclass, field
from typing import Any, Final

from ovconform.contract.blob import close_blob, json_header, open_blob, seal
from ovconform.errors import ImportModelError

__all__ = ["FORMAT_VERSION", "MAGIC", "HeteroBlob", "Part", "pack", "unpack"]

MAGIC: Final = b"OVHETERO"
FORMAT_VERSION: Final = 1
PAYLOAD_KINDS: Final = ("blob", "ir")


@dataclass(frozen=True)
class Part:
    """One step of the plan: a device part (``device``, ``ops``, ``payload``) or, with
    ``host`` set, a ReadValue/Assign that HETERO runs itself."""

    device: str = ""
    ops: tuple[str, ...] = ()
    payload: str = ""  # "blob" or "ir"
    sections: tuple[bytes, ...] = ()  # (blob,) or (xml, weights)
    host: str = ""

    def header(self) -> dict[str, Any]:
        if self.host:
            return {"host": self.host}
        return {"device": self.device, "ops": list(self.ops), "payload": self.payload}


@dataclass(frozen=True)
class HeteroBlob:
    """The parts of an exported HETERO compiled model."""

    devices: tuple[str, ...]
    xml: bytes
    weights: bytes
    steps: tuple[Part, ...]
    config: dict[str, str] = field(default_factory=dict)
    producer: str = ""
    format_version: int = FORMAT_VERSION

    @property
    def parts(self) -> list[Part]:
        return [s for s in self.steps if not s.host]


def pack(blob: HeteroBlob) -> bytes:
    """The bytes of ``blob`` (deterministic: the same blob gives the same bytes)."""
    header = json.dumps({"devices": list(blob.devices), "config": blob.config, "producer": blob.producer,
                         "steps": [s.header() for s in blob.steps]}, sort_keys=True).encode("utf-8")
    sections = [blob.xml, blob.weights, *(b for p in blob.parts for b in p.sections)]
    chunks = [MAGIC, struct.pack("<I", blob.format_version), struct.pack("<I", len(header)), header,
              struct.pack("<I", len(sections))]
    for data in sections:
        chunks += [struct.pack("<Q", len(data)), data]
    return seal(b"".join(chunks))


def unpack(data: bytes) -> HeteroBlob:
    """Read and check a blob made by :func:`pack`.

    :raises ImportModelError: for an empty stream, a foreign magic, a newer or invalid format
        version, a truncated section, trailing bytes, a checksum mismatch, a bad header, or
        sections that do not match the header's plan.
    """
    version, reader = open_blob(data, MAGIC, "HETERO blob", FORMAT_VERSION, "this host")
    header = reader.take(reader.number("<I", "header size"), "header")
    count = reader.number("<I", "section count")
    sections = [reader.take(reader.number("<Q", f"section {i} size"), f"section {i}") for i in range(count)]
    close_blob(reader)
    return _assemble(_parse_header(header), sections, version)


def _fail(what: str, value: Any, want: str) -> ImportModelError:
    return ImportModelError(f"the HETERO blob header's {what} is {value!r}; it must be {want}.")


def _parse_header(raw: bytes) -> dict[str, Any]:
    header = json_header(raw, "HETERO blob")
    devices = header.get("devices")
    if not isinstance(devices, list) or not devices or not all(isinstance(d, str) and d for d in devices):
        raise _fail("'devices'", devices, "a non-empty list of device names")
    config = header.get("config")
    if not isinstance(config, dict) or not all(isinstance(v, str) for v in config.values()):
        raise _fail("'config'", config, "an object mapping names to strings")
    if not isinstance(header.get("producer"), str):
        raise _fail("'producer'", header.get("producer"), "a string")
    if not isinstance(header.get("steps"), list):
        raise _fail("'steps'", header.get("steps"), "a list (empty for a model without ops)")
    return header


def _parse_step(i: int, step: Any, devices: list[str]) -> Part:
    if isinstance(step, dict) and set(step) == {"host"} and isinstance(step["host"], str):
        return Part(host=step["host"])
    if not isinstance(step, dict) or set(step) != {"device", "ops", "payload"}:
        raise _fail(f"step {i}", step, "{'device', 'ops', 'payload'} or {'host'}")
    if step["device"] not in devices:
        raise _fail(f"step {i} device", step["device"], f"one of its devices {devices}")
    ops = step["ops"]
    if not isinstance(ops, list) or not ops or not all(isinstance(o, str) for o in ops):
        raise _fail(f"step {i} 'ops'", ops, "a non-empty list of op names")
    if step["payload"] not in PAYLOAD_KINDS:
        raise _fail(f"step {i} 'payload'", step["payload"], f"one of {list(PAYLOAD_KINDS)}")
    return Part(step["device"], tuple(ops), step["payload"])


def _assemble(header: dict[str, Any], sections: list[bytes], version: int) -> HeteroBlob:
    steps = [_parse_step(i, s, header["devices"]) for i, s in enumerate(header["steps"])]
    want = 2 + sum(1 if s.payload == "blob" else 2 for s in steps if not s.host)
    if len(sections) != want:
        raise ImportModelError(f"the HETERO blob has {len(sections)} section(s) but its plan needs {want} "
                               "(model xml and weights, then one blob or an xml and weights per part).")
    pos, out = 2, []
    for step in steps:
        if step.host:
            out.append(step)
            continue
        size = 1 if step.payload == "blob" else 2
        out.append(Part(step.device, step.ops, step.payload, tuple(sections[pos:pos + size])))
        pos += size
    return HeteroBlob(tuple(header["devices"]), sections[0], sections[1], tuple(out),
                      dict(header["config"]), header["producer"], version)
