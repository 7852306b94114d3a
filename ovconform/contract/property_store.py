"""A device's property values: what it declares (:class:`Declared`) and what is set now
(:class:`PropertyStore`), as OpenVINO's plugins keep them in their ``Configuration``.

The names, value types and parsing come from the catalogue in :mod:`ovconform.properties`
(which re-exports these names, so ``from ovconform.properties import PropertyStore`` keeps
working); a bad write raises :class:`~ovconform.errors.PropertyError` naming the property, the
bad value and the supported values (or the supported property names).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ovconform.errors import PropertyError
from ovconform.properties import PerformanceMode, PropertySpec, get_spec, to_string

__all__ = ["Declared", "PropertyStore", "resolve_num_streams"]


@dataclass(frozen=True)
class Declared:
    """A device's support for one RW property: default value and optional value limits.

    :param name: the property name (must be in the catalogue).
    :param default: the default value (parsed like any written value).
    :param choices: if given, only these (canonical) values are allowed on this device.
    :param check: an extra check on the canonical value; returns an error text or None.
    """

    name: str
    default: Any
    choices: tuple[Any, ...] | None = None
    check: Callable[[Any], str | None] | None = field(default=None, compare=False)

    @property
    def spec(self) -> PropertySpec:
        return get_spec(self.name)

    def coerce(self, value: Any) -> Any:
        allowed = ", ".join(to_string(c) for c in self.choices) if self.choices is not None else None
        canonical = self.spec.coerce(value, allowed)
        if self.choices is not None and canonical not in self.choices:
            raise PropertyError(
                f"Wrong value {value!r} for property {self.name!r}. Supported values: {allowed}.")
        problem = self.check(canonical) if self.check else None
        if problem:
            raise PropertyError(f"Wrong value {value!r} for property {self.name!r}: {problem}")
        return canonical


class PropertyStore:
    """Current values of an owner's RW properties; writes are validated all-or-nothing.

    :param owner: who owns the values, for messages (e.g. ``"device 'FAKE'"``).
    :param declared: the RW properties the owner supports.
    :param read_only: names of the owner's RO properties (writes to them are refused).
    """

    def __init__(self, owner: str, declared: Iterable[Declared], read_only: Iterable[str] = ()) -> None:
        self._owner = owner
        self._declared = {d.name: d for d in declared}
        self._read_only = tuple(n for n in read_only if n not in self._declared)
        self._lock = threading.Lock()
        self._values = {name: d.coerce(d.default) for name, d in self._declared.items()}
        self._explicit: set[str] = set()
        self._given: frozenset[str] = frozenset()

    @property
    def owner(self) -> str:
        return self._owner

    def rw_names(self) -> list[str]:
        return list(self._declared)

    def ro_names(self) -> list[str]:
        return list(self._read_only)

    def supported(self) -> dict[str, str]:
        """``{name: "RO" | "RW"}`` as SUPPORTED_PROPERTIES reports it."""
        return {**{n: "RO" for n in self._read_only}, **{n: "RW" for n in self._declared}}

    def parse(self, props: Mapping[str, Any]) -> dict[str, Any]:
        """Validate ``props`` against this owner without storing them."""
        if not isinstance(props, Mapping):
            raise PropertyError(f"properties for {self._owner} must be a mapping, not {type(props).__name__}.")
        out: dict[str, Any] = {}
        for name, value in props.items():
            if name in self._read_only:
                raise PropertyError(f"property {name!r} of {self._owner} is read-only.")
            if name not in self._declared:
                raise PropertyError(
                    f"Unsupported property {name!r} by {self._owner}; supported properties: "
                    f"{', '.join(sorted(self.supported()))}.")
            out[name] = self._declared[name].coerce(value)
        return out

    def set(self, props: Mapping[str, Any]) -> None:
        parsed = self.parse(props)
        with self._lock:
            self._values.update(parsed)
            self._explicit.update(parsed)

    def set_unless_given(self, props: Mapping[str, Any]) -> None:
        """Set ``props``, except the names the call this store was made for gave (:meth:`merged`):
        in ``_import_model``, the configuration a blob carries goes under import_model's own
        properties, which win (OpenVINO's rule)."""
        self.set({name: value for name, value in props.items() if name not in self._given})

    def is_explicit(self, name: str) -> bool:
        """True when ``name`` was set (on this store or the one it was copied from), not defaulted:
        a device lets a performance hint decide what the user left unset (NUM_STREAMS, ...)."""
        with self._lock:
            return name in self._explicit

    def get(self, name: str) -> Any:
        with self._lock:
            if name in self._values:
                return self._values[name]
        raise PropertyError(
            f"Unsupported property {name!r} by {self._owner}; supported properties: "
            f"{', '.join(sorted(self.supported()))}.")

    def get_or(self, name: str, default: Any) -> Any:
        """The current value of ``name``, or ``default`` when this store has none."""
        with self._lock:
            return self._values.get(name, default)

    def has(self, name: str) -> bool:
        """True when ``name`` is writable here."""
        return name in self._declared

    def values(self) -> dict[str, Any]:
        with self._lock:
            return dict(self._values)

    def copy(self, owner: str | None = None, read_only: Iterable[str] | None = None) -> PropertyStore:
        new = PropertyStore.__new__(PropertyStore)
        new._owner = owner or self._owner
        new._declared = dict(self._declared)
        new._read_only = tuple(read_only) if read_only is not None else self._read_only
        new._lock = threading.Lock()
        with self._lock:
            new._values, new._explicit = dict(self._values), set(self._explicit)
        new._given = self._given
        return new

    def restricted(self, owner: str, rw: Iterable[str], read_only: Iterable[str]) -> PropertyStore:
        """A copy where only ``rw`` stay writable; every other current value stays readable."""
        keep = set(rw)
        new = self.copy(owner)
        new._declared = {n: d for n, d in self._declared.items() if n in keep}
        new._read_only = tuple(dict.fromkeys([*read_only, *(n for n in self._declared if n not in keep)]))
        return new

    def merged(self, props: Mapping[str, Any] | None) -> PropertyStore:
        """A copy with ``props`` applied on top (per-call over stored values); it remembers their
        names (:meth:`set_unless_given`)."""
        new = self.copy()
        new.set(props or {})
        new._given = frozenset(props or {})
        return new


def resolve_num_streams(num_streams: int, hint: Any, cpu_count: int | None = None) -> int:
    """Concrete stream count for NUM_STREAMS (AUTO/NUMA follow the performance hint)."""
    if num_streams > 0:
        return num_streams
    if num_streams == 0 or hint == PerformanceMode.LATENCY:
        return 1
    return max(1, min(cpu_count or os.cpu_count() or 1, 4))
