"""Pieces shared by the IR v11 writer and reader: limits, value spellings and XML escaping.

Every value spelling here follows what ``openvino.save_model`` (OpenVINO 2026.4) writes:

* lists: ``"1, 2"``; booleans ``"true"``/``"false"``; floats ``"%.17g"`` (``"0.10000000000000001"``);
* partial shapes (Parameter ``shape``, ReadValue ``variable_shape``): ``"?,1..8,3"``, ``"..8"``,
  ``"2.."``, ``"..."`` for a dynamic rank and ``""`` for a scalar;
* port ``<dim>``: the length, or ``-1`` for any dynamic dimension (bounds are not written there);
* port ``names``: sorted, joined by ``","``, a ``","`` inside a name written as ``"\\,"``.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Mapping
from typing import Any, Final

from ovconform.errors import ReadModelError, ValidationError
from ovconform.ir._shape import Dimension, PartialShape
from ovconform.ir._types import Type, as_type

IR_VERSION: Final = 11

#: Limits the reader enforces (see the module docstring of ``ovconform.ir._read``).
MAX_XML_BYTES: Final = 64 * 1024 * 1024
MAX_XML_ELEMENTS: Final = 2_000_000
MAX_LAYERS: Final = 200_000
MAX_EDGES: Final = 1_000_000
MAX_PORTS: Final = 4_096
MAX_RANK: Final = 64
MAX_DIM: Final = 2**63 - 1
MAX_RT_INFO_DEPTH: Final = 32
#: Sub-graph bodies (If, Loop, TensorIterator) nested deeper than this are refused.
MAX_BODY_DEPTH: Final = 16

#: Opset names OpenVINO writes that differ from ``opset<version>``: (type, opset number) -> version.
#: ``ov::op::v1::LogicalXor`` carries the version id "opset2" although it is in opset1.
OV_OPSET_QUIRKS: Final = {("LogicalXor", 2): 1}

#: Node rt_info entries OpenVINO writes as ``<data>`` attributes (legacy); the reader ignores them.
OV_DATA_RT_INFO: Final = frozenset({"PrimitivesPriority", "alt_width"})

_INT_MIN: Final = -(2**63)
_INT_MAX: Final = 2**64 - 1
_INT_RE: Final = re.compile(r"[+-]?[0-9]{1,20}")
_BAD_XML_CHARS: Final = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_ATTR_ESCAPES: Final = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;",
                        "\n": "&#10;", "\r": "&#13;", "\t": "&#09;"}
_ATTR_ESCAPE_RE: Final = re.compile('[&<>"\n\r\t]')
_TAG_RE: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*")


# -- XML text -------------------------------------------------------------------------------------

def xml_attr(text: str, what: str) -> str:
    """``text`` escaped for a double-quoted XML attribute; ValidationError when XML 1.0 cannot hold it."""
    if not isinstance(text, str):
        raise ValidationError(f"{what} is {type(text).__name__} {text!r}; it must be a string.")
    bad = _BAD_XML_CHARS.search(text)
    if bad:
        raise ValidationError(f"{what} {text!r} holds the character {bad.group()!r} (U+{ord(bad.group()):04X}), "
                              "which XML 1.0 cannot represent.")
    return _ATTR_ESCAPE_RE.sub(lambda m: _ATTR_ESCAPES[m.group()], text)


def is_tag_name(name: str) -> bool:
    """True when OpenVINO writes the rt_info key ``name`` as an element name (else ``<info name=...>``)."""
    return bool(_TAG_RE.fullmatch(name)) and not name[:3].lower() == "xml"


# -- tensor names ---------------------------------------------------------------------------------

def format_names(names: Iterable[str], what: str) -> str:
    """Port ``names``: sorted, ``","``-joined, commas escaped as ``"\\,"`` (as OpenVINO does)."""
    out = []
    for name in sorted(names):
        if name.endswith("\\"):
            raise ValidationError(f"{what}: tensor name {name!r} ends with a backslash; IR v11 reads "
                                  "'\\,' as an escaped comma, so such a name cannot be written.")
        out.append(name.replace(",", "\\,"))
    return ",".join(out)


def parse_names(text: str) -> set[str]:
    """Inverse of :func:`format_names`, with OpenVINO's rule: a part ending in ``\\`` joins the next."""
    parts = [p for p in text.split(",") if p]
    names: set[str] = set()
    i = 0
    while i < len(parts):
        name = parts[i]
        while name.endswith("\\") and i + 1 < len(parts):
            i += 1
            name = name[:-1] + "," + parts[i]
        names.add(name)
        i += 1
    return names


# -- dimensions and shapes ----------------------------------------------------------------------

def format_dim(dim: Dimension) -> str:
    if dim.is_static:
        return str(dim.get_length())
    lo, hi = dim.get_min_length(), dim.get_max_length()
    if hi == -1:
        return "?" if lo == 0 else f"{lo}.."
    return f"..{hi}" if lo == 0 else f"{lo}..{hi}"


def format_shape(shape: PartialShape) -> str:
    """``"?,1..8,3"``; ``"..."`` for a dynamic rank; ``""`` for a scalar."""
    if not shape.has_rank():
        return "..."
    return ",".join(format_dim(d) for d in shape)


def port_dim(dim: Dimension) -> str:
    return str(dim.get_length()) if dim.is_static else "-1"


def parse_int(text: str, what: str, lo: int = _INT_MIN, hi: int = _INT_MAX) -> int:
    s = text.strip()
    if not _INT_RE.fullmatch(s):
        raise ValidationError(f"{what} {text!r} is not an integer.")
    value = int(s)
    if not lo <= value <= hi:
        raise ValidationError(f"{what} {value} is out of range; allowed [{lo}, {hi}].")
    return value


def _parse_bound(text: str, what: str) -> int:
    return parse_int(text, what, 0, MAX_DIM)


def parse_dim(text: str, what: str) -> Dimension:
    s = text.strip()
    if s in ("?", "-1"):
        return Dimension()
    if ".." in s:
        lo_s, hi_s = s.split("..", 1)
        lo = _parse_bound(lo_s, what) if lo_s.strip() else 0
        hi = _parse_bound(hi_s, what) if hi_s.strip() else -1
        if hi != -1 and hi < lo:
            raise ValidationError(f"{what} {text!r} is not an interval (max < min).")
        return Dimension(lo, hi)
    return Dimension(_parse_bound(s, what))


def parse_shape(text: str, what: str) -> PartialShape:
    s = text.strip()
    if s in ("...", "[...]"):
        return PartialShape.dynamic()
    s = s.removeprefix("[").removesuffix("]").strip()
    if not s:
        return PartialShape([])
    parts = s.split(",")
    if len(parts) > MAX_RANK:
        raise ValidationError(f"{what} has rank {len(parts)}; at most {MAX_RANK} is allowed.")
    return PartialShape([parse_dim(p, f"{what} dimension") for p in parts])


# -- attribute values, by AttrSpec kind ---------------------------------------------------------

def format_float(value: float) -> str:
    return format(float(value), ".17g")


def format_attr(kind: str, value: Any, what: str) -> str:
    """The ``<data>`` spelling of ``value`` of attribute kind ``kind``."""
    if kind == "bool":
        return "true" if value else "false"
    if kind == "int":
        return str(int(value))
    if kind == "float":
        return format_float(value)
    if kind == "str":
        return value
    if kind == "ints":
        return ", ".join(str(int(v)) for v in value)
    if kind == "floats":
        return ", ".join(format_float(v) for v in value)
    if kind == "strs":
        for item in value:
            if not item or "," in item or item != item.strip():
                raise ValidationError(f"{what}: list item {item!r} cannot be written in IR v11 (items must be "
                                      "non-empty, without commas or surrounding spaces).")
        return ", ".join(value)
    if kind == "type":
        return as_type(value).name
    if kind == "shape":
        return format_shape(value)
    raise ValidationError(f"{what}: attribute kind {kind!r} cannot be written.")


def _split_list(text: str) -> list[str]:
    s = text.strip()
    return [] if not s else [p.strip() for p in s.split(",")]


def parse_float(text: str, what: str) -> float:
    try:
        return float(text.strip())
    except ValueError:
        raise ValidationError(f"{what} {text!r} is not a number.") from None


def parse_attr(kind: str, text: str, what: str) -> Any:
    """Inverse of :func:`format_attr`; ValidationError naming ``what`` on a bad spelling."""
    if kind == "bool":
        low = text.strip().lower()
        if low in ("true", "1"):
            return True
        if low in ("false", "0"):
            return False
        raise ValidationError(f"{what} {text!r} is not a boolean; allowed: 'true', 'false'.")
    if kind == "int":
        return parse_int(text, what)
    if kind == "float":
        return parse_float(text, what)
    if kind == "str":
        return text
    if kind == "ints":
        return [parse_int(p, f"{what} item") for p in _split_list(text)]
    if kind == "floats":
        return [parse_float(p, f"{what} item") for p in _split_list(text)]
    if kind == "strs":
        return _split_list(text)
    if kind == "type":
        return parse_type(text, what)
    if kind == "shape":
        return parse_shape(text, what)
    raise ValidationError(f"{what}: attribute kind {kind!r} cannot be read.")


def parse_type(text: str, what: str) -> Type:
    try:
        return as_type(text.strip())
    except ValidationError as e:
        raise ValidationError(f"{what}: {e}") from None


# -- rt_info -------------------------------------------------------------------------------

def rt_value_text(value: Any, what: str) -> str | None:
    """The text OpenVINO writes for a leaf rt_info value; None when ``value`` is a mapping."""
    if isinstance(value, Mapping):
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, (list, tuple)):
        return " ".join(str(v) for v in value)
    raise ValidationError(f"{what} is {type(value).__name__}; rt_info values must be str, a number, "
                          "a list or a dict.")


def read_user_data(elem: ET.Element, where: str, depth: int) -> tuple[str, Any]:
    """One node rt_info ``<user_data name=... value=...>`` entry (nested entries give a dict)."""
    if depth > MAX_RT_INFO_DEPTH:
        raise ReadModelError(f"{where}: nested deeper than {MAX_RT_INFO_DEPTH} levels.")
    key = elem.get("name")
    if key is None:
        raise ReadModelError(f"{where}: a <user_data> entry has no 'name'.")
    if "value" in elem.attrib:
        return key, elem.get("value", "")
    inner: dict[str, Any] = {}
    for child in elem:
        if child.tag == "user_data":
            k, v = read_user_data(child, f"{where}[{key!r}]", depth + 1)
            inner[k] = v
    return key, inner


def read_meta(elem: ET.Element, where: str, depth: int) -> dict[str, Any]:
    """Model rt_info: ``<key value=...>`` or ``<info name=key value=...>``, nested elements as dicts.
    The children of ``elem`` are entries at nesting level ``depth``."""
    if depth > MAX_RT_INFO_DEPTH and len(elem):
        raise ReadModelError(f"{where}: nested deeper than {MAX_RT_INFO_DEPTH} levels.")
    out: dict[str, Any] = {}
    for child in elem:
        key = child.get("name", child.tag)
        if "value" in child.attrib:
            out[key] = child.get("value", "")
        else:
            out[key] = read_meta(child, f"{where}[{key!r}]", depth + 1)
    return out
