"""Conversions between ovconform and OpenVINO: models (through IR v11), element types, tensors,
property values (both ways) and exceptions.

OpenVINO raises ``RuntimeError`` with a chain of ``Exception from <file>:<line>:`` lines; the
adapter keeps the meaningful last lines and raises the documented ovconform error instead.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections import OrderedDict
from collections.abc import Mapping
from enum import Enum
from typing import Any

import numpy as np
import openvino as ov

from ovconform import properties as P
from ovconform.errors import (
    BusyError,
    CancelledError,
    OVConformError,
    PropertyError,
)
from ovconform.ir import Model, Type, as_type, holding_array
from ovconform.ir._element_codec import pack, unpack
from ovconform.ir._serialize import serialize_chunks

__all__ = ["from_ov_tensor", "from_ov_value", "ov_message", "ov_type", "our_type", "to_ov_model", "to_ov_props",
           "fill_ov_tensor", "to_ov_tensor", "to_ov_value", "translate", "zero_tensor"]

_FRAME = re.compile(r"^(Exception from \S+:\d+:|Check '.*' failed at \S+:\d+:)\s*$")


def ov_message(error: BaseException) -> str:
    """The text of an OpenVINO exception without its ``Exception from file:line:`` frames."""
    lines = [ln.strip() for ln in str(error).splitlines()]
    kept = [ln for ln in lines if ln and not _FRAME.match(ln)]
    text = " ".join(kept) or str(error).strip() or type(error).__name__
    return text.replace("Caught exception: ", "")


def translate(error: BaseException, what: str, default: type[OVConformError]) -> OVConformError:
    """An ovconform error for an OpenVINO exception raised while doing ``what``."""
    if isinstance(error, OVConformError):
        return error
    text = ov_message(error)
    low = text.lower()
    if "was canceled" in low or "was cancelled" in low:
        kind: type[OVConformError] = CancelledError
    elif "busy" in low:
        kind = BusyError
    else:
        kind = default
    made = kind(f"{what}: {text}")
    made.__cause__ = error
    return made


# -- element types and tensors ------------------------------------------------------------------
def ov_type(t: Type) -> ov.Type:
    return getattr(ov.Type, t.name)


def our_type(t: ov.Type) -> Type:
    return as_type(t.get_type_name())


def to_ov_tensor(array: np.ndarray, element_type: Type) -> ov.Tensor:
    """An OpenVINO-owned tensor holding a copy of ``array``'s values.

    Never numpy's memory: OpenVINO may drop a tensor on one of its own threads (the CPU plugin
    keeps a stream's last input until the stream's thread ends), and dropping a tensor that
    wraps a numpy array there needs the GIL, which deadlocks when the thread holding the GIL is
    joining that thread (seen in CI: MainThread in ~CompiledModel -> ~CPUStreamsExecutor ->
    std::thread::join, an OpenVINO thread waiting for the GIL inside pyopenvino)."""
    tensor = ov.Tensor(ov_type(element_type), list(array.shape))
    fill_ov_tensor(tensor, array, element_type)
    return tensor


def fill_ov_tensor(tensor: ov.Tensor, array: np.ndarray, element_type: Type) -> None:
    """Copy ``array``'s values into the OpenVINO tensor of the same shape (bf16 as its bits; the
    packed types packed into ``tensor.data``'s bytes; string through ``bytes_data``)."""
    if not array.size:
        return
    if element_type == Type.string:
        tensor.bytes_data = [s.encode("utf-8", "surrogateescape") for s in array.reshape(-1)]
        return
    if element_type.is_packed():
        tensor.data.view(np.uint8).reshape(-1)[...] = np.frombuffer(pack(array, element_type, "tensor"), np.uint8)
        return
    target = tensor.data
    if element_type == Type.bf16:
        target, array = target.view(np.uint16), array.view(np.uint16)
    target.reshape(array.shape)[...] = array


def zero_tensor(element_type: Type, shape: tuple[int, ...]) -> ov.Tensor:
    """A zero-filled OpenVINO tensor (OpenVINO's own allocations are not initialised)."""
    tensor = ov.Tensor(ov_type(element_type), list(shape))
    if element_type == Type.string:
        if tensor.get_size():
            tensor.bytes_data = [b""] * tensor.get_size()
    elif tensor.get_byte_size():
        tensor.data.view(np.uint8)[...] = 0
    return tensor


def from_ov_tensor(tensor: ov.Tensor, element_type: Type) -> np.ndarray:
    """A numpy copy of an OpenVINO tensor in ovconform's holding dtype (bf16 as uint16 bits, u4
    unpacked to one uint8 per element, f8 codes as uint8, string as an object array of str)."""
    shape = tuple(tensor.shape)
    if element_type == Type.bf16:
        return np.array(tensor.data.view(np.uint16)).reshape(shape)
    if element_type == Type.string:
        return holding_array(np.array(tensor.bytes_data, dtype=object).reshape(shape), element_type, "tensor")
    if element_type.is_packed():
        return unpack(np.array(tensor.data.view(np.uint8)).tobytes(), element_type, tensor.get_size()).reshape(shape)
    return np.array(tensor.data, dtype=element_type.to_dtype()).reshape(shape)


# -- models ---------------------------------------------------------------------------------------
#: OpenVINO's reading of the last few IRs, by the SHA-256 of their XML and weights: the suites
#: hand one model to query_model and compile_model in turn, and parsing the XML costs ~100x a
#: clone. Every caller gets its own clone (made under the lock), never the kept model. Only small
#: IRs are kept (op cases, test graphs): a real model's weights are not held twice.
_READ: OrderedDict[bytes, ov.Model] = OrderedDict()
_READ_LOCK = threading.Lock()
READ_CACHE_SIZE = 8
READ_CACHE_MAX_BYTES = 4 << 20


def ir_digest(xml: bytes, weights: bytes) -> bytes:
    """The key of one IR: SHA-256 over the XML's length, the XML and the weights."""
    h = hashlib.sha256(len(xml).to_bytes(8, "little"))
    h.update(xml)
    h.update(weights)
    return h.digest()


def to_ov_model(core: ov.Core, model: Model) -> ov.Model:
    """Read ``model`` into OpenVINO through IR v11 (``ovconform.serialize``): a clone of OpenVINO's
    model of the same IR when one was read lately, else ``core.read_model``."""
    xml, chunks = serialize_chunks(model)
    if len(xml) + chunks.nbytes > READ_CACHE_MAX_BYTES:  # a real model: its weights written once, into
        tensor = ov.Tensor(ov.Type.u8, [chunks.nbytes])  # a tensor OpenVINO owns and its Constants share
        chunks.write_into(tensor.data)
        del chunks
        ov_model = core.read_model(xml.decode("utf-8"), tensor)
        set_ov_layouts(ov_model, model)
        return ov_model
    weights = chunks.tobytes()
    key = ir_digest(xml, weights)
    with _READ_LOCK:
        kept = _READ.get(key)
        if kept is not None:
            _READ.move_to_end(key)
    if kept is None:
        kept = core.read_model(xml.decode("utf-8"), _weights_tensor(weights))
        with _READ_LOCK:
            _READ[key] = kept
            while len(_READ) > READ_CACHE_SIZE:
                _READ.popitem(last=False)
    with _READ_LOCK:
        ov_model = kept.clone()
    set_ov_layouts(ov_model, model)
    return ov_model


def _weights_tensor(weights: bytes) -> ov.Tensor:
    return ov.Tensor(np.frombuffer(weights, dtype=np.uint8).copy()) if weights else ov.Tensor(ov.Type.u8, [0])


def set_ov_layouts(ov_model: ov.Model, model: Model) -> None:
    """Give OpenVINO's Parameters the layouts set on ours (``Parameter.set_layout``; IR v11
    carries them as OpenVINO runtime attributes, which ``serialize`` does not write)."""
    theirs = {p.get_friendly_name(): p for p in ov_model.get_parameters()}
    for ours in model.get_parameters():
        layout = ours.get_layout()
        if not layout.empty() and ours.friendly_name in theirs:
            theirs[ours.friendly_name].set_layout(ov.Layout(layout.to_string()))


# -- property values --------------------------------------------------------------------------------
def to_ov_value(value: Any) -> Any:
    """An ovconform property value as OpenVINO takes it (enums and types as their strings)."""
    if isinstance(value, Type):
        return value.name
    if isinstance(value, Enum):
        return str(value.value)
    if isinstance(value, Mapping):
        return {str(k): to_ov_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)) and not isinstance(value, str):
        return type(value)(to_ov_value(v) for v in value)
    return value


#: Properties whose OpenVINO values are sets (seen when read); OpenVINO takes them back as one
#: comma-separated string ("" for the empty set).
_SET_VALUED: set[str] = {"MODEL_DISTRIBUTION_POLICY"}


def to_ov_props(props: Mapping[str, Any]) -> dict[str, Any]:
    out = {}
    for k, v in props.items():
        if str(k) in _SET_VALUED and isinstance(v, (list, tuple, set, frozenset)):
            out[str(k)] = ",".join(str(to_ov_value(x)) for x in v)
        else:
            out[str(k)] = to_ov_value(v)
    return out


def _plain(value: Any) -> Any:
    """OpenVINO's Python objects as plain Python values."""
    if isinstance(value, ov.Type):
        return our_type(value) if value.get_type_name() != "undefined" else ""
    if isinstance(value, (set, frozenset)):
        return sorted(_plain(v) for v in value)
    if isinstance(value, dict):
        return {str(_plain(k)): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_plain(v) for v in value)
    if isinstance(value, (str, bool, int, float)) or value is None:
        return value
    name = getattr(value, "name", None)
    if name == "???":  # an enum value the Python binding has no name for: keep OpenVINO's object
        return value
    if isinstance(name, str) and not isinstance(value, str):
        return name  # pybind11 enums: PerformanceMode.LATENCY -> "LATENCY"
    return str(value)


def from_ov_value(name: str, value: Any) -> Any:
    """An OpenVINO property value as ovconform's canonical value (catalogue names parse through
    the catalogue, so an enum comes back as the catalogue's member)."""
    if isinstance(value, (set, frozenset)):
        _SET_VALUED.add(name)
    plain = _plain(value)
    if name not in P.CATALOGUE or name in (P.SUPPORTED_PROPERTIES, P.DEVICE_GOPS):
        return plain
    if name == P.LOG_LEVEL and isinstance(plain, str) and plain in P.LogLevel.__members__:
        return P.LogLevel[plain]
    try:
        return P.parse_value(name, plain)
    except PropertyError:
        return plain
