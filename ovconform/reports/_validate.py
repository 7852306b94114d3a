"""Validate a conformance document against ``schema.json`` without a jsonschema dependency.

A small validator for the subset of JSON Schema (draft 2020-12) that ``schema.json`` uses: ``type``,
``enum``, ``const``, ``required``, ``properties``, ``additionalProperties``, ``propertyNames``,
``items``, ``minimum``, ``maximum``, ``minLength``, ``pattern``, ``if``/``then``/``else`` and local
``$ref`` (``#/$defs/...``). Annotations (``description``, ``title``, ``$schema``, ``$id``, ``$defs``)
are ignored. Any other keyword is refused, so the schema cannot silently use a feature this
validator does not check. Errors name the JSON path, the bad value and what is allowed.
"""

from __future__ import annotations

import json
import re
from functools import cache
from importlib import resources
from typing import Any

from ovconform.errors import ValidationError

_ANNOTATIONS = {"description", "title", "$schema", "$id", "$defs", "$comment"}
_KEYWORDS = {"type", "enum", "const", "required", "properties", "additionalProperties", "propertyNames", "items",
             "minimum", "maximum", "minLength", "pattern", "if", "then", "else", "$ref"}
_TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


@cache
def schema() -> dict[str, Any]:
    """The conformance report schema (``ovconform/reports/schema.json``)."""
    text = resources.files("ovconform.reports").joinpath("schema.json").read_text(encoding="utf-8")
    return json.loads(text)


def errors(doc: Any, root: dict[str, Any] | None = None) -> list[str]:
    """Every violation of the schema in ``doc``, as ``"<path>: <problem>"`` lines (empty when valid)."""
    root = schema() if root is None else root
    out: list[str] = []
    _check(doc, root, root, "$", out)
    return out


def validate(doc: Any, name: str = "document") -> None:
    """Raise :class:`ValidationError` naming ``name`` and the first violations when ``doc`` is invalid."""
    problems = errors(doc)
    if problems:
        shown = "\n  ".join(problems[:10])
        more = f"\n  ... and {len(problems) - 10} more" if len(problems) > 10 else ""
        raise ValidationError(f"{name} is not a valid ovconform conformance report (schema_version 1.0):\n"
                              f"  {shown}{more}")


def _resolve(root: dict[str, Any], ref: str) -> dict[str, Any]:
    if not ref.startswith("#/"):
        raise ValidationError(f"schema $ref {ref!r} is not supported: only local '#/...' references are")
    node: Any = root
    for part in ref[2:].split("/"):
        node = node[part]
    return node


def _short(value: Any) -> str:
    text = json.dumps(value, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


def _check(value: Any, sch: dict[str, Any], root: dict[str, Any], path: str, out: list[str]) -> None:
    unknown = set(sch) - _KEYWORDS - _ANNOTATIONS
    if unknown:
        raise ValidationError(f"schema at {path} uses unsupported keyword(s) {sorted(unknown)}; "
                              f"supported: {sorted(_KEYWORDS)}")
    if "$ref" in sch:
        _check(value, _resolve(root, sch["$ref"]), root, path, out)
    if not _check_type(value, sch, path, out):
        return
    if "const" in sch and value != sch["const"]:
        out.append(f"{path}: {_short(value)} is not the allowed value {_short(sch['const'])}")
    if "enum" in sch and value not in sch["enum"]:
        out.append(f"{path}: {_short(value)} is not one of {sch['enum']}")
    _check_scalar(value, sch, path, out)
    if isinstance(value, dict):
        _check_object(value, sch, root, path, out)
    if isinstance(value, list) and "items" in sch:
        for i, item in enumerate(value):
            _check(item, sch["items"], root, f"{path}[{i}]", out)
    if "if" in sch:
        probe: list[str] = []
        _check(value, sch["if"], root, path, probe)
        branch = sch.get("then") if not probe else sch.get("else")
        if branch is not None:
            _check(value, branch, root, path, out)


def _check_type(value: Any, sch: dict[str, Any], path: str, out: list[str]) -> bool:
    if "type" not in sch:
        return True
    allowed = sch["type"] if isinstance(sch["type"], list) else [sch["type"]]
    if any(_TYPES[t](value) for t in allowed):
        return True
    out.append(f"{path}: expected {' or '.join(allowed)}, got {type(value).__name__} {_short(value)}")
    return False


def _check_scalar(value: Any, sch: dict[str, Any], path: str, out: list[str]) -> None:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if "minimum" in sch and value < sch["minimum"]:
            out.append(f"{path}: {value} is below the minimum {sch['minimum']}")
        if "maximum" in sch and value > sch["maximum"]:
            out.append(f"{path}: {value} is above the maximum {sch['maximum']}")
    if isinstance(value, str):
        if "minLength" in sch and len(value) < sch["minLength"]:
            out.append(f"{path}: {_short(value)} is shorter than {sch['minLength']} character(s)")
        if "pattern" in sch and not re.search(sch["pattern"], value):
            out.append(f"{path}: {_short(value)} does not match the pattern {sch['pattern']}")


def _check_object(value: dict[str, Any], sch: dict[str, Any], root: dict[str, Any], path: str,
                  out: list[str]) -> None:
    for key in sch.get("required", []):
        if key not in value:
            out.append(f"{path}: missing required property {key!r}")
    props = sch.get("properties", {})
    extra = sch.get("additionalProperties", True)
    for key, item in value.items():
        sub = f"{path}.{key}"
        if "propertyNames" in sch:
            _check(key, sch["propertyNames"], root, f"{path} (property name {key!r})", out)
        if key in props:
            _check(item, props[key], root, sub, out)
        elif extra is False:
            out.append(f"{path}: unexpected property {key!r} (allowed: {sorted(props)})")
        elif isinstance(extra, dict):
            _check(item, extra, root, sub, out)


__all__ = ["errors", "schema", "validate"]
