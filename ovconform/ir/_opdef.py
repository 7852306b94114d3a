"""Op definitions: the one table that says which op types and versions exist.

An :class:`OpDef` names an op type and version, its arity, its attributes (name, kind,
default, allowed values) and its shape/type inference. Builders in ``ovconform.opset``, the
IR v11 reader/writer and the validators all read this table; nothing else lists op attributes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from ovconform.errors import UnsupportedOpError, ValidationError
from ovconform.ir._shape import PartialShape, as_partial_shape
from ovconform.ir._types import Type, as_type

if TYPE_CHECKING:
    from ovconform.ir._graph import Node

REQUIRED: Final = object()

#: Attribute kinds and the Python values they hold.
#: bool, int, float, str; ints/floats/strs (lists); type (Type); shape (PartialShape);
#: subgraph (the bodies and port maps of If/Loop/TensorIterator, :mod:`ovconform.ir._subgraph`: checked
#: by the op's inference, written as ``<body>``/``<port_map>`` elements, never into ``<data>``).
ATTR_KINDS: Final = ("bool", "int", "float", "str", "ints", "floats", "strs", "type", "shape", "subgraph")

InferResult = Sequence[tuple[Type, PartialShape]]


@dataclass(frozen=True)
class AttrSpec:
    """One attribute of an op: its IR name, kind, default (or REQUIRED) and allowed values."""

    name: str
    kind: str
    default: Any = REQUIRED
    choices: tuple[Any, ...] | None = None

    def __post_init__(self) -> None:
        if self.kind not in ATTR_KINDS:
            raise ValueError(f"attribute kind {self.kind!r} is not one of {ATTR_KINDS}")

    @property
    def required(self) -> bool:
        return self.default is REQUIRED

    def coerce(self, value: Any) -> Any:
        """Return ``value`` in this attribute's canonical Python form, or raise ValidationError."""
        try:
            value = _coerce_kind(self.kind, value)
        except ValidationError as e:
            raise ValidationError(f"attribute {self.name!r}: {e}") from None
        if self.choices is not None and value not in self.choices:
            allowed = ", ".join(repr(c) for c in self.choices)
            raise ValidationError(f"attribute {self.name!r}={value!r} is not allowed; allowed: {allowed}.")
        return value


def _coerce_kind(kind: str, value: Any) -> Any:
    import numpy as np

    if kind == "subgraph":
        return value
    try:
        if kind == "bool":
            if isinstance(value, (bool, np.bool_)):
                return bool(value)
            raise TypeError
        if kind == "int":
            if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
                raise TypeError
            return int(value)
        if kind == "float":
            if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.number)):
                raise TypeError
            return float(value)
        if kind == "str":
            if not isinstance(value, str):
                raise TypeError
            return value
        if kind == "ints":
            items = list(np.asarray(value).reshape(-1).tolist()) if isinstance(value, np.ndarray) else list(value)
            return [_coerce_kind("int", v) for v in items]
        if kind == "floats":
            items = list(np.asarray(value).reshape(-1).tolist()) if isinstance(value, np.ndarray) else list(value)
            return [_coerce_kind("float", v) for v in items]
        if kind == "strs":
            if isinstance(value, str):
                raise TypeError
            return [_coerce_kind("str", v) for v in value]
        if kind == "type":
            return as_type(value)
        if kind == "shape":
            return as_partial_shape(value)
    except (TypeError, ValueError):
        pass
    raise ValidationError(f"value {value!r} is not of attribute kind {kind!r}.")


@dataclass(frozen=True)
class OpDef:
    """Definition of one op version: ``Relu`` v1, ``Gather`` v8, ...

    ``infer(node)`` returns one (element type, partial shape) per output, or raises
    ValidationError with a message that says what is wrong (the node is named by the caller).
    """

    type_name: str
    version: int
    min_inputs: int
    max_inputs: int  # -1: variadic
    attrs: tuple[AttrSpec, ...]
    infer: Callable[[Node], InferResult]
    ir_type_name: str | None = None
    doc: str = ""
    attr_index: dict[str, AttrSpec] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "attr_index", {a.name: a for a in self.attrs})

    @property
    def opset(self) -> str:
        """The IR ``version`` string: ``"opset8"`` for Gather-8."""
        return f"opset{self.version}"

    def normalize_attrs(self, given: dict[str, Any]) -> dict[str, Any]:
        """Check names/kinds/choices, fill defaults, return a new dict in declaration order."""
        unknown = sorted(set(given) - set(self.attr_index))
        if unknown:
            known = ", ".join(self.attr_index) or "none"
            raise ValidationError(f"unknown attribute(s) {', '.join(map(repr, unknown))}; known: {known}.")
        out: dict[str, Any] = {}
        for spec in self.attrs:
            if spec.name in given and given[spec.name] is not None:
                out[spec.name] = spec.coerce(given[spec.name])
            elif spec.required:
                raise ValidationError(f"attribute {spec.name!r} is required.")
            else:
                out[spec.name] = spec.default
        return out


_OPDEFS: dict[tuple[str, int], OpDef] = {}
_IR_NAMES: dict[str, str] = {}


def register_opdef(opdef: OpDef) -> OpDef:
    key = (opdef.type_name, opdef.version)
    if key in _OPDEFS:
        raise ValueError(f"op {opdef.type_name}-{opdef.version} is defined twice")
    _OPDEFS[key] = opdef
    if opdef.ir_type_name:
        _IR_NAMES[opdef.ir_type_name] = opdef.type_name
    return opdef


def define_op(
    type_name: str,
    version: int,
    *,
    inputs: int | tuple[int, int],
    attrs: Sequence[AttrSpec] = (),
    ir_type_name: str | None = None,
) -> Callable[[Callable[[Node], InferResult]], Callable[[Node], InferResult]]:
    """Decorator form: ``@define_op("Relu", 1, inputs=1)`` over the inference function."""
    lo, hi = (inputs, inputs) if isinstance(inputs, int) else inputs

    def deco(fn: Callable[[Node], InferResult]) -> Callable[[Node], InferResult]:
        register_opdef(OpDef(type_name, version, lo, hi, tuple(attrs), fn, ir_type_name, fn.__doc__ or ""))
        return fn

    return deco


def get_opdef(type_name: str, version: int) -> OpDef:
    """The definition of exactly this op type and version."""
    type_name = _IR_NAMES.get(type_name, type_name)
    found = _OPDEFS.get((type_name, version))
    if found is None:
        versions = sorted(v for (t, v) in _OPDEFS if t == type_name)
        if versions:
            raise UnsupportedOpError(
                f"op {type_name!r} has no version {version}; defined versions: {versions}."
            )
        raise UnsupportedOpError(
            f"op type {type_name!r} is not defined; defined types: {', '.join(sorted(all_op_types()))}."
        )
    return found


def canonical_type_name(name: str) -> str:
    """Map an IR type name (``ReLU``) to the op's type name (``Relu``)."""
    return _IR_NAMES.get(name, name)


def all_op_types() -> set[str]:
    return {t for (t, _v) in _OPDEFS}


def all_opdefs() -> list[OpDef]:
    return [_OPDEFS[k] for k in sorted(_OPDEFS)]
