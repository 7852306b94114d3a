"""The Core's model cache: cache keys and checksummed blob files.

A key hashes the model's content (graph structure, attributes, names, constant bytes, rt_info),
the device name, the device's CACHING_PROPERTIES values, the compile properties and the plugin
version. A blob file is ``MAGIC | sha256(payload) | payload``, written atomically (temporary
file + rename), so a reader never sees half a file and a flipped byte is detected.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

import numpy as np

from ovconform import properties as P
from ovconform.ir import Model, Node, PartialShape, Type

__all__ = ["BLOB_SUFFIX", "MAGIC", "cache_key", "model_digest", "read_blob", "write_blob"]

MAGIC: Final = b"OVCONFORM-CACHE\x01"
BLOB_SUFFIX: Final = ".blob"
_DIGEST = 32
_AUTO_MODEL_NAME = re.compile(r"Model[0-9]+")


def _canon(value: Any) -> str:
    """A stable text form of an attribute or rt_info value."""
    if isinstance(value, Type):
        return f"T:{value.name}"
    if isinstance(value, PartialShape):
        return f"S:{value}"
    if isinstance(value, Model):  # a control-flow node's body: by content
        return f"M:{model_digest(value).hex()}"
    if isinstance(value, np.ndarray):
        return f"A:{value.dtype}:{value.shape}:{hashlib.sha256(np.ascontiguousarray(value).tobytes()).hexdigest()}"
    if isinstance(value, Mapping):
        items = sorted(value.items(), key=lambda kv: str(kv[0]))
        return "{" + ",".join(f"{_canon(k)}={_canon(v)}" for k, v in items) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(_canon(v) for v in value) + "]"
    if isinstance(value, float):
        return f"f:{value!r}"
    return f"{type(value).__name__}:{value!s}"


def _name(node: Node) -> str:
    """The friendly name, or a placeholder when it is the automatic one ("Relu_12" from a
    global counter), so equal graphs built twice hash equal."""
    return "<auto>" if node.friendly_name == node.get_name() else node.friendly_name


def _node_text(node: Node, index: dict[int, int]) -> str:
    inputs = [f"{index[id(v.node)]}.{v.index}" for v in node.input_values()]
    outputs = [(str(node.get_output_element_type(i)), str(node.get_output_partial_shape(i)),
                sorted(node.get_output_tensor_names(i))) for i in range(node.get_output_size())]
    data = _canon(node.data) if node.data is not None else "-"
    return "|".join([node.type_name, str(node.version), _name(node), _canon(node.attrs),
                     _canon(node.rt_info), repr(inputs), repr(outputs), data])


def model_digest(model: Model) -> bytes:
    """SHA-256 of the model's content; equal models (even separately built) hash equal."""
    h = hashlib.sha256()
    ops = model.get_ordered_ops()
    index = {id(n): i for i, n in enumerate(ops)}
    name = "<auto>" if _AUTO_MODEL_NAME.fullmatch(model.friendly_name) else model.friendly_name
    h.update(f"model:{name}:{_canon(model.rt_info)}\n".encode())
    for node in ops:
        h.update(_node_text(node, index).encode())
        h.update(b"\n")
    for label, nodes in (("params", model.get_parameters()), ("results", model.get_results()),
                         ("sinks", model.get_sinks())):
        h.update(f"{label}:{[index[id(n)] for n in nodes]}\n".encode())
    return h.digest()


#: Compile properties that say how a blob is stored or read, not what it computes: they are not
#: part of the key (as in OpenVINO, a blob cached with CACHE_MODE=OPTIMIZE_SIZE is found by a
#: compile that only gives WEIGHTS_PATH; CACHE_ENCRYPTION_CALLBACKS are functions, with no stable text).
UNKEYED: Final = frozenset({P.CACHE_MODE, P.ENABLE_WEIGHTLESS, P.WEIGHTS_PATH, P.COMPILED_BLOB,
                            P.CACHE_ENCRYPTION_CALLBACKS})


def cache_key(model: Model, device: str, caching_values: Mapping[str, Any],
              compile_properties: Mapping[str, Any], plugin_version: str) -> str:
    """The file stem of a cache blob (hex SHA-256)."""
    h = hashlib.sha256(model_digest(model))
    h.update(f"device:{device}\nversion:{plugin_version}\n".encode())
    for name in sorted(caching_values):
        h.update(f"caching:{name}={P.to_string(caching_values[name])}\n".encode())
    for name in sorted(set(compile_properties) - UNKEYED):
        h.update(f"property:{name}={P.to_string(compile_properties[name])}\n".encode())
    return h.hexdigest()


def write_blob(path: Path, payload: bytes) -> None:
    """Write ``payload`` with the header and checksum, atomically."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(MAGIC)
            f.write(hashlib.sha256(payload).digest())
            f.write(payload)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def read_blob(path: Path) -> bytes | None:
    """The payload of a valid blob; None when the file is missing. A corrupt file (bad header
    or checksum) is deleted and None returned."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError:
        return None
    head = len(MAGIC) + _DIGEST
    payload = raw[head:]
    if raw[:len(MAGIC)] != MAGIC or len(raw) < head or hashlib.sha256(payload).digest() != raw[len(MAGIC):head]:
        drop_blob(path)
        return None
    return payload


def drop_blob(path: Path) -> None:
    try:
        path.unlink(missing_ok=True)
    except OSError:
        pass
