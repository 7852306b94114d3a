"""The envelope of ovconform's export blobs (REFERENCE's, HETERO's): a magic, a format version,
sized sections and a sha256 of everything before it. No pickle.

Layout (integers little-endian)::

    magic            8 bytes
    format version   u32
    ... sections ...  each a size (u32 or u64) and its bytes, read with :class:`Reader`
    checksum         32 bytes  sha256 of every byte before it

:func:`open_blob` checks the magic and the version (a newer version is refused before anything
else is read, since its layout may differ) and returns a :class:`Reader` for the sections;
:func:`close_blob` checks that the checksum follows the last section, nothing after it, and that
it matches. Every failure is an :class:`~ovconform.errors.ImportModelError` saying what is wrong,
with the blob's name (e.g. "REFERENCE blob").
"""

from __future__ import annotations

import hashlib
import json
import struct
from typing import Any, Final

from ovconform.errors import ImportModelError

__all__ = ["DIGEST_SIZE", "Reader", "close_blob", "json_header", "open_blob", "seal"]

DIGEST_SIZE: Final = 32


def seal(body: bytes) -> bytes:
    """``body`` followed by its sha256."""
    return body + hashlib.sha256(body).digest()


class Reader:
    """Reads sized fields from the front, naming what was being read when bytes run out."""

    def __init__(self, data: bytes, name: str) -> None:
        self.data, self.pos, self.name = data, 0, name

    def take(self, size: int, what: str) -> bytes:
        left = len(self.data) - self.pos
        if size > left:
            raise ImportModelError(f"the {self.name} is truncated: its {what} needs {size} byte(s) "
                                   f"but only {left} remain.")
        chunk = self.data[self.pos:self.pos + size]
        self.pos += size
        return chunk

    def number(self, fmt: str, what: str) -> int:
        return int(struct.unpack(fmt, self.take(struct.calcsize(fmt), what))[0])

    def section(self, what: str, fmt: str) -> bytes:
        """A section: its size in ``fmt`` ("<I" or "<Q"), then its bytes."""
        return self.take(self.number(fmt, f"{what} size"), f"{what} section")


def open_blob(data: bytes, magic: bytes, name: str, max_version: int, reader_of: str) -> tuple[int, Reader]:
    """Check the magic and the format version of ``data``; ``(version, reader after them)``.

    :param name: what the blob is called in messages ("REFERENCE blob").
    :param reader_of: who reads it, for the newer-version message ("this plugin").
    """
    if not data:
        raise ImportModelError(f"the stream is empty: there is no {name} header to read.")
    kind = name.removesuffix(" blob")
    if data[:len(magic)] != magic:
        raise ImportModelError(f"this is not a {kind} compiled-model blob: it starts with "
                               f"{bytes(data[:len(magic)])!r}, not the magic {magic!r}.")
    reader = Reader(data, name)
    reader.take(len(magic), "magic")
    version = reader.number("<I", "format version")
    if version > max_version:
        raise ImportModelError(f"the {name} has format version {version}, which is newer than {reader_of} "
                               f"reads (up to {max_version}); export it again with this version.")
    if version < 1:
        raise ImportModelError(f"the {name} has an invalid format version {version}; versions start at 1.")
    return version, reader


def close_blob(reader: Reader) -> None:
    """The checksum must come next, end the data and match everything before it."""
    digest = reader.take(DIGEST_SIZE, "sha256 checksum")
    data = reader.data
    if reader.pos != len(data):
        raise ImportModelError(f"the {reader.name} has {len(data) - reader.pos} unexpected byte(s) after its checksum.")
    actual = hashlib.sha256(data[:-DIGEST_SIZE]).digest()
    if actual != digest:
        raise ImportModelError(f"checksum mismatch: the {reader.name} is corrupt (sha256 of its content is "
                               f"{actual.hex()[:16]}..., the blob records {digest.hex()[:16]}...).")


def json_header(raw: bytes, name: str) -> dict[str, Any]:
    """A header section: a UTF-8 JSON object."""
    try:
        header = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ImportModelError(f"the {name} header is not UTF-8 JSON: {e}") from None
    if not isinstance(header, dict):
        raise ImportModelError(f"the {name} header is a JSON {type(header).__name__}, not an object.")
    return header
